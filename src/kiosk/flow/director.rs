//! The director's PIN prompt and menu: the first PIN of a fresh station,
//! wrong PINs and their lockout, lexicons, profiles, settings, sticks, power.

use super::*;

/// What the PIN prompt says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinMessage {
    /// No PIN is configured and this station cannot take one here (its
    /// config is not its own: broken, with the last good copy in force).
    NotSet,
    /// A wrong PIN; attempts left before the lock.
    Wrong { attempts_left: u32 },
    /// A key that is not a digit.
    DigitsOnly,
}

/// The director menu's result line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuMessage {
    /// `profile_cleared`: the active profile judged with another lexicon
    /// and no longer applies.
    Switched { id: String, status: String, profile_cleared: bool },
    ProfileSwitched { name: String, lexicon: String, status: String },
    Saved(Setting),
    SwitchRefused(SwitchError),
    ConfirmAgain,
    Done,
    NotPossible(SystemError),
    /// USB work could not start.
    UsbRefused(UsbError),
    /// The item under the cursor went away (its stick was pulled, its offer
    /// withdrawn): the cursor moved to a harmless place, never onto another
    /// action.
    ItemGone(Box<MenuItem>),
    /// The last good settings could not be written back.
    NotRestored(SettingsError),
    /// The station left the fleet of this event.
    LeftFleet(String),
    /// The station could not leave its fleet (why); nothing changed.
    NotLeft(SettingsError),
    /// A setting chosen in the menu (the rotation) could not be saved.
    NotSaved(SettingsError),
}

/// The director PIN prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinPrompt {
    /// Digits typed so far (the screen shows only dots).
    pub typed: String,
    pub message: Option<PinMessage>,
    pub(super) last_key: Duration,
}

/// An entry of the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuItem {
    /// Write the held last good settings back over a damaged config (shown
    /// first, only while they are held).
    RestoreSettings,
    UseLexicon(LexiconChoice),
    UseProfile(ProfileChoice),
    ChangePin,
    SetStationName,
    SetClock,
    /// Turn the picture 90° further (saved; it takes effect at the next start).
    ScreenRotation(Rotation),
    /// Install word lists from this stick (shown while it is plugged in).
    ImportFromUsb(StickChoice),
    /// Export the audit log to this stick.
    ExportToUsb(StickChoice),
    /// Join the event's fleet with this stick (a fleet stick; two visits).
    JoinFleet(StickChoice),
    /// Leave the fleet of this event (confirmed with a second ENTER).
    LeaveFleet(String),
    /// Update the station from the bundle on a plugged-in stick.
    InstallUpdate(UpdateOffer),
    Reboot,
    PowerOff,
    Quit,
    Leave,
}

/// What a typed director PIN came to (the lockout already applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PinVerdict {
    Accepted,
    NotSet,
    /// ENTER with nothing typed: not an attempt.
    Blank,
    Wrong { attempts_left: u32 },
    /// That was the last attempt: the prompt is locked now.
    LockedOut,
}

/// The director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectorMenu {
    pub items: Vec<MenuItem>,
    pub selected: usize,
    /// An action waiting for a second ENTER.
    pub confirming: Option<usize>,
    pub message: Option<MenuMessage>,
    pub(super) last_key: Duration,
}

impl Kiosk {
    pub(super) fn save_pin_guard(&self, now: Duration, station: &mut dyn Station) {
        let locked_for = self.pin_locked_until.map_or(Duration::ZERO, |until| until.saturating_sub(now));
        station.save_pin_guard(PinGuard { failures: self.pin_failures, lockouts: self.pin_lockouts, locked_for });
    }

    /// The director chord: the PIN prompt, or on a station that has never
    /// had a PIN (first boot) the prompt that sets one.
    pub(super) fn open_pin(&mut self, now: Duration, station: &dyn Station) {
        if station.first_pin_needed() {
            self.screen = Screen::Edit(EditPrompt {
                field: EditField::Pin { step: PinStep::New, old: String::new(), new: String::new(), first: true },
                typed: String::new(),
                message: None,
                menu_selected: 0,
                last_key: now,
            });
            return;
        }
        self.screen = Screen::Pin(PinPrompt { typed: String::new(), message: None, last_key: now });
    }

    pub(super) fn pin_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let locked = self.pin_locked_until(now).is_some();
        let Screen::Pin(prompt) = &mut self.screen else { return };
        prompt.last_key = now;
        match key {
            Key::Escape => return self.go_home(),
            _ if locked => {}
            Key::Char(c) if c.is_ascii_digit() => {
                if prompt.typed.len() < PIN_MAX_LEN {
                    prompt.typed.push(c);
                }
                prompt.message = None;
            }
            Key::Backspace => {
                prompt.typed.pop();
            }
            Key::Enter => {
                let pin = std::mem::take(&mut prompt.typed);
                let message = match self.verify_director_pin(&pin, now, station) {
                    PinVerdict::Accepted => return self.open_director(now, station, None, None),
                    PinVerdict::NotSet => Some(PinMessage::NotSet),
                    PinVerdict::Blank => Some(PinMessage::DigitsOnly),
                    PinVerdict::Wrong { attempts_left } => Some(PinMessage::Wrong { attempts_left }),
                    PinVerdict::LockedOut => None,
                };
                if let Screen::Pin(prompt) = &mut self.screen {
                    prompt.message = message;
                }
            }
            _ => prompt.message = Some(PinMessage::DigitsOnly),
        }
    }

    /// Checks a typed director PIN: the one place wrong PINs are counted,
    /// recorded and locked out (the PIN prompt, and an update's second
    /// asking).
    ///
    /// An empty PIN is no attempt: a director who pressed ENTER before
    /// typing (or twice) has not guessed wrong, and must not come nearer a
    /// lockout for it.
    pub(super) fn verify_director_pin(&mut self, pin: &str, now: Duration, station: &mut dyn Station) -> PinVerdict {
        if pin.is_empty() {
            return PinVerdict::Blank;
        }
        match station.check_pin(pin) {
            PinCheck::Accepted => {
                self.pin_failures = 0;
                self.pin_lockouts = 0;
                self.save_pin_guard(now, station);
                station.director_event(DirectorEvent::PinAccepted);
                PinVerdict::Accepted
            }
            PinCheck::NotSet => PinVerdict::NotSet,
            PinCheck::Refused => {
                self.pin_failures += 1;
                station.director_event(DirectorEvent::PinRefused { failures: self.pin_failures });
                let verdict = if self.pin_failures >= PIN_ATTEMPTS {
                    self.pin_lockouts += 1;
                    let lockout = pin_lockout(self.pin_lockouts);
                    self.pin_locked_until = Some(now + lockout);
                    station.director_event(DirectorEvent::LockedOut { seconds: lockout.as_secs() as u32 });
                    PinVerdict::LockedOut
                } else {
                    PinVerdict::Wrong { attempts_left: PIN_ATTEMPTS - self.pin_failures }
                };
                self.save_pin_guard(now, station);
                verdict
            }
        }
    }

    /// Opens the director menu. `keep` is the item to keep selected (the
    /// director's cursor stays where it was after a switch); on first
    /// opening the active lexicon is selected.
    pub(super) fn open_director(&mut self, now: Duration, station: &mut dyn Station, message: Option<MenuMessage>, keep: Option<usize>) {
        // A plugged-in stick comes first: the director plugged it in for it.
        self.last_stick_check = now;
        let mut items: Vec<MenuItem> = Vec::new();
        if station.settings_held() {
            items.push(MenuItem::RestoreSettings);
        }
        let sticks = station.sticks();
        for stick in &sticks {
            items.push(MenuItem::ImportFromUsb(stick.clone()));
            items.push(MenuItem::ExportToUsb(stick.clone()));
        }
        items.extend(station.update_offer().map(MenuItem::InstallUpdate));
        // The fleet's items after the update's: a stick's first three items
        // stay where directors (and the boot test) know them.
        items.extend(sticks.into_iter().map(MenuItem::JoinFleet));
        items.extend(station.fleet_event().map(MenuItem::LeaveFleet));
        let lexicons = station.lexicon_choices();
        let profiles = station.profile_choices(&lexicons);
        items.extend(lexicons.into_iter().map(MenuItem::UseLexicon));
        items.extend(profiles.into_iter().map(MenuItem::UseProfile));
        items.extend([MenuItem::ChangePin, MenuItem::SetStationName, MenuItem::SetClock]);
        items.extend(station.rotation().map(MenuItem::ScreenRotation));
        // Reboot and power-off only on the appliance: a desktop kiosk must
        // never switch off the machine it runs on.
        if station.appliance() {
            items.push(MenuItem::Reboot);
            items.push(MenuItem::PowerOff);
        }
        if station.quit_allowed() {
            items.push(MenuItem::Quit);
        }
        items.push(MenuItem::Leave);
        let selected = match keep {
            Some(index) => index.min(items.len() - 1),
            None => items
                .iter()
                .position(|i| matches!(i, MenuItem::UseLexicon(c) if c.id == self.lexicon.id))
                .unwrap_or(0),
        };
        self.screen = Screen::Director(DirectorMenu { items, selected, confirming: None, message, last_key: now });
    }

    pub(super) fn director_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Director(menu) = &mut self.screen else { return };
        menu.last_key = now;
        let last = menu.items.len() - 1;
        match key {
            Key::Up => {
                menu.selected = menu.selected.saturating_sub(1);
                menu.confirming = None;
            }
            Key::Down | Key::Tab => {
                menu.selected = (menu.selected + 1).min(last);
                menu.confirming = None;
            }
            Key::Escape => {
                station.director_event(DirectorEvent::Left);
                self.go_home();
            }
            Key::Enter => match menu.items[menu.selected].clone() {
                MenuItem::InstallUpdate(offer) => self.open_update(offer, now, station),
                item @ (MenuItem::ImportFromUsb(_) | MenuItem::ExportToUsb(_) | MenuItem::JoinFleet(_)) => {
                    let (stick, purpose) = match item {
                        MenuItem::ExportToUsb(stick) => (stick, UsbPurpose::Export),
                        MenuItem::ImportFromUsb(stick) => (stick, UsbPurpose::Import),
                        MenuItem::JoinFleet(stick) => (stick, UsbPurpose::JoinFleet),
                        _ => return,
                    };
                    let device = stick.device.clone();
                    let (request, work) = match purpose {
                        UsbPurpose::Export => (UsbRequest::Export { device }, UsbWork::Exporting),
                        UsbPurpose::Import => (UsbRequest::OpenForImport { device }, UsbWork::Reading),
                        UsbPurpose::JoinFleet => (UsbRequest::JoinFleet { device }, UsbWork::JoiningFleet),
                    };
                    match station.usb_request(request) {
                        Ok(()) => {
                            self.screen = Screen::Usb(UsbScreen {
                                stick,
                                purpose,
                                phase: UsbPhase::Working(work),
                                rows: Vec::new(),
                                left_out: 0,
                                selected: 0,
                                confirming: None,
                                message: None,
                                menu_selected: menu.selected,
                                last_key: now,
                            })
                        }
                        Err(e) => menu.message = Some(MenuMessage::UsbRefused(e)),
                    }
                }
                MenuItem::Leave => {
                    station.director_event(DirectorEvent::Left);
                    self.go_home();
                }
                // Leaving stops what the station sends: a second ENTER confirms.
                MenuItem::LeaveFleet(_) if menu.confirming != Some(menu.selected) => {
                    menu.confirming = Some(menu.selected);
                    menu.message = Some(MenuMessage::ConfirmAgain);
                }
                MenuItem::LeaveFleet(_) => {
                    let message = match station.leave_fleet() {
                        Ok(event) => MenuMessage::LeftFleet(event),
                        Err(error) => MenuMessage::NotLeft(error),
                    };
                    self.open_director(now, station, Some(message), None);
                }
                MenuItem::RestoreSettings => {
                    let message = match station.restore_settings() {
                        Ok(()) => MenuMessage::Saved(Setting::Restored),
                        Err(error) => MenuMessage::NotRestored(error),
                    };
                    self.lexicon = station.lexicon();
                    self.open_director(now, station, Some(message), None);
                }
                MenuItem::ScreenRotation(rotation) => {
                    let keep = menu.selected;
                    let degrees = rotation.next();
                    let message = match station.set_rotation(degrees) {
                        Ok(()) => MenuMessage::Saved(Setting::Rotation { degrees, pending: degrees != rotation.in_force }),
                        Err(error) => MenuMessage::NotSaved(error),
                    };
                    self.open_director(now, station, Some(message), Some(keep));
                }
                MenuItem::UseProfile(choice) => {
                    let keep = menu.selected;
                    let message = match station.switch_profile(&choice.id) {
                        Ok(()) => {
                            self.lexicon = station.lexicon();
                            MenuMessage::ProfileSwitched {
                                name: choice.name.clone(),
                                lexicon: self.lexicon.id.clone(),
                                status: self.lexicon.status.clone(),
                            }
                        }
                        Err(reason) => MenuMessage::SwitchRefused(reason),
                    };
                    self.open_director(now, station, Some(message), Some(keep));
                }
                field @ (MenuItem::ChangePin | MenuItem::SetStationName | MenuItem::SetClock) => {
                    let field = match field {
                        MenuItem::ChangePin => {
                            EditField::Pin { step: PinStep::Old, old: String::new(), new: String::new(), first: false }
                        }
                        MenuItem::SetStationName => EditField::StationName,
                        _ => EditField::Clock,
                    };
                    let typed = match field {
                        EditField::StationName => station.station_name(),
                        _ => String::new(),
                    };
                    self.screen = Screen::Edit(EditPrompt {
                        field,
                        typed,
                        message: None,
                        menu_selected: menu.selected,
                        last_key: now,
                    });
                }
                MenuItem::UseLexicon(choice) => {
                    let keep = menu.selected;
                    let had_profile = menu.items.iter().any(|i| matches!(i, MenuItem::UseProfile(p) if p.active));
                    let switched = station.switch_lexicon(&choice.id);
                    if switched.is_ok() {
                        self.lexicon = station.lexicon();
                    }
                    self.open_director(now, station, None, Some(keep));
                    let Screen::Director(menu) = &mut self.screen else { return };
                    let has_profile = menu.items.iter().any(|i| matches!(i, MenuItem::UseProfile(p) if p.active));
                    menu.message = Some(match switched {
                        Ok(()) => MenuMessage::Switched {
                            id: self.lexicon.id.clone(),
                            status: self.lexicon.status.clone(),
                            profile_cleared: had_profile && !has_profile,
                        },
                        Err(reason) => MenuMessage::SwitchRefused(reason),
                    });
                }
                action @ (MenuItem::Reboot | MenuItem::PowerOff | MenuItem::Quit) => {
                    if menu.confirming != Some(menu.selected) {
                        menu.confirming = Some(menu.selected);
                        menu.message = Some(MenuMessage::ConfirmAgain);
                        return;
                    }
                    menu.confirming = None;
                    let action = match action {
                        MenuItem::Reboot => SystemAction::Reboot,
                        MenuItem::PowerOff => SystemAction::PowerOff,
                        _ => SystemAction::Quit,
                    };
                    match station.system(action) {
                        Ok(()) if action == SystemAction::Quit => self.quit = true,
                        Ok(()) => menu.message = Some(MenuMessage::Done),
                        Err(reason) => menu.message = Some(MenuMessage::NotPossible(reason)),
                    }
                }
            },
            _ => {}
        }
    }

    /// Rebuilds the director menu when the sticks plugged in changed,
    /// keeping the cursor on the item it was on (or where it was).
    pub(super) fn refresh_sticks(&mut self, now: Duration, station: &mut dyn Station) {
        let Screen::Director(menu) = &self.screen else { return };
        let shown: Vec<&StickChoice> = menu
            .items
            .iter()
            .filter_map(|i| match i {
                MenuItem::ImportFromUsb(s) => Some(s),
                _ => None,
            })
            .collect();
        let shown_offer = menu.items.iter().find_map(|i| match i {
            MenuItem::InstallUpdate(offer) => Some(offer),
            _ => None,
        });
        let plugged = station.sticks();
        let offer = station.update_offer();
        if plugged.iter().eq(shown.iter().copied()) && offer.as_ref() == shown_offer {
            return;
        }
        let (selected_item, message, last_key) = (menu.items[menu.selected].clone(), menu.message.clone(), menu.last_key);
        self.open_director(now, station, message, None);
        if let Screen::Director(menu) = &mut self.screen {
            menu.last_key = last_key;
            menu.selected = match menu.items.iter().position(|i| *i == selected_item) {
                Some(index) => index,
                // The item under the cursor went away: ENTER must never land
                // on another action in its place. "Leave" is harmless, and a
                // line says what went away.
                None => {
                    menu.message = Some(MenuMessage::ItemGone(Box::new(selected_item)));
                    menu.items.len() - 1
                }
            };
        }
    }

}
