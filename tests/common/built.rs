//! The two programs the tests run. `wordjudge-kiosk` is this package's, so
//! Cargo names it (`CARGO_BIN_EXE_…`); `wordjudge`, the command line, is
//! the `wordjudge-cli` package's (`crates/cli`: it must not share the
//! kiosk's crate graph) and is built beside it by `cargo build` or
//! `cargo test` at the top of the workspace, where the kiosk finds it too.

#![allow(dead_code)] // each test crate uses what it needs

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// `wordjudge-kiosk`.
pub fn kiosk() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wordjudge-kiosk"))
}

/// `wordjudge`, beside `wordjudge-kiosk`. `cargo test` rebuilds this
/// package's programs for its tests but not another package's, so a source
/// of the command line newer than the program means it was not rebuilt:
/// the tests stop and say so rather than test the old one.
pub fn wordjudge() -> PathBuf {
    // Checked once per test binary: the sources do not change while it runs.
    static CHECKED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CHECKED.get_or_init(checked_wordjudge).clone()
}

/// `wordjudge fleet ARGS…`, which must succeed: its standard output.
pub fn fleet(args: &[&str]) -> String {
    let out = std::process::Command::new(wordjudge()).arg("fleet").args(args).output().expect("wordjudge runs");
    assert!(out.status.success(), "fleet {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn checked_wordjudge() -> PathBuf {
    let path = kiosk().with_file_name("wordjudge");
    let built = std::fs::metadata(&path).and_then(|m| m.modified()).unwrap_or_else(|_| {
        panic!(
            "{} is not built: run `cargo build` at the top of the workspace, which builds both programs",
            path.display()
        )
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let newest = ["crates/core", "crates/cli"].iter().filter_map(|folder| newest_source(&root.join(folder))).max();
    if let Some(newer) = newest.filter(|(when, _)| *when > built) {
        panic!(
            "{} is older than {}: run `cargo build` at the top of the workspace first (`cargo test` alone does not rebuild the command line)",
            path.display(),
            newer.1.display()
        );
    }
    path
}

/// The newest `.rs` or `Cargo.toml` under `dir`, one of the two crates the
/// command line is built from.
fn newest_source(dir: &Path) -> Option<(SystemTime, PathBuf)> {
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let found = if path.is_dir() {
            newest_source(&path)
        } else if path.extension().is_some_and(|e| e == "rs") || name == "Cargo.toml" {
            entry.metadata().and_then(|m| m.modified()).ok().map(|when| (when, path))
        } else {
            None
        };
        if let Some(found) = found {
            if newest.as_ref().is_none_or(|(when, _)| found.0 > *when) {
                newest = Some(found);
            }
        }
    }
    newest
}
