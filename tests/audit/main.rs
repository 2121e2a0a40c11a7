//! The audit log, its writer and its readers: one test binary (ripgrep-style: a list of modules).
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

#[path = "../common/built.rs"]
mod built;
mod cli;
mod crash;
mod faults;
#[path = "../common/journal_fields.rs"]
mod journal_fields;
mod journald;
mod log;
#[path = "../common/race.rs"]
mod race;
mod support;
mod trail;
mod trust;
