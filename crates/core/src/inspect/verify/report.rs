//! What `audit verify` found: the report, its parts and how it reads.

use super::breaks::ranges_text;
use super::trust::{checked_lines, stations_text, ClockJump, JournalCheck, KeyCheck, StationSpan};
use super::{Break, BreakKind, Location, MAX_BREAKS};
use crate::audit::checkpoint::{Checkpoint, NoteVerifier};
use crate::audit::numbering::CounterState;
use crate::audit::record::{AuditEvent, Body, Record};
use crate::audit::slip::Slip;
use crate::digest::sha256_hex;
use std::fmt;
use std::path::{Path, PathBuf};

/// Whether a moved-aside torn line is still as it was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsideState {
    Present,
    Missing,
    Altered,
}

/// A `recovered` event found in the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// Where the `recovered` record is.
    pub at: Location,
    pub time: String,
    /// The log file whose last line was torn.
    pub file: String,
    pub torn_bytes: u64,
    pub moved_to: String,
    pub aside: AsideState,
}

/// A `write_failed` event found in the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteFailure {
    pub at: Location,
    pub text: String,
}

/// One file of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    pub name: String,
    pub lines: u64,
    pub bytes: u64,
}

/// What to check the log against besides itself: copies taken off the
/// station.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Slips: challenge number and the code shown with it.
    pub slips: Vec<Slip>,
    /// A signed checkpoint (the note's text) and the key to check it with.
    pub checkpoint: Option<(String, NoteVerifier)>,
    /// The station key's fingerprint as the director noted it at set-up
    /// (`B605-4395-70A3-D5CC`, without dashes, either case, or the full
    /// hex): the checkpoint's key (or, without a checkpoint, the key the
    /// log's `key_created` record names) must be that key. A key that sits
    /// beside the log proves nothing alone: whoever forged the log could
    /// have put it there.
    pub key_fingerprint: Option<String>,
    /// The journald copies of the records, in the journal's order (see
    /// [`JournalCopy`]), when the journal is at hand: records cut from the
    /// end of the file (with the counter deleted, so nothing else tells)
    /// are still in the journal.
    pub journal: Option<Vec<JournalCopy>>,
    /// Why journald's copies were not read when they were wanted (`--no-journal`,
    /// journalctl did not run): said as "not compared", never left out.
    pub journal_unavailable: Option<String>,
}

/// One record's copy in journald: its `seq`, challenge and `line_sha256`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalCopy {
    pub seq: u64,
    pub challenge: Option<u64>,
    pub line_sha256: String,
}

/// What `audit verify` found.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    pub dir: PathBuf,
    pub files: Vec<FileSummary>,
    /// Directory entries that are neither log files nor moved-aside lines.
    pub others: Vec<String>,
    /// Moved-aside torn lines in the directory.
    pub aside_files: Vec<String>,
    pub records: u64,
    pub adjudications: u64,
    /// Lowest and highest challenge number.
    pub challenges: Option<(u64, u64)>,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub first_time: Option<String>,
    pub last_time: Option<String>,
    /// SHA-256 of the last complete line: compare with journald's copy.
    pub last_line_sha256: Option<String>,
    pub recoveries: Vec<Recovery>,
    pub write_failures: Vec<WriteFailure>,
    /// The challenge counter, when the folder has one.
    pub counter: Option<CounterState>,
    /// Numbers shown without a record that the live writer still holds in
    /// memory (it writes them once it can; if it stops first, they fail).
    pub held_by_writer: Option<((u64, u64), crate::audit::lock::Holder)>,
    /// Slips that matched.
    pub slips_matched: Vec<Slip>,
    /// The checkpoint checked, when it matched.
    pub checkpoint: Option<Checkpoint>,
    /// The key a checkpoint was checked with: its name, key id and
    /// fingerprint (printed whether or not it matched).
    pub checkpoint_key: Option<String>,
    /// Fingerprints of the keys the log's own `key_created` records name.
    pub keys_created: Vec<String>,
    /// Whether journald's copies of this chain were compared with the file.
    pub journal: JournalCheck,
    /// Whether the key was checked against the fingerprint noted at set-up.
    pub key_check: KeyCheck,
    /// The names the station had, oldest first, with the records carrying each.
    pub stations: Vec<StationSpan>,
    /// Jumps of the wall clock between records of one boot, recorded by the
    /// station or not: warnings, the chain is not affected.
    pub clock_jumps: Vec<ClockJump>,
    /// Slip code of the last record.
    pub last_code: Option<String>,
    /// Sealed records in the chain whose event this version does not know
    /// or cannot read (their fields do not have the expected shape).
    pub unreadable_bodies: Vec<Location>,
    /// Numbers reserved and never shown, each with its reason (a gap the
    /// log explains; an unexplained one is a break).
    pub number_gaps: Vec<super::numbers::NumberGap>,
    /// Problems in order; empty when the chain is intact.
    pub breaks: Vec<Break>,
    /// More problems than listed.
    pub more_breaks: u64,
}

impl VerifyReport {
    /// True when there are records and no problem.
    pub fn ok(&self) -> bool {
        self.breaks.is_empty() && self.records > 0
    }

    /// The first problem.
    pub fn first_break(&self) -> Option<&Break> {
        self.breaks.first()
    }

    pub(super) fn add_break(&mut self, at: Location, kind: BreakKind) {
        if self.breaks.len() < MAX_BREAKS {
            self.breaks.push(Break { at, kind });
        } else {
            self.more_breaks += 1;
        }
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Audit log {}", self.dir.display())?;
        match (self.files.first(), self.files.last()) {
            (Some(a), Some(b)) if self.files.len() > 1 => {
                writeln!(f, "  files: {} ({} to {})", self.files.len(), a.name, b.name)?
            }
            (Some(a), _) => writeln!(f, "  files: 1 ({})", a.name)?,
            _ => writeln!(f, "  files: none")?,
        }
        if let (Some(a), Some(b)) = (self.first_seq, self.last_seq) {
            write!(f, "  records: {} (seq {a} to {b}); adjudications: {}", self.records, self.adjudications)?;
            if let Some((lo, hi)) = self.challenges {
                write!(f, " (challenges {lo} to {hi})")?;
            }
            writeln!(f)?;
            for gap in &self.number_gaps {
                writeln!(f, "  {gap}")?;
            }
        }
        if let (Some(a), Some(b)) = (&self.first_time, &self.last_time) {
            writeln!(f, "  from {a} to {b} (UTC)")?;
        }
        if let Some(names) = stations_text(&self.stations) {
            writeln!(f, "  station: {names}")?;
        }
        for r in &self.recoveries {
            let state = match r.aside {
                AsideState::Present => "kept, SHA-256 matches",
                AsideState::Missing => "MISSING",
                AsideState::Altered => "ALTERED since",
            };
            writeln!(
                f,
                "  recovery at {}: torn last line of {} ({} bytes) moved to {} [{state}] ({})",
                r.time, r.file, r.torn_bytes, r.moved_to, r.at
            )?;
        }
        if let Some(first) = self.unreadable_bodies.first() {
            writeln!(
                f,
                "  {} record(s) in the chain this wordjudge cannot read (a newer version's?), first at {first}",
                self.unreadable_bodies.len()
            )?;
        }
        if let Some(c) = &self.counter {
            write!(f, "  challenge counter: reserved through {}", c.reserved)?;
            if let Some((a, b)) = c.unrecorded {
                write!(f, "; shown without a record yet: {}", ranges_text(&[(a, b)]))?;
            }
            writeln!(f)?;
        }
        if let Some(((a, b), holder)) = &self.held_by_writer {
            writeln!(
                f,
                "  challenge(s) {} were shown while the log could not be written; the running writer ({holder}) \
                 holds their records in memory (if it stops before writing them, verify fails)",
                ranges_text(&[(*a, *b)])
            )?;
        }
        for slip in &self.slips_matched {
            writeln!(f, "  slip {slip}: matches, chain intact up to it")?;
        }
        match &self.journal {
            JournalCheck::Compared(n) => {
                writeln!(f, "  journald: {n} copies of this log's records compared with the file")?
            }
            JournalCheck::NoneFound => writeln!(f, "  journald copies: none found — not compared")?,
            JournalCheck::NotRead(why) => writeln!(f, "  journald copies: not compared ({why})")?,
            JournalCheck::NotAsked => {}
        }
        if let Some(key) = &self.checkpoint_key {
            writeln!(f, "  station key code used: {key}")?;
        }
        match &self.key_check {
            KeyCheck::Matches { noted, checkpoint: true } => {
                writeln!(f, "  station key code: matches the one noted at set-up ({noted})")?
            }
            KeyCheck::Matches { noted, checkpoint: false } => writeln!(
                f,
                "  key: the log's key_created record names the key noted at set-up ({noted}); no checkpoint was \
                 given, so the records are not checked against a signature"
            )?,
            KeyCheck::NothingToCompare => writeln!(
                f,
                "  key: NOT checked against the station key code noted at set-up: neither a checkpoint nor a key_created \
                 record names a key to compare it with"
            )?,
            KeyCheck::NotNoted if self.checkpoint_key.is_some() => writeln!(
                f,
                "  station key code: NOT checked against the one noted at set-up (a key beside the log proves \
                 nothing: add --station-key-code with the code from the set-up sheet)"
            )?,
            KeyCheck::NotNoted | KeyCheck::Differs => {}
        }
        for fp in &self.keys_created {
            writeln!(
                f,
                "  key created in this log: station key code {}",
                crate::audit::checkpoint::KeyFingerprint(fp.clone()).short()
            )?;
        }
        if let Some(c) = &self.checkpoint {
            writeln!(
                f,
                "  checkpoint of {} ({}, {}): signature good, record {} is the one signed",
                crate::word::printable(&c.time, 40),
                super::trust::shown_name(&c.station),
                crate::word::printable(&c.reason, 80),
                c.count
            )?;
        }
        for w in &self.write_failures {
            writeln!(f, "  write failure recorded at {}: {}", w.at, w.text)?;
        }
        if !self.others.is_empty() {
            let others: Vec<String> = self.others.iter().map(|o| crate::word::printable(o, 80)).collect();
            writeln!(f, "  other files, not part of the log: {}", others.join(", "))?;
        }
        if !self.clock_jumps.is_empty() {
            writeln!(
                f,
                "  WARNING: the wall clock jumped {} time(s); the times of the records around each jump are as \
                 the clock read them (the chain is not affected):",
                self.clock_jumps.len()
            )?;
            for jump in &self.clock_jumps {
                writeln!(f, "  - {jump}")?;
            }
        }
        if let Some(first) = self.breaks.first() {
            writeln!(f, "BAD: {first}")?;
            let further = self.breaks.len() as u64 - 1 + self.more_breaks;
            if further > 0 {
                writeln!(f, "  {further} further problem(s):")?;
                for b in self.breaks.iter().skip(1) {
                    writeln!(f, "  - {b}")?;
                }
                if self.more_breaks > 0 {
                    writeln!(f, "  - … and {} more", self.more_breaks)?;
                }
            }
        } else if self.records == 0 {
            writeln!(f, "BAD: no audit records")?;
        } else {
            writeln!(
                f,
                "OK: the hash chain is intact from genesis to record {}; last line_sha256 {} (code {})",
                self.last_seq.unwrap_or(0),
                self.last_line_sha256.as_deref().unwrap_or("-"),
                self.last_code.as_deref().unwrap_or("-")
            )?;
            let (done, not) =
                checked_lines(self.slips_matched.len(), self.checkpoint.is_some(), &self.journal, &self.key_check);
            if !done.is_empty() {
                writeln!(f, "  checked against: {}", done.join("; "))?;
            }
            if !not.is_empty() {
                writeln!(f, "  NOT checked against: {}", not.join("; "))?;
            }
            if !self.clock_jumps.is_empty() {
                writeln!(f, "  with {} clock jump warning(s), listed above", self.clock_jumps.len())?;
            }
            if self.slips_matched.is_empty() && self.checkpoint.is_none() {
                writeln!(
                    f,
                    "  (a chain alone cannot show lines cut from the very end, or a rewrite with every later hash \
                     recomputed: check it against slips (--slip N=CODE) or a checkpoint copied off the station \
                     (--pubkey FILE --checkpoint FILE))"
                )?;
            }
        }
        Ok(())
    }
}

pub(super) fn recovery(dir: &Path, at: &Location, head: &Record) -> Recovery {
    let (file, torn_bytes, torn_sha256, moved_to) = match &head.body {
        Body::Event(AuditEvent::Recovered { file, torn_bytes, torn_sha256, moved_to, .. }) => {
            (file.clone(), *torn_bytes, Some(torn_sha256.clone()), moved_to.clone())
        }
        _ => (String::new(), 0, None, String::new()),
    };
    // Only a plain name in this directory is looked at.
    let aside = if moved_to.is_empty() || moved_to.contains('/') {
        AsideState::Missing
    } else {
        match crate::outside_files::read_small_file(&dir.join(&moved_to), crate::outside_files::limits::SMALL_FILE) {
            Ok(bytes) if Some(sha256_hex(&bytes)) == torn_sha256 => AsideState::Present,
            Ok(_) => AsideState::Altered,
            Err(_) => AsideState::Missing,
        }
    };
    Recovery { at: at.clone(), time: head.time.clone(), file, torn_bytes, moved_to, aside }
}

/// A `write_failed` record in words.
pub(super) fn write_failed_text(body: &Body) -> Option<String> {
    match body {
        Body::Event(AuditEvent::WriteFailed { since, error, held, lost, .. }) => {
            Some(format!("could not write since {since}: {error} ({held} held records written late, {lost} lost)"))
        }
        _ => None,
    }
}
