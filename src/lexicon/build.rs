//! Compiling a word list into an `fst` set and its manifest.
//!
//! The .fst is written first and the manifest second, each atomically: a crash
//! between the two leaves a manifest that does not match the .fst, which the
//! kiosk reports as Corrupt instead of judging with it.

use super::manifest::{Manifest, WordStats, MANIFEST_FORMAT};
use crate::digest::sha256_hex;
use crate::atomic_file::write_atomically;
use crate::word::{parse_word_list, WordList, WordListError};
use std::fmt;
use std::path::{Path, PathBuf};

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub fst_path: PathBuf,
    pub manifest_path: PathBuf,
    pub manifest: Manifest,
    /// Invalid lines skipped (with `skip_invalid`).
    pub skipped: usize,
    /// Repeated words dropped.
    pub duplicates: usize,
}

/// Why a build failed. Nothing is written when it fails.
#[derive(Debug)]
pub enum BuildError {
    /// The word list cannot be read.
    ReadSource { path: PathBuf, source: std::io::Error },
    /// The word list is malformed or empty.
    WordList(WordListError),
    /// The output name must be `NAME.fst`.
    BadOutputName { path: PathBuf },
    /// Writing the .fst or manifest failed (disk full, read-only, …).
    Write { path: PathBuf, source: std::io::Error },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::ReadSource { path, source } => write!(f, "cannot read word list {}: {source}", path.display()),
            BuildError::WordList(e) => write!(f, "{e}"),
            BuildError::BadOutputName { path } => {
                write!(f, "output {} must be a file name ending in .fst", path.display())
            }
            BuildError::Write { path, source } => {
                write!(f, "cannot write {}: {source}; nothing was changed", path.display())
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// The manifest path for a .fst path: `NAME.fst` → `NAME.fst.toml`.
pub fn manifest_path_for(fst_path: &Path) -> PathBuf {
    let mut name = fst_path.as_os_str().to_owned();
    name.push(".toml");
    PathBuf::from(name)
}

/// Builds the fst bytes and manifest for a parsed word list (no files touched).
pub fn compile(list: &WordList, fst_file: &str, source_file: &str, source_sha256: &str) -> (Vec<u8>, Manifest) {
    // `parse_word_list` returns sorted, unique words, which is what the builder needs.
    let set = fst::Set::from_iter(list.words.iter()).expect("word lists are sorted and deduplicated");
    let bytes = set.into_fst().into_inner();
    let mut stats = WordStats::default();
    for word in &list.words {
        stats.add(word.as_bytes());
    }
    let (shortest, longest) = stats.length_range();
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        fst_file: fst_file.to_string(),
        fst_sha256: sha256_hex(&bytes),
        fingerprint: stats.fingerprint,
        word_count: stats.word_count,
        shortest,
        longest,
        count_by_length: stats.count_by_length,
        source_file: source_file.to_string(),
        source_sha256: source_sha256.to_string(),
        built_at: jiff::Timestamp::now().round(jiff::Unit::Second).unwrap_or_else(|_| jiff::Timestamp::now()).to_string(),
        tool_version: concat!("wordjudge ", env!("CARGO_PKG_VERSION")).to_string(),
    };
    (bytes, manifest)
}

/// `wordjudge lexicon build SOURCE --out DIR/NAME.fst`.
pub fn build_lexicon(source: &Path, out: &Path, skip_invalid: bool) -> Result<BuildReport, BuildError> {
    let fst_file = match out.file_name().and_then(|n| n.to_str()) {
        Some(name) if name.ends_with(".fst") && name.len() > 4 => name.to_string(),
        _ => return Err(BuildError::BadOutputName { path: out.to_path_buf() }),
    };
    let text = std::fs::read(source).map_err(|e| BuildError::ReadSource { path: source.to_path_buf(), source: e })?;
    let list = parse_word_list(&text, &source.display().to_string(), skip_invalid).map_err(BuildError::WordList)?;
    let source_file = source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (bytes, manifest) = compile(&list, &fst_file, &source_file, &sha256_hex(&text));
    let manifest_path = manifest_path_for(out);
    write_atomically(out, &bytes).map_err(|e| BuildError::Write { path: out.to_path_buf(), source: e })?;
    write_atomically(&manifest_path, manifest.to_toml().as_bytes())
        .map_err(|e| BuildError::Write { path: manifest_path.clone(), source: e })?;
    Ok(BuildReport {
        fst_path: out.to_path_buf(),
        manifest_path,
        manifest,
        skipped: list.skipped,
        duplicates: list.duplicates,
    })
}
