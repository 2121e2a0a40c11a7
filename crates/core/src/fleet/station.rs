//! One station's summary on the laptop, and the checks its records go
//! through as they arrive: the chain (each verified line after the one
//! before it), the record and challenge numbers (a gap is one range, split
//! by what the station said of it), the lexicon it judges with, its
//! warnings and refused entries, each kept in bounded memory.

use crate::audit::{AdjudicationRecord, AuditEvent, Body};
use std::collections::BTreeMap;

/// Breaks (and explained gaps) kept per station: the first ones name where
/// it went wrong; the rest are counted ([`Station::more_breaks`]), so a
/// journal of a million breaks costs a bounded memory and a bounded line.
pub const MAX_BREAKS: usize = 20;
/// Warnings kept per station (the last ones; all are counted).
pub const MAX_WARNINGS: usize = 50;
/// Hosts kept per station (more are counted).
pub const MAX_HOSTS: usize = 16;

use super::links::short_hash;
pub use super::links::{LinkBreak, Range};

/// A station's state as its records leave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    /// Judging (or nothing says otherwise).
    In,
    /// Out of service, and why (the record that said so).
    Out(String),
    /// Its last record was a shutdown.
    Stopped,
    /// It left the fleet (its `fleet_left` record, at this time in
    /// microseconds since the epoch): nothing more is expected from it.
    Left(i64),
}

/// Verdicts in one hour: (acceptable, unacceptable).
pub type HourCounts = (u64, u64);

/// One station's summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Station {
    /// The name the station's verified records give it.
    pub name: String,
    /// Its name in the fleet: the certificate's CN its audit key was paired
    /// with at `fleet sign`.
    pub fleet_name: String,
    /// Whether a record of its ever carried the name its certificate was
    /// made for (so a later name is a director's rename, not another
    /// station's name borrowed).
    pub certificate_name_seen: bool,
    /// Entries that named this station (or carried its signature) and were
    /// not its records, with why: the first [`MAX_BREAKS`].
    pub refused: Vec<(i64, String)>,
    /// Refused entries beyond those kept.
    pub more_refused: u64,
    /// The hosts its entries came from (more than one is a warning).
    pub hosts: Vec<String>,
    /// Wordjudge records received.
    pub records: u64,
    /// Time of the last record (microseconds since the epoch, journal time).
    pub last_seen_us: i64,
    /// Time of the last entry of any kind its certificate sent (a record,
    /// or the station's sign of life every [`super::SIGN_OF_LIFE_EVERY`]):
    /// how the laptop knows a station is silent.
    pub last_heard_us: i64,
    /// Set on the line of a key `fleet sign --replace` replaced: when (seconds
    /// since the epoch). Its records are the station's from before.
    pub replaced_at: Option<i64>,
    /// Records of a replaced key made after it was replaced: the old box, or
    /// a copy of its key, still in use.
    pub after_replacement: u64,
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
    pub(super) last_seq: Option<(u64, String)>,
    /// Every verified line's hash by seq.
    /// (The first 128 bits of each: half a million records in under 20 MB;
    /// two different signed lines of one log sharing them is beyond reach.)
    pub(super) seen: std::collections::HashMap<u64, u128>,
    pub(super) last_number: Option<u64>,
    pub(super) lost: Vec<Range>,
}

impl Station {
    pub(super) fn new(name: String) -> Station {
        Station {
            fleet_name: name.clone(),
            certificate_name_seen: false,
            name,
            refused: Vec::new(),
            more_refused: 0,
            hosts: Vec::new(),
            records: 0,
            last_seen_us: 0,
            lexicon: None,
            fingerprint: None,
            lexicon_status: None,
            profile: None,
            last_heard_us: 0,
            replaced_at: None,
            after_replacement: 0,
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
            seen: std::collections::HashMap::new(),
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

    /// Whether the tile is red: out of service, a wrong lexicon, an entry
    /// refused, or records that do not link up (missing, reordered, a fork).
    /// Whether a station in service has sent nothing for three of its
    /// signs of life by `now` (microseconds since the epoch).
    pub fn silent(&self, now_us: i64) -> bool {
        let silent_after = 3 * super::SIGN_OF_LIFE_EVERY.as_micros() as i64;
        // (A replaced key's line is the past: its silence is expected.)
        self.replaced_at.is_none()
            && matches!(self.service, Service::In)
            && self.last_heard_us > 0
            && now_us - self.last_heard_us > silent_after
    }

    pub fn alarm(&self) -> bool {
        (self.replaced_at.is_none() && matches!(self.service, Service::Out(_)))
            || self.wrong_lexicon()
            || self.forged()
            || !self.breaks.is_empty()
            || self.borrowed_name()
            || self.after_replacement > 0
    }

    /// Whether its records carry another name than its certificate's and
    /// never carried the certificate's: a paired station signing under
    /// another station's name, not a renamed one.
    pub fn borrowed_name(&self) -> bool {
        self.name_differs() && !self.certificate_name_seen
    }

    /// Whether the name its signed records give it is not the name its
    /// certificate was made for (a paired station signing under another
    /// station's name): both are shown, in red.
    pub fn name_differs(&self) -> bool {
        !self.fleet_name.is_empty() && super::join::fleet_name(&self.name) != self.fleet_name
    }

    /// Whether an entry that named this station, or carried its
    /// signature, was refused: a forgery, an edit or an impersonation.
    pub fn forged(&self) -> bool {
        !self.refused.is_empty() || self.more_refused > 0
    }

    /// An entry refused, kept up to [`MAX_BREAKS`]; beyond, only counted.
    pub(super) fn refuse(&mut self, at: i64, what: String) {
        if self.refused.len() < MAX_BREAKS {
            self.refused.push((at, what));
        } else {
            self.more_refused += 1;
        }
    }

    /// A verified line at `seq`: whether it is new. The same line again (an
    /// upload cut and sent twice, a replay) is not; another line at a seq
    /// already seen is a break (the station's log forked) and not counted
    /// either. A new line must follow the line before it (its `prev`) when
    /// that arrived.
    pub(super) fn seal(&mut self, seq: u64, hash: &str, prev: &str) -> bool {
        let (hash_key, prev_key) = (short_hash(hash), short_hash(prev));
        match self.seen.get(&seq) {
            Some(seen) if *seen == hash_key => return false,
            Some(_) => {
                self.push_break(LinkBreak::TwoHashes { seq });
                return false;
            }
            None => {}
        }
        self.seen.insert(seq, hash_key);
        self.sealed += 1;
        if seq > 1 && self.seen.get(&(seq - 1)).is_some_and(|before| *before != prev_key) {
            self.push_break(LinkBreak::ChainBroken { seq });
        }
        match &self.last_seq {
            Some((last, _)) if seq < *last => self.push_break(LinkBreak::SeqWentBack { from: *last, to: seq }),
            Some((last, _)) if seq > last + 1 => self.push_break(LinkBreak::RecordsMissing(Range(last + 1, seq - 1))),
            _ => {}
        }
        if self.last_seq.as_ref().is_none_or(|(last, _)| seq > *last) {
            self.last_seq = Some((seq, hash.to_string()));
        }
        true
    }

    pub(super) fn number(&mut self, n: u64, skipped: &[[u64; 2]]) {
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
    pub(super) fn push_break(&mut self, b: LinkBreak) {
        if self.breaks.len() < MAX_BREAKS {
            self.breaks.push(b);
        } else {
            self.more_breaks += 1;
        }
    }

    pub(super) fn push_explained(&mut self, r: Range) {
        if self.explained.len() < MAX_BREAKS {
            self.explained.push(r);
        } else {
            self.more_explained += 1;
        }
    }

    /// A warning kept, the last [`MAX_WARNINGS`] of them; all are counted.
    /// A record proven to be this station's, its seal taken: what it says
    /// about the station (the machine it came from, its counts, lexicon,
    /// profile and service), at `time`.
    pub(super) fn take(&mut self, body: &Body, delayed: bool, host: Option<String>, time: i64) {
        self.records += 1;
        self.last_seen_us = self.last_seen_us.max(time);
        if let Some(host) = host {
            if !self.hosts.contains(&host) {
                if self.hosts.len() < MAX_HOSTS {
                    self.hosts.push(host);
                } else {
                    self.more_hosts += 1;
                }
            }
        }
        if delayed {
            self.warn(time, format!("written late (the log was failing): {}", body.describe()));
        }
        if body.event().is_some_and(|e| e.is_problem()) {
            self.warn(time, body.describe());
        }
        match body {
            Body::Adjudication(a) => self.take_adjudication(a, time),
            Body::Event(e) => self.take_event(e, body, time),
            Body::Unknown { .. } | Body::Invalid { .. } => {}
        }
    }

    fn take_adjudication(&mut self, a: &AdjudicationRecord, time: i64) {
        let n = a.challenge;
        self.number(n, &a.skipped);
        if self.last_challenge.is_none_or(|(last, _)| n >= last) {
            self.last_challenge = Some((n, time));
        }
        self.lexicon = Some(a.lexicon.id.clone());
        self.fingerprint = Some(a.lexicon.fingerprint.clone());
        self.lexicon_status = Some(a.lexicon.status.clone());
        if let Some(profile) = &a.profile {
            self.profile = Some(profile.clone());
        }
        let hour = time.div_euclid(3_600_000_000) * 3600;
        let counts = self.per_hour.entry(hour).or_default();
        match a.verdict {
            crate::judge::Verdict::Acceptable => counts.0 += 1,
            _ => counts.1 += 1,
        }
        self.service = Service::In;
    }

    fn take_event(&mut self, event: &AuditEvent, body: &Body, time: i64) {
        match event {
            AuditEvent::LexiconOpened { id, status, fingerprint, problem } => {
                self.lexicon = Some(id.clone());
                self.fingerprint = fingerprint.clone();
                self.lexicon_status = Some(status.clone());
                self.service = match problem {
                    Some(p) => Service::Out(format!("lexicon {id}: {p}")),
                    None => Service::In,
                };
            }
            AuditEvent::LexiconSwitched { to, .. } => {
                self.lexicon = Some(to.clone());
                self.fingerprint = None;
                self.lexicon_status = None;
            }
            AuditEvent::ProfileSwitched { to, .. } => self.profile = Some(to.clone()),
            AuditEvent::ChallengesLost { first, last, .. } => {
                if self.lost.len() >= MAX_BREAKS * 50 {
                    self.lost.remove(0);
                }
                self.lost.push(Range(*first.min(last), *first.max(last)));
            }
            AuditEvent::DisplayProblem { .. } | AuditEvent::JudgingFault { .. } | AuditEvent::KeyboardMissing => {
                self.service = Service::Out(body.describe());
            }
            AuditEvent::KeyboardFound { .. } => self.service = Service::In,
            AuditEvent::Startup { .. } => self.service = Service::In,
            AuditEvent::Shutdown => self.service = Service::Stopped,
            AuditEvent::FleetLeft { .. } => self.service = Service::Left(time),
            AuditEvent::FleetJoined { .. } => self.service = Service::In,
            _ => {}
        }
    }

    pub(super) fn warn(&mut self, at: i64, what: String) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            split_gap(r(2, u64::MAX - 1), vec![r(0, 1), r(3, 3)]),
            [(r(2, 2), false), (r(3, 3), true), (r(4, u64::MAX - 1), false)]
        );
    }
}
