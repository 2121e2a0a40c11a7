//! The update desk of the port: the bundle offered, its preview, what the
//! director asks of it, and what the install comes to.

pub mod boot_check;
mod fake;
mod live;
pub mod worker;

use std::fmt;
use wordjudge_core::update::{BootCheck, UpdateError, UpdateKind};

/// An update bundle on a plugged-in stick, offered in the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateOffer {
    /// The stick's device (`sdb1`).
    pub device: String,
    /// The bundle's file name on the stick (escaped).
    pub file: String,
    /// Its version, once its signature verified (escaped); `None` when
    /// RAUC refused it (its preview then says why).
    pub version: Option<String>,
    /// The station's own release.
    pub current: String,
}

/// What the director confirms before an update installs: the bundle's
/// facts, its signature verified and its compatible string matching this
/// station's. Every text is escaped and cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdatePreview {
    pub file: String,
    pub signer: String,
    pub version: String,
    pub current: String,
    pub compatible: String,
    pub description: String,
    pub kind: UpdateKind,
}

/// What the director asked of an update. The work runs in the background;
/// what it comes to arrives through [`UpdateWork::update_report`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateRequest {
    /// Copy bundle `file` from the stick `device` (mounted read-only) onto
    /// the station and check the copy: a [`UpdateReport::Preview`] or
    /// [`UpdateReport::Refused`]. A refused bundle is no longer offered
    /// until the sticks plugged in change.
    Check { device: String, file: String },
    /// Install the bundle previewed, from the station's copy (the director
    /// confirmed it): exactly the bytes previewed, or nothing.
    Install,
    /// Drop the bundle previewed (and the station's copy of it).
    Cancel,
}

/// Update work that moved on or finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateReport {
    /// The bundle checked out: its facts, to confirm.
    Preview(UpdatePreview),
    /// The bundle will not be installed (unverifiable, incompatible,
    /// unreadable, no room for the station's copy); nothing changed.
    Refused(UpdateError),
    /// The install is this far (percent).
    Progress(u8),
    /// The other slot holds `version` and boots next: the station must restart.
    Installed { version: String },
    /// The install did not finish, or was refused at its start (the copy
    /// checked had changed); the station runs as before.
    Failed(UpdateError),
}

/// Why update work did not start: nothing was checked or installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateNotStarted {
    /// Other stick or update work is still running.
    Busy,
    /// No bundle is checked and waiting to install (it was put away).
    NotOpen,
    /// The station takes no updates (no stick support, or no bundle offered).
    Unavailable,
    /// The audit log cannot be written (its problem), so an update, which
    /// must be recorded, does not start.
    AuditLogFailing(String),
    /// The station could not note on its data partition that an install
    /// starts (why), so it does not start: a restart during it would leave
    /// nothing to say how it ended.
    NotNoted(String),
}

impl fmt::Display for UpdateNotStarted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateNotStarted::Busy => f.write_str("the station is still working with a stick"),
            UpdateNotStarted::NotOpen => f.write_str("no stick is open"),
            UpdateNotStarted::Unavailable => f.write_str("this station has no USB stick support"),
            UpdateNotStarted::AuditLogFailing(problem) => {
                write!(f, "the audit log cannot be written, so nothing was installed: {problem}")
            }
            UpdateNotStarted::NotNoted(why) => write!(f, "nothing was installed: {why}"),
        }
    }
}

impl std::error::Error for UpdateNotStarted {}

/// The update desk: the update bundle a stick offers, its preview and
/// install started and polled, and the boot check's verdict on the last
/// update. Errors: [`UpdateNotStarted`].
pub trait UpdateWork {
    /// The update bundle on a plugged-in stick, if any and if this station
    /// takes updates (asked with [`StickWork::sticks`](super::StickWork::sticks) while the director menu is
    /// open; the station looks at a new stick in the background). Never one
    /// the station refused since the sticks plugged in last changed.
    fn update_offer(&mut self) -> Option<UpdateOffer> {
        None
    }
    /// Starts update work. On `Err` nothing started.
    fn update_request(&mut self, _request: UpdateRequest) -> Result<(), UpdateNotStarted> {
        Err(UpdateNotStarted::Unavailable)
    }
    /// Update work that moved on since the last call (polled on every tick).
    fn update_report(&mut self) -> Option<UpdateReport> {
        None
    }
    /// The boot check's verdict on the last update, for the director menu.
    fn last_update(&self) -> Option<BootCheck> {
        None
    }
}
