//! The lexicon desk: the lexicons and event profiles the director may
//! choose, and switching to one. The port is here; `live` verifies and
//! switches the station's lists, `fake` answers from a test's.

mod fake;
mod live;

use std::fmt;

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
