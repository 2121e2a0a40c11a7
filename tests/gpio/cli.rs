//! `wordjudge gpio test`, the operators' wiring check, run as a program.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const WIRED: &str = "[gpio]\njudge_button = { bcm = 17 }\ngreen_lamp = { bcm = 22 }\nred_lamp = { bcm = 27 }\n";

/// Runs `wordjudge --config <file with config_text> gpio test <args>` with `stdin`.
fn gpio_test(config_text: &str, args: &[&str], stdin: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text).unwrap();
    let mut child = Command::new(crate::built::wordjudge())
        .arg("--config")
        .arg(&config)
        .args(["gpio", "test"])
        .args(args)
        .env_remove("WORDJUDGE_CONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn dry_run_blinks_each_lamp_and_prints_each_press() {
    // Two Enters: two simulated presses, spaced beyond the debounce window.
    let out = gpio_test(WIRED, &["--gpio", "sim", "--seconds", "2"], "\n\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("green lamp on: BCM22 (pin 15)"), "{stdout}");
    assert!(stdout.contains("red lamp on: BCM27 (pin 13)"), "{stdout}");
    assert!(!stdout.contains("service lamp on"), "only wired lamps blink: {stdout}");
    assert!(stdout.contains("judge button pressed (#1)"), "{stdout}");
    assert!(stdout.contains("judge button pressed (#2)"), "{stdout}");
    assert!(stdout.contains("Done: 2 judge-button presses"), "{stdout}");
}

#[test]
fn dry_run_with_nothing_wired_simulates_the_suggested_wiring() {
    let out = gpio_test("", &["--gpio", "sim", "--seconds", "1"], "");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("simulating the suggested wiring"), "{stdout}");
    assert!(stdout.contains("green lamp on"), "{stdout}");
    assert!(stdout.contains("Done: 0 judge-button presses"), "{stdout}");
}

#[test]
#[ignore = "needs a machine without a GPIO chip"]
fn needs_no_gpio_chip_gpio_test_says_so_and_exits_2() {
    assert!(!Path::new("/dev/gpiochip0").exists(), "this machine has a GPIO chip: run this test where there is none");
    for backend in ["auto", "rppal"] {
        let out = gpio_test(WIRED, &["--gpio", backend, "--seconds", "1"], "");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("--gpio sim for a dry run"), "{stderr}");
    }
}

#[test]
fn nothing_wired_or_off_is_a_usage_error() {
    let out = gpio_test("station_name = \"GPIO test\"\n", &["--seconds", "1"], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("wires no pin"), "{stderr}");
    let out = gpio_test(WIRED, &["--gpio", "off"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_bad_pin_is_named() {
    let config = "[gpio]\njudge_button = { bcm = 17 }\ngreen_lamp = { bcm = 15 }\nred_lamp = { bcm = 33 }\n";
    let out = gpio_test(config, &["--gpio", "sim", "--seconds", "1"], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("gpio.red_lamp = BCM33"), "{stderr}");
}
