//! A folder's entries, listed the way a stick's folder must be: the folder
//! itself opened without following a link (`O_NOFOLLOW | O_DIRECTORY`), each
//! entry's kind taken from the entry (`lstat` semantics, never its target),
//! and at most a caller's number of entries looked at, so a folder of a
//! million files costs a bounded time. Nothing here descends into a
//! sub-folder: a caller that wants one lists it by name, and a link in its
//! place is refused the same way.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// What an entry is, judged without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Folder,
    Link,
    /// FIFO, socket or device.
    Other,
}

/// One entry of a listed folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name; names that are not UTF-8 are kept lossily (a
    /// caller that needs the exact bytes uses `path`).
    pub name: String,
    pub path: PathBuf,
    pub kind: EntryKind,
}

/// A folder's entries, sorted by name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Listing {
    pub entries: Vec<Entry>,
    /// Entries beyond the limit, not looked at.
    pub left_out: usize,
}

/// Opens the folder `dir` itself (to lock it, to sync it, to list it):
/// never through a link in its place, never waiting, only a folder.
pub fn open_folder(dir: &Path) -> std::io::Result<File> {
    File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(dir)
}

/// Lists `dir`, which must be a real folder (a link in its place is refused
/// with `ELOOP`/"not a directory", whatever it points at). At most `limit`
/// entries are kept; the rest are counted, up to a bound of ten times the
/// limit, so that a hostile folder cannot make the count itself slow.
pub fn list_folder(dir: &Path, limit: usize) -> std::io::Result<Listing> {
    // Open the folder itself without following a link: a link to a folder
    // elsewhere (out of the stick, into the station's audit folder) fails
    // here, before any entry is read.
    list(dir, limit, open_folder(dir)?)
}

/// Lists a folder an operator named on the command line (`audit verify
/// DIR`): a link given as the name itself is followed, as a shell user
/// expects; the entries are still judged without following them.
pub fn list_named_folder(dir: &Path, limit: usize) -> std::io::Result<Listing> {
    let handle =
        File::options().read(true).custom_flags(libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC).open(dir)?;
    list(dir, limit, handle)
}

fn list(dir: &Path, limit: usize, handle: File) -> std::io::Result<Listing> {
    if !handle.metadata()?.is_dir() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a folder"));
    }
    // std's read_dir opens the path again; reading through /proc/self/fd
    // would tie it to the handle, but the path was just proven a real
    // folder and a swap now can only give another real folder's entries,
    // whose kinds are still judged without following them.
    let mut entries = Vec::new();
    let mut left_out = 0usize;
    let cap = limit.saturating_mul(10).max(limit + 1);
    for (seen, entry) in std::fs::read_dir(dir)?.enumerate() {
        if seen >= cap {
            left_out += 1;
            break;
        }
        let entry = entry?;
        if entries.len() >= limit {
            left_out += 1;
            continue;
        }
        // `DirEntry::file_type` never follows a link.
        let kind = match entry.file_type() {
            Ok(t) if t.is_symlink() => EntryKind::Link,
            Ok(t) if t.is_file() => EntryKind::File,
            Ok(t) if t.is_dir() => EntryKind::Folder,
            _ => EntryKind::Other,
        };
        entries.push(Entry { name: entry.file_name().to_string_lossy().into_owned(), path: entry.path(), kind });
    }
    drop(handle);
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Listing { entries, left_out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_judged_without_following_and_a_linked_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "x").unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("b.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        nix_mkfifo(&dir.path().join("c.txt"));
        let listing = list_folder(dir.path(), 16).unwrap();
        let kinds: Vec<(&str, EntryKind)> = listing.entries.iter().map(|e| (e.name.as_str(), e.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("a.txt", EntryKind::File),
                ("b.txt", EntryKind::Link),
                ("c.txt", EntryKind::Other),
                ("out", EntryKind::Link),
                ("sub", EntryKind::Folder)
            ]
        );
        assert!(list_folder(&dir.path().join("out"), 16).is_err(), "a link to a folder is not listed");
        assert!(list_folder(&dir.path().join("a.txt"), 16).is_err(), "a file is not a folder");
    }

    #[test]
    fn a_crowded_folder_is_cut_at_the_limit_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..30 {
            std::fs::write(dir.path().join(format!("{n:02}.txt")), "").unwrap();
        }
        let listing = list_folder(dir.path(), 5).unwrap();
        assert_eq!(listing.entries.len(), 5);
        assert_eq!(listing.left_out, 25);
    }

    fn nix_mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }
}
