//! The director's PIN on the live station: checked against the config's
//! hash, and the count of wrong PINs and lockouts kept in the guard beside
//! the config ([`crate::guard`]) so a restart does not reset them. Lockouts
//! are measured on the boot clock, so no clock setting lengthens one.

use crate::audit::{Clock, SystemClock};
use crate::guard::{BootInstant, Guard, Lockout};
use crate::kiosk::flow::PIN_LOCKOUT_MAX;
use crate::kiosk::station::{PinCheck, PinGuard};
use std::time::Duration;

use super::LiveStation;

/// Now, on the boot clock.
fn boot_now() -> BootInstant {
    let clock = SystemClock;
    BootInstant { boot_id: clock.boot_id(), since_boot: Duration::from_nanos(clock.boottime_ns()) }
}

impl LiveStation {
    pub(super) fn verify_pin(&mut self, pin: &str) -> PinCheck {
        match &self.config.director_pin_hash {
            None => PinCheck::NotSet,
            Some(hash) if self.pin_checker.verify(pin, hash) => PinCheck::Accepted,
            Some(_) => PinCheck::Refused,
        }
    }

    pub(super) fn load_pin_guard(&self) -> PinGuard {
        let guard = Guard::read(&crate::guard::path_for(&self.config_path));
        let Lockout { failures, lockouts, locked_for } = guard.remaining(&boot_now(), PIN_LOCKOUT_MAX);
        PinGuard { failures, lockouts, locked_for }
    }

    pub(super) fn store_pin_guard(&mut self, guard: PinGuard) {
        let path = crate::guard::path_for(&self.config_path);
        let lockout = Lockout { failures: guard.failures, lockouts: guard.lockouts, locked_for: guard.locked_for };
        if let Err(e) = Guard::read(&path).with_lockout(lockout, boot_now()).write(&path) {
            tracing::warn!("cannot save the PIN lockout: {e}");
        }
    }
}
