//! Word lists found on a director's stick: which files they are, what each
//! would be once installed, computed before anything is installed.
//!
//! Each `*.txt` file is read once (bounded) and compiled in memory; its
//! words say which official lexicon it is when they are one whose digest is
//! pinned or whose fingerprint is published ([`name_for`]: `Collins
//! 2015.txt` is CSW15), else its name does (`CSW21.txt` → CSW21, as
//! `wordjudge lexicon install` reads it), else the director picks one from
//! [`names`]. [`preview`] then opens the compiled bytes exactly as the kiosk
//! would open the installed file, so the status shown before the director
//! confirms is computed from the bytes that will be installed — and
//! [`build::Prepared::install`] installs those same bytes, never a second
//! read of a stick that may have been pulled out meanwhile.

use super::build::{self, BuildError, Compiled, Evidence, Prepared};
use super::{official, Status};
use std::path::{Path, PathBuf};

/// Most word lists looked at on one stick (the rest are named as skipped).
pub const MAX_FILES: usize = 16;

/// What the top of a stick holds in the way of word lists.
#[derive(Debug, Default)]
pub struct Found {
    /// Regular `*.txt` files, sorted by name, at most [`MAX_FILES`].
    pub lists: Vec<PathBuf>,
    /// `*.txt` names that are not regular files (a link, a FIFO, a
    /// folder, a device), each with why it is never opened: shown to the
    /// director so a list that "is not there" is explained.
    pub refused: Vec<(PathBuf, String)>,
    /// Regular lists beyond [`MAX_FILES`], not looked at.
    pub left_out: usize,
}

/// The `*.txt` entries at the top of `dir` (none of the `._` files macOS
/// leaves): regular files to read, and the others refused without being
/// opened or followed.
pub fn find_word_lists(dir: &Path) -> std::io::Result<Found> {
    use crate::outside_files::EntryKind;
    let mut found = Vec::new();
    let mut refused = Vec::new();
    // The stick's top folder: never through a link, at most a bounded
    // number of entries looked at.
    for entry in crate::outside_files::list_folder(dir, 4096)?.entries {
        let name = entry.name.as_str();
        let is_txt = name.len() > 4
            && name.is_char_boundary(name.len() - 4)
            && name[name.len() - 4..].eq_ignore_ascii_case(".txt");
        if !is_txt || name.starts_with('.') {
            continue;
        }
        let why = match entry.kind {
            EntryKind::File => {
                found.push(entry.path);
                continue;
            }
            EntryKind::Link => "a link (a stick's links are never followed)",
            EntryKind::Folder => "a folder, not a word list",
            EntryKind::Other => "a FIFO, socket or device, not a file",
        };
        refused.push((entry.path, why.to_string()));
    }
    found.sort();
    let left_out = found.len().saturating_sub(MAX_FILES);
    found.truncate(MAX_FILES);
    refused.sort();
    refused.truncate(MAX_FILES);
    Ok(Found { lists: found, refused, left_out })
}

/// Every name a word list can be installed as, in catalogue order: the id
/// of a one-layer lexicon (`CSW21`), the layer names of the others
/// (`OSPD4`, `MW11-long`).
pub fn names() -> Vec<&'static str> {
    official::OFFICIAL.iter().flat_map(|l| l.layers.iter().map(|layer| layer.fst.trim_end_matches(".fst"))).collect()
}

/// The name a file's own name gives it (`CSW21.txt` → `CSW21`, `MW11.txt` →
/// `MW11`), if that is an official lexicon or layer.
pub fn name_from_file(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    official::layer_for_name(stem).map(|_| stem.to_string())
}

/// The name a list installs as, by what it is: its words recognised as an
/// official list (by its pinned digest, else its published fingerprint and
/// word count), whatever the file is called (`Collins 2015.txt` is CSW15);
/// else by its file's name ([`name_from_file`]); else none.
pub fn name_for(path: &Path, compiled: &Compiled) -> Option<String> {
    let m = &compiled.manifest;
    official::layer_for_content(m.content_sha256.as_deref(), &m.fingerprint, m.word_count)
        .map(|(_, layer)| official::layer_name(layer).to_string())
        .or_else(|| name_from_file(path))
}

/// What one file would be.
#[derive(Debug, Clone)]
pub enum Preview {
    /// Compiled, but no name says which lexicon it is.
    Unnamed(Compiled),
    /// Named and checked.
    Named(Box<Named>),
}

/// A named list, as it would open once installed.
#[derive(Debug, Clone)]
pub struct Named {
    pub prepared: Prepared,
    /// The lexicon it belongs to (`OSPD4+MW11` for the layer `OSPD4`).
    pub lexicon: String,
    /// The status the lexicon would have, from these bytes; for a list
    /// that is not the one named, [`Status::Mismatch`].
    pub status: Status,
    /// What the status rests on or lacks, in words (another layer missing,
    /// the digest that differs), empty when there is nothing to add.
    pub note: String,
    /// Whether [`Prepared::install`] would install it.
    pub installable: bool,
    /// The lexicon installed now is already these very bytes: installing
    /// again changes nothing (a director who opens the stick a second time
    /// sees so, instead of "would be").
    pub already_installed: bool,
}

impl Preview {
    /// The compiled list either way.
    pub fn compiled(&self) -> &Compiled {
        match self {
            Preview::Unnamed(c) => c,
            Preview::Named(n) => &n.prepared.compiled,
        }
    }
}

/// Names `compiled` as `name` (or leaves it unnamed) and works out what it
/// would be in the lexicon directory `dir` as it is now.
pub fn preview(compiled: Compiled, name: Option<&str>, dir: &Path) -> Result<Preview, BuildError> {
    let Some(name) = name else { return Ok(Preview::Unnamed(compiled)) };
    let prepared = build::prepare_official(compiled, name)?;
    let lexicon = prepared.lexicon.id.to_string();
    let named = match &prepared.evidence {
        Evidence::NotTheList(problem) => {
            let note = format!("not {name}: {problem}; it will not be installed");
            Named { prepared, lexicon, status: Status::Mismatch, note, installable: false, already_installed: false }
        }
        _ => match prepared.preview(dir) {
            Ok(opened) => {
                let status = opened.status();
                let note = if status.can_judge() { String::new() } else { opened.status_text() };
                // Compared layer by layer from the bytes (each file's and its
                // words' digests), never from a manifest's claim.
                let installed = super::catalog::Catalog::load(dir).open(&lexicon).ok();
                let already_installed = installed.is_some_and(|i| i.identity().layers == opened.identity().layers);
                Named { prepared, lexicon, status, note, installable: true, already_installed }
            }
            // Another layer of the lexicon is not installed (OSPD4 without
            // MW11-long): installable, but it will not judge until it is.
            Err(e) => {
                let note = format!("{}: {e}", e.status());
                Named { prepared, lexicon, status: e.status(), note, installable: true, already_installed: false }
            }
        },
    };
    Ok(Preview::Named(Box::new(named)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_txt_files_at_the_top_are_word_lists() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for name in ["B.txt", "a.TXT", "._B.txt", "notes.md", "c.txt.bak"] {
            std::fs::write(d.join(name), "CAT\n").unwrap();
        }
        std::fs::create_dir(d.join("folder.txt")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", d.join("link.txt")).unwrap();
        let found = find_word_lists(d).unwrap();
        let names: Vec<_> = found.lists.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["B.txt", "a.TXT"]);
        assert_eq!(found.left_out, 0);
        let refused: Vec<_> =
            found.refused.iter().map(|(p, why)| (p.file_name().unwrap().to_str().unwrap(), why.as_str())).collect();
        assert_eq!(
            refused,
            [("folder.txt", "a folder, not a word list"), ("link.txt", "a link (a stick's links are never followed)")],
            "named, never opened"
        );
        for i in 0..MAX_FILES + 3 {
            std::fs::write(d.join(format!("l{i:02}.txt")), "CAT\n").unwrap();
        }
        let found = find_word_lists(d).unwrap();
        assert_eq!((found.lists.len(), found.left_out), (MAX_FILES, 5));
    }

    #[test]
    fn names_come_from_the_catalogue_and_file_names() {
        let all = names();
        assert!(all.contains(&"CSW15") && all.contains(&"OSPD4") && all.contains(&"MW11-long"), "{all:?}");
        assert!(!all.contains(&"DEMO"), "the demo list is built in, never installed");
        assert_eq!(name_from_file(Path::new("/s/CSW21.txt")).as_deref(), Some("CSW21"));
        assert_eq!(name_from_file(Path::new("/s/MW11.txt")).as_deref(), Some("MW11"));
        assert_eq!(name_from_file(Path::new("/s/mywords.txt")), None);
        assert_eq!(name_from_file(Path::new("/s/csw21.txt")), None, "ids are exact");
    }
}
