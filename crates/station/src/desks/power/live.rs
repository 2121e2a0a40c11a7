//! The live power desk: reboot and power-off through systemd, on the
//! appliance only, and never while the audit log cannot keep its records.

use crate::desks::{SystemAction, SystemError};

use crate::desks::live::LiveStation;
use crate::desks::{Judging, PowerActions};
impl PowerActions for LiveStation {
    fn quit_allowed(&self) -> bool {
        self.config.allow_quit
    }

    fn appliance(&self) -> bool {
        self.appliance
    }

    fn system(&mut self, action: SystemAction) -> Result<(), SystemError> {
        let verb = match action {
            SystemAction::Quit if self.config.allow_quit => return Ok(()),
            SystemAction::Quit => return Err(SystemError::QuitNotAllowed),
            // Only the appliance's service may act on the machine: a desktop
            // kiosk must never reboot or power off the computer it runs on.
            // First: a desktop says it too, and so it is tested without a reboot.
            SystemAction::Reboot | SystemAction::PowerOff if self.audit_problem().is_some() => {
                let problem = self.audit_problem().unwrap_or_default();
                tracing::warn!("{action:?} refused: the audit log cannot be written: {problem}");
                return Err(SystemError::AuditLogFailing(problem));
            }
            SystemAction::Reboot | SystemAction::PowerOff if !self.appliance => return Err(SystemError::NotAppliance),
            SystemAction::Reboot => "reboot",
            SystemAction::PowerOff => "poweroff",
        };
        self.shut_down();
        match std::process::Command::new("systemctl").arg(verb).status() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(SystemError::Failed(format!("systemctl {verb} failed ({status})"))),
            Err(e) => Err(SystemError::Failed(format!("cannot run systemctl {verb}: {e}"))),
        }
    }
}
