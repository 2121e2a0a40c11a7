//! The station's desks: one folder for each job the kiosk flow asks of the
//! world, each holding its port (the trait the flow calls, in the folder's
//! `mod.rs`), its live implementation (`live.rs`, and the machinery only it
//! uses) and its fake (`fake.rs`), side by side. The station is their
//! composition: [`live::LiveStation`] and [`fake::FakeStation`] each have
//! every desk, so each is a [`Station`].
//!
//! | desk | port | owns |
//! |---|---|---|
//! | `judging` | [`Judging`] | a play judged and recorded; the lexicon on screen |
//! | `lexicons` | [`LexiconChoices`] | the lists and profiles, verified and switched |
//! | `pin` | [`DirectorPin`] | the director's PIN, its guard, director records |
//! | `settings` | [`DirectorSettings`] | clock, zone, name, rotation, set up again |
//! | `power` | [`PowerActions`] | reboot, power off, quit |
//! | `sticks` | [`StickWork`] | USB sticks: import, export, fleet sticks |
//! | `updates` | [`UpdateWork`] | an update from a stick, the boot check after it |
//! | `fleet` | [`FleetMembership`] | the event's fleet joined and left |
//!
//! Why a port: the flow must be testable with no files, no lexicon and no
//! display ([`fake::FakeStation`]), and the live station must not be able to
//! smuggle wording or side-channel state into the flow. Every answer is
//! data; the words a player or director reads are chosen by
//! [`crate::kiosk::view`] alone. The layers test keeps the ports and fakes
//! below the kiosk and the live side above it.

pub mod fake;
pub mod fleet;
pub(crate) mod job;
pub mod judging;
pub mod lexicons;
pub mod live;
pub mod pin;
pub mod power;
pub mod settings;
pub mod sticks;
pub mod updates;

pub use fleet::{FleetMembership, LeaveError};
pub use judging::{AdjudicateError, Counts, Judged, Judging, LexiconView, SecondOpinion, Warning};
pub use lexicons::{short_digest, LexiconChoice, LexiconChoices, ProfileChoice, SwitchError};
pub use pin::{DirectorEvent, DirectorPin, PinChangeError, PinCheck, PinGuard};
pub use power::{PowerActions, SystemAction, SystemError};
pub use settings::{parse_clock, system_clock_text, DirectorSettings, LocalTime, Rotation, Setting, SettingsError};
pub use sticks::{
    FleetVisit, ImportRow, ImportState, StickChoice, StickWork, UsbError, UsbRequest, UsbUpdate, UsbWork,
};
pub use updates::{UpdateNotStarted, UpdateOffer, UpdatePreview, UpdateReport, UpdateRequest, UpdateWork};
pub use wordjudge_core::update::{BootCheck, BootOutcome, StationKind, UpdateError, UpdateKind};

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
/// called through its trait, so `use …::desks::prelude::*` brings them all.
pub mod prelude {
    pub use super::{
        DirectorPin, DirectorSettings, FleetMembership, Judging, LexiconChoices, PowerActions, Station, StickWork,
        UpdateWork,
    };
}
