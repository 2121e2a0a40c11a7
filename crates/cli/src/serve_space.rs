//! `fleet serve`'s disk: how much each station's journal files hold, how
//! much the disk has free, and the rule for free-space pressure (only the
//! station that caused it is ever stopped).

use std::collections::BTreeMap;
use std::path::Path;
use wordjudge_core::fleet::sender::sender_of;

/// What the disk's free space asks of the receivers.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SpaceAction {
    /// At least `--keep-free` is free.
    Enough,
    /// The station with the most on the disk still sends: stop it.
    Stop(String),
    /// The station with the most on the disk is already stopped: its files
    /// caused the shortage, and stopping an honest station would free
    /// nothing of them.
    StoppedHoldsIt(String),
}

/// The rule for free-space pressure: the station with the most on the disk
/// (stopped or not) is the one that caused it; only it is ever stopped.
pub(crate) fn space_action(
    sizes: &BTreeMap<String, u64>,
    running: impl Fn(&str) -> bool,
    free: u64,
    keep_free: u64,
) -> SpaceAction {
    if free >= keep_free {
        return SpaceAction::Enough;
    }
    let Some((name, _)) = sizes.iter().max_by_key(|(_, size)| **size) else { return SpaceAction::Enough };
    if running(name) {
        SpaceAction::Stop(name.clone())
    } else {
        SpaceAction::StoppedHoldsIt(name.clone())
    }
}

/// Bytes in each station's journal files in `output`.
pub(crate) fn station_sizes(output: &Path) -> BTreeMap<String, u64> {
    let mut sizes = BTreeMap::new();
    let Ok(listing) = wordjudge_core::outside_files::list_folder(output, 100_000) else { return sizes };
    for entry in &listing.entries {
        let Some(name) = sender_of(&entry.name) else { continue };
        let size = std::fs::symlink_metadata(&entry.path).map(|m| m.len()).unwrap_or(0);
        *sizes.entry(name.to_string()).or_insert(0) += size;
    }
    sizes
}

/// Free bytes on the file system of `path` (for an unprivileged user).
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: statvfs(3) on a NUL-terminated path into a zeroed struct.
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    Some(stat.f_bavail as u64 * stat.f_frsize as u64)
}
