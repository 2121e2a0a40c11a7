//! [`AuditLog`]: the one writer of an audit folder.
//!
//! It owns the order of things around a verdict: the folder's writer lock
//! ([`super::lock`]), the challenge number reserved durably before it is
//! used ([`super::numbering`]), the record appended and `fdatasync`ed, its
//! slip code handed back, the journald copy handed off ([`super::journal`]),
//! records held while the file cannot be written ([`super::backlog`]), file
//! rotation, recovery of a torn last line at open, and signed checkpoints at
//! shut-down, day rotation and export ([`super::checkpoint`]).

use super::backlog::Backlog;
use super::checkpoint::{Checkpoint, KeyFingerprint, NoteVerifier, StationKey, KEY_DIR};
use super::clock::Stamp;
use super::format::{self, LogName};
use super::lock::{self, LockError, WriterBusy, WriterLock};
use super::numbering::{Counter, CounterState, RESERVE_AHEAD};
use super::record::{AdjudicationRecord, AuditEvent, Body, CheckpointReason, EventKind, Record};
use super::slip::SlipCode;
use super::scan::{self, ChainEnd, Recent};
use super::{journal, AdjudicationInput, AuditError, AuditOptions, MAX_RECENT, REPEAT_WINDOW};
use jiff::civil::Date;
use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What [`AuditLog::record_adjudication`] hands back for the verdict screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The challenge number for the slip: never handed out twice.
    pub challenge: u64,
    /// The slip code (chain head after this record). `None` when the record
    /// could not be written yet (the log is failing): its place in the chain,
    /// and so its code, is not known.
    pub code: Option<SlipCode>,
    /// The record's own time stamp: what the verdict screen shows, so the
    /// screen and the record can never disagree.
    pub time: jiff::Timestamp,
}

/// The end of the chain: the last record written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainHead {
    /// Records in the log (the last one's `seq`).
    pub count: u64,
    /// The last record's `line_sha256`.
    pub line_sha256: String,
    pub code: SlipCode,
}

/// The file being appended to.
struct Output {
    file: File,
    path: PathBuf,
    name: LogName,
    /// Bytes known good: a failed append is truncated back to this.
    len: u64,
}

/// The audit log of one station. See the module documentation.
pub struct AuditLog {
    dir: PathBuf,
    station: String,
    options: AuditOptions,
    boot_id: String,
    lock: Option<WriterLock>,
    counter: Option<Counter>,
    out: Option<Output>,
    /// Known once the directory has been read successfully.
    chain: Option<ChainEnd>,
    last_challenge: u64,
    /// Highest challenge number in the log when it was last read.
    log_max_challenge: u64,
    /// Whether challenge numbers so far continued from the log (false while
    /// the log has never been readable: they may repeat numbers in it).
    numbering_from_log: bool,
    backlog: Backlog,
    recent: VecDeque<Recent>,
    since_start: u64,
    today: (Date, u64),
    journal: journal::Journal,
    key: Option<StationKey>,
    key_problem: Option<String>,
    last_adjudication: Option<(u64, SlipCode)>,
    checkpoint_due: Option<CheckpointReason>,
    /// Numbers a previous process reserved and never showed, explained in
    /// the next adjudication record.
    skipped: Vec<[u64; 2]>,
}

impl AuditLog {
    /// Opens/creates `dir` as its one writer, finds the end of the hash chain
    /// and recovers a torn last line (moved aside next to the log, a
    /// `recovered` event recorded, the chain continued).
    ///
    /// The only error is another live process writing the folder: a second
    /// kiosk must refuse to start. Anything else (directory missing or
    /// unwritable, disk full) gives a log that is failing
    /// ([`Self::problem`] is `Some`) and tries again on every later record.
    pub fn open(dir: &Path, station_name: &str) -> Result<AuditLog, WriterBusy> {
        AuditLog::open_with(dir, station_name, AuditOptions::default())
    }

    /// [`Self::open`] with other settings (file size, clock, time zone, key).
    pub fn open_with(dir: &Path, station_name: &str, options: AuditOptions) -> Result<AuditLog, WriterBusy> {
        let boot_id = options.clock.boot_id();
        let stamp = Stamp::take(options.clock.as_ref());
        let today = stamp.time.to_zoned(options.time_zone.clone()).date();
        let mut log = AuditLog {
            dir: dir.to_path_buf(),
            station: station_name.to_string(),
            options,
            boot_id,
            lock: None,
            counter: None,
            out: None,
            chain: None,
            last_challenge: 0,
            log_max_challenge: 0,
            numbering_from_log: false,
            backlog: Backlog::default(),
            recent: VecDeque::new(),
            since_start: 0,
            today: (today, 0),
            journal: journal::Journal::start(),
            key: None,
            key_problem: None,
            last_adjudication: None,
            checkpoint_due: None,
            skipped: Vec::new(),
        };
        match log.attach(&stamp) {
            Ok(()) => {}
            Err(AuditError::Busy(busy)) => return Err(busy),
            Err(e) => log.note_failure(&e, stamp),
        }
        Ok(log)
    }

    /// The directory of the log.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one adjudication record, `fdatasync`ed before returning, and
    /// returns its challenge number and slip code. The number is reserved
    /// in the challenge counter first, so it is never handed out again, even
    /// after a crash. A write failure is not an error here (the verdict must
    /// still be shown): it sets [`Self::problem`], the record is held until
    /// writing works again, and the counter durably notes the number as
    /// shown without a record. journald gets a copy without the caller
    /// waiting on it.
    pub fn record_adjudication(&mut self, input: &AdjudicationInput<'_>) -> Recorded {
        let stamp = Stamp::take(self.options.clock.as_ref());
        // A failing log is retried before numbering, so a log readable again
        // gives its highest number to continue from.
        let attached = self.ensure_attached(&stamp);
        let challenge = self.last_challenge.saturating_add(1);
        self.last_challenge = challenge;
        self.reserve(challenge);
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
            challenge,
            lexicon: input.lexicon.clone(),
            words,
            verdict: input.adjudication.verdict(),
            per_word: input.adjudication.per_word_for_audit().to_vec(),
            trigger: input.trigger,
            repeat_of,
            profile: input.profile.map(str::to_string),
            skipped: std::mem::take(&mut self.skipped),
        };
        let written = self.record(stamp, Body::Adjudication(record), attached);
        let code = written.as_deref().and_then(SlipCode::of_line_hash);
        match &code {
            Some(code) => self.last_adjudication = Some((challenge, code.clone())),
            None => self.mark_unrecorded(challenge),
        }
        self.sign_if_due();
        Recorded { challenge, code, time: stamp.time }
    }

    /// Records an event (start-up, lexicon, director, problems). A
    /// `shutdown` is followed by a signed checkpoint.
    pub fn record_event(&mut self, event: AuditEvent) {
        let stamp = Stamp::take(self.options.clock.as_ref());
        let attached = self.ensure_attached(&stamp);
        let shutdown = event.kind() == EventKind::Shutdown;
        let written = self.record(stamp, Body::Event(event), attached);
        if shutdown && written.is_some() {
            self.checkpoint_due = Some(CheckpointReason::Shutdown);
        }
        self.sign_if_due();
    }

    /// Records that the log was exported (`format`, to `destination`) and
    /// signs a checkpoint covering that record; the signed note, to copy off
    /// the station with the export. `None` when there is no key or the log
    /// is failing.
    pub fn record_export(&mut self, format: &str, destination: &str) -> Option<String> {
        self.record_event(AuditEvent::Export { format: format.to_string(), destination: destination.to_string() });
        self.checkpoint(CheckpointReason::Export)
    }

    /// Signs a checkpoint of the log as it is now (count and head), records
    /// it, and returns the signed note. `None` without a key, with nothing
    /// written yet, or while the log is failing (its head is not known).
    pub fn checkpoint(&mut self, reason: CheckpointReason) -> Option<String> {
        if self.backlog.failure.is_some() {
            return None;
        }
        let key = self.key.as_ref()?;
        let chain = self.chain.as_ref()?;
        let count = chain.next_seq.checked_sub(1).filter(|c| *c > 0)?;
        let stamp = Stamp::take(self.options.clock.as_ref());
        let checkpoint = Checkpoint {
            count,
            head: chain.prev.clone(),
            time: stamp.rfc3339(),
            station: self.station.clone(),
            reason: reason.as_str().to_string(),
        };
        let note = key.sign(&checkpoint);
        let event = AuditEvent::Checkpoint { count, head: checkpoint.head, reason, note: note.clone() };
        self.record(stamp, Body::Event(event), true)?;
        Some(note)
    }

    fn sign_if_due(&mut self) {
        if let Some(reason) = self.checkpoint_due.take() {
            self.checkpoint(reason);
        }
    }

    /// A director-visible warning while the log is failing; `None` when healthy.
    pub fn problem(&self) -> Option<String> {
        let failure = self.backlog.failure.as_ref()?;
        let since = failure.since.to_zoned(self.options.time_zone.clone()).strftime("%H:%M:%S");
        let mut text = format!(
            "Audit log not written since {since}: {}. {} record(s) held in memory until it can be written.",
            failure.error,
            self.backlog.queue.len()
        );
        if failure.dropped > 0 {
            text.push_str(&format!(" {} record(s) lost from memory (journald has them).", failure.dropped));
        }
        if !self.numbering_from_log {
            text.push_str(" The log could not be read: challenge numbers restarted from this session's and may repeat earlier ones.");
        }
        Some(text)
    }

    /// Why checkpoints cannot be signed (the key could not be made or read),
    /// for the director; `None` when they can (or signing is off).
    pub fn signing_problem(&self) -> Option<String> {
        self.key_problem.clone()
    }

    /// The public key's fingerprint, for the director menu and exports.
    pub fn key_fingerprint(&self) -> Option<KeyFingerprint> {
        self.key.as_ref().map(|k| k.verifier().fingerprint())
    }

    /// The public key as a note verifier key (what `--pubkey FILE` holds).
    pub fn verifier_key(&self) -> Option<NoteVerifier> {
        self.key.as_ref().map(StationKey::verifier)
    }

    /// The last adjudication written and its slip code, for the director
    /// menu ("note it at the end of a round").
    pub fn last_code(&self) -> Option<(u64, SlipCode)> {
        self.last_adjudication.clone()
    }

    /// The end of the chain now (`None` while the log is failing or empty).
    pub fn head(&self) -> Option<ChainHead> {
        if self.backlog.failure.is_some() {
            return None;
        }
        let chain = self.chain.as_ref()?;
        let count = chain.next_seq.checked_sub(1).filter(|c| *c > 0)?;
        Some(ChainHead { count, line_sha256: chain.prev.clone(), code: SlipCode::of_line_hash(&chain.prev)? })
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

    /// Makes sure `challenge` is reserved in the counter before it is used.
    fn reserve(&mut self, challenge: u64) {
        let Some(counter) = &mut self.counter else { return };
        let state = counter.state();
        if challenge > state.reserved {
            let reserved = challenge.saturating_add(RESERVE_AHEAD - 1);
            if let Err(e) = counter.store(CounterState { reserved, ..state }) {
                tracing::error!("cannot reserve challenge numbers in {}: {e}", counter.path().display());
            }
        }
    }

    /// Durably notes that `challenge` is shown without a record.
    fn mark_unrecorded(&mut self, challenge: u64) {
        let Some(counter) = &mut self.counter else { return };
        let state = counter.state();
        let first = state.unrecorded.map_or(challenge, |(f, _)| f.min(challenge));
        let reserved = state.reserved.max(challenge);
        if let Err(e) = counter.store(CounterState { reserved, unrecorded: Some((first, challenge)) }) {
            tracing::error!("cannot note challenge {challenge} as unrecorded in {}: {e}", counter.path().display());
        }
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
    /// fails), and sends the journald copy. The line's hash when written.
    fn record(&mut self, stamp: Stamp, body: Body, attached: bool) -> Option<String> {
        let written = if attached { self.write_or_hold(stamp, body.clone()) } else { None };
        if !attached {
            self.hold(stamp, body.clone());
        }
        let seq = written.as_ref().and_then(|_| self.chain.as_ref()).map(|c| c.next_seq - 1);
        let entry = self.journal_entry(&body, seq, written.clone());
        self.journal.send(entry);
        written
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
        self.backlog.hold(stamp, body, self.options.max_backlog);
    }

    /// Marks the log failing (the first failure is kept as `since`), drops
    /// the open file so the next record re-reads the directory, and warns
    /// journald once.
    fn note_failure(&mut self, error: &AuditError, stamp: Stamp) {
        self.out = None;
        if self.backlog.fail(error.to_string(), stamp.time, self.numbering_from_log) {
            let entry = journal::Entry {
                warn: true,
                message: format!("audit log failing: {error}"),
                event: journal::AUDIT_FAILING.to_string(),
                station: self.station.clone(),
                problem: Some(error.to_string()),
                ..Default::default()
            };
            self.journal.send(entry);
        }
    }

    /// After a failure: the `write_failed` event, then the held records.
    fn write_backlog(&mut self, stamp: &Stamp) -> Result<(), AuditError> {
        if let Some(failure) = &self.backlog.failure {
            let may_repeat =
                !failure.numbering_from_log && failure.challenges.is_some_and(|c| c[0] <= self.log_max_challenge);
            let note = may_repeat.then(|| {
                "the log was unreadable when these challenges were numbered; numbers may repeat earlier ones"
                    .to_string()
            });
            let event = AuditEvent::WriteFailed {
                since: format!("{:.3}", failure.since),
                error: failure.error.clone(),
                held: self.backlog.queue.len() as u64,
                lost: failure.dropped,
                challenges: failure.challenges,
                note,
            };
            let body = Body::Event(event);
            let hash = self.append(stamp, stamp, &body, false)?;
            self.backlog.failure = None;
            let seq = self.chain.as_ref().map(|c| c.next_seq - 1);
            let entry = self.journal_entry(&body, seq, Some(hash));
            self.journal.send(entry);
        }
        if self.backlog.queue.is_empty() {
            return Ok(());
        }
        while let Some(pending) = self.backlog.queue.front() {
            let (pending_stamp, body) = (pending.stamp, pending.body.clone());
            self.append(stamp, &pending_stamp, &body, true)?;
            self.backlog.queue.pop_front();
        }
        // Every number shown is in the file now.
        if let Some(counter) = &mut self.counter {
            let state = counter.state();
            if state.unrecorded.is_some() {
                let _ = counter.store(CounterState { unrecorded: None, ..state });
            }
        }
        Ok(())
    }

    /// Reads the directory: takes the writer lock, opens the counter,
    /// recovers a torn tail (recording `recovered`), finds the chain end,
    /// and (the first time) accounts for numbers a previous process reserved
    /// or showed without records, makes the signing key, and reads today's
    /// count, recent adjudications and the highest challenge number.
    fn attach(&mut self, stamp: &Stamp) -> Result<(), AuditError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| AuditError::CreateDir { dir: self.dir.clone(), source })?;
        if self.lock.is_none() {
            self.lock = Some(lock::acquire(&self.dir, &self.station, &stamp.rfc3339()).map_err(|e| match e {
                LockError::Busy(busy) => AuditError::Busy(busy),
                LockError::Io { path, source } => AuditError::Open { path, source },
            })?);
        }
        if self.counter.is_none() {
            let path = self.dir.join(super::numbering::COUNTER_FILE);
            self.counter = Some(Counter::open(&self.dir).map_err(|source| AuditError::Counter { path, source })?);
        }
        let today = self.local_date(stamp);
        let first = !self.numbering_from_log;
        let scan = scan::scan(&self.dir, &self.options.time_zone, today, first)?;
        let mut events = Vec::new();
        if let Some(torn) = &scan.torn {
            events.push(scan::move_aside(&self.dir, torn)?);
        }
        let previous = self.counter.as_ref().map(Counter::state).unwrap_or_default();
        if first {
            let (lost, skipped) = account_for_previous(previous, scan.max_recorded, scan.torn_challenge);
            events.extend(lost);
            self.skipped = skipped.into_iter().map(|(a, b)| [a, b]).collect();
            if self.options.signing_key && self.key.is_none() {
                match StationKey::load_or_create(&self.dir.join(KEY_DIR), &self.station, true) {
                    Ok(Some((key, created))) => {
                        if created {
                            let verifier = key.verifier();
                            events.push(AuditEvent::KeyCreated {
                                key_name: key.name().to_string(),
                                fingerprint: verifier.fingerprint().0,
                                verifier_key: verifier.to_text(),
                            });
                        }
                        self.key = Some(key);
                        self.key_problem = None;
                    }
                    Ok(None) => {}
                    Err(e) => self.key_problem = Some(e.to_string()),
                }
            }
        }
        let out = match &scan.last {
            Some((name, path)) => {
                let file = crate::bounded::open_regular_rw(path, false, true)
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
        if self.last_adjudication.is_none() {
            self.last_adjudication = scan.last_adjudication.clone();
        }
        self.log_max_challenge = scan.max_challenge;
        self.last_challenge = self.last_challenge.max(scan.max_challenge);
        if first {
            // Above every number a previous process may have shown.
            self.last_challenge = self.last_challenge.max(previous.reserved);
        }
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
                    let seq = self.chain.as_ref().map(|c| c.next_seq - 1);
                    let entry = self.journal_entry(&body, seq, Some(hash));
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
        if first {
            // The previous process's numbers are accounted for in the log now.
            let unrecorded = self.backlog.held_challenges();
            let reserved = self.last_challenge.max(previous.reserved);
            if let Some(counter) = &mut self.counter {
                counter
                    .store(CounterState { reserved, unrecorded })
                    .map_err(|source| AuditError::Counter { path: counter.path().to_path_buf(), source })?;
            }
        }
        Ok(())
    }

    fn create_file(&self, name: LogName) -> Result<Output, AuditError> {
        let path = self.dir.join(name.file_name());
        let file = crate::bounded::open_regular_rw(&path, true, true)
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
            if reason == "new day" {
                self.checkpoint_due = Some(CheckpointReason::NewDay);
            }
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
        let record = Record {
            seq: chain.next_seq,
            prev: chain.prev.clone(),
            time: stamp.rfc3339(),
            boot_id: self.boot_id.clone(),
            mono_ns: stamp.mono_ns,
            clock_synced: stamp.synced,
            station: self.station.clone(),
            delayed,
            body: body.clone(),
            line_sha256: None,
            code: None,
        };
        let json = serde_json::to_string(&record).map_err(|e| AuditError::Encode(e.to_string()))?;
        Ok(format::seal(&escape_c1(json)))
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

    fn journal_entry(&self, body: &Body, seq: Option<u64>, line_sha256: Option<String>) -> journal::Entry {
        let problem = match (&line_sha256, &self.backlog.failure) {
            (None, Some(f)) => Some(format!("not in the audit file yet: {}", f.error)),
            _ => None,
        };
        journal::Entry::of(body, &self.station, seq, line_sha256, problem)
    }
}

/// What a first attach makes of numbers a previous process left: a
/// `challenges_lost` record for numbers it showed without records (the
/// counter's `unrecorded` range above the log's highest record), and the
/// ranges it reserved and never showed (the next adjudication names them as
/// `skipped`). The torn record's number is explained by its `recovered`
/// record.
fn account_for_previous(previous: CounterState, max_recorded: u64, torn: Option<u64>) -> (Vec<AuditEvent>, Vec<(u64, u64)>) {
    let mut events = Vec::new();
    let mut lost = None;
    if let Some((first, last)) = previous.unrecorded {
        let first = first.max(max_recorded.saturating_add(1));
        if first <= last {
            events.push(AuditEvent::ChallengesLost { first, last, since: None });
            lost = Some((first, last));
        }
    }
    let mut skipped: Vec<(u64, u64)> = Vec::new();
    let mut add = |a: u64, b: u64| {
        let mut start = a;
        if let Some(t) = torn.filter(|t| (a..=b).contains(t)) {
            if t > a {
                skipped.push((a, t - 1));
            }
            start = t + 1;
        }
        if start <= b {
            skipped.push((start, b));
        }
    };
    let from = max_recorded.saturating_add(1);
    match lost {
        Some((first, last)) => {
            if from < first {
                add(from, first - 1);
            }
            if last < previous.reserved {
                add(last + 1, previous.reserved);
            }
        }
        None if from <= previous.reserved => add(from, previous.reserved),
        None => {}
    }
    (events, skipped)
}

/// DEL and the C1 controls (U+0080–U+009F) as `\u00XX` escapes: serde_json
/// escapes only U+0000–U+001F, and a raw U+009B is a terminal's CSI. In a
/// JSON document they can only be inside strings, where the escape means
/// the same character.
fn escape_c1(json: String) -> String {
    if !json.chars().any(|c| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c)) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
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
        // A clean end gives back the numbers reserved ahead and not used, so
        // the next start continues right after the last one shown. Numbers
        // still held (shown, not written) stay noted as unrecorded.
        if let Some(counter) = &mut self.counter {
            let state = counter.state();
            let unrecorded = self.backlog.held_challenges().or(state.unrecorded);
            let reserved = if unrecorded.is_some() { state.reserved } else { self.last_challenge };
            let _ = counter.store(CounterState { reserved, unrecorded });
        }
        // Give journald copies a moment; never hang a shut-down on journald.
        self.journal.flush(Duration::from_millis(200));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_numbers_are_lost_or_skipped_never_both() {
        let state = |reserved, unrecorded| CounterState { reserved, unrecorded };
        let lost = |first, last| AuditEvent::ChallengesLost { first, last, since: None };
        assert_eq!(account_for_previous(state(16, None), 16, None), (vec![], vec![]));
        assert_eq!(account_for_previous(state(16, None), 12, None), (vec![], vec![(13, 16)]));
        assert_eq!(account_for_previous(state(16, None), 12, Some(13)), (vec![], vec![(14, 16)]));
        assert_eq!(account_for_previous(state(16, None), 12, Some(14)), (vec![], vec![(13, 13), (15, 16)]));
        assert_eq!(account_for_previous(state(48, Some((35, 36))), 34, None), (vec![lost(35, 36)], vec![(37, 48)]));
        // Held records partly written (delayed) before the crash.
        assert_eq!(account_for_previous(state(36, Some((35, 36))), 35, None), (vec![lost(36, 36)], vec![]));
        assert_eq!(escape_c1("{\"a\":\"x\u{9b}31m\u{7f}\"}".into()), "{\"a\":\"x\\u009b31m\\u007f\"}");
    }
}
