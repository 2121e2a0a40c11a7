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
//! and head hash). A slip whose code is a character or two off its
//! record's, or has two neighbours swapped, is named as likely miscopied
//! (the director checks the slip) rather than as a rewrite; it fails all
//! the same.

use crate::audit::checkpoint::{self};
use crate::audit::format::{self, SealError, GENESIS};
use crate::audit::numbering::{self};
use crate::audit::record::{AuditEvent, Body, Record};
use crate::audit::slip::SlipCode;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

mod breaks;
mod numbers;
mod report;
mod trust;

pub use breaks::{Break, BreakKind};
pub use report::{AsideState, FileSummary, JournalCopy, Recovery, VerifyOptions, VerifyReport, WriteFailure};
use breaks::{looks_like_a_record, not_a_record};
use numbers::Numbers;
use report::{recovery, write_failed_text};
pub use trust::{shown_name, ClockJump, JournalCheck, KeyCheck, StationSpan};

/// At most this many problems are listed (the first one matters most).
const MAX_BREAKS: usize = 50;

/// Files larger than this are not read (no audit file grows so big).
const MAX_FILE_BYTES: u64 = crate::outside_files::limits::AUDIT_FILE;

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
        } else if [crate::audit::lock::LOCK_FILE, numbering::COUNTER_FILE, checkpoint::KEY_DIR].contains(&name.as_str()) {
            // The writer's own files, not part of the chain.
        } else {
            report.others.push(name);
        }
    }

    // Pass 1: each line alone.
    let mut lines: Vec<Checked> = Vec::new();
    for (file_index, (name, path)) in logs.iter().enumerate() {
        let file = name.file_name();
        let bytes = crate::outside_files::read_small_file(path, MAX_FILE_BYTES).map_err(|e| e.to_string());
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
    let mut times = trust::Times::default();
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
        trust::note_station(&mut report.stations, seq, &head.station);
        times.see(&at, head, &mut report.clock_jumps);
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
    let writer = crate::audit::lock::holder(dir);
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
            (None, Some(first)) => {
                // A code a hand could have miscopied is told apart from one
                // that differs more (still a break: only the slip can tell).
                let near = candidates.iter().find_map(|seen| {
                    let found = SlipCode::of_line_hash(&seen.hash)?;
                    let differences = slip.code.copying_errors(&found)?;
                    Some((seen, found, differences))
                });
                match near {
                    Some((seen, found, differences)) => report.add_break(
                        seen.at.clone(),
                        BreakKind::SlipLikelyMiscopied { slip, found, differences },
                    ),
                    None => {
                        let found = SlipCode::of_line_hash(&first.hash).map(|c| c.to_string()).unwrap_or_default();
                        report.add_break(first.at.clone(), BreakKind::SlipMismatch { slip: text, found })
                    }
                }
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
        report.journal = if compared == 0 { JournalCheck::NoneFound } else { JournalCheck::Compared(compared) };
    } else if let Some(why) = &options.journal_unavailable {
        report.journal = JournalCheck::NotRead(why.clone());
    }
    let noted = match options.key_fingerprint.as_deref().map(checkpoint::NotedFingerprint::parse) {
        None => None,
        Some(Ok(noted)) => Some(noted),
        Some(Err(e)) => {
            let at = Location { file: "--key-fingerprint".into(), line: 0 };
            report.add_break(at, BreakKind::FingerprintUnreadable { problem: e.to_string() });
            None
        }
    };
    if let (Some(noted), None) = (&noted, &options.checkpoint) {
        // No checkpoint: the key the log itself names is what can be checked.
        let named: Vec<checkpoint::KeyFingerprint> =
            report.keys_created.iter().map(|f| checkpoint::KeyFingerprint(f.clone())).collect();
        report.key_check = if named.is_empty() {
            KeyCheck::NothingToCompare
        } else if named.iter().any(|k| noted.matches(k)) {
            KeyCheck::Matches { noted: noted.to_string(), checkpoint: false }
        } else {
            let names = named.iter().map(checkpoint::KeyFingerprint::short).collect::<Vec<_>>().join(", ");
            let at = Location { file: "key_created".into(), line: 0 };
            report.add_break(at, BreakKind::LogKeyNotNoted { names, noted: noted.to_string() });
            KeyCheck::Differs
        };
    }
    if let Some((note, verifier)) = &options.checkpoint {
        let at = Location { file: "checkpoint".into(), line: 0 };
        let used = verifier.fingerprint();
        report.checkpoint_key = Some(format!(
            "{} (key id {}), fingerprint {} ({})",
            crate::word::printable(&verifier.name, 80),
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
        if let Some(noted) = &noted {
            if noted.matches(&used) {
                report.key_check = KeyCheck::Matches { noted: noted.to_string(), checkpoint: true };
            } else {
                let expected = format!("the fingerprint noted at set-up is {noted}");
                report.add_break(at.clone(), BreakKind::CheckpointKeyNotStations { used: used.short(), expected });
                report.key_check = KeyCheck::Differs;
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
