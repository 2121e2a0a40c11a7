//! The self-lookup flow as a plain state machine: Ready → Entry → Verdict,
//! Out of service, and the director's PIN prompt and menu.
//!
//! It is driven by [`Event`]s (keys, the judge button, clock ticks) with the
//! current monotonic time passed in, and asks the world for everything else
//! through [`Station`]. Typed events in, typed state out: no Slint, no GPIO,
//! no files, and no wording — a hint is an [`EntryHint`], not a sentence, so
//! [`super::view`] is the one place that decides what a player reads. The
//! tests drive it with a fake clock and [`super::fake::FakeStation`].

use super::station::{
    AdjudicateError, PinGuard, DirectorEvent, ImportRow, ImportState, Judged, LexiconChoice, LexiconView, PinCheck,
    ProfileChoice, Setting, SettingsError, Station, StickChoice, SwitchError, SystemAction, SystemError, UsbError,
    UsbRequest, UsbUpdate, UsbWork,
};
use crate::config::Timeouts;
use crate::judge::{Verdict, MAX_WORDS};
use crate::panel::{Lamps, Trigger};
use crate::word::{MAX_LEN, MIN_LEN};
use std::time::Duration;

/// How long the "3 words" confirmation shows after the count is chosen.
pub const COUNT_CONFIRMATION: Duration = Duration::from_millis(1200);
/// Wrong PINs in a row that lock the prompt.
pub const PIN_ATTEMPTS: u32 = 3;
/// How long the PIN prompt stays locked the first time; each further
/// lockout without a right PIN in between doubles it, up to [`PIN_LOCKOUT_MAX`].
pub const PIN_LOCKOUT: Duration = Duration::from_secs(30);
/// The longest PIN lockout.
pub const PIN_LOCKOUT_MAX: Duration = Duration::from_secs(3600);

/// The `n`-th lockout in a row (1-based): 30 s, 60 s, 120 s, … up to an hour.
pub fn pin_lockout(n: u32) -> Duration {
    PIN_LOCKOUT.saturating_mul(1u32 << n.saturating_sub(1).min(16)).min(PIN_LOCKOUT_MAX)
}
/// Longest PIN the prompt takes.
pub const PIN_MAX_LEN: usize = 12;
/// How often the director menu asks which USB sticks are plugged in.
pub const STICK_CHECK: Duration = Duration::from_secs(1);
/// How long before an idle Entry is cleared its countdown shows. Never
/// less than 5 s: both players may be checking the spelling (NASPA
/// IV.J.1.g–h), and a countdown they cannot react to is no warning.
pub const ENTRY_COUNTDOWN: Duration = Duration::from_secs(10);
/// Most keys remembered as held down (a backend that loses releases must
/// not grow the set without bound).
const MAX_HELD: usize = 16;

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
    fn held_form(self) -> Key {
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
    /// The physical judge button: exactly TAB in Entry, ignored elsewhere.
    JudgeButton,
    /// Time passed (timeouts are checked against `now`).
    Tick,
}

/// What the Ready screen answers a key that is not a word count, or says
/// about the challenge that just ended without a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadyHint {
    /// Only 1 to [`crate::judge::MAX_WORDS`] start a challenge.
    PressCount,
    /// The words were cleared after `seconds` without a key (the countdown
    /// was on screen before); `words` were typed.
    ClearedIdle { seconds: u64, words: usize },
    /// The challenger cancelled the challenge (ESC twice).
    Cancelled,
}

/// The last challenge's number and slip code, on Ready after its verdict
/// (never its words), so the slip can still be copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastSlip {
    pub challenge_number: u64,
    pub slip_code: Option<String>,
    /// When it leaves the Ready screen (`None`: when the next challenge starts).
    until: Option<Duration>,
}

/// What the Entry screen answers the last key or TAB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryHint {
    /// TAB with the wrong number of words typed.
    WordCount { typed: usize, expected: usize },
    /// TAB with a word shorter than [`MIN_LEN`] (1-based index).
    WordTooShort { index: usize },
    /// A letter beyond [`MAX_LEN`].
    WordTooLong,
    /// A key that is not a letter.
    OnlyLetters,
    /// SPACE or ENTER after the last declared word.
    AllTyped { expected: usize },
    /// A letter after the last declared word was finished: refused, never
    /// added to a word. The count can be changed with a number key.
    TooManyWords { expected: usize },
    /// The count was changed with a number key.
    CountChanged { expected: usize },
    /// A count smaller than the words already typed: refused.
    CountBelowTyped { typed: usize, asked: usize },
    /// ESC on an empty word with words typed: ESC again clears them all.
    ConfirmClear { typed: usize },
    /// ESC cleared the word under the cursor (1-based).
    WordCleared { index: usize },
}

impl EntryHint {
    /// Whether the hint refuses a TAB (shown as prominently as the
    /// instruction it answers).
    pub fn refuses_tab(self) -> bool {
        matches!(
            self,
            EntryHint::WordCount { .. }
                | EntryHint::WordTooShort { .. }
                | EntryHint::TooManyWords { .. }
                | EntryHint::CountBelowTyped { .. }
                | EntryHint::ConfirmClear { .. }
        )
    }
}

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
}

/// The Entry screen: the challenger types the declared number of words.
///
/// Invariants (kept by every key): `words` is never empty and never longer
/// than `expected`; its last entry is the word under the cursor; only that
/// one may be empty; `finished` means the cursor is past the last declared
/// word, so a letter there is refused rather than glued onto it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Words the challenger declared (1–8); a number key changes it.
    pub expected: usize,
    /// Words typed so far; the last one is being typed and may be empty.
    pub words: Vec<String>,
    /// SPACE or ENTER finished the last declared word.
    pub finished: bool,
    /// The answer to the last key or TAB.
    pub hint: Option<EntryHint>,
    confirm_until: Duration,
    last_key: Duration,
}

impl Entry {
    /// Words with at least one letter.
    pub fn typed_words(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).filter(|w| !w.is_empty()).collect()
    }
    /// Whether the count confirmation ("3 words") is still showing at `now`.
    pub fn confirming(&self, now: Duration) -> bool {
        now < self.confirm_until
    }
    /// Whether every declared word has letters (the entry is ready to judge
    /// unless a word is too short).
    pub fn complete(&self) -> bool {
        self.typed_words().len() == self.expected
    }
}

/// How long an Entry may stay without a key: longer once every declared
/// word is typed, since the players are then checking the spelling.
fn entry_idle_limit(entry: &Entry, idle: Duration, complete_idle: Duration) -> Duration {
    if entry.complete() {
        complete_idle.max(idle)
    } else {
        idle
    }
}

/// The Verdict screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictScreen {
    pub judged: Judged,
    /// The words judged, as typed (uppercase).
    pub words: Vec<String>,
    shown_at: Duration,
    /// Keys already down when it appeared (the TAB that judged, at least):
    /// they never dismiss it, not even after the guard, until released and
    /// pressed again.
    held_before: Vec<Key>,
}

/// The director PIN prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinPrompt {
    /// Digits typed so far (the screen shows only dots).
    pub typed: String,
    pub message: Option<PinMessage>,
    last_key: Duration,
}

/// An entry of the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuItem {
    UseLexicon(LexiconChoice),
    UseProfile(ProfileChoice),
    ChangePin,
    SetStationName,
    SetClock,
    /// Install word lists from this stick (shown while it is plugged in).
    ImportFromUsb(StickChoice),
    /// Export the audit log to this stick.
    ExportToUsb(StickChoice),
    Reboot,
    PowerOff,
    Quit,
    Leave,
}

/// The director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectorMenu {
    pub items: Vec<MenuItem>,
    pub selected: usize,
    /// An action waiting for a second ENTER.
    pub confirming: Option<usize>,
    pub message: Option<MenuMessage>,
    last_key: Duration,
}

/// What is on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// Waiting for a count. The last challenge's slip, if still shown, is
    /// [`Kiosk::last_slip`].
    Ready { hint: Option<ReadyHint> },
    Entry(Entry),
    Verdict(VerdictScreen),
    OutOfService,
    Pin(PinPrompt),
    Director(DirectorMenu),
    /// A station setting being typed (from the director menu).
    Edit(EditPrompt),
    /// Working with a USB stick (from the director menu).
    Usb(UsbScreen),
}

/// Where a USB screen is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbPhase {
    /// Work is running in the background; keys wait.
    Working(UsbWork),
    /// The stick is open: its word lists, to install one by one.
    List,
    /// Finished: the outcome, until any key returns to the menu.
    Done(UsbDone),
}

/// How USB work ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbDone {
    /// Unmounted: the stick may be removed. How many lists were installed.
    Ejected { installed: usize },
    /// The log is on the stick, which was unmounted.
    Exported { folder: String, lines: usize, intact: bool, signed: bool },
    /// It failed; nothing was installed, the log is unchanged.
    Failed { work: UsbWork, problem: String },
}

/// The answer to the last key on the list of word lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbMessage {
    /// ENTER again installs this row.
    ConfirmInstall,
    Installed { lexicon: String, status: String },
    InstallRefused(String),
    /// The row has no lexicon name yet: choose one with LEFT and RIGHT.
    NeedsName,
    /// The list is not the lexicon it is named as: it is never installed.
    WillNotInstall { name: String },
    /// The file cannot be used at all.
    Unusable,
    AlreadyInstalled,
    Refused(UsbError),
}

/// A stick opened from the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsbScreen {
    pub stick: StickChoice,
    /// Export (true) or import.
    pub export: bool,
    pub phase: UsbPhase,
    pub rows: Vec<ImportRow>,
    /// `.txt` files on the stick not looked at (too many).
    pub left_out: usize,
    /// The row under the cursor; `rows.len()` is the last row, "unmount".
    pub selected: usize,
    pub confirming: Option<usize>,
    pub message: Option<UsbMessage>,
    menu_selected: usize,
    last_key: Duration,
}

impl UsbScreen {
    /// Rows installed so far.
    pub fn installed(&self) -> usize {
        self.rows.iter().filter(|r| matches!(r.state, ImportState::Installed { .. })).count()
    }
}

/// Which setting an [`EditPrompt`] changes, and how far it has got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditField {
    /// The director PIN: the old one, the new one, the new one again.
    /// `first`: a station with no PIN yet (first boot): no old one, and
    /// the new one opens the menu.
    Pin { step: PinStep, old: String, new: String, first: bool },
    StationName,
    /// The local date and time, `YYYY-MM-DD HH:MM`.
    Clock,
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
    /// The station refused the value (old PIN wrong, bad date…).
    Refused(SettingsError),
}

/// A setting being typed. The director menu is kept to return to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPrompt {
    pub field: EditField,
    pub typed: String,
    pub message: Option<EditMessage>,
    /// The menu item to keep selected on return.
    menu_selected: usize,
    last_key: Duration,
}

impl EditPrompt {
    /// Most characters the field takes.
    pub fn max_len(&self) -> usize {
        match self.field {
            EditField::Pin { .. } => PIN_MAX_LEN,
            EditField::StationName => crate::config::MAX_STATION_NAME,
            EditField::Clock => "YYYY-MM-DD HH:MM".len(),
        }
    }
    fn accepts(&self, c: char) -> bool {
        match self.field {
            EditField::Pin { .. } => c.is_ascii_digit(),
            EditField::StationName => !c.is_control() && c != '\u{7f}',
            EditField::Clock => c.is_ascii_digit() || matches!(c, '-' | ':' | ' '),
        }
    }
}

/// The kiosk's state.
#[derive(Debug, Clone)]
pub struct Kiosk {
    screen: Screen,
    lexicon: LexiconView,
    entry_idle: Duration,
    entry_complete_idle: Duration,
    last_slip_time: Duration,
    last_slip: Option<LastSlip>,
    /// Keys down now (fresh presses not yet released), as [`Key::held_form`].
    held: Vec<Key>,
    verdict_guard: Duration,
    verdict_time: Duration,
    director_idle: Duration,
    pin_failures: u32,
    /// Lockouts in a row since the last right PIN (the next one is longer).
    pin_lockouts: u32,
    pin_locked_until: Option<Duration>,
    /// A lockout the station remembered from before this process: how much
    /// of it is left, placed on the clock at the first event.
    pin_lock_pending: Option<Duration>,
    quit: bool,
    last_stick_check: Duration,
}

fn seconds(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(Duration::ZERO)
}

impl Kiosk {
    /// Starts on Ready, or Out of service when the active lexicon cannot judge.
    pub fn new(station: &dyn Station, timeouts: &Timeouts) -> Kiosk {
        let mut kiosk = Kiosk {
            screen: Screen::OutOfService,
            lexicon: station.lexicon(),
            entry_idle: seconds(timeouts.entry_idle_seconds),
            entry_complete_idle: seconds(timeouts.entry_complete_idle_seconds),
            last_slip_time: seconds(timeouts.last_slip_seconds),
            last_slip: None,
            held: Vec::new(),
            verdict_guard: seconds(timeouts.verdict_guard_seconds),
            verdict_time: seconds(timeouts.verdict_seconds),
            director_idle: seconds(timeouts.director_idle_seconds),
            pin_failures: 0,
            pin_lockouts: 0,
            pin_locked_until: None,
            pin_lock_pending: None,
            quit: false,
            last_stick_check: Duration::ZERO,
        };
        // Wrong PINs and lockouts survive a restart: pulling the plug does
        // not buy an attacker new attempts.
        let guard = station.pin_guard();
        kiosk.pin_failures = guard.failures;
        kiosk.pin_lockouts = guard.lockouts;
        kiosk.pin_lock_pending = (!guard.locked_for.is_zero()).then_some(guard.locked_for);
        kiosk.go_home();
        kiosk
    }

    fn save_pin_guard(&self, now: Duration, station: &mut dyn Station) {
        let locked_for = self.pin_locked_until.map_or(Duration::ZERO, |until| until.saturating_sub(now));
        station.save_pin_guard(PinGuard { failures: self.pin_failures, lockouts: self.pin_lockouts, locked_for });
    }

    pub fn screen(&self) -> &Screen {
        &self.screen
    }
    /// The active lexicon as last seen.
    pub fn lexicon(&self) -> &LexiconView {
        &self.lexicon
    }
    /// True once the director chose Quit (and the config allowed it).
    pub fn quit_requested(&self) -> bool {
        self.quit
    }
    /// The last challenge's number and code while Ready still shows them.
    pub fn last_slip(&self) -> Option<&LastSlip> {
        self.last_slip.as_ref()
    }
    /// When an idle Entry will be cleared, if Entry is up.
    pub fn entry_clears_at(&self) -> Option<Duration> {
        match &self.screen {
            Screen::Entry(e) => Some(e.last_key + entry_idle_limit(e, self.entry_idle, self.entry_complete_idle)),
            _ => None,
        }
    }
    /// The seconds left on the Entry countdown at `now`, while it shows
    /// (the last [`ENTRY_COUNTDOWN`] before the words are cleared).
    pub fn entry_countdown(&self, now: Duration) -> Option<u64> {
        let clears_at = self.entry_clears_at()?;
        let left = clears_at.checked_sub(now)?;
        (left <= ENTRY_COUNTDOWN).then(|| left.as_secs() + u64::from(left.subsec_nanos() > 0))
    }
    /// When the PIN prompt unlocks, if it is locked at `now`.
    pub fn pin_locked_until(&self, now: Duration) -> Option<Duration> {
        self.pin_locked_until.filter(|&t| now < t)
    }

    /// The lamps for the current screen: green or red while a verdict shows,
    /// the service lamp while out of service or while the station has a
    /// warning (e.g. the audit log is failing).
    pub fn lamps(&self, station_has_warnings: bool) -> Lamps {
        match &self.screen {
            Screen::Verdict(v) => Lamps {
                green: v.judged.verdict == Verdict::Acceptable,
                red: v.judged.verdict == Verdict::Unacceptable,
                service: station_has_warnings,
            },
            Screen::OutOfService => Lamps { service: true, ..Lamps::default() },
            _ => Lamps { service: station_has_warnings || !self.lexicon.usable, ..Lamps::default() },
        }
    }

    fn go_home(&mut self) {
        self.screen = if self.lexicon.usable { Screen::Ready { hint: None } } else { Screen::OutOfService };
    }

    /// Handles one event at monotonic time `now`.
    pub fn handle(&mut self, event: Event, now: Duration, station: &mut dyn Station) {
        if let Some(left) = self.pin_lock_pending.take() {
            self.pin_locked_until = Some(now + left);
        }
        if let Some(until) = self.pin_locked_until {
            if now >= until {
                self.pin_locked_until = None;
                self.pin_failures = 0;
            }
        }
        match event {
            Event::Tick => self.tick(now, station),
            Event::JudgeButton => {
                // The button is TAB in Entry and nothing anywhere else.
                if matches!(self.screen, Screen::Entry(_)) {
                    self.entry_key(Key::Tab, Trigger::Button, now, station);
                }
            }
            Event::Key(key) => {
                let held = key.held_form();
                if !self.held.contains(&held) {
                    if self.held.len() >= MAX_HELD {
                        self.held.remove(0);
                    }
                    self.held.push(held);
                }
                self.key(key, now, station)
            }
            Event::Repeat(_) => self.touch(now),
            Event::Release(key) => {
                let held = key.held_form();
                self.held.retain(|k| *k != held);
                if let Screen::Verdict(v) = &mut self.screen {
                    v.held_before.retain(|k| *k != held);
                }
            }
        }
    }

    /// A held key says someone is at the keyboard: the idle clocks restart,
    /// and nothing else happens.
    fn touch(&mut self, now: Duration) {
        match &mut self.screen {
            Screen::Entry(e) => e.last_key = now,
            Screen::Pin(p) => p.last_key = now,
            Screen::Director(d) => d.last_key = now,
            Screen::Edit(e) => e.last_key = now,
            Screen::Usb(u) if u.phase == UsbPhase::List => u.last_key = now,
            _ => {}
        }
    }

    fn tick(&mut self, now: Duration, station: &mut dyn Station) {
        // Finished USB work: applied on its screen, dropped anywhere else
        // (the station has recorded it; a stale answer must never reach the
        // next screen that waits for one).
        if let Some(update) = station.usb_update() {
            self.usb_update(update, now);
        }
        if matches!(self.screen, Screen::Director(_)) && now >= self.last_stick_check + STICK_CHECK {
            self.last_stick_check = now;
            self.refresh_sticks(now, station);
        }
        if let Screen::Usb(usb) = &self.screen {
            if usb.phase == UsbPhase::List && now >= usb.last_key + self.director_idle {
                // Never leave a stick mounted behind an idle screen.
                let _ = station.usb_request(UsbRequest::Eject);
            }
        }
        if self.last_slip.as_ref().and_then(|s| s.until).is_some_and(|until| now >= until) {
            self.last_slip = None;
        }
        if let Screen::Entry(e) = &self.screen {
            let limit = entry_idle_limit(e, self.entry_idle, self.entry_complete_idle);
            if now >= e.last_key + limit {
                let hint = ReadyHint::ClearedIdle { seconds: limit.as_secs(), words: e.typed_words().len() };
                self.go_home();
                if let Screen::Ready { hint: shown } = &mut self.screen {
                    *shown = Some(hint);
                }
                return;
            }
        }
        let expired = match &self.screen {
            Screen::Entry(_) => false,
            Screen::Verdict(v) => now >= v.shown_at + self.verdict_time,
            Screen::Pin(p) => now >= p.last_key + self.director_idle,
            Screen::Director(d) => now >= d.last_key + self.director_idle,
            Screen::Edit(e) => now >= e.last_key + self.director_idle,
            Screen::Usb(u) => !matches!(u.phase, UsbPhase::Working(_)) && now >= u.last_key + self.director_idle,
            Screen::Ready { .. } | Screen::OutOfService => false,
        };
        if expired {
            self.leave_screen(now);
        }
    }

    /// Goes home from the current screen; a verdict leaves its slip on Ready.
    fn leave_screen(&mut self, now: Duration) {
        if let Screen::Verdict(v) = &self.screen {
            self.last_slip = Some(LastSlip {
                challenge_number: v.judged.challenge_number,
                slip_code: Some(v.judged.slip_code.clone()).filter(|c| !c.is_empty()),
                until: (!self.last_slip_time.is_zero()).then(|| now + self.last_slip_time),
            });
        }
        self.go_home();
    }

    fn key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        match &mut self.screen {
            Screen::Ready { hint } => match key {
                Key::Char(c) if c.to_digit(10).is_some_and(|d| (1..=MAX_WORDS as u32).contains(&d)) => {
                    let expected = c.to_digit(10).unwrap_or(1) as usize;
                    // A new challenge: the last one's slip leaves the screen.
                    self.last_slip = None;
                    self.screen = Screen::Entry(Entry {
                        expected,
                        words: vec![String::new()],
                        finished: false,
                        hint: None,
                        confirm_until: now + COUNT_CONFIRMATION,
                        last_key: now,
                    });
                }
                Key::DirectorChord => self.open_pin(now, station),
                _ => *hint = Some(ReadyHint::PressCount),
            },
            Screen::OutOfService => {
                if key == Key::DirectorChord {
                    self.open_pin(now, station);
                }
            }
            Screen::Entry(_) => self.entry_key(key, Trigger::Keyboard, now, station),
            Screen::Verdict(v) => {
                // Only a deliberate fresh press of ENTER, ESC or SPACE,
                // after the guard, of a key that was not already down when
                // the verdict appeared.
                let fresh = !v.held_before.contains(&key.held_form());
                if key.dismisses_verdict() && fresh && now >= v.shown_at + self.verdict_guard {
                    self.leave_screen(now);
                }
            }
            Screen::Pin(_) => self.pin_key(key, now, station),
            Screen::Director(_) => self.director_key(key, now, station),
            Screen::Edit(_) => self.edit_key(key, now, station),
            Screen::Usb(_) => self.usb_key(key, now, station),
        }
    }

    fn entry_key(&mut self, key: Key, trigger: Trigger, now: Duration, station: &mut dyn Station) {
        let Screen::Entry(entry) = &mut self.screen else { return };
        entry.last_key = now;
        // ESC asks before clearing every word; any other key takes the question back.
        let asked_to_clear = matches!(entry.hint, Some(EntryHint::ConfirmClear { .. }));
        entry.hint = None;
        let current = entry.words.len() - 1;
        match key {
            Key::Char(c) if c.is_ascii_alphabetic() => {
                if entry.finished {
                    // Never glued onto the last word: the count says how
                    // many words this challenge has.
                    entry.hint = Some(EntryHint::TooManyWords { expected: entry.expected });
                } else if entry.words[current].len() >= MAX_LEN {
                    entry.hint = Some(EntryHint::WordTooLong);
                } else {
                    entry.words[current].push(c.to_ascii_uppercase());
                }
            }
            Key::Char(c) if c.is_ascii_digit() => {
                let asked = c.to_digit(10).unwrap_or(0) as usize;
                let typed = entry.typed_words().len();
                if !(1..=MAX_WORDS).contains(&asked) {
                    entry.hint = Some(EntryHint::OnlyLetters);
                } else if asked < typed {
                    entry.hint = Some(EntryHint::CountBelowTyped { typed, asked });
                } else {
                    entry.expected = asked;
                    if entry.words.len() > asked {
                        // Only an empty word under the cursor can be beyond
                        // the new count: the last typed word is now the last.
                        entry.words.pop();
                        entry.finished = true;
                    } else if entry.finished && entry.words.len() < asked {
                        entry.words.push(String::new());
                        entry.finished = false;
                    }
                    entry.confirm_until = now + COUNT_CONFIRMATION;
                    entry.hint = Some(EntryHint::CountChanged { expected: asked });
                }
            }
            Key::Char(' ') | Key::Enter => {
                if entry.words[current].is_empty() {
                    // Nothing to finish: a double space does not make an empty word.
                } else if entry.words.len() < entry.expected {
                    entry.words.push(String::new());
                } else {
                    entry.finished = true;
                    entry.hint = Some(EntryHint::AllTyped { expected: entry.expected });
                }
            }
            Key::Backspace => {
                if entry.finished {
                    // Takes back the SPACE after the last word.
                    entry.finished = false;
                } else if !entry.words[current].is_empty() {
                    entry.words[current].pop();
                } else if current > 0 {
                    entry.words.pop();
                }
            }
            Key::Escape => {
                if entry.finished || !entry.words[current].is_empty() {
                    // The word under the cursor (the last one, once finished).
                    entry.words[current].clear();
                    entry.finished = false;
                    entry.hint = Some(EntryHint::WordCleared { index: current + 1 });
                } else if entry.typed_words().is_empty() {
                    self.go_home();
                } else if asked_to_clear {
                    self.go_home();
                    if let Screen::Ready { hint } = &mut self.screen {
                        *hint = Some(ReadyHint::Cancelled);
                    }
                } else {
                    entry.hint = Some(EntryHint::ConfirmClear { typed: entry.typed_words().len() });
                }
            }
            Key::Tab => {
                let typed = entry.typed_words().len();
                let short = entry.words.iter().position(|w| !w.is_empty() && w.len() < MIN_LEN);
                if typed != entry.expected {
                    entry.hint = Some(EntryHint::WordCount { typed, expected: entry.expected });
                } else if let Some(index) = short {
                    entry.hint = Some(EntryHint::WordTooShort { index: index + 1 });
                } else {
                    let words: Vec<String> = entry.typed_words().iter().map(|w| w.to_string()).collect();
                    match station.adjudicate(&words, trigger) {
                        Ok(judged) => {
                            let held_before = self.held.clone();
                            self.screen = Screen::Verdict(VerdictScreen { judged, words, shown_at: now, held_before })
                        }
                        // The flow and the judge disagree about a word: keep
                        // the entry, say what the rule is; nothing was judged.
                        Err(AdjudicateError::BadChallenge(_)) => {
                            entry.hint = Some(EntryHint::OnlyLetters);
                        }
                        // No lexicon, or a fault: out of service until the
                        // director acts. The station has recorded why.
                        Err(AdjudicateError::NoUsableLexicon | AdjudicateError::Fault(_)) => self.out_of_service(station),
                    }
                }
            }
            Key::Char(_) => entry.hint = Some(EntryHint::OnlyLetters),
            Key::Up | Key::Down | Key::Left | Key::Right | Key::DirectorChord | Key::Other => {}
        }
    }

    /// The director chord: the PIN prompt, or on a station that has never
    /// had a PIN (first boot) the prompt that sets one.
    fn open_pin(&mut self, now: Duration, station: &dyn Station) {
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

    fn pin_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
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
                match station.check_pin(&pin) {
                    PinCheck::Accepted => {
                        self.pin_failures = 0;
                        self.pin_lockouts = 0;
                        self.save_pin_guard(now, station);
                        station.director_event(DirectorEvent::PinAccepted);
                        self.open_director(now, station, None, None);
                    }
                    PinCheck::NotSet => prompt.message = Some(PinMessage::NotSet),
                    PinCheck::Refused => {
                        self.pin_failures += 1;
                        station.director_event(DirectorEvent::PinRefused { failures: self.pin_failures });
                        if self.pin_failures >= PIN_ATTEMPTS {
                            self.pin_lockouts += 1;
                            let lockout = pin_lockout(self.pin_lockouts);
                            self.pin_locked_until = Some(now + lockout);
                            station.director_event(DirectorEvent::LockedOut { seconds: lockout.as_secs() as u32 });
                            prompt.message = None;
                        } else {
                            prompt.message = Some(PinMessage::Wrong { attempts_left: PIN_ATTEMPTS - self.pin_failures });
                        }
                        self.save_pin_guard(now, station);
                    }
                }
            }
            _ => prompt.message = Some(PinMessage::DigitsOnly),
        }
    }

    /// Opens the director menu. `keep` is the item to keep selected (the
    /// director's cursor stays where it was after a switch); on first
    /// opening the active lexicon is selected.
    fn open_director(&mut self, now: Duration, station: &mut dyn Station, message: Option<MenuMessage>, keep: Option<usize>) {
        // A plugged-in stick comes first: the director plugged it in for it.
        self.last_stick_check = now;
        let mut items: Vec<MenuItem> = Vec::new();
        for stick in station.sticks() {
            items.push(MenuItem::ImportFromUsb(stick.clone()));
            items.push(MenuItem::ExportToUsb(stick));
        }
        let lexicons = station.lexicon_choices();
        let profiles = station.profile_choices(&lexicons);
        items.extend(lexicons.into_iter().map(MenuItem::UseLexicon));
        items.extend(profiles.into_iter().map(MenuItem::UseProfile));
        items.extend([MenuItem::ChangePin, MenuItem::SetStationName, MenuItem::SetClock]);
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

    fn director_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
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
                item @ (MenuItem::ImportFromUsb(_) | MenuItem::ExportToUsb(_)) => {
                    let (stick, export) = match item {
                        MenuItem::ExportToUsb(stick) => (stick, true),
                        MenuItem::ImportFromUsb(stick) => (stick, false),
                        _ => return,
                    };
                    let (request, work) = if export {
                        (UsbRequest::Export { device: stick.device.clone() }, UsbWork::Exporting)
                    } else {
                        (UsbRequest::OpenForImport { device: stick.device.clone() }, UsbWork::Reading)
                    };
                    match station.usb_request(request) {
                        Ok(()) => {
                            self.screen = Screen::Usb(UsbScreen {
                                stick,
                                export,
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

    fn edit_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Edit(edit) = &mut self.screen else { return };
        edit.last_key = now;
        match key {
            Key::Escape => {
                if matches!(edit.field, EditField::Pin { first: true, .. }) {
                    // No menu behind a first PIN: it was never opened.
                    return self.go_home();
                }
                let keep = edit.menu_selected;
                self.open_director(now, station, None, Some(keep));
            }
            Key::Backspace => {
                edit.typed.pop();
                edit.message = None;
            }
            Key::Char(c) if edit.accepts(c) => {
                if edit.typed.chars().count() < edit.max_len() {
                    edit.typed.push(c);
                }
                edit.message = None;
            }
            Key::Char(_) => edit.message = Some(EditMessage::KeyNotAllowed),
            Key::Enter => {
                let typed = std::mem::take(&mut edit.typed);
                let keep = edit.menu_selected;
                let result = match &mut edit.field {
                    EditField::Pin { step: step @ PinStep::Old, old, .. } => {
                        *old = typed;
                        *step = PinStep::New;
                        return;
                    }
                    EditField::Pin { step: step @ PinStep::New, new, .. } => {
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
                        if *first {
                            match station.set_first_pin(new) {
                                Ok(()) => {
                                    station.director_event(DirectorEvent::PinAccepted);
                                    return self.open_director(now, station, Some(MenuMessage::Saved(Setting::Pin)), None);
                                }
                                Err(error) => {
                                    *step = PinStep::New;
                                    new.clear();
                                    edit.message = Some(EditMessage::Refused(error));
                                    return;
                                }
                            }
                        }
                        station.change_pin(old, new).map(|()| Setting::Pin)
                    }
                    EditField::StationName => station.set_station_name(typed.trim()).map(|()| Setting::StationName),
                    EditField::Clock => station.set_clock(typed.trim()).map(|()| Setting::Clock),
                };
                match result {
                    Ok(setting) => self.open_director(now, station, Some(MenuMessage::Saved(setting)), Some(keep)),
                    Err(error) => {
                        // A wrong old PIN starts the change again from the old PIN.
                        if let EditField::Pin { step, old, new, .. } = &mut edit.field {
                            *step = PinStep::Old;
                            old.clear();
                            new.clear();
                        }
                        edit.message = Some(EditMessage::Refused(error));
                    }
                }
            }
            _ => {}
        }
    }

    /// Rebuilds the director menu when the sticks plugged in changed,
    /// keeping the cursor on the item it was on (or where it was).
    fn refresh_sticks(&mut self, now: Duration, station: &mut dyn Station) {
        let Screen::Director(menu) = &self.screen else { return };
        let shown: Vec<&StickChoice> = menu
            .items
            .iter()
            .filter_map(|i| match i {
                MenuItem::ImportFromUsb(s) => Some(s),
                _ => None,
            })
            .collect();
        let plugged = station.sticks();
        if plugged.iter().eq(shown.iter().copied()) {
            return;
        }
        let (selected_item, selected, message, last_key) =
            (menu.items[menu.selected].clone(), menu.selected, menu.message.clone(), menu.last_key);
        let stick_rows = |items: &[MenuItem]| {
            items.iter().filter(|i| matches!(i, MenuItem::ImportFromUsb(_) | MenuItem::ExportToUsb(_))).count()
        };
        let before = stick_rows(&menu.items);
        self.open_director(now, station, message, None);
        if let Screen::Director(menu) = &mut self.screen {
            let after = stick_rows(&menu.items);
            menu.last_key = last_key;
            menu.selected = match menu.items.iter().position(|i| *i == selected_item) {
                Some(index) => index,
                None => (selected + after).saturating_sub(before).min(menu.items.len() - 1),
            };
        }
    }

    fn usb_update(&mut self, update: UsbUpdate, now: Duration) {
        let Screen::Usb(usb) = &mut self.screen else { return };
        if !matches!(usb.phase, UsbPhase::Working(_)) {
            return;
        }
        // The director's idle time counts from when the answer is shown.
        usb.last_key = now;
        let installed = usb.installed();
        match update {
            UsbUpdate::ImportList { rows, left_out } => {
                usb.rows = rows;
                usb.left_out = left_out;
                usb.selected = 0;
                usb.phase = UsbPhase::List;
            }
            UsbUpdate::Row { index, row } => {
                if let ImportState::Installed { lexicon, status } = &row.state {
                    usb.message = Some(UsbMessage::Installed { lexicon: lexicon.clone(), status: status.clone() });
                }
                if let Some(slot) = usb.rows.get_mut(index) {
                    *slot = row;
                }
                usb.phase = UsbPhase::List;
            }
            UsbUpdate::InstallRefused { reason, .. } => {
                usb.message = Some(UsbMessage::InstallRefused(reason));
                usb.phase = UsbPhase::List;
            }
            UsbUpdate::Ejected => usb.phase = UsbPhase::Done(UsbDone::Ejected { installed }),
            UsbUpdate::Exported { folder, lines, intact, signed } => {
                usb.phase = UsbPhase::Done(UsbDone::Exported { folder, lines, intact, signed })
            }
            UsbUpdate::Failed { work, problem } => usb.phase = UsbPhase::Done(UsbDone::Failed { work, problem }),
        }
    }

    fn usb_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Usb(usb) = &mut self.screen else { return };
        match &usb.phase {
            // The stick is being read or written: keys wait (the work has
            // its own time limits; a stick pulled out ends it).
            UsbPhase::Working(_) => return,
            UsbPhase::Done(_) => {
                let keep = usb.menu_selected;
                return self.open_director(now, station, None, Some(keep));
            }
            UsbPhase::List => {}
        }
        usb.last_key = now;
        let eject_row = usb.rows.len();
        let mut request = None;
        match key {
            Key::Up => {
                usb.selected = usb.selected.saturating_sub(1);
                usb.confirming = None;
                usb.message = None;
            }
            Key::Down | Key::Tab => {
                usb.selected = (usb.selected + 1).min(eject_row);
                usb.confirming = None;
                usb.message = None;
            }
            Key::Escape => request = Some((UsbRequest::Eject, UsbWork::Ejecting)),
            Key::Enter if usb.selected == eject_row => request = Some((UsbRequest::Eject, UsbWork::Ejecting)),
            Key::Left | Key::Right if usb.selected < eject_row => {
                let row = &usb.rows[usb.selected];
                if matches!(row.state, ImportState::Installed { .. } | ImportState::Unusable(_)) {
                    return;
                }
                // Cycle through "no name" and every catalogue name.
                let mut names: Vec<Option<String>> = vec![None];
                names.extend(station.import_names().into_iter().map(Some));
                let at = names.iter().position(|n| *n == row.name).unwrap_or(0);
                let next = if key == Key::Right { (at + 1) % names.len() } else { (at + names.len() - 1) % names.len() };
                usb.confirming = None;
                usb.message = None;
                request = Some((UsbRequest::Rename { file: usb.selected, name: names[next].clone() }, UsbWork::Reading));
            }
            Key::Enter => {
                let index = usb.selected;
                usb.message = match &usb.rows[index].state {
                    ImportState::Would { installable: true, .. } if usb.confirming == Some(index) => {
                        usb.confirming = None;
                        request = Some((UsbRequest::Install { file: index }, UsbWork::Installing));
                        None
                    }
                    ImportState::Would { installable: true, .. } => {
                        usb.confirming = Some(index);
                        Some(UsbMessage::ConfirmInstall)
                    }
                    ImportState::Would { .. } => {
                        Some(UsbMessage::WillNotInstall { name: usb.rows[index].name.clone().unwrap_or_default() })
                    }
                    ImportState::Unnamed { .. } => Some(UsbMessage::NeedsName),
                    ImportState::Unusable(_) => Some(UsbMessage::Unusable),
                    ImportState::Installed { .. } => Some(UsbMessage::AlreadyInstalled),
                };
            }
            _ => {}
        }
        if let Some((request, work)) = request {
            match station.usb_request(request) {
                Ok(()) => usb.phase = UsbPhase::Working(work),
                Err(e) => usb.message = Some(UsbMessage::Refused(e)),
            }
        }
    }

    /// Takes the station out of service after a failed adjudication or a
    /// fault: the lexicon is asked again (the station knows why), and the
    /// flow will not judge until it says it may.
    fn out_of_service(&mut self, station: &dyn Station) {
        self.lexicon = station.lexicon();
        self.lexicon.usable = false;
        self.screen = Screen::OutOfService;
    }

    /// The station failed in a way the flow did not see coming (a caught
    /// panic at the kiosk's boundary): out of service, never a black screen.
    pub fn fault(&mut self, station: &dyn Station) {
        self.out_of_service(station);
    }

    /// The station's lexicon may have changed (a periodic poll): take the new
    /// view; leave Entry and Verdict alone unless it can no longer judge.
    pub fn refresh_lexicon(&mut self, station: &dyn Station) {
        let lexicon = station.lexicon();
        if lexicon == self.lexicon {
            return;
        }
        self.lexicon = lexicon;
        match (&self.screen, self.lexicon.usable) {
            (Screen::Ready { .. } | Screen::Entry(_), false) => self.screen = Screen::OutOfService,
            (Screen::OutOfService, true) => self.go_home(),
            _ => {}
        }
    }
}
