//! The director's path and a challenger's miscount under real hands (issue
//! 30), on the fake station: the first PIN, a refused extra word before TAB,
//! a stick swapped under the menu's cursor, a damaged card held for the
//! director.

use crate::support::{choose, enter_pin, leave_menu, open_pin, select_menu, Rig, PIN};
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::kiosk::flow::{Key, MenuItem, Screen};
use wordjudge_station::kiosk::view::ScreenKind;

#[test]
fn a_refused_extra_word_makes_tab_ask_before_it_judges() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("2qi za j");
    assert!(rig.hint().contains("not added"), "{}", rig.hint());
    rig.key(Key::Tab);
    assert!(matches!(rig.screen(), Screen::Entry(_)), "the first TAB judges nothing");
    assert!(rig.station.adjudications().is_empty());
    let hint = rig.hint();
    assert!(
        hint.contains("3rd word started") && hint.contains("press 3") && hint.contains("TAB again to judge 2"),
        "{hint}"
    );
    rig.key(Key::Tab);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "TAB again judges the 2 words");
    assert!(rig.verdict().0);

    // Pressing the count adds the word instead.
    rig.key(Key::Enter);
    rig.advance(600);
    rig.key(Key::Enter);
    rig.keys("2qi za j");
    rig.key(Key::Tab);
    assert!(rig.hint().contains("press 3"), "{}", rig.hint());
    rig.keys("3");
    rig.keys("zebra");
    assert_eq!(rig.words(), vec!["QI", "ZA", "ZEBRA"]);
    rig.key(Key::Tab);
    let Screen::Verdict(verdict) = rig.screen() else { panic!("{:?}", rig.screen()) };
    assert_eq!(verdict.words, vec!["QI", "ZA", "ZEBRA"], "the third word is judged too");
}

#[test]
fn a_challenge_with_no_refused_word_judges_at_the_first_tab() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("2qi za ");
    rig.key(Key::Tab);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "no question without a refused letter");
}

#[test]
fn the_first_pin_is_worded_for_a_first_pin_and_checks_its_rule_at_once() {
    let mut rig = Rig::fake("SMALL");
    rig.station.pin = None;
    rig.station.fresh = true;
    rig.key(Key::DirectorChord);
    let edit = rig.view().edit;
    assert_eq!(edit.title, "Set the director PIN");
    assert!(edit.prompt.contains("no director PIN yet"), "{}", edit.prompt);
    assert!(edit.footer.contains("Ctrl+Alt+Shift+D") && !edit.footer.contains("back to the menu"), "{}", edit.footer);
    rig.keys("12");
    rig.key(Key::Enter);
    assert!(
        rig.view().edit.message.contains("4 to 12 digits"),
        "refused at the first entry: {}",
        rig.view().edit.message
    );
    assert!(rig.view().edit.prompt.contains("choose one"), "still the first entry");
    rig.keys("13579");
    rig.key(Key::Enter);
    assert!(rig.view().edit.prompt.contains("again"), "{}", rig.view().edit.prompt);
    rig.keys("13570");
    rig.key(Key::Enter);
    let view = rig.view().edit;
    assert!(view.message.contains("differ") && view.message.contains("Start again"), "{}", view.message);
    assert!(view.prompt.contains("choose one"), "the prompt says the same step the message does: {}", view.prompt);
    rig.keys("13579");
    rig.key(Key::Enter);
    rig.keys("13579");
    rig.key(Key::Enter);
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert_eq!(rig.station.pin.as_deref(), Some("13579"));
}

#[test]
fn a_stick_swapped_under_the_cursor_never_puts_enter_on_another_action() {
    let mut rig = Rig::fake("SMALL");
    rig.station.plug_update("sdb1", "u.raucb", "0.2.0", "0.1.0");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Install update");
    // The stick is pulled and another plugged in before the next tick.
    rig.station.sticks.clear();
    rig.station.update_offer = None;
    rig.station.plug("sdc1", &[]);
    rig.advance(1500);
    let Screen::Director(menu) = rig.screen() else { panic!("{:?}", rig.screen()) };
    assert_eq!(
        (menu.selected, &menu.items[0]),
        (0, &MenuItem::Back),
        "the cursor is on the page's harmless first entry"
    );
    let message = rig.view().menu.message;
    assert!(message.contains("Install update") && message.contains("no longer offered"), "{message}");
    rig.key(Key::Enter);
    assert!(rig.station.usb_requests().is_empty(), "nothing was exported or imported");
    assert!(rig.station.update_requests().is_empty());
}

#[test]
fn a_stick_plugged_in_keeps_the_cursor_on_its_item() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Rename the station");
    rig.station.plug("sdb1", &[]);
    rig.advance(1500);
    let Screen::Director(menu) = rig.screen() else { panic!() };
    assert_eq!(menu.items[menu.selected], MenuItem::SetStationName, "the cursor follows its item");
    assert!(rig.view().menu.message.is_empty());
}

#[test]
fn a_damaged_card_is_held_until_the_director_restores_it() {
    let mut rig = Rig::fake("SMALL");
    rig.station.held = true;
    rig.kiosk = wordjudge_station::kiosk::flow::Kiosk::new(&rig.station, &Default::default());
    assert_eq!(rig.screen(), &Screen::OutOfService);
    assert_eq!(rig.view().service.detail, "Its settings are damaged.");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().menu.items[0], "Restore the last good settings");
    choose(&mut rig, "Restore");
    assert!(rig.station.records.contains(&FakeRecord::SettingsRestored));
    leave_menu(&mut rig);
    assert!(matches!(rig.screen(), Screen::Ready { .. }), "{:?}", rig.screen());
    rig.keys("1za");
    rig.key(Key::Tab);
    assert!(matches!(rig.screen(), Screen::Verdict(_)));
}
