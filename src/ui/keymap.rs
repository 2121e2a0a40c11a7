//! Turning Slint key events (text plus modifiers) into the flow's [`Key`]s.
//!
//! This is where players are kept inside the kiosk: any key with Ctrl or Alt
//! held (Ctrl+C, Ctrl+Q, Alt+F4, Ctrl+Alt+Backspace, …) becomes
//! [`Key::Other`], which the flow ignores — except the director chord,
//! Ctrl+Alt+Shift+D, which nobody types by accident.

use crate::kiosk::flow::Key;
use slint::platform::Key as SlintKey;

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
    } else if c.is_control() || ('\u{E000}'..='\u{F8FF}').contains(&c) {
        // Other named keys (function keys, arrows, modifiers) live in the
        // private-use area or are control characters.
        Key::Other
    } else {
        Key::Char(c)
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
}
