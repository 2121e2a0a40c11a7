//! The fingerprint of a station's checkpoint key: one form on screen, on the
//! command line and in the log's messages (`3F2A-91C0-7D1E-44B2`), and the
//! fingerprint a director noted at set-up, read in any spelling. Apart from
//! the key and its notes ([`super::checkpoint`]) because a director compares
//! these by eye, and their rules are about people, not signatures.

use crate::digest::sha256_hex;
use ed25519_dalek::VerifyingKey;
use std::fmt;

/// SHA-256 of a 32-byte public key, hex: what the director menu and
/// `audit export` show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFingerprint(pub String);

impl KeyFingerprint {
    pub fn of(key: &VerifyingKey) -> KeyFingerprint {
        KeyFingerprint(sha256_hex(key.as_bytes()))
    }

    /// The first 64 bits in four groups (`3F2A-91C0-7D1E-44B2`), enough to
    /// compare by eye with a copy. The one form a key fingerprint takes on
    /// screen, on the command line and in the log's messages: a director
    /// compares what the menu showed at set-up with what `audit verify`
    /// prints, and two spellings of one key invite a misreading.
    pub fn short(&self) -> String {
        grouped(self.0.get(..SHORT_DIGITS).unwrap_or(&self.0))
    }
}

/// Hex digits of a fingerprint shown and noted: 64 bits.
const SHORT_DIGITS: usize = 16;

/// Hex digits uppercase in groups of four joined by `-` (`3F2A-91C0`).
fn grouped(hex: &str) -> String {
    let hex = hex.to_ascii_uppercase();
    let digits: Vec<char> = hex.chars().collect();
    digits.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("-")
}

/// A key fingerprint as a director noted it at set-up (from the director
/// menu's "Station key code" line, kept off the station): the only thing
/// that ties a key to the station, since a key beside a log proves nothing.
/// Read in the grouped form the station shows (`3C37-CA65-132D-CD46`), or
/// without dashes, in either case, or the full 64 digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotedFingerprint {
    /// Lowercase hex digits, 16 to 64 of them.
    hex: String,
}

/// Why a noted fingerprint cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FingerprintError {
    /// A character that is neither a hex digit nor a separator.
    NotHex { given: String },
    /// Fewer than 16 or more than 64 hex digits.
    Length { given: String, digits: usize },
}

impl fmt::Display for FingerprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (given, why) = match self {
            FingerprintError::NotHex { given } => {
                (given, "has characters other than hex digits and dashes".to_string())
            }
            FingerprintError::Length { given, digits } => (given, format!("has {digits} hex digits, not 16")),
        };
        write!(
            f,
            "the station key code {} {why}: give the code noted at set-up as the director menu shows it \
             (\"Station key code\", e.g. 3C37-CA65-132D-CD46)",
            crate::word::quote(given)
        )
    }
}

impl std::error::Error for FingerprintError {}

impl NotedFingerprint {
    /// Reads a noted fingerprint; dashes, spaces and colons between digits
    /// are ignored, case does not matter.
    pub fn parse(text: &str) -> Result<NotedFingerprint, FingerprintError> {
        let given = || text.to_string();
        let mut hex = String::new();
        for c in text.trim().chars() {
            match c {
                '-' | ' ' | ':' => {}
                c if c.is_ascii_hexdigit() => hex.push(c.to_ascii_lowercase()),
                _ => return Err(FingerprintError::NotHex { given: given() }),
            }
        }
        if !(SHORT_DIGITS..=64).contains(&hex.len()) {
            return Err(FingerprintError::Length { given: given(), digits: hex.len() });
        }
        Ok(NotedFingerprint { hex })
    }

    /// Whether `key` is the noted key (its fingerprint begins with the
    /// noted digits).
    pub fn matches(&self, key: &KeyFingerprint) -> bool {
        key.0.to_ascii_lowercase().starts_with(&self.hex)
    }
}

impl fmt::Display for NotedFingerprint {
    /// As [`KeyFingerprint::short`] shows it (all digits noted, grouped).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&grouped(&self.hex))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_is_shown_one_way_and_read_in_any_spelling() {
        let key = KeyFingerprint(format!("3c37ca65132dcd46{}", "0".repeat(48)));
        assert_eq!(key.short(), "3C37-CA65-132D-CD46");
        for spelling in
            ["3C37-CA65-132D-CD46", "3C37CA65132DCD46", "3c37-ca65-132d-cd46", " 3c37 ca65 132d cd46 ", &key.0]
        {
            let noted = NotedFingerprint::parse(spelling).unwrap();
            assert!(noted.matches(&key), "{spelling}");
        }
        assert_eq!(NotedFingerprint::parse("3c37ca65132dcd46").unwrap().to_string(), key.short());
        assert!(!NotedFingerprint::parse("3C37-CA65-132D-CD47").unwrap().matches(&key));
        let short = NotedFingerprint::parse("3C37-CA65").unwrap_err();
        assert_eq!(short, FingerprintError::Length { given: "3C37-CA65".into(), digits: 8 });
        assert!(short.to_string().contains("3C37-CA65-132D-CD46"), "{short}");
        let bad = NotedFingerprint::parse("3C37-CA65-132D-CDXY\u{1b}[2J").unwrap_err();
        assert!(matches!(bad, FingerprintError::NotHex { .. }), "{bad:?}");
        assert!(!bad.to_string().contains('\u{1b}'), "quoted escaped: {bad}");
    }
}
