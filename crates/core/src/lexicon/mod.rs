//! Lexicons: compiled word sets that judge, and the evidence of what they are.
//!
//! This module owns the answer to "is this station judging with the list its
//! screen names?". The answer is computed from the bytes that judge and from
//! facts compiled into the binary, never from editable files:
//!
//! * Each layer's .fst is read once into a private copy and hashed while it is
//!   read ([`source`]); lookups use only that copy, so nothing done to the
//!   file afterwards can change a verdict, panic or raise a signal, and
//!   [`Lexicon::source_changed`] tells the director the file changed.
//! * The copy is checked as an fst and its content is identified: when its
//!   SHA-256 equals the one this builder produces for a pinned official list
//!   ([`official::Pin::fst_sha256`]), the bytes are that build (whose own
//!   checksum a real-data test checks), which proves the content digest in
//!   about a millisecond; otherwise the fst's own checksum is checked
//!   (`verify()`) and every word is read back (checking each is 2–15 letters
//!   A–Z) to compute the content digest and fingerprint ([`content`]).
//! * Lookups cannot panic: a pinned .fst is byte for byte one this builder
//!   made; any other has had every reachable node decoded by the full read at
//!   open (any panic there is caught and reported as Corrupt), and a lookup
//!   only follows transitions that walk already took.
//!
//! What the evidence earns ([`Status`]) depends on where the definition comes
//! from ([`catalog`]): the compiled-in official catalogue ([`official`]), the
//! built-in demo, or a director's own definition file (always *Custom*).
//! Manifests ([`manifest`]) are informative only.

pub mod build;
pub mod catalog;
pub mod content;
pub mod definition;
pub mod import;
mod layer;
pub mod manifest;
pub mod official;
pub mod source;

use crate::fingerprint::Fingerprint;
use definition::Definition;
use official::Pin;
use serde::Serialize;
use source::{SourceChange, SourceWatch};
use std::fmt;
use std::path::{Path, PathBuf};

pub use layer::{Layer, LexiconBytes, Proof};

/// The one status a lexicon has, weakest evidence first among those that judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Official id, and every layer's content digest equals the digest pinned
    /// in this binary: the list is the official one, letter for letter.
    VerifiedOfficial,
    /// Official id with no pinned digest; every layer's fingerprint equals the
    /// published one. Catches a wrong edition or a damaged file, not a forgery.
    FingerprintMatch,
    /// Official id for which nothing is published (OSPD4+MW11): intact, but
    /// nothing to compare it with.
    Unverified,
    /// A director's own definition (or one with corrections): may judge,
    /// never official.
    Custom,
    /// The built-in demo list, intact. Not a tournament list.
    Demo,
    /// Intact, but not the list its id names (digest or fingerprint differs).
    Mismatch,
    /// A file is damaged, not an fst, or holds things that are not words.
    Corrupt,
    /// A file is not installed, or the id is unknown.
    Missing,
}

impl Status {
    /// Whether a lexicon with this status may judge.
    pub fn can_judge(self) -> bool {
        !matches!(self, Status::Mismatch | Status::Corrupt | Status::Missing)
    }

    /// Whether the status says the list is the official one (strong evidence).
    pub fn is_verified_official(self) -> bool {
        self == Status::VerifiedOfficial
    }

    /// The wording shown to players and directors.
    pub fn label(self) -> &'static str {
        match self {
            Status::VerifiedOfficial => "Verified official",
            Status::FingerprintMatch => "Matches the published fingerprint (not a strong check)",
            Status::Unverified => "Unverified (nothing published to compare)",
            Status::Custom => "Custom",
            Status::Demo => "Demo (built in)",
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

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// Why a lexicon cannot be opened. Each names the file and the problem.
#[derive(Debug)]
pub enum LexiconError {
    /// No definition has this id.
    UnknownId { id: String, known: Vec<String> },
    /// A layer's .fst is not installed.
    MissingFst { path: PathBuf, install_hint: String },
    /// A layer's file cannot be read, is not a regular file, or is too large.
    Unreadable { path: PathBuf, problem: String },
    /// The bytes are not a valid fst set (damaged, truncated, another format).
    BadFst { path: PathBuf, problem: String },
    /// The fst holds keys that are not words of 2–15 letters A–Z.
    NotWords { path: PathBuf, problem: String },
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
                write!(f, "no lexicon has the id {id:?}; known: {}", known.join(", "))
            }
            MissingFst { path, install_hint } => write!(f, "{}: not installed ({install_hint})", path.display()),
            Unreadable { path, problem } => write!(f, "{}: cannot be used: {problem}", path.display()),
            BadFst { path, problem } => write!(f, "{}: corrupt: not a valid fst set: {problem}", path.display()),
            NotWords { path, problem } => write!(f, "{}: corrupt: {problem}", path.display()),
        }
    }
}

impl std::error::Error for LexiconError {}

/// Where a lexicon's definition comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DefinitionSource {
    /// The built-in demo lexicon.
    Demo,
    /// The official catalogue compiled into this binary.
    Official,
    /// A definition file in the lexicon directory, with the SHA-256 of its bytes.
    File { path: PathBuf, sha256: String },
}

/// A definition's correction lists.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Corrections {
    pub add: Vec<String>,
    pub remove: Vec<String>,
}

impl Corrections {
    pub fn is_empty(&self) -> bool {
        self.add.is_empty() && self.remove.is_empty()
    }

    /// `add XYZZY, QOPH; remove QI` (empty when there are none).
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.add.is_empty() {
            parts.push(format!("add {}", self.add.join(", ")));
        }
        if !self.remove.is_empty() {
            parts.push(format!("remove {}", self.remove.join(", ")));
        }
        parts.join("; ")
    }
}

/// What one layer is, for records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerIdentity {
    pub fst_file: String,
    pub min_len: usize,
    pub max_len: usize,
    /// SHA-256 of the bytes that judge.
    pub fst_sha256: String,
    /// SHA-256 of the sorted words, one per line.
    pub content_sha256: String,
    pub fingerprint: Fingerprint,
    pub word_count: u64,
    pub proof: Proof,
}

/// Everything that identifies an opened lexicon, for the screen and for every
/// adjudication record: all of it computed from the bytes that judge and the
/// definition that combines them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub id: String,
    pub status: Status,
    /// The status with its reasons: corrections, definition hash, mismatch.
    pub status_text: String,
    /// The fingerprint shown for the lexicon (its first layer's).
    pub fingerprint: Fingerprint,
    pub layers: Vec<LayerIdentity>,
    pub definition: DefinitionSource,
    pub corrections: Corrections,
}

/// An opened lexicon: layers and corrections, with its status.
pub struct Lexicon {
    definition: Definition,
    source: DefinitionSource,
    layers: Vec<Layer>,
    status: Status,
    /// Why the status is Mismatch (empty otherwise).
    mismatch: Vec<String>,
}

/// A lexicon that may not judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUsable {
    pub id: String,
    pub status: Status,
    pub reason: String,
}

impl fmt::Display for NotUsable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lexicon {} is {}: {}; it may not judge", self.id, self.status, self.reason)
    }
}

impl std::error::Error for NotUsable {}

fn short(hex: &str) -> &str {
    &hex[..12.min(hex.len())]
}

impl Lexicon {
    /// Opens the lexicon `definition` describes, reading each layer's .fst
    /// from `dir` into a private verified copy. `pins[i]` is layer i's pin
    /// (official lexicons only).
    pub fn open_in_dir(
        definition: Definition,
        origin: DefinitionSource,
        pins: &[Option<Pin>],
        dir: &Path,
    ) -> Result<Lexicon, LexiconError> {
        Lexicon::open_with(definition, origin, pins, dir, None)
    }

    /// [`Lexicon::open_in_dir`], except that the layer whose file is named
    /// `replace.0` takes the bytes `replace.1` (not yet on disk): how a list
    /// about to be installed is shown with the status it would get.
    pub fn open_with(
        definition: Definition,
        origin: DefinitionSource,
        pins: &[Option<Pin>],
        dir: &Path,
        mut replace: Option<(&str, LexiconBytes)>,
    ) -> Result<Lexicon, LexiconError> {
        let mut layers = Vec::with_capacity(definition.layers.len());
        for (i, layer_def) in definition.layers.iter().enumerate() {
            let path = dir.join(&layer_def.fst);
            let pin = pins.get(i).copied().flatten();
            if replace.as_ref().is_some_and(|(fst, _)| *fst == layer_def.fst) {
                let (_, bytes) = replace.take().expect("checked just above");
                let sha256 = crate::digest::sha256_hex(bytes.as_ref());
                layers.push(Layer::open(layer_def.clone(), path, bytes, sha256, pin.as_ref())?);
                continue;
            }
            let read = source::read_hashed(&path, source::MAX_FST_BYTES).map_err(|e| {
                if e.is_not_found() {
                    let stem = layer_def.fst.trim_end_matches(".fst");
                    LexiconError::MissingFst {
                        path: path.clone(),
                        install_hint: format!("install {stem}.txt from a USB stick in the director menu"),
                    }
                } else {
                    LexiconError::Unreadable { path: path.clone(), problem: e.to_string() }
                }
            })?;
            let watch = SourceWatch::new(path.clone(), read.sha256.clone(), read.stamp);
            let mut layer =
                Layer::open(layer_def.clone(), path, LexiconBytes::Owned(read.bytes), read.sha256, pin.as_ref())?;
            layer.watch = Some(watch);
            layers.push(layer);
        }
        Ok(Lexicon::from_layers(definition, origin, pins, layers))
    }

    /// Assembles a lexicon from opened layers and works out its status from
    /// their content and where the definition comes from.
    pub fn from_layers(
        definition: Definition,
        source: DefinitionSource,
        pins: &[Option<Pin>],
        layers: Vec<Layer>,
    ) -> Lexicon {
        let mut mismatch = Vec::new();
        let (mut pinned, mut fingerprint_only, mut nothing) = (0, 0, 0);
        for (i, layer) in layers.iter().enumerate() {
            let name = &layer.definition.fst;
            if let Some(pin) = pins.get(i).copied().flatten() {
                if layer.facts.content_sha256 == pin.content_sha256 {
                    pinned += 1;
                } else {
                    mismatch.push(format!(
                        "{name} is not {}: its content digest is {}…, the pinned one {}…",
                        definition.id,
                        short(&layer.facts.content_sha256),
                        short(pin.content_sha256)
                    ));
                }
            } else if let Some(published) = &layer.definition.published_fingerprint {
                let words = matches!(source, DefinitionSource::Official)
                    .then(|| official::published_words(&definition.id, i))
                    .flatten();
                if !layer.facts.fingerprint.matches_published(published) {
                    mismatch.push(format!(
                        "{name}: fingerprint {} is not the published {published}",
                        layer.facts.fingerprint.short()
                    ));
                } else if let Some(expected) = words.filter(|w| !w.allows(layer.facts.word_count)) {
                    mismatch.push(format!(
                        "{name}: it has {} words, the published {} has {expected} (its fingerprint matches, \
                         which a forged list can be made to do)",
                        layer.facts.word_count, definition.id
                    ));
                } else {
                    fingerprint_only += 1;
                }
            } else {
                nothing += 1;
            }
        }
        let status = if !mismatch.is_empty() {
            Status::Mismatch
        } else {
            match source {
                DefinitionSource::Demo => Status::Demo,
                DefinitionSource::File { .. } => Status::Custom,
                DefinitionSource::Official if nothing > 0 => Status::Unverified,
                DefinitionSource::Official if fingerprint_only > 0 => Status::FingerprintMatch,
                DefinitionSource::Official if pinned == layers.len() => Status::VerifiedOfficial,
                DefinitionSource::Official => Status::Unverified,
            }
        };
        Lexicon { definition, source, layers, status, mismatch }
    }

    pub fn id(&self) -> &str {
        &self.definition.id
    }
    pub fn definition(&self) -> &Definition {
        &self.definition
    }
    /// Where the definition comes from (built in, or a file and its SHA-256).
    pub fn source(&self) -> &DefinitionSource {
        &self.source
    }
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }
    pub fn status(&self) -> Status {
        self.status
    }
    /// Whether this is the built-in demo lexicon (every screen then says DEMO).
    pub fn is_demo(&self) -> bool {
        self.source == DefinitionSource::Demo
    }

    /// The fingerprint shown for the lexicon: its first layer's, which is the
    /// list an official fingerprint is published for.
    pub fn fingerprint(&self) -> Fingerprint {
        self.layers[0].fingerprint()
    }

    /// The correction lists of the definition.
    pub fn corrections(&self) -> Corrections {
        Corrections { add: self.definition.add.clone(), remove: self.definition.remove.clone() }
    }

    /// The status with its reasons, as directors and records should see it.
    pub fn status_text(&self) -> String {
        let mut text = self.status.label().to_string();
        if !self.mismatch.is_empty() {
            text = format!("{text}: {}", self.mismatch.join("; "));
        }
        if let DefinitionSource::File { path, sha256 } = &self.source {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            text.push_str(&format!(" (definition {name}, SHA-256 {}…", short(sha256)));
            let corrections = self.corrections();
            if !corrections.is_empty() {
                text.push_str(&format!("; corrections: {}", corrections.summary()));
            }
            text.push(')');
        }
        text
    }

    /// Everything that identifies this lexicon, for the screen and records.
    pub fn identity(&self) -> Identity {
        Identity {
            id: self.id().to_string(),
            status: self.status,
            status_text: self.status_text(),
            fingerprint: self.fingerprint(),
            layers: self
                .layers
                .iter()
                .map(|l| LayerIdentity {
                    fst_file: l.definition.fst.clone(),
                    min_len: l.definition.min_len,
                    max_len: l.definition.max_len,
                    fst_sha256: l.fst_sha256.clone(),
                    content_sha256: l.facts.content_sha256.clone(),
                    fingerprint: l.facts.fingerprint,
                    word_count: l.facts.word_count,
                    proof: l.proof,
                })
                .collect(),
            definition: self.source.clone(),
            corrections: self.corrections(),
        }
    }

    /// Whether `word` (uppercase A–Z, 2–15 letters) is acceptable: in `add`,
    /// or not in `remove` and accepted by some layer that admits its length.
    ///
    /// Every layer and both correction lists are consulted for every word and
    /// the answers combined without short-circuiting, so the work done does
    /// not depend on where (or whether) the word is found, beyond the
    /// nanoseconds an fst walk takes per letter matched. Nothing is allocated.
    pub fn contains(&self, word: &str) -> bool {
        let added = self.definition.add.binary_search_by(|w| w.as_str().cmp(word)).is_ok();
        let removed = self.definition.remove.binary_search_by(|w| w.as_str().cmp(word)).is_ok();
        let mut in_layers = false;
        for layer in &self.layers {
            in_layers |= layer.accepts(word);
        }
        added | (!removed & in_layers)
    }

    /// Refuses when the lexicon may not judge.
    pub fn check_usable(&self) -> Result<(), NotUsable> {
        if self.status.can_judge() {
            Ok(())
        } else {
            Err(NotUsable { id: self.id().to_string(), status: self.status, reason: self.mismatch.join("; ") })
        }
    }

    /// Whether a layer's file on disk no longer holds the bytes that judge.
    /// Cheap enough to poll every few seconds: a `stat` per layer, and a
    /// re-hash only when the stat changed. Verdicts never change either way:
    /// this is a notice for the director ("CSW15.fst changed on disk since it
    /// was verified; still judging with the verified copy").
    pub fn source_changed(&self) -> Option<SourceChange> {
        self.layers.iter().filter_map(|l| l.watch.as_ref()).find_map(SourceWatch::changed)
    }
}
