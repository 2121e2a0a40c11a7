//! `wordjudge screenshot --all`: every screen rendered to PNG by the software
//! renderer, with no display. The screens come from the real flow and a real
//! station (the built-in demo lexicon, a scratch config and audit log), driven
//! by key presses through the `.slint` window, so the pictures show what a
//! player would see.

use super::Controller;
use crate::desks::fake::FakeStation;
use crate::desks::live::{LiveStation, StationSetup};
use crate::ui::headless::HeadlessScreen;
use crate::ui::AppWindow;
use slint::ComponentHandle;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;
use wordjudge_core::config::Config;
use wordjudge_core::gpio::NoHardware;

mod scenes;

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
        config.practice_with_demo = active == wordjudge_core::lexicon::catalog::DEMO_ID;
        config.director_pin_hash = Some(wordjudge_core::pin::hash_pin(SCREENSHOT_PIN).map_err(|e| e.to_string())?);
        std::fs::create_dir_all(&config.lexicon_dir).map_err(|e| e.to_string())?;
        let config_path = dir.path().join("config.toml");
        config.save(&config_path).map_err(|e| e.to_string())?;
        Ok(ScratchStation { dir, config_path })
    }

    /// A controller over a live station on this scratch directory, with a
    /// clock the caller moves; each folder of `sticks/` in it is a plugged-in
    /// stick. Its config and audit log are opened as the kiosk opens them.
    pub fn controller(&self, clock: Rc<Cell<Duration>>) -> Result<Controller, String> {
        let mut loaded = Config::load(&self.config_path);
        let audit = crate::app::runner::open_audit(&mut loaded)?;
        let config = loaded.config.clone();
        // With no config in force, the lists the guard remembers.
        let lexicon_dir = config.lexicon_dir.clone();
        let sticks = wordjudge_core::usb::sim::FolderSticks::new(self.dir.path().join("sticks"));
        let station = LiveStation::start(StationSetup {
            loaded,
            lexicon_dir,
            audit,
            gpio_problem: None,
            gpio_description: "none (screenshots)".into(),
            pin_checker: crate::desks::pin::checker::PinChecker::InProcess,
            appliance: false,
            sticks: std::sync::Arc::new(sticks),
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
    // The two live stations' folders stay until every picture is taken.
    let scratch = ScratchStation::new(wordjudge_core::lexicon::catalog::DEMO_ID)?;
    let missing = ScratchStation::new("TWL2016")?;
    let mut cam = scenes::Camera {
        screen: &screen,
        window: &window,
        out,
        width,
        height,
        clock: Rc::new(Cell::new(Duration::from_secs(100))),
        written: Vec::new(),
    };
    let legibility = scenes::player_scenes(&mut cam, &scratch)?;
    scenes::out_of_service_scene(&mut cam, &missing)?;
    scenes::many_lexicons_scenes(&mut cam)?;
    scenes::settings_repair_scenes(&mut cam)?;
    scenes::profile_scenes(&mut cam)?;
    scenes::usb_scenes(&mut cam)?;
    scenes::update_scenes(&mut cam)?;
    scenes::long_name_scene(&mut cam)?;
    let touch = ScratchStation::new(wordjudge_core::lexicon::catalog::DEMO_ID)?;
    scenes::touch_scenes(&mut cam, &touch)?;
    let mut written = cam.written;
    let table = out.join("legibility.txt");
    wordjudge_core::outside_files::write_atomically(&table, legibility.as_bytes())
        .map_err(|e| format!("{}: {e}", table.display()))?;
    written.push(table);
    Ok(written)
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
    let names =
        ["verdict (✓ ACCEPTABLE)", "words", "challenge number and code", "lexicon · status · time", "how it ends"];
    if heights.len() < names.len() {
        return Err(format!(
            "the verdict screen has {} lines of text, not {}: {heights:?}",
            heights.len(),
            names.len()
        ));
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
