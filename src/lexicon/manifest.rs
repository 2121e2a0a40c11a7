//! The manifest beside each compiled lexicon (`NAME.fst.toml`): what the .fst
//! holds and where it came from, so a director can tell one file from another
//! and the kiosk can refuse a file that changed after it was built.

use crate::fingerprint::Fingerprint;
use crate::word::MAX_LEN;
use serde::{Deserialize, Serialize};

/// The manifest format this build writes and reads.
pub const MANIFEST_FORMAT: u32 = 1;

/// Everything known about one compiled .fst.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Manifest format version ([`MANIFEST_FORMAT`]).
    pub format: u32,
    /// File name of the .fst this manifest describes (no directory).
    pub fst_file: String,
    /// SHA-256 of the .fst bytes, lowercase hex.
    pub fst_sha256: String,
    /// Lexicon fingerprint of the words (see [`crate::fingerprint`]).
    pub fingerprint: Fingerprint,
    /// Number of words.
    pub word_count: u64,
    /// Length of the shortest word.
    pub shortest: usize,
    /// Length of the longest word.
    pub longest: usize,
    /// `count_by_length[n]` is the number of words of `n` letters (n = 0..=15).
    pub count_by_length: Vec<u64>,
    /// File name of the word list it was built from.
    pub source_file: String,
    /// SHA-256 of the word list's bytes, lowercase hex.
    pub source_sha256: String,
    /// When it was built (RFC 3339, UTC).
    pub built_at: String,
    /// The tool that built it (`wordjudge X.Y.Z`).
    pub tool_version: String,
}

/// What a scan over a word set finds: the numbers a manifest records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordStats {
    pub fingerprint: Fingerprint,
    pub word_count: u64,
    pub count_by_length: Vec<u64>,
}

impl Default for WordStats {
    fn default() -> Self {
        WordStats { fingerprint: Fingerprint::EMPTY, word_count: 0, count_by_length: vec![0; MAX_LEN + 1] }
    }
}

impl WordStats {
    /// Counts one word (uppercase A–Z, at most [`MAX_LEN`] letters).
    pub fn add(&mut self, word: &[u8]) {
        self.fingerprint.add(word);
        self.word_count += 1;
        if let Some(slot) = self.count_by_length.get_mut(word.len()) {
            *slot += 1;
        }
    }

    /// Shortest and longest word length (0, 0 for no words).
    pub fn length_range(&self) -> (usize, usize) {
        let mut lengths = self.count_by_length.iter().enumerate().filter(|(_, &n)| n > 0).map(|(len, _)| len);
        let shortest = lengths.next().unwrap_or(0);
        let longest = lengths.last().unwrap_or(shortest);
        (shortest, longest)
    }

    /// Whether a manifest's recorded numbers agree with this scan.
    pub fn matches(&self, manifest: &Manifest) -> bool {
        let (shortest, longest) = self.length_range();
        self.fingerprint == manifest.fingerprint
            && self.word_count == manifest.word_count
            && self.count_by_length == manifest.count_by_length
            && shortest == manifest.shortest
            && longest == manifest.longest
    }
}

impl Manifest {
    /// Parses a manifest's text.
    pub fn from_toml(text: &str) -> Result<Manifest, String> {
        let manifest: Manifest = toml::from_str(text).map_err(|e| e.message().to_string())?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(format!(
                "manifest format {} is not the format {MANIFEST_FORMAT} this wordjudge reads",
                manifest.format
            ));
        }
        if manifest.count_by_length.len() != MAX_LEN + 1 {
            return Err(format!("count_by_length must have {} entries (lengths 0 to {MAX_LEN})", MAX_LEN + 1));
        }
        Ok(manifest)
    }

    /// The manifest as TOML text.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a manifest always serializes");
        format!("# wordjudge lexicon manifest: describes the .fst beside it. Do not edit.\n{body}")
    }
}
