//! The recorder: the audit folder's one writer, so a verdict on screen is
//! already on disk.
//!
//! * [`writer`]: [`AuditLog`], holding the folder's lock, reserving each
//!   challenge number durably before it is used, appending and
//!   `fdatasync`ing each record before [`AuditLog::record_adjudication`]
//!   returns, rotating files and sealing them with signed checkpoints;
//! * `scan`: reading the chain's end at start-up (head, torn tail, recent
//!   adjudications, today's count) so appending continues it;
//! * `backlog`: records held in memory while the file cannot be written;
//! * [`journal`]: the journald copy, handed to a worker thread so the
//!   verdict never waits on journald.
//!
//! No verdict without its record: when the file cannot be written,
//! [`AuditLog::record_adjudication`] refuses (the station goes out of
//! service and the director is told why through [`AuditLog::problem`]),
//! while other events are kept in memory, journald still gets them, and
//! once writing works again a `write_failed` event and the held events
//! (marked `delayed`) go into the file. Stopping the game is the safer
//! failure: a verdict the station cannot prove later is worth less in a
//! dispute than a director called to the table now. The format it writes
//! is [`crate::audit`]'s; reading it back is [`crate::inspect`]'s.

mod backlog;
pub mod journal;
mod scan;
pub mod writer;

pub use journal::{journal_field_name, journald_layer, SYSLOG_IDENTIFIER};
pub use scan::station_named_in_log;
pub use writer::{AuditLog, ChainHead, NeverShown, NotRecorded, Recorded};

use crate::audit::{Clock, LexiconIdentity, SystemClock, WriterBusy};
use crate::judge::Adjudication;
use crate::panel::Trigger;
use jiff::tz::TimeZone;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Files grow to at most this size before the log moves on to the next.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Records held in memory while the file cannot be written; beyond this the
/// oldest are dropped (and counted in the `write_failed` event).
pub const DEFAULT_MAX_BACKLOG: usize = 10_000;

/// The same words judged again within this window get `repeat_of`.
pub const REPEAT_WINDOW: Duration = Duration::from_secs(10 * 60);

/// Most recent adjudications kept for `repeat_of`.
const MAX_RECENT: usize = 1000;

/// What [`AuditLog::record_adjudication`] records.
#[derive(Debug, Clone, Copy)]
pub struct AdjudicationInput<'a> {
    pub lexicon: &'a LexiconIdentity,
    pub adjudication: &'a Adjudication,
    pub trigger: Trigger,
    /// The event profile in force, if any (recorded with the adjudication).
    pub profile: Option<&'a str>,
}

/// Why the audit file could not be written or read.
#[derive(Debug)]
pub enum AuditError {
    /// The directory cannot be created (e.g. a file is in the way).
    CreateDir { dir: PathBuf, source: io::Error },
    /// The directory cannot be listed.
    ReadDir { dir: PathBuf, source: io::Error },
    /// A log file cannot be read.
    Read { path: PathBuf, source: io::Error },
    /// A log file cannot be opened or created for appending.
    Open { path: PathBuf, source: io::Error },
    /// Appending or syncing a record failed (disk full, read-only, I/O error).
    Write { path: PathBuf, source: io::Error },
    /// A torn last line could not be moved aside.
    MoveAside { path: PathBuf, source: io::Error },
    /// A record could not be encoded (should not happen).
    Encode(String),
    /// Another live process is the folder's writer.
    Busy(WriterBusy),
    /// The challenge counter cannot be opened or written.
    Counter { path: PathBuf, source: io::Error },
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::CreateDir { dir, source } => {
                write!(f, "cannot create the audit directory {}: {source}", dir.display())
            }
            AuditError::ReadDir { dir, source } => {
                write!(f, "cannot list the audit directory {}: {source}", dir.display())
            }
            AuditError::Read { path, source } => write!(f, "cannot read audit file {}: {source}", path.display()),
            AuditError::Open { path, source } => write!(f, "cannot open audit file {}: {source}", path.display()),
            AuditError::Write { path, source } => write!(f, "cannot write audit file {}: {source}", path.display()),
            AuditError::MoveAside { path, source } => {
                write!(f, "cannot move the torn last line aside to {}: {source}", path.display())
            }
            AuditError::Encode(e) => write!(f, "cannot encode an audit record: {e}"),
            AuditError::Busy(busy) => busy.fmt(f),
            AuditError::Counter { path, source } => {
                write!(f, "cannot keep the challenge counter {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for AuditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AuditError::CreateDir { source, .. }
            | AuditError::ReadDir { source, .. }
            | AuditError::Read { source, .. }
            | AuditError::Open { source, .. }
            | AuditError::Write { source, .. }
            | AuditError::MoveAside { source, .. }
            | AuditError::Counter { source, .. } => Some(source),
            AuditError::Encode(_) | AuditError::Busy(_) => None,
        }
    }
}

/// Settings of an [`AuditLog`]; [`Default`] is what a station uses.
#[derive(Clone)]
pub struct AuditOptions {
    /// A file reaching this size is closed and the log continues in a new one.
    pub max_file_bytes: u64,
    /// Records held in memory while the file cannot be written.
    pub max_backlog: usize,
    /// Where times come from.
    pub clock: Arc<dyn Clock>,
    /// Time zone of "today" (counts, and the date in file names).
    pub time_zone: TimeZone,
    /// Make (at the first start) and use the station's checkpoint signing
    /// key in `key/` inside the folder. On for a station; tests that count
    /// records turn it off.
    pub signing_key: bool,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_backlog: DEFAULT_MAX_BACKLOG,
            clock: Arc::new(SystemClock),
            time_zone: TimeZone::system(),
            signing_key: true,
        }
    }
}

impl fmt::Debug for AuditOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditOptions")
            .field("max_file_bytes", &self.max_file_bytes)
            .field("max_backlog", &self.max_backlog)
            .field("time_zone", &self.time_zone.iana_name())
            .field("signing_key", &self.signing_key)
            .finish_non_exhaustive()
    }
}
