//! The Slint UI: the compiled `.slint` window, the one function that copies a
//! [`ViewModel`] into it, and the [`Controller`] that feeds it key presses,
//! button presses and clock ticks. The window decides nothing itself.

pub mod headless;
pub mod keymap;
pub mod runner;
pub mod screenshots;

slint::include_modules!();

use crate::config::Timeouts;
use crate::gpio::Hardware;
use crate::kiosk::flow::{Event, Kiosk};
use crate::kiosk::station::Station;
use crate::kiosk::view::{view, StationInfo, ViewModel};
use slint::{ModelRc, SharedString, VecModel};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// The flow, its station and hardware, and a monotonic clock.
pub struct Controller {
    kiosk: Kiosk,
    station: Box<dyn Station>,
    hardware: Box<dyn Hardware>,
    clock: Box<dyn Fn() -> Duration>,
    show_lamps: bool,
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
        let mut controller = Controller { kiosk, station, hardware, clock, show_lamps, shown: None };
        controller.update_lamps();
        controller
    }

    /// A key press as Slint reports it.
    pub fn key(&mut self, text: &str, ctrl: bool, alt: bool, shift: bool) {
        let key = keymap::map_key(text, ctrl, alt, shift);
        let now = (self.clock)();
        self.kiosk.handle(Event::Key(key), now, self.station.as_mut());
        self.update_lamps();
    }

    /// A clock tick: judge-button presses, timeouts, lamps.
    pub fn tick(&mut self) {
        let now = (self.clock)();
        for _ in 0..self.hardware.take_presses() {
            self.kiosk.handle(Event::JudgeButton, now, self.station.as_mut());
        }
        self.kiosk.handle(Event::Tick, now, self.station.as_mut());
        self.update_lamps();
    }

    fn update_lamps(&mut self) {
        let lamps = self.kiosk.lamps(self.station.needs_service());
        self.hardware.set_lamps(lamps);
    }

    /// What the screen shows now.
    pub fn view(&self) -> ViewModel {
        let info = StationInfo {
            station_name: self.station.station_name(),
            counts: self.station.counts(),
            warnings: self.station.warnings(),
            lamps: self.kiosk.lamps(self.station.needs_service()),
            show_lamps: self.show_lamps,
        };
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

    /// Lamps off (clean exit).
    pub fn lamps_off(&mut self) {
        self.hardware.set_lamps(Default::default());
    }

    /// Records a clean shut-down.
    pub fn shut_down(&mut self) {
        self.station.shut_down();
    }
}

fn strings(items: &[String]) -> ModelRc<SharedString> {
    ModelRc::new(VecModel::from(items.iter().map(SharedString::from).collect::<Vec<_>>()))
}

/// Copies a view into the window's properties.
pub fn apply(window: &AppWindow, v: &ViewModel) {
    window.set_screen(v.screen.into());
    window.set_station_name(v.station_name.as_str().into());
    window.set_lexicon_id(v.lexicon_id.as_str().into());
    window.set_lexicon_status(v.lexicon_status.as_str().into());
    window.set_demo(v.demo);
    window.set_warning(v.warning);
    window.set_hint(v.hint.as_str().into());
    window.set_expected(v.expected);
    window.set_words(strings(&v.words));
    window.set_current_word(v.current_word);
    window.set_confirmation(v.confirmation.as_str().into());
    window.set_acceptable(v.acceptable);
    window.set_verdict_words(v.verdict_words.as_str().into());
    window.set_verdict_details(v.verdict_details.as_str().into());
    window.set_service_detail(v.service_detail.as_str().into());
    window.set_pin_dots(v.pin_dots.as_str().into());
    window.set_pin_message(v.pin_message.as_str().into());
    window.set_menu_items(strings(&v.menu_items));
    window.set_menu_selected(v.menu_selected);
    window.set_director_lines(strings(&v.director_lines));
    window.set_director_message(v.director_message.as_str().into());
    window.set_show_lamps(v.show_lamps);
    window.set_lamp_green(v.lamps.green);
    window.set_lamp_red(v.lamps.red);
    window.set_lamp_service(v.lamps.service);
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
    window.on_key(move |text, ctrl, alt, shift| {
        let mut c = shared.borrow_mut();
        c.key(&text, ctrl, alt, shift);
        if let Some(window) = weak.upgrade() {
            refresh(&window, &mut c);
        }
    });
    controller
}

fn refresh(window: &AppWindow, controller: &mut Controller) {
    if let Some(v) = controller.changed_view() {
        apply(window, &v);
    }
}

/// Ticks the controller and refreshes the window if the view changed.
pub fn tick(window: &AppWindow, controller: &Rc<RefCell<Controller>>) {
    let mut c = controller.borrow_mut();
    c.tick();
    refresh(window, &mut c);
}
