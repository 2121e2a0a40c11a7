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
//! What a chain cannot show: removing whole lines from the very end (or whole
//! files after the last `rotated` record) leaves a shorter, valid log. The
//! report gives the last record and its hash so it can be compared with the
//! journald copy (`WORDJUDGE_LINE_SHA256`) or a slip's challenge number.

use super::format::{self, Head, SealError, GENESIS};
use crate::digest::sha256_hex;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// At most this many problems are listed (the first one matters most).
const MAX_BREAKS: usize = 50;

/// Files larger than this are not read (no audit file grows so big).
const MAX_FILE_BYTES: u64 = 512 * 1024 * 1024;

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
}

impl BreakKind {
    /// One word for the kind: `torn`, `edited`, `deleted`, `reordered`, …
    pub fn label(&self) -> &'static str {
        match self {
            BreakKind::Unreadable { .. } => "unreadable",
            BreakKind::Torn { .. } => "torn",
            BreakKind::NotARecord { .. } => "not a record",
            BreakKind::Edited | BreakKind::Rewritten => "edited",
            BreakKind::Deleted { .. } | BreakKind::MissingStart { .. } | BreakKind::MissingFile { .. } => "deleted",
            BreakKind::Reordered { .. } => "reordered",
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
                "OK: the hash chain is intact from genesis to record {}; last line SHA-256 {}",
                self.last_seq.unwrap_or(0),
                self.last_line_sha256.as_deref().unwrap_or("-")
            )?;
            writeln!(
                f,
                "  (lines removed from the very end cannot be seen in a chain: compare the last record with the \
                 slips or journald's WORDJUDGE_LINE_SHA256)"
            )?;
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
        head: Box<Head>,
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
    if !dir.exists() {
        return Err(VerifyError::Missing { dir: dir.to_path_buf() });
    }
    let (logs, others) =
        format::list_dir(dir).map_err(|source| VerifyError::ReadDir { dir: dir.to_path_buf(), source })?;
    let mut report = VerifyReport { dir: dir.to_path_buf(), ..Default::default() };
    for name in others {
        if format::parse_torn_aside(&name).is_some() {
            report.aside_files.push(name);
        } else {
            report.others.push(name);
        }
    }

    // Pass 1: each line alone.
    let mut lines: Vec<Checked> = Vec::new();
    for (file_index, (name, path)) in logs.iter().enumerate() {
        let file = name.file_name();
        let bytes = match std::fs::metadata(path) {
            Ok(m) if m.len() > MAX_FILE_BYTES => Err(format!("{} bytes is too large for an audit file", m.len())),
            _ => std::fs::read(path).map_err(|e| e.to_string()),
        };
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
                Ok(()) => match Head::parse(line) {
                    Ok(head) => {
                        let failure = (head.event == "write_failed").then(|| write_failed_text(line));
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
        match head.event.as_str() {
            "adjudication" => {
                report.adjudications += 1;
                if let Some(c) = head.challenge {
                    report.challenges = Some(match report.challenges {
                        Some((lo, hi)) => (lo.min(c), hi.max(c)),
                        None => (c, c),
                    });
                }
            }
            "recovered" => report.recoveries.push(recovery(dir, &at, head)),
            "write_failed" => {
                if let State::Sealed { failure: Some(text), .. } = &checked.state {
                    report.write_failures.push(WriteFailure { at: at.clone(), text: text.clone() });
                }
            }
            "rotated" => {
                let last_of_file = lines.get(i + 1).is_none_or(|n| n.file_index != checked.file_index);
                if let (Some(next), true) = (&head.next_file, last_of_file) {
                    let follows = logs.get(checked.file_index + 1).map(|(n, _)| n.file_name());
                    if follows.as_deref() != Some(next.as_str()) {
                        report.add_break(at.clone(), BreakKind::MissingFile { name: next.clone() });
                    }
                }
            }
            _ => {}
        }
    }
    Ok(report)
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

fn recovery(dir: &Path, at: &Location, head: &Head) -> Recovery {
    let moved_to = head.moved_to.clone().unwrap_or_default();
    // Only a plain name in this directory is looked at.
    let aside = if moved_to.is_empty() || moved_to.contains('/') {
        AsideState::Missing
    } else {
        match std::fs::read(dir.join(&moved_to)) {
            Ok(bytes) if Some(sha256_hex(&bytes)) == head.torn_sha256 => AsideState::Present,
            Ok(_) => AsideState::Altered,
            Err(_) => AsideState::Missing,
        }
    };
    Recovery {
        at: at.clone(),
        time: head.time.clone(),
        file: head.file.clone().unwrap_or_default(),
        torn_bytes: head.torn_bytes.unwrap_or(0),
        moved_to,
        aside,
    }
}

/// A `write_failed` record in words.
fn write_failed_text(line: &[u8]) -> String {
    let value: serde_json::Value = serde_json::from_slice(line).unwrap_or_default();
    format!(
        "could not write since {}: {} ({} held records written late, {} lost)",
        value["since"].as_str().unwrap_or("?"),
        value["error"].as_str().unwrap_or("?"),
        value["held"].as_u64().unwrap_or(0),
        value["lost"].as_u64().unwrap_or(0)
    )
}
