//! Reading records back for people: `audit show` (one line per record, local
//! time) and `audit export` (CSV for a spreadsheet, or the JSON Lines as
//! written), with filters by time, challenge number and lexicon.

use super::format;
use super::verify::{Location, VerifyError};
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// One line of the log as read.
#[derive(Debug, Clone)]
pub struct ReadLine {
    pub at: Location,
    /// The line exactly as in the file (lossy only if not UTF-8).
    pub raw: String,
    /// The record, when the line is a JSON object.
    pub record: Option<Value>,
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
        let bytes = std::fs::read(&path).map_err(|source| VerifyError::ReadDir { dir: path.clone(), source })?;
        let split = format::split_lines(&bytes);
        let tail = split.tail.map(|(_, t)| t);
        for (n, line) in split.complete.iter().map(|(_, l)| *l).chain(tail).enumerate() {
            let record = serde_json::from_slice::<Value>(line).ok().filter(Value::is_object);
            out.push(ReadLine {
                at: Location { file: file.clone(), line: n as u64 + 1 },
                raw: String::from_utf8_lossy(line).into_owned(),
                record,
                sealed: format::check_seal(line).is_ok(),
            });
        }
    }
    Ok(out)
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

    pub fn matches(&self, record: &Value) -> bool {
        if self.since.is_some() || self.until.is_some() {
            let Some(time) = record["time"].as_str().and_then(|t| t.parse::<Timestamp>().ok()) else {
                return false;
            };
            if self.since.is_some_and(|s| time < s) || self.until.is_some_and(|u| time >= u) {
                return false;
            }
        }
        if let Some(n) = self.challenge {
            if record["event"] != "adjudication" || record["challenge"].as_u64() != Some(n) {
                return false;
            }
        }
        if let Some(id) = &self.lexicon {
            let names = [&record["lexicon"]["id"], &record["id"], &record["from"], &record["to"]];
            let about_lexicon = record["event"] == "adjudication"
                || record["event"].as_str().is_some_and(|e| e.starts_with("lexicon_"));
            if !about_lexicon || !names.iter().any(|v| v.as_str() == Some(id.as_str())) {
                return false;
            }
        }
        true
    }
}

/// Record fields that have their own column in CSV and `show`.
const COMMON: &[&str] = &[
    "seq",
    "prev",
    "time",
    "boot_id",
    "mono_ns",
    "clock_synced",
    "station",
    "delayed",
    "event",
    "challenge",
    "lexicon",
    "words",
    "verdict",
    "per_word",
    "trigger",
    "repeat_of",
    "line_sha256",
];

/// The record's other fields (an event's own), as a JSON object text.
fn details(record: &Value) -> String {
    let Some(map) = record.as_object() else { return String::new() };
    let rest: serde_json::Map<String, Value> =
        map.iter().filter(|(k, _)| !COMMON.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    if rest.is_empty() {
        String::new()
    } else {
        Value::Object(rest).to_string()
    }
}

fn words(record: &Value) -> Vec<String> {
    record["words"]
        .as_array()
        .map(|a| a.iter().filter_map(|w| w.as_str().map(String::from)).collect())
        .unwrap_or_default()
}

/// `QI:acceptable ZA:unacceptable`.
fn per_word(record: &Value) -> String {
    let results = record["per_word"].as_array().cloned().unwrap_or_default();
    words(record)
        .iter()
        .zip(results)
        .map(|(w, ok)| format!("{w}:{}", if ok.as_bool() == Some(true) { "acceptable" } else { "unacceptable" }))
        .collect::<Vec<_>>()
        .join(" ")
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(" "),
        other => other.to_string(),
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
];

/// One CSV field: quoted when needed (RFC 4180). Text beginning with `=`,
/// `+`, `-` or `@` gets a leading `'` so a spreadsheet shows it instead of
/// running it as a formula (a station name is free text).
fn csv_field(value: &str) -> String {
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
    let cells = [
        text(&r["seq"]),
        text(&r["time"]),
        text(&r["station"]),
        text(&r["event"]),
        text(&r["challenge"]),
        text(&r["verdict"]),
        words(r).join(" "),
        per_word(r),
        text(&r["lexicon"]["id"]),
        text(&r["lexicon"]["status"]),
        text(&r["lexicon"]["fingerprint"]),
        text(&r["lexicon"]["fst_sha256"]),
        text(&r["trigger"]),
        text(&r["repeat_of"]),
        text(&r["clock_synced"]),
        text(&r["boot_id"]),
        text(&r["mono_ns"]),
        r["delayed"].as_bool().unwrap_or(false).to_string(),
        details(r),
        line.sealed.to_string(),
        text(&r["prev"]),
        text(&r["line_sha256"]),
    ];
    cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",")
}

/// One record for people: local time, then what happened.
pub fn show_line(line: &ReadLine, tz: &TimeZone) -> String {
    let Some(r) = &line.record else {
        return format!("{}: unreadable line: {}", line.at, line.raw.chars().take(80).collect::<String>());
    };
    let time = r["time"]
        .as_str()
        .and_then(|t| t.parse::<Timestamp>().ok())
        .map(|t| t.to_zoned(tz.clone()).strftime("%Y-%m-%d %H:%M:%S %Z").to_string())
        .unwrap_or_else(|| "(no time)".into());
    let mut out = format!("{time}  #{}", text(&r["seq"]));
    if r["clock_synced"] == false {
        out.push_str(" (clock not synced)");
    }
    if r["event"] == "adjudication" {
        out.push_str(&format!(
            "  challenge {}  {}  {}  [{}]  {} ({}, {})  {}",
            text(&r["challenge"]),
            text(&r["verdict"]),
            words(r).join(" "),
            per_word(r),
            text(&r["lexicon"]["id"]),
            text(&r["lexicon"]["status"]),
            text(&r["lexicon"]["fingerprint"]),
            text(&r["trigger"]),
        ));
        if let Some(n) = r["repeat_of"].as_u64() {
            out.push_str(&format!("  repeat of {n}"));
        }
    } else {
        out.push_str(&format!("  {}", text(&r["event"])));
        let d = details(r);
        if !d.is_empty() {
            out.push_str(&format!("  {d}"));
        }
    }
    if r["delayed"] == true {
        out.push_str("  (written late)");
    }
    if !line.sealed {
        out.push_str("  [SEAL DOES NOT MATCH: edited]");
    }
    out
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
    }
}
