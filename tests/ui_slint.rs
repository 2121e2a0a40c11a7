//! Headless UI tests with Slint's testing backend: real key events go through
//! the `.slint` window (its FocusScope and `key` callback) into the flow, and
//! the test reads back the text the window shows.

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
/// verdict at 800×480, the official 7" panel (docs/measured.md: "Legible on the 7"
/// panel"): the words and the slip at least 5 mm, lexicon · status · time
/// at least 3 mm.
#[test]
fn the_verdict_is_legible_from_a_table_on_the_7_inch_panel() {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_wordjudge"))
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
