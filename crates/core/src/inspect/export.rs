//! Exporting the whole log into a folder of its own, for a director to take
//! home on a USB stick and check anywhere with `wordjudge audit verify`.
//!
//! The folder (`wordjudge-export-STATION-DATE`) holds:
//!
//! - `audit/`: the log files byte for byte (complete lines only) and the
//!   challenge counter — what `verify` needs to check the chain, the slip
//!   codes and the numbering off the station;
//! - `audit.csv`: one row per record, for a spreadsheet;
//! - `verify.txt`: the `verify` report of the copy, as the station saw it;
//! - `station-key.pub` and `checkpoint.txt`: the station's public key and a
//!   checkpoint signed for this export, when the log has a key;
//! - `README.txt`: how to check it.
//!
//! It is written as `.NAME.partial` and renamed when every file is synced,
//! so a stick pulled out mid-export holds a folder that says it is partial,
//! never one that looks complete. The log itself is only read.

use super::read;
use super::verify::{verify_with, VerifyError, VerifyOptions};
use crate::audit::checkpoint::NoteVerifier;
use crate::audit::format;
use crate::audit::numbering::COUNTER_FILE;
use crate::outside_files::HeldFolder;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderExport {
    /// The finished folder.
    pub folder: PathBuf,
    /// Lines exported (records, and any damaged line as it is).
    pub lines: usize,
    /// Whether the copy verifies (chain, numbering, and the checkpoint when
    /// one was signed).
    pub intact: bool,
    /// Whether a signed checkpoint and the public key went with it.
    pub signed: bool,
}

/// Why an export failed. The log was not touched; a `.partial` folder may
/// remain on the destination, named as such.
#[derive(Debug)]
pub enum ExportError {
    /// The log cannot be read.
    Read(VerifyError),
    /// Writing the destination failed (full, read-only, pulled out).
    Write { path: PathBuf, source: io::Error },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Read(e) => write!(f, "cannot read the audit log: {e}"),
            ExportError::Write { path, source } => write!(f, "cannot write {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {}

/// `wordjudge-export-Table-3-2026-11-23`: letters, digits and `-` only, so
/// the name is valid on FAT and exFAT and means the same everywhere.
pub fn folder_name(station: &str, date: &str) -> String {
    let slug: String = station.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let slug = slug.split('-').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-");
    let slug = if slug.is_empty() { "station".to_string() } else { slug.chars().take(40).collect() };
    format!("wordjudge-export-{slug}-{date}")
}

/// The name in `stick` not yet taken: `NAME`, else `NAME-2`, `NAME-3`…
fn free_name(stick: &HeldFolder, name: &str) -> String {
    if !stick.has(name) {
        return name.to_string();
    }
    (2..).map(|n| format!("{name}-{n}")).find(|n| !stick.has(n)).expect("an unbounded range has a free name")
}

/// Bytes up to and including the last newline: a line being appended while
/// the file is copied is left out whole rather than copied torn.
fn complete_lines(bytes: &[u8]) -> &[u8] {
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => &bytes[..=last],
        None => &[],
    }
}

/// Everything the export folder holds, made on the station before the
/// stick is written: the files of `audit/` and those beside it.
struct Contents {
    audit: Vec<(String, Vec<u8>)>,
    top: Vec<(&'static str, Vec<u8>)>,
    lines: usize,
    intact: bool,
    signed: bool,
}

/// Exports the log in `audit_dir` into a new folder under `parent` named
/// [`folder_name`] (or with `-2`…), with `signed` (a checkpoint note and the
/// key that verifies it) when the log has a key.
///
/// The stick's folder is held by its descriptor from the first look
/// ([`HeldFolder`]) and every file is made inside the folders made now, so a
/// folder swapped for a link meanwhile redirects no write; and what the
/// CSV and `verify.txt` describe is the station's own copy, checked before
/// anything is written, never something read back from the stick.
pub fn write_folder(
    audit_dir: &Path,
    parent: &Path,
    name: &str,
    signed: Option<(String, NoteVerifier)>,
) -> Result<FolderExport, ExportError> {
    let stick = HeldFolder::open(parent, "", false)
        .map_err(|source| ExportError::Write { path: parent.to_path_buf(), source })?;
    let final_name = free_name(&stick, name);
    let contents = contents(audit_dir, &final_name, signed)?;
    let partial = format!(".{final_name}.partial");
    if stick.has(&partial) {
        // An earlier export cut short: cleared, never followed.
        let _ = stick.remove_tree(&partial, 2);
    }
    let out = match fill(&stick, &partial, &contents) {
        Ok(out) => out,
        Err(e) => {
            let _ = stick.remove_tree(&partial, 2);
            return Err(e);
        }
    };
    let folder = parent.join(&final_name);
    stick.rename(&partial, &final_name).map_err(|source| ExportError::Write { path: folder.clone(), source })?;
    // A rename goes by name: an entry traded into the `.partial` place just
    // before it would be what now bears the export's name. Finished means
    // the folder written is the one under that name.
    if !stick.holds(&final_name, &out) {
        let moved = io::Error::other(
            "the folder was moved while it was written (something else on the stick renames its entries)",
        );
        return Err(ExportError::Write { path: folder, source: moved });
    }
    Ok(FolderExport { folder, lines: contents.lines, intact: contents.intact, signed: contents.signed })
}

/// Writes `contents` into the new folder `partial` of the stick, held.
fn fill(stick: &HeldFolder, partial: &str, contents: &Contents) -> Result<HeldFolder, ExportError> {
    let written = |folder: &HeldFolder, name: &str| {
        let path = folder.path().join(name);
        move |source| ExportError::Write { path, source }
    };
    let out = stick.make_child(partial).map_err(written(stick, partial))?;
    let copy = out.make_child("audit").map_err(written(&out, "audit"))?;
    for (name, bytes) in &contents.audit {
        copy.write_new(name, bytes, 0o644).map_err(written(&copy, name))?;
    }
    copy.sync().map_err(written(&out, "audit"))?;
    for (name, bytes) in &contents.top {
        out.write_new(name, bytes, 0o644).map_err(written(&out, name))?;
    }
    out.sync().map_err(written(stick, partial))?;
    Ok(out)
}

/// The export's files: the log copied (complete lines) into a private
/// folder of the station, and the CSV and report made from that copy, so
/// what the director takes home is what was checked.
fn contents(
    audit_dir: &Path,
    final_name: &str,
    signed: Option<(String, NoteVerifier)>,
) -> Result<Contents, ExportError> {
    let (logs, others) = format::list_dir(audit_dir)
        .map_err(|source| ExportError::Read(VerifyError::ReadDir { dir: audit_dir.to_path_buf(), source }))?;
    let mut audit = Vec::new();
    for (name, path) in &logs {
        let bytes =
            crate::outside_files::read_small_file(path, crate::outside_files::limits::AUDIT_FILE).map_err(|e| {
                ExportError::Read(VerifyError::ReadDir { dir: path.clone(), source: std::io::Error::other(e) })
            })?;
        audit.push((name.file_name(), complete_lines(&bytes).to_vec()));
    }
    if others.iter().any(|o| o == COUNTER_FILE) {
        if let Ok(bytes) = crate::outside_files::read_small_file(
            &audit_dir.join(COUNTER_FILE),
            crate::outside_files::limits::SMALL_FILE,
        ) {
            audit.push((COUNTER_FILE.to_string(), bytes));
        }
    }
    let private = tempfile::tempdir()
        .map_err(|source| ExportError::Read(VerifyError::ReadDir { dir: std::env::temp_dir(), source }))?;
    for (name, bytes) in &audit {
        let path = private.path().join(name);
        // A folder of this process's own, made just now: a new file each.
        crate::outside_files::write_new_file(&path, bytes, 0o600)
            .map_err(|source| ExportError::Read(VerifyError::ReadDir { dir: path, source }))?;
    }
    let lines = read::read_all(private.path()).map_err(ExportError::Read)?;
    let mut csv = read::csv_header();
    csv.push('\n');
    for line in &lines {
        csv.push_str(&read::csv_row(line));
        csv.push('\n');
    }
    let mut top = vec![("audit.csv", csv.into_bytes())];
    let has_signature = signed.is_some();
    if let Some((note, verifier)) = &signed {
        top.push(("station-key.pub", format!("{}\n", verifier.to_text()).into_bytes()));
        top.push(("checkpoint.txt", note.clone().into_bytes()));
    }
    let options = VerifyOptions { checkpoint: signed, ..Default::default() };
    let mut report = verify_with(private.path(), &options).map_err(ExportError::Read)?;
    let intact = report.ok();
    // verify.txt names the folder as the director will find it, relative to
    // the stick: never a path that exists only on the station.
    report.dir = Path::new(final_name).join("audit");
    top.push(("verify.txt", format!("{report}").into_bytes()));
    top.push(("README.txt", readme(has_signature).into_bytes()));
    Ok(Contents { audit, top, lines: lines.len(), intact, signed: has_signature })
}

fn readme(signed: bool) -> String {
    let check = if signed {
        "    wordjudge audit verify audit --pubkey station-key.pub --checkpoint checkpoint.txt \\\n\
         \x20       --station-key-code XXXX-XXXX-XXXX-XXXX\n\n\
         XXXX-XXXX-XXXX-XXXX is the station key code AS NOTED AT SET-UP (the\n\
         director menu's \"Station key code\" line, on the set-up sheet): never take it\n\
         from this folder. station-key.pub proves nothing by itself: whoever could\n\
         rewrite this log could also put their own key and checkpoint here. verify\n\
         prints the key it used and fails when it is not the noted one, or not the\n\
         key the log's own key_created record names.\n"
    } else {
        "    wordjudge audit verify audit\n"
    };
    format!(
        "wordjudge audit log export\n\n\
         audit/           the station's log files, byte for byte, and its challenge counter\n{}\
         audit.csv        NOT AUTHENTICATED: one row per record, for a spreadsheet; made\n\
         \x20                from audit/ and covered by no signature: check audit/, not this\n\
         verify.txt       NOT AUTHENTICATED: the station's own check of this copy when it\n\
         \x20                was exported; run the check below yourself instead\n\n\
         To check it on any computer with wordjudge, from this folder:\n\n{check}\n\
         Add --slip N=CODE for each verdict slip you hold (challenge number and code).\n",
        if signed {
            "station-key.pub  the station's public key, as the station says it is (see below)\n\
             checkpoint.txt   a checkpoint of the log, signed for this export\n"
        } else {
            "(no signing key: this log has no checkpoint)\n"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_safe_on_any_stick() {
        assert_eq!(folder_name("Table 3", "2026-11-23"), "wordjudge-export-Table-3-2026-11-23");
        assert_eq!(folder_name("../../x: «é»", "2026-11-23"), "wordjudge-export-x-2026-11-23");
        assert_eq!(folder_name("", "2026-11-23"), "wordjudge-export-station-2026-11-23");
    }

    #[test]
    fn a_torn_last_line_is_not_copied() {
        assert_eq!(complete_lines(b"a\nb\nhalf"), b"a\nb\n");
        assert_eq!(complete_lines(b"half"), b"");
    }

    #[test]
    fn names_already_taken_get_a_number() {
        let dir = tempfile::tempdir().unwrap();
        let held = HeldFolder::open(dir.path(), "", false).unwrap();
        assert_eq!(free_name(&held, "x"), "x");
        std::fs::create_dir(dir.path().join("x")).unwrap();
        std::os::unix::fs::symlink("/nowhere", dir.path().join("x-2")).unwrap();
        assert_eq!(free_name(&held, "x"), "x-3", "a dangling link takes its name too");
    }
}
