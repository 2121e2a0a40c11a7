//! Writing a file so that a crash or power cut leaves either the old file or
//! the new one, never a mix: write a temporary file in the same directory,
//! fsync it, rename it over the target, then fsync the directory.
//!
//! Used for compiled lexicons, their manifests, the kiosk config and its
//! guard, the fleet's files and every other file the station keeps.
//!
//! An existing file keeps its permission bits (a config made 0640 must not
//! become world-readable by being saved); a new file gets 0644, the usual
//! mode for data the kiosk's own user reads. The mode is read from the file
//! in the place itself, never through a symbolic link: a link in the place of
//! a config or a guard, pointing at a 0666 file, is replaced by a 0644 file
//! (the rename replaces the link, never its target). Temporary files are named
//! `.wordjudge-*.tmp`; [`crate::lexicon::build`] removes ones a killed
//! process left in a lexicon directory.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Replaces `path` with `bytes` atomically and durably, keeping the mode
/// of the regular file in its place (0644 for a new file or for anything
/// else in the place).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mode = match std::fs::symlink_metadata(path) {
        Ok(existing) if existing.file_type().is_file() => existing.permissions().mode() & 0o7777,
        _ => 0o644,
    };
    write_atomically_with_mode(path, bytes, mode)
}

/// Replaces `path` with `bytes` atomically and durably, with exactly `mode`
/// (keys and copies the station alone reads use 0600).
pub fn write_atomically_with_mode(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // tempfile creates with O_CREAT | O_EXCL and mode 0600: a name that is
    // already there, link or not, is never opened.
    let mut temp = tempfile::Builder::new().prefix(".wordjudge-").suffix(".tmp").tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
    temp.as_file().sync_all()?;
    // The rename replaces whatever is at `path` (a link is replaced, never
    // followed).
    temp.persist(path).map_err(|e| e.error)?;
    // The rename is durable only once the folder's entry is on disk.
    sync_folder(dir)
}

/// Writes `bytes` into a file that must not exist yet (`O_EXCL`: a link or
/// anything else already in the place is an error, never followed), with
/// `mode`, synced. For files written once into a folder just made (an
/// export on a stick).
pub fn write_new_file(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let mut file = create_new_file(path, mode)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Creates a file that must not exist yet, with `mode`, open for writing:
/// for a copy streamed in pieces (an update bundle). A link or anything
/// else in the place is an error, never followed.
pub fn create_new_file(path: &Path, mode: u32) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    File::options().write(true).create_new(true).mode(mode).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path)
}

/// Makes a folder's entries (a rename, a new file) durable.
pub fn sync_folder(dir: &Path) -> io::Result<()> {
    super::open_folder(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.toml");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_link_in_the_place_is_replaced_and_its_targets_mode_never_taken() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"someone else's").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o666)).unwrap();
        let path = dir.path().join("config.toml");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        write_atomically(&path, b"mine").unwrap();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(meta.file_type().is_file(), "the link is replaced by a file");
        assert_eq!(meta.permissions().mode() & 0o777, 0o644, "not the link target's 0666");
        assert_eq!(std::fs::read(&target).unwrap(), b"someone else's", "the target is untouched");
    }

    #[test]
    fn keeps_an_existing_files_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        write_atomically(&path, b"one").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomically(&dir.path().join("no/such/dir/x"), b"x").is_err());
    }
}
