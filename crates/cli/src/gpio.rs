//! `wordjudge gpio test`: for operators wiring a station. Blinks each wired
//! lamp in turn (green, red, service), naming it, and prints each debounced
//! judge-button press with the time, until Ctrl+C or `--seconds`. With
//! `--gpio sim` it is a dry run: Enter stands for the button.
use super::{fail, Context};
use std::io::BufRead;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wordjudge_core::gpio::{self, Backend, GpioConfig, GpioError, Role};
use wordjudge_core::panel::Lamps;

#[derive(clap::Subcommand, Debug)]
#[command(defer = true)] // built only when chosen: see the `Command` enum in lib.rs
pub enum GpioCommand {
    /// Blink each lamp and print each judge-button press, to check wiring
    Test(TestArgs),
}

#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// Stop after this many seconds (Ctrl+C stops earlier)
    #[arg(long, value_name = "N", default_value_t = 30)]
    seconds: u64,
    /// Which hardware: the Pi's pins (auto, rppal) or a dry run (sim)
    #[arg(long, default_value = "auto", value_name = "auto|rppal|cdev|sim|off", value_parser = super::gpio_backend)]
    gpio: Backend,
}

/// How long each lamp stays lit, then dark before the next.
const LAMP_ON: Duration = Duration::from_millis(600);
const LAMP_OFF: Duration = Duration::from_millis(200);
/// How often the button's press counter is read.
const TICK: Duration = Duration::from_millis(10);

pub fn run(context: &Context, command: GpioCommand) -> ExitCode {
    match command {
        GpioCommand::Test(args) => test(context, args),
    }
}

fn test(context: &Context, args: TestArgs) -> ExitCode {
    let loaded = &context.loaded;
    if args.gpio == Backend::Off {
        return fail("--gpio off: there is nothing to test");
    }
    let mut config = loaded.config.gpio.clone();
    if !config.wires_anything() {
        if args.gpio != Backend::Sim {
            let why = match &loaded.problem {
                Some(problem) => problem.to_string(),
                None => format!("[gpio] in {} wires no pin", loaded.path.display()),
            };
            return fail(format!(
                "{why}: nothing to test. Set the pins in the config's [gpio] table (docs/wiring.md), or try --gpio sim for a dry run"
            ));
        }
        println!("[gpio] wires no pin: simulating the suggested wiring.");
        config = GpioConfig { debounce_ms: config.debounce_ms, ..GpioConfig::suggested() };
    }
    let mut hardware = match gpio::try_open(&config, args.gpio) {
        Ok(hardware) => hardware,
        Err(e) => return fail(with_hint(&e)),
    };

    println!("Testing {}", hardware.describe());
    let lamps = config.lamp_pins();
    if lamps.is_empty() {
        println!("No lamp is wired.");
    } else {
        let names: Vec<String> = lamps.iter().map(|(role, _)| role.to_string()).collect();
        println!("Each lamp lights in turn: {}.", names.join(", "));
    }
    match (config.judge_button, hardware.sim_handle()) {
        (None, _) => println!("No judge button is wired."),
        (Some(_), Some(handle)) => {
            println!("Press Enter for a simulated judge-button press.");
            feed_enter_as_presses(handle, config.debounce());
        }
        (Some(_), None) => println!("Press the judge button: each press is printed."),
    }
    println!("Stops after {} s, or on Ctrl+C.", args.seconds);
    stop::install();

    let start = Instant::now();
    let end = start + Duration::from_secs(args.seconds);
    let mut presses: u64 = 0;
    let mut next_lamp = 0;
    let mut lit = false;
    let mut phase_end = start;
    loop {
        let now = Instant::now();
        if now >= end || stop::requested() {
            break;
        }
        if now >= phase_end && !lamps.is_empty() {
            if lit {
                hardware.set_lamps(Lamps::OFF);
                phase_end = now + LAMP_OFF;
            } else {
                let (role, pin) = lamps[next_lamp % lamps.len()];
                next_lamp += 1;
                hardware.set_lamps(only(role));
                println!("{}  {role} on: {}", clock(start), gpio::pin_name(pin.bcm));
                phase_end = now + LAMP_ON;
            }
            lit = !lit;
        }
        for _ in 0..hardware.take_presses() {
            presses += 1;
            println!("{}  judge button pressed (#{presses})", clock(start));
        }
        std::thread::sleep(TICK);
    }
    hardware.set_lamps(Lamps::OFF);
    drop(hardware);
    let s = if presses == 1 { "" } else { "es" };
    println!("Done: {presses} judge-button press{s} in {:.1} s; all lamps off.", start.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

/// The error, with what an operator can do about it.
fn with_hint(e: &GpioError) -> String {
    match e {
        GpioError::NoGpioChip | GpioError::NoHeaderChip { .. } | GpioError::Open(_) => format!(
            "{e}. Run `wordjudge gpio test` on the station's Raspberry Pi (as a user in the gpio group), or use --gpio sim for a dry run"
        ),
        GpioError::Pin { .. } | GpioError::Line { .. } => format!("{e}. Is another program (or a device-tree overlay) using the pin?"),
        _ => format!("{e}. Fix the [gpio] table of the config"),
    }
}

/// Only this lamp lit.
fn only(role: Role) -> Lamps {
    Lamps { green: role == Role::GreenLamp, red: role == Role::RedLamp, service: role == Role::ServiceLamp }
}

/// Local wall-clock time with milliseconds, and the time since the start.
fn clock(start: Instant) -> String {
    let time = jiff::Zoned::now().strftime("%H:%M:%S%.3f").to_string();
    format!("{time} (+{:.3} s)", start.elapsed().as_secs_f64())
}

/// Dry run: each line on stdin is one press and release of the simulated
/// button, spaced beyond the debounce window so each counts.
fn feed_enter_as_presses(handle: gpio::SimHandle, debounce: Duration) {
    let gap = debounce + Duration::from_millis(20);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            if line.is_err() {
                break;
            }
            handle.press_now();
            std::thread::sleep(gap);
            handle.release_now();
            std::thread::sleep(gap);
        }
    });
}

/// Ctrl+C and SIGTERM end the test cleanly, so the lamp lit at that moment
/// is switched off (a signal's default action would kill the process with
/// the lamp still on).
mod stop {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};

    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

    pub fn install() {
        FLAG.get_or_init(wordjudge_core::shutdown::stop_flag);
    }

    pub fn requested() -> bool {
        FLAG.get().is_some_and(|f| f.load(Ordering::SeqCst))
    }
}
