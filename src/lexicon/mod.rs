//! Lexicons: compiled word sets, opened from memory-mapped `.fst` files,
//! checked against their manifests before the first lookup, and layered as a
//! definition says.
//!
//! Opening gives one of five statuses. Only an opened [`Lexicon`] can judge,
//! and it refuses to while its status is [`Status::Mismatch`]; Corrupt and
//! Missing lexicons never open at all ([`LexiconError`]).

pub mod build;
pub mod catalog;
pub mod definition;
pub mod manifest;

use crate::fingerprint::Fingerprint;
use crate::word::{MAX_LEN, MIN_LEN};
use definition::{Definition, LayerDefinition};
use crate::digest::sha256_hex;
use manifest::{Manifest, WordStats};
use std::fmt;
use std::path::{Path, PathBuf};

/// The one status a lexicon has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Files intact and every layer's fingerprint equals the published one.
    VerifiedOfficial,
    /// Files intact; no published fingerprint to compare with.
    Verified,
    /// Files intact, but a layer is not the list its definition says it is.
    Mismatch,
    /// A file is damaged or does not match its manifest.
    Corrupt,
    /// A file is not installed.
    Missing,
}

impl Status {
    /// Whether a lexicon with this status may judge.
    pub fn can_judge(self) -> bool {
        matches!(self, Status::VerifiedOfficial | Status::Verified)
    }

    /// The wording shown to players and directors.
    pub fn label(self) -> &'static str {
        match self {
            Status::VerifiedOfficial => "Verified official",
            Status::Verified => "Verified",
            Status::Mismatch => "Mismatch",
            Status::Corrupt => "Corrupt",
            Status::Missing => "Missing",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How thoroughly to check a lexicon when opening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// SHA-256 of every .fst against its manifest, fst structure, word count.
    /// Milliseconds; the manifest's fingerprint is trusted once its hash holds.
    Quick,
    /// Quick, then every word is read back: letters, lengths, counts and the
    /// fingerprint are recomputed from the .fst itself and must equal the
    /// manifest's, so an edited manifest cannot pass off one list as another.
    Full,
}

/// Why a lexicon cannot be opened. Each names the file and the problem.
#[derive(Debug)]
pub enum LexiconError {
    /// No definition has this id.
    UnknownId { id: String, known: Vec<String> },
    /// The definition file is malformed.
    BadDefinition { path: PathBuf, problem: String },
    /// A layer's .fst is not installed.
    MissingFst { path: PathBuf },
    /// A layer's manifest is not there.
    MissingManifest { path: PathBuf },
    /// A manifest cannot be read or parsed.
    BadManifest { path: PathBuf, problem: String },
    /// A manifest describes a different .fst file.
    ManifestNamesOtherFile { path: PathBuf, names: String, expected: String },
    /// The .fst bytes are not the bytes the manifest describes.
    HashMismatch { path: PathBuf, expected: String, actual: String },
    /// The .fst is not a valid fst set.
    BadFst { path: PathBuf, problem: String },
    /// The .fst's words do not agree with its manifest (full verification).
    ContentMismatch { path: PathBuf, problem: String },
    /// Reading a file failed.
    Io { path: PathBuf, source: std::io::Error },
}

impl LexiconError {
    /// The status this error gives the lexicon.
    pub fn status(&self) -> Status {
        match self {
            LexiconError::UnknownId { .. } | LexiconError::MissingFst { .. } => Status::Missing,
            _ => Status::Corrupt,
        }
    }
}

impl fmt::Display for LexiconError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use LexiconError::*;
        match self {
            UnknownId { id, known } => {
                write!(f, "no lexicon has the id {id:?}; installed definitions: {}", known.join(", "))
            }
            BadDefinition { path, problem } => write!(f, "{}: bad lexicon definition: {problem}", path.display()),
            MissingFst { path } => write!(f, "{}: not installed (build it with `wordjudge lexicon build`)", path.display()),
            MissingManifest { path } => {
                write!(f, "{}: manifest missing; the .fst beside it cannot be verified", path.display())
            }
            BadManifest { path, problem } => write!(f, "{}: bad manifest: {problem}", path.display()),
            ManifestNamesOtherFile { path, names, expected } => write!(
                f,
                "{}: manifest describes {names:?}, not {expected:?}",
                path.display()
            ),
            HashMismatch { path, expected, actual } => write!(
                f,
                "{}: corrupt: SHA-256 is {actual}, manifest says {expected} (file changed, truncated or damaged)",
                path.display()
            ),
            BadFst { path, problem } => write!(f, "{}: corrupt: not a valid fst set: {problem}", path.display()),
            ContentMismatch { path, problem } => {
                write!(f, "{}: words do not match the manifest: {problem}", path.display())
            }
            Io { path, source } => write!(f, "{}: cannot read: {source}", path.display()),
        }
    }
}

impl std::error::Error for LexiconError {}

/// Bytes behind an fst set: a memory-mapped file, or bytes built into the binary.
pub enum LexiconBytes {
    Mapped(memmap2::Mmap),
    BuiltIn(&'static [u8]),
}

impl AsRef<[u8]> for LexiconBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            LexiconBytes::Mapped(m) => m,
            LexiconBytes::BuiltIn(b) => b,
        }
    }
}

/// One opened layer.
pub struct Layer {
    /// What the definition says of it.
    pub definition: LayerDefinition,
    /// Where it came from (for messages and the director).
    pub path: PathBuf,
    /// Its manifest, checked against the bytes.
    pub manifest: Manifest,
    set: fst::Set<LexiconBytes>,
}

impl Layer {
    /// Checks `bytes` against the manifest text and opens them.
    pub fn open(
        definition: LayerDefinition,
        path: PathBuf,
        bytes: LexiconBytes,
        manifest_text: &str,
        manifest_path: &Path,
        level: Verification,
    ) -> Result<Layer, LexiconError> {
        let manifest = Manifest::from_toml(manifest_text)
            .map_err(|problem| LexiconError::BadManifest { path: manifest_path.to_path_buf(), problem })?;
        if manifest.fst_file != definition.fst {
            return Err(LexiconError::ManifestNamesOtherFile {
                path: manifest_path.to_path_buf(),
                names: manifest.fst_file,
                expected: definition.fst,
            });
        }
        let actual = sha256_hex(bytes.as_ref());
        if actual != manifest.fst_sha256 {
            return Err(LexiconError::HashMismatch { path, expected: manifest.fst_sha256, actual });
        }
        let set = fst::Set::new(bytes).map_err(|e| LexiconError::BadFst { path: path.clone(), problem: e.to_string() })?;
        // The fst's own checksum: malformed structure must never reach a lookup.
        set.as_fst().verify().map_err(|e| LexiconError::BadFst { path: path.clone(), problem: e.to_string() })?;
        if set.len() as u64 != manifest.word_count {
            return Err(LexiconError::ContentMismatch {
                path,
                problem: format!("{} words, manifest says {}", set.len(), manifest.word_count),
            });
        }
        let layer = Layer { definition, path, manifest, set };
        if level == Verification::Full {
            layer.verify_words()?;
        }
        Ok(layer)
    }

    /// Reads every word back and recomputes what the manifest claims.
    fn verify_words(&self) -> Result<(), LexiconError> {
        use fst::Streamer;
        let mut stats = WordStats::default();
        let mut stream = self.set.stream();
        while let Some(word) = stream.next() {
            if !(MIN_LEN..=MAX_LEN).contains(&word.len()) || !word.iter().all(u8::is_ascii_uppercase) {
                return Err(LexiconError::ContentMismatch {
                    path: self.path.clone(),
                    problem: format!("holds {:?}, which is not a word of 2-15 letters A-Z", String::from_utf8_lossy(word)),
                });
            }
            stats.add(word);
        }
        if !stats.matches(&self.manifest) {
            return Err(LexiconError::ContentMismatch {
                path: self.path.clone(),
                problem: format!(
                    "recomputed fingerprint {} and {} words; manifest says {} and {}",
                    stats.fingerprint, stats.word_count, self.manifest.fingerprint, self.manifest.word_count
                ),
            });
        }
        Ok(())
    }

    /// Whether this layer accepts `word` (uppercase A–Z).
    pub fn accepts(&self, word: &str) -> bool {
        self.definition.admits_length(word.len()) && self.set.contains(word)
    }

    /// This layer's status against its published fingerprint, if it has one.
    pub fn fingerprint_matches(&self) -> Option<bool> {
        self.definition.published_fingerprint.as_deref().map(|p| self.manifest.fingerprint.matches_published(p))
    }

    /// The fingerprint of the layer's whole .fst.
    pub fn fingerprint(&self) -> Fingerprint {
        self.manifest.fingerprint
    }

    /// The underlying set (for tools that walk every word).
    pub fn set(&self) -> &fst::Set<LexiconBytes> {
        &self.set
    }
}

/// An opened lexicon: layers and corrections, with its status.
pub struct Lexicon {
    definition: Definition,
    layers: Vec<Layer>,
    status: Status,
    demo: bool,
    definition_path: PathBuf,
}

/// A lexicon that may not judge (its status is Mismatch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUsable {
    pub id: String,
    pub status: Status,
}

impl fmt::Display for NotUsable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lexicon {} is {}: it is not the list its definition names, so it may not judge", self.id, self.status)
    }
}

impl std::error::Error for NotUsable {}

impl Lexicon {
    /// Opens a lexicon whose definition is in `dir`, memory-mapping each layer.
    pub fn open_in_dir(
        definition: Definition,
        definition_path: PathBuf,
        dir: &Path,
        level: Verification,
    ) -> Result<Lexicon, LexiconError> {
        let mut layers = Vec::with_capacity(definition.layers.len());
        for layer_def in &definition.layers {
            let path = dir.join(&layer_def.fst);
            let manifest_path = build::manifest_path_for(&path);
            let file = match std::fs::File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LexiconError::MissingFst { path }),
                Err(e) => return Err(LexiconError::Io { path, source: e }),
            };
            let manifest_text = match std::fs::read_to_string(&manifest_path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(LexiconError::MissingManifest { path: manifest_path })
                }
                Err(e) => {
                    return Err(LexiconError::BadManifest { path: manifest_path, problem: e.to_string() })
                }
            };
            // SAFETY: the map is read-only. Lexicon files are replaced by
            // atomic rename (never rewritten in place), so a mapped file's
            // bytes do not change under us; its SHA-256 is checked below
            // before any lookup.
            let mmap = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| LexiconError::Io { path: path.clone(), source: e })?;
            layers.push(Layer::open(
                layer_def.clone(),
                path,
                LexiconBytes::Mapped(mmap),
                &manifest_text,
                &manifest_path,
                level,
            )?);
        }
        Ok(Lexicon::from_layers(definition, definition_path, layers, false))
    }

    /// Assembles a lexicon from opened layers and works out its status.
    pub fn from_layers(definition: Definition, definition_path: PathBuf, layers: Vec<Layer>, demo: bool) -> Lexicon {
        let checks: Vec<Option<bool>> = layers.iter().map(Layer::fingerprint_matches).collect();
        let status = if checks.contains(&Some(false)) {
            Status::Mismatch
        } else if !checks.is_empty() && checks.iter().all(|c| *c == Some(true)) {
            Status::VerifiedOfficial
        } else {
            Status::Verified
        };
        Lexicon { definition, layers, status, demo, definition_path }
    }

    pub fn id(&self) -> &str {
        &self.definition.id
    }
    pub fn definition(&self) -> &Definition {
        &self.definition
    }
    pub fn definition_path(&self) -> &Path {
        &self.definition_path
    }
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }
    pub fn status(&self) -> Status {
        self.status
    }
    /// Whether this is the built-in demo lexicon (every screen then says DEMO).
    pub fn is_demo(&self) -> bool {
        self.demo
    }

    /// The fingerprint shown for the lexicon: its first layer's, which is the
    /// list an official fingerprint is published for.
    pub fn fingerprint(&self) -> Fingerprint {
        self.layers[0].fingerprint()
    }

    /// Whether `word` (uppercase A–Z, 2–15 letters) is acceptable: in `add`,
    /// or not in `remove` and accepted by some layer that admits its length.
    pub fn contains(&self, word: &str) -> bool {
        if self.definition.add.binary_search_by(|w| w.as_str().cmp(word)).is_ok() {
            return true;
        }
        if self.definition.remove.binary_search_by(|w| w.as_str().cmp(word)).is_ok() {
            return false;
        }
        self.layers.iter().any(|layer| layer.accepts(word))
    }

    /// Refuses when the lexicon may not judge.
    pub fn check_usable(&self) -> Result<(), NotUsable> {
        if self.status.can_judge() {
            Ok(())
        } else {
            Err(NotUsable { id: self.id().to_string(), status: self.status })
        }
    }
}
