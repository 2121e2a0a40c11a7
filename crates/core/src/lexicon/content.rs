//! What a word set *is*, computed from its words: the canonical content
//! digest, the published-style fingerprint and the counts.
//!
//! The content digest is SHA-256 over the sorted unique words, each followed
//! by `\n` (uppercase A–Z). It does not depend on how the list was stored
//! (text file, .fst from any builder), so it can be pinned for an official
//! list ([`super::official::Pin`]) and recomputed from any file claiming to
//! be it. Words must be fed in sorted order without repeats, which both a
//! parsed word list and an fst stream guarantee.

use crate::digest::hex;
use crate::fingerprint::Fingerprint;
use crate::word::MAX_LEN;
use sha2::{Digest, Sha256};

/// The numbers and digests of one word set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentFacts {
    /// SHA-256 of the sorted unique words, each followed by `\n` (hex).
    pub content_sha256: String,
    /// The published-style fingerprint (XOR of per-word MD5s).
    pub fingerprint: Fingerprint,
    /// Number of words.
    pub word_count: u64,
    /// `count_by_length[n]` is the number of words of `n` letters (0..=15);
    /// empty when the facts come from a pin rather than a scan.
    pub count_by_length: Vec<u64>,
}

impl ContentFacts {
    /// Shortest and longest word length ((0, 0) when unknown or empty).
    pub fn length_range(&self) -> (usize, usize) {
        let mut lengths = self.count_by_length.iter().enumerate().filter(|(_, &n)| n > 0).map(|(len, _)| len);
        let shortest = lengths.next().unwrap_or(0);
        let longest = lengths.next_back().unwrap_or(shortest);
        (shortest, longest)
    }
}

/// Accumulates [`ContentFacts`] over words given in sorted order.
pub struct ContentScan {
    digest: Sha256,
    fingerprint: Fingerprint,
    word_count: u64,
    count_by_length: Vec<u64>,
}

impl Default for ContentScan {
    fn default() -> Self {
        ContentScan {
            digest: Sha256::new(),
            fingerprint: Fingerprint::EMPTY,
            word_count: 0,
            count_by_length: vec![0; MAX_LEN + 1],
        }
    }
}

impl ContentScan {
    /// Counts one word (uppercase A–Z; the next word must sort after it).
    pub fn add(&mut self, word: &[u8]) {
        self.digest.update(word);
        self.digest.update(b"\n");
        self.fingerprint.add(word);
        self.word_count += 1;
        if let Some(slot) = self.count_by_length.get_mut(word.len()) {
            *slot += 1;
        }
    }

    /// The facts of every word added.
    pub fn finish(self) -> ContentFacts {
        ContentFacts {
            content_sha256: hex(&self.digest.finalize()),
            fingerprint: self.fingerprint,
            word_count: self.word_count,
            count_by_length: self.count_by_length,
        }
    }
}

/// The facts of sorted unique `words`.
pub fn facts_of<'a, I: IntoIterator<Item = &'a [u8]>>(words: I) -> ContentFacts {
    let mut scan = ContentScan::default();
    for word in words {
        scan.add(word);
    }
    scan.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;

    #[test]
    fn content_digest_is_sha256_of_words_one_per_line() {
        let facts = facts_of([b"CAT".as_slice(), b"QI", b"ZA"]);
        assert_eq!(facts.content_sha256, sha256_hex(b"CAT\nQI\nZA\n"));
        assert_eq!(facts.word_count, 3);
        assert_eq!(facts.length_range(), (2, 3));
        assert_eq!(facts.fingerprint, Fingerprint::of_words([b"ZA".as_slice(), b"QI", b"CAT"]));
    }
}
