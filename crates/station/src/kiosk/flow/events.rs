//! What drives the flow: a key as the flow sees it, and the events (a press,
//! the backend's repeat, a release, a tap on a touch target, the judge
//! button, a tick). The UI maps real key events and taps to these; the flow
//! acts on fresh presses and taps only.

/// A key as the flow sees it (the UI maps real key events to these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable character (letters, digits, punctuation, space).
    Char(char),
    Tab,
    Enter,
    Backspace,
    Escape,
    Up,
    Down,
    Left,
    Right,
    /// The director chord, Ctrl+Alt+Shift+D: opens the PIN prompt from Ready
    /// or Out of service.
    DirectorChord,
    /// Any other key (function keys, modifiers with letters, …): ignored.
    Other,
}

impl Key {
    /// The key as remembered while held: letters without case, since a
    /// release may carry other text than its press once Shift changed.
    pub(super) fn held_form(self) -> Key {
        match self {
            Key::Char(c) => Key::Char(c.to_ascii_uppercase()),
            other => other,
        }
    }

    /// Whether a fresh press of this key may end a verdict: ENTER, ESC or
    /// SPACE, deliberate keys nobody types into the next challenge. Never
    /// TAB, which judged it (a challenged player pressing it twice, or
    /// holding it, must not wipe the verdict), never a letter or a digit.
    pub fn dismisses_verdict(self) -> bool {
        matches!(self, Key::Enter | Key::Escape | Key::Char(' '))
    }
}

/// Something that happened.
///
/// Keys carry their kind: a fresh press, the backend's auto-repeat of a key
/// held down, or a release. Slint's winit backend (desktops, X11) reports
/// auto-repeats as repeats; its linuxkms backend (the appliance, libinput)
/// generates none: a held key is one press and one release there. The flow
/// acts on fresh presses only, so a held key acts once on every backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A key went down.
    Key(Key),
    /// The key is still held and the backend repeated it: never acts (it
    /// only tells that someone is at the keyboard).
    Repeat(Key),
    /// A key went up.
    Release(Key),
    /// A tap on a touch target, finished (down and up on the same target,
    /// which the window makes sure of): the key it stands for, pressed once
    /// and already released. On the player's screens: a count on Ready;
    /// letters, the next word, ⌫, CLEAR and JUDGE on the entry; "copied" on
    /// a verdict. On the director's: the PIN pad's digits, ⌫ and OK, Back,
    /// and a confirmation's "change" and "keep". No tap opens the PIN prompt
    /// (only [`Event::DirectorHold`] held long enough does).
    Tap(Key),
    /// A tap on row `n` of a director-menu page or of a stick's list: the
    /// cursor to that row and ENTER, once the page has settled.
    TapRow(usize),
    /// The director's corner (the station's name, top left, on Ready and
    /// Out of service) pressed (`true`) or let go or slid off (`false`):
    /// held for [`super::DIRECTOR_HOLD`], it opens the PIN prompt.
    DirectorHold(bool),
    /// The physical judge button: exactly TAB in Entry, ignored elsewhere.
    JudgeButton,
    /// Time passed (timeouts are checked against `now`).
    Tick,
}
