//! The kiosk flow's rules, driven without any display or file: real key
//! events, the judge button and a fake clock, against the fake station
//! (`wordjudge::kiosk::fake`). What must reach the audit log and the config
//! is tested against the live station in `kiosk_live.rs`.


use crate::support::{enter_pin, fake_station, is_ready, one_verdict_per_play, open_pin, select_menu, Rig, PIN};
use std::time::Duration;
use wordjudge::app::Controller;
use wordjudge::config::Timeouts;
use wordjudge::gpio::{Hardware, SimHardware};
use wordjudge::kiosk::fake::FakeRecord;
use wordjudge::kiosk::flow::{EntryHint, Event, Key, Screen};
use wordjudge::kiosk::station::{AdjudicateError, DirectorEvent, Station, SystemAction, Warning};
use wordjudge::kiosk::view::ScreenKind;
use wordjudge::panel::{Lamps, Trigger};

#[test]
fn ready_takes_only_a_count_from_1_to_8() {
    let mut rig = Rig::fake("SMALL");
    assert!(is_ready(rig.screen()));
    assert_eq!(rig.view().bar.lexicon_id, "SMALL");
    assert_eq!(rig.view().bar.lexicon_status, "Verified");
    assert_eq!(rig.view().bar.station_name, "Table 3");
    for bad in [Key::Char('0'), Key::Char('9'), Key::Char('a'), Key::Tab, Key::Enter, Key::Backspace, Key::Other] {
        rig.key(bad);
        assert!(is_ready(rig.screen()), "{bad:?}");
        assert!(rig.hint().contains("1 to 8"), "{bad:?}: {}", rig.hint());
    }
    rig.event(Event::JudgeButton);
    assert!(is_ready(rig.screen()), "the button does nothing on Ready");
    rig.keys("3");
    match rig.screen() {
        Screen::Entry(e) => assert_eq!(e.expected, 3),
        other => panic!("{other:?}"),
    }
    assert_eq!(rig.view().entry.confirmation, "3 words", "the count is confirmed");
    rig.advance(1500);
    assert_eq!(rig.view().entry.confirmation, "", "the confirmation is short");
}

#[test]
fn entry_types_uppercase_words_and_refuses_what_is_not_a_letter() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("2");
    rig.keys("qI");
    assert_eq!(rig.words(), ["QI"]);
    for bad in ['0', '9', '\'', '-', 'é', '?'] {
        rig.key(Key::Char(bad));
        assert_eq!(rig.words(), ["QI"], "{bad}");
        assert!(rig.hint().contains("letters A to Z"), "{bad}: {}", rig.hint());
    }
    rig.key(Key::Other);
    rig.key(Key::Up);
    rig.keys("  ");
    assert_eq!(rig.words(), ["QI"], "two spaces make no empty word");
    rig.keys(&"A".repeat(16));
    assert_eq!(rig.words(), ["QI", &"A".repeat(15)], "a word stops at 15 letters");
    assert!(rig.hint().contains("15 letters"));
    rig.key(Key::Enter);
    rig.keys("ZZ");
    assert_eq!(rig.words().len(), 2, "no more than the declared number of words");
    assert!(rig.words()[1].ends_with('A'));
    // BACKSPACE edits, across words too (the first takes back the ENTER).
    for _ in 0..16 {
        rig.key(Key::Backspace);
    }
    assert_eq!(rig.words(), ["QI"]);
    rig.key(Key::Backspace);
    rig.key(Key::Backspace);
    assert_eq!(rig.words(), ["Q"]);
    // ESC clears the word being typed, then asks before clearing the rest.
    rig.keys("AT DOG");
    rig.key(Key::Escape);
    assert_eq!(rig.words(), ["QAT"], "one ESC clears one word");
    rig.key(Key::Escape);
    assert_eq!(rig.words(), ["QAT"], "an ESC on an empty word asks first");
    assert!(rig.hint().contains("ESC again"), "{}", rig.hint());
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()));
    assert!(rig.hint().contains("cancelled"), "{}", rig.hint());
}

#[test]
fn tab_judges_only_the_declared_number_of_full_words() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("3");
    rig.key(Key::Tab);
    assert_eq!(rig.hint(), "0 of 3 words typed.");
    rig.keys("cat dog");
    rig.key(Key::Tab);
    assert_eq!(rig.hint(), "2 of 3 words typed.");
    rig.event(Event::JudgeButton);
    assert_eq!(rig.hint(), "2 of 3 words typed.", "the button is TAB");
    rig.keys(" z");
    rig.key(Key::Tab);
    assert_eq!(rig.hint(), "Word 3 needs at least 2 letters.");
    assert!(matches!(rig.screen(), Screen::Entry(_)));
    rig.keys("a");
    rig.key(Key::Tab);
    assert_eq!(rig.verdict().0, true);
    assert_eq!(rig.station.adjudications().len(), 1, "judged once, after the refusals");
}

#[test]
fn an_early_tab_is_refused_as_prominently_as_the_instruction_and_singular_reads_right() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("1");
    let v = rig.view();
    assert_eq!(v.entry.instruction, "CHALLENGER: type the word");
    assert_eq!(v.entry.confirmation, "1 word");
    rig.key(Key::Tab);
    let v = rig.view();
    assert!(v.entry.hint_alert, "a refused TAB is an alert");
    assert_eq!(v.hint(), "0 of 1 word typed.");
    rig.keys("q");
    assert!(!rig.view().entry.hint_alert, "typing clears the alert");
    rig.keys("i ");
    assert_eq!(rig.hint(), "The word is typed. CHALLENGED PLAYER: press TAB to judge.");
    assert!(!rig.view().entry.hint_alert, "a reminder is not a refusal");
    let mut rig = Rig::fake("SMALL");
    rig.keys("2");
    assert_eq!(rig.view().entry.instruction, "CHALLENGER: type the 2 words — SPACE or ENTER between words");
}

#[test]
fn verdicts_come_from_the_station_and_never_say_which_word_failed() {
    let mut rig = Rig::fake("SMALL");
    one_verdict_per_play(&mut rig, "SMALL");
    let v = rig.view();
    assert!(v.verdict.details.contains("12:00:00"), "the record's time: {}", v.verdict.details);
    assert!(v.verdict.slip.contains("FAKE"), "the record's slip code: {}", v.verdict.slip);
    rig.advance(10_000);
    assert!(is_ready(rig.screen()));
}

#[test]
fn only_a_fresh_enter_esc_or_space_after_the_guard_ends_a_verdict() {
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["qi"]);
    rig.key(Key::Tab); // the double TAB
    rig.advance(200);
    rig.key(Key::Enter);
    rig.event(Event::JudgeButton);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "keys within 0.5 s are ignored");
    rig.advance(400);
    for key in [Key::Tab, Key::Char('z'), Key::Char('1'), Key::Backspace, Key::Other, Key::DirectorChord] {
        rig.key(key);
        assert!(matches!(rig.screen(), Screen::Verdict(_)), "{key:?} never ends a verdict");
    }
    rig.event(Event::JudgeButton);
    rig.event(Event::Repeat(Key::Enter));
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "the button and repeats never clear a verdict");
    rig.key(Key::Enter);
    assert!(is_ready(rig.screen()));
    let v = rig.view();
    assert!(v.entry.words.is_empty() && v.verdict.words.is_empty() && v.hint().is_empty(), "nothing of the last challenge");
    assert_eq!(v.ready.slip, "#0001 · code FAKE0001", "but its slip stays");
    assert_eq!(rig.station.adjudications().len(), 1, "the double TAB judged once");
}

#[test]
fn a_held_tab_or_a_key_held_since_before_the_verdict_never_wipes_it() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("2");
    rig.keys("qi za");
    // TAB held for 1.5 s: one press, auto-repeats every 33 ms after 0.5 s, one release.
    rig.event(Event::Key(Key::Tab));
    assert!(matches!(rig.screen(), Screen::Verdict(_)));
    for _ in 0..30 {
        rig.advance(33);
        rig.event(Event::Repeat(Key::Tab));
    }
    rig.event(Event::Release(Key::Tab));
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "a held TAB leaves its verdict");
    // ESC held down before the verdict (on the appliance: no repeats at all).
    rig.key(Key::Enter);
    let mut rig = Rig::fake("SMALL");
    rig.keys("1");
    rig.keys("qi");
    rig.event(Event::Key(Key::Escape)); // clears the word, still held
    rig.keys("za");
    rig.key(Key::Tab);
    rig.advance(700);
    rig.event(Event::Repeat(Key::Escape));
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "a repeat of a key held since before never dismisses");
    rig.event(Event::Key(Key::Escape)); // a backend that repeats as presses
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "a key down since before the verdict never dismisses");
    rig.event(Event::Release(Key::Escape));
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()), "released and pressed again: deliberate");
}

#[test]
fn extra_words_are_refused_never_glued_and_the_count_changes_with_a_number_key() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("2");
    rig.keys("qi za cat");
    assert_eq!(rig.words(), ["QI", "ZA"], "CAT is refused, never glued onto ZA");
    let v = rig.view();
    assert!(v.entry.hint_alert, "refused as prominently as a refused TAB");
    assert_eq!(v.hint(), "You said 2 words, and all are typed: that letter was not added. To challenge 3 words, press 3 first.");
    assert_eq!(v.entry.current_word, -1, "no row has the cursor after the last word");
    rig.keys("3");
    assert_eq!(rig.view().entry.confirmation, "3 words");
    assert_eq!(rig.hint(), "Changed: now 3 words.");
    assert_eq!(rig.view().entry.words, ["QI", "ZA", "▁"], "a row for the new word, with the cursor");
    rig.keys("cat");
    rig.key(Key::Tab);
    assert_eq!(rig.verdict(), (true, 1));
    match &rig.station.records[..] {
        [FakeRecord::Adjudicated { words, .. }] => assert_eq!(words, &["QI", "ZA", "CAT"]),
        other => panic!("{other:?}"),
    }
    // Fewer words than typed is refused; the same number as typed finishes.
    rig.advance(600);
    rig.key(Key::Enter);
    rig.keys("3");
    rig.keys("qi za ");
    rig.keys("1");
    assert_eq!(rig.hint(), "2 words are typed, more than 1. Clear a word first (ESC clears the word being typed).");
    rig.keys("2");
    assert_eq!(rig.view().entry.words, ["QI", "ZA"]);
    rig.keys("x");
    assert!(rig.hint().starts_with("You said 2 words"), "{}", rig.hint());
    rig.key(Key::Backspace); // takes back the SPACE after ZA
    rig.keys("g");
    assert_eq!(rig.words(), ["QI", "ZAG"]);
    let mut rig = Rig::fake("SMALL");
    rig.keys("8");
    rig.keys("qi qi qi qi qi qi qi qi x");
    assert!(rig.hint().contains("8 words is the most"), "{}", rig.hint());
    rig.keys("9");
    assert_eq!(rig.hint(), "Only the letters A to Z can be typed.");
    assert!(rig.view().entry.keys.contains("ESC clear the word"), "the editing keys are on screen");
}

#[test]
fn idle_words_are_never_cleared_without_a_countdown_and_ready_says_why() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("2");
    rig.keys("ca");
    rig.advance(4_000);
    assert_eq!(rig.view().entry.countdown, "", "no countdown yet");
    rig.advance(1_000);
    assert_eq!(rig.view().entry.countdown, "No key pressed: these words clear in 10 s. Press any key to keep them.");
    rig.advance(5_000);
    assert!(rig.view().entry.countdown.contains("in 5 s"), "{}", rig.view().entry.countdown);
    rig.event(Event::Repeat(Key::Char('a')));
    assert_eq!(rig.view().entry.countdown, "", "a held key restarts the clock");
    assert_eq!(rig.words(), ["CA"], "and adds nothing");
    rig.advance(15_000);
    assert!(is_ready(rig.screen()));
    assert_eq!(rig.hint(), "The word typed was cleared: no key was pressed for 15 seconds. Nothing was judged.");
    // A complete entry (every declared word typed) waits 60 s.
    let mut rig = Rig::fake("SMALL");
    rig.keys("2");
    rig.keys("qi za");
    rig.advance(49_000);
    assert_eq!(rig.view().entry.countdown, "", "the players are checking the spelling");
    rig.advance(2_000);
    assert!(rig.view().entry.countdown.contains("in 9 s"), "{}", rig.view().entry.countdown);
    rig.advance(9_000);
    assert!(is_ready(rig.screen()));
    assert_eq!(rig.hint(), "The 2 words typed were cleared: no key was pressed for 60 seconds. Nothing was judged.");
}

#[test]
fn ready_keeps_the_last_slip_until_the_next_challenge_and_the_time_is_configurable() {
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["qi"]);
    rig.advance(10_000);
    assert!(is_ready(rig.screen()), "the verdict cleared itself");
    assert_eq!(rig.view().ready.slip, "#0001 · code FAKE0001");
    rig.advance(3_600_000);
    assert_eq!(rig.view().ready.slip, "#0001 · code FAKE0001", "by default until the next challenge");
    rig.keys("x");
    assert_eq!(rig.view().ready.slip, "#0001 · code FAKE0001", "a wrong key keeps it");
    rig.keys("1");
    assert!(rig.kiosk.last_slip().is_none(), "the next challenge takes it off");
    let timeouts = Timeouts { last_slip_seconds: 30.0, ..Timeouts::default() };
    let mut rig = Rig::with(fake_station("SMALL"), &timeouts);
    rig.challenge(&["za"]);
    rig.advance(600);
    rig.key(Key::Char(' '));
    rig.advance(29_000);
    assert!(rig.view().ready.slip.contains("#0001"));
    rig.advance(1_000);
    assert_eq!(rig.view().ready.slip, "", "after last_slip_seconds");
}

#[test]
fn keys_in_bursts_judge_each_challenge_exactly_once() {
    let mut rig = Rig::fake("SMALL");
    for round in 0..50u64 {
        rig.keys("2cat dog");
        for _ in 0..10 {
            rig.key(Key::Tab);
            rig.event(Event::JudgeButton);
        }
        assert!(matches!(rig.screen(), Screen::Verdict(_)), "round {round}");
        rig.advance(600);
        rig.keys("zzzz");
        assert!(matches!(rig.screen(), Screen::Verdict(_)), "letters never end a verdict");
        rig.key(Key::Enter);
    }
    let numbers: Vec<u64> = rig
        .station
        .records
        .iter()
        .filter_map(|r| if let FakeRecord::Adjudicated { number, .. } = r { Some(*number) } else { None })
        .collect();
    assert_eq!(numbers, (1..=50).collect::<Vec<_>>(), "one adjudication per challenge, numbers in order");
}

#[test]
fn timeouts_return_to_ready_and_are_configurable() {
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["qi"]);
    rig.advance(9_900);
    assert!(matches!(rig.screen(), Screen::Verdict(_)));
    rig.advance(100);
    assert!(is_ready(rig.screen()), "a verdict clears itself after 10 s");
    rig.keys("2ca");
    rig.advance(14_000);
    rig.keys("t");
    rig.advance(14_000);
    assert_eq!(rig.words(), ["CAT"], "each key restarts the 15 s");
    rig.advance(1_000);
    assert!(is_ready(rig.screen()), "15 s without a key returns to Ready");

    let timeouts =
        Timeouts { entry_idle_seconds: 5.0, verdict_guard_seconds: 2.0, verdict_seconds: 3.0, ..Timeouts::default() };
    let mut rig = Rig::with(fake_station("SMALL"), &timeouts);
    rig.keys("1");
    rig.advance(5_000);
    assert!(is_ready(rig.screen()));
    assert!(rig.hint().contains("cleared"), "{}", rig.hint());
    rig.challenge(&["za"]);
    rig.advance(1_500);
    rig.key(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "guard of 2 s");
    rig.advance(1_500);
    assert!(is_ready(rig.screen()), "verdict of 3 s");
}

#[test]
fn judge_button_is_tab_in_entry_only_and_is_reported_as_button() {
    let mut rig = Rig::fake("SMALL");
    rig.keys("1");
    rig.keys("zebra");
    rig.event(Event::JudgeButton);
    assert!(rig.verdict().0);
    rig.advance(600);
    rig.key(Key::Char(' '));
    rig.challenge(&["cat"]);
    let triggers: Vec<Trigger> = rig
        .station
        .records
        .iter()
        .filter_map(|r| if let FakeRecord::Adjudicated { trigger, .. } = r { Some(*trigger) } else { None })
        .collect();
    assert_eq!(triggers, [Trigger::Button, Trigger::Keyboard]);
}

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
    let events: Vec<&DirectorEvent> =
        rig.station.records.iter().filter_map(|r| if let FakeRecord::Director(e) = r { Some(e) } else { None }).collect();
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
fn director_switch_keeps_the_cursor_and_shows_the_result() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().menu.selected, 3, "the menu opens on the active lexicon");
    select_menu(&mut rig, "Use BROKEN ");
    rig.key(Key::Enter);
    assert!(rig.view().menu.message.starts_with("Not switched: BROKEN is Corrupt"), "{}", rig.view().menu.message);
    assert_eq!(rig.view().menu.selected, 1, "the cursor stays where the director left it");
    assert_eq!(rig.kiosk.lexicon().id, "SMALL", "a refused switch changes nothing");
    select_menu(&mut rig, "Use OTHER ");
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Now judging with OTHER (Verified).");
    assert_eq!(rig.view().menu.selected, 2);
    assert!(rig.view().menu.items[2].ends_with("◀ active"), "{:?}", rig.view().menu.items);
    assert!(rig.station.records.contains(&FakeRecord::SwitchRefused { to: "BROKEN".into() }));
    rig.key(Key::Escape);
    assert!(rig.challenge(&["xyzzy"]).0, "in effect at once");
}

#[test]
fn reboot_and_power_off_are_offered_only_on_the_appliance() {
    let mut rig = Rig::fake("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let items = rig.view().menu.items.join("\n");
    assert!(!items.contains("Reboot") && !items.contains("Power off"), "a desktop never offers them: {items}");
    assert!(rig.station.system(SystemAction::PowerOff).is_err(), "and the fake refuses them too");

    let mut station = fake_station("SMALL");
    station.appliance = true;
    let mut rig = Rig::with(station, &Timeouts::default());
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Power off");
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Press ENTER again to confirm.");
    assert!(!rig.station.records.contains(&FakeRecord::System(SystemAction::PowerOff)), "asks first");
    rig.key(Key::Enter);
    assert!(rig.station.records.contains(&FakeRecord::System(SystemAction::PowerOff)));
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
    rig.key(Key::Enter);
    assert!(rig.kiosk.quit_requested());
}

#[test]
fn out_of_service_when_the_lexicon_cannot_judge_and_the_director_can_fix_it() {
    for active in ["BROKEN", "WRONG", "MISSING"] {
        let mut rig = Rig::fake(active);
        crate::support::out_of_service_until_the_director_switches(&mut rig, active);
        assert_eq!(rig.station.adjudications().len(), 1, "{active}: only the challenge after the fix");
    }
}

#[test]
fn a_fault_while_judging_takes_the_station_out_of_service_without_a_verdict() {
    let mut rig = Rig::fake("SMALL");
    rig.station.fail_next = Some(AdjudicateError::Fault("fst lookup panicked".into()));
    rig.keys("1cat");
    rig.key(Key::Tab);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    assert!(rig.station.adjudications().is_empty(), "no verdict was shown or recorded");
    // A disagreement about a word is not a fault: the entry stays.
    let mut rig = Rig::fake("SMALL");
    rig.station.fail_next = Some(AdjudicateError::BadChallenge("odd".into()));
    rig.keys("1cat");
    rig.key(Key::Tab);
    assert!(matches!(rig.screen(), Screen::Entry(e) if e.hint == Some(EntryHint::OnlyLetters)), "{:?}", rig.screen());
}

#[test]
fn a_lexicon_that_stops_being_usable_takes_ready_out_of_service_but_not_a_shown_verdict() {
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["cat"]);
    rig.station.lexicons[3].usable = false;
    rig.station.lexicons[3].status = "Corrupt".into();
    rig.kiosk.refresh_lexicon(&rig.station);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "a verdict on screen stays");
    rig.advance(10_000);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    rig.station.lexicons[3].usable = true;
    rig.kiosk.refresh_lexicon(&rig.station);
    assert!(is_ready(rig.screen()));
}

#[test]
fn warnings_reach_the_director_in_words() {
    let mut rig = Rig::fake("SMALL");
    rig.station.warnings.push(Warning::AuditLog("disk full".into()));
    rig.station.warnings.push(Warning::LexiconFileChanged {
        id: "SMALL".into(),
        detail: "SMALL.fst changed on disk since it was verified".into(),
    });
    assert!(rig.view().bar.warning, "a discreet marker for players");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("Audit log: disk full"), "{lines}");
    assert!(lines.contains("Lexicon SMALL: SMALL.fst changed on disk"), "{lines}");
    assert!(rig.kiosk.lamps(rig.station.needs_service()).service, "a failing log lights the service lamp");
}

#[test]
fn with_the_demo_every_screen_says_demo() {
    let mut rig = Rig::fake("DEMO");
    assert!(rig.view().bar.demo && rig.view().bar.demo_label.contains("DEMO"));
    assert!(rig.challenge(&["zebra"]).0);
    assert!(rig.view().bar.demo, "the verdict screen says DEMO too");
}

#[test]
fn lamps_follow_verdicts_and_the_button_goes_through_the_debouncer() {
    let station = fake_station("SMALL");
    let (hardware, sim) = SimHardware::new(Duration::from_millis(30));
    let clock = std::rc::Rc::new(std::cell::Cell::new(Duration::from_secs(5)));
    let c = clock.clone();
    let mut controller =
        Controller::new(Box::new(station), Box::new(hardware), &Timeouts::default(), Box::new(move || c.get()), true);
    let at = |ms: u64| Duration::from_secs(5) + Duration::from_millis(ms);
    // Chatter on Ready: nothing happens.
    sim.press_at(at(0));
    sim.release_at(at(5));
    sim.press_at(at(8));
    sim.release_at(at(100));
    controller.tick();
    assert_eq!(controller.view().screen, ScreenKind::Ready);
    for c in "1cat".chars() {
        controller.input(Event::Key(Key::Char(c)));
    }
    // A bouncing press in Entry judges once.
    sim.press_at(at(200));
    sim.release_at(at(203));
    sim.press_at(at(206));
    sim.release_at(at(400));
    clock.set(at(400));
    controller.tick();
    let v = controller.view();
    assert_eq!(v.screen, ScreenKind::Verdict);
    assert_eq!(sim.lamps(), Lamps { green: true, red: false, service: false });
    assert_eq!(v.lamps.lit, sim.lamps(), "the on-screen lamps match");
    assert_eq!(v.lamps.labels.map(|l| l.is_empty()), [false; 3], "the simulated lamps are labelled");
    clock.set(at(11_000));
    controller.tick();
    assert_eq!(controller.view().screen, ScreenKind::Ready);
    assert_eq!(sim.lamps(), Lamps::default(), "both off when the verdict clears");
    let history = sim.lamp_history();
    assert_eq!(history.iter().filter(|l| l.green).count(), 1, "one verdict, one green: {history:?}");
    controller.lamps_off();
    fn assert_send<T: Send + ?Sized>() {}
    assert_send::<dyn Hardware>();
}

/// Opens the director menu and moves to the item starting with `prefix`.
fn director_at(rig: &mut Rig<wordjudge::kiosk::fake::FakeStation>, prefix: &str) {
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
    assert_eq!(rig.view().edit.message, "Not changed: the old PIN is wrong");
    assert_eq!(rig.view().edit.prompt, "type the current PIN", "starts again from the old PIN");
    enter_pin(&mut rig, PIN);
    rig.keys("12a");
    assert_eq!(rig.view().edit.message, "A PIN is digits only.");
    assert_eq!(rig.view().edit.value, "●●", "the PIN is never shown");
    rig.key(Key::Backspace);
    rig.key(Key::Backspace);
    enter_pin(&mut rig, "13579");
    enter_pin(&mut rig, "13570");
    assert_eq!(rig.view().edit.message, "The two new PINs differ. Type the new PIN again.");
    enter_pin(&mut rig, "13579");
    enter_pin(&mut rig, "13579");
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert_eq!(rig.view().menu.message, "The director PIN is changed.");
    assert!(rig.station.records.contains(&FakeRecord::PinChanged));
    rig.key(Key::Escape);
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
    let at = rig.view().menu.selected;
    rig.key(Key::Enter);
    assert_eq!(rig.view().edit.value, "Table 3", "starts from the current name");
    rig.keys("X");
    rig.key(Key::Escape);
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert_eq!(rig.view().menu.selected, at, "back where the director was");
    assert_eq!(rig.station.station_name, "Table 3", "ESC changes nothing");
    rig.key(Key::Enter);
    for _ in 0.."Table 3".len() {
        rig.key(Key::Backspace);
    }
    rig.key(Key::Enter);
    assert!(rig.view().edit.message.starts_with("Not changed: station_name must have"), "{}", rig.view().edit.message);
    rig.keys("Hall B, table 7");
    rig.key(Key::Enter);
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
    rig.keys("2026-13-40 25:00");
    rig.key(Key::Enter);
    assert!(rig.view().edit.message.contains("is not a date and time"), "{}", rig.view().edit.message);
    rig.keys("2026-11-23 14:05x");
    assert_eq!(rig.view().edit.message, "Digits, - : and a space only.");
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "The clock is set.");
    assert!(rig.station.records.contains(&FakeRecord::ClockSet { to: "2026-11-23T14:05:00".into() }));

    let mut rig = Rig::fake("SMALL");
    director_at(&mut rig, "Set the date and time");
    rig.key(Key::Enter);
    rig.keys("2026-11-23 14:05");
    rig.key(Key::Enter);
    assert_eq!(rig.view().edit.message, "Not changed: only the appliance sets the system clock");
}

fn profile_rig(profile: &str) -> Rig<wordjudge::kiosk::fake::FakeStation> {
    let mut station = fake_station("SMALL");
    station.lexicons.push(wordjudge::kiosk::fake::FakeLexicon::usable("CSW24", "cat dog qi za zebra xu"));
    station.lexicons.push(wordjudge::kiosk::fake::FakeLexicon::usable("NWL2023", "cat dog qi za zebra ok"));
    station.lexicons.push(wordjudge::kiosk::fake::FakeLexicon::usable("NWL2020", "cat dog qi za zebra"));
    station.lexicons.push(wordjudge::kiosk::fake::FakeLexicon::usable("OSPD4+MW11", "cat dog zebra abandonment"));
    station.profiles = wordjudge::profile::BUILT_IN.iter().collect();
    let mut rig = Rig::with(station, &Timeouts::default());
    let name = wordjudge::profile::find(profile).unwrap().name;
    director_at(&mut rig, &format!("Profile: {name}"));
    rig.key(Key::Enter);
    assert!(rig.view().menu.message.starts_with(&format!("Profile {name}: now judging with")), "{}", rig.view().menu.message);
    rig.key(Key::Escape);
    rig
}

#[test]
fn profiles_switch_the_lexicon_and_word_each_rules_consequence() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("NASPA-NWL", &["cat", "ok"], "The play stands: the challenger loses the turn."),
        ("NASPA-NWL", &["cat", "xu"], "The play comes off the board."),
        ("NASPA-CSW-5", &["cat", "xu"], "The play stands: +10 to the player: 2 words × 5"),
        ("NASPA-CSW-10", &["xu"], "The play stands: +10 to the player: 1 word × 10"),
        ("WESPA-CSW", &["cat", "dog", "xu"], "The play stands: +15 to the player: 3 words × 5"),
        ("WESPA-CSW", &["cat", "ok"], "The play comes off the board."),
        ("SCHOOL", &["abandonment"], "The play stands: the challenging team loses its turn."),
        ("SCHOOL", &["za"], "The play comes off the board."),
    ];
    for (profile, words, line) in cases {
        let mut rig = profile_rig(profile);
        let lexicon = wordjudge::profile::find(profile).unwrap().lexicon;
        assert_eq!(rig.view().bar.lexicon_id, lexicon, "{profile}");
        rig.challenge(words);
        assert_eq!(rig.view().verdict.consequence, *line, "{profile} {words:?}");
        assert!(rig.station.records.contains(&FakeRecord::ProfileSwitched { to: profile.to_string() }));
    }
    let mut rig = Rig::fake("SMALL");
    rig.challenge(&["cat"]);
    assert_eq!(rig.view().verdict.consequence, "", "no profile, no rule shown");
}

#[test]
fn the_second_opinion_gives_one_verdict_and_never_the_word() {
    let mut rig = profile_rig("NASPA-NWL-CHANGEOVER");
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
fn a_panic_below_the_kiosk_is_caught_at_its_boundary_and_the_station_goes_out_of_service() {
    let mut station = fake_station("SMALL");
    station.panic_next = true;
    let clock = std::rc::Rc::new(std::cell::Cell::new(Duration::from_secs(5)));
    let c = clock.clone();
    let mut controller = Controller::new(
        Box::new(station),
        Box::new(wordjudge::gpio::NoHardware::new("test")),
        &Timeouts::default(),
        Box::new(move || c.get()),
        false,
    );
    for key in [Key::Char('1'), Key::Char('c'), Key::Char('a'), Key::Char('t'), Key::Tab] {
        controller.input(Event::Key(key));
    }
    let v = controller.view();
    assert_eq!(v.screen, ScreenKind::OutOfService, "no verdict, no dead kiosk: {v:?}");
    assert!(controller.kiosk().lamps(false).service, "the service lamp calls the director");
    // The kiosk still takes events: the director chord opens the PIN prompt.
    controller.input(Event::Key(Key::DirectorChord));
    assert_eq!(controller.view().screen, ScreenKind::Pin);
}

#[test]
fn a_lexicon_switch_away_from_the_profile_drops_its_rule_line_and_missing_profiles_say_why() {
    let mut rig = profile_rig("SCHOOL");
    director_at(&mut rig, "Use DEMO");
    rig.key(Key::Enter);
    let message = rig.view().menu.message;
    assert!(message.starts_with("Now judging with DEMO") && message.contains("no longer applies"), "{message}");
    assert!(rig.station.records.contains(&FakeRecord::ProfileCleared));
    assert!(!rig.view().menu.items.iter().any(|i| i.contains("◀ active") && i.starts_with("Profile")), "no profile active");
    rig.key(Key::Escape);
    rig.challenge(&["cat"]);
    let v = rig.view();
    assert!(v.bar.demo && v.verdict.consequence.is_empty(), "no School rule under a DEMO verdict: {:?}", v.verdict.consequence);
    // TWL2016 is not installed on this station: its profile says so in the list.
    rig.advance(600);
    rig.key(Key::Enter);
    director_at(&mut rig, "Profile: NASPA, TWL2016");
    let item = rig.view().menu.items[rig.view().menu.selected as usize].clone();
    assert_eq!(item, "Profile: NASPA, TWL2016 (double challenge) — unavailable: TWL2016 is not installed");
    rig.key(Key::Enter);
    assert!(rig.view().menu.message.starts_with("Not switched"), "{}", rig.view().menu.message);
    let available = rig.view().menu.items.iter().find(|i| i.starts_with("Profile: NASPA CSW24, 5")).cloned().unwrap();
    assert!(!available.contains("unavailable"), "{available}");
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
    assert_eq!(v.edit.prompt, "type the new PIN (4 to 12 digits)");
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
    assert_eq!(rig.view().menu.message, "The director PIN is changed.");
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
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Use OTHER");
    rig.station.plug("sdb1", &[("CSW15.txt", "CSW15")]);
    rig.advance(1_100);
    let v = rig.view();
    assert!(v.menu.items[0].starts_with("Install lexicons from USB"), "{:?}", v.menu.items);
    assert!(v.menu.items[v.menu.selected as usize].starts_with("Use OTHER"), "still on its item");
    rig.key(Key::Enter);
    assert_eq!(rig.station.lexicon().id, "OTHER", "ENTER acts on the item under the cursor");
    rig.station.sticks.clear();
    rig.advance(1_100);
    let v = rig.view();
    assert!(v.menu.items[v.menu.selected as usize].starts_with("Use OTHER"), "{:?}", v.menu.items);
}

#[test]
fn no_screen_names_a_file_path_or_a_shell_command() {
    let mut station = fake_station("BROKEN");
    station.warnings = vec![
        Warning::Config(wordjudge::config::ConfigProblem::Syntax {
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
    assert!(shown[1].menu.lines.iter().any(|l| l.contains("config.toml is broken at line 3")), "{:?}", shown[1].menu.lines);
    assert!(shown[0].service.detail.contains("config.toml"), "{}", shown[0].service.detail);
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
    assert!(rig.view().pin.message.contains("Try again in 60 s"), "the second lockout is longer: {}", rig.view().pin.message);
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
    assert_eq!(wordjudge::kiosk::flow::pin_lockout(20), std::time::Duration::from_secs(3600), "at most an hour");
}
