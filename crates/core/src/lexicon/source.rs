//! Getting a lexicon file's bytes into memory, hashed while they are read,
//! and noticing later that the file on disk is no longer those bytes.
//!
//! # Why a private copy, and why not a memory map
//!
//! A lexicon used to be memory-mapped straight from its file. Then anything
//! done to the file after it was verified reached the lookups: a `cp` of
//! another list over it changed verdicts, a byte flipped in place made the
//! `fst` crate panic on its next lookup, and truncation raised SIGBUS. So a
//! layer now judges only from a private copy on the heap, read once through
//! [`crate::outside_files`] (a regular file, size-limited) and hashed while it is
//! read: the SHA-256 that identifies the layer is the hash of exactly the
//! bytes that judge, and nothing done to the file afterwards can reach them.
//!
//! Mapping would no longer pay: its gains were not reading the file up front
//! and sharing pages with the page cache, but verifying means reading and
//! hashing every byte anyway, and a map of a file others can write is exactly
//! what must not judge. A sealed `memfd` would add a second copy step and
//! `unsafe` for no gain on a station without swap. The cost is the .fst's
//! size in RAM (about 1 MB for CSW15), read in about a millisecond.
//!
//! # Noticing a changed file
//!
//! [`SourceWatch::changed`] compares the file's `stat` (device, inode, size,
//! modification and change times) with the one taken when it was read. Only
//! when those differ is the file hashed again, so the kiosk can poll every
//! few seconds for the cost of a `stat`. (`ctime` cannot be set from user
//! space, so even a write that restores `mtime` changes the stamp; a write in
//! the same clock tick as the original read could go unseen, which is why
//! this is a notice for the director, never a condition for judging.)

use crate::digest::hex;
use crate::outside_files::{open_regular, BoundedReadError};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Largest .fst a station reads (CSW is about 1 MB; generous for any list).
pub const MAX_FST_BYTES: u64 = 256 * 1024 * 1024;

/// The identity of a file as `stat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStamp {
    fn of(m: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

/// A file's bytes as read, with their SHA-256 and the file's stamp.
pub struct ReadBytes {
    pub bytes: Vec<u8>,
    pub sha256: String,
    pub stamp: FileStamp,
}

/// Reads a regular file of at most `limit` bytes, hashing while reading. If
/// the file changes while it is read (its stamp before and after differ), it
/// is read again, up to three times, so the hash is of one consistent version.
pub fn read_hashed(path: &Path, limit: u64) -> Result<ReadBytes, BoundedReadError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let (mut file, before) = open_regular(path, limit)?;
        let io_err = |e| BoundedReadError::Io { path: path.to_path_buf(), source: e };
        let mut bytes = Vec::with_capacity(before.len() as usize);
        let mut hasher = Sha256::new();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err(e)),
            };
            if (bytes.len() + n) as u64 > limit {
                return Err(BoundedReadError::TooLarge {
                    path: path.to_path_buf(),
                    size: (bytes.len() + n) as u64,
                    limit,
                });
            }
            hasher.update(&chunk[..n]);
            bytes.extend_from_slice(&chunk[..n]);
        }
        let after = file.metadata().map_err(io_err)?;
        let stamp = FileStamp::of(&before);
        if FileStamp::of(&after) == stamp || attempt == 3 {
            return Ok(ReadBytes { bytes, sha256: hex(&hasher.finalize()), stamp });
        }
    }
}

/// How a lexicon file on disk differs from the copy that judges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceChange {
    /// The file is gone.
    Removed { path: PathBuf },
    /// The file now holds other bytes.
    Replaced { path: PathBuf, verified_sha256: String, now_sha256: String },
    /// The file cannot be read any more (or is no longer a regular file).
    Unreadable { path: PathBuf, problem: String },
}

impl SourceChange {
    pub fn path(&self) -> &Path {
        match self {
            SourceChange::Removed { path }
            | SourceChange::Replaced { path, .. }
            | SourceChange::Unreadable { path, .. } => path,
        }
    }
}

impl fmt::Display for SourceChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match self {
            SourceChange::Removed { .. } => write!(f, "{name} was removed since it was verified"),
            SourceChange::Replaced { verified_sha256, now_sha256, .. } => write!(
                f,
                "{name} changed on disk since it was verified (SHA-256 was {}…, now {}…)",
                &verified_sha256[..12.min(verified_sha256.len())],
                &now_sha256[..12.min(now_sha256.len())]
            ),
            SourceChange::Unreadable { problem, .. } => write!(f, "{name} cannot be read any more: {problem}"),
        }?;
        f.write_str("; still judging with the verified copy")
    }
}

/// Watches the file one layer was read from.
#[derive(Debug)]
pub struct SourceWatch {
    path: PathBuf,
    sha256: String,
    stamp: FileStamp,
    /// The last stamp looked at (None: the file was not there) and what it meant.
    last: Mutex<Option<(Option<FileStamp>, Option<SourceChange>)>>,
}

impl SourceWatch {
    pub fn new(path: PathBuf, sha256: String, stamp: FileStamp) -> SourceWatch {
        SourceWatch { path, sha256, stamp, last: Mutex::new(None) }
    }

    /// Whether the file now differs from the bytes read: a `stat`, and a
    /// re-hash only when the stamp changed since the last call.
    pub fn changed(&self) -> Option<SourceChange> {
        let now = match std::fs::metadata(&self.path) {
            Ok(m) => Some(FileStamp::of(&m)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Some(SourceChange::Unreadable { path: self.path.clone(), problem: e.to_string() }),
        };
        if now == Some(self.stamp) {
            return None;
        }
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((stamp, change)) = last.as_ref() {
            if *stamp == now {
                return change.clone();
            }
        }
        let change = match now {
            None => Some(SourceChange::Removed { path: self.path.clone() }),
            Some(_) => match read_hashed(&self.path, MAX_FST_BYTES) {
                Ok(read) if read.sha256 == self.sha256 => None,
                Ok(read) => Some(SourceChange::Replaced {
                    path: self.path.clone(),
                    verified_sha256: self.sha256.clone(),
                    now_sha256: read.sha256,
                }),
                Err(e) if e.is_not_found() => Some(SourceChange::Removed { path: self.path.clone() }),
                Err(e) => Some(SourceChange::Unreadable { path: self.path.clone(), problem: e.to_string() }),
            },
        };
        *last = Some((now, change.clone()));
        change
    }
}
