//! The fake station's settings desk: the clock, the zone, the name and the
//! rotation, answered from the fake's fields and recorded.

use crate::desks::fake::HELD;
use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::DirectorSettings;
use crate::desks::{parse_clock, SettingsError};

impl DirectorSettings for FakeStation {
    fn settings_held(&self) -> bool {
        self.held
    }

    fn settings_gone(&self) -> bool {
        self.gone
    }

    fn set_up_again(&mut self, name: &str) -> Result<(), SettingsError> {
        if !self.gone {
            return Err(SettingsError::Invalid("the settings are in force: nothing to set up again".into()));
        }
        self.gone = false;
        self.warnings.retain(|w| !matches!(w, crate::desks::Warning::Config(_)));
        self.station_name = name.into();
        self.records.push(FakeRecord::SetUpAgain { name: name.into() });
        Ok(())
    }

    fn restore_settings(&mut self) -> Result<(), SettingsError> {
        if !self.held {
            return Err(SettingsError::Invalid("the settings are not damaged: nothing to restore".into()));
        }
        self.held = false;
        self.records.push(FakeRecord::SettingsRestored);
        Ok(())
    }

    fn set_station_name(&mut self, name: &str) -> Result<(), SettingsError> {
        if self.held {
            return Err(SettingsError::Failed(HELD.into()));
        }
        wordjudge_core::config::check_station_name(name).map_err(SettingsError::Invalid)?;
        self.station_name = name.into();
        self.records.push(FakeRecord::StationRenamed { to: name.into() });
        Ok(())
    }

    fn set_clock(&mut self, local: &str) -> Result<(), SettingsError> {
        let when = parse_clock(local)?;
        if !self.appliance {
            return Err(SettingsError::NotAppliance);
        }
        self.records.push(FakeRecord::ClockSet { to: when.to_string() });
        Ok(())
    }

    fn local_time(&self) -> crate::desks::LocalTime {
        // A fixed reading: the flow's tests see exactly what the prompt starts from.
        crate::desks::LocalTime { typed: "2026-11-22 14:05".into(), zone: self.time_zone.clone() }
    }

    fn set_time_zone(&mut self, name: &str) -> Result<(), SettingsError> {
        if self.held {
            return Err(SettingsError::Failed(HELD.into()));
        }
        wordjudge_core::config::time_zone(Some(name)).map_err(SettingsError::Invalid)?;
        self.time_zone = name.into();
        self.records.push(FakeRecord::TimeZoneSet { to: name.into() });
        Ok(())
    }

    fn rotation(&self) -> Option<crate::desks::Rotation> {
        Some(crate::desks::Rotation { saved: self.rotation, in_force: self.rotation_at_start })
    }

    fn set_rotation(&mut self, degrees: u16) -> Result<(), SettingsError> {
        if self.held {
            return Err(SettingsError::Failed(HELD.into()));
        }
        if !wordjudge_core::config::ROTATIONS.contains(&degrees) {
            return Err(SettingsError::Invalid(format!("{degrees}° is not one of 0, 90, 180, 270")));
        }
        self.rotation = degrees;
        self.records.push(FakeRecord::RotationSet { to: degrees });
        Ok(())
    }

    fn facts(&self) -> Vec<(String, String)> {
        self.facts.clone()
    }
}
