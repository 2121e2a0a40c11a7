//! The small trait the kiosk talks to, the no-op a station runs with when
//! nothing is wired or the pins cannot be had, and the lamp logic both real
//! back-ends share ([`LampSet`]).

use super::SimHandle;
use crate::panel::Lamps;

/// The hardware behind a small trait: rppal on a Pi, simulated for tests and
/// desktops, or nothing. The kiosk polls [`Hardware::take_presses`] from its
/// event loop and calls [`Hardware::set_lamps`] whenever its screen changes.
pub trait Hardware: Send {
    /// Debounced judge-button presses since the last call (a held or
    /// chattering button = one press).
    fn take_presses(&mut self) -> u32;
    /// Lights exactly these lamps (unwired lamps are ignored).
    fn set_lamps(&mut self, lamps: Lamps);
    /// Human description for the director menu and logs ("rppal: button
    /// BCM17 (pin 11) ...", "simulated ...", "none ...").
    fn describe(&self) -> String;
    /// The handle of a simulated backend, so a desktop UI can show its lamps
    /// and inject presses; None for real and no-op hardware.
    fn sim_handle(&self) -> Option<SimHandle> {
        None
    }
}

/// The no-op hardware: no presses, lamps ignored. What a station runs with
/// when nothing is wired or the pins could not be opened.
#[derive(Debug, Clone)]
pub struct NoHardware {
    reason: String,
}

impl NoHardware {
    /// A no-op whose description gives `reason` ("nothing wired", ...).
    pub fn new(reason: impl Into<String>) -> Self {
        NoHardware { reason: reason.into() }
    }
}

impl Hardware for NoHardware {
    fn take_presses(&mut self) -> u32 {
        0
    }
    fn set_lamps(&mut self, _lamps: Lamps) {}
    fn describe(&self) -> String {
        format!("none ({})", self.reason)
    }
}

/// One lamp's output line as a real back-end drives it; the line's polarity
/// (`active_low`) is the back-end's business.
pub(crate) trait LampLine {
    /// Drives the lamp on or off. A failed write leaves the lamp as it was:
    /// the screen, not the lamp, is the verdict.
    fn set(&mut self, on: bool);
}

/// The three lamps of a real back-end, each wired or not: the one place that
/// lights exactly the lamps asked for, and that turns every lamp off when the
/// back-end goes. That happens when the set is dropped, before the lines it
/// holds are released, so no lamp stays lit for a kiosk that is gone.
#[derive(Debug)]
pub(crate) struct LampSet<L: LampLine> {
    pub(crate) green: Option<L>,
    pub(crate) red: Option<L>,
    pub(crate) service: Option<L>,
}

impl<L: LampLine> LampSet<L> {
    /// Lights exactly these lamps (unwired ones are skipped).
    pub(crate) fn show(&mut self, lamps: Lamps) {
        for (lamp, on) in
            [(&mut self.green, lamps.green), (&mut self.red, lamps.red), (&mut self.service, lamps.service)]
        {
            if let Some(lamp) = lamp {
                lamp.set(on);
            }
        }
    }
}

impl<L: LampLine> Drop for LampSet<L> {
    fn drop(&mut self) {
        self.show(Lamps::OFF);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A line that writes what it is told into a shared log.
    #[derive(Debug)]
    struct Logged(&'static str, Arc<Mutex<Vec<(&'static str, bool)>>>);

    impl LampLine for Logged {
        fn set(&mut self, on: bool) {
            self.1.lock().unwrap().push((self.0, on));
        }
    }

    #[test]
    fn a_lamp_set_lights_what_it_is_asked_skips_unwired_lamps_and_goes_dark_when_dropped() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut set = LampSet {
            green: Some(Logged("green", log.clone())),
            red: None,
            service: Some(Logged("service", log.clone())),
        };
        set.show(Lamps { green: true, red: true, service: false });
        assert_eq!(*log.lock().unwrap(), [("green", true), ("service", false)]);
        log.lock().unwrap().clear();
        drop(set);
        assert_eq!(*log.lock().unwrap(), [("green", false), ("service", false)]);
    }
}
