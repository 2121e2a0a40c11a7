//! `wordjudge fleet status`: the stations' state from the journal files a
//! `systemd-journal-remote` (SplitMode=host) received on the director's
//! laptop, read with `journalctl -o json` (the journal's binary format is
//! journalctl's to read) and summed up by [`wordjudge::fleet`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use wordjudge::fleet::{self, render, FleetError};
use wordjudge::recorder::journal::SYSLOG_IDENTIFIER;

/// Where `systemd-journal-remote` writes by default.
pub const DEFAULT_DIR: &str = "/var/log/journal/remote";

/// A journal entry line longer than this is refused.
const LINE_LIMIT: usize = 1024 * 1024;

#[derive(clap::Subcommand, Debug)]
pub enum FleetCommand {
    /// One line per station from the journal files received from the stations
    Status(StatusArgs),
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// Folder of the received journal files, remote-<host>.journal [default: /var/log/journal/remote]
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    dir: Option<PathBuf>,
    /// Read these journal files instead of a folder (repeatable)
    #[arg(long, value_name = "FILE")]
    file: Vec<PathBuf>,
    /// Also write a one-page HTML view to FILE (atomically)
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The time to show "last seen" against, RFC 3339 [default: now]
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
}

/// Why `fleet status` gave no status.
#[derive(Debug)]
pub enum StatusError {
    NoJournalFiles(PathBuf),
    Unreadable(PathBuf, std::io::Error),
    NotAFile(PathBuf),
    JournalctlMissing,
    JournalctlFailed { status: String, stderr: String },
    LineTooLong { entry: usize, len: u64 },
    BadNow(String),
    Entries(FleetError),
    WriteHtml(PathBuf, std::io::Error),
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatusError::NoJournalFiles(dir) => write!(
                f,
                "{} holds no journal files (*.journal): has systemd-journal-remote received anything yet? Give the folder it writes to (--dir) or the files (--file)",
                dir.display()
            ),
            StatusError::Unreadable(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            StatusError::NotAFile(path) => write!(f, "{} is not a journal file", path.display()),
            StatusError::JournalctlMissing => write!(
                f,
                "journalctl is not installed here; it reads the journal files (Debian and Ubuntu: the systemd package)"
            ),
            StatusError::JournalctlFailed { status, stderr } => {
                write!(f, "journalctl could not read the journal ({status}): {}", stderr.trim())
            }
            StatusError::LineTooLong { entry, len } => {
                write!(f, "journal entry {entry} is {len} bytes long, more than a wordjudge record can be")
            }
            StatusError::BadNow(text) => {
                write!(f, "--now {} is not an RFC 3339 time (2026-11-22T14:02:11Z)", wordjudge::word::quote(text))
            }
            StatusError::Entries(e) => e.fmt(f),
            StatusError::WriteHtml(path, e) => write!(f, "cannot write {}: {e}", path.display()),
        }
    }
}

pub fn run(command: FleetCommand) -> ExitCode {
    match command {
        FleetCommand::Status(args) => match status(&args) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(e),
        },
    }
}

fn status(args: &StatusArgs) -> Result<String, StatusError> {
    let now = match &args.now {
        Some(text) => text.parse::<jiff::Timestamp>().map_err(|_| StatusError::BadNow(text.clone()))?,
        None => jiff::Timestamp::now(),
    };
    let source = source_args(args)?;
    let status = read_journal(&source)?;
    let tz = jiff::tz::TimeZone::system();
    if let Some(path) = &args.html {
        let page = render::html(&status, now, &tz);
        wordjudge::atomic_file::write_atomically(path, page.as_bytes())
            .map_err(|e| StatusError::WriteHtml(path.clone(), e))?;
    }
    Ok(render::text(&status, now, &tz))
}

/// journalctl's arguments naming what to read, checked first so a wrong
/// folder gets its own message.
fn source_args(args: &StatusArgs) -> Result<Vec<String>, StatusError> {
    if !args.file.is_empty() {
        let mut out = Vec::new();
        for file in &args.file {
            let meta = std::fs::metadata(file).map_err(|e| StatusError::Unreadable(file.clone(), e))?;
            if !meta.is_file() {
                return Err(StatusError::NotAFile(file.clone()));
            }
            out.push(format!("--file={}", file.display()));
        }
        return Ok(out);
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
    let entries = std::fs::read_dir(&dir).map_err(|e| StatusError::Unreadable(dir.clone(), e))?;
    let journal = |p: &Path| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".journal") || n.ends_with(".journal~"));
    if !entries.flatten().any(|e| journal(&e.path())) {
        return Err(StatusError::NoJournalFiles(dir));
    }
    Ok(vec![format!("--directory={}", dir.display())])
}

/// Runs journalctl over `source` and sums its lines up, one at a time.
fn read_journal(source: &[String]) -> Result<fleet::Status, StatusError> {
    let mut child = Command::new("journalctl")
        .args(["--no-pager", "--all", "-o", "json"])
        .arg(format!("--output-fields={}", fleet::output_fields().join(",")))
        .args(source)
        .arg(format!("SYSLOG_IDENTIFIER={SYSLOG_IDENTIFIER}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StatusError::JournalctlMissing,
            _ => StatusError::JournalctlFailed { status: e.to_string(), stderr: String::new() },
        })?;
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut fleet = fleet::Fleet::new();
    let mut line = Vec::new();
    let mut entry = 0;
    let result = loop {
        entry += 1;
        match wordjudge::bounded::read_line_bounded(&mut reader, LINE_LIMIT, &mut line) {
            Ok(wordjudge::bounded::Line::Complete) => {
                if let Err(e) = fleet.add_line(&String::from_utf8_lossy(&line)) {
                    break Err(StatusError::Entries(e));
                }
            }
            Ok(wordjudge::bounded::Line::TooLong { len }) => break Err(StatusError::LineTooLong { entry, len }),
            Ok(wordjudge::bounded::Line::End) => break Ok(()),
            Err(e) => break Err(StatusError::JournalctlFailed { status: e.to_string(), stderr: String::new() }),
        }
    };
    if result.is_err() {
        let _ = child.kill();
    }
    let exit = child.wait();
    let stderr = errors.join().unwrap_or_default();
    result?;
    match exit {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(StatusError::JournalctlFailed { status: s.to_string(), stderr }),
        Err(e) => return Err(StatusError::JournalctlFailed { status: e.to_string(), stderr }),
    }
    fleet.finish().map_err(StatusError::Entries)
}
