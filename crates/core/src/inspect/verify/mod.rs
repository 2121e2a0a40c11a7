//! `audit verify`: checks every file of a log and the hash chain through them,
//! and names the first bad line and why.
//!
//! Each line is checked on its own first (complete, a sealed JSON record whose
//! seal matches: otherwise *torn*, *not a record* or *edited*), then against
//! the line before it: its `prev` must be that line's SHA-256 and its `seq`
//! one more. When that fails the sequence numbers tell what happened: a gap
//! whose missing numbers appear nowhere is a *deletion*, numbers out of order
//! that appear elsewhere a *reordering*, and consecutive numbers that do not
//! chain an *edit* that was resealed. The first line must chain to the
//! genesis value with `seq` 1, and a file closed by a `rotated` record must
//! be followed by the file it names.
//!
//! Then the challenge numbers: every number from 1 to the highest one shown
//! must have its adjudication record, or a record explaining why not (a
//! reservation never used, named in the next adjudication's `skipped`; a
//! `recovered` torn record
//! never shown). Numbers shown without a record (`challenges_lost`, or the
//! challenge counter's pending `unrecorded` range) are named and fail, as do
//! a moved-aside torn line that is missing or altered, and a number used
//! twice. While the writer that showed them still runs (it holds the
//! folder's lock) such numbers are only reported: it holds their records in
//! memory and writes them when it can.
//!
//! What a chain cannot show: removing whole lines from the very end (or whole
//! files after the last `rotated` record) leaves a shorter, valid log, and
//! someone who rewrites a record and recomputes every later hash leaves a
//! valid chain. Copies taken off the station catch both: slip codes
//! ([`VerifyOptions::slips`]: each names a record and the chain head after
//! it) and signed checkpoints ([`VerifyOptions::checkpoint`]: a record count
//! and head hash). A slip whose code is a character or two off its
//! record's, or has two neighbours swapped, is named as likely miscopied
//! (the director checks the slip) rather than as a rewrite; it fails all
//! the same.

use crate::audit::checkpoint::{self};
use crate::audit::format::{self};
use crate::audit::numbering::{self};
use crate::audit::slip::SlipCode;
use std::fmt;
use std::path::{Path, PathBuf};

mod breaks;
mod chain;
mod copies;
mod numbers;
mod report;
mod trust;

pub use breaks::{Break, BreakKind};
pub use numbers::{GapReason, NumberGap};
pub use report::{AsideState, FileSummary, JournalCopy, Recovery, VerifyOptions, VerifyReport, WriteFailure};
pub use trust::{shown_name, ClockJump, JournalCheck, KeyCheck, StationSpan};

/// At most this many problems are listed (the first one matters most).
const MAX_BREAKS: usize = 50;

/// Files larger than this are not read (no audit file grows so big).
const MAX_FILE_BYTES: u64 = crate::outside_files::limits::AUDIT_FILE;

/// Why a log could not be checked at all.
#[derive(Debug)]
pub enum VerifyError {
    /// The directory does not exist.
    Missing { dir: PathBuf },
    /// The directory cannot be listed.
    ReadDir { dir: PathBuf, source: std::io::Error },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Missing { dir } => write!(f, "there is no audit log at {} (no such directory)", dir.display()),
            VerifyError::ReadDir { dir, source } => {
                write!(f, "cannot read the audit directory {}: {source}", dir.display())
            }
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyError::Missing { .. } => None,
            VerifyError::ReadDir { source, .. } => Some(source),
        }
    }
}

/// A line of the log: file name and 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line {}", self.file, self.line)
    }
}

/// Checks the log in `dir`. Only a missing or unlistable directory is an
/// error; everything wrong inside is in the report.
pub fn verify(dir: &Path) -> Result<VerifyReport, VerifyError> {
    verify_with(dir, &VerifyOptions::default())
}

/// [`verify`], and against slips and a checkpoint.
pub fn verify_with(dir: &Path, options: &VerifyOptions) -> Result<VerifyReport, VerifyError> {
    if !dir.exists() {
        return Err(VerifyError::Missing { dir: dir.to_path_buf() });
    }
    let (logs, others) =
        format::list_dir(dir).map_err(|source| VerifyError::ReadDir { dir: dir.to_path_buf(), source })?;
    let mut report = VerifyReport { dir: dir.to_path_buf(), ..Default::default() };
    for name in others {
        if format::parse_torn_aside(&name).is_some() {
            report.aside_files.push(name);
        } else if [crate::audit::lock::LOCK_FILE, numbering::COUNTER_FILE, checkpoint::KEY_DIR].contains(&name.as_str())
        {
            // The writer's own files, not part of the chain.
        } else {
            report.others.push(name);
        }
    }

    let lines = chain::check_lines(&logs, &mut report);
    let walked = chain::walk(dir, &logs, &lines, &mut report);
    report.last_code = report.last_line_sha256.as_deref().and_then(SlipCode::of_line_hash).map(|c| c.to_string());

    // The challenge numbers.
    match numbering::read(dir) {
        Ok(counter) => report.counter = counter,
        Err(problem) => report.add_break(
            Location { file: numbering::COUNTER_FILE.into(), line: 0 },
            BreakKind::CounterDamaged { problem: problem.to_string() },
        ),
    }
    let writer = crate::audit::lock::holder(dir);
    walked.numbers.check(&mut report, writer);

    // Copies taken off the station.
    copies::check_slips(&mut report, &options.slips, &walked.by_challenge);
    copies::check_journal(&mut report, options, &walked.by_seq);
    copies::check_key_and_checkpoint(&mut report, options, &walked.by_seq);
    Ok(report)
}
