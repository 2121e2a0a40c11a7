//! The flow's answers to touch: a finished tap on a target (the key it
//! stands for), a tap on a row of a menu page, and the director's corner
//! held down.
//!
//! A tap acts only on a screen that shows its target, and then exactly as
//! its key would; the rules a finger needs on top of the keys live here:
//! the entry takes no tap just after the count was tapped (the same finger
//! bouncing onto the keyboard), a menu page takes no row tap just after it
//! opened (a double tap opens one page, never the entry under the second
//! tap, and goes back one page, never out of the menu), a stick's list asks a second, settled tap before it installs, and
//! the PIN prompt opens only after the director's corner is held for
//! [`DIRECTOR_HOLD`], which no tap or brush comes near.

use super::*;

impl Kiosk {
    /// A finished tap on a touch target, as the key it stands for.
    ///
    /// The player's targets: a count on Ready, the on-screen keyboard
    /// (letters, NEXT WORD, ⌫, CLEAR: ESC's twin, asking before it clears
    /// everything) and JUDGE on the entry once it has settled (a JUDGE tap is
    /// TAB, recorded as `touch`), and "copied" (ENTER, under the same guard)
    /// on a verdict. The director's: the PIN pad (digits, ⌫, OK) on the PIN
    /// prompt, a PIN being set, the clock and an update's second asking; Back (ESC) on
    /// every director screen; the arrows (UP, DOWN) beside a long list; a confirmation's "change" (ENTER, under the
    /// confirmation's own settle rule) and "keep". A tap is never held, so
    /// it never stands in the way of a verdict's dismissal.
    pub(super) fn tap(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let letter_or_edit = matches!(key, Key::Char(c) if c.is_ascii_alphabetic())
            || matches!(key, Key::Char(' ') | Key::Backspace | Key::Escape | Key::Tab);
        let pad = matches!(key, Key::Char(c) if c.is_ascii_digit())
            || matches!(key, Key::Backspace | Key::Enter | Key::Escape);
        match &self.screen {
            Screen::Ready { .. } if matches!(key, Key::Char(c) if c.is_ascii_digit()) => self.key(key, now, station),
            Screen::Entry(e) if letter_or_edit && now >= e.opened + TAP_SETTLE => {
                self.entry_key(key, Trigger::Touch, now, station)
            }
            Screen::Verdict(_) if key == Key::Enter => self.key(key, now, station),
            Screen::Pin(_) if pad => self.pin_key(key, now, station),
            Screen::Edit(edit)
                if key == Key::Escape
                    || (pad && matches!(edit.field, EditField::Pin { .. } | EditField::Clock { .. })) =>
            {
                self.edit_key(key, now, station)
            }
            // Back, settled like a row: a double tap on a page's Back goes
            // back once, never out of the menu. The arrows scroll a long page.
            Screen::Director(menu) if key == Key::Escape && now >= menu.last_key + TAP_SETTLE => {
                self.director_key(key, now, station)
            }
            Screen::Director(_) if matches!(key, Key::Up | Key::Down) => self.director_key(key, now, station),
            Screen::Usb(usb) if matches!(key, Key::Up | Key::Down) && usb.phase == UsbPhase::List => {
                self.usb_key(key, now, station)
            }
            Screen::Confirm(_) if matches!(key, Key::Enter | Key::Escape) => self.confirm_key(key, now, station),
            Screen::Usb(_) if key == Key::Escape => self.usb_key(key, now, station),
            Screen::Update(update) => {
                let takes = match update.phase {
                    UpdatePhase::Preview(_) => matches!(key, Key::Enter | Key::Escape),
                    UpdatePhase::Pin { .. } => pad,
                    _ => key == Key::Escape,
                };
                if takes {
                    self.update_key(key, now, station)
                }
            }
            _ => {}
        }
    }

    /// A tap on row `row` of a director-menu page or of a stick's list: the
    /// cursor to it and ENTER. A page takes no row tap for [`TAP_SETTLE`]
    /// after it opened or was last answered; a stick's list, whose second
    /// ENTER on a row installs it, waits [`CONFIRM_SETTLE`].
    pub(super) fn tap_row(&mut self, row: usize, now: Duration, station: &mut dyn Station) {
        match &mut self.screen {
            Screen::Director(menu) if row < menu.items.len() && now >= menu.last_key + TAP_SETTLE => {
                menu.selected = row;
                self.director_key(Key::Enter, now, station);
            }
            Screen::Usb(usb)
                if usb.phase == UsbPhase::List && row <= usb.rows.len() && now >= usb.last_key + CONFIRM_SETTLE =>
            {
                if usb.selected != row {
                    usb.selected = row;
                    usb.confirming = None;
                    usb.message = None;
                }
                self.usb_key(Key::Enter, now, station);
            }
            _ => {}
        }
    }

    /// The director's corner pressed or let go. Only Ready and Out of
    /// service have it; the time counts from the first press.
    pub(super) fn director_hold(&mut self, down: bool, now: Duration) {
        let here = matches!(self.screen, Screen::Ready { .. } | Screen::OutOfService);
        self.director_hold_since = match self.director_hold_since {
            Some(since) if down && here => Some(since),
            _ if down && here => Some(now),
            _ => None,
        };
    }

    /// Opens the PIN prompt once the corner has been held for
    /// [`DIRECTOR_HOLD`] on Ready or Out of service; a hold that outlives
    /// its screen (a count tapped with another finger) is forgotten.
    pub(super) fn director_hold_tick(&mut self, now: Duration, station: &dyn Station) {
        let Some(since) = self.director_hold_since else { return };
        if !matches!(self.screen, Screen::Ready { .. } | Screen::OutOfService) {
            self.director_hold_since = None;
        } else if now >= since + DIRECTOR_HOLD {
            self.director_hold_since = None;
            self.open_pin(now, station);
        }
    }
}
