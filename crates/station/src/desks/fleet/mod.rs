//! The fleet desk: the event this station is in, and leaving it. The port
//! is here; `live` reads and clears the station's fleet folder, `fake` a
//! test's event.

mod fake;
mod live;

pub(in crate::desks) use live::FleetUnitsStop;

use std::fmt;

/// The event's fleet: the event this station is in, and leaving it.
/// Errors: [`LeaveError`].
pub trait FleetMembership {
    /// The event whose fleet this station is in, if any (the director menu
    /// then offers to leave it).
    fn fleet_event(&self) -> Option<String> {
        None
    }
    /// Leaves the event's fleet: the uploader stops, its key and
    /// certificates go; recorded. The event left.
    fn leave_fleet(&mut self) -> Result<String, LeaveError> {
        Err(LeaveError::NotInFleet)
    }
}

/// Why the station did not leave its fleet. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaveError {
    /// The station is in no fleet.
    NotInFleet,
    /// Its fleet folder could not be read or cleared, or the uploader did
    /// not stop.
    Failed(String),
}

impl fmt::Display for LeaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaveError::NotInFleet => f.write_str("this station is in no fleet"),
            LeaveError::Failed(why) => write!(f, "{why}; nothing changed"),
        }
    }
}

impl std::error::Error for LeaveError {}
