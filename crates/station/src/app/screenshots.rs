//! `wordjudge screenshot --all`: every screen rendered to PNG by the software
//! renderer, with no display. The screens come from the real flow and a real
//! station (the built-in demo lexicon, a scratch config and audit log), driven
//! by key presses through the `.slint` window, so the pictures show what a
//! player would see.

use super::live::{LiveStation, StationSetup};
use super::{attach, Controller};
use wordjudge_core::recorder::AuditLog;
use wordjudge_core::config::Config;
use wordjudge_core::gpio::NoHardware;
use crate::kiosk::fake::{FakeLexicon, FakeStation};
use crate::ui::headless::{key_text, press_chord, press_key, type_text, HeadlessScreen};
use crate::ui::AppWindow;
use slint::platform::Key;
use slint::ComponentHandle;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

/// The PIN of the scratch station the screenshots use.
pub const SCREENSHOT_PIN: &str = "2468";

/// A scratch station for pictures and measurements: config, lexicon directory
/// and audit log in a temporary directory. `active` is the lexicon id.
pub struct ScratchStation {
    pub dir: tempfile::TempDir,
    pub config_path: PathBuf,
}

impl ScratchStation {
    pub fn new(active: &str) -> Result<ScratchStation, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("cannot make a scratch directory: {e}"))?;
        let mut config = Config::default();
        config.station_name = "Table 12".into();
        config.lexicon_dir = dir.path().join("lexicons");
        config.audit_dir = dir.path().join("audit");
        config.active_lexicon = active.into();
        config.director_pin_hash = Some(wordjudge_core::pin::hash_pin(SCREENSHOT_PIN).map_err(|e| e.to_string())?);
        std::fs::create_dir_all(&config.lexicon_dir).map_err(|e| e.to_string())?;
        let config_path = dir.path().join("config.toml");
        config.save(&config_path).map_err(|e| e.to_string())?;
        Ok(ScratchStation { dir, config_path })
    }

    /// A controller over a live station on this scratch directory, with a
    /// clock the caller moves.
    pub fn controller(&self, clock: Rc<Cell<Duration>>) -> Result<Controller, String> {
        let loaded = Config::load(&self.config_path);
        let config = loaded.config.clone();
        let audit = AuditLog::open(&config.audit_dir, &config.station_name).map_err(|busy| busy.to_string())?;
        let station = LiveStation::start(StationSetup {
            loaded,
            lexicon_dir: config.lexicon_dir.clone(),
            audit: Some(audit),
            gpio_problem: None,
            gpio_description: "none (screenshots)".into(),
            pin_checker: crate::app::pin_check::PinChecker::InProcess,
            appliance: false,
            sticks: std::sync::Arc::new(wordjudge_core::usb::NoSticks),
            updates: std::sync::Arc::new(wordjudge_core::update::NoUpdates),
            keyboards: std::sync::Arc::new(wordjudge_core::keyboard::NoKeyboardCheck),
        });
        Ok(Controller::new(
            Box::new(station),
            Box::new(NoHardware::new("screenshots")),
            &config.timeouts,
            Box::new(move || clock.get()),
            false,
        ))
    }
}

/// Renders every screen into `out` as PNG files; returns their paths.
pub fn render_all(out: &Path, width: u32, height: u32) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let screen = HeadlessScreen::install(width, height).map_err(|e| e.to_string())?;
    let window = AppWindow::new().map_err(|e| e.to_string())?;
    window.show().map_err(|e| e.to_string())?;
    screen.resize();
    let clock = Rc::new(Cell::new(Duration::from_secs(100)));
    let scratch = ScratchStation::new(wordjudge_core::lexicon::catalog::DEMO_ID)?;
    let controller = attach(&window, scratch.controller(clock.clone())?);
    let mut written = Vec::new();
    let mut shot = |name: &str| capture(&screen, out, name, &mut written);
    let w = window.window();
    let advance = |ms: u64| clock.set(clock.get() + Duration::from_millis(ms));

    shot("01-ready")?;
    press_key(w, "3");
    shot("02-entry-count-confirmed")?;
    advance(2000);
    type_text(w, "zebra dog");
    press_key(w, &key_text(Key::Tab));
    shot("03-entry-tab-too-early")?;
    type_text(w, " cat");
    shot("04-entry-ready-to-judge")?;
    press_key(w, &key_text(Key::Tab));
    shot("05-verdict-acceptable")?;
    let (mut legibility, lines) = measure_verdict(&screen, width, height)?;
    legibility.push_str(&widest_verdict_fits(&window, &controller, &screen, width, height, lines)?);
    crate::ui::show(&window, &controller.borrow().view());
    advance(1000);
    press_key(w, " ");
    press_key(w, "2");
    advance(2000);
    type_text(w, "cat xyzzyq");
    press_key(w, &key_text(Key::Tab));
    shot("06-verdict-unacceptable")?;
    advance(11_000);
    super::tick(&window, &controller);
    shot("17-ready-last-slip")?;
    press_key(w, "2");
    advance(2000);
    type_text(w, "zebra cat z");
    shot("18-entry-extra-word-refused")?;
    advance(52_000);
    super::tick(&window, &controller);
    shot("19-entry-countdown")?;
    advance(9_000);
    super::tick(&window, &controller);
    shot("20-ready-cleared-after-idle")?;
    press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
    type_text(w, "13");
    shot("07-director-pin")?;
    type_text(w, "57");
    press_key(w, &key_text(Key::Return));
    shot("08-director-pin-refused")?;
    type_text(w, SCREENSHOT_PIN);
    press_key(w, &key_text(Key::Return));
    shot("09-director-menu")?;
    press_key(w, &key_text(Key::Escape));

    // A station whose configured lexicon is not installed.
    let missing = ScratchStation::new("TWL2016")?;
    let _controller = attach(&window, missing.controller(clock.clone())?);
    capture(&screen, out, "10-out-of-service", &mut written)?;

    // The director menu with 20 lexicons, scrolled to the 15th: the list
    // scrolls and the cursor stays in view (a station of plain data; the
    // statuses are what the real catalogue shows).
    let mut lexicons = vec![FakeLexicon::usable("DEMO", "cat")];
    for (i, id) in [
        "CSW07", "CSW12", "CSW15", "CSW19", "CSW21", "CSW24", "NSWL2018", "NSWL2020", "NSWL2023", "NWL2018", "NWL2020",
        "NWL2023", "OSPD4+MW11", "OTCWL2014", "SSWL2016", "TWL2016", "TWL06", "CLUB-2024", "SCHOOL-LOCAL",
    ]
    .iter()
    .enumerate()
    {
        lexicons.push(match i % 4 {
            3 => FakeLexicon::unusable(id, "Missing"),
            _ => FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable(id, "cat") },
        });
    }
    let mut fake = FakeStation::new(lexicons, SCREENSHOT_PIN).with_active("CSW21");
    fake.station_name = "Table 12".into();
    fake.appliance = true;
    // What a live station's status page says of itself.
    fake.facts = vec![
        ("Profile".into(), "none (no challenge rule shown under verdicts)".into()),
        ("Last challenge".into(), "#0041 · code T3AS849W".into()),
        ("Audit signing code".into(), "4F2A-91C0-7D3E-B6A8".into()),
        ("Judge button and lamps".into(), "judge button GPIO 17, green lamp GPIO 22, red lamp GPIO 23".into()),
        ("Fleet".into(), "Nationals 2026: sending to the event's laptop (192.168.10.2), last sent 14:02:11".into()),
        ("Screen".into(), "DSI-1, not turned".into()),
    ];
    let _controller = attach(&window, fake_controller(fake, &clock));
    press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
    type_text(w, SCREENSHOT_PIN);
    press_key(w, &key_text(Key::Return));
    // The first page's second entry: Lexicon and event rule.
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    for _ in 0..14 {
        press_key(w, &key_text(Key::DownArrow));
    }
    capture(&screen, out, "11-director-menu-20-lexicons", &mut written)?;
    // ENTER on a lexicon names the switch in full and waits for a second ENTER.
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "26-director-confirm-switch", &mut written)?;
    press_key(w, &key_text(Key::Escape));
    capture(&screen, out, "27-director-nothing-changed", &mut written)?;
    press_key(w, &key_text(Key::Escape));
    // The first page's first entry: the station's status in one screen.
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "28-director-status", &mut written)?;
    press_key(w, &key_text(Key::Escape));
    press_key(w, &key_text(Key::Escape));

    // A station whose settings lost lines: the menu opens on the repair, which
    // names what was lost and asks to confirm.
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
        SCREENSHOT_PIN,
    )
    .with_active("CSW21");
    fake.station_name = "Table 12".into();
    fake.appliance = true;
    fake.held = true;
    fake.warnings.push(crate::kiosk::station::Warning::Config(wordjudge_core::config::ConfigProblem::LostSettings {
        path: "config.toml".into(),
        lost: vec!["director_pin_hash", "audit_dir"],
    }));
    let _controller = attach(&window, fake_controller(fake, &clock));
    capture(&screen, out, "29-out-of-service-settings", &mut written)?;
    press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
    type_text(w, SCREENSHOT_PIN);
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "30-director-repair", &mut written)?;
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "31-director-confirm-restore", &mut written)?;
    press_key(w, &key_text(Key::Escape));
    press_key(w, &key_text(Key::Escape));

    // Each shipped profile's verdict screen (the NASPA double challenge
    // twice: with NWL2023 and with TWL2016): the consequence line under the
    // verdict, and the changeover profile's second opinion.
    let profiles = [
        ("naspa-nwl", "NASPA-NWL", "NWL2023"),
        ("naspa-twl", "NASPA-NWL", "TWL2016"),
        ("naspa-nwl-changeover", "NASPA-NWL-CHANGEOVER", "NWL2023"),
        ("naspa-csw-5", "NASPA-CSW-5", "CSW24"),
        ("naspa-csw-10", "NASPA-CSW-10", "CSW24"),
        ("wespa-csw", "WESPA-CSW", "CSW24"),
        ("school", "SCHOOL", "OSPD4+MW11"),
        ("demo", "DEMO", "DEMO"),
    ];
    for (name, id, edition) in profiles {
        let profile = wordjudge_core::profile::find(id).ok_or_else(|| format!("no profile {id}"))?;
        let mut lexicons = vec![FakeLexicon {
            status: "Verified official".into(),
            ..FakeLexicon::usable(edition, "cat dog qi za zebra ok xu abandonment")
        }];
        let second = profile.second_opinion(edition);
        if let Some(second) = second {
            lexicons.push(FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable(second, "cat dog qi za zebra") });
        }
        let mut fake = FakeStation::new(lexicons, SCREENSHOT_PIN);
        fake.station_name = "Table 12".into();
        fake.profile = Some(profile);
        let _controller = attach(&window, fake_controller(fake, &clock));
        let words = if second.is_some() { "2zebra ok" } else { "2zebra cat" };
        type_text(w, words);
        press_key(w, &key_text(Key::Tab));
        capture(&screen, out, &format!("12-profile-{name}"), &mut written)?;
    }

    // A director's USB stick: offered first in the menu, its word lists
    // shown with what each would be, then an export done.
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
        SCREENSHOT_PIN,
    );
    fake.station_name = "Table 12".into();
    fake.appliance = true;
    fake.plug("sdb1", &[("CSW24.txt", "CSW24"), ("NWL2023.txt", "NWL2023"), ("TWL2016.txt", "NWL2018"), ("club-list.txt", "CSW21")]);
    fake.sticks[0].name = "DIRECTOR (sdb1, FAT32, 16008 MB)".into();
    let controller = attach(&window, fake_controller(fake, &clock));
    press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
    type_text(w, SCREENSHOT_PIN);
    press_key(w, &key_text(Key::Return));
    open_usb_page(w);
    capture(&screen, out, "13-usb-menu", &mut written)?;
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "14-usb-reading", &mut written)?;
    super::tick(&window, &controller);
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "15-usb-import-list", &mut written)?;
    press_key(w, &key_text(Key::Escape));
    super::tick(&window, &controller);
    // The Done screen: any key returns to the stick page, on Back.
    press_key(w, &key_text(Key::Return));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    super::tick(&window, &controller);
    capture(&screen, out, "16-usb-export-done", &mut written)?;
    press_key(w, &key_text(Key::Return));
    // Joining the fleet asks first.
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "32-director-confirm-join-fleet", &mut written)?;
    press_key(w, &key_text(Key::Escape));

    // An update of the station from a stick: the preview with what happens
    // next, installing, a refusal and a wrong PIN in the alert band.
    let updating = |current: &str, offered: &str| {
        let mut fake = FakeStation::new(
            vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
            SCREENSHOT_PIN,
        );
        fake.station_name = "Table 12".into();
        fake.appliance = true;
        fake.plug_update("sdb1", "wordjudge-update.raucb", offered, current);
        fake.sticks[0].name = "DIRECTOR (sdb1, FAT32, 16008 MB)".into();
        fake
    };
    // Opens the director menu and chooses "Install update" (after import and
    // export), then lets the check answer.
    let choose_update = |controller: &Rc<std::cell::RefCell<Controller>>| {
        press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
        type_text(w, SCREENSHOT_PIN);
        press_key(w, &key_text(Key::Return));
        open_usb_page(w);
        // Back, then the stick's install, export and fleet: the update is fifth.
        for _ in 0..4 {
            press_key(w, &key_text(Key::DownArrow));
        }
        press_key(w, &key_text(Key::Return));
        super::tick(&window, controller);
    };
    let mut fake = updating("0.1.0", "0.1.1");
    fake.update_paused_at = Some(50);
    let controller = attach(&window, fake_controller(fake, &clock));
    choose_update(&controller);
    capture(&screen, out, "22-update-preview", &mut written)?;
    press_key(w, &key_text(Key::Return));
    super::tick(&window, &controller);
    capture(&screen, out, "23-update-installing", &mut written)?;
    let mut fake = updating("0.1.0", "0.1.1");
    fake.update_check = Err(wordjudge_core::update::UpdateError::OtherStation {
        bundle: wordjudge_core::update::PI_COMPATIBLE.into(),
        station: wordjudge_core::update::PC_COMPATIBLE.into(),
    });
    let controller = attach(&window, fake_controller(fake, &clock));
    choose_update(&controller);
    capture(&screen, out, "24-update-refused", &mut written)?;
    let controller = attach(&window, fake_controller(updating("0.2.0", "0.1.0"), &clock));
    choose_update(&controller);
    press_key(w, &key_text(Key::Return));
    type_text(w, "1357");
    press_key(w, &key_text(Key::Return));
    capture(&screen, out, "25-update-downgrade-wrong-pin", &mut written)?;

    // A long station name: shortened, while the lexicon and status stay whole.
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Demo (built in)".into(), ..FakeLexicon::usable("DEMO", "cat") }],
        SCREENSHOT_PIN,
    );
    fake.station_name = "Main hall, north wall — Table 112 (by the clock)".into();
    let _controller = attach(&window, fake_controller(fake, &clock));
    capture(&screen, out, "21-long-station-name", &mut written)?;

    let table = out.join("legibility.txt");
    wordjudge_core::outside_files::write_atomically(&table, legibility.as_bytes()).map_err(|e| format!("{}: {e}", table.display()))?;
    written.push(table);
    Ok(written)
}

/// From the director menu's first page (cursor on its first entry, a stick
/// plugged in): opens the USB stick page, its third entry (after Station
/// status and Lexicon and event rule).
fn open_usb_page(w: &slint::Window) {
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
}

/// A screen the legibility table assumes for a size: the smallest usual
/// screen of that many pixels (small screens are where legibility runs
/// out), and its pixel pitch, from the active length of its long side.
pub struct ReferenceScreen {
    pub name: &'static str,
    pub mm_per_pixel: f64,
}

/// The reference screen for `width`×`height` (either way round: portrait is
/// the same panel turned). Sizes not listed are taken as a 24" 16:9
/// monitor's pitch.
pub fn reference_screen(width: u32, height: u32) -> ReferenceScreen {
    let (long, short) = (width.max(height), width.min(height));
    let (name, active_mm) = match (long, short) {
        // The official Raspberry Pi 7" display: 154.08 mm of active area across 800 pixels.
        (800, 480) => ("official Raspberry Pi 7\" display", 154.08),
        // The usual 7" HDMI panels of 1024×600 (154.2 mm across).
        (1024, 600) => ("7\" HDMI panel", 154.21),
        // Raspberry Pi Touch Display 2 (7", 720×1280, 155.5 mm along its long side).
        (1280, 720) => ("Raspberry Pi Touch Display 2, 7\"", 155.52),
        // 10.1" 16:10 panels (217 mm across).
        (1280, 800) => ("10.1\" HDMI panel", 216.96),
        // 15.6" monitors and laptop panels (344 mm across).
        (1366, 768) => ("15.6\" monitor", 344.23),
        // 27" 4K monitors (597 mm across).
        (3840, 2160) => ("27\" 4K monitor", 596.74),
        _ => ("24\" monitor", 531.0 * f64::from(long) / 1920.0),
    };
    ReferenceScreen { name, mm_per_pixel: active_mm / f64::from(long) }
}

/// Measures the verdict screen on show: the capital height of each line that
/// a player copies or reads from a distance, from the rendered pixels. The
/// demo verdict's lines are, top to bottom: the verdict, the words, the
/// slip, lexicon · status · time (which may wrap on a narrow screen: its
/// first line is measured), and how it ends. Returns the table and the
/// number of lines of text.
fn measure_verdict(screen: &HeadlessScreen, width: u32, height: u32) -> Result<(String, usize), String> {
    screen.request_redraw();
    screen.render();
    let background = screen.pixel(width / 2, height - 2);
    let below_bar = (height as f64 * 0.09) as u32;
    let heights = screen.first_glyph_heights(below_bar, background);
    let names = ["verdict (✓ ACCEPTABLE)", "words", "challenge number and code", "lexicon · status · time", "how it ends"];
    if heights.len() < names.len() {
        return Err(format!("the verdict screen has {} lines of text, not {}: {heights:?}", heights.len(), names.len()));
    }
    let measured = [heights[0], heights[1], heights[2], heights[3], heights[heights.len() - 1]];
    let screen_name = reference_screen(width, height);
    let mm = screen_name.mm_per_pixel;
    let mut table = format!(
        "# capital heights on the verdict screen at {width}x{height}, {} ({mm:.4} mm a pixel)\n",
        screen_name.name
    );
    for (name, px) in names.iter().zip(measured) {
        table.push_str(&format!("{name}\t{px} px\t{:.1} mm\n", f64::from(px) * mm));
    }
    Ok((table, heights.len()))
}

/// The same verdict with the widest slip a station can show (a five-digit
/// number, a code of the alphabet's widest letter) must keep it on one line,
/// as the measured one does: the same number of lines of text. The slip code
/// comes from the record's hash, so without this check the layout would
/// depend on which code the clock happened to give.
fn widest_verdict_fits(
    window: &AppWindow,
    controller: &Rc<std::cell::RefCell<Controller>>,
    screen: &HeadlessScreen,
    width: u32,
    height: u32,
    lines: usize,
) -> Result<String, String> {
    let mut widest = controller.borrow().view();
    widest.verdict.slip = crate::kiosk::view::slip_text(99_999, Some("WWWWWWWW"));
    crate::ui::show(window, &widest);
    match measure_verdict(screen, width, height) {
        Ok((_, n)) if n == lines => Ok(format!("# the widest slip ({}) keeps one line\n", widest.verdict.slip)),
        Ok((_, n)) => Err(format!("the widest slip ({}) takes {} lines more", widest.verdict.slip, n - lines)),
        Err(e) => Err(format!("the widest slip ({}) breaks the verdict's layout: {e}", widest.verdict.slip)),
    }
}

/// A controller over a station of plain data, on the caller's clock.
fn fake_controller(station: FakeStation, clock: &Rc<Cell<Duration>>) -> Controller {
    let clock = clock.clone();
    Controller::new(
        Box::new(station),
        Box::new(NoHardware::new("screenshots")),
        &wordjudge_core::config::Timeouts::default(),
        Box::new(move || clock.get()),
        false,
    )
}

fn capture(screen: &HeadlessScreen, out: &Path, name: &str, written: &mut Vec<PathBuf>) -> Result<(), String> {
    screen.request_redraw();
    screen.render();
    let path = out.join(format!("{name}.png"));
    screen.write_png(&path).map_err(|e| e.to_string())?;
    written.push(path);
    Ok(())
}
