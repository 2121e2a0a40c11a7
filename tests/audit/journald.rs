//! The journald copy of audit records.
//!
//! Where journald runs (`/run/systemd/journal/socket` answers), one test
//! sends records through the real tracing-journald layer and reads them back
//! with `journalctl -o json`. Everywhere, the exact fields handed to the
//! journald layer are captured by a `tracing` layer in the test and mapped to
//! journal names the way tracing-journald does with `journald_layer()`'s
//! settings (prefix `WORDJUDGE_`, upper case). Run with `--nocapture` to see
//! which happened.

use crate::journal_fields::{Fields, Visitor};
use crate::support::*;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;
use wordjudge_core::audit::format::line_hash;
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::recorder::{journald_layer, AuditLog, SYSLOG_IDENTIFIER};

/// Records every event's fields under their journal names.
#[derive(Clone, Default)]
struct Capture {
    events: Arc<Mutex<Vec<Fields>>>,
    /// Makes every event take this long: a hung journald.
    delay: Duration,
}

impl<S: Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        std::thread::sleep(self.delay);
        let mut fields = Fields::new();
        fields.insert("TARGET".into(), event.metadata().target().to_string());
        fields.insert("LEVEL".into(), event.metadata().level().to_string());
        event.record(&mut Visitor(&mut fields));
        self.events.lock().unwrap().push(fields);
    }
}

fn journald_running() -> bool {
    std::path::Path::new("/run/systemd/journal/socket").exists() && journald_layer().is_some()
}

#[test]
fn journald_fields_as_handed_to_the_journald_layer() {
    println!(
        "journald: {}",
        if journald_running() {
            "running here; this test checks the fields at the layer, real_journald_* reads them back"
        } else {
            "not running here (no /run/systemd/journal/socket): checking the exact fields handed to the journald layer"
        }
    );
    assert_eq!(SYSLOG_IDENTIFIER, "wordjudge");
    assert_eq!(journald_layer().is_some(), journald_running());

    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    log.record_event(AuditEvent::LexiconOpened {
        id: "DEMO".into(),
        status: identity.status.clone(),
        fingerprint: Some(identity.fingerprint.clone()),
        problem: None,
    });
    let first = record(&mut log, &lexicon, &identity, &["CAT", "XQZT"]);
    clock.advance(Duration::from_secs(20));
    let second = record(&mut log, &lexicon, &identity, &["CAT", "XQZT"]);
    log.record_event(AuditEvent::PinRefused { failures: 2 });
    assert!(log.flush_journal(Duration::from_secs(5)));

    let events = capture.events.lock().unwrap().clone();
    let audit: Vec<&Fields> = events.iter().filter(|e| e["TARGET"] == "wordjudge::audit").collect();
    let kinds: Vec<&str> = audit.iter().map(|e| e["WORDJUDGE_EVENT"].as_str()).collect();
    assert_eq!(kinds, ["lexicon_opened", "adjudication", "adjudication", "pin_refused"]);
    let lines: Vec<String> =
        std::fs::read_to_string(&log_files(dir.path())[0]).unwrap().lines().map(String::from).collect();

    let a = audit[1];
    println!("fields of an adjudication: {a:#?}");
    assert_eq!(a["LEVEL"], "INFO");
    assert_eq!(a["WORDJUDGE_CHALLENGE"], first.to_string());
    assert_eq!(a["WORDJUDGE_VERDICT"], "UNACCEPTABLE");
    assert_eq!(a["WORDJUDGE_WORDS"], "CAT XQZT");
    assert_eq!(a["WORDJUDGE_PER_WORD"], "CAT:acceptable XQZT:unacceptable");
    assert_eq!(a["WORDJUDGE_LEXICON"], "DEMO");
    assert_eq!(a["WORDJUDGE_LEXICON_FINGERPRINT"], identity.fingerprint);
    assert_eq!(a["WORDJUDGE_LEXICON_STATUS"], identity.status);
    assert_eq!(a["WORDJUDGE_TRIGGER"], "keyboard");
    assert_eq!(a["WORDJUDGE_STATION"], "Table 7");
    assert_eq!(a["WORDJUDGE_AUDIT_WRITTEN"], "true");
    assert_eq!(a["WORDJUDGE_LINE_SHA256"], line_hash(lines[1].as_bytes()), "anchors the file's chain");
    // One hash per line, one name: the file's own field, journald's, and the next line's prev.
    let line1: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(a["WORDJUDGE_LINE_SHA256"], line1["line_sha256"].as_str().unwrap());
    let line2: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(line2["prev"], line1["line_sha256"]);
    assert_eq!(a["WORDJUDGE_CODE"], line1["code"].as_str().unwrap(), "the slip code is in both");
    assert_eq!(a["WORDJUDGE_SEQ"], "2");
    assert!(!a.contains_key("WORDJUDGE_REPEAT_OF"), "absent fields are not sent");
    assert!(a["MESSAGE"].starts_with("challenge 1 UNACCEPTABLE (CAT XQZT) lexicon DEMO"), "{}", a["MESSAGE"]);
    let record: serde_json::Value = serde_json::from_str(&a["WORDJUDGE_RECORD"]).unwrap();
    assert_eq!(record["per_word"], serde_json::json!([true, false]));

    assert_eq!(audit[2]["WORDJUDGE_CHALLENGE"], second.to_string());
    assert_eq!(audit[2]["WORDJUDGE_REPEAT_OF"], first.to_string());
    assert_eq!(audit[0]["WORDJUDGE_LEXICON"], "DEMO");
    assert_eq!(audit[3]["LEVEL"], "WARN");
    assert!(audit[3]["MESSAGE"].contains("PIN refused (2 failures)"));
}

#[test]
fn journald_gets_the_failure_and_no_verdict_when_the_file_cannot_be_written() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("audit");
    std::fs::write(&dir, b"in the way").unwrap();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&dir, "S", options(&clock())).unwrap();
    log.record_event(wordjudge_core::audit::AuditEvent::PinRefused { failures: 1 });
    assert!(try_record(&mut log, &lexicon, &identity, &["CAT"]).is_err(), "no record, no verdict");
    assert!(log.flush_journal(Duration::from_secs(5)));
    let events = capture.events.lock().unwrap().clone();
    let failing =
        events.iter().find(|e| e["WORDJUDGE_EVENT"] == "audit_failing").expect("a warning that the log fails");
    assert_eq!(failing["LEVEL"], "WARN");
    assert!(failing["WORDJUDGE_PROBLEM"].contains("cannot create the audit directory"), "{failing:?}");
    // A director's action held in memory reaches journald at once.
    let held = events.iter().find(|e| e["WORDJUDGE_EVENT"] == "pin_refused").expect("the held event reached journald");
    assert_eq!(held["WORDJUDGE_AUDIT_WRITTEN"], "false");
    assert!(!held.contains_key("WORDJUDGE_LINE_SHA256"));
    // No verdict was shown, so none is claimed anywhere.
    assert!(!events.iter().any(|e| e["WORDJUDGE_EVENT"] == "adjudication"), "{events:?}");
}

#[test]
fn the_verdict_does_not_wait_on_journald() {
    // A journald that takes 300 ms per message.
    let capture = Capture { delay: Duration::from_millis(300), ..Capture::default() };
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let dir = tempfile::tempdir().unwrap();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock())).unwrap();
    let start = Instant::now();
    for _ in 0..5 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    let took = start.elapsed();
    assert!(took < Duration::from_millis(300), "5 records took {took:?} with a 300 ms journald");
    // …and the copies all arrive in the end.
    assert!(log.flush_journal(Duration::from_secs(10)));
    let arrived = capture.events.lock().unwrap().iter().filter(|e| e["WORDJUDGE_EVENT"] == "adjudication").count();
    assert_eq!(arrived, 5);
}

#[test]
#[ignore = "needs journald"]
fn needs_journald_real_records_read_back_with_journalctl() {
    let Some(layer) = journald_layer() else {
        panic!("journald is not running here (no /run/systemd/journal/socket): this test needs it");
    };
    println!("journald: running; sending records and reading them back with journalctl");
    let station = format!("test-{}", std::process::id());
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    let dir = tempfile::tempdir().unwrap();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open(dir.path(), &station).unwrap();
    let n = record(&mut log, &lexicon, &identity, &["CAT", "XQZT"]);
    assert!(log.flush_journal(Duration::from_secs(5)));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = std::process::Command::new("journalctl")
            .args(["-o", "json", "--no-pager", &format!("SYSLOG_IDENTIFIER={SYSLOG_IDENTIFIER}")])
            .arg(format!("WORDJUDGE_STATION={station}"))
            .output()
            .expect("journalctl runs");
        let text = String::from_utf8_lossy(&out.stdout);
        if let Some(entry) = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|e| e["WORDJUDGE_EVENT"] == "adjudication")
        {
            assert_eq!(entry["WORDJUDGE_CHALLENGE"], n.to_string());
            assert_eq!(entry["WORDJUDGE_VERDICT"], "UNACCEPTABLE");
            assert_eq!(entry["WORDJUDGE_WORDS"], "CAT XQZT");
            assert_eq!(entry["WORDJUDGE_LEXICON"], "DEMO");
            let written = std::fs::read_to_string(&log_files(dir.path())[0]).unwrap();
            let line = written.lines().last().unwrap();
            assert_eq!(entry["WORDJUDGE_LINE_SHA256"], line_hash(line.as_bytes()), "one hash, one name");
            return;
        }
        assert!(Instant::now() < deadline, "the record did not reach the journal");
        std::thread::sleep(Duration::from_millis(200));
    }
}
