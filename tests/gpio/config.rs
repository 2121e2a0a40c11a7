//! The `[gpio]` table inside the station config: parsed, checked by serde,
//! and written back by `Config::save` unchanged.

use wordjudge_core::config::Config;
use wordjudge_core::gpio::{ButtonPin, GpioConfig, LampPin, Pull};

#[test]
fn the_gpio_table_parses_with_documented_defaults() {
    let config = Config::from_toml(
        "[gpio]\ndebounce_ms = 50\njudge_button = { bcm = 17 }\nservice_lamp = { bcm = 23, active_low = true }\n",
    )
    .unwrap();
    let gpio = &config.gpio;
    assert_eq!(gpio.debounce_ms, 50);
    assert_eq!(gpio.judge_button, Some(ButtonPin { bcm: 17, active_low: true, pull: Pull::Up }));
    assert_eq!(gpio.service_lamp, Some(LampPin { bcm: 23, active_low: true }));
    assert_eq!(gpio.green_lamp, None);
}

#[test]
fn no_gpio_table_wires_nothing() {
    let config = Config::from_toml("station_name = \"Station 4\"\n").unwrap();
    assert_eq!(config.gpio, GpioConfig::default());
    assert!(!config.gpio.wires_anything());
}

#[test]
fn unknown_gpio_keys_are_rejected() {
    assert!(Config::from_toml("[gpio]\nbutton = 17\n").is_err());
    assert!(Config::from_toml("[gpio]\ngreen_lamp = { bcm = 22, colour = \"green\" }\n").is_err());
}

#[test]
fn a_saved_config_keeps_its_wiring() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let config = Config { gpio: GpioConfig::suggested(), ..Config::default() };
    config.save(&path).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.problem, None);
    assert_eq!(loaded.config.gpio, GpioConfig::suggested());
}
