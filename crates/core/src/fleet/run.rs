//! A run of one station's records that follow each other in its log, held
//! until one signature proves them all.
//!
//! Why: checking each record's signed checkpoint costs an Ed25519
//! verification, the bulk of `fleet status` over a whole event (half a
//! million entries is tens of seconds). It is not needed for each record:
//! every line carries the hash of the line before it (`prev`), and its own
//! hash is what the checkpoint signs. So when record N+1's `prev` is record
//! N's hash, a signature over N+1 covers N as well (SHA-256 stands in for
//! the link), and one good signature at the end of a run proves the whole
//! run. Only the seal (each line is its hash) and the link are checked per
//! record; the signature of the run's last record is checked, and, when it
//! fails, the one before it, and so on, so a forged record added to an
//! honest run costs one check more, and a run with no good signature costs
//! what checking each record did.
//!
//! What a run never changes: which records count (exactly those the
//! per-record check proves, plus records a later signed line of the same
//! log vouches for), their order, and the refusals of the others.

use super::proof::{self, Proven, Refusal};
use super::{Fields, PairedKey};
use crate::audit::format::sealed_line_hash;
use crate::audit::record::Record;

/// Most records held before their run is checked: what a long quiet
/// stretch of one station costs in memory (a few MB), and one signature
/// check per this many records.
pub(super) const MAX_RUN: usize = 2048;

/// One record entry whose line is sealed, waiting for a signature.
pub(super) struct Waiting {
    pub entry: Fields,
    pub claimed: String,
    pub journal_time: i64,
    pub record: Record,
    pub hash: String,
}

/// What became of one waiting entry once its run was checked.
pub(super) enum Outcome {
    Proven(Proven),
    Refused(Refusal),
}

/// The entry's line, sealed and a record, with its hash: `None` when it is
/// not (then only the per-record check can say why).
pub(super) fn sealed(entry: &Fields) -> Option<(Record, String)> {
    let line = entry.wj("line")?;
    entry.wj("checkpoint")?;
    let hash = sealed_line_hash(line.as_bytes()).ok()?;
    let record = Record::parse(line.as_bytes()).ok()?;
    Some((record, hash))
}

/// The records of one log in order, each line's `prev` the hash of the one
/// before.
#[derive(Default)]
pub(super) struct Run {
    waiting: Vec<Waiting>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Run({} waiting)", self.waiting.len())
    }
}

impl Run {
    /// Whether `record` follows the run's last line (an empty run takes any).
    pub fn follows(&self, record: &Record) -> bool {
        self.waiting.last().is_none_or(|last| record.prev == last.hash)
    }

    pub fn push(&mut self, waiting: Waiting) {
        self.waiting.push(waiting);
    }

    pub fn is_full(&self) -> bool {
        self.waiting.len() >= MAX_RUN
    }

    /// Checks the run and empties it: each entry with what became of it, in
    /// order. The last entry whose own signature holds proves it and every
    /// entry before it, under its key; the entries after it are what the
    /// per-record check says of each.
    pub fn check(&mut self, keys: &[PairedKey]) -> Vec<(Waiting, Outcome)> {
        let waiting = std::mem::take(&mut self.waiting);
        let mut after: Vec<Refusal> = Vec::new();
        let mut proven: Option<Proven> = None;
        for item in waiting.iter().rev() {
            match proof::check(keys, item.entry.wj("line").as_deref(), item.entry.wj("checkpoint").as_deref()) {
                Ok(p) => {
                    proven = Some(p);
                    break;
                }
                Err(refusal) => after.push(refusal),
            }
        }
        let vouched = waiting.len() - after.len();
        let mut after = after.into_iter().rev();
        waiting
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                let outcome = match &proven {
                    Some(p) if i < vouched => {
                        Outcome::Proven(Proven { key: p.key, record: item.record.clone(), hash: item.hash.clone() })
                    }
                    _ => Outcome::Refused(after.next().expect("one refusal per entry after the proven one")),
                };
                (item, outcome)
            })
            .collect()
    }
}
