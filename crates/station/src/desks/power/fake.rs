//! The fake station's power desk: the actions a test allows, recorded.

use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::PowerActions;
use crate::desks::{SystemAction, SystemError};

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
