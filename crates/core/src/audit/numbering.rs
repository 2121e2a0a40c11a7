//! The durable challenge counter: a number is never handed out twice, and a
//! number reserved but never recorded is named, never silently skipped.
//!
//! The log alone cannot promise this: a log file cut short or lost takes
//! its highest number with it. So before a number is used the writer makes
//! sure it is *reserved* in `challenge-counter`, a small file in the audit
//! folder, synced before the record is written. After any crash numbering
//! continues above the reservation, so above every number ever shown.
//!
//! Numbers are reserved one at a time ([`RESERVE_AHEAD`] is 1): a power cut
//! then leaves at most the one number whose record was being written, and
//! only when that record did not reach the card (its verdict was not shown
//! either, since a verdict shows only once its record is synced). Reserving
//! ahead would save one sync per challenge (measured in `benches/audit.rs`)
//! at the price of a run of numbers missing after every power cut, which a
//! director must then explain in a dispute.
//!
//! A reserved number without a record is named in the next adjudication
//! record (`skipped`), the only kind of gap `verify` accepts, and `verify`
//! says in a director's words when and why it happened. Counters written by
//! earlier versions may still name numbers shown while the log could not be
//! written (`unrecorded`); a start that finds them without records writes a
//! `challenges_lost` record (and `verify` fails, naming them). The file is
//! written in place inside blocks allocated when it was created, so it
//! still takes writes when the disk is full.
//!
//! Two slots (A/B), each with its own generation and checksum, are written
//! alternately, so a power cut mid-write leaves the other slot intact.

use crate::digest::sha256_hex;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The counter's file name in the audit folder.
pub const COUNTER_FILE: &str = "challenge-counter";

/// Numbers reserved per sync of the counter: one, so that a power cut
/// leaves no run of numbers never shown (see the module documentation).
pub const RESERVE_AHEAD: u64 = 1;

const SLOT: usize = 128;
const MAGIC: &str = "wordjudge-challenge-counter-1";

/// What the counter says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CounterState {
    /// Every number up to this one may have been handed out.
    pub reserved: u64,
    /// Numbers shown while the log could not be written, not yet written.
    pub unrecorded: Option<(u64, u64)>,
}

impl CounterState {
    fn encode(&self, generation: u64) -> [u8; SLOT] {
        let (first, last) = self.unrecorded.unwrap_or((0, 0));
        let body = format!("{MAGIC} {generation} {} {first} {last}", self.reserved);
        let sum = &sha256_hex(body.as_bytes())[..16];
        let text = format!("{body} {sum}\n");
        let mut slot = [b' '; SLOT];
        slot[..text.len().min(SLOT)].copy_from_slice(&text.as_bytes()[..text.len().min(SLOT)]);
        slot[SLOT - 1] = b'\n';
        slot
    }

    fn decode(slot: &[u8]) -> Option<(u64, CounterState)> {
        let text = std::str::from_utf8(slot).ok()?.trim();
        let (body, sum) = text.rsplit_once(' ')?;
        if sha256_hex(body.as_bytes()).get(..16)? != sum {
            return None;
        }
        let fields: Vec<&str> = body.split(' ').collect();
        let [magic, generation, reserved, first, last] = fields[..] else { return None };
        if magic != MAGIC {
            return None;
        }
        let (first, last): (u64, u64) = (first.parse().ok()?, last.parse().ok()?);
        let state = CounterState { reserved: reserved.parse().ok()?, unrecorded: (first > 0).then_some((first, last)) };
        Some((generation.parse().ok()?, state))
    }
}

/// The newest valid slot of a counter file's bytes.
fn newest(bytes: &[u8]) -> Option<(u64, CounterState)> {
    bytes.chunks(SLOT).filter_map(CounterState::decode).max_by_key(|(generation, _)| *generation)
}

/// Why the counter file could not be read back.
#[derive(Debug)]
pub enum CounterReadError {
    /// The file is there but was not read (a FIFO, too large, I/O).
    Unreadable(crate::outside_files::BoundedReadError),
    /// No slot of it is valid: damaged or edited.
    NoValidSlot(PathBuf),
}

impl std::fmt::Display for CounterReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CounterReadError::Unreadable(e) => e.fmt(f),
            CounterReadError::NoValidSlot(path) => {
                write!(f, "{} holds no valid counter (damaged or edited)", path.display())
            }
        }
    }
}

impl std::error::Error for CounterReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CounterReadError::Unreadable(e) => Some(e),
            CounterReadError::NoValidSlot(_) => None,
        }
    }
}

/// Reads the counter of `dir` without writing: `Ok(None)` when there is no
/// counter file, an error when it cannot be read or no slot is valid.
pub fn read(dir: &Path) -> Result<Option<CounterState>, CounterReadError> {
    let path = dir.join(COUNTER_FILE);
    match crate::outside_files::read_small_file(&path, crate::outside_files::limits::SMALL_FILE) {
        Ok(bytes) => newest(&bytes).map(|(_, s)| Some(s)).ok_or(CounterReadError::NoValidSlot(path)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(CounterReadError::Unreadable(e)),
    }
}

/// The counter file, open for writing by the log's writer.
#[derive(Debug)]
pub struct Counter {
    file: File,
    path: PathBuf,
    generation: u64,
    state: CounterState,
}

impl Counter {
    /// Opens the counter of `dir`, creating it (two slots of zeros, written
    /// out and synced so its blocks are allocated) if missing. A damaged
    /// file (no valid slot) is an error: numbering must not restart at 1.
    pub fn open(dir: &Path) -> io::Result<Counter> {
        let path = dir.join(COUNTER_FILE);
        let mut file = crate::outside_files::open_regular_rw(&path, true, false)?;
        let mut bytes = Vec::new();
        (&mut file).take(crate::outside_files::limits::SMALL_FILE).read_to_end(&mut bytes)?;
        if bytes.is_empty() {
            let empty = CounterState::default();
            let mut both = empty.encode(0).to_vec();
            both.extend_from_slice(&empty.encode(0));
            file.write_all(&both)?;
            file.sync_all()?;
            crate::outside_files::sync_folder(dir)?;
            return Ok(Counter { file, path, generation: 0, state: empty });
        }
        let (generation, state) = newest(&bytes).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, format!("{} holds no valid counter", path.display()))
        })?;
        if bytes.len() < 2 * SLOT {
            // Grow it to two slots now, while there may be room.
            file.write_all_at(&state.encode(generation), SLOT as u64)?;
            file.sync_all()?;
        }
        Ok(Counter { file, path, generation, state })
    }

    pub fn state(&self) -> CounterState {
        self.state
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `state` into the older slot and syncs it.
    pub fn store(&mut self, state: CounterState) -> io::Result<()> {
        if state == self.state {
            return Ok(());
        }
        let generation = self.generation + 1;
        let offset = (generation % 2) * SLOT as u64;
        self.file.write_all_at(&state.encode(generation), offset)?;
        self.file.sync_data()?;
        self.generation = generation;
        self.state = state;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survives_reopen_and_a_torn_slot() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read(dir.path()), Ok(None)));
        let mut c = Counter::open(dir.path()).unwrap();
        c.store(CounterState { reserved: 16, unrecorded: None }).unwrap();
        c.store(CounterState { reserved: 16, unrecorded: Some((9, 11)) }).unwrap();
        drop(c);
        let c = Counter::open(dir.path()).unwrap();
        assert_eq!(c.state(), CounterState { reserved: 16, unrecorded: Some((9, 11)) });
        // The newest slot torn: the older one is still there.
        let path = dir.path().join(COUNTER_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 2 * SLOT);
        bytes[0] ^= 0x20; // generation 2 lives in slot 0
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(CounterState { reserved: 16, unrecorded: None }));
        // Both damaged: an error, never a silent restart from 1.
        std::fs::write(&path, vec![b'x'; 2 * SLOT]).unwrap();
        assert!(read(dir.path()).is_err());
        assert!(Counter::open(dir.path()).is_err());
    }
}
