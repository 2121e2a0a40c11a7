//! The judge button and the verdict lamps.
//!
//! This module owns everything between the kiosk and the Raspberry Pi's pins:
//!
//! - [`GpioConfig`], the `[gpio]` table of the station config (which BCM pins
//!   are wired, their polarity, the button's pull resistor, the debounce time);
//! - the [`Hardware`] trait the kiosk talks to: debounced judge-button presses
//!   in, [`Lamps`] out, and a one-line description for the director menu;
//! - four implementations: the Pi's pins through `rppal` where Raspberry Pi
//!   OS's `/dev/gpiomem` exists, through the kernel's GPIO character device
//!   (`gpiocdev`, the [`cdev`] module) everywhere else (Debian's kernel, the
//!   image's), [`SimHardware`] for tests and desktops, and [`NoHardware`], the
//!   no-op a station runs with when nothing is wired or the pins cannot be had;
//! - the [`Debouncer`] both real and simulated presses go through, so what the
//!   tests prove about chattering buttons is what runs on the Pi.
//!
//! Opening never fails ([`open`]): a station without a GPIO chip, with a busy
//! pin or a config naming a pin that does not exist keeps judging from the
//! keyboard, and the kiosk shows the director why the button and lamps are off.
//! `docs/wiring.md` has the wiring table the README quotes.

pub mod cdev;
mod debounce;
mod pi;
mod sim;

pub use debounce::Debouncer;
pub use sim::{SimHandle, SimHardware};

use crate::panel::Lamps;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// The GPIO character device a machine with GPIO has (tests use it to tell
/// whether this machine has any).
pub const GPIO_CHIP: &str = "/dev/gpiochip0";
/// Raspberry Pi OS's GPIO memory devices (Pi 1–4, Pi 5): where one exists,
/// `auto` uses rppal, as designed; elsewhere the character device.
pub const GPIOMEM: [&str; 2] = ["/dev/gpiomem", "/dev/gpiomem0"];
/// Highest BCM number on the 40-pin header (BCM 0–27 are brought out).
pub const MAX_BCM: u8 = 27;
/// Longest debounce accepted: beyond a second, real double presses get lost.
pub const MAX_DEBOUNCE_MS: u64 = 1000;

/// GPIO wiring from the `[gpio]` config table. Everything is optional: the
/// default wires nothing, and the station judges from the keyboard alone.
///
/// ```toml
/// [gpio]
/// judge_button = { bcm = 17 }                  # pin 11, to GND, internal pull-up
/// green_lamp = { bcm = 22 }                    # pin 15, through a transistor
/// red_lamp = { bcm = 27 }                      # pin 13
/// service_lamp = { bcm = 23 }                  # pin 16
/// debounce_ms = 30
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpioConfig {
    /// Ignore a judge-button press that follows another button edge by less
    /// than this many milliseconds (30): contacts chatter for a few ms, and a
    /// held or bouncing button must judge once. 0 to 1000.
    pub debounce_ms: u64,
    /// The GPIO chip of the character-device backend, by path
    /// (`/dev/gpiochip0`) or label (`pinctrl-bcm2711`). Not set: the chip of
    /// the Pi's 40-pin header, found by its label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chip: Option<String>,
    /// The judge button: the same as the TAB key. Not set: no button.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_button: Option<ButtonPin>,
    /// Lit while an ACCEPTABLE verdict is on screen. Not set: no lamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub green_lamp: Option<LampPin>,
    /// Lit while an UNACCEPTABLE verdict is on screen. Not set: no lamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red_lamp: Option<LampPin>,
    /// Lit while the station is out of service or its audit log is failing,
    /// so the director sees it across the hall. Not set: no lamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_lamp: Option<LampPin>,
}

impl Default for GpioConfig {
    fn default() -> Self {
        GpioConfig { debounce_ms: 30, chip: None, judge_button: None, green_lamp: None, red_lamp: None, service_lamp: None }
    }
}

/// Where and how the judge button is wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ButtonPin {
    /// BCM GPIO number (not the physical header pin), 0 to 27.
    pub bcm: u8,
    /// The pin reads low while the button is pressed (true: the button
    /// connects the pin to GND, the usual wiring with `pull = "up"`). Set false
    /// for a button to 3.3 V with `pull = "down"`.
    #[serde(default = "yes")]
    pub active_low: bool,
    /// The Pi's built-in resistor on the button pin: "up" (default), "down",
    /// or "none" when the circuit has its own resistor.
    #[serde(default)]
    pub pull: Pull,
}

/// Where and how a lamp is wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LampPin {
    /// BCM GPIO number (not the physical header pin), 0 to 27.
    pub bcm: u8,
    /// The lamp is lit when the pin is low (false by default: a high pin
    /// switches an NPN transistor on). Many relay boards switch on a low
    /// input: set true for those.
    #[serde(default)]
    pub active_low: bool,
}

fn yes() -> bool {
    true
}

/// The Pi's built-in pull resistor on the button pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pull {
    /// Pull-up to 3.3 V: the button connects the pin to GND.
    #[default]
    Up,
    /// Pull-down to GND: the button connects the pin to 3.3 V.
    Down,
    /// No built-in resistor: the circuit has its own.
    None,
}

impl fmt::Display for Pull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pull::Up => "pull-up",
            Pull::Down => "pull-down",
            Pull::None => "no pull",
        })
    }
}

/// What a pin is wired to; names pins in errors and descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    JudgeButton,
    GreenLamp,
    RedLamp,
    ServiceLamp,
}

impl Role {
    /// The key of this pin in the `[gpio]` table.
    pub fn config_key(self) -> &'static str {
        match self {
            Role::JudgeButton => "judge_button",
            Role::GreenLamp => "green_lamp",
            Role::RedLamp => "red_lamp",
            Role::ServiceLamp => "service_lamp",
        }
    }
}

impl Role {
    /// One word for the director's description: "button", "green", ...
    pub fn short_name(self) -> &'static str {
        match self {
            Role::JudgeButton => "button",
            Role::GreenLamp => "green",
            Role::RedLamp => "red",
            Role::ServiceLamp => "service",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::JudgeButton => "judge button",
            Role::GreenLamp => "green lamp",
            Role::RedLamp => "red lamp",
            Role::ServiceLamp => "service lamp",
        })
    }
}

/// The physical header pin (1–40) of a BCM GPIO number, for people wiring.
pub fn header_pin(bcm: u8) -> Option<u8> {
    // Index: BCM number; value: physical pin on the 40-pin header.
    const PINS: [u8; 28] =
        [27, 28, 3, 5, 7, 29, 31, 26, 24, 21, 19, 23, 32, 33, 8, 10, 36, 11, 12, 35, 38, 40, 15, 16, 18, 22, 37, 13];
    PINS.get(usize::from(bcm)).copied()
}

/// "BCM17 (pin 11, active low)": a wired pin for the director's description,
/// with notes after the header pin. Both real backends describe pins so.
pub(crate) fn pin_label(bcm: u8, notes: &[&str]) -> String {
    let pin = header_pin(bcm).map(|p| format!("pin {p}"));
    let all: Vec<&str> = pin.as_deref().into_iter().chain(notes.iter().copied()).collect();
    if all.is_empty() {
        format!("BCM{bcm}")
    } else {
        format!("BCM{bcm} ({})", all.join(", "))
    }
}

/// "BCM17 (pin 11)", or just "BCM40" for a number not on the header.
pub fn pin_name(bcm: u8) -> String {
    match header_pin(bcm) {
        Some(pin) => format!("BCM{bcm} (pin {pin})"),
        None => format!("BCM{bcm}"),
    }
}

impl GpioConfig {
    /// The wiring `docs/wiring.md` suggests: button BCM17 (pin 11) to
    /// GND with the internal pull-up; green BCM22 (pin 15), red BCM27 (pin
    /// 13), service BCM23 (pin 16), active high through transistors.
    pub fn suggested() -> GpioConfig {
        GpioConfig {
            judge_button: Some(ButtonPin { bcm: 17, active_low: true, pull: Pull::Up }),
            green_lamp: Some(LampPin { bcm: 22, active_low: false }),
            red_lamp: Some(LampPin { bcm: 27, active_low: false }),
            service_lamp: Some(LampPin { bcm: 23, active_low: false }),
            ..GpioConfig::default()
        }
    }

    /// The debounce window.
    pub fn debounce(&self) -> Duration {
        Duration::from_millis(self.debounce_ms)
    }

    /// The lamps that are wired, in blink order (green, red, service).
    pub fn lamp_pins(&self) -> Vec<(Role, LampPin)> {
        [(Role::GreenLamp, self.green_lamp), (Role::RedLamp, self.red_lamp), (Role::ServiceLamp, self.service_lamp)]
            .into_iter()
            .filter_map(|(role, pin)| pin.map(|p| (role, p)))
            .collect()
    }

    /// Every wired pin with its role: the button first, then the lamps.
    pub fn pins(&self) -> Vec<(Role, u8)> {
        let button = self.judge_button.map(|b| (Role::JudgeButton, b.bcm));
        button.into_iter().chain(self.lamp_pins().into_iter().map(|(role, p)| (role, p.bcm))).collect()
    }

    /// Whether the config wires any pin at all.
    pub fn wires_anything(&self) -> bool {
        !self.pins().is_empty()
    }

    /// Checks what can be checked without hardware: pins on the header, no
    /// pin used twice, a button polarity that can work, a sane debounce. The
    /// station config can call this when it loads, to tell the director early.
    pub fn check(&self) -> Result<(), GpioError> {
        if self.debounce_ms > MAX_DEBOUNCE_MS {
            return Err(GpioError::DebounceOutOfRange(self.debounce_ms));
        }
        let pins = self.pins();
        for (i, &(role, bcm)) in pins.iter().enumerate() {
            if bcm > MAX_BCM {
                return Err(GpioError::PinOutOfRange { role, bcm });
            }
            if let Some(&(first, _)) = pins[..i].iter().find(|&&(_, other)| other == bcm) {
                return Err(GpioError::PinShared { bcm, first, second: role });
            }
        }
        if let Some(button) = self.judge_button {
            // A pull-up with an active-high button (or the reverse) reads
            // "pressed" while idle and never sees a press.
            let contradicts = match button.pull {
                Pull::Up => !button.active_low,
                Pull::Down => button.active_low,
                Pull::None => false,
            };
            if contradicts {
                return Err(GpioError::ButtonPolarity { pull: button.pull, active_low: button.active_low });
            }
        }
        Ok(())
    }
}

/// Why the GPIO could not be opened. Every variant leaves the station running
/// without the button and lamps ([`open`]); the message is for the director.
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
                        cdev::HEADER_CHIP_LABELS.join(", ")
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

/// Which hardware [`open`] uses (`--gpio auto|rppal|cdev|sim|off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// When the config wires any pin: rppal where /dev/gpiomem exists
    /// (Raspberry Pi OS), the character device where a GPIO chip exists, else none
    #[default]
    Auto,
    /// The Pi's pins through rppal, whatever the machine
    Rppal,
    /// The pins through the kernel's GPIO character device (gpiocdev)
    Cdev,
    /// A simulated button and lamps (tests, desktops, dry runs)
    Sim,
    /// No button, no lamps
    Off,
}

impl Backend {
    /// Every backend by the name `--gpio` takes.
    pub const NAMES: [(&'static str, Backend); 5] = [
        ("auto", Backend::Auto),
        ("rppal", Backend::Rppal),
        ("cdev", Backend::Cdev),
        ("sim", Backend::Sim),
        ("off", Backend::Off),
    ];

    /// What `auto` resolves to on this machine for a config that wires pins.
    pub fn resolve_auto(gpiomem_exists: bool, chip_exists: bool) -> Option<Backend> {
        if gpiomem_exists {
            Some(Backend::Rppal)
        } else if chip_exists {
            Some(Backend::Cdev)
        } else {
            None
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(name: &str) -> Result<Backend, String> {
        Backend::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, b)| b)
            .ok_or_else(|| format!("unknown GPIO backend {name:?}: use auto, rppal, cdev, sim or off"))
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

/// Opens the hardware. NEVER fails: on a machine with no GPIO chip, a busy or
/// misconfigured pin, etc., returns a no-op hardware plus Some(problem) that
/// the kiosk logs once and shows the director.
///
/// `Auto`, when the config wires anything: rppal where [`GPIOMEM`] exists
/// (Raspberry Pi OS), the character device where any GPIO chip exists.
/// Nothing wired = no hardware and no problem; wired but no chip = no
/// hardware and a problem (the director expects a button).
pub fn open(config: &GpioConfig, backend: Backend) -> (Box<dyn Hardware>, Option<String>) {
    match try_open(config, backend) {
        Ok(hardware) => (hardware, None),
        Err(e) => {
            let problem = format!("{e}; running without the judge button and lamps");
            (Box::new(NoHardware::new(format!("GPIO failed: {e}"))), Some(problem))
        }
    }
}

/// [`open`] with the failure as a typed error, for callers that must not go
/// on without the hardware (`wordjudge gpio test`).
pub fn try_open(config: &GpioConfig, backend: Backend) -> Result<Box<dyn Hardware>, GpioError> {
    match backend {
        Backend::Off => Ok(Box::new(NoHardware::new("--gpio off"))),
        Backend::Sim => {
            config.check()?;
            let (hardware, _handle) = SimHardware::new(config.debounce());
            Ok(Box::new(hardware))
        }
        Backend::Auto if !config.wires_anything() => Ok(Box::new(NoHardware::new("nothing wired in [gpio]"))),
        Backend::Auto | Backend::Rppal | Backend::Cdev => {
            config.check()?;
            if !config.wires_anything() {
                return Err(GpioError::NothingWired);
            }
            let backend = match backend {
                Backend::Auto => {
                    let gpiomem = GPIOMEM.iter().any(|p| Path::new(p).exists());
                    Backend::resolve_auto(gpiomem, !cdev::chips().is_empty()).ok_or(GpioError::NoGpioChip)?
                }
                chosen => chosen,
            };
            if backend == Backend::Rppal {
                Ok(Box::new(pi::PiHardware::open(config)?))
            } else {
                Ok(Box::new(cdev::CdevHardware::open(config)?))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wired() -> GpioConfig {
        GpioConfig { service_lamp: Some(LampPin { bcm: 23, active_low: true }), ..GpioConfig::suggested() }
    }

    #[test]
    fn default_wires_nothing_with_30_ms_debounce() {
        let config = GpioConfig::default();
        assert!(!config.wires_anything());
        assert_eq!(config.debounce(), Duration::from_millis(30));
        assert!(config.check().is_ok());
    }

    #[test]
    fn toml_defaults_for_polarity_and_pull() {
        let config: GpioConfig = toml::from_str("judge_button = { bcm = 17 }\ngreen_lamp = { bcm = 22 }").unwrap();
        assert_eq!(config.judge_button, Some(ButtonPin { bcm: 17, active_low: true, pull: Pull::Up }));
        assert_eq!(config.green_lamp, Some(LampPin { bcm: 22, active_low: false }));
        assert_eq!(config.debounce_ms, 30);
        let down: GpioConfig =
            toml::from_str("judge_button = { bcm = 5, pull = \"down\", active_low = false }").unwrap();
        assert_eq!(down.judge_button.unwrap().pull, Pull::Down);
        assert!(toml::from_str::<GpioConfig>("judge_button = { bcm = 17, pin = 11 }").is_err());
        assert!(toml::from_str::<GpioConfig>("blue_lamp = { bcm = 5 }").is_err());
        assert!(toml::from_str::<GpioConfig>("judge_button = { bcm = 17, pull = \"sideways\" }").is_err());
    }

    #[test]
    fn toml_round_trip() {
        let config = wired();
        let text = toml::to_string(&config).unwrap();
        assert_eq!(toml::from_str::<GpioConfig>(&text).unwrap(), config);
        let empty = toml::to_string(&GpioConfig::default()).unwrap();
        assert_eq!(toml::from_str::<GpioConfig>(&empty).unwrap(), GpioConfig::default());
    }

    #[test]
    fn check_rejects_what_cannot_work() {
        assert!(wired().check().is_ok());
        let mut c = wired();
        c.red_lamp = Some(LampPin { bcm: 40, active_low: false });
        assert!(matches!(c.check(), Err(GpioError::PinOutOfRange { role: Role::RedLamp, bcm: 40 })));
        let mut c = wired();
        c.service_lamp = Some(LampPin { bcm: 17, active_low: false });
        assert!(matches!(
            c.check(),
            Err(GpioError::PinShared { bcm: 17, first: Role::JudgeButton, second: Role::ServiceLamp })
        ));
        let mut c = wired();
        c.judge_button = Some(ButtonPin { bcm: 17, active_low: true, pull: Pull::Down });
        assert!(matches!(c.check(), Err(GpioError::ButtonPolarity { .. })));
        c.judge_button = Some(ButtonPin { bcm: 17, active_low: false, pull: Pull::Up });
        assert!(matches!(c.check(), Err(GpioError::ButtonPolarity { .. })));
        c.judge_button = Some(ButtonPin { bcm: 17, active_low: false, pull: Pull::None });
        assert!(c.check().is_ok());
        let mut c = wired();
        c.debounce_ms = 5000;
        assert!(matches!(c.check(), Err(GpioError::DebounceOutOfRange(5000))));
    }

    #[test]
    fn errors_name_the_config_key() {
        let e = GpioError::PinOutOfRange { role: Role::GreenLamp, bcm: 40 };
        assert!(e.to_string().contains("gpio.green_lamp = BCM40"), "{e}");
    }

    #[test]
    fn header_pins_of_the_suggested_wiring() {
        assert_eq!(header_pin(17), Some(11));
        assert_eq!(header_pin(22), Some(15));
        assert_eq!(header_pin(27), Some(13));
        assert_eq!(header_pin(23), Some(16));
        assert_eq!(header_pin(28), None);
        assert_eq!(pin_name(17), "BCM17 (pin 11)");
        // Every header GPIO maps to a distinct physical pin.
        let mut pins: Vec<u8> = (0..=MAX_BCM).filter_map(header_pin).collect();
        pins.sort_unstable();
        pins.dedup();
        assert_eq!(pins.len(), 28);
    }

    #[test]
    fn lamp_pins_in_blink_order() {
        let roles: Vec<Role> = wired().lamp_pins().into_iter().map(|(r, _)| r).collect();
        assert_eq!(roles, [Role::GreenLamp, Role::RedLamp, Role::ServiceLamp]);
    }

    #[test]
    fn auto_prefers_gpiomem_then_the_character_device() {
        assert_eq!(Backend::resolve_auto(true, true), Some(Backend::Rppal));
        assert_eq!(Backend::resolve_auto(true, false), Some(Backend::Rppal));
        assert_eq!(Backend::resolve_auto(false, true), Some(Backend::Cdev));
        assert_eq!(Backend::resolve_auto(false, false), None);
        assert_eq!("cdev".parse::<Backend>(), Ok(Backend::Cdev));
    }

    #[test]
    fn chip_is_optional_in_toml() {
        let config: GpioConfig = toml::from_str("chip = \"gpio-sim.0-node0\"\njudge_button = { bcm = 17 }").unwrap();
        assert_eq!(config.chip.as_deref(), Some("gpio-sim.0-node0"));
        assert_eq!(toml::from_str::<GpioConfig>(&toml::to_string(&config).unwrap()).unwrap(), config);
    }

    #[test]
    fn off_and_auto_with_nothing_wired_are_quiet_no_ops() {
        for backend in [Backend::Off, Backend::Auto] {
            let (mut hw, problem) = open(&GpioConfig::default(), backend);
            assert_eq!(problem, None);
            assert_eq!(hw.take_presses(), 0);
            hw.set_lamps(Lamps { green: true, ..Lamps::OFF });
            assert!(hw.describe().starts_with("none"));
        }
    }
}
