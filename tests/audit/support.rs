//! Shared by the `audit_*` integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use wordjudge_core::audit::{LexiconIdentity, ManualClock};
use wordjudge_core::judge::{judge, Adjudication, Challenge};
use wordjudge_core::lexicon::{catalog, Lexicon};
use wordjudge_core::panel::Trigger;
use wordjudge_core::recorder::{AdjudicationInput, AuditLog, AuditOptions, NotRecorded, Recorded};

pub fn demo() -> (Lexicon, LexiconIdentity) {
    let lexicon = catalog::open_demo().expect("the built-in demo lexicon opens");
    let identity = LexiconIdentity::of(&lexicon);
    (lexicon, identity)
}

pub fn adjudication(lexicon: &Lexicon, words: &[&str]) -> Adjudication {
    judge(lexicon, &Challenge::new(words).unwrap()).unwrap()
}

/// Judges `words` with the demo lexicon and records it; the challenge
/// number. Panics when the record was not written (use [`try_record`]).
pub fn record(log: &mut AuditLog, lexicon: &Lexicon, identity: &LexiconIdentity, words: &[&str]) -> u64 {
    try_record(log, lexicon, identity, words).unwrap_or_else(|e| panic!("{words:?} not recorded: {e}")).challenge
}

/// Like [`record`], with the slip code too, or why nothing was recorded
/// (then the verdict would not be shown).
pub fn try_record(
    log: &mut AuditLog,
    lexicon: &Lexicon,
    identity: &LexiconIdentity,
    words: &[&str],
) -> Result<Recorded, NotRecorded> {
    let adjudication = adjudication(lexicon, words);
    log.record_adjudication(&AdjudicationInput {
        lexicon: identity,
        adjudication: &adjudication,
        trigger: Trigger::Keyboard,
        profile: None,
    })
}

/// 2025-05-01T12:00:00Z, boot "boot-a".
pub fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new("2025-05-01T12:00:00Z".parse().unwrap(), "boot-a"))
}

/// Test settings: the manual clock, UTC, and no signing key (so tests that
/// count records see only their own). [`signed_options`] has the key.
pub fn options(clock: &Arc<ManualClock>) -> AuditOptions {
    AuditOptions {
        clock: clock.clone(),
        time_zone: jiff::tz::TimeZone::UTC,
        signing_key: false,
        ..AuditOptions::default()
    }
}

/// [`options`] with the station's signing key, as on a station.
pub fn signed_options(clock: &Arc<ManualClock>) -> AuditOptions {
    AuditOptions { signing_key: true, ..options(clock) }
}

/// The log files in `dir`, in order.
pub fn log_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// Every record of the log, parsed.
pub fn records(dir: &Path) -> Vec<serde_json::Value> {
    log_files(dir)
        .iter()
        .flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(String::from).collect::<Vec<_>>())
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect()
}

pub fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The full name libtest knows test `name` of module `module` by (this
/// binary's modules are `crash`, `faults`, …): for a child process that
/// runs one test of this binary with `--exact`.
pub fn test_name(module: &str, name: &str) -> String {
    let path = module.split_once("::").map_or("", |(_, rest)| rest);
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}::{name}")
    }
}

/// `wordjudge ARGS` as a director runs it, with the station config at
/// `config` and the time zone pinned.
pub fn wordjudge_with(config: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(crate::built::wordjudge())
        .args(args)
        .env("WORDJUDGE_CONFIG", config)
        .env("TZ", "UTC")
        .output()
        .unwrap()
}

/// What a command printed, as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
