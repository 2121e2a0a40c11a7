//! The fake station's fleet desk: the event a test set, and leaving it.

use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::{FleetMembership, LeaveError};

impl FleetMembership for FakeStation {
    fn fleet_event(&self) -> Option<String> {
        self.fleet.clone()
    }

    fn leave_fleet(&mut self) -> Result<String, LeaveError> {
        let event = self.fleet.take().ok_or(LeaveError::NotInFleet)?;
        self.fleet_requested = false;
        self.records.push(FakeRecord::FleetLeft { event: event.clone() });
        Ok(event)
    }
}
