//! What the kiosk flow asks of the world: judging with the active lexicon and
//! recording it, the director's PIN, switching lexicons, counts, and system
//! actions. The flow ([`super::flow`]) only sees this trait, so it is tested
//! with a fake; [`super::live::LiveStation`] is the real one.

use crate::judge::Verdict;
use crate::panel::Trigger;

/// What the screens show about the active lexicon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexiconView {
    /// Lexicon id, e.g. `CSW15`.
    pub id: String,
    /// Status wording (`Verified official`, `Verified`, `Mismatch`, …).
    pub status: String,
    /// Whether it may judge. When false the station is out of service.
    pub usable: bool,
    /// Whether it is the built-in demo (every screen then says DEMO).
    pub demo: bool,
    /// Why it cannot judge, for the director (empty when usable).
    pub problem: String,
}

/// One adjudication as the screen may show it: no per-word results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub verdict: Verdict,
    /// Challenge number for the slip, unique on this station.
    pub challenge_number: u64,
    /// Local time of the adjudication, as shown (`14:03:27`).
    pub time: String,
}

/// A lexicon the director may switch to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexiconChoice {
    pub id: String,
    pub status: String,
    pub fingerprint: String,
    pub usable: bool,
}

/// Result of checking a director PIN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinCheck {
    Accepted,
    Refused,
    /// No PIN hash is configured: the director menu cannot be opened.
    NotSet,
}

/// Events the flow reports for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectorEvent {
    PinAccepted,
    PinRefused { failures: u32 },
    LockedOut { seconds: u32 },
    Left,
}

/// Power and process actions offered in the director menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemAction {
    Reboot,
    PowerOff,
    Quit,
}

/// Counts for the director menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub since_boot: u64,
    pub today: u64,
}

/// The world, as the kiosk flow sees it.
pub trait Station {
    /// The active lexicon.
    fn lexicon(&self) -> LexiconView;
    /// Judges `words` (checked: uppercase, 2–15 letters, the declared count)
    /// with the active lexicon and records the adjudication before returning.
    /// `Err` when the lexicon may not judge.
    fn adjudicate(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, String>;
    /// Checks a director PIN.
    fn check_pin(&mut self, pin: &str) -> PinCheck;
    /// Records a director event in the audit log.
    fn director_event(&mut self, event: DirectorEvent);
    /// Every installed lexicon, for the director menu.
    fn lexicon_choices(&mut self) -> Vec<LexiconChoice>;
    /// Verifies and activates a lexicon, and saves the choice in the config.
    /// On `Err` nothing changed.
    fn switch_lexicon(&mut self, id: &str) -> Result<(), String>;
    /// Challenges judged since boot and today.
    fn counts(&self) -> Counts;
    /// Problems the director should see (config, audit log, GPIO).
    fn warnings(&self) -> Vec<String>;
    /// Whether the service lamp must be lit although the station judges
    /// (the audit log is failing).
    fn needs_service(&self) -> bool;
    /// The station's name, shown on every screen.
    fn station_name(&self) -> String;
    /// Whether the config allows quitting from the director menu.
    fn quit_allowed(&self) -> bool;
    /// Reboot, power off or quit. `Err` with a reason when not possible.
    fn system(&mut self, action: SystemAction) -> Result<(), String>;
    /// Records a clean shut-down (the process is about to end).
    fn shut_down(&mut self);
}
