//! Compiling a word list into an `fst` set, and installing it.
//!
//! # All or nothing
//!
//! The .fst is the only thing that decides what a lexicon is (its status is
//! computed from its bytes; the manifest beside it is informative), so the
//! atomic rename of the .fst is the single commit point of an install: a
//! crash at any instant leaves the old .fst or the new one, each complete and
//! verifiable, never a mix. The manifest is written after it; if that fails,
//! the install has still happened and the report says so
//! ([`BuildReport::manifest_problem`]), and a build that fails before the
//! rename says "nothing was changed", which is then true.
//!
//! Installs into one directory take an exclusive `flock` on the directory, so
//! two at once cannot interleave. A killed install leaves its temporary file
//! (`.wordjudge-*.tmp`, see [`crate::outside_files::write_atomically`]); the next install, or the
//! next catalog load, removes such files while holding that lock, when no
//! install can be writing them (a killed process's lock is released by the
//! kernel).

use super::content::facts_of;
use super::manifest::Manifest;
use super::official::{self, OfficialLayer, OfficialLexicon};
use crate::digest::sha256_hex;
use crate::outside_files::write_atomically;
use crate::outside_files::{limits, BoundedReadError};
use crate::word::{read_word_list, WordList, WordListError};
use std::fmt;
use std::fs::File;
use std::os::fd::AsRawFd;
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
    /// The .fst was installed but its (informative) manifest could not be written.
    pub manifest_problem: Option<String>,
    /// Whether the .fst already held exactly these bytes (nothing changed).
    pub unchanged: bool,
}

/// Why a build or install failed. Nothing is changed when it fails.
#[derive(Debug)]
pub enum BuildError {
    /// The word list cannot be read (missing, not a regular file, too large).
    ReadSource(BoundedReadError),
    /// The word list is malformed or empty.
    WordList(WordListError),
    /// The output name must be `NAME.fst`.
    BadOutputName { path: PathBuf },
    /// The lexicon directory cannot be locked.
    Lock { dir: PathBuf, source: std::io::Error },
    /// Writing the .fst failed (disk full, read-only, …).
    Write { path: PathBuf, source: std::io::Error },
    /// `install` was given a name that is no official lexicon or layer.
    UnknownOfficial { name: String },
    /// `install`: the list is not the official list it is installed as.
    NotTheList { id: String, fst: String, problem: String },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::ReadSource(e) => write!(f, "cannot read the word list: {e}"),
            BuildError::WordList(e) => write!(f, "{e}"),
            BuildError::BadOutputName { path } => {
                write!(f, "output {} must be a file name ending in .fst", path.display())
            }
            BuildError::Lock { dir, source } => {
                write!(f, "cannot lock the lexicon directory {}: {source}; nothing was changed", dir.display())
            }
            BuildError::Write { path, source } => {
                write!(f, "cannot write {}: {source}; nothing was changed", path.display())
            }
            BuildError::UnknownOfficial { name } => {
                let ids: Vec<&str> = official::OFFICIAL.iter().map(|l| l.id).collect();
                write!(
                    f,
                    "{name:?} is not an official lexicon wordjudge knows ({}); name the word file after one, \
                     pass --id, or use `lexicon build SRC --out DIR/NAME.fst` with a definition of your own",
                    ids.join(", ")
                )
            }
            BuildError::NotTheList { id, fst, problem } => {
                write!(f, "this word list is not {id} ({problem}); {fst} was not installed, nothing was changed")
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

/// Builds the fst bytes and manifest for a parsed word list (no files
/// touched). Deterministic: the same words always give the same bytes, which
/// is what lets [`official::Pin::fst_sha256`] stand for a list's content.
pub fn compile(list: &WordList, fst_file: &str, source_file: &str, source_sha256: &str) -> (Vec<u8>, Manifest) {
    // `parse_word_list` returns sorted, unique words, which is what the builder needs.
    let set = fst::Set::from_iter(list.words.iter()).expect("word lists are sorted and deduplicated");
    let bytes = set.into_fst().into_inner();
    let facts = facts_of(list.words.iter().map(String::as_bytes));
    let manifest = Manifest::describe(&facts, fst_file, sha256_hex(&bytes), source_file, source_sha256);
    (bytes, manifest)
}

/// An exclusive lock on a lexicon directory, released on drop (or by the
/// kernel when the process dies).
struct DirLock {
    _file: File,
}

fn lock_dir(dir: &Path, wait: bool) -> std::io::Result<Option<DirLock>> {
    let file = crate::outside_files::open_folder(dir)?;
    let flags = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
    loop {
        // SAFETY: flock on a valid, open file descriptor owned by `file`.
        if unsafe { libc::flock(file.as_raw_fd(), flags) } == 0 {
            return Ok(Some(DirLock { _file: file }));
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) if !wait => return Ok(None),
            _ => return Err(e),
        }
    }
}

fn remove_temporaries(dir: &Path) {
    let Ok(listing) = crate::outside_files::list_folder(dir, 100_000) else { return };
    for entry in listing.entries {
        if entry.name.starts_with(".wordjudge-") && entry.name.ends_with(".tmp") {
            let _ = std::fs::remove_file(&entry.path);
        }
    }
}

/// Removes temporary files killed installs left in `dir`. With `wait` false
/// it does nothing when an install holds the directory lock. Best effort:
/// a directory the caller may not write is left alone.
pub fn clean_stray_temporaries(dir: &Path, wait: bool) {
    if let Ok(Some(_lock)) = lock_dir(dir, wait) {
        remove_temporaries(dir);
    }
}

/// A word list read and compiled in memory, not yet written anywhere: what
/// `build`, `install` and the USB preview share, so the bytes a director is
/// shown the status of are the bytes that get installed.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The .fst bytes (deterministic for a given list).
    pub bytes: Vec<u8>,
    /// What they hold; `fst_file` is empty until the list is named.
    pub manifest: Manifest,
    /// Invalid lines skipped (with `skip_invalid`).
    pub skipped: usize,
    /// Repeated words dropped.
    pub duplicates: usize,
}

/// Reads `source` (a regular file of at most [`limits::WORD_LIST`] bytes,
/// opened without blocking) line by line, hashing it as it goes, and
/// compiles it. Memory stays bounded by the word list's own limits, never by
/// what the file holds.
pub fn compile_file(source: &Path, skip_invalid: bool) -> Result<Compiled, BuildError> {
    let (file, _) = crate::outside_files::open_regular(source, limits::WORD_LIST).map_err(BuildError::ReadSource)?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, crate::digest::HashingReader::new(file));
    // Named by its file name, escaped: a name on a stick may hold anything.
    let shown = crate::word::printable(&source.file_name().unwrap_or_default().to_string_lossy(), 64);
    let list = read_word_list(&mut reader, &shown, skip_invalid).map_err(BuildError::WordList)?;
    let source_sha256 = reader.into_inner().sha256_hex();
    let source_file = source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (bytes, manifest) = compile(&list, "", &source_file, &source_sha256);
    Ok(Compiled { bytes, manifest, skipped: list.skipped, duplicates: list.duplicates })
}

/// Writes compiled bytes to `out` (the commit point) and then the manifest.
fn commit(out: &Path, compiled: Compiled) -> Result<BuildReport, BuildError> {
    let Compiled { bytes, manifest, skipped, duplicates } = compiled;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let _lock = lock_dir(dir, true)
        .map_err(|e| BuildError::Lock { dir: dir.to_path_buf(), source: e })?
        .expect("a blocking lock is always taken");
    remove_temporaries(dir);
    let manifest_path = manifest_path_for(out);
    let unchanged = crate::outside_files::read_small_file(out, super::source::MAX_FST_BYTES)
        .map(|old| old == bytes)
        .unwrap_or(false);
    if !unchanged {
        write_atomically(out, &bytes).map_err(|e| BuildError::Write { path: out.to_path_buf(), source: e })?;
    }
    let manifest_problem = write_atomically(&manifest_path, manifest.to_toml().as_bytes()).err().map(|e| {
        format!(
            "the lexicon was installed, but its manifest {} (informative only) could not be written: {e}",
            manifest_path.display()
        )
    });
    Ok(BuildReport {
        fst_path: out.to_path_buf(),
        manifest_path,
        manifest,
        skipped,
        duplicates,
        manifest_problem,
        unchanged,
    })
}

/// `wordjudge lexicon build SOURCE --out DIR/NAME.fst`: compiles any word
/// list under any name. What it then is (official, custom, mismatch) is
/// decided when it is opened.
pub fn build_lexicon(source: &Path, out: &Path, skip_invalid: bool) -> Result<BuildReport, BuildError> {
    let fst_file = match out.file_name().and_then(|n| n.to_str()) {
        Some(name) if name.ends_with(".fst") && name.len() > 4 && !name.starts_with('.') => name.to_string(),
        _ => return Err(BuildError::BadOutputName { path: out.to_path_buf() }),
    };
    let mut compiled = compile_file(source, skip_invalid)?;
    compiled.manifest.fst_file = fst_file;
    commit(out, compiled)
}

/// How an official list's identity was established, or why it is not the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// Its content digest equals the one pinned in wordjudge.
    PinnedDigest,
    /// Its fingerprint matches the published one (no digest is pinned).
    PublishedFingerprint,
    /// Nothing is published to check it against.
    NothingPublished,
    /// It is not the list it is named as: the problem, in words.
    NotTheList(String),
}

impl Evidence {
    /// `pinned digest`, `published fingerprint`, `nothing published`, `not the list`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Evidence::PinnedDigest => "pinned digest",
            Evidence::PublishedFingerprint => "published fingerprint",
            Evidence::NothingPublished => "nothing published",
            Evidence::NotTheList(_) => "not the list",
        }
    }
}

/// A compiled list named as an official lexicon's layer, checked against
/// the catalogue, not yet installed.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub lexicon: &'static OfficialLexicon,
    pub layer: &'static OfficialLayer,
    pub compiled: Compiled,
    pub evidence: Evidence,
}

/// Names `compiled` as the official lexicon or layer `name` (`CSW21`,
/// `OSPD4`, `MW11-long`, `OTCWL2016`) and checks it: the content digest
/// against the pinned one, else the fingerprint against the published one.
/// A list that is not the one named is still returned (with
/// [`Evidence::NotTheList`]) so it can be shown; [`Prepared::install`]
/// refuses it.
pub fn prepare_official(mut compiled: Compiled, name: &str) -> Result<Prepared, BuildError> {
    let (lexicon, layer) =
        official::layer_for_name(name).ok_or_else(|| BuildError::UnknownOfficial { name: name.to_string() })?;
    compiled.manifest.fst_file = layer.fst.to_string();
    let manifest = &compiled.manifest;
    let evidence = if let Some(pin) = layer.pin {
        let content = manifest.content_sha256.as_deref().unwrap_or_default();
        if content == pin.content_sha256 {
            Evidence::PinnedDigest
        } else {
            // Said with the 8-character fingerprints a director can
            // compare (the content digests stay in the manifest), and the
            // list it is, when it is another official one.
            let pinned_fp = &pin.fingerprint[..8];
            Evidence::NotTheList(format!(
                "its content digest differs from the pinned one: fingerprint {}, {name}'s is {pinned_fp}{}",
                manifest.fingerprint.short(),
                is_other_list(manifest, name)
            ))
        }
    } else if let Some(published) = layer.published_fingerprint {
        match layer.published_words {
            _ if !manifest.fingerprint.matches_published(published) => Evidence::NotTheList(format!(
                "fingerprint {}, published {published}{}",
                manifest.fingerprint.short(),
                is_other_list(manifest, name)
            )),
            Some(words) if !words.allows(manifest.word_count) => Evidence::NotTheList(format!(
                "{} words, published {words} (the fingerprint matches, which a forged list can be made to do)",
                manifest.word_count
            )),
            _ => Evidence::PublishedFingerprint,
        }
    } else {
        Evidence::NothingPublished
    };
    Ok(Prepared { lexicon, layer, compiled, evidence })
}

/// `; it is NWL2018` when the list is another official list than `name`.
fn is_other_list(manifest: &Manifest, name: &str) -> String {
    match official::layer_for_content(manifest.content_sha256.as_deref(), &manifest.fingerprint, manifest.word_count) {
        Some((_, layer)) if official::layer_name(layer) != name => format!("; it is {}", official::layer_name(layer)),
        _ => String::new(),
    }
}

impl Prepared {
    /// Installs the prepared bytes into `dir` (atomic, locked; see the
    /// module doc). A list that is not the one named is refused and nothing
    /// changes.
    pub fn install(self, dir: &Path) -> Result<InstallReport, BuildError> {
        if let Evidence::NotTheList(problem) = &self.evidence {
            return Err(BuildError::NotTheList {
                id: self.lexicon.id.to_string(),
                fst: self.layer.fst.to_string(),
                problem: problem.clone(),
            });
        }
        let evidence = self.evidence.as_str();
        let build = commit(&dir.join(self.layer.fst), self.compiled)?;
        Ok(InstallReport { lexicon: self.lexicon, layer: self.layer, build, evidence })
    }

    /// The lexicon as it would open once installed: these bytes as their
    /// layer, the lexicon's other layers as `dir` has them now. Its status
    /// is computed exactly as the kiosk's will be, from the bytes.
    pub fn preview(&self, dir: &Path) -> Result<super::Lexicon, super::LexiconError> {
        let definition = super::definition::official_definition(self.lexicon);
        let pins: Vec<Option<official::Pin>> = self.lexicon.layers.iter().map(|l| l.pin).collect();
        let own = (self.layer.fst, super::LexiconBytes::Owned(self.compiled.bytes.clone()));
        super::Lexicon::open_with(definition, super::DefinitionSource::Official, &pins, dir, Some(own))
    }
}

/// What an install produced.
#[derive(Debug, Clone)]
pub struct InstallReport {
    pub lexicon: &'static OfficialLexicon,
    pub layer: &'static OfficialLayer,
    pub build: BuildReport,
    /// How the list's identity was established: `pinned digest`,
    /// `published fingerprint`, or `nothing published`.
    pub evidence: &'static str,
}

/// `wordjudge lexicon install WORDS.txt [--id NAME]`: installs an official
/// list into `dir` under the file name the catalogue gives it. `name` (the
/// word file's stem unless given) names an official lexicon or layer
/// (`CSW21`, `OSPD4`, `MW11-long`, `OTCWL2016`). A list that is not the one
/// named (its content digest differs from the pinned one, or its fingerprint
/// from the published one) is refused and nothing changes.
pub fn install_official(
    source: &Path,
    dir: &Path,
    name: Option<&str>,
    skip_invalid: bool,
) -> Result<InstallReport, BuildError> {
    let name = match name {
        Some(n) => n.to_string(),
        None => source.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    // Known name first: an unknown one is refused before the list is read.
    official::layer_for_name(&name).ok_or_else(|| BuildError::UnknownOfficial { name: name.clone() })?;
    prepare_official(compile_file(source, skip_invalid)?, &name)?.install(dir)
}
