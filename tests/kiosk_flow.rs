//! The kiosk flow, driven without any display: real key events, the judge
//! button and a fake clock, against a live station on small lexicons the test
//! builds (config, lexicon directory and audit log in a temporary directory).

use std::path::Path;
use std::time::Duration;
use wordjudge::audit::AuditLog;
use wordjudge::config::Config;
use wordjudge::gpio::{Hardware, SimHardware};
use wordjudge::panel::Lamps;
use wordjudge::kiosk::flow::{Event, Key, Kiosk, MenuItem, Screen};
use wordjudge::kiosk::live::LiveStation;
use wordjudge::kiosk::station::Station;
use wordjudge::kiosk::view::{view, StationInfo};
use wordjudge::lexicon::build::build_lexicon;

const PIN: &str = "2468";

struct Rig {
    kiosk: Kiosk,
    station: LiveStation,
    now: Duration,
    dir: tempfile::TempDir,
}

fn lexicon(dir: &Path, id: &str, words: &str, published: Option<&str>) {
    std::fs::write(dir.join(format!("{id}.txt")), words).unwrap();
    build_lexicon(&dir.join(format!("{id}.txt")), &dir.join(format!("{id}.fst")), false).unwrap();
    let fp = published.map(|p| format!("published_fingerprint = \"{p}\"\n")).unwrap_or_default();
    std::fs::write(
        dir.join(format!("{id}.toml")),
        format!("id = \"{id}\"\nname = \"{id} list\"\nedition = \"test\"\n[[layer]]\nfst = \"{id}.fst\"\n{fp}"),
    )
    .unwrap();
}

fn config_for(dir: &Path, active: &str) -> Config {
    let lexicons = dir.join("lexicons");
    std::fs::create_dir_all(&lexicons).unwrap();
    lexicon(&lexicons, "SMALL", "CAT\nDOG\nQI\nZA\nZEBRA\nABANDONMENT\n", None);
    lexicon(&lexicons, "OTHER", "XYZZY\nCAT\n", None);
    lexicon(&lexicons, "WRONG", "CAT\n", Some("0badf00d"));
    lexicon(&lexicons, "BROKEN", "CAT\nDOG\n", None);
    let fst = lexicons.join("BROKEN.fst");
    let mut bytes = std::fs::read(&fst).unwrap();
    bytes.truncate(bytes.len() - 1);
    std::fs::write(&fst, bytes).unwrap();
    let mut config = Config::default();
    config.station_name = "Table 3".into();
    config.lexicon_dir = lexicons;
    config.audit_dir = dir.join("audit");
    config.active_lexicon = active.into();
    config.director_pin_hash = Some(wordjudge::pin::hash_pin(PIN).unwrap());
    config
}

impl Rig {
    fn with_config(dir: tempfile::TempDir, config: Config) -> Rig {
        let path = dir.path().join("config.toml");
        config.save(&path).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.problem, None);
        let audit = AuditLog::open(&config.audit_dir, &config.station_name).unwrap();
        let station = LiveStation::start(loaded, config.lexicon_dir.clone(), audit, None);
        let kiosk = Kiosk::new(&station, &config.timeouts);
        Rig { kiosk, station, now: Duration::from_secs(1000), dir }
    }

    fn new(active: &str) -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let config = config_for(dir.path(), active);
        Rig::with_config(dir, config)
    }

    fn event(&mut self, event: Event) {
        self.kiosk.handle(event, self.now, &mut self.station);
    }
    fn key(&mut self, key: Key) {
        self.event(Event::Key(key));
    }
    fn keys(&mut self, text: &str) {
        for c in text.chars() {
            self.key(Key::Char(c));
        }
    }
    fn advance(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
        self.event(Event::Tick);
    }
    fn screen(&self) -> &Screen {
        self.kiosk.screen()
    }
    fn view(&self) -> wordjudge::kiosk::view::ViewModel {
        let info = StationInfo {
            station_name: self.station.station_name(),
            counts: self.station.counts(),
            warnings: self.station.warnings(),
            lamps: self.kiosk.lamps(self.station.needs_service()),
            show_lamps: false,
        };
        view(&self.kiosk, &info, self.now)
    }
    fn hint(&self) -> String {
        self.view().hint
    }
    fn words(&self) -> Vec<String> {
        match self.screen() {
            Screen::Entry(e) => e.typed_words().iter().map(|w| w.to_string()).collect(),
            other => panic!("not in Entry: {other:?}"),
        }
    }
    fn verdict(&self) -> (bool, u64) {
        match self.screen() {
            Screen::Verdict(v) => {
                (v.judged.verdict == wordjudge::judge::Verdict::Acceptable, v.judged.challenge_number)
            }
            other => panic!("not a verdict: {other:?}"),
        }
    }
    /// Ready → count → words → TAB.
    fn challenge(&mut self, words: &[&str]) -> (bool, u64) {
        self.keys(&words.len().to_string());
        self.keys(&words.join(" "));
        self.key(Key::Tab);
        self.verdict()
    }
    fn audit_text(&self) -> String {
        let mut text = String::new();
        let mut files: Vec<_> = std::fs::read_dir(self.dir.path().join("audit")).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            text += &std::fs::read_to_string(f).unwrap_or_default();
        }
        text
    }
}

fn is_ready(screen: &Screen) -> bool {
    matches!(screen, Screen::Ready { .. })
}

#[test]
fn ready_takes_only_a_count_from_1_to_8() {
    let mut rig = Rig::new("SMALL");
    assert!(is_ready(rig.screen()));
    assert_eq!(rig.view().lexicon_id, "SMALL");
    assert_eq!(rig.view().lexicon_status, "Verified");
    assert_eq!(rig.view().station_name, "Table 3");
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
    assert_eq!(rig.view().confirmation, "3 words", "the count is confirmed");
    rig.advance(1500);
    assert_eq!(rig.view().confirmation, "", "the confirmation is short");
}

#[test]
fn entry_types_uppercase_words_and_refuses_what_is_not_a_letter() {
    let mut rig = Rig::new("SMALL");
    rig.keys("2");
    rig.keys("qI");
    assert_eq!(rig.words(), ["QI"]);
    for bad in ['1', '\'', '-', 'é', '?'] {
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
    // BACKSPACE edits, across words too.
    for _ in 0..15 {
        rig.key(Key::Backspace);
    }
    assert_eq!(rig.words(), ["QI"]);
    rig.key(Key::Backspace);
    rig.key(Key::Backspace);
    assert_eq!(rig.words(), ["Q"]);
    // ESC clears the entry; ESC on an empty entry returns to Ready.
    rig.keys("AT DOG");
    rig.key(Key::Escape);
    assert!(rig.words().is_empty());
    assert!(matches!(rig.screen(), Screen::Entry(_)));
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()));
}

#[test]
fn tab_judges_only_the_declared_number_of_full_words() {
    let mut rig = Rig::new("SMALL");
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
}

#[test]
fn verdicts_come_from_the_lexicon_and_never_say_which_word_failed() {
    let mut rig = Rig::new("SMALL");
    let (ok, first) = rig.challenge(&["cat", "zebra"]);
    assert!(ok);
    let v = rig.view();
    assert_eq!(v.screen, "verdict");
    assert!(v.acceptable);
    assert_eq!(v.verdict_words, "CAT  ZEBRA");
    assert!(v.verdict_details.contains("SMALL") && v.verdict_details.contains(&format!("#{first:04}")));
    rig.advance(600);
    rig.key(Key::Char('x'));
    let (ok, second) = rig.challenge(&["dog", "xyzzy", "qi"]);
    assert!(!ok);
    assert!(second > first, "challenge numbers are unique and increasing");
    let v = rig.view();
    assert!(!v.acceptable);
    assert_eq!(v.verdict_words, "DOG  XYZZY  QI", "all words, in order, unmarked");
    // Which word failed exists only in the audit log.
    assert!(rig.audit_text().contains("XYZZY"));
    // 16-letter words cannot even be typed, so cannot be judged.
    rig.advance(10_000);
    assert!(is_ready(rig.screen()));
}

#[test]
fn verdict_guard_ignores_keys_for_half_a_second_then_any_key_returns() {
    let mut rig = Rig::new("SMALL");
    rig.challenge(&["qi"]);
    rig.key(Key::Tab); // the double TAB
    rig.advance(200);
    rig.key(Key::Char('1'));
    rig.event(Event::JudgeButton);
    rig.advance(200);
    rig.key(Key::Escape);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "keys within 0.5 s are ignored");
    rig.advance(150);
    rig.event(Event::JudgeButton);
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "the button never clears a verdict");
    rig.key(Key::Char('z'));
    assert!(is_ready(rig.screen()));
    let v = rig.view();
    assert!(v.words.is_empty() && v.verdict_words.is_empty() && v.hint.is_empty(), "nothing of the last challenge");
}

#[test]
fn timeouts_return_to_ready_and_are_configurable() {
    let mut rig = Rig::new("SMALL");
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

    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "SMALL");
    config.timeouts.entry_idle_seconds = 5.0;
    config.timeouts.verdict_guard_seconds = 2.0;
    config.timeouts.verdict_seconds = 3.0;
    let mut rig = Rig::with_config(dir, config);
    rig.keys("1");
    rig.advance(5_000);
    assert!(is_ready(rig.screen()));
    rig.challenge(&["za"]);
    rig.advance(1_500);
    rig.key(Key::Char('q'));
    assert!(matches!(rig.screen(), Screen::Verdict(_)), "guard of 2 s");
    rig.advance(1_500);
    assert!(is_ready(rig.screen()), "verdict of 3 s");
}

#[test]
fn judge_button_is_tab_in_entry_only_and_is_audited_as_button() {
    let mut rig = Rig::new("SMALL");
    rig.keys("1");
    rig.keys("zebra");
    rig.event(Event::JudgeButton);
    assert!(rig.verdict().0);
    let audit = rig.audit_text();
    let record = audit.lines().find(|l| l.contains("ZEBRA")).expect("the adjudication is in the audit log");
    assert!(record.contains("\"trigger\":\"button\""), "{record}");
    rig.advance(600);
    rig.key(Key::Char(' '));
    rig.challenge(&["cat"]);
    let audit = rig.audit_text();
    let record = audit.lines().filter(|l| l.contains("\"CAT\"")).last().unwrap();
    assert!(record.contains("\"trigger\":\"keyboard\""), "{record}");
}

fn open_pin(rig: &mut Rig) {
    rig.key(Key::DirectorChord);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "{:?}", rig.screen());
}

/// Moves the director menu's selection to the first item whose text starts with `prefix`.
fn select_menu(rig: &mut Rig, prefix: &str) {
    let target = rig.view().menu_items.iter().position(|i| i.starts_with(prefix)).expect(prefix);
    for _ in 0..20 {
        rig.key(Key::Up);
    }
    for _ in 0..target {
        rig.key(Key::Down);
    }
    assert_eq!(rig.view().menu_selected as usize, target);
}

fn enter_pin(rig: &mut Rig, pin: &str) {
    rig.keys(pin);
    rig.key(Key::Enter);
}

#[test]
fn director_pin_success_failure_and_lockout() {
    let mut rig = Rig::new("SMALL");
    rig.keys("1");
    rig.key(Key::DirectorChord);
    assert!(matches!(rig.screen(), Screen::Entry(_)), "the chord works only on Ready");
    rig.key(Key::Escape);
    open_pin(&mut rig);
    rig.keys("12");
    assert_eq!(rig.view().pin_dots, "●●", "the PIN is never shown");
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()));
    open_pin(&mut rig);
    enter_pin(&mut rig, "1111");
    assert!(rig.view().pin_message.contains("2 attempts left"), "{}", rig.view().pin_message);
    enter_pin(&mut rig, "2222");
    // Leaving and coming back does not reset the count.
    rig.key(Key::Escape);
    open_pin(&mut rig);
    enter_pin(&mut rig, "3333");
    assert!(rig.view().pin_message.contains("Locked"), "{}", rig.view().pin_message);
    rig.advance(1_000);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "locked: even the right PIN is refused");
    assert!(rig.view().pin_message.contains("Try again in"), "{}", rig.view().pin_message);
    rig.key(Key::Escape);
    rig.advance(29_500);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)), "after 30 s the right PIN opens the menu");
    let audit = rig.audit_text();
    for event in ["pin_refused", "locked_out", "pin_accepted"] {
        assert!(audit.contains(event), "{event} is audited");
    }
}

#[test]
fn director_switches_lexicons_and_config_follows() {
    let mut rig = Rig::new("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let items = match rig.screen() {
        Screen::Director(menu) => menu.items.clone(),
        other => panic!("{other:?}"),
    };
    let ids: Vec<String> =
        items.iter().filter_map(|i| if let MenuItem::UseLexicon(c) = i { Some(c.id.clone()) } else { None }).collect();
    assert_eq!(ids, ["DEMO", "BROKEN", "OTHER", "SMALL", "WRONG"]);
    let statuses = rig.view().menu_items.join("\n");
    assert!(statuses.contains("BROKEN — Corrupt") && statuses.contains("WRONG — Mismatch"), "{statuses}");
    assert!(rig.view().director_lines.iter().any(|l| l.contains("Table 3")));
    let select = |rig: &mut Rig, id: &str| {
        select_menu(rig, &format!("Use {id} "));
        rig.key(Key::Enter);
    };
    select(&mut rig, "BROKEN");
    assert!(rig.view().director_message.starts_with("Not switched"), "{}", rig.view().director_message);
    select(&mut rig, "WRONG");
    assert!(rig.view().director_message.starts_with("Not switched"));
    assert_eq!(rig.kiosk.lexicon().id, "SMALL", "a refused switch changes nothing");
    select(&mut rig, "OTHER");
    assert!(rig.view().director_message.contains("Now judging with OTHER"), "{}", rig.view().director_message);
    let saved = Config::load(&rig.dir.path().join("config.toml"));
    assert_eq!(saved.config.active_lexicon, "OTHER", "written to the config");
    assert!(saved.config.director_pin_hash.is_some(), "the rest of the config is kept");
    rig.key(Key::Escape);
    assert_eq!(rig.view().lexicon_id, "OTHER");
    assert!(rig.challenge(&["xyzzy"]).0, "in effect at once");
    assert!(rig.audit_text().contains("lexicon_switched"));
}

#[test]
fn director_menu_closes_after_idle_and_offers_quit_only_when_allowed() {
    let mut rig = Rig::new("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(!rig.view().menu_items.iter().any(|i| i.contains("Quit")));
    rig.advance(59_000);
    rig.key(Key::Down);
    rig.advance(59_000);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    rig.advance(1_000);
    assert!(is_ready(rig.screen()), "60 s idle closes director mode");

    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "SMALL");
    config.allow_quit = true;
    let mut rig = Rig::with_config(dir, config);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    select_menu(&mut rig, "Quit");
    rig.key(Key::Enter);
    assert!(!rig.kiosk.quit_requested(), "asks for confirmation");
    rig.key(Key::Enter);
    assert!(rig.kiosk.quit_requested());
}

#[test]
fn out_of_service_when_the_lexicon_cannot_judge() {
    for active in ["BROKEN", "WRONG", "MISSING"] {
        let mut rig = Rig::new(active);
        assert_eq!(rig.screen(), &Screen::OutOfService, "{active}");
        assert_eq!(rig.view().screen, "out-of-service");
        rig.keys("1cat");
        rig.key(Key::Tab);
        rig.event(Event::JudgeButton);
        assert_eq!(rig.screen(), &Screen::OutOfService, "{active}: no judging is possible");
        assert!(rig.kiosk.lamps(false).service, "service lamp");
        // The director can fix it from here.
        open_pin(&mut rig);
        enter_pin(&mut rig, PIN);
        select_menu(&mut rig, "Use SMALL");
        rig.key(Key::Enter);
        rig.key(Key::Escape);
        assert!(is_ready(rig.screen()), "{active}");
        assert!(rig.challenge(&["cat"]).0);
    }
}

#[test]
fn with_no_licensed_lexicon_the_demo_judges_and_says_demo() {
    let mut rig = Rig::new("DEMO");
    let v = rig.view();
    assert!(v.demo && v.lexicon_id == "DEMO");
    assert!(rig.challenge(&["zebra"]).0);
    assert!(rig.view().demo, "the verdict screen says DEMO too");
}

#[test]
fn lamps_follow_verdicts_and_the_button_goes_through_the_debouncer() {
    use wordjudge::ui::Controller;
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let loaded = Config::load(&path);
    let audit = AuditLog::open(&config.audit_dir, &config.station_name).unwrap();
    let station = LiveStation::start(loaded, config.lexicon_dir.clone(), audit, None);
    let (hardware, sim) = SimHardware::new(Duration::from_millis(30));
    let clock = std::rc::Rc::new(std::cell::Cell::new(Duration::from_secs(5)));
    let c = clock.clone();
    let mut controller = Controller::new(Box::new(station), Box::new(hardware), &config.timeouts, Box::new(move || c.get()), true);
    let at = |ms: u64| Duration::from_secs(5) + Duration::from_millis(ms);
    // Chatter on Ready: nothing happens.
    sim.press_at(at(0));
    sim.release_at(at(5));
    sim.press_at(at(8));
    sim.release_at(at(100));
    controller.tick();
    assert_eq!(controller.view().screen, "ready");
    controller.key("1", false, false, false);
    controller.key("c", false, false, false);
    controller.key("a", false, false, false);
    controller.key("t", false, false, false);
    // A bouncing press in Entry judges once.
    sim.press_at(at(200));
    sim.release_at(at(203));
    sim.press_at(at(206));
    sim.release_at(at(400));
    clock.set(at(400));
    controller.tick();
    let v = controller.view();
    assert_eq!(v.screen, "verdict");
    assert_eq!(sim.lamps(), Lamps { green: true, red: false, service: false });
    assert_eq!(v.lamps, sim.lamps(), "the on-screen lamps match");
    clock.set(at(11_000));
    controller.tick();
    assert_eq!(controller.view().screen, "ready");
    assert_eq!(sim.lamps(), Lamps::default(), "both off when the verdict clears");
    let history = sim.lamp_history();
    assert_eq!(history.iter().filter(|l| l.green).count(), 1, "one verdict, one green: {history:?}");
    controller.lamps_off();
    let _ = hardware_is_send(&controller);
}

fn hardware_is_send(_: &wordjudge::ui::Controller) -> bool {
    fn assert_send<T: Send + ?Sized>() {}
    assert_send::<dyn Hardware>();
    true
}
