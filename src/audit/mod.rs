//! The audit log: the record a director can trust in a dispute.
//!
//! This module owns everything the station writes about what it did: one
//! record per adjudication (words exactly as judged, verdict, per-word
//! results, lexicon identity, times) and the events around them (start-up,
//! lexicons, director PIN, problems). Each record goes to two sinks:
//!
//! * an append-only, hash-chained JSON Lines file set in the audit directory
//!   ([`format`] describes the lines and files), written and `fdatasync`ed
//!   before [`AuditLog::record_adjudication`] returns, so a verdict on screen
//!   is always already on disk;
//! * journald, through `tracing` ([`journal`]), handed to a worker thread so
//!   the verdict never waits on journald.
//!
//! Writing never stops the game: when the file cannot be written, records
//! are kept in memory, [`AuditLog::problem`] gives the director a warning,
//! journald still gets every record, and once writing works again a
//! `write_failed` event and the held records (marked `delayed`) go into the
//! file. [`verify()`] checks files and chain; [`read`] serves `audit show`
//! and `audit export`.

pub mod clock;
pub mod format;
pub mod journal;
pub mod read;
pub mod verify;

pub use clock::{Clock, ManualClock, SystemClock};
pub use journal::{journal_field_name, journald_layer, SYSLOG_IDENTIFIER};
pub use verify::{verify, Break, BreakKind, VerifyError, VerifyReport};

use crate::judge::{Adjudication, Verdict};
use crate::panel::Trigger;
use crate::lexicon::Lexicon;
use clock::Stamp;
use format::LogName;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
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

/// What identifies the lexicon an adjudication was made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LexiconIdentity {
    /// Lexicon id, e.g. `CSW21`.
    pub id: String,
    /// Word-list fingerprint (hex), as shown to players.
    pub fingerprint: String,
    /// SHA-256 of each layer's .fst file, in layer order.
    pub fst_sha256: Vec<String>,
    /// Status wording (`Verified official`, `Verified`, …).
    pub status: String,
}

impl LexiconIdentity {
    /// The identity of an opened lexicon.
    pub fn of(lexicon: &Lexicon) -> LexiconIdentity {
        LexiconIdentity {
            id: lexicon.id().to_string(),
            fingerprint: lexicon.fingerprint().to_string(),
            fst_sha256: lexicon.layers().iter().map(|l| l.fst_sha256().to_string()).collect(),
            status: lexicon.status().label().to_string(),
        }
    }
}

/// What [`AuditLog::record_adjudication`] records.
#[derive(Debug, Clone, Copy)]
pub struct AdjudicationInput<'a> {
    pub lexicon: &'a LexiconIdentity,
    pub adjudication: &'a Adjudication,
    pub trigger: Trigger,
}

/// Everything the log records besides adjudications. Serialized with an
/// `event` tag in snake case (`{"event":"pin_refused","failures":2}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AuditEvent {
    Startup {
        version: String,
    },
    Shutdown,
    LexiconOpened {
        id: String,
        status: String,
        fingerprint: Option<String>,
        problem: Option<String>,
    },
    /// Switched by the director.
    LexiconSwitched {
        from: String,
        to: String,
    },
    PinAccepted,
    PinRefused {
        failures: u32,
    },
    LockedOut {
        seconds: u32,
    },
    DirectorLeft,
    ConfigProblem {
        problem: String,
    },
    GpioProblem {
        problem: String,
    },
    /// Written by the log itself at open: the last line of `file` was torn
    /// (a crash or power cut mid-write); its `torn_bytes` bytes starting at
    /// `offset` were moved to `moved_to` and the chain continues.
    Recovered {
        file: String,
        offset: u64,
        torn_bytes: u64,
        torn_sha256: String,
        moved_to: String,
        /// Challenge number found in the torn bytes, if any (never reused).
        challenge: Option<u64>,
    },
    /// Written by the log itself when writing works again after failing
    /// `since` (RFC 3339) with `error`. The `held` records kept in memory
    /// follow, each marked `delayed`; `lost` were dropped when the memory
    /// backlog was full (journald still has them). `challenges` is the range
    /// numbered while failing; `note` says when numbers may repeat.
    WriteFailed {
        since: String,
        error: String,
        held: u64,
        lost: u64,
        challenges: Option<[u64; 2]>,
        note: Option<String>,
    },
    /// Written by the log itself as the last line of a file: the chain
    /// continues in `next_file` (`reason`: `new day` or `size`).
    Rotated {
        next_file: String,
        reason: String,
    },
}

impl AuditEvent {
    /// The `event` tag, e.g. `pin_refused`.
    pub fn name(&self) -> &'static str {
        match self {
            AuditEvent::Startup { .. } => "startup",
            AuditEvent::Shutdown => "shutdown",
            AuditEvent::LexiconOpened { .. } => "lexicon_opened",
            AuditEvent::LexiconSwitched { .. } => "lexicon_switched",
            AuditEvent::PinAccepted => "pin_accepted",
            AuditEvent::PinRefused { .. } => "pin_refused",
            AuditEvent::LockedOut { .. } => "locked_out",
            AuditEvent::DirectorLeft => "director_left",
            AuditEvent::ConfigProblem { .. } => "config_problem",
            AuditEvent::GpioProblem { .. } => "gpio_problem",
            AuditEvent::Recovered { .. } => "recovered",
            AuditEvent::WriteFailed { .. } => "write_failed",
            AuditEvent::Rotated { .. } => "rotated",
        }
    }

    /// Whether the event is a problem (a warning in journald).
    fn is_problem(&self) -> bool {
        matches!(
            self,
            AuditEvent::ConfigProblem { .. }
                | AuditEvent::GpioProblem { .. }
                | AuditEvent::Recovered { .. }
                | AuditEvent::WriteFailed { .. }
                | AuditEvent::LockedOut { .. }
                | AuditEvent::PinRefused { .. }
        ) || matches!(self, AuditEvent::LexiconOpened { problem: Some(_), .. })
    }

    fn describe(&self) -> String {
        match self {
            AuditEvent::Startup { version } => format!("wordjudge {version} started"),
            AuditEvent::Shutdown => "wordjudge shutting down".into(),
            AuditEvent::LexiconOpened { id, status, problem, .. } => match problem {
                Some(p) => format!("lexicon {id} opened: {status}: {p}"),
                None => format!("lexicon {id} opened: {status}"),
            },
            AuditEvent::LexiconSwitched { from, to } => format!("director switched lexicon {from} -> {to}"),
            AuditEvent::PinAccepted => "director PIN accepted".into(),
            AuditEvent::PinRefused { failures } => format!("director PIN refused ({failures} failures)"),
            AuditEvent::LockedOut { seconds } => format!("director menu locked for {seconds} s"),
            AuditEvent::DirectorLeft => "director left the menu".into(),
            AuditEvent::ConfigProblem { problem } => format!("config problem: {problem}"),
            AuditEvent::GpioProblem { problem } => format!("GPIO problem: {problem}"),
            AuditEvent::Recovered { file, torn_bytes, moved_to, .. } => {
                format!("audit log recovered: torn last line of {file} ({torn_bytes} bytes) moved to {moved_to}")
            }
            AuditEvent::WriteFailed { since, error, held, lost, .. } => format!(
                "audit log could not be written since {since} ({error}); {held} held records follow, {lost} lost"
            ),
            AuditEvent::Rotated { next_file, reason } => format!("audit log continues in {next_file} ({reason})"),
        }
    }
}

/// The adjudication part of a record.
#[derive(Debug, Clone, Serialize)]
struct AdjudicationRecord {
    event: &'static str,
    challenge: u64,
    lexicon: LexiconIdentity,
    words: Vec<String>,
    verdict: Verdict,
    per_word: Vec<bool>,
    trigger: Trigger,
    repeat_of: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum Body {
    Adjudication(AdjudicationRecord),
    Event(AuditEvent),
}

/// One line as written: chain fields, times, station, then the body.
#[derive(Serialize)]
struct LineOut<'a> {
    seq: u64,
    prev: &'a str,
    time: String,
    boot_id: &'a str,
    mono_ns: u64,
    clock_synced: bool,
    station: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    delayed: bool,
    #[serde(flatten)]
    body: &'a Body,
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
            | AuditError::MoveAside { source, .. } => Some(source),
            AuditError::Encode(_) => None,
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
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_backlog: DEFAULT_MAX_BACKLOG,
            clock: Arc::new(SystemClock),
            time_zone: TimeZone::system(),
        }
    }
}

impl fmt::Debug for AuditOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditOptions")
            .field("max_file_bytes", &self.max_file_bytes)
            .field("max_backlog", &self.max_backlog)
            .field("time_zone", &self.time_zone.iana_name())
            .finish_non_exhaustive()
    }
}

/// The file being appended to.
struct Output {
    file: File,
    path: PathBuf,
    name: LogName,
    /// Bytes known good: a failed append is truncated back to this.
    len: u64,
}

/// Where the chain ends on disk.
#[derive(Debug, Clone)]
struct ChainEnd {
    next_seq: u64,
    prev: String,
}

/// An adjudication judged recently, for `repeat_of`.
#[derive(Debug, Clone)]
struct Recent {
    words: Vec<String>,
    challenge: u64,
    boot_id: String,
    stamp: Stamp,
}

/// The log is failing since…
struct Failure {
    since: Timestamp,
    error: String,
    dropped: u64,
    /// Challenge numbers given while failing.
    challenges: Option<[u64; 2]>,
    /// Whether the log had been read when the failure began (if not,
    /// numbers given since may repeat numbers in the log).
    numbering_from_log: bool,
}

struct Pending {
    stamp: Stamp,
    body: Body,
}

/// The audit log of one station. See the module documentation.
pub struct AuditLog {
    dir: PathBuf,
    station: String,
    options: AuditOptions,
    boot_id: String,
    out: Option<Output>,
    /// Known once the directory has been read successfully.
    chain: Option<ChainEnd>,
    last_challenge: u64,
    /// Highest challenge number in the log when it was last read.
    log_max_challenge: u64,
    /// Whether challenge numbers so far continued from the log (false while
    /// the log has never been readable: they may repeat numbers in it).
    numbering_from_log: bool,
    failure: Option<Failure>,
    backlog: VecDeque<Pending>,
    recent: VecDeque<Recent>,
    since_start: u64,
    today: (Date, u64),
    journal: journal::Journal,
}

impl AuditLog {
    /// Opens/creates `dir`, finds the end of the hash chain and recovers a
    /// torn last line (moved aside next to the log, a `recovered` event
    /// recorded, the chain continued). Never fails: when the directory is
    /// missing or unwritable the log is returned failing ([`Self::problem`] is
    /// `Some`) and tries again on every later record.
    pub fn open(dir: &Path, station_name: &str) -> AuditLog {
        AuditLog::open_with(dir, station_name, AuditOptions::default())
    }

    /// [`Self::open`] with other settings (file size, clock, time zone).
    pub fn open_with(dir: &Path, station_name: &str, options: AuditOptions) -> AuditLog {
        let boot_id = options.clock.boot_id();
        let stamp = Stamp::take(options.clock.as_ref());
        let today = stamp.time.to_zoned(options.time_zone.clone()).date();
        let mut log = AuditLog {
            dir: dir.to_path_buf(),
            station: station_name.to_string(),
            options,
            boot_id,
            out: None,
            chain: None,
            last_challenge: 0,
            log_max_challenge: 0,
            numbering_from_log: false,
            failure: None,
            backlog: VecDeque::new(),
            recent: VecDeque::new(),
            since_start: 0,
            today: (today, 0),
            journal: journal::Journal::start(),
        };
        if let Err(e) = log.attach(&stamp) {
            log.note_failure(&e, stamp);
        }
        log
    }

    /// The directory of the log.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one adjudication record, `fdatasync`ed before returning, and
    /// returns its challenge number: unique on this station, continuing from
    /// the highest number in the log. A write failure is not an error here —
    /// the verdict must still be shown — it sets [`Self::problem`] and the
    /// record is held until writing works again. journald gets a copy
    /// without the caller waiting on it.
    pub fn record_adjudication(&mut self, input: &AdjudicationInput<'_>) -> u64 {
        let stamp = Stamp::take(self.options.clock.as_ref());
        // A failing log is retried before numbering, so a log readable again
        // gives its highest number to continue from.
        let attached = self.ensure_attached(&stamp);
        let challenge = self.last_challenge.saturating_add(1);
        self.last_challenge = challenge;
        let words = input.adjudication.words().to_vec();
        let repeat_of = self.repeat_of(&words, &stamp);
        self.recent.push_back(Recent { words: words.clone(), challenge, boot_id: self.boot_id.clone(), stamp });
        self.since_start += 1;
        let date = self.local_date(&stamp);
        if self.today.0 != date {
            self.today = (date, 0);
        }
        self.today.1 += 1;
        let record = AdjudicationRecord {
            event: "adjudication",
            challenge,
            lexicon: input.lexicon.clone(),
            words,
            verdict: input.adjudication.verdict(),
            per_word: input.adjudication.per_word_for_audit().to_vec(),
            trigger: input.trigger,
            repeat_of,
        };
        self.record(stamp, Body::Adjudication(record), attached);
        challenge
    }

    /// Records an event (start-up, lexicon, director, problems).
    pub fn record_event(&mut self, event: AuditEvent) {
        let stamp = Stamp::take(self.options.clock.as_ref());
        let attached = self.ensure_attached(&stamp);
        self.record(stamp, Body::Event(event), attached);
    }

    /// A director-visible warning while the log is failing; `None` when healthy.
    pub fn problem(&self) -> Option<String> {
        let failure = self.failure.as_ref()?;
        let since = failure.since.to_zoned(self.options.time_zone.clone()).strftime("%H:%M:%S");
        let mut text = format!(
            "Audit log not written since {since}: {}. {} record(s) held in memory until it can be written.",
            failure.error,
            self.backlog.len()
        );
        if failure.dropped > 0 {
            text.push_str(&format!(" {} record(s) lost from memory (journald has them).", failure.dropped));
        }
        if !self.numbering_from_log {
            text.push_str(" The log could not be read: challenge numbers restarted from this session's and may repeat earlier ones.");
        }
        Some(text)
    }

    /// Adjudications recorded since this process started.
    pub fn adjudications_since_start(&self) -> u64 {
        self.since_start
    }

    /// Adjudications today (local date), those already in the log at open
    /// included.
    pub fn adjudications_today(&self) -> u64 {
        let stamp_date = self.options.clock.now().to_zoned(self.options.time_zone.clone()).date();
        if stamp_date == self.today.0 {
            self.today.1
        } else {
            0
        }
    }

    /// Waits up to `timeout` until the journald copies of every record so far
    /// have been handed to `tracing`. Call at shut-down; false if time ran out.
    pub fn flush_journal(&self, timeout: Duration) -> bool {
        self.journal.flush(timeout)
    }

    fn local_date(&self, stamp: &Stamp) -> Date {
        stamp.time.to_zoned(self.options.time_zone.clone()).date()
    }

    /// The most recent challenge with the same words, in the same order,
    /// within [`REPEAT_WINDOW`]. Within one boot, CLOCK_BOOTTIME measures the
    /// window (immune to clock steps); across a reboot only synchronized wall
    /// clocks are trusted.
    fn repeat_of(&mut self, words: &[String], now: &Stamp) -> Option<u64> {
        // Oldest first: drop from the front until one is inside the window,
        // and keep at most MAX_RECENT (no station judges that many in ten
        // minutes; a benchmark does), so each record costs the same.
        while self.recent.front().is_some_and(|r| !within_window(r, &self.boot_id, now))
            || self.recent.len() > MAX_RECENT
        {
            self.recent.pop_front();
        }
        self.recent.iter().rev().find(|r| r.words == words && within_window(r, &self.boot_id, now)).map(|r| r.challenge)
    }

    /// Re-reads the directory if no file is open (the log was failing).
    /// False when that failed (the failure is noted).
    fn ensure_attached(&mut self, stamp: &Stamp) -> bool {
        if self.chain.is_some() && self.out.is_some() {
            return true;
        }
        match self.attach(stamp) {
            Ok(()) => true,
            Err(e) => {
                self.note_failure(&e, *stamp);
                false
            }
        }
    }

    /// Writes a record (or holds it, when `attached` is false or writing
    /// fails), and sends the journald copy.
    fn record(&mut self, stamp: Stamp, body: Body, attached: bool) {
        let written = if attached { self.write_or_hold(stamp, body.clone()) } else { None };
        if !attached {
            self.hold(stamp, body.clone());
        }
        let entry = self.journal_entry(&body, written);
        self.journal.send(entry);
    }

    /// Returns the line's hash when written.
    fn write_or_hold(&mut self, stamp: Stamp, body: Body) -> Option<String> {
        if let Err(e) = self.write_backlog(&stamp) {
            self.note_failure(&e, stamp);
            self.hold(stamp, body);
            return None;
        }
        match self.append(&stamp, &stamp, &body, false) {
            Ok(hash) => Some(hash),
            Err(e) => {
                self.note_failure(&e, stamp);
                self.hold(stamp, body);
                None
            }
        }
    }

    fn hold(&mut self, stamp: Stamp, body: Body) {
        if let (Some(failure), Body::Adjudication(a)) = (&mut self.failure, &body) {
            let first = failure.challenges.map_or(a.challenge, |c| c[0].min(a.challenge));
            failure.challenges = Some([first, a.challenge]);
        }
        if self.backlog.len() >= self.options.max_backlog.max(1) {
            self.backlog.pop_front();
            if let Some(f) = &mut self.failure {
                f.dropped += 1;
            }
        }
        self.backlog.push_back(Pending { stamp, body });
    }

    /// Marks the log failing (the first failure is kept as `since`), drops
    /// the open file so the next record re-reads the directory, and warns
    /// journald once.
    fn note_failure(&mut self, error: &AuditError, stamp: Stamp) {
        self.out = None;
        match &mut self.failure {
            Some(f) => f.error = error.to_string(),
            None => {
                self.failure = Some(Failure {
                    since: stamp.time,
                    error: error.to_string(),
                    dropped: 0,
                    challenges: None,
                    numbering_from_log: self.numbering_from_log,
                });
                let entry = journal::Entry {
                    warn: true,
                    message: format!("audit log failing: {error}"),
                    event: "audit_failing",
                    station: self.station.clone(),
                    problem: Some(error.to_string()),
                    ..Default::default()
                };
                self.journal.send(entry);
            }
        }
    }

    /// After a failure: the `write_failed` event, then the held records.
    fn write_backlog(&mut self, stamp: &Stamp) -> Result<(), AuditError> {
        if let Some(failure) = &self.failure {
            let may_repeat =
                !failure.numbering_from_log && failure.challenges.is_some_and(|c| c[0] <= self.log_max_challenge);
            let note = may_repeat.then(|| {
                "the log was unreadable when these challenges were numbered; numbers may repeat earlier ones"
                    .to_string()
            });
            let event = AuditEvent::WriteFailed {
                since: format!("{:.3}", failure.since),
                error: failure.error.clone(),
                held: self.backlog.len() as u64,
                lost: failure.dropped,
                challenges: failure.challenges,
                note,
            };
            let body = Body::Event(event);
            let hash = self.append(stamp, stamp, &body, false)?;
            self.failure = None;
            let entry = self.journal_entry(&body, Some(hash));
            self.journal.send(entry);
        }
        while let Some(pending) = self.backlog.front() {
            let (pending_stamp, body) = (pending.stamp, pending.body.clone());
            self.append(stamp, &pending_stamp, &body, true)?;
            self.backlog.pop_front();
        }
        Ok(())
    }

    /// Reads the directory: recovers a torn tail (recording `recovered`),
    /// finds the chain end, and (the first time) today's count, recent
    /// adjudications and the highest challenge number.
    fn attach(&mut self, stamp: &Stamp) -> Result<(), AuditError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| AuditError::CreateDir { dir: self.dir.clone(), source })?;
        let today = self.local_date(stamp);
        let first = !self.numbering_from_log;
        let scan = scan::scan(&self.dir, &self.options.time_zone, today, first)?;
        let mut events = Vec::new();
        if let Some(torn) = &scan.torn {
            events.push(scan::move_aside(&self.dir, torn)?);
        }
        let out = match &scan.last {
            Some((name, path)) => {
                let file = OpenOptions::new()
                    .append(true)
                    .open(path)
                    .map_err(|source| AuditError::Open { path: path.clone(), source })?;
                let len = file.metadata().map_err(|source| AuditError::Open { path: path.clone(), source })?.len();
                Some(Output { file, path: path.clone(), name: name.clone(), len })
            }
            None => None,
        };
        if first {
            // Today's records in the log count; this process's own come on top.
            if self.today.0 == today {
                self.today.1 += scan.today_adjudications;
            }
            let mut recent: VecDeque<Recent> =
                scan.recent.into_iter().filter(|r| within_window(r, &self.boot_id, stamp)).collect();
            recent.extend(self.recent.drain(..));
            self.recent = recent;
        }
        self.log_max_challenge = scan.max_challenge;
        self.last_challenge = self.last_challenge.max(scan.max_challenge);
        self.numbering_from_log = true;
        self.chain = Some(scan.chain);
        self.out = match out {
            Some(out) => Some(out),
            // A directory without log files: start the first.
            None => Some(self.create_file(LogName { index: 1, date: today })?),
        };
        let mut events = events.into_iter();
        while let Some(event) = events.next() {
            let body = Body::Event(event);
            match self.append(stamp, stamp, &body, false) {
                Ok(hash) => {
                    let entry = self.journal_entry(&body, Some(hash));
                    self.journal.send(entry);
                }
                Err(e) => {
                    // The torn bytes are already aside: keep the event for later.
                    self.hold(*stamp, body);
                    events.for_each(|event| self.hold(*stamp, Body::Event(event)));
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    fn create_file(&self, name: LogName) -> Result<Output, AuditError> {
        let path = self.dir.join(name.file_name());
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|source| AuditError::Open { path: path.clone(), source })?;
        let len = file.metadata().map_err(|source| AuditError::Open { path: path.clone(), source })?.len();
        // The new directory entry must be durable before records go in it.
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|source| AuditError::Open { path: path.clone(), source })?;
        Ok(Output { file, path, name, len })
    }

    /// Appends one record made at `stamp` at the chain's end, rotating first
    /// when the day changed (by the clock `now`: a delayed record never sends
    /// the log back to an earlier day) or the file is full. Returns the
    /// line's hash.
    fn append(&mut self, now: &Stamp, stamp: &Stamp, body: &Body, delayed: bool) -> Result<String, AuditError> {
        let date = self.local_date(now);
        let line = self.encode(stamp, body, delayed)?;
        let rotate = match &self.out {
            Some(out) if out.len > 0 && out.name.date != date => Some("new day"),
            Some(out) if out.len > 0 && out.len + line.len() as u64 + 1 > self.options.max_file_bytes => Some("size"),
            _ => None,
        };
        if let Some(reason) = rotate {
            self.rotate(now, date, reason)?;
        }
        let line = if rotate.is_some() { self.encode(stamp, body, delayed)? } else { line };
        self.write_line(line)
    }

    /// Starts the next file: created (and its directory entry synced) first,
    /// then a `rotated` record naming it closes the old file, so a deleted
    /// last file is visible from the one before.
    fn rotate(&mut self, stamp: &Stamp, date: Date, reason: &str) -> Result<(), AuditError> {
        let index = self.out.as_ref().map_or(0, |o| o.name.index) + 1;
        let next = self.create_file(LogName { index, date })?;
        let event = AuditEvent::Rotated { next_file: next.name.file_name(), reason: reason.to_string() };
        let line = self.encode(stamp, &Body::Event(event), false)?;
        self.write_line(line)?;
        self.out = Some(next);
        Ok(())
    }

    fn encode(&self, stamp: &Stamp, body: &Body, delayed: bool) -> Result<String, AuditError> {
        let chain = self.chain.as_ref().ok_or_else(|| AuditError::Encode("the chain end is not known".into()))?;
        let out = LineOut {
            seq: chain.next_seq,
            prev: &chain.prev,
            time: stamp.rfc3339(),
            boot_id: &self.boot_id,
            mono_ns: stamp.mono_ns,
            clock_synced: stamp.synced,
            station: &self.station,
            delayed,
            body,
        };
        let json = serde_json::to_string(&out).map_err(|e| AuditError::Encode(e.to_string()))?;
        Ok(format::seal(&json))
    }

    /// Appends `line` and a newline in one write, then `fdatasync`. On any
    /// error the file is cut back to its last good length, so a half-written
    /// line never stays in front of later ones.
    fn write_line(&mut self, line: String) -> Result<String, AuditError> {
        let out = self.out.as_mut().ok_or_else(|| AuditError::Encode("no audit file is open".into()))?;
        let mut bytes = line.into_bytes();
        let hash = format::line_hash(&bytes);
        bytes.push(b'\n');
        let result = out.file.write_all(&bytes).and_then(|()| out.file.sync_data());
        if let Err(source) = result {
            let _ = out.file.set_len(out.len).and_then(|()| out.file.sync_data());
            return Err(AuditError::Write { path: out.path.clone(), source });
        }
        out.len += bytes.len() as u64;
        if let Some(chain) = &mut self.chain {
            chain.next_seq = chain.next_seq.saturating_add(1);
            chain.prev = hash.clone();
        }
        Ok(hash)
    }

    fn journal_entry(&self, body: &Body, line_sha256: Option<String>) -> journal::Entry {
        let record = serde_json::to_string(body).unwrap_or_default();
        let mut entry = journal::Entry {
            station: self.station.clone(),
            audit_written: line_sha256.is_some(),
            line_sha256,
            record,
            ..Default::default()
        };
        match body {
            Body::Adjudication(a) => {
                entry.event = "adjudication";
                entry.challenge = Some(a.challenge);
                entry.verdict = Some(a.verdict.label());
                entry.words = Some(a.words.join(" "));
                entry.per_word = Some(
                    a.words
                        .iter()
                        .zip(&a.per_word)
                        .map(|(w, ok)| format!("{w}:{}", if *ok { "acceptable" } else { "unacceptable" }))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
                entry.lexicon = Some(a.lexicon.id.clone());
                entry.lexicon_fingerprint = Some(a.lexicon.fingerprint.clone());
                entry.lexicon_status = Some(a.lexicon.status.clone());
                entry.trigger = Some(a.trigger.as_str());
                entry.repeat_of = a.repeat_of;
                entry.message = format!(
                    "challenge {} {} ({}) lexicon {}{}",
                    a.challenge,
                    a.verdict,
                    a.words.join(" "),
                    a.lexicon.id,
                    a.repeat_of.map(|r| format!(", repeat of {r}")).unwrap_or_default()
                );
            }
            Body::Event(e) => {
                entry.event = e.name();
                entry.warn = e.is_problem();
                entry.message = e.describe();
                match e {
                    AuditEvent::LexiconOpened { id, status, fingerprint, problem } => {
                        entry.lexicon = Some(id.clone());
                        entry.lexicon_status = Some(status.clone());
                        entry.lexicon_fingerprint = fingerprint.clone();
                        entry.problem = problem.clone();
                    }
                    AuditEvent::LexiconSwitched { to, .. } => entry.lexicon = Some(to.clone()),
                    AuditEvent::ConfigProblem { problem } | AuditEvent::GpioProblem { problem } => {
                        entry.problem = Some(problem.clone())
                    }
                    AuditEvent::WriteFailed { error, .. } => entry.problem = Some(error.clone()),
                    _ => {}
                }
            }
        }
        if !entry.audit_written && entry.problem.is_none() {
            if let Some(f) = &self.failure {
                entry.problem = Some(format!("not in the audit file yet: {}", f.error));
            }
        }
        entry
    }
}

/// Whether `r` was judged within [`REPEAT_WINDOW`] before `now`. Within one
/// boot CLOCK_BOOTTIME measures it (immune to clock steps); across a reboot
/// only two synchronized wall clocks are trusted.
fn within_window(r: &Recent, boot_id: &str, now: &Stamp) -> bool {
    let window = REPEAT_WINDOW.as_nanos();
    if r.boot_id == boot_id {
        now.mono_ns >= r.stamp.mono_ns && u128::from(now.mono_ns - r.stamp.mono_ns) <= window
    } else if r.stamp.synced && now.synced {
        let d = now.time.duration_since(r.stamp.time);
        !d.is_negative() && d.as_nanos() as u128 <= window
    } else {
        false
    }
}

impl Drop for AuditLog {
    fn drop(&mut self) {
        // Give journald copies a moment; never hang a shut-down on journald.
        self.journal.flush(Duration::from_millis(200));
    }
}

mod scan;
