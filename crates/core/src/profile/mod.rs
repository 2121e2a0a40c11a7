//! Event profiles: what a director actually swaps between events — an
//! event's challenge rule over a family of lexicons, the edition chosen
//! from those installed, and for a changeover a second opinion.
//!
//! Why profiles and not just lexicons: the same list is played under
//! different rules (NASPA's double challenge, the international rule's
//! points per word, school play's lost turn), and players at a station need
//! to read the consequence under the verdict, not argue it from memory. The
//! profiles a station offers are built in ([`BUILT_IN`]), so a director
//! cannot mistype a rule; the config names the active one.
//!
//! Why a family and not one edition: events run on the edition their
//! sanctioning body names, which is not always the newest (a CSW15 club
//! event, a TWL2016 school district). A profile pinned to one edition left
//! such an event with no rule at all. So a profile is a rule plus a
//! [`Family`], and the director picks the edition among the installed ones:
//! the menu offers one row per (profile, installed edition) ([`offers`]),
//! and the config keeps the profile id beside `active_lexicon`, which is
//! the edition. Ids in configs from before families ([`ALIASES`]) still load.

use serde::{Deserialize, Serialize};

/// What happens after a challenge, by the event's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum ChallengeRule {
    /// NASPA double challenge: an unsuccessful challenger loses the turn.
    NaspaDouble,
    /// The international (CSW) rule VI.B.3: the challenged player gains
    /// `points` per word challenged when the play stands.
    PointsPerWord { points: u32 },
    /// School play: the challenging team loses its turn.
    School,
}

impl ChallengeRule {
    /// A short name for menus and records.
    pub fn name(self) -> String {
        match self {
            ChallengeRule::NaspaDouble => "double challenge".into(),
            ChallengeRule::PointsPerWord { points } => format!("{points} points per word"),
            ChallengeRule::School => "school rule".into(),
        }
    }
}

/// A family of lexicons: the editions one kind of event is played with.
///
/// The editions are lexicon ids of the official catalogue (and the built-in
/// demo); `lexicon::official`'s tests check that every one exists there and
/// that every official lexicon belongs to exactly one family, so an edition
/// added to the catalogue cannot be left without a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// NASPA's list for adult play, under its names over the years: TWL06,
    /// OTCWL2014, TWL2016 (OTCWL2016), then NWL2018, NWL2020, NWL2023.
    Nwl,
    /// Collins Scrabble Words, every edition.
    Csw,
    /// North American school play: OSPD4 with MW11's long words, and the
    /// school word lists.
    School,
    /// The built-in demo list.
    Demo,
}

impl Family {
    /// Every family, in the order profiles list them.
    pub const ALL: [Family; 4] = [Family::Nwl, Family::Csw, Family::School, Family::Demo];

    /// Its editions, oldest first (each is the successor of the one before).
    pub fn editions(self) -> &'static [&'static str] {
        match self {
            Family::Nwl => &["TWL06", "OTCWL2014", "TWL2016", "NWL2018", "NWL2020", "NWL2023"],
            Family::Csw => &["CSW07", "CSW12", "CSW15", "CSW19", "CSW21", "CSW24"],
            Family::School => &["OSPD4+MW11", "SSWL2016", "NSWL2018", "NSWL2020", "NSWL2023"],
            Family::Demo => &["DEMO"],
        }
    }

    /// What one of its editions is called, for reasons a director reads
    /// ("no CSW edition is installed").
    pub fn noun(self) -> &'static str {
        match self {
            Family::Nwl => "NWL or TWL edition",
            Family::Csw => "CSW edition",
            Family::School => "school word list",
            Family::Demo => "demo list",
        }
    }

    /// [`Self::noun`] with its article ("an NWL or TWL edition").
    pub fn one(self) -> &'static str {
        match self {
            Family::Nwl => "an NWL or TWL edition",
            Family::Csw => "a CSW edition",
            Family::School => "a school word list",
            Family::Demo => "a demo list",
        }
    }

    /// Its edition with this lexicon id.
    pub fn edition(self, lexicon: &str) -> Option<&'static str> {
        self.editions().iter().copied().find(|e| *e == lexicon)
    }

    /// Whether `lexicon` is one of its editions.
    pub fn contains(self, lexicon: &str) -> bool {
        self.edition(lexicon).is_some()
    }

    /// The edition `edition` replaced, if the catalogue knows one.
    pub fn previous(self, edition: &str) -> Option<&'static str> {
        let at = self.editions().iter().position(|e| *e == edition)?;
        at.checked_sub(1).map(|i| self.editions()[i])
    }

    /// The family `lexicon` belongs to.
    pub fn of(lexicon: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.contains(lexicon))
    }
}

/// One event profile: a rule over a family of lexicons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Short id stored in the config (`NASPA-CSW-5`).
    pub id: &'static str,
    /// What the director reads in the menu, without the edition (the menu
    /// adds the edition of each row).
    pub name: &'static str,
    /// The lexicons it may judge with; the director picks the edition.
    pub family: Family,
    pub rule: ChallengeRule,
    /// A lexicon changeover (NASPA Zyzzyva's option): the edition the
    /// chosen one replaced gives a second opinion, one verdict shown
    /// smaller after the main one.
    pub changeover: bool,
}

impl Profile {
    /// The second-opinion lexicon while judging with `edition`: for a
    /// changeover, the edition it replaced — the list the players knew
    /// until the change, not merely an older one that happens to be
    /// installed.
    pub fn second_opinion(&self, edition: &str) -> Option<&'static str> {
        self.changeover.then(|| self.family.previous(edition)).flatten()
    }

    /// Whether its rule applies to a verdict from `lexicon`.
    pub fn applies_to(&self, lexicon: &str) -> bool {
        self.family.contains(lexicon)
    }
}

/// The profiles every station offers.
pub const BUILT_IN: &[Profile] = &[
    Profile {
        id: "NASPA-NWL",
        name: "NASPA, double challenge",
        family: Family::Nwl,
        rule: ChallengeRule::NaspaDouble,
        changeover: false,
    },
    Profile {
        id: "NASPA-NWL-CHANGEOVER",
        name: "NASPA changeover, double challenge",
        family: Family::Nwl,
        rule: ChallengeRule::NaspaDouble,
        changeover: true,
    },
    Profile {
        id: "NASPA-CSW-5",
        name: "NASPA CSW, 5 points per word",
        family: Family::Csw,
        rule: ChallengeRule::PointsPerWord { points: 5 },
        changeover: false,
    },
    Profile {
        id: "NASPA-CSW-10",
        name: "NASPA CSW, 10 points per word",
        family: Family::Csw,
        rule: ChallengeRule::PointsPerWord { points: 10 },
        changeover: false,
    },
    Profile {
        id: "WESPA-CSW",
        name: "WESPA CSW, 5 points per word",
        family: Family::Csw,
        rule: ChallengeRule::PointsPerWord { points: 5 },
        changeover: false,
    },
    Profile {
        id: "SCHOOL",
        name: "North American school play",
        family: Family::School,
        rule: ChallengeRule::School,
        changeover: false,
    },
    Profile {
        id: "DEMO",
        name: "Demo (not a tournament lexicon)",
        family: Family::Demo,
        rule: ChallengeRule::NaspaDouble,
        changeover: false,
    },
];

/// Ids configs used before profiles had families, and the profile each is
/// now. `NASPA-TWL` was the double challenge pinned to TWL2016: the same
/// rule over the same family as `NASPA-NWL`, whose edition the config's
/// `active_lexicon` names.
pub const ALIASES: &[(&str, &str)] = &[("NASPA-TWL", "NASPA-NWL")];

/// The rule in force for a verdict from `lexicon` under `profile`: the
/// profile's rule only while it judges with an edition of the profile's
/// family. A rule line under a verdict from another family would state
/// another event's consequence.
pub fn rule_for(profile: Option<&Profile>, lexicon: &str) -> Option<ChallengeRule> {
    profile.filter(|p| p.applies_to(lexicon)).map(|p| p.rule)
}

/// The built-in profile with this id, or that an old id now names.
pub fn find(id: &str) -> Option<&'static Profile> {
    let id = ALIASES.iter().find(|(old, _)| *old == id).map_or(id, |(_, new)| *new);
    BUILT_IN.iter().find(|p| p.id == id)
}

/// What a station can say of one lexicon id, for choosing editions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    NotInstalled,
    /// Installed, with this status, and it may not judge.
    Unusable(String),
    Usable,
}

/// The separator of a choice id: `NASPA-CSW-5@CSW15`. No profile id and no
/// lexicon id of a family contains it.
const EDITION_MARK: char = '@';

/// One row the director may choose: a profile with an installed edition,
/// or, when none can be offered, the profile alone with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub profile: &'static Profile,
    pub edition: Option<&'static str>,
    /// The changeover's second-opinion lexicon for this edition.
    pub second_opinion: Option<&'static str>,
    /// Why it cannot be chosen now, in words with no file names; `None`
    /// when it can.
    pub unavailable: Option<String>,
}

impl Offer {
    /// The id [`choose`] takes back: `NASPA-CSW-5@CSW15`, or the profile id
    /// alone for a row with no edition.
    pub fn id(&self) -> String {
        match self.edition {
            Some(edition) => format!("{}{EDITION_MARK}{edition}", self.profile.id),
            None => self.profile.id.to_string(),
        }
    }
}

/// A profile and the edition it will judge with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub profile: &'static Profile,
    pub edition: &'static str,
    pub second_opinion: Option<&'static str>,
}

/// Why a profile cannot be chosen: `profile` is its name (or the id asked
/// for, when no profile has it), `reason` names no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub profile: String,
    pub reason: String,
}

/// Whether `profile` can judge with `edition` now, by what `lexicon` says
/// of each id.
fn check(
    profile: &'static Profile,
    edition: &'static str,
    lexicon: &dyn Fn(&str) -> Availability,
) -> Result<Chosen, String> {
    match lexicon(edition) {
        Availability::NotInstalled => return Err(format!("{edition} is not installed")),
        Availability::Unusable(status) => return Err(format!("{edition} is {status}")),
        Availability::Usable => {}
    }
    let second_opinion = profile.second_opinion(edition);
    if profile.changeover {
        let Some(second) = second_opinion else {
            return Err(format!("no edition before {edition} to give a second opinion"));
        };
        match lexicon(second) {
            Availability::NotInstalled => return Err(format!("the second opinion, {second}, is not installed")),
            Availability::Unusable(status) => return Err(format!("the second opinion, {second}, is {status}")),
            Availability::Usable => {}
        }
    }
    Ok(Chosen { profile, edition, second_opinion })
}

/// Why `profile` has no row with an edition.
fn nothing_to_offer(profile: &Profile, lexicon: &dyn Fn(&str) -> Availability) -> String {
    let family = profile.family;
    let installed = family.editions().iter().any(|e| lexicon(e) != Availability::NotInstalled);
    if profile.changeover && installed {
        format!("a changeover needs two successive {}s installed", family.noun())
    } else {
        format!("no {} is installed", family.noun())
    }
}

/// The rows `profile` gives the director menu: one per installed edition
/// of its family, oldest first (for a changeover, each installed edition
/// that replaced another), each available or saying why not; with none,
/// one row saying why.
pub fn offers(profile: &'static Profile, lexicon: &dyn Fn(&str) -> Availability) -> Vec<Offer> {
    let rows: Vec<Offer> = profile
        .family
        .editions()
        .iter()
        .filter(|e| lexicon(e) != Availability::NotInstalled)
        .filter(|e| !profile.changeover || profile.family.previous(e).is_some())
        .map(|e| Offer {
            profile,
            edition: Some(e),
            second_opinion: profile.second_opinion(e),
            unavailable: check(profile, e, lexicon).err(),
        })
        .collect();
    if rows.is_empty() {
        return vec![Offer {
            profile,
            edition: None,
            second_opinion: None,
            unavailable: Some(nothing_to_offer(profile, lexicon)),
        }];
    }
    rows
}

/// The profile and edition a choice id names ([`Offer::id`], or a profile
/// id alone): the edition named, or with none the `active` lexicon when it
/// is of the family, else the newest installed edition that can judge.
pub fn choose(id: &str, active: &str, lexicon: &dyn Fn(&str) -> Availability) -> Result<Chosen, Refused> {
    let (profile_id, edition) = match id.split_once(EDITION_MARK) {
        Some((profile, edition)) => (profile, Some(edition)),
        None => (id, None),
    };
    let Some(profile) = find(profile_id) else {
        return Err(Refused { profile: profile_id.to_string(), reason: "no such profile".into() });
    };
    let refused = |reason: String| Refused { profile: profile.name.to_string(), reason };
    if let Some(edition) = edition {
        let Some(edition) = profile.family.edition(edition) else {
            return Err(refused(format!("{edition} is not {}", profile.family.one())));
        };
        return check(profile, edition, lexicon).map_err(refused);
    }
    let editions = profile.family.editions();
    let candidates = profile.family.edition(active).into_iter().chain(editions.iter().rev().copied());
    let mut first_problem = None;
    for edition in candidates {
        match check(profile, edition, lexicon) {
            Ok(chosen) => return Ok(chosen),
            Err(problem) if lexicon(edition) != Availability::NotInstalled => {
                first_problem.get_or_insert(problem);
            }
            Err(_) => {}
        }
    }
    Err(refused(first_problem.unwrap_or_else(|| nothing_to_offer(profile, lexicon))))
}

#[cfg(test)]
mod tests;
