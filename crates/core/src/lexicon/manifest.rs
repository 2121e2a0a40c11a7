//! The manifest beside each compiled lexicon (`NAME.fst.toml`): what the .fst
//! holds and where it came from (word file, its SHA-256, build time, tool),
//! written for people.
//!
//! It is **informative only**. Nothing a station shows or decides — status,
//! fingerprint, whether a lexicon may judge — is taken from it: those are
//! computed from the bytes that judge (see [`super`]), because a manifest is
//! an editable file and a claim is not evidence. `lexicon info` prints it and
//! says whether it describes the installed bytes.

use super::content::ContentFacts;
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
    /// SHA-256 of the sorted words, one per line (see [`super::content`]).
    /// Absent in manifests written before it existed.
    #[serde(default)]
    pub content_sha256: Option<String>,
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

/// Why a manifest's text was not read. It is informative only, so this is
/// shown, never acted on; the TOML error stays the cause.
#[derive(Debug)]
pub enum ManifestError {
    /// Not TOML, or not a manifest's fields.
    Toml(toml::de::Error),
    /// A format version this wordjudge does not read.
    Format { found: u32 },
    /// `count_by_length` without one entry per length 0..=MAX_LEN.
    Counts { found: usize },
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestError::Toml(e) => f.write_str(e.message()),
            ManifestError::Format { found } => {
                write!(f, "manifest format {found} is not the format {MANIFEST_FORMAT} this wordjudge reads")
            }
            ManifestError::Counts { .. } => {
                write!(f, "count_by_length must have {} entries (lengths 0 to {MAX_LEN})", MAX_LEN + 1)
            }
        }
    }
}

impl std::error::Error for ManifestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ManifestError::Toml(e) => Some(e),
            _ => None,
        }
    }
}

impl Manifest {
    /// Parses a manifest's text.
    pub fn from_toml(text: &str) -> Result<Manifest, ManifestError> {
        let manifest: Manifest = toml::from_str(text).map_err(ManifestError::Toml)?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(ManifestError::Format { found: manifest.format });
        }
        if manifest.count_by_length.len() != MAX_LEN + 1 {
            return Err(ManifestError::Counts { found: manifest.count_by_length.len() });
        }
        Ok(manifest)
    }

    /// Builds a manifest for `facts` of the .fst `fst_file` whose bytes hash to `fst_sha256`.
    pub fn describe(
        facts: &ContentFacts,
        fst_file: &str,
        fst_sha256: String,
        source_file: &str,
        source_sha256: &str,
    ) -> Manifest {
        let (shortest, longest) = facts.length_range();
        Manifest {
            format: MANIFEST_FORMAT,
            fst_file: fst_file.to_string(),
            fst_sha256,
            fingerprint: facts.fingerprint,
            content_sha256: Some(facts.content_sha256.clone()),
            word_count: facts.word_count,
            shortest,
            longest,
            count_by_length: facts.count_by_length.clone(),
            source_file: source_file.to_string(),
            source_sha256: source_sha256.to_string(),
            built_at: jiff::Timestamp::now()
                .round(jiff::Unit::Second)
                .unwrap_or_else(|_| jiff::Timestamp::now())
                .to_string(),
            tool_version: concat!("wordjudge ", env!("CARGO_PKG_VERSION")).to_string(),
        }
    }

    /// The manifest as TOML text.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a manifest always serializes");
        format!("# wordjudge lexicon manifest: describes the .fst beside it. Informative only: the station computes everything it shows from the .fst itself.\n{body}")
    }
}
