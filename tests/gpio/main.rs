//! The judge button and lamps: config, opening, the simulated twin, `gpio test`.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

#[path = "../common/built.rs"]
mod built;
mod cli;
mod config;
mod open;
mod sim;
