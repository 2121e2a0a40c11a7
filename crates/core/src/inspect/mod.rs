//! Reading the audit log back, off the writer's path: `audit verify`
//! ([`verify()`]: every file, the hash chain, the challenge numbers, slips and
//! checkpoints), `audit show` ([`read`]) and the folder a director takes home
//! on a stick ([`export`]).
//!
//! It imports the format from [`crate::audit`] and never the writer
//! ([`crate::recorder`]): a log is checked from its bytes alone, the same
//! way on the station and on a director's laptop (`tests/layers.rs`).

pub mod export;
pub mod read;
pub mod verify;

pub use verify::{verify, verify_with, Break, BreakKind, JournalCopy, VerifyError, VerifyOptions, VerifyReport};
