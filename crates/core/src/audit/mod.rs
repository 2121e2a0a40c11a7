//! The audit log's format: what the writer ([`crate::recorder`]) and the
//! readers ([`crate::inspect`]) agree on, and nothing that does either.
//!
//! A director trusts the log in a dispute because every party reads the same
//! bytes the same way. This module owns those bytes' meaning:
//!
//! * [`record`]: the one typed schema of a line, used to write, read, show,
//!   export and send to journald;
//! * [`format`](mod@format): lines, seals (`line_sha256` + slip `code`) and file names;
//! * [`slip`]: the 8-character verification code on every verdict;
//! * [`numbering`]: the durable challenge counter's file, so a number is
//!   never handed out twice and a verdict shown without a record leaves a
//!   trace;
//! * [`checkpoint`]: the station's Ed25519 key and signed checkpoints;
//! * [`lock`]: the folder's one-writer lock and how a reader names its holder;
//! * [`clock`]: where record times come from (a test can stop it).
//!
//! Writing (append, fsync, backlog, journald) lives in [`crate::recorder`];
//! reading back (verify, show, export) in [`crate::inspect`]. Those two
//! import this module and never each other (`tests/layers.rs`).

pub mod checkpoint;
pub mod clock;
pub mod format;
pub mod key_fingerprint;
pub mod lock;
pub mod numbering;
pub mod record;
pub mod slip;

pub use checkpoint::{FingerprintError, KeyFingerprint, NoteVerifier, NotedFingerprint, VerifierKeyError};
pub use clock::{Clock, ManualClock, SystemClock};
pub use lock::WriterBusy;
pub use record::{AdjudicationRecord, AuditEvent, Body, CheckpointReason, EventKind, LexiconIdentity, Record};
pub use slip::{CopyingError, Slip, SlipCode};

/// Whether `dir` already holds log files (a chain to append to). Opening a
/// folder without one starts a new chain, which a station with a broken
/// config must never do.
pub fn has_chain(dir: &std::path::Path) -> bool {
    format::list_dir(dir).is_ok_and(|(logs, _)| !logs.is_empty())
}
