//! The director's screens on the fake station: the PIN and its lockout, the
//! menu (switching lexicons and profiles, settings, power actions), and what
//! no screen may show (paths, shell commands).

use crate::support::{
    choose, confirm, enter_pin, fake_station, is_ready, leave_menu, menu_home, open_pin, select_menu, Rig, PIN,
};
use wordjudge_core::config::Timeouts;
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::desks::prelude::*;
use wordjudge_station::desks::{DirectorEvent, SystemAction, Warning};
use wordjudge_station::kiosk::flow::{Key, MenuItem, MenuPage, Screen, CONFIRM_SETTLE};
use wordjudge_station::kiosk::view::ScreenKind;

#[test]
fn director_pin_success_failure_and_lockout() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("1");
    rig.key(Key::DirectorChord);
    assert!(matches!(rig.screen(), Screen::Entry(_)), "the chord works only on Ready");
    rig.key(Key::Escape);
    open_pin(&mut rig);
    assert_eq!(rig.view().pin.prompt, "type the PIN", "an empty prompt asks for the PIN");
    rig.keys("12");
    assert_eq!(rig.view().pin.dots, "●●", "the PIN is never shown");
    assert_eq!(rig.view().pin.prompt, "");
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()));
    open_pin(&mut rig);
    enter_pin(&mut rig, "1111");
    assert!(rig.view().pin.message.contains("2 attempts left"), "{}", rig.view().pin.message);
    enter_pin(&mut rig, "2222");
    assert!(rig.view().pin.message.contains("1 attempt left"), "{}", rig.view().pin.message);
    // Leaving and coming back does not reset the count.
    rig.key(Key::Escape);
    open_pin(&mut rig);
    enter_pin(&mut rig, "3333");
    assert!(rig.view().pin.message.contains("Locked"), "{}", rig.view().pin.message);
    rig.advance(1_000);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "locked: even the right PIN is refused");
    assert!(rig.view().pin.message.contains("Try again in"), "{}", rig.view().pin.message);
    rig.key(Key::Escape);
    rig.advance(29_500);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)), "after 30 s the right PIN opens the menu");
    let events: Vec<&DirectorEvent> = rig
        .station
        .records
        .iter()
        .filter_map(|r| if let FakeRecord::Director(e) = r { Some(e) } else { None })
        .collect();
    assert_eq!(
        events,
        [
            &DirectorEvent::PinRefused { failures: 1 },
            &DirectorEvent::PinRefused { failures: 2 },
            &DirectorEvent::PinRefused { failures: 3 },
            &DirectorEvent::LockedOut { seconds: 30 },
            &DirectorEvent::PinAccepted,
        ]
    );
}

#[test]
fn a_lexicon_switch_names_the_change_and_only_a_settled_enter_makes_it() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let Screen::Director(home) = rig.screen() else { panic!() };
    assert_eq!((home.page, home.selected), (MenuPage::Home, 0), "the menu opens on its first page, first entry");
    assert_eq!(home.items[0], MenuItem::Open(MenuPage::Status), "which changes nothing");
    select_menu(&mut rig, "Use BROKEN ");
    rig.key(Key::Enter);
    assert!(rig.view().menu.message.starts_with("Not switched: BROKEN is Corrupt"), "{}", rig.view().menu.message);
    assert_eq!(rig.kiosk.lexicon().id, "SMALL", "a lexicon that cannot judge is not offered as a change");
    select_menu(&mut rig, "Use SMALL ");
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "SMALL is already in use: nothing to change.");
    select_menu(&mut rig, "Use OTHER ");
    rig.key(Key::Enter);
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::Confirm);
    assert_eq!(v.confirm.question, "Switch from SMALL to OTHER?");
    assert_eq!(v.confirm.keys, "ENTER: switch · ESC: keep SMALL");
    // A double-tapped ENTER is not a decision; ESC keeps things as they are.
    rig.key(Key::Enter);
    assert_eq!(rig.view().screen, ScreenKind::Confirm, "the second of a double-tap is ignored");
    rig.key(Key::Escape);
    assert_eq!(rig.view().menu.message, "Nothing was changed.");
    assert_eq!(rig.view().menu.selected, 0, "back on the page's first entry");
    assert_eq!(rig.kiosk.lexicon().id, "SMALL");
    // Any other key keeps things as they are too.
    for key in [Key::Down, Key::Char('1'), Key::Tab, Key::Backspace, Key::DirectorChord] {
        select_menu(&mut rig, "Use OTHER ");
        rig.key(Key::Enter);
        rig.advance(CONFIRM_SETTLE.as_millis() as u64);
        rig.key(key);
        assert_eq!(rig.kiosk.lexicon().id, "SMALL", "{key:?} keeps SMALL");
        assert_eq!(rig.view().menu.message, "Nothing was changed.", "{key:?}");
    }
    select_menu(&mut rig, "Use OTHER ");
    rig.key(Key::Enter);
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "Now judging with OTHER (Verified).");
    assert_eq!(rig.view().menu.selected, 0, "the cursor is back on the first entry, never on another lexicon");
    assert!(
        rig.view().menu.items.iter().any(|i| i.starts_with("Use OTHER") && i.ends_with("◀ active")),
        "{:?}",
        rig.view().menu.items
    );
    let switched: Vec<&FakeRecord> = rig
        .station
        .records
        .iter()
        .filter(|r| matches!(r, FakeRecord::Switched { .. } | FakeRecord::SwitchRefused { .. }))
        .collect();
    assert_eq!(
        switched,
        [&FakeRecord::SwitchRefused { to: "BROKEN".into() }, &FakeRecord::Switched { to: "OTHER".into() }],
        "the refused choice and the one switch made, one record each"
    );
    leave_menu(&mut rig);
    assert!(rig.challenge(&["xyzzy"]).0, "in effect at once");
}

#[test]
fn a_burst_of_enter_on_a_lexicon_row_never_confirms_the_switch() {
    // ENTER pressed and released every 30 ms for 3 s (a stuck key, a macro,
    // a player leaning on the keyboard): each press is fresh, none follows
    // the quiet a decision needs, so the switch it opened is never made.
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Use OTHER ");
    for _ in 0..100 {
        rig.key(Key::Enter);
        rig.event(wordjudge_station::kiosk::flow::Event::Release(Key::Enter));
        rig.advance(30);
    }
    assert_eq!(rig.view().screen, ScreenKind::Confirm, "still asking");
    assert_eq!(rig.kiosk.lexicon().id, "SMALL", "the burst switched nothing");
    assert!(!rig.station.records.iter().any(|r| matches!(r, FakeRecord::Switched { .. })));
    // After the burst, quiet, then one deliberate press: switched, once.
    rig.advance(CONFIRM_SETTLE.as_millis() as u64);
    rig.key(Key::Enter);
    assert_eq!(rig.kiosk.lexicon().id, "OTHER");
    let switched = rig.station.records.iter().filter(|r| matches!(r, FakeRecord::Switched { .. })).count();
    assert_eq!(switched, 1);
}

#[test]
fn a_stray_enter_after_a_stick_result_lands_on_back_and_changes_nothing() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug("sdb1", &[("CSW15.txt", "CSW15")]);
    choose(&mut rig, "Export the audit log to");
    rig.advance(300);
    assert!(matches!(rig.screen(), Screen::Usb(_)), "{:?}", rig.screen());
    let before = (rig.station.lexicon().id, rig.station.profile.map(|p| p.id));
    rig.key(Key::Enter);
    let Screen::Director(page) = rig.screen() else { panic!("{:?}", rig.screen()) };
    assert_eq!((page.page, page.selected, &page.items[0]), (MenuPage::Usb, 0, &MenuItem::Back));
    for _ in 0..5 {
        rig.key(Key::Enter);
    }
    assert_eq!(
        (rig.station.lexicon().id, rig.station.profile.map(|p| p.id)),
        before,
        "five more ENTERs change nothing"
    );
}

#[test]
fn reboot_and_power_off_are_offered_only_on_the_appliance() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let items = rig.view().menu.items.join("\n");
    assert!(!items.contains("Restart") && !items.contains("Power off"), "a desktop never offers them: {items}");
    assert!(rig.station.system(SystemAction::PowerOff).is_err(), "and the fake refuses them too");

    let mut station = fake_station("SMALL");
    station.appliance = true;
    let mut rig = Rig::with(station, &Timeouts::default());
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Power off");
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Power off the station?");
    assert!(!rig.station.records.contains(&FakeRecord::System(SystemAction::PowerOff)), "asks first");
    confirm(&mut rig);
    assert!(rig.station.records.contains(&FakeRecord::System(SystemAction::PowerOff)));
    assert_eq!(rig.view().menu.message, "Powering off now: unplug the station once its screen is dark.");
    // A restart says what players meet meanwhile, never a bare "Done."
    select_menu(&mut rig, "Restart");
    rig.key(Key::Enter);
    confirm(&mut rig);
    assert!(rig.station.records.contains(&FakeRecord::System(SystemAction::Reboot)));
    assert_eq!(
        rig.view().menu.message,
        "Restarting now: players cannot judge until the station is back (about a minute)."
    );
}

#[test]
fn director_menu_closes_after_idle_and_offers_quit_only_when_allowed() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(!rig.view().menu.items.iter().any(|i| i.contains("Quit")));
    rig.advance(59_000);
    rig.key(Key::Down);
    rig.advance(59_000);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    rig.advance(1_000);
    assert!(is_ready(rig.screen()), "60 s idle closes director mode");

    let mut station = fake_station("SMALL");
    station.allow_quit = true;
    let mut rig = Rig::with(station, &Timeouts::default());
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Quit");
    rig.key(Key::Enter);
    assert!(!rig.kiosk.quit_requested(), "asks for confirmation");
    confirm(&mut rig);
    assert!(rig.kiosk.quit_requested());
}

/// Opens the director menu and moves to the item starting with `prefix`.
fn director_at(rig: &mut Rig<wordjudge_station::desks::fake::FakeStation>, prefix: &str) {
    if !matches!(rig.screen(), Screen::Director(_)) {
        open_pin(rig);
        enter_pin(rig, PIN);
    }
    select_menu(rig, prefix);
}

#[test]
fn the_director_changes_the_pin_with_the_old_one_and_the_new_one_twice() {
    let mut rig = Rig::fake("SMALL");
    director_at(&mut rig, "Change the director PIN");
    rig.key(Key::Enter);
    assert_eq!(rig.view().screen, ScreenKind::Edit);
    assert_eq!(rig.view().edit.prompt, "type the current PIN");
    enter_pin(&mut rig, "9999");
    enter_pin(&mut rig, "13579");
    enter_pin(&mut rig, "13579");
    assert_eq!(rig.view().confirm.question, "Change the director PIN?");
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "Not changed: the old PIN is wrong");
    assert!(!rig.station.records.contains(&FakeRecord::PinChanged));
    select_menu(&mut rig, "Change the director PIN");
    rig.key(Key::Enter);
    enter_pin(&mut rig, PIN);
    rig.keys("12a");
    assert_eq!(rig.view().edit.message, "A PIN is digits only.");
    assert_eq!(rig.view().edit.value, "●●", "the PIN is never shown");
    rig.key(Key::Backspace);
    rig.key(Key::Backspace);
    enter_pin(&mut rig, "13579");
    enter_pin(&mut rig, "13570");
    assert_eq!(
        rig.view().edit.message,
        "The two PINs differ, so nothing was set. Start again: type the new PIN, then once more to confirm."
    );
    assert_eq!(
        rig.view().edit.prompt,
        "type the new PIN (4 to 12 digits)",
        "the prompt is at the step the message names"
    );
    enter_pin(&mut rig, "13579");
    enter_pin(&mut rig, "13579");
    rig.key(Key::Escape);
    assert_eq!(rig.view().menu.message, "Nothing was changed.", "ESC on the confirmation keeps the old PIN");
    assert_eq!(rig.station.pin.as_deref(), Some(PIN));
    select_menu(&mut rig, "Change the director PIN");
    rig.key(Key::Enter);
    enter_pin(&mut rig, PIN);
    enter_pin(&mut rig, "13579");
    enter_pin(&mut rig, "13579");
    confirm(&mut rig);
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert_eq!(rig.view().menu.message, "The director PIN is changed.");
    assert!(rig.station.records.contains(&FakeRecord::PinChanged));
    leave_menu(&mut rig);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "the old PIN no longer opens the menu");
    enter_pin(&mut rig, "13579");
    assert!(matches!(rig.screen(), Screen::Director(_)), "the new one does");
}

#[test]
fn the_director_renames_the_station_and_escape_changes_nothing() {
    let mut rig = Rig::fake("SMALL");
    director_at(&mut rig, "Rename the station");
    rig.key(Key::Enter);
    assert_eq!(rig.view().edit.value, "Table 3", "starts from the current name");
    assert!(rig.view().edit.footer.starts_with("Type to replace it"), "{}", rig.view().edit.footer);
    rig.keys("X");
    assert_eq!(rig.view().edit.value, "X", "the first key replaces the prefilled name whole");
    rig.key(Key::Escape);
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert_eq!(rig.view().menu.selected, 0, "back on the page's first entry");
    assert_eq!(rig.station.station_name, "Table 3", "ESC changes nothing");
    select_menu(&mut rig, "Rename the station");
    rig.key(Key::Enter);
    for _ in 0.."Table 3".len() {
        rig.key(Key::Backspace);
    }
    rig.key(Key::Enter);
    assert!(rig.view().edit.message.starts_with("Not changed: station_name must have"), "{}", rig.view().edit.message);
    rig.keys("Hall B, table 7");
    rig.key(Key::Enter);
    assert_eq!(
        rig.view().confirm.question,
        "Rename the station from \u{201c}Table 3\u{201d} to \u{201c}Hall B, table 7\u{201d}?"
    );
    assert_eq!(rig.station.station_name, "Table 3", "asks first");
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "The station name is saved.");
    assert_eq!(rig.view().bar.station_name, "Hall B, table 7", "shown on every screen");
}

#[test]
fn the_director_sets_the_clock_on_the_appliance_only() {
    let mut station = fake_station("SMALL");
    station.appliance = true;
    let mut rig = Rig::with(station, &Timeouts::default());
    director_at(&mut rig, "Set the date and time");
    rig.key(Key::Enter);
    // It starts from the station's own reading, in its zone.
    assert_eq!(rig.view().edit.value, "2026-11-22 14:05");
    let prompt = rig.view().edit.prompt;
    assert!(prompt.contains("Europe/London") && prompt.contains("the audit log keeps UTC"), "{prompt}");
    rig.keys("2026-13-40 25:00");
    rig.key(Key::Enter);
    assert!(rig.view().edit.message.contains("is not a date and time"), "{}", rig.view().edit.message);
    for _ in 0.."2026-13-40 25:00".len() {
        rig.key(Key::Backspace);
    }
    rig.keys("2026-11-23 14:05x");
    assert_eq!(rig.view().edit.message, "Digits, - : and a space only.");
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Set the date and time to 2026-11-23 14:05?");
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "The clock is set.");
    assert!(rig.station.records.contains(&FakeRecord::ClockSet { to: "2026-11-23T14:05:00".into() }));

    let mut rig = Rig::fake("SMALL");
    director_at(&mut rig, "Set the date and time");
    rig.key(Key::Enter);
    rig.keys("2026-11-23 14:05");
    rig.key(Key::Enter);
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "Not changed: only the appliance sets the system clock");
}

#[test]
fn the_director_chooses_the_time_zone_by_name_and_confirms_it() {
    let mut rig = Rig::fake("SMALL");
    director_at(&mut rig, "Time zone: Europe/London");
    rig.key(Key::Enter);
    assert_eq!(rig.view().edit.title, "Set the time zone");
    assert_eq!(rig.view().edit.value, "Europe/London", "it starts from the zone in force");
    rig.keys("Mars/Olympus");
    rig.key(Key::Enter);
    assert!(
        rig.view().edit.message.contains("is not in this station's time zone database"),
        "{}",
        rig.view().edit.message
    );
    for _ in 0.."Mars/Olympus".len() {
        rig.key(Key::Backspace);
    }
    rig.keys("..");
    assert_eq!(rig.view().edit.message, "Letters, digits and / _ - + only.", "no dots: no way out of the database");
    rig.keys("Asia/Kolkata");
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Show the station's times in Asia/Kolkata?");
    assert!(rig.view().confirm.detail.contains("Now Europe/London") && rig.view().confirm.detail.contains("UTC"));
    assert_eq!(rig.station.time_zone, "Europe/London", "asks first");
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, "The time zone is set: the station shows its times in it.");
    assert!(rig.station.records.contains(&FakeRecord::TimeZoneSet { to: "Asia/Kolkata".into() }));
    assert!(rig.view().menu.items.iter().any(|i| i == "Time zone: Asia/Kolkata"), "{:?}", rig.view().menu.items);
}

/// A fake station with CSW24, NWL2023, NWL2020 and OSPD4+MW11 installed, on
/// which the director chose `profile` with `edition` from the menu.
fn profile_rig(profile: &str, edition: &str) -> Rig<wordjudge_station::desks::fake::FakeStation> {
    let mut station = fake_station("SMALL");
    station.lexicons.push(wordjudge_station::desks::fake::FakeLexicon::usable("CSW24", "cat dog qi za zebra xu"));
    station.lexicons.push(wordjudge_station::desks::fake::FakeLexicon::usable("NWL2023", "cat dog qi za zebra ok"));
    station.lexicons.push(wordjudge_station::desks::fake::FakeLexicon::usable("NWL2020", "cat dog qi za zebra"));
    station
        .lexicons
        .push(wordjudge_station::desks::fake::FakeLexicon::usable("OSPD4+MW11", "cat dog zebra abandonment"));
    station.profiles = wordjudge_core::profile::BUILT_IN.iter().collect();
    let mut rig = Rig::with(station, &Timeouts::default());
    let name = wordjudge_core::profile::find(profile).unwrap().name;
    director_at(&mut rig, &format!("Profile: {name} — {edition}"));
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, format!("Use the profile {name}?"));
    confirm(&mut rig);
    assert_eq!(rig.view().menu.message, format!("Profile {name}: now judging with {edition} (Verified)."));
    leave_menu(&mut rig);
    rig
}

#[test]
fn profiles_switch_the_lexicon_and_word_each_rules_consequence() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("NASPA-NWL", "NWL2023", &["cat", "ok"], "The play stands: the challenger loses the turn."),
        ("NASPA-NWL", "NWL2023", &["cat", "xu"], "The play comes off the board."),
        ("NASPA-NWL", "NWL2020", &["cat", "ok"], "The play comes off the board."),
        ("NASPA-CSW-5", "CSW24", &["cat", "xu"], "The play stands: +10 to the player: 2 words × 5"),
        ("NASPA-CSW-10", "CSW24", &["xu"], "The play stands: +10 to the player: 1 word × 10"),
        ("WESPA-CSW", "CSW24", &["cat", "dog", "xu"], "The play stands: +15 to the player: 3 words × 5"),
        ("WESPA-CSW", "CSW24", &["cat", "ok"], "The play comes off the board."),
        ("SCHOOL", "OSPD4+MW11", &["abandonment"], "The play stands: the challenging team loses its turn."),
        ("SCHOOL", "OSPD4+MW11", &["za"], "The play comes off the board."),
    ];
    for (profile, edition, words, line) in cases {
        let mut rig = profile_rig(profile, edition);
        assert_eq!(rig.view().bar.lexicon_id, *edition, "{profile}");
        rig.challenge(words);
        assert_eq!(rig.view().verdict.consequence, *line, "{profile} {words:?}");
        let records = &rig.station.records;
        let switched = records.iter().position(|r| *r == FakeRecord::Switched { to: edition.to_string() }).unwrap();
        assert_eq!(records[switched + 1], FakeRecord::ProfileSwitched { to: profile.to_string() });
    }
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["cat"]);
    assert_eq!(rig.view().verdict.consequence, "", "no profile, no rule shown");
}

/// Issue 55, item 9: Ready shows the event's rule before the challenge,
/// the same rule the verdict's consequence line then applies; none without
/// a profile.
#[test]
fn ready_shows_the_event_rule_before_the_challenge() {
    for (profile, edition, rule) in [
        ("NASPA-NWL", "NWL2023", "Event rule: double challenge. If the play stands, the challenger loses the turn."),
        ("NASPA-CSW-5", "CSW24", "Event rule: if the play stands, the player gets 5 points for each word challenged."),
        (
            "NASPA-CSW-10",
            "CSW24",
            "Event rule: if the play stands, the player gets 10 points for each word challenged.",
        ),
        ("SCHOOL", "OSPD4+MW11", "Event rule: if the play stands, the challenging team loses its turn."),
    ] {
        let mut rig = profile_rig(profile, edition);
        assert_eq!(rig.view().screen, ScreenKind::Ready, "{profile}");
        assert_eq!(rig.view().ready.rule, rule, "{profile}");
        rig.challenge(&["cat"]);
        rig.advance(60_000);
        assert_eq!(rig.view().screen, ScreenKind::Ready, "{profile}: the verdict timed out");
        assert_eq!(rig.view().ready.rule, rule, "{profile}: still there after a verdict");
    }
    assert_eq!(Rig::fake("SMALL").view().ready.rule, "", "no profile, no rule shown");
}

#[test]
fn a_profile_switch_names_the_profile_it_ends() {
    let mut rig = profile_rig("NASPA-NWL", "NWL2023");
    let ending = wordjudge_core::profile::find("NASPA-NWL").unwrap().name;
    let name = wordjudge_core::profile::find("NASPA-CSW-5").unwrap().name;
    director_at(&mut rig, &format!("Profile: {name} — CSW24"));
    rig.key(Key::Enter);
    let v = rig.view();
    assert_eq!(v.confirm.question, format!("Use the profile {name}?"));
    assert!(v.confirm.detail.ends_with(&format!("The profile {ending} ends.")), "{}", v.confirm.detail);
}

#[test]
fn the_second_opinion_gives_one_verdict_and_never_the_word() {
    let mut rig = profile_rig("NASPA-NWL-CHANGEOVER", "NWL2023");
    let (ok, _) = rig.challenge(&["zebra", "ok", "cat"]);
    assert!(ok, "NWL2023 has OK");
    let v = rig.view();
    assert_eq!(v.verdict.second, "NWL2020 would say: UNACCEPTABLE");
    let shown = format!("{v:?}");
    assert_eq!(shown.matches("OK").count(), 1, "OK appears only among the words judged: {shown}");
    assert!(v.verdict.words.contains("OK"));
    rig.advance(600);
    rig.key(Key::Enter);
    rig.challenge(&["cat"]);
    assert_eq!(rig.view().verdict.second, "NWL2020 would say: ACCEPTABLE");
    // A second lexicon that cannot judge says so rather than guessing.
    rig.station.lexicons.retain(|l| l.id != "NWL2020");
    rig.advance(600);
    rig.key(Key::Enter);
    rig.challenge(&["cat"]);
    assert!(rig.view().verdict.second.starts_with("NWL2020 cannot judge here"), "{}", rig.view().verdict.second);
}

#[test]
fn a_lexicon_switch_away_from_the_profile_drops_its_rule_line_and_missing_profiles_say_why() {
    let mut rig = profile_rig("SCHOOL", "OSPD4+MW11");
    director_at(&mut rig, "Use DEMO");
    rig.key(Key::Enter);
    let v = rig.view();
    assert_eq!(v.confirm.question, "Switch from OSPD4+MW11 to DEMO?");
    assert!(
        v.confirm.detail.contains("The North American school play rule line will no longer show"),
        "{}",
        v.confirm.detail
    );
    confirm(&mut rig);
    let message = rig.view().menu.message;
    assert!(
        message.starts_with("Now judging with DEMO") && message.contains("no challenge rule is shown"),
        "{message}"
    );
    assert!(rig.station.records.contains(&FakeRecord::ProfileCleared));
    assert!(
        !rig.view().menu.items.iter().any(|i| i.contains("◀ active") && i.starts_with("Profile")),
        "no profile active"
    );
    leave_menu(&mut rig);
    rig.challenge(&["cat"]);
    let v = rig.view();
    assert!(
        v.bar.demo && v.verdict.consequence.is_empty(),
        "no School rule under a DEMO verdict: {:?}",
        v.verdict.consequence
    );
    // No school word list is left on this station: its profile says so in the list.
    rig.station.lexicons.retain(|l| l.id != "OSPD4+MW11");
    rig.advance(600);
    rig.key(Key::Enter);
    director_at(&mut rig, "Profile: North American school");
    let item = rig.view().menu.items[rig.view().menu.selected as usize].clone();
    assert_eq!(item, "Profile: North American school play — unavailable: no school word list is installed");
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Not switched: North American school play: no school word list is installed");
    let available = rig.view().menu.items.iter().find(|i| i.starts_with("Profile: NASPA CSW, 5")).cloned().unwrap();
    assert_eq!(available, "Profile: NASPA CSW, 5 points per word — CSW24");
}

#[test]
fn a_fresh_station_asks_for_a_director_pin_and_a_damaged_one_never_does() {
    let mut station = fake_station("SMALL");
    station.pin = None;
    station.fresh = true;
    let mut rig = Rig::with(station, &Timeouts::default());
    rig.key(Key::DirectorChord);
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::Edit);
    assert_eq!(v.edit.prompt, "this station has no director PIN yet: choose one of 4 to 12 digits");
    rig.keys("1357");
    rig.key(Key::Enter);
    rig.keys("1358");
    rig.key(Key::Enter);
    assert!(rig.view().edit.message.contains("differ"), "{}", rig.view().edit.message);
    rig.keys("1357");
    rig.key(Key::Enter);
    rig.keys("1357");
    rig.key(Key::Enter);
    assert_eq!(rig.view().screen, ScreenKind::Director, "the new PIN opens the menu");
    assert_eq!(
        rig.view().menu.message,
        "The director PIN is set. Keep it with the event's papers: it opens this menu."
    );
    assert!(rig.station.records.contains(&FakeRecord::PinSet), "recorded");
    rig.key(Key::Escape);
    rig.key(Key::DirectorChord);
    assert_eq!(rig.view().screen, ScreenKind::Pin, "from now on the PIN is asked");
    enter_pin(&mut rig, "1357");
    assert_eq!(rig.view().screen, ScreenKind::Director);
    // Not fresh (a damaged config): no PIN can be set from the station.
    let mut station = fake_station("SMALL");
    station.pin = None;
    let mut rig = Rig::with(station, &Timeouts::default());
    rig.key(Key::DirectorChord);
    enter_pin(&mut rig, "1357");
    let message = rig.view().pin.message;
    assert!(message.contains("cannot be set here") && !message.contains("wordjudge "), "{message}");
}

#[test]
fn the_cursor_stays_on_its_item_when_a_stick_comes_and_goes() {
    let mut rig = Rig::fake("SMALL");
    menu_home(&mut rig);
    select_menu(&mut rig, "Event fleet");
    rig.station.plug("sdb1", &[("CSW15.txt", "CSW15")]);
    rig.advance(1_100);
    let v = rig.view();
    assert!(v.menu.items.iter().any(|i| i == "USB stick"), "{:?}", v.menu.items);
    assert_eq!(v.menu.items[v.menu.selected as usize], "Event fleet", "still on its entry");
    rig.station.sticks.clear();
    rig.advance(1_100);
    let v = rig.view();
    assert_eq!(v.menu.items[v.menu.selected as usize], "Event fleet", "{:?}", v.menu.items);
    // On the stick page, the entry under the cursor going away puts the
    // cursor on Back, with a line that says what went away.
    rig.station.plug("sdb1", &[("CSW15.txt", "CSW15")]);
    rig.advance(1_100);
    select_menu(&mut rig, "Export the audit log to");
    rig.station.sticks.clear();
    rig.advance(1_100);
    let v = rig.view();
    assert_eq!((v.menu.selected, v.menu.items[0].as_str()), (0, "◀ Back"));
    assert!(v.menu.message.contains("is no longer offered"), "{}", v.menu.message);
}

#[test]
fn no_screen_names_a_file_path_or_a_shell_command() {
    let mut station = fake_station("BROKEN");
    station.warnings = vec![
        Warning::Config(wordjudge_core::config::ConfigProblem::Syntax {
            path: "/var/lib/wordjudge/config.toml".into(),
            line: 3,
            column: 1,
            message: "unknown field".into(),
        }),
        Warning::ActiveLexicon("/var/lib/wordjudge/lexicons/CSW15.fst: not installed (install CSW15.txt from a USB stick in the director menu)".into()),
        Warning::AuditLog("cannot write /var/lib/wordjudge/audit/2026-11-25.jsonl: No space left on device".into()),
    ];
    let mut rig = Rig::with(station, &Timeouts::default());
    let mut shown = vec![rig.view()];
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    shown.push(rig.view());
    for v in &shown {
        let text = format!("{v:?}");
        assert!(!text.contains("/var/"), "{text}");
        assert!(!text.contains("wordjudge config") && !text.contains("wordjudge lexicon"), "{text}");
    }
    assert!(
        shown[1].menu.lines.iter().any(|l| l.contains("The settings file is damaged (near line 3)")),
        "{:?}",
        shown[1].menu.lines
    );
    assert_eq!(shown[0].service.detail, "Its settings are damaged.", "players read a short reason in their words");
    for v in &shown {
        let text = format!("{v:?}");
        assert!(!text.contains("config.toml") && !text.contains("unknown field"), "no file or parser message: {text}");
    }
}

#[test]
fn a_pin_lockout_survives_a_restart_and_grows_each_time() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    for _ in 0..3 {
        enter_pin(&mut rig, "0000");
    }
    assert!(rig.view().pin.message.contains("Try again in 30 s"), "{}", rig.view().pin.message);
    rig.advance(10_000);
    // The plug is pulled: a new process over the same station.
    let saved = rig.station.clone();
    let mut rig = Rig::with(saved, &Timeouts::default());
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().screen, ScreenKind::Pin, "still locked after the restart");
    // (The fake keeps the time left as it was saved; the live station keeps
    // the wall-clock end, kiosk_live tests that.)
    assert!(rig.view().pin.message.contains("Try again in 30 s"), "{}", rig.view().pin.message);
    rig.advance(30_000);
    for _ in 0..3 {
        enter_pin(&mut rig, "1111");
    }
    assert!(
        rig.view().pin.message.contains("Try again in 60 s"),
        "the second lockout is longer: {}",
        rig.view().pin.message
    );
    let locked = rig.station.records.iter().filter_map(|r| match r {
        FakeRecord::Director(DirectorEvent::LockedOut { seconds }) => Some(*seconds),
        _ => None,
    });
    assert_eq!(locked.collect::<Vec<_>>(), [30, 60]);
    rig.advance(60_000);
    if rig.view().screen != ScreenKind::Pin {
        open_pin(&mut rig);
    }
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert_eq!(rig.station.pin_guard, Default::default(), "a right PIN clears the guard");
    assert_eq!(
        wordjudge_station::kiosk::flow::pin_lockout(20),
        std::time::Duration::from_secs(3600),
        "at most an hour"
    );
}

#[test]
fn the_director_turns_the_screen_90_degrees_a_confirmation_and_it_waits_for_a_restart() {
    let mut rig = Rig::fake("SMALL");
    director_at(&mut rig, "Screen turned 0°");
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Turn the screen to 90°?");
    assert_eq!(rig.station.rotation, 0, "asks first");
    confirm(&mut rig);
    assert_eq!(rig.station.rotation, 90);
    assert_eq!(rig.view().menu.selected, 0, "back on the page's first entry");
    assert!(
        rig.view().menu.items.contains(&"Screen turned 90° — from the next restart (now 0°)".to_string()),
        "{:?}",
        rig.view().menu.items
    );
    assert_eq!(
        rig.view().menu.message,
        "Screen rotation 90° is saved: it takes effect after a restart (Reboot, or power off and on)."
    );
    for (from, expected) in [(90, 180), (180, 270), (270, 0)] {
        choose(&mut rig, &format!("Screen turned {from}°"));
        assert_eq!(rig.station.rotation, expected);
    }
    assert!(rig.view().menu.items.contains(&"Screen turned 0°".to_string()), "back to the rotation in force");
    assert_eq!(rig.view().menu.message, "Screen rotation 0° is saved: the screen already shows it.");
    let saved: Vec<u16> = rig
        .station
        .records
        .iter()
        .filter_map(|r| if let FakeRecord::RotationSet { to } = r { Some(*to) } else { None })
        .collect();
    assert_eq!(saved, [90, 180, 270, 0], "each confirmed turn saved and recorded");
}

#[test]
fn a_damaged_config_opens_the_menu_on_its_repair_and_nothing_else_repairs_it() {
    let mut station = fake_station("SMALL");
    station.held = true;
    station.warnings.push(Warning::Config(wordjudge_core::config::ConfigProblem::LostSettings {
        path: "/var/lib/wordjudge/config.toml".into(),
        lost: vec!["director_pin_hash", "audit_dir"],
    }));
    let mut rig = Rig::with(station, &Timeouts::default());
    assert_eq!(rig.view().service.detail, "Its settings are damaged.");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let v = rig.view();
    assert_eq!(
        (v.menu.selected, v.menu.items[0].as_str()),
        (0, "Restore the last good settings"),
        "{:?}",
        v.menu.items
    );
    assert!(
        !v.menu.items.iter().any(|i| i.starts_with("Lexicon") || i.starts_with("Station settings")),
        "nothing else saves settings: {:?}",
        v.menu.items
    );
    rig.key(Key::Enter);
    let v = rig.view();
    assert_eq!(v.confirm.question, "Restore the last good settings?");
    assert!(
        v.confirm.detail.starts_with("The director PIN and the audit folder were lost from the settings file."),
        "{}",
        v.confirm.detail
    );
    rig.key(Key::Escape);
    assert!(rig.station.held, "ESC keeps the damage for the director to look at");
    choose(&mut rig, "Restore the last good settings");
    assert!(!rig.station.held);
    assert_eq!(rig.view().menu.message, "The last good settings are restored: players can judge again.");
    assert_eq!(rig.view().menu.selected, 0);
    let changes: Vec<&FakeRecord> = rig
        .station
        .records
        .iter()
        .filter(|r| matches!(r, FakeRecord::SettingsRestored | FakeRecord::Switched { .. }))
        .collect();
    assert_eq!(
        changes,
        [&FakeRecord::SettingsRestored],
        "one record of the restore, never a switch to the lexicon in use"
    );
}

#[test]
fn after_a_restart_ready_shows_the_last_challenge_until_the_next_starts() {
    let mut rig = Rig::fake("SMALL");
    let (_, number) = rig.challenge(&["cat"]);
    // The power is cut while the verdict shows, before the slip was copied.
    let mut rig = Rig::with(rig.station.clone(), &Timeouts::default());
    assert!(is_ready(rig.screen()));
    let slip = rig.view().ready.slip;
    assert!(slip.contains(&format!("#{number:04}")) && slip.contains("FAKE"), "{slip}");
    rig.advance(600_000);
    assert_eq!(rig.view().ready.slip, slip, "it stays until the next challenge starts");
    rig.keys("1");
    rig.key(Key::Escape);
    rig.key(Key::Escape);
    assert_eq!(rig.view().ready.slip, "", "a new challenge takes it off");
}
