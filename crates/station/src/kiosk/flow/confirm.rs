//! The confirmation of a director's change: every change of what the
//! station judges with, or of its settings, fleet or power, is named in full
//! here and made only by a fresh ENTER some time after the screen appeared
//! (the menu's pages, in `director`, only ask for it).

use super::*;

/// A change the director asked for, waiting for its confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `profile_lost`: the profile in force that will no longer apply.
    SwitchLexicon {
        from: String,
        to: String,
        profile_lost: Option<String>,
    },
    UseProfile {
        choice: ProfileChoice,
        from_lexicon: String,
        /// The profile in force that this one ends, if any.
        from_profile: Option<String>,
    },
    /// What the damaged settings lost, in the station's own words.
    RestoreSettings,
    /// A fresh config named `name`, keeping the PIN and the audit log the
    /// guard names; the station judges nothing until a lexicon is chosen.
    SetUpAgain {
        name: String,
    },
    Rename {
        from: String,
        to: String,
    },
    SetClock {
        to: String,
    },
    SetTimeZone {
        from: String,
        to: String,
    },
    ChangePin {
        old: String,
        new: String,
    },
    Rotation {
        from: u16,
        to: u16,
        in_force: u16,
    },
    /// A fleet stick's visit: the first leaves the station's request on it,
    /// the second joins the event's fleet.
    JoinFleet {
        stick: StickChoice,
    },
    LeaveFleet {
        event: String,
    },
    System(SystemAction),
}

/// The confirmation of one change: it names the change in full; a fresh
/// ENTER after [`CONFIRM_SETTLE`] of quiet makes it; any other key keeps
/// things as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmScreen {
    pub change: Change,
    /// The page it returns to.
    pub back: MenuPage,
    /// When it appeared, or when ENTER was last pressed too early: the quiet
    /// the next ENTER must follow starts here.
    pub(super) quiet_since: Duration,
    pub(super) last_key: Duration,
}

impl ConfirmScreen {
    /// The first instant at which ENTER makes the change (an ENTER pressed
    /// before it moves it on).
    pub fn takes_enter_at(&self) -> Duration {
        self.quiet_since + CONFIRM_SETTLE
    }
}

/// How long a confirmation ignores ENTER after it appears, and after each
/// ENTER pressed while it waits: the second press of a double-tapped or
/// bouncing ENTER, or a burst of them (a stuck key, a macro), is not a
/// decision; only a press after that much quiet is.
pub const CONFIRM_SETTLE: Duration = Duration::from_millis(600);

impl Kiosk {
    pub(super) fn confirm(&mut self, change: Change, back: MenuPage, now: Duration) {
        self.screen = Screen::Confirm(ConfirmScreen { change, back, quiet_since: now, last_key: now });
    }

    /// A key on a confirmation: a fresh ENTER after [`CONFIRM_SETTLE`] of
    /// quiet makes the change; an earlier ENTER is ignored and starts the
    /// quiet again; any other key keeps things as they are.
    pub(super) fn confirm_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Confirm(confirm) = &mut self.screen else { return };
        confirm.last_key = now;
        match key {
            Key::Enter if now < confirm.takes_enter_at() => confirm.quiet_since = now,
            Key::Enter => {
                let (change, back) = (confirm.change.clone(), confirm.back);
                self.apply_change(change, back, now, station);
            }
            _ => {
                let back = confirm.back;
                self.open_menu(back, now, station, Some(MenuMessage::NothingChanged));
            }
        }
    }

    /// Makes a confirmed change: one station call, which records it.
    fn apply_change(&mut self, change: Change, back: MenuPage, now: Duration, station: &mut dyn Station) {
        let saved = |result: Result<(), SettingsError>, setting: Setting| match result {
            Ok(()) => MenuMessage::Saved(setting),
            Err(error) => MenuMessage::NotSaved(error),
        };
        let message = match change {
            Change::SwitchLexicon { to, profile_lost, .. } => match station.switch_lexicon(&to) {
                Ok(()) => {
                    self.lexicon = station.lexicon();
                    MenuMessage::Switched {
                        id: self.lexicon.id.clone(),
                        status: self.lexicon.status.clone(),
                        profile_cleared: profile_lost.is_some(),
                    }
                }
                Err(reason) => MenuMessage::SwitchRefused(reason),
            },
            Change::UseProfile { choice, .. } => match station.switch_profile(&choice.id) {
                Ok(()) => {
                    self.lexicon = station.lexicon();
                    MenuMessage::ProfileSwitched {
                        name: choice.name,
                        lexicon: self.lexicon.id.clone(),
                        status: self.lexicon.status.clone(),
                    }
                }
                Err(reason) => MenuMessage::SwitchRefused(reason),
            },
            Change::RestoreSettings => {
                let message = match station.restore_settings() {
                    Ok(()) => MenuMessage::Saved(Setting::Restored),
                    Err(error) => MenuMessage::NotRestored(error),
                };
                self.lexicon = station.lexicon();
                message
            }
            Change::SetUpAgain { name } => {
                let result = station.set_up_again(&name);
                self.lexicon = station.lexicon();
                if result.is_ok() {
                    // The next step of setting up: the director lands on
                    // the page that chooses the list and the profile.
                    return self.open_menu(
                        MenuPage::Lexicon,
                        now,
                        station,
                        Some(MenuMessage::Saved(Setting::SetUpAgain)),
                    );
                }
                saved(result, Setting::SetUpAgain)
            }
            Change::Rename { to, .. } => saved(station.set_station_name(&to), Setting::StationName),
            Change::SetClock { to } => saved(station.set_clock(&to), Setting::Clock),
            Change::SetTimeZone { to, .. } => saved(station.set_time_zone(&to), Setting::TimeZone),
            Change::ChangePin { old, new } => match station.change_pin(&old, &new) {
                Ok(()) => MenuMessage::Saved(Setting::Pin),
                Err(error) => MenuMessage::PinNotChanged(error),
            },
            Change::Rotation { to, in_force, .. } => {
                saved(station.set_rotation(to), Setting::Rotation { degrees: to, pending: to != in_force })
            }
            Change::JoinFleet { stick } => return self.start_usb(stick, UsbPurpose::JoinFleet, back, now, station),
            Change::LeaveFleet { .. } => match station.leave_fleet() {
                Ok(event) => MenuMessage::LeftFleet(event),
                Err(error) => MenuMessage::NotLeft(error),
            },
            Change::System(action) => match station.system(action) {
                Ok(()) if action == SystemAction::Quit => {
                    self.quit = true;
                    MenuMessage::Done(action)
                }
                Ok(()) => MenuMessage::Done(action),
                Err(reason) => MenuMessage::NotPossible(reason),
            },
        };
        self.open_menu(back, now, station, Some(message));
    }
}
