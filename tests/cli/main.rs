//! The `wordjudge` command as directors and scripts run it.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

mod bounded;
#[path = "../common/built.rs"]
mod built;
mod judge;
mod pin_child;
mod pipe;
mod programs;
