//! Choosing and opening the backend: rppal, the character device, the
//! simulated twin, or none.

use super::{cdev, pi, GpioConfig, GpioError, Hardware, NoHardware, SimHardware, GPIOMEM};
use std::path::Path;

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
        Backend::Off => Ok(Box::new(NoHardware::new("switched off for this station"))),
        Backend::Sim => {
            config.check()?;
            let (hardware, _handle) = SimHardware::new(config.debounce());
            Ok(Box::new(hardware))
        }
        Backend::Auto if !config.wires_anything() => Ok(Box::new(NoHardware::new("no button or lamps wired"))),
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
