//! The lexicon fingerprint that word-game tools publish for official lists.
//!
//! For each word, code its letters as bytes A=5 … Z=30, take the MD5 digest of
//! those bytes, and XOR the digests of all words together. The result does not
//! depend on word order or file format, so anyone can compare a lexicon file
//! with the published value for an official lexicon, letter for letter.
//! MD5 is not used for secrecy here; integrity of our own files is SHA-256's job.
//!
//! It is **not evidence of identity**: XOR of digests is linear over GF(2),
//! so anyone can add chosen words to a list and balance it back to any
//! fingerprint with a few dozen junk words found by Gaussian elimination (the
//! tests do exactly that to CSW15). The station shows it so people can compare
//! with other tools; what makes a list *Verified official* is the pinned
//! SHA-256 content digest (see `lexicon::official`).

use md5::{Digest, Md5};
use std::fmt;
use std::str::FromStr;

/// An order-independent fingerprint of a set of words (16 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fingerprint([u8; 16]);

impl Fingerprint {
    /// The fingerprint of no words at all (all zero bytes).
    pub const EMPTY: Fingerprint = Fingerprint([0; 16]);

    /// Adds (XORs in) one word. `word` must be uppercase A–Z.
    pub fn add(&mut self, word: &[u8]) {
        let mut coded = [0u8; 64];
        let digest = if word.len() <= coded.len() {
            for (c, &letter) in coded.iter_mut().zip(word) {
                *c = letter.wrapping_sub(b'A').wrapping_add(5);
            }
            Md5::digest(&coded[..word.len()])
        } else {
            Md5::digest(word.iter().map(|&l| l.wrapping_sub(b'A').wrapping_add(5)).collect::<Vec<u8>>())
        };
        for (acc, byte) in self.0.iter_mut().zip(digest.iter()) {
            *acc ^= byte;
        }
    }

    /// Combines two fingerprints of disjoint word sets.
    pub fn combine(&mut self, other: &Fingerprint) {
        for (acc, byte) in self.0.iter_mut().zip(other.0.iter()) {
            *acc ^= byte;
        }
    }

    /// The fingerprint of all `words`.
    pub fn of_words<'a, I: IntoIterator<Item = &'a [u8]>>(words: I) -> Fingerprint {
        let mut fp = Fingerprint::EMPTY;
        for word in words {
            fp.add(word);
        }
        fp
    }

    /// The first 8 hex digits: the form in which fingerprints are published.
    pub fn short(&self) -> String {
        self.to_string()[..8].to_string()
    }

    /// True when a published value (8 to 32 hex digits, any case) is a prefix
    /// of this fingerprint. Published values are usually 8 digits long.
    pub fn matches_published(&self, published: &str) -> bool {
        let published = published.trim().to_ascii_lowercase();
        published.len() >= 8 && self.to_string().starts_with(&published)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// A string that is not 32 hex digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadFingerprint(pub String);

impl fmt::Display for BadFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a fingerprint (32 hex digits)", self.0)
    }
}

impl std::error::Error for BadFingerprint {}

impl FromStr for Fingerprint {
    type Err = BadFingerprint;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadFingerprint(s.to_string());
        if s.len() != 32 || !s.is_ascii() {
            return Err(bad());
        }
        let mut bytes = [0u8; 16];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Fingerprint(bytes))
    }
}

impl serde::Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Fingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coding_is_a_equals_5() {
        // MD5 of the single byte 5 is the fingerprint of the list ["A"].
        let expected = Md5::digest([5u8]);
        let fp = Fingerprint::of_words([b"A".as_slice()]);
        assert_eq!(fp.0.as_slice(), expected.as_slice());
    }

    #[test]
    fn order_independent_and_self_cancelling() {
        let a = Fingerprint::of_words([b"CAT".as_slice(), b"DOG", b"QI"]);
        let b = Fingerprint::of_words([b"QI".as_slice(), b"CAT", b"DOG"]);
        assert_eq!(a, b);
        let mut c = a;
        c.add(b"QI");
        assert_eq!(c, Fingerprint::of_words([b"CAT".as_slice(), b"DOG"]));
        assert_ne!(a, Fingerprint::EMPTY);
    }

    #[test]
    fn round_trips_and_matches_prefix() {
        let fp = Fingerprint::of_words([b"ZA".as_slice()]);
        let text = fp.to_string();
        assert_eq!(text.len(), 32);
        assert_eq!(text.parse::<Fingerprint>().unwrap(), fp);
        assert!(fp.matches_published(&fp.short()));
        assert!(fp.matches_published(&fp.short().to_uppercase()));
        assert!(!fp.matches_published("0000000"));
        assert!(!fp.matches_published(""));
        assert!("xyz".parse::<Fingerprint>().is_err());
    }
}
