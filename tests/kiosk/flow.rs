//! The players' flow, driven without any display or file: real key events,
//! the judge button and a fake clock, against the fake station
//! (`wordjudge_station::desks::fake`): Ready, Entry, Verdict, out of service, lamps.
//! The director's screens are in `director.rs`; what must reach the audit
//! log and the config is tested against the live station in `live.rs`.

use crate::support::{enter_pin, fake_station, is_ready, one_verdict_per_play, open_pin, Rig, PIN};
use std::time::Duration;
use wordjudge_core::config::Timeouts;
use wordjudge_core::gpio::{Hardware, SimHardware};
use wordjudge_core::panel::{Lamps, Trigger};
use wordjudge_station::app::Controller;
use wordjudge_station::desks::fake::FakeRecord;
use wordjudge_station::desks::prelude::*;
use wordjudge_station::desks::{AdjudicateError, Warning};
use wordjudge_station::kiosk::flow::{EntryHint, Event, Key, Screen};
use wordjudge_station::kiosk::view::ScreenKind;

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
    assert!(rig.verdict().0);
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
    assert!(
        v.entry.words.is_empty() && v.verdict.words.is_empty() && v.hint().is_empty(),
        "nothing of the last challenge"
    );
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
    assert_eq!(
        v.hint(),
        "You said 2 words, and all are typed: that letter was not added. To challenge 3 words, press 3 first."
    );
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

#[test]
fn a_panic_below_the_kiosk_is_caught_at_its_boundary_and_the_station_goes_out_of_service() {
    let mut station = fake_station("SMALL");
    station.panic_next = true;
    let clock = std::rc::Rc::new(std::cell::Cell::new(Duration::from_secs(5)));
    let c = clock.clone();
    let mut controller = Controller::new(
        Box::new(station),
        Box::new(wordjudge_core::gpio::NoHardware::new("test")),
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

/// Issue 55, item 7: the kiosk writes a sign of life to the journal every
/// [`wordjudge_core::fleet::SIGN_OF_LIFE_EVERY`] (what `fleet status` reads
/// to tell a silent station), saying whether it is in service; not more
/// often, however fast it ticks.
#[test]
fn the_kiosk_says_it_is_alive_every_five_minutes_and_no_more_often() {
    #[derive(Clone, Default)]
    struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    let every = wordjudge_core::fleet::SIGN_OF_LIFE_EVERY;
    tracing::subscriber::with_default(subscriber, || {
        let (hardware, _sim) = SimHardware::new(Duration::from_millis(30));
        let clock = std::rc::Rc::new(std::cell::Cell::new(Duration::from_secs(5)));
        let c = clock.clone();
        let mut controller = Controller::new(
            Box::new(fake_station("SMALL")),
            Box::new(hardware),
            &Timeouts::default(),
            Box::new(move || c.get()),
            true,
        );
        // Twenty minutes of ticks, 50 ms apart.
        let start = clock.get();
        while clock.get() < start + 4 * every {
            clock.set(clock.get() + Duration::from_millis(50));
            controller.tick();
        }
    });
    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    let signs: Vec<&str> = text.lines().filter(|l| l.contains("sign of life")).collect();
    assert_eq!(signs.len(), 4, "one every {every:?} over 20 minutes: {text}");
    assert!(signs.iter().all(|l| l.contains("the station is in service")), "{text}");
}
