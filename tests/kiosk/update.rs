//! Updating the station from a bundle on a stick, on the fake station: the
//! flow's rules (offered only with a bundle on an updatable station, the
//! preview, refusals that change nothing and are not offered again until the
//! stick is plugged in again, the PIN again for a downgrade, progress,
//! failure, exactly one restart after the records) and its words (what
//! happens next and for how long; refusals and wrong PINs in the alert band;
//! no path, file name or internal name). The live station: `live_update`.

use crate::support::*;
use wordjudge_station::desks::fake::{FakeRecord, FakeStation};
use wordjudge_station::desks::{DirectorEvent, SystemAction, UpdateError, UpdateRequest};
use wordjudge_station::kiosk::flow::{Key, Screen, UpdateDone, UpdatePhase};
use wordjudge_station::kiosk::view::{ScreenKind, ViewModel};

/// How long the preview ignores ENTER after it appears.
const SETTLE_MS: u64 = wordjudge_station::kiosk::flow::CONFIRM_SETTLE.as_millis() as u64;

fn menu(rig: &mut Rig<FakeStation>) {
    open_pin(rig);
    enter_pin(rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
}

pub(crate) fn phase<S: wordjudge_station::desks::Station>(rig: &Rig<S>) -> UpdatePhase {
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
    rig.station.update_offer = rig.station.sticks.first().map(|s| wordjudge_station::desks::UpdateOffer {
        device: s.device.clone(),
        file: "wordjudge-0.1.1.raucb".into(),
        version: Some("0.1.1".into()),
        current: "0.1.0".into(),
    });
    select_menu(&mut rig, "USB stick");
    rig.key(Key::Enter);
    rig.advance(1100);
    let items = rig.view().menu.items;
    assert_eq!(items[4], "Install update: version 0.1.1 (this station runs 0.1.0)", "{items:?}");
    rig.station.update_offer = None;
    rig.station.sticks.clear();
    rig.advance(1100);
    assert_eq!(rig.view().menu.items, ["◀ Back"], "nothing is offered once the stick is out");
    rig.key(Key::Escape);
    assert!(!rig.view().menu.items.iter().any(|i| i.contains("update") || i.contains("USB")));
}

#[test]
fn the_preview_shows_the_bundles_facts_and_enter_installs_with_progress_then_one_restart() {
    let mut rig = updating("0.1.0", "0.1.1");
    select_menu(&mut rig, "Install update: version 0.1.1 (this station runs 0.1.0)");
    rig.station.update_paused_at = Some(50);
    rig.key(Key::Enter);
    assert_eq!(phase(&rig), UpdatePhase::Checking);
    rig.key(Key::Enter);
    assert_eq!(phase(&rig), UpdatePhase::Checking, "keys wait while the bundle is checked (ESC stops waiting)");
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::Usb);
    assert_eq!(v.usb.status, "Install version 0.1.1?");
    for fact in [
        "Version 0.1.1 (this station: 0.1.0)",
        "Signed by: O = wordjudge, CN = update signer",
        "Made for this kind of station (PC image)",
        "Newer",
        RESTART,
    ] {
        assert!(v.usb.detail.contains(fact), "{fact} in {}", v.usb.detail);
    }
    assert_eq!(v.usb.alert, "", "nothing to alert about");
    assert!(rig.station.update_requests().iter().all(|r| !matches!(r, UpdateRequest::Install)), "nothing installs yet");
    rig.key(Key::Enter);
    rig.advance(50);
    let v = rig.view();
    assert!(matches!(phase(&rig), UpdatePhase::Installing { percent: Some(50), .. }), "{:?}", phase(&rig));
    assert!(v.usb.progress_shown && v.usb.progress == 50, "{:?}", v.usb);
    assert!(v.usb.status.contains("50%"), "{}", v.usb.status);
    assert!(
        v.usb.detail.contains("restarts by itself") && v.usb.detail.contains("about 2 minutes"),
        "{}",
        v.usb.detail
    );
    rig.key(Key::Escape);
    assert!(matches!(phase(&rig), UpdatePhase::Installing { .. }), "keys wait while it installs");
    rig.station.update_paused_at = None;
    rig.advance(50);
    assert_eq!(rig.view().usb.status, "Installed version 0.1.1 — restarting");
    rig.key(Key::Enter);
    rig.advance(60_000);
    assert!(
        matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Installed { restart: Ok(()), .. })),
        "it stays until the restart"
    );
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

/// What the confirm screens say happens after ENTER.
const RESTART: &str =
    "It installs, then the station restarts by itself: about 2 minutes, during which players cannot use it.";

fn other_station(bundle: &str) -> UpdateError {
    UpdateError::OtherStation { bundle: bundle.into(), station: "wordjudge-amd64".into() }
}

#[test]
fn an_unverifiable_or_incompatible_bundle_is_refused_in_words_and_nothing_installs() {
    for (error, words) in [
        (
            UpdateError::Refused("signature verification failed: unable to get local issuer certificate".into()),
            "This update is not signed with this station's update key, or its file is damaged or incomplete.",
        ),
        (
            other_station("wordjudge-arm64"),
            "This update is for a different kind of station (Raspberry Pi card). This station is a PC image.",
        ),
        (other_station("acme-router-7"), "This update is for another kind of station. This station is a PC image."),
        (
            UpdateError::NoRoom { needed: 178_400_000, free: 120_500_000 },
            "There is not enough room on the station for this update: it needs 179 MB free, and 120 MB are.",
        ),
    ] {
        let mut rig = updating("0.1.0", "0.1.1");
        rig.station.update_check = Err(error.clone());
        select_menu(&mut rig, "Install update");
        rig.key(Key::Enter);
        rig.advance(50);
        rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
        assert_eq!(phase(&rig), UpdatePhase::Done(UpdateDone::Refused(error.clone())));
        let v = rig.view();
        assert_eq!(v.usb.status, "This update will not be installed.");
        assert_eq!(v.usb.alert, words, "the reason in the alert band");
        assert!(v.usb.detail.contains("Nothing changed"), "{}", v.usb.detail);
        rig.key(Key::Enter);
        assert!(matches!(rig.screen(), Screen::Director(_)), "any key returns to the menu");
        // The refusal is the only record, in full: nothing started, nothing restarted.
        assert_eq!(update_records(&rig.station), vec![FakeRecord::UpdateRefused { reason: error.to_string() }]);
        assert!(!rig.station.update_requests().contains(&&UpdateRequest::Install));
    }
}

#[test]
fn a_refused_bundle_leaves_the_menu_until_the_stick_is_plugged_in_again() {
    let mut rig = updating("0.1.0", "0.1.1");
    let offered = |rig: &Rig<FakeStation>| rig.view().menu.items.iter().any(|i| i.starts_with("Install update"));
    rig.station.update_check = Err(other_station("wordjudge-arm64"));
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    assert!(matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Refused(_))));
    rig.key(Key::Enter);
    assert!(!offered(&rig), "refused: not offered again: {:?}", rig.view().menu.items);
    rig.advance(1100);
    assert!(!offered(&rig), "nor after the menu looks at the sticks again");
    // Reopening the menu does not bring it back either.
    leave_menu(&mut rig);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "USB stick");
    rig.key(Key::Enter);
    assert!(!offered(&rig), "{:?}", rig.view().menu.items);
    // Pulled out and plugged in again: offered again.
    let (sticks, offer) = (std::mem::take(&mut rig.station.sticks), rig.station.update_offer.take());
    rig.advance(1100);
    assert!(!rig.view().menu.items.iter().any(|i| i.contains("FAKE")), "the stick is out: {:?}", rig.view().menu.items);
    (rig.station.sticks, rig.station.update_offer) = (sticks, offer);
    rig.advance(1100);
    assert!(offered(&rig), "plugged in again: {:?}", rig.view().menu.items);
    // Another stick appearing beside it brings a refused bundle back too.
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    rig.key(Key::Enter);
    assert!(!offered(&rig));
    rig.station
        .sticks
        .push(wordjudge_station::desks::StickChoice { device: "sdc1".into(), name: "OTHER (sdc1, FAT32)".into() });
    rig.advance(1100);
    assert!(offered(&rig), "{:?}", rig.view().menu.items);
}

/// Every line an update screen shows.
fn screen_text(v: &ViewModel) -> String {
    [&v.menu.title, &v.usb.status, &v.usb.alert, &v.usb.detail].map(|s| s.as_str()).join("\n")
}

/// A file name, a path or an internal name on screen.
fn jargon(text: &str) -> Option<&'static str> {
    ["/", ".raucb", "raucb", "wordjudge-", "slot", "rauc", "RAUC", "compatible"].into_iter().find(|j| text.contains(j))
}

#[test]
fn no_update_screen_shows_a_path_a_file_name_or_an_internal_name() {
    let mut seen = Vec::new();
    let mut look = |rig: &Rig<FakeStation>, what: &str| {
        assert_eq!(rig.view().screen, ScreenKind::Usb, "{what}");
        let text = screen_text(&rig.view());
        assert_eq!(jargon(&text), None, "{what}: {text}");
        seen.push(what.to_string());
    };
    // The whole way of a downgrade: checking, preview, a wrong PIN,
    // installing, installed and restarting (the appliance restarts).
    let mut rig = updating("0.1.1", "0.1.0");
    rig.station.appliance = true;
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    look(&rig, "checking");
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    look(&rig, "preview");
    rig.key(Key::Enter);
    look(&rig, "PIN");
    enter_pin(&mut rig, "1111");
    assert_eq!(rig.view().usb.alert, "Wrong PIN. 2 attempts left.", "a wrong PIN in the alert band");
    look(&rig, "wrong PIN");
    rig.station.update_paused_at = Some(50);
    enter_pin(&mut rig, PIN);
    rig.advance(50);
    look(&rig, "installing");
    rig.station.update_paused_at = None;
    rig.advance(50);
    assert!(matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Installed { restart: Ok(()), .. })));
    look(&rig, "installed, restarting");
    // A desktop station cannot restart by itself.
    let mut rig = updating("0.1.0", "0.1.1");
    rig.station.appliance = false;
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    rig.key(Key::Enter);
    rig.advance(50);
    assert!(matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Installed { restart: Err(_), .. })));
    look(&rig, "installed, no restart");
    // Every refusal and failure, each carrying the internal words it was given.
    let internal = "/run/wordjudge/stick/wordjudge-0.1.1.raucb: slot rootfs.1 (compatible wordjudge-amd64)";
    let refusals = [
        UpdateError::NotUpdatable,
        UpdateError::NotRun(internal.into()),
        UpdateError::Refused(internal.into()),
        UpdateError::Unreadable(internal.into()),
        other_station("wordjudge-arm64"),
        other_station("wordjudge-sim"),
        other_station(internal),
        UpdateError::Stick(internal.into()),
        UpdateError::NoRoom { needed: 1 << 30, free: 1 << 20 },
        UpdateError::CopyFailed(internal.into()),
        UpdateError::Changed,
        UpdateError::InstallFailed(internal.into()),
        UpdateError::Interrupted(internal.into()),
    ];
    for error in refusals.clone() {
        let mut rig = updating("0.1.0", "0.1.1");
        rig.station.update_check = Err(error.clone());
        select_menu(&mut rig, "Install update");
        rig.key(Key::Enter);
        rig.advance(50);
        rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
        assert!(!rig.view().usb.alert.is_empty(), "{error:?} is said in the alert band");
        look(&rig, &format!("refused: {error:?}"));
    }
    let mut rig = updating("0.1.0", "0.1.1");
    rig.station.update_fail = Some(internal.into());
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    rig.key(Key::Enter);
    rig.advance(50);
    assert_eq!(rig.view().usb.status, "The update did not finish.");
    look(&rig, "install failed");
    assert_eq!(seen.len(), 8 + refusals.len(), "{seen:?}");
    // The scan itself can fail: the words it is tested with.
    assert_eq!(jargon("/run/x"), Some("/"));
    assert_eq!(jargon("the other system slot"), Some("slot"));
}

#[test]
fn a_downgrade_or_reinstall_needs_the_pin_again_and_a_wrong_pin_installs_nothing() {
    for (current, offered) in [("0.1.1", "0.1.0"), ("0.1.1", "0.1.1")] {
        let mut rig = updating(current, offered);
        select_menu(&mut rig, "Install update");
        rig.key(Key::Enter);
        rig.advance(50);
        rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
        assert!(rig.view().usb.detail.contains("director PIN again"), "{}", rig.view().usb.detail);
        rig.key(Key::Enter);
        assert!(matches!(phase(&rig), UpdatePhase::Pin { .. }), "{current} -> {offered}");
        let v = rig.view();
        assert!(
            !v.usb.detail.contains("ENTER asks for the director PIN"),
            "not the line of the step before: {}",
            v.usb.detail
        );
        assert!(v.usb.detail.contains(RESTART), "{}", v.usb.detail);
        enter_pin(&mut rig, "1111");
        assert!(matches!(phase(&rig), UpdatePhase::Pin { .. }));
        let v = rig.view();
        assert_eq!(v.usb.alert, "Wrong PIN. 2 attempts left.", "in the alert band");
        assert!(!screen_text(&v).contains("1111"), "the PIN is never shown");
        assert!(!rig.station.update_requests().contains(&&UpdateRequest::Install), "a wrong PIN installs nothing");
        assert!(rig.station.records.contains(&FakeRecord::Director(DirectorEvent::PinRefused { failures: 1 })));
        enter_pin(&mut rig, PIN);
        rig.advance(50);
        assert!(matches!(phase(&rig), UpdatePhase::Done(UpdateDone::Installed { .. })));
        assert_eq!(
            update_records(&rig.station)[0],
            FakeRecord::UpdateStarted { version: offered.into(), downgrade: true }
        );
    }
}

#[test]
fn wrong_pins_for_a_downgrade_lock_out_like_the_prompt_and_drop_the_bundle() {
    let mut rig = updating("0.2.0", "0.1.0");
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
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
    rig.station.update_fail = Some("Failed to write slot rootfs.1: No space left on device".into());
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    rig.key(Key::Enter);
    rig.advance(50);
    let v = rig.view();
    assert_eq!(v.usb.status, "The update did not finish.");
    assert_eq!(
        v.usb.alert,
        "Installing stopped before the end: the station's data partition is full. Free space, then install again."
    );
    assert!(v.usb.detail.contains("runs as before") && v.usb.detail.contains("audit log"), "{}", v.usb.detail);
    rig.key(Key::Char('x'));
    assert!(matches!(rig.screen(), Screen::Director(_)));
    assert_eq!(
        update_records(&rig.station),
        [
            FakeRecord::UpdateStarted { version: "0.1.1".into(), downgrade: false },
            FakeRecord::UpdateFailed {
                version: "0.1.1".into(),
                reason: "the install failed: Failed to write slot rootfs.1: No space left on device".into()
            },
        ],
        "no restart; RAUC's words on the record"
    );
}

#[test]
fn esc_or_an_idle_preview_cancels_and_unmounts() {
    let mut rig = updating("0.1.0", "0.1.1");
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    rig.key(Key::Escape);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    assert_eq!(rig.view().menu.selected, 0, "back on the stick page's first entry");
    assert_eq!(rig.station.update_requests().last(), Some(&&UpdateRequest::Cancel));
    select_menu(&mut rig, "Install update");
    rig.key(Key::Enter);
    rig.advance(50);
    rig.advance(SETTLE_MS); // the preview counts an ENTER once it settled
    assert!(matches!(phase(&rig), UpdatePhase::Preview(_)));
    rig.advance(10 * 60_000);
    assert!(is_ready(rig.screen()), "idle: home");
    assert_eq!(rig.station.update_requests().iter().filter(|r| ***r == UpdateRequest::Cancel).count(), 2);
}

#[test]
fn the_last_updates_verdict_is_on_the_director_menu() {
    use wordjudge_core::update::{BootCheck, BootOutcome};
    let mut rig = Rig::fake("SMALL");
    rig.station.last_update = Some(BootCheck {
        slot: "B".into(),
        version: "0.1.1".into(),
        outcome: BootOutcome::MarkedGood,
        detail: String::new(),
    });
    menu(&mut rig);
    select_menu(&mut rig, "Station status");
    rig.key(Key::Enter);
    assert!(rig.view().menu.lines.contains(&"Last update: version 0.1.1 installed and kept".to_string()));
    rig.station.last_update = Some(BootCheck {
        slot: "B".into(),
        version: "0.1.2".into(),
        outcome: BootOutcome::RolledBack,
        detail: "kiosk not READY".into(),
    });
    assert!(rig.view().menu.lines.contains(
        &"Last update: version 0.1.2 undone, the station went back to its previous version: kiosk not READY"
            .to_string()
    ));
}

/// ESC while the bundle is copied off the stick and checked: the station
/// stops waiting and the menu is back at once; the check's answer, if it
/// comes, never reaches a screen.
#[test]
fn esc_while_a_bundle_is_checked_stops_waiting_and_its_answer_is_dropped() {
    let mut rig = updating("0.1.0", "0.1.1");
    select_menu(&mut rig, "Install update: version 0.1.1");
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    assert_eq!(phase(&rig), UpdatePhase::Checking);
    rig.key(Key::Escape);
    assert!(matches!(rig.screen(), Screen::Director(_)), "{:?}", rig.screen());
    assert_eq!(rig.station.update_requests().last(), Some(&&UpdateRequest::Cancel));
    rig.station.usb_hold = false;
    rig.advance(SETTLE_MS);
    assert!(
        matches!(rig.screen(), Screen::Director(_)),
        "the answer of the stopped check is dropped: {:?}",
        rig.screen()
    );
    assert!(update_records(&rig.station).is_empty(), "nothing installed or refused");
}

/// A check that never answers is given up at its deadline, in words.
#[test]
fn a_bundle_check_that_never_answers_is_given_up_at_its_deadline() {
    let mut rig = updating("0.1.0", "0.1.1");
    select_menu(&mut rig, "Install update: version 0.1.1");
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    rig.advance(wordjudge_station::kiosk::flow::UPDATE_CHECK_DEADLINE.as_millis() as u64 - 1_000);
    assert_eq!(phase(&rig), UpdatePhase::Checking);
    rig.advance(1_500);
    assert!(matches!(phase(&rig), UpdatePhase::Done(_)), "{:?}", phase(&rig));
    assert_eq!(rig.station.update_requests().last(), Some(&&UpdateRequest::Cancel));
    let text = screen_text(&rig.view());
    assert!(text.contains("did not answer within 600 seconds"), "{text}");
}
