//! The verification code on every verdict, for the slip.
//!
//! A code is the first 40 bits of a record's `line_sha256` (the chain head
//! right after that record, which covers the record and, through `prev`,
//! every record before it) written as 8 characters of Crockford base32:
//! digits and capital letters without I, L, O and U, so nothing on a
//! hand-copied slip can be misread (`O` is read as `0`, `I`/`L` as `1`,
//! lower case as upper case, and `-` or spaces are ignored when typed back).
//!
//! What it costs a forger: rewriting any record before a slip's record
//! changes that record's hash, and to match the slip again the forger must
//! find a rewrite whose hash agrees in all 40 bits: on average 2^39 ≈ 5.5 ×
//! 10^11 SHA-256 attempts per slip kept (2^40 ≈ 1.1 × 10^12 to be sure). At
//! about 10^7 attempts per second on one CPU core that is about 15 hours of
//! one core per slip; a GPU doing 10^10 per second needs about a minute. So
//! a slip stops casual and scripted rewrites, and makes a forger plan for it;
//! the full 256-bit head in a signed checkpoint copied off the station is the
//! strong anchor.

use data_encoding::{Encoding, Specification};
use std::fmt;
use std::sync::LazyLock;

/// Characters of a code.
pub const CODE_LEN: usize = 8;

/// Bits a code carries.
pub const CODE_BITS: u32 = 40;

/// Crockford's base32 alphabet.
pub const ALPHABET: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

static CROCKFORD: LazyLock<Encoding> = LazyLock::new(|| {
    let mut spec = Specification::new();
    spec.symbols.push_str(ALPHABET);
    spec.translate.from.push_str("abcdefghjkmnpqrstvwxyzoOiIlL");
    spec.translate.to.push_str("ABCDEFGHJKMNPQRSTVWXYZ000111");
    spec.ignore.push_str("- ");
    spec.encoding().expect("Crockford base32 is a valid data-encoding specification")
});

/// A slip code, always in its canonical form (8 characters of [`ALPHABET`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlipCode(String);

impl SlipCode {
    /// The code of a record whose `line_sha256` (lowercase hex) is `hash`.
    /// `None` when `hash` is not at least 10 hex digits.
    pub fn of_line_hash(hash: &str) -> Option<SlipCode> {
        let hex = hash.get(..10)?;
        let mut bytes = [0u8; 5];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(SlipCode(CROCKFORD.encode(&bytes)))
    }

    /// Reads a code as a person may have copied it (`k7q3-mxab`, `O` for
    /// `0`, …).
    pub fn parse(text: &str) -> Result<SlipCode, SlipError> {
        let bytes = CROCKFORD
            .decode(text.trim().as_bytes())
            .map_err(|_| SlipError::BadCode { text: text.to_string() })?;
        if bytes.len() != CODE_BITS as usize / 8 {
            return Err(SlipError::BadCode { text: text.to_string() });
        }
        Ok(SlipCode(CROCKFORD.encode(&bytes)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SlipCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a slip says: challenge `challenge` was shown with `code`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slip {
    pub challenge: u64,
    pub code: SlipCode,
}

impl Slip {
    /// Parses `42=K7Q3MXAB` (`#42=…` too).
    pub fn parse(text: &str) -> Result<Slip, SlipError> {
        let (number, code) = text.trim().split_once('=').ok_or_else(|| SlipError::BadSlip { text: text.to_string() })?;
        let challenge = number
            .trim()
            .trim_start_matches('#')
            .parse()
            .map_err(|_| SlipError::BadSlip { text: text.to_string() })?;
        Ok(Slip { challenge, code: SlipCode::parse(code)? })
    }

    /// Slips from a file's text: one per line; blank lines and `#` comments
    /// (a `#` followed by a space or at the line's end) are skipped.
    pub fn parse_list(text: &str) -> Result<Vec<Slip>, SlipError> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !(l.starts_with("# ") || *l == "#"))
            .map(Slip::parse)
            .collect()
    }
}

impl fmt::Display for Slip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.challenge, self.code)
    }
}

/// A slip or code that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlipError {
    BadCode { text: String },
    BadSlip { text: String },
}

impl fmt::Display for SlipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlipError::BadCode { text } => write!(
                f,
                "{text:?} is not a slip code: a code has {CODE_LEN} characters, digits and letters except I, L, O and U"
            ),
            SlipError::BadSlip { text } => {
                write!(f, "{text:?} is not a slip: write the challenge number, '=' and the code, e.g. 42=K7Q3MXAB")
            }
        }
    }
}

impl std::error::Error for SlipError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_eight_unambiguous_characters_and_read_back_leniently() {
        let code = SlipCode::of_line_hash(&"f0".repeat(32)).unwrap();
        assert_eq!(code.as_str().len(), CODE_LEN);
        assert!(code.as_str().chars().all(|c| ALPHABET.contains(c)));
        assert!(!code.as_str().contains(['I', 'L', 'O', 'U']));
        assert_eq!(SlipCode::of_line_hash(&"00".repeat(32)).unwrap().as_str(), "00000000");
        assert_eq!(SlipCode::of_line_hash(&"ff".repeat(32)).unwrap().as_str(), "ZZZZZZZZ");
        // Different hashes in the first 40 bits give different codes.
        let a = SlipCode::of_line_hash("0000000001").unwrap();
        assert_ne!(a, SlipCode::of_line_hash("0000000000").unwrap());
        assert_eq!(SlipCode::parse("0000-0001").unwrap(), a);
        assert_eq!(SlipCode::parse("oooo ooo1").unwrap(), a);
        assert_eq!(SlipCode::parse("OOOOOOOl").unwrap(), a);
        assert!(SlipCode::parse("0000000U").is_err());
        assert!(SlipCode::parse("0000001").is_err());
        assert!(SlipCode::of_line_hash("xyz").is_none());
        let slip = Slip::parse("#42 = k7q3mxab").unwrap();
        assert_eq!(slip.to_string(), "42=K7Q3MXAB");
        assert!(Slip::parse("42").is_err());
        assert_eq!(Slip::parse_list("# slips\n42=K7Q3MXAB\n\n7=00000000\n").unwrap().len(), 2);
    }
}
