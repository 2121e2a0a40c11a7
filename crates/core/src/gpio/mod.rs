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
//! `docs/wiring.md` has the wiring table.
//!
//! One file a job: `config` (the table and the header's facts), `error`,
//! `hardware` (the trait and the no-op), `open` (choosing the backend), and
//! the backends `pi`, [`cdev`] and `sim`. This file only names them; nothing
//! in it reaches down into a backend.

pub mod cdev;
mod config;
mod debounce;
mod error;
mod hardware;
mod open;
mod pi;
mod sim;

pub use config::*;
pub use debounce::Debouncer;
pub use error::GpioError;
pub use hardware::{Hardware, NoHardware};
use hardware::{LampLine, LampSet};
pub use open::{open, try_open, Backend};
pub use sim::{SimHandle, SimHardware};

use crate::panel::Lamps;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
