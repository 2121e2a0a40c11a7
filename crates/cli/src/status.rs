//! `wordjudge fleet status`, on the director's laptop: the stations' state
//! from the journal files `fleet serve` received (each station's in
//! `from-NAME.journal`, named by the certificate that sent it), read with
//! `journalctl -o json` (the journal's binary format is journalctl's to
//! read) and summed up by [`wordjudge_core::fleet`] with the audit keys `fleet
//! sign` paired with the stations.
//!
//! `--watch` keeps the summary between rounds and asks journalctl only for
//! what came after the last entry it read in each file group (its cursor):
//! a refresh costs what arrived since the last one, not the whole event.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use wordjudge_core::fleet::ca::{CaError, EventCa};
use wordjudge_core::fleet::{self, render, FleetError};
use wordjudge_core::outside_files;
use wordjudge_core::recorder::journal::SYSLOG_IDENTIFIER;

/// A journal entry line longer than this is refused.
const LINE_LIMIT: usize = 1024 * 1024;

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
    #[arg(long, value_name = "TIME", conflicts_with = "watch")]
    now: Option<String>,
    /// Read again every SECONDS (1 to 3600), printing the table and writing the page each time, until stopped
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub watch: Option<u64>,
    /// Where the event's CA is kept: a station's records are shown only when signed by the audit key paired with it at `fleet sign`
    #[arg(long, value_name = "DIR", default_value = wordjudge_core::fleet::DEFAULT_CA_DIR)]
    ca_dir: PathBuf,
}

/// Why `fleet status` gave no status.
#[derive(Debug)]
pub enum StatusError {
    NoJournalFiles(PathBuf),
    Unreadable(PathBuf, std::io::Error),
    NotAFile(PathBuf),
    JournalctlMissing,
    JournalctlFailed { status: String, stderr: String },
    BadNow(String),
    Entries(FleetError),
    WriteHtml(PathBuf, std::io::Error),
    PairedKeys(CaError),
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
            StatusError::BadNow(text) => {
                write!(f, "--now {} is not an RFC 3339 time (2026-11-22T14:02:11Z)", wordjudge_core::word::quote(text))
            }
            StatusError::Entries(e) => e.fmt(f),
            StatusError::WriteHtml(path, e) => write!(f, "cannot write {}: {e}", path.display()),
            StatusError::PairedKeys(e) => write!(f, "the stations' paired audit keys cannot be read: {e}"),
        }
    }
}

/// `fleet status --watch`: the table and the page again every SECONDS until
/// stopped; a round that cannot read says why and the next one tries again.
/// Each round reads only what arrived since the last ([`Watcher`]) and says
/// how much that was and how long it took.
pub fn watch(args: &StatusArgs) -> ExitCode {
    let every = std::time::Duration::from_secs(args.watch.unwrap_or(10));
    let mut watcher = Watcher::default();
    loop {
        let started = std::time::Instant::now();
        match watcher.round(args) {
            Ok((text, new)) => println!(
                "\x1b[2J\x1b[H{text}refreshed: {new} new journal entries read in {} ms",
                started.elapsed().as_millis()
            ),
            Err(e) => {
                eprintln!("wordjudge: {e} (trying again in {} s)", every.as_secs());
                // What was read may no longer be where the cursors say: read
                // it all again next time.
                watcher = Watcher::default();
            }
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        std::thread::sleep(every);
    }
}

/// What `--watch` keeps between rounds: the summary so far, the paired keys
/// it was made with, and each file group's cursor (its last entry read).
#[derive(Default)]
struct Watcher {
    fleet: Option<fleet::Fleet>,
    keys: Vec<fleet::PairedKey>,
    cursors: BTreeMap<Option<String>, String>,
}

impl Watcher {
    /// One round: the table (the page written), and how many entries were new.
    fn round(&mut self, args: &StatusArgs) -> Result<(String, usize), StatusError> {
        let keys = EventCa::paired_keys_in(&args.ca_dir).map_err(StatusError::PairedKeys)?;
        if self.fleet.is_none() || keys != self.keys {
            // A station paired since: its records are read from the start.
            self.fleet = Some(fleet::Fleet::new(keys.clone()));
            self.keys = keys;
            self.cursors.clear();
        }
        let fleet = self.fleet.as_mut().expect("made above");
        let before = fleet.entries();
        for (sender, mut source) in source_args(args)? {
            if let Some(cursor) = self.cursors.get(&sender) {
                source.push(format!("--after-cursor={cursor}"));
            }
            fleet.from_sender(sender.clone());
            if let Some(cursor) = read_journal(&source, fleet)? {
                self.cursors.insert(sender, cursor);
            }
        }
        let new = fleet.entries() - before;
        let status = fleet.status().map_err(StatusError::Entries)?;
        Ok((show(args, &status, jiff::Timestamp::now())?, new))
    }
}

/// `fleet status` once: the table (and the page written).
pub fn status(args: &StatusArgs) -> Result<String, StatusError> {
    let now = match &args.now {
        Some(text) => text.parse::<jiff::Timestamp>().map_err(|_| StatusError::BadNow(text.clone()))?,
        None => jiff::Timestamp::now(),
    };
    let keys = EventCa::paired_keys_in(&args.ca_dir).map_err(StatusError::PairedKeys)?;
    let mut fleet = fleet::Fleet::new(keys);
    for (sender, source) in source_args(args)? {
        fleet.from_sender(sender);
        read_journal(&source, &mut fleet)?;
    }
    let status = fleet.finish().map_err(StatusError::Entries)?;
    show(args, &status, now)
}

/// The page written (when asked for) and the table.
fn show(args: &StatusArgs, status: &fleet::Status, now: jiff::Timestamp) -> Result<String, StatusError> {
    let tz = jiff::tz::TimeZone::system();
    if let Some(path) = &args.html {
        let page = render::html_reloading(status, now, &tz, args.watch);
        outside_files::write_atomically(path, page.as_bytes()).map_err(|e| StatusError::WriteHtml(path.clone(), e))?;
    }
    Ok(render::text(status, now, &tz))
}

/// Journal files by the station whose certificate sent them (none: no known
/// sender), each as journalctl's `--file=` argument.
type FileGroups = Vec<(Option<String>, Vec<String>)>;

/// What to read, checked first so a wrong folder gets its own message: the
/// journal files grouped by the station whose certificate sent them (`fleet
/// serve`'s `from-NAME.journal`, [`fleet::sender::sender_of`]), and those of
/// no known sender, each group as journalctl's `--file=` arguments.
fn source_args(args: &StatusArgs) -> Result<FileGroups, StatusError> {
    let mut groups: std::collections::BTreeMap<Option<String>, Vec<String>> = Default::default();
    let sender =
        |path: &Path| path.file_name().and_then(|n| n.to_str()).and_then(fleet::sender::sender_of).map(str::to_string);
    if !args.file.is_empty() {
        for file in &args.file {
            let meta = std::fs::metadata(file).map_err(|e| StatusError::Unreadable(file.clone(), e))?;
            if !meta.is_file() {
                return Err(StatusError::NotAFile(file.clone()));
            }
            groups.entry(sender(file)).or_default().push(format!("--file={}", file.display()));
        }
        return Ok(groups.into_iter().collect());
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(wordjudge_core::fleet::DEFAULT_RECEIVED_DIR));
    // The folder the director named, a link or not (resolved first); its
    // entries listed the one bounded way.
    let real = std::fs::canonicalize(&dir).map_err(|e| StatusError::Unreadable(dir.clone(), e))?;
    let listing = outside_files::list_folder(&real, 100_000).map_err(|e| StatusError::Unreadable(dir.clone(), e))?;
    let journal = |n: &str| n.ends_with(".journal") || n.ends_with(".journal~");
    for entry in listing.entries.iter().filter(|e| e.kind == outside_files::EntryKind::File && journal(&e.name)) {
        groups.entry(sender(&entry.path)).or_default().push(format!("--file={}", entry.path.display()));
    }
    if groups.is_empty() {
        return Err(StatusError::NoJournalFiles(dir));
    }
    Ok(groups.into_iter().collect())
}

/// Runs journalctl over `source` and sums its lines up, one at a time, into
/// `fleet`: the cursor of the last entry read, if any was.
fn read_journal(source: &[String], fleet: &mut fleet::Fleet) -> Result<Option<String>, StatusError> {
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
    let (mut line, mut last) = (Vec::new(), Vec::new());
    let result = loop {
        match wordjudge_core::outside_files::read_line_bounded(&mut reader, LINE_LIMIT, &mut line) {
            // One entry a station's certificate sent cannot stop the
            // summary of every station: what cannot be read is one refused
            // entry on its sender's line.
            Ok(wordjudge_core::outside_files::Line::Complete) => {
                if let Err(e) = fleet.add_line(&String::from_utf8_lossy(&line)) {
                    fleet.refuse_entry(format!("refused: {e}"));
                }
                std::mem::swap(&mut last, &mut line);
            }
            Ok(wordjudge_core::outside_files::Line::TooLong { len }) => {
                fleet.refuse_entry(format!("an entry {len} bytes long, more than a wordjudge record can be: refused"));
            }
            Ok(wordjudge_core::outside_files::Line::End) => break Ok(()),
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
    // journalctl prints every entry's __CURSOR, whatever --output-fields says.
    let cursor = serde_json::from_slice::<serde_json::Value>(&last)
        .ok()
        .and_then(|entry| entry.get("__CURSOR").and_then(|c| c.as_str()).map(str::to_string));
    Ok(cursor)
}
