//! A folder someone else may swap, held open by its descriptor: every read,
//! write, rename and delete inside it goes relative to that descriptor
//! (`openat`, `renameat`, `unlinkat`), so a folder renamed away and a link
//! put in its place between a check and a use redirects nothing.
//!
//! Why: a stick in a laptop is a folder any process of the laptop's user
//! can rename while root works in it (an inotify watch makes the timing
//! exact). Paths re-resolved at each step let such a swap send `fleet
//! sign`'s delete of a planted `ca.pem` to the CA's own folder, or `fleet
//! setup`'s files into another folder. A descriptor names the folder that
//! was checked, whatever its name points at later.
//!
//! Each folder on the way is opened with `O_NOFOLLOW | O_DIRECTORY`: a link
//! anywhere below the base is refused, never followed. The base itself is
//! the path an operator named (followed, as a shell user expects).

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use super::walk::{Entry, EntryKind, Listing};
use super::BoundedReadError;

/// A folder held open; its `path` is only for messages.
#[derive(Debug)]
pub struct HeldFolder {
    fd: OwnedFd,
    path: PathBuf,
}

fn io_err(e: rustix::io::Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

impl HeldFolder {
    /// Opens the operator's `base` folder, then each `/`-separated part of
    /// `relative` below it without following a link, making missing parts
    /// when `create` (mode 0755).
    pub fn open(base: &Path, relative: &str, create: bool) -> io::Result<HeldFolder> {
        let fd = rustix::fs::open(base, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(io_err)?;
        let mut folder = HeldFolder { fd, path: base.to_path_buf() };
        for part in relative.split('/').filter(|p| !p.is_empty()) {
            folder = folder.child(part, create)?;
        }
        Ok(folder)
    }

    /// The folder `name` inside this one, never through a link; made first
    /// (mode 0755) when missing and `create`.
    pub fn child(&self, name: &str, create: bool) -> io::Result<HeldFolder> {
        check_name(name)?;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let opened = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Err(rustix::io::Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(io_err(e)),
                }
                rustix::fs::fsync(&self.fd).map_err(io_err)?;
                rustix::fs::openat(&self.fd, name, flags, Mode::empty())
            }
            other => other,
        };
        // A link in the place fails with ELOOP (or ENOTDIR): never followed.
        let fd = opened.map_err(io_err)?;
        Ok(HeldFolder { fd, path: self.path.join(name) })
    }

    /// Where it was opened, for messages (the folder may have moved since).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries, judged without following them, sorted by name; at most
    /// `limit` kept, the rest counted (up to ten times the limit).
    pub fn list(&self, limit: usize) -> io::Result<Listing> {
        let dup = rustix::io::fcntl_dupfd_cloexec(&self.fd, 0).map_err(io_err)?;
        let mut dir = rustix::fs::Dir::read_from(&dup).map_err(io_err)?;
        let (mut entries, mut left_out) = (Vec::new(), 0usize);
        let cap = limit.saturating_mul(10).max(limit + 1);
        let mut seen = 0usize;
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(io_err)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "." || name == ".." {
                continue;
            }
            seen += 1;
            if seen > cap {
                left_out += 1;
                break;
            }
            if entries.len() >= limit {
                left_out += 1;
                continue;
            }
            let kind = match entry.file_type() {
                FileType::RegularFile => EntryKind::File,
                FileType::Directory => EntryKind::Folder,
                FileType::Symlink => EntryKind::Link,
                FileType::Unknown => self.kind_of(&name),
                _ => EntryKind::Other,
            };
            entries.push(Entry { path: self.path.join(&name), name, kind });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Listing { entries, left_out })
    }

    /// An entry's kind by `fstatat` without following it (for file systems
    /// whose listing does not say).
    fn kind_of(&self, name: &str) -> EntryKind {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
                FileType::RegularFile => EntryKind::File,
                FileType::Directory => EntryKind::Folder,
                FileType::Symlink => EntryKind::Link,
                _ => EntryKind::Other,
            },
            Err(_) => EntryKind::Other,
        }
    }

    /// Reads the regular file `name` of at most `limit` bytes: never through
    /// a link, never waiting on a FIFO, judged on the opened file.
    pub fn read_small(&self, name: &str, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
        let path = self.path.join(name);
        check_name(name).map_err(|source| BoundedReadError::Io { path: path.clone(), source })?;
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(|e| match e {
            rustix::io::Errno::NOENT => BoundedReadError::NotFound { path: path.clone() },
            rustix::io::Errno::LOOP => BoundedReadError::NotRegular { path: path.clone(), kind: "symbolic link" },
            e => BoundedReadError::Io { path: path.clone(), source: io_err(e) },
        })?;
        let mut file = File::from(fd);
        let metadata = file.metadata().map_err(|source| BoundedReadError::Io { path: path.clone(), source })?;
        if !metadata.file_type().is_file() {
            return Err(BoundedReadError::NotRegular { path, kind: super::read::kind_of(&metadata) });
        }
        if metadata.len() > limit {
            return Err(BoundedReadError::TooLarge { path, size: metadata.len(), limit });
        }
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        (&mut file)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| BoundedReadError::Io { path: path.clone(), source })?;
        if bytes.len() as u64 > limit {
            return Err(BoundedReadError::TooLarge { path, size: bytes.len() as u64, limit });
        }
        Ok(bytes)
    }

    /// Replaces `name` with `bytes` atomically and durably, with `mode`: a
    /// fresh temporary file made in this folder (`O_EXCL`, never through a
    /// link), synced, renamed over `name` (a link there is replaced, never
    /// written through), the folder synced.
    pub fn write_atomically(&self, name: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
        check_name(name)?;
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let (temp, fd) = (0..100)
            .find_map(|_| {
                let temp = format!(".wordjudge-{}.tmp", unique_suffix());
                match rustix::fs::openat(&self.fd, temp.as_str(), flags, Mode::from_raw_mode(mode)) {
                    Err(rustix::io::Errno::EXIST) => None,
                    other => Some(other.map(|fd| (temp, fd))),
                }
            })
            .unwrap_or(Err(rustix::io::Errno::EXIST))
            .map_err(io_err)?;
        let written = (|| {
            let mut file = File::from(fd);
            file.write_all(bytes)?;
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode)).map_err(io_err)?;
            file.sync_all()?;
            rustix::fs::renameat(&self.fd, temp.as_str(), &self.fd, name).map_err(io_err)?;
            rustix::fs::fsync(&self.fd).map_err(io_err)
        })();
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, temp.as_str(), AtFlags::empty());
        }
        written
    }

    /// Removes the entry `name` of this folder (a file or a link itself,
    /// never what a link points at), and syncs the folder.
    pub fn remove_file(&self, name: &str) -> io::Result<()> {
        check_name(name)?;
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(io_err)?;
        rustix::fs::fsync(&self.fd).map_err(io_err)
    }

    /// Writes `bytes` into a new file `name` (mode `mode`) of this folder
    /// and syncs it: `O_EXCL | O_NOFOLLOW`, so nothing already there (a
    /// link planted in the place included) is written through or replaced.
    pub fn write_new(&self, name: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
        check_name(name)?;
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode)).map_err(io_err)?;
        let mut file = File::from(fd);
        file.write_all(bytes)?;
        file.sync_all()
    }

    /// Makes the folder `name` here and holds it; an entry already in its
    /// place (a folder, or a link to one) is an error, so what is returned
    /// is the folder made now.
    pub fn make_child(&self, name: &str) -> io::Result<HeldFolder> {
        check_name(name)?;
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o755)).map_err(io_err)?;
        self.child(name, false)
    }

    /// Renames the entry `from` of this folder to `to` (in this folder) and
    /// syncs the folder.
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        check_name(from)?;
        check_name(to)?;
        rustix::fs::renameat(&self.fd, from, &self.fd, to).map_err(io_err)?;
        rustix::fs::fsync(&self.fd).map_err(io_err)
    }

    /// Whether the entry `name` of this folder is `folder` itself (the same
    /// file system and inode, not a link to it): a check after a rename
    /// that someone else might have raced.
    pub fn holds(&self, name: &str, folder: &HeldFolder) -> bool {
        let (Ok(entry), Ok(held)) =
            (rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW), rustix::fs::fstat(&folder.fd))
        else {
            return false;
        };
        check_name(name).is_ok() && entry.st_dev == held.st_dev && entry.st_ino == held.st_ino
    }

    /// Syncs the folder itself (its entries' names).
    pub fn sync(&self) -> io::Result<()> {
        rustix::fs::fsync(&self.fd).map_err(io_err)
    }

    /// Removes the entry `name` and, when it is a folder, everything in it
    /// (at most `depth` folders deep): a link anywhere is removed itself,
    /// never followed, so a link planted in a folder being cleared away
    /// deletes nothing it points at.
    pub fn remove_tree(&self, name: &str, depth: usize) -> io::Result<()> {
        check_name(name)?;
        let stat = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).map_err(io_err)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
            return rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(io_err);
        }
        if depth == 0 {
            return Err(io::Error::other(format!("{} is deeper than expected: left", self.path.join(name).display())));
        }
        let inner = self.child(name, false)?;
        for entry in inner.list(10_000)?.entries {
            inner.remove_tree(&entry.name, depth - 1)?;
        }
        rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR).map_err(io_err)
    }

    /// Whether an entry `name` is there (of any kind, a link not followed).
    pub fn has(&self, name: &str) -> bool {
        check_name(name).is_ok() && rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    /// The descriptor, for a caller that must hand the folder on.
    pub fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// One entry name: never empty, `.`, `..` or with a `/` (each part is
/// walked on its own, so nothing leaves the folder by its name).
fn check_name(name: &str) -> io::Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{name:?} is not one entry's name")));
    }
    Ok(())
}

/// A name part no other writer guesses: the time and the process.
fn unique_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    format!("{}-{:x}-{}", std::process::id(), now, NEXT.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_swapped_for_a_link_after_it_was_opened_redirects_nothing() {
        let stick = tempfile::tempdir().unwrap();
        let victim = tempfile::tempdir().unwrap();
        std::fs::write(victim.path().join("ca.pem"), "the CA's own").unwrap();
        std::fs::create_dir_all(stick.path().join("wordjudge/fleet")).unwrap();
        std::fs::write(stick.path().join("wordjudge/fleet/ca.pem"), "planted").unwrap();
        let held = HeldFolder::open(stick.path(), "wordjudge/fleet", false).unwrap();
        // Swapped after the open: the folder moved away, a link to the
        // victim in its place.
        std::fs::rename(stick.path().join("wordjudge/fleet"), stick.path().join("wordjudge/moved")).unwrap();
        std::os::unix::fs::symlink(victim.path(), stick.path().join("wordjudge/fleet")).unwrap();
        held.remove_file("ca.pem").unwrap();
        held.write_atomically("new.pem", b"cert", 0o644).unwrap();
        assert_eq!(std::fs::read_to_string(victim.path().join("ca.pem")).unwrap(), "the CA's own", "not deleted");
        assert!(!victim.path().join("new.pem").exists(), "nothing written through the link");
        assert!(!stick.path().join("wordjudge/moved/ca.pem").exists(), "the held folder's own file is gone");
        assert_eq!(std::fs::read(stick.path().join("wordjudge/moved/new.pem")).unwrap(), b"cert");
        // Opened again now, the link is refused.
        let refused = HeldFolder::open(stick.path(), "wordjudge/fleet", false).unwrap_err();
        assert!(matches!(refused.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENOTDIR)), "{refused}");
    }

    #[test]
    fn entries_and_files_are_judged_without_following() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csr"), "a").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("b.csr")).unwrap();
        std::fs::create_dir(dir.path().join("c.csr")).unwrap();
        let held = HeldFolder::open(dir.path(), "", false).unwrap();
        let kinds: Vec<(String, EntryKind)> =
            held.list(10).unwrap().entries.into_iter().map(|e| (e.name, e.kind)).collect();
        assert_eq!(
            kinds,
            [("a.csr".into(), EntryKind::File), ("b.csr".into(), EntryKind::Link), ("c.csr".into(), EntryKind::Folder)]
        );
        assert_eq!(held.read_small("a.csr", 10).unwrap(), b"a");
        assert!(matches!(
            held.read_small("b.csr", 10),
            Err(BoundedReadError::NotRegular { kind: "symbolic link", .. })
        ));
        assert!(matches!(held.read_small("a.csr", 0), Err(BoundedReadError::TooLarge { .. })));
        assert!(held.read_small("../x", 10).is_err() && held.write_atomically("../x", b"", 0o644).is_err());
        assert!(held.child("b.csr", false).is_err(), "a link is never entered");
    }
}
