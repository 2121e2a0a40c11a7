//! The director's PIN prompt: the first PIN of a fresh station, wrong PINs
//! and their lockout. `verify_director_pin` is the one place a typed PIN
//! is checked, counted and locked out (the prompt, and an update's second
//! asking).

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

/// The director PIN prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinPrompt {
    /// Digits typed so far (the screen shows only dots).
    pub typed: String,
    pub message: Option<PinMessage>,
    pub(super) last_key: Duration,
}

/// What a typed director PIN came to (the lockout already applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PinVerdict {
    Accepted,
    NotSet,
    /// ENTER with nothing typed: not an attempt.
    Blank,
    Wrong {
        attempts_left: u32,
    },
    /// That was the last attempt: the prompt is locked now.
    LockedOut,
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
                prefilled: false,
                message: None,
                back: MenuPage::Home,
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
            Key::Escape => self.go_home(),
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
                    PinVerdict::Accepted => return self.open_menu(MenuPage::Home, now, station, None),
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
}
