//! The fields the real recorder hands to the journald layer
//! (`crates/core/src/recorder/journal.rs`), captured as tracing-journald would send
//! them, read by the fleet summary: the names it reads are the names the
//! station sends, and a healthy log's copies link up with no break.

use crate::journal_fields::{Fields, Visitor};
use crate::support::Station;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;
use wordjudge_core::audit::{AuditEvent, LexiconIdentity, ManualClock};
use wordjudge_core::fleet::{status_of, Service};
use wordjudge_core::judge::{judge, Challenge};
use wordjudge_core::lexicon::catalog;
use wordjudge_core::panel::Trigger;
use wordjudge_core::recorder::{AdjudicationInput, AuditLog, AuditOptions};

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Fields>>>);

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        fields.insert("LEVEL".into(), event.metadata().level().to_string());
        event.record(&mut Visitor(&mut fields));
        self.0.lock().unwrap().push(fields);
    }
}

/// A station's journal as the real recorder fills it: a lexicon opened,
/// three verdicts, a refused PIN.
pub fn recorded_station() -> Station {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-11-22T13:00:00Z".parse().unwrap(), "boot-a"));
    let options = AuditOptions {
        clock: clock.clone(),
        time_zone: jiff::tz::TimeZone::UTC,
        signing_key: true,
        ..AuditOptions::default()
    };
    let lexicon = catalog::open_demo().unwrap();
    let identity = LexiconIdentity::of(&lexicon);
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options).unwrap();
    log.record_event(AuditEvent::LexiconOpened {
        id: identity.id.clone(),
        status: identity.status.clone(),
        fingerprint: Some(identity.fingerprint.clone()),
        problem: None,
    });
    for words in [&["CAT"][..], &["CAT", "XQZT"], &["DOG"]] {
        let adjudication = judge(&lexicon, &Challenge::new(words).unwrap()).unwrap();
        log.record_adjudication(&AdjudicationInput {
            lexicon: &identity,
            adjudication: &adjudication,
            trigger: Trigger::Keyboard,
            profile: None,
        })
        .expect("recorded");
        clock.advance(Duration::from_secs(60));
    }
    log.record_event(AuditEvent::PinRefused { failures: 1 });
    assert!(log.flush_journal(Duration::from_secs(5)));
    let mut station = Station::new("Table 7", "wj-07");
    // The key the laptop pairs: the one the real log made and signs with.
    let public = std::fs::read_to_string(wordjudge_core::audit::checkpoint::public_key_path(dir.path())).unwrap();
    station.verifier = wordjudge_core::audit::NoteVerifier::parse(&public).unwrap();
    for mut fields in capture.0.lock().unwrap().drain(..) {
        let priority = match fields.remove("LEVEL").as_deref() {
            Some("ERROR") => 3,
            Some("WARN") => 4,
            _ => 6,
        };
        let message = fields.remove("MESSAGE").unwrap_or_default();
        station.push("wordjudge", priority, &message, fields.into_iter().collect());
    }
    station
}

#[test]
fn the_recorders_own_fields_are_read_and_link_up() {
    let station = recorded_station();
    let lines = station.json_lines();
    let status = status_of(lines.iter().map(String::as_str), vec![station.paired()]).unwrap();
    let [t] = &status.stations[..] else { panic!("{status:?}") };
    assert_eq!(t.name, "Table 7");
    assert_eq!(t.fleet_name, "table-7");
    assert!(!t.forged(), "every copy carries its line, signed: {:?}", t.refused);
    assert_eq!(t.records, 6, "the key's record, the lexicon, three verdicts, the refused PIN");
    assert_eq!(t.sealed, 6, "every line written reached the journal");
    assert!(t.breaks.is_empty(), "{:?}", t.breaks);
    assert_eq!(t.last_challenge.map(|(n, _)| n), Some(3));
    assert_eq!(t.lexicon.as_deref(), Some("DEMO"));
    assert_eq!(t.fingerprint.as_ref().map(String::len), Some(32));
    assert_eq!(t.service, Service::In);
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    assert!(t.warnings[0].1.contains("PIN refused"), "{:?}", t.warnings);
    let verdicts: u64 = t.per_hour.values().map(|(a, u)| a + u).sum();
    assert_eq!(verdicts, 3);
}
