//! Writing a file so that a crash or power cut leaves either the old file or
//! the new one, never a mix: write a temporary file in the same directory,
//! fsync it, rename it over the target, then fsync the directory.
//!
//! Used for compiled lexicons, their manifests and the kiosk config.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Replaces `path` with `bytes` atomically and durably.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new().prefix(".wordjudge-").suffix(".tmp").tempfile_in(dir)?;
    temp.write_all(bytes)?;
    // Temporary files are created private; the result is read by the kiosk's
    // own user, so give it the usual mode for data files.
    temp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644))?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    // The rename is durable only once the directory entry is on disk.
    File::open(dir)?.sync_all()
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
    fn missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomically(&dir.path().join("no/such/dir/x"), b"x").is_err());
    }
}
