//! Every event name the audit log knows, once ([`EventKind`]): its
//! written form, and which names are a director's action.

use serde::{Deserialize, Serialize};

/// Every event name the log knows, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    Adjudication,
    Startup,
    Shutdown,
    LexiconOpened,
    LexiconSwitched,
    LexiconSwitchRefused,
    PinAccepted,
    PinRefused,
    LockedOut,
    DirectorLeft,
    ConfigProblem,
    GpioProblem,
    KeyboardMissing,
    KeyboardFound,
    DisplayProblem,
    Recovered,
    WriteFailed,
    Rotated,
    KeyCreated,
    Checkpoint,
    Export,
    ChallengesLost,
    ProfileSwitched,
    SettingChanged,
    SettingRefused,
    JudgingFault,
    LexiconFileChanged,
    LexiconInstalled,
    LexiconInstallRefused,
    UsbStick,
    UsbFailed,
    UpdateStarted,
    UpdateRefused,
    UpdateInstalled,
    UpdateFailed,
    UpdateOutcome,
    ClockJumped,
    KeyProblem,
    FleetJoined,
    FleetLeft,
    FleetRefused,
}

impl EventKind {
    pub const ALL: &'static [EventKind] = &[
        EventKind::Adjudication,
        EventKind::Startup,
        EventKind::Shutdown,
        EventKind::LexiconOpened,
        EventKind::LexiconSwitched,
        EventKind::LexiconSwitchRefused,
        EventKind::PinAccepted,
        EventKind::PinRefused,
        EventKind::LockedOut,
        EventKind::DirectorLeft,
        EventKind::ConfigProblem,
        EventKind::GpioProblem,
        EventKind::KeyboardMissing,
        EventKind::KeyboardFound,
        EventKind::DisplayProblem,
        EventKind::Recovered,
        EventKind::WriteFailed,
        EventKind::Rotated,
        EventKind::KeyCreated,
        EventKind::Checkpoint,
        EventKind::Export,
        EventKind::ChallengesLost,
        EventKind::ProfileSwitched,
        EventKind::SettingChanged,
        EventKind::SettingRefused,
        EventKind::JudgingFault,
        EventKind::LexiconFileChanged,
        EventKind::LexiconInstalled,
        EventKind::LexiconInstallRefused,
        EventKind::UsbStick,
        EventKind::UsbFailed,
        EventKind::UpdateStarted,
        EventKind::UpdateRefused,
        EventKind::UpdateInstalled,
        EventKind::UpdateFailed,
        EventKind::UpdateOutcome,
        EventKind::ClockJumped,
        EventKind::KeyProblem,
        EventKind::FleetJoined,
        EventKind::FleetLeft,
        EventKind::FleetRefused,
    ];

    /// The `event` value in the file and `WORDJUDGE_EVENT` in journald.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Adjudication => "adjudication",
            EventKind::Startup => "startup",
            EventKind::Shutdown => "shutdown",
            EventKind::LexiconOpened => "lexicon_opened",
            EventKind::LexiconSwitched => "lexicon_switched",
            EventKind::LexiconSwitchRefused => "lexicon_switch_refused",
            EventKind::PinAccepted => "pin_accepted",
            EventKind::PinRefused => "pin_refused",
            EventKind::LockedOut => "locked_out",
            EventKind::DirectorLeft => "director_left",
            EventKind::ConfigProblem => "config_problem",
            EventKind::GpioProblem => "gpio_problem",
            EventKind::KeyboardMissing => "keyboard_missing",
            EventKind::KeyboardFound => "keyboard_found",
            EventKind::DisplayProblem => "display_problem",
            EventKind::Recovered => "recovered",
            EventKind::WriteFailed => "write_failed",
            EventKind::Rotated => "rotated",
            EventKind::KeyCreated => "key_created",
            EventKind::Checkpoint => "checkpoint",
            EventKind::Export => "export",
            EventKind::ChallengesLost => "challenges_lost",
            EventKind::ProfileSwitched => "profile_switched",
            EventKind::SettingChanged => "setting_changed",
            EventKind::SettingRefused => "setting_refused",
            EventKind::JudgingFault => "judging_fault",
            EventKind::LexiconFileChanged => "lexicon_file_changed",
            EventKind::LexiconInstalled => "lexicon_installed",
            EventKind::LexiconInstallRefused => "lexicon_install_refused",
            EventKind::UsbStick => "usb_stick",
            EventKind::UsbFailed => "usb_failed",
            EventKind::UpdateStarted => "update_started",
            EventKind::UpdateRefused => "update_refused",
            EventKind::UpdateInstalled => "update_installed",
            EventKind::UpdateFailed => "update_failed",
            EventKind::UpdateOutcome => "update_outcome",
            EventKind::ClockJumped => "clock_jumped",
            EventKind::KeyProblem => "key_problem",
            EventKind::FleetJoined => "fleet_joined",
            EventKind::FleetLeft => "fleet_left",
            EventKind::FleetRefused => "fleet_refused",
        }
    }

    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }

    /// Whether such a record begins with the director at the station.
    pub fn is_director_action(self) -> bool {
        matches!(
            self,
            EventKind::PinAccepted
                | EventKind::PinRefused
                | EventKind::LockedOut
                | EventKind::DirectorLeft
                | EventKind::LexiconSwitched
                | EventKind::LexiconSwitchRefused
                | EventKind::Export
                | EventKind::ProfileSwitched
                | EventKind::SettingChanged
                | EventKind::SettingRefused
                | EventKind::UpdateStarted
                | EventKind::UpdateRefused
                | EventKind::FleetJoined
                | EventKind::FleetLeft
                | EventKind::FleetRefused
        )
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
