//! Reading files and lines that come from outside: bounded, typed, never
//! waiting on a FIFO.
//!
//! Definitions, manifests, configs and word lists are named by people, so a
//! name may point at `/dev/zero`, a FIFO nobody writes to, a directory, or a
//! 100 MB file. Reading such a thing with `std::fs::read` hangs (a FIFO blocks
//! in `open`), or exhausts memory (`/dev/zero` never ends), or aborts on a
//! failed allocation. This module owns the one safe way in:
//!
//! * open with `O_NONBLOCK`, so opening a FIFO returns at once instead of
//!   waiting for a writer;
//! * look at the *opened* file's metadata (`fstat`), not the path's, so a
//!   symlink to a device or FIFO is judged by what it really is, and a file
//!   swapped for another after a check cannot slip past it;
//! * refuse anything that is not a regular file, and any file larger than the
//!   caller's limit, before reading a byte;
//! * read at most `limit + 1` bytes even so, in case the file grows meanwhile.
//!
//! [`read_line_bounded`] is the same idea for a stream of lines (stdin for
//! `judge --each`): a line longer than the limit is skipped to its end in
//! bounded memory instead of being collected.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, BufRead, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a file was not read. Every variant names the path.
#[derive(Debug)]
pub enum BoundedReadError {
    /// The file is not there.
    NotFound { path: PathBuf },
    /// Opening or reading failed (permissions, I/O error).
    Io { path: PathBuf, source: io::Error },
    /// The path is a directory, FIFO, socket or device, not a regular file.
    NotRegular { path: PathBuf, kind: &'static str },
    /// The file is larger than the caller allows.
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    /// The file is not UTF-8 text (for [`read_small_text`]).
    NotText { path: PathBuf, valid_up_to: usize },
}

impl BoundedReadError {
    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            BoundedReadError::NotFound { path }
            | BoundedReadError::Io { path, .. }
            | BoundedReadError::NotRegular { path, .. }
            | BoundedReadError::TooLarge { path, .. }
            | BoundedReadError::NotText { path, .. } => path,
        }
    }

    /// Whether the file simply does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, BoundedReadError::NotFound { .. })
    }
}

impl fmt::Display for BoundedReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundedReadError::NotFound { path } => write!(f, "{}: no such file", path.display()),
            BoundedReadError::Io { path, source } => write!(f, "{}: cannot read: {source}", path.display()),
            BoundedReadError::NotRegular { path, kind } => {
                write!(f, "{}: is a {kind}, not a regular file; refused", path.display())
            }
            BoundedReadError::TooLarge { path, size, limit } => write!(
                f,
                "{}: {size} bytes is more than the {limit} bytes such a file may have; refused",
                path.display()
            ),
            BoundedReadError::NotText { path, valid_up_to } => {
                write!(f, "{}: not UTF-8 text (bad bytes at byte {valid_up_to})", path.display())
            }
        }
    }
}

impl std::error::Error for BoundedReadError {}

/// Size limits for the kinds of file the station reads.
pub mod limits {
    /// Definitions, manifests, configs: a few hundred bytes in practice.
    pub const SMALL_FILE: u64 = 1024 * 1024;
    /// Audit log files (they rotate at 8 MB; an export or a verify may meet
    /// larger ones written with another setting).
    pub const AUDIT_FILE: u64 = 512 * 1024 * 1024;
    /// Slip lists, keys and checkpoints given to `audit verify`.
    pub const VERIFY_INPUT: u64 = 16 * 1024 * 1024;
    /// Word lists (CSW24 is about 3 MB of text): read line by line, so
    /// this bounds the time a stick's file takes, not memory.
    pub const WORD_LIST: u64 = 16 * 1024 * 1024;
}

pub(super) fn kind_of(metadata: &Metadata) -> &'static str {
    let t = metadata.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO (named pipe)"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Opens `path` without blocking and checks that what was opened is a
/// regular file of at most `limit` bytes. Returns the open file and the
/// metadata of the opened file (not of the path).
pub fn open_regular(path: &Path, limit: u64) -> Result<(File, Metadata), BoundedReadError> {
    open_checked(path, limit, Follow::Yes)
}

/// Whether the last part of a path may be a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Follow {
    Yes,
    /// A link is refused as what it is (`O_NOFOLLOW`): for files whose place
    /// someone else may hold (a stick, the station's own guard).
    No,
}

fn open_checked(path: &Path, limit: u64, follow: Follow) -> Result<(File, Metadata), BoundedReadError> {
    let nofollow = if follow == Follow::No { libc::O_NOFOLLOW } else { 0 };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY | nofollow)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => BoundedReadError::NotFound { path: path.to_path_buf() },
            // O_NOFOLLOW on a link fails with ELOOP.
            _ if follow == Follow::No && e.raw_os_error() == Some(libc::ELOOP) => {
                BoundedReadError::NotRegular { path: path.to_path_buf(), kind: "symbolic link" }
            }
            _ => BoundedReadError::Io { path: path.to_path_buf(), source: e },
        })?;
    let metadata = file.metadata().map_err(|e| BoundedReadError::Io { path: path.to_path_buf(), source: e })?;
    if !metadata.file_type().is_file() {
        return Err(BoundedReadError::NotRegular { path: path.to_path_buf(), kind: kind_of(&metadata) });
    }
    if metadata.len() > limit {
        return Err(BoundedReadError::TooLarge { path: path.to_path_buf(), size: metadata.len(), limit });
    }
    Ok((file, metadata))
}

/// Opens `path` for reading and writing (appending when `append`),
/// creating it when `create`, without blocking, and refuses anything but a
/// regular file: a FIFO or a device in the place of a counter, a lock or a
/// log must never hang the station (an open of a FIFO for writing blocks
/// until it has a reader; a read of one blocks until it has a writer).
pub fn open_regular_rw(path: &Path, create: bool, append: bool) -> io::Result<File> {
    // Read access too, even to append: a FIFO opened read-write opens at
    // once, and is then named for what it is (write-only would fail with
    // "no such device or address", which tells nobody anything).
    let mut options = std::fs::OpenOptions::new();
    options.read(true).create(create).custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY);
    if append {
        options.append(true);
    } else {
        options.write(true).truncate(false);
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.file_type().is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is a {}, not a regular file", path.display(), kind_of(&metadata)),
        ));
    }
    // Back to ordinary blocking I/O (a regular file ignores the flag, but
    // nothing should depend on that).
    let flags = unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&file), libc::F_GETFL) };
    if flags >= 0 {
        unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&file), libc::F_SETFL, flags & !libc::O_NONBLOCK) };
    }
    Ok(file)
}

/// Reads at most `limit` bytes from an already checked file; more is an error.
pub fn read_to_limit(file: &mut File, path: &Path, size_hint: u64, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let mut bytes = Vec::with_capacity(size_hint.min(limit) as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| BoundedReadError::Io { path: path.to_path_buf(), source: e })?;
    if bytes.len() as u64 > limit {
        // The file grew after it was checked.
        return Err(BoundedReadError::TooLarge { path: path.to_path_buf(), size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// Reads a regular file of at most `limit` bytes.
pub fn read_small_file(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let (mut file, metadata) = open_regular(path, limit)?;
    read_to_limit(&mut file, path, metadata.len(), limit)
}

/// Reads a regular UTF-8 text file of at most `limit` bytes.
pub fn read_small_text(path: &Path, limit: u64) -> Result<String, BoundedReadError> {
    text_of(path, read_small_file(path, limit)?)
}

/// The same as [`read_small_file`], refusing a symbolic link in the file's
/// place (files on a stick, or whose place someone else may hold).
pub fn read_small_file_nofollow(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let (mut file, metadata) = open_checked(path, limit, Follow::No)?;
    read_to_limit(&mut file, path, metadata.len(), limit)
}

/// Whether `path` is a real directory: not a link to one, not a file.
/// Folders on a stick are walked and written only when they are.
pub fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_dir())
}

/// The same as [`read_small_text`], refusing a symbolic link in the file's
/// place: a file whose place someone else may hold is read only as itself.
pub fn read_small_text_nofollow(path: &Path, limit: u64) -> Result<String, BoundedReadError> {
    let (mut file, metadata) = open_checked(path, limit, Follow::No)?;
    text_of(path, read_to_limit(&mut file, path, metadata.len(), limit)?)
}

fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, BoundedReadError> {
    String::from_utf8(bytes)
        .map_err(|e| BoundedReadError::NotText { path: path.to_path_buf(), valid_up_to: e.utf8_error().valid_up_to() })
}

/// What [`read_line_bounded`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A line (without its `\n`) is in the buffer.
    Complete,
    /// The line was longer than the limit; it was skipped up to its `\n`
    /// (or the end of input) and the buffer is empty. `len` is its length.
    TooLong { len: u64 },
    /// No more input.
    End,
}

/// Reads one line of at most `limit` bytes into `buf` (cleared first), in
/// memory bounded by `limit` plus the reader's buffer whatever the input: a
/// longer line is consumed without being kept. A final line without `\n`
/// counts as a line. Bytes are not checked for UTF-8; that is the caller's.
pub fn read_line_bounded<R: BufRead + ?Sized>(reader: &mut R, limit: usize, buf: &mut Vec<u8>) -> io::Result<Line> {
    buf.clear();
    let mut len: u64 = 0;
    let mut any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (any, len > limit as u64) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong { len },
                (true, false) => Line::Complete,
            });
        }
        any = true;
        let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        let taken = chunk.len();
        len += taken as u64;
        if len <= limit as u64 {
            buf.extend_from_slice(chunk);
        } else if !buf.is_empty() {
            buf.clear();
            buf.shrink_to(limit);
        }
        reader.consume(taken + usize::from(found_newline));
        if found_newline {
            return Ok(if len > limit as u64 { Line::TooLong { len } } else { Line::Complete });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn reads_a_small_regular_file_and_refuses_a_larger_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.toml");
        std::fs::write(&path, b"id = 1\n").unwrap();
        assert_eq!(read_small_text(&path, 100).unwrap(), "id = 1\n");
        let err = read_small_file(&path, 3).unwrap_err();
        assert!(matches!(err, BoundedReadError::TooLarge { size: 7, limit: 3, .. }), "{err:?}");
        assert!(err.to_string().contains("a.toml"), "{err}");
        assert!(read_small_file(&dir.path().join("none"), 10).unwrap_err().is_not_found());
    }

    #[test]
    fn refuses_directories_devices_and_links_to_them() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_small_file(dir.path(), 100).unwrap_err();
        assert!(matches!(err, BoundedReadError::NotRegular { kind: "directory", .. }), "{err:?}");
        let err = read_small_file(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(matches!(err, BoundedReadError::NotRegular { kind: "character device", .. }), "{err:?}");
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let err = read_small_file(&link, 100).unwrap_err();
        assert!(matches!(err, BoundedReadError::NotRegular { .. }), "{err:?}");
        assert!(err.to_string().contains("link.toml"), "{err}");
    }

    #[test]
    fn refuses_invalid_utf8_text_with_the_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b");
        std::fs::write(&path, b"ok\xff").unwrap();
        assert!(matches!(read_small_text(&path, 10), Err(BoundedReadError::NotText { valid_up_to: 2, .. })));
    }

    #[test]
    fn bounded_lines_skip_overlong_lines_and_keep_going() {
        let input = b"QI ZA\nAAAAAAAAAAAAAAAAAAAA\n\nlast".to_vec();
        // A tiny reader buffer makes lines span many fill_buf calls.
        let mut reader = BufReader::with_capacity(3, input.as_slice());
        let mut buf = Vec::new();
        assert_eq!(read_line_bounded(&mut reader, 8, &mut buf).unwrap(), Line::Complete);
        assert_eq!(buf, b"QI ZA");
        assert_eq!(read_line_bounded(&mut reader, 8, &mut buf).unwrap(), Line::TooLong { len: 20 });
        assert!(buf.is_empty());
        assert_eq!(read_line_bounded(&mut reader, 8, &mut buf).unwrap(), Line::Complete);
        assert!(buf.is_empty());
        assert_eq!(read_line_bounded(&mut reader, 8, &mut buf).unwrap(), Line::Complete);
        assert_eq!(buf, b"last");
        assert_eq!(read_line_bounded(&mut reader, 8, &mut buf).unwrap(), Line::End);
    }

    #[test]
    fn an_overlong_last_line_without_newline_is_reported() {
        let mut reader = BufReader::with_capacity(4, &b"ABCDEFGHIJ"[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line_bounded(&mut reader, 5, &mut buf).unwrap(), Line::TooLong { len: 10 });
        assert_eq!(read_line_bounded(&mut reader, 5, &mut buf).unwrap(), Line::End);
    }
}
