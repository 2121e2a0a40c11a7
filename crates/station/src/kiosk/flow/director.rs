//! The director menu's pages: what each page offers as the station is now,
//! the keys on a page, and what ENTER on an entry opens (the PIN prompt
//! before it is in `pin`, the confirmation after it in `confirm`).
//!
//! Why pages and confirmations: a flat list of 30 to 40 rows that acted on
//! the first ENTER let one stray ENTER (after a stick's result screen, with
//! the cursor left on "Use NWL2018") switch an event's lexicon. Now the
//! first page holds a few entries that only open pages; every page opens
//! with its cursor on its first, harmless entry; and every change of what
//! the station judges with, or of its settings, fleet or power, goes
//! through a [`ConfirmScreen`] that names the change in full and takes
//! only a fresh ENTER, some time after it appeared. No single key changes
//! what the station judges with.

use super::*;

/// The director menu's result line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuMessage {
    /// `profile_cleared`: the active profile judged with another lexicon
    /// and no longer applies.
    Switched {
        id: String,
        status: String,
        profile_cleared: bool,
    },
    ProfileSwitched {
        name: String,
        lexicon: String,
        status: String,
    },
    Saved(Setting),
    SwitchRefused(SwitchError),
    /// A confirmation was left with another key than the one it named.
    NothingChanged,
    /// The lexicon or profile chosen is the one in use: nothing to confirm.
    AlreadyInUse(String),
    /// A power action was started: the station restarts, powers off or quits.
    Done(SystemAction),
    NotPossible(SystemError),
    /// USB work could not start.
    UsbRefused(UsbError),
    /// Update work the director chose did not start (why).
    UpdateRefused(UpdateNotStarted),
    /// The item under the cursor went away (its stick was pulled, its offer
    /// withdrawn): the cursor moved to the page's first entry, never onto
    /// another action.
    ItemGone(Box<MenuItem>),
    /// The last good settings could not be written back.
    NotRestored(SettingsError),
    /// The station left the fleet of this event.
    LeftFleet(String),
    /// The station could not leave its fleet (why); nothing changed.
    NotLeft(LeaveError),
    /// The director PIN was not changed (why); nothing changed.
    PinNotChanged(PinChangeError),
    /// A setting could not be saved (why); nothing changed.
    NotSaved(SettingsError),
}

/// A page of the director menu, grouped by what a director came to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuPage {
    /// The first page: a few entries, each opening a page (the repair first
    /// while the settings are damaged).
    Home,
    /// What the station judges with, under which rule, its last challenge,
    /// the fleet and every warning, in one screen.
    Status,
    /// Lexicons and event profiles.
    Lexicon,
    /// The sticks plugged in: install, export, fleet, update.
    Usb,
    /// Name, clock, PIN, screen.
    Station,
    /// The event's fleet.
    Fleet,
    /// Restart, power off (the appliance), quit (a desktop that allows it).
    Power,
}

/// An entry of the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuItem {
    /// Opens a page.
    Open(MenuPage),
    /// Back to the first page.
    Back,
    /// Write the held last good settings back over a damaged config (shown
    /// first, only while they are held; confirmed).
    RestoreSettings,
    /// The settings are gone (the config and its last good copy) and the
    /// PIN guard is whole: a fresh config, started from a name.
    SetUpAgain,
    UseLexicon(LexiconChoice),
    UseProfile(ProfileChoice),
    ChangePin,
    SetStationName,
    SetClock,
    /// Choose the time zone the station shows its times in (the zone in
    /// force, by name).
    SetTimeZone(String),
    /// Turn the picture 90° further (saved; it takes effect at the next start).
    ScreenRotation(Rotation),
    /// Install word lists from this stick (shown while it is plugged in).
    ImportFromUsb(StickChoice),
    /// Export the audit log to this stick.
    ExportToUsb(StickChoice),
    /// Join the event's fleet with this stick (a fleet stick; two visits).
    JoinFleet(StickChoice),
    /// Leave the fleet of this event (confirmed).
    LeaveFleet(String),
    /// Update the station from the bundle on a plugged-in stick.
    InstallUpdate(UpdateOffer),
    Reboot,
    PowerOff,
    Quit,
    Leave,
}

/// The director menu: one page at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectorMenu {
    pub page: MenuPage,
    pub items: Vec<MenuItem>,
    pub selected: usize,
    pub message: Option<MenuMessage>,
    pub(super) last_key: Duration,
}

impl Kiosk {
    /// The entries of `page` as the station is now. Every page's first entry
    /// changes nothing (it opens a page or a confirmation, or goes back).
    ///
    /// While the settings are damaged and the last good ones are held, the
    /// first page offers the repair first, and no page offers a change that
    /// would save the settings (saving them would repair the file as a side
    /// effect, with a record that says something else).
    fn page_items(&self, page: MenuPage, station: &mut dyn Station) -> Vec<MenuItem> {
        // With the settings gone, as while they are held, no page offers an
        // entry that needs them: each would refuse for want of a config.
        let gone = station.settings_gone();
        let held = station.settings_held() || gone;
        let mut items = Vec::new();
        match page {
            MenuPage::Home => {
                if gone {
                    items.push(MenuItem::SetUpAgain);
                } else if held {
                    items.push(MenuItem::RestoreSettings);
                }
                items.push(MenuItem::Open(MenuPage::Status));
                if !held {
                    items.push(MenuItem::Open(MenuPage::Lexicon));
                }
                // Both asked every time: asking for the offer is what starts
                // the station looking at a stick's bundle (a signature check
                // takes seconds), so it is ready when the stick page opens.
                let (sticks, offer) = (station.sticks(), station.update_offer());
                if !sticks.is_empty() || offer.is_some() {
                    items.push(MenuItem::Open(MenuPage::Usb));
                }
                if !held {
                    items.push(MenuItem::Open(MenuPage::Fleet));
                    items.push(MenuItem::Open(MenuPage::Station));
                }
                if station.appliance() || station.quit_allowed() {
                    items.push(MenuItem::Open(MenuPage::Power));
                }
                items.push(MenuItem::Leave);
                return items;
            }
            MenuPage::Status => {}
            MenuPage::Lexicon if !held => {
                let lexicons = station.lexicon_choices();
                let profiles = station.profile_choices(&lexicons);
                items.extend(lexicons.into_iter().map(MenuItem::UseLexicon));
                items.extend(profiles.into_iter().map(MenuItem::UseProfile));
            }
            MenuPage::Usb => {
                for stick in station.sticks() {
                    if !held {
                        items.push(MenuItem::ImportFromUsb(stick.clone()));
                    }
                    items.push(MenuItem::ExportToUsb(stick.clone()));
                    if !held {
                        items.push(MenuItem::JoinFleet(stick));
                    }
                }
                if !held {
                    items.extend(station.update_offer().map(MenuItem::InstallUpdate));
                }
            }
            MenuPage::Station if !held => {
                items.extend([MenuItem::SetStationName, MenuItem::SetClock]);
                items.push(MenuItem::SetTimeZone(station.local_time().zone));
                items.push(MenuItem::ChangePin);
                items.extend(station.rotation().map(MenuItem::ScreenRotation));
            }
            MenuPage::Fleet if !held => items.extend(station.fleet_event().map(MenuItem::LeaveFleet)),
            MenuPage::Power => {
                // Reboot and power-off only on the appliance: a desktop kiosk
                // must never switch off the machine it runs on.
                if station.appliance() {
                    items.extend([MenuItem::Reboot, MenuItem::PowerOff]);
                }
                if station.quit_allowed() {
                    items.push(MenuItem::Quit);
                }
            }
            MenuPage::Lexicon | MenuPage::Station | MenuPage::Fleet => {}
        }
        items.insert(0, MenuItem::Back);
        items
    }

    /// Opens a page of the director menu with its cursor on its first,
    /// harmless entry: after a stick's result, a confirmation, an item going
    /// away or a restart of the menu, ENTER never lands on an action.
    pub(super) fn open_menu(
        &mut self,
        page: MenuPage,
        now: Duration,
        station: &mut dyn Station,
        message: Option<MenuMessage>,
    ) {
        self.last_stick_check = now;
        let items = self.page_items(page, station);
        self.screen = Screen::Director(DirectorMenu { page, items, selected: 0, message, last_key: now });
    }

    pub(super) fn director_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Director(menu) = &mut self.screen else { return };
        menu.last_key = now;
        let last = menu.items.len() - 1;
        let page = menu.page;
        match key {
            Key::Up => menu.selected = menu.selected.saturating_sub(1),
            Key::Down | Key::Tab => menu.selected = (menu.selected + 1).min(last),
            Key::Escape if page == MenuPage::Home => {
                station.director_event(DirectorEvent::Left);
                self.go_home();
            }
            Key::Escape => self.open_menu(MenuPage::Home, now, station, None),
            Key::Enter => {
                let item = menu.items[menu.selected].clone();
                self.menu_enter(item, page, now, station);
            }
            _ => {}
        }
    }

    /// ENTER on `item` of `page`: opens a page, a prompt, a stick's screen
    /// or a confirmation. Nothing the station judges with changes here.
    fn menu_enter(&mut self, item: MenuItem, page: MenuPage, now: Duration, station: &mut dyn Station) {
        let say = |kiosk: &mut Kiosk, message: MenuMessage| {
            if let Screen::Director(menu) = &mut kiosk.screen {
                menu.message = Some(message);
            }
        };
        match item {
            MenuItem::Open(to) => self.open_menu(to, now, station, None),
            MenuItem::Back => self.open_menu(MenuPage::Home, now, station, None),
            MenuItem::Leave => {
                station.director_event(DirectorEvent::Left);
                self.go_home();
            }
            MenuItem::RestoreSettings => self.confirm(Change::RestoreSettings, MenuPage::Home, now),
            MenuItem::UseLexicon(choice) if choice.id == self.lexicon.id && self.lexicon.usable => {
                say(self, MenuMessage::AlreadyInUse(choice.id))
            }
            // A lexicon that cannot judge is not offered as a change: a
            // confirmation would promise a switch the station must refuse.
            MenuItem::UseLexicon(choice) if !choice.usable => {
                let problem = "it cannot judge, so the station keeps the lexicon in use".to_string();
                let refused = SwitchError::Unusable { id: choice.id.clone(), status: choice.status, problem };
                station.switch_refused(&choice.id, &refused.to_string());
                say(self, MenuMessage::SwitchRefused(refused))
            }
            MenuItem::UseLexicon(choice) => {
                let Screen::Director(menu) = &self.screen else { return };
                let active = menu.items.iter().find_map(|i| match i {
                    MenuItem::UseProfile(p) if p.active => Some(p),
                    _ => None,
                });
                // The profile stays only if it has a row judging with the new lexicon.
                let profile_lost = active
                    .filter(|p| {
                        !menu.items.iter().any(|i| {
                            matches!(i, MenuItem::UseProfile(q) if q.name == p.name && q.edition.as_deref() == Some(&choice.id))
                        })
                    })
                    .map(|p| p.name.clone());
                let change = Change::SwitchLexicon { from: self.lexicon.id.clone(), to: choice.id, profile_lost };
                self.confirm(change, page, now);
            }
            MenuItem::UseProfile(choice) if choice.active => say(self, MenuMessage::AlreadyInUse(choice.name)),
            MenuItem::UseProfile(choice) if choice.unavailable.is_some() => {
                let reason = choice.unavailable.clone().unwrap_or_default();
                station.profile_refused(&choice.id, &reason);
                say(self, MenuMessage::SwitchRefused(SwitchError::ProfileUnavailable { profile: choice.name, reason }))
            }
            MenuItem::UseProfile(choice) => {
                let Screen::Director(menu) = &self.screen else { return };
                let from_profile = menu.items.iter().find_map(|i| match i {
                    MenuItem::UseProfile(p) if p.active && p.name != choice.name => Some(p.name.clone()),
                    _ => None,
                });
                let change = Change::UseProfile { choice, from_lexicon: self.lexicon.id.clone(), from_profile };
                self.confirm(change, page, now);
            }
            MenuItem::ScreenRotation(rotation) => {
                let change =
                    Change::Rotation { from: rotation.saved, to: rotation.next(), in_force: rotation.in_force };
                self.confirm(change, page, now);
            }
            MenuItem::JoinFleet(stick) => self.confirm(Change::JoinFleet { stick }, page, now),
            MenuItem::LeaveFleet(event) => self.confirm(Change::LeaveFleet { event }, page, now),
            MenuItem::Reboot => self.confirm(Change::System(SystemAction::Reboot), page, now),
            MenuItem::PowerOff => self.confirm(Change::System(SystemAction::PowerOff), page, now),
            MenuItem::Quit => self.confirm(Change::System(SystemAction::Quit), page, now),
            // Setting up again starts from a name, as a rename does; its
            // confirmation then names what is written.
            field @ (MenuItem::ChangePin
            | MenuItem::SetStationName
            | MenuItem::SetUpAgain
            | MenuItem::SetClock
            | MenuItem::SetTimeZone(_)) => {
                let field = match field {
                    MenuItem::ChangePin => {
                        EditField::Pin { step: PinStep::Old, old: String::new(), new: String::new(), first: false }
                    }
                    MenuItem::SetStationName => EditField::StationName,
                    MenuItem::SetUpAgain => EditField::SetUpName,
                    MenuItem::SetTimeZone(_) => EditField::TimeZone,
                    _ => EditField::Clock { zone: station.local_time().zone },
                };
                // The name and the clock start from what they are now: a
                // reference to change, typed over at the first key.
                let typed = match field {
                    EditField::StationName | EditField::SetUpName => station.station_name(),
                    EditField::Clock { .. } => station.local_time().typed,
                    EditField::TimeZone => station.local_time().zone,
                    EditField::Pin { .. } => String::new(),
                };
                let prefilled = !typed.is_empty();
                self.screen =
                    Screen::Edit(EditPrompt { field, typed, prefilled, message: None, back: page, last_key: now });
            }
            MenuItem::InstallUpdate(offer) => self.open_update(offer, now, station),
            MenuItem::ImportFromUsb(stick) => self.start_usb(stick, UsbPurpose::Import, page, now, station),
            MenuItem::ExportToUsb(stick) => self.start_usb(stick, UsbPurpose::Export, page, now, station),
        }
    }

    /// Starts a stick's work and shows its screen; the page says why not.
    pub(super) fn start_usb(
        &mut self,
        stick: StickChoice,
        purpose: UsbPurpose,
        back: MenuPage,
        now: Duration,
        station: &mut dyn Station,
    ) {
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
                    back,
                    last_key: now,
                    working_since: now,
                })
            }
            Err(e) => self.open_menu(back, now, station, Some(MenuMessage::UsbRefused(e))),
        }
    }

    /// Rebuilds the first page or the stick page when the sticks plugged in
    /// or the update offered changed, keeping the cursor on the entry it was
    /// on; where that entry went away, on the page's first entry with a line
    /// that says what went away (never on another action).
    pub(super) fn refresh_sticks(&mut self, station: &mut dyn Station) {
        let Screen::Director(menu) = &self.screen else { return };
        if !matches!(menu.page, MenuPage::Home | MenuPage::Usb) {
            return;
        }
        let page = menu.page;
        let items = self.page_items(page, station);
        let Screen::Director(menu) = &mut self.screen else { return };
        if items == menu.items {
            return;
        }
        let under = menu.items[menu.selected].clone();
        menu.selected = match items.iter().position(|i| *i == under) {
            Some(index) => index,
            None => {
                menu.message = Some(MenuMessage::ItemGone(Box::new(under)));
                0
            }
        };
        menu.items = items;
    }
}
