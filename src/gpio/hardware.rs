//! The small trait the kiosk talks to, and the no-op a station runs with
//! when nothing is wired or the pins cannot be had.

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
