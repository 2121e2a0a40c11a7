//! USB sticks: the director's way to bring word lists in and take the audit
//! log home, without a PC or a card reader.
//!
//! This module owns the line between the unprivileged kiosk and the mounts
//! only root may make:
//!
//! - [`Sticks`], the small trait the kiosk talks to: which sticks are plugged
//!   in, "let me read this one" (read-only), "let me write my export folder on
//!   this one", "done with it";
//! - [`system::SystemSticks`], the appliance's: udev says what a stick is (the
//!   rule `70-wordjudge-usb.rules` marks FAT32, exFAT and ext4 filesystems on a
//!   USB disk with `WORDJUDGE_STICK=1`), and systemd, asked through polkit,
//!   starts the root template unit `wordjudge-stick-import@DEV.service` or
//!   `wordjudge-stick-export@DEV.service`, whose only job is [`helper`];
//! - [`helper`]: what those units run as root (`wordjudge stick attach|detach`):
//!   it checks the device itself (never trusting the kiosk), mounts the whole
//!   filesystem where only root can see it, and bind-mounts into the one path
//!   the kiosk sees, [`STICK_PATH`], either the stick read-only (import) or
//!   just its `wordjudge/` folder read-write (export), so even a kiosk that
//!   misbehaved could write nothing else on a director's stick;
//! - [`sim::FolderSticks`], the simulated twin for tests and desktops: each
//!   folder in a directory is a plugged-in stick.
//!
//! Why not run the kiosk as root, or give it `CAP_SYS_ADMIN`: the kiosk reads
//! keys typed by anyone who walks up; its unit stays as hardened as it was,
//! and the privileged part is a few dozen lines that take one device name.

pub mod helper;
pub mod sim;
pub mod system;

use crate::backend::{Backend, BackendError};
use std::fmt;
use std::path::PathBuf;

/// Where the kiosk finds the stick it asked for: the stick's root (import,
/// read-only) or its `wordjudge/` folder (export).
pub const STICK_PATH: &str = "/run/wordjudge/stick";

/// The folder on a stick the export writes into (and the only one it may).
pub const EXPORT_FOLDER: &str = "wordjudge";

/// Filesystems a stick may have: what a director's stick is formatted with
/// (FAT32 out of the box, exFAT for large sticks, ext4 from a Linux PC).
pub const FILESYSTEMS: [&str; 3] = ["vfat", "exfat", "ext4"];

/// A plugged-in stick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stick {
    /// The kernel's name for the device (`sdb1`, or `sdb` for a stick with
    /// no partition table); for the simulated twin, the folder's name.
    pub device: String,
    /// The filesystem's label (`WJIMPORT`), empty when it has none.
    pub label: String,
    /// `vfat`, `exfat`, `ext4` (or `folder` for the simulated twin).
    pub fs_type: String,
    /// Size in bytes, 0 when unknown.
    pub size: u64,
}

impl Stick {
    /// How the director menu names it: `WJIMPORT (sdb1, FAT32, 64 MB)`.
    pub fn describe(&self) -> String {
        let fs = match self.fs_type.as_str() {
            "vfat" => "FAT32",
            "exfat" => "exFAT",
            "ext4" => "ext4",
            other => other,
        };
        // A label is whatever the stick's owner wrote: escaped, and short.
        let label = crate::word::printable(&self.label, 32);
        let name = if label.is_empty() { "USB stick" } else { &label };
        if self.size > 0 {
            format!("{name} ({}, {fs}, {} MB)", self.device, self.size / 1_000_000)
        } else {
            format!("{name} ({}, {fs})", self.device)
        }
    }
}

/// What a stick is mounted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Read-only, the whole stick: word lists are read from it.
    Import,
    /// Read-write, only the stick's [`EXPORT_FOLDER`]: the export goes there.
    Export,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Import => "import",
            Mode::Export => "export",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "import" => Ok(Mode::Import),
            "export" => Ok(Mode::Export),
            _ => Err(format!("{s:?} is not a stick mode (import or export)")),
        }
    }
}

/// Why a stick could not be used. Nothing on the station changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StickError {
    /// The device is gone (pulled out) or was never a stick.
    NotAStick { device: String, why: String },
    /// The system refused to mount or unmount it (the message says why).
    System { action: String, device: String, why: String },
    /// This station has no way to use sticks (a desktop without `--usb`).
    Unavailable,
}

impl fmt::Display for StickError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StickError::NotAStick { device, why } => write!(f, "{device} cannot be used as a stick: {why}"),
            StickError::System { action, device, why } => write!(f, "cannot {action} {device}: {why}"),
            StickError::Unavailable => f.write_str("this station has no USB stick support (see --usb)"),
        }
    }
}

impl std::error::Error for StickError {}

/// The kiosk's side of sticks. `Send + Sync`: the slow work (mounting,
/// reading, writing) runs on a worker thread so the screen never freezes and
/// the watchdog keeps being fed.
pub trait Sticks: Send + Sync {
    /// The sticks plugged in now (cheap: the director menu asks every second).
    fn list(&self) -> Vec<Stick>;
    /// Mounts `stick` for `mode` and returns the folder the kiosk may use.
    fn attach(&self, stick: &Stick, mode: Mode) -> Result<PathBuf, StickError>;
    /// Unmounts `stick` (syncing first); after `Ok` it may be pulled out.
    /// Detaching a stick that is not attached, or already pulled, is `Ok`.
    fn detach(&self, stick: &Stick) -> Result<(), StickError>;
}

/// A station without stick support: no sticks, ever.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoSticks;

impl Sticks for NoSticks {
    fn list(&self) -> Vec<Stick> {
        Vec::new()
    }
    fn attach(&self, _: &Stick, _: Mode) -> Result<PathBuf, StickError> {
        Err(StickError::Unavailable)
    }
    fn detach(&self, _: &Stick) -> Result<(), StickError> {
        Ok(())
    }
}

/// `--usb`'s word for a folder of simulated sticks (`folders:DIR`: each
/// folder in it is a stick; tests, desktops).
pub const SIMULATED: &str = "folders";

/// Reads `--usb`'s value: `system` (udev and the systemd helper units, the
/// appliance), `folders:DIR` or `off` (no sticks).
pub fn backend(text: &str) -> Result<Backend, BackendError> {
    Backend::parse(text, SIMULATED)
}

/// Opens the backend.
pub fn open(backend: &Backend) -> Box<dyn Sticks> {
    match backend {
        Backend::System => Box::new(system::SystemSticks),
        Backend::Simulated(dir) => Box::new(sim::FolderSticks::new(dir.clone())),
        Backend::Off => Box::new(NoSticks),
    }
}

/// Whether `name` is a kernel block device name a stick can have (`sdb`,
/// `sdb1`, `sdaa12`): checked before it goes into a unit name or a path.
pub fn valid_device_name(name: &str) -> bool {
    let letters = name.trim_end_matches(|c: char| c.is_ascii_digit());
    name.len() <= 12
        && letters.len() > 2
        && letters.starts_with("sd")
        && letters[2..].chars().all(|c| c.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_are_checked_before_use() {
        for good in ["sdb", "sdb1", "sdz15", "sdaa2"] {
            assert!(valid_device_name(good), "{good}");
        }
        for bad in
            ["", "sd", "sd1", "nvme0n1", "sdb/../../etc", "sdB1", "sdb 1", "mmcblk0p1", "sdbbbbbbbbbbb1", "sdb1x"]
        {
            assert!(!valid_device_name(bad), "{bad}");
        }
    }

    #[test]
    fn backends_parse() {
        assert_eq!(backend("system"), Ok(Backend::System));
        assert_eq!(backend("off"), Ok(Backend::Off));
        assert_eq!(backend("folders:/tmp/s"), Ok(Backend::Simulated("/tmp/s".into())));
        assert!(backend("folders:").is_err());
        assert!(backend("udisks").is_err());
    }

    #[test]
    fn sticks_describe_themselves_for_the_menu() {
        let s = Stick { device: "sdb1".into(), label: "WJ".into(), fs_type: "vfat".into(), size: 64_000_000 };
        assert_eq!(s.describe(), "WJ (sdb1, FAT32, 64 MB)");
        let s = Stick { device: "sdc".into(), label: String::new(), fs_type: "ext4".into(), size: 0 };
        assert_eq!(s.describe(), "USB stick (sdc, ext4)");
    }
}
