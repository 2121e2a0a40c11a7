//! `audit verify`'s first two passes: each line of the log on its own, then
//! the hash chain through them, with what each record adds to the report.
//! The rest of `verify` (numbers, copies taken off the station) works from
//! what these passes leave ([`Walked`]).

use super::breaks::{looks_like_a_record, not_a_record};
use super::numbers::{NumberGap, Numbers};
use super::report::{recovery, write_failed_text};
use super::{
    trust, AsideState, BreakKind, FileSummary, Location, VerifyReport, WriteFailure, MAX_BREAKS, MAX_FILE_BYTES,
};
use crate::audit::format::{self, LogName, SealError, GENESIS};
use crate::audit::record::{AuditEvent, Body, Record};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

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

pub(super) struct Checked {
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

/// Where a sealed record is, for slips and checkpoints.
pub(super) struct Seen {
    pub at: Location,
    pub hash: String,
    /// No problem at or before this line.
    pub clean: bool,
}

/// What the chain's walk leaves for the checks after it.
#[derive(Default)]
pub(super) struct Walked {
    pub by_seq: HashMap<u64, Seen>,
    pub by_challenge: BTreeMap<u64, Vec<Seen>>,
    pub numbers: Numbers,
}

/// The log's files, each as `(its name, its path)`, in the order of the log.
pub(super) type Logs = [(LogName, PathBuf)];

/// Pass 1: each line alone.
pub(super) fn check_lines(logs: &Logs, report: &mut VerifyReport) -> Vec<Checked> {
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

    lines
}

/// Pass 2: the chain, from line to line.
pub(super) fn walk(dir: &Path, logs: &Logs, lines: &[Checked], report: &mut VerifyReport) -> Walked {
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

    let mut anchor = Anchor::Start;
    let mut walked = Walked::default();
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
        link(&anchor, head, at.clone(), report, &|seq| appears_after(seq, i), &any_in);
        anchor = Anchor::Known { seq, hash: hash.clone() };

        account(dir, logs, lines, i, checked, head, hash, &at, report, &mut walked.numbers, &mut times);
        let clean = report.breaks.is_empty() && report.more_breaks == 0;
        let seen = || Seen { at: at.clone(), hash: hash.clone(), clean };
        walked.by_seq.entry(seq).or_insert_with(seen);
        if let Some(c) = head.challenge() {
            walked.by_challenge.entry(c).or_default().push(seen());
        }
    }
    walked
}

/// Whether the sealed record `head` at `at` follows the line before it
/// (`anchor`); a break is named when it does not.
fn link(
    anchor: &Anchor,
    head: &Record,
    at: Location,
    report: &mut VerifyReport,
    appears_after: &dyn Fn(u64) -> bool,
    any_in: &dyn Fn(u64, u64) -> bool,
) {
    let seq = head.seq;
    match anchor {
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
                if appears_after(expected) {
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
}

/// What sealed record `head` (line `i`, at `at`) adds to the report and to
/// the challenge numbers.
#[allow(clippy::too_many_arguments)]
fn account(
    dir: &Path,
    logs: &Logs,
    lines: &[Checked],
    i: usize,
    checked: &Checked,
    head: &Record,
    hash: &str,
    at: &Location,
    report: &mut VerifyReport,
    numbers: &mut Numbers,
    times: &mut trust::Times,
) {
    let seq = head.seq;
    report.records += 1;
    report.first_seq.get_or_insert(seq);
    report.last_seq = Some(seq);
    report.first_time.get_or_insert_with(|| head.time.clone());
    report.last_time = Some(head.time.clone());
    report.last_line_sha256 = Some(hash.to_string());
    trust::note_station(&mut report.stations, seq, &head.station);
    times.see(at, head, &mut report.clock_jumps);
    numbers.since_last.see(&head.time, &head.body);
    match &head.body {
        Body::Adjudication(a) => {
            if a.skipped.is_empty() {
                numbers.since_last.clear();
            } else {
                let reason = numbers.since_last.reason();
                report.number_gaps.extend(a.skipped.iter().map(|[first, last]| NumberGap {
                    first: *first.min(last),
                    last: *first.max(last),
                    reason: reason.clone(),
                }));
            }
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
            let recovery = recovery(dir, at, head);
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
        Body::Event(AuditEvent::ChallengesLost { first, last, .. }) => numbers.lost.push((at.clone(), *first, *last)),
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
}
