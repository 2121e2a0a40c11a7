//! The stick desk of the port: the sticks the menu offers, what the
//! director asks of one, and what that work comes to. The work runs in the
//! background; these are the data that cross the port, never its wording.

mod fake;
mod live;
pub mod worker;

use std::fmt;

/// A USB stick the director menu offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StickChoice {
    /// The device (`sdb1`): what requests name.
    pub device: String,
    /// How the menu names it: `WJIMPORT (sdb1, FAT32, 64 MB)`.
    pub name: String,
}

/// What the director asked of a stick. The work runs in the background (a
/// stick is slow, and the screen must never freeze); its end comes back
/// through [`StickWork::usb_update`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbRequest {
    /// Mount `device` read-only and preview every word list on it.
    OpenForImport { device: String },
    /// Show word list `file` (its row) as the catalogue name `name` instead.
    Rename { file: usize, name: Option<String> },
    /// Install word list `file`: the bytes previewed, never read again.
    Install { file: usize },
    /// Unmount the stick opened for import.
    Eject,
    /// Export the audit log to `device`: mount, write, unmount.
    Export { device: String },
    /// Join the event's fleet with the fleet stick `device`: mount its
    /// `wordjudge/` folder, leave the request or take the certificate, unmount.
    JoinFleet { device: String },
}

impl UsbRequest {
    /// What the screen shows while this request's work runs (both stations
    /// ask here, so a new request cannot show one thing in tests and
    /// another on the station).
    pub fn work(&self) -> UsbWork {
        match self {
            UsbRequest::OpenForImport { .. } | UsbRequest::Rename { .. } => UsbWork::Reading,
            UsbRequest::Install { .. } => UsbWork::Installing,
            UsbRequest::Eject => UsbWork::Ejecting,
            UsbRequest::Export { .. } => UsbWork::Exporting,
            UsbRequest::JoinFleet { .. } => UsbWork::JoiningFleet,
        }
    }
}

/// What USB work is doing, for the screen while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsbWork {
    Reading,
    Installing,
    Ejecting,
    Exporting,
    JoiningFleet,
}

/// One word list on a stick, as it would install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRow {
    /// The file's name on the stick.
    pub file: String,
    /// The catalogue name it installs as, from its file name or chosen.
    pub name: Option<String>,
    pub state: ImportState,
}

/// What a word list on a stick is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportState {
    /// Read and compiled, but no name says which lexicon it is.
    Unnamed { fingerprint: String, words: u64 },
    /// Would make lexicon `lexicon` have `status`, computed from these bytes;
    /// `already`: the lexicon installed now is these very bytes.
    Would {
        lexicon: String,
        status: String,
        fingerprint: String,
        words: u64,
        installable: bool,
        note: String,
        already: bool,
    },
    /// Cannot be used (malformed, too large, unreadable): why.
    Unusable(String),
    /// Installed; `status` is the lexicon's, from the installed bytes.
    Installed { lexicon: String, status: String },
}

/// USB work that finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbUpdate {
    /// The stick is open for import: its word lists, and how many more
    /// files were left out.
    ImportList { rows: Vec<ImportRow>, left_out: usize },
    /// A row changed (renamed or installed).
    Row { index: usize, row: ImportRow },
    /// An install was refused; nothing changed.
    InstallRefused { index: usize, reason: String },
    /// The stick was unmounted: it may be removed.
    Ejected,
    /// The log is on the stick (which was unmounted after).
    Exported { folder: String, lines: usize, intact: bool, signed: bool },
    /// The fleet stick's visit ended (the stick was unmounted after).
    Fleet(FleetVisit),
    /// The work failed (the stick pulled out, a mount refused); the stick
    /// was unmounted where it could be, and nothing was installed.
    Failed { work: UsbWork, problem: String },
}

/// What a visit of the fleet stick came to, for the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetVisit {
    /// The station's request is on the stick: sign it on the laptop
    /// (`wordjudge fleet sign`) and bring the stick back. `replaced`: a
    /// certificate there was for another key of this station.
    /// `event` and `ca`: the event and its CA's grouped fingerprint, as the
    /// stick named them (`fleet setup` printed the same on the laptop).
    Requested { station: String, replaced: bool, code: Option<String>, event: String, ca: String },
    /// Joined: the station sends its journal to `upload_url` from now on.
    Joined { event: String, upload_url: String },
    /// Already in this event's fleet: nothing changed.
    AlreadyJoined { event: String, upload_url: String },
    /// Refused (why); nothing changed.
    Refused(String),
}

/// Why USB work did not start. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbError {
    /// Other USB work is still running.
    Busy,
    /// No stick is open for import (or that row does not exist).
    NotOpen,
    /// The station has no USB support.
    Unavailable,
}

impl fmt::Display for UsbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsbError::Busy => f.write_str("the station is still working with a stick"),
            UsbError::NotOpen => f.write_str("no stick is open"),
            UsbError::Unavailable => f.write_str("this station has no USB stick support"),
        }
    }
}

impl std::error::Error for UsbError {}

/// The stick desk: the USB sticks plugged in, and work on one (a word
/// list previewed and installed, the log exported, the fleet's folder
/// visited) started, polled and cancelled. Errors: [`UsbError`].
pub trait StickWork {
    /// The USB sticks plugged in now (asked about once a second while the
    /// director menu is open).
    fn sticks(&mut self) -> Vec<StickChoice> {
        Vec::new()
    }
    /// Every catalogue name a word list may be installed as, in order
    /// (for choosing with LEFT and RIGHT).
    fn import_names(&self) -> Vec<String> {
        Vec::new()
    }
    /// Starts USB work. On `Err` nothing started.
    fn usb_request(&mut self, _request: UsbRequest) -> Result<(), UsbError> {
        Err(UsbError::Unavailable)
    }
    /// Stops the stick work running, if any: the station no longer waits
    /// for it, and records whatever it still does when it ends (a thread
    /// blocked on a stick that stopped answering cannot be stopped, only
    /// left). New stick work is refused while such work is still alive.
    fn usb_cancel(&mut self) {}
    /// The USB work that finished since the last call, if any (polled on
    /// every tick while it runs).
    fn usb_update(&mut self) -> Option<UsbUpdate> {
        None
    }
}
