//! The challenge-number checks: every number shown has its record or a
//! record explaining why not, and none is used twice.

use super::{BreakKind, Location, VerifyReport};
use crate::audit::numbering::{self};

/// The challenge numbers seen in the log, for the numbering checks.
#[derive(Default)]
pub(super) struct Numbers {
    pub(super) recorded: Vec<u64>,
    /// Ranges a record explains (skipped reservations, torn records).
    pub(super) explained: Vec<(u64, u64)>,
    /// Ranges a `challenges_lost` record names.
    pub(super) lost: Vec<(Location, u64, u64)>,
    /// Ranges a `write_failed` record says may repeat earlier numbers.
    pub(super) may_repeat: Vec<(u64, u64)>,
    /// What happened since the last adjudication, to word the reason of the
    /// numbers the next one names as skipped.
    pub(super) since_last: GapContext,
}

/// What the records between two adjudications say happened.
#[derive(Default)]
pub(super) struct GapContext {
    /// The time of the record before the last record.
    previous_time: Option<String>,
    /// A start after the station stopped: the time of the last record
    /// before it, and the start's own time.
    stopped: Option<(Option<String>, String)>,
    /// A `write_failed` record: the time the failure began.
    write_failed: Option<String>,
}

impl GapContext {
    /// Looks at one record (its time and what it is), in log order.
    pub(super) fn see(&mut self, time: &str, body: &crate::audit::record::Body) {
        use crate::audit::record::{AuditEvent, Body};
        let before = self.previous_time.replace(time.to_string());
        match body {
            Body::Event(AuditEvent::Startup { .. }) => self.stopped = Some((before, time.to_string())),
            Body::Event(AuditEvent::WriteFailed { since, .. }) => self.write_failed = Some(since.clone()),
            _ => {}
        }
    }

    /// The reason of numbers an adjudication names as skipped; the context
    /// starts again after it.
    pub(super) fn reason(&mut self) -> GapReason {
        match (self.write_failed.take(), self.stopped.take()) {
            (Some(since), _) => GapReason::NotWritten { since },
            (None, Some((after, started))) => GapReason::Stopped { after, started },
            (None, None) => GapReason::Unsaid,
        }
    }

    /// An adjudication without skipped numbers: the context starts again.
    pub(super) fn clear(&mut self) {
        self.write_failed = None;
        self.stopped = None;
    }
}

/// Numbers reserved and never shown, with why, in a director's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberGap {
    pub first: u64,
    pub last: u64,
    pub reason: GapReason,
}

/// Why reserved numbers were never shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GapReason {
    /// The station stopped without shutting down (a power cut or a crash)
    /// while the record was being written: after the record at `after`
    /// (UTC), started again at `started`.
    Stopped { after: Option<String>, started: String },
    /// The record could not be written (a full or failing card), so the
    /// verdict was not shown; the log was failing since `since`.
    NotWritten { since: String },
    /// No start or write failure is recorded between the two verdicts (the
    /// writer's own restart, without a station's start-up record): the
    /// previous writer stopped without giving its reservation back.
    Unsaid,
}

/// `2025-05-01T12:00:03.250Z` as `2025-05-01 12:00:03 UTC`.
fn when(time: &str) -> String {
    match time.get(..19) {
        Some(t) if time.is_char_boundary(19) => format!("{} UTC", t.replace('T', " ")),
        _ => crate::word::printable(time, 40),
    }
}

impl std::fmt::Display for NumberGap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (numbers, were) = if self.first == self.last {
            (format!("#{}", self.first), "was")
        } else {
            (format!("#{}–#{}", self.first, self.last), "were")
        };
        write!(f, "{numbers} {were} reserved and never shown: ")?;
        match &self.reason {
            GapReason::Stopped { after: Some(after), started } => write!(
                f,
                "the station stopped without shutting down (a power cut or a crash) after {} and started again at {}",
                when(after),
                when(started)
            ),
            GapReason::Stopped { after: None, started } => {
                write!(f, "the station stopped without shutting down and started again at {}", when(started))
            }
            GapReason::NotWritten { since } => write!(
                f,
                "the record could not be written (the log was failing since {}), so no verdict was shown with it",
                when(since)
            ),
            GapReason::Unsaid => {
                write!(f, "the station stopped without shutting down (a power cut or a crash) before it could use it")
            }
        }
    }
}

/// Sorted, merged ranges.
pub(super) fn merge(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
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
pub(super) fn uncovered(range: (u64, u64), covered: &[(u64, u64)]) -> Vec<(u64, u64)> {
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
    pub(super) fn check(&self, report: &mut VerifyReport, writer: Option<crate::audit::lock::Holder>) {
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
