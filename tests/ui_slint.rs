//! Headless UI tests with Slint's testing backend: real key events go through
//! the `.slint` window (its FocusScope and `key` callback) into the flow, and
//! the test reads back the text the window shows.

#[path = "common/built.rs"]
mod built;

use i_slint_backend_testing::ElementHandle;
use slint::platform::Key;
use slint::ComponentHandle;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use wordjudge::ui::headless::{key_text, press_chord, press_key, type_text};
use wordjudge::app::screenshots::{ScratchStation, SCREENSHOT_PIN};
use wordjudge::app::{attach, Controller};
use wordjudge::ui::AppWindow;

struct Ui {
    window: AppWindow,
    clock: Rc<Cell<Duration>>,
    controller: Rc<std::cell::RefCell<Controller>>,
    _scratch: ScratchStation,
}

fn start(active: &str) -> Ui {
    i_slint_backend_testing::init_no_event_loop();
    let window = AppWindow::new().unwrap();
    window.show().unwrap();
    let clock = Rc::new(Cell::new(Duration::from_secs(50)));
    let scratch = ScratchStation::new(active).unwrap();
    let controller = attach(&window, scratch.controller(clock.clone()).unwrap());
    Ui { window, clock, controller, _scratch: scratch }
}

impl Ui {
    /// Every text the window shows right now.
    fn texts(&self) -> Vec<String> {
        ElementHandle::find_by_element_type_name(&self.window, "Text")
            .filter_map(|e| e.accessible_label())
            .map(|s| s.to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }
    fn shows(&self, text: &str) -> bool {
        self.texts().iter().any(|t| t == text)
    }
    fn shows_part(&self, part: &str) -> bool {
        self.texts().iter().any(|t| t.contains(part))
    }
    fn key(&self, text: &str) {
        press_key(self.window.window(), text);
    }
    fn typed(&self, text: &str) {
        type_text(self.window.window(), text);
    }
    fn advance(&self, ms: u64) {
        self.clock.set(self.clock.get() + Duration::from_millis(ms));
        wordjudge::app::tick(&self.window, &self.controller);
    }
}

#[test]
fn a_challenge_typed_through_the_window_shows_one_verdict() {
    let ui = start("DEMO");
    assert!(ui.shows("How many words are you challenging?"), "{:?}", ui.texts());
    assert!(ui.shows_part("DEMO — not a tournament lexicon"), "DEMO on the Ready screen");
    ui.key("2");
    assert!(ui.shows_part("type the 2 words"), "{:?}", ui.texts());
    ui.typed("cat");
    assert!(ui.shows("CAT▁"), "letters appear uppercase: {:?}", ui.texts());
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("1 of 2 words typed."), "{:?}", ui.texts());
    ui.key(&key_text(Key::Return));
    ui.typed("zebra");
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("✓ ACCEPTABLE"), "{:?}", ui.texts());
    assert!(!ui.shows_part("UNACCEPTABLE"));
    assert!(ui.shows("CAT  ZEBRA"));
    assert!(ui.shows_part("DEMO — not a tournament lexicon"), "DEMO on the verdict screen");
    assert!(ui.shows_part("#0001 · code "), "the slip on the verdict: {:?}", ui.texts());
    ui.advance(600);
    ui.key("x");
    assert!(ui.shows_part("ACCEPTABLE"), "a letter never ends a verdict");
    ui.key(&key_text(Key::Return));
    assert!(ui.shows("How many words are you challenging?"));
    assert!(ui.shows_part("#0001 · code "), "the slip stays on Ready: {:?}", ui.texts());
    assert!(!ui.shows_part("ZEBRA"), "nothing of the last challenge on Ready");
}

#[test]
fn an_unacceptable_play_shows_the_cross_and_not_the_failing_word() {
    let ui = start("DEMO");
    ui.key("3");
    ui.typed("dog xyzzyq cat");
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("✗ UNACCEPTABLE"), "{:?}", ui.texts());
    assert!(ui.shows("DOG  XYZZYQ  CAT"), "all words, unmarked: {:?}", ui.texts());
    // A double TAB cannot skip the verdict.
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("✗ UNACCEPTABLE"));
}

#[test]
fn escape_keys_do_nothing_and_the_director_chord_asks_for_the_pin() {
    let ui = start("DEMO");
    ui.key("1");
    ui.typed("ca");
    let before = ui.texts();
    press_chord(ui.window.window(), &[Key::Alt], &key_text(Key::F4));
    press_chord(ui.window.window(), &[Key::Control], "c");
    press_chord(ui.window.window(), &[Key::Control], "q");
    press_chord(ui.window.window(), &[Key::Control, Key::Alt], &key_text(Key::Backspace));
    for c in "!@#$%^&*()_+1234567890-=[]{};:'\",.<>/?\\|`~".chars() {
        ui.key(&c.to_string());
    }
    assert!(ui.shows("CA▁"), "key mashing changes nothing: {:?}", ui.texts());
    assert_eq!(ui.texts().iter().filter(|t| t.contains("CA")).count(), before.iter().filter(|t| t.contains("CA")).count());
    ui.key(&key_text(Key::Escape));
    ui.key(&key_text(Key::Escape));
    press_chord(ui.window.window(), &[Key::Control, Key::Alt, Key::Shift], "D");
    assert!(ui.shows("Director PIN"), "{:?}", ui.texts());
    ui.typed(SCREENSHOT_PIN);
    assert!(ui.shows("●●●●"), "{:?}", ui.texts());
    ui.key(&key_text(Key::Return));
    assert!(ui.shows_part("Director menu"), "{:?}", ui.texts());
    assert!(ui.shows("Station: Table 12"), "{:?}", ui.texts());
}

#[test]
fn a_missing_lexicon_shows_the_calm_out_of_service_screen() {
    let ui = start("TWL2016");
    assert!(ui.shows("Please call the tournament director."), "{:?}", ui.texts());
    ui.key("1");
    ui.typed("cat");
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("Please call the tournament director."));
    assert!(!ui.shows_part("ACCEPTABLE"));
}

/// The capital heights `wordjudge screenshot` measures on the rendered
/// verdict at 800×480, the official 7" panel (docs/measured.md: "Legible on any
/// screen"): the words and the slip at least 5 mm, lexicon · status · time
/// at least 3 mm.
#[test]
fn the_verdict_is_legible_from_a_table_on_the_7_inch_panel() {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(crate::built::wordjudge())
        .args(["screenshot", "--width", "800", "--height", "480", "--out"])
        .arg(out.path())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let table = std::fs::read_to_string(out.path().join("legibility.txt")).unwrap();
    let mm = |name: &str| -> f64 {
        let line = table.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name}: {table}"));
        line.rsplit('\t').next().unwrap().trim_end_matches(" mm").parse().unwrap()
    };
    assert!(mm("words") >= 5.0, "{table}");
    assert!(mm("challenge number and code") >= 5.0, "{table}");
    assert!(table.contains("the widest slip (#99999 · code WWWWWWWW) keeps one line"), "{table}");
    assert!(mm("lexicon · status · time") >= 3.0, "{table}");
}

/// Every screen size the station is documented at (docs/measured.md,
/// "Legible on any screen"): the 7" panels, HDMI panels and monitors
/// landscape, and portrait screens (a panel turned 90°).
const SIZES: [(f32, f32); 10] = [
    (800., 480.),
    (1024., 600.),
    (1280., 720.),
    (1280., 800.),
    (1366., 768.),
    (1920., 1080.),
    (3840., 2160.),
    (480., 800.),
    (720., 1280.),
    (1080., 1920.),
];

/// A text on screen and its box, in window pixels.
#[derive(Debug)]
struct Shown {
    text: String,
    x: f32,
    y: f32,
    w: f32,
    h: f32,
}

impl Ui {
    fn resize(&self, (w, h): (f32, f32)) {
        self.window.window().set_size(slint::LogicalSize::new(w, h));
    }

    fn boxes(&self) -> Vec<Shown> {
        ElementHandle::find_by_element_type_name(&self.window, "Text")
            .filter_map(|e| {
                let text = e.accessible_label()?.to_string();
                let (at, size) = (e.absolute_position(), e.size());
                (!text.is_empty()).then_some(Shown { text, x: at.x, y: at.y, w: size.width, h: size.height })
            })
            .collect()
    }

    fn height_of(&self, text: &str) -> f32 {
        let found = self.boxes().into_iter().find(|b| b.text == text);
        found.unwrap_or_else(|| panic!("{text:?} is not on screen: {:?}", self.texts())).h
    }

    /// At every size: no text reaches outside the window across; with
    /// `whole`, none outside it down either, and no two texts overlap
    /// (the director menu's list scrolls and clips, so it is checked across
    /// only).
    fn fits_everywhere(&self, screen: &str, whole: bool) {
        for size in SIZES {
            self.resize(size);
            let (w, h) = size;
            let boxes = self.boxes();
            assert!(!boxes.is_empty(), "{screen} at {w}x{h}: no text");
            for b in &boxes {
                assert!(b.x >= -0.5 && b.x + b.w <= w + 0.5, "{screen} at {w}x{h}: {b:?} is cut off at a side");
                if whole {
                    assert!(b.y >= -0.5 && b.y + b.h <= h + 0.5, "{screen} at {w}x{h}: {b:?} is cut off at the bottom");
                }
            }
            if whole {
                for (i, a) in boxes.iter().enumerate() {
                    for b in &boxes[i + 1..] {
                        let apart = a.x + a.w <= b.x + 0.5
                            || b.x + b.w <= a.x + 0.5
                            || a.y + a.h <= b.y + 0.5
                            || b.y + b.h <= a.y + 0.5;
                        assert!(apart, "{screen} at {w}x{h}: {a:?} and {b:?} overlap");
                    }
                }
            }
        }
    }
}

/// Every screen lays out at every documented size, landscape and portrait:
/// no text cut off or overlapping another, and the verdict and the slip (the
/// widest a station can give) each on one line, as are the widest words a
/// player can type.
#[test]
fn every_screen_fits_every_screen_size_and_the_verdict_keeps_its_lines() {
    let ui = start("DEMO");
    ui.fits_everywhere("ready", true);
    ui.key("1");
    ui.typed("wwwwwwwwwwwwwww");
    assert!(ui.shows("WWWWWWWWWWWWWWW▁"), "{:?}", ui.texts());
    ui.fits_everywhere("entry, one word of 15 W", true);
    ui.key(&key_text(Key::Escape));
    ui.key(&key_text(Key::Escape));
    ui.key("8");
    ui.typed("abandonment cat dog zebra qi za ok wwwwwwwwwwwwwww");
    ui.fits_everywhere("entry, eight words", true);
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("✗ UNACCEPTABLE"), "{:?}", ui.texts());

    // The verdict with the widest slip, and each line against the same
    // line holding one short word: as tall means one line.
    let mut widest = ui.controller.borrow().view();
    widest.verdict.slip = wordjudge::kiosk::view::slip_text(99_999, Some("WWWWWWWW"));
    widest.verdict.words = "WWWWWWWWWWWWWWW".into();
    let mut short = widest.clone();
    short.verdict.label = "A".into();
    short.verdict.slip = "#1".into();
    short.verdict.words = "QI".into();
    for size in SIZES {
        ui.resize(size);
        wordjudge::ui::show(&ui.window, &short);
        let one_line = [ui.height_of("✗ A"), ui.height_of("#1"), ui.height_of("QI")];
        wordjudge::ui::show(&ui.window, &widest);
        let heights = [ui.height_of("✗ UNACCEPTABLE"), ui.height_of(&widest.verdict.slip), ui.height_of("WWWWWWWWWWWWWWW")];
        assert_eq!(heights, one_line, "at {size:?}: the verdict, the widest slip and a 15-letter word each keep one line");
    }
    ui.fits_everywhere("verdict, widest slip", true);
    // The fullest top bar: a long station name, DEMO, the director's
    // warning and the longest status a lexicon can have.
    let mut full_bar = widest.clone();
    full_bar.bar.station_name = "Main hall, north wall — Table 112 (by the".into();
    full_bar.bar.lexicon_id = "OSPD4+MW11".into();
    full_bar.bar.lexicon_status = "Matches the published fingerprint (not a strong check)".into();
    full_bar.bar.demo = true;
    full_bar.bar.demo_label = "DEMO — not a tournament lexicon".into();
    full_bar.bar.warning = true;
    full_bar.bar.warning_label = "⚠ director".into();
    wordjudge::ui::show(&ui.window, &full_bar);
    ui.fits_everywhere("the fullest top bar", true);
    ui.resize(SIZES[0]);
    ui.advance(600);
    ui.key(&key_text(Key::Return));
    assert!(ui.shows_part("#0001 · code "), "the slip on Ready: {:?}", ui.texts());
    ui.fits_everywhere("ready with the last slip", true);

    press_chord(ui.window.window(), &[Key::Control, Key::Alt, Key::Shift], "D");
    ui.typed("13");
    ui.fits_everywhere("director PIN", true);
    ui.key(&key_text(Key::Backspace));
    ui.key(&key_text(Key::Backspace));
    ui.typed(SCREENSHOT_PIN);
    ui.key(&key_text(Key::Return));
    assert!(ui.shows_part("Director menu"), "{:?}", ui.texts());
    ui.fits_everywhere("director menu", false);
}

#[test]
fn the_out_of_service_screen_fits_every_screen_size() {
    let out = start("TWL2016");
    assert!(out.shows("Please call the tournament director."), "{:?}", out.texts());
    out.fits_everywhere("out of service", true);
}
