//! Opening the GPIO never fails: a bad pin, no GPIO chip or not a Raspberry Pi
//! leaves a working no-op hardware and a message for the director.

use std::path::Path;
use wordjudge_core::gpio::{self, Backend, GpioConfig, GpioError, Hardware, LampPin, Role};
use wordjudge_core::panel::Lamps;

/// The no-op hardware behaves: no presses, lamps ignored, says "none".
fn assert_usable_no_op(hardware: &mut dyn Hardware) {
    assert_eq!(hardware.take_presses(), 0);
    hardware.set_lamps(Lamps { green: true, red: true, service: true });
    hardware.set_lamps(Lamps::OFF);
    assert_eq!(hardware.take_presses(), 0);
    assert!(hardware.describe().starts_with("none"), "{}", hardware.describe());
    assert!(hardware.sim_handle().is_none());
}

fn on_a_pi() -> bool {
    Path::new(gpio::GPIO_CHIP).exists()
}

#[test]
fn a_pin_off_the_header_leaves_a_usable_no_op_on_every_backend() {
    let config = GpioConfig { red_lamp: Some(LampPin { bcm: 40, active_low: false }), ..GpioConfig::suggested() };
    for backend in [Backend::Auto, Backend::Rppal, Backend::Sim] {
        let (mut hardware, problem) = gpio::open(&config, backend);
        let problem = problem.expect("a bad pin is reported");
        assert!(problem.contains("gpio.red_lamp = BCM40"), "{problem}");
        assert!(problem.contains("running without the judge button and lamps"), "{problem}");
        assert_usable_no_op(hardware.as_mut());
        assert!(hardware.describe().contains("BCM40"), "the director menu says why: {}", hardware.describe());
    }
    assert!(matches!(
        gpio::try_open(&config, Backend::Rppal),
        Err(GpioError::PinOutOfRange { role: Role::RedLamp, bcm: 40 })
    ));
}

#[test]
fn a_pin_wired_twice_is_reported() {
    let config = GpioConfig { service_lamp: Some(LampPin { bcm: 22, active_low: false }), ..GpioConfig::suggested() };
    let (mut hardware, problem) = gpio::open(&config, Backend::Auto);
    let problem = problem.unwrap();
    assert!(problem.contains("gpio.green_lamp and gpio.service_lamp"), "{problem}");
    assert_usable_no_op(hardware.as_mut());
}

#[test]
#[ignore = "needs a machine without a GPIO chip"]
fn needs_no_gpio_chip_rppal_leaves_a_usable_no_op() {
    assert!(!on_a_pi(), "this machine has {}: run this test where there is none", gpio::GPIO_CHIP);
    // rppal itself fails here (not a Raspberry Pi / no GPIO chip); that must
    // come back as a message, never a panic.
    let (mut hardware, problem) = gpio::open(&GpioConfig::suggested(), Backend::Rppal);
    let problem = problem.expect("rppal cannot open GPIO here");
    assert!(problem.starts_with("cannot open the GPIO"), "{problem}");
    assert_usable_no_op(hardware.as_mut());
    assert!(matches!(gpio::try_open(&GpioConfig::suggested(), Backend::Rppal), Err(GpioError::Open(_))));
}

#[test]
#[ignore = "needs a machine without a GPIO chip"]
fn needs_no_gpio_chip_auto_with_pins_wired_tells_the_director() {
    assert!(!on_a_pi(), "this machine has {}: run this test where there is none", gpio::GPIO_CHIP);
    let (mut hardware, problem) = gpio::open(&GpioConfig::suggested(), Backend::Auto);
    let problem = problem.unwrap();
    assert!(problem.contains("no GPIO chip (/dev/gpiochip0)"), "{problem}");
    assert_usable_no_op(hardware.as_mut());
}

#[test]
fn nothing_wired() {
    // Auto: a station without a button is normal, not a problem.
    let (mut hardware, problem) = gpio::open(&GpioConfig::default(), Backend::Auto);
    assert_eq!(problem, None);
    assert_usable_no_op(hardware.as_mut());
    assert_eq!(hardware.describe(), "none (no button or lamps wired)");
    // Asking for rppal explicitly with nothing wired is a mistake worth saying.
    let (mut hardware, problem) = gpio::open(&GpioConfig::default(), Backend::Rppal);
    assert!(problem.unwrap().contains("wires no pin"));
    assert_usable_no_op(hardware.as_mut());
    // Off is quiet whatever is wired.
    let (mut hardware, problem) = gpio::open(&GpioConfig::suggested(), Backend::Off);
    assert_eq!(problem, None);
    assert_usable_no_op(hardware.as_mut());
}

#[test]
fn backend_names_for_the_command_line() {
    assert_eq!(Backend::default(), Backend::Auto);
    for (name, backend) in
        [("auto", Backend::Auto), ("rppal", Backend::Rppal), ("sim", Backend::Sim), ("off", Backend::Off)]
    {
        assert_eq!(name.parse::<Backend>(), Ok(backend));
    }
}
