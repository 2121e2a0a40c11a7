//! The self-lookup flow as a plain state machine: Ready → Entry → Verdict,
//! Out of service, and the director's PIN prompt and menu.
//!
//! It is driven by [`Event`]s (keys, the judge button, clock ticks) with the
//! current monotonic time passed in, and asks the world for everything else
//! through [`Station`]. Typed events in, typed state out: no Slint, no GPIO,
//! no files, and no wording — a hint is an [`EntryHint`], not a sentence, so
//! [`super::view`] is the one place that decides what a player reads. The
//! tests drive it with a fake clock and [`crate::desks::fake::FakeStation`].
//!
//! This file owns the screens' shared types, the [`Kiosk`] state and its
//! dispatcher (Ready, Verdict, ticks, going home); `events` has the keys and
//! events that drive it, and each group of screens has its own file: `entry`
//! (the challenger's words), `pin` (the director's PIN prompt), `director`
//! (the menu's pages), `confirm` (a change confirmed), `edit` (a
//! setting being typed), `usb` (a director's stick) and `update` (the
//! station updated from a stick).

use crate::desks::{
    AdjudicateError, DirectorEvent, FleetVisit, ImportRow, ImportState, Judged, LeaveError, LexiconChoice, LexiconView,
    PinChangeError, PinCheck, PinGuard, ProfileChoice, Rotation, Setting, SettingsError, Station, StickChoice,
    SwitchError, SystemAction, SystemError, UpdateError, UpdateNotStarted, UpdateOffer, UpdatePreview, UpdateReport,
    UpdateRequest, UsbError, UsbRequest, UsbUpdate, UsbWork,
};
use std::time::Duration;
use wordjudge_core::config::Timeouts;
use wordjudge_core::judge::{Verdict, MAX_WORDS};
use wordjudge_core::panel::{Lamps, Trigger};
use wordjudge_core::word::{MAX_LEN, MIN_LEN};

mod confirm;
mod director;
mod edit;
mod entry;
mod events;
mod pin;
mod touch;
mod update;
mod usb;

pub use confirm::{Change, ConfirmScreen, CONFIRM_SETTLE};
pub use director::{DirectorMenu, MenuItem, MenuMessage, MenuPage};
pub use edit::{EditField, EditMessage, EditPrompt, PinStep};
use entry::entry_idle_limit;
pub use entry::{Entry, EntryHint};
pub use events::{Event, Key};
use pin::PinVerdict;
pub use pin::{PinMessage, PinPrompt};
pub use update::{UpdateDone, UpdatePhase, UpdateScreen, UPDATE_CHECK_DEADLINE};
pub use usb::{StopReason, UsbDone, UsbMessage, UsbPhase, UsbPurpose, UsbScreen};

/// How long the entry takes no tap after it opens: the finger that tapped
/// the count, tapping twice or bouncing, lands on the keyboard's first row
/// where the count buttons were, and must type nothing.
pub const TAP_SETTLE: Duration = Duration::from_millis(400);
/// How long the director's corner is held before the PIN prompt opens: far
/// longer than any tap, so a player who brushes the station's name opens
/// nothing.
pub const DIRECTOR_HOLD: Duration = Duration::from_secs(3);
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

/// What the Ready screen answers a key that is not a word count, or says
/// about the challenge that just ended without a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadyHint {
    /// Only 1 to [`wordjudge_core::judge::MAX_WORDS`] start a challenge.
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
    pub slip_code: Option<wordjudge_core::audit::SlipCode>,
    /// When it leaves the Ready screen (`None`: when the next challenge starts).
    until: Option<Duration>,
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

/// What is on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// Waiting for a count. The last challenge's slip, if still shown, is
    /// [`Kiosk::last_slip`].
    Ready {
        hint: Option<ReadyHint>,
    },
    Entry(Entry),
    Verdict(VerdictScreen),
    OutOfService,
    Pin(PinPrompt),
    Director(DirectorMenu),
    /// A change the director asked for, named in full, waiting for ENTER.
    Confirm(ConfirmScreen),
    /// A station setting being typed (from the director menu).
    Edit(EditPrompt),
    /// Working with a USB stick (from the director menu).
    Usb(UsbScreen),
    /// Updating the station from a bundle on a stick (from the director menu).
    Update(UpdateScreen),
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
    /// Since when the director's corner is held down (touch), if it is.
    director_hold_since: Option<Duration>,
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
            director_hold_since: None,
        };
        // Wrong PINs and lockouts survive a restart: pulling the plug does
        // not buy an attacker new attempts.
        let guard = station.pin_guard();
        kiosk.pin_failures = guard.failures;
        kiosk.pin_lockouts = guard.lockouts;
        kiosk.pin_lock_pending = (!guard.locked_for.is_zero()).then_some(guard.locked_for);
        // The last challenge's slip survives a restart (a power cut right
        // after a verdict, before the slip was copied): Ready shows it again,
        // from the audit log, until the next challenge starts.
        kiosk.last_slip = station.last_challenge().map(|(challenge_number, slip_code)| LastSlip {
            challenge_number,
            slip_code,
            until: None,
        });
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
            Event::Tap(key) => self.tap(key, now, station),
            Event::TapRow(row) => self.tap_row(row, now, station),
            Event::DirectorHold(down) => self.director_hold(down, now),
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
            Screen::Confirm(c) => c.last_key = now,
            Screen::Edit(e) => e.last_key = now,
            Screen::Usb(u) if u.phase == UsbPhase::List => u.last_key = now,
            Screen::Update(u) if u.may_expire() => u.last_key = now,
            _ => {}
        }
    }

    fn tick(&mut self, now: Duration, station: &mut dyn Station) {
        self.director_hold_tick(now, &*station);
        // Finished USB work: applied on its screen, dropped anywhere else
        // (the station has recorded it; a stale answer must never reach the
        // next screen that waits for one).
        if let Some(update) = station.usb_update() {
            self.usb_update(update, now);
        }
        // Update work reports several times (progress): every report waiting
        // is taken, so the screen shows the latest (at most 64 a tick: a
        // station that never stops answering must not stall the screen).
        for _ in 0..64 {
            let Some(report) = station.update_report() else { break };
            self.update_report(report, now, station);
        }
        if matches!(self.screen, Screen::Director(_)) && now >= self.last_stick_check + STICK_CHECK {
            self.last_stick_check = now;
            self.refresh_sticks(station);
        }
        self.usb_watch(now, station);
        self.update_watch(now, station);
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
            Screen::Confirm(c) => now >= c.last_key + self.director_idle,
            Screen::Edit(e) => now >= e.last_key + self.director_idle,
            Screen::Usb(u) => !matches!(u.phase, UsbPhase::Working(_)) && now >= u.last_key + self.director_idle,
            Screen::Update(u) => u.may_expire() && now >= u.last_key + self.director_idle,
            Screen::Ready { .. } | Screen::OutOfService => false,
        };
        if expired {
            self.update_expired(station);
            self.leave_screen(now);
        }
    }

    /// Goes home from the current screen; a verdict leaves its slip on Ready.
    fn leave_screen(&mut self, now: Duration) {
        if let Screen::Verdict(v) = &self.screen {
            self.last_slip = Some(LastSlip {
                challenge_number: v.judged.challenge_number,
                slip_code: v.judged.slip_code.clone(),
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
                        extra_refused: false,
                        confirm_until: now + COUNT_CONFIRMATION,
                        last_key: now,
                        opened: now,
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
            Screen::Confirm(_) => self.confirm_key(key, now, station),
            Screen::Edit(_) => self.edit_key(key, now, station),
            Screen::Usb(_) => self.usb_key(key, now, station),
            Screen::Update(_) => self.update_key(key, now, station),
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
