//! The judging desk: the active lexicon as the screens show it, a play
//! judged and recorded ([`Judged`], or [`AdjudicateError`] and no verdict),
//! and what the station says of itself (counts, warnings, the service lamp).

mod fake;
mod live;

use std::fmt;
use wordjudge_core::config::ConfigProblem;
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;
use wordjudge_core::profile::ChallengeRule;

/// What the screens show about the active lexicon.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LexiconView {
    /// Lexicon id, e.g. `CSW15`.
    pub id: String,
    /// The lexicon's status label, computed by the lexicon code from the
    /// bytes that judge (`Verified official`, `Mismatch`, …).
    pub status: String,
    /// Whether it may judge. When false the station is out of service.
    pub usable: bool,
    /// Whether it is the built-in demo (every screen then says DEMO).
    pub demo: bool,
    /// The lexicon's fingerprint as the publishers give it (its first 8 hex
    /// digits, the same `wordjudge lexicon` prints), computed from the bytes
    /// that judge; empty when none judge. Directors and players compare it
    /// with the published list and between stations at one event.
    pub fingerprint: String,
}

/// One adjudication as the screen may show it: no per-word results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub verdict: Verdict,
    /// Challenge number for the slip, unique on this station, shown once.
    pub challenge_number: u64,
    /// The verification code for the slip (none while the log cannot be
    /// written: the number still shows, and `audit verify` names it).
    pub slip_code: Option<wordjudge_core::audit::SlipCode>,
    /// Local time of the adjudication, as shown (`14:03:27`).
    pub time: String,
    /// The event's challenge rule, when a profile is active: the view words
    /// its consequence under the verdict.
    pub rule: Option<ChallengeRule>,
    /// The second-opinion lexicon's single verdict, when the profile has one.
    pub second_opinion: Option<SecondOpinion>,
}

/// What a second lexicon says of the whole play: one verdict, never which word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecondOpinion {
    pub lexicon: String,
    /// `None` when the second lexicon cannot judge (not installed, failed
    /// verification): the screen says so instead of guessing.
    pub verdict: Option<Verdict>,
}

/// Counts for the director menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub since_boot: u64,
    pub today: u64,
}

/// Something the director should see. The view words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// The config file is missing, broken or unreadable.
    Config(ConfigProblem),
    /// The audit log cannot be written (or opened).
    AuditLog(String),
    /// The judge button and lamps are not available.
    Gpio(String),
    /// A file in the lexicon directory could not be used.
    LexiconCatalog(String),
    /// The active lexicon cannot judge, and why.
    ActiveLexicon(String),
    /// The active lexicon's file changed on disk after it was verified; the
    /// station keeps judging with the verified copy in memory.
    LexiconFileChanged { id: String, detail: String },
    /// The judging path failed unexpectedly (a caught panic); the station is
    /// out of service until the director acts.
    JudgingFault(String),
    /// The config was damaged; its last good settings are held and players
    /// cannot judge until the director restores them.
    SettingsHeld,
    /// The checkpoint signing key cannot be made or read: the station judges
    /// and logs, but signs no checkpoint until it is fixed.
    SigningKey(String),
    /// Wrong PINs and lockouts cannot be kept across a restart (the PIN
    /// guard is damaged or cannot be written).
    PinGuard(String),
    /// No keyboard is plugged in: players cannot type the words.
    NoKeyboard,
    /// Wrong PINs (and lockouts) at the prompt before the director's right
    /// one opened this visit of the menu, since the local time `since`.
    WrongPins { refused: u32, lockouts: u32, since: String },
    /// The station would judge with the built-in DEMO list and no director
    /// chose it: players are told it is not set up and nothing is judged.
    NotSetUp,
    /// The config and its last good copy are gone while the PIN guard is
    /// whole: the director sets the station up again from the menu; players
    /// see the "not set up" screen meanwhile.
    SettingsGone,
}

/// Why an adjudication did not happen. Nothing was recorded or shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdjudicateError {
    /// No lexicon may judge (the station is out of service).
    NoUsableLexicon,
    /// The words do not make a challenge (the flow checks first, so this
    /// means the flow and the judge disagree about the rules).
    BadChallenge(String),
    /// Judging failed unexpectedly; the station must go out of service.
    Fault(String),
    /// The verdict's record could not be written (the audit log is failing):
    /// the verdict is not shown, and the station is out of service until the
    /// log can be written again.
    NotRecorded(String),
}

impl fmt::Display for AdjudicateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdjudicateError::NoUsableLexicon => f.write_str("no lexicon may judge"),
            AdjudicateError::BadChallenge(why) => write!(f, "not a challenge: {why}"),
            AdjudicateError::Fault(why) => write!(f, "judging failed: {why}"),
            AdjudicateError::NotRecorded(why) => write!(f, "not recorded, so not shown: {why}"),
        }
    }
}

/// Judging: the active lexicon, a play judged, what the screens show about
/// the station (its name, counts, warnings, the service lamp), the periodic
/// check and the clean shut-down. Errors: [`AdjudicateError`].
pub trait Judging {
    /// The active lexicon.
    fn lexicon(&self) -> LexiconView;
    /// Judges `words` (checked: uppercase, 2–15 letters, the declared count)
    /// with the active lexicon and records the adjudication before returning.
    fn adjudicate(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, AdjudicateError>;
    /// Challenges judged since boot and today.
    fn counts(&self) -> Counts;
    /// The last challenge this station recorded, by its audit log: its
    /// number and slip code (shown on Ready after a restart).
    fn last_challenge(&self) -> Option<(u64, Option<wordjudge_core::audit::SlipCode>)> {
        None
    }
    /// What the director should see.
    fn warnings(&self) -> Vec<Warning>;
    /// Whether the service lamp must be lit although the station judges
    /// (the audit log is failing).
    fn needs_service(&self) -> bool;
    /// The station's name, shown on every screen.
    fn station_name(&self) -> String;
    /// The event's challenge rule a verdict given now would carry (the
    /// active profile's, when it applies to the active lexicon): shown on
    /// Ready, so both players know it before the challenge.
    fn event_rule(&self) -> Option<wordjudge_core::profile::ChallengeRule>;
    /// A periodic check (every few seconds): files changed under the active
    /// lexicon, a log that can be written again. Returns true when the
    /// lexicon view may have changed.
    fn poll(&mut self) -> bool {
        false
    }
    /// Records a clean shut-down (the process is about to end).
    fn shut_down(&mut self);
}

impl std::error::Error for AdjudicateError {}
