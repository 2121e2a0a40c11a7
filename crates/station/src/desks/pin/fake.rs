//! The fake station's PIN desk: the PIN a test set, checked, changed or set
//! first, each step recorded for the test to read.

use crate::desks::fake::HELD;
use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::{DirectorEvent, PinCheck};
use crate::desks::{DirectorPin, PinChangeError};

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

    fn pin_guard(&self) -> crate::desks::PinGuard {
        self.pin_guard
    }

    fn save_pin_guard(&mut self, guard: crate::desks::PinGuard) {
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
