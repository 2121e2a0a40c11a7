//! The live station and the log's trust gaps (issue 30): a rename from the
//! director menu reaches every later record and checkpoint, clock jumps are
//! recorded, a signing key that cannot be read is a warning and a record,
//! and a station name cannot hold characters that reorder text.

use crate::live::{config_for, start_station, Live};
use crate::support::{enter_pin, open_pin, select_menu, Rig, PIN};
use wordjudge_core::config::Config;
use wordjudge_core::recorder::AuditLog;
use wordjudge_station::desks::prelude::*;
use wordjudge_station::kiosk::flow::{Key, Screen};

/// Judges `n` one-word plays and comes back to Ready after each.
fn judge_n<S: Station>(rig: &mut Rig<S>, n: usize) {
    for _ in 0..n {
        rig.challenge(&["cat"]);
        rig.advance(600);
        rig.key(Key::Enter);
    }
}

/// Every record of the log files in `dir`, in order.
fn records(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let text: String = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_station_renamed_from_the_menu_is_named_in_every_later_record_checkpoint_and_verify() {
    let mut rig = Live::new("SMALL");
    let audit = rig.dir.path().join("audit");
    judge_n(&mut rig, 1);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Rename the station");
    rig.key(Key::Enter);
    for _ in 0.."Table 3".len() {
        rig.key(Key::Backspace);
    }
    rig.keys("Table 7");
    rig.key(Key::Enter);
    crate::support::confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "The station name is saved.");
    crate::support::leave_menu(&mut rig);
    judge_n(&mut rig, 12);
    assert_eq!(rig.view().bar.station_name, "Table 7");
    rig.station.shut_down();

    let all = records(&audit);
    let rename = all.iter().position(|r| r["setting"] == "station_name").expect("the rename is a record");
    assert_eq!(all[rename]["value"], "Table 7");
    assert_eq!(all[rename]["station"], "Table 3", "its own record still carries the old name");
    let after = &all[rename + 1..];
    assert_eq!(after.iter().filter(|r| r["event"] == "adjudication").count(), 12);
    assert!(after.iter().all(|r| r["station"] == "Table 7"), "every later record names the station as it is now");
    let checkpoint = after.iter().rev().find(|r| r["event"] == "checkpoint").expect("a checkpoint at shut-down");
    assert!(checkpoint["note"].as_str().unwrap().contains("\nstation Table 7\n"), "{checkpoint}");

    let seq = all[rename]["seq"].as_u64().unwrap();
    let report = wordjudge_core::inspect::verify(&audit).unwrap();
    assert!(report.ok(), "{report}");
    assert!(report.to_string().contains(&format!("station: Table 7 (was Table 3 until record #{seq})")), "{report}");
}

#[test]
fn clock_jumps_on_the_live_station_are_recorded_and_listed_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let clock =
        std::sync::Arc::new(wordjudge_core::audit::ManualClock::new("2026-05-01T10:00:00Z".parse().unwrap(), "boot-a"));
    let options = wordjudge_core::recorder::AuditOptions { clock: clock.clone(), ..Default::default() };
    let audit = AuditLog::open_with(&config.audit_dir, &config.station_name, options).unwrap();
    let station = crate::live::start_station_with_log(&path, audit);
    let mut rig = Rig::with(station, &config.timeouts);
    judge_n(&mut rig, 1);
    clock.advance(std::time::Duration::from_secs(60));
    clock.set_wall("2099-05-01T10:01:00Z".parse().unwrap());
    judge_n(&mut rig, 1);
    clock.advance(std::time::Duration::from_secs(60));
    clock.set_wall("2026-05-01T10:02:00Z".parse().unwrap());
    judge_n(&mut rig, 1);
    // A desktop never sets the system clock: refused, recorded, no jump.
    assert!(rig.station.set_clock("2026-05-01 11:00").is_err());

    let all = records(&config.audit_dir);
    let jumps: Vec<&serde_json::Value> = all.iter().filter(|r| r["event"] == "clock_jumped").collect();
    assert_eq!(jumps.len(), 2, "2026 → 2099 → 2026");
    assert_eq!(
        (jumps[0]["from"].as_str(), jumps[0]["to"].as_str()),
        (Some("2026-05-01T10:01:00.000Z"), Some("2099-05-01T10:01:00.000Z"))
    );
    assert_eq!(jumps[1]["to"], "2026-05-01T10:02:00.000Z");
    assert!(all.iter().any(|r| r["event"] == "setting_refused" && r["setting"] == "clock"));
    let report = wordjudge_core::inspect::verify(&config.audit_dir).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.clock_jumps.len(), 2, "{report}");
    assert!(report.to_string().contains("WARNING: the wall clock jumped 2 time(s)"), "{report}");
}

#[test]
fn a_signing_key_that_cannot_be_read_is_a_warning_on_screen_and_in_the_menu_and_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let key_dir = config.audit_dir.join("key");
    std::fs::create_dir_all(&key_dir).unwrap();
    let key = std::ffi::CString::new(key_dir.join("ed25519.key").as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(key.as_ptr(), 0o600) }, 0);
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert!(rig.view().bar.warning, "the top bar tells the director to look");
    judge_n(&mut rig, 2);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("⚠ The audit log's signing key:") && lines.contains("FIFO"), "{lines}");
    assert!(lines.contains("no signed summary is made until it is fixed"), "{lines}");
    assert!(!lines.contains(&dir.path().display().to_string()), "files by name only on screen: {lines}");
    rig.key(Key::Escape);
    rig.station.shut_down();
    let events: Vec<String> =
        records(&config.audit_dir).iter().map(|r| r["event"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        events.iter().filter(|e| *e == "key_problem").count(),
        1,
        "once per start, not per checkpoint: {events:?}"
    );
    assert!(!events.contains(&"checkpoint".to_string()), "{events:?}");
}

#[test]
fn text_direction_and_control_characters_are_refused_in_station_names() {
    let hidden = [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        '\u{200E}', '\u{200F}', '\u{061C}', '\u{1b}', '\u{7f}', '\u{9b}',
    ];
    for c in hidden {
        let name = format!("Table {c}7");
        let refused = wordjudge_core::config::check_station_name(&name).unwrap_err();
        assert!(refused.contains(&format!("U+{:04X}", c as u32)), "{refused}");
        assert!(!refused.contains(c), "the refusal quotes the name escaped: {refused:?}");
        assert!(!wordjudge_core::config::station_name_char_allowed(c));
    }
    assert!(wordjudge_core::config::check_station_name("Salle 7 — Zürich, table «A»").is_ok());
    let toml = "station_name = \"Table \\u202E7\"\n";
    assert!(Config::from_toml(toml).is_err(), "a config file cannot bring one in either");

    // The edit prompt does not take the key at all.
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Rename the station");
    rig.key(Key::Enter);
    rig.key(Key::Char('\u{202E}'));
    assert_eq!(rig.view().edit.value, "Table 3");
    assert_eq!(rig.view().edit.message, "That key cannot be typed here.");

    // Nor does the live station, and the refusal is a record.
    let mut live = Live::new("SMALL");
    assert!(live.station.set_station_name("Table \u{2067}7").is_err());
    assert_eq!(live.station.station_name(), "Table 3");
    assert!(
        live.audit_text().contains("\"event\":\"setting_refused\",\"setting\":\"station_name\""),
        "{}",
        live.audit_text()
    );
}
