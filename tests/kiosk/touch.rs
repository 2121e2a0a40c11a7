//! The flow by touch, without a display: the players' taps on the count
//! buttons, the on-screen keyboard, JUDGE and "slip copied", mixed with the
//! keys and the judge button; the director's corner held, the PIN pad, the
//! menu's rows and Back, and a confirmation's two answers; against the fake
//! station. The window's side (real pointer events on the `.slint`
//! targets) is in `tests/ui_slint.rs`.

use crate::support::{enter_pin, is_ready, open_pin, Rig, PIN};
use wordjudge_core::panel::Trigger;
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::desks::{DirectorEvent, SystemAction};
use wordjudge_station::kiosk::flow::{Event, Key, MenuPage, Screen, CONFIRM_SETTLE, DIRECTOR_HOLD, TAP_SETTLE};
use wordjudge_station::kiosk::view::{view, StationInfo, ViewModel};

impl Rig<wordjudge_station::desks::fake::FakeStation> {
    fn tap(&mut self, key: Key) {
        self.event(Event::Tap(key));
    }
    fn taps(&mut self, text: &str) {
        for c in text.chars() {
            self.tap(Key::Char(c));
        }
    }
    /// The view as a touchscreen station shows it.
    fn touch_view(&self) -> ViewModel {
        let mut info = StationInfo::of(&self.station, &self.kiosk, false);
        info.touch = true;
        view(&self.kiosk, &info, self.now)
    }
    fn last_trigger(&self) -> Option<Trigger> {
        self.station.records.iter().rev().find_map(|r| match r {
            FakeRecord::Adjudicated { trigger, .. } => Some(*trigger),
            _ => None,
        })
    }
}

#[test]
fn a_whole_challenge_by_touch_is_judged_once_and_recorded_as_touch() {
    let mut rig = Rig::fake("SMALL");
    let shown = rig.touch_view();
    assert_eq!(shown.ready.counts, ["1", "2", "3", "4", "5", "6", "7", "8"], "a button a count");
    assert!(shown.ready.instruction.starts_with("Tap"), "{}", shown.ready.instruction);
    rig.tap(Key::Char('2'));
    rig.advance(400);
    let entry = rig.touch_view().entry;
    assert_eq!(entry.letters.concat(), "QWERTYUIOPASDFGHJKLZXCVBNM", "every letter once, QWERTY");
    assert_eq!(
        [entry.judge.as_str(), entry.next_word.as_str(), entry.delete.as_str(), entry.clear.as_str()],
        ["JUDGE", "NEXT WORD", "⌫", "CLEAR"]
    );
    assert!(entry.footer.contains("tap JUDGE"), "{}", entry.footer);
    assert_eq!(entry.keys, "", "the keyboard on screen says what the keys do");
    rig.taps("QI");
    rig.tap(Key::Char(' '));
    rig.taps("ZAX");
    rig.tap(Key::Backspace);
    assert_eq!(rig.words(), ["QI", "ZA"], "the words shown are the words tapped");
    rig.tap(Key::Tab);
    let (acceptable, number) = rig.verdict();
    assert!(acceptable);
    assert_eq!(rig.last_trigger(), Some(Trigger::Touch), "the record says JUDGE was tapped");
    assert_eq!(rig.station.adjudications().len(), 1);
    assert_eq!(rig.touch_view().verdict.copied, "SLIP COPIED");
    // "Slip copied" is ENTER's twin: never before the guard.
    rig.tap(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "a tap at once does not end the verdict");
    rig.advance(600);
    rig.tap(Key::Tab);
    rig.tap(Key::Char('A'));
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "JUDGE or a letter never ends it");
    rig.tap(Key::Enter);
    assert!(is_ready(rig.screen()));
    assert!(rig.touch_view().ready.slip.contains(&format!("#{number:04}")), "the slip stays on Ready");
    assert_eq!(rig.station.adjudications().len(), 1, "one play, one record");
}

#[test]
fn keys_taps_and_the_button_mix_in_any_order_and_judge_what_was_typed() {
    let mut rig = Rig::fake("SMALL");
    rig.key(Key::Char('3'));
    rig.advance(400);
    rig.taps("CA");
    rig.keys("t");
    rig.key(Key::Char(' '));
    rig.taps("DO");
    rig.event(Event::Key(Key::Char('g')));
    // A tap while a key is held down: both count, once each.
    rig.tap(Key::Char(' '));
    rig.event(Event::Release(Key::Char('g')));
    rig.keys("ZEBRA");
    assert_eq!(rig.words(), ["CAT", "DOG", "ZEBRA"]);
    rig.event(Event::JudgeButton);
    assert!(rig.verdict().0);
    assert_eq!(rig.last_trigger(), Some(Trigger::Button));
    rig.advance(600);
    rig.key(Key::Enter);
    rig.tap(Key::Char('1'));
    // Keys need no settling: only taps wait.
    rig.keys("xyz");
    rig.key(Key::Tab);
    assert!(!rig.verdict().0);
    assert_eq!(rig.last_trigger(), Some(Trigger::Keyboard), "TAB is the keyboard's, whatever came before");
}

#[test]
fn taps_act_only_where_a_player_has_targets() {
    let mut rig = Rig::fake("SMALL");
    // On Ready only the counts: a letter, JUDGE, ESC's or the chord's tap do nothing.
    for key in [Key::Char('A'), Key::Tab, Key::Enter, Key::Escape, Key::DirectorChord, Key::Other] {
        rig.tap(key);
        assert!(matches!(rig.screen(), Screen::Ready { hint: None }), "{key:?}: {:?}", rig.screen());
    }
    // On the entry, no count change or arrows by touch.
    rig.tap(Key::Char('2'));
    rig.advance(400);
    rig.taps("QI");
    for key in [Key::Char('3'), Key::Up, Key::DirectorChord, Key::Enter] {
        rig.tap(key);
        assert_eq!(rig.words(), ["QI"], "{key:?}");
        assert!(matches!(rig.screen(), Screen::Entry(e) if e.expected == 2), "{key:?}");
    }
    rig.tap(Key::Char('-'));
    assert_eq!(rig.words(), ["QI"]);
    // The PIN prompt takes its pad (digits, ⌫, OK, Back), nothing else.
    rig.key(Key::Escape);
    rig.key(Key::Escape);
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    open_pin(&mut rig);
    let before = rig.screen().clone();
    for key in [Key::Char('A'), Key::Tab, Key::Char(' '), Key::Up, Key::DirectorChord, Key::Other] {
        rig.tap(key);
        assert_eq!(rig.screen(), &before, "{key:?} on the PIN prompt");
    }
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    // The menu takes rows, Back and the arrows, no other key's twin.
    rig.advance(400);
    let menu = rig.screen().clone();
    for key in [Key::Enter, Key::Tab, Key::Char(' '), Key::Backspace, Key::Char('A'), Key::Char('1'), Key::Other] {
        rig.tap(key);
        assert_eq!(rig.screen(), &menu, "{key:?} moved the menu");
    }
    rig.tap(Key::Down);
    assert!(matches!(rig.screen(), Screen::Director(m) if m.selected == 1), "▼ scrolls: {:?}", rig.screen());
    rig.tap(Key::Up);
    assert!(matches!(rig.screen(), Screen::Director(m) if m.selected == 0), "▲ back: {:?}", rig.screen());
}

#[test]
fn an_out_of_service_station_takes_no_player_tap() {
    let mut rig = Rig::fake("BROKEN");
    assert!(matches!(rig.screen(), Screen::OutOfService));
    for c in "12QI ".chars() {
        rig.tap(Key::Char(c));
    }
    rig.tap(Key::Tab);
    assert!(matches!(rig.screen(), Screen::OutOfService));
    assert!(rig.station.adjudications().is_empty());
}

#[test]
fn a_station_without_touch_shows_no_targets() {
    let mut rig = Rig::fake("SMALL");
    assert!(rig.view().ready.counts.is_empty());
    rig.key(Key::Char('1'));
    let entry = rig.view().entry;
    assert!(entry.letters.is_empty() && entry.judge.is_empty() && entry.next_word.is_empty());
    assert!(entry.footer.contains("press TAB"), "{}", entry.footer);
    rig.keys("qi");
    rig.key(Key::Tab);
    assert_eq!(rig.view().verdict.copied, "");
}

#[test]
fn the_finger_that_tapped_the_count_types_nothing_until_the_entry_settles() {
    // Where the count buttons were, the keyboard's first row now is: a
    // double tap, or a bounce, on "2" must not type a letter.
    let mut rig = Rig::fake("SMALL");
    rig.tap(Key::Char('2'));
    rig.taps("QW");
    rig.tap(Key::Tab);
    rig.advance(399);
    rig.tap(Key::Char('E'));
    assert_eq!(rig.words(), Vec::<String>::new(), "nothing typed within 400 ms: {:?}", rig.screen());
    rig.advance(1);
    rig.taps("QI");
    assert_eq!(rig.words(), ["QI"]);
    // The keyboard needs no settling.
    let mut rig = Rig::fake("SMALL");
    rig.tap(Key::Char('1'));
    rig.keys("qi");
    assert_eq!(rig.words(), ["QI"]);
}

#[test]
fn clear_asks_before_it_clears_every_word_as_esc_does() {
    let mut rig = Rig::fake("SMALL");
    rig.tap(Key::Char('2'));
    rig.advance(400);
    rig.taps("QI ZA");
    rig.tap(Key::Escape);
    assert_eq!(rig.words(), ["QI"], "one CLEAR clears the word being typed");
    assert!(rig.touch_view().entry.hint.contains("type it again"), "{}", rig.touch_view().entry.hint);
    rig.tap(Key::Escape);
    assert_eq!(rig.words(), ["QI"], "a CLEAR on an empty word asks first");
    let hint = rig.touch_view().entry.hint;
    assert!(hint.contains("Tap CLEAR again") && !hint.contains("ESC"), "{hint}");
    rig.tap(Key::Char('Z'));
    assert_eq!(rig.words(), ["QI", "Z"], "anything else keeps them");
    rig.tap(Key::Escape);
    rig.tap(Key::Escape);
    rig.tap(Key::Escape);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    let hint = rig.touch_view().ready.hint;
    assert!(hint.contains("cancelled") && !hint.contains("ESC"), "{hint}");
    assert!(rig.station.adjudications().is_empty(), "nothing judged");
}

#[test]
fn a_touch_station_names_its_targets_in_every_answer() {
    let mut rig = Rig::fake("SMALL");
    rig.tap(Key::Char('1'));
    rig.advance(400);
    rig.taps("QI ");
    let hint = rig.touch_view().entry.hint;
    assert!(hint.contains("tap JUDGE") && !hint.contains("TAB"), "{hint}");
    rig.taps("Z");
    let hint = rig.touch_view().entry.hint;
    assert!(hint.contains("CLEAR twice") && !hint.contains("press 2"), "{hint}");
    rig.tap(Key::Tab);
    let hint = rig.touch_view().entry.hint;
    assert!(hint.contains("JUDGE again") && !hint.contains("TAB"), "{hint}");
    rig.tap(Key::Tab);
    assert!(rig.verdict().0, "the second JUDGE judges QI");
}

impl Rig<wordjudge_station::desks::fake::FakeStation> {
    /// The director's corner held for `ms`, ticking as the window does.
    fn hold_corner(&mut self, ms: u64) {
        self.event(Event::DirectorHold(true));
        for _ in 0..ms / 250 {
            self.advance(250);
        }
        self.advance(ms % 250);
    }
    /// A tap on the row whose text starts with `prefix` on the page shown.
    fn tap_row(&mut self, prefix: &str) {
        let items = self.touch_view().menu.items;
        let row = items.iter().position(|i| i.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix:?} in {items:?}"));
        self.event(Event::TapRow(row));
    }
    fn tap_pin(&mut self, pin: &str) {
        self.taps(pin);
        self.tap(Key::Enter);
    }
    fn page(&self) -> Option<MenuPage> {
        match self.screen() {
            Screen::Director(menu) => Some(menu.page),
            _ => None,
        }
    }
}

#[test]
fn the_director_opens_the_menu_by_holding_the_corner_and_tapping_the_pin() {
    let mut rig = Rig::fake("SMALL");
    assert!(rig.touch_view().bar.director_hold, "Ready has the corner");
    assert!(!rig.view().bar.director_hold, "a station without touch has none");
    // A tap, a brush or a hold let go early opens nothing.
    let hold = DIRECTOR_HOLD.as_millis() as u64;
    rig.hold_corner(hold - 250);
    rig.event(Event::DirectorHold(false));
    rig.advance(1000);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    // Slid off and back on: the time counts again from the new press.
    rig.hold_corner(hold - 250);
    rig.event(Event::DirectorHold(false));
    rig.hold_corner(hold - 250);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    rig.advance(250);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "held long enough: {:?}", rig.screen());
    rig.event(Event::DirectorHold(false));
    let pin = rig.touch_view().pin;
    assert_eq!(pin.pad.concat(), "123456789⌫0OK");
    assert_eq!(pin.back, "Back");
    rig.taps("2469");
    rig.tap(Key::Backspace);
    rig.tap_pin("8");
    assert!(matches!(rig.screen(), Screen::Director(_)), "{:?}", rig.screen());
    assert_eq!(rig.touch_view().menu.back, "Leave the menu");
    assert!(rig.touch_view().menu.rows_tap);
}

#[test]
fn a_hold_counts_only_on_ready_and_out_of_service() {
    // A count tapped with another finger while the corner is held: the
    // challenge goes on, no PIN prompt opens over it.
    let mut rig = Rig::fake("SMALL");
    rig.event(Event::DirectorHold(true));
    rig.tap(Key::Char('1'));
    rig.advance(DIRECTOR_HOLD.as_millis() as u64 + 1000);
    assert!(matches!(rig.screen(), Screen::Entry(_)), "{:?}", rig.screen());
    // A hold that starts on the entry (the corner is not shown there) does nothing.
    rig.event(Event::DirectorHold(true));
    rig.advance(500);
    rig.key(Key::Escape);
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    rig.advance(DIRECTOR_HOLD.as_millis() as u64);
    assert!(is_ready(rig.screen()), "a hold begun elsewhere opens nothing: {:?}", rig.screen());
    // Out of service has the corner: the director's way to a fix.
    let mut rig = Rig::fake("BROKEN");
    assert!(rig.touch_view().bar.director_hold);
    rig.hold_corner(DIRECTOR_HOLD.as_millis() as u64);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "{:?}", rig.screen());
}

#[test]
fn the_menu_by_touch_reaches_a_page_goes_back_and_confirms_only_a_settled_change() {
    let mut rig = Rig::fake("SMALL");
    rig.station.appliance = true;
    rig.hold_corner(DIRECTOR_HOLD.as_millis() as u64);
    rig.tap_pin(PIN);
    // A row tapped at once, as the page appears, is the PIN's OK bouncing.
    rig.tap_row("Restart or power off");
    assert_eq!(rig.page(), Some(MenuPage::Home), "a row taps nothing before the page settles");
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Restart or power off");
    let page = rig.page().expect("a page");
    assert_ne!(page, MenuPage::Home);
    // Back, twice at once: one page back, never out of the menu.
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap(Key::Escape);
    rig.tap(Key::Escape);
    assert_eq!(rig.page(), Some(MenuPage::Home));
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Restart or power off");
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Power off");
    assert!(matches!(rig.screen(), Screen::Confirm(_)), "{:?}", rig.screen());
    let confirm = rig.touch_view().confirm;
    assert_eq!((confirm.change.as_str(), confirm.keep.as_str()), ("Power off", "Keep as it is"));
    // A double tap's second half, on "change" at once: nothing.
    rig.tap(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Confirm(_)), "{:?}", rig.screen());
    assert!(!rig.station.records.iter().any(|r| matches!(r, FakeRecord::System(_))));
    // "Keep" keeps; the menu says nothing changed.
    rig.tap(Key::Escape);
    assert!(rig.page().is_some(), "{:?}", rig.screen());
    assert!(!rig.station.records.iter().any(|r| matches!(r, FakeRecord::System(_))));
    // A settled "change" makes it, recorded once.
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Power off");
    rig.advance(CONFIRM_SETTLE.as_millis() as u64);
    rig.tap(Key::Enter);
    let powered: Vec<_> = rig.station.records.iter().filter(|r| matches!(r, FakeRecord::System(_))).collect();
    assert_eq!(powered, [&FakeRecord::System(SystemAction::PowerOff)]);
}

#[test]
fn back_leaves_the_menu_from_its_first_page_and_a_row_past_the_end_is_nothing() {
    let mut rig = Rig::fake("SMALL");
    rig.hold_corner(DIRECTOR_HOLD.as_millis() as u64);
    rig.tap_pin(PIN);
    rig.advance(TAP_SETTLE.as_millis() as u64);
    let menu = rig.screen().clone();
    for row in [rig.touch_view().menu.items.len(), 99, usize::MAX] {
        rig.event(Event::TapRow(row));
        assert_eq!(rig.screen(), &menu, "row {row}");
    }
    rig.tap(Key::Escape);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    // Rows mean nothing off the menu: on Ready, the entry, a verdict.
    for row in 0..3 {
        rig.event(Event::TapRow(row));
        assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    }
    rig.tap(Key::Char('1'));
    rig.advance(400);
    rig.taps("QI");
    rig.event(Event::TapRow(0));
    assert_eq!(rig.words(), ["QI"]);
    rig.tap(Key::Tab);
    rig.event(Event::TapRow(0));
    assert!(matches!(rig.screen(), Screen::Verdict(_)));
}

#[test]
fn a_wrong_pin_by_touch_counts_as_one_by_the_keys_does() {
    let mut rig = Rig::fake("SMALL");
    rig.hold_corner(DIRECTOR_HOLD.as_millis() as u64);
    rig.tap_pin("1111");
    assert!(matches!(rig.screen(), Screen::Pin(_)));
    assert!(rig.touch_view().pin.message.contains("2 attempts left"), "{}", rig.touch_view().pin.message);
    let refused = |rig: &Rig<wordjudge_station::desks::fake::FakeStation>| {
        rig.station
            .records
            .iter()
            .filter(|r| matches!(r, FakeRecord::Director(DirectorEvent::PinRefused { .. })))
            .count()
    };
    assert_eq!(refused(&rig), 1, "recorded as a wrong PIN");
    rig.tap(Key::Enter);
    assert_eq!(refused(&rig), 1, "OK on nothing typed is no attempt");
    rig.tap(Key::Escape);
    assert!(is_ready(rig.screen()), "Back leaves the prompt: {:?}", rig.screen());
}

/// The clock, the one text setting a director needs on a station without a
/// keyboard (a Pi has no clock battery): set on the digit pad, which has no
/// dashes, space or colon, so the flow puts them where the form has them;
/// ⌫ takes back one digit; a separator typed on a keyboard is taken as it
/// is. Confirmed by the confirmation's "change", recorded once.
#[test]
fn the_clock_is_set_on_the_digit_pad() {
    let mut rig = Rig::fake("SMALL");
    rig.station.appliance = true;
    rig.hold_corner(DIRECTOR_HOLD.as_millis() as u64);
    rig.tap_pin(PIN);
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Station settings");
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Set the date and time");
    let Screen::Edit(_) = rig.screen() else { panic!("{:?}", rig.screen()) };
    assert_eq!(rig.touch_view().edit.pad.len(), 12, "the digit pad: {:?}", rig.touch_view().edit);
    rig.taps("2027010203");
    rig.tap(Key::Backspace);
    rig.taps("304");
    assert_eq!(rig.touch_view().edit.value, "2027-01-02 03:04", "{:?}", rig.touch_view().edit);
    rig.tap(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Confirm(_)), "{:?}", rig.screen());
    rig.advance(CONFIRM_SETTLE.as_millis() as u64);
    rig.tap(Key::Enter);
    let set: Vec<_> = rig.station.records.iter().filter(|r| matches!(r, FakeRecord::ClockSet { .. })).collect();
    assert_eq!(set, [&FakeRecord::ClockSet { to: "2027-01-02T03:04:00".into() }]);
    // Keys beside the pad: the separators typed are kept, never doubled.
    rig.advance(TAP_SETTLE.as_millis() as u64);
    rig.tap_row("Set the date and time");
    for c in "2027-03-04 0506".chars() {
        rig.key(Key::Char(c));
    }
    assert_eq!(rig.touch_view().edit.value, "2027-03-04 05:06", "{:?}", rig.touch_view().edit);
}
