//! The simulated judge button and lamps: what the kiosk flow tests build on.
//! Raw edges go through the same debouncer as the Pi's pins.

use std::time::Duration;
use wordjudge_core::gpio::{self, Backend, GpioConfig, Hardware, SimHardware};
use wordjudge_core::panel::Lamps;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn sim(debounce_ms: u64) -> (SimHardware, gpio::SimHandle) {
    SimHardware::new(ms(debounce_ms))
}

#[test]
fn bounces_within_the_window_count_once() {
    let (mut hw, button) = sim(30);
    // Contacts chatter for 9 ms on the way down, then again on the way up.
    for (level, at) in [(true, 1000), (false, 1002), (true, 1003), (false, 1006), (true, 1009)] {
        button.edge(level, ms(at));
    }
    for (level, at) in [(false, 1400), (true, 1402), (false, 1405)] {
        button.edge(level, ms(at));
    }
    assert_eq!(hw.take_presses(), 1);
    assert_eq!(hw.take_presses(), 0, "presses are taken once");
}

#[test]
fn a_held_button_counts_once() {
    let (mut hw, button) = sim(30);
    assert!(button.press_at(ms(0)));
    assert!(button.is_pressed());
    assert_eq!(hw.take_presses(), 1);
    // Still held ten seconds later: nothing more, however often the kiosk asks.
    for _ in 0..5 {
        assert_eq!(hw.take_presses(), 0);
    }
    button.release_at(ms(10_000));
    assert_eq!(hw.take_presses(), 0, "the release is no press");
}

#[test]
fn presses_further_apart_than_the_window_count_twice() {
    let (mut hw, button) = sim(30);
    button.press_at(ms(0));
    button.release_at(ms(120));
    button.press_at(ms(400));
    button.release_at(ms(520));
    assert_eq!(button.pending_presses(), 2);
    assert_eq!(hw.take_presses(), 2);
}

#[test]
fn open_sim_uses_the_configured_debounce() {
    let config = GpioConfig { debounce_ms: 100, ..GpioConfig::suggested() };
    let (mut hw, problem) = gpio::open(&config, Backend::Sim);
    assert_eq!(problem, None);
    assert!(hw.describe().contains("simulated"), "{}", hw.describe());
    let button = hw.sim_handle().expect("the sim backend hands out its handle");
    // 60 ms between edges: a bounce under a 100 ms window, two presses under 30 ms.
    button.press_at(ms(0));
    button.release_at(ms(60));
    button.press_at(ms(120));
    assert_eq!(hw.take_presses(), 1);
    button.release_at(ms(300));
    button.press_at(ms(401));
    assert_eq!(hw.take_presses(), 1);
}

#[test]
fn lamps_set_are_what_is_read_back() {
    let (mut hw, lamps) = sim(30);
    assert_eq!(lamps.lamps(), Lamps::OFF);
    let green = Lamps { green: true, ..Lamps::OFF };
    let red_and_service = Lamps { red: true, service: true, ..Lamps::OFF };
    hw.set_lamps(green);
    assert_eq!(lamps.lamps(), green);
    hw.set_lamps(green); // no change, no history entry
    hw.set_lamps(red_and_service);
    hw.set_lamps(Lamps::OFF);
    assert_eq!(lamps.lamps(), Lamps::OFF);
    assert_eq!(lamps.lamp_history(), vec![green, red_and_service, Lamps::OFF]);
}

#[test]
fn dropping_the_hardware_turns_the_lamps_off() {
    let (hw, lamps) = sim(30);
    let mut hw: Box<dyn Hardware> = Box::new(hw);
    hw.set_lamps(Lamps { red: true, ..Lamps::OFF });
    assert!(!lamps.is_closed());
    drop(hw);
    assert!(lamps.is_closed());
    assert_eq!(lamps.lamps(), Lamps::OFF);
    assert_eq!(lamps.lamp_history().last(), Some(&Lamps::OFF));
}

#[test]
fn the_handle_works_from_another_thread_and_in_real_time() {
    let (mut hw, button) = sim(30);
    let clone = button.clone();
    std::thread::spawn(move || {
        assert!(clone.press_now());
        std::thread::sleep(ms(50));
        clone.release_now();
    })
    .join()
    .unwrap();
    assert!(!button.is_pressed());
    assert!(button.now() >= ms(50));
    assert_eq!(hw.take_presses(), 1);
}
