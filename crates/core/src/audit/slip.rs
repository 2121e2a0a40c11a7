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
//!
//! A code copied wrong by a character or two, or with two neighbours
//! swapped, is told apart from one that differs more
//! ([`SlipCode::copying_errors`]): that is what a hand does, but it is also
//! within a forger's cheap reach (about 2^40 / 27,156 ≈ 4 × 10^7 attempts
//! land that close to a given code), so a near miss is still a mismatch,
//! worded so the director checks the slip.

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
    spec.translate.to.push_str("ABCDEFGHJKMNPQRSTVWXYZ001111");
    spec.ignore.push_str("- ");
    spec.encoding().expect("Crockford base32 is a valid data-encoding specification")
});

/// Pairs of characters of [`ALPHABET`] that handwriting confuses. `O`, `I`
/// and `L` need none: they are read as `0` and `1`. `U` (for `V`) is no
/// code's character and is refused as typed.
pub const LOOK_ALIKES: &[(char, char)] = &[('5', 'S'), ('8', 'B'), ('2', 'Z'), ('6', 'G')];

/// Whether handwriting confuses `a` and `b` (see [`LOOK_ALIKES`]).
pub fn look_alike(a: char, b: char) -> bool {
    LOOK_ALIKES.iter().any(|&(x, y)| (a, b) == (x, y) || (a, b) == (y, x))
}

/// One way a code as copied differs from the code shown, as a hand copies
/// wrong. `index` counts from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyingError {
    /// `copied` written where the code has `shown`; `look_alike` when
    /// handwriting confuses the two (5/S, 8/B, 2/Z, 6/G).
    Substituted { index: usize, copied: char, shown: char, look_alike: bool },
    /// The characters at `index` and `index + 1` written in the wrong order.
    Swapped { index: usize },
}

impl fmt::Display for CopyingError {
    /// Positions counted from 1, as a person counts them on the slip.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CopyingError::Substituted { index, copied, shown, look_alike: false } => {
                write!(f, "{copied} for {shown} at character {}", index + 1)
            }
            CopyingError::Substituted { index, copied, shown, look_alike: true } => {
                write!(f, "{copied} for its look-alike {shown} at character {}", index + 1)
            }
            CopyingError::Swapped { index } => write!(f, "characters {} and {} swapped", index + 1, index + 2),
        }
    }
}

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
        let bytes =
            CROCKFORD.decode(text.trim().as_bytes()).map_err(|_| SlipError::BadCode { text: text.to_string() })?;
        if bytes.len() != CODE_BITS as usize / 8 {
            return Err(SlipError::BadCode { text: text.to_string() });
        }
        Ok(SlipCode(CROCKFORD.encode(&bytes)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// How this code, as copied onto a slip, differs from `shown` when the
    /// difference is what a copying error makes: one or two characters
    /// written for others (look-alikes or not), or two neighbours swapped.
    /// `None` when the codes are the same or differ in more places.
    pub fn copying_errors(&self, shown: &SlipCode) -> Option<Vec<CopyingError>> {
        let copied: Vec<char> = self.0.chars().collect();
        let shown: Vec<char> = shown.0.chars().collect();
        if copied.len() != shown.len() {
            return None;
        }
        let differ: Vec<usize> = (0..copied.len()).filter(|&i| copied[i] != shown[i]).collect();
        let substituted = |index: usize| CopyingError::Substituted {
            index,
            copied: copied[index],
            shown: shown[index],
            look_alike: look_alike(copied[index], shown[index]),
        };
        match differ[..] {
            [i] => Some(vec![substituted(i)]),
            [i, j] if j == i + 1 && copied[i] == shown[j] && copied[j] == shown[i] => {
                Some(vec![CopyingError::Swapped { index: i }])
            }
            [i, j] => Some(vec![substituted(i), substituted(j)]),
            _ => None,
        }
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
        let (number, code) =
            text.trim().split_once('=').ok_or_else(|| SlipError::BadSlip { text: text.to_string() })?;
        let challenge =
            number.trim().trim_start_matches('#').parse().map_err(|_| SlipError::BadSlip { text: text.to_string() })?;
        Ok(Slip { challenge, code: SlipCode::parse(code)? })
    }

    /// Slips from a file's text: one per line; blank lines and `#` comments
    /// (a `#` followed by a space or at the line's end) are skipped.
    pub fn parse_list(text: &str) -> Result<Vec<Slip>, SlipError> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("# ") && *l != "#")
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

    fn code(text: &str) -> SlipCode {
        SlipCode::parse(text).unwrap()
    }

    #[test]
    fn one_or_two_characters_or_two_neighbours_swapped_are_copying_errors() {
        let shown = code("T3AS849W");
        assert_eq!(shown.copying_errors(&shown), None, "the same code is no error");
        // One substitution.
        assert_eq!(
            code("T3AS849X").copying_errors(&shown),
            Some(vec![CopyingError::Substituted { index: 7, copied: 'X', shown: 'W', look_alike: false }])
        );
        // Two, anywhere.
        assert_eq!(
            code("K3AS84QW").copying_errors(&shown),
            Some(vec![
                CopyingError::Substituted { index: 0, copied: 'K', shown: 'T', look_alike: false },
                CopyingError::Substituted { index: 6, copied: 'Q', shown: '9', look_alike: false },
            ])
        );
        // Two neighbours swapped: one error, not two substitutions.
        assert_eq!(code("T3SA849W").copying_errors(&shown), Some(vec![CopyingError::Swapped { index: 2 }]));
        assert_eq!(code("3TAS849W").copying_errors(&shown), Some(vec![CopyingError::Swapped { index: 0 }]));
        // Neighbours that differ but are not each other's: substitutions.
        assert!(matches!(
            code("T3AT849W").copying_errors(&shown).as_deref(),
            Some([CopyingError::Substituted { index: 3, .. }])
        ));
        assert!(matches!(
            code("T3BT849W").copying_errors(&shown).as_deref(),
            Some([CopyingError::Substituted { index: 2, .. }, CopyingError::Substituted { index: 3, .. }])
        ));
        // Swapped far apart: two substitutions, still near.
        assert_eq!(code("W3AS849T").copying_errors(&shown).map(|e| e.len()), Some(2));
        // Three differences, or a swap and a substitution, are not a near miss.
        assert_eq!(code("X3AS8Y9Z").copying_errors(&shown), None);
        assert_eq!(code("T3SA849X").copying_errors(&shown), None);
        assert_eq!(code("3TA5849W").copying_errors(&shown), None);
        assert_eq!(code("00000000").copying_errors(&shown), None);
    }

    #[test]
    fn look_alikes_are_named_and_o_i_l_are_no_error_at_all() {
        let shown = code("T3AS849W");
        assert_eq!(
            code("T3A5849W").copying_errors(&shown),
            Some(vec![CopyingError::Substituted { index: 3, copied: '5', shown: 'S', look_alike: true }])
        );
        for (copied, shown) in [("B", "8"), ("8", "B"), ("Z", "2"), ("2", "Z"), ("G", "6"), ("6", "G"), ("S", "5")] {
            let errors = code(&format!("{copied}0000000")).copying_errors(&code(&format!("{shown}0000000")));
            assert!(
                matches!(errors.as_deref(), Some([CopyingError::Substituted { look_alike: true, .. }])),
                "{copied} for {shown}: {errors:?}"
            );
        }
        assert!(!look_alike('5', 'B'));
        // Two look-alikes are as near as two other substitutions; three are not.
        assert_eq!(code("T3A5B49W").copying_errors(&shown).map(|e| e.len()), Some(2));
        assert_eq!(code("T3A5B29W").copying_errors(&code("T3AS8Z9W")), None);
        // O, I and L are read as 0 and 1: the slip matches outright.
        assert_eq!(code("T3ASB4OW"), code("T3ASB40W"));
        assert_eq!(code("TIAS849W"), code("T1AS849W"));
        assert_eq!(code("TlAS849W"), code("T1AS849W"));
        assert_eq!(code("TiAS849W"), code("T1AS849W"), "a lower-case i is a 1 too, not a 0");
        assert_eq!(code("oOiIlL00").as_str(), "00111100");
        // U is no code's character: refused as typed, never a near miss.
        assert!(SlipCode::parse("T3AS849U").is_err());
        // In words, positions counted from 1.
        let words = |copied: &str| code(copied).copying_errors(&shown).unwrap()[0].to_string();
        assert_eq!(words("T3A5849W"), "5 for its look-alike S at character 4");
        assert_eq!(words("T3AS849X"), "X for W at character 8");
        assert_eq!(words("T3SA849W"), "characters 3 and 4 swapped");
    }
}
