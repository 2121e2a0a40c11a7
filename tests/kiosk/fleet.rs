//! The event's fleet in the kiosk flow, against the fake station: a plugged
//! stick offers "Join the event's fleet"; the first visit says the request
//! is on the stick and what to do next, the second says the station joined
//! and where it sends; the menu then shows the fleet and offers to leave
//! it, after a confirmation that names the event. (What the visits do to files, and what
//! the live station records, is tested in `live_usb` and `tests/fleet`.)

use crate::support::*;
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::desks::UsbRequest;
use wordjudge_station::kiosk::flow::{Key, Screen};

fn menu(rig: &mut Rig<wordjudge_station::desks::fake::FakeStation>) {
    open_pin(rig);
    enter_pin(rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
}

/// Joins with the fake's fleet stick: the visit's status and detail lines.
fn visit(rig: &mut Rig<wordjudge_station::desks::fake::FakeStation>) -> (String, String) {
    select_menu(rig, "Join the event's fleet");
    let requests = rig.station.usb_requests().len();
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Join the event's fleet with FAKE (sdb1, FAT32)?");
    assert_eq!(rig.station.usb_requests().len(), requests, "the stick is not touched before the confirmation");
    confirm(rig);
    rig.advance(50);
    let v = rig.view();
    assert_eq!(v.menu.title, "Join the event's fleet — FAKE (sdb1, FAT32)");
    (v.usb.status, v.usb.detail)
}

#[test]
fn a_station_joins_in_two_visits_and_may_leave_with_a_second_enter() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[]);
    menu(&mut rig);
    select_menu(&mut rig, "USB stick");
    rig.key(Key::Enter);
    assert!(
        rig.view().menu.items.iter().any(|i| i == "Join the event's fleet with FAKE (sdb1, FAT32)"),
        "{:?}",
        rig.view().menu.items
    );
    rig.key(Key::Escape);
    select_menu(&mut rig, "Event fleet");
    rig.key(Key::Enter);
    assert!(!rig.view().menu.items.iter().any(|i| i.starts_with("Leave the fleet")), "in no fleet: nothing to leave");
    assert!(
        rig.view().menu.lines.iter().any(|l| l.contains("plug in the event's fleet stick")),
        "{:?}",
        rig.view().menu.lines
    );

    let (status, detail) = visit(&mut rig);
    assert_eq!(status, "Station key code 3F9A-0C21-77DE-B410. You may remove the stick: take it to the laptop.");
    assert!(
        detail.contains("request (table-3) is on the stick")
            && detail.contains("Sign it on the event's laptop when it shows the same station key code"),
        "{detail}"
    );
    assert!(
        detail.starts_with("The stick is for Nationals 2026, whose fingerprint is abab-abab-abab-abab"),
        "the event's CA, for the director to compare: {detail}"
    );
    rig.key(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Director(_)), "any key returns to the menu");

    let (status, detail) = visit(&mut rig);
    assert_eq!(status, "Joined the fleet of Nationals 2026. You may remove the stick.");
    assert!(detail.contains("sends its record") && detail.contains("the event's laptop (192.168.10.2)"), "{detail}");
    rig.key(Key::Escape);
    assert_eq!(
        rig.station.usb_requests(),
        [&UsbRequest::JoinFleet { device: "sdb1".into() }, &UsbRequest::JoinFleet { device: "sdb1".into() }]
    );

    // Joined: a third visit changes nothing; the menu offers to leave.
    let (status, _) = visit(&mut rig);
    assert_eq!(status, "Already in the fleet of Nationals 2026. You may remove the stick.");
    rig.key(Key::Enter);
    select_menu(&mut rig, "Leave the fleet of Nationals 2026");
    let join = "To join, plug in the event's fleet stick and open USB stick on the first page.";
    assert!(
        !rig.view().menu.lines.iter().any(|l| l == join),
        "no way to join while in a fleet: {:?}",
        rig.view().menu.lines
    );
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Leave the fleet of Nationals 2026?");
    assert!(rig.station.fleet.is_some(), "one ENTER leaves nothing");
    rig.advance(1000);
    rig.key(Key::Down);
    assert_eq!(rig.view().menu.message, "Nothing was changed.");
    assert!(rig.station.fleet.is_some(), "another key keeps the fleet");
    select_menu(&mut rig, "Leave the fleet of Nationals 2026");
    rig.key(Key::Enter);
    confirm(&mut rig);
    assert_eq!(
        rig.view().menu.message,
        "Left the fleet of Nationals 2026: this station sends nothing now, and its fleet key is gone."
    );
    assert_eq!(rig.station.fleet, None);
    assert!(rig
        .station
        .records
        .iter()
        .any(|r| matches!(r, FakeRecord::FleetLeft { event } if event == "Nationals 2026")));
    assert!(!rig.view().menu.items.iter().any(|i| i.starts_with("Leave the fleet")));
    assert!(rig.view().menu.lines.iter().any(|l| l == join), "how to join, once left: {:?}", rig.view().menu.lines);
}

#[test]
fn a_refused_stick_says_why_and_that_nothing_changed() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[]);
    rig.station.usb_fail_next = Some("the stick was removed while it was being read".into());
    menu(&mut rig);
    let (status, detail) = visit(&mut rig);
    assert_eq!(status, "The stick could not be used.");
    assert!(detail.contains("The station's fleet settings are unchanged."), "{detail}");
    assert_eq!(rig.station.fleet, None);
}
