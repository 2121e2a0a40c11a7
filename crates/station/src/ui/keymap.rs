//! Turning Slint key events (text plus modifiers) into the flow's [`Key`]s,
//! and taps on the window's touch targets into [`Event::Tap`].
//!
//! This is where players are kept inside the kiosk: any key with Ctrl or Alt
//! held (Ctrl+C, Ctrl+Q, Alt+F4, Ctrl+Alt+Backspace, …) becomes
//! [`Key::Other`], which the flow ignores — except the director chord,
//! Ctrl+Alt+Shift+D, which nobody types by accident.

use crate::kiosk::flow::{Event, Key};
use slint::platform::Key as SlintKey;

/// One key event from the window, with its kind, as the flow's [`Event`]:
/// the one place Slint's key text becomes a typed key.
pub(super) fn map_event(kind: super::KeyKind, text: &str, ctrl: bool, alt: bool, shift: bool) -> Event {
    let key = map_key(text, ctrl, alt, shift);
    match kind {
        super::KeyKind::Press => Event::Key(key),
        super::KeyKind::Repeat => Event::Repeat(key),
        super::KeyKind::Release => Event::Release(key),
    }
}

/// A finished tap on the touch target `target` (its name in the window: a
/// count, a letter or a digit as shown; `next-word`, `delete`, `clear`,
/// `judge`, `copied` on the player's screens; `ok`, `back`, `change`, `keep`
/// `up`, `down` on the director's; `row:N` for row N of a menu page) as the flow's
/// [`Event::Tap`] of the key it stands for, or [`Event::TapRow`]; `None` for
/// a name the window has no target for.
pub(super) fn map_tap(target: &str) -> Option<Event> {
    if let Some(row) = target.strip_prefix("row:") {
        // Rows are few; a name with anything but a small number is no row.
        return row.parse::<u16>().ok().map(|n| Event::TapRow(usize::from(n)));
    }
    let key = match target {
        "next-word" => Key::Char(' '),
        "delete" => Key::Backspace,
        "clear" | "back" | "keep" => Key::Escape,
        "judge" => Key::Tab,
        "copied" | "ok" | "change" => Key::Enter,
        "up" => Key::Up,
        "down" => Key::Down,
        _ => {
            let mut chars = target.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_uppercase() || c.is_ascii_digit() => Key::Char(c),
                _ => return None,
            }
        }
    };
    Some(Event::Tap(key))
}

/// Maps one key press.
pub fn map_key(text: &str, ctrl: bool, alt: bool, shift: bool) -> Key {
    let mut chars = text.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return Key::Other };
    // With Ctrl held some backends send the control character (Ctrl+D = U+0004).
    if ctrl && alt && shift && matches!(c, 'd' | 'D' | '\u{4}') {
        return Key::DirectorChord;
    }
    if ctrl || alt {
        return Key::Other;
    }
    let is = |key: SlintKey| c == char::from(key);
    if is(SlintKey::Tab) {
        Key::Tab
    } else if is(SlintKey::Return) || c == '\r' {
        Key::Enter
    } else if is(SlintKey::Backspace) {
        Key::Backspace
    } else if is(SlintKey::Escape) {
        Key::Escape
    } else if is(SlintKey::UpArrow) {
        Key::Up
    } else if is(SlintKey::DownArrow) {
        Key::Down
    } else if is(SlintKey::LeftArrow) {
        Key::Left
    } else if is(SlintKey::RightArrow) {
        Key::Right
    } else if c.is_control() || ('\u{E000}'..='\u{F8FF}').contains(&c) {
        // Other named keys (function keys, arrows, modifiers) live in the
        // private-use area or are control characters.
        Key::Other
    } else {
        Key::Char(c)
    }
}

/// Linux evdev key codes the [`ZapGuard`] watches.
mod evdev {
    pub const LEFT_CTRL: u32 = 29;
    pub const RIGHT_CTRL: u32 = 97;
    pub const LEFT_ALT: u32 = 56;
    pub const RIGHT_ALT: u32 = 100;
    pub const BACKSPACE: u32 = 14;
    pub const DELETE: u32 = 111;
    pub const KEYPAD_DELETE: u32 = 83;
}

/// Slint's linuxkms backend ends its event loop on Ctrl+Alt+Backspace and
/// Ctrl+Alt+Delete (a "zap" for developers), below where key events reach the
/// window. On the console the kiosk sees the raw libinput key events first
/// and swallows those two combinations with this guard.
#[derive(Debug, Default)]
pub struct ZapGuard {
    ctrl: [bool; 2],
    alt: [bool; 2],
}

impl ZapGuard {
    /// Feeds one raw key event (evdev code, pressed or released); true when
    /// the event must not reach the backend.
    pub fn swallow(&mut self, code: u32, pressed: bool) -> bool {
        match code {
            evdev::LEFT_CTRL => self.ctrl[0] = pressed,
            evdev::RIGHT_CTRL => self.ctrl[1] = pressed,
            evdev::LEFT_ALT => self.alt[0] = pressed,
            evdev::RIGHT_ALT => self.alt[1] = pressed,
            evdev::BACKSPACE | evdev::DELETE | evdev::KEYPAD_DELETE => {
                return self.ctrl.contains(&true) && self.alt.contains(&true);
            }
            _ => {}
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(k: SlintKey) -> String {
        char::from(k).to_string()
    }

    #[test]
    fn maps_editing_keys_and_letters() {
        assert_eq!(map_key(&t(SlintKey::Tab), false, false, false), Key::Tab);
        assert_eq!(map_key(&t(SlintKey::Return), false, false, false), Key::Enter);
        assert_eq!(map_key(&t(SlintKey::Backspace), false, false, false), Key::Backspace);
        assert_eq!(map_key(&t(SlintKey::Escape), false, false, false), Key::Escape);
        assert_eq!(map_key("q", false, false, false), Key::Char('q'));
        assert_eq!(map_key("Q", false, false, true), Key::Char('Q'));
        assert_eq!(map_key(" ", false, false, false), Key::Char(' '));
        assert_eq!(map_key(&t(SlintKey::LeftArrow), false, false, false), Key::Left);
        assert_eq!(map_key(&t(SlintKey::RightArrow), false, false, false), Key::Right);
    }

    #[test]
    fn escape_combinations_do_nothing() {
        assert_eq!(map_key("c", true, false, false), Key::Other, "Ctrl+C");
        assert_eq!(map_key("q", true, false, false), Key::Other, "Ctrl+Q");
        assert_eq!(map_key(&t(SlintKey::F4), false, true, false), Key::Other, "Alt+F4");
        assert_eq!(map_key(&t(SlintKey::Backspace), true, true, false), Key::Other, "Ctrl+Alt+Backspace");
        assert_eq!(map_key(&t(SlintKey::F1), false, false, false), Key::Other);
        assert_eq!(map_key("", false, false, false), Key::Other);
        assert_eq!(map_key("ab", false, false, false), Key::Other);
        assert_eq!(map_key("d", true, true, false), Key::Other, "chord needs Shift too");
        assert_eq!(map_key("D", true, true, true), Key::DirectorChord);
        assert_eq!(map_key("\u{4}", true, true, true), Key::DirectorChord);
    }

    #[test]
    fn key_kinds_become_distinct_events() {
        use super::super::KeyKind;
        let tab = t(SlintKey::Tab);
        assert_eq!(map_event(KeyKind::Press, &tab, false, false, false), Event::Key(Key::Tab));
        assert_eq!(map_event(KeyKind::Repeat, &tab, false, false, false), Event::Repeat(Key::Tab));
        assert_eq!(map_event(KeyKind::Release, &tab, false, false, false), Event::Release(Key::Tab));
    }

    #[test]
    fn zap_guard_swallows_ctrl_alt_backspace_and_delete_only() {
        let mut g = ZapGuard::default();
        assert!(!g.swallow(evdev::BACKSPACE, true), "plain BACKSPACE edits words");
        assert!(!g.swallow(evdev::LEFT_CTRL, true));
        assert!(!g.swallow(evdev::BACKSPACE, true), "Ctrl+Backspace is not a zap");
        assert!(!g.swallow(evdev::RIGHT_ALT, true));
        assert!(g.swallow(evdev::BACKSPACE, true));
        assert!(g.swallow(evdev::DELETE, true));
        assert!(g.swallow(evdev::KEYPAD_DELETE, false));
        assert!(!g.swallow(30, true), "other keys pass");
        assert!(!g.swallow(evdev::RIGHT_ALT, false));
        assert!(!g.swallow(evdev::DELETE, true), "Alt released");
    }

    #[test]
    fn taps_map_to_the_keys_their_targets_stand_for_and_nothing_else() {
        use super::map_tap;
        assert_eq!(map_tap("A"), Some(Event::Tap(Key::Char('A'))));
        assert_eq!(map_tap("8"), Some(Event::Tap(Key::Char('8'))));
        assert_eq!(map_tap("next-word"), Some(Event::Tap(Key::Char(' '))));
        assert_eq!(map_tap("delete"), Some(Event::Tap(Key::Backspace)));
        assert_eq!(map_tap("clear"), Some(Event::Tap(Key::Escape)));
        assert_eq!(map_tap("judge"), Some(Event::Tap(Key::Tab)));
        assert_eq!(map_tap("copied"), Some(Event::Tap(Key::Enter)));
        assert_eq!(map_tap("0"), Some(Event::Tap(Key::Char('0'))));
        assert_eq!(map_tap("ok"), Some(Event::Tap(Key::Enter)));
        assert_eq!(map_tap("change"), Some(Event::Tap(Key::Enter)));
        assert_eq!(map_tap("back"), Some(Event::Tap(Key::Escape)));
        assert_eq!(map_tap("keep"), Some(Event::Tap(Key::Escape)));
        assert_eq!(map_tap("up"), Some(Event::Tap(Key::Up)));
        assert_eq!(map_tap("down"), Some(Event::Tap(Key::Down)));
        assert_eq!(map_tap("row:0"), Some(Event::TapRow(0)));
        assert_eq!(map_tap("row:12"), Some(Event::TapRow(12)));
        for nothing in ["", "a", "AB", "escape", "director", "é", "\t", "row:", "row:-1", "row:x", "row:99999", "ROW:1"]
        {
            assert_eq!(map_tap(nothing), None, "{nothing:?}");
        }
    }
}
