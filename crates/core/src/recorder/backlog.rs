//! Events held in memory while the audit file cannot be written.
//!
//! A director's action or a start-up must not be lost to a full disk: the
//! event waits here (journald has its copy) until writing works again;
//! then a `write_failed` record says what happened and the held records
//! follow, marked `delayed`. Adjudications are never held: their verdicts
//! are not shown without a record ([`super::AuditLog::record_adjudication`]).
//! Memory is bounded: beyond the limit the oldest are dropped and counted.

use crate::audit::clock::Stamp;
use crate::audit::record::Body;
use jiff::Timestamp;
use std::collections::VecDeque;

/// The log is failing since…
#[derive(Debug)]
pub(super) struct Failure {
    pub since: Timestamp,
    pub error: String,
    pub dropped: u64,
    /// Challenge numbers given while failing.
    pub challenges: Option<[u64; 2]>,
    /// Whether the log had been read when the failure began (if not,
    /// numbers given since may repeat numbers in the log).
    pub numbering_from_log: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub stamp: Stamp,
    pub body: Body,
}

/// The failure (if any) and the held records.
#[derive(Debug, Default)]
pub(super) struct Backlog {
    pub failure: Option<Failure>,
    pub queue: VecDeque<Pending>,
}

impl Backlog {
    /// Holds a record, dropping the oldest beyond `max`.
    pub fn hold(&mut self, stamp: Stamp, body: Body, max: usize) {
        if let (Some(failure), Body::Adjudication(a)) = (&mut self.failure, &body) {
            let first = failure.challenges.map_or(a.challenge, |c| c[0].min(a.challenge));
            failure.challenges = Some([first, a.challenge]);
        }
        if self.queue.len() >= max.max(1) {
            self.queue.pop_front();
            if let Some(f) = &mut self.failure {
                f.dropped += 1;
            }
        }
        self.queue.push_back(Pending { stamp, body });
    }

    /// Notes a failure; true when it is a new one (not already failing).
    pub fn fail(&mut self, error: String, at: Timestamp, numbering_from_log: bool) -> bool {
        match &mut self.failure {
            Some(f) => {
                f.error = error;
                false
            }
            None => {
                self.failure = Some(Failure { since: at, error, dropped: 0, challenges: None, numbering_from_log });
                true
            }
        }
    }

    /// The lowest and highest challenge number among held records.
    pub fn held_challenges(&self) -> Option<(u64, u64)> {
        let numbers = self.queue.iter().filter_map(|p| p.body.adjudication().map(|a| a.challenge));
        numbers.fold(None, |acc, n| match acc {
            None => Some((n, n)),
            Some((lo, hi)) => Some((lo.min(n), hi.max(n))),
        })
    }
}
