use super::*;

/// A station with these lexicons installed (`!` marks one that may not judge).
fn station(installed: &'static [&'static str]) -> impl Fn(&str) -> Availability {
    move |id: &str| {
        if installed.contains(&id) {
            Availability::Usable
        } else if installed.iter().any(|i| i.strip_suffix('!') == Some(id)) {
            Availability::Unusable("Mismatch".into())
        } else {
            Availability::NotInstalled
        }
    }
}

fn rows(id: &str, installed: &'static [&'static str]) -> Vec<(Option<&'static str>, Option<String>)> {
    offers(find(id).unwrap(), &station(installed)).into_iter().map(|o| (o.edition, o.unavailable)).collect()
}

#[test]
fn ids_are_unique_and_found_and_old_ids_still_name_a_profile() {
    for p in BUILT_IN {
        assert_eq!(find(p.id), Some(p));
        assert_eq!(BUILT_IN.iter().filter(|q| q.id == p.id).count(), 1, "{}", p.id);
        assert!(!p.id.contains(EDITION_MARK));
    }
    assert_eq!(find("NOPE"), None);
    // Every id a config in the field may hold.
    for old in
        ["NASPA-NWL", "NASPA-TWL", "NASPA-NWL-CHANGEOVER", "NASPA-CSW-5", "NASPA-CSW-10", "WESPA-CSW", "SCHOOL", "DEMO"]
    {
        assert!(find(old).is_some(), "{old}");
    }
    let twl = find("NASPA-TWL").unwrap();
    assert_eq!((twl.id, twl.rule, twl.family), ("NASPA-NWL", ChallengeRule::NaspaDouble, Family::Nwl));
    assert!(twl.applies_to("TWL2016"));
}

#[test]
fn families_are_disjoint_and_ordered_by_succession() {
    for family in Family::ALL {
        for edition in family.editions() {
            assert_eq!(Family::of(edition), Some(family), "{edition}");
            assert!(!edition.contains(EDITION_MARK));
        }
    }
    assert_eq!(Family::Csw.previous("CSW19"), Some("CSW15"));
    assert_eq!(Family::Nwl.previous("NWL2018"), Some("TWL2016"));
    assert_eq!(Family::Nwl.previous("TWL06"), None);
    assert_eq!(Family::Csw.previous("NWL2023"), None);
    for family in Family::ALL {
        assert!(family.one().ends_with(family.noun()), "{family:?}");
    }
}

#[test]
fn a_rule_applies_to_every_edition_of_its_family_and_no_other_lexicon() {
    let school = find("SCHOOL").unwrap();
    assert_eq!(rule_for(Some(school), "OSPD4+MW11"), Some(ChallengeRule::School));
    assert_eq!(rule_for(Some(school), "DEMO"), None);
    assert_eq!(rule_for(None, "DEMO"), None);
    let csw = find("NASPA-CSW-5").unwrap();
    for edition in ["CSW15", "CSW19", "CSW21", "CSW24"] {
        assert_eq!(rule_for(Some(csw), edition), Some(ChallengeRule::PointsPerWord { points: 5 }), "{edition}");
    }
    assert_eq!(rule_for(Some(csw), "NWL2023"), None);
    assert_eq!(rule_for(Some(csw), "CSW15-CLUB"), None, "a custom list is no edition");
}

#[test]
fn with_only_csw15_installed_every_csw_profile_offers_csw15() {
    for id in ["NASPA-CSW-5", "NASPA-CSW-10", "WESPA-CSW"] {
        assert_eq!(rows(id, &["DEMO", "CSW15"]), [(Some("CSW15"), None)], "{id}");
        let chosen = choose(id, "DEMO", &station(&["DEMO", "CSW15"])).unwrap();
        assert_eq!((chosen.profile.id, chosen.edition, chosen.second_opinion), (id, "CSW15", None));
        assert_eq!(choose(&format!("{id}@CSW15"), "DEMO", &station(&["CSW15"])).unwrap().edition, "CSW15");
    }
    // One row per installed edition, oldest first; one that may not judge says why.
    assert_eq!(
        rows("WESPA-CSW", &["CSW15", "CSW21!", "CSW24", "NWL2023"]),
        [(Some("CSW15"), None), (Some("CSW21"), Some("CSW21 is Mismatch".into())), (Some("CSW24"), None)]
    );
}

#[test]
fn with_no_edition_installed_the_reason_names_the_family_and_no_file() {
    let cases = [
        ("NASPA-CSW-5", "no CSW edition is installed"),
        ("NASPA-NWL", "no NWL or TWL edition is installed"),
        ("NASPA-NWL-CHANGEOVER", "no NWL or TWL edition is installed"),
        ("SCHOOL", "no school word list is installed"),
    ];
    for (id, why) in cases {
        assert_eq!(rows(id, &["DEMO"]), [(None, Some(why.to_string()))], "{id}");
        let refused = choose(id, "DEMO", &station(&["DEMO"])).unwrap_err();
        assert_eq!(refused, Refused { profile: find(id).unwrap().name.into(), reason: why.into() });
        assert!(!why.contains(".fst") && !why.contains('/'));
    }
    assert_eq!(rows("DEMO", &["DEMO"]), [(Some("DEMO"), None)]);
}

#[test]
fn choosing_without_an_edition_keeps_the_active_one_else_takes_the_newest_that_judges() {
    let installed = station(&["CSW15", "CSW19", "CSW24!"]);
    assert_eq!(choose("NASPA-CSW-5", "CSW15", &installed).unwrap().edition, "CSW15", "the active edition stays");
    assert_eq!(choose("NASPA-CSW-5", "DEMO", &installed).unwrap().edition, "CSW19", "CSW24 may not judge");
    let refused = choose("NASPA-CSW-5", "DEMO", &station(&["CSW24!"])).unwrap_err();
    assert_eq!(refused.reason, "CSW24 is Mismatch");
    // An edition of another family, an edition not installed, an unknown profile.
    assert_eq!(choose("NASPA-CSW-5@NWL2023", "DEMO", &installed).unwrap_err().reason, "NWL2023 is not a CSW edition");
    assert_eq!(choose("NASPA-CSW-5@CSW21", "DEMO", &installed).unwrap_err().reason, "CSW21 is not installed");
    assert_eq!(choose("NOPE@CSW15", "DEMO", &installed).unwrap_err().profile, "NOPE");
    // An old id chooses the profile it now names.
    let twl = choose("NASPA-TWL", "DEMO", &station(&["TWL2016"])).unwrap();
    assert_eq!((twl.profile.id, twl.edition), ("NASPA-NWL", "TWL2016"));
}

#[test]
fn a_changeover_compares_with_the_edition_the_chosen_one_replaced() {
    let id = "NASPA-NWL-CHANGEOVER";
    let all = station(&["NWL2018", "NWL2020", "NWL2023"]);
    let chosen = choose(id, "DEMO", &all).unwrap();
    assert_eq!((chosen.edition, chosen.second_opinion), ("NWL2023", Some("NWL2020")));
    let older = choose(&format!("{id}@NWL2020"), "DEMO", &all).unwrap();
    assert_eq!(older.second_opinion, Some("NWL2018"));
    // Not the newest two installed: NWL2018 is not the list NWL2023 replaced.
    assert_eq!(
        rows(id, &["NWL2018", "NWL2023"]),
        [
            (Some("NWL2018"), Some("the second opinion, TWL2016, is not installed".into())),
            (Some("NWL2023"), Some("the second opinion, NWL2020, is not installed".into()))
        ]
    );
    assert_eq!(
        rows(id, &["TWL06"]),
        [(None, Some("a changeover needs two successive NWL or TWL editions installed".into()))]
    );
    assert_eq!(rows(id, &["TWL06", "OTCWL2014"]), [(Some("OTCWL2014"), None)]);
    assert_eq!(find("NASPA-NWL").unwrap().second_opinion("NWL2023"), None, "only the changeover has one");
    assert_eq!(offers(find(id).unwrap(), &all)[2].id(), "NASPA-NWL-CHANGEOVER@NWL2023");
}
