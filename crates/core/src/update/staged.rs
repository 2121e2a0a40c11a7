//! The bundle a director chose, copied onto the station before it is
//! checked: what the preview shows, what the audit log records and what
//! installs are the same bytes.
//!
//! Why a copy, and not the file on the stick held open until the install:
//! RAUC opens a bundle by its path, in its own service, once for `rauc
//! info` and again for `rauc install`. Between the two, a path on a stick
//! names whatever file is there at that moment: the bundle previewed as
//! 0.2.0 (an upgrade, no PIN) could be overwritten in place or replaced by
//! rename with 0.0.1, which RAUC would then install as a signed bundle like
//! any other, recorded as the 0.2.0 the director confirmed. A file
//! descriptor held since the check cannot be handed to RAUC, and checking
//! its digest again just before the install still leaves the path open to
//! a swap after that check. A private copy closes both: it is written once,
//! in the station's update folder (which only the kiosk's user may write;
//! RAUC's service takes the file over for the install), `rauc info` reads
//! it for the preview and `rauc install` installs it, so the stick no
//! longer matters once the copy is made (and may even be pulled out).
//!
//! Its SHA-256, taken while it is copied, is taken again just before the
//! install ([`Staged::verify`]): a copy that changed on the station's own
//! disk is refused rather than installed under the preview's facts.
//!
//! What it costs: disk space for one bundle (130 to 165 MB for the images
//! built in `kiosk-image/`), refused with the room it needs when the data
//! partition does not have it plus [`RESERVE`] for the audit log; one read
//! of the stick at the check, and one of the copy at the install; memory
//! one [`CHUNK`] whatever the bundle's size. Blocks of zeros are left as
//! holes in the copy (they read back as the same zeros).

use super::UpdateError;
use crate::digest::HashingReader;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The copy's name in the station's update folder (RAUC wants the
/// `.raucb` ending).
pub const STAGED_FILE: &str = "checked.raucb";
/// Space left free beside the copy, for the audit log while the update
/// runs (an update writes a handful of records of a few hundred bytes; the
/// log keeps records in memory when its disk is full, but should never need
/// to). Small, because the Pi card's bundle (162 MiB) must fit on the
/// 256 MiB data partition beside the journal (up to 48 MiB) and the lexicons.
pub const RESERVE: u64 = 8 * 1024 * 1024;
/// The copy's unit of reading and writing.
pub const CHUNK: usize = 64 * 1024;

/// The station's copy of a bundle, with what it held when it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    path: PathBuf,
    size: u64,
    sha256: String,
}

impl Staged {
    /// Where the copy is (for `rauc info` and `rauc install`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The SHA-256 of the bytes copied, as lowercase hex.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Checks that the copy still holds the bytes copied (read again,
    /// streamed): [`UpdateError::Changed`] when it does not, or is gone.
    pub fn verify(&self) -> Result<(), UpdateError> {
        let (file, metadata) =
            crate::outside_files::open_regular(&self.path, u64::MAX).map_err(|_| UpdateError::Changed)?;
        if metadata.len() != self.size {
            return Err(UpdateError::Changed);
        }
        match sha256_of(file) {
            Ok((size, sha256)) if size == self.size && sha256 == self.sha256 => Ok(()),
            _ => Err(UpdateError::Changed),
        }
    }

    /// Removes the copy (after the install, or when the director cancels).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes a copy left in `dir` (a power cut during an install).
pub fn discard(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(STAGED_FILE));
}

/// The size and SHA-256 of everything `reader` gives, read in [`CHUNK`]s.
pub fn sha256_of(reader: impl Read) -> io::Result<(u64, String)> {
    let mut hashing = HashingReader::new(reader);
    let mut buf = vec![0u8; CHUNK];
    let mut size = 0u64;
    loop {
        match hashing.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => size += n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((size, hashing.sha256_hex()))
}

/// Bytes free to an unprivileged writer on the filesystem of `dir`.
fn free_bytes(dir: &Path) -> io::Result<u64> {
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `path` is a valid C string and `stats` a plain struct the call fills.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stats) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

/// Whether a bundle of `size` bytes fits beside [`RESERVE`] in `free` bytes.
pub fn room_for(size: u64, free: u64) -> Result<(), UpdateError> {
    let needed = size.saturating_add(RESERVE);
    if needed > free {
        return Err(UpdateError::NoRoom { needed, free });
    }
    Ok(())
}

/// Copies `bundle` (on a stick) to [`STAGED_FILE`] in `dir`, replacing any
/// copy there, and takes its SHA-256 on the way. Exactly the bytes the
/// bundle had when it was opened are copied: a file that grows meanwhile
/// is cut at that size, one that shrinks is refused.
pub fn stage(bundle: &Path, dir: &Path) -> Result<Staged, UpdateError> {
    let (source, metadata) =
        crate::outside_files::open_regular(bundle, u64::MAX).map_err(|e| UpdateError::Stick(e.to_string()))?;
    let size = metadata.len();
    std::fs::create_dir_all(dir).map_err(|e| UpdateError::CopyFailed(e.to_string()))?;
    discard(dir);
    room_for(size, free_bytes(dir).map_err(|e| UpdateError::CopyFailed(e.to_string()))?)?;
    let path = dir.join(STAGED_FILE);
    let result = copy(source, size, &path);
    if result.is_err() {
        discard(dir);
    }
    let sha256 = result.map_err(|e| match e {
        CopyError::Read(e) => UpdateError::Stick(e.to_string()),
        CopyError::Short => UpdateError::Stick("the bundle became shorter while it was copied".into()),
        CopyError::Write(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
            UpdateError::NoRoom { needed: size.saturating_add(RESERVE), free: free_bytes(dir).unwrap_or(0) }
        }
        CopyError::Write(e) => UpdateError::CopyFailed(e.to_string()),
    })?;
    Ok(Staged { path, size, sha256 })
}

enum CopyError {
    Read(io::Error),
    Short,
    Write(io::Error),
}

/// The copy itself: `size` bytes of `source` into a new file at `path`
/// (the kiosk's alone; RAUC's service, root, reads it and takes it over
/// for the install), its SHA-256 returned. The file is closed before this returns: RAUC refuses
/// a bundle someone still holds open for writing.
fn copy(source: File, size: u64, path: &Path) -> Result<String, CopyError> {
    let mut out = crate::outside_files::create_new_file(path, 0o600).map_err(CopyError::Write)?;
    let mut reader = HashingReader::new(source.take(size));
    let mut buf = vec![0u8; CHUNK];
    let mut copied = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        if buf[..n].iter().all(|b| *b == 0) {
            out.seek(SeekFrom::Current(n as i64)).map_err(CopyError::Write)?;
        } else {
            out.write_all(&buf[..n]).map_err(CopyError::Write)?;
        }
        copied += n as u64;
    }
    if copied != size {
        return Err(CopyError::Short);
    }
    // A trailing run of zeros was skipped: the length says where it ends.
    out.set_len(size).map_err(CopyError::Write)?;
    Ok(reader.sha256_hex())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha256_file(path: &Path) -> String {
        crate::digest::sha256_hex(&std::fs::read(path).unwrap())
    }

    #[test]
    fn the_copy_holds_the_bundles_bytes_and_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join("u.raucb");
        // Data, a block of zeros (left as a hole), data, and trailing zeros.
        let mut bytes = b"{\"version\":\"0.2.0\"}\n".to_vec();
        bytes.extend(std::iter::repeat_n(0u8, 3 * CHUNK));
        bytes.extend(b"payload");
        bytes.extend(std::iter::repeat_n(0u8, 2 * CHUNK + 17));
        std::fs::write(&bundle, &bytes).unwrap();
        let staged = stage(&bundle, &dir.path().join("update")).unwrap();
        assert_eq!(std::fs::read(staged.path()).unwrap(), bytes);
        assert_eq!(staged.sha256(), crate::digest::sha256_hex(&bytes));
        assert_eq!(staged.size(), bytes.len() as u64);
        assert_eq!(staged.verify(), Ok(()));

        // The stick's file changes: the copy does not.
        std::fs::write(&bundle, b"{\"version\":\"0.0.1\"}\n").unwrap();
        assert_eq!(sha256_file(staged.path()), crate::digest::sha256_hex(&bytes));
        assert_eq!(staged.verify(), Ok(()));
    }

    #[test]
    fn a_copy_that_changed_or_went_is_refused_at_its_verify() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join("u.raucb");
        std::fs::write(&bundle, b"0123456789").unwrap();
        let staged = stage(&bundle, dir.path()).unwrap();
        std::fs::write(staged.path(), b"0123456788").unwrap();
        assert_eq!(staged.verify(), Err(UpdateError::Changed), "same size, other bytes");
        std::fs::write(staged.path(), b"01234567890").unwrap();
        assert_eq!(staged.verify(), Err(UpdateError::Changed), "longer");
        staged.remove();
        assert_eq!(staged.verify(), Err(UpdateError::Changed), "gone");
    }

    #[test]
    fn no_room_is_refused_with_what_it_needs_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join("huge.raucb");
        // Sparse: far more than this disk has free, costing nothing.
        std::fs::File::create(&bundle).unwrap().set_len(8 << 40).unwrap();
        let update = dir.path().join("update");
        match stage(&bundle, &update) {
            Err(UpdateError::NoRoom { needed, free }) => {
                assert!(needed == (8 << 40) + RESERVE && free < needed, "{needed} {free}")
            }
            other => panic!("{other:?}"),
        }
        assert!(!update.join(STAGED_FILE).exists());
        assert_eq!(room_for(100, 100 + RESERVE), Ok(()));
        assert_eq!(
            room_for(101, 100 + RESERVE),
            Err(UpdateError::NoRoom { needed: 101 + RESERVE, free: 100 + RESERVE })
        );
    }

    #[test]
    fn what_is_not_a_file_on_the_stick_is_refused_as_the_sticks() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(stage(&dir.path().join("gone.raucb"), dir.path()), Err(UpdateError::Stick(_))));
        std::fs::create_dir(dir.path().join("d.raucb")).unwrap();
        assert!(matches!(stage(&dir.path().join("d.raucb"), dir.path()), Err(UpdateError::Stick(_))));
    }
}
