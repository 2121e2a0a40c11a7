//! One layer of a lexicon: a verified private copy of an .fst and the facts
//! established from its bytes (by its pin, or by reading every word back).

use super::content::{ContentFacts, ContentScan};
use super::definition::LayerDefinition;
use super::official::Pin;
use super::source::SourceWatch;
use super::LexiconError;
use crate::fingerprint::Fingerprint;
use crate::word::{MAX_LEN, MIN_LEN};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Bytes behind an fst set: a private copy of a file, or bytes built into the binary.
pub enum LexiconBytes {
    Owned(Vec<u8>),
    BuiltIn(&'static [u8]),
}

impl AsRef<[u8]> for LexiconBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            LexiconBytes::Owned(v) => v,
            LexiconBytes::BuiltIn(b) => b,
        }
    }
}

/// How a layer's content facts were established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Proof {
    /// The .fst bytes equal the pinned build of an official list, so its
    /// content is the pinned content.
    PinnedFst,
    /// Every word was read back and the digest recomputed.
    FullRead,
}

/// One opened layer: a verified private copy and what it holds.
pub struct Layer {
    /// What the definition says of it.
    pub definition: LayerDefinition,
    /// Where it came from (for messages and the director).
    pub path: PathBuf,
    pub(super) fst_sha256: String,
    pub(super) facts: ContentFacts,
    pub(super) proof: Proof,
    pub(super) watch: Option<SourceWatch>,
    pub(super) set: fst::Set<LexiconBytes>,
}

impl Layer {
    /// Checks `bytes` (whose SHA-256 is `sha256`) as an fst set of words and
    /// establishes its content, by `pin` when the bytes are its pinned build.
    pub fn open(
        definition: LayerDefinition,
        path: PathBuf,
        bytes: LexiconBytes,
        sha256: String,
        pin: Option<&Pin>,
    ) -> Result<Layer, LexiconError> {
        let bad = |e: fst::Error| LexiconError::BadFst { path: path.clone(), problem: e.to_string() };
        let set = fst::Set::new(bytes).map_err(bad)?;
        let pinned = pin.filter(|pin| !pin.fst_sha256.is_empty() && pin.fst_sha256 == sha256);
        // The fst's own checksum over every byte: malformed structure must
        // never reach a lookup. Bytes whose SHA-256 is a pinned build's are
        // that build, whose checksum was checked when it was pinned (the
        // real-data tests rebuild each pin from its list): a second pass
        // over them would find nothing the digest has not, and costs a
        // third of a command-line judge's time.
        if pinned.is_none() {
            set.as_fst().verify().map_err(bad)?;
        }
        let (facts, proof) = match pinned {
            Some(pin) => {
                let facts = ContentFacts {
                    content_sha256: pin.content_sha256.to_string(),
                    fingerprint: pin.fingerprint.parse().map_err(|e| LexiconError::BadFst {
                        path: path.clone(),
                        problem: format!("pinned fingerprint: {e}"),
                    })?,
                    word_count: pin.word_count,
                    count_by_length: Vec::new(),
                };
                (facts, Proof::PinnedFst)
            }
            _ => (scan_words(&set, &path)?, Proof::FullRead),
        };
        if set.len() as u64 != facts.word_count {
            return Err(LexiconError::BadFst {
                path,
                problem: format!("{} keys, but its content has {} words", set.len(), facts.word_count),
            });
        }
        Ok(Layer { definition, path, fst_sha256: sha256, facts, proof, watch: None, set })
    }

    /// Whether this layer accepts `word` (uppercase A–Z). Both the length rule
    /// and the set are always consulted (no short-circuit), and nothing is allocated.
    pub fn accepts(&self, word: &str) -> bool {
        let admitted = self.definition.admits_length(word.len());
        let found = self.set.contains(word);
        admitted & found
    }

    /// SHA-256 of the bytes that judge (lowercase hex).
    pub fn fst_sha256(&self) -> &str {
        &self.fst_sha256
    }

    /// Content digest, fingerprint and word count of the bytes that judge.
    /// (`count_by_length` is empty when a pin proved the content; see [`Layer::scan`].)
    pub fn facts(&self) -> &ContentFacts {
        &self.facts
    }

    /// How [`Layer::facts`] were established.
    pub fn proof(&self) -> Proof {
        self.proof
    }

    /// The fingerprint of the layer's words.
    pub fn fingerprint(&self) -> Fingerprint {
        self.facts.fingerprint
    }

    /// Reads every word back and returns full facts (counts per length too).
    /// For `lexicon info`; about 60 ms for CSW15.
    pub fn scan(&self) -> Result<ContentFacts, LexiconError> {
        scan_words(&self.set, &self.path)
    }

    /// The underlying set (for tools that walk every word).
    pub fn set(&self) -> &fst::Set<LexiconBytes> {
        &self.set
    }
}

/// Reads every key of `set` back, checking each is a word, into content facts.
/// A panic inside the fst crate (possible only for crafted bytes that pass its
/// checksum) is caught and reported as a corrupt file.
fn scan_words(set: &fst::Set<LexiconBytes>, path: &Path) -> Result<ContentFacts, LexiconError> {
    let walk = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        use fst::Streamer;
        let mut scan = ContentScan::default();
        let mut stream = set.stream();
        while let Some(word) = stream.next() {
            if !(MIN_LEN..=MAX_LEN).contains(&word.len()) || !word.iter().all(u8::is_ascii_uppercase) {
                return Err(format!(
                    "holds {:?}, which is not a word of {MIN_LEN}-{MAX_LEN} letters A-Z",
                    String::from_utf8_lossy(&word[..word.len().min(40)])
                ));
            }
            scan.add(word);
        }
        Ok(scan.finish())
    }));
    match walk {
        Ok(Ok(facts)) => Ok(facts),
        Ok(Err(problem)) => Err(LexiconError::NotWords { path: path.to_path_buf(), problem }),
        Err(_) => Err(LexiconError::BadFst { path: path.to_path_buf(), problem: "malformed structure".into() }),
    }
}
