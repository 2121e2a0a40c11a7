//! The director's PIN on the live station: checked against the config's
//! hash, and the count of wrong PINs and lockouts kept in the guard beside
//! the config ([`wordjudge_core::guard`]) so a restart does not reset them. Lockouts
//! are measured on the boot clock, so no clock setting lengthens one.

use crate::desks::{DirectorEvent, PinChangeError, PinCheck, PinGuard};
use crate::kiosk::flow::PIN_LOCKOUT_MAX;
use std::time::Duration;
use wordjudge_core::audit::{AuditEvent, Clock, SystemClock};
use wordjudge_core::config::ConfigSource;
use wordjudge_core::guard::{BootInstant, Guard, Lockout};

use crate::desks::live::LiveStation;
use crate::desks::DirectorPin;

/// Now, on the boot clock.
fn boot_now() -> BootInstant {
    let clock = SystemClock;
    BootInstant { boot_id: clock.boot_id(), since_boot: Duration::from_nanos(clock.boottime_ns()) }
}

impl LiveStation {
    pub(in crate::desks) fn verify_pin(&mut self, pin: &str) -> PinCheck {
        match &self.config.director_pin_hash {
            None => PinCheck::NotSet,
            Some(hash) if self.pin_checker.verify(pin, hash) => PinCheck::Accepted,
            Some(_) => PinCheck::Refused,
        }
    }

    pub(in crate::desks) fn load_pin_guard(&self) -> PinGuard {
        let guard = Guard::read(&wordjudge_core::guard::path_for(&self.config_path));
        let Lockout { failures, lockouts, locked_for } = guard.remaining(&boot_now(), PIN_LOCKOUT_MAX);
        PinGuard { failures, lockouts, locked_for }
    }

    /// Keeps wrong PINs and lockouts across a restart. A damaged guard is
    /// not overwritten (it would lose the third copy of the PIN's hash), and
    /// a guard that cannot be written is a warning on the director's pages
    /// and one record each time the reason changes: never silence.
    pub(in crate::desks) fn store_pin_guard(&mut self, guard: PinGuard) {
        let path = wordjudge_core::guard::path_for(&self.config_path);
        let lockout = Lockout { failures: guard.failures, lockouts: guard.lockouts, locked_for: guard.locked_for };
        let stored = Guard::read(&path);
        let result = match &stored.damaged {
            Some(damage) => Err(format!("the PIN guard is damaged ({damage})")),
            None => stored
                .with_lockout(lockout, boot_now())
                .write(&path)
                .map_err(|e| format!("the PIN guard cannot be written: {e}")),
        };
        match result {
            Ok(()) => self.guard_problem = None,
            Err(why) => {
                let problem = format!("{why}: wrong PINs and lockouts are not kept across a restart");
                tracing::warn!("{problem}");
                if self.guard_problem.as_deref() != Some(problem.as_str()) {
                    self.record(wordjudge_core::audit::AuditEvent::SettingRefused {
                        setting: "pin_guard".into(),
                        reason: problem.clone(),
                    });
                    self.guard_problem = Some(problem);
                }
            }
        }
    }
}

impl DirectorPin for LiveStation {
    fn check_pin(&mut self, pin: &str) -> PinCheck {
        self.verify_pin(pin)
    }

    fn director_event(&mut self, event: DirectorEvent) {
        // Wrong PINs are counted until the right one opens the menu, then
        // shown to the director for that visit: a lockout is never
        // silent, even though the right PIN starts the count again.
        match event {
            DirectorEvent::PinRefused { .. } => {
                self.wrong_pins.refused += 1;
                if self.wrong_pins.since.is_empty() {
                    self.wrong_pins.since = jiff::Timestamp::now().to_zoned(self.zone()).strftime("%H:%M").to_string();
                }
            }
            DirectorEvent::LockedOut { .. } => self.wrong_pins.lockouts += 1,
            DirectorEvent::PinAccepted => self.wrong_pins_shown = std::mem::take(&mut self.wrong_pins),
            DirectorEvent::Left => self.wrong_pins_shown = Default::default(),
        }
        self.record(match event {
            DirectorEvent::PinAccepted => AuditEvent::PinAccepted,
            DirectorEvent::PinRefused { failures } => AuditEvent::PinRefused { failures },
            DirectorEvent::LockedOut { seconds } => AuditEvent::LockedOut { seconds },
            DirectorEvent::Left => AuditEvent::DirectorLeft,
        });
    }

    fn pin_guard(&self) -> PinGuard {
        self.load_pin_guard()
    }

    fn save_pin_guard(&mut self, guard: PinGuard) {
        self.store_pin_guard(guard)
    }

    fn change_pin(&mut self, old: &str, new: &str) -> Result<(), PinChangeError> {
        let result = (|| {
            if self.check_pin(old) != PinCheck::Accepted {
                return Err(PinChangeError::WrongPin);
            }
            let hash = wordjudge_core::pin::hash_pin(new).map_err(|e| PinChangeError::Invalid(e.to_string()))?;
            self.save_config(|c| c.director_pin_hash = Some(hash)).map_err(PinChangeError::Failed)
        })();
        self.record_setting("pin", None, &result);
        result
    }

    fn first_pin_needed(&self) -> bool {
        // A station whose config is damaged (last good copy in force, or
        // none usable) is never fresh: its PIN is not to be replaced here.
        self.config.director_pin_hash.is_none()
            && matches!(self.config_source, ConfigSource::File | ConfigSource::Defaults)
    }

    fn set_first_pin(&mut self, new: &str) -> Result<(), PinChangeError> {
        let result = (|| {
            if !self.first_pin_needed() {
                return Err(PinChangeError::Invalid("this station already has a director PIN".into()));
            }
            let hash = wordjudge_core::pin::hash_pin(new).map_err(|e| PinChangeError::Invalid(e.to_string()))?;
            self.save_config(|c| c.director_pin_hash = Some(hash)).map_err(PinChangeError::Failed)
        })();
        self.record_setting("pin", Some("first PIN, set at the station"), &result);
        result
    }
}
