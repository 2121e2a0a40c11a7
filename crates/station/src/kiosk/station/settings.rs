//! The director's settings desk of the port: the settings the menu
//! changes, why a change was refused, and the one reading of a typed clock
//! (both stations and the flow's editor read it here).

use std::fmt;

/// A station setting the director changes from the menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Pin,
    StationName,
    Clock,
    /// The last good settings, written back over a damaged config.
    Restored,
    /// The screen rotation, saved as `degrees`; `pending` while it differs
    /// from the rotation the screen started with (it takes effect at the
    /// next start).
    Rotation { degrees: u16, pending: bool },
}

/// How far the picture is turned clockwise, in degrees: as saved in the
/// config, and as the screen started with (the backend turns it once, at
/// start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    pub saved: u16,
    pub in_force: u16,
}

impl Rotation {
    /// The next rotation ENTER gives: 90° further, 270° back to 0°.
    pub fn next(self) -> u16 {
        (self.saved + 90) % 360
    }
}

/// Why a setting was not changed. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsError {
    /// The old PIN is not the director PIN.
    WrongPin,
    /// The value is not acceptable (PIN format, empty name, bad date).
    Invalid(String),
    /// Only the appliance sets the system clock.
    NotAppliance,
    /// The config could not be saved, or the system refused.
    Failed(String),
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::WrongPin => f.write_str("the old PIN is wrong"),
            SettingsError::Invalid(why) => f.write_str(why),
            SettingsError::NotAppliance => f.write_str("only the appliance sets the system clock"),
            SettingsError::Failed(why) => write!(f, "{why}; nothing changed"),
        }
    }
}

impl std::error::Error for SettingsError {}

/// Reads a local date and time typed as `YYYY-MM-DD HH:MM`, refusing what
/// is not a real moment (a station's clock is evidence in every record).
pub fn parse_clock(text: &str) -> Result<jiff::civil::DateTime, SettingsError> {
    let invalid = || SettingsError::Invalid(format!("{text:?} is not a date and time like 2026-11-23 14:05"));
    let (date, time) = text.trim().split_once(' ').ok_or_else(invalid)?;
    let date: jiff::civil::Date = date.parse().map_err(|_| invalid())?;
    let time: jiff::civil::Time = format!("{time}:00").parse().map_err(|_| invalid())?;
    if !(2024..=2099).contains(&date.year()) {
        return Err(SettingsError::Invalid(format!("the year {} is not plausible", date.year())));
    }
    Ok(date.to_datetime(time))
}
