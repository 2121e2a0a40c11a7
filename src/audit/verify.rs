//! `audit verify`: checks every file of a log and the hash chain through them,
//! and names the first bad line and why.
//!
//! Each line is checked on its own first (complete, a sealed JSON record whose
//! seal matches: otherwise *torn*, *not a record* or *edited*), then against
//! the line before it: its `prev` must be that line's SHA-256 and its `seq`
//! one more. When that fails the sequence numbers tell what happened: a gap
//! whose missing numbers appear nowhere is a *deletion*, numbers out of order
//! that appear elsewhere a *reordering*, and consecutive numbers that do not
//! chain an *edit* that was resealed. The first line must chain to the
//! genesis value with `seq` 1, and a file closed by a `rotated` record must
//! be followed by the file it names.
//!
//! Then the challenge numbers: every number from 1 to the highest one shown
//! must have its adjudication record, or a record explaining why not (a
//! reservation never used, named in the next adjudication's `skipped`; a
//! `recovered` torn record
//! never shown). Numbers shown without a record (`challenges_lost`, or the
//! challenge counter's pending `unrecorded` range) are named and fail, as do
//! a moved-aside torn line that is missing or altered, and a number used
//! twice. While the writer that showed them still runs (it holds the
//! folder's lock) such numbers are only reported: it holds their records in
//! memory and writes them when it can.
//!
//! What a chain cannot show: removing whole lines from the very end (or whole
//! files after the last `rotated` record) leaves a shorter, valid log, and
//! someone who rewrites a record and recomputes every later hash leaves a
//! valid chain. Copies taken off the station catch both: slip codes
//! ([`VerifyOptions::slips`]: each names a record and the chain head after
//! it) and signed checkpoints ([`VerifyOptions::checkpoint`]: a record count
//! and head hash).

use super::checkpoint::{self, Checkpoint, NoteVerifier};
use super::format::{self, SealError, GENESIS};
use super::numbering::{self, CounterState};
use super::record::{AuditEvent, Body, Record};
use super::slip::{Slip, SlipCode};
use crate::digest::sha256_hex;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// At most this many problems are listed (the first one matters most).
const MAX_BREAKS: usize = 50;

/// Files larger than this are not read (no audit file grows so big).
const MAX_FILE_BYTES: u64 = crate::bounded::limits::AUDIT_FILE;

/// Why a log could not be checked at all.
#[derive(Debug)]
pub enum VerifyError {
    /// The directory does not exist.
    Missing { dir: PathBuf },
    /// The directory cannot be listed.
    ReadDir { dir: PathBuf, source: std::io::Error },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Missing { dir } => write!(f, "there is no audit log at {} (no such directory)", dir.display()),
            VerifyError::ReadDir { dir, source } => {
                write!(f, "cannot read the audit directory {}: {source}", dir.display())
            }
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyError::Missing { .. } => None,
            VerifyError::ReadDir { source, .. } => Some(source),
        }
    }
}

/// A line of the log: file name and 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line {}", self.file, self.line)
    }
}

/// What is wrong at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakKind {
    /// The file could not be read.
    Unreadable { error: String },
    /// An unfinished last line (no newline): a crash or power cut mid-write,
    /// or a truncated file.
    Torn { bytes: u64 },
    /// Not a sealed audit record at all.
    NotARecord { problem: String },
    /// The line does not match its own `line_sha256`: edited in place.
    Edited,
    /// The line is sealed but does not chain to the line before it, whose
    /// `seq` it follows: one of them was rewritten and resealed.
    Rewritten,
    /// Records `first..=last` are missing before this line.
    Deleted { first: u64, last: u64 },
    /// Record `found` is where `expected` should be (it appears elsewhere).
    Reordered { expected: u64, found: u64 },
    /// The log does not begin with record 1 chained to the genesis value.
    MissingStart { first_seq: u64 },
    /// A `rotated` record names a file that is not there.
    MissingFile { name: String },
    /// The torn line a `recovered` record moved aside is gone.
    AsideMissing { name: String },
    /// The torn line a `recovered` record moved aside was changed since.
    AsideAltered { name: String },
    /// Challenges shown to players (while the log could not be written)
    /// that have no record.
    ShownWithoutRecord { challenges: Vec<(u64, u64)> },
    /// Challenge numbers with neither a record nor one explaining the gap.
    ChallengeMissing { challenges: Vec<(u64, u64)> },
    /// A challenge number used twice.
    DuplicateChallenge { challenge: u64 },
    /// The challenge counter file cannot be read.
    CounterDamaged { problem: String },
    /// A slip's code is not the code of its challenge's record.
    SlipMismatch { slip: String, found: String },
    /// A slip's challenge has no record.
    SlipNoRecord { slip: String },
    /// A slip matches, but the chain before its record is broken.
    SlipChainBroken { slip: String },
    /// The checkpoint's signature or text is not valid for the key.
    CheckpointInvalid { problem: String },
    /// The log has fewer records than the checkpoint signed.
    CheckpointBeyondLog { count: u64, records: u64 },
    /// Record `count` is not the one the checkpoint signed.
    CheckpointMismatch { count: u64 },
    /// The checkpoint's key is not the key the log's `key_created` record
    /// names, or not the one the director noted.
    CheckpointKeyNotStations { used: String, expected: String },
    /// journald holds a record of this chain that the file does not (cut),
    /// or holds another line where the file has this `seq` (rewritten).
    JournalDisagrees { seq: u64, challenge: Option<u64>, cut: bool },
}

/// `3`, `3-5, 9`.
fn ranges_text(ranges: &[(u64, u64)]) -> String {
    ranges
        .iter()
        .map(|(a, b)| if a == b { a.to_string() } else { format!("{a} to {b}") })
        .collect::<Vec<_>>()
        .join(", ")
}

impl BreakKind {
    /// One word for the kind: `torn`, `edited`, `deleted`, `reordered`, …
    pub fn label(&self) -> &'static str {
        match self {
            BreakKind::Unreadable { .. } => "unreadable",
            BreakKind::Torn { .. } => "torn",
            BreakKind::NotARecord { .. } => "not a record",
            BreakKind::Edited | BreakKind::Rewritten => "edited",
            BreakKind::Deleted { .. }
            | BreakKind::MissingStart { .. }
            | BreakKind::MissingFile { .. }
            | BreakKind::AsideMissing { .. }
            | BreakKind::ChallengeMissing { .. } => "deleted",
            BreakKind::AsideAltered { .. } => "edited",
            BreakKind::Reordered { .. } => "reordered",
            BreakKind::ShownWithoutRecord { .. } => "shown without record",
            BreakKind::DuplicateChallenge { .. } => "duplicate",
            BreakKind::CounterDamaged { .. } => "unreadable",
            BreakKind::SlipMismatch { .. } | BreakKind::SlipNoRecord { .. } | BreakKind::SlipChainBroken { .. } => {
                "slip does not match"
            }
            BreakKind::CheckpointInvalid { .. }
            | BreakKind::CheckpointBeyondLog { .. }
            | BreakKind::CheckpointMismatch { .. }
            | BreakKind::CheckpointKeyNotStations { .. } => "checkpoint does not match",
            BreakKind::JournalDisagrees { cut: true, .. } => "cut (journald has it)",
            BreakKind::JournalDisagrees { cut: false, .. } => "rewritten (journald differs)",
        }
    }
}

impl fmt::Display for BreakKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakKind::Unreadable { error } => write!(f, "unreadable: {error}"),
            BreakKind::Torn { bytes } => write!(
                f,
                "torn: the last line is incomplete ({bytes} bytes without a newline), a write cut short by a crash or \
                 power cut, or a truncated file (wordjudge moves it aside when it next opens the log)"
            ),
            BreakKind::NotARecord { problem } => write!(f, "not an audit record: {problem}"),
            BreakKind::Edited => write!(f, "edited: the line does not match its own line_sha256"),
            BreakKind::Rewritten => write!(
                f,
                "edited: the line does not chain to the line before it (its prev is not that line's SHA-256); \
                 one of the two was rewritten"
            ),
            BreakKind::Deleted { first, last } if first == last => {
                write!(f, "deleted: record {first} is missing before this line")
            }
            BreakKind::Deleted { first, last } => {
                write!(f, "deleted: records {first} to {last} are missing before this line")
            }
            BreakKind::Reordered { expected, found } => {
                write!(f, "reordered: record {found} is where record {expected} should be")
            }
            BreakKind::MissingStart { first_seq } => write!(
                f,
                "deleted: the log does not start at its beginning (first record is {first_seq}, not record 1 chained \
                 to the genesis value); earlier lines or files are missing"
            ),
            BreakKind::MissingFile { name } => write!(f, "deleted: the log continues in {name}, which is missing"),
            BreakKind::AsideMissing { name } => {
                write!(f, "deleted: the torn line this record moved aside to {name} is missing")
            }
            BreakKind::AsideAltered { name } => {
                write!(f, "edited: the torn line this record moved aside to {name} was changed since")
            }
            BreakKind::ShownWithoutRecord { challenges } => write!(
                f,
                "shown without record: challenge(s) {} were shown to players while the log could not be written, \
                 and have no record",
                ranges_text(challenges)
            ),
            BreakKind::ChallengeMissing { challenges } => write!(
                f,
                "deleted: challenge(s) {} have no record and no record explains why",
                ranges_text(challenges)
            ),
            BreakKind::DuplicateChallenge { challenge } => {
                write!(f, "duplicate: challenge {challenge} was handed out twice")
            }
            BreakKind::CounterDamaged { problem } => write!(f, "unreadable challenge counter: {problem}"),
            BreakKind::SlipMismatch { slip, found } => write!(
                f,
                "slip {slip} does not match: that challenge's record now has code {found}, so it or a record \
                 before it was rewritten"
            ),
            BreakKind::SlipNoRecord { slip } => write!(f, "slip {slip} does not match: that challenge has no record"),
            BreakKind::SlipChainBroken { slip } => {
                write!(f, "slip {slip} matches its record, but the chain before that record is broken")
            }
            BreakKind::CheckpointInvalid { problem } => write!(f, "checkpoint: {problem}"),
            BreakKind::CheckpointBeyondLog { count, records } => write!(
                f,
                "checkpoint does not match: it signed {count} records, the log has {records}; records were cut"
            ),
            BreakKind::CheckpointMismatch { count } => write!(
                f,
                "checkpoint does not match: record {count} is not the one signed, so it or a record before it was \
                 rewritten"
            ),
            BreakKind::JournalDisagrees { seq, challenge, cut } => {
                let challenge = challenge.map(|c| format!(" (challenge #{c:04})")).unwrap_or_default();
                if *cut {
                    write!(f, "record {seq}{challenge} is in journald's copy of this log but not in the file: cut")
                } else {
                    write!(f, "record {seq}{challenge} in the file is not the one journald copied: rewritten")
                }
            }
            BreakKind::CheckpointKeyNotStations { used, expected } => write!(
                f,
                "checkpoint key is not the station's: it was checked with key {used}, but {expected}; a key \
                 beside a log proves nothing, compare its fingerprint with the one noted at set-up"
            ),
        }
    }
}

/// A problem at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub at: Location,
    pub kind: BreakKind,
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.kind)
    }
}

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
    /// (`B605-4395-70A3-D5CC`, or the full hex): the checkpoint's key must
    /// be that key. A key that sits beside the log proves nothing alone:
    /// whoever forged the log could have put it there.
    pub key_fingerprint: Option<String>,
    /// The journald copies of the records, in the journal's order (see
    /// [`JournalCopy`]), when the journal is at hand: records cut from the
    /// end of the file (with the counter deleted, so nothing else tells)
    /// are still in the journal.
    pub journal: Option<Vec<JournalCopy>>,
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
    pub held_by_writer: Option<((u64, u64), super::lock::Holder)>,
    /// Slips that matched.
    pub slips_matched: Vec<Slip>,
    /// The checkpoint checked, when it matched.
    pub checkpoint: Option<Checkpoint>,
    /// The key a checkpoint was checked with: its name, key id and
    /// fingerprint (printed whether or not it matched).
    pub checkpoint_key: Option<String>,
    /// Fingerprints of the keys the log's own `key_created` records name.
    pub keys_created: Vec<String>,
    /// journald copies of this chain compared with the file, when given.
    pub journal_compared: Option<usize>,
    /// Slip code of the last record.
    pub last_code: Option<String>,
    /// Sealed records in the chain whose event this version does not know
    /// or cannot read (their fields do not have the expected shape).
    pub unreadable_bodies: Vec<Location>,
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

    fn add_break(&mut self, at: Location, kind: BreakKind) {
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
        }
        if let (Some(a), Some(b)) = (&self.first_time, &self.last_time) {
            writeln!(f, "  from {a} to {b} (UTC)")?;
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
        if let Some(n) = self.journal_compared {
            writeln!(f, "  journald: {n} copies of this log's records compared with the file")?;
        }
        if let Some(key) = &self.checkpoint_key {
            writeln!(f, "  checkpoint key used: {key}")?;
        }
        for fp in &self.keys_created {
            writeln!(f, "  key created in this log: fingerprint {}", super::checkpoint::KeyFingerprint(fp.clone()).short())?;
        }
        if let Some(c) = &self.checkpoint {
            writeln!(
                f,
                "  checkpoint of {} ({}, {}): signature good, record {} is the one signed",
                c.time, c.station, c.reason, c.count
            )?;
        }
        for w in &self.write_failures {
            writeln!(f, "  write failure recorded at {}: {}", w.at, w.text)?;
        }
        if !self.others.is_empty() {
            writeln!(f, "  other files, not part of the log: {}", self.others.join(", "))?;
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

/// One line after checking it alone.
enum State {
    /// The whole file could not be read (already reported).
    Unreadable,
    Torn {
        bytes: u64,
    },
    NotARecord(String),
    Edited,
    Sealed {
        head: Box<Record>,
        hash: String,
        failure: Option<String>,
    },
}

struct Checked {
    at: Location,
    file_index: usize,
    state: State,
}

/// Where the chain stands before the next line.
enum Anchor {
    Start,
    Known {
        seq: u64,
        hash: String,
    },
    /// After a bad line: the next line is taken as it is.
    Unknown,
}

/// Checks the log in `dir`. Only a missing or unlistable directory is an
/// error; everything wrong inside is in the report.
pub fn verify(dir: &Path) -> Result<VerifyReport, VerifyError> {
    verify_with(dir, &VerifyOptions::default())
}

/// Where a sealed record is, for slips and checkpoints.
struct Seen {
    at: Location,
    hash: String,
    /// No problem at or before this line.
    clean: bool,
}

/// [`verify`], and against slips and a checkpoint.
pub fn verify_with(dir: &Path, options: &VerifyOptions) -> Result<VerifyReport, VerifyError> {
    if !dir.exists() {
        return Err(VerifyError::Missing { dir: dir.to_path_buf() });
    }
    let (logs, others) =
        format::list_dir(dir).map_err(|source| VerifyError::ReadDir { dir: dir.to_path_buf(), source })?;
    let mut report = VerifyReport { dir: dir.to_path_buf(), ..Default::default() };
    for name in others {
        if format::parse_torn_aside(&name).is_some() {
            report.aside_files.push(name);
        } else if [super::lock::LOCK_FILE, numbering::COUNTER_FILE, checkpoint::KEY_DIR].contains(&name.as_str()) {
            // The writer's own files, not part of the chain.
        } else {
            report.others.push(name);
        }
    }

    // Pass 1: each line alone.
    let mut lines: Vec<Checked> = Vec::new();
    for (file_index, (name, path)) in logs.iter().enumerate() {
        let file = name.file_name();
        let bytes = crate::bounded::read_small_file(path, MAX_FILE_BYTES).map_err(|e| e.to_string());
        let bytes = match bytes {
            Ok(b) => b,
            Err(error) => {
                report.files.push(FileSummary { name: file.clone(), lines: 0, bytes: 0 });
                let at = Location { file, line: 0 };
                report.add_break(at.clone(), BreakKind::Unreadable { error });
                lines.push(Checked { at, file_index, state: State::Unreadable });
                continue;
            }
        };
        let split = format::split_lines(&bytes);
        report.files.push(FileSummary {
            name: file.clone(),
            lines: split.complete.len() as u64 + u64::from(split.tail.is_some()),
            bytes: bytes.len() as u64,
        });
        for (n, (_, line)) in split.complete.iter().enumerate() {
            let at = Location { file: file.clone(), line: n as u64 + 1 };
            let state = match format::check_seal(line) {
                // Still recognisably one of ours: an edit that hit the seal.
                Err(SealError::Missing) if looks_like_a_record(line) => State::Edited,
                Err(SealError::Missing) => State::NotARecord(not_a_record(line)),
                Err(SealError::Mismatch) => State::Edited,
                Ok(()) => match Record::parse(line) {
                    Ok(head) => {
                        let failure = write_failed_text(&head.body);
                        State::Sealed { head: Box::new(head), hash: format::line_hash(line), failure }
                    }
                    Err(e) => State::NotARecord(format!("sealed, but not an audit record: {e}")),
                },
            };
            lines.push(Checked { at, file_index, state });
        }
        if let Some((_, tail)) = split.tail {
            let at = Location { file: file.clone(), line: split.complete.len() as u64 + 1 };
            lines.push(Checked { at, file_index, state: State::Torn { bytes: tail.len() as u64 } });
        }
    }

    // Where each sequence number is, to tell reordering from deletion.
    let mut positions: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, c) in lines.iter().enumerate() {
        if let State::Sealed { head, .. } = &c.state {
            positions.entry(head.seq).or_default().push(i);
        }
    }
    let appears_after = |seq: u64, i: usize| positions.get(&seq).is_some_and(|p| p.iter().any(|&j| j > i));
    // Any of the numbers first..last in the log (a crafted gap may be huge).
    let any_in = |first: u64, last: u64| {
        if last - first < positions.len() as u64 {
            (first..=last).any(|s| positions.contains_key(&s))
        } else {
            positions.keys().any(|s| (first..=last).contains(s))
        }
    };

    // Pass 2: the chain.
    let mut anchor = Anchor::Start;
    let mut by_seq: HashMap<u64, Seen> = HashMap::new();
    let mut by_challenge: BTreeMap<u64, Vec<Seen>> = BTreeMap::new();
    let mut numbers = Numbers::default();
    for (i, checked) in lines.iter().enumerate() {
        let at = checked.at.clone();
        let (head, hash) = match &checked.state {
            State::Torn { bytes } => {
                report.add_break(at, BreakKind::Torn { bytes: *bytes });
                continue;
            }
            State::Unreadable => {
                anchor = Anchor::Unknown;
                continue;
            }
            State::NotARecord(problem) => {
                report.add_break(at, BreakKind::NotARecord { problem: problem.clone() });
                anchor = Anchor::Unknown;
                continue;
            }
            State::Edited => {
                report.add_break(at, BreakKind::Edited);
                anchor = Anchor::Unknown;
                continue;
            }
            State::Sealed { head, hash, .. } => (head, hash),
        };
        let seq = head.seq;
        match &anchor {
            Anchor::Start => {
                if seq != 1 || head.prev != GENESIS {
                    report.add_break(at.clone(), BreakKind::MissingStart { first_seq: seq });
                }
            }
            Anchor::Known { .. } if report.breaks.len() >= MAX_BREAKS => {
                // Enough listed: only count further breaks, cheaply.
                if let Anchor::Known { seq: before, hash: before_hash } = &anchor {
                    if seq != before.saturating_add(1) || head.prev != *before_hash {
                        report.more_breaks += 1;
                    }
                }
            }
            Anchor::Known { seq: before, hash: before_hash } => {
                let expected = before.saturating_add(1);
                if seq == expected && head.prev != *before_hash {
                    report.add_break(at.clone(), BreakKind::Rewritten);
                } else if seq > expected {
                    if appears_after(expected, i) {
                        report.add_break(at.clone(), BreakKind::Reordered { expected, found: seq });
                    } else if any_in(expected, seq - 1) {
                        // The missing records are elsewhere (earlier): moved.
                        report.add_break(at.clone(), BreakKind::Reordered { expected, found: seq });
                    } else {
                        report.add_break(at.clone(), BreakKind::Deleted { first: expected, last: seq - 1 });
                    }
                } else if seq < expected {
                    report.add_break(at.clone(), BreakKind::Reordered { expected, found: seq });
                }
            }
            Anchor::Unknown => {}
        }
        anchor = Anchor::Known { seq, hash: hash.clone() };

        // The record itself.
        report.records += 1;
        report.first_seq.get_or_insert(seq);
        report.last_seq = Some(seq);
        report.first_time.get_or_insert_with(|| head.time.clone());
        report.last_time = Some(head.time.clone());
        report.last_line_sha256 = Some(hash.clone());
        match &head.body {
            Body::Adjudication(a) => {
                report.adjudications += 1;
                let c = a.challenge;
                report.challenges = Some(match report.challenges {
                    Some((lo, hi)) => (lo.min(c), hi.max(c)),
                    None => (c, c),
                });
                numbers.recorded.push(c);
                numbers.explained.extend(a.skipped.iter().map(|[first, last]| (*first, *last)));
            }
            Body::Event(AuditEvent::Recovered { challenge, .. }) => {
                let recovery = recovery(dir, &at, head);
                match recovery.aside {
                    AsideState::Present => {}
                    AsideState::Missing => {
                        report.add_break(at.clone(), BreakKind::AsideMissing { name: recovery.moved_to.clone() })
                    }
                    AsideState::Altered => {
                        report.add_break(at.clone(), BreakKind::AsideAltered { name: recovery.moved_to.clone() })
                    }
                }
                report.recoveries.push(recovery);
                numbers.explained.extend(challenge.map(|c| (c, c)));
            }
            Body::Event(AuditEvent::WriteFailed { challenges, note, .. }) => {
                if let State::Sealed { failure: Some(text), .. } = &checked.state {
                    report.write_failures.push(WriteFailure { at: at.clone(), text: text.clone() });
                }
                if let (Some([a, b]), Some(_)) = (challenges, note) {
                    numbers.may_repeat.push((*a, *b));
                }
            }
            Body::Unknown { .. } | Body::Invalid { .. } => report.unreadable_bodies.push(at.clone()),
            Body::Event(AuditEvent::ChallengesLost { first, last, .. }) => {
                numbers.lost.push((at.clone(), *first, *last))
            }
            Body::Event(AuditEvent::KeyCreated { fingerprint, .. }) => report.keys_created.push(fingerprint.clone()),
            Body::Event(AuditEvent::Rotated { next_file, .. }) => {
                let last_of_file = lines.get(i + 1).is_none_or(|n| n.file_index != checked.file_index);
                if last_of_file {
                    let follows = logs.get(checked.file_index + 1).map(|(n, _)| n.file_name());
                    if follows.as_deref() != Some(next_file.as_str()) {
                        report.add_break(at.clone(), BreakKind::MissingFile { name: next_file.clone() });
                    }
                }
            }
            _ => {}
        }
        let clean = report.breaks.is_empty() && report.more_breaks == 0;
        let seen = || Seen { at: at.clone(), hash: hash.clone(), clean };
        by_seq.entry(seq).or_insert_with(seen);
        if let Some(c) = head.challenge() {
            by_challenge.entry(c).or_default().push(seen());
        }
    }
    report.last_code = report.last_line_sha256.as_deref().and_then(SlipCode::of_line_hash).map(|c| c.to_string());

    // The challenge numbers.
    match numbering::read(dir) {
        Ok(counter) => report.counter = counter,
        Err(problem) => report.add_break(
            Location { file: numbering::COUNTER_FILE.into(), line: 0 },
            BreakKind::CounterDamaged { problem },
        ),
    }
    let writer = super::lock::holder(dir);
    numbers.check(&mut report, writer);

    // Copies taken off the station.
    let mut slips = options.slips.clone();
    slips.sort_by_key(|s| s.challenge);
    for slip in slips {
        let candidates = by_challenge.get(&slip.challenge).map(Vec::as_slice).unwrap_or(&[]);
        let matching =
            candidates.iter().find(|s| SlipCode::of_line_hash(&s.hash).as_ref() == Some(&slip.code));
        let text = slip.to_string();
        match (matching, candidates.first()) {
            (Some(seen), _) if seen.clean => report.slips_matched.push(slip),
            (Some(seen), _) => report.add_break(seen.at.clone(), BreakKind::SlipChainBroken { slip: text }),
            (None, Some(seen)) => {
                let found = SlipCode::of_line_hash(&seen.hash).map(|c| c.to_string()).unwrap_or_default();
                report.add_break(seen.at.clone(), BreakKind::SlipMismatch { slip: text, found })
            }
            (None, None) => {
                report.add_break(Location { file: "slips".into(), line: 0 }, BreakKind::SlipNoRecord { slip: text })
            }
        }
    }
    if let Some(copies) = &options.journal {
        // Only the copies of this chain: from a copy of record 1 whose line
        // is this file's record 1, to the next record 1 (another chain).
        let first = by_seq.get(&1).map(|s| s.hash.clone());
        let mut in_chain = false;
        let mut compared = 0;
        let last = report.last_seq.unwrap_or(0);
        for copy in copies {
            if copy.seq == 1 {
                in_chain = first.as_deref() == Some(copy.line_sha256.as_str());
            }
            if !in_chain {
                continue;
            }
            compared += 1;
            let at = Location { file: "journald".into(), line: copy.seq };
            match by_seq.get(&copy.seq) {
                Some(seen) if seen.hash == copy.line_sha256 => {}
                Some(_) => report.add_break(
                    at,
                    BreakKind::JournalDisagrees { seq: copy.seq, challenge: copy.challenge, cut: false },
                ),
                None if copy.seq > last => report.add_break(
                    at,
                    BreakKind::JournalDisagrees { seq: copy.seq, challenge: copy.challenge, cut: true },
                ),
                None => {}
            }
        }
        report.journal_compared = Some(compared);
    }
    if let Some((note, verifier)) = &options.checkpoint {
        let at = Location { file: "checkpoint".into(), line: 0 };
        let used = verifier.fingerprint();
        report.checkpoint_key = Some(format!(
            "{} (key id {}), fingerprint {} ({})",
            verifier.name,
            verifier.to_text().split('+').nth(1).unwrap_or(""),
            used.short(),
            used.0
        ));
        if !report.keys_created.is_empty() && !report.keys_created.contains(&used.0) {
            let expected = format!(
                "the log's key_created record names {}",
                report.keys_created.iter().map(|f| checkpoint::KeyFingerprint(f.clone()).short()).collect::<Vec<_>>().join(", ")
            );
            report.add_break(at.clone(), BreakKind::CheckpointKeyNotStations { used: used.short(), expected });
        }
        if let Some(noted) = &options.key_fingerprint {
            let clean = |t: &str| t.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
            let noted = clean(noted);
            if noted.len() < 16 || !used.0.starts_with(&noted) {
                let expected = format!("the fingerprint noted at set-up is {}", noted.to_ascii_uppercase());
                report.add_break(at.clone(), BreakKind::CheckpointKeyNotStations { used: used.short(), expected });
            }
        }
        match checkpoint::open_note(note, verifier) {
            Err(e) => report.add_break(at, BreakKind::CheckpointInvalid { problem: e.to_string() }),
            Ok(cp) => match by_seq.get(&cp.count) {
                // Record `count` is there but not readable as signed (edited).
                None if report.last_seq.unwrap_or(0) >= cp.count => {
                    report.add_break(at, BreakKind::CheckpointMismatch { count: cp.count })
                }
                None => report.add_break(
                    at,
                    BreakKind::CheckpointBeyondLog { count: cp.count, records: report.last_seq.unwrap_or(0) },
                ),
                Some(seen) if seen.hash != cp.head || !seen.clean => {
                    report.add_break(seen.at.clone(), BreakKind::CheckpointMismatch { count: cp.count })
                }
                Some(_) => report.checkpoint = Some(cp),
            },
        }
    }
    Ok(report)
}

/// The challenge numbers seen in the log, for the numbering checks.
#[derive(Default)]
struct Numbers {
    recorded: Vec<u64>,
    /// Ranges a record explains (skipped reservations, torn records).
    explained: Vec<(u64, u64)>,
    /// Ranges a `challenges_lost` record names.
    lost: Vec<(Location, u64, u64)>,
    /// Ranges a `write_failed` record says may repeat earlier numbers.
    may_repeat: Vec<(u64, u64)>,
}

/// Sorted, merged ranges.
fn merge(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (a, b) in ranges {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The parts of `range` not covered by `covered` (sorted, merged).
fn uncovered(range: (u64, u64), covered: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut next = range.0;
    for &(a, b) in covered {
        if b < next || a > range.1 {
            continue;
        }
        if a > next {
            out.push((next, a - 1));
        }
        if b >= range.1 {
            return out;
        }
        next = b + 1;
    }
    if next <= range.1 {
        out.push((next, range.1));
    }
    out
}

impl Numbers {
    fn check(&self, report: &mut VerifyReport, writer: Option<super::lock::Holder>) {
        let at_counter = Location { file: numbering::COUNTER_FILE.into(), line: 0 };
        let mut sorted = self.recorded.clone();
        sorted.sort_unstable();
        for pair in sorted.windows(2) {
            if pair[0] == pair[1] && !self.may_repeat.iter().any(|(a, b)| (*a..=*b).contains(&pair[0])) {
                let at = Location { file: "challenges".into(), line: 0 };
                report.add_break(at, BreakKind::DuplicateChallenge { challenge: pair[0] });
            }
        }
        let recorded = merge(sorted.iter().map(|&n| (n, n)).collect());
        let mut accounted = recorded.clone();
        accounted.extend(self.explained.iter().copied());
        let mut highest = sorted.last().copied().unwrap_or(0);
        for (at, first, last) in &self.lost {
            let missing = uncovered((*first, *last), &recorded);
            if !missing.is_empty() {
                report.add_break(at.clone(), BreakKind::ShownWithoutRecord { challenges: missing });
            }
            accounted.push((*first, *last));
            highest = highest.max(*last);
        }
        if let Some((first, last)) = report.counter.and_then(|c| c.unrecorded) {
            let known = merge(accounted.clone());
            let missing = uncovered((first, last), &known);
            match writer {
                // The running writer still holds them and writes them when it can.
                Some(holder) if !missing.is_empty() => report.held_by_writer = Some(((first, last), holder)),
                _ if !missing.is_empty() => {
                    report.add_break(at_counter.clone(), BreakKind::ShownWithoutRecord { challenges: missing })
                }
                _ => {}
            }
            accounted.push((first, last));
            highest = highest.max(last);
        }
        if highest > 0 {
            let missing = uncovered((1, highest), &merge(accounted));
            if !missing.is_empty() {
                let at = Location { file: "challenges".into(), line: 0 };
                let shown: Vec<(u64, u64)> = missing.into_iter().take(20).collect();
                report.add_break(at, BreakKind::ChallengeMissing { challenges: shown });
            }
        }
    }
}

/// Whether a line whose seal is unreadable was nevertheless written as an
/// audit record: it starts like one or still ends in a seal key. A
/// single-byte edit cannot destroy both, so it is always named an edit.
fn looks_like_a_record(line: &[u8]) -> bool {
    let key = format::SEAL_KEY.as_bytes();
    line.starts_with(b"{\"seq\":") || line.windows(key.len()).any(|w| w == key)
}

/// Says why bytes are not a sealed record, briefly.
fn not_a_record(line: &[u8]) -> String {
    if line.is_empty() {
        return "an empty line".into();
    }
    match std::str::from_utf8(line) {
        Err(_) => "not text (invalid UTF-8)".into(),
        Ok(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(_) => "JSON without the line_sha256 seal at its end".into(),
            Err(e) => format!("not JSON ({e}) and no line_sha256 seal"),
        },
    }
}

fn recovery(dir: &Path, at: &Location, head: &Record) -> Recovery {
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
        match crate::bounded::read_small_file(&dir.join(&moved_to), crate::bounded::limits::SMALL_FILE) {
            Ok(bytes) if Some(sha256_hex(&bytes)) == torn_sha256 => AsideState::Present,
            Ok(_) => AsideState::Altered,
            Err(_) => AsideState::Missing,
        }
    };
    Recovery {
        at: at.clone(),
        time: head.time.clone(),
        file,
        torn_bytes,
        moved_to,
        aside,
    }
}

/// A `write_failed` record in words.
fn write_failed_text(body: &Body) -> Option<String> {
    match body {
        Body::Event(AuditEvent::WriteFailed { since, error, held, lost, .. }) => Some(format!(
            "could not write since {since}: {error} ({held} held records written late, {lost} lost)"
        )),
        _ => None,
    }
}
