//! A kiosk flow driven by events and a fake clock, over any [`Station`]: the
//! fake one for flow rules (no files), the live one for what must reach the
//! audit log and the config.
#![allow(dead_code)]

use std::time::Duration;
use wordjudge::config::Timeouts;
use wordjudge::kiosk::fake::{FakeLexicon, FakeStation};
use wordjudge::kiosk::flow::{Event, Key, Kiosk, Screen};
use wordjudge::kiosk::station::Station;
use wordjudge::kiosk::view::{view, StationInfo, ViewModel};

pub const PIN: &str = "2468";

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
                (v.judged.verdict == wordjudge::judge::Verdict::Acceptable, v.judged.challenge_number)
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

/// Moves the director menu's selection to the first item whose text starts with `prefix`.
pub fn select_menu<S: Station>(rig: &mut Rig<S>, prefix: &str) {
    let target = rig.view().menu.items.iter().position(|i| i.starts_with(prefix)).expect(prefix);
    for _ in 0..40 {
        rig.key(Key::Up);
    }
    for _ in 0..target {
        rig.key(Key::Down);
    }
    assert_eq!(rig.view().menu.selected as usize, target);
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
    assert_eq!(rig.view().screen, wordjudge::kiosk::view::ScreenKind::OutOfService);
    rig.keys("1cat");
    rig.key(Key::Tab);
    rig.event(Event::JudgeButton);
    assert_eq!(rig.screen(), &Screen::OutOfService, "{what}: no judging is possible");
    assert!(rig.kiosk.lamps(false).service, "service lamp");
    open_pin(rig);
    enter_pin(rig, PIN);
    select_menu(rig, "Use SMALL");
    rig.key(Key::Enter);
    rig.key(Key::Escape);
    assert!(is_ready(rig.screen()), "{what}");
    assert!(rig.challenge(&["cat"]).0);
}

/// One scenario for any station: an acceptable play, then an unacceptable
/// one with a higher number. Each verdict is one word for the whole play,
/// shows every word typed, in order and unmarked, and its own slip; nothing
/// on screen names the word that failed. Returns the two challenge numbers.
pub fn one_verdict_per_play<S: Station>(rig: &mut Rig<S>, lexicon: &str) -> (u64, u64) {
    use wordjudge::kiosk::view::ScreenKind;
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
            "station_name = {:?}\nlexicon_dir = {:?}\nactive_lexicon = \"DEMO\"\naudit_dir = {:?}\n",
            station_name,
            lexicons.display().to_string(),
            dir.join("audit").display().to_string()
        ),
    )
    .unwrap();
    config
}
