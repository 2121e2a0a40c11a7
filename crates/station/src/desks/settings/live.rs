//! The live settings desk: the clock, the zone, the name, the rotation, set
//! up again and the status page's facts, each change an audit record
//! whatever its outcome.

use crate::desks::{parse_clock, Rotation, SettingsError};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::config::ConfigSource;

use crate::desks::live::LiveStation;
use crate::desks::{DirectorSettings, Judging};

impl LiveStation {
    /// Renames the station, recorded; once saved, the audit log carries the
    /// new name in every later record and checkpoint (the rename's own
    /// record still carries the old one, so the log says where it changed).
    pub(in crate::desks) fn rename_station(&mut self, name: &str) -> Result<(), SettingsError> {
        let result = wordjudge_core::config::check_station_name(name)
            .map_err(SettingsError::Invalid)
            .and_then(|()| self.save_config(|c| c.station_name = name.to_string()).map_err(SettingsError::Failed));
        self.record_setting("station_name", Some(name), &result);
        if result.is_ok() {
            if let Some(audit) = &mut self.audit {
                audit.set_station(name);
            }
        }
        result
    }

    /// The config a station set up again starts from: the defaults (no
    /// lexicon chosen, so players see "not set up"), its name, the lexicon
    /// folder it opens, and the PIN and audit folder the guard kept (already
    /// in the config in force).
    pub(in crate::desks) fn write_fresh_config(&mut self, name: &str) -> Result<(), SettingsError> {
        let mut fresh = self.config.clone();
        fresh.station_name = name.to_string();
        // The lists it has are the ones it opens now, wherever they are.
        fresh.lexicon_dir = self.catalog.dir().to_path_buf();
        // A damaged file in the config's place is kept beside it, not
        // overwritten: it is the operator's evidence of what happened.
        wordjudge_core::config::set_aside_damaged(&self.config_path)
            .map_err(|e| SettingsError::Failed(format!("cannot keep the damaged settings aside: {e}")))?;
        fresh.save(&self.config_path).map_err(|e| SettingsError::Failed(format!("cannot save the settings: {e}")))?;
        self.config = fresh;
        self.config_source = ConfigSource::File;
        self.config_problem = None;
        let id = self.config.active_lexicon.clone();
        self.active = self.activate(&id);
        self.profile = None;
        self.second = None;
        Ok(())
    }

    /// The zone the station shows its times in: the director's choice, else
    /// the system's. A name this card's database lacks shows the system's
    /// (the menu's facts say why).
    pub(in crate::desks) fn zone(&self) -> jiff::tz::TimeZone {
        wordjudge_core::config::time_zone(self.config.time_zone.as_deref())
            .unwrap_or_else(|_| jiff::tz::TimeZone::system())
    }

    pub(in crate::desks) fn try_set_clock(&mut self, local: &str) -> Result<(), SettingsError> {
        let when = parse_clock(local)?;
        if !self.appliance {
            return Err(SettingsError::NotAppliance);
        }
        // The director types the station's time, in its zone; timedatectl
        // reads the system's (the image's, UTC unless built with another).
        let text = crate::desks::system_clock_text(when, self.zone(), jiff::tz::TimeZone::system())?;
        // systemd-timedated sets the clock (and the RTC, where there is one)
        // on the kiosk's behalf; polkit allows exactly this to user wordjudge.
        match std::process::Command::new("timedatectl").args(["set-time", &text]).status() {
            Ok(status) if status.success() => {
                // The jump shows at the next record (this setting's own):
                // its `clock_jumped` record names the director as the cause.
                if let Some(audit) = &mut self.audit {
                    audit.expect_clock_jump("the director set the clock");
                }
                Ok(())
            }
            Ok(status) => Err(SettingsError::Failed(format!("timedatectl set-time failed ({status})"))),
            Err(e) => Err(SettingsError::Failed(format!("cannot run timedatectl: {e}"))),
        }
    }

    /// Records a director's setting change, done or refused.
    pub(in crate::desks) fn record_setting<E: std::fmt::Display>(
        &mut self,
        setting: &str,
        value: Option<&str>,
        result: &Result<(), E>,
    ) {
        self.record(match result {
            Ok(()) => AuditEvent::SettingChanged { setting: setting.into(), value: value.map(str::to_string) },
            Err(e) => AuditEvent::SettingRefused { setting: setting.into(), reason: e.to_string() },
        });
    }
}

impl DirectorSettings for LiveStation {
    fn settings_held(&self) -> bool {
        self.config_source == ConfigSource::LastGood
    }

    fn restore_settings(&mut self) -> Result<(), SettingsError> {
        let result = if self.settings_held() {
            // The config in force is the last good copy: saving it writes it
            // back over the damaged file (and refreshes the guard).
            self.write_config(|_| {}).map_err(SettingsError::Failed)
        } else {
            Err(SettingsError::Invalid("the settings are not damaged: nothing to restore".into()))
        };
        self.record_setting("config", Some("restored from the last good copy"), &result);
        result
    }

    fn settings_gone(&self) -> bool {
        // Only with the PIN the guard kept: without it nobody could open the
        // menu to set the station up (the operator's PC path is for that).
        self.config_source == ConfigSource::Unusable && self.config.director_pin_hash.is_some() && self.audit.is_some()
    }

    fn set_up_again(&mut self, name: &str) -> Result<(), SettingsError> {
        let result = if !self.settings_gone() {
            Err(SettingsError::Invalid("the settings are in force: nothing to set up again".into()))
        } else {
            wordjudge_core::config::check_station_name(name)
                .map_err(SettingsError::Invalid)
                .and_then(|()| self.write_fresh_config(name))
        };
        let value = format!(
            "set up again as {name}: a fresh config (a damaged file in its place, if any, is kept as {}), the PIN \
             and the audit log kept, no lexicon chosen yet",
            wordjudge_core::config::damaged_copy_path(&self.config_path)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
        );
        self.record_setting("config", Some(&value), &result);
        if result.is_ok() {
            if let Some(audit) = &mut self.audit {
                audit.set_station(name);
            }
        }
        result
    }

    fn set_station_name(&mut self, name: &str) -> Result<(), SettingsError> {
        self.rename_station(name)
    }

    fn set_clock(&mut self, local: &str) -> Result<(), SettingsError> {
        let result = self.try_set_clock(local);
        self.record_setting("clock", Some(local), &result);
        result
    }

    fn local_time(&self) -> crate::desks::LocalTime {
        crate::desks::LocalTime::of(&jiff::Timestamp::now().to_zoned(self.zone()))
    }

    fn set_time_zone(&mut self, name: &str) -> Result<(), SettingsError> {
        // Only a zone the database holds is saved: the station must never
        // show times in a zone it cannot compute.
        let result = wordjudge_core::config::time_zone(Some(name))
            .map_err(SettingsError::Invalid)
            .and_then(|_| self.save_config(|c| c.time_zone = Some(name.to_string())).map_err(SettingsError::Failed));
        self.record_setting("time_zone", Some(name), &result);
        result
    }
    fn rotation(&self) -> Option<Rotation> {
        Some(Rotation { saved: self.config.rotation, in_force: self.rotation_at_start })
    }

    fn set_rotation(&mut self, degrees: u16) -> Result<(), SettingsError> {
        let result = if wordjudge_core::config::ROTATIONS.contains(&degrees) {
            self.save_config(|c| c.rotation = degrees).map_err(SettingsError::Failed)
        } else {
            Err(SettingsError::Invalid(format!("{degrees}° is not one of 0, 90, 180, 270")))
        };
        self.record_setting("rotation", Some(&degrees.to_string()), &result);
        result
    }

    fn facts(&self) -> Vec<(String, String)> {
        let profile = match self.profile {
            Some(p) => {
                let lexicon = self.lexicon().id;
                match p.second_opinion(&lexicon) {
                    _ if !p.applies_to(&lexicon) => {
                        format!("{} — not applied: {lexicon} is not {}", p.name, p.family.one())
                    }
                    Some(second) => format!("{} — {lexicon}, second opinion {second}", p.name),
                    None => format!("{} — {lexicon}", p.name),
                }
            }
            None => "none (no challenge rule shown under verdicts)".into(),
        };
        let mut facts = vec![("Profile".into(), profile)];
        if let Some(audit) = &self.audit {
            // Noted by the director at the end of a round, the last code
            // makes any later rewrite of the log up to it detectable.
            let last = match audit.last_code() {
                Some((number, code)) => crate::kiosk::view::slip_text(number, Some(code.as_str())),
                None => "none yet".into(),
            };
            facts.push(("Last challenge".into(), last));
            let key = audit
                .key_fingerprint()
                .map_or_else(|| audit.signing_problem().unwrap_or_else(|| "no signing key".into()), |k| k.short());
            facts.push(("Station key code".into(), key));
            if let Some(text) = never_shown_text(audit.never_shown(), &self.zone()) {
                facts.push(("Numbers never shown".into(), text));
            }
        }
        // What the audit log stamps in UTC, as the station's clock reads it
        // in its own zone: the director compares it with a watch.
        let now = jiff::Timestamp::now().to_zoned(self.zone());
        facts.push((
            "Station time".into(),
            now.strftime("%H:%M:%S %Z, %a %-d %b %Y (the audit log keeps UTC)").to_string(),
        ));
        if let Err(why) = wordjudge_core::config::time_zone(self.config.time_zone.as_deref()) {
            facts.push(("Time zone".into(), format!("{why}: times show in the system's zone; choose the zone again")));
        }
        facts.push(("Judge button and lamps".into(), gpio_for_director(&self.gpio_description)));
        facts.push(("Fleet".into(), self.fleet_fact()));
        facts.extend(self.screen.clone().map(|screen| ("Screen".into(), screen)));
        facts
    }
}

/// `#7 (a power cut or a crash before its record was written); #9 (its
/// record could not be written)`, the last few, or nothing.
fn never_shown_text(gaps: &[wordjudge_core::recorder::NeverShown], zone: &jiff::tz::TimeZone) -> Option<String> {
    let parts: Vec<String> = gaps
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(|g| {
            let [a, b] = g.numbers;
            let numbers = if a == b { format!("#{a}") } else { format!("#{a}–#{b}") };
            // In the station's zone, with the day: a director reads it
            // against the event's schedule.
            let when = g.when.map(|t| t.to_zoned(zone.clone()).strftime("%a %-d %b %H:%M %Z").to_string());
            let why = match (g.stopped, when) {
                (true, Some(when)) => {
                    format!(
                        "the station stopped, a power cut or a crash, after {when} and before its record was written"
                    )
                }
                (true, None) => {
                    "the station stopped (a power cut or a crash) before its record was written".to_string()
                }
                (false, Some(when)) => format!("at {when} its record could not be written, so no verdict was shown"),
                (false, None) => "its record could not be written, so no verdict was shown".to_string(),
            };
            format!("{numbers} ({why})")
        })
        .collect();
    (!parts.is_empty()).then(|| {
        let more = gaps.len().saturating_sub(3);
        let tail = if more > 0 { format!("; and {more} earlier (audit verify lists them)") } else { String::new() };
        format!("{}{tail}: no slip carries them", parts.join("; "))
    })
}

/// The GPIO back-end's description in a director's words: what is wired,
/// without the driver's name or the debounce window (the command line's
/// `wordjudge gpio` keeps those).
fn gpio_for_director(description: &str) -> String {
    let d = description.split("; debounce").next().unwrap_or(description);
    let d = d.split(" (debounce").next().unwrap_or(d);
    let d = d.strip_prefix("rppal: ").unwrap_or(d);
    match d.find("): ") {
        Some(at) if d.starts_with("GPIO character device") => d[at + 3..].to_string(),
        _ => d.to_string(),
    }
}

#[cfg(test)]
mod director_words_tests {
    #[test]
    fn gpio_descriptions_lose_the_driver_and_the_debounce() {
        use super::gpio_for_director as g;
        assert_eq!(g("simulated button and lamps (debounce 30 ms)"), "simulated button and lamps");
        assert_eq!(g("rppal: judge button BCM 17; debounce 30 ms"), "judge button BCM 17");
        assert_eq!(
            g("GPIO character device /dev/gpiochip0 (pinctrl-bcm2711): judge button 17; debounce 30 ms"),
            "judge button 17"
        );
        assert_eq!(g("none configured"), "none configured");
    }
}
