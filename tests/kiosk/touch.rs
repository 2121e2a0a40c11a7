//! The players' flow by touch, without a display: taps on the count
//! buttons, the on-screen keyboard, JUDGE and "slip copied", mixed with the
//! keys and the judge button, against the fake station. The window's side
//! (real pointer events on the `.slint` targets) is in `tests/ui_slint.rs`.

use crate::support::{enter_pin, is_ready, open_pin, Rig, PIN};
use wordjudge_core::panel::Trigger;
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::kiosk::flow::{Event, Key, Screen};
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
    // The director's screens take no tap at all.
    rig.key(Key::Escape);
    rig.key(Key::Escape);
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()), "{:?}", rig.screen());
    open_pin(&mut rig);
    let before = rig.screen().clone();
    for c in PIN.chars() {
        rig.tap(Key::Char(c));
    }
    rig.tap(Key::Enter);
    assert_eq!(rig.screen(), &before, "no PIN by the count buttons");
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    let menu = rig.screen().clone();
    for key in [Key::Enter, Key::Tab, Key::Char(' '), Key::Backspace, Key::Char('A'), Key::Escape, Key::Down] {
        rig.tap(key);
        assert_eq!(rig.screen(), &menu, "{key:?} moved the menu");
    }
}

#[test]
fn an_out_of_service_station_takes_no_tap() {
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
