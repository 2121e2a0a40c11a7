//! The lexicon engine: files, trust, installs under kill -9, and the real tournament lists.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

#[path = "../common/built.rs"]
mod built;
mod files;
mod install_kill;
mod real;
mod support;
mod trust;
