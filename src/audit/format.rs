//! The audit log on disk: file names, and lines that carry their own hash and
//! the hash of the line before.
//!
//! Every line is one JSON object ending in a seal:
//!
//! ```text
//! {"seq":7,"prev":"<sha256 of line 6>",…,"line_sha256":"<sha256 of everything before ,\"line_sha256\">"}
//! ```
//!
//! * `prev` is the SHA-256 (lowercase hex) of the previous line's bytes, the
//!   newline excluded. The first line of the first file has [`GENESIS`]
//!   (64 zeros) and `seq` 1. The chain runs on across files: the first line
//!   of a new file carries the hash of the last line of the file before.
//! * `line_sha256` is the SHA-256 of the line up to (not including) the
//!   `,"line_sha256":"` that ends it. `prev` alone cannot show an edit to the
//!   *last* line (nothing follows it); the seal does, and it names the edited
//!   line exactly instead of the line after it.
//!
//! A hash chain stops careless or casual edits and makes deletions and
//! reorderings visible; it cannot stop someone who rewrites the whole chain
//! from the edit onwards. That is what the copies in journald (each carrying
//! the line's hash) are for.
//!
//! Files are `audit-NNNNNN-YYYY-MM-DD.jsonl`: a running index (so they sort
//! in order even when the wall clock jumps back) and the local date the file
//! was started. A torn tail moved aside at recovery goes to
//! `<log file name>.torn-at-<byte offset>`.

use crate::digest::sha256_hex;
use jiff::civil::Date;
use std::path::{Path, PathBuf};

/// `prev` of the very first line of a log: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What precedes the seal's hex digits at the end of every line.
pub const SEAL_KEY: &str = ",\"line_sha256\":\"";

/// Length of the seal: key, 64 hex digits, `"}`.
const SEAL_LEN: usize = SEAL_KEY.len() + 64 + 2;

/// Seals a JSON object's text (`{…}`, at least one member) into a line,
/// without the newline.
pub fn seal(object: &str) -> String {
    debug_assert!(object.starts_with('{') && object.ends_with('}') && object.len() > 2);
    let body = &object[..object.len() - 1];
    let digest = sha256_hex(body.as_bytes());
    format!("{body}{SEAL_KEY}{digest}\"}}")
}

/// Why a line is not a sealed audit line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealError {
    /// The line does not end in a `line_sha256` seal at all.
    Missing,
    /// The seal is there but does not match the line: it was edited.
    Mismatch,
}

/// Checks a line's seal (the line without its newline).
pub fn check_seal(line: &[u8]) -> Result<(), SealError> {
    if line.len() < SEAL_LEN + 2 || line.first() != Some(&b'{') {
        return Err(SealError::Missing);
    }
    let (body, seal) = line.split_at(line.len() - SEAL_LEN);
    let (key, rest) = seal.split_at(SEAL_KEY.len());
    let (hex, end) = rest.split_at(64);
    if key != SEAL_KEY.as_bytes()
        || end != b"\"}"
        || !hex.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    {
        return Err(SealError::Missing);
    }
    if sha256_hex(body).as_bytes() == hex {
        Ok(())
    } else {
        Err(SealError::Mismatch)
    }
}

/// SHA-256 of a whole line (without its newline): what the next line's
/// `prev` must hold.
pub fn line_hash(line: &[u8]) -> String {
    sha256_hex(line)
}

/// A log file's name, parsed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LogName {
    /// Running index: files are in this order.
    pub index: u64,
    /// Local date the file was started.
    pub date: Date,
}

impl LogName {
    pub fn file_name(&self) -> String {
        format!("audit-{:06}-{}.jsonl", self.index, self.date)
    }

    /// Parses `audit-NNNNNN-YYYY-MM-DD.jsonl`; anything else is not a log file.
    pub fn parse(name: &str) -> Option<LogName> {
        let rest = name.strip_prefix("audit-")?.strip_suffix(".jsonl")?;
        let (index, date) = rest.split_once('-')?;
        if index.len() < 6 || !index.bytes().all(|b| b.is_ascii_digit()) || date.len() != 10 {
            return None;
        }
        Some(LogName { index: index.parse().ok()?, date: date.parse().ok()? })
    }
}

/// Where a torn tail that started at `offset` of `log` is moved aside. The
/// start of the tail's SHA-256 is in the name, so recovering the same tail
/// twice (a crash during recovery) is idempotent and a different tail at the
/// same offset never overwrites an earlier one.
pub fn torn_aside_name(log: &str, offset: u64, sha256: &str) -> String {
    format!("{log}.torn-at-{offset}-{}", &sha256[..12.min(sha256.len())])
}

/// Parses a moved-aside file name into (log file name, offset).
pub fn parse_torn_aside(name: &str) -> Option<(&str, u64)> {
    let (log, rest) = name.rsplit_once(".torn-at-")?;
    LogName::parse(log)?;
    let (offset, hash) = rest.split_once('-')?;
    if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((log, offset.parse().ok()?))
}

/// A directory's entries: log files in order, and the other names.
pub type Listing = (Vec<(LogName, PathBuf)>, Vec<String>);

/// The log files in `dir`, in order; and the other entries (names only).
pub fn list_dir(dir: &Path) -> std::io::Result<Listing> {
    let mut logs = Vec::new();
    let mut others = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        match LogName::parse(&name) {
            Some(parsed) if entry.file_type().map(|t| t.is_file()).unwrap_or(false) => {
                logs.push((parsed, entry.path()))
            }
            _ => others.push(name),
        }
    }
    logs.sort();
    others.sort();
    Ok((logs, others))
}

/// A file's bytes cut into lines.
pub struct Lines<'a> {
    /// Complete lines (newline-terminated), without their newline, with the
    /// byte offset where each starts.
    pub complete: Vec<(u64, &'a [u8])>,
    /// Bytes after the last newline: a torn (unfinished) line, if not empty.
    pub tail: Option<(u64, &'a [u8])>,
}

pub fn split_lines(bytes: &[u8]) -> Lines<'_> {
    let mut complete = Vec::new();
    let mut start = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            complete.push((start as u64, &bytes[start..i]));
            start = i + 1;
        }
    }
    let tail = (start < bytes.len()).then(|| (start as u64, &bytes[start..]));
    Lines { complete, tail }
}

/// The fields every reader of the log needs, read leniently (unknown fields
/// are ignored, so records of a newer wordjudge still read).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Head {
    pub seq: u64,
    pub prev: String,
    pub time: String,
    #[serde(default)]
    pub boot_id: String,
    #[serde(default)]
    pub mono_ns: u64,
    #[serde(default)]
    pub clock_synced: bool,
    pub event: String,
    #[serde(default)]
    pub challenge: Option<u64>,
    /// Held while the log was failing and written later.
    #[serde(default)]
    pub delayed: bool,
    #[serde(default)]
    pub words: Option<Vec<String>>,
    /// `rotated`: the file the log continues in.
    #[serde(default)]
    pub next_file: Option<String>,
    /// `recovered`: the moved-aside file and what it held.
    #[serde(default)]
    pub moved_to: Option<String>,
    #[serde(default)]
    pub torn_bytes: Option<u64>,
    #[serde(default)]
    pub torn_sha256: Option<String>,
    #[serde(default)]
    pub file: Option<String>,
}

impl Head {
    pub fn parse(line: &[u8]) -> Result<Head, String> {
        serde_json::from_slice(line).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_round_trip_and_any_change_breaks_it() {
        let line = seal(r#"{"seq":1,"event":"x"}"#);
        assert!(line.starts_with(r#"{"seq":1,"event":"x","line_sha256":""#));
        assert_eq!(check_seal(line.as_bytes()), Ok(()));
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["line_sha256"].as_str().unwrap().len(), 64);
        for i in 0..line.len() {
            let mut bytes = line.clone().into_bytes();
            bytes[i] ^= 0x01;
            assert!(check_seal(&bytes).is_err(), "flipping byte {i} went unnoticed");
        }
        assert_eq!(check_seal(b"garbage"), Err(SealError::Missing));
        assert_eq!(check_seal(&[0u8; 200]), Err(SealError::Missing));
    }

    #[test]
    fn names_sort_by_index_and_parse_back() {
        let a = LogName { index: 2, date: jiff::civil::date(2025, 5, 1) };
        assert_eq!(a.file_name(), "audit-000002-2025-05-01.jsonl");
        assert_eq!(LogName::parse(&a.file_name()), Some(a.clone()));
        assert_eq!(LogName::parse("audit-000002-2025-05-01.jsonl.torn-at-5"), None);
        assert_eq!(LogName::parse("audit-2-2025-05-01.jsonl"), None);
        assert_eq!(LogName::parse("audit-000002-2025-13-01.jsonl"), None);
        let aside = torn_aside_name("audit-000002-2025-05-01.jsonl", 5, &"ab".repeat(32));
        assert_eq!(aside, "audit-000002-2025-05-01.jsonl.torn-at-5-abababababab");
        assert_eq!(parse_torn_aside(&aside), Some(("audit-000002-2025-05-01.jsonl", 5)));
        assert_eq!(parse_torn_aside("audit-000002-2025-05-01.jsonl.torn-at-5"), None);
        let lines = split_lines(b"a\nbb\ncc");
        assert_eq!(lines.complete, vec![(0, &b"a"[..]), (2, &b"bb"[..])]);
        assert_eq!(lines.tail, Some((5, &b"cc"[..])));
        assert!(split_lines(b"a\n").tail.is_none());
    }
}
