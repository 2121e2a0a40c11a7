//! Updating the station from a bundle on a stick: on the fake station the
//! flow's rules (offered only with a bundle on an updatable station, the
//! preview, refusals that change nothing, the PIN again for a downgrade,
//! progress, failure, exactly one restart after the records); on the live
//! station with the simulated twin, the whole path through the worker thread
//! and the audit log, and the boot check's verdict recorded exactly once.

use crate::live::{config_for, start_station_updating, Live};
use crate::support::*;
use std::time::{Duration, Instant};
use wordjudge::kiosk::fake::{FakeRecord, FakeStation};
use wordjudge::kiosk::flow::{Key, Screen, UpdateDone, UpdatePhase, UsbPhase};
use wordjudge::kiosk::station::{DirectorEvent, Station, SystemAction, UpdateRequest};
use wordjudge::kiosk::view::ScreenKind;

fn menu(rig: &mut Rig<FakeStation>) {
    open_pin(rig);
    enter_pin(rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
}

fn phase<S: wordjudge::kiosk::station::Station>(rig: &Rig<S>) -> UpdatePhase {
    match rig.screen() {
        Screen::Update(update) => update.phase.clone(),
        other => panic!("not on the update screen: {other:?}"),
    }
}

fn updating(current: &str, offered: &str) -> Rig<FakeStation> {
    let mut rig = Rig::fake("SMALL");
    rig.station.appliance = true;
    rig.station.plug_update("sdb1", "wordjudge-0.1.1.raucb", offered, current);
    menu(&mut rig);
    rig
}

fn update_records(station: &FakeStation) -> Vec<FakeRecord> {
    station
        .records
        .iter()
        .filter(|r| {
            matches!(
                r,
                FakeRecord::UpdateRefused { .. }
                    | FakeRecord::UpdateStarted { .. }
                    | FakeRecord::UpdateInstalled { .. }
                    | FakeRecord::UpdateFailed { .. }
                    | FakeRecord::System(_)
            )
        })
        .cloned()
        .collect()
}

#[test]
fn the_item_appears_only_with_a_bundle_on_a_stick_of_an_updatable_station() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[("NWL2018.txt", "NWL2018")]);
    menu(&mut rig);
    assert!(!rig.view().menu.items.iter().any(|i| i.starts_with("Install update")), "a stick with no bundle");
    rig.station.update_offer = rig.station.sticks.first().map(|s| wordjudge::kiosk::station::UpdateOffer {
        device: s.device.clone(),
        file: "wordjudge-0.1.1.raucb".into(),
        version: Some("0.1.1".into()),
        current: "0.1.0".into(),
    });
    rig.advance(1100);
    let items = rig.view().menu.items;
    assert_eq!(items[2], "Install update: version 0.1.1 (current 0.1.0)", "{items:?}");
    rig.station.update_offer = None;
    rig.station.sticks.clear();
    rig.advance(1100);
    assert!(!rig.view().menu.items.iter().any(|i| i.contains("update") || i.contains("USB")));
}

#[test]
fn the_preview_shows_the_bundles_facts_and_enter_installs_with_progress_then_one_restart() {
    let mut rig = updating("0.1.0", "0.1.1");
    select_menu(&mut rig, "Install update: version 0.1.1 (current 0.1.0)");
    rig.station.update_paused_at = Some(50);
    rig.key(Key::Enter);
    assert_eq!(phase(&rig), UpdatePhase::Checking);
    rig.key(Key::Escape);
    assert_eq!(phase(&rig), UpdatePhase::Checking, "keys wait while the bundle is checked");
    rig.advance(50);
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::Usb);
    assert_eq!(v.usb.status, "Install version 0.1.1?");
    for fact in ["Version 0.1.1 (this station: 0.1.0)", "Signed by: O = wordjudge, CN = update signer", "For: wordjudge-amd64", "Newer"] {
        assert!(v.usb.detail.contains(fact), "{fact} in {}", v.usb.detail);
    }
    assert!(rig.station.update_requests().iter().all(|r| !matches!(r, UpdateRequest::Install)), "nothing installs yet");
    rig.key(Key::Enter);
    rig.advance(50);
    let v = rig.view();
    assert!(matches!(phase(&rig), UpdatePhase::Installing { percent: Some(50), .. }), "{:?}", phase(&rig));
    assert!(v.usb.progress_shown && v.usb.progress == 50, "{:?}", v.usb);
    assert!(v.usb.status.contains("50%"), "{}", v.usb.status);
    rig.key(Key::Escape);
    assert!(matches!(phase(&rig), UpdatePhase::Installing { .. }), "keys wait while it installs");
    rig.station.update_paused_at = None;
    rig.advance(50);
    assert_eq!(rig.view().usb.status, "Installed version 0.1.1 — restarting");
    rig.key(Key::Enter);
    rig.advance(60_000);
    assert!(matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Installed { restart: Ok(()), .. })), "it stays until the restart");
    assert_eq!(
        update_records(&rig.station),
        [
            FakeRecord::UpdateStarted { version: "0.1.1".into(), downgrade: false },
            FakeRecord::UpdateInstalled { version: "0.1.1".into() },
            FakeRecord::System(SystemAction::Reboot),
        ],
        "recorded, then exactly one restart through the menu's reboot"
    );
}

#[test]
fn an_unverifiable_or_incompatible_bundle_is_refused_and_nothing_installs() {
    for reason in ["the bundle was refused: signature verification failed", "it is for wordjudge-arm64, and this station is wordjudge-amd64"] {
        let mut rig = updating("0.1.0", "0.1.1");
        rig.station.update_check = Err(reason.into());
        select_menu(&mut rig, "Install update");
        rig.key(Key::Enter);
        rig.advance(50);
        assert_eq!(phase(&rig), UpdatePhase::Done(UpdateDone::Refused(reason.into())));
        let v = rig.view();
        assert_eq!(v.usb.status, "This update will not be installed.");
        assert!(v.usb.detail.contains(reason) && v.usb.detail.contains("Nothing changed"), "{}", v.usb.detail);
        rig.key(Key::Enter);
        assert!(matches!(rig.screen(), Screen::Director(_)), "any key returns to the menu");
        // The refusal is the only record: nothing started, nothing restarted.
        assert_eq!(update_records(&rig.station), vec![FakeRecord::UpdateRefused { reason: reason.into() }]);
        assert!(!rig.station.update_requests().contains(&&UpdateRequest::Install));
    }
}

#[test]
fn a_downgrade_or_reinstall_needs_the_pin_again_and_a_wrong_pin_installs_nothing() {
    for (current, offered) in [("0.1.1", "0.1.0"), ("0.1.1", "0.1.1")] {
        let mut rig = updating(current, offered);
        select_menu(&mut rig, "Install update");
        rig.key(Key::Enter);
        rig.advance(50);
        assert!(rig.view().usb.detail.contains("director PIN again"), "{}", rig.view().usb.detail);
        rig.key(Key::Enter);
        assert!(matches!(phase(&rig), UpdatePhase::Pin { .. }), "{current} -> {offered}");
        enter_pin(&mut rig, "1111");
        assert!(matches!(phase(&rig), UpdatePhase::Pin { .. }));
        assert!(rig.view().usb.detail.contains("Wrong PIN. 2 attempts left."), "{}", rig.view().usb.detail);
        assert!(!rig.view().usb.detail.contains("1111"), "the PIN is never shown");
        assert!(!rig.station.update_requests().contains(&&UpdateRequest::Install), "a wrong PIN installs nothing");
        assert!(rig.station.records.contains(&FakeRecord::Director(DirectorEvent::PinRefused { failures: 1 })));
        enter_pin(&mut rig, PIN);
        rig.advance(50);
        assert!(matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Installed { .. })));
        assert_eq!(update_records(&rig.station)[0], FakeRecord::UpdateStarted { version: offered.into(), downgrade: true });
    }
}

#[test]
fn wrong_pins_for_a_downgrade_lock_out_like_the_prompt_and_drop_the_bundle() {
    let mut rig = updating("0.2.0", "0.1.0");
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.key(Key::Enter);
    for pin in ["1111", "2222", "3333"] {
        enter_pin(&mut rig, pin);
    }
    assert!(is_ready(rig.screen()), "locked out: the menu closes");
    assert!(rig.kiosk.pin_locked_until(rig.now).is_some());
    assert_eq!(rig.station.update_requests().last(), Some(&&UpdateRequest::Cancel), "the stick is unmounted");
    assert!(update_records(&rig.station).is_empty());
}

#[test]
fn a_failed_install_says_why_and_returns_to_the_menu() {
    let mut rig = updating("0.1.0", "0.1.1");
    rig.station.update_fail = Some("failed to read the bundle: the stick was removed".into());
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.key(Key::Enter);
    rig.advance(50);
    let v = rig.view();
    assert_eq!(v.usb.status, "The update did not finish.");
    assert!(v.usb.detail.contains("the stick was removed") && v.usb.detail.contains("runs as before"), "{}", v.usb.detail);
    rig.key(Key::Char('x'));
    assert!(matches!(rig.screen(), Screen::Director(_)));
    assert_eq!(
        update_records(&rig.station),
        [
            FakeRecord::UpdateStarted { version: "0.1.1".into(), downgrade: false },
            FakeRecord::UpdateFailed { version: "0.1.1".into(), reason: "failed to read the bundle: the stick was removed".into() },
        ],
        "no restart"
    );
}

#[test]
fn esc_or_an_idle_preview_cancels_and_unmounts() {
    let mut rig = updating("0.1.0", "0.1.1");
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.key(Key::Escape);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    assert_eq!(rig.station.update_requests().last(), Some(&&UpdateRequest::Cancel));
    rig.key(Key::Enter);
    rig.advance(50);
    assert!(matches!(phase(&rig), UpdatePhase::Preview(_)));
    rig.advance(10 * 60_000);
    assert!(is_ready(rig.screen()), "idle: home");
    assert_eq!(rig.station.update_requests().iter().filter(|r| ***r == UpdateRequest::Cancel).count(), 2);
}

#[test]
fn the_last_updates_verdict_is_on_the_director_menu() {
    use wordjudge::update::{BootCheck, BootOutcome};
    let mut rig = Rig::fake("SMALL");
    rig.station.last_update =
        Some(BootCheck { slot: "B".into(), version: "0.1.1".into(), outcome: BootOutcome::MarkedGood, detail: String::new() });
    menu(&mut rig);
    assert!(rig.view().menu.lines.contains(&"Last update: version 0.1.1 kept (slot B)".to_string()));
    rig.station.last_update = Some(BootCheck {
        slot: "B".into(),
        version: "0.1.2".into(),
        outcome: BootOutcome::RolledBack,
        detail: "kiosk not READY".into(),
    });
    assert!(rig.view().menu.lines.contains(&"Last update: version 0.1.2 rolled back: kiosk not READY".to_string()));
}

/// A live station whose sticks are folders of `sticks/` and whose updates
/// are the simulated twin's (station at 0.1.0, boot checks in `update/`).
fn live_updating(step_ms: u64) -> Live {
    live_updating_with(step_ms, 0)
}

/// The same, each bundle taking `inspect_ms` to look at.
fn live_updating_with(step_ms: u64, inspect_ms: u64) -> Live {
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    std::fs::create_dir_all(dir.path().join("sticks")).unwrap();
    std::fs::create_dir_all(dir.path().join("update")).unwrap();
    let sticks = std::sync::Arc::new(wordjudge::usb::sim::FolderSticks::new(dir.path().join("sticks")));
    let mut updates = wordjudge::update::sim::SimUpdates::new("0.1.0", dir.path().join("update"));
    updates.step = Duration::from_millis(step_ms);
    updates.inspect_time = Duration::from_millis(inspect_ms);
    let station = start_station_updating(&path, sticks, std::sync::Arc::new(updates));
    Live { rig: Rig::with(station, &config.timeouts), dir }
}

/// Ticks (real time passes for the worker) until `done` or 10 s.
fn wait_until(live: &mut Live, what: &str, done: impl Fn(&Live) -> bool) {
    let started = Instant::now();
    while !done(live) {
        assert!(started.elapsed() < Duration::from_secs(10), "waiting for {what}: {:?}", live.screen());
        std::thread::sleep(Duration::from_millis(20));
        live.advance(50);
    }
}

#[test]
fn live_a_bundle_is_checked_installed_and_recorded_in_order_then_the_station_restarts() {
    let mut live = live_updating(5);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(
        stick.join("wordjudge-0.1.1.raucb"),
        r#"{"compatible":"wordjudge-sim","version":"0.1.1","description":"sim","signer":"CN = test signer"}"#,
    )
    .unwrap();
    std::fs::write(stick.join("old.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.0.9","signer":"x"}"#).unwrap();
    std::fs::write(stick.join("broken.raucb"), "not a bundle").unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    wait_until(&mut live, "the offer", |l| l.view().menu.items.iter().any(|i| i.starts_with("Install update")));
    select_menu(&mut *live, "Install update: version 0.1.1 (current 0.1.0)");
    live.key(Key::Enter);
    wait_until(&mut live, "the preview", |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Preview(_))));
    assert!(live.view().usb.detail.contains("Signed by: CN = test signer"), "{}", live.view().usb.detail);
    live.key(Key::Enter);
    wait_until(&mut live, "the end", |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_))));
    // A desktop station refuses the restart: it says so, and the records stand.
    assert!(
        matches!(phase(&live), UpdatePhase::Done(UpdateDone::Installed { ref version, restart: Err(_) }) if version == "0.1.1"),
        "{:?}",
        phase(&live)
    );
    let text = live.audit_text();
    let started = text.find("\"event\":\"update_started\"").expect(&text);
    let installed = text.find("\"event\":\"update_installed\"").expect(&text);
    assert!(started < installed);
    assert!(text.contains("\"bundle\":\"wordjudge-0.1.1.raucb\""), "{text}");
    assert!(text.contains("\"downgrade\":false") && text.contains("\"current\":\"0.1.0\""), "{text}");
}

#[test]
fn live_a_bundle_for_another_station_is_refused_and_a_pulled_stick_fails_cleanly() {
    let mut live = live_updating(300);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-arm64","version":"0.2.0","signer":"x"}"#).unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    wait_until(&mut live, "the offer", |l| l.view().menu.items.iter().any(|i| i.starts_with("Install update")));
    select_menu(&mut *live, "Install update");
    live.key(Key::Enter);
    wait_until(&mut live, "the refusal", |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_))));
    assert!(live.view().usb.detail.contains("it is for wordjudge-arm64"), "{}", live.view().usb.detail);
    // The director's attempt is on the record, with the bundle and the reason
    // the screen gave, and nothing was started.
    let text = live.audit_text();
    let refused = text.lines().filter(|l| l.contains("\"event\":\"update_refused\"")).collect::<Vec<_>>();
    assert_eq!(refused.len(), 1, "{text}");
    assert!(refused[0].contains("\"bundle\":\"u.raucb\"") && refused[0].contains("it is for wordjudge-arm64"), "{text}");
    assert!(!text.contains("update_started"), "{text}");
    live.key(Key::Enter);

    // A compatible bundle whose stick is pulled out while it installs.
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.2.0","signer":"x"}"#).unwrap();
    select_menu(&mut *live, "Install update");
    live.key(Key::Enter);
    wait_until(&mut live, "the preview", |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Preview(_))));
    live.key(Key::Enter);
    std::fs::remove_dir_all(&stick).unwrap();
    wait_until(&mut live, "the failure", |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_))));
    // Pulled before or while the slot is written: a failure that says the
    // station runs as before, whichever moment the worker noticed.
    let v = live.view();
    assert_eq!(v.usb.status, "The update did not finish.", "{}", v.usb.detail);
    assert!(v.usb.detail.contains("runs as before"), "{}", v.usb.detail);
    let text = live.audit_text();
    assert!(text.contains("\"event\":\"update_failed\"") && !text.contains("update_installed"), "{text}");
}

#[test]
fn live_the_boot_checks_verdict_is_recorded_exactly_once_and_renamed() {
    let mut live = live_updating(5);
    let state = live.dir.path().join("update");
    std::fs::write(state.join("boot-check"), "slot=B\nversion=0.1.1\noutcome=marked-good\ndetail=READY in 9 s\n").unwrap();
    live.station.poll();
    live.station.poll();
    assert!(!state.join("boot-check").exists(), "renamed once recorded");
    assert!(state.join("boot-check.recorded").exists());
    let text = live.audit_text();
    assert_eq!(text.matches("\"event\":\"update_outcome\"").count(), 1, "{text}");
    assert!(text.contains("\"outcome\":\"marked-good\"") && text.contains("\"slot\":\"B\""), "{text}");
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    assert!(live.view().menu.lines.contains(&"Last update: version 0.1.1 kept (slot B)".to_string()));

    // A restart finds only the recorded file: nothing is recorded again, and
    // the menu still says what the last update came to.
    let path = live.dir.path().join("config.toml");
    let Live { rig, dir } = live;
    drop(rig);
    let sticks = std::sync::Arc::new(wordjudge::usb::NoSticks);
    let updates = wordjudge::update::sim::SimUpdates::new("0.1.1", dir.path().join("update"));
    let station = start_station_updating(&path, sticks, std::sync::Arc::new(updates));
    assert_eq!(station.last_update().map(|c| c.version), Some("0.1.1".into()));
    drop(station);
    let text = crate::live::audit_text(&dir.path().join("audit"));
    assert_eq!(text.matches("\"event\":\"update_outcome\"").count(), 1, "{text}");
}

#[test]
fn live_a_lexicon_import_chosen_while_the_menu_looks_for_bundles_waits_for_it_instead_of_being_refused() {
    // The director plugs a stick in and at once chooses "Install lexicons
    // from USB": the menu's background look for bundles holds the stick for
    // a moment (RAUC checking a signature); the import starts after it.
    let mut live = live_updating_with(5, 600);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.1.1","signer":"x"}"#).unwrap();
    std::fs::write(stick.join("MINE.txt"), "CAT\nDOG\nZEBRA\n").unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    live.advance(50);
    select_menu(&mut *live, "Install lexicons from USB");
    live.key(Key::Enter);
    assert!(
        matches!(live.screen(), Screen::Usb(u) if matches!(u.phase, UsbPhase::Working(_))),
        "the import waits, it is not refused: {:?}",
        live.screen()
    );
    wait_until(&mut live, "the word lists", |l| matches!(l.screen(), Screen::Usb(u) if u.phase == UsbPhase::List));
    assert!(matches!(live.screen(), Screen::Usb(u) if u.rows.iter().any(|r| r.file == "MINE.txt")), "{:?}", live.screen());
}
