//! The fake station's director desks: the PIN, the lexicon and profile
//! choices, the settings and the power actions, each answered from the
//! fake's lists and recorded for the test to read.

use super::{FakeRecord, FakeStation};
use crate::kiosk::station::{
    parse_clock, DirectorEvent, LexiconChoice, PinCheck, ProfileChoice, SettingsError, SwitchError, SystemAction,
    SystemError,
};
use crate::kiosk::station::{DirectorPin, DirectorSettings, Judging, LexiconChoices, PinChangeError, PowerActions};

/// What the real station answers a change while the settings are held.
const HELD: &str = "the settings are damaged: restore the last good settings first";

impl DirectorPin for FakeStation {
    fn check_pin(&mut self, pin: &str) -> PinCheck {
        match &self.pin {
            None => PinCheck::NotSet,
            Some(p) if p == pin => PinCheck::Accepted,
            Some(_) => PinCheck::Refused,
        }
    }

    fn director_event(&mut self, event: DirectorEvent) {
        self.records.push(FakeRecord::Director(event));
    }

    fn pin_guard(&self) -> crate::kiosk::station::PinGuard {
        self.pin_guard
    }

    fn save_pin_guard(&mut self, guard: crate::kiosk::station::PinGuard) {
        self.pin_guard = guard;
    }

    fn change_pin(&mut self, old: &str, new: &str) -> Result<(), PinChangeError> {
        if self.held {
            return Err(PinChangeError::Failed(HELD.into()));
        }
        if self.pin.as_deref() != Some(old) {
            return Err(PinChangeError::WrongPin);
        }
        wordjudge_core::pin::check_pin_format(new).map_err(|e| PinChangeError::Invalid(e.to_string()))?;
        self.pin = Some(new.into());
        self.records.push(FakeRecord::PinChanged);
        Ok(())
    }

    fn first_pin_needed(&self) -> bool {
        self.fresh && self.pin.is_none()
    }

    fn set_first_pin(&mut self, new: &str) -> Result<(), PinChangeError> {
        if !self.first_pin_needed() {
            return Err(PinChangeError::Invalid("this station already has a director PIN".into()));
        }
        wordjudge_core::pin::check_pin_format(new).map_err(|e| PinChangeError::Invalid(e.to_string()))?;
        self.pin = Some(new.into());
        self.records.push(FakeRecord::PinSet);
        Ok(())
    }
}

impl LexiconChoices for FakeStation {
    fn lexicon_choices(&mut self) -> Vec<LexiconChoice> {
        self.lexicons
            .iter()
            .map(|l| LexiconChoice {
                id: l.id.clone(),
                status: l.status.clone(),
                fingerprint: if l.usable { "0123abcd".into() } else { String::new() },
                usable: l.usable,
            })
            .collect()
    }

    fn switch_lexicon(&mut self, id: &str) -> Result<(), SwitchError> {
        if self.held {
            return Err(SwitchError::ConfigNotWritable(HELD.into()));
        }
        match self.lexicons.iter().position(|l| l.id == id) {
            Some(index) if self.lexicons[index].usable => {
                self.active = index;
                self.records.push(FakeRecord::Switched { to: id.into() });
                if self.profile.is_some_and(|p| !p.applies_to(id)) {
                    self.profile = None;
                    self.records.push(FakeRecord::ProfileCleared);
                }
                Ok(())
            }
            found => {
                self.records.push(FakeRecord::SwitchRefused { to: id.into() });
                let status = found.map_or("Missing".to_string(), |i| self.lexicons[i].status.clone());
                Err(SwitchError::Unusable { id: id.into(), status, problem: "it may not judge".into() })
            }
        }
    }

    fn profile_choices(&mut self, lexicons: &[LexiconChoice]) -> Vec<ProfileChoice> {
        ProfileChoice::list(self.profiles.iter().copied(), self.profile, &self.lexicon().id, lexicons)
    }

    fn switch_profile(&mut self, id: &str) -> Result<(), SwitchError> {
        if self.held {
            return Err(SwitchError::ConfigNotWritable(HELD.into()));
        }
        let lexicons = self.lexicon_choices();
        let chosen = ProfileChoice::choose(id, &self.lexicon().id, &lexicons)?;
        let Some(profile) = self.profiles.iter().copied().find(|p| p.id == chosen.profile.id) else {
            return Err(SwitchError::ProfileUnavailable { profile: id.into(), reason: "no such profile".into() });
        };
        // The old profile is replaced, not cleared by the switch below.
        let before = self.profile.take();
        // As the real station: a profile on the lexicon in use switches nothing.
        let current = self.lexicon();
        let switch =
            if current.usable && current.id == chosen.edition { Ok(()) } else { self.switch_lexicon(chosen.edition) };
        if let Err(e) = switch {
            self.profile = before;
            return Err(e);
        }
        self.profile = Some(profile);
        self.records.push(FakeRecord::ProfileSwitched { to: profile.id.into() });
        Ok(())
    }

    fn switch_refused(&mut self, id: &str, _reason: &str) {
        self.records.push(FakeRecord::SwitchRefused { to: id.into() });
    }
}

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
        self.warnings.retain(|w| !matches!(w, crate::kiosk::station::Warning::Config(_)));
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

    fn local_time(&self) -> crate::kiosk::station::LocalTime {
        // A fixed reading: the flow's tests see exactly what the prompt starts from.
        crate::kiosk::station::LocalTime { typed: "2026-11-22 14:05".into(), zone: self.time_zone.clone() }
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

    fn rotation(&self) -> Option<crate::kiosk::station::Rotation> {
        Some(crate::kiosk::station::Rotation { saved: self.rotation, in_force: self.rotation_at_start })
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

impl PowerActions for FakeStation {
    fn quit_allowed(&self) -> bool {
        self.allow_quit
    }

    fn appliance(&self) -> bool {
        self.appliance
    }

    fn system(&mut self, action: SystemAction) -> Result<(), SystemError> {
        match action {
            SystemAction::Quit if !self.allow_quit => Err(SystemError::QuitNotAllowed),
            SystemAction::Reboot | SystemAction::PowerOff if !self.appliance => Err(SystemError::NotAppliance),
            _ => {
                self.records.push(FakeRecord::System(action));
                Ok(())
            }
        }
    }
}
