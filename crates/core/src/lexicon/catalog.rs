//! The lexicons a station knows: the built-in demo, the official catalogue
//! compiled into the binary ([`super::official`]), and a director's own
//! definition files in the lexicon directory.
//!
//! A lexicon directory holds compiled lexicons (`NAME.fst`, with an
//! informative `NAME.fst.toml` manifest) and, optionally, definition files
//! (`ID.toml`) for custom lexicons. Official lexicons need no definition
//! file: installing `CSW21.fst` is enough.
//!
//! **A definition file cannot change an official id.** A file whose id is an
//! official one is ignored: silently when it says exactly what the catalogue
//! says (the definition files older versions shipped), otherwise with a
//! problem telling the director to give it an id of its own. So `CSW15`
//! always means the compiled-in CSW15; an edited copy with `add`, `remove` or
//! another fingerprint can be used only under another id, as *Custom*. (The
//! alternative, treating it as Custom under the official id, would let a
//! config that names `CSW15` silently judge with the edited list.)
//!
//! Loading a catalog never fails: unreadable directories and bad definitions
//! become `problems`, which the CLI prints and the director menu shows.
//! Loading also removes temporary files a killed install left behind (see
//! [`super::build`]).

use super::definition::{official_definition, Definition};
use super::official::{self, OfficialLexicon, Pin};
use super::{DefinitionSource, Layer, Lexicon, LexiconBytes, LexiconError};
use crate::digest::sha256_hex;
use crate::outside_files::{limits, read_small_file};
use std::path::{Path, PathBuf};

/// Id of the built-in demo lexicon.
pub const DEMO_ID: &str = "DEMO";

const DEMO_DEFINITION: &str = include_str!("../../../../lexicons/demo/DEMO.toml");
const DEMO_FST: &[u8] = include_bytes!("../../../../lexicons/demo/DEMO.fst");
/// The built-in demo list's pin: a damaged binary cannot judge either.
const DEMO_PIN: Pin = Pin {
    content_sha256: "d2271baa856561e9387935ec35c2e058489796b2a414cc94f386f074d498db4b",
    fst_sha256: "7cbfa834d2276dac15907057c3426a45f7869267a252d6f23f78f3268de89774",
    fingerprint: "40238012d8ef6806ec7bb85c67c81881",
    word_count: 63_612,
};

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The built-in demo lexicon.
    Demo,
    /// The official catalogue compiled into the binary.
    Official(&'static OfficialLexicon),
    /// A definition file in the lexicon directory and the SHA-256 of its bytes.
    File { path: PathBuf, sha256: String },
}

/// One known lexicon definition.
#[derive(Debug, Clone)]
pub struct Entry {
    pub definition: Definition,
    pub origin: Origin,
}

/// All lexicons known for one lexicon directory.
#[derive(Debug, Clone)]
pub struct Catalog {
    dir: PathBuf,
    entries: Vec<Entry>,
    not_installed: Vec<Entry>,
    problems: Vec<String>,
}

/// Whether a definition file says exactly what the official catalogue says.
fn same_as_official(def: &Definition, official: &OfficialLexicon) -> bool {
    let mut expected = official_definition(official);
    // Files may omit the fingerprint or write it in capitals; neither changes anything.
    let mut given = def.clone();
    for (g, e) in given.layers.iter_mut().zip(&expected.layers) {
        g.published_fingerprint = match &g.published_fingerprint {
            None => e.published_fingerprint.clone(),
            Some(p) => Some(p.to_ascii_lowercase()),
        };
    }
    expected.name.clone_from(&given.name);
    expected.edition.clone_from(&given.edition);
    given == expected
}

impl Catalog {
    /// Reads the lexicon directory: which official lexicons are installed,
    /// and every custom definition file. The built-in demo comes first.
    pub fn load(dir: &Path) -> Catalog {
        super::build::clean_stray_temporaries(dir, false);
        let demo = Definition::from_toml(DEMO_DEFINITION).expect("the built-in demo definition is valid");
        let mut catalog = Catalog {
            dir: dir.to_path_buf(),
            entries: vec![Entry { definition: demo, origin: Origin::Demo }],
            not_installed: Vec::new(),
            problems: Vec::new(),
        };
        for official in official::OFFICIAL {
            let entry = Entry { definition: official_definition(official), origin: Origin::Official(official) };
            if official.layers.iter().any(|l| dir.join(l.fst).symlink_metadata().is_ok()) {
                catalog.entries.push(entry);
            } else {
                catalog.not_installed.push(entry);
            }
        }
        let mut paths: Vec<PathBuf> = match crate::outside_files::list_named_folder(dir, 10_000) {
            Ok(listing) => listing
                .entries
                .into_iter()
                .map(|e| e.path)
                .filter(|p| {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    name.ends_with(".toml") && !name.ends_with(".fst.toml") && !name.starts_with('.')
                })
                .collect(),
            Err(e) => {
                catalog.problems.push(format!("lexicon directory {}: {e}", dir.display()));
                Vec::new()
            }
        };
        paths.sort();
        for path in paths {
            let parsed = read_small_file(&path, limits::SMALL_FILE).map_err(|e| e.to_string()).and_then(|bytes| {
                let text = std::str::from_utf8(&bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
                let def = Definition::from_toml(text).map_err(|e| format!("bad lexicon definition: {e}"))?;
                Ok((def, sha256_hex(&bytes)))
            });
            let shown = path.display();
            match parsed {
                Err(problem) if problem.starts_with(&shown.to_string()) => catalog.problems.push(problem),
                Err(problem) => catalog.problems.push(format!("{shown}: {problem}")),
                Ok((def, _)) if def.id == DEMO_ID => catalog
                    .problems
                    .push(format!("{shown}: the id {DEMO_ID} is reserved for the built-in demo lexicon; file ignored")),
                Ok((def, _)) if official::find(&def.id).is_some() => {
                    let built_in = official::find(&def.id).expect("just found");
                    if !same_as_official(&def, built_in) {
                        catalog.problems.push(format!(
                            "{shown}: {} is an official lexicon, defined inside wordjudge; this file differs \
                             from it{} and is ignored. To judge with your own version, give it an id of its own \
                             (it is then shown as Custom)",
                            def.id,
                            corrections_note(&def)
                        ));
                    }
                }
                Ok((def, _)) if catalog.find(&def.id).is_some() => catalog
                    .problems
                    .push(format!("{shown}: a definition with id {} was already read; file ignored", def.id)),
                Ok((definition, sha256)) => {
                    catalog.entries.push(Entry { definition, origin: Origin::File { path, sha256 } })
                }
            }
        }
        catalog
    }

    /// The lexicon directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The lexicons a director can use here: the built-in demo, the official
    /// lexicons with at least one file installed, and custom definitions.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Official lexicons with no file installed here.
    pub fn not_installed(&self) -> &[Entry] {
        &self.not_installed
    }

    /// Definition files that could not be used, with reasons.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The entry with this id (installed or not).
    pub fn find(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().chain(&self.not_installed).find(|e| e.definition.id == id)
    }

    /// Opens the lexicon with this id: reads and verifies every layer.
    pub fn open(&self, id: &str) -> Result<Lexicon, LexiconError> {
        let entry = self.find(id).ok_or_else(|| LexiconError::UnknownId {
            id: id.to_string(),
            known: self.entries.iter().chain(&self.not_installed).map(|e| e.definition.id.clone()).collect(),
        })?;
        match &entry.origin {
            Origin::Demo => open_demo(),
            Origin::Official(official) => {
                let pins: Vec<Option<Pin>> = official.layers.iter().map(|l| l.pin).collect();
                Lexicon::open_in_dir(entry.definition.clone(), DefinitionSource::Official, &pins, &self.dir)
            }
            Origin::File { path, sha256 } => Lexicon::open_in_dir(
                entry.definition.clone(),
                DefinitionSource::File { path: path.clone(), sha256: sha256.clone() },
                &[],
                &self.dir,
            ),
        }
    }
}

fn corrections_note(def: &Definition) -> String {
    let mut notes = Vec::new();
    if !def.add.is_empty() {
        notes.push(format!("adds {}", def.add.join(", ")));
    }
    if !def.remove.is_empty() {
        notes.push(format!("removes {}", def.remove.join(", ")));
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    }
}

/// Opens the built-in demo lexicon. It goes through the same checks as any
/// other, against its own pin, so a damaged binary cannot judge either.
pub fn open_demo() -> Result<Lexicon, LexiconError> {
    let definition = Definition::from_toml(DEMO_DEFINITION).expect("the built-in demo definition is valid");
    let path = PathBuf::from("(built-in)/DEMO.fst");
    let sha256 = sha256_hex(DEMO_FST);
    if sha256 != DEMO_PIN.fst_sha256 {
        return Err(LexiconError::BadFst {
            path,
            problem: format!("built-in bytes have SHA-256 {sha256}, not the pinned one"),
        });
    }
    let layer =
        Layer::open(definition.layers[0].clone(), path, LexiconBytes::BuiltIn(DEMO_FST), sha256, Some(&DEMO_PIN))?;
    Ok(Lexicon::from_layers(definition, DefinitionSource::Demo, &[Some(DEMO_PIN)], vec![layer]))
}
