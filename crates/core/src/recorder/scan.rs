//! Reading the log's end when it is opened: where the chain ends, a torn
//! last line, the highest challenge number, today's count and the recent
//! adjudications (for `repeat_of`). Reads backwards, file by file, only as
//! far as needed.

use super::AuditError;
use crate::audit::clock::Stamp;
use crate::audit::format::{self, LogName, GENESIS};
use crate::audit::record::{AuditEvent, Record};
use crate::audit::slip::SlipCode;
use crate::digest::sha256_hex;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use std::path::{Path, PathBuf};

/// Where the chain ends on disk.
#[derive(Debug, Clone)]
pub(super) struct ChainEnd {
    pub next_seq: u64,
    pub prev: String,
}

/// An adjudication judged recently, for `repeat_of`.
#[derive(Debug, Clone)]
pub(super) struct Recent {
    pub words: Vec<String>,
    pub challenge: u64,
    pub boot_id: String,
    pub stamp: Stamp,
}

/// A torn last line: bytes after the last newline of the last non-empty file.
pub(super) struct Torn {
    pub name: LogName,
    pub path: PathBuf,
    pub offset: u64,
    pub bytes: Vec<u8>,
}

pub(super) struct Scan {
    /// The last log file, if any (appending continues there).
    pub last: Option<(LogName, PathBuf)>,
    pub torn: Option<Torn>,
    pub chain: ChainEnd,
    /// Highest challenge number in the log (torn tail included).
    pub max_challenge: u64,
    /// Highest challenge number of a complete record.
    pub max_recorded: u64,
    /// The challenge number legible in a torn tail.
    pub torn_challenge: Option<u64>,
    pub today_adjudications: u64,
    /// Adjudications of the scanned files, oldest first.
    pub recent: Vec<Recent>,
    /// The last complete adjudication record's challenge number and slip
    /// code (the director menu shows it after a restart).
    pub last_adjudication: Option<(u64, SlipCode)>,
    /// The boot id and times of the last record written in time (not
    /// `delayed`): a clock that jumped while the station was stopped, in
    /// the same boot, is seen against it at the next start.
    pub last_moment: Option<(String, Stamp)>,
}

/// Scans `dir`. `counts`: also count today's adjudications and collect
/// recent ones (only the first time the log is read by a process).
pub(super) fn scan(dir: &Path, tz: &TimeZone, today: Date, counts: bool) -> Result<Scan, AuditError> {
    let (logs, _) = format::list_dir(dir).map_err(|source| AuditError::ReadDir { dir: dir.to_path_buf(), source })?;
    let mut scan = Scan {
        last: logs.last().cloned(),
        torn: None,
        chain: ChainEnd { next_seq: 1, prev: GENESIS.to_string() },
        max_challenge: 0,
        max_recorded: 0,
        torn_challenge: None,
        today_adjudications: 0,
        recent: Vec::new(),
        last_adjudication: None,
        last_moment: None,
    };
    let mut chain_found = false;
    let mut tail_checked = false;
    let mut numbering_found = false;
    let mut recent_rev = Vec::new();
    for (position, (name, path)) in logs.iter().enumerate().rev() {
        let want_counts = counts && name.date >= today;
        if chain_found && tail_checked && numbering_found && !want_counts {
            break;
        }
        let bytes = read_log(path)?;
        let lines = format::split_lines(&bytes);
        // The last file with anything in it: a power cut while rotating can
        // tear the old file's closing line after the new file was created.
        if !tail_checked && !bytes.is_empty() {
            tail_checked = true;
            if let Some((offset, tail)) = lines.tail {
                scan.note_torn(name, path, offset, tail);
            }
        }
        if !chain_found {
            if let Some(end) = chain_end(&lines.complete) {
                chain_found = true;
                scan.chain = end;
            }
        }
        for (_, line) in lines.complete.iter().rev() {
            let Ok(head) = Record::parse(line) else { continue };
            if scan.last_moment.is_none() && !head.delayed {
                if let Ok(time) = head.time.parse::<Timestamp>() {
                    let stamp = Stamp { time, mono_ns: head.mono_ns, synced: head.clock_synced };
                    scan.last_moment = Some((head.boot_id.clone(), stamp));
                }
            }
            let Some(challenge) = head.challenge() else { continue };
            if scan.last_adjudication.is_none() {
                scan.last_adjudication = SlipCode::of_line_hash(&format::line_hash(line)).map(|code| (challenge, code));
            }
            if !numbering_found {
                scan.max_challenge = scan.max_challenge.max(challenge);
                scan.max_recorded = scan.max_recorded.max(challenge);
                // Later numbers all continue from a non-delayed record's.
                numbering_found = !head.delayed;
            }
            if counts {
                let Ok(time) = head.time.parse::<Timestamp>() else { continue };
                if time.to_zoned(tz.clone()).date() == today {
                    scan.today_adjudications += 1;
                }
                if position + 2 >= logs.len() {
                    recent_rev.push(Recent::of(head, challenge, time));
                }
            }
        }
    }
    recent_rev.reverse();
    scan.recent = recent_rev;
    Ok(scan)
}

/// The station name the last readable record in `dir` carries: a station
/// whose settings are gone goes on under the name its log knows, and the
/// director sets it up again from that name. None: no log, or no record
/// that names a station the way a config may.
pub fn station_named_in_log(dir: &Path) -> Option<String> {
    let (logs, _) = format::list_dir(dir).ok()?;
    for (_, path) in logs.iter().rev() {
        let bytes = read_log(path).ok()?;
        let lines = format::split_lines(&bytes);
        if let Some(head) = lines.complete.iter().rev().find_map(|(_, line)| Record::parse(line).ok()) {
            return crate::config::check_station_name(&head.station).is_ok().then_some(head.station);
        }
    }
    None
}

/// One log file's bytes, bounded and without blocking: a FIFO named like a
/// log file is an error here, never a hang.
fn read_log(path: &Path) -> Result<Vec<u8>, AuditError> {
    crate::outside_files::read_small_file(path, crate::outside_files::limits::AUDIT_FILE).map_err(|e| {
        AuditError::Read {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()),
        }
    })
}

impl Recent {
    /// The adjudication `head` (numbered `challenge`, judged at `time`) as
    /// a recent one.
    fn of(head: Record, challenge: u64, time: Timestamp) -> Recent {
        Recent {
            words: head.adjudication().map(|a| a.words.clone()).unwrap_or_default(),
            challenge,
            stamp: Stamp { time, mono_ns: head.mono_ns, synced: head.clock_synced },
            boot_id: head.boot_id,
        }
    }
}

impl Scan {
    /// A torn last line: kept to be repaired, and its challenge number, if
    /// legible, counted as used (it may have been shown).
    fn note_torn(&mut self, name: &LogName, path: &Path, offset: u64, tail: &[u8]) {
        let challenge = challenge_in(tail);
        self.torn_challenge = challenge;
        self.max_challenge = self.max_challenge.max(challenge.unwrap_or(0));
        self.torn = Some(Torn { name: name.clone(), path: path.to_path_buf(), offset, bytes: tail.to_vec() });
    }
}

/// Where the chain ends in a file's complete lines, if it has any: after
/// its last line, at the seq of the last line that can be read plus the
/// lines after it.
fn chain_end(complete: &[(u64, &[u8])]) -> Option<ChainEnd> {
    let (_, last) = complete.last()?;
    let next_seq = complete
        .iter()
        .rev()
        .enumerate()
        .find_map(|(after, (_, line))| {
            Record::parse(line).ok().map(|h| h.seq.saturating_add(1).saturating_add(after as u64))
        })
        .unwrap_or(complete.len() as u64 + 1);
    Some(ChainEnd { next_seq, prev: format::line_hash(last) })
}

/// A challenge number in a torn line's bytes, if one is legible.
fn challenge_in(tail: &[u8]) -> Option<u64> {
    let key = b"\"challenge\":";
    let at = tail.windows(key.len()).position(|w| w == key)? + key.len();
    let digits: Vec<u8> = tail[at..].iter().copied().take_while(u8::is_ascii_digit).collect();
    // A number cut short by the tear may be too small; only trust one that
    // is followed by the next field.
    if tail.get(at + digits.len()) != Some(&b',') {
        return None;
    }
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

/// Moves a torn tail aside (a new file, written atomically), then cuts the
/// log back to the last newline. A crash in between leaves the same tail to
/// be found again, and the aside file's name makes the redo idempotent.
pub(super) fn move_aside(dir: &Path, torn: &Torn) -> Result<AuditEvent, AuditError> {
    let sha = sha256_hex(&torn.bytes);
    let log_name = torn.name.file_name();
    let aside_name = format::torn_aside_name(&log_name, torn.offset, &sha);
    let aside = dir.join(&aside_name);
    if crate::outside_files::read_small_file_nofollow(&aside, torn.bytes.len() as u64).ok().as_deref()
        != Some(&torn.bytes[..])
    {
        crate::outside_files::write_atomically(&aside, &torn.bytes)
            .map_err(|source| AuditError::MoveAside { path: aside.clone(), source })?;
    }
    let cut = crate::outside_files::open_regular_rw(&torn.path, false, false)
        .and_then(|f| f.set_len(torn.offset).and_then(|()| f.sync_all()));
    cut.map_err(|source| AuditError::MoveAside { path: torn.path.clone(), source })?;
    Ok(AuditEvent::Recovered {
        file: log_name,
        offset: torn.offset,
        torn_bytes: torn.bytes.len() as u64,
        torn_sha256: sha,
        moved_to: aside_name,
        challenge: challenge_in(&torn.bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_numbers_in_torn_bytes() {
        assert_eq!(challenge_in(br#"{"seq":4,"event":"adjudication","challenge":17,"lexi"#), Some(17));
        assert_eq!(challenge_in(br#"{"seq":4,"event":"adjudication","challenge":1"#), None);
        assert_eq!(challenge_in(b"\0\0\0\0"), None);
    }

    #[test]
    fn the_name_in_the_log_is_taken_only_when_a_config_could_hold_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(station_named_in_log(dir.path()), None, "no log");
        let mut log = super::super::AuditLog::open(dir.path(), "Hall B 7").unwrap();
        log.record_event(AuditEvent::DirectorLeft);
        drop(log);
        assert_eq!(station_named_in_log(dir.path()).as_deref(), Some("Hall B 7"));
        // A log whose last record names the station with a direction
        // override (a hostile card): not taken, the default stays.
        let mut log = super::super::AuditLog::open(dir.path(), "Table \u{202e}3").unwrap();
        log.record_event(AuditEvent::DirectorLeft);
        drop(log);
        assert_eq!(station_named_in_log(dir.path()), None);
        // A torn last line is passed over for the last whole record.
        let (logs, _) = format::list_dir(dir.path()).unwrap();
        let (_, last) = logs.last().unwrap();
        let mut bytes = std::fs::read(last).unwrap();
        bytes.extend_from_slice(br#"{"seq":99,"station":"Forged"#);
        std::fs::write(last, bytes).unwrap();
        assert_eq!(station_named_in_log(dir.path()), None, "the whole record before it names the override");
    }
}
