//! How a station's received records link up, in a director's words: the
//! ranges of numbers that are missing and the breaks in its log's chain
//! ([`super::Station::seal`] and [`super::Station::number`] find them).

use std::fmt;

/// A challenge number range, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range(pub u64, pub u64);

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == self.1 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{}-{}", self.0, self.1)
        }
    }
}

/// One thing the received records do not link up on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkBreak {
    /// Challenge numbers between two received adjudications that never
    /// arrived and that no record explains.
    ChallengesMissing(Range),
    /// A challenge number lower than the one before it.
    ChallengeWentBack { from: u64, to: u64 },
    /// Records (`seq`) between two received ones that never arrived.
    RecordsMissing(Range),
    /// A `seq` lower than the one before it (another log?).
    SeqWentBack { from: u64, to: u64 },
    /// One `seq` received with two different `line_sha256`.
    TwoHashes { seq: u64 },
    /// A verified line whose `prev` is not the hash of the verified line
    /// before it: the station's log forked (restored from a copy, or two
    /// logs under one key).
    ChainBroken { seq: u64 },
}

impl fmt::Display for LinkBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkBreak::ChallengesMissing(r) => write!(f, "challenge {r} missing"),
            LinkBreak::ChallengeWentBack { from, to } => write!(f, "challenge numbers went back from {from} to {to}"),
            LinkBreak::RecordsMissing(r) => write!(f, "records {r} of its log never arrived"),
            LinkBreak::SeqWentBack { from, to } => write!(f, "its log went back from record {from} to record {to}"),
            LinkBreak::TwoHashes { seq } => write!(f, "record {seq} of its log arrived twice, different each time"),
            LinkBreak::ChainBroken { seq } => {
                write!(f, "record {seq} of its log does not follow the one before it (another copy of the log)")
            }
        }
    }
}

/// A line hash (64 hex digits) as [`super::Station::seal`] keeps it: its first 128
/// bits; any other text (no verified line has one) hashed to as many.
pub(super) fn short_hash(hash: &str) -> u128 {
    match hash.get(..32).and_then(|h| u128::from_str_radix(h, 16).ok()) {
        Some(short) => short,
        None => {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            hash.hash(&mut hasher);
            u128::from(hasher.finish()) | 1 << 127
        }
    }
}
