//! A kiosk flow driven by events and a fake clock, over any [`Station`]: the
//! fake one for flow rules (no files), the live one for what must reach the
//! audit log and the config.
#![allow(dead_code)]

use std::time::Duration;
use wordjudge_core::config::Timeouts;
use wordjudge_station::desks::fake::{FakeLexicon, FakeStation};
use wordjudge_station::desks::Station;
use wordjudge_station::kiosk::flow::{Event, Key, Kiosk, MenuItem, MenuPage, Screen, CONFIRM_SETTLE};
use wordjudge_station::kiosk::view::{view, StationInfo, ViewModel};

pub const PIN: &str = "2468";

/// Words no player or director screen may show, matched without case:
/// paths, file names and extensions, config keys, and words of the machinery
/// a director does not use (the command line keeps its own terms). The
/// menu's property test checks every view it reaches, the UI tests every
/// rendered screen.
pub const FORBIDDEN: &[&str] = &[
    ".fst",
    ".toml",
    ".txt",
    ".raucb",
    ".partial",
    ".csr",
    ".pem",
    ".jsonl",
    "/var/",
    "/dev/",
    "/run/",
    "/media/",
    "wordjudge-sim",
    "wordjudge-amd64",
    "wordjudge-arm64",
    "--gpio",
    "pin-guard",
    "director_pin_hash",
    "active_lexicon",
    "audit_dir",
    "display_output",
    "debounce",
    "journal",
    "digest",
    "unmount",
    "checkpoint key",
    "`",
    "http://",
    "https://",
    "version unknown",
];

/// The first word of [`FORBIDDEN`] `text` holds, if any.
pub fn forbidden_in(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    FORBIDDEN.iter().copied().find(|bad| lower.contains(bad))
}

pub struct Rig<S: Station> {
    pub kiosk: Kiosk,
    pub station: S,
    pub now: Duration,
}

/// The fake station's lexicons: the same ids and words as the live tests'
/// lists, with the statuses the lexicon code gives them.
pub fn fake_station(active: &str) -> FakeStation {
    FakeStation::new(
        vec![
            FakeLexicon::usable("DEMO", "cat dog zebra"),
            FakeLexicon::unusable("BROKEN", "Corrupt"),
            FakeLexicon::usable("OTHER", "xyzzy cat"),
            FakeLexicon::usable("SMALL", "cat dog qi za zebra abandonment"),
            FakeLexicon::unusable("WRONG", "Mismatch"),
        ],
        PIN,
    )
    .with_active(active)
}

impl Rig<FakeStation> {
    pub fn fake(active: &str) -> Rig<FakeStation> {
        Rig::with(fake_station(active), &Timeouts::default())
    }
}

impl<S: Station> Rig<S> {
    pub fn with(station: S, timeouts: &Timeouts) -> Rig<S> {
        let kiosk = Kiosk::new(&station, timeouts);
        Rig { kiosk, station, now: Duration::from_secs(1000) }
    }
    pub fn event(&mut self, event: Event) {
        self.kiosk.handle(event, self.now, &mut self.station);
    }
    /// A key pressed and released, as a keyboard sends it.
    pub fn key(&mut self, key: Key) {
        self.event(Event::Key(key));
        self.event(Event::Release(key));
    }
    pub fn keys(&mut self, text: &str) {
        for c in text.chars() {
            self.key(Key::Char(c));
        }
    }
    pub fn advance(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
        self.event(Event::Tick);
    }
    pub fn screen(&self) -> &Screen {
        self.kiosk.screen()
    }
    pub fn view(&self) -> ViewModel {
        let info = StationInfo::of(&self.station, &self.kiosk, false);
        view(&self.kiosk, &info, self.now)
    }
    pub fn hint(&self) -> String {
        self.view().hint().to_string()
    }
    pub fn words(&self) -> Vec<String> {
        match self.screen() {
            Screen::Entry(e) => e.typed_words().iter().map(|w| w.to_string()).collect(),
            other => panic!("not in Entry: {other:?}"),
        }
    }
    pub fn verdict(&self) -> (bool, u64) {
        match self.screen() {
            Screen::Verdict(v) => {
                (v.judged.verdict == wordjudge_core::judge::Verdict::Acceptable, v.judged.challenge_number)
            }
            other => panic!("not a verdict: {other:?}"),
        }
    }
    /// Ready → count → words → TAB.
    pub fn challenge(&mut self, words: &[&str]) -> (bool, u64) {
        self.keys(&words.len().to_string());
        self.keys(&words.join(" "));
        self.key(Key::Tab);
        self.verdict()
    }
}

pub fn is_ready(screen: &Screen) -> bool {
    matches!(screen, Screen::Ready { .. })
}

/// The instants of the ticks while `ms` pass from `from`: every 250 ms, and
/// at the end (the random-stream tests' idle time).
pub fn ticks(from: Duration, ms: u64) -> Vec<Duration> {
    let end = from + Duration::from_millis(ms);
    let mut at = from;
    let mut ticks = Vec::new();
    while at < end {
        at = (at + Duration::from_millis(250)).min(end);
        ticks.push(at);
    }
    ticks
}

pub fn open_pin<S: Station>(rig: &mut Rig<S>) {
    rig.key(Key::DirectorChord);
    assert!(matches!(rig.screen(), Screen::Pin(_)), "{:?}", rig.screen());
}

/// The director menu's first page: opened with the PIN when the menu is not
/// up, or reached with ESC from another page.
pub fn menu_home<S: Station>(rig: &mut Rig<S>) {
    for _ in 0..3 {
        match rig.screen() {
            Screen::Director(menu) if menu.page == MenuPage::Home => return,
            Screen::Director(_) | Screen::Confirm(_) => rig.key(Key::Escape),
            _ => {
                open_pin(rig);
                enter_pin(rig, PIN);
            }
        }
    }
    assert!(matches!(rig.screen(), Screen::Director(m) if m.page == MenuPage::Home), "{:?}", rig.screen());
}

/// Moves the cursor of the page that is up to entry `target`, one key at a time.
pub fn move_cursor<S: Station>(rig: &mut Rig<S>, target: usize) {
    for _ in 0..200 {
        let Screen::Director(menu) = rig.screen() else { panic!("not in the menu: {:?}", rig.screen()) };
        match menu.selected.cmp(&target) {
            std::cmp::Ordering::Less => rig.key(Key::Down),
            std::cmp::Ordering::Greater => rig.key(Key::Up),
            std::cmp::Ordering::Equal => return,
        }
    }
    panic!("the cursor never reached entry {target}");
}

/// Moves the director menu's cursor to the first entry whose text starts with
/// `prefix`: on the page that is up, or else on the first page's pages, one
/// after the other, as a director looks for it (the menu is opened with the
/// PIN if it is not up).
pub fn select_menu<S: Station>(rig: &mut Rig<S>, prefix: &str) {
    let find = |rig: &Rig<S>| rig.view().menu.items.iter().position(|i| i.starts_with(prefix));
    if !matches!(rig.screen(), Screen::Director(_)) {
        menu_home(rig);
    }
    if let Some(target) = find(rig) {
        return move_cursor(rig, target);
    }
    menu_home(rig);
    if let Some(target) = find(rig) {
        return move_cursor(rig, target);
    }
    let Screen::Director(home) = rig.screen() else { unreachable!() };
    let pages: Vec<usize> =
        home.items.iter().enumerate().filter(|(_, i)| matches!(i, MenuItem::Open(_))).map(|(at, _)| at).collect();
    for at in pages {
        move_cursor(rig, at);
        rig.key(Key::Enter);
        if let Some(target) = find(rig) {
            return move_cursor(rig, target);
        }
        rig.key(Key::Escape);
    }
    panic!("no menu entry starts with {prefix:?}");
}

/// On a confirmation: waits as long as it ignores ENTER, then presses it.
pub fn confirm<S: Station>(rig: &mut Rig<S>) {
    assert!(matches!(rig.screen(), Screen::Confirm(_)), "no confirmation is up: {:?}", rig.screen());
    rig.advance(CONFIRM_SETTLE.as_millis() as u64);
    rig.key(Key::Enter);
}

/// Selects the entry starting with `prefix` and chooses it: ENTER, and when
/// it asks, its confirmation.
pub fn choose<S: Station>(rig: &mut Rig<S>, prefix: &str) {
    select_menu(rig, prefix);
    rig.key(Key::Enter);
    if matches!(rig.screen(), Screen::Confirm(_)) {
        confirm(rig);
    }
}

/// ESC until the director menu is closed.
pub fn leave_menu<S: Station>(rig: &mut Rig<S>) {
    for _ in 0..4 {
        if !matches!(rig.screen(), Screen::Director(_) | Screen::Confirm(_)) {
            return;
        }
        rig.key(Key::Escape);
    }
}

pub fn enter_pin<S: Station>(rig: &mut Rig<S>, pin: &str) {
    rig.keys(pin);
    rig.key(Key::Enter);
}

/// One scenario for any station (issue 22: written once over [`Rig`]): out
/// of service, neither keys nor the button judge and the service lamp is
/// lit; the director switches to SMALL from the menu, and it judges again.
pub fn out_of_service_until_the_director_switches<S: Station>(rig: &mut Rig<S>, what: &str) {
    assert_eq!(rig.screen(), &Screen::OutOfService, "{what}");
    assert_eq!(rig.view().screen, wordjudge_station::kiosk::view::ScreenKind::OutOfService);
    rig.keys("1cat");
    rig.key(Key::Tab);
    rig.event(Event::JudgeButton);
    assert_eq!(rig.screen(), &Screen::OutOfService, "{what}: no judging is possible");
    assert!(rig.kiosk.lamps(false).service, "service lamp");
    open_pin(rig);
    enter_pin(rig, PIN);
    choose(rig, "Use SMALL");
    leave_menu(rig);
    assert!(is_ready(rig.screen()), "{what}");
    assert!(rig.challenge(&["cat"]).0);
}

/// One scenario for any station: an acceptable play, then an unacceptable
/// one with a higher number. Each verdict is one word for the whole play,
/// shows every word typed, in order and unmarked, and its own slip; nothing
/// on screen names the word that failed. Returns the two challenge numbers.
pub fn one_verdict_per_play<S: Station>(rig: &mut Rig<S>, lexicon: &str) -> (u64, u64) {
    use wordjudge_station::kiosk::view::ScreenKind;
    let (ok, first) = rig.challenge(&["cat", "zebra"]);
    assert!(ok);
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::Verdict);
    assert!(v.verdict.acceptable);
    assert_eq!(v.verdict.label, "ACCEPTABLE");
    assert_eq!(v.verdict.words, "CAT  ZEBRA");
    assert!(v.verdict.details.contains(lexicon), "{}", v.verdict.details);
    assert!(v.verdict.slip.contains(&format!("#{first:04}")), "{}", v.verdict.slip);
    rig.advance(600);
    rig.key(Key::Enter);
    let (ok, second) = rig.challenge(&["dog", "xyzzy", "qi"]);
    assert!(!ok);
    assert!(second > first, "challenge numbers are unique and increasing");
    let v = rig.view();
    assert!(!v.verdict.acceptable);
    assert_eq!(v.verdict.label, "UNACCEPTABLE");
    assert_eq!(v.verdict.words, "DOG  XYZZY  QI", "all words, in order, unmarked");
    assert!(v.verdict.slip.contains(&format!("#{second:04}")), "{}", v.verdict.slip);
    let shown = format!("{v:?}");
    assert!(!shown.contains("XYZZY:") && !shown.to_lowercase().contains("not in"), "nothing names the failing word");
    (first, second)
}

/// A station config for the real `wordjudge kiosk` process, written to DIR/config.toml:
/// the built-in DEMO list from the repository's `lexicons/`, the audit log in DIR/audit.
pub fn demo_station_config(dir: &std::path::Path, station_name: &str) -> std::path::PathBuf {
    let config = dir.join("config.toml");
    let lexicons = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicons");
    std::fs::write(
        &config,
        format!(
            "station_name = {:?}\nlexicon_dir = {:?}\nactive_lexicon = \"DEMO\"\npractice_with_demo = true\naudit_dir = {:?}\n",
            station_name,
            lexicons.display().to_string(),
            dir.join("audit").display().to_string()
        ),
    )
    .unwrap();
    config
}

/// A proptest runner for `cases` random cases, and its seed, which the log prints:
/// `PROPTEST_RNG_SEED` (which `.ci/test` sets and prints for every CI run)
/// replays it; without it a fresh seed is drawn and printed. Failures are
/// not written to files: a stream that failed is kept as a named regression
/// test instead, where a reader sees it.
pub fn seeded_runner(what: &str, cases: u32) -> (proptest::test_runner::TestRunner, u64) {
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    use std::hash::{BuildHasher, Hasher};
    let seed = match Config::default().rng_seed {
        RngSeed::Fixed(seed) => seed,
        RngSeed::Random => std::collections::hash_map::RandomState::new().build_hasher().finish(),
    };
    println!("{what}: {cases} cases from seed {seed} (replay: PROPTEST_RNG_SEED={seed})");
    eprintln!("{what}: {cases} cases from seed {seed} (replay: PROPTEST_RNG_SEED={seed})");
    let runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    });
    (runner, seed)
}
