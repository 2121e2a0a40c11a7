//! What each screen shows, worded: one struct per screen (and the top bar
//! and lamps on every screen), the Rust side of the seam whose `.slint` side
//! is `ui/seam.slint`. Filled by [`super::view`]; nothing here decides.

use wordjudge_core::panel::Lamps;

/// The top bar, on every screen: station, DEMO, warnings, lexicon and status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopBar {
    pub station_name: String,
    pub lexicon_id: String,
    pub lexicon_status: String,
    pub demo: bool,
    /// The DEMO badge text (empty unless `demo`).
    pub demo_label: String,
    /// A discreet marker that the director has something to look at.
    pub warning: bool,
    pub warning_label: String,
    /// The station's name is the director's corner: held down, it opens
    /// the PIN prompt (a touchscreen, on Ready and Out of service).
    pub director_hold: bool,
}

/// Ready: heading, question, what to press, the answer to the last key, and
/// the last challenge's slip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadyView {
    pub heading: String,
    pub question: String,
    pub instruction: String,
    pub hint: String,
    /// The last challenge's number and slip code, after its verdict (never
    /// its words), until the next challenge starts; and its label.
    pub slip: String,
    pub slip_label: String,
    /// The event's challenge rule, in one line (empty without a profile).
    pub rule: String,
    /// The count buttons' labels ("1" to "8") on a touchscreen; empty
    /// without touch.
    pub counts: Vec<String>,
}

/// Entry: the declared words being typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryView {
    pub instruction: String,
    pub footer: String,
    /// What the editing keys do, always on screen.
    pub keys: String,
    /// The answer to the last key.
    pub hint: String,
    /// The hint refuses a TAB and is shown as large as the instruction.
    pub hint_alert: bool,
    /// The countdown before idle words are cleared (empty until then).
    pub countdown: String,
    pub expected: i32,
    /// One row per declared word, as shown (cursor included).
    pub words: Vec<String>,
    pub current_word: i32,
    /// The count confirmation ("3 words") for a moment after the count.
    pub confirmation: String,
    /// The on-screen keyboard's letters, in rows of 10, 9 and 7 (QWERTY);
    /// empty without touch.
    pub letters: Vec<String>,
    /// The touch targets' labels: the next word, delete a letter, clear
    /// (ESC's twin), and the challenged player's JUDGE (empty without touch).
    pub next_word: String,
    pub delete: String,
    pub clear: String,
    pub judge: String,
}

/// Verdict: the whole screen, one verdict for the play.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerdictView {
    pub acceptable: bool,
    pub icon: String,
    pub label: String,
    pub words: String,
    /// Lexicon, its status and the record's time.
    pub details: String,
    /// How it ends (a deliberate key, or by itself).
    pub footer: String,
    /// The challenge number and slip code, large enough to copy.
    pub slip: String,
    /// What the event's rule makes of it ("the challenger loses the turn").
    pub consequence: String,
    /// The second-opinion lexicon's single verdict, smaller.
    pub second: String,
    /// The touch target that ends the verdict once the slip is copied
    /// (ENTER's twin); empty without touch.
    pub copied: String,
}

/// Out of service: what happened and whom to call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServiceView {
    pub title: String,
    pub call: String,
    pub detail: String,
}

/// The director's PIN prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinView {
    pub title: String,
    /// Dots for the digits typed, or empty (then `prompt` shows).
    pub dots: String,
    pub prompt: String,
    pub message: String,
    pub footer: String,
    /// The touch targets: the digit pad (twelve labels, 1 to 9, ⌫, 0, OK)
    /// and Back; empty without touch.
    pub pad: Vec<String>,
    pub back: String,
}

/// A station setting being typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditView {
    pub title: String,
    /// The value typed so far (dots for a PIN), or empty (then `prompt` shows).
    pub value: String,
    pub prompt: String,
    pub message: String,
    pub footer: String,
    /// The digit pad while a PIN is typed, and Back (empty without touch).
    pub pad: Vec<String>,
    pub back: String,
}

/// A confirmation: the change as a question, what follows from it, and the
/// keys (the one that makes it, and ESC that keeps things as they are).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfirmView {
    pub question: String,
    pub detail: String,
    pub keys: String,
    /// The touch targets, far apart: the one that makes the change (ENTER's
    /// twin) and the one that keeps things as they are (empty without touch).
    pub change: String,
    pub keep: String,
}

/// The director menu or a stick's word lists: a list with a cursor, the
/// facts beside it and the result of the last action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MenuView {
    pub title: String,
    pub items: Vec<String>,
    pub selected: i32,
    pub lines: Vec<String>,
    pub message: String,
    /// A page of facts whose only entry is Back (the status page): the
    /// facts get the room. Any other page, even of one entry, keeps the
    /// list's width for its rows.
    pub facts_page: bool,
    /// A touchscreen: every row is a target (the cursor to it and ENTER).
    pub rows_tap: bool,
    /// The Back target (ESC's twin; empty without touch).
    pub back: String,
}

/// A stick at work: a large status line while it is read or written or when
/// it is done (empty while its word lists are shown in the menu), and what
/// it means.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsbView {
    pub status: String,
    /// What must not be missed (an update refused, a wrong PIN), shown in
    /// the alert band; empty when there is nothing.
    pub alert: String,
    pub detail: String,
    /// Whether an update's progress bar shows, and how full (0 to 100).
    pub progress_shown: bool,
    pub progress: i32,
    /// The touch targets (empty without touch, or where no key acts): Back
    /// or Stop waiting (ESC's twin), an update's Install (ENTER's twin) and
    /// the digit pad for its second PIN.
    pub back: String,
    pub change: String,
    pub pad: Vec<String>,
}

/// The simulated lamps (desktops), labelled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LampPanel {
    pub show: bool,
    pub lit: Lamps,
    pub labels: [String; 3],
}
