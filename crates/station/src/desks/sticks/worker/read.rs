//! Reading a stick for import: every word list on it compiled and
//! previewed, each shown as a row of the menu, and the facts of a lexicon
//! once installed. Runs on the desk's job thread; nothing here changes the
//! station.

use super::{InstalledFacts, Outcome};
use crate::desks::{ImportRow, ImportState};
use std::path::Path;
use wordjudge_core::lexicon::build::BuildError;
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::import::{self, Preview};
use wordjudge_core::usb::{Stick, Sticks};

/// The menu's row for the list at `path`: what it would install as, or why not.
pub(super) fn row_of(path: &Path, preview: &Result<Preview, String>) -> ImportRow {
    let file = path.file_name().map(|n| wordjudge_core::word::printable(&n.to_string_lossy(), 64)).unwrap_or_default();
    match preview {
        Err(why) => ImportRow { file, name: None, state: ImportState::Unusable(why.clone()) },
        Ok(Preview::Unnamed(compiled)) => ImportRow {
            file,
            name: None,
            state: ImportState::Unnamed {
                fingerprint: compiled.manifest.fingerprint.short(),
                words: compiled.manifest.word_count,
            },
        },
        Ok(Preview::Named(named)) => {
            let manifest = &named.prepared.compiled.manifest;
            let name = named.prepared.layer.fst.trim_end_matches(".fst").to_string();
            ImportRow {
                file,
                name: Some(name),
                state: ImportState::Would {
                    lexicon: named.lexicon.clone(),
                    status: named.status.label().to_string(),
                    fingerprint: manifest.fingerprint.short(),
                    words: manifest.word_count,
                    installable: named.installable,
                    note: named.note.clone(),
                    already: named.already_installed,
                },
            }
        }
    }
}

/// Reads and previews every word list on the stick mounted at `root`.
/// A read that fails because the stick is gone fails the whole import.
pub(super) fn read_stick(
    sticks: &dyn Sticks,
    stick: &Stick,
    root: &Path,
    lexicon_dir: &Path,
) -> Result<Outcome, String> {
    let gone = || !sticks.list().iter().any(|s| s.device == stick.device);
    let found = import::find_word_lists(root).map_err(|e| format!("cannot list the stick: {e}"))?;
    let left_out = found.left_out;
    let mut files = Vec::with_capacity(found.lists.len() + found.refused.len());
    for path in found.lists {
        let preview = match wordjudge_core::lexicon::build::compile_file(&path, false) {
            Ok(compiled) => {
                let name = import::name_for(&path, &compiled);
                import::preview(compiled, name.as_deref(), lexicon_dir).map_err(|e| e.to_string())
            }
            Err(BuildError::ReadSource(e)) if gone() => {
                return Err(format!("the stick was removed while it was being read ({e})"))
            }
            Err(e) => Err(e.to_string()),
        };
        files.push((path, preview));
    }
    // Links, FIFOs and folders named like lists: shown refused, never opened.
    files.extend(found.refused.into_iter().map(|(path, why)| (path, Err(why))));
    // Pulled out after its last file was read: nothing it showed can be
    // trusted to be on it, so nothing is shown.
    if gone() {
        return Err("the stick was removed while it was being read".into());
    }
    Ok(Outcome::Opened { stick: stick.clone(), files, left_out })
}

/// The lexicon `id`'s facts after an install, read from the installed bytes.
pub(super) fn installed_facts(dir: &Path, id: &str) -> InstalledFacts {
    match Catalog::load(dir).open(id) {
        Ok(lexicon) => {
            let identity = wordjudge_core::audit::LexiconIdentity::of(&lexicon);
            let words = lexicon.layers().iter().map(|l| l.facts().word_count).sum();
            InstalledFacts {
                status: identity.status,
                fingerprint: identity.fingerprint,
                content_sha256: Some(identity.content_sha256.join(" ")),
                fst_sha256: identity.fst_sha256.join(" "),
                words,
            }
        }
        Err(e) => InstalledFacts {
            status: e.status().to_string(),
            fingerprint: String::new(),
            content_sha256: None,
            fst_sha256: String::new(),
            words: 0,
        },
    }
}
