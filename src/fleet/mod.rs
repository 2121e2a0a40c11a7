//! The fleet's status on the director's laptop: what every station's audit
//! records say, read from the journal copies the laptop received. Beside it:
//! the fleet stick's format ([`stick`]) and the event's CA ([`ca`]), with
//! which the laptop lets stations join.
//!
//! Each audit record goes to journald with `WORDJUDGE_*` fields
//! ([`crate::recorder::journal`]); `systemd-journal-remote` on the laptop
//! keeps each station's in its own journal file. This module is given those
//! entries as `journalctl -o json` lines ([`Fleet::add_line`]) and knows
//! nothing else of the journal: it sums them up per station ([`Station`])
//! and says what it found ([`render`]: a text table, a one-page HTML view).
//!
//! What the received records can prove. A journal copy carries the record's
//! `seq` and `line_sha256` (and its slip `code`) but not `prev`, the hash of
//! the line before it, nor the line's time and boot fields, so the hash
//! chain itself is checked only by `wordjudge audit verify` on the station's
//! audit folder. Checked here, over the records that arrived: no `seq`
//! missing between two received records, each slip code is the one of its
//! `line_sha256`, no `seq` received with two different hashes, and no
//! challenge number missing between two received adjudications unless the
//! station recorded why (`skipped`, `challenges_lost`).

pub mod ca;
pub mod join;
pub mod render;
pub mod stick;

use crate::audit::{Body, EventKind, SlipCode};
use crate::recorder::journal::{AUDIT_FAILING, SYSLOG_IDENTIFIER};
use crate::recorder::journal_field_name;
use std::collections::BTreeMap;
use std::fmt;

/// The journal fields this module reads (for `journalctl --output-fields`;
/// `__REALTIME_TIMESTAMP` always comes).
pub fn output_fields() -> Vec<String> {
    let mut fields: Vec<String> = ["_HOSTNAME", "SYSLOG_IDENTIFIER", "PRIORITY", "MESSAGE"].map(String::from).to_vec();
    for name in [
        "event",
        "station",
        "seq",
        "challenge",
        "verdict",
        "lexicon",
        "lexicon_fingerprint",
        "lexicon_status",
        "audit_written",
        "line_sha256",
        "code",
        "problem",
        "record",
    ] {
        fields.push(journal_field_name(name));
    }
    fields
}

/// Why the entries could not be summed up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetError {
    /// A line that is not a JSON object.
    NotJson { line: usize, problem: String },
    /// A wordjudge record with a field that does not have its form.
    BadField { line: usize, station: String, field: String, value: String, expected: &'static str },
    /// No wordjudge audit record among the entries.
    NoRecords { entries: usize },
}

impl fmt::Display for FleetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetError::NotJson { line, problem } => {
                write!(f, "entry {line} is not a journal entry in JSON ({problem}); is this `journalctl -o json` output?")
            }
            FleetError::BadField { line, station, field, value, expected } => write!(
                f,
                "entry {line} (station {}) has {field}={}, which is not {expected}: was it written by wordjudge?",
                crate::word::quote(station),
                crate::word::quote(value)
            ),
            FleetError::NoRecords { entries } => write!(
                f,
                "no wordjudge audit record among the {entries} journal entries read (none has \
                 SYSLOG_IDENTIFIER={SYSLOG_IDENTIFIER} with a WORDJUDGE_EVENT): no station has sent any here"
            ),
        }
    }
}

impl std::error::Error for FleetError {}

/// A challenge number range, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range(pub u64, pub u64);

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == self.1 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{}-{}", self.0, self.1)
        }
    }
}

/// One thing the received records do not link up on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkBreak {
    /// Challenge numbers between two received adjudications that never
    /// arrived and that no record explains.
    ChallengesMissing(Range),
    /// A challenge number lower than the one before it.
    ChallengeWentBack { from: u64, to: u64 },
    /// Records (`seq`) between two received ones that never arrived.
    RecordsMissing(Range),
    /// A `seq` lower than the one before it (another log?).
    SeqWentBack { from: u64, to: u64 },
    /// One `seq` received with two different `line_sha256`.
    TwoHashes { seq: u64 },
    /// A slip code that is not the one of its `line_sha256`.
    CodeMismatch { seq: u64 },
}

impl fmt::Display for LinkBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkBreak::ChallengesMissing(r) => write!(f, "challenge {r} missing"),
            LinkBreak::ChallengeWentBack { from, to } => write!(f, "challenge numbers went back from {from} to {to}"),
            LinkBreak::RecordsMissing(r) => write!(f, "record seq {r} missing"),
            LinkBreak::SeqWentBack { from, to } => write!(f, "record seq went back from {from} to {to}"),
            LinkBreak::TwoHashes { seq } => write!(f, "record seq {seq} arrived with two different hashes"),
            LinkBreak::CodeMismatch { seq } => write!(f, "record seq {seq}: its slip code is not its hash's"),
        }
    }
}

/// A station's state as its records leave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    /// Judging (or nothing says otherwise).
    In,
    /// Out of service, and why (the record that said so).
    Out(String),
    /// Its last record was a shutdown.
    Stopped,
}

/// Verdicts in one hour: (acceptable, unacceptable).
pub type HourCounts = (u64, u64);

/// One station's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Station {
    /// `WORDJUDGE_STATION`, else the journal's `_HOSTNAME`.
    pub name: String,
    /// The hosts its entries came from (more than one is a warning).
    pub hosts: Vec<String>,
    /// Wordjudge records received.
    pub records: u64,
    /// Time of the last record (microseconds since the epoch, journal time).
    pub last_seen_us: i64,
    /// The active lexicon's id, fingerprint and status, as last recorded.
    pub lexicon: Option<String>,
    pub fingerprint: Option<String>,
    pub lexicon_status: Option<String>,
    /// The event profile, as last recorded.
    pub profile: Option<String>,
    /// The last challenge number and when it was recorded.
    pub last_challenge: Option<(u64, i64)>,
    pub service: Service,
    /// Warnings (problem records), oldest first: (time, what); the last
    /// [`MAX_WARNINGS`] of them.
    pub warnings: Vec<(i64, String)>,
    /// Every warning, counted.
    pub warnings_total: u64,
    /// Where the received records do not link up: the first [`MAX_BREAKS`].
    pub breaks: Vec<LinkBreak>,
    /// Breaks found beyond those kept.
    pub more_breaks: u64,
    /// Gaps in the challenge numbers that the station's records explain
    /// (the first [`MAX_BREAKS`]).
    pub explained: Vec<Range>,
    /// Explained gaps beyond those kept.
    pub more_explained: u64,
    /// Entries from hosts beyond the [`MAX_HOSTS`] kept in `hosts`.
    pub more_hosts: u64,
    /// Received records that carry a `seq` and `line_sha256` (checked).
    pub sealed: u64,
    /// Verdicts per hour (hour start, seconds since the epoch).
    pub per_hour: BTreeMap<i64, HourCounts>,
    /// Set by [`Fleet::finish`]: other stations judging this lexicon id
    /// with another fingerprint (name, fingerprint).
    pub mismatch: Vec<(String, String)>,
    // Chain-check state.
    last_seq: Option<(u64, String)>,
    last_number: Option<u64>,
    lost: Vec<Range>,
}

impl Station {
    fn new(name: String) -> Station {
        Station {
            name,
            hosts: Vec::new(),
            records: 0,
            last_seen_us: 0,
            lexicon: None,
            fingerprint: None,
            lexicon_status: None,
            profile: None,
            last_challenge: None,
            service: Service::In,
            warnings: Vec::new(),
            warnings_total: 0,
            breaks: Vec::new(),
            more_breaks: 0,
            explained: Vec::new(),
            more_explained: 0,
            more_hosts: 0,
            sealed: 0,
            per_hour: BTreeMap::new(),
            mismatch: Vec::new(),
            last_seq: None,
            last_number: None,
            lost: Vec::new(),
        }
    }

    /// Whether the station's lexicon is one it should not judge with: a
    /// status that failed its check, or another fingerprint than the other
    /// stations with the same lexicon id.
    pub fn wrong_lexicon(&self) -> bool {
        use crate::lexicon::Status;
        let failed = [Status::Mismatch, Status::Corrupt, Status::Missing].map(Status::label);
        !self.mismatch.is_empty() || self.lexicon_status.as_deref().is_some_and(|s| failed.contains(&s))
    }

    /// Whether the tile is red.
    pub fn alarm(&self) -> bool {
        matches!(self.service, Service::Out(_)) || self.wrong_lexicon()
    }

    fn seal(&mut self, seq: u64, hash: &str, code: Option<&str>) {
        self.sealed += 1;
        if let Some(code) = code {
            if SlipCode::of_line_hash(hash).map(|c| c.to_string()).as_deref() != Some(code) {
                self.push_break(LinkBreak::CodeMismatch { seq });
            }
        }
        match &self.last_seq {
            Some((last, last_hash)) if *last == seq => {
                if last_hash != hash {
                    self.push_break(LinkBreak::TwoHashes { seq });
                }
                return;
            }
            Some((last, _)) if seq < *last => self.push_break(LinkBreak::SeqWentBack { from: *last, to: seq }),
            Some((last, _)) if seq > last + 1 => self.push_break(LinkBreak::RecordsMissing(Range(last + 1, seq - 1))),
            _ => {}
        }
        self.last_seq = Some((seq, hash.to_string()));
    }

    fn number(&mut self, n: u64, skipped: &[[u64; 2]]) {
        let Some(last) = self.last_number else {
            self.last_number = Some(n);
            return;
        };
        if n == last {
            return; // the same record again (a held copy written later)
        }
        if n < last {
            self.push_break(LinkBreak::ChallengeWentBack { from: last, to: n });
        } else if n > last + 1 {
            // The gap split by what the station said of it, range by range:
            // never number by number (challenge 1 then 10^15 is one range).
            let said: Vec<Range> =
                skipped.iter().map(|[a, b]| Range(*a.min(b), *a.max(b))).chain(self.lost.iter().copied()).collect();
            for (range, explained) in split_gap(Range(last + 1, n - 1), said) {
                if explained {
                    self.push_explained(range);
                } else {
                    self.push_break(LinkBreak::ChallengesMissing(range));
                }
            }
        }
        self.last_number = Some(n);
        // What was lost below this number explains no later gap.
        self.lost.retain(|r| r.1 > n);
    }

    /// A break kept, up to [`MAX_BREAKS`]; beyond, only counted.
    fn push_break(&mut self, b: LinkBreak) {
        if self.breaks.len() < MAX_BREAKS {
            self.breaks.push(b);
        } else {
            self.more_breaks += 1;
        }
    }

    fn push_explained(&mut self, r: Range) {
        if self.explained.len() < MAX_BREAKS {
            self.explained.push(r);
        } else {
            self.more_explained += 1;
        }
    }

    /// A warning kept, the last [`MAX_WARNINGS`] of them; all are counted.
    fn warn(&mut self, at: i64, what: String) {
        self.warnings_total += 1;
        if self.warnings.len() >= MAX_WARNINGS {
            self.warnings.remove(0);
        }
        self.warnings.push((at, what));
    }
}

/// `gap` cut into consecutive ranges, each marked whether one of `said`
/// covers it: in time and memory of the number of ranges said, whatever the
/// gap's width.
fn split_gap(gap: Range, mut said: Vec<Range>) -> Vec<(Range, bool)> {
    said.retain(|r| r.1 >= gap.0 && r.0 <= gap.1);
    said.sort_by_key(|r| r.0);
    let mut out: Vec<(Range, bool)> = Vec::new();
    let mut next = gap.0; // the first number not yet placed
    let mut done = false;
    for r in said {
        let (start, end) = (r.0.max(gap.0), r.1.min(gap.1));
        if done || end < next {
            continue;
        }
        let start = start.max(next);
        if start > next {
            out.push((Range(next, start - 1), false));
        }
        match out.last_mut() {
            Some((last, true)) if last.1 + 1 == start => last.1 = end,
            _ => out.push((Range(start, end), true)),
        }
        if end == gap.1 {
            done = true;
        } else {
            next = end + 1;
        }
    }
    if !done {
        out.push((Range(next, gap.1), false));
    }
    out
}

/// Breaks (and explained gaps) kept per station: the first ones name where
/// it went wrong; the rest are counted ([`Station::more_breaks`]), so a
/// journal of a million breaks costs a bounded memory and a bounded line.
pub const MAX_BREAKS: usize = 20;
/// Warnings kept per station (the last ones; all are counted).
pub const MAX_WARNINGS: usize = 50;
/// Hosts kept per station (more are counted).
pub const MAX_HOSTS: usize = 16;

/// The fleet as the entries given so far describe it.
#[derive(Debug, Default)]
pub struct Fleet {
    stations: BTreeMap<String, Station>,
    entries: usize,
    lines: usize,
}

/// Every station, by name, with the lexicon mismatches marked.
#[derive(Debug, Clone)]
pub struct Status {
    pub stations: Vec<Station>,
    /// Journal entries read (wordjudge's and others).
    pub entries: usize,
}

/// A journal field's value as text: journalctl writes a string, an array
/// of bytes (a value that is not printable UTF-8) or an array of values (a
/// field given more than once: the last counts).
fn text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(items) if items.iter().all(|i| i.is_u64()) => {
            let bytes: Vec<u8> = items.iter().filter_map(|i| i.as_u64()).map(|b| b as u8).collect();
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        serde_json::Value::Array(items) => items.last().and_then(text),
        _ => None,
    }
}

impl Fleet {
    pub fn new() -> Fleet {
        Fleet::default()
    }

    /// Adds one `journalctl -o json` line. Entries that are not wordjudge
    /// audit records are counted and passed over.
    pub fn add_line(&mut self, line: &str) -> Result<(), FleetError> {
        self.lines += 1;
        let number = self.lines;
        if line.trim().is_empty() {
            return Ok(());
        }
        self.entries += 1;
        let entry: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(line).map_err(|e| FleetError::NotJson { line: number, problem: e.to_string() })?;
        let field = |name: &str| entry.get(name).and_then(text);
        let wj = |name: &str| field(&journal_field_name(name));
        if field("SYSLOG_IDENTIFIER").as_deref() != Some(SYSLOG_IDENTIFIER) {
            return Ok(());
        }
        let Some(event) = wj("event") else { return Ok(()) };
        let name = wj("station").filter(|s| !s.is_empty()).or_else(|| field("_HOSTNAME")).unwrap_or_else(|| "(no name)".into());
        let bad = |field: &str, value: String, expected: &'static str| FleetError::BadField {
            line: number,
            station: name.clone(),
            field: field.to_string(),
            value,
            expected,
        };
        let num = |n: &str, what: &'static str| -> Result<Option<u64>, FleetError> {
            match wj(n) {
                None => Ok(None),
                Some(v) => v.parse().map(Some).map_err(|_| bad(&journal_field_name(n), v, what)),
            }
        };
        let time = match field("__REALTIME_TIMESTAMP") {
            None => return Err(bad("__REALTIME_TIMESTAMP", String::new(), "a time in microseconds")),
            Some(v) => v.parse::<i64>().map_err(|_| bad("__REALTIME_TIMESTAMP", v, "a time in microseconds"))?,
        };
        let seq = num("seq", "a record number")?;
        let challenge = num("challenge", "a challenge number")?;
        let hash = wj("line_sha256");
        if let Some(h) = &hash {
            if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(&journal_field_name("line_sha256"), h.clone(), "a SHA-256 in hex"));
            }
        }
        let body = match wj("record").filter(|r| !r.is_empty()) {
            None => None,
            Some(r) => {
                Some(serde_json::from_str::<Body>(&r).map_err(|_| bad(&journal_field_name("record"), r, "a record in JSON"))?)
            }
        };
        let adjudication = body.as_ref().and_then(Body::adjudication);
        let verdict = wj("verdict");
        if event == EventKind::Adjudication.as_str() {
            if challenge.is_none() {
                return Err(bad(&journal_field_name("challenge"), String::new(), "a challenge number"));
            }
            if let Some(v) = &verdict {
                if v != "ACCEPTABLE" && v != "UNACCEPTABLE" {
                    return Err(bad(&journal_field_name("verdict"), v.clone(), "ACCEPTABLE or UNACCEPTABLE"));
                }
            }
        }
        let priority = field("PRIORITY").and_then(|p| p.parse::<u8>().ok());
        let message = field("MESSAGE").unwrap_or_else(|| event.clone());
        let problem = wj("problem");

        let station = self.stations.entry(name.clone()).or_insert_with(|| Station::new(name.clone()));
        station.records += 1;
        station.last_seen_us = station.last_seen_us.max(time);
        if let Some(host) = field("_HOSTNAME") {
            if !station.hosts.contains(&host) {
                if station.hosts.len() < MAX_HOSTS {
                    station.hosts.push(host);
                } else {
                    station.more_hosts += 1;
                }
            }
        }
        if let (Some(seq), Some(hash)) = (seq, &hash) {
            station.seal(seq, hash, wj("code").as_deref());
        }
        if wj("audit_written").as_deref() == Some("false") && event != AUDIT_FAILING {
            station.warn(time, format!("not in the audit file (the log was failing): {message}"));
        }
        let problem_event = body.as_ref().and_then(Body::event).is_some_and(|e| e.is_problem());
        if problem_event || priority.is_some_and(|p| p <= 4) || event == AUDIT_FAILING {
            station.warn(time, message.clone());
        }
        match EventKind::parse(&event) {
            Some(EventKind::Adjudication) => {
                let n = challenge.unwrap_or_default();
                let skipped = adjudication.map(|a| a.skipped.clone()).unwrap_or_default();
                station.number(n, &skipped);
                if station.last_challenge.is_none_or(|(last, _)| n >= last) {
                    station.last_challenge = Some((n, time));
                }
                station.lexicon = wj("lexicon").or(station.lexicon.take());
                station.fingerprint = wj("lexicon_fingerprint").or(station.fingerprint.take());
                station.lexicon_status = wj("lexicon_status").or(station.lexicon_status.take());
                if let Some(profile) = adjudication.and_then(|a| a.profile.clone()) {
                    station.profile = Some(profile);
                }
                let hour = time.div_euclid(3_600_000_000) * 3600;
                let counts = station.per_hour.entry(hour).or_default();
                match verdict.as_deref() {
                    Some("ACCEPTABLE") => counts.0 += 1,
                    Some(_) => counts.1 += 1,
                    None => {}
                }
                station.service = Service::In;
            }
            Some(EventKind::LexiconOpened) => {
                station.lexicon = wj("lexicon");
                station.fingerprint = wj("lexicon_fingerprint");
                station.lexicon_status = wj("lexicon_status");
                station.service = match &problem {
                    Some(p) => Service::Out(format!("lexicon {}: {p}", station.lexicon.as_deref().unwrap_or("?"))),
                    None => Service::In,
                };
            }
            Some(EventKind::LexiconSwitched) => {
                station.lexicon = wj("lexicon");
                station.fingerprint = None;
                station.lexicon_status = None;
            }
            Some(EventKind::ProfileSwitched) => {
                if let Some(crate::audit::AuditEvent::ProfileSwitched { to, .. }) = body.as_ref().and_then(Body::event) {
                    station.profile = Some(to.clone());
                }
            }
            Some(EventKind::ChallengesLost) => {
                if let Some(crate::audit::AuditEvent::ChallengesLost { first, last, .. }) = body.as_ref().and_then(Body::event) {
                    if station.lost.len() >= MAX_BREAKS * 50 {
                        station.lost.remove(0);
                    }
                    station.lost.push(Range(*first.min(last), *first.max(last)));
                }
            }
            Some(EventKind::DisplayProblem) | Some(EventKind::JudgingFault) => {
                station.service = Service::Out(message.clone());
            }
            Some(EventKind::Startup) => station.service = Service::In,
            Some(EventKind::Shutdown) => station.service = Service::Stopped,
            _ => {}
        }
        Ok(())
    }

    /// The summary, with the lexicon mismatches between stations marked; an
    /// error when no wordjudge record was among the entries.
    pub fn finish(self) -> Result<Status, FleetError> {
        let mut stations: Vec<Station> = self.stations.into_values().collect();
        if stations.is_empty() {
            return Err(FleetError::NoRecords { entries: self.entries });
        }
        let seen: Vec<(String, String, String)> = stations
            .iter()
            .filter_map(|s| Some((s.name.clone(), s.lexicon.clone()?, s.fingerprint.clone()?)))
            .collect();
        for station in &mut stations {
            let (Some(id), Some(own)) = (&station.lexicon, &station.fingerprint) else { continue };
            station.mismatch = seen
                .iter()
                .filter(|(name, lexicon, fingerprint)| *name != station.name && lexicon == id && fingerprint != own)
                .map(|(name, _, fingerprint)| (name.clone(), fingerprint.clone()))
                .collect();
        }
        Ok(Status { stations, entries: self.entries })
    }
}

/// Sums up `lines` of `journalctl -o json` output.
pub fn status_of<'a>(lines: impl IntoIterator<Item = &'a str>) -> Result<Status, FleetError> {
    let mut fleet = Fleet::new();
    for line in lines {
        fleet.add_line(line)?;
    }
    fleet.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_read_are_the_recorders_names() {
        let fields = output_fields();
        for name in ["WORDJUDGE_EVENT", "WORDJUDGE_CHALLENGE", "WORDJUDGE_LINE_SHA256", "WORDJUDGE_RECORD", "_HOSTNAME"] {
            assert!(fields.iter().any(|f| f == name), "{name} in {fields:?}");
        }
        assert_eq!(Range(3, 4).to_string(), "3-4");
        assert_eq!(Range(5, 5).to_string(), "5");
    }

    #[test]
    fn a_number_seen_again_is_no_gap_and_a_jump_is_split_by_what_was_recorded() {
        let mut s = Station::new("t".into());
        s.lost.push(Range(4, 4));
        for n in [1, 1, 2, 6] {
            s.number(n, &[[5, 5]]);
        }
        assert_eq!(s.breaks, [LinkBreak::ChallengesMissing(Range(3, 3))]);
        assert_eq!(s.explained, [Range(4, 5)]);
    }

    #[test]
    fn a_gap_is_split_by_what_was_said_range_by_range() {
        let r = |a, b| Range(a, b);
        assert_eq!(split_gap(r(2, 9), vec![]), [(r(2, 9), false)]);
        assert_eq!(split_gap(r(2, 9), vec![r(1, 20)]), [(r(2, 9), true)]);
        assert_eq!(
            split_gap(r(2, 9), vec![r(5, 6), r(3, 3), r(4, 4), r(8, 30)]),
            [(r(2, 2), false), (r(3, 6), true), (r(7, 7), false), (r(8, 9), true)]
        );
        assert_eq!(split_gap(r(2, u64::MAX - 1), vec![r(0, 1), r(3, 3)]), [(r(2, 2), false), (r(3, 3), true), (r(4, u64::MAX - 1), false)]);
    }
}
