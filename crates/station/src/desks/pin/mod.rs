//! The PIN desk: the director's PIN checked, changed or set first, the
//! wrong-PIN guard kept across restarts, and director actions recorded. The
//! port is here; `live` checks the config's hash (in a child process:
//! `checker`), `fake` a test's PIN.

pub mod checker;
mod fake;
mod live;

use std::fmt;

/// Result of checking a director PIN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinCheck {
    Accepted,
    Refused,
    /// No PIN hash is configured: the director menu cannot be opened.
    NotSet,
}

/// The PIN prompt's guard as the station keeps it across restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PinGuard {
    /// Wrong PINs in a row.
    pub failures: u32,
    /// Lockouts in a row since the last right PIN.
    pub lockouts: u32,
    /// How long the current lockout still runs (zero: none).
    pub locked_for: std::time::Duration,
}

/// Director events the flow reports for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectorEvent {
    PinAccepted,
    PinRefused { failures: u32 },
    LockedOut { seconds: u32 },
    Left,
}

/// The director's PIN and the director's records: the PIN checked, changed
/// or set first, the wrong-PIN guard kept across restarts, and every
/// director action written to the audit log. Errors: [`PinChangeError`].
pub trait DirectorPin {
    /// Checks a director PIN.
    fn check_pin(&mut self, pin: &str) -> PinCheck;
    /// Records a director event in the audit log.
    fn director_event(&mut self, event: DirectorEvent);
    /// The PIN guard saved before this process started (none saved: all zero).
    fn pin_guard(&self) -> PinGuard {
        PinGuard::default()
    }
    /// Saves the PIN guard, so a restart keeps wrong PINs and lockouts.
    fn save_pin_guard(&mut self, _guard: PinGuard) {}
    /// Changes the director PIN after checking the old one.
    fn change_pin(&mut self, old: &str, new: &str) -> Result<(), PinChangeError>;
    /// Whether this is a fresh station that has never had a director PIN
    /// (no config, no last good copy): the director chord then asks for
    /// one, so a new card can be set up at the venue without a shell. A
    /// station whose config was damaged is never fresh.
    fn first_pin_needed(&self) -> bool;
    /// Sets the first director PIN (only while [`Self::first_pin_needed`]),
    /// recorded in the audit log.
    fn set_first_pin(&mut self, new: &str) -> Result<(), PinChangeError>;
}

/// Why the director PIN was not changed or set. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinChangeError {
    /// The old PIN is not the director PIN.
    WrongPin,
    /// The new PIN is not one (its format), or the station already has one
    /// (a first PIN).
    Invalid(String),
    /// The config could not be saved, or is not the station's own (the
    /// last good settings are held).
    Failed(String),
}

impl fmt::Display for PinChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinChangeError::WrongPin => f.write_str("the old PIN is wrong"),
            PinChangeError::Invalid(why) => f.write_str(why),
            PinChangeError::Failed(why) => write!(f, "{why}; nothing changed"),
        }
    }
}

impl std::error::Error for PinChangeError {}
