//! A/B updates of the whole station from a signed RAUC bundle on a
//! director's USB stick: this module owns what the kiosk may know and do
//! about them, behind the small [`Updates`] trait.
//!
//! - [`Updates`]: the station's own release (none: this station takes no
//!   updates, and the menu never offers one), what a bundle says of itself
//!   once its signature verified, installing it into the other slot with its
//!   progress, and the boot check's verdict after the reboot;
//! - [`system::SystemUpdates`], the appliance's: the `rauc` command (its
//!   service does the privileged work over D-Bus), `/etc/wordjudge-release`
//!   and `/etc/rauc/system.conf`;
//! - [`sim::SimUpdates`], the simulated twin for tests and desktops: a
//!   "bundle" is a JSON line followed by any payload, and nothing is ever
//!   installed;
//! - [`staged`]: the bundle a director chose, copied onto the station before
//!   it is checked, so what the preview shows and what installs are the same
//!   bytes whatever happens to the stick (why a copy: see there).
//!
//! The parsing of what `rauc` prints and the version comparison are pure
//! functions here, tested without `rauc`. Text from a bundle is the bundle
//! author's, not ours: it reaches a screen or a record only through
//! [`shown`] (escaped, cut).
//!
//! Why the kiosk and not a root helper: RAUC's D-Bus policy already lets the
//! kiosk's user ask for an install, RAUC itself checks the signature against
//! the station's keyring and the compatible string, and the boot check (root)
//! decides whether the new slot is kept. The kiosk only asks, shows and
//! records.

pub mod sim;
pub mod staged;
pub mod system;

use crate::backend::{Backend, BackendError};
use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

/// The file name ending of a RAUC bundle.
pub const BUNDLE_EXTENSION: &str = "raucb";
/// Most bundles looked at on one stick (a stick full of files must not
/// keep the director waiting on `rauc info` for each).
pub const MAX_BUNDLES: usize = 8;
/// Longest version, description or signer shown, in characters.
pub const SHOWN_CHARS: usize = 64;
/// The boot check's verdict, written by root after the reboot.
pub const BOOT_CHECK_FILE: &str = "boot-check";
/// The verdict once recorded in the audit log (renamed, never rewritten).
pub const BOOT_CHECK_RECORDED: &str = "boot-check.recorded";
/// Written by the kiosk just before it asks RAUC to install (`version=…`),
/// removed once the install's end is recorded. Found at a start, it means
/// the last kiosk stopped (killed, crashed) while RAUC, a service of its
/// own, went on writing the slot: the new kiosk asks RAUC how that install
/// ended and records it ([`Updates::after_interruption`]), so the audit log
/// never ends with `update_started` and nothing after it.
pub const INSTALL_MARKER: &str = "install-started";

/// Untrusted text from a bundle (version, description, signer) as the
/// station may show or record it.
pub fn shown(text: &str) -> String {
    crate::word::printable(text, SHOWN_CHARS)
}

/// The release this station runs, and what bundles it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StationRelease {
    /// `0.1.0`, from `/etc/wordjudge-release`.
    pub version: String,
    /// `wordjudge-amd64`, from RAUC's `system.conf`.
    pub compatible: String,
}

/// What a bundle says of itself, its signature verified against the
/// station's keyring. Every field is the bundle author's text: show it only
/// through [`shown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleInfo {
    pub compatible: String,
    pub version: String,
    pub description: String,
    /// The signer certificate's subject (`O = …, CN = update signer`).
    pub signer: String,
}

/// The compatible string of the PC image (`kiosk-image/`, `ARCH=amd64`).
pub const PC_COMPATIBLE: &str = "wordjudge-amd64";
/// The compatible string of the Raspberry Pi card (`ARCH=arm64`).
pub const PI_COMPATIBLE: &str = "wordjudge-arm64";

/// Which kind of station a compatible string names. A compatible string is
/// an internal name (RAUC's); a director is told the kind in words instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StationKind {
    /// The PC image.
    PcImage,
    /// The Raspberry Pi card.
    PiCard,
    /// The simulated twin (tests, desktops).
    Simulated,
    /// A string this station does not know.
    Other,
}

impl StationKind {
    pub fn of(compatible: &str) -> StationKind {
        match compatible {
            PC_COMPATIBLE => StationKind::PcImage,
            PI_COMPATIBLE => StationKind::PiCard,
            sim::SIM_COMPATIBLE => StationKind::Simulated,
            _ => StationKind::Other,
        }
    }
}

/// How an offered version stands to the station's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    /// Newer: ENTER installs it.
    Upgrade,
    /// The same version again: needs the director PIN again.
    Reinstall,
    /// Older (or not comparable): needs the director PIN again.
    Downgrade,
}

impl UpdateKind {
    /// `offered` against `current`. A version that cannot be compared
    /// counts as a downgrade: the station cannot tell it is newer.
    pub fn of(current: &str, offered: &str) -> UpdateKind {
        match compare_versions(offered, current) {
            Some(Ordering::Greater) => UpdateKind::Upgrade,
            Some(Ordering::Equal) => UpdateKind::Reinstall,
            Some(Ordering::Less) | None => UpdateKind::Downgrade,
        }
    }

    /// Whether the director must type the PIN again before it installs.
    pub fn needs_pin(self) -> bool {
        self != UpdateKind::Upgrade
    }
}

/// A version's numeric dot components (`0.1.10` → `[0, 1, 10]`), `None`
/// when it is not only digits and dots. A pre-release suffix (`-rc1`) is not
/// a version a station installs silently: it does not compare.
fn version_parts(version: &str) -> Option<Vec<u64>> {
    let version = version.trim();
    let version = version.strip_prefix('v').unwrap_or(version);
    if version.is_empty() {
        return None;
    }
    version
        .split('.')
        .map(|p| if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) { None } else { p.parse().ok() })
        .collect()
}

/// Compares two versions by their numeric dot components (`0.1.10` >
/// `0.1.9`, `1.0` = `1.0.0`); `None` when either is not such a version.
pub fn compare_versions(a: &str, b: &str) -> Option<Ordering> {
    let (mut a, mut b) = (version_parts(a)?, version_parts(b)?);
    let len = a.len().max(b.len());
    a.resize(len, 0);
    b.resize(len, 0);
    Some(a.cmp(&b))
}

/// The facts of `rauc info --output-format=json`: (compatible, version,
/// description). The signer is not in it (see [`parse_signer`]).
pub fn parse_info_json(text: &str) -> Result<(String, String, String), UpdateError> {
    let value: serde_json::Value = serde_json::from_str(text.trim())
        .map_err(|e| UpdateError::Unreadable(format!("rauc info printed no bundle description ({e})")))?;
    let field = |name: &str| value.get(name).and_then(|v| v.as_str()).map(str::to_string);
    let compatible =
        field("compatible").ok_or_else(|| UpdateError::Unreadable("the bundle names no compatible".into()))?;
    let version = field("version").ok_or_else(|| UpdateError::Unreadable("the bundle names no version".into()))?;
    Ok((compatible, version, field("description").unwrap_or_default()))
}

/// The signer from readable `rauc info`: the first `Subject:` after
/// `Certificate Chain:` (the signing certificate comes first).
pub fn parse_signer(text: &str) -> Option<String> {
    let chain = &text[text.find("Certificate Chain:")?..];
    chain.lines().find_map(|line| {
        let (_, subject) = line.split_once("Subject:")?;
        let subject = subject.trim();
        (!subject.is_empty()).then(|| subject.to_string())
    })
}

/// The percentage in a `rauc install` progress line (` 42% Copying image`).
pub fn parse_progress(line: &str) -> Option<u8> {
    let at = line.find('%')?;
    let digits: String =
        line[..at].chars().rev().take_while(|c| c.is_ascii_digit()).collect::<Vec<_>>().into_iter().rev().collect();
    digits.parse::<u8>().ok().filter(|p| *p <= 100)
}

/// The value of `KEY=value` in a shell-style file (`VERSION=0.1.0`).
pub fn key_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.trim().split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string()).filter(|v| !v.is_empty())
    })
}

/// Marks an install as started (see [`INSTALL_MARKER`]), durably.
pub fn mark_install_started(dir: &Path, version: &str) -> std::io::Result<()> {
    crate::outside_files::write_atomically(&dir.join(INSTALL_MARKER), format!("version={version}\n").as_bytes())
}

/// The version of an install a kiosk started and did not see end, if any.
pub fn install_started(dir: &Path) -> Option<String> {
    // Unreadable, it still says an install was under way (version unknown).
    let text = read_state_file(&dir.join(INSTALL_MARKER))?.unwrap_or_default();
    Some(key_value(&text, "version").map(|v| shown(&v)).unwrap_or_default())
}

/// The install's end is recorded: the marker goes.
pub fn clear_install_started(dir: &Path) {
    match std::fs::remove_file(dir.join(INSTALL_MARKER)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!("update: cannot remove {}: {e}", dir.join(INSTALL_MARKER).display()),
    }
}

/// How an install the last kiosk did not see end stands now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallState {
    /// RAUC is still writing the slot: ask again later.
    Running,
    /// It finished: the other slot is written and boots next.
    Installed,
    /// It did not finish, or failed (why).
    Failed(String),
}

/// What the boot check decided of the slot the station rebooted into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootOutcome {
    /// The new slot booted to READY and is kept.
    MarkedGood,
    /// It did not: the station went back to the old slot.
    RolledBack,
}

impl BootOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            BootOutcome::MarkedGood => "marked-good",
            BootOutcome::RolledBack => "rolled-back",
        }
    }
}

/// The boot check's verdict file (`slot=B`, `version=0.1.1`,
/// `outcome=marked-good|rolled-back`, `detail=…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootCheck {
    pub slot: String,
    pub version: String,
    pub outcome: BootOutcome,
    pub detail: String,
}

/// Reads a boot-check file; `None` when it is not one (an unknown
/// outcome is never guessed).
pub fn parse_boot_check(text: &str) -> Option<BootCheck> {
    let outcome = match key_value(text, "outcome")?.as_str() {
        "marked-good" => BootOutcome::MarkedGood,
        "rolled-back" => BootOutcome::RolledBack,
        _ => return None,
    };
    Some(BootCheck {
        slot: shown(&key_value(text, "slot").unwrap_or_default()),
        version: shown(&key_value(text, "version").unwrap_or_default()),
        outcome,
        detail: crate::word::printable(&key_value(text, "detail").unwrap_or_default(), 200),
    })
}

/// A boot check in `dir`: the new verdict (not yet recorded), if any.
pub fn pending_boot_check(dir: &Path) -> Option<BootCheck> {
    let unreadable = |detail: String| BootCheck {
        slot: String::new(),
        version: String::new(),
        outcome: BootOutcome::RolledBack,
        detail: format!("the boot check's file could not be read: {detail}"),
    };
    match read_state_file(&dir.join(BOOT_CHECK_FILE))? {
        Ok(text) => Some(parse_boot_check(&text).unwrap_or_else(|| unreadable(crate::word::quote(&text)))),
        Err(why) => Some(unreadable(why)),
    }
}

/// The verdict last recorded, for the director menu.
pub fn recorded_boot_check(dir: &Path) -> Option<BootCheck> {
    parse_boot_check(&read_state_file(&dir.join(BOOT_CHECK_RECORDED))?.ok()?)
}

/// Longest file of the update folder read (they hold a few lines).
const STATE_FILE_LIMIT: u64 = 64 * 1024;

/// A small file of the update folder: `None` when there is none; its text,
/// or why it cannot be read (a FIFO, a directory, a huge or binary file is
/// never read, so nothing there can hang or fill the kiosk).
fn read_state_file(path: &Path) -> Option<Result<String, String>> {
    match crate::outside_files::read_small_text(path, STATE_FILE_LIMIT) {
        Ok(text) => Some(Ok(text)),
        Err(e) if e.is_not_found() => None,
        Err(e) => Some(Err(e.to_string())),
    }
}

/// Marks the verdict in `dir` as recorded (after its audit record is
/// written): renamed, so it is recorded exactly once, across restarts.
pub fn mark_boot_check_recorded(dir: &Path) -> std::io::Result<()> {
    std::fs::rename(dir.join(BOOT_CHECK_FILE), dir.join(BOOT_CHECK_RECORDED))
}

/// The `*.raucb` files at the top of `root`, sorted by name, at most
/// [`MAX_BUNDLES`].
pub fn find_bundles(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    // A stick's top folder: listed without following links, bounded in
    // entries; a link named *.raucb is not a bundle.
    let mut bundles: Vec<PathBuf> = crate::outside_files::list_folder(root, 4096)?
        .entries
        .into_iter()
        .filter(|e| e.kind == crate::outside_files::EntryKind::File)
        .map(|e| e.path)
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(BUNDLE_EXTENSION)))
        .collect();
    bundles.sort();
    bundles.truncate(MAX_BUNDLES);
    Ok(bundles)
}

/// Why a bundle was not looked at or installed. Nothing on the station
/// changed. The text of each (its `Display`) is for the audit log and the
/// journal, where RAUC's own words help whoever reads them later; screens
/// word each variant for a director instead (`kiosk::view`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateError {
    /// This station takes no updates (no RAUC configuration).
    NotUpdatable,
    /// `rauc` could not be run at all.
    NotRun(String),
    /// RAUC refused the bundle: its signature does not verify against this
    /// station's keyring, or it is truncated or not a bundle (RAUC's words).
    Refused(String),
    /// RAUC's answer could not be understood.
    Unreadable(String),
    /// The bundle verified but is made for another kind of station: its
    /// compatible string, and this station's.
    OtherStation { bundle: String, station: String },
    /// The stick, or the bundle on it, could not be read (pulled out, gone,
    /// a mount refused).
    Stick(String),
    /// The station has no room to keep its copy of the bundle ([`staged`]):
    /// the bytes it needs free, and those free.
    NoRoom { needed: u64, free: u64 },
    /// The station could not write its copy of the bundle.
    CopyFailed(String),
    /// The station's copy no longer holds the bytes that were checked and
    /// previewed: it is not installed.
    Changed,
    /// The install did not finish (RAUC's words).
    InstallFailed(String),
    /// The kiosk stopped while RAUC was installing, and RAUC, asked after
    /// the restart, says the install did not finish (its words).
    Interrupted(String),
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::NotUpdatable => f.write_str("this station takes no updates (no RAUC configuration)"),
            UpdateError::NotRun(why) => write!(f, "cannot run rauc: {why}"),
            UpdateError::Refused(why) => write!(f, "the bundle was refused: {why}"),
            UpdateError::Unreadable(why) => f.write_str(why),
            UpdateError::OtherStation { bundle, station } => {
                write!(f, "it is for {}, and this station is {}", shown(bundle), shown(station))
            }
            UpdateError::Stick(why) => write!(f, "the stick could not be read: {why}"),
            UpdateError::NoRoom { needed, free } => {
                write!(f, "no room for the station's copy of the bundle: {needed} bytes needed, {free} free")
            }
            UpdateError::CopyFailed(why) => write!(f, "the station could not keep a copy of the bundle: {why}"),
            UpdateError::Changed => {
                f.write_str("the station's copy of the bundle changed after it was checked; not installed")
            }
            UpdateError::InstallFailed(why) => write!(f, "the install failed: {why}"),
            UpdateError::Interrupted(why) => write!(f, "the kiosk stopped during the install, and {why}"),
        }
    }
}

impl std::error::Error for UpdateError {}

/// The kiosk's side of updates. `Send + Sync`: `rauc info` and `rauc
/// install` take seconds to minutes and run on a worker thread.
pub trait Updates: Send + Sync {
    /// The station's release, or `None` when it takes no updates.
    fn release(&self) -> Option<StationRelease>;
    /// What `bundle` says of itself, its signature verified.
    fn inspect(&self, bundle: &Path) -> Result<BundleInfo, UpdateError>;
    /// Installs `bundle` into the other slot, calling `progress` with each
    /// percentage; `Ok` when the slot is written and will boot next.
    fn install(&self, bundle: &Path, progress: &mut dyn FnMut(u8)) -> Result<(), UpdateError>;
    /// Where the boot check writes its verdict (`None`: nowhere).
    fn state_dir(&self) -> Option<PathBuf>;
    /// How the install of `version` that the last kiosk started stands
    /// (that kiosk stopped before it ended: see [`INSTALL_MARKER`]).
    fn after_interruption(&self, version: &str) -> InstallState;
}

/// A station that takes no updates.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoUpdates;

impl Updates for NoUpdates {
    fn release(&self) -> Option<StationRelease> {
        None
    }
    fn inspect(&self, _: &Path) -> Result<BundleInfo, UpdateError> {
        Err(UpdateError::NotUpdatable)
    }
    fn install(&self, _: &Path, _: &mut dyn FnMut(u8)) -> Result<(), UpdateError> {
        Err(UpdateError::NotUpdatable)
    }
    fn state_dir(&self) -> Option<PathBuf> {
        None
    }
    fn after_interruption(&self, _: &str) -> InstallState {
        InstallState::Failed("this station takes no updates".into())
    }
}

/// Bundles the station refused at their check, not offered again in the
/// director menu until the sticks plugged in change (one pulled out, or
/// another plugged in): a director who was told why a bundle will not
/// install is not offered it again, and one who fixed the stick and plugged
/// it back in is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refusals {
    /// The sticks (devices) plugged in when last looked at.
    plugged: Vec<String>,
    /// (device, file) of each bundle refused since.
    refused: Vec<(String, String)>,
}

impl Refusals {
    /// The sticks plugged in now; any change forgets every refusal.
    pub fn plugged(&mut self, devices: &[&str]) {
        if !self.plugged.iter().map(String::as_str).eq(devices.iter().copied()) {
            self.plugged = devices.iter().map(|d| d.to_string()).collect();
            self.refused.clear();
        }
    }

    /// Bundle `file` on the stick `device` was refused.
    pub fn refuse(&mut self, device: &str, file: &str) {
        if !self.is_refused(device, file) {
            self.refused.push((device.to_string(), file.to_string()));
        }
    }

    /// Whether bundle `file` on `device` was refused since the sticks last changed.
    pub fn is_refused(&self, device: &str, file: &str) -> bool {
        self.refused.iter().any(|(d, f)| d == device && f == file)
    }
}

/// `--updates`' word for the simulated twin (`sim:DIR`: its boot-check
/// files in DIR).
pub const SIMULATED: &str = "sim";

/// Reads `--updates`' value: `system` (`rauc` and the appliance's files;
/// none without `system.conf`), `sim:DIR` or `off`.
pub fn backend(text: &str) -> Result<Backend, BackendError> {
    Backend::parse(text, SIMULATED)
}

/// Opens the backend.
pub fn open(backend: &Backend) -> Box<dyn Updates> {
    match backend {
        Backend::System => Box::new(system::SystemUpdates::appliance()),
        Backend::Simulated(dir) => Box::new(sim::SimUpdates::new(env!("CARGO_PKG_VERSION"), dir.clone())),
        Backend::Off => Box::new(NoUpdates),
    }
}

#[cfg(test)]
mod tests;
