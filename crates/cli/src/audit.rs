//! `wordjudge audit verify|show|export`: the director's and operator's view
//! of the audit log. DIR defaults to the config's `audit_dir`. These are
//! readers: they work while the kiosk writes. Only `export`, when no kiosk
//! holds the folder, opens it as the writer to record the export and sign
//! its checkpoint.

use super::Context;
use jiff::tz::TimeZone;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wordjudge_core::audit::checkpoint::{self, Checkpoint, NoteVerifier, StationKey};
use wordjudge_core::audit::Slip;
use wordjudge_core::inspect::read::{self, Filter};
use wordjudge_core::inspect::{verify, VerifyOptions};
use wordjudge_core::recorder::AuditLog;

#[derive(clap::Subcommand, Debug)]
#[command(defer = true)] // built only when chosen: see the `Command` enum in lib.rs
pub enum AuditCommand {
    /// Check every audit file and the hash chain: exit 0 intact, 1 damaged or empty
    Verify {
        /// Audit directory [default: the config's audit_dir]
        dir: Option<PathBuf>,
        /// A slip: challenge number and the code shown with it (repeatable)
        #[arg(long = "slip", value_name = "N=CODE")]
        slip: Vec<String>,
        /// A file of slips, one N=CODE per line
        #[arg(long = "slips", value_name = "FILE")]
        slips_file: Option<PathBuf>,
        /// The station's public key (the .pub file: name+keyid+base64)
        #[arg(long, value_name = "FILE", requires = "checkpoint")]
        pubkey: Option<PathBuf>,
        /// A signed checkpoint copied off the station earlier
        #[arg(long, value_name = "FILE", requires = "pubkey")]
        checkpoint: Option<PathBuf>,
        /// The station key code as noted at set-up (the director menu's
        /// "Station key code", e.g. 3C37-CA65-132D-CD46): the checkpoint's key
        /// (else the key the log's key_created record names) must be that key
        #[arg(long = "station-key-code", alias = "key-fingerprint", value_name = "CODE")]
        key_fingerprint: Option<String>,
        /// Do not compare with journald's copies of the records (compared by
        /// default when the folder is this station's and journalctl runs)
        #[arg(long)]
        no_journal: bool,
    },
    /// Show records, oldest first, in local time
    Show {
        /// Audit directory [default: the config's audit_dir]
        dir: Option<PathBuf>,
        #[command(flatten)]
        filter: FilterArgs,
    },
    /// Export records as CSV or JSON Lines, to standard output or a file
    Export {
        /// Audit directory [default: the config's audit_dir]
        dir: Option<PathBuf>,
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// Write to FILE (atomically) instead of standard output; the signed
        /// checkpoint goes to FILE.checkpoint and the public key to FILE.pub
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        filter: FilterArgs,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// One row per record, for a spreadsheet
    Csv,
    /// The lines exactly as written (a full export verifies with `audit verify`)
    Jsonl,
}

#[derive(clap::Args, Debug)]
pub struct FilterArgs {
    /// Records at or after: RFC 3339 time, local date-time or date (2025-05-01)
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// Records before: RFC 3339 time, local date-time, or a date (up to that day's end)
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    /// Only the adjudication with this challenge number
    #[arg(long, value_name = "N")]
    challenge: Option<u64>,
    /// Only adjudications with this lexicon (and events naming it)
    #[arg(long, value_name = "ID")]
    lexicon: Option<String>,
}

impl FilterArgs {
    fn filter(&self, tz: &TimeZone) -> Result<Filter, read::BadTime> {
        Ok(Filter {
            since: self.since.as_deref().map(|t| read::parse_bound(t, tz, false)).transpose()?,
            until: self.until.as_deref().map(|t| read::parse_bound(t, tz, true)).transpose()?,
            challenge: self.challenge,
            lexicon: self.lexicon.clone(),
        })
    }
}

pub fn run(context: &Context, command: AuditCommand) -> ExitCode {
    let default_dir = || context.loaded.config.audit_dir.clone();
    let tz = TimeZone::system();
    match command {
        AuditCommand::Verify { dir, slip, slips_file, pubkey, checkpoint, key_fingerprint, no_journal } => {
            let dir = dir.unwrap_or_else(default_dir);
            // A fingerprint mistyped is a usage error, before any reading.
            if let Some(Err(e)) = key_fingerprint.as_deref().map(checkpoint::NotedFingerprint::parse) {
                return super::fail(e);
            }
            // journald's copies belong to this station's own folder only;
            // when they are not read, the report says so and why.
            let (journal, journal_unavailable) = if no_journal {
                (None, Some("--no-journal".to_string()))
            } else if !same_folder(&dir, &context.loaded.config.audit_dir) {
                (None, Some("not the audit folder of this station's config".to_string()))
            } else {
                match journal_copies() {
                    Some(copies) => (Some(copies), None),
                    None => (None, Some("journalctl did not run here".to_string())),
                }
            };
            match verify_options(&slip, slips_file.as_deref(), pubkey.as_deref(), checkpoint.as_deref())
                .map(|options| VerifyOptions { key_fingerprint, journal, journal_unavailable, ..options })
            {
                Ok(options) => run_verify(dir, &options),
                Err(e) => super::fail(e),
            }
        }
        AuditCommand::Show { dir, filter } => match filter.filter(&tz) {
            Ok(filter) => run_show(dir.unwrap_or_else(default_dir), &filter, &tz),
            Err(e) => super::fail(e),
        },
        AuditCommand::Export { dir, format, out, filter } => match filter.filter(&tz) {
            Ok(filter) => {
                // Only the station's own config may write to its log (the
                // export record, a checkpoint), and under its own name: any
                // other folder is exported read-only.
                let dir = dir.unwrap_or_else(default_dir);
                let config = &context.loaded.config;
                let own = context.loaded.usable() && same_folder(&dir, &config.audit_dir);
                run_export(dir, format, out, &filter, own.then_some(config.station_name.as_str()))
            }
            Err(e) => super::fail(e),
        },
    }
}

fn verify_options(
    slips: &[String],
    slips_file: Option<&Path>,
    pubkey: Option<&Path>,
    checkpoint: Option<&Path>,
) -> Result<VerifyOptions, String> {
    let mut options = VerifyOptions::default();
    for text in slips {
        options.slips.push(Slip::parse(text).map_err(|e| e.to_string())?);
    }
    if let Some(path) = slips_file {
        let text = read_input(path)?;
        let list = Slip::parse_list(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        options.slips.extend(list);
    }
    if let (Some(pubkey), Some(checkpoint)) = (pubkey, checkpoint) {
        let key = read_input(pubkey)?;
        let verifier = NoteVerifier::parse(&key).map_err(|e| format!("{}: {e}", pubkey.display()))?;
        let note = read_input(checkpoint)?;
        options.checkpoint = Some((note, verifier));
    }
    Ok(options)
}

/// A file given to `audit verify` (slips, key, checkpoint): a regular file
/// of at most 16 MB, opened without blocking (`/dev/zero` or a FIFO is
/// refused at once, never read until memory runs out).
fn read_input(path: &Path) -> Result<String, String> {
    wordjudge_core::outside_files::read_small_text(path, wordjudge_core::outside_files::limits::VERIFY_INPUT)
        .map_err(|e| e.to_string())
}

/// journald's copies of the audit records, oldest first, when `journalctl`
/// runs here; read line by line (a long journal is never held whole).
fn journal_copies() -> Option<Vec<wordjudge_core::inspect::JournalCopy>> {
    use wordjudge_core::recorder::journal::SYSLOG_IDENTIFIER;
    use wordjudge_core::recorder::journal_field_name as field;
    let (seq, challenge, hash) = (field("seq"), field("challenge"), field("line_sha256"));
    let mut child = std::process::Command::new("journalctl")
        .args(["--no-pager", "-o", "json", &format!("--output-fields={seq},{challenge},{hash}")])
        .arg(format!("SYSLOG_IDENTIFIER={SYSLOG_IDENTIFIER}"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut copies = Vec::new();
    let mut line = Vec::new();
    let mut reader = std::io::BufReader::new(child.stdout.take()?);
    while matches!(
        wordjudge_core::outside_files::read_line_bounded(&mut reader, 64 * 1024, &mut line),
        Ok(wordjudge_core::outside_files::Line::Complete | wordjudge_core::outside_files::Line::TooLong { .. })
    ) {
        let Ok(entry) = serde_json::from_slice::<serde_json::Value>(&line) else { continue };
        let number = |name: &str| entry[name].as_str().and_then(|v| v.parse::<u64>().ok());
        if let (Some(seq), Some(line_sha256)) = (number(&seq), entry[&hash].as_str()) {
            copies.push(wordjudge_core::inspect::JournalCopy {
                seq,
                challenge: number(&challenge),
                line_sha256: line_sha256.to_string(),
            });
        }
    }
    let status = child.wait().ok()?;
    status.success().then_some(copies)
}

fn run_verify(dir: PathBuf, options: &VerifyOptions) -> ExitCode {
    match verify::verify_with(&dir, options) {
        Ok(report) => {
            print!("{report}");
            if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => super::fail(e),
    }
}

/// Warns (on standard error) when the chain is damaged, so nobody reads a
/// damaged log without knowing.
fn warn_if_damaged(dir: &std::path::Path) {
    if let Ok(report) = verify::verify(dir) {
        if let Some(first) = report.first_break() {
            eprintln!("wordjudge: WARNING: the audit log is damaged ({first}); run `wordjudge audit verify`");
        }
    }
}

fn run_show(dir: PathBuf, filter: &Filter, tz: &TimeZone) -> ExitCode {
    let lines = match read::read_all(&dir) {
        Ok(lines) => lines,
        Err(e) => return super::fail(e),
    };
    warn_if_damaged(&dir);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut shown = 0u64;
    let mut stations = read::StationNotes::default();
    for line in &lines {
        let keep = match &line.record {
            Some(record) => filter.matches(record),
            None => filter.is_empty(),
        };
        let note = line.record.as_ref().and_then(|r| stations.note(r, keep)).unwrap_or_default();
        if keep {
            shown += 1;
            if writeln!(out, "{}", read::show_line(line, tz, &note)).is_err() {
                return ExitCode::SUCCESS; // e.g. `| head`
            }
        }
    }
    if shown == 0 {
        eprintln!("wordjudge: no records match");
    }
    ExitCode::SUCCESS
}

/// Whether two paths name the same folder (both resolved; a folder that
/// cannot be resolved is the same as nothing).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn run_export(
    dir: PathBuf,
    format: ExportFormat,
    out: Option<PathBuf>,
    filter: &Filter,
    station: Option<&str>,
) -> ExitCode {
    let format_name = match format {
        ExportFormat::Csv => "csv",
        ExportFormat::Jsonl => "jsonl",
    };
    let destination = out.as_ref().map_or("standard output".to_string(), |p| p.display().to_string());
    // Sign first, so the export contains the export and checkpoint records.
    let signed = match station {
        // The export's records reach the journal as the menu's do.
        Some(station) => wordjudge_core::recorder::journal::with_journald(|| {
            sign_for_export(&dir, station, format_name, &destination)
        }),
        None => Err(format!(
            "{} is not the audit folder of this station's config: exported read-only, nothing recorded, no checkpoint",
            dir.display()
        )),
    };
    let lines = match read::read_all(&dir) {
        Ok(lines) => lines,
        Err(e) => return super::fail(e),
    };
    warn_if_damaged(&dir);
    let text = export_text(&lines, format, filter, out.is_none() && std::io::stdout().is_terminal());
    match out {
        Some(path) => {
            if let Err(e) = wordjudge_core::outside_files::write_atomically(&path, text.as_bytes()) {
                return super::fail(format!("cannot write {}: {e}", path.display()));
            }
            match signed {
                Ok((note, verifier)) => {
                    let note_path = with_suffix(&path, ".checkpoint");
                    let pub_path = with_suffix(&path, ".pub");
                    let written = wordjudge_core::outside_files::write_atomically(&note_path, note.as_bytes())
                        .and_then(|()| {
                            wordjudge_core::outside_files::write_atomically(
                                &pub_path,
                                format!("{}\n", verifier.to_text()).as_bytes(),
                            )
                        });
                    if let Err(e) = written {
                        return super::fail(format!("cannot write the checkpoint next to {}: {e}", path.display()));
                    }
                    eprintln!(
                        "wordjudge: signed checkpoint in {}, public key in {} (station key code {})",
                        note_path.display(),
                        pub_path.display(),
                        verifier.fingerprint().short()
                    );
                }
                Err(why) => eprintln!("wordjudge: no checkpoint signed: {why}"),
            }
            ExitCode::SUCCESS
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            match signed {
                Ok((note, verifier)) => eprintln!(
                    "wordjudge: station key code {}; signed checkpoint:\n{note}",
                    verifier.fingerprint().short()
                ),
                Err(why) => eprintln!("wordjudge: no checkpoint signed: {why}"),
            }
            ExitCode::SUCCESS
        }
    }
}

/// The export's text: the lines `filter` keeps, as CSV or JSON Lines.
/// JSON Lines go out byte for byte (a full export verifies on its own),
/// except `to_terminal`, where control characters are escaped.
fn export_text(lines: &[read::ReadLine], format: ExportFormat, filter: &Filter, to_terminal: bool) -> String {
    let mut text = String::new();
    if format == ExportFormat::Csv {
        text.push_str(&read::csv_header());
        text.push('\n');
    }
    for line in lines {
        let keep = match &line.record {
            Some(record) => filter.matches(record),
            None => filter.is_empty(),
        };
        if !keep {
            continue;
        }
        match format {
            ExportFormat::Csv => text.push_str(&read::csv_row(line)),
            ExportFormat::Jsonl if to_terminal => text.push_str(&read::escape_controls(&line.raw)),
            ExportFormat::Jsonl => text.push_str(&line.raw),
        }
        text.push('\n');
    }
    text
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Signs a checkpoint for an export with the station's key. When no kiosk
/// holds the folder this process is its writer: the export and the
/// checkpoint become records. While a kiosk runs, the checkpoint is signed
/// over the log as read (and is not recorded in it). No key in the folder
/// (not a station's): nothing is signed.
fn sign_for_export(
    dir: &Path,
    station: &str,
    format: &str,
    destination: &str,
) -> Result<(String, NoteVerifier), String> {
    if !checkpoint::public_key_path(dir).exists() {
        return Err(format!("{} has no station key (it is made at the kiosk's first start)", dir.display()));
    }
    match AuditLog::open(dir, station) {
        Ok(mut log) => {
            let verifier = log
                .verifier_key()
                .ok_or_else(|| log.signing_problem().unwrap_or_else(|| "the station key cannot be read".to_string()))?;
            let note = log
                .record_export(format, destination)
                .ok_or_else(|| log.problem().unwrap_or_else(|| "the log is empty".to_string()))?;
            Ok((note, verifier))
        }
        Err(busy) => {
            let key = StationKey::load_or_create(&dir.join(checkpoint::KEY_DIR), station, false)
                .map_err(|e| e.to_string())?
                .ok_or("the station key cannot be read")?
                .0;
            let report = verify::verify(dir).map_err(|e| e.to_string())?;
            let (Some(count), Some(head), true) = (report.last_seq, report.last_line_sha256.clone(), report.ok())
            else {
                return Err("the log does not verify; a checkpoint would vouch for a damaged log".to_string());
            };
            let time = format!("{:.3}", jiff::Timestamp::now());
            let reason = format!("export while {} writes; not recorded in the log", busy.holder);
            let note = key.sign(&Checkpoint { count, head, time, station: station.to_string(), reason });
            Ok((note, key.verifier()))
        }
    }
}
