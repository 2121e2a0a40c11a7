//! `wordjudge audit verify|show|export`: the director's and operator's view
//! of the audit log. DIR defaults to the config's `audit_dir`.

use super::Context;
use jiff::tz::TimeZone;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use wordjudge::audit::read::{self, Filter};
use wordjudge::audit::verify;

#[derive(clap::Subcommand, Debug)]
pub enum AuditCommand {
    /// Check every audit file and the hash chain: exit 0 intact, 1 damaged or empty
    Verify {
        /// Audit directory [default: the config's audit_dir]
        dir: Option<PathBuf>,
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
        /// Write to FILE (atomically) instead of standard output
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
        AuditCommand::Verify { dir } => run_verify(dir.unwrap_or_else(default_dir)),
        AuditCommand::Show { dir, filter } => match filter.filter(&tz) {
            Ok(filter) => run_show(dir.unwrap_or_else(default_dir), &filter, &tz),
            Err(e) => super::fail(e),
        },
        AuditCommand::Export { dir, format, out, filter } => match filter.filter(&tz) {
            Ok(filter) => run_export(dir.unwrap_or_else(default_dir), format, out, &filter),
            Err(e) => super::fail(e),
        },
    }
}

fn run_verify(dir: PathBuf) -> ExitCode {
    match verify::verify(&dir) {
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
    for line in &lines {
        let keep = match &line.record {
            Some(record) => filter.matches(record),
            None => filter.is_empty(),
        };
        if keep {
            shown += 1;
            if writeln!(out, "{}", read::show_line(line, tz)).is_err() {
                return ExitCode::SUCCESS; // e.g. `| head`
            }
        }
    }
    if shown == 0 {
        eprintln!("wordjudge: no records match");
    }
    ExitCode::SUCCESS
}

fn run_export(dir: PathBuf, format: ExportFormat, out: Option<PathBuf>, filter: &Filter) -> ExitCode {
    let lines = match read::read_all(&dir) {
        Ok(lines) => lines,
        Err(e) => return super::fail(e),
    };
    warn_if_damaged(&dir);
    let mut text = String::new();
    if format == ExportFormat::Csv {
        text.push_str(&read::csv_header());
        text.push('\n');
    }
    for line in &lines {
        let keep = match &line.record {
            Some(record) => filter.matches(record),
            None => filter.is_empty(),
        };
        if !keep {
            continue;
        }
        match format {
            ExportFormat::Csv => text.push_str(&read::csv_row(line)),
            ExportFormat::Jsonl => text.push_str(&line.raw),
        }
        text.push('\n');
    }
    match out {
        Some(path) => match wordjudge::atomic_file::write_atomically(&path, text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::fail(format!("cannot write {}: {e}", path.display())),
        },
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
    }
}
