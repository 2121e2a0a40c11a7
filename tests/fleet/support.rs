//! Journal entries as a station sends them: the fields
//! `crates/core/src/recorder/journal.rs` gives each audit record (`WORDJUDGE_*`, with
//! `SYSLOG_IDENTIFIER=wordjudge`; the sealed line and a checkpoint of it
//! signed with the station's own audit key), the journal's own
//! (`_HOSTNAME`, the timestamps, `_BOOT_ID`), written as `journalctl -o
//! json` lines or as the Journal Export Format that `systemd-journal-remote`
//! reads.
#![allow(dead_code)]

use wordjudge_core::audit::checkpoint::StationKey;
use wordjudge_core::audit::{AdjudicationRecord, AuditEvent, Body, LexiconIdentity, NoteVerifier, Record, SlipCode};
use wordjudge_core::digest::sha256_hex;
use wordjudge_core::fleet::PairedKey;
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;

/// 2026-11-22T13:00:00Z in microseconds.
pub const START_US: i64 = 1_795_352_400_000_000;

pub use crate::journal_export::Fields;

/// A station's journal as the tests write it.
pub struct Station {
    pub name: String,
    pub host: String,
    boot_id: String,
    /// The next record's seq and challenge number.
    pub seq: u64,
    pub challenge: u64,
    /// The next entry's time (µs).
    pub time_us: i64,
    pub profile: Option<String>,
    pub entries: Vec<Fields>,
    /// The station's audit key: every written record's copy is signed with
    /// it (`None`: copies made elsewhere, [`Self::verifier`] set by hand).
    key: Option<StationKey>,
    /// What the laptop pairs with this station.
    pub verifier: NoteVerifier,
    /// The hash of the last line written (the next line's `prev`).
    pub prev: String,
}

/// A fresh audit key, as a station makes its own.
pub fn new_key(station: &str) -> StationKey {
    let dir = tempfile::tempdir().unwrap();
    StationKey::load_or_create(&dir.path().join("key"), station, true).unwrap().unwrap().0
}

pub fn lexicon(id: &str, fingerprint: &str, status: &str) -> LexiconIdentity {
    LexiconIdentity {
        id: id.into(),
        fingerprint: fingerprint.into(),
        fst_sha256: vec![sha256_hex(fingerprint.as_bytes())],
        status: status.into(),
        content_sha256: Vec::new(),
        definition_sha256: None,
        corrections: Vec::new(),
    }
}

impl Station {
    pub fn new(name: &str, host: &str) -> Station {
        let key = new_key(name);
        Station {
            name: name.into(),
            host: host.into(),
            boot_id: sha256_hex(host.as_bytes())[..32].to_string(),
            seq: 1,
            challenge: 1,
            time_us: START_US,
            profile: None,
            entries: Vec::new(),
            verifier: key.verifier(),
            key: Some(key),
            prev: wordjudge_core::audit::format::GENESIS.to_string(),
        }
    }

    /// The station's name in the fleet, made from its name as the director
    /// menu makes it.
    pub fn fleet_name(&self) -> String {
        wordjudge_core::fleet::join::fleet_name(&self.name)
    }

    /// The audit key the laptop paired with this station at `fleet sign`.
    pub fn paired(&self) -> PairedKey {
        PairedKey { station: self.fleet_name(), verifier: self.verifier.clone(), replaced_at: None }
    }

    /// The audit key this station signs its copies with.
    pub fn key(&self) -> &StationKey {
        self.key.as_ref().expect("a station of the tests has its key")
    }

    /// Signs this station's copies with `key` from now on (an attacker's,
    /// or a station's second log), the laptop still pairing the old one.
    pub fn sign_with(&mut self, key: StationKey) -> &mut Self {
        self.key = Some(key);
        self
    }

    /// Moves the clock on.
    pub fn wait_minutes(&mut self, minutes: i64) -> &mut Self {
        self.time_us += minutes * 60_000_000;
        self
    }

    /// The journal's own fields, and the sender's.
    fn base(&mut self, identifier: &str, priority: u8, message: &str) -> Fields {
        let at = self.time_us;
        self.time_us += 1_000_000;
        let mono = (at - START_US + 5_000_000) as u64;
        vec![
            ("__REALTIME_TIMESTAMP".into(), at.to_string()),
            ("__MONOTONIC_TIMESTAMP".into(), mono.to_string()),
            ("_BOOT_ID".into(), self.boot_id.clone()),
            ("_HOSTNAME".into(), self.host.clone()),
            ("PRIORITY".into(), priority.to_string()),
            ("SYSLOG_IDENTIFIER".into(), identifier.into()),
            ("MESSAGE".into(), message.into()),
        ]
    }

    /// An audit record's entry, as `Entry::of` in crates/core/src/recorder/journal.rs
    /// makes it: written to the audit file (a seq, a line hash, its code).
    pub fn record(&mut self, body: Body) -> &mut Self {
        let fields = self.fields_of(&body, true);
        self.entries.push(fields);
        self
    }

    fn fields_of(&mut self, body: &Body, written: bool) -> Fields {
        let warn = body.event().is_some_and(|e| e.is_problem());
        let at = self.time_us;
        let mut fields = self.base("wordjudge", if warn { 4 } else { 6 }, &body.describe());
        let signed = written.then(|| self.seal(body, at));
        let mut wj = |name: &str, value: String| fields.push((format!("WORDJUDGE_{name}"), value));
        wj("EVENT", body.name().into());
        wj("STATION", self.name.clone());
        if let Some((seq, hash, line, checkpoint)) = signed {
            wj("SEQ", seq.to_string());
            wj("CODE", SlipCode::of_line_hash(&hash).unwrap().to_string());
            wj("LINE_SHA256", hash);
            wj("LINE", line);
            if let Some(checkpoint) = checkpoint {
                wj("CHECKPOINT", checkpoint);
            }
        }
        wj("AUDIT_WRITTEN", written.to_string());
        match body {
            Body::Adjudication(a) => {
                wj("CHALLENGE", a.challenge.to_string());
                wj("VERDICT", a.verdict.label().into());
                wj("WORDS", a.words.join(" "));
                wj("PER_WORD", a.per_word_text());
                wj("LEXICON", a.lexicon.id.clone());
                wj("LEXICON_FINGERPRINT", a.lexicon.fingerprint.clone());
                wj("LEXICON_STATUS", a.lexicon.status.clone());
                wj("TRIGGER", "keyboard".into());
            }
            Body::Event(AuditEvent::LexiconOpened { id, status, fingerprint, problem }) => {
                wj("LEXICON", id.clone());
                wj("LEXICON_STATUS", status.clone());
                if let Some(f) = fingerprint {
                    wj("LEXICON_FINGERPRINT", f.clone());
                }
                if let Some(p) = problem {
                    wj("PROBLEM", p.clone());
                }
            }
            Body::Event(AuditEvent::JudgingFault { problem, .. })
            | Body::Event(AuditEvent::DisplayProblem { problem })
            | Body::Event(AuditEvent::ConfigProblem { problem }) => wj("PROBLEM", problem.clone()),
            _ => {}
        }
        wj("RECORD", serde_json::to_string(body).unwrap());
        fields
    }

    /// The next line of this station's log holding `body`, made at `at`:
    /// (seq, its hash, the line, the signed checkpoint of it).
    fn seal(&mut self, body: &Body, at: i64) -> (u64, String, String, Option<String>) {
        let time = jiff::Timestamp::from_microsecond(at).unwrap().to_string();
        let record = Record {
            seq: self.seq,
            prev: self.prev.clone(),
            time: time.clone(),
            boot_id: self.boot_id.clone(),
            mono_ns: (at - START_US) as u64,
            clock_synced: true,
            station: self.name.clone(),
            delayed: false,
            body: body.clone(),
            line_sha256: None,
            code: None,
        };
        let (line, hash, checkpoint) = match &self.key {
            Some(key) => {
                let (line, hash, note) = crate::journal_export::signed_line(key, &record);
                (line, hash, Some(note))
            }
            None => {
                let line = wordjudge_core::audit::format::seal(&serde_json::to_string(&record).unwrap());
                let hash = wordjudge_core::audit::format::line_hash(line.as_bytes());
                (line, hash, None)
            }
        };
        let seq = self.seq;
        self.seq += 1;
        self.prev = hash.clone();
        (seq, hash, line, checkpoint)
    }

    pub fn event(&mut self, event: AuditEvent) -> &mut Self {
        self.record(Body::Event(event))
    }

    /// An adjudication with the next challenge number.
    pub fn judge(&mut self, lexicon: &LexiconIdentity, words: &[&str], acceptable: bool) -> &mut Self {
        let n = self.challenge;
        self.challenge += 1;
        self.record(Body::Adjudication(AdjudicationRecord {
            challenge: n,
            lexicon: lexicon.clone(),
            words: words.iter().map(|w| w.to_string()).collect(),
            verdict: if acceptable { Verdict::Acceptable } else { Verdict::Unacceptable },
            per_word: words.iter().map(|_| acceptable).collect(),
            trigger: Trigger::Keyboard,
            repeat_of: None,
            profile: self.profile.clone(),
            skipped: Vec::new(),
        }))
    }

    /// `n` adjudications recorded at the station that never reach the
    /// laptop: their seq and challenge numbers are used up.
    pub fn lose(&mut self, n: u64) -> &mut Self {
        self.seq += n;
        // The line before the next one is one the laptop never saw.
        self.prev = sha256_hex(format!("lost before {}", self.seq).as_bytes());
        self.challenge += n;
        self.time_us += n as i64 * 1_000_000;
        self
    }

    /// The next line's `prev` is not the last line's hash: the station's
    /// log forked (restored from an old copy, or a second log under the key).
    pub fn fork_chain(&mut self) -> &mut Self {
        self.prev = sha256_hex(format!("fork before {}", self.seq).as_bytes());
        self
    }

    /// An entry of `identifier` with these fields besides the journal's own.
    pub fn push(&mut self, identifier: &str, priority: u8, message: &str, fields: Fields) -> &mut Self {
        let mut entry = self.base(identifier, priority, message);
        entry.extend(fields);
        self.entries.push(entry);
        self
    }

    /// A journal entry of another program on the station.
    pub fn other(&mut self, identifier: &str, message: &str) -> &mut Self {
        let fields = self.base(identifier, 6, message);
        self.entries.push(fields);
        self
    }

    /// A field of the last entry set to `value` (added when missing).
    pub fn set_last(&mut self, name: &str, value: &str) -> &mut Self {
        let last = self.entries.last_mut().expect("an entry");
        match last.iter_mut().find(|(n, _)| n == name) {
            Some(field) => field.1 = value.into(),
            None => last.push((name.into(), value.into())),
        }
        self
    }

    /// The entries as `journalctl -o json` prints them.
    pub fn json_lines(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|fields| {
                let map: serde_json::Map<String, serde_json::Value> =
                    fields.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
                serde_json::Value::Object(map).to_string()
            })
            .collect()
    }

    /// The entries in the Journal Export Format.
    pub fn export(&self) -> Vec<u8> {
        crate::journal_export::export(&self.entries)
    }
}

/// Two stations judging CSW21 with different word lists: `table-1` lost
/// challenges 3 and 4 on the way, `table-2` went out of service.
pub fn two_stations() -> (Station, Station) {
    let good = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    let other = lexicon("CSW21", "fedcba9876543210fedcba9876543210", "Verified official");
    let mut one = Station::new("table-1", "wj-01");
    one.profile = Some("NASPA-CSW-5".into());
    one.event(AuditEvent::Startup { version: "0.1.0".into() })
        .event(AuditEvent::LexiconOpened {
            id: "CSW21".into(),
            status: "Verified official".into(),
            fingerprint: Some(good.fingerprint.clone()),
            problem: None,
        })
        .judge(&good, &["QI"], true)
        .wait_minutes(20)
        .judge(&good, &["ZA", "XU"], true)
        .lose(2)
        .wait_minutes(50)
        .judge(&good, &["QIS"], true)
        .judge(&good, &["ZZZ"], false);
    let mut two = Station::new("table-2", "wj-02");
    two.other("kernel", "usb 1-1: new device")
        .event(AuditEvent::Startup { version: "0.1.0".into() })
        .event(AuditEvent::LexiconOpened {
            id: "CSW21".into(),
            status: "Verified official".into(),
            fingerprint: Some(other.fingerprint.clone()),
            problem: None,
        })
        .judge(&other, &["CAT"], true)
        .wait_minutes(10)
        .judge(&other, &["XQZT"], false)
        .other("systemd", "Started something.")
        .event(AuditEvent::JudgingFault { lexicon: "CSW21".into(), problem: "index out of bounds".into() });
    (one, two)
}
