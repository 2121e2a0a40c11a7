//! `wordjudge kiosk`: the appliance's main loop.
//!
//! Full screen through Slint's linuxkms backend on the Pi (no X, no Wayland),
//! or a window through winit with `--windowed`; the software renderer either
//! way. A 50 ms timer drives ticks (timeouts, the judge button, lamps) and the
//! systemd watchdog, so a hung UI stops the pings and systemd restarts it.
//! The process ends only through the director menu's Quit (when the config
//! allows it) or a signal from systemd.

use super::{attach, tick, Controller};
use crate::desks::live::{LiveStation, StationSetup};
use crate::desks::{Judging, LexiconView};
use crate::ui::AppWindow;
use slint::ComponentHandle;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wordjudge_core::config::Loaded;
use wordjudge_core::gpio::{self, Backend};
use wordjudge_core::recorder::AuditLog;

/// How often the kiosk ticks.
pub const TICK: Duration = Duration::from_millis(50);

/// The desktop window's own size, as `ui/app.slint` prefers it.
const DESKTOP_WINDOW: (u32, u32) = (1280, 720);

/// How the kiosk was asked to run.
pub struct KioskOptions {
    pub windowed: bool,
    pub gpio: Backend,
    pub config: Loaded,
    pub lexicon_dir: PathBuf,
    /// Running as the appliance's systemd service (`--appliance`, set by
    /// the unit): only then does the director menu offer reboot and power-off.
    pub appliance: bool,
    /// USB sticks for the director (`--usb`).
    pub usb: wordjudge_core::backend::Backend,
    /// Updates of the station from a stick (`--updates`).
    pub updates: wordjudge_core::backend::Backend,
}

/// Sets up logging: journald when there is one (structured fields), and stderr.
pub fn init_logging() {
    use tracing_subscriber::prelude::*;
    let journald = wordjudge_core::recorder::journald_layer();
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_target(false);
    let filter = tracing_subscriber::EnvFilter::try_from_env("WORDJUDGE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::registry().with(filter).with(journald).with(stderr).try_init();
}

fn select_backend(windowed: bool) -> Result<(), String> {
    let backend = if windowed { "winit" } else { "linuxkms" };
    let guard = std::cell::RefCell::new(crate::ui::keymap::ZapGuard::default());
    slint::BackendSelector::new()
        .backend_name(backend.into())
        .renderer_name("software".into())
        .with_libinput_event_hook(move |event| {
            use crate::ui::fingers::with_fingers;
            use input::event::keyboard::{KeyState, KeyboardEvent, KeyboardEventTrait};
            use input::event::touch::{TouchEvent, TouchEventSlot};
            match event {
                input::Event::Keyboard(KeyboardEvent::Key(key)) => {
                    guard.borrow_mut().swallow(key.key(), key.key_state() == KeyState::Pressed)
                }
                // Seen, never swallowed: Slint still tracks every finger,
                // and the window drops the taps a second finger spoiled.
                input::Event::Touch(touch) => {
                    let slot = |s: Option<u32>| s.map_or(0, |s| s as i32);
                    with_fingers(|fingers| match touch {
                        TouchEvent::Down(e) => fingers.down(slot(e.slot())),
                        TouchEvent::Up(e) => fingers.up(slot(e.slot())),
                        TouchEvent::Cancel(e) => fingers.cancel(slot(e.slot())),
                        _ => {}
                    });
                    false
                }
                _ => false,
            }
        })
        .select()
        .map_err(|e| format!("cannot start the {backend} display backend with the software renderer: {e}"))
}

/// Runs the kiosk until the director quits or systemd stops it.
pub fn run(mut options: KioskOptions) -> Result<(), String> {
    let started = Instant::now();
    let connectors = super::display::connectors(std::path::Path::new("/sys/class/drm"));
    let screen = choose_screen(&options, &connectors);
    init_logging();
    tracing::info!("screen: {}", screen.description);
    if let Some(problem) = &screen.problem {
        tracing::warn!("{problem}");
    }
    let stop = wordjudge_core::shutdown::stop_flag();
    // The screen first: with none to draw on, the station stays out of
    // service calmly (no_screen) instead of exiting into a crash loop.
    let window = match select_backend(options.windowed)
        .and_then(|()| AppWindow::new().map_err(|e| format!("cannot create the kiosk window: {e}")))
    {
        Ok(window) => window,
        Err(problem) if !options.windowed => {
            let problem = format!("{problem} (connectors here: {})", super::display::describe(&connectors));
            let update_state = wordjudge_core::update::open(&options.updates).state_dir();
            super::no_screen::stay_out_of_service(
                &options.config,
                options.gpio,
                update_state.as_deref(),
                &problem,
                &stop,
                TICK,
            );
            return Ok(());
        }
        Err(problem) => return Err(problem),
    };

    let config = options.config.config.clone();
    let (hardware, gpio_problem) = gpio::open(&config.gpio, options.gpio);
    let gpio_description = hardware.describe();
    // Which backend drives the button and lamps, for the operator's journal
    // (the director menu shows the same line).
    tracing::info!("judge button and lamps: {gpio_description}");
    let show_lamps = options.windowed && options.gpio == Backend::Sim;
    // Touch targets where the config asks, or (`auto`) where the appliance
    // finds a touchscreen at start; a desktop window finds none.
    let touchscreen = !options.windowed && wordjudge_core::keyboard::touchscreen_found().unwrap_or(false);
    let touch = config.touch.shown(touchscreen);
    tracing::info!("touch targets: {}", if touch { "shown" } else { "not shown" });
    let audit = open_audit(&mut options.config)?;
    if let Err(e) = options.config.remember_last_good() {
        tracing::warn!("cannot save the last good copy of the config: {e}");
    }
    let mut station = LiveStation::start(StationSetup {
        loaded: options.config,
        lexicon_dir: options.lexicon_dir,
        audit,
        gpio_problem,
        gpio_description,
        pin_checker: crate::desks::pin::checker::PinChecker::this_program(),
        appliance: options.appliance,
        sticks: std::sync::Arc::from(wordjudge_core::usb::open(&options.usb)),
        updates: std::sync::Arc::from(wordjudge_core::update::open(&options.updates)),
        keyboards: keyboards(options.windowed),
    });
    station.screen_in_use(screen.description, screen.problem);
    let lexicon = station.lexicon();
    let name = station.station_name();

    size_window(&window, options.windowed);
    let clock = Instant::now();
    let controller = attach(
        &window,
        Controller::new(Box::new(station), hardware, &config.timeouts, Box::new(move || clock.elapsed()), show_lamps)
            .with_touch(touch),
    );

    let _ticking = start_ticking(&window, &controller, stop);
    // Ready once the event loop runs with the window shown: the first frame
    // is drawn in the loop's first iteration.
    slint::Timer::single_shot(Duration::ZERO, move || announce_ready(&name, &lexicon, started));
    window.run().map_err(|e| format!("the display event loop failed: {e}"))?;
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    let mut controller = controller.borrow_mut();
    controller.lamps_off();
    controller.shut_down();
    Ok(())
}

/// The screen's rotation and connector, from the config, into the
/// environment the linuxkms backend reads when it makes the window (before
/// any thread starts). A desktop window is never turned.
fn choose_screen(options: &KioskOptions, connectors: &[super::display::Connector]) -> super::display::ScreenChoice {
    let screen = match options.windowed {
        false => super::display::choose(&options.config.config, connectors),
        true => super::display::ScreenChoice {
            env: Vec::new(),
            description: "a desktop window (the screen settings apply to a station's own screen only)".into(),
            problem: None,
        },
    };
    super::display::apply(&screen);
    screen
}

/// The audit log the station writes. A config that is broken with no last
/// good copy names no audit folder the station may trust: never start a
/// new chain. The reason still goes into the chain the folder already
/// holds, if it holds one: the folder the guard remembers (`Config::load`
/// puts it in force), else the default (on the appliance, the station's
/// own). The station stays out of service.
///
/// With no usable config the station goes on under the name its log's
/// last record carries (put in force here), not the default "Station 1":
/// its records stay its own, and the director sets it up again from it.
pub fn open_audit(loaded: &mut Loaded) -> Result<Option<AuditLog>, String> {
    let usable = loaded.usable();
    let config = &mut loaded.config;
    Ok(match usable {
        // One writer per audit folder: a second kiosk (or anything else that
        // would write) refuses to start, naming the holder.
        true => Some(AuditLog::open(&config.audit_dir, &config.station_name).map_err(|busy| busy.to_string())?),
        false => {
            let dir = &config.audit_dir;
            if let Some(name) = wordjudge_core::recorder::station_named_in_log(dir) {
                config.station_name = name;
            }
            wordjudge_core::audit::has_chain(dir).then(|| AuditLog::open(dir, &config.station_name).ok()).flatten()
        }
    })
}

/// Which keyboards the station looks for: on its own screen udev says what
/// is plugged in; a desktop window gets its keys from the desktop.
fn keyboards(windowed: bool) -> Arc<dyn wordjudge_core::keyboard::Keyboards> {
    match windowed {
        true => Arc::new(wordjudge_core::keyboard::NoKeyboardCheck),
        false => Arc::new(wordjudge_core::keyboard::UdevKeyboards),
    }
}

/// Full screen on the station; on a desktop, the window's own size
/// (ui/app.slint), or the screen's when that is smaller (an 800×480
/// panel): never cut off. It may be maximised or resized; the UI follows.
/// Alt+F4 and the window manager's close button do nothing.
fn size_window(window: &AppWindow, windowed: bool) {
    if !windowed {
        window.window().set_fullscreen(true);
    } else if let Some(screen) = super::display::desktop_screen_size() {
        let (width, height) = super::display::window_size_within(DESKTOP_WINDOW, screen);
        if (width, height) != DESKTOP_WINDOW {
            window.window().set_size(slint::PhysicalSize::new(width, height));
        }
    }
    window.window().on_close_requested(|| slint::CloseRequestResponse::KeepWindowShown);
}

/// The kiosk's tick: the controller's clock, systemd's watchdog at half
/// its interval, and the end of the event loop on a stop signal or the
/// director's Quit. The timer runs while it is kept.
fn start_ticking(window: &AppWindow, controller: &Rc<RefCell<Controller>>, stop: Arc<AtomicBool>) -> slint::Timer {
    let watchdog = sd_notify::watchdog_enabled();
    let mut last_ping = Instant::now();
    let timer = slint::Timer::default();
    let weak = window.as_weak();
    let ticking = controller.clone();
    timer.start(slint::TimerMode::Repeated, TICK, move || {
        let Some(window) = weak.upgrade() else { return };
        tick(&window, &ticking);
        if let Some(interval) = watchdog {
            if last_ping.elapsed() >= interval / 2 {
                let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
                last_ping = Instant::now();
            }
        }
        if stop.load(Ordering::Relaxed) || ticking.borrow().kiosk().quit_requested() {
            let _ = slint::quit_event_loop();
        }
    });
    timer
}

/// READY for systemd, the console line the boot tests wait for, and the
/// start-up time in the journal. The name and id come from the config
/// (outside text): escaped, so an escape sequence in them cannot drive the
/// console that shows this.
fn announce_ready(name: &str, lexicon: &LexiconView, started: Instant) {
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready]);
    let shown = |text: &str| wordjudge_core::word::printable(text, 80);
    println!(
        "WORDJUDGE READY station={} lexicon={} status={}",
        shown(name),
        shown(&lexicon.id),
        shown(&lexicon.status)
    );
    tracing::info!(startup_ms = started.elapsed().as_millis() as u64, "kiosk ready");
}
