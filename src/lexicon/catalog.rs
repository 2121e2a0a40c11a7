//! The lexicons a station knows: the definitions in its lexicon directory,
//! plus the built-in demo lexicon, which is compiled into the binary so the
//! kiosk always has something honest to show (and says DEMO while it does).
//!
//! A lexicon directory holds definition files (`ID.toml`) next to the compiled
//! lexicons they name (`NAME.fst` + `NAME.fst.toml`). Loading a catalog never
//! fails: unreadable directories and bad definitions become `problems`, which
//! the CLI prints and the director menu shows.

use super::definition::Definition;
use super::{Layer, LexiconBytes, Lexicon, LexiconError, Verification};
use std::path::{Path, PathBuf};

/// Id of the built-in demo lexicon.
pub const DEMO_ID: &str = "DEMO";

const DEMO_DEFINITION: &str = include_str!("../../lexicons/demo/DEMO.toml");
const DEMO_FST: &[u8] = include_bytes!("../../lexicons/demo/DEMO.fst");
const DEMO_MANIFEST: &str = include_str!("../../lexicons/demo/DEMO.fst.toml");

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    BuiltIn,
    File(PathBuf),
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
    problems: Vec<String>,
}

impl Catalog {
    /// Reads every definition in `dir` (the built-in demo comes first).
    pub fn load(dir: &Path) -> Catalog {
        let demo = Definition::from_toml(DEMO_DEFINITION).expect("the built-in demo definition is valid");
        let mut catalog = Catalog {
            dir: dir.to_path_buf(),
            entries: vec![Entry { definition: demo, origin: Origin::BuiltIn }],
            problems: Vec::new(),
        };
        let mut paths: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(read) => read
                .filter_map(|e| e.ok().map(|e| e.path()))
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
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|text| Definition::from_toml(&text).map_err(|e| e.to_string()));
            match parsed {
                Err(problem) => catalog.problems.push(format!("{}: bad lexicon definition: {problem}", path.display())),
                Ok(def) if def.id == DEMO_ID => catalog.problems.push(format!(
                    "{}: the id {DEMO_ID} is reserved for the built-in demo lexicon; file ignored",
                    path.display()
                )),
                Ok(def) if catalog.find(&def.id).is_some() => catalog.problems.push(format!(
                    "{}: a definition with id {} was already read; file ignored",
                    path.display(),
                    def.id
                )),
                Ok(definition) => catalog.entries.push(Entry { definition, origin: Origin::File(path) }),
            }
        }
        catalog
    }

    /// The lexicon directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every known definition, built-in demo first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Definition files that could not be used, with reasons.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The entry with this id.
    pub fn find(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.definition.id == id)
    }

    /// Opens the lexicon with this id, verifying it at `level`.
    pub fn open(&self, id: &str, level: Verification) -> Result<Lexicon, LexiconError> {
        let entry = self.find(id).ok_or_else(|| LexiconError::UnknownId {
            id: id.to_string(),
            known: self.entries.iter().map(|e| e.definition.id.clone()).collect(),
        })?;
        match &entry.origin {
            Origin::BuiltIn => open_demo(level),
            Origin::File(path) => Lexicon::open_in_dir(entry.definition.clone(), path.clone(), &self.dir, level),
        }
    }
}

/// Opens the built-in demo lexicon. It goes through the same checks as any
/// other, so a damaged binary cannot judge either.
pub fn open_demo(level: Verification) -> Result<Lexicon, LexiconError> {
    let definition = Definition::from_toml(DEMO_DEFINITION).expect("the built-in demo definition is valid");
    let path = PathBuf::from("(built-in)/DEMO.fst");
    let layer = Layer::open(
        definition.layers[0].clone(),
        path.clone(),
        LexiconBytes::BuiltIn(DEMO_FST),
        DEMO_MANIFEST,
        Path::new("(built-in)/DEMO.fst.toml"),
        level,
    )?;
    Ok(Lexicon::from_layers(definition, PathBuf::from("(built-in)/DEMO.toml"), vec![layer], true))
}
