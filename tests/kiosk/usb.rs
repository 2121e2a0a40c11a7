//! The director's USB stick in the kiosk flow, against the fake station: the
//! menu's first page offers the stick page while a stick is plugged in, word lists are previewed with
//! the status they would get before anything is installed, an install needs
//! a second ENTER, a failed read installs nothing, an export says when the
//! stick may be removed, and an idle screen never leaves a stick mounted.

use crate::support::*;
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::desks::{ImportState, UsbRequest, UsbWork};
use wordjudge_station::kiosk::flow::{Key, Screen, StopReason, UsbDone, UsbPhase};
use wordjudge_station::kiosk::view::ScreenKind;

fn menu(rig: &mut Rig<wordjudge_station::desks::fake::FakeStation>) {
    open_pin(rig);
    enter_pin(rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
}

/// Ticks until background work has answered (the fake answers at once).
fn settle(rig: &mut Rig<wordjudge_station::desks::fake::FakeStation>) {
    rig.advance(50);
}

fn phase(rig: &Rig<wordjudge_station::desks::fake::FakeStation>) -> UsbPhase {
    match rig.screen() {
        Screen::Usb(usb) => usb.phase.clone(),
        other => panic!("not on a USB screen: {other:?}"),
    }
}

#[test]
fn a_plugged_stick_is_offered_while_it_is_in_and_the_cursor_stays_put() {
    let mut rig = Rig::fake("SMALL");
    menu(&mut rig);
    select_menu(&mut rig, "Event fleet");
    let items = rig.view().menu.items;
    assert!(!items.iter().any(|i| i.contains("USB")), "{items:?}");
    let on = items[rig.view().menu.selected as usize].clone();

    rig.station.plug("sdb1", &[("NWL2018.txt", "NWL2018")]);
    rig.advance(400);
    assert!(!rig.view().menu.items.iter().any(|i| i == "USB stick"), "checked once a second, not on every tick");
    rig.advance(700);
    let v = rig.view();
    assert!(v.menu.items.iter().any(|i| i == "USB stick"), "{:?}", v.menu.items);
    assert_eq!(v.menu.items[v.menu.selected as usize], on, "the cursor stays on the entry it was on");
    select_menu(&mut rig, "USB stick");
    rig.key(Key::Enter);
    let v = rig.view();
    assert_eq!(v.menu.items[1], "Install lexicons from FAKE (sdb1, FAT32)");
    assert_eq!(v.menu.items[2], "Export the audit log to FAKE (sdb1, FAT32)");
    assert_eq!(v.menu.selected, 0, "the page opens on Back");
    rig.key(Key::Escape);

    rig.station.sticks.clear();
    rig.advance(1100);
    let v = rig.view();
    assert!(!v.menu.items.iter().any(|i| i.contains("USB")), "pulled: no longer offered");
}

#[test]
fn word_lists_show_what_they_would_be_and_install_only_on_a_second_enter() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[("NWL2018.txt", "NWL2018"), ("mine.txt", "CSW21"), ("TWL2016.txt", "NWL2018")]);
    menu(&mut rig);
    select_menu(&mut rig, "Install lexicons from");
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    assert!(matches!(phase(&rig), UsbPhase::Working(_)));
    assert_eq!(rig.view().screen, ScreenKind::Usb);
    assert_eq!(rig.view().usb.status, "Reading the stick…");
    assert!(rig.view().usb.detail.contains("nothing is installed yet"), "{}", rig.view().usb.detail);
    // Keys in a burst while the stick is read: nothing else is asked of it
    // (ESC stops waiting: `esc_while_a_stick_is_read_stops_waiting_at_once_and_players_judge_again`).
    for key in [Key::Enter, Key::Down, Key::Enter, Key::Right, Key::Up, Key::Tab] {
        rig.key(key);
    }
    assert_eq!(rig.station.usb_requests().len(), 1, "{:?}", rig.station.usb_requests());
    rig.advance(60_000);
    assert!(matches!(phase(&rig), UsbPhase::Working(_)), "no idle timeout while the stick is busy");
    rig.station.usb_hold = false;
    settle(&mut rig);
    assert_eq!(phase(&rig), UsbPhase::List);

    let v = rig.view();
    assert_eq!(v.usb.status, "", "the list is shown, not a status");
    assert_eq!(v.menu.items.len(), 4, "three lists and the row that ends: {:?}", v.menu.items);
    assert_eq!(v.menu.items[0], "NWL2018 → NWL2018 — would be Verified official · 1,000 words");
    assert!(v.menu.items[1].starts_with("mine — which lexicon? ← → to choose"), "{}", v.menu.items[1]);
    assert_eq!(v.menu.items[2], "TWL2016 → TWL2016 — Mismatch: will not be installed");
    assert_eq!(v.menu.items[3], "Done: finish with the stick and return");
    assert!(v.menu.lines.contains(&"Status once installed: Verified official".to_string()), "{:?}", v.menu.lines);

    // One ENTER asks; the second installs.
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Press ENTER again to install it.");
    assert!(rig.view().menu.items[0].ends_with("ENTER again to install"));
    assert!(!rig.station.usb_requests().iter().any(|r| matches!(r, UsbRequest::Install { .. })));
    rig.key(Key::Enter);
    assert_eq!(rig.station.usb_requests().last(), Some(&&UsbRequest::Install { file: 0 }));
    settle(&mut rig);
    let v = rig.view();
    assert_eq!(v.menu.items[0], "NWL2018 → NWL2018 — installed: Verified official");
    assert!(v.menu.message.starts_with("Installed: NWL2018 is Verified official."), "{}", v.menu.message);
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Already installed.");

    // An unnamed list needs a name; a wrong name is a Mismatch that never installs.
    rig.key(Key::Down);
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Choose which lexicon this list is with ← and →.");
    rig.key(Key::Right);
    settle(&mut rig);
    let first = wordjudge_core::lexicon::import::names()[0];
    assert!(
        matches!(rig.station.usb_requests().last(), Some(UsbRequest::Rename { file: 1, name: Some(n) }) if n == first)
    );
    assert!(rig.view().menu.items[1].contains("Mismatch"), "{}", rig.view().menu.items[1]);
    rig.key(Key::Left);
    settle(&mut rig);
    assert!(rig.view().menu.items[1].contains("which lexicon?"), "back to no name: {}", rig.view().menu.items[1]);
    rig.key(Key::Down);
    rig.key(Key::Enter);
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "This list is not TWL2016: it will not be installed.");
    let installs = rig.station.usb_requests().iter().filter(|r| matches!(r, UsbRequest::Install { .. })).count();
    assert_eq!(installs, 1, "only the confirmed, installable list");

    // ESC finishes with the stick; only then may it be removed.
    rig.key(Key::Escape);
    assert_eq!(rig.view().usb.status, "Finishing with the stick…");
    settle(&mut rig);
    let v = rig.view();
    assert_eq!(v.usb.status, "You may remove the stick.");
    assert!(v.usb.detail.starts_with("1 word list was installed from it."), "{}", v.usb.detail);
    rig.key(Key::Char('x'));
    assert!(matches!(rig.screen(), Screen::Director(_)));
    // The installed lexicon is in the menu; choosing it judges with it.
    rig.station.sticks.clear();
    rig.advance(1100);
    choose(&mut rig, "Use NWL2018");
    assert!(rig.station.records.contains(&FakeRecord::Switched { to: "NWL2018".into() }));
}

#[test]
fn a_stick_that_fails_mid_import_installs_nothing_and_says_so() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[("NWL2018.txt", "NWL2018")]);
    let lexicons_before = rig.station.lexicons.clone();
    menu(&mut rig);
    select_menu(&mut rig, "Install lexicons from");
    rig.station.usb_fail_next = Some("the stick was removed while it was being read".into());
    rig.key(Key::Enter);
    settle(&mut rig);
    assert!(matches!(phase(&rig), UsbPhase::Done(_)));
    let v = rig.view();
    assert_eq!(v.usb.status, "The stick could not be used.");
    assert!(
        v.usb.detail.starts_with("The stick was removed while it was being read. Nothing was installed."),
        "{}",
        v.usb.detail
    );
    assert_eq!(rig.station.lexicons, lexicons_before, "nothing installed");
    assert!(!rig.station.usb_requests().iter().any(|r| matches!(r, UsbRequest::Install { .. })));
    rig.key(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Director(_)), "any key returns to the menu");
    assert_eq!(
        rig.view().menu.items[rig.view().menu.selected as usize],
        "◀ Back",
        "on the page's harmless first entry"
    );
    // The station still judges.
    leave_menu(&mut rig);
    assert!(rig.challenge(&["CAT"]).0);
}

#[test]
fn an_export_says_where_it_went_and_when_the_stick_may_be_removed() {
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["CAT"]);
    rig.advance(20_000);
    rig.station.plug("sdc", &[]);
    menu(&mut rig);
    select_menu(&mut rig, "Export the audit log to");
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    assert_eq!(rig.view().usb.status, "Exporting the audit log…");
    assert!(rig.view().usb.detail.contains("Do not remove the stick"));
    rig.station.usb_hold = false;
    settle(&mut rig);
    let v = rig.view();
    assert_eq!(v.usb.status, "You may remove the stick.");
    assert!(
        v.usb.detail.contains("wordjudge-export-Table-3-2026-11-23") && v.usb.detail.contains("The copy verifies"),
        "{}",
        v.usb.detail
    );
    assert_eq!(rig.station.usb_requests(), [&UsbRequest::Export { device: "sdc".into() }]);
}

#[test]
fn an_idle_list_unmounts_the_stick_before_the_screen_goes_home() {
    let mut rig = a_stick_listed();
    assert_eq!(phase(&rig), UsbPhase::List);
    rig.advance(59_000);
    assert_eq!(phase(&rig), UsbPhase::List);
    rig.advance(2_000);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    assert_eq!(rig.station.usb_requests().last(), Some(&&UsbRequest::Eject), "unmounted before going home");
    // The eject's answer arrives after the screen left: dropped, never shown
    // on the next screen that waits for an answer.
    rig.advance(50);
    menu(&mut rig);
    select_menu(&mut rig, "Install lexicons from");
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    rig.advance(50);
    assert!(matches!(phase(&rig), UsbPhase::Working(_)), "a stale answer is not taken for this one");
    rig.station.usb_hold = false;
    settle(&mut rig);
    match rig.screen() {
        Screen::Usb(usb) => assert!(matches!(usb.rows[0].state, ImportState::Would { installable: true, .. })),
        other => panic!("{other:?}"),
    }
}

/// The menu's "Install lexicons from" chosen on a stick with NWL2018.txt,
/// its list shown.
fn a_stick_listed() -> Rig<wordjudge_station::desks::fake::FakeStation> {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[("NWL2018.txt", "NWL2018")]);
    menu(&mut rig);
    select_menu(&mut rig, "Install lexicons from");
    rig.key(Key::Enter);
    settle(&mut rig);
    rig
}

/// The menu's "Install lexicons from" chosen on a stick whose answer the
/// fake holds back: the station is reading it.
fn reading_a_held_stick() -> Rig<wordjudge_station::desks::fake::FakeStation> {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[("NWL2018.txt", "NWL2018")]);
    menu(&mut rig);
    select_menu(&mut rig, "Install lexicons from");
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    rig
}

/// ESC while a stick is read: the station stops waiting at once, says so,
/// and players judge again as soon as the director leaves. The held answer
/// of the stopped work never reaches a screen, not even the next one that
/// waits for an answer.
#[test]
fn esc_while_a_stick_is_read_stops_waiting_at_once_and_players_judge_again() {
    let mut rig = reading_a_held_stick();
    assert!(rig.view().usb.detail.ends_with("ESC: stop waiting."), "{}", rig.view().usb.detail);
    rig.key(Key::Escape);
    assert_eq!(phase(&rig), UsbPhase::Done(UsbDone::Stopped { work: UsbWork::Reading, why: StopReason::Escape }));
    assert!(rig.station.records.contains(&FakeRecord::UsbCancelled), "the station was told");
    let v = rig.view();
    assert_eq!(v.usb.status, "Stopped.");
    assert!(v.usb.detail.starts_with("Nothing was installed."), "{}", v.usb.detail);
    // A second ESC (a key pressed twice) only returns to the menu.
    rig.key(Key::Escape);
    assert!(matches!(rig.screen(), Screen::Director(_)), "{:?}", rig.screen());
    leave_menu(&mut rig);
    assert!(rig.challenge(&["CAT"]).0, "judging again at once");
    rig.station.usb_hold = false;
    settle(&mut rig);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "the verdict stays: {:?}", rig.screen());
}

/// A stick that never answers is given up at its work's deadline (a fleet
/// stick holds a few small files: ten seconds), with the reason on screen.
#[test]
fn a_fleet_stick_that_never_answers_is_given_up_at_its_deadline() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[]);
    menu(&mut rig);
    select_menu(&mut rig, "Join the event's fleet");
    rig.key(Key::Enter);
    rig.station.usb_hold = true;
    confirm(&mut rig);
    assert_eq!(phase(&rig), UsbPhase::Working(UsbWork::JoiningFleet));
    rig.advance(9_500);
    assert_eq!(phase(&rig), UsbPhase::Working(UsbWork::JoiningFleet));
    rig.advance(600);
    assert_eq!(
        phase(&rig),
        UsbPhase::Done(UsbDone::Stopped { work: UsbWork::JoiningFleet, why: StopReason::NoAnswer(10) })
    );
    assert_eq!(rig.view().usb.status, "The stick did not answer within 10 seconds.");
    assert!(rig.view().usb.detail.contains("the audit log will say"), "{}", rig.view().usb.detail);
}

/// A stick pulled out while it is read ends the wait within a second.
#[test]
fn a_stick_pulled_out_while_it_is_read_ends_the_wait() {
    let mut rig = reading_a_held_stick();
    rig.advance(1_500);
    assert!(matches!(phase(&rig), UsbPhase::Working(_)));
    rig.station.sticks.clear();
    rig.advance(1_100);
    assert_eq!(phase(&rig), UsbPhase::Done(UsbDone::Stopped { work: UsbWork::Reading, why: StopReason::Removed }));
    assert_eq!(rig.view().usb.status, "The stick was pulled out.");
}

/// An install writes the station's own checked bytes to its own card: ESC
/// does not stop it halfway, and it has no deadline.
#[test]
fn an_install_is_never_stopped_halfway() {
    let mut rig = a_stick_listed();
    rig.key(Key::Enter);
    rig.station.usb_hold = true;
    rig.key(Key::Enter);
    assert_eq!(phase(&rig), UsbPhase::Working(UsbWork::Installing));
    assert!(!rig.view().usb.detail.contains("ESC"), "{}", rig.view().usb.detail);
    rig.key(Key::Escape);
    rig.advance(600_000);
    assert_eq!(phase(&rig), UsbPhase::Working(UsbWork::Installing));
    assert!(!rig.station.records.contains(&FakeRecord::UsbCancelled));
    rig.station.usb_hold = false;
    settle(&mut rig);
    assert_eq!(phase(&rig), UsbPhase::List);
}
