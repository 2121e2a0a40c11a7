//! The wiring: the [`Controller`] that feeds the flow key presses, button
//! presses and clock ticks and keeps the lamps in step; the binding of a
//! controller to a Slint window ([`attach`], [`tick`]); the real station
//! ([`live`]); the kiosk's main loop ([`runner`]); and headless pictures
//! ([`screenshots`]).
//!
//! This is the top layer: it may import anything below it, and nothing below
//! imports it.

pub mod display;
pub mod no_screen;
pub mod runner;
pub mod screenshots;

use crate::desks::Station;
use crate::kiosk::flow::{Event, Kiosk};
use crate::kiosk::view::{view, StationInfo, ViewModel};
use crate::ui::{on_key_event, show, AppWindow};
use slint::ComponentHandle;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::Duration;
use wordjudge_core::config::Timeouts;
use wordjudge_core::gpio::Hardware;

/// How often the station is asked to look at its files (a lexicon changed on
/// disk, an audit log that can be written again).
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// The flow, its station and hardware, and a monotonic clock.
pub struct Controller {
    kiosk: Kiosk,
    station: Box<dyn Station>,
    hardware: Box<dyn Hardware>,
    clock: Box<dyn Fn() -> Duration>,
    show_lamps: bool,
    /// The player's screens show their touch targets.
    touch: bool,
    last_poll: Duration,
    /// When the last sign of life went to the journal.
    last_sign_of_life: Duration,
    /// The view last copied into the window: unchanged views are not copied
    /// again, so an idle kiosk does not redraw 20 times a second.
    shown: Option<ViewModel>,
}

impl Controller {
    pub fn new(
        station: Box<dyn Station>,
        hardware: Box<dyn Hardware>,
        timeouts: &Timeouts,
        clock: Box<dyn Fn() -> Duration>,
        show_lamps: bool,
    ) -> Controller {
        let kiosk = Kiosk::new(station.as_ref(), timeouts);
        let last_poll = clock();
        let mut controller = Controller {
            kiosk,
            station,
            hardware,
            clock,
            show_lamps,
            touch: false,
            last_poll,
            last_sign_of_life: last_poll,
            shown: None,
        };
        controller.update_lamps();
        controller
    }

    /// The same controller, its player's screens showing their touch
    /// targets (or not).
    pub fn with_touch(mut self, touch: bool) -> Controller {
        self.touch = touch;
        self.shown = None;
        self
    }

    /// Runs one flow event. A panic anywhere below (flow, station, lexicon)
    /// is caught here, at the kiosk's boundary: the station goes out of
    /// service and stays on screen, never a black screen or a dead process.
    fn handle(&mut self, event: Event) {
        let now = (self.clock)();
        let Controller { kiosk, station, .. } = self;
        let result = catch_unwind(AssertUnwindSafe(|| kiosk.handle(event, now, station.as_mut())));
        if result.is_err() {
            tracing::error!("a panic was caught at the kiosk's boundary; the station is out of service");
            let station = self.station.as_ref();
            let _ = catch_unwind(AssertUnwindSafe(|| self.kiosk.fault(station)));
        }
    }

    /// A key event (press, repeat or release) or a tap, already typed by
    /// the UI.
    pub fn input(&mut self, event: Event) {
        self.handle(event);
        self.update_lamps();
    }

    /// A clock tick: judge-button presses, timeouts, the periodic file
    /// check, lamps.
    pub fn tick(&mut self) {
        for _ in 0..self.hardware.take_presses() {
            self.handle(Event::JudgeButton);
        }
        self.handle(Event::Tick);
        let now = (self.clock)();
        if now >= self.last_poll + POLL_EVERY {
            self.last_poll = now;
            self.poll();
        }
        if now >= self.last_sign_of_life + wordjudge_core::fleet::SIGN_OF_LIFE_EVERY {
            self.last_sign_of_life = now;
            // In the journal the fleet's uploader sends: `fleet status`
            // says a station silent for three of these is silent.
            let state = if self.station.needs_service() { "out of service" } else { "in service" };
            tracing::info!("sign of life: the station is {state}");
        }
        self.update_lamps();
    }

    /// Asks the station to look at its files now (also done every
    /// [`POLL_EVERY`] by [`tick`](Self::tick)).
    pub fn poll(&mut self) {
        let Controller { kiosk, station, .. } = self;
        let polled = catch_unwind(AssertUnwindSafe(|| {
            if station.poll() {
                kiosk.refresh_lexicon(station.as_ref());
            }
        }));
        if polled.is_err() {
            let station = self.station.as_ref();
            let _ = catch_unwind(AssertUnwindSafe(|| self.kiosk.fault(station)));
        }
    }

    fn update_lamps(&mut self) {
        let lamps = self.kiosk.lamps(self.station.needs_service());
        self.hardware.set_lamps(lamps);
    }

    /// What the screen shows now.
    pub fn view(&self) -> ViewModel {
        let mut info = StationInfo::of(self.station.as_ref(), &self.kiosk, self.show_lamps);
        info.touch = self.touch;
        view(&self.kiosk, &info, (self.clock)())
    }

    /// The view, if it differs from the one last taken.
    pub fn changed_view(&mut self) -> Option<ViewModel> {
        let v = self.view();
        if self.shown.as_ref() == Some(&v) {
            return None;
        }
        self.shown = Some(v.clone());
        Some(v)
    }

    pub fn kiosk(&self) -> &Kiosk {
        &self.kiosk
    }

    /// The station (for tests and the main loop's start-up line).
    pub fn station(&self) -> &dyn Station {
        self.station.as_ref()
    }

    /// Lamps off (clean exit).
    pub fn lamps_off(&mut self) {
        self.hardware.set_lamps(Default::default());
    }

    /// Records a clean shut-down.
    pub fn shut_down(&mut self) {
        self.station.shut_down();
    }
}

/// Connects a window to a controller: every key goes to the flow and the
/// new view is shown at once. Returns the shared controller for ticking.
pub fn attach(window: &AppWindow, controller: Controller) -> Rc<RefCell<Controller>> {
    let mut controller = controller;
    controller.shown = None;
    let controller = Rc::new(RefCell::new(controller));
    refresh(window, &mut controller.borrow_mut());
    let weak = window.as_weak();
    let shared = controller.clone();
    on_key_event(window, move |event| {
        // A key arriving while the controller is busy (re-entrancy from the
        // event loop) is dropped rather than panicking on a double borrow.
        let Ok(mut c) = shared.try_borrow_mut() else { return };
        c.input(event);
        if let Some(window) = weak.upgrade() {
            refresh(&window, &mut c);
        }
    });
    controller
}

fn refresh(window: &AppWindow, controller: &mut Controller) {
    if let Some(v) = controller.changed_view() {
        show(window, &v);
    }
}

/// Ticks the controller and refreshes the window if the view changed.
pub fn tick(window: &AppWindow, controller: &Rc<RefCell<Controller>>) {
    let Ok(mut c) = controller.try_borrow_mut() else { return };
    c.tick();
    refresh(window, &mut c);
}
