//! The power desk: reboot, power off or quit. The port is here; `live`
//! asks systemd (the appliance only), `fake` records what a test allows.

mod fake;
mod live;

use std::fmt;

/// Power and process actions offered in the director menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemAction {
    Reboot,
    PowerOff,
    Quit,
}

/// Why a system action was not carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemError {
    /// Reboot and power-off belong to the appliance only, never to a desktop.
    NotAppliance,
    /// Quitting is not allowed by the config.
    QuitNotAllowed,
    /// The audit log cannot be written (its problem): records held in
    /// memory would be lost with a restart or power-off, so there is none.
    AuditLogFailing(String),
    /// The system refused (systemctl failed).
    Failed(String),
}

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SystemError::NotAppliance => f.write_str("only the appliance powers itself off or reboots"),
            SystemError::QuitNotAllowed => f.write_str("quitting is not allowed by the config"),
            SystemError::AuditLogFailing(problem) => write!(
                f,
                "not now: the audit log cannot be written, and what it holds in memory would be lost ({problem}) \
                 Free space on the data partition first."
            ),
            SystemError::Failed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SystemError {}

/// Reboot, power off or quit, and whether the station may offer them.
/// Errors: [`SystemError`].
pub trait PowerActions {
    /// Whether the director menu offers Quit (desktop use, by config).
    fn quit_allowed(&self) -> bool;
    /// Whether this is the appliance (the systemd service): only then are
    /// reboot and power-off offered.
    fn appliance(&self) -> bool;
    /// Reboot, power off or quit.
    fn system(&mut self, action: SystemAction) -> Result<(), SystemError>;
}
