//! Reading records back for people: `audit show` (one line per record, local
//! time) and `audit export` (CSV for a spreadsheet, or the JSON Lines as
//! written), with filters by time, challenge number and lexicon.
//!
//! Records are read into the one typed [`Record`]. Everything printed for a
//! person goes through [`escape_controls`]: a tampered line carrying
//! terminal escape sequences must not be able to repaint the screen (and
//! hide its own "[SEAL DOES NOT MATCH]" marker).

use super::verify::{shown_name, Location, VerifyError};
use crate::audit::format;
use crate::audit::record::{AuditEvent, Body, Record};
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::Timestamp;
use std::fmt;
use std::path::Path;

/// One line of the log as read.
#[derive(Debug, Clone)]
pub struct ReadLine {
    pub at: Location,
    /// The line exactly as in the file (lossy only if not UTF-8).
    pub raw: String,
    /// The record, when the line is one.
    pub record: Option<Record>,
    /// Whether the line's seal matches (false: edited, or not a record).
    pub sealed: bool,
}

/// Every line of every log file in `dir`, in order (a torn tail included,
/// without a record).
pub fn read_all(dir: &Path) -> Result<Vec<ReadLine>, VerifyError> {
    if !dir.exists() {
        return Err(VerifyError::Missing { dir: dir.to_path_buf() });
    }
    let (logs, _) = format::list_dir(dir).map_err(|source| VerifyError::ReadDir { dir: dir.to_path_buf(), source })?;
    let mut out = Vec::new();
    for (name, path) in logs {
        let file = name.file_name();
        let bytes =
            crate::outside_files::read_small_file(&path, crate::outside_files::limits::AUDIT_FILE).map_err(|e| {
                VerifyError::ReadDir {
                    dir: path.clone(),
                    source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()),
                }
            })?;
        let split = format::split_lines(&bytes);
        let tail = split.tail.map(|(_, t)| t);
        for (n, line) in split.complete.iter().map(|(_, l)| *l).chain(tail).enumerate() {
            out.push(ReadLine {
                at: Location { file: file.clone(), line: n as u64 + 1 },
                raw: String::from_utf8_lossy(line).into_owned(),
                record: Record::parse(line).ok(),
                sealed: format::check_seal(line).is_ok(),
            });
        }
    }
    Ok(out)
}

/// Text with every control character (C0, DEL, C1) written as a visible
/// escape (`\x1b`, `\u{9b}`, `\n`), so it cannot drive a terminal.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Which records to show or export. Empty: all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Records at or after.
    pub since: Option<Timestamp>,
    /// Records before.
    pub until: Option<Timestamp>,
    /// Adjudications with this challenge number.
    pub challenge: Option<u64>,
    /// Adjudications with this lexicon, and events naming it.
    pub lexicon: Option<String>,
}

/// A time bound that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTime(pub String);

impl fmt::Display for BadTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a time: give an RFC 3339 time (2025-05-01T14:00:00Z, 2025-05-01T14:00:00+02:00), a local \
             time (2025-05-01T14:00) or a date (2025-05-01)",
            self.0
        )
    }
}

impl std::error::Error for BadTime {}

/// Parses a `--since`/`--until` bound: an RFC 3339 time, a local date-time, or
/// a local date. A date means its start for `--since` and the end of that day
/// (the next day's start) for `--until`, so `--since D --until D` is day D.
pub fn parse_bound(text: &str, tz: &TimeZone, until: bool) -> Result<Timestamp, BadTime> {
    let bad = || BadTime(text.to_string());
    if let Ok(t) = text.parse::<Timestamp>() {
        return Ok(t);
    }
    if let Ok(dt) = text.parse::<DateTime>() {
        if text.len() > 10 {
            return dt.to_zoned(tz.clone()).map(|z| z.timestamp()).map_err(|_| bad());
        }
    }
    let date: Date = text.parse().map_err(|_| bad())?;
    let day = if until { date.tomorrow().map_err(|_| bad())? } else { date };
    day.to_zoned(tz.clone()).map(|z| z.timestamp()).map_err(|_| bad())
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    pub fn matches(&self, record: &Record) -> bool {
        if self.since.is_some() || self.until.is_some() {
            let Ok(time) = record.time.parse::<Timestamp>() else {
                return false;
            };
            if self.since.is_some_and(|s| time < s) || self.until.is_some_and(|u| time >= u) {
                return false;
            }
        }
        if let Some(n) = self.challenge {
            if record.challenge() != Some(n) {
                return false;
            }
        }
        if let Some(id) = &self.lexicon {
            let names: Vec<&str> = match &record.body {
                Body::Adjudication(a) => vec![&a.lexicon.id],
                Body::Event(AuditEvent::LexiconOpened { id, .. }) => vec![id],
                Body::Event(AuditEvent::LexiconSwitched { from, to })
                | Body::Event(AuditEvent::LexiconSwitchRefused { from, to, .. }) => vec![from, to],
                Body::Event(AuditEvent::LexiconInstalled { lexicon, .. }) => vec![lexicon],
                _ => vec![],
            };
            if !names.contains(&id.as_str()) {
                return false;
            }
        }
        true
    }
}

/// CSV columns, in order.
pub const CSV_COLUMNS: &[&str] = &[
    "seq",
    "time_utc",
    "station",
    "event",
    "challenge",
    "verdict",
    "words",
    "per_word",
    "lexicon",
    "lexicon_status",
    "lexicon_fingerprint",
    "fst_sha256",
    "trigger",
    "repeat_of",
    "clock_synced",
    "boot_id",
    "mono_ns",
    "delayed",
    "details",
    "seal_ok",
    "prev",
    "line_sha256",
    "code",
];

/// One CSV field: quoted when needed (RFC 4180). Text beginning with `=`,
/// `+`, `-` or `@` gets a leading `'` so a spreadsheet shows it instead of
/// running it as a formula (a station name is free text).
fn csv_field(value: &str) -> String {
    let value = escape_controls(value);
    let value = value.as_str();
    let guarded = if value.starts_with(['=', '+', '-', '@']) && value.parse::<f64>().is_err() {
        format!("'{value}")
    } else {
        value.to_string()
    };
    if guarded.contains([',', '"', '\n', '\r']) || guarded.starts_with(' ') || guarded.ends_with(' ') {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

pub fn csv_header() -> String {
    CSV_COLUMNS.join(",")
}

/// One record as a CSV row (no newline).
pub fn csv_row(line: &ReadLine) -> String {
    let Some(r) = &line.record else {
        let mut cells = vec![String::new(); CSV_COLUMNS.len()];
        cells[3] = "unreadable line".into();
        cells[18] = format!("{}: {}", line.at, line.raw);
        cells[19] = "false".into();
        return cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",");
    };
    let a = r.adjudication();
    let opt = |v: Option<u64>| v.map(|n| n.to_string()).unwrap_or_default();
    let cells = [
        r.seq.to_string(),
        r.time.clone(),
        r.station.clone(),
        r.body.name().to_string(),
        opt(r.challenge()),
        a.map(|a| a.verdict.label().to_string()).unwrap_or_default(),
        a.map(|a| a.words.join(" ")).unwrap_or_default(),
        a.map(|a| a.per_word_text()).unwrap_or_default(),
        a.map(|a| a.lexicon.id.clone()).unwrap_or_default(),
        a.map(|a| a.lexicon.status.clone()).unwrap_or_default(),
        a.map(|a| a.lexicon.fingerprint.clone()).unwrap_or_default(),
        a.map(|a| a.lexicon.fst_sha256.join(" ")).unwrap_or_default(),
        a.map(|a| a.trigger.as_str().to_string()).unwrap_or_default(),
        opt(a.and_then(|a| a.repeat_of)),
        r.clock_synced.to_string(),
        r.boot_id.clone(),
        r.mono_ns.to_string(),
        r.delayed.to_string(),
        r.body.details(),
        line.sealed.to_string(),
        r.prev.clone(),
        r.line_sha256.clone().unwrap_or_default(),
        r.code.clone().unwrap_or_default(),
    ];
    cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",")
}

/// One record for people: local time, then what happened, then `note`
/// (the station's name, from [`StationNotes`]). Control characters are
/// escaped; a seal that does not match is said last.
pub fn show_line(line: &ReadLine, tz: &TimeZone, note: &str) -> String {
    let Some(r) = &line.record else {
        let raw: String = line.raw.chars().take(80).collect();
        let mut out = format!("{}: unreadable line: {}", line.at, escape_controls(&raw));
        if !line.sealed {
            out.push_str("  [SEAL DOES NOT MATCH: edited]");
        }
        return out;
    };
    let time = r
        .time
        .parse::<Timestamp>()
        .ok()
        .map(|t| t.to_zoned(tz.clone()).strftime("%Y-%m-%d %H:%M:%S %Z").to_string())
        .unwrap_or_else(|| "(no time)".into());
    let mut out = format!("{time}  #{}", r.seq);
    if !r.clock_synced {
        out.push_str(" (clock not synced)");
    }
    match &r.body {
        Body::Adjudication(a) => {
            out.push_str(&format!(
                "  challenge {}  {}  {}  [{}]  {} ({}, {})  {}",
                a.challenge,
                a.verdict.label(),
                a.words.join(" "),
                a.per_word_text(),
                a.lexicon.id,
                a.lexicon.status,
                a.lexicon.fingerprint,
                a.trigger.as_str(),
            ));
            if let Some(profile) = &a.profile {
                out.push_str(&format!("  profile {profile}"));
            }
            if let Some(n) = a.repeat_of {
                out.push_str(&format!("  repeat of {n}"));
            }
            if let Some(code) = &r.code {
                out.push_str(&format!("  code {code}"));
            }
            // Where a gap in the numbers is, the record after it says why.
            out.push_str(&a.skipped_note());
        }
        body => {
            out.push_str(&format!("  {}", body.name()));
            let d = body.details();
            if !d.is_empty() {
                out.push_str(&format!("  {d}"));
            }
        }
    }
    if r.delayed {
        out.push_str("  (written late)");
    }
    out.push_str(note);
    let mut out = escape_controls(&out);
    if !line.sealed {
        out.push_str("  [SEAL DOES NOT MATCH: edited]");
    }
    out
}

/// The station's name for `audit show`: on the first record shown, and on
/// each record whose station is not the one before it (a rename), with the
/// old name and the last record that carried it. The name a record carries
/// is the name it was made under, so a reader of one line knows which
/// station it speaks of.
#[derive(Debug, Default)]
pub struct StationNotes {
    /// The station of the last record read, and its `seq`.
    last: Option<(String, u64)>,
    named: bool,
}

impl StationNotes {
    /// Call for every record in order (shown or filtered out), so a rename
    /// is seen even when its records are not shown; the note to append to a
    /// shown record's line.
    pub fn note(&mut self, record: &Record, shown: bool) -> Option<String> {
        let before = self.last.replace((record.station.clone(), record.seq));
        if !shown {
            return None;
        }
        let note = match &before {
            Some((old, seq)) if *old != record.station => {
                format!("  [station {}, was {} until record #{seq}]", shown_name(&record.station), shown_name(old))
            }
            _ if !self.named => format!("  [station {}]", shown_name(&record.station)),
            _ => return None,
        };
        self.named = true;
        Some(note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_csv_quoting() {
        let tz = TimeZone::UTC;
        assert_eq!(parse_bound("2025-05-01", &tz, false).unwrap().to_string(), "2025-05-01T00:00:00Z");
        assert_eq!(parse_bound("2025-05-01", &tz, true).unwrap().to_string(), "2025-05-02T00:00:00Z");
        assert_eq!(parse_bound("2025-05-01T14:00:00+02:00", &tz, false).unwrap().to_string(), "2025-05-01T12:00:00Z");
        assert_eq!(parse_bound("2025-05-01T14:00", &tz, false).unwrap().to_string(), "2025-05-01T14:00:00Z");
        assert!(parse_bound("yesterday", &tz, false).is_err());
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_field("-5"), "-5");
        assert_eq!(csv_field("QI ZA"), "QI ZA");
        assert_eq!(csv_field("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(escape_controls("x\u{9b}31m\n"), "x\\u{9b}31m\\n");
    }

    #[test]
    fn show_names_the_profile_an_adjudication_was_judged_under_and_nothing_without_one() {
        let line = |profile: &str| {
            let raw = format!(
                concat!(
                    r#"{{"seq":3,"prev":"00","time":"2025-05-01T12:00:00.000Z","clock_synced":true,"#,
                    r#""station":"Table 7","event":"adjudication","challenge":2,"#,
                    r#""lexicon":{{"id":"CSW21","fingerprint":"ab12","fst_sha256":["cd"],"status":"Verified"}},"#,
                    r#""words":["QI"],"verdict":"ACCEPTABLE","per_word":[true],"trigger":"keyboard","#,
                    r#""repeat_of":null{}}}"#
                ),
                profile
            );
            ReadLine {
                at: Location { file: "audit-000001-2025-05-01.jsonl".into(), line: 3 },
                record: Some(Record::parse(raw.as_bytes()).unwrap()),
                raw,
                sealed: true,
            }
        };
        let with = show_line(&line(r#","profile":"NASPA-CSW-5""#), &TimeZone::UTC, "");
        assert!(with.contains("CSW21 (Verified, ab12)  keyboard  profile NASPA-CSW-5"), "{with}");
        let without = show_line(&line(""), &TimeZone::UTC, "");
        assert!(without.ends_with("CSW21 (Verified, ab12)  keyboard"), "{without}");
        assert!(!without.contains("profile"), "{without}");
    }
}
