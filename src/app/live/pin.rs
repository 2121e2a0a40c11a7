//! The director's PIN on the live station: checked against the config's
//! hash, and the count of wrong PINs and lockouts kept beside the config so
//! a restart does not reset them.

use crate::kiosk::station::{PinCheck, PinGuard};
use std::path::PathBuf;

use super::LiveStation;

/// Where the PIN guard is kept: beside the config (`config.toml.pin-guard`).
pub(super) fn pin_guard_path(config: &std::path::Path) -> PathBuf {
    crate::config::beside(config, "pin-guard")
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
        let path = pin_guard_path(&self.config_path);
        let Ok(text) = crate::bounded::read_small_text(&path, 4096) else { return PinGuard::default() };
        let field = |name: &str| {
            text.lines().find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok()).unwrap_or(0)
        };
        let now = jiff::Timestamp::now().as_second().max(0) as u64;
        PinGuard {
            failures: field("failures ") as u32,
            lockouts: field("lockouts ") as u32,
            locked_for: std::time::Duration::from_secs(field("locked_until ").saturating_sub(now)),
        }
    }

    pub(super) fn store_pin_guard(&mut self, guard: PinGuard) {
        let until = jiff::Timestamp::now().as_second().max(0) as u64 + guard.locked_for.as_secs();
        let text = format!(
            "# wordjudge: wrong director PINs and lockouts, kept across restarts\nfailures {}\nlockouts {}\nlocked_until {}\n",
            guard.failures,
            guard.lockouts,
            if guard.locked_for.is_zero() { 0 } else { until }
        );
        if let Err(e) = crate::atomic_file::write_atomically(&pin_guard_path(&self.config_path), text.as_bytes()) {
            tracing::warn!("cannot save the PIN lockout: {e}");
        }
    }
}
