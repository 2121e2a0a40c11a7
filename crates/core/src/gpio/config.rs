//! The `[gpio]` table of the station config: which BCM pins are wired,
//! their polarity and pull, the debounce, and the 40-pin header's facts
//! (BCM to physical pin, the header chips' labels).

use super::GpioError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// The GPIO character device a machine with GPIO has (tests use it to tell
/// whether this machine has any).
pub const GPIO_CHIP: &str = "/dev/gpiochip0";
/// Raspberry Pi OS's GPIO memory devices (Pi 1–4, Pi 5): where one exists,
/// `auto` uses rppal, as designed; elsewhere the character device.
pub const GPIOMEM: [&str; 2] = ["/dev/gpiomem", "/dev/gpiomem0"];
/// Labels of the chips that carry the Raspberry Pi's 40-pin header, in the
/// order they are looked for: the Pi 4 family's SoC, the Pi 5 family's RP1
/// (its bank 0, lines 0-27, is the header, numbered as on every Pi), older
/// SoCs. On each, the line offset is the header's BCM number.
pub const HEADER_CHIP_LABELS: [&str; 3] = ["pinctrl-bcm2711", "pinctrl-rp1", "pinctrl-bcm2835"];
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
        GpioConfig {
            debounce_ms: 30,
            chip: None,
            judge_button: None,
            green_lamp: None,
            red_lamp: None,
            service_lamp: None,
        }
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
