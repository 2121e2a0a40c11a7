//! A station setting typed from the director menu: the PIN (old, new,
//! again), the station's name, the date and time, the time zone.

use super::*;

/// Which setting an [`EditPrompt`] changes, and how far it has got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditField {
    /// The director PIN: the old one, the new one, the new one again.
    /// `first`: a station with no PIN yet (first boot): no old one, and
    /// the new one opens the menu.
    Pin {
        step: PinStep,
        old: String,
        new: String,
        first: bool,
    },
    StationName,
    /// The name of a station set up again after its settings were lost
    /// ([`super::MenuItem::SetUpAgain`]).
    SetUpName,
    /// The local date and time, `YYYY-MM-DD HH:MM`, in the station's time
    /// zone `zone` (named on the prompt: the image runs UTC unless built
    /// with another).
    Clock {
        zone: String,
    },
    /// The time zone the station shows its times in, by its IANA name
    /// (`Europe/London`).
    TimeZone,
}

/// The steps of a PIN change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinStep {
    Old,
    New,
    Again,
}

/// What an edit prompt says about the last key or ENTER.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditMessage {
    /// The two new PINs differ; start the new PIN again.
    PinsDiffer,
    /// That key does not belong in this field.
    KeyNotAllowed,
    /// The station refused the value (bad name, bad date…).
    Refused(SettingsError),
    /// The station refused the first PIN.
    PinRefused(PinChangeError),
}

/// A setting being typed. The menu page it came from is kept to return to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPrompt {
    pub field: EditField,
    pub typed: String,
    /// `typed` is the value as it stands (the station's name, the clock's
    /// reading), not yet touched: the first character typed replaces it
    /// whole and BACKSPACE clears it, as in any prefilled field.
    pub prefilled: bool,
    pub message: Option<EditMessage>,
    /// The menu page it returns to.
    pub(super) back: MenuPage,
    pub(super) last_key: Duration,
}

impl EditPrompt {
    /// Most characters the field takes.
    pub fn max_len(&self) -> usize {
        match self.field {
            EditField::Pin { .. } => PIN_MAX_LEN,
            EditField::StationName | EditField::SetUpName => wordjudge_core::config::MAX_STATION_NAME,
            EditField::Clock { .. } => "YYYY-MM-DD HH:MM".len(),
            EditField::TimeZone => wordjudge_core::config::MAX_TIME_ZONE_NAME,
        }
    }
    fn accepts(&self, c: char) -> bool {
        match self.field {
            EditField::Pin { .. } => c.is_ascii_digit(),
            EditField::StationName | EditField::SetUpName => wordjudge_core::config::station_name_char_allowed(c),
            EditField::Clock { .. } => c.is_ascii_digit() || matches!(c, '-' | ':' | ' '),
            EditField::TimeZone => wordjudge_core::config::time_zone_char_allowed(c),
        }
    }
}

/// The separator the clock's form (`YYYY-MM-DD HH:MM`) has after `len`
/// characters, if any.
fn clock_separator_at(len: usize) -> Option<char> {
    match len {
        4 | 7 => Some('-'),
        10 => Some(' '),
        13 => Some(':'),
        _ => None,
    }
}

impl Kiosk {
    pub(super) fn edit_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Edit(edit) = &mut self.screen else { return };
        edit.last_key = now;
        match key {
            Key::Escape => {
                if matches!(edit.field, EditField::Pin { first: true, .. }) {
                    // No menu behind a first PIN: it was never opened.
                    return self.go_home();
                }
                let back = edit.back;
                self.open_menu(back, now, station, None);
            }
            Key::Backspace => {
                if std::mem::take(&mut edit.prefilled) {
                    edit.typed.clear();
                }
                edit.typed.pop();
                edit.message = None;
            }
            Key::Char(c) if edit.accepts(c) => {
                if std::mem::take(&mut edit.prefilled) {
                    edit.typed.clear();
                }
                // A digit where the clock's form has a separator (the pad
                // has none) gets it first: 202701020304 reads as typed with
                // them. A separator typed there is taken as it is.
                if matches!(edit.field, EditField::Clock { .. }) && c.is_ascii_digit() {
                    if let Some(separator) = clock_separator_at(edit.typed.chars().count()) {
                        edit.typed.push(separator);
                    }
                }
                if edit.typed.chars().count() < edit.max_len() {
                    edit.typed.push(c);
                }
                edit.message = None;
            }
            Key::Char(_) => edit.message = Some(EditMessage::KeyNotAllowed),
            Key::Enter => self.edit_enter(now, station),
            _ => {}
        }
    }

    /// ENTER on an edit: what the typed value would change, confirmed on
    /// its own screen; a value the station would refuse is said here. The
    /// PIN is typed old, new and again (the new one checked at its first
    /// entry); a fresh station's first PIN is set at once.
    fn edit_enter(&mut self, now: Duration, station: &mut dyn Station) {
        let Screen::Edit(edit) = &mut self.screen else { return };
        let typed = std::mem::take(&mut edit.typed);
        edit.prefilled = false;
        let back = edit.back;
        let change = match &mut edit.field {
            EditField::Pin { step: step @ PinStep::Old, old, .. } => {
                *old = typed;
                *step = PinStep::New;
                return;
            }
            EditField::Pin { step: step @ PinStep::New, new, .. } => {
                // The rule is checked at the first entry: a PIN the
                // station would refuse is not typed twice first.
                if let Err(bad) = wordjudge_core::pin::check_pin_format(&typed) {
                    edit.message = Some(EditMessage::Refused(SettingsError::Invalid(bad.to_string())));
                    return;
                }
                *new = typed;
                *step = PinStep::Again;
                return;
            }
            EditField::Pin { step, old, new, first } => {
                if typed != *new {
                    *step = PinStep::New;
                    new.clear();
                    edit.message = Some(EditMessage::PinsDiffer);
                    return;
                }
                if !*first {
                    Change::ChangePin { old: std::mem::take(old), new: std::mem::take(new) }
                } else {
                    // A fresh station's first PIN: no menu and no
                    // PIN existed before, so there is nothing to keep.
                    match station.set_first_pin(new) {
                        Ok(()) => {
                            station.director_event(DirectorEvent::PinAccepted);
                            return self.open_menu(
                                MenuPage::Home,
                                now,
                                station,
                                Some(MenuMessage::Saved(Setting::FirstPin)),
                            );
                        }
                        Err(error) => {
                            *step = PinStep::New;
                            new.clear();
                            edit.message = Some(EditMessage::PinRefused(error));
                            return;
                        }
                    }
                }
            }
            EditField::StationName | EditField::SetUpName => {
                let to = typed.trim().to_string();
                if let Err(why) = wordjudge_core::config::check_station_name(&to) {
                    edit.typed = typed;
                    edit.message = Some(EditMessage::Refused(SettingsError::Invalid(why)));
                    return;
                }
                if matches!(edit.field, EditField::SetUpName) {
                    Change::SetUpAgain { name: to }
                } else {
                    Change::Rename { from: station.station_name(), to }
                }
            }
            EditField::Clock { .. } => {
                if let Err(error) = crate::desks::parse_clock(&typed) {
                    edit.typed = typed;
                    edit.message = Some(EditMessage::Refused(error));
                    return;
                }
                Change::SetClock { to: typed.trim().to_string() }
            }
            EditField::TimeZone => {
                // Looked up here, so the confirmation names the zone as the
                // database spells it and a name it lacks is said at once.
                match wordjudge_core::config::time_zone(Some(typed.trim())) {
                    Ok(zone) => {
                        let to = zone.iana_name().unwrap_or(typed.trim()).to_string();
                        Change::SetTimeZone { from: station.local_time().zone, to }
                    }
                    Err(why) => {
                        edit.typed = typed;
                        edit.message = Some(EditMessage::Refused(SettingsError::Invalid(why)));
                        return;
                    }
                }
            }
        };
        self.confirm(change, back, now);
    }
}
