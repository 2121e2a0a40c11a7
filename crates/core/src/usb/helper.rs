//! The privileged half of sticks: `wordjudge stick attach|detach DEVICE`,
//! run as root by the units `wordjudge-stick-import@.service` and
//! `wordjudge-stick-export@.service`, never by the kiosk.
//!
//! It trusts nothing it is given but a device name, and checks that name
//! itself against udev (the stick property, the filesystem type) before it
//! mounts anything:
//!
//! 1. the whole filesystem is mounted `nosuid,nodev,noexec` at
//!    `/run/wordjudge-usb/DEVICE` (a folder only root may enter), read-only
//!    for import (and `noload` on ext4, so not even the journal is replayed
//!    onto the director's stick), read-write for export;
//! 2. then one bind mount at [`STICK_PATH`], the only path the kiosk sees:
//!    the stick's root, read-only, for import; for export only the stick's
//!    [`EXPORT_FOLDER`], made and owned by user `wordjudge`.
//!
//! Detaching syncs, then unmounts both, lazily when the device is already
//! gone or something still holds a file open, so a pulled stick never leaves
//! a mount behind and the next stick can be attached.

use super::system::STICK_PROPERTY;
use super::{valid_device_name, Mode, EXPORT_FOLDER, FILESYSTEMS, STICK_PATH};
use std::ffi::CString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the whole filesystem of a stick is mounted (root only).
pub const PRIVATE_ROOT: &str = "/run/wordjudge-usb";
/// The user the export folder belongs to.
pub const KIOSK_USER: &str = "wordjudge";

/// Why the helper refused or failed. Whatever it had mounted is undone.
#[derive(Debug)]
pub enum HelperError {
    /// The name is not a USB disk's, or udev does not call it a stick.
    NotAStick(String),
    /// Another stick is attached (one at a time: one path for the kiosk).
    Busy(String),
    /// A system call or `mount` failed.
    Failed(String),
}

impl fmt::Display for HelperError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HelperError::NotAStick(why) | HelperError::Busy(why) | HelperError::Failed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for HelperError {}

/// What udev says of the device: its node and filesystem.
struct Checked {
    node: PathBuf,
    fs_type: String,
}

fn check_device(device: &str) -> Result<Checked, HelperError> {
    if !valid_device_name(device) {
        return Err(HelperError::NotAStick(format!("{device:?} is not a USB disk's name")));
    }
    let dev = udev::Device::from_subsystem_sysname("block".into(), device.into())
        .map_err(|e| HelperError::NotAStick(format!("{device}: no such block device ({e})")))?;
    let property = |name: &str| dev.property_value(name).map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
    if property(STICK_PROPERTY) != "1" {
        return Err(HelperError::NotAStick(format!(
            "{device} is not a stick (udev does not mark it {STICK_PROPERTY}=1: not on USB, or no FAT32/exFAT/ext4 filesystem)"
        )));
    }
    let fs_type = property("ID_FS_TYPE");
    if !FILESYSTEMS.contains(&fs_type.as_str()) {
        return Err(HelperError::NotAStick(format!(
            "{device} has a {fs_type:?} filesystem (FAT32, exFAT or ext4 only)"
        )));
    }
    let node = dev
        .devnode()
        .map(Path::to_path_buf)
        .ok_or_else(|| HelperError::NotAStick(format!("{device} has no device node")))?;
    Ok(Checked { node, fs_type })
}

/// The user and group ids of `user`.
fn user_ids(user: &str) -> Result<(u32, u32), HelperError> {
    let name = CString::new(user).map_err(|_| HelperError::Failed(format!("bad user name {user:?}")))?;
    // SAFETY: getpwnam takes a NUL-terminated name and returns a pointer into
    // static storage or null; the fields are copied out at once.
    let entry = unsafe { libc::getpwnam(name.as_ptr()) };
    if entry.is_null() {
        return Err(HelperError::Failed(format!("no user {user:?} on this system")));
    }
    // SAFETY: non-null, so it points to a valid passwd entry.
    let (uid, gid) = unsafe { ((*entry).pw_uid, (*entry).pw_gid) };
    Ok((uid, gid))
}

/// The options of the whole-filesystem mount.
pub fn mount_options(fs_type: &str, mode: Mode, owner: (u32, u32)) -> String {
    let mut options = vec!["nosuid", "nodev", "noexec", "noatime"];
    let owned;
    match (mode, fs_type) {
        (Mode::Import, "ext4") => options.extend(["ro", "noload"]),
        (Mode::Import, _) => options.push("ro"),
        (Mode::Export, "ext4") => options.push("rw"),
        (Mode::Export, _) => {
            // FAT and exFAT have no owners: files belong to whoever the mount
            // says, and only the kiosk's user may touch them.
            owned = format!("rw,uid={},gid={},fmask=0177,dmask=0077", owner.0, owner.1);
            options.push(&owned);
        }
    }
    options.join(",")
}

/// The sources (devices) of the mounts in a `/proc/self/mountinfo` text:
/// the field after the ` - ` separator and the filesystem type.
pub fn mount_sources(mountinfo: &str) -> Vec<String> {
    mountinfo
        .lines()
        .filter_map(|line| line.split_once(" - ").and_then(|(_, rest)| rest.split(' ').nth(1)))
        .map(unescape_octal)
        .collect()
}

/// Mount points listed in a `/proc/self/mountinfo` text (field 5, with the
/// kernel's octal escapes for spaces and the like undone).
pub fn mount_points(mountinfo: &str) -> Vec<String> {
    mountinfo.lines().filter_map(|line| line.split(' ').nth(4)).map(unescape_octal).collect()
}

fn unescape_octal(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() && bytes[i + 1..i + 4].iter().all(|b| (b'0'..=b'7').contains(b)) {
            let value = bytes[i + 1..i + 4].iter().fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
            out.push(value as u8);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_mounted(path: &Path) -> bool {
    let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let want = path.to_string_lossy();
    mount_points(&text).iter().any(|p| *p == want)
}

fn run(program: &str, args: &[&str]) -> Result<(), HelperError> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| HelperError::Failed(format!("cannot run {program}: {e}")))?;
    if output.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&output.stderr).trim().to_string();
        Err(HelperError::Failed(format!("{program} {}: {err} ({})", args.join(" "), output.status)))
    }
}

fn unmount(path: &Path) {
    if !is_mounted(path) {
        return;
    }
    let p = path.to_string_lossy();
    if run("umount", &[&p]).is_err() {
        // Busy, or the device is gone: detach now, clean up when released.
        let _ = run("umount", &["--lazy", &p]);
    }
}

fn private_path(device: &str) -> PathBuf {
    Path::new(PRIVATE_ROOT).join(device)
}

/// `wordjudge stick attach --mode MODE DEVICE`.
pub fn attach(device: &str, mode: Mode) -> Result<PathBuf, HelperError> {
    let checked = check_device(device)?;
    // A device mounted anywhere already (the station's own disk booted from
    // USB, a stick some other way) is never a director's stick to mount again.
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let disk = device.trim_end_matches(|c: char| c.is_ascii_digit());
    let busy = mount_sources(&mountinfo).into_iter().find(|source| {
        source
            .strip_prefix("/dev/")
            .is_some_and(|name| name == device || name.trim_end_matches(|c: char| c.is_ascii_digit()) == disk)
    });
    if let Some(source) = busy {
        return Err(HelperError::Busy(format!("{source} is mounted already: {device} is not a stick to mount")));
    }
    let stick_path = Path::new(STICK_PATH);
    if is_mounted(stick_path) {
        return Err(HelperError::Busy(format!("another stick is attached at {STICK_PATH}; detach it first")));
    }
    let owner = user_ids(KIOSK_USER)?;
    let private = private_path(device);
    for dir in [Path::new(PRIVATE_ROOT), private.as_path(), stick_path] {
        std::fs::create_dir_all(dir)
            .map_err(|e| HelperError::Failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(PRIVATE_ROOT, std::fs::Permissions::from_mode(0o700));
    let result = mount_both(&checked, mode, owner, &private, stick_path);
    if result.is_err() {
        unmount(stick_path);
        unmount(&private);
        let _ = std::fs::remove_dir(&private);
    }
    result.map(|()| stick_path.to_path_buf())
}

fn mount_both(
    checked: &Checked,
    mode: Mode,
    owner: (u32, u32),
    private: &Path,
    stick_path: &Path,
) -> Result<(), HelperError> {
    let options = mount_options(&checked.fs_type, mode, owner);
    let node = checked.node.to_string_lossy();
    let private_s = private.to_string_lossy();
    run("mount", &["-t", &checked.fs_type, "-o", &options, &node, &private_s])?;
    let source = match mode {
        Mode::Import => private.to_path_buf(),
        Mode::Export => export_folder(private, owner)?,
    };
    let source = source.to_string_lossy();
    let target = stick_path.to_string_lossy();
    run("mount", &["--bind", &source, &target])?;
    let flags = match mode {
        Mode::Import => "remount,bind,ro,nosuid,nodev,noexec",
        Mode::Export => "remount,bind,nosuid,nodev,noexec",
    };
    run("mount", &["-o", flags, &target])
}

/// The stick's export folder, made if missing and given to the kiosk's user.
/// A symlink there (a stick made to point the bind mount elsewhere) is refused.
fn export_folder(private: &Path, owner: (u32, u32)) -> Result<PathBuf, HelperError> {
    let folder = private.join(EXPORT_FOLDER);
    match std::fs::symlink_metadata(&folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(HelperError::Failed(format!(
                "the stick has a {EXPORT_FOLDER:?} that is not a folder; rename it on a PC"
            )))
        }
        Err(_) => std::fs::create_dir(&folder)
            .map_err(|e| HelperError::Failed(format!("cannot create {EXPORT_FOLDER}/ on the stick: {e}")))?,
    }
    // FAT and exFAT ignore chown (the mount options gave the kiosk's user
    // everything); ext4 needs it.
    let _ = std::os::unix::fs::chown(&folder, Some(owner.0), Some(owner.1));
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700));
    Ok(folder)
}

/// `wordjudge stick detach DEVICE`: sync, unmount both mounts. Never fails
/// for a stick that is not attached or is already gone.
pub fn detach(device: &str) -> Result<(), HelperError> {
    if !valid_device_name(device) {
        return Err(HelperError::NotAStick(format!("{device:?} is not a USB disk's name")));
    }
    // SAFETY: sync(2) has no arguments and cannot fail.
    unsafe { libc::sync() };
    let private = private_path(device);
    unmount(Path::new(STICK_PATH));
    unmount(&private);
    let _ = std::fs::remove_dir(&private);
    if is_mounted(Path::new(STICK_PATH)) || is_mounted(&private) {
        return Err(HelperError::Failed(format!("{device} is still mounted")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_is_read_only_and_export_belongs_to_the_kiosk() {
        let import = mount_options("vfat", Mode::Import, (999, 998));
        assert!(import.split(',').any(|o| o == "ro") && !import.contains("rw"), "{import}");
        for o in ["nosuid", "nodev", "noexec"] {
            assert!(import.split(',').any(|x| x == o), "{import} lacks {o}");
        }
        let ext4 = mount_options("ext4", Mode::Import, (999, 998));
        assert!(ext4.contains("noload"), "ext4 import must not replay the journal: {ext4}");
        let export = mount_options("exfat", Mode::Export, (999, 998));
        assert!(export.contains("uid=999") && export.contains("gid=998") && export.contains("dmask=0077"), "{export}");
        assert!(!mount_options("ext4", Mode::Export, (1, 1)).contains("uid="), "ext4 has owners of its own");
    }

    #[test]
    fn mount_points_are_read_with_escapes() {
        let text = "36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n\
                    37 35 98:0 / /run/wordjudge/stick ro - vfat /dev/sdb1 ro\n";
        assert_eq!(mount_points(text), ["/mnt/with space", "/run/wordjudge/stick"]);
        assert_eq!(mount_sources(text), ["/dev/root", "/dev/sdb1"]);
    }

    #[test]
    fn bad_names_are_refused_before_anything_runs() {
        assert!(matches!(attach("../../etc", Mode::Export), Err(HelperError::NotAStick(_))));
        assert!(matches!(detach("sda; reboot"), Err(HelperError::NotAStick(_))));
    }
}
