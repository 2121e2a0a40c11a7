//! What can be wrong at a line of the log, in words a director can act on.

use super::Location;
use crate::audit::format::{self};
use crate::audit::slip::{CopyingError, Slip, SlipCode};
use std::fmt;

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
    /// A slip's code differs from its challenge's record's code (`found`)
    /// as a copying error would (a character or two, or two neighbours
    /// swapped): the slip may be miscopied, or the record changed. Only the
    /// paper slip can tell, so it is still a break.
    SlipLikelyMiscopied { slip: Slip, found: SlipCode, differences: Vec<CopyingError> },
    /// A slip's challenge has no record.
    SlipNoRecord { slip: String },
    /// The slip's code is exactly another challenge's (`owner`): the number
    /// on the slip was miscopied, most likely.
    SlipOtherChallenge { slip: Slip, owner: u64 },
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
    /// The fingerprint given as noted at set-up cannot be read.
    FingerprintUnreadable { problem: String },
    /// The log's `key_created` records name keys (`names`) other than the
    /// one noted at set-up (no checkpoint was given to check instead).
    LogKeyNotNoted { names: String, noted: String },
    /// journald holds a record of this chain that the file does not (cut),
    /// or holds another line where the file has this `seq` (rewritten).
    JournalDisagrees { seq: u64, challenge: Option<u64>, cut: bool },
}

/// `3`, `3-5, 9`.
pub(super) fn ranges_text(ranges: &[(u64, u64)]) -> String {
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
            BreakKind::SlipLikelyMiscopied { .. } | BreakKind::SlipOtherChallenge { .. } => "slip likely miscopied",
            BreakKind::CheckpointInvalid { .. }
            | BreakKind::CheckpointBeyondLog { .. }
            | BreakKind::CheckpointMismatch { .. }
            | BreakKind::CheckpointKeyNotStations { .. } => "checkpoint does not match",
            BreakKind::FingerprintUnreadable { .. } => "unreadable",
            BreakKind::LogKeyNotNoted { .. } => "key does not match",
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
            BreakKind::ChallengeMissing { challenges } => {
                write!(f, "deleted: challenge(s) {} have no record and no record explains why", ranges_text(challenges))
            }
            BreakKind::DuplicateChallenge { challenge } => {
                write!(f, "duplicate: challenge {challenge} was handed out twice")
            }
            BreakKind::CounterDamaged { problem } => write!(f, "unreadable challenge counter: {problem}"),
            BreakKind::SlipMismatch { slip, found } => write!(
                f,
                "slip {slip} does not match: that challenge's record now has code {found}, so it or a record \
                 before it was rewritten"
            ),
            BreakKind::SlipLikelyMiscopied { slip, found, differences } => write!(
                f,
                "slip {slip} does not match, likely miscopied ({}): challenge #{}'s code is {found}: check the slip; \
                 if it was copied right, the record or one before it was changed",
                differences.iter().map(ToString::to_string).collect::<Vec<_>>().join(" and "),
                slip.challenge
            ),
            BreakKind::SlipNoRecord { slip } => write!(f, "slip {slip} does not match: that challenge has no record"),
            BreakKind::SlipOtherChallenge { slip, owner } => write!(
                f,
                "slip {slip} does not match #{}, likely miscopied: {} is exactly #{owner}'s code: check the number on \
                 the slip",
                slip.challenge, slip.code
            ),
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
            BreakKind::FingerprintUnreadable { problem } => write!(f, "{problem}"),
            BreakKind::LogKeyNotNoted { names, noted } => write!(
                f,
                "key does not match: the log's key_created record names key {names}, but the station key code noted at \
                 set-up is {noted}: this log was not written by the station whose key was noted, or its key \
                 record was rewritten"
            ),
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

/// Whether a line whose seal is unreadable was nevertheless written as an
/// audit record: it starts like one or still ends in a seal key. A
/// single-byte edit cannot destroy both, so it is always named an edit.
pub(super) fn looks_like_a_record(line: &[u8]) -> bool {
    let key = format::SEAL_KEY.as_bytes();
    line.starts_with(b"{\"seq\":") || line.windows(key.len()).any(|w| w == key)
}

/// Says why bytes are not a sealed record, briefly.
pub(super) fn not_a_record(line: &[u8]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_asks_for_the_slip_and_a_far_one_says_rewritten() {
        let slip = Slip::parse("3=T3A5849W").unwrap();
        let found = SlipCode::parse("T3AS849W").unwrap();
        let differences = slip.code.copying_errors(&found).unwrap();
        let near = BreakKind::SlipLikelyMiscopied { slip, found, differences };
        assert_eq!(
            near.to_string(),
            "slip 3=T3A5849W does not match, likely miscopied (5 for its look-alike S at character 4): challenge \
             #3's code is T3AS849W: check the slip; if it was copied right, the record or one before it was changed"
        );
        assert_eq!(near.label(), "slip likely miscopied");

        let slip = Slip::parse("3=K3AS84QW").unwrap();
        let found = SlipCode::parse("T3AS849W").unwrap();
        let differences = slip.code.copying_errors(&found).unwrap();
        let two = BreakKind::SlipLikelyMiscopied { slip, found, differences }.to_string();
        assert!(two.contains("(K for T at character 1 and Q for 9 at character 7)"), "{two}");

        let far = BreakKind::SlipMismatch { slip: "3=00000000".into(), found: "T3AS849W".into() };
        assert!(far.to_string().contains("was rewritten"), "{far}");
        assert_eq!(far.label(), "slip does not match");
    }
}
