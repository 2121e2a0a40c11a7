//! The self-lookup flow as a plain state machine: Ready → Entry → Verdict,
//! Out of service, and the director's PIN prompt and menu.
//!
//! It is driven by [`Event`]s (keys, the judge button, clock ticks) with the
//! current monotonic time passed in, and asks the world for everything else
//! through [`Station`]. No Slint, no GPIO, no files: the tests drive it with a
//! fake clock and a fake station, and the UI only shows [`Kiosk::screen`].

use super::station::{DirectorEvent, Judged, LexiconChoice, LexiconView, PinCheck, Station, SystemAction};
use crate::panel::Trigger;
use crate::config::Timeouts;
use crate::panel::Lamps;
use crate::judge::{Verdict, MAX_WORDS};
use crate::word::{MAX_LEN, MIN_LEN};
use std::time::Duration;

/// How long the "3 words" confirmation shows after the count is chosen.
pub const COUNT_CONFIRMATION: Duration = Duration::from_millis(1200);
/// Wrong PINs in a row that lock the prompt.
pub const PIN_ATTEMPTS: u32 = 3;
/// How long the PIN prompt stays locked.
pub const PIN_LOCKOUT: Duration = Duration::from_secs(30);
/// Longest PIN the prompt takes.
pub const PIN_MAX_LEN: usize = 12;

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
    /// The director chord, Ctrl+Alt+Shift+D: opens the PIN prompt from Ready
    /// or Out of service.
    DirectorChord,
    /// Any other key (function keys, modifiers with letters, …): ignored.
    Other,
}

/// Something that happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Key(Key),
    /// The physical judge button: exactly TAB in Entry, ignored elsewhere.
    JudgeButton,
    /// Time passed (timeouts are checked against `now`).
    Tick,
}

/// The Entry screen: the challenger types the declared number of words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Words the challenger declared (1–8).
    pub expected: usize,
    /// Words typed so far; the last one is being typed and may be empty.
    pub words: Vec<String>,
    /// A message about the last key or TAB ("2 of 3 words typed").
    pub hint: Option<String>,
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
}

/// The Verdict screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictScreen {
    pub judged: Judged,
    /// The words judged, as typed (uppercase).
    pub words: Vec<String>,
    shown_at: Duration,
}

/// The director PIN prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinPrompt {
    /// Digits typed so far (the screen shows only dots).
    pub typed: String,
    pub message: Option<String>,
    last_key: Duration,
}

/// An entry of the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuItem {
    UseLexicon(LexiconChoice),
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
    pub message: Option<String>,
    last_key: Duration,
}

/// What is on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    Ready { hint: Option<String> },
    Entry(Entry),
    Verdict(VerdictScreen),
    OutOfService,
    Pin(PinPrompt),
    Director(DirectorMenu),
}

/// The kiosk's state.
#[derive(Debug, Clone)]
pub struct Kiosk {
    screen: Screen,
    lexicon: LexiconView,
    entry_idle: Duration,
    verdict_guard: Duration,
    verdict_time: Duration,
    director_idle: Duration,
    pin_failures: u32,
    pin_locked_until: Option<Duration>,
    quit: bool,
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
            verdict_guard: seconds(timeouts.verdict_guard_seconds),
            verdict_time: seconds(timeouts.verdict_seconds),
            director_idle: seconds(timeouts.director_idle_seconds),
            pin_failures: 0,
            pin_locked_until: None,
            quit: false,
        };
        kiosk.go_home();
        kiosk
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
        if let Some(until) = self.pin_locked_until {
            if now >= until {
                self.pin_locked_until = None;
                self.pin_failures = 0;
            }
        }
        match event {
            Event::Tick => self.tick(now),
            Event::JudgeButton => {
                // The button is TAB in Entry and nothing anywhere else.
                if matches!(self.screen, Screen::Entry(_)) {
                    self.entry_key(Key::Tab, Trigger::Button, now, station);
                }
            }
            Event::Key(key) => self.key(key, now, station),
        }
    }

    fn tick(&mut self, now: Duration) {
        let expired = match &self.screen {
            Screen::Entry(e) => now >= e.last_key + self.entry_idle,
            Screen::Verdict(v) => now >= v.shown_at + self.verdict_time,
            Screen::Pin(p) => now >= p.last_key + self.director_idle,
            Screen::Director(d) => now >= d.last_key + self.director_idle,
            Screen::Ready { .. } | Screen::OutOfService => false,
        };
        if expired {
            self.go_home();
        }
    }

    fn key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        match &mut self.screen {
            Screen::Ready { hint } => match key {
                Key::Char(c @ '1'..='8') => {
                    let expected = c as usize - '0' as usize;
                    self.screen = Screen::Entry(Entry {
                        expected,
                        words: vec![String::new()],
                        hint: None,
                        confirm_until: now + COUNT_CONFIRMATION,
                        last_key: now,
                    });
                }
                Key::DirectorChord => self.open_pin(now),
                _ => *hint = Some(format!("Press a number from 1 to {MAX_WORDS}: how many words are you challenging?")),
            },
            Screen::OutOfService => {
                if key == Key::DirectorChord {
                    self.open_pin(now);
                }
            }
            Screen::Entry(_) => self.entry_key(key, Trigger::Keyboard, now, station),
            Screen::Verdict(v) => {
                if now >= v.shown_at + self.verdict_guard {
                    self.go_home();
                }
            }
            Screen::Pin(_) => self.pin_key(key, now, station),
            Screen::Director(_) => self.director_key(key, now, station),
        }
    }

    fn entry_key(&mut self, key: Key, trigger: Trigger, now: Duration, station: &mut dyn Station) {
        let Screen::Entry(entry) = &mut self.screen else { return };
        entry.last_key = now;
        entry.hint = None;
        let current = entry.words.len() - 1;
        match key {
            Key::Char(c) if c.is_ascii_alphabetic() => {
                if entry.words[current].len() >= MAX_LEN {
                    entry.hint = Some(format!("A word has at most {MAX_LEN} letters."));
                } else {
                    entry.words[current].push(c.to_ascii_uppercase());
                }
            }
            Key::Char(' ') | Key::Enter => {
                if entry.words[current].is_empty() {
                    // Nothing to finish: a double space does not make an empty word.
                } else if entry.words.len() < entry.expected {
                    entry.words.push(String::new());
                } else {
                    entry.hint = Some(format!(
                        "All {} word{} typed. CHALLENGED PLAYER: press TAB to judge.",
                        entry.expected,
                        plural(entry.expected)
                    ));
                }
            }
            Key::Backspace => {
                if !entry.words[current].is_empty() {
                    entry.words[current].pop();
                } else if current > 0 {
                    entry.words.pop();
                }
            }
            Key::Escape => {
                if entry.words.iter().all(String::is_empty) {
                    self.go_home();
                } else {
                    entry.words = vec![String::new()];
                }
            }
            Key::Tab => {
                let typed = entry.typed_words().len();
                let short = entry.words.iter().position(|w| !w.is_empty() && w.len() < MIN_LEN);
                if typed != entry.expected {
                    entry.hint = Some(format!("{typed} of {} word{} typed.", entry.expected, plural(entry.expected)));
                } else if let Some(index) = short {
                    entry.hint = Some(format!("Word {} needs at least {MIN_LEN} letters.", index + 1));
                } else {
                    let words: Vec<String> = entry.typed_words().iter().map(|w| w.to_string()).collect();
                    match station.adjudicate(&words, trigger) {
                        Ok(judged) => self.screen = Screen::Verdict(VerdictScreen { judged, words, shown_at: now }),
                        Err(_) => {
                            self.lexicon = station.lexicon();
                            self.lexicon.usable = false;
                            self.screen = Screen::OutOfService;
                        }
                    }
                }
            }
            Key::Char(_) => entry.hint = Some("Only the letters A to Z can be typed.".into()),
            Key::Up | Key::Down | Key::DirectorChord | Key::Other => {}
        }
    }

    fn open_pin(&mut self, now: Duration) {
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
                        station.director_event(DirectorEvent::PinAccepted);
                        self.open_director(now, station, None);
                    }
                    PinCheck::NotSet => {
                        prompt.message =
                            Some("No director PIN is set on this station (wordjudge config set-pin).".into());
                    }
                    PinCheck::Refused => {
                        self.pin_failures += 1;
                        station.director_event(DirectorEvent::PinRefused { failures: self.pin_failures });
                        if self.pin_failures >= PIN_ATTEMPTS {
                            self.pin_locked_until = Some(now + PIN_LOCKOUT);
                            station.director_event(DirectorEvent::LockedOut { seconds: PIN_LOCKOUT.as_secs() as u32 });
                            prompt.message = Some("Too many wrong PINs: locked.".into());
                        } else {
                            prompt.message = Some(format!(
                                "Wrong PIN. {} attempt{} left.",
                                PIN_ATTEMPTS - self.pin_failures,
                                plural((PIN_ATTEMPTS - self.pin_failures) as usize)
                            ));
                        }
                    }
                }
            }
            _ => prompt.message = Some("Type the director PIN (digits), then ENTER. ESC leaves.".into()),
        }
    }

    fn open_director(&mut self, now: Duration, station: &mut dyn Station, message: Option<String>) {
        let mut items: Vec<MenuItem> = station.lexicon_choices().into_iter().map(MenuItem::UseLexicon).collect();
        items.push(MenuItem::Reboot);
        items.push(MenuItem::PowerOff);
        if station.quit_allowed() {
            items.push(MenuItem::Quit);
        }
        items.push(MenuItem::Leave);
        let selected = items
            .iter()
            .position(|i| matches!(i, MenuItem::UseLexicon(c) if c.id == self.lexicon.id))
            .unwrap_or(0);
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
                MenuItem::Leave => {
                    station.director_event(DirectorEvent::Left);
                    self.go_home();
                }
                MenuItem::UseLexicon(choice) => {
                    let message = match station.switch_lexicon(&choice.id) {
                        Ok(()) => {
                            self.lexicon = station.lexicon();
                            format!("Now judging with {} ({}).", self.lexicon.id, self.lexicon.status)
                        }
                        Err(reason) => format!("Not switched: {reason}"),
                    };
                    self.open_director(now, station, Some(message));
                }
                action @ (MenuItem::Reboot | MenuItem::PowerOff | MenuItem::Quit) => {
                    if menu.confirming != Some(menu.selected) {
                        menu.confirming = Some(menu.selected);
                        menu.message = Some("Press ENTER again to confirm.".into());
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
                        Ok(()) => menu.message = Some("Done.".into()),
                        Err(reason) => menu.message = Some(format!("Not possible: {reason}")),
                    }
                }
            },
            _ => {}
        }
    }
}

/// "s" for plural counts.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
