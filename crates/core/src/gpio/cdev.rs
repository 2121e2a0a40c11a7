//! The pins through the kernel's GPIO character device (`/dev/gpiochipN`,
//! uAPI v2), with `gpiocdev`.
//!
//! **Why a second backend.** `rppal` drives pins through `/dev/gpiomem`, which
//! only Raspberry Pi OS kernels provide; on Debian's kernel (the image's) it
//! would fall back to `/dev/mem`, which the hardened unit forbids. The
//! character device is the kernel's own GPIO interface, present on every
//! kernel this project ships, and the unit allows exactly it
//! (`DeviceAllow=char-gpiochip`).
//!
//! **Which chip.** On a Pi the 40-pin header is the SoC's GPIO bank, whose
//! line offsets are the BCM numbers; its chip is found by label
//! (`pinctrl-bcm2711` on a Pi 4/400/CM4, `pinctrl-rp1` on a Pi 5, whose
//! header is on the RP1 chip behind PCIe, `pinctrl-bcm2835` on older boards),
//! never by number, because other chips (the firmware's expander, the Pi 5's
//! SoC banks, a HAT) may be numbered first. `[gpio] chip` names another chip by path or label (a test
//! rig's `gpio-sim` bank, an add-on board).
//!
//! **Button: kernel-debounced, timestamped edges.** The button line is
//! requested with both-edge detection and the debounce window as the kernel's
//! debounce period, so the kernel filters contact chatter before anything
//! wakes. A small thread waits on the request and feeds each edge, with the
//! kernel's CLOCK_MONOTONIC timestamp, to the same [`Debouncer`] the other
//! backends use (it also swallows a held button and release bounce); presses
//! go into an atomic the kiosk drains. The thread waits with a timeout so that
//! dropping the hardware stops it promptly.
//!
//! **Polarity is ours, not the kernel's.** Lines are requested active-high
//! and `active_low` is applied here, exactly as in the rppal backend, so the
//! two backends read and drive the same physical levels for the same config.
//!
//! **Lamps.** Each lamp line is requested as an output already driving "off",
//! so nothing flashes at start; the lamp set (`LampSet`, shared with the
//! rppal back-end) drives them off again when dropped, before the lines are
//! released.

use super::{
    pin_label, Debouncer, GpioConfig, GpioError, Hardware, LampLine, LampPin, LampSet, Lamps, Pull, Role,
    HEADER_CHIP_LABELS,
};
use gpiocdev::line::{Bias, EdgeDetection, EdgeKind, Value};
use gpiocdev::Request;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the button thread waits for an edge before checking whether it
/// should stop.
const WAIT: Duration = Duration::from_millis(200);

/// The consumer name the kernel shows for our lines (`gpioinfo`).
const CONSUMER: &str = "wordjudge";

/// One GPIO chip as the kernel lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipEntry {
    pub path: PathBuf,
    pub label: String,
}

/// Every GPIO chip on this machine (empty when there is none, or none this
/// user may open).
pub fn chips() -> Vec<ChipEntry> {
    let Ok(paths) = gpiocdev::chip::chips() else { return Vec::new() };
    paths
        .into_iter()
        .filter_map(|path| {
            let chip = gpiocdev::chip::Chip::from_path(&path).ok()?;
            let info = chip.info().ok()?;
            Some(ChipEntry { path, label: info.label })
        })
        .collect()
}

/// Picks the chip for the header: the one `wanted` names (a path or a
/// label), else the first with a [`HEADER_CHIP_LABELS`] label. Pure, so the
/// choice is tested without hardware.
pub fn pick_chip<'a>(chips: &'a [ChipEntry], wanted: Option<&str>) -> Result<&'a ChipEntry, GpioError> {
    let found = match wanted {
        Some(name) => chips.iter().find(|c| c.label == name || c.path == Path::new(name)),
        None => HEADER_CHIP_LABELS.iter().find_map(|label| chips.iter().find(|c| c.label == *label)),
    };
    found.ok_or_else(|| GpioError::NoHeaderChip {
        wanted: wanted.map(str::to_owned),
        found: chips.iter().map(|c| format!("{} ({})", c.path.display(), c.label)).collect(),
    })
}

/// One lamp's line and polarity.
#[derive(Debug)]
struct Lamp {
    request: Request,
    active_low: bool,
}

impl Lamp {
    fn value(on: bool, active_low: bool) -> Value {
        if on != active_low {
            Value::Active
        } else {
            Value::Inactive
        }
    }
}

impl LampLine for Lamp {
    fn set(&mut self, on: bool) {
        let _ = self.request.set_lone_value(Lamp::value(on, self.active_low));
    }
}

/// The button's watcher thread; stops when dropped.
#[derive(Debug)]
struct ButtonWatch {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for ButtonWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The pins through the character device; see the module docs.
#[derive(Debug)]
pub(crate) struct CdevHardware {
    _button: Option<ButtonWatch>,
    presses: Arc<AtomicU32>,
    /// All off when dropped, before their lines are released.
    lamps: LampSet<Lamp>,
    description: String,
}

impl CdevHardware {
    /// Finds the chip, requests every wired line, or fails naming the first
    /// one that could not be had (lines already requested are released).
    pub(crate) fn open(config: &GpioConfig) -> Result<CdevHardware, GpioError> {
        let all = chips();
        if all.is_empty() {
            return Err(GpioError::NoGpioChip);
        }
        let chip = pick_chip(&all, config.chip.as_deref())?.clone();
        let mut parts = Vec::new();
        let presses = Arc::new(AtomicU32::new(0));

        let button = match config.judge_button {
            None => None,
            Some(wiring) => {
                let (watch, pressed_now, kernel_debounce) = watch_button(&chip.path, config, wiring, &presses)?;
                let mut notes = vec![if wiring.active_low { "active low" } else { "active high" }.to_owned()];
                notes.push(wiring.pull.to_string());
                if pressed_now {
                    notes.push("reads pressed now".into());
                }
                if !kernel_debounce && !config.debounce().is_zero() {
                    notes.push("kernel refused its debounce".into());
                }
                let notes: Vec<&str> = notes.iter().map(String::as_str).collect();
                parts.push(format!("button {}", pin_label(wiring.bcm, &notes)));
                Some(watch)
            }
        };
        let lamp = |role: Role, wiring: Option<LampPin>, parts: &mut Vec<String>| -> Result<Option<Lamp>, GpioError> {
            let Some(wiring) = wiring else { return Ok(None) };
            let request = Request::builder()
                .on_chip(&chip.path)
                .with_consumer(CONSUMER)
                .with_line(u32::from(wiring.bcm))
                .as_output(Lamp::value(false, wiring.active_low))
                .request()
                .map_err(|source| GpioError::Line { role, bcm: wiring.bcm, source })?;
            let notes: &[&str] = if wiring.active_low { &["active low"] } else { &[] };
            parts.push(format!("{} {}", role.short_name(), pin_label(wiring.bcm, notes)));
            Ok(Some(Lamp { request, active_low: wiring.active_low }))
        };
        let green = lamp(Role::GreenLamp, config.green_lamp, &mut parts)?;
        let red = lamp(Role::RedLamp, config.red_lamp, &mut parts)?;
        let service = lamp(Role::ServiceLamp, config.service_lamp, &mut parts)?;

        let description = format!(
            "GPIO character device {} ({}): {}; debounce {} ms",
            chip.path.display(),
            chip.label,
            parts.join(", "),
            config.debounce_ms
        );
        Ok(CdevHardware { _button: button, presses, lamps: LampSet { green, red, service }, description })
    }
}

/// Requests the button line with both edges (and the kernel's debounce when
/// it accepts one) and starts the thread feeding the [`Debouncer`]. Returns
/// the watch, whether the button reads pressed now, and whether the kernel
/// debounces.
fn watch_button(
    chip: &Path,
    config: &GpioConfig,
    wiring: super::ButtonPin,
    presses: &Arc<AtomicU32>,
) -> Result<(ButtonWatch, bool, bool), GpioError> {
    let role = Role::JudgeButton;
    let line_error = |source| GpioError::Line { role, bcm: wiring.bcm, source };
    let bias = match wiring.pull {
        Pull::Up => Bias::PullUp,
        Pull::Down => Bias::PullDown,
        Pull::None => Bias::Disabled,
    };
    let offset = u32::from(wiring.bcm);
    let request_with = |debounce: Option<Duration>| {
        let mut builder = Request::builder();
        builder
            .on_chip(chip)
            .with_consumer(CONSUMER)
            .with_line(offset)
            .as_input()
            .with_bias(bias)
            .with_edge_detection(EdgeDetection::BothEdges);
        if let Some(period) = debounce {
            builder.with_debounce_period(period);
        }
        builder.request()
    };
    let window = config.debounce();
    let (request, kernel_debounce) = if window.is_zero() {
        (request_with(None).map_err(line_error)?, false)
    } else {
        match request_with(Some(window)) {
            Ok(request) => (request, true),
            // A kernel that refuses the debounce: our own Debouncer is enough.
            Err(_) => (request_with(None).map_err(line_error)?, false),
        }
    };
    let high = request.lone_value().map_err(line_error)? == Value::Active;
    let pressed_now = high != wiring.active_low;
    let mut debouncer = Debouncer::with_level(window, pressed_now);
    let stop = Arc::new(AtomicBool::new(false));
    let counter = Arc::clone(presses);
    let stopping = Arc::clone(&stop);
    let active_low = wiring.active_low;
    let thread = std::thread::Builder::new()
        .name("gpio-button".into())
        .spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match request.wait_edge_event(WAIT) {
                    Ok(true) => {
                        let Ok(event) = request.read_edge_event() else { continue };
                        let high = event.kind == EdgeKind::Rising;
                        if debouncer.edge(high != active_low, Duration::from_nanos(event.timestamp_ns)) {
                            counter.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Ok(false) => {}
                    // The chip went away (unbound driver): stop quietly,
                    // the keyboard still judges.
                    Err(_) => std::thread::sleep(WAIT),
                }
            }
        })
        .map_err(GpioError::Thread)?;
    Ok((ButtonWatch { stop, thread: Some(thread) }, pressed_now, kernel_debounce))
}

impl Hardware for CdevHardware {
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

    fn entry(path: &str, label: &str) -> ChipEntry {
        ChipEntry { path: PathBuf::from(path), label: label.into() }
    }

    #[test]
    fn the_header_chip_is_found_by_label_not_number() {
        let chips = [entry("/dev/gpiochip0", "raspberrypi-exp-gpio"), entry("/dev/gpiochip1", "pinctrl-bcm2711")];
        assert_eq!(pick_chip(&chips, None).unwrap().path, Path::new("/dev/gpiochip1"));
        let old = [entry("/dev/gpiochip0", "pinctrl-bcm2835")];
        assert_eq!(pick_chip(&old, None).unwrap().label, "pinctrl-bcm2835");
    }

    #[test]
    fn on_a_pi_5_the_header_is_the_rp1_chip_whatever_its_number() {
        // Debian's 7.x kernel on a Pi 5: the SoC's own banks probe first, the
        // RP1 (behind PCIe) later; its number depends on probe order.
        let chips = [
            entry("/dev/gpiochip0", "gpio-brcmstb@107d508500"),
            entry("/dev/gpiochip1", "gpio-brcmstb@107d517c00"),
            entry("/dev/gpiochip4", "pinctrl-rp1"),
        ];
        assert_eq!(pick_chip(&chips, None).unwrap().path, Path::new("/dev/gpiochip4"));
    }

    #[test]
    fn a_named_chip_by_label_or_path() {
        let chips = [entry("/dev/gpiochip0", "pinctrl-bcm2711"), entry("/dev/gpiochip2", "gpio-sim.0-node0")];
        assert_eq!(pick_chip(&chips, Some("gpio-sim.0-node0")).unwrap().path, Path::new("/dev/gpiochip2"));
        assert_eq!(pick_chip(&chips, Some("/dev/gpiochip2")).unwrap().label, "gpio-sim.0-node0");
    }

    #[test]
    fn no_header_chip_lists_what_there_is() {
        let chips = [entry("/dev/gpiochip0", "ACPI GPIO")];
        let e = pick_chip(&chips, None).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("/dev/gpiochip0 (ACPI GPIO)"), "{text}");
        assert!(text.contains("pinctrl-bcm2711"), "{text}");
        let e = pick_chip(&chips, Some("my-hat")).unwrap_err().to_string();
        assert!(e.contains("\"my-hat\""), "{e}");
    }

    #[test]
    fn lamp_values_honour_polarity() {
        assert_eq!(Lamp::value(true, false), Value::Active);
        assert_eq!(Lamp::value(false, false), Value::Inactive);
        assert_eq!(Lamp::value(true, true), Value::Inactive);
        assert_eq!(Lamp::value(false, true), Value::Active);
    }
}
