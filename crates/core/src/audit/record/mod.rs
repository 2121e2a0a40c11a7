//! The one shape of an audit record: written by the log, read back by
//! `verify`, `show`, `export` and the start-up scan, and mapped to journald.
//!
//! A line is a [`Record`]: the chain and time fields every record has, then
//! a [`Body`] flattened into the same JSON object and tagged by `event`.
//! Event names exist once, in [`EventKind`]; serde's `snake_case` renaming of
//! [`AuditEvent`] must agree with it, which a unit test checks. A line
//! written by a newer wordjudge with an event this one does not know reads
//! as [`Body::Unknown`] (its fields kept), so old readers still verify and
//! show new logs instead of failing on them.

use crate::judge::Verdict;
use crate::lexicon::{DefinitionSource, Lexicon};
use crate::panel::Trigger;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod event;
mod event_kind;

pub use event::{AuditEvent, CheckpointReason};
pub use event_kind::EventKind;

/// What identifies the lexicon an adjudication was made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LexiconIdentity {
    /// Lexicon id, e.g. `CSW21`.
    pub id: String,
    /// Word-list fingerprint (hex), as shown to players.
    pub fingerprint: String,
    /// SHA-256 of each layer's .fst file, in layer order.
    pub fst_sha256: Vec<String>,
    /// Status wording (`Verified official`, `Verified`, …).
    pub status: String,
    /// SHA-256 of each layer's word content (the sorted words, one per
    /// line), in layer order: the strong identity a pinned official list is
    /// checked against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content_sha256: Vec<String>,
    /// SHA-256 of the definition file the lexicon was opened from (a
    /// director's own definition: Custom), none for built-in ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition_sha256: Option<String>,
    /// The definition's corrections (`+WORD` added, `-WORD` removed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<String>,
}

impl LexiconIdentity {
    /// The identity of an opened lexicon, computed from the bytes that judge.
    pub fn of(lexicon: &Lexicon) -> LexiconIdentity {
        let identity = lexicon.identity();
        let corrections = identity.corrections.add.iter().map(|w| format!("+{w}"));
        let corrections = corrections.chain(identity.corrections.remove.iter().map(|w| format!("-{w}"))).collect();
        LexiconIdentity {
            id: identity.id.clone(),
            fingerprint: identity.fingerprint.to_string(),
            fst_sha256: identity.layers.iter().map(|l| l.fst_sha256.clone()).collect(),
            status: identity.status.label().to_string(),
            content_sha256: identity.layers.iter().map(|l| l.content_sha256.clone()).collect(),
            definition_sha256: match &identity.definition {
                DefinitionSource::File { sha256, .. } => Some(sha256.clone()),
                DefinitionSource::Demo | DefinitionSource::Official => None,
            },
            corrections,
        }
    }
}

/// The adjudication part of a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicationRecord {
    pub challenge: u64,
    pub lexicon: LexiconIdentity,
    pub words: Vec<String>,
    pub verdict: Verdict,
    pub per_word: Vec<bool>,
    pub trigger: Trigger,
    pub repeat_of: Option<u64>,
    /// The event profile in force (`NASPA-CSW-5`), when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Numbers reserved by a process that stopped before using them (never
    /// shown to anyone), skipped before this one: the record that explains
    /// the gap where it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<[u64; 2]>,
}

impl AdjudicationRecord {
    /// `QI:acceptable ZA:unacceptable`.
    pub fn per_word_text(&self) -> String {
        self.words
            .iter()
            .zip(&self.per_word)
            .map(|(w, ok)| format!("{w}:{}", if *ok { "acceptable" } else { "unacceptable" }))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The numbers reserved and never shown before this one, in a
    /// director's words (empty when there were none).
    pub fn skipped_note(&self) -> String {
        skipped_text(&self.skipped)
    }
}

/// What a record is about.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Adjudication(AdjudicationRecord),
    Event(AuditEvent),
    /// An event this version does not know (written by a newer one).
    Unknown {
        event: String,
        fields: serde_json::Map<String, serde_json::Value>,
    },
    /// A known event whose fields do not have their shape (`problem` says
    /// why). Kept so the chain can still be checked through it.
    Invalid {
        event: String,
        problem: String,
        fields: serde_json::Map<String, serde_json::Value>,
    },
}

impl Body {
    /// The `event` name as written.
    pub fn name(&self) -> &str {
        match self {
            Body::Adjudication(_) => EventKind::Adjudication.as_str(),
            Body::Event(e) => e.name(),
            Body::Unknown { event, .. } | Body::Invalid { event, .. } => event,
        }
    }

    pub fn kind(&self) -> Option<EventKind> {
        match self {
            Body::Adjudication(_) => Some(EventKind::Adjudication),
            Body::Event(e) => Some(e.kind()),
            Body::Unknown { .. } | Body::Invalid { .. } => None,
        }
    }

    pub fn adjudication(&self) -> Option<&AdjudicationRecord> {
        match self {
            Body::Adjudication(a) => Some(a),
            _ => None,
        }
    }

    pub fn event(&self) -> Option<&AuditEvent> {
        match self {
            Body::Event(e) => Some(e),
            _ => None,
        }
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        match self {
            Body::Adjudication(a) => format!(
                "challenge {} {} ({}) lexicon {}{}{}",
                a.challenge,
                a.verdict,
                a.words.join(" "),
                a.lexicon.id,
                a.repeat_of.map(|r| format!(", repeat of {r}")).unwrap_or_default(),
                a.skipped_note()
            ),
            Body::Event(e) => e.describe(),
            Body::Unknown { event, .. } => format!("{event} (an event this wordjudge does not know)"),
            Body::Invalid { event, problem, .. } => format!("{event} (not readable: {problem})"),
        }
    }

    /// The body's own fields (without `event`) as a JSON object text, for
    /// events; empty when there are none.
    pub fn details(&self) -> String {
        let map = match self {
            Body::Adjudication(_) => return String::new(),
            Body::Event(e) => match serde_json::to_value(e) {
                Ok(serde_json::Value::Object(mut map)) => {
                    map.remove("event");
                    map
                }
                _ => return String::new(),
            },
            Body::Unknown { fields, .. } | Body::Invalid { fields, .. } => fields.clone(),
        };
        if map.is_empty() {
            String::new()
        } else {
            serde_json::Value::Object(map).to_string()
        }
    }
}

/// `; #3 and #7–#9 were reserved and never shown (audit verify says why)`,
/// or nothing.
fn skipped_text(skipped: &[[u64; 2]]) -> String {
    let ranges: Vec<String> = skipped
        .iter()
        .map(|[a, b]| if a == b { format!("#{a}") } else { format!("#{}–#{}", a.min(b), a.max(b)) })
        .collect();
    match ranges.as_slice() {
        [] => String::new(),
        [one] if !one.contains('–') => format!("; {one} was reserved and never shown (audit verify says why)"),
        _ => format!("; {} were reserved and never shown (audit verify says why)", ranges.join(", ")),
    }
}

#[derive(Serialize)]
struct Tagged<'a, T> {
    event: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

impl Serialize for Body {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Body::Adjudication(a) => Tagged { event: EventKind::Adjudication.as_str(), body: a }.serialize(serializer),
            Body::Event(e) => e.serialize(serializer),
            Body::Unknown { event, fields } | Body::Invalid { event, fields, .. } => {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(fields.len() + 1))?;
                map.serialize_entry("event", event)?;
                for (k, v) in fields {
                    if k != "event" {
                        map.serialize_entry(k, v)?;
                    }
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Body, D::Error> {
        let mut map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        let event = match map.get("event") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(_) => return Err(D::Error::custom("`event` is not a string")),
            None => return Err(D::Error::missing_field("event")),
        };
        let invalid = |e: serde_json::Error, mut fields: serde_json::Map<String, serde_json::Value>| {
            fields.remove("event");
            Body::Invalid { event: event.clone(), problem: e.to_string(), fields }
        };
        let value = serde_json::Value::Object(map.clone());
        Ok(match EventKind::parse(&event) {
            Some(EventKind::Adjudication) => {
                serde_json::from_value(value).map(Body::Adjudication).unwrap_or_else(|e| invalid(e, map))
            }
            Some(_) => serde_json::from_value(value).map(Body::Event).unwrap_or_else(|e| invalid(e, map)),
            None => {
                map.remove("event");
                Body::Unknown { event, fields: map }
            }
        })
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One line of the log. `line_sha256` and `code` are the seal (see
/// [`super::format`]): read back, never serialized from here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub seq: u64,
    pub prev: String,
    pub time: String,
    #[serde(default)]
    pub boot_id: String,
    #[serde(default)]
    pub mono_ns: u64,
    #[serde(default)]
    pub clock_synced: bool,
    #[serde(default)]
    pub station: String,
    /// Held while the log was failing and written later.
    #[serde(default, skip_serializing_if = "is_false")]
    pub delayed: bool,
    #[serde(flatten)]
    pub body: Body,
    #[serde(default, skip_serializing)]
    pub line_sha256: Option<String>,
    #[serde(default, skip_serializing)]
    pub code: Option<String>,
}

impl Record {
    /// Parses a line (without its newline). The seal is not checked here.
    pub fn parse(line: &[u8]) -> Result<Record, serde_json::Error> {
        serde_json::from_slice(line)
    }

    pub fn kind(&self) -> Option<EventKind> {
        self.body.kind()
    }

    pub fn adjudication(&self) -> Option<&AdjudicationRecord> {
        self.body.adjudication()
    }

    /// The challenge number of an adjudication record.
    pub fn challenge(&self) -> Option<u64> {
        self.adjudication().map(|a| a.challenge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_exist_once_and_agree_with_serde() {
        for kind in EventKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
            assert_eq!(EventKind::parse(kind.as_str()), Some(*kind));
        }
        let events = [
            AuditEvent::Startup { version: "1".into() },
            AuditEvent::Shutdown,
            AuditEvent::LexiconSwitchRefused { from: "A".into(), to: "B".into(), reason: "corrupt".into() },
            AuditEvent::PinAccepted,
            AuditEvent::ChallengesLost { first: 3, last: 4, since: None },
            AuditEvent::Checkpoint {
                count: 1,
                head: "ab".into(),
                reason: CheckpointReason::Shutdown,
                note: "n".into(),
            },
            AuditEvent::FleetJoined {
                fleet: "Nationals 2026".into(),
                certificate_name: "wj-01".into(),
                upload_url: "https://192.168.10.2:19532".into(),
                ca_sha256: "ab".repeat(32),
                certificate_sha256: "cd".repeat(32),
                laptop_sha256: Some("ef".repeat(32)),
                stick: "FLEET (sdb1)".into(),
            },
            AuditEvent::FleetLeft { fleet: "E".into(), upload_url: "https://h:1".into(), ca_sha256: "ab".into() },
            AuditEvent::FleetRefused { stick: "FLEET (sdb1)".into(), reason: "another event".into() },
        ];
        for e in events {
            let v = serde_json::to_value(&e).unwrap();
            assert_eq!(v["event"], e.name());
            let back: Body = serde_json::from_value(v).unwrap();
            assert_eq!(back, Body::Event(e));
        }
    }

    #[test]
    fn unknown_events_are_kept_and_bad_known_ones_refused() {
        let body: Body = serde_json::from_str(r#"{"event":"teleported","to":"Mars","n":3}"#).unwrap();
        match &body {
            Body::Unknown { event, fields } => {
                assert_eq!(event, "teleported");
                assert_eq!(fields["to"], "Mars");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(serde_json::to_value(&body).unwrap()["event"], "teleported");
        let invalid: Body = serde_json::from_str(r#"{"event":"pin_refused","failures":"many"}"#).unwrap();
        assert!(matches!(&invalid, Body::Invalid { event, .. } if event == "pin_refused"), "{invalid:?}");
        assert_eq!(invalid.kind(), None);
        assert!(serde_json::from_str::<Body>(r#"{"failures":1}"#).is_err());
        let line = r#"{"seq":4,"prev":"00","time":"t","event":"rotated","next_file":"x","reason":"size","line_sha256":"ab","code":"C"}"#;
        let record = Record::parse(line.as_bytes()).unwrap();
        assert_eq!(record.kind(), Some(EventKind::Rotated));
        assert_eq!(record.line_sha256.as_deref(), Some("ab"));
    }
}
