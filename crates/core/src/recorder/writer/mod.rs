//! [`AuditLog`]: the one writer of an audit folder.
//!
//! It owns the order of things around a verdict: the folder's writer lock
//! ([`crate::audit::lock`]), the challenge number reserved durably before it is
//! used ([`crate::audit::numbering`]), the record appended and `fdatasync`ed, its
//! slip code handed back (`recorded.rs`: the verdict's number and code, or
//! why there is no verdict), the journald copy handed off
//! ([`super::journal`]), events held and verdicts refused while the file
//! cannot be written (`failing.rs`, over `super::backlog`), file rotation
//! (`append.rs`), recovery of a torn last line at open (`attach.rs`), the
//! same words judged again (`repeat.rs`), and signed checkpoints at
//! shut-down, day rotation and export ([`crate::audit::checkpoint`]).

use super::backlog::Backlog;
use super::scan::{ChainEnd, Recent};
use super::{journal, AdjudicationInput, AuditError, AuditOptions};
use crate::audit::checkpoint::{Checkpoint, KeyFingerprint, NoteVerifier, StationKey};
use crate::audit::clock::{jump_between, Moment, Stamp};
use crate::audit::format::LogName;
use crate::audit::lock::{WriterBusy, WriterLock};
use crate::audit::numbering::{Counter, CounterState, RESERVE_AHEAD};
use crate::audit::record::{AdjudicationRecord, AuditEvent, Body, CheckpointReason, EventKind};
use crate::audit::slip::SlipCode;
use jiff::civil::Date;
use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod append;
mod attach;
mod failing;
mod recorded;
mod repeat;

pub use recorded::{NeverShown, NotRecorded, Recorded};

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
    /// Every number this process found or left reserved and never shown,
    /// with why, for the director's status page.
    never_shown: Vec<NeverShown>,
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
            never_shown: Vec::new(),
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
    /// returns its challenge number and slip code: only then may the
    /// verdict be shown. The number is reserved in the challenge counter
    /// first, so it is never handed out again, even after a crash.
    ///
    /// When the record cannot be written (the log is failing, the disk is
    /// full, the counter cannot be kept) nothing is held for later and the
    /// verdict must not be shown: [`NotRecorded`] says why, and
    /// [`Self::problem`] tells the director. A number already reserved for
    /// it is named as skipped by the next adjudication written. journald
    /// gets a copy of each record written without the caller waiting on it.
    pub fn record_adjudication(&mut self, input: &AdjudicationInput<'_>) -> Result<Recorded, NotRecorded> {
        let stamp = Stamp::take(self.options.clock.as_ref());
        // A failing log is retried before numbering, so a log readable again
        // gives its highest number to continue from; one that stays failing
        // uses no number at all.
        if !self.ensure_attached(&stamp) || self.write_backlog_or_note(&stamp).is_err() {
            return Err(self.not_recorded(None));
        }
        let challenge = self.last_challenge.saturating_add(1);
        self.last_challenge = challenge;
        if let Err(e) = self.reserve(challenge) {
            // The number may be in the counter (a write half done): used up,
            // and named as skipped by the next record.
            self.never_to_be_shown(challenge, stamp.time);
            self.note_failure(&e, stamp);
            return Err(self.not_recorded(Some(challenge)));
        }
        let words = input.adjudication.words().to_vec();
        let repeat_of = self.repeat_of(&words, &stamp);
        let record = AdjudicationRecord {
            challenge,
            lexicon: input.lexicon.clone(),
            words: words.clone(),
            verdict: input.adjudication.verdict(),
            per_word: input.adjudication.per_word_for_audit().to_vec(),
            trigger: input.trigger,
            repeat_of,
            profile: input.profile.map(str::to_string),
            skipped: std::mem::take(&mut self.skipped),
        };
        let skipped_before = record.skipped.clone();
        let refused_at = stamp.time;
        let Some(line_sha256) = self.record_unheld(stamp, Body::Adjudication(record)) else {
            // Never shown: the number joins the gaps the next record names.
            self.skipped = skipped_before;
            self.never_to_be_shown(challenge, refused_at);
            return Err(self.not_recorded(Some(challenge)));
        };
        let code = SlipCode::of_line_hash(&line_sha256).ok_or_else(|| NotRecorded {
            problem: "the record's hash is not a hash".into(),
            challenge: Some(challenge),
        })?;
        self.recent.push_back(Recent { words, challenge, boot_id: self.boot_id.clone(), stamp });
        self.since_start += 1;
        let date = self.local_date(&stamp);
        if self.today.0 != date {
            self.today = (date, 0);
        }
        self.today.1 += 1;
        self.last_adjudication = Some((challenge, code.clone()));
        self.sign_if_due();
        Ok(Recorded { challenge, code, time: stamp.time })
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
            "Audit log not written since {since}: {}. No challenge is judged until it can be written; {} record(s) \
             held in memory until then.",
            failure.error,
            self.backlog.queue.len()
        );
        if failure.dropped > 0 {
            text.push_str(&format!(" {} record(s) lost from memory (journald has them).", failure.dropped));
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

    /// Numbers reserved and never shown that this process found at start
    /// (the station stopped before their records were written) or left
    /// (their records could not be written), oldest first.
    pub fn never_shown(&self) -> &[NeverShown] {
        &self.never_shown
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

    /// `challenge` was reserved and its record could not be written: it is
    /// never shown; the next record names it as skipped, and the director's
    /// status page lists it.
    fn never_to_be_shown(&mut self, challenge: u64, when: jiff::Timestamp) {
        self.skipped.push([challenge, challenge]);
        self.never_shown.push(NeverShown { numbers: [challenge, challenge], stopped: false, when: Some(when) });
    }

    /// Makes sure `challenge` is reserved in the counter (written and
    /// synced) before it is used. Numbers are reserved one at a time, so a
    /// power cut leaves at most the one number that was being recorded
    /// unused (see [`crate::audit::numbering`]).
    fn reserve(&mut self, challenge: u64) -> Result<(), AuditError> {
        let Some(counter) = &mut self.counter else { return Ok(()) };
        let state = counter.state();
        if challenge > state.reserved {
            let reserved = challenge.saturating_add(RESERVE_AHEAD - 1);
            counter
                .store(CounterState { reserved, ..state })
                .map_err(|source| AuditError::Counter { path: counter.path().to_path_buf(), source })?;
        }
        Ok(())
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

    /// Writes a record that must not be held when it cannot be written (an
    /// adjudication: its verdict is not shown then). No journald copy
    /// either: journald gets only records that are in the file or held.
    fn record_unheld(&mut self, stamp: Stamp, body: Body) -> Option<String> {
        if let Some(jump) = self.clock_jump(&stamp) {
            self.record_one(stamp, Body::Event(jump), true);
        }
        match self.append(&stamp, &stamp, &body, false) {
            Ok(hash) => Some(hash),
            Err(e) => {
                self.note_failure(&e, stamp);
                None
            }
        }
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
