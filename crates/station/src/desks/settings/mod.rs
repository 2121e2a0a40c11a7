//! The director's settings desk of the port: the settings the menu
//! changes, why a change was refused, and the one reading of a typed clock
//! (both stations and the flow's editor read it here).

mod fake;
mod live;

use std::fmt;

/// A station setting the director changes from the menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Pin,
    /// A fresh station's first director PIN.
    FirstPin,
    StationName,
    Clock,
    TimeZone,
    /// The last good settings, written back over a damaged config.
    Restored,
    /// A fresh config after the settings were lost.
    SetUpAgain,
    /// The screen rotation, saved as `degrees`; `pending` while it differs
    /// from the rotation the screen started with (it takes effect at the
    /// next start).
    Rotation {
        degrees: u16,
        pending: bool,
    },
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

/// The local time `when`, typed in the station's time zone `zone`, as the
/// system's zone `system` reads it: what `timedatectl set-time` takes (the
/// director's zone and the image's may differ).
pub fn system_clock_text(
    when: jiff::civil::DateTime,
    zone: jiff::tz::TimeZone,
    system: jiff::tz::TimeZone,
) -> Result<String, SettingsError> {
    let moment = when
        .to_zoned(zone)
        .map_err(|e| SettingsError::Invalid(format!("{when} is not a time in this station's zone: {e}")))?;
    Ok(moment.with_time_zone(system).strftime("%Y-%m-%d %H:%M:%S").to_string())
}

/// The station's clock as the director reads it: `typed` in the clock
/// prompt's own form (`2026-12-06 14:05`), in the time zone `zone` (an IANA
/// name, or `UTC`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalTime {
    pub typed: String,
    pub zone: String,
}

impl LocalTime {
    /// The time `at` in `zone`, as the prompt shows it.
    pub fn of(at: &jiff::Zoned) -> LocalTime {
        LocalTime {
            typed: at.strftime("%Y-%m-%d %H:%M").to_string(),
            zone: at.time_zone().iana_name().unwrap_or("UTC").to_string(),
        }
    }
}

/// The settings the director menu changes: the station's name, the clock,
/// the screen's rotation, a damaged config's last good settings written
/// back; and the menu's facts column. Errors: [`SettingsError`].
pub trait DirectorSettings {
    /// Whether the station's config was damaged and its last good settings
    /// are held for the director: players cannot judge until the director
    /// restores them (a cut or edited card is looked at before any verdict).
    fn settings_held(&self) -> bool {
        false
    }
    /// Writes the held last good settings back as the config (recorded);
    /// the station judges again.
    fn restore_settings(&mut self) -> Result<(), SettingsError> {
        Err(SettingsError::Invalid("the settings are not damaged: nothing to restore".into()))
    }
    /// Whether the config and its last good copy are both gone or unusable
    /// while the PIN guard is whole: the director sets the station up again
    /// from the menu ([`Self::set_up_again`]); players see "not set up".
    fn settings_gone(&self) -> bool {
        false
    }
    /// Writes a fresh config named `name` with the PIN and audit log the
    /// guard keeps, on no lexicon chosen (recorded, one record).
    fn set_up_again(&mut self, _name: &str) -> Result<(), SettingsError> {
        Err(SettingsError::Invalid("the settings are in force: nothing to set up again".into()))
    }
    /// Renames the station.
    fn set_station_name(&mut self, name: &str) -> Result<(), SettingsError>;
    /// Sets the local date and time from `YYYY-MM-DD HH:MM`.
    fn set_clock(&mut self, local: &str) -> Result<(), SettingsError>;
    /// The station's clock now, as the clock prompt starts from it.
    fn local_time(&self) -> LocalTime;
    /// Shows the station's times in the time zone `name` (an IANA name the
    /// station's time zone database holds), saved and recorded. The audit
    /// log keeps UTC; a clock typed later is read in this zone.
    fn set_time_zone(&mut self, name: &str) -> Result<(), SettingsError>;
    /// The screen's rotation, for the director menu; `None`: the station
    /// cannot turn its picture (no menu item).
    fn rotation(&self) -> Option<Rotation> {
        None
    }
    /// Saves the screen rotation (0, 90, 180 or 270 degrees clockwise) in
    /// the config, recorded; it takes effect at the next start.
    fn set_rotation(&mut self, _degrees: u16) -> Result<(), SettingsError> {
        Err(SettingsError::Invalid("this station cannot turn its picture".into()))
    }
    /// Facts for the director menu's right-hand column, e.g. the audit log's
    /// last slip code and key fingerprint, the GPIO backend: (label, value).
    fn facts(&self) -> Vec<(String, String)>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_typed_in_the_stations_zone_is_set_as_the_system_reads_it() {
        let kolkata = jiff::tz::TimeZone::get("Asia/Kolkata").unwrap();
        let when = parse_clock("2026-12-06 14:05").unwrap();
        assert_eq!(system_clock_text(when, kolkata, jiff::tz::TimeZone::UTC).unwrap(), "2026-12-06 08:35:00");
        let same = jiff::tz::TimeZone::UTC;
        assert_eq!(system_clock_text(when, same.clone(), same).unwrap(), "2026-12-06 14:05:00");
    }
}
