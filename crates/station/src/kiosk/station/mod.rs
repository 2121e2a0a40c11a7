//! The kiosk's port: everything the flow ([`super::flow`]) asks of the world,
//! as eight desks ([`Judging`], [`DirectorPin`], [`LexiconChoices`],
//! [`DirectorSettings`], [`PowerActions`], [`StickWork`], [`UpdateWork`],
//! [`FleetMembership`]), each a small trait with typed answers and its own
//! typed error, which together make a [`Station`].
//!
//! Why a port: the flow must be testable with no files, no lexicon and no
//! display ([`super::fake::FakeStation`]), and the real station
//! (`app::live::LiveStation`) must not be able to smuggle wording or
//! side-channel state into the flow. Every answer here is data; the words a
//! player or director reads are chosen by [`super::view`] alone.

use std::fmt;

mod judging;
mod settings;
mod sticks;
mod updates;

pub use judging::{AdjudicateError, Counts, Judged, Judging, LexiconView, SecondOpinion, Warning};
pub use settings::{parse_clock, system_clock_text, DirectorSettings, LocalTime, Rotation, Setting, SettingsError};
pub use sticks::{
    FleetVisit, ImportRow, ImportState, StickChoice, StickWork, UsbError, UsbRequest, UsbUpdate, UsbWork,
};
pub use updates::{UpdateNotStarted, UpdateOffer, UpdatePreview, UpdateReport, UpdateRequest, UpdateWork};
pub use wordjudge_core::update::{BootCheck, BootOutcome, StationKind, UpdateError, UpdateKind};

/// An event profile the director may switch to, with one installed
/// edition of its family (one row per pair: the director picks the edition
/// by the row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileChoice {
    /// What [`LexiconChoices::switch_profile`] takes back: the profile id and the
    /// edition (`NASPA-CSW-5@CSW15`), or the profile id alone on a row with
    /// no edition to offer.
    pub id: String,
    /// The profile's name (its rule), without the edition.
    pub name: String,
    /// The lexicon this row judges with; `None` when none can be offered.
    pub edition: Option<String>,
    /// A changeover's second-opinion lexicon with this edition.
    pub second_opinion: Option<String>,
    /// Whether it is the active profile judging with this edition.
    pub active: bool,
    /// Why it cannot be chosen now (no edition installed, or one that may
    /// not judge), naming no file; `None` when it can.
    pub unavailable: Option<String>,
}

impl ProfileChoice {
    /// The rows for `profiles` over the installed `lexicons`, marking the
    /// active profile's row for `active_lexicon`.
    pub fn list(
        profiles: impl IntoIterator<Item = &'static wordjudge_core::profile::Profile>,
        active: Option<&wordjudge_core::profile::Profile>,
        active_lexicon: &str,
        lexicons: &[LexiconChoice],
    ) -> Vec<ProfileChoice> {
        let lexicon = availability(lexicons);
        profiles
            .into_iter()
            .flat_map(|p| wordjudge_core::profile::offers(p, &lexicon))
            .map(|offer| ProfileChoice {
                id: offer.id(),
                name: offer.profile.name.into(),
                edition: offer.edition.map(str::to_string),
                second_opinion: offer.second_opinion.map(str::to_string),
                active: active.is_some_and(|a| a.id == offer.profile.id) && offer.edition == Some(active_lexicon),
                unavailable: offer.unavailable,
            })
            .collect()
    }

    /// The profile and edition the row `id` names, if the installed
    /// `lexicons` let it judge (see [`wordjudge_core::profile::choose`]).
    pub fn choose(
        id: &str,
        active_lexicon: &str,
        lexicons: &[LexiconChoice],
    ) -> Result<wordjudge_core::profile::Chosen, SwitchError> {
        wordjudge_core::profile::choose(id, active_lexicon, &availability(lexicons))
            .map_err(|r| SwitchError::ProfileUnavailable { profile: r.profile, reason: r.reason })
    }
}

/// What the installed `lexicons` say of one lexicon id.
fn availability(lexicons: &[LexiconChoice]) -> impl Fn(&str) -> wordjudge_core::profile::Availability + '_ {
    move |id| match lexicons.iter().find(|l| l.id == id) {
        None => wordjudge_core::profile::Availability::NotInstalled,
        Some(l) if !l.usable => wordjudge_core::profile::Availability::Unusable(l.status.clone()),
        Some(_) => wordjudge_core::profile::Availability::Usable,
    }
}

/// A lexicon the director may switch to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexiconChoice {
    pub id: String,
    /// The status label, computed from the lexicon's bytes.
    pub status: String,
    /// The short published-style fingerprint, empty when it could not be read.
    pub fingerprint: String,
    pub usable: bool,
}

/// The short content digest of layers' content SHA-256s (see
/// the content digests the station remembers per lexicon).
pub fn short_digest<'a>(content_sha256: impl IntoIterator<Item = &'a str>) -> String {
    content_sha256.into_iter().map(|d| d.get(..8).unwrap_or(d)).collect::<Vec<_>>().join("+")
}

/// Result of checking a director PIN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinCheck {
    Accepted,
    Refused,
    /// No PIN hash is configured: the director menu cannot be opened.
    NotSet,
}

/// The PIN prompt's guard as the station keeps it across restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PinGuard {
    /// Wrong PINs in a row.
    pub failures: u32,
    /// Lockouts in a row since the last right PIN.
    pub lockouts: u32,
    /// How long the current lockout still runs (zero: none).
    pub locked_for: std::time::Duration,
}

/// Director events the flow reports for the audit log.
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

impl std::error::Error for AdjudicateError {}

/// Why a lexicon switch was refused. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwitchError {
    /// The lexicon failed verification or may not judge.
    Unusable { id: String, status: String, problem: String },
    /// The new choice could not be saved in the config.
    ConfigNotSaved { path: String, error: String },
    /// The config in force is not the station's own file (it is broken and
    /// the last good copy is in use); fix the file first.
    ConfigNotWritable(String),
    /// The profile cannot judge now (named by its name; the reason names
    /// editions, never files).
    ProfileUnavailable { profile: String, reason: String },
}

impl fmt::Display for SwitchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwitchError::Unusable { id, status, problem } => write!(f, "{id} is {status}: {problem}"),
            SwitchError::ConfigNotSaved { path, error } => {
                write!(f, "cannot save the config {path}: {error}; nothing changed")
            }
            SwitchError::ConfigNotWritable(why) => write!(f, "{why}; nothing changed"),
            SwitchError::ProfileUnavailable { profile, reason } => write!(f, "{profile}: {reason}"),
        }
    }
}

impl std::error::Error for SwitchError {}

/// Why a system action was not carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemError {
    /// Reboot and power-off belong to the appliance only, never to a desktop.
    NotAppliance,
    /// Quitting is not allowed by the config.
    QuitNotAllowed,
    /// The audit log cannot be written (its problem): records held in
    /// memory would be lost with a restart or power-off, so there is none.
    AuditLogFailing(String),
    /// The system refused (systemctl failed).
    Failed(String),
}

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SystemError::NotAppliance => f.write_str("only the appliance powers itself off or reboots"),
            SystemError::QuitNotAllowed => f.write_str("quitting is not allowed by the config"),
            SystemError::AuditLogFailing(problem) => write!(
                f,
                "not now: the audit log cannot be written, and what it holds in memory would be lost ({problem}) \
                 Free space on the data partition first."
            ),
            SystemError::Failed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SystemError {}

/// The world, as the kiosk flow sees it: the desks below, each a trait of
/// a handful of methods with its own answers and error type, so a station
/// (the live one, the fake) is written desk by desk, each in its own file.
/// The flow holds a `dyn Station`; every type with all the desks is one.
pub trait Station:
    Judging + DirectorPin + LexiconChoices + DirectorSettings + PowerActions + StickWork + UpdateWork + FleetMembership
{
}

impl<T> Station for T where
    T: Judging
        + DirectorPin
        + LexiconChoices
        + DirectorSettings
        + PowerActions
        + StickWork
        + UpdateWork
        + FleetMembership
{
}

/// The desks' traits, for code that holds a concrete station (a test's
/// `FakeStation` or `LiveStation`) rather than a `dyn Station`: a method is
/// called through its trait, so `use …::station::prelude::*` brings them all.
pub mod prelude {
    pub use super::{
        DirectorPin, DirectorSettings, FleetMembership, Judging, LexiconChoices, PowerActions, Station, StickWork,
        UpdateWork,
    };
}

/// The director's PIN and the director's records: the PIN checked, changed
/// or set first, the wrong-PIN guard kept across restarts, and every
/// director action written to the audit log. Errors: [`PinChangeError`].
pub trait DirectorPin {
    /// Checks a director PIN.
    fn check_pin(&mut self, pin: &str) -> PinCheck;
    /// Records a director event in the audit log.
    fn director_event(&mut self, event: DirectorEvent);
    /// The PIN guard saved before this process started (none saved: all zero).
    fn pin_guard(&self) -> PinGuard {
        PinGuard::default()
    }
    /// Saves the PIN guard, so a restart keeps wrong PINs and lockouts.
    fn save_pin_guard(&mut self, _guard: PinGuard) {}
    /// Changes the director PIN after checking the old one.
    fn change_pin(&mut self, old: &str, new: &str) -> Result<(), PinChangeError>;
    /// Whether this is a fresh station that has never had a director PIN
    /// (no config, no last good copy): the director chord then asks for
    /// one, so a new card can be set up at the venue without a shell. A
    /// station whose config was damaged is never fresh.
    fn first_pin_needed(&self) -> bool;
    /// Sets the first director PIN (only while [`Self::first_pin_needed`]),
    /// recorded in the audit log.
    fn set_first_pin(&mut self, new: &str) -> Result<(), PinChangeError>;
}

/// The lexicons and event profiles the director may choose, and switching
/// to one (or recording why a choice was refused). Errors: [`SwitchError`].
pub trait LexiconChoices {
    /// Every installed lexicon, for the director menu.
    fn lexicon_choices(&mut self) -> Vec<LexiconChoice>;
    /// Verifies and activates a lexicon, and saves the choice in the config.
    /// On `Err` nothing changed (and the refusal is recorded).
    fn switch_lexicon(&mut self, id: &str) -> Result<(), SwitchError>;
    /// The event profiles, for the director menu; `lexicons` (the
    /// installed ones, as [`Self::lexicon_choices`] gave them) tell which
    /// profiles can be chosen.
    /// Records that the director chose a lexicon the menu listed as unable
    /// to judge: refused in the flow, without asking the station to switch
    /// (the file might verify by now, and no single key may switch).
    fn switch_refused(&mut self, _id: &str, _reason: &str) {}
    /// The same for a profile the menu listed as unavailable (`id` as in
    /// [`LexiconChoices::switch_profile`]).
    fn profile_refused(&mut self, _id: &str, _reason: &str) {}
    fn profile_choices(&mut self, lexicons: &[LexiconChoice]) -> Vec<ProfileChoice>;
    /// Activates a profile with the edition its row names
    /// ([`ProfileChoice::id`]; a profile id alone keeps the active edition
    /// of its family, else takes the newest that judges), the edition
    /// verified first, and saves both in the config. On `Err` nothing
    /// changed (and the refusal is recorded).
    fn switch_profile(&mut self, id: &str) -> Result<(), SwitchError>;
}

/// Reboot, power off or quit, and whether the station may offer them.
/// Errors: [`SystemError`].
pub trait PowerActions {
    /// Whether the director menu offers Quit (desktop use, by config).
    fn quit_allowed(&self) -> bool;
    /// Whether this is the appliance (the systemd service): only then are
    /// reboot and power-off offered.
    fn appliance(&self) -> bool;
    /// Reboot, power off or quit.
    fn system(&mut self, action: SystemAction) -> Result<(), SystemError>;
}

/// The event's fleet: the event this station is in, and leaving it.
/// Errors: [`LeaveError`].
pub trait FleetMembership {
    /// The event whose fleet this station is in, if any (the director menu
    /// then offers to leave it).
    fn fleet_event(&self) -> Option<String> {
        None
    }
    /// Leaves the event's fleet: the uploader stops, its key and
    /// certificates go; recorded. The event left.
    fn leave_fleet(&mut self) -> Result<String, LeaveError> {
        Err(LeaveError::NotInFleet)
    }
}

/// Why the director PIN was not changed or set. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinChangeError {
    /// The old PIN is not the director PIN.
    WrongPin,
    /// The new PIN is not one (its format), or the station already has one
    /// (a first PIN).
    Invalid(String),
    /// The config could not be saved, or is not the station's own (the
    /// last good settings are held).
    Failed(String),
}

impl fmt::Display for PinChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinChangeError::WrongPin => f.write_str("the old PIN is wrong"),
            PinChangeError::Invalid(why) => f.write_str(why),
            PinChangeError::Failed(why) => write!(f, "{why}; nothing changed"),
        }
    }
}

impl std::error::Error for PinChangeError {}

/// Why the station did not leave its fleet. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaveError {
    /// The station is in no fleet.
    NotInFleet,
    /// Its fleet folder could not be read or cleared, or the uploader did
    /// not stop.
    Failed(String),
}

impl fmt::Display for LeaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaveError::NotInFleet => f.write_str("this station is in no fleet"),
            LeaveError::Failed(why) => write!(f, "{why}; nothing changed"),
        }
    }
}

impl std::error::Error for LeaveError {}
