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
