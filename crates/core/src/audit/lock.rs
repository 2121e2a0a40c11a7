//! One writer per audit folder.
//!
//! Two kiosks pointed at one folder would number the same challenges and
//! interleave two chains; `verify` would then call honest records tampered.
//! So the writer holds an exclusive `flock(2)` on the folder itself for as
//! long as it lives — not on a file in it, which `rm` would take away from
//! under a running writer and let a second one start — and writes its pid,
//! station and start time into `writer.lock` so a refused second writer can
//! say who holds it. The kernel drops the lock when the holder exits, however
//! it exits (`kill -9` included), so nothing stale ever blocks a restart.
//! Readers (`verify`, `show`, `export`) never take it.

use std::fmt;
use std::fs::{File, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The lock file's name in the audit folder.
pub const LOCK_FILE: &str = "writer.lock";

/// Who holds (or last held) the lock, as written in the lock file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Holder {
    pub pid: Option<u32>,
    pub station: String,
    pub since: String,
}

impl Holder {
    fn parse(text: &str) -> Holder {
        let mut holder = Holder::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pid", v)) => holder.pid = v.trim().parse().ok(),
                Some(("station", v)) => holder.station = v.to_string(),
                Some(("since", v)) => holder.since = v.to_string(),
                _ => {}
            }
        }
        holder
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "pid {pid}")?,
            None => write!(f, "an unknown process")?,
        }
        if !self.station.is_empty() {
            write!(f, ", station {:?}", self.station)?;
        }
        if !self.since.is_empty() {
            write!(f, ", since {}", self.since)?;
        }
        Ok(())
    }
}

/// Another live process is the writer of an audit folder: what
/// [`crate::recorder::AuditLog::open`] refuses with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterBusy {
    pub dir: PathBuf,
    pub holder: Holder,
}

impl fmt::Display for WriterBusy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the audit folder {} is already being written by another wordjudge ({}); only one writer per folder: \
             stop the other one, or give this station its own audit_dir",
            self.dir.display(),
            self.holder
        )
    }
}

impl std::error::Error for WriterBusy {}

/// Why the writer lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Another live process writes this folder.
    Busy(WriterBusy),
    /// The lock file cannot be opened or locked (folder missing, read-only).
    Io { path: PathBuf, source: io::Error },
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Busy(busy) => busy.fmt(f),
            LockError::Io { path, source } => write!(f, "cannot lock {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockError::Busy(_) => None,
            LockError::Io { source, .. } => Some(source),
        }
    }
}

/// The held lock; dropping it releases the folder.
#[derive(Debug)]
pub struct WriterLock {
    _folder: File,
    _file: File,
}

/// The folder itself, opened to be locked (without blocking, and only if it
/// is a directory).
fn open_folder(dir: &Path) -> io::Result<File> {
    crate::outside_files::open_folder(dir)
}

/// How often, and how long apart, a busy lock is tried again.
const RETRIES: u32 = 10;
const RETRY_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// Takes the writer lock of `dir` (which must exist) for `station`.
pub fn acquire(dir: &Path, station: &str, since: &str) -> Result<WriterLock, LockError> {
    let path = dir.join(LOCK_FILE);
    let io_error = |source| LockError::Io { path: path.clone(), source };
    let folder = open_folder(dir).map_err(|source| LockError::Io { path: dir.to_path_buf(), source })?;
    // A lock released a moment ago can still be held for an instant by a
    // child the previous holder was forking (the descriptor is closed on
    // exec, not on fork), so a busy lock is tried again for half a second
    // before the second writer is refused.
    let mut tries = 0;
    loop {
        match folder.try_lock() {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) if tries < RETRIES => {
                tries += 1;
                std::thread::sleep(RETRY_EVERY);
            }
            Err(TryLockError::WouldBlock) => {
                let holder = Holder::parse(
                    &crate::outside_files::read_small_text(&path, crate::outside_files::limits::SMALL_FILE)
                        .unwrap_or_default(),
                );
                return Err(LockError::Busy(WriterBusy { dir: dir.to_path_buf(), holder }));
            }
            Err(TryLockError::Error(e)) => return Err(io_error(e)),
        }
    }
    // Who holds it, for a refused second writer's message. Not needed for
    // the lock itself, so a failure here (disk full) is ignored.
    let mut file = crate::outside_files::open_regular_rw(&path, true, false).map_err(io_error)?;
    let station: String = station.chars().filter(|c| !c.is_control()).collect();
    let text = format!("pid {}\nstation {station}\nsince {since}\n", std::process::id());
    let _ = file.set_len(0).and_then(|()| file.write_all(text.as_bytes()));
    Ok(WriterLock { _folder: folder, _file: file })
}

/// Who holds the lock of `dir` now, if anyone (for readers' messages).
pub fn holder(dir: &Path) -> Option<Holder> {
    let path = dir.join(LOCK_FILE);
    let file = open_folder(dir).ok()?;
    // As in `acquire`: a just-released lock may linger in a forking child.
    for _ in 0..RETRIES {
        match file.try_lock_shared() {
            Ok(()) => return None,
            Err(TryLockError::WouldBlock) => std::thread::sleep(RETRY_EVERY),
            Err(TryLockError::Error(_)) => return None,
        }
    }
    match file.try_lock_shared() {
        Ok(()) => None,
        Err(TryLockError::WouldBlock) => Some(Holder::parse(
            &crate::outside_files::read_small_text(&path, crate::outside_files::limits::SMALL_FILE).unwrap_or_default(),
        )),
        Err(TryLockError::Error(_)) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deleting_the_lock_file_under_a_running_writer_lets_no_second_one_in() {
        let dir = tempfile::tempdir().unwrap();
        let _first = acquire(dir.path(), "Table 1", "t0").unwrap();
        std::fs::remove_file(dir.path().join(LOCK_FILE)).unwrap();
        match acquire(dir.path(), "Table 2", "t1") {
            Err(LockError::Busy(_)) => {}
            other => panic!("a second writer started: {other:?}"),
        }
        assert!(holder(dir.path()).is_some(), "readers still see the writer");
    }

    #[test]
    fn a_second_writer_is_refused_by_name_and_the_lock_goes_with_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire(dir.path(), "Table 7", "2025-05-01T12:00:00Z").unwrap();
        assert_eq!(holder(dir.path()).unwrap().pid, Some(std::process::id()));
        match acquire(dir.path(), "Table 8", "now") {
            Err(e @ LockError::Busy(_)) => {
                let text = e.to_string();
                assert!(text.contains(&format!("pid {}", std::process::id())), "{text}");
                assert!(text.contains("station \"Table 7\""), "{text}");
            }
            other => panic!("{other:?}"),
        }
        drop(first);
        assert!(holder(dir.path()).is_none());
        let _again = acquire(dir.path(), "Table 8", "now").unwrap();
        assert!(matches!(acquire(&dir.path().join("missing"), "x", "y"), Err(LockError::Io { .. })));
    }
}
