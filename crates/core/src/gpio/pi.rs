//! The Raspberry Pi's pins through `rppal`.
//!
//! **Button: kernel edge events, not polling.** The button pin gets an rppal
//! asynchronous interrupt on both edges: the kernel's GPIO character device
//! timestamps every edge and rppal calls us back on its own thread, where a
//! [`Debouncer`] owned by the callback turns edges into presses counted in an
//! atomic the kiosk drains with `take_presses`. Polling the level from the UI
//! loop would cost CPU on the Pi, miss a quick tap between two polls and
//! debounce against the UI's timing instead of the edges' real times.
//!
//! The debounce window is also handed to the kernel (rppal's `debounce`
//! argument), which filters the contacts' chatter before it wakes anything;
//! our own [`Debouncer`] stays behind it because it also swallows release
//! bounce and a held button, and because it is the one the tests prove.
//!
//! rppal 0.22 requests the kernel line for an *asynchronous* interrupt inside
//! its callback thread and drops any error there (a line busy in another
//! program, a kernel refusing the debounce), so the button would silently
//! never press. We therefore first request the same line for a synchronous
//! interrupt, which reports those errors here, and only then hand over to the
//! asynchronous one (which releases the synchronous request first). A kernel
//! that refuses the debounce gets the request without it: our own debouncer
//! is enough.
//!
//! **Lamps.** Each lamp pin is switched to an output already driving "off"
//! (so nothing flashes at start), and `reset_on_drop` is turned off: rppal's
//! reset would return the pin to an input, leaving a transistor's base or a
//! relay board's input floating. Instead the lamp set (`LampSet`, shared with
//! the character-device back-end) drives every lamp off when dropped,
//! honouring `active_low`, and the pin keeps driving off after exit.

use super::{pin_label, Debouncer, GpioConfig, GpioError, Hardware, LampLine, LampPin, LampSet, Lamps, Pull, Role};
use rppal::gpio::{Event, Gpio, InputPin, Level, OutputPin, Trigger};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One lamp's pin and polarity.
#[derive(Debug)]
struct Lamp {
    pin: OutputPin,
    active_low: bool,
}

impl Lamp {
    fn level(on: bool, active_low: bool) -> Level {
        Level::from(on != active_low)
    }
}

impl LampLine for Lamp {
    fn set(&mut self, on: bool) {
        self.pin.write(Lamp::level(on, self.active_low));
    }
}

/// The Pi's pins; see the module docs.
#[derive(Debug)]
pub(crate) struct PiHardware {
    /// Kept for its interrupt: dropping the pin stops rppal's callback thread.
    _button: Option<InputPin>,
    presses: Arc<AtomicU32>,
    /// All off when dropped; the pins keep driving "off" after it.
    lamps: LampSet<Lamp>,
    description: String,
}

impl PiHardware {
    /// Claims and sets up every wired pin, or fails naming the first one that
    /// could not be had (the pins already claimed are released, lamps off).
    pub(crate) fn open(config: &GpioConfig) -> Result<PiHardware, GpioError> {
        let gpio = Gpio::new().map_err(GpioError::Open)?;
        let presses = Arc::new(AtomicU32::new(0));
        let mut parts = Vec::new();

        let lamp = |role: Role, wiring: Option<LampPin>, parts: &mut Vec<String>| -> Result<Option<Lamp>, GpioError> {
            let Some(wiring) = wiring else { return Ok(None) };
            let pin = gpio.get(wiring.bcm).map_err(|source| GpioError::Pin { role, bcm: wiring.bcm, source })?;
            let mut pin = match Lamp::level(false, wiring.active_low) {
                Level::Low => pin.into_output_low(),
                Level::High => pin.into_output_high(),
            };
            pin.set_reset_on_drop(false);
            let polarity: &[&str] = if wiring.active_low { &["active low"] } else { &[] };
            parts.push(format!("{} {}", role.short_name(), pin_label(wiring.bcm, polarity)));
            Ok(Some(Lamp { pin, active_low: wiring.active_low }))
        };

        let button = match config.judge_button {
            None => None,
            Some(wiring) => {
                let role = Role::JudgeButton;
                let pin_error = |source| GpioError::Pin { role, bcm: wiring.bcm, source };
                let pin = gpio.get(wiring.bcm).map_err(pin_error)?;
                let mut pin = match wiring.pull {
                    Pull::Up => pin.into_input_pullup(),
                    Pull::Down => pin.into_input_pulldown(),
                    Pull::None => pin.into_input(),
                };
                let pressed_now = pin.is_high() != wiring.active_low;
                let window = config.debounce();
                let kernel_debounce = (!window.is_zero()).then_some(window);
                // Synchronous request first: it reports a busy line or a
                // refused debounce here (see the module docs).
                let kernel_debounce = match pin.set_interrupt(Trigger::Both, kernel_debounce) {
                    Ok(()) => kernel_debounce,
                    Err(_) if kernel_debounce.is_some() => {
                        pin.set_interrupt(Trigger::Both, None).map_err(pin_error)?;
                        None
                    }
                    Err(source) => return Err(pin_error(source)),
                };
                let callback = press_counter(Debouncer::with_level(window, pressed_now), wiring.active_low, &presses);
                pin.set_async_interrupt(Trigger::Both, kernel_debounce, callback).map_err(pin_error)?;
                let polarity = if wiring.active_low { "active low" } else { "active high" };
                let pull = wiring.pull.to_string();
                let mut notes = vec![polarity, &pull];
                if pressed_now {
                    notes.push("reads pressed now");
                }
                parts.push(format!("button {}", pin_label(wiring.bcm, &notes)));
                Some(pin)
            }
        };
        let green = lamp(Role::GreenLamp, config.green_lamp, &mut parts)?;
        let red = lamp(Role::RedLamp, config.red_lamp, &mut parts)?;
        let service = lamp(Role::ServiceLamp, config.service_lamp, &mut parts)?;

        let description = format!("rppal: {}; debounce {} ms", parts.join(", "), config.debounce_ms);
        Ok(PiHardware { _button: button, presses, lamps: LampSet { green, red, service }, description })
    }
}

/// The interrupt callback: edges (kernel timestamps) through the debouncer,
/// presses into the shared counter.
fn press_counter(
    mut debouncer: Debouncer,
    active_low: bool,
    presses: &Arc<AtomicU32>,
) -> impl FnMut(Event) + Send + 'static {
    let presses = Arc::clone(presses);
    move |event: Event| {
        let high = match event.trigger {
            Trigger::RisingEdge => true,
            Trigger::FallingEdge => false,
            Trigger::Both | Trigger::Disabled => return,
        };
        let at: Duration = event.timestamp;
        if debouncer.edge(high != active_low, at) {
            presses.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Hardware for PiHardware {
    fn take_presses(&mut self) -> u32 {
        self.presses.swap(0, Ordering::Relaxed)
    }

    fn set_lamps(&mut self, lamps: Lamps) {
        self.lamps.show(lamps);
    }

    fn describe(&self) -> String {
        self.description.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lamp_levels_honour_polarity() {
        assert_eq!(Lamp::level(true, false), Level::High);
        assert_eq!(Lamp::level(false, false), Level::Low);
        assert_eq!(Lamp::level(true, true), Level::Low);
        assert_eq!(Lamp::level(false, true), Level::High);
    }

    #[test]
    fn callback_maps_edges_through_polarity_and_debouncer() {
        let presses = Arc::new(AtomicU32::new(0));
        let event = |trigger, ms| Event { timestamp: Duration::from_millis(ms), seqno: 0, trigger };
        // Active low: a falling edge is a press.
        let mut cb = press_counter(Debouncer::new(Duration::from_millis(30)), true, &presses);
        cb(event(Trigger::FallingEdge, 1000));
        cb(event(Trigger::RisingEdge, 1002));
        cb(event(Trigger::FallingEdge, 1004));
        cb(event(Trigger::RisingEdge, 1200));
        cb(event(Trigger::FallingEdge, 1500));
        assert_eq!(presses.load(Ordering::Relaxed), 2);
        // Active high: a rising edge is a press, a falling one never.
        let presses = Arc::new(AtomicU32::new(0));
        let mut cb = press_counter(Debouncer::new(Duration::from_millis(30)), false, &presses);
        cb(event(Trigger::FallingEdge, 0));
        cb(event(Trigger::RisingEdge, 100));
        assert_eq!(presses.load(Ordering::Relaxed), 1);
    }
}
