//! Attaching to the folder: the first step of every write after a start or
//! a failure. Takes the writer lock, recovers a torn tail, finds the chain's
//! end and accounts for numbers a previous process reserved or showed
//! without records.

use super::repeat::within_window;
use super::{AuditLog, Output};
use crate::audit::checkpoint::{StationKey, KEY_DIR};
use crate::audit::clock::Stamp;
use crate::audit::format::LogName;
use crate::audit::lock::{self, LockError};
use crate::audit::numbering::{Counter, CounterState};
use crate::audit::record::{AuditEvent, Body};
use crate::recorder::scan::{self, Recent};
use crate::recorder::AuditError;
use std::collections::VecDeque;

impl AuditLog {
    /// Reads the directory: takes the writer lock, opens the counter,
    /// recovers a torn tail (recording `recovered`), finds the chain end,
    /// and (the first time) accounts for numbers a previous process reserved
    /// or showed without records, makes the signing key, and reads today's
    /// count, recent adjudications and the highest challenge number.
    pub(super) fn attach(&mut self, stamp: &Stamp) -> Result<(), AuditError> {
        let counter_failed = self.lock_and_open_counter(stamp)?;
        let today = self.local_date(stamp);
        let first = !self.numbering_from_log;
        let scan = scan::scan(&self.dir, &self.options.time_zone, today, first)?;
        if let Some(e) = counter_failed {
            // A counter that cannot be opened (a FIFO, a folder, a link to a
            // device in its place) cannot say which numbers were shown, but
            // the log can: numbering goes on above every number it holds,
            // never from 1 again. The writer stays failing (the director is
            // told) until the counter is usable.
            self.last_challenge = self.last_challenge.max(scan.max_challenge);
            return Err(e);
        }
        let mut events = Vec::new();
        if first && self.last_moment.is_none() {
            // A clock set while the station was stopped (same boot).
            self.last_moment = scan.last_moment.clone();
            events.extend(self.clock_jump(stamp));
        }
        if let Some(torn) = &scan.torn {
            events.push(scan::move_aside(&self.dir, torn)?);
        }
        let previous = self.counter.as_ref().map(Counter::state).unwrap_or_default();
        if first {
            let (lost, skipped) = account_for_previous(previous, scan.max_recorded, scan.torn_challenge);
            events.extend(lost);
            self.skipped = skipped.into_iter().map(|(a, b)| [a, b]).collect();
            let when = scan.last_moment.as_ref().map(|(_, stamp)| stamp.time);
            self.never_shown.extend(self.skipped.iter().map(|&numbers| super::NeverShown {
                numbers,
                stopped: true,
                when,
            }));
            if self.options.signing_key && self.key.is_none() {
                events.extend(self.load_signing_key());
            }
        }
        let out = match &scan.last {
            Some((name, path)) => {
                let file = crate::outside_files::open_regular_rw(path, false, true)
                    .map_err(|source| AuditError::Open { path: path.clone(), source })?;
                let len = file.metadata().map_err(|source| AuditError::Open { path: path.clone(), source })?.len();
                Some(Output { file, path: path.clone(), name: name.clone(), len })
            }
            None => None,
        };
        if first {
            // Today's records in the log count; this process's own come on top.
            if self.today.0 == today {
                self.today.1 += scan.today_adjudications;
            }
            let mut recent: VecDeque<Recent> =
                scan.recent.into_iter().filter(|r| within_window(r, &self.boot_id, stamp)).collect();
            recent.extend(self.recent.drain(..));
            self.recent = recent;
        }
        if self.last_adjudication.is_none() {
            self.last_adjudication = scan.last_adjudication.clone();
        }
        self.log_max_challenge = scan.max_challenge;
        self.last_challenge = self.last_challenge.max(scan.max_challenge);
        if first {
            // Above every number a previous process may have shown.
            self.last_challenge = self.last_challenge.max(previous.reserved);
        }
        self.numbering_from_log = true;
        self.chain = Some(scan.chain);
        self.out = match out {
            Some(out) => Some(out),
            // A directory without log files: start the first.
            None => Some(self.create_file(LogName { index: 1, date: today })?),
        };
        self.record_attach_events(events, stamp)?;
        if first {
            // The previous process's numbers are accounted for in the log now.
            let unrecorded = self.backlog.held_challenges();
            let reserved = self.last_challenge.max(previous.reserved);
            if let Some(counter) = &mut self.counter {
                counter
                    .store(CounterState { reserved, unrecorded })
                    .map_err(|source| AuditError::Counter { path: counter.path().to_path_buf(), source })?;
            }
        }
        Ok(())
    }

    /// Takes the writer lock (once) and opens the numbering counter. A
    /// counter that cannot be opened is returned, not raised: the log is
    /// still read so that numbering goes on above every number it holds.
    fn lock_and_open_counter(&mut self, stamp: &Stamp) -> Result<Option<AuditError>, AuditError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| AuditError::CreateDir { dir: self.dir.clone(), source })?;
        if self.lock.is_none() {
            self.lock = Some(lock::acquire(&self.dir, &self.station, &stamp.rfc3339()).map_err(|e| match e {
                LockError::Busy(busy) => AuditError::Busy(busy),
                LockError::Io { path, source } => AuditError::Open { path, source },
            })?);
        }
        Ok(match &self.counter {
            Some(_) => None,
            None => match Counter::open(&self.dir) {
                Ok(counter) => {
                    self.counter = Some(counter);
                    None
                }
                Err(source) => {
                    Some(AuditError::Counter { path: self.dir.join(crate::audit::numbering::COUNTER_FILE), source })
                }
            },
        })
    }

    /// Loads the checkpoint signing key, or makes it: the record of a key
    /// made, or of why there is none (said once per start and problem: a
    /// record, the director's warning, and no checkpoint until fixed).
    fn load_signing_key(&mut self) -> Option<AuditEvent> {
        match StationKey::load_or_create(&self.dir.join(KEY_DIR), &self.station, true) {
            Ok(Some((key, created))) => {
                let made = created.then(|| {
                    let verifier = key.verifier();
                    AuditEvent::KeyCreated {
                        key_name: key.name().to_string(),
                        fingerprint: verifier.fingerprint().0,
                        verifier_key: verifier.to_text(),
                    }
                });
                self.key = Some(key);
                self.key_problem = None;
                made
            }
            Ok(None) => None,
            Err(e) => {
                let problem = e.to_string();
                let said = (self.key_problem.as_deref() != Some(problem.as_str())).then(|| {
                    tracing::warn!("{problem}");
                    AuditEvent::KeyProblem { problem: problem.clone() }
                });
                self.key_problem = Some(problem);
                said
            }
        }
    }

    /// Records what attaching found (a clock jump, a torn tail moved aside,
    /// numbers lost, a key made). On a failure the torn bytes are already
    /// aside: the event that failed and the rest are held for later.
    fn record_attach_events(&mut self, events: Vec<AuditEvent>, stamp: &Stamp) -> Result<(), AuditError> {
        let mut events = events.into_iter();
        while let Some(event) = events.next() {
            let body = Body::Event(event);
            if let Err(e) = self.append(stamp, stamp, &body, false) {
                self.hold(*stamp, body);
                events.for_each(|event| self.hold(*stamp, Body::Event(event)));
                return Err(e);
            }
        }
        Ok(())
    }
}

/// What a first attach makes of numbers a previous process left: a
/// `challenges_lost` record for numbers it showed without records (the
/// counter's `unrecorded` range above the log's highest record), and the
/// ranges it reserved and never showed (the next adjudication names them as
/// `skipped`). The torn record's number is explained by its `recovered`
/// record.
fn account_for_previous(
    previous: CounterState,
    max_recorded: u64,
    torn: Option<u64>,
) -> (Vec<AuditEvent>, Vec<(u64, u64)>) {
    let mut events = Vec::new();
    let mut lost = None;
    if let Some((first, last)) = previous.unrecorded {
        let first = first.max(max_recorded.saturating_add(1));
        if first <= last {
            events.push(AuditEvent::ChallengesLost { first, last, since: None });
            lost = Some((first, last));
        }
    }
    let mut skipped: Vec<(u64, u64)> = Vec::new();
    let mut add = |a: u64, b: u64| {
        let mut start = a;
        if let Some(t) = torn.filter(|t| (a..=b).contains(t)) {
            if t > a {
                skipped.push((a, t - 1));
            }
            start = t + 1;
        }
        if start <= b {
            skipped.push((start, b));
        }
    };
    let from = max_recorded.saturating_add(1);
    match lost {
        Some((first, last)) => {
            if from < first {
                add(from, first - 1);
            }
            if last < previous.reserved {
                add(last + 1, previous.reserved);
            }
        }
        None if from <= previous.reserved => add(from, previous.reserved),
        None => {}
    }
    (events, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_numbers_are_lost_or_skipped_never_both() {
        let state = |reserved, unrecorded| CounterState { reserved, unrecorded };
        let lost = |first, last| AuditEvent::ChallengesLost { first, last, since: None };
        assert_eq!(account_for_previous(state(16, None), 16, None), (vec![], vec![]));
        assert_eq!(account_for_previous(state(16, None), 12, None), (vec![], vec![(13, 16)]));
        assert_eq!(account_for_previous(state(16, None), 12, Some(13)), (vec![], vec![(14, 16)]));
        assert_eq!(account_for_previous(state(16, None), 12, Some(14)), (vec![], vec![(13, 13), (15, 16)]));
        assert_eq!(account_for_previous(state(48, Some((35, 36))), 34, None), (vec![lost(35, 36)], vec![(37, 48)]));
        // Held records partly written (delayed) before the crash.
        assert_eq!(account_for_previous(state(36, Some((35, 36))), 35, None), (vec![lost(36, 36)], vec![]));
    }
}
