//! Whether a keyboard is plugged in. Players type the challenged words, so a
//! station with no keyboard (a Pi whose USB did not come up, a cable pulled)
//! must say so, on screen and in the audit log, rather than show READY to
//! players who cannot type.
//!
//! [`Keyboards`] is the small trait the live station asks;
//! [`UdevKeyboards`] the appliance's: the input devices udev marks
//! `ID_INPUT_KEYBOARD=1` (the property libinput itself reads) that have a
//! device node; [`SimKeyboards`] the simulated twin; [`NoKeyboardCheck`]
//! where the station cannot tell (a desktop window gets its keys from the
//! desktop, whatever keyboards it has).
//!
//! [`touchscreen_found`] asks udev the same way for a touchscreen
//! (`ID_INPUT_TOUCHSCREEN=1`), which makes the player's screens show their
//! touch targets when the config leaves it to the station.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// How many keyboards are plugged in.
pub trait Keyboards: Send + Sync {
    /// The keyboards plugged in now, or `None` when this cannot tell (no
    /// udev, a desktop): then nothing is said.
    fn count(&self) -> Option<usize>;
}

/// udev's input devices with `ID_INPUT_KEYBOARD=1` and a device node.
pub struct UdevKeyboards;

impl Keyboards for UdevKeyboards {
    fn count(&self) -> Option<usize> {
        input_nodes_with("ID_INPUT_KEYBOARD")
    }
}

/// Whether udev has a touchscreen (`ID_INPUT_TOUCHSCREEN=1`) with an event
/// node; `None` when udev cannot tell.
pub fn touchscreen_found() -> Option<bool> {
    input_nodes_with("ID_INPUT_TOUCHSCREEN").map(|n| n > 0)
}

/// udev's input event nodes whose device has `property` = 1.
fn input_nodes_with(property: &str) -> Option<usize> {
    let mut enumerator = udev::Enumerator::new().ok()?;
    enumerator.match_subsystem("input").ok()?;
    enumerator.match_property(property, "1").ok()?;
    let devices = enumerator.scan_devices().ok()?;
    // An input device is one device with children (input16, event5): count
    // the nodes libinput opens.
    Some(devices.filter(|d| d.devnode().is_some_and(|n| n.to_string_lossy().contains("/event"))).count())
}

/// The simulated twin: as many keyboards as the test says.
#[derive(Clone, Default)]
pub struct SimKeyboards(Arc<AtomicUsize>);

impl SimKeyboards {
    pub fn new(count: usize) -> SimKeyboards {
        SimKeyboards(Arc::new(AtomicUsize::new(count)))
    }

    /// Keyboards plugged in or pulled out.
    pub fn set(&self, count: usize) {
        self.0.store(count, Ordering::Relaxed);
    }
}

impl Keyboards for SimKeyboards {
    fn count(&self) -> Option<usize> {
        Some(self.0.load(Ordering::Relaxed))
    }
}

/// Where the station cannot tell (a desktop window).
pub struct NoKeyboardCheck;

impl Keyboards for NoKeyboardCheck {
    fn count(&self) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_twin_says_what_it_is_told_and_a_desktop_says_nothing() {
        let sim = SimKeyboards::new(0);
        let seen: Arc<dyn Keyboards> = Arc::new(sim.clone());
        assert_eq!(seen.count(), Some(0));
        sim.set(2);
        assert_eq!(seen.count(), Some(2));
        assert_eq!(NoKeyboardCheck.count(), None);
    }
}
