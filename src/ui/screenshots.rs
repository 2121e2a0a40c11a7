//! `wordjudge screenshot --all`: every screen rendered to PNG by the software
//! renderer, with no display. The screens come from the real flow and a real
//! station (the built-in demo lexicon, a scratch config and audit log), driven
//! by key presses through the `.slint` window, so the pictures show what a
//! player would see.

use super::headless::{key_text, press_chord, press_key, type_text, HeadlessScreen};
use super::{attach, AppWindow, Controller};
use crate::audit::AuditLog;
use crate::config::Config;
use crate::gpio::NoHardware;
use crate::kiosk::live::LiveStation;
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
        config.director_pin_hash = Some(crate::pin::hash_pin(SCREENSHOT_PIN).map_err(|e| e.to_string())?);
        std::fs::create_dir_all(&config.lexicon_dir).map_err(|e| e.to_string())?;
        let config_path = dir.path().join("config.toml");
        config.save(&config_path).map_err(|e| e.to_string())?;
        Ok(ScratchStation { dir, config_path })
    }

    /// A controller over a live station on this scratch directory, with a
    /// clock the caller moves.
    pub fn controller(&self, clock: Rc<Cell<Duration>>) -> Controller {
        let loaded = Config::load(&self.config_path);
        let config = loaded.config.clone();
        let audit = AuditLog::open(&config.audit_dir, &config.station_name).expect("a scratch station has no other audit writer");
        let station = LiveStation::start(loaded, config.lexicon_dir.clone(), audit, None);
        Controller::new(
            Box::new(station),
            Box::new(NoHardware::new("screenshots")),
            &config.timeouts,
            Box::new(move || clock.get()),
            false,
        )
    }
}

/// Renders every screen into `out` as PNG files; returns their paths.
pub fn render_all(out: &Path, width: u32, height: u32) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let screen = HeadlessScreen::install(width, height)?;
    let window = AppWindow::new().map_err(|e| e.to_string())?;
    window.show().map_err(|e| e.to_string())?;
    screen.resize();
    let clock = Rc::new(Cell::new(Duration::from_secs(100)));
    let scratch = ScratchStation::new(crate::lexicon::catalog::DEMO_ID)?;
    let controller = attach(&window, scratch.controller(clock.clone()));
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
    advance(1000);
    press_key(w, " ");
    press_key(w, "2");
    advance(2000);
    type_text(w, "cat xyzzyq");
    press_key(w, &key_text(Key::Tab));
    shot("06-verdict-unacceptable")?;
    advance(11_000);
    controller.borrow_mut().tick();
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
    let _controller = attach(&window, missing.controller(clock.clone()));
    capture(&screen, out, "10-out-of-service", &mut written)?;
    Ok(written)
}

fn capture(screen: &HeadlessScreen, out: &Path, name: &str, written: &mut Vec<PathBuf>) -> Result<(), String> {
    screen.request_redraw();
    screen.render();
    let path = out.join(format!("{name}.png"));
    screen.write_png(&path)?;
    written.push(path);
    Ok(())
}
