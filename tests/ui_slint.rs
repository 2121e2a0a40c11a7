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
use wordjudge_station::app::screenshots::{ScratchStation, SCREENSHOT_PIN};
use wordjudge_station::app::{attach, Controller};
use wordjudge_station::ui::headless::{key_text, press_chord, press_key, type_text};
use wordjudge_station::ui::AppWindow;

struct Ui {
    window: AppWindow,
    clock: Rc<Cell<Duration>>,
    controller: Rc<std::cell::RefCell<Controller>>,
    _scratch: ScratchStation,
}

fn start(active: &str) -> Ui {
    start_with(active, false)
}

/// A window over a scratch station judging with `active`, its player's
/// screens showing their touch targets when `touch`.
fn start_with(active: &str, touch: bool) -> Ui {
    i_slint_backend_testing::init_no_event_loop();
    let window = AppWindow::new().unwrap();
    window.show().unwrap();
    let clock = Rc::new(Cell::new(Duration::from_secs(50)));
    let scratch = ScratchStation::new(active).unwrap();
    let controller = attach(&window, scratch.controller(clock.clone()).unwrap().with_touch(touch));
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
        wordjudge_station::app::tick(&self.window, &self.controller);
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
    assert_eq!(
        ui.texts().iter().filter(|t| t.contains("CA")).count(),
        before.iter().filter(|t| t.contains("CA")).count()
    );
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
                assert_eq!(support::forbidden_in(&b.text), None, "{screen}: a word no screen may show in {:?}", b.text);
            }
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
    // On a desktop the simulated lamps show, labelled: never over a line.
    let mut with_lamps = ui.controller.borrow().view();
    with_lamps.lamps.show = true;
    wordjudge_station::ui::show(&ui.window, &with_lamps);
    ui.fits_everywhere("entry, eight words, the simulated lamps shown", true);
    wordjudge_station::ui::show(&ui.window, &ui.controller.borrow().view());
    ui.key(&key_text(Key::Tab));
    assert!(ui.shows("✗ UNACCEPTABLE"), "{:?}", ui.texts());

    // The verdict with the widest slip, and each line against the same
    // line holding one short word: as tall means one line.
    let mut widest = ui.controller.borrow().view();
    widest.verdict.slip = wordjudge_station::kiosk::view::slip_text(99_999, Some("WWWWWWWW"));
    widest.verdict.words = "WWWWWWWWWWWWWWW".into();
    let mut short = widest.clone();
    short.verdict.label = "A".into();
    short.verdict.slip = "#1".into();
    short.verdict.words = "QI".into();
    for size in SIZES {
        ui.resize(size);
        wordjudge_station::ui::show(&ui.window, &short);
        let one_line = [ui.height_of("✗ A"), ui.height_of("#1"), ui.height_of("QI")];
        wordjudge_station::ui::show(&ui.window, &widest);
        let heights =
            [ui.height_of("✗ UNACCEPTABLE"), ui.height_of(&widest.verdict.slip), ui.height_of("WWWWWWWWWWWWWWW")];
        assert_eq!(
            heights, one_line,
            "at {size:?}: the verdict, the widest slip and a 15-letter word each keep one line"
        );
    }
    ui.fits_everywhere("verdict, widest slip", true);
    // Eight words, the most a challenge takes: real long ones (two to a line
    // at most) and the widest a player can type (one to a line), with the
    // rule's line and the slip hint, on a station and beside a desktop's
    // lamps: every line whole, the slip and the hint included.
    let long_words = "ENDURABLENESSES ARTIFICIALIZING BITUMINIZATIONS RATIONALISATION \
                      EXCEPTIONALISMS DEFEASIBILITIES GREISENISATIONS ACCOMPLISHMENTS";
    for words in [long_words.split(' ').collect::<Vec<_>>(), vec!["WWWWWWWWWWWWWWW"; 8]] {
        let mut eight = widest.clone();
        eight.verdict.words = words.join("  ");
        eight.verdict.consequence = "The play stands: +40 to the player: 8 words × 5".into();
        for lamps in [false, true] {
            eight.lamps.show = lamps;
            wordjudge_station::ui::show(&ui.window, &eight);
            ui.fits_everywhere(&format!("verdict of eight words like {}, lamps shown: {lamps}", words[0]), true);
            assert!(ui.shows(&eight.verdict.footer), "the slip hint stays: {:?}", ui.texts());
        }
    }
    wordjudge_station::ui::show(&ui.window, &widest);
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
    wordjudge_station::ui::show(&ui.window, &full_bar);
    ui.fits_everywhere("the fullest top bar", true);
    ui.resize(SIZES[0]);
    ui.advance(600);
    ui.key(&key_text(Key::Return));
    assert!(ui.shows_part("#0001 · code "), "the slip on Ready: {:?}", ui.texts());
    ui.fits_everywhere("ready with the last slip", true);
    // The event's rule on Ready, the longest a profile gives, beside the
    // last slip and the longest hint Ready shows.
    let mut fullest_ready = ui.controller.borrow().view();
    use wordjudge_core::profile::ChallengeRule;
    fullest_ready.ready.rule =
        [ChallengeRule::NaspaDouble, ChallengeRule::School, ChallengeRule::PointsPerWord { points: 10 }]
            .into_iter()
            .map(wordjudge_station::kiosk::view::rule_line)
            .max_by_key(|line| line.len())
            .unwrap();
    fullest_ready.ready.hint =
        "The 8 words typed were cleared: no key was pressed for 120 seconds. Nothing was judged.".into();
    wordjudge_station::ui::show(&ui.window, &fullest_ready);
    ui.fits_everywhere("ready with the event rule, the last slip and a hint", true);
    wordjudge_station::ui::show(&ui.window, &ui.controller.borrow().view());

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

#[test]
fn the_not_set_up_screen_fits_every_screen_size() {
    // A first power-on: DEMO, and no director chose it.
    i_slint_backend_testing::init_no_event_loop();
    let window = AppWindow::new().unwrap();
    window.show().unwrap();
    let clock = Rc::new(Cell::new(Duration::from_secs(50)));
    let scratch = ScratchStation::new("DEMO").unwrap();
    let mut config = wordjudge_core::config::Config::load(&scratch.config_path).config;
    config.practice_with_demo = false;
    config.save(&scratch.config_path).unwrap();
    let controller = attach(&window, scratch.controller(clock.clone()).unwrap());
    let ui = Ui { window, clock, controller, _scratch: scratch };
    assert!(ui.shows("This station is not set up for the event yet."), "{:?}", ui.texts());
    assert!(ui.shows("Please call the tournament director."), "{:?}", ui.texts());
    ui.fits_everywhere("not set up", true);
}

#[path = "kiosk/support.rs"]
mod support;

#[path = "common/fleet_laptop.rs"]
mod fleet_laptop;
#[path = "common/journal_export.rs"]
mod journal_export;
#[path = "common/journal_fields.rs"]
mod journal_fields;

#[path = "ui_slint/event_day.rs"]
mod event_day;
#[path = "ui_slint/touch.rs"]
mod touch;

/// A station holding the longest content it allows: 20 lexicons with long
/// statuses, every built-in profile (an unavailable changeover with its
/// reason among them), a 40-character name, the longest event name in its
/// fleet, a stick with a long label and an update of the longest version
/// form, and the warnings and facts of a station in trouble.
fn fullest_station() -> wordjudge_station::desks::fake::FakeStation {
    use wordjudge_station::desks::fake::{FakeLexicon, FakeStation};
    use wordjudge_station::desks::Warning;
    let ids = [
        "CSW07",
        "CSW12",
        "CSW15",
        "CSW19",
        "CSW21",
        "CSW24",
        "NSWL2018",
        "NSWL2020",
        "NSWL2023",
        "NWL2018",
        "NWL2020",
        "NWL2023",
        "OSPD4+MW11",
        "OTCWL2014",
        "SSWL2016",
        "TWL2016",
        "TWL06",
        "CLUB-2024-EXTENDED",
        "SCHOOL-LOCAL",
        "DEMO",
    ];
    let lexicons = ids
        .iter()
        .enumerate()
        .map(|(i, id)| match i % 4 {
            3 => FakeLexicon::unusable(id, "Changed since it was chosen"),
            1 => FakeLexicon {
                status: "Matches the published fingerprint (not a strong check)".into(),
                ..FakeLexicon::usable(id, "cat")
            },
            _ => FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable(id, "cat") },
        })
        .collect();
    let mut station = FakeStation::new(lexicons, support::PIN).with_active("NWL2023");
    station.profiles = wordjudge_core::profile::BUILT_IN.iter().collect();
    station.profile = wordjudge_core::profile::find("NASPA-NWL-CHANGEOVER");
    station.station_name = "Main hall, north wall — Table 112 (by th".into();
    station.appliance = true;
    station.fleet = Some("National School Scrabble Championship 2026 — Division B, day 2".into());
    station.plug("sdb1", &[("NWL2023.txt", "NWL2023")]);
    station.plug_update("sdb1", "wordjudge-update.raucb", "10.20.30-rc.4", "10.20.29");
    station.sticks[0].name = "DIRECTOR-2026 (sdb1, FAT32, 16008 MB)".into();
    station.warnings = vec![
        Warning::AuditLog("cannot write the log: No space left on device".into()),
        Warning::LexiconFileChanged { id: "NWL2023".into(), detail: "its file changed after it was verified".into() },
        Warning::Gpio("the judge button's line is busy (another program holds it)".into()),
    ];
    station.facts = vec![
        ("Profile".into(), "NASPA changeover, double challenge — NWL2023, second opinion NWL2020".into()),
        ("Last challenge".into(), "#99999 · code WWWWWWWW".into()),
        ("Station key code".into(), "wordjudge-table-112+3a4b5c6d".into()),
        ("Judge button and lamps".into(), "judge button BCM 17, green lamp BCM 22, red lamp BCM 23, service lamp BCM 24".into()),
        ("Fleet".into(), "National School Scrabble Championship 2026 — Division B, day 2: sending to the event's laptop (192.168.100.200), last sent 14:02:11".into()),
        ("Screen".into(), "HDMI-A-1 (chosen in the settings), turned 270° clockwise".into()),
    ];
    station
}

impl Ui {
    /// Shows the rig's screen, with and without the touch targets, and
    /// checks each at every size.
    fn shows_and_fits(&self, name: &str, rig: &support::Rig<wordjudge_station::desks::fake::FakeStation>) {
        use wordjudge_station::kiosk::view::{view, StationInfo};
        let mut info = StationInfo::of(&rig.station, &rig.kiosk, false);
        self.view_fits(name, &view(&rig.kiosk, &info, rig.now));
        info.touch = true;
        self.view_fits(&format!("{name}, touch"), &view(&rig.kiosk, &info, rig.now));
    }

    /// Shows a view, then checks it at every size; on the director's lists,
    /// that no row needs more than its two lines either.
    fn view_fits(&self, name: &str, v: &wordjudge_station::kiosk::view::ViewModel) {
        wordjudge_station::ui::show(&self.window, v);
        self.fits_everywhere(name, true);
        if v.menu.items.is_empty() {
            return;
        }
        for size in SIZES {
            self.resize(size);
            let boxes = self.boxes();
            let one_line =
                boxes.iter().find(|b| b.text == "◀ Back" || v.menu.items.first() == Some(&b.text)).map(|b| b.h);
            let Some(one_line) = one_line else { continue };
            for b in boxes.iter().filter(|b| v.menu.items.contains(&b.text)) {
                assert!(
                    b.h <= 2.0 * one_line + 1.0,
                    "{name} at {size:?}: the row {:?} needs more than two lines ({} px)",
                    b.text,
                    b.h
                );
            }
        }
    }
}

/// Every director screen, with the longest content the station allows, fits
/// every documented size: the pages (the lexicon page at its top, middle and
/// end), every confirmation, the prompts, the stick's and the update's
/// screens. No text outside its box, none over another, no row cut.
#[test]
fn every_director_screen_fits_every_screen_size_with_the_longest_content() {
    use support::{select_menu, Rig};
    use wordjudge_station::kiosk::flow::{Key as K, MenuItem, MenuPage, Screen};
    let ui = start("DEMO");
    let mut rig = Rig::with(fullest_station(), &Default::default());
    rig.advance(100);
    support::open_pin(&mut rig);
    ui.shows_and_fits("PIN prompt", &rig);
    support::enter_pin(&mut rig, support::PIN);
    ui.shows_and_fits("first page", &rig);
    let pages: Vec<MenuPage> = match rig.screen() {
        Screen::Director(menu) => {
            menu.items.iter().filter_map(|i| if let MenuItem::Open(p) = i { Some(*p) } else { None }).collect()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(pages.len(), 6, "status, lexicon, stick, fleet, station, power: {pages:?}");
    for page in pages {
        support::menu_home(&mut rig);
        let at = match rig.screen() {
            Screen::Director(menu) => menu.items.iter().position(|i| *i == MenuItem::Open(page)).unwrap(),
            _ => unreachable!(),
        };
        support::move_cursor(&mut rig, at);
        rig.key(K::Enter);
        ui.shows_and_fits(&format!("{page:?} page"), &rig);
        // Every entry under the cursor, and where it leads.
        let count = rig.view().menu.items.len();
        for entry in 1..count {
            support::move_cursor(&mut rig, entry);
            let name = format!("{page:?} page, entry {entry}");
            ui.shows_and_fits(&name, &rig);
            rig.key(K::Enter);
            rig.advance(50);
            ui.shows_and_fits(&format!("{name}, after ENTER"), &rig);
            // Back to the page, whatever opened (a confirmation, a prompt, a stick's screen).
            for _ in 0..3 {
                if matches!(rig.screen(), Screen::Director(menu) if menu.page == page) {
                    break;
                }
                rig.key(K::Escape);
                rig.advance(50);
            }
            if !matches!(rig.screen(), Screen::Director(menu) if menu.page == page) {
                support::menu_home(&mut rig);
                let entry = page_entry_text(&rig, page);
                select_menu(&mut rig, &entry);
                rig.key(K::Enter);
            }
        }
    }
    // The prompts with their longest values.
    select_menu(&mut rig, "Rename the station");
    rig.key(K::Enter);
    for _ in 0..40 {
        rig.key(K::Backspace);
    }
    rig.keys("WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW");
    ui.shows_and_fits("rename, 40 wide letters", &rig);
    rig.key(K::Enter);
    ui.shows_and_fits("rename's confirmation, 40 wide letters", &rig);
    rig.key(K::Escape);
    // The longest zone name the database holds, its refusal and its confirmation.
    support::menu_home(&mut rig);
    select_menu(&mut rig, "Time zone:");
    rig.key(K::Enter);
    rig.keys("America/Argentina/ComodRivadavia");
    ui.shows_and_fits("time zone, the longest name", &rig);
    rig.key(K::Enter);
    ui.shows_and_fits("time zone's confirmation, the longest name", &rig);
    rig.key(K::Escape);
    support::menu_home(&mut rig);
    select_menu(&mut rig, "Time zone:");
    rig.key(K::Enter);
    rig.keys("Mars/WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW");
    rig.key(K::Enter);
    ui.shows_and_fits("time zone, a long name refused", &rig);
    rig.key(K::Escape);
    // A damaged config: the repair and its confirmation.
    let mut station = fullest_station();
    station.held = true;
    station.warnings.push(wordjudge_station::desks::Warning::Config(
        wordjudge_core::config::ConfigProblem::LostSettings {
            path: "config.toml".into(),
            lost: vec!["director_pin_hash", "active_lexicon", "audit_dir", "station_name", "profile"],
        },
    ));
    let mut rig = Rig::with(station, &Default::default());
    ui.shows_and_fits("out of service, settings damaged", &rig);
    support::open_pin(&mut rig);
    support::enter_pin(&mut rig, support::PIN);
    ui.shows_and_fits("the repair page", &rig);
    rig.key(K::Enter);
    ui.shows_and_fits("the restore's confirmation", &rig);
    // An empty stick: its page's one entry ("Done") keeps the list's width
    // and its two lines at most, unlike the status page, whose only entry,
    // Back, leaves the room to the facts.
    let mut station = fullest_station();
    station.sticks.clear();
    station.plug("sdz", &[]);
    let mut rig = Rig::with(station, &Default::default());
    support::open_pin(&mut rig);
    support::enter_pin(&mut rig, support::PIN);
    select_menu(&mut rig, "USB stick");
    rig.key(K::Enter);
    select_menu(&mut rig, "Install lexicons from");
    rig.key(K::Enter);
    rig.advance(50);
    let empty = rig.view();
    assert_eq!(empty.menu.items, ["Done: finish with the stick and return"], "{:?}", empty.menu);
    ui.shows_and_fits("an empty stick's word lists", &rig);
    for (w, h) in SIZES {
        ui.resize((w, h));
        let u = (h / 100.0).min(w / 120.0);
        let done = ui.boxes().into_iter().find(|b| b.text.starts_with("Done:")).expect("the Done row is shown");
        assert!(done.h <= 2.0 * 1.2 * 2.8 * u, "an empty stick at {w}x{h}: Done takes more than two lines: {done:?}");
    }
    // A fresh station's first PIN.
    let mut station = fullest_station();
    station.pin = None;
    station.fresh = true;
    let mut rig = Rig::with(station, &Default::default());
    rig.key(K::DirectorChord);
    ui.shows_and_fits("the first PIN", &rig);
}

/// The first page's text for `page` (its entry's words).
fn page_entry_text(
    rig: &support::Rig<wordjudge_station::desks::fake::FakeStation>,
    page: wordjudge_station::kiosk::flow::MenuPage,
) -> String {
    let wordjudge_station::kiosk::flow::Screen::Director(menu) = rig.screen() else { panic!() };
    let at = menu.items.iter().position(|i| *i == wordjudge_station::kiosk::flow::MenuItem::Open(page)).unwrap();
    rig.view().menu.items[at].clone()
}
