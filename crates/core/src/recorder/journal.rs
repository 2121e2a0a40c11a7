//! The journald copy of every audit record.
//!
//! Records go out as `tracing` events (target `wordjudge::audit`) whose
//! fields become journal fields through [`journald_layer`]: the layer is set
//! up with the prefix `WORDJUDGE`, so the field `event` arrives as
//! `WORDJUDGE_EVENT`, `challenge` as `WORDJUDGE_CHALLENGE`, and so on, and
//! with a fixed `SYSLOG_IDENTIFIER=wordjudge` (not the executable's name,
//! which changes with how it was started). `journalctl -o json
//! SYSLOG_IDENTIFIER=wordjudge WORDJUDGE_EVENT=adjudication` finds them.
//!
//! The verdict never waits on journald. tracing-journald writes a blocking
//! datagram to journald's socket, and a busy or hung journald (a slow SD card,
//! a restart) makes such a send wait. So the audit log only hands an owned
//! copy of the record to a worker thread through a bounded queue
//! (`try_send`: when full, the copy is dropped and counted, never waited on);
//! the worker emits the event under the `tracing` dispatcher that was current
//! for the caller when the record was made.

use crate::audit::record::{AuditEvent, Body};
use crate::audit::slip::SlipCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use tracing::Dispatch;

/// The journal's `SYSLOG_IDENTIFIER` for everything wordjudge logs.
pub const SYSLOG_IDENTIFIER: &str = "wordjudge";

/// Prefix tracing-journald puts (with `_`) before every field name.
pub const FIELD_PREFIX: &str = "WORDJUDGE";

/// `tracing` target of audit events.
pub const TARGET: &str = "wordjudge::audit";

/// `WORDJUDGE_EVENT` of the warning sent when the log starts failing (not a
/// record in the file: there is no file to write it to).
pub const AUDIT_FAILING: &str = "audit_failing";

/// The checkpoint a journald copy of line `seq` (whose `line_sha256` is
/// `hash`) carries: the log up to that line, signed with the station's
/// `key`. [`crate::fleet::proof`] checks it on the laptop.
pub fn line_checkpoint(
    key: &crate::audit::checkpoint::StationKey,
    seq: u64,
    hash: &str,
    time: String,
    station: &str,
) -> String {
    key.sign(&crate::audit::checkpoint::Checkpoint {
        count: seq,
        head: hash.to_string(),
        time,
        station: station.to_string(),
        reason: crate::audit::CheckpointReason::Journal.as_str().to_string(),
    })
}

/// Records waiting for the worker beyond which copies are dropped.
const QUEUE: usize = 4096;

/// The journald layer for the kiosk's tracing setup, or `None` when no
/// journald listens (a desktop without systemd, a container, a test).
///
/// ```no_run
/// use tracing_subscriber::prelude::*;
/// tracing_subscriber::registry().with(wordjudge_core::recorder::journald_layer()).init();
/// ```
pub fn journald_layer() -> Option<tracing_journald::Layer> {
    tracing_journald::layer().ok().map(|layer| {
        layer.with_syslog_identifier(SYSLOG_IDENTIFIER.to_string()).with_field_prefix(Some(FIELD_PREFIX.to_string()))
    })
}

/// Runs `f` with journald, when it listens, as this thread's `tracing`
/// subscriber for audit records alone: the records a command-line run writes
/// into a station's log (an export, a fleet visit) get their journald copies
/// as the kiosk's do, so a fleet's laptop sees no hole in the station's
/// chain where the command line wrote. Nothing else the command logs goes
/// to journald.
pub fn with_journald<T>(f: impl FnOnce() -> T) -> T {
    use tracing_subscriber::prelude::*;
    match journald_layer() {
        Some(layer) => {
            let audit_only = tracing_subscriber::filter::filter_fn(|meta| meta.target() == TARGET);
            let subscriber = tracing_subscriber::registry().with(layer.with_filter(audit_only));
            tracing::subscriber::with_default(subscriber, f)
        }
        None => f(),
    }
}

/// The journal field name tracing-journald makes of a `tracing` field name
/// with [`journald_layer`]'s settings (`message` stays `MESSAGE`).
pub fn journal_field_name(field: &str) -> String {
    let name: String = field
        .chars()
        .map(|c| if c == '.' { '_' } else { c })
        .skip_while(|&c| c == '_')
        .filter(|&c| c == '_' || c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if field == "message" {
        name
    } else {
        format!("{FIELD_PREFIX}_{name}")
    }
}

/// An owned copy of one record for journald.
#[derive(Debug, Clone, Default)]
pub(crate) struct Entry {
    pub warn: bool,
    pub message: String,
    pub event: String,
    pub station: String,
    pub seq: Option<u64>,
    pub challenge: Option<u64>,
    pub verdict: Option<&'static str>,
    pub words: Option<String>,
    pub per_word: Option<String>,
    pub lexicon: Option<String>,
    pub lexicon_fingerprint: Option<String>,
    pub lexicon_status: Option<String>,
    pub trigger: Option<&'static str>,
    pub repeat_of: Option<u64>,
    /// Whether the record is in the audit file (false while it is failing).
    pub audit_written: bool,
    /// The record's `line_sha256` in the audit file: the same value as in
    /// the file and in `audit verify`'s output.
    pub line_sha256: Option<String>,
    /// The slip code of that line.
    pub code: Option<String>,
    pub problem: Option<String>,
    /// The record as JSON (without the chain fields).
    pub record: String,
    /// The whole line as written to the audit file, seal included: what the
    /// laptop recomputes `line_sha256` and the chain from.
    pub line: Option<String>,
    /// A signed checkpoint (a C2SP signed note, [`crate::audit::checkpoint`])
    /// of the log up to this line: count = `seq`, head = `line_sha256`.
    pub checkpoint: Option<String>,
}

impl Entry {
    /// The journald copy of a record: the same typed body as the file's line,
    /// its `seq`, `line_sha256` and code when it was written, and the
    /// problem when it was not.
    pub fn of(
        body: &Body,
        station: &str,
        seq: Option<u64>,
        line_sha256: Option<String>,
        problem: Option<String>,
    ) -> Entry {
        let mut entry = Entry {
            station: station.to_string(),
            seq,
            audit_written: line_sha256.is_some(),
            code: line_sha256.as_deref().and_then(SlipCode::of_line_hash).map(|c| c.to_string()),
            line_sha256,
            record: serde_json::to_string(body).unwrap_or_default(),
            event: body.name().to_string(),
            message: body.describe(),
            ..Default::default()
        };
        match body {
            Body::Adjudication(a) => {
                entry.challenge = Some(a.challenge);
                entry.verdict = Some(a.verdict.label());
                entry.words = Some(a.words.join(" "));
                entry.per_word = Some(a.per_word_text());
                entry.lexicon = Some(a.lexicon.id.clone());
                entry.lexicon_fingerprint = Some(a.lexicon.fingerprint.clone());
                entry.lexicon_status = Some(a.lexicon.status.clone());
                entry.trigger = Some(a.trigger.as_str());
                entry.repeat_of = a.repeat_of;
            }
            Body::Event(e) => {
                entry.warn = e.is_problem();
                match e {
                    AuditEvent::LexiconOpened { id, status, fingerprint, problem } => {
                        entry.lexicon = Some(id.clone());
                        entry.lexicon_status = Some(status.clone());
                        entry.lexicon_fingerprint = fingerprint.clone();
                        entry.problem = problem.clone();
                    }
                    AuditEvent::LexiconSwitched { to, .. } => entry.lexicon = Some(to.clone()),
                    AuditEvent::LexiconSwitchRefused { to, reason, .. } => {
                        entry.lexicon = Some(to.clone());
                        entry.problem = Some(reason.clone());
                    }
                    AuditEvent::ConfigProblem { problem }
                    | AuditEvent::GpioProblem { problem }
                    | AuditEvent::DisplayProblem { problem }
                    | AuditEvent::KeyProblem { problem } => entry.problem = Some(problem.clone()),
                    AuditEvent::WriteFailed { error, .. } => entry.problem = Some(error.clone()),
                    AuditEvent::FleetRefused { reason, .. } => entry.problem = Some(reason.clone()),
                    _ => {}
                }
            }
            Body::Unknown { .. } => {}
            Body::Invalid { problem, .. } => entry.problem = Some(problem.clone()),
        }
        if entry.problem.is_none() {
            entry.problem = problem;
        }
        entry
    }
}

macro_rules! emit_at {
    ($level:expr, $e:expr, $dropped:expr) => {
        tracing::event!(
            target: "wordjudge::audit",
            $level,
            event = $e.event.as_str(),
            station = $e.station.as_str(),
            seq = $e.seq,
            challenge = $e.challenge,
            verdict = $e.verdict,
            words = $e.words.as_deref(),
            per_word = $e.per_word.as_deref(),
            lexicon = $e.lexicon.as_deref(),
            lexicon_fingerprint = $e.lexicon_fingerprint.as_deref(),
            lexicon_status = $e.lexicon_status.as_deref(),
            trigger = $e.trigger,
            repeat_of = $e.repeat_of,
            audit_written = $e.audit_written,
            line_sha256 = $e.line_sha256.as_deref(),
            code = $e.code.as_deref(),
            problem = $e.problem.as_deref(),
            journal_dropped = $dropped,
            record = $e.record.as_str(),
            line = $e.line.as_deref(),
            checkpoint = $e.checkpoint.as_deref(),
            "{}",
            $e.message
        )
    };
}

fn emit(entry: &Entry, dropped: Option<u64>) {
    if entry.warn {
        emit_at!(tracing::Level::WARN, entry, dropped);
    } else {
        emit_at!(tracing::Level::INFO, entry, dropped);
    }
}

struct Shared {
    /// Entries handed to the worker / emitted by it.
    done: Mutex<u64>,
    cv: Condvar,
    dropped: AtomicU64,
}

/// The sending half, owned by the audit log.
pub(crate) struct Journal {
    tx: Option<SyncSender<(Dispatch, Entry)>>,
    sent: u64,
    shared: Arc<Shared>,
}

impl Journal {
    pub fn start() -> Journal {
        let shared = Arc::new(Shared { done: Mutex::new(0), cv: Condvar::new(), dropped: AtomicU64::new(0) });
        let (tx, rx) = sync_channel::<(Dispatch, Entry)>(QUEUE);
        let worker_shared = Arc::clone(&shared);
        let spawned = std::thread::Builder::new().name("audit-journal".into()).spawn(move || {
            for (dispatch, entry) in rx {
                let dropped = worker_shared.dropped.swap(0, Ordering::Relaxed);
                tracing::dispatcher::with_default(&dispatch, || emit(&entry, (dropped > 0).then_some(dropped)));
                let mut done = worker_shared.done.lock().unwrap_or_else(|e| e.into_inner());
                *done += 1;
                worker_shared.cv.notify_all();
            }
        });
        // Without a worker thread, events are emitted inline (still correct,
        // only no longer shielded from a hung journald).
        Journal { tx: spawned.ok().map(|_| tx), sent: 0, shared }
    }

    /// Whether a copy sent now would go anywhere: a `tracing` subscriber is
    /// set for the calling thread. What costs something to make (a
    /// signature) is made only then.
    pub fn listening(&self) -> bool {
        !tracing::dispatcher::get_default(|d| d.is::<tracing::subscriber::NoSubscriber>())
    }

    /// Hands `entry` on without waiting. Nothing is sent when no `tracing`
    /// subscriber is set for the calling thread.
    pub fn send(&mut self, entry: Entry) {
        let dispatch = tracing::dispatcher::get_default(|d| d.clone());
        if dispatch.is::<tracing::subscriber::NoSubscriber>() {
            return;
        }
        match &self.tx {
            Some(tx) => match tx.try_send((dispatch, entry)) {
                Ok(()) => self.sent += 1,
                Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                    self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                }
            },
            None => emit(&entry, None),
        }
    }

    /// Waits up to `timeout` until every entry sent so far has been emitted;
    /// false if time ran out. For shut-down and tests.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut done = self.shared.done.lock().unwrap_or_else(|e| e.into_inner());
        while *done < self.sent {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            done = self.shared.cv.wait_timeout(done, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_follow_tracing_journald() {
        assert_eq!(journal_field_name("event"), "WORDJUDGE_EVENT");
        assert_eq!(journal_field_name("repeat_of"), "WORDJUDGE_REPEAT_OF");
        assert_eq!(journal_field_name("message"), "MESSAGE");
    }
}
