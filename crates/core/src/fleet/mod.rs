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
//! What the received records can prove. Any holder of an event
//! certificate can send any journal entry, so no field an entry carries is
//! believed by itself: a record counts as station X's only when the entry
//! carries the line X wrote in its audit log and a checkpoint of X's log up
//! to that line, signed by the audit key the laptop paired with X at `fleet
//! sign` ([`proof`]). Its verdict, lexicon and challenge number are then
//! read from that line. Every other wordjudge entry that names a station
//! (or carries its signature under another name: an impersonation) is
//! refused and named on that station's line, and one that names none is
//! named on the fleet's. Checked over the verified records: each line's
//! `prev` is the hash of the line before it when both arrived, no `seq`
//! missing between two of them, no `seq` with two different lines, and no
//! challenge number missing unless the station recorded why (`skipped`,
//! `challenges_lost`).

pub mod ca;
mod entry;
pub mod join;
mod links;
pub mod proof;
pub mod render;
mod run;
pub mod sender;
pub mod station;
pub mod stick;

pub use entry::output_fields;
use entry::Fields;
pub use proof::PairedKey;
pub use station::{HourCounts, LinkBreak, Range, Service, Station, MAX_BREAKS, MAX_HOSTS, MAX_WARNINGS};

/// Where the laptop keeps the event's CA (`fleet setup`), and where `fleet
/// sign`, `serve` and `status` find it.
pub const DEFAULT_CA_DIR: &str = "/var/lib/wordjudge-fleet";

/// Where `fleet serve` writes the stations' journals, and `fleet status`
/// reads them.
pub const DEFAULT_RECEIVED_DIR: &str = "/var/log/journal/remote";

use crate::recorder::journal::{AUDIT_FAILING, SYSLOG_IDENTIFIER};
use std::collections::BTreeMap;
use std::fmt;

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
                write!(
                    f,
                    "entry {line} is not a journal entry in JSON ({problem}); is this `journalctl -o json` output?"
                )
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

/// A record's `time` (RFC 3339) in microseconds since the epoch.
fn record_time(time: &str) -> Option<i64> {
    time.parse::<jiff::Timestamp>().ok().map(|t| t.as_microsecond())
}

/// The fleet as the entries given so far describe it.
#[derive(Debug, Default)]
pub struct Fleet {
    /// By name in the fleet (the paired key's station).
    stations: BTreeMap<String, Station>,
    keys: Vec<PairedKey>,
    /// Who sent the entries being added, when the transport says so.
    sender: Option<String>,
    entries: usize,
    lines: usize,
    /// Wordjudge audit entries, proven or not.
    records_seen: usize,
    unattributed: Vec<String>,
    more_unattributed: u64,
    /// Per sender, the last entry refused unread, until one is read.
    last_refused: BTreeMap<Option<String>, String>,
    /// Per sender, the time of its last wordjudge entry of any kind.
    heard: BTreeMap<String, i64>,
    /// Records of the sender's log waiting for the signature that proves
    /// their run ([`run`]).
    run: run::Run,
}

/// How often a station in a fleet says it is alive (an unsigned journal
/// line; the certificate that sent it names the station): a station not
/// heard for three of these is silent.
pub const SIGN_OF_LIFE_EVERY: std::time::Duration = std::time::Duration::from_secs(300);

/// Every station, by name, with the lexicon mismatches marked.
#[derive(Debug, Clone)]
pub struct Status {
    pub stations: Vec<Station>,
    /// Journal entries read (wordjudge's and others).
    pub entries: usize,
    /// Wordjudge entries that no paired station signed and that name none:
    /// what is wrong with each (the first [`MAX_BREAKS`]), and how many more.
    pub unattributed: Vec<String>,
    pub more_unattributed: u64,
    /// Stations whose audit key the laptop holds.
    pub paired: usize,
}

impl Fleet {
    /// A fleet whose stations' records are proven with `keys`, the audit
    /// keys paired at `fleet sign` ([`read_paired_keys`]).
    pub fn new(keys: Vec<PairedKey>) -> Fleet {
        Fleet { keys, ..Fleet::default() }
    }

    /// Adds one `journalctl -o json` line. Entries that are not wordjudge
    /// audit records are counted and passed over; a wordjudge entry that is
    /// not a paired station's signed line ([`proof::check`]) changes no
    /// station's state and is an alert on the station it names.
    pub fn add_line(&mut self, line: &str) -> Result<(), FleetError> {
        self.last_refused.remove(&self.sender);
        self.lines += 1;
        let number = self.lines;
        if line.trim().is_empty() {
            return Ok(());
        }
        self.entries += 1;
        let entry = Fields(
            serde_json::from_str(line).map_err(|e| FleetError::NotJson { line: number, problem: e.to_string() })?,
        );
        if entry.get("SYSLOG_IDENTIFIER").as_deref() != Some(SYSLOG_IDENTIFIER) {
            return Ok(());
        }
        let journal_time = entry.get("__REALTIME_TIMESTAMP").and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
        if let Some(sender) = &self.sender {
            // Any line of the station's, signed or not, says it is alive:
            // the certificate it came with says which station it is.
            let heard = self.heard.entry(sender.clone()).or_insert(journal_time);
            *heard = (*heard).max(journal_time);
        }
        let Some(event) = entry.wj("event") else { return Ok(()) };
        self.records_seen += 1;
        let claimed = entry
            .wj("station")
            .filter(|s| !s.is_empty())
            .or_else(|| entry.get("_HOSTNAME"))
            .unwrap_or_else(|| "(no name)".into());
        // A copy of a record not (yet) in the file, or the warning that the
        // log fails: nothing to verify, so only a warning, marked unsigned.
        if event == AUDIT_FAILING
            || (entry.wj("audit_written").as_deref() == Some("false") && entry.wj("line").is_none())
        {
            let message = entry.get("MESSAGE").unwrap_or_else(|| event.clone());
            self.check_run();
            self.warn_unsigned(&claimed, journal_time, format!("unsigned, the log was failing: {message}"));
            return Ok(());
        }
        match run::sealed(&entry) {
            // A sealed line: into the run it follows, proven with it.
            Some((record, hash)) => {
                if !self.run.follows(&record) {
                    self.check_run();
                }
                self.run.push(run::Waiting { entry, claimed, journal_time, record, hash });
                if self.run.is_full() {
                    self.check_run();
                }
            }
            None => {
                self.check_run();
                match self.prove(&entry) {
                    Ok(proven) => self.take(proven, entry.get("_HOSTNAME"), journal_time),
                    Err(refusal) => self.refused(&entry, refusal, &claimed, journal_time),
                }
            }
        }
        Ok(())
    }

    /// Checks the run waiting ([`run::Run::check`]) and takes or refuses
    /// each of its records, in order.
    fn check_run(&mut self) {
        for (item, outcome) in self.run.check(&self.keys) {
            let result = match outcome {
                run::Outcome::Proven(proven) => self.agrees(&item.entry, proven),
                run::Outcome::Refused(refusal) => Err(refusal),
            };
            match result {
                Ok(proven) => self.take(proven, item.entry.get("_HOSTNAME"), item.journal_time),
                Err(refusal) => self.refused(&item.entry, refusal, &item.claimed, item.journal_time),
            }
        }
    }

    /// A warning that carries no signature: under the station that sent it
    /// when the transport says, else under the station it names.
    fn warn_unsigned(&mut self, claimed: &str, journal_time: i64, what: String) {
        if let Some(sender) = self.sender.clone() {
            self.station_for_key(&sender, None).warn(journal_time, what);
            return;
        }
        match self.station_named(claimed) {
            Some(station) => station.warn(journal_time, what),
            None => self.unattributed(format!("entry naming {}: {what}", crate::word::printable(claimed, 60))),
        }
    }

    /// The entry's line and checkpoint proven to be a paired station's, and
    /// the sender's own copies of the fields, where it gives them, the
    /// line's: a signed line of one station sent under another station's
    /// name is an impersonation, not a record.
    fn prove(&self, entry: &Fields) -> Result<proof::Proven, proof::Refusal> {
        let p = proof::check(&self.keys, entry.wj("line").as_deref(), entry.wj("checkpoint").as_deref())?;
        self.agrees(entry, p)
    }

    /// A proven line `p` taken as the entry's record only when the sender
    /// and the entry's own copies of its fields agree with it.
    fn agrees(&self, entry: &Fields, p: proof::Proven) -> Result<proof::Proven, proof::Refusal> {
        let differs = |name: &'static str, value: String| {
            entry.wj(name).is_some_and(|v| v != value).then_some(proof::Refusal::FieldDiffers { field: name })
        };
        let fleet_name = &self.keys[p.key].station;
        if self.sender.as_ref().is_some_and(|s| s != fleet_name) {
            return Err(proof::Refusal::SentByOther { signer: fleet_name.clone() });
        }
        let claims_other =
            entry.wj("station").is_some_and(|c| c != p.record.station && self.is_other_station(&c, fleet_name));
        if claims_other {
            return Err(proof::Refusal::FieldDiffers { field: "station" });
        }
        if let Some(refusal) = differs("seq", p.record.seq.to_string())
            .or_else(|| differs("line_sha256", p.hash.clone()))
            .or_else(|| differs("event", p.record.body.name().to_string()))
        {
            return Err(refusal);
        }
        Ok(p)
    }

    /// An entry refused: under the station that sent it when the transport
    /// names one; else under the key that signed it (an impersonation by
    /// that station), else under the station the entry names.
    fn refused(&mut self, entry: &Fields, refusal: proof::Refusal, claimed: &str, journal_time: i64) {
        let seq = entry.wj("seq").unwrap_or_else(|| "?".into());
        if let Some(sender) = self.sender.clone() {
            let what = if matches!(refusal, proof::Refusal::SentByOther { .. }) || claimed == sender {
                format!("seq {seq}: {refusal}")
            } else {
                format!("seq {seq} naming {}: {refusal}", crate::word::printable(claimed, 60))
            };
            self.station_for_key(&sender, None).refuse(journal_time, what);
            return;
        }
        let signer = proof::check(&self.keys, entry.wj("line").as_deref(), entry.wj("checkpoint").as_deref())
            .ok()
            .map(|p| self.keys[p.key].station.clone());
        let what = match &signer {
            Some(_) => format!("seq {seq} naming {}: {refusal}", crate::word::printable(claimed, 60)),
            None => format!("seq {seq}: {refusal}"),
        };
        match signer {
            Some(fleet_name) => self.station_for_key(&fleet_name, None).refuse(journal_time, what),
            None => match self.station_named(claimed) {
                Some(station) => station.refuse(journal_time, what),
                None => self.unattributed(format!("entry naming {}: {what}", crate::word::printable(claimed, 60))),
            },
        }
    }

    /// A proven record, taken by the station whose key signed it once its
    /// seal follows the one before.
    fn take(&mut self, proven: proof::Proven, host: Option<String>, journal_time: i64) {
        let record = proven.record;
        let (fleet_name, replaced_at) = (self.keys[proven.key].station.clone(), self.keys[proven.key].replaced_at);
        let time = record_time(&record.time).unwrap_or(journal_time);
        let station = match replaced_at {
            None => self.station_for_key(&fleet_name, Some(&record.station)),
            Some(at) => self.station_for_replaced_key(&fleet_name, at, &record.station),
        };
        if station.seal(record.seq, &proven.hash, &record.prev) {
            station.take(&record.body, record.delayed, host, time);
            if replaced_at.is_some_and(|at| time > at.saturating_mul(1_000_000)) {
                station.after_replacement += 1;
            }
        }
    }

    /// Journal entries given so far (wordjudge's and others).
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The station whose certificate sent the entries added from now on
    /// (`fleet serve` keeps each station's in a file of its own:
    /// [`sender::sender_of`]), or `None` where that is not known (a journal
    /// file of another origin): then only the signature attributes them.
    pub fn from_sender(&mut self, sender: Option<String>) {
        // The run waiting is the last sender's.
        self.check_run();
        self.sender = sender;
    }

    /// The station paired under `fleet_name`, made at its first record;
    /// `shown_as` is the name its verified records give it.
    fn station_for_key(&mut self, fleet_name: &str, shown_as: Option<&str>) -> &mut Station {
        let station = self.stations.entry(fleet_name.to_string()).or_insert_with(|| {
            let mut s = Station::new(shown_as.filter(|n| !n.is_empty()).unwrap_or(fleet_name).to_string());
            s.fleet_name = fleet_name.to_string();
            s
        });
        if let Some(name) = shown_as.filter(|n| !n.is_empty()) {
            if station.name != name {
                station.name = name.to_string();
            }
            if join::fleet_name(name) == station.fleet_name {
                station.certificate_name_seen = true;
            }
        }
        station
    }

    /// The line of `fleet_name`'s key replaced at `at` (`fleet sign
    /// --replace`): the station's records from before its new key, apart
    /// from the new log's (a reflashed station starts its log again).
    fn station_for_replaced_key(&mut self, fleet_name: &str, at: i64, shown_as: &str) -> &mut Station {
        let key = format!("{fleet_name}{}{at}", ca::REPLACED_MARK);
        let station = self.stations.entry(key).or_insert_with(|| {
            let mut s = Station::new(fleet_name.to_string());
            s.fleet_name = fleet_name.to_string();
            s.replaced_at = Some(at);
            s
        });
        if !shown_as.is_empty() {
            station.name = shown_as.to_string();
        }
        station.certificate_name_seen = true;
        station
    }

    /// The paired station an unproven entry names: by the name its
    /// verified records show, or by its name in the fleet.
    fn station_named(&mut self, claimed: &str) -> Option<&mut Station> {
        let slug = join::fleet_name(claimed);
        let fleet_name = self
            .stations
            .values()
            .find(|s| s.name == claimed || s.fleet_name == claimed)
            .map(|s| s.fleet_name.clone())
            .or_else(|| {
                self.keys.iter().find(|k| k.station == claimed || k.station == slug).map(|k| k.station.clone())
            })?;
        Some(self.station_for_key(&fleet_name, None))
    }

    /// Whether `claimed` names a paired station other than `fleet_name`.
    fn is_other_station(&self, claimed: &str, fleet_name: &str) -> bool {
        let slug = join::fleet_name(claimed);
        self.stations.values().any(|s| s.fleet_name != fleet_name && (s.name == claimed || s.fleet_name == claimed))
            || self.keys.iter().any(|k| k.station != fleet_name && (k.station == claimed || k.station == slug))
    }

    /// An entry no paired station signed and none is named by: kept for the
    /// fleet's own line, the first [`MAX_BREAKS`], the rest counted.
    /// An entry that could not be read at all (too long, not JSON): one
    /// refused entry on the line of the station whose certificate sent it,
    /// else in the unattributed list; never the end of the summary.
    ///
    /// An unreadable entry that is the last one a sender sent has no cursor
    /// `--watch` could continue after, so the next round reads it again: the
    /// same refusal from the same sender with nothing read in between is
    /// counted once.
    pub fn refuse_entry(&mut self, what: String) {
        self.check_run();
        if self.last_refused.get(&self.sender) == Some(&what) {
            return;
        }
        self.last_refused.insert(self.sender.clone(), what.clone());
        self.lines += 1;
        self.entries += 1;
        self.records_seen += 1;
        match self.sender.clone() {
            Some(sender) => self.station_for_key(&sender, None).refuse(0, what),
            None => self.unattributed(what),
        }
    }

    fn unattributed(&mut self, what: String) {
        if self.unattributed.len() < MAX_BREAKS {
            self.unattributed.push(what);
        } else {
            self.more_unattributed += 1;
        }
    }

    /// The summary, with the lexicon mismatches between stations marked; an
    /// error when no wordjudge record was among the entries.
    pub fn finish(mut self) -> Result<Status, FleetError> {
        self.status()
    }

    /// [`Self::finish`] without ending the summary: more entries may be
    /// added after it (`fleet status --watch` adds what arrived since).
    pub fn status(&mut self) -> Result<Status, FleetError> {
        self.check_run();
        if self.records_seen == 0 {
            return Err(FleetError::NoRecords { entries: self.entries });
        }
        let mut stations: Vec<Station> = self.stations.values().cloned().collect();
        // A replaced key's records are of an earlier setup: not compared.
        let seen: Vec<(String, String, String)> = stations
            .iter()
            .filter(|s| s.replaced_at.is_none())
            .filter_map(|s| Some((s.name.clone(), s.lexicon.clone()?, s.fingerprint.clone()?)))
            .collect();
        for station in &mut stations {
            // Judged only where the transport names the sender: lines of
            // no known sender (another journal's files) tell nothing of it.
            station.last_heard_us =
                self.heard.get(&station.fleet_name).map_or(0, |heard| station.last_seen_us.max(*heard));
            let (Some(id), Some(own), None) = (&station.lexicon, &station.fingerprint, station.replaced_at) else {
                continue;
            };
            station.mismatch = seen
                .iter()
                .filter(|(name, lexicon, fingerprint)| *name != station.name && lexicon == id && fingerprint != own)
                .map(|(name, _, fingerprint)| (name.clone(), fingerprint.clone()))
                .collect();
        }
        Ok(Status {
            stations,
            entries: self.entries,
            unattributed: self.unattributed.clone(),
            more_unattributed: self.more_unattributed,
            paired: self.keys.len(),
        })
    }
}

/// Sums up `lines` of `journalctl -o json` output, with the stations' paired
/// audit keys.
pub fn status_of<'a>(lines: impl IntoIterator<Item = &'a str>, keys: Vec<PairedKey>) -> Result<Status, FleetError> {
    let mut fleet = Fleet::new(keys);
    for line in lines {
        fleet.add_line(line)?;
    }
    fleet.finish()
}

#[cfg(test)]
mod tests;
