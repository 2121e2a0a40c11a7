//! When the live station must not judge, and how it comes back: a station
//! on the built-in DEMO list that no director chose (not set up for the
//! event), and a station whose audit log cannot take a record (no verdict
//! without its record).

use crate::live::{config_for, Live};
use crate::support::*;
use wordjudge_core::lexicon::catalog::DEMO_ID;
use wordjudge_station::desks::{Judging, Warning};
use wordjudge_station::kiosk::flow::{Key, Screen};
use wordjudge_station::kiosk::view::ScreenKind;

/// A station config on DEMO as a first power-on leaves it: no director
/// chose DEMO to practise with.
fn first_power_on() -> Live {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), DEMO_ID);
    config.practice_with_demo = false;
    Live::with_config(dir, config)
}

#[test]
fn a_station_on_demo_that_no_director_chose_is_not_set_up_and_judges_nothing() {
    let mut rig = first_power_on();
    assert_eq!(rig.screen(), &Screen::OutOfService);
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::OutOfService);
    assert_eq!(v.service.title, "This station is not set up for the event yet.");
    assert_eq!(v.service.call, "Please call the tournament director.");
    assert!(v.bar.demo, "the bar still says DEMO: {:?}", v.bar);
    assert!(rig.kiosk.lamps(rig.station.needs_service()).service, "the service lamp is on");
    assert!(rig.station.warnings().contains(&Warning::NotSetUp));
    // Every way a player could judge is refused; nothing is recorded.
    rig.keys("2qiza");
    rig.key(Key::Tab);
    rig.event(wordjudge_station::kiosk::flow::Event::JudgeButton);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    assert!(rig.station.adjudicate(&["QI".into()], wordjudge_core::panel::Trigger::Keyboard).is_err());
    assert!(!rig.audit_text().contains("\"event\":\"adjudication\""), "no adjudication recorded");
    // The director sees why, in words.
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("Not set up for the event") && lines.contains("to practise, choose DEMO"), "{lines}");
    // Practising with DEMO is the director's explicit choice: recorded,
    // saved, and every screen still says DEMO.
    choose(&mut rig, "Use DEMO");
    leave_menu(&mut rig);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    let saved = wordjudge_core::config::Config::load(&rig.dir.path().join("config.toml"));
    assert!(saved.config.practice_with_demo, "the choice is saved");
    assert!(rig.audit_text().contains("\"event\":\"lexicon_switched\""), "the choice is recorded");
    assert!(rig.challenge(&["zebra"]).0);
    assert!(rig.view().bar.demo, "the verdict says DEMO");
}

#[test]
fn a_station_on_a_tournament_list_is_set_up_and_demo_practice_ends_with_it() {
    let mut rig = Live::new(DEMO_ID);
    assert!(is_ready(rig.screen()), "practice on DEMO judges");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    choose(&mut rig, "Use SMALL");
    leave_menu(&mut rig);
    let saved = wordjudge_core::config::Config::load(&rig.dir.path().join("config.toml"));
    assert!(!saved.config.practice_with_demo, "another list ends practice");
    assert!(!rig.station.warnings().contains(&Warning::NotSetUp));
    assert!(rig.challenge(&["cat"]).0);
}

#[test]
fn a_counter_that_cannot_be_kept_stops_judging_until_it_can_and_then_judging_resumes_alone() {
    // A station that has judged; its counter is then replaced by a FIFO
    // (a hostile card) and it restarts.
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let audit_dir = config.audit_dir.clone();
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    {
        let station = crate::live::start_station(&path);
        let mut rig = Rig::with(station, &config.timeouts);
        assert!(rig.challenge(&["cat"]).0);
        assert_eq!(rig.verdict().1, 1);
    }
    let counter = audit_dir.join("challenge-counter");
    std::fs::remove_file(&counter).unwrap();
    let c = std::ffi::CString::new(counter.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a plain libc call with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for start in 1..=3 {
        let station = crate::live::start_station(&path);
        let mut rig = Rig::with(station, &config.timeouts);
        assert_eq!(rig.screen(), &Screen::OutOfService, "start {start}");
        let v = rig.view();
        assert_eq!(v.service.detail, "It cannot keep its record of challenges.", "start {start}");
        rig.keys("1cat");
        rig.key(Key::Tab);
        assert_eq!(rig.screen(), &Screen::OutOfService, "start {start}: no verdict without its record");
        let warnings = rig.station.warnings();
        assert!(
            warnings.iter().any(
                |w| matches!(w, Warning::AuditLog(p) if p.contains("FIFO") && p.contains("No challenge is judged"))
            ),
            "start {start}: {warnings:?}"
        );
    }
    // The operator removes the FIFO: the station judges again by itself,
    // above every number it ever showed.
    let station = crate::live::start_station(&path);
    let mut rig = Rig::with(station, &config.timeouts);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    std::fs::remove_file(&counter).unwrap();
    if rig.station.poll() {
        rig.kiosk.refresh_lexicon(&rig.station);
    }
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    assert!(rig.challenge(&["cat"]).0);
    assert_eq!(rig.verdict().1, 2, "one number shown once, ever");
    let report = wordjudge_core::inspect::verify(&audit_dir).unwrap();
    assert!(report.ok(), "{report}");
}
