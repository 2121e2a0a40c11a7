//! [`AuditLog`]: the one writer of an audit folder.
//!
//! It owns the order of things around a verdict: the folder's writer lock
//! ([`crate::audit::lock`]), the challenge number reserved durably before it is
//! used ([`crate::audit::numbering`]), the record appended and `fdatasync`ed, its
//! slip code handed back, the journald copy handed off ([`super::journal`]),
//! records held while the file cannot be written (`failing.rs`, over
//! `super::backlog`), file rotation (`append.rs`), recovery of a torn last
//! line at open (`attach.rs`), and signed checkpoints at shut-down, day
//! rotation and export ([`crate::audit::checkpoint`]).

use super::backlog::Backlog;
use crate::audit::checkpoint::{Checkpoint, KeyFingerprint, NoteVerifier, StationKey};
use crate::audit::clock::{jump_between, Moment, Stamp};
use crate::audit::format::LogName;
use crate::audit::lock::{WriterBusy, WriterLock};
use crate::audit::numbering::{Counter, CounterState, RESERVE_AHEAD};
use crate::audit::record::{AdjudicationRecord, AuditEvent, Body, CheckpointReason, EventKind};
use crate::audit::slip::SlipCode;
use super::scan::{ChainEnd, Recent};
use super::{journal, AdjudicationInput, AuditError, AuditOptions, MAX_RECENT, REPEAT_WINDOW};
use jiff::civil::Date;
use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod append;
mod attach;
mod failing;

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
    /// Boot id and times of the last record taken (written or held), to see
    /// the wall clock jump against the boot clock before the next one.
    last_moment: Option<(String, Stamp)>,
    /// Why the next clock jump happens, when the station knows (the director
    /// set the clock): said in its `clock_jumped` record.
    clock_cause: Option<String>,
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
            last_moment: None,
            clock_cause: None,
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

    /// The station's name as records and checkpoints carry it.
    pub fn station(&self) -> &str {
        &self.station
    }

    /// Renames the station: every later record, journald copy and
    /// checkpoint carries `name`. Called when the director's rename is
    /// saved (after its `setting_changed` record, which still carries the
    /// old name), so the log never names the station as it was before.
    pub fn set_station(&mut self, name: &str) {
        self.station = name.to_string();
    }

    /// Says why the wall clock is about to jump (`the director set the
    /// clock`): the `clock_jumped` record the next record brings says so.
    /// Good for that next record only, whether or not the clock jumped.
    pub fn expect_clock_jump(&mut self, cause: &str) {
        self.clock_cause = Some(cause.to_string());
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
    /// `shutdown` is followed by a signed checkpoint. Returns whether it is
    /// in the file now (false: held in memory while the log cannot be
    /// written, to follow once it can), for a caller that must act only on
    /// a record written (a file renamed once it is recorded).
    pub fn record_event(&mut self, event: AuditEvent) -> bool {
        let stamp = Stamp::take(self.options.clock.as_ref());
        let attached = self.ensure_attached(&stamp);
        let shutdown = event.kind() == EventKind::Shutdown;
        let written = self.record(stamp, Body::Event(event), attached);
        if shutdown && written.is_some() {
            self.checkpoint_due = Some(CheckpointReason::Shutdown);
        }
        self.sign_if_due();
        written.is_some()
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
    /// A clock jump since the last record is recorded first.
    fn record(&mut self, stamp: Stamp, body: Body, attached: bool) -> Option<String> {
        if let Some(jump) = self.clock_jump(&stamp) {
            self.record_one(stamp, Body::Event(jump), attached);
        }
        self.record_one(stamp, body, attached)
    }

    /// The `clock_jumped` event when the wall clock jumped against the boot
    /// clock since the last record taken (see
    /// [`crate::audit::clock::jump_between`]); `stamp` becomes the last.
    pub(super) fn clock_jump(&mut self, stamp: &Stamp) -> Option<AuditEvent> {
        let cause = self.clock_cause.take();
        let (boot_id, before) = self.last_moment.replace((self.boot_id.clone(), *stamp))?;
        let before = Moment { boot_id: &boot_id, time: before.time, mono_ns: before.mono_ns };
        let after = Moment { boot_id: &self.boot_id, time: stamp.time, mono_ns: stamp.mono_ns };
        let jump = jump_between(&before, &after)?;
        tracing::warn!("the wall clock jumped {}", crate::audit::clock::jump_text(jump.seconds));
        Some(AuditEvent::ClockJumped {
            from: format!("{:.3}", jump.from),
            to: format!("{:.3}", jump.to),
            seconds: jump.seconds,
            cause,
        })
    }

    fn record_one(&mut self, stamp: Stamp, body: Body, attached: bool) -> Option<String> {
        let written = if attached { self.write_or_hold(stamp, body.clone()) } else { None };
        if !attached {
            self.hold(stamp, body.clone());
        }
        // A written line's copy went out with it (`write_line`); a held
        // record's goes now, without a seq, and again once it is written.
        if written.is_none() {
            let entry = self.journal_entry(&body, None, None);
            self.journal.send(entry);
        }
        written
    }

    pub(super) fn journal_entry(&self, body: &Body, seq: Option<u64>, line_sha256: Option<String>) -> journal::Entry {
        let problem = match (&line_sha256, &self.backlog.failure) {
            (None, Some(f)) => Some(format!("not in the audit file yet: {}", f.error)),
            _ => None,
        };
        journal::Entry::of(body, &self.station, seq, line_sha256, problem)
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
