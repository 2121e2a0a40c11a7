//! Event profiles: what a director actually swaps between events — a
//! lexicon, the event's challenge rule, and an optional second-opinion
//! lexicon for changeovers.
//!
//! Why profiles and not just lexicons: the same list is played under
//! different rules (NASPA's double challenge, the international rule's
//! points per word, school play's lost turn), and players at a station need
//! to read the consequence under the verdict, not argue it from memory. The
//! profiles a station offers are built in ([`BUILT_IN`]), so a director
//! cannot mistype a rule; the config names the active one.

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

/// One event profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Short id stored in the config (`NASPA-CSW-5`).
    pub id: &'static str,
    /// What the director reads in the menu.
    pub name: &'static str,
    /// The lexicon it judges with.
    pub lexicon: &'static str,
    pub rule: ChallengeRule,
    /// A second lexicon whose single verdict is shown, smaller, after the
    /// main one (NASPA Zyzzyva's option for lexicon changeovers).
    pub second_opinion: Option<&'static str>,
}

/// The profiles every station offers.
pub const BUILT_IN: &[Profile] = &[
    Profile {
        id: "NASPA-NWL",
        name: "NASPA, NWL2023 (double challenge)",
        lexicon: "NWL2023",
        rule: ChallengeRule::NaspaDouble,
        second_opinion: None,
    },
    Profile {
        id: "NASPA-TWL",
        name: "NASPA, TWL2016 (double challenge)",
        lexicon: "TWL2016",
        rule: ChallengeRule::NaspaDouble,
        second_opinion: None,
    },
    Profile {
        id: "NASPA-NWL-CHANGEOVER",
        name: "NASPA, NWL2023 with NWL2020 second opinion",
        lexicon: "NWL2023",
        rule: ChallengeRule::NaspaDouble,
        second_opinion: Some("NWL2020"),
    },
    Profile {
        id: "NASPA-CSW-5",
        name: "NASPA CSW24, 5 points per word",
        lexicon: "CSW24",
        rule: ChallengeRule::PointsPerWord { points: 5 },
        second_opinion: None,
    },
    Profile {
        id: "NASPA-CSW-10",
        name: "NASPA CSW24, 10 points per word",
        lexicon: "CSW24",
        rule: ChallengeRule::PointsPerWord { points: 10 },
        second_opinion: None,
    },
    Profile {
        id: "WESPA-CSW",
        name: "WESPA CSW24, 5 points per word",
        lexicon: "CSW24",
        rule: ChallengeRule::PointsPerWord { points: 5 },
        second_opinion: None,
    },
    Profile {
        id: "SCHOOL",
        name: "North American school, OSPD4 + MW11 long words",
        lexicon: "OSPD4+MW11",
        rule: ChallengeRule::School,
        second_opinion: None,
    },
    Profile {
        id: "DEMO",
        name: "Demo (not a tournament lexicon)",
        lexicon: "DEMO",
        rule: ChallengeRule::NaspaDouble,
        second_opinion: None,
    },
];

/// The rule in force for a verdict from `lexicon` under `profile`: the
/// profile's rule only while it judges with the profile's own lexicon. A
/// rule line under a verdict from another lexicon would state another
/// event's consequence.
pub fn rule_for(profile: Option<&Profile>, lexicon: &str) -> Option<ChallengeRule> {
    profile.filter(|p| p.lexicon == lexicon).map(|p| p.rule)
}

/// The built-in profile with this id.
pub fn find(id: &str) -> Option<&'static Profile> {
    BUILT_IN.iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_found() {
        for p in BUILT_IN {
            assert_eq!(find(p.id), Some(p));
            assert_eq!(BUILT_IN.iter().filter(|q| q.id == p.id).count(), 1, "{}", p.id);
        }
        assert_eq!(find("NOPE"), None);
    }

    #[test]
    fn a_rule_only_applies_to_its_own_lexicon() {
        let school = find("SCHOOL").unwrap();
        assert_eq!(rule_for(Some(school), "OSPD4+MW11"), Some(ChallengeRule::School));
        assert_eq!(rule_for(Some(school), "DEMO"), None);
        assert_eq!(rule_for(None, "DEMO"), None);
    }
}
