//! The appliance's sticks: udev says which block devices are sticks, and
//! systemd mounts them on the kiosk's behalf.
//!
//! The kiosk runs `systemctl start wordjudge-stick-import@sdb1.service` (or
//! `-export@`), which polkit allows user `wordjudge` for exactly those two
//! templates (`50-wordjudge.rules`); the unit runs [`super::helper`] as root.
//! The units are `BindsTo=` the device, so pulling the stick out stops the
//! unit, which unmounts it: nothing stays mounted on a device that is gone.

use super::{valid_device_name, Mode, Stick, StickError, Sticks, STICK_PATH};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The udev property `70-wordjudge-usb.rules` sets on a usable stick.
pub const STICK_PROPERTY: &str = "WORDJUDGE_STICK";

/// Longest wait for systemd to mount or unmount a stick. The unit's own
/// `TimeoutSec=` is shorter; this only keeps a stuck `systemctl` from
/// holding the worker forever.
const SYSTEMCTL_TIMEOUT: Duration = Duration::from_secs(90);

/// The unit that mounts `device` for `mode`.
pub fn unit_name(mode: Mode, device: &str) -> String {
    format!("wordjudge-stick-{}@{device}.service", mode.as_str())
}

/// Sticks through udev and the systemd helper units.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemSticks;

fn text(value: Option<&std::ffi::OsStr>) -> String {
    value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The sticks udev knows now. Errors (no udev, unreadable database) mean
/// "no sticks": the menu then simply offers nothing.
fn udev_sticks() -> std::io::Result<Vec<Stick>> {
    let mut enumerator = udev::Enumerator::new()?;
    enumerator.match_subsystem("block")?;
    enumerator.match_property(STICK_PROPERTY, "1")?;
    let mut sticks = Vec::new();
    for device in enumerator.scan_devices()? {
        let name = device.sysname().to_string_lossy().into_owned();
        if !valid_device_name(&name) {
            continue;
        }
        // `size` is in 512-byte sectors whatever the device's block size.
        let sectors: u64 = text(device.attribute_value("size")).trim().parse().unwrap_or(0);
        sticks.push(Stick {
            device: name,
            label: text(device.property_value("ID_FS_LABEL")),
            fs_type: text(device.property_value("ID_FS_TYPE")),
            size: sectors * 512,
        });
    }
    sticks.sort_by(|a, b| a.device.cmp(&b.device));
    Ok(sticks)
}

/// Why `systemctl` did not do what it was asked.
#[derive(Debug)]
pub enum SystemctlError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// Waiting for it failed.
    Wait { verb: String, source: std::io::Error },
    /// It ended with a failure status, saying `stderr` (at most 2000 bytes).
    Failed { verb: String, status: std::process::ExitStatus, stderr: String },
    /// It did not end within [`SYSTEMCTL_TIMEOUT`], and was killed.
    TimedOut { verb: String },
}

impl std::fmt::Display for SystemctlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SystemctlError::Spawn(e) => write!(f, "cannot run systemctl: {e}"),
            SystemctlError::Wait { verb, source } => write!(f, "systemctl {verb}: {source}"),
            SystemctlError::Failed { verb, status, stderr } if stderr.is_empty() => {
                write!(f, "systemctl {verb} failed ({status})")
            }
            SystemctlError::Failed { verb, status, stderr } => {
                write!(f, "systemctl {verb} failed ({status}): {stderr}")
            }
            SystemctlError::TimedOut { verb } => {
                write!(f, "systemctl {verb} did not finish in {} s", SYSTEMCTL_TIMEOUT.as_secs())
            }
        }
    }
}

impl std::error::Error for SystemctlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SystemctlError::Spawn(e) | SystemctlError::Wait { source: e, .. } => Some(e),
            _ => None,
        }
    }
}

/// Runs `systemctl VERB UNITS…` and waits at most [`SYSTEMCTL_TIMEOUT`].
pub fn systemctl(verb: &str, units: &[String]) -> Result<(), SystemctlError> {
    run_systemctl(verb, &[], units)
}

/// Runs `systemctl --no-block VERB UNITS…`: systemd (and polkit) accept or
/// refuse the jobs, and it returns without waiting for them to run, so the
/// kiosk's own thread can call it.
pub fn systemctl_no_block(verb: &str, units: &[String]) -> Result<(), SystemctlError> {
    run_systemctl(verb, &["--no-block"], units)
}

fn run_systemctl(verb: &str, flags: &[&str], units: &[String]) -> Result<(), SystemctlError> {
    let mut child = Command::new("systemctl")
        .arg(verb)
        .arg("--no-ask-password")
        .args(flags)
        .args(units)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(SystemctlError::Spawn)?;
    let deadline = Instant::now() + SYSTEMCTL_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut err = String::new();
                if let Some(mut stderr) = child.stderr.take() {
                    use std::io::Read;
                    let _ = (&mut stderr).take(2000).read_to_string(&mut err);
                }
                return Err(SystemctlError::Failed { verb: verb.to_string(), status, stderr: err.trim().to_string() });
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SystemctlError::TimedOut { verb: verb.to_string() });
            }
            Err(source) => return Err(SystemctlError::Wait { verb: verb.to_string(), source }),
        }
    }
}

impl Sticks for SystemSticks {
    fn list(&self) -> Vec<Stick> {
        udev_sticks().unwrap_or_default()
    }

    fn attach(&self, stick: &Stick, mode: Mode) -> Result<PathBuf, StickError> {
        if !valid_device_name(&stick.device) {
            return Err(StickError::NotAStick { device: stick.device.clone(), why: "not a USB disk name".into() });
        }
        systemctl("start", &[unit_name(mode, &stick.device)]).map_err(|e| StickError::System {
            action: format!("mount ({})", mode.as_str()),
            device: stick.device.clone(),
            why: e.to_string(),
        })?;
        Ok(PathBuf::from(STICK_PATH))
    }

    fn detach(&self, stick: &Stick) -> Result<(), StickError> {
        if !valid_device_name(&stick.device) {
            return Ok(());
        }
        let units = [unit_name(Mode::Import, &stick.device), unit_name(Mode::Export, &stick.device)];
        systemctl("stop", &units).map_err(|e| StickError::System {
            action: "unmount".into(),
            device: stick.device.clone(),
            why: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_match_the_polkit_rule() {
        assert_eq!(unit_name(Mode::Import, "sdb1"), "wordjudge-stick-import@sdb1.service");
        assert_eq!(unit_name(Mode::Export, "sdc"), "wordjudge-stick-export@sdc.service");
        // The polkit rule and the units in systemd/ name the same two templates.
        let rules = include_str!("../../../../systemd/polkit-1/rules.d/50-wordjudge.rules");
        assert!(
            rules.contains("/^wordjudge-(stick-(import|export)@[a-z0-9]+|fleet-(network|upload))\\.service$/"),
            "the polkit rule names the stick units and the fleet's"
        );
        let units = concat!(env!("CARGO_MANIFEST_DIR"), "/../../systemd/");
        for mode in [Mode::Import, Mode::Export] {
            let path = format!("{units}wordjudge-stick-{}@.service", mode.as_str());
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(text.contains(&format!("stick attach --mode {} %I", mode.as_str())), "{path}");
            assert!(text.contains("BindsTo=dev-%i.device"), "{path}: pulling the stick must stop the unit");
        }
    }

    #[test]
    fn a_bad_name_never_reaches_systemctl() {
        let bad =
            Stick { device: "sdb1.service wordjudge".into(), label: String::new(), fs_type: String::new(), size: 0 };
        assert!(matches!(SystemSticks.attach(&bad, Mode::Import), Err(StickError::NotAStick { .. })));
        assert_eq!(SystemSticks.detach(&bad), Ok(()));
    }
}
