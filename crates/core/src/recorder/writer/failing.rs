//! When the log cannot be written (a full or failing disk): no verdict is
//! recorded (so none is shown), other records are held in memory
//! (`backlog`), the failure is noted once in journald, and at the next good
//! write (a record, or the station's [`AuditLog::retry`]) a `write_failed`
//! event saying what happened goes in first, then the held records in order.

use crate::audit::clock::Stamp;
use crate::audit::numbering::CounterState;
use crate::audit::record::{AuditEvent, Body};
use crate::recorder::{journal, AuditError};

use super::{AuditLog, NotRecorded};

impl AuditLog {
    /// Tries again to write what a failure held back (a `write_failed`
    /// record and the held events), re-reading the folder first: true when
    /// the log is healthy afterwards. The station calls it while it is out
    /// of service for its log, so that it judges again once the log can be
    /// written, without a player having to try.
    pub fn retry(&mut self) -> bool {
        if self.backlog.failure.is_none() && self.backlog.queue.is_empty() && self.out.is_some() {
            return true;
        }
        let stamp = Stamp::take(self.options.clock.as_ref());
        self.ensure_attached(&stamp) && self.write_backlog_or_note(&stamp).is_ok()
    }

    /// Writes the held records; a failure is noted.
    pub(super) fn write_backlog_or_note(&mut self, stamp: &Stamp) -> Result<(), ()> {
        self.write_backlog(stamp).map_err(|e| self.note_failure(&e, *stamp))
    }

    /// Why an adjudication was not recorded, from the failure just noted.
    pub(super) fn not_recorded(&self, challenge: Option<u64>) -> NotRecorded {
        let problem = self
            .backlog
            .failure
            .as_ref()
            .map_or_else(|| "the audit log cannot be written".to_string(), |f| f.error.clone());
        NotRecorded { problem, challenge }
    }

    /// Returns the line's hash when written.
    pub(super) fn write_or_hold(&mut self, stamp: Stamp, body: Body) -> Option<String> {
        if let Err(e) = self.write_backlog(&stamp) {
            self.note_failure(&e, stamp);
            self.hold(stamp, body);
            return None;
        }
        match self.append(&stamp, &stamp, &body, false) {
            Ok(hash) => Some(hash),
            Err(e) => {
                self.note_failure(&e, stamp);
                self.hold(stamp, body);
                None
            }
        }
    }

    pub(super) fn hold(&mut self, stamp: Stamp, body: Body) {
        self.backlog.hold(stamp, body, self.options.max_backlog);
    }

    /// Marks the log failing (the first failure is kept as `since`), drops
    /// the open file so the next record re-reads the directory, and warns
    /// journald once.
    pub(super) fn note_failure(&mut self, error: &AuditError, stamp: Stamp) {
        self.out = None;
        if self.backlog.fail(error.to_string(), stamp.time, self.numbering_from_log) {
            let entry = journal::Entry {
                warn: true,
                message: format!("audit log failing: {error}"),
                event: journal::AUDIT_FAILING.to_string(),
                station: self.station.clone(),
                problem: Some(error.to_string()),
                ..Default::default()
            };
            self.journal.send(entry);
        }
    }

    /// After a failure: the `write_failed` event, then the held records.
    pub(super) fn write_backlog(&mut self, stamp: &Stamp) -> Result<(), AuditError> {
        if let Some(failure) = &self.backlog.failure {
            let may_repeat =
                !failure.numbering_from_log && failure.challenges.is_some_and(|c| c[0] <= self.log_max_challenge);
            let note = may_repeat.then(|| {
                "the log was unreadable when these challenges were numbered; numbers may repeat earlier ones"
                    .to_string()
            });
            let event = AuditEvent::WriteFailed {
                since: format!("{:.3}", failure.since),
                error: failure.error.clone(),
                held: self.backlog.queue.len() as u64,
                lost: failure.dropped,
                challenges: failure.challenges,
                note,
            };
            let body = Body::Event(event);
            self.append(stamp, stamp, &body, false)?;
            self.backlog.failure = None;
        }
        if self.backlog.queue.is_empty() {
            return Ok(());
        }
        while let Some(pending) = self.backlog.queue.front() {
            let (pending_stamp, body) = (pending.stamp, pending.body.clone());
            self.append(stamp, &pending_stamp, &body, true)?;
            self.backlog.queue.pop_front();
        }
        // Every number shown is in the file now.
        if let Some(counter) = &mut self.counter {
            let state = counter.state();
            if state.unrecorded.is_some() {
                let _ = counter.store(CounterState { unrecorded: None, ..state });
            }
        }
        Ok(())
    }
}
