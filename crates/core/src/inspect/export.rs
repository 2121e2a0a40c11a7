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

use crate::audit::checkpoint::NoteVerifier;
use crate::audit::format;
use crate::audit::numbering::COUNTER_FILE;
use super::read;
use super::verify::{verify_with, VerifyError, VerifyOptions};
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

/// The name under `parent` not yet taken: `NAME`, else `NAME-2`, `NAME-3`…
fn free_name(parent: &Path, name: &str) -> String {
    if !parent.join(name).exists() {
        return name.to_string();
    }
    (2..).map(|n| format!("{name}-{n}")).find(|n| !parent.join(n).exists()).expect("an unbounded range has a free name")
}

struct Writer {
    dir: PathBuf,
}

impl Writer {
    fn write(&self, name: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.dir.join(name);
        // Into a folder made just now on the stick: a new file, never
        // through a link planted in its place.
        crate::outside_files::write_new_file(&path, bytes, 0o644).map_err(|source| ExportError::Write { path: path.clone(), source })
    }
}

fn sync_dir(dir: &Path) -> Result<(), ExportError> {
    crate::outside_files::sync_folder(dir).map_err(|source| ExportError::Write { path: dir.to_path_buf(), source })
}

fn make_dir(dir: &Path) -> Result<(), ExportError> {
    std::fs::create_dir(dir).map_err(|source| ExportError::Write { path: dir.to_path_buf(), source })
}

/// Bytes up to and including the last newline: a line being appended while
/// the file is copied is left out whole rather than copied torn.
fn complete_lines(bytes: &[u8]) -> &[u8] {
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => &bytes[..=last],
        None => &[],
    }
}

/// Exports the log in `audit_dir` into a new folder under `parent` named
/// [`folder_name`] (or with `-2`…), with `signed` (a checkpoint note and the
/// key that verifies it) when the log has a key.
pub fn write_folder(
    audit_dir: &Path,
    parent: &Path,
    name: &str,
    signed: Option<(String, NoteVerifier)>,
) -> Result<FolderExport, ExportError> {
    let final_name = free_name(parent, name);
    let partial = parent.join(format!(".{final_name}.partial"));
    if partial.exists() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    let result = fill(audit_dir, &partial, &final_name, signed);
    let (lines, intact, signed) = match result {
        Ok(summary) => summary,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(e);
        }
    };
    let folder = parent.join(&final_name);
    std::fs::rename(&partial, &folder).map_err(|source| ExportError::Write { path: folder.clone(), source })?;
    sync_dir(parent)?;
    Ok(FolderExport { folder, lines, intact, signed })
}

/// Fills the folder `out` (the `.partial` one) that becomes `final_name`.
fn fill(
    audit_dir: &Path,
    out: &Path,
    final_name: &str,
    signed: Option<(String, NoteVerifier)>,
) -> Result<(usize, bool, bool), ExportError> {
    make_dir(out)?;
    let copy = out.join("audit");
    make_dir(&copy)?;
    let (logs, others) = format::list_dir(audit_dir)
        .map_err(|source| ExportError::Read(VerifyError::ReadDir { dir: audit_dir.to_path_buf(), source }))?;
    let log_files = Writer { dir: copy.clone() };
    for (name, path) in &logs {
        let bytes = crate::outside_files::read_small_file(path, crate::outside_files::limits::AUDIT_FILE).map_err(|e| {
            ExportError::Read(VerifyError::ReadDir { dir: path.clone(), source: std::io::Error::other(e) })
        })?;
        log_files.write(&name.file_name(), complete_lines(&bytes))?;
    }
    if others.iter().any(|o| o == COUNTER_FILE) {
        if let Ok(bytes) = crate::outside_files::read_small_file(&audit_dir.join(COUNTER_FILE), crate::outside_files::limits::SMALL_FILE) {
            log_files.write(COUNTER_FILE, &bytes)?;
        }
    }
    sync_dir(&copy)?;

    let top = Writer { dir: out.to_path_buf() };
    // The CSV and the report describe the copy, not the live log: what the
    // director takes home is what was checked.
    let lines = read::read_all(&copy).map_err(ExportError::Read)?;
    let mut csv = read::csv_header();
    csv.push('\n');
    for line in &lines {
        csv.push_str(&read::csv_row(line));
        csv.push('\n');
    }
    top.write("audit.csv", csv.as_bytes())?;
    let has_signature = signed.is_some();
    if let Some((note, verifier)) = &signed {
        top.write("station-key.pub", format!("{}\n", verifier.to_text()).as_bytes())?;
        top.write("checkpoint.txt", note.as_bytes())?;
    }
    let options = VerifyOptions { checkpoint: signed, ..Default::default() };
    let mut report = verify_with(&copy, &options).map_err(ExportError::Read)?;
    let intact = report.ok();
    // verify.txt names the folder as the director will find it, relative to
    // the stick: never the `.partial` name it was checked under, nor a path
    // that exists only on the station.
    report.dir = Path::new(final_name).join("audit");
    top.write("verify.txt", format!("{report}").as_bytes())?;
    top.write("README.txt", readme(has_signature).as_bytes())?;
    sync_dir(out)?;
    Ok((lines.len(), intact, has_signature))
}

fn readme(signed: bool) -> String {
    let check = if signed {
        "    wordjudge audit verify audit --pubkey station-key.pub --checkpoint checkpoint.txt \\\n\
         \x20       --key-fingerprint XXXX-XXXX-XXXX-XXXX\n\n\
         XXXX-XXXX-XXXX-XXXX is the station key's fingerprint AS NOTED AT SET-UP (the\n\
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
        assert_eq!(free_name(dir.path(), "x"), "x");
        std::fs::create_dir(dir.path().join("x")).unwrap();
        std::fs::create_dir(dir.path().join("x-2")).unwrap();
        assert_eq!(free_name(dir.path(), "x"), "x-3");
    }
}
