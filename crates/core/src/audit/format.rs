//! The audit log on disk: file names, and lines that carry their own hash and
//! the hash of the line before.
//!
//! Every line is one JSON object ending in a seal:
//!
//! ```text
//! {"seq":7,"prev":"<line_sha256 of line 6>",…,"line_sha256":"<64 hex>","code":"K7Q3MXAB"}
//! ```
//!
//! * `line_sha256` is *the* hash of a line: the SHA-256 of the line up to
//!   (not including) the `,"line_sha256":"` that ends it. Everything after
//!   that point is a function of it, so it identifies the whole line. The
//!   same value is the next line's `prev`, journald's `WORDJUDGE_LINE_SHA256`
//!   and what `audit verify` prints: one hash per line, one name.
//! * `prev` is the previous line's `line_sha256`; the first line of the
//!   first file has [`GENESIS`] (64 zeros) and `seq` 1. The chain runs on
//!   across files. Because the seal covers `prev`, a line's hash is the chain
//!   head after it.
//! * `code` is the slip code of that hash ([`super::slip`]): 8 characters a
//!   player can copy from the verdict screen, and `grep` can find.
//!
//! A hash chain stops careless or casual edits and makes deletions and
//! reorderings visible; it cannot stop someone who rewrites the whole chain
//! from the edit onwards. Slip codes and signed checkpoints copied off the
//! station are what catch that ([`crate::inspect::verify()`]).
//!
//! Files are `audit-NNNNNN-YYYY-MM-DD.jsonl`: a running index (so they sort
//! in order even when the wall clock jumps back) and the local date the file
//! was started. A torn tail moved aside at recovery goes to
//! `<log file name>.torn-at-<byte offset>-<sha256 prefix>`.

use crate::digest::sha256_hex;
use jiff::civil::Date;
use std::path::{Path, PathBuf};

/// `prev` of the very first line of a log: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What precedes the seal's hex digits at the end of every line.
pub const SEAL_KEY: &str = ",\"line_sha256\":\"";

/// What follows the hex digits, before the code.
pub const CODE_KEY: &str = "\",\"code\":\"";

/// Length of the seal: key, 64 hex digits, code key, code, `"}`.
const SEAL_LEN: usize = SEAL_KEY.len() + 64 + CODE_KEY.len() + super::slip::CODE_LEN + 2;

/// Seals a JSON object's text (`{…}`, at least one member) into a line,
/// without the newline.
pub fn seal(object: &str) -> String {
    debug_assert!(object.starts_with('{') && object.ends_with('}') && object.len() > 2);
    let body = &object[..object.len() - 1];
    let digest = sha256_hex(body.as_bytes());
    let code = super::slip::SlipCode::of_line_hash(&digest).map(|c| c.to_string()).unwrap_or_default();
    format!("{body}{SEAL_KEY}{digest}{CODE_KEY}{code}\"}}")
}

/// Why a line is not a sealed audit line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealError {
    /// The line does not end in a `line_sha256` seal at all.
    Missing,
    /// The seal is there but does not match the line: it was edited.
    Mismatch,
}

/// The parts of a line that looks sealed: (body, hex, code).
fn split_seal(line: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    if line.len() < SEAL_LEN + 2 || line.first() != Some(&b'{') {
        return None;
    }
    let (body, seal) = line.split_at(line.len() - SEAL_LEN);
    let (key, rest) = seal.split_at(SEAL_KEY.len());
    let (hex, rest) = rest.split_at(64);
    let (code_key, rest) = rest.split_at(CODE_KEY.len());
    let (code, end) = rest.split_at(super::slip::CODE_LEN);
    let ok = key == SEAL_KEY.as_bytes()
        && code_key == CODE_KEY.as_bytes()
        && end == b"\"}"
        && hex.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
    ok.then_some((body, hex, code))
}

/// Checks a line's seal (the line without its newline): the hash and the
/// code both.
pub fn check_seal(line: &[u8]) -> Result<(), SealError> {
    sealed_line_hash(line).map(|_| ())
}

/// [`check_seal`], and the line's [`line_hash`] it computed on the way:
/// a reader of many lines hashes each once, not twice.
pub fn sealed_line_hash(line: &[u8]) -> Result<String, SealError> {
    let (body, hex, code) = split_seal(line).ok_or(SealError::Missing)?;
    let digest = sha256_hex(body);
    let expected_code = super::slip::SlipCode::of_line_hash(&digest).map(|c| c.to_string()).unwrap_or_default();
    if digest.as_bytes() == hex && expected_code.as_bytes() == code {
        Ok(digest)
    } else {
        Err(SealError::Mismatch)
    }
}

/// A line's `line_sha256`, computed (never read from the line): the SHA-256
/// of the line up to its seal. What the next line's `prev` must hold. A line
/// without a seal is hashed whole.
pub fn line_hash(line: &[u8]) -> String {
    match split_seal(line) {
        Some((body, _, _)) => sha256_hex(body),
        None => sha256_hex(line),
    }
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
    // An audit folder holds a file or two a day; a million entries is a
    // folder that is not one.
    for entry in crate::outside_files::list_named_folder(dir, 1_000_000)?.entries {
        let name = entry.name;
        match LogName::parse(&name) {
            Some(parsed) if entry.kind == crate::outside_files::EntryKind::File => logs.push((parsed, entry.path)),
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
