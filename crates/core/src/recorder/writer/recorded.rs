//! What recording an adjudication hands back: the number, slip code and
//! time for the verdict screen, or why there is no record and so no verdict;
//! and the numbers that were reserved and never shown.

use crate::audit::slip::SlipCode;

/// What [`AuditLog::record_adjudication`] hands back for the verdict screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The challenge number for the slip: never handed out twice.
    pub challenge: u64,
    /// The slip code (chain head after this record).
    pub code: SlipCode,
    /// The record's own time stamp: what the verdict screen shows, so the
    /// screen and the record can never disagree.
    pub time: jiff::Timestamp,
}

/// Why [`AuditLog::record_adjudication`] wrote no record: the verdict must
/// not be shown. Nothing is held for later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRecorded {
    /// What failed, for the director (the same as [`AuditLog::problem`]'s).
    pub problem: String,
    /// The number reserved for it and now never to be shown, if one was
    /// taken (the next adjudication written names it as skipped).
    pub challenge: Option<u64>,
}

impl std::fmt::Display for NotRecorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the adjudication was not recorded: {}", self.problem)
    }
}

impl std::error::Error for NotRecorded {}

/// Numbers reserved and never shown, and why, in the station's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NeverShown {
    pub numbers: [u64; 2],
    /// The station stopped (a power cut or a crash) before the record was
    /// written; else the record could not be written.
    pub stopped: bool,
    /// When, as near as the log tells: for a stop, the last record written
    /// before it (the stop came after); else when the record was refused.
    pub when: Option<jiff::Timestamp>,
}
