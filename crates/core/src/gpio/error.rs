//! Why the GPIO could not be opened, in words for the director.

use super::config::*;
use std::fmt;

/// Why the GPIO could not be opened. Every variant leaves the station running
/// without the button and lamps ([`super::open()`]); the message is for the director.
#[derive(Debug)]
#[non_exhaustive]
pub enum GpioError {
    /// A BCM number that is not on the 40-pin header (0–27): a typo, or a
    /// physical pin number written where the BCM number belongs.
    PinOutOfRange { role: Role, bcm: u8 },
    /// Two roles on one pin: one of them is miswired in the config.
    PinShared { bcm: u8, first: Role, second: Role },
    /// A button pull resistor that fights its polarity: the button would read
    /// pressed while idle.
    ButtonPolarity { pull: Pull, active_low: bool },
    /// A debounce beyond [`MAX_DEBOUNCE_MS`].
    DebounceOutOfRange(u64),
    /// `--gpio rppal` or `--gpio cdev` was asked for but `[gpio]` wires no pin.
    NothingWired,
    /// No GPIO chip carries the 40-pin header (or the one `[gpio] chip` names).
    NoHeaderChip { wanted: Option<String>, found: Vec<String> },
    /// The character device refused one line: busy (another program or an
    /// overlay holds it), not on this chip, or a bias the chip cannot set.
    Line { role: Role, bcm: u8, source: gpiocdev::Error },
    /// The button's watcher thread could not be started.
    Thread(std::io::Error),
    /// `[gpio]` wires pins but this machine has no GPIO chip (a desktop, a VM,
    /// or a Pi whose kernel lacks the GPIO character device).
    NoGpioChip,
    /// rppal could not open the GPIO peripheral: not a Raspberry Pi it knows,
    /// or no permission on /dev/gpiomem or /dev/gpiochip*.
    Open(rppal::gpio::Error),
    /// rppal could not claim or set up one pin: busy (another program or
    /// overlay uses it), not available on this model, or refused by the kernel.
    Pin { role: Role, bcm: u8, source: rppal::gpio::Error },
}

impl fmt::Display for GpioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpioError::PinOutOfRange { role, bcm } => write!(
                f,
                "gpio.{} = BCM{bcm} is not a GPIO on the 40-pin header (BCM 0 to {MAX_BCM}; use BCM numbers, not physical pin numbers)",
                role.config_key()
            ),
            GpioError::PinShared { bcm, first, second } => write!(
                f,
                "gpio.{} and gpio.{} are both wired to BCM{bcm}",
                first.config_key(),
                second.config_key()
            ),
            GpioError::ButtonPolarity { pull, active_low } => write!(
                f,
                "gpio.judge_button has pull = \"{}\" with active_low = {active_low}: the button would read pressed while idle (use pull = \"up\" with active_low = true for a button to GND, pull = \"down\" with active_low = false for a button to 3.3 V)",
                match pull {
                    Pull::Up => "up",
                    Pull::Down => "down",
                    Pull::None => "none",
                }
            ),
            GpioError::DebounceOutOfRange(ms) => {
                write!(f, "gpio.debounce_ms = {ms} is too long (at most {MAX_DEBOUNCE_MS})")
            }
            GpioError::NothingWired => write!(f, "a GPIO backend was asked for, but [gpio] wires no pin"),
            GpioError::NoGpioChip => write!(f, "[gpio] wires pins but this machine has no GPIO chip ({GPIO_CHIP})"),
            GpioError::NoHeaderChip { wanted, found } => {
                match wanted {
                    Some(name) => write!(f, "no GPIO chip is named {name:?} (gpio.chip)")?,
                    None => write!(
                        f,
                        "no GPIO chip carries the 40-pin header (labels {})",
                        HEADER_CHIP_LABELS.join(", ")
                    )?,
                }
                if found.is_empty() {
                    write!(f, "; this machine has none")
                } else {
                    write!(f, "; this machine has {} (set gpio.chip to one of them)", found.join(", "))
                }
            }
            GpioError::Line { role, bcm, source } => write!(f, "cannot use {} for the {role}: {source}", pin_name(*bcm)),
            GpioError::Thread(e) => write!(f, "cannot start the judge button's thread: {e}"),
            GpioError::Open(e) => write!(f, "cannot open the GPIO: {e}"),
            GpioError::Pin { role, bcm, source } => write!(f, "cannot use {} for the {role}: {source}", pin_name(*bcm)),
        }
    }
}

impl std::error::Error for GpioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GpioError::Open(e) | GpioError::Pin { source: e, .. } => Some(e),
            GpioError::Line { source, .. } => Some(source),
            GpioError::Thread(e) => Some(e),
            _ => None,
        }
    }
}
