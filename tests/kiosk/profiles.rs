//! Profiles by rule, for every edition (issue 30, item 6): a profile is an
//! event's rule over a family of lexicons, and the director picks the
//! edition among the installed ones, one menu row per (profile, edition).
//! On the fake station, on the live one, and with the real CSW15 list.

use crate::live::{config_for, Live};
use crate::support::{choose, enter_pin, fake_station, leave_menu, open_pin, select_menu, Rig, PIN};
use std::path::Path;
use wordjudge_core::config::{Config, Timeouts};
use wordjudge_core::lexicon::build::build_lexicon;
use wordjudge_station::desks::fake::{FakeLexicon, FakeRecord, FakeStation};
use wordjudge_station::desks::Station;
use wordjudge_station::kiosk::flow::{Key, Screen};

const CSW_RULES: [(&str, &str); 3] = [
    ("NASPA-CSW-5", "NASPA CSW, 5 points per word"),
    ("NASPA-CSW-10", "NASPA CSW, 10 points per word"),
    ("WESPA-CSW", "WESPA CSW, 5 points per word"),
];

/// The fake station's lexicons plus `extra`, every built-in profile offered.
fn fake_with(extra: &[&str]) -> Rig<FakeStation> {
    let mut station = fake_station("SMALL");
    for id in extra {
        station.lexicons.push(FakeLexicon::usable(id, "cat dog qi za zebra xu ok"));
    }
    station.profiles = wordjudge_core::profile::BUILT_IN.iter().collect();
    Rig::with(station, &Timeouts::default())
}

/// The menu's lexicon and event-rule page, where the profiles are.
fn open_menu<S: Station>(rig: &mut Rig<S>) {
    if !matches!(rig.screen(), Screen::Director(_)) {
        open_pin(rig);
        enter_pin(rig, PIN);
    }
    select_menu(rig, "Lexicon and event rule");
    rig.key(Key::Enter);
}

fn profile_rows<S: Station>(rig: &Rig<S>) -> Vec<String> {
    rig.view().menu.items.into_iter().filter(|i| i.starts_with("Profile:")).collect()
}

#[test]
fn with_only_csw15_installed_each_csw_rule_offers_csw15_and_its_rule_shows() {
    for (id, name) in CSW_RULES {
        let mut rig = fake_with(&["CSW15"]);
        open_menu(&mut rig);
        let row = format!("Profile: {name} — CSW15");
        assert!(profile_rows(&rig).contains(&row), "{:?}", profile_rows(&rig));
        choose(&mut rig, &row);
        assert_eq!(rig.view().menu.message, format!("Profile {name}: now judging with CSW15 (Verified)."));
        assert!(profile_rows(&rig).contains(&format!("{row}  ◀ active")), "{:?}", profile_rows(&rig));
        let records = &rig.station.records;
        assert_eq!(
            records[records.len() - 2..],
            [FakeRecord::Switched { to: "CSW15".into() }, FakeRecord::ProfileSwitched { to: id.into() }]
        );
        leave_menu(&mut rig);
        assert_eq!(rig.view().bar.lexicon_id, "CSW15");
        rig.challenge(&["xu"]);
        let points =
            if id == "NASPA-CSW-10" { "+10 to the player: 1 word × 10" } else { "+5 to the player: 1 word × 5" };
        assert_eq!(rig.view().verdict.consequence, format!("The play stands: {points}"), "{id}");
    }
}

#[test]
fn with_no_csw_installed_each_csw_row_says_why_and_names_no_file() {
    let mut rig = fake_with(&["NWL2023"]);
    open_menu(&mut rig);
    let rows = profile_rows(&rig);
    for (_, name) in CSW_RULES {
        let row = format!("Profile: {name} — unavailable: no CSW edition is installed");
        assert_eq!(rows.iter().filter(|r| r.starts_with(&format!("Profile: {name}"))).collect::<Vec<_>>(), [&row]);
        select_menu(&mut rig, &row);
        rig.key(Key::Enter);
        let message = rig.view().menu.message;
        assert_eq!(message, format!("Not switched: {name}: no CSW edition is installed"));
    }
    for text in rows.iter().chain([&rig.view().menu.message]) {
        assert!(!text.contains(".fst") && !text.contains('/') && !text.contains("CSW24"), "{text}");
    }
    assert_eq!(rig.view().bar.lexicon_id, "SMALL", "nothing switched");
    assert!(!rig
        .station
        .records
        .iter()
        .any(|r| matches!(r, FakeRecord::Switched { .. } | FakeRecord::ProfileSwitched { .. })));
    assert!(rows.contains(&"Profile: NASPA, double challenge — NWL2023".to_string()), "{rows:?}");
}

#[test]
fn one_row_per_installed_edition_and_another_edition_of_the_family_keeps_the_rule() {
    let mut rig = fake_with(&["CSW15", "CSW21", "CSW24", "NWL2023"]);
    rig.station.lexicons.push(FakeLexicon::unusable("CSW19", "Mismatch"));
    open_menu(&mut rig);
    let rows: Vec<String> = profile_rows(&rig).into_iter().filter(|r| r.starts_with("Profile: WESPA")).collect();
    assert_eq!(
        rows,
        [
            "Profile: WESPA CSW, 5 points per word — CSW15",
            "Profile: WESPA CSW, 5 points per word — CSW19 — unavailable: CSW19 is Mismatch",
            "Profile: WESPA CSW, 5 points per word — CSW21",
            "Profile: WESPA CSW, 5 points per word — CSW24",
        ]
    );
    choose(&mut rig, "Profile: WESPA CSW, 5 points per word — CSW15");
    // The director moves the event to CSW21 with the lexicon row: still the
    // WESPA rule, now on CSW21.
    choose(&mut rig, "Use CSW21");
    assert_eq!(rig.view().menu.message, "Now judging with CSW21 (Verified).");
    assert!(profile_rows(&rig).contains(&"Profile: WESPA CSW, 5 points per word — CSW21  ◀ active".to_string()));
    assert!(!rig.station.records.contains(&FakeRecord::ProfileCleared));
    leave_menu(&mut rig);
    rig.challenge(&["cat", "xu"]);
    assert_eq!(rig.view().verdict.consequence, "The play stands: +10 to the player: 2 words × 5");
    // Another family drops it.
    rig.advance(600);
    rig.key(Key::Enter);
    open_menu(&mut rig);
    choose(&mut rig, "Use NWL2023");
    assert!(rig.view().menu.message.contains("no challenge rule is shown"), "{}", rig.view().menu.message);
    assert!(rig.station.records.contains(&FakeRecord::ProfileCleared));
}

#[test]
fn a_changeover_row_per_edition_with_the_edition_it_replaced_as_second_opinion() {
    let mut rig = fake_with(&["NWL2018", "NWL2020", "NWL2023"]);
    open_menu(&mut rig);
    let rows: Vec<String> =
        profile_rows(&rig).into_iter().filter(|r| r.starts_with("Profile: NASPA changeover")).collect();
    assert_eq!(
        rows,
        [
            "Profile: NASPA changeover, double challenge — NWL2018 — unavailable: the second opinion, TWL2016, is not installed",
            "Profile: NASPA changeover, double challenge — NWL2020, second opinion NWL2018",
            "Profile: NASPA changeover, double challenge — NWL2023, second opinion NWL2020",
        ]
    );
    choose(&mut rig, "Profile: NASPA changeover, double challenge — NWL2020");
    assert_eq!(
        rig.view().menu.message,
        "Profile NASPA changeover, double challenge: now judging with NWL2020 (Verified)."
    );
    leave_menu(&mut rig);
    rig.station.lexicons.iter_mut().find(|l| l.id == "NWL2018").unwrap().words.remove("OK");
    rig.challenge(&["ok"]);
    assert_eq!(rig.view().verdict.second, "NWL2018 would say: UNACCEPTABLE");
    assert_eq!(rig.view().verdict.consequence, "The play stands: the challenger loses the turn.");
}

#[test]
fn an_old_profile_id_names_the_rule_over_its_family() {
    // A config written before families: `NASPA-TWL`, with TWL2016 active.
    let mut station = fake_station("SMALL");
    station.lexicons.push(FakeLexicon::usable("TWL2016", "cat"));
    let mut station = station.with_active("TWL2016");
    station.profiles = wordjudge_core::profile::BUILT_IN.iter().collect();
    station.profile = wordjudge_core::profile::find("NASPA-TWL");
    let mut rig = Rig::with(station, &Timeouts::default());
    rig.challenge(&["cat"]);
    assert_eq!(rig.view().verdict.consequence, "The play stands: the challenger loses the turn.");
    rig.advance(600);
    rig.key(Key::Enter);
    open_menu(&mut rig);
    assert!(
        profile_rows(&rig).contains(&"Profile: NASPA, double challenge — TWL2016  ◀ active".to_string()),
        "{:?}",
        profile_rows(&rig)
    );
}

/// Installs OSPD4+MW11 (an official lexicon with nothing published: any
/// content judges, Unverified) in `lexicons`.
fn install_school(lexicons: &Path) {
    for (file, words) in [("OSPD4", "CAT\nDOG\nZA\n"), ("MW11-long", "ABANDONMENT\n")] {
        std::fs::write(lexicons.join(format!("{file}.txt")), words).unwrap();
        build_lexicon(&lexicons.join(format!("{file}.txt")), &lexicons.join(format!("{file}.fst")), false).unwrap();
    }
}

#[test]
fn live_old_config_ids_load_and_a_switch_records_the_rule_and_the_edition() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "OSPD4+MW11");
    install_school(&config.lexicon_dir);
    config.profile = Some("NASPA-TWL".into());
    let path = dir.path().join("config.toml");
    let mut rig = Live::with_config(dir, config);
    // The old id loads (no config problem) and names the NASPA rule, which
    // does not apply to a school list.
    open_menu(&mut rig);
    let facts = rig.view().menu.lines.join("\n");
    assert!(
        facts.contains("Profile: NASPA, double challenge — not applied: OSPD4+MW11 is not an NWL or TWL edition"),
        "{facts}"
    );
    let rows = profile_rows(&rig);
    assert!(
        rows.contains(
            &"Profile: NASPA, double challenge — unavailable: no NWL or TWL edition is installed".to_string()
        ),
        "{rows:?}"
    );
    for row in &rows {
        assert!(!row.contains(".fst") && !row.contains('/'), "{row}");
    }
    // A refused choice names no file, and is recorded.
    select_menu(&mut rig, "Profile: NASPA CSW, 5 points per word");
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "Not switched: NASPA CSW, 5 points per word: no CSW edition is installed");
    assert!(rig.audit_text().contains("no CSW edition is installed"), "recorded");
    choose(&mut rig, "Profile: North American school play — OSPD4+MW11");
    assert!(
        rig.view().menu.message.starts_with("Profile North American school play: now judging with OSPD4+MW11"),
        "{}",
        rig.view().menu.message
    );
    let saved = Config::load(&path).config;
    assert_eq!((saved.profile.as_deref(), saved.active_lexicon.as_str()), (Some("SCHOOL"), "OSPD4+MW11"));
    let audit = rig.audit_text();
    let record = audit.lines().find(|l| l.contains("\"profile_switched\"")).unwrap();
    assert!(
        !audit
            .lines()
            .any(|l| l.contains("\"lexicon_switched\"") && l.contains("\"from\":\"OSPD4+MW11\",\"to\":\"OSPD4+MW11\"")),
        "a profile on the lexicon in use records no switch from it to itself: {audit}"
    );
    assert!(record.contains("\"from\":\"NASPA-NWL\"") && record.contains("\"to\":\"SCHOOL\""), "{record}");
    assert!(record.contains("\"lexicon\":\"OSPD4+MW11\"") && record.contains("\"rule\":\"school rule\""), "{record}");
    leave_menu(&mut rig);
    rig.challenge(&["abandonment"]);
    assert_eq!(rig.view().verdict.consequence, "The play stands: the challenging team loses its turn.");
}

#[test]
fn live_a_school_config_judges_under_its_rule_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "OSPD4+MW11");
    install_school(&config.lexicon_dir);
    config.profile = Some("SCHOOL".into());
    let mut rig = Live::with_config(dir, config);
    rig.challenge(&["zebra"]);
    assert_eq!(rig.view().verdict.consequence, "The play comes off the board.");
    assert!(rig.audit_text().contains("\"profile\":\"SCHOOL\""), "the adjudication names the profile");
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_csw15_alone_offers_every_csw_rule_on_the_live_station() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/lexicons");
    assert!(
        shared.join("CSW15.txt").exists(),
        "real-data test: {} (the licensed word lists) not found",
        shared.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    build_lexicon(&shared.join("CSW15.txt"), &config.lexicon_dir.join("CSW15.fst"), false).unwrap();
    let path = dir.path().join("config.toml");
    let mut rig = Live::with_config(dir, config);
    open_menu(&mut rig);
    let rows = profile_rows(&rig);
    for (_, name) in CSW_RULES {
        let csw: Vec<&String> = rows.iter().filter(|r| r.starts_with(&format!("Profile: {name}"))).collect();
        assert_eq!(csw, [&format!("Profile: {name} — CSW15")], "{rows:?}");
    }
    choose(&mut rig, "Profile: NASPA CSW, 10 points per word — CSW15");
    assert_eq!(
        rig.view().menu.message,
        "Profile NASPA CSW, 10 points per word: now judging with CSW15 (Verified official)."
    );
    let saved = Config::load(&path).config;
    assert_eq!((saved.profile.as_deref(), saved.active_lexicon.as_str()), (Some("NASPA-CSW-10"), "CSW15"));
    let audit = rig.audit_text();
    let record = audit.lines().find(|l| l.contains("\"profile_switched\"")).unwrap();
    assert!(
        !audit
            .lines()
            .any(|l| l.contains("\"lexicon_switched\"") && l.contains("\"from\":\"OSPD4+MW11\",\"to\":\"OSPD4+MW11\"")),
        "a profile on the lexicon in use records no switch from it to itself: {audit}"
    );
    assert!(record.contains("\"lexicon\":\"CSW15\"") && record.contains("\"rule\":\"10 points per word\""), "{record}");
    leave_menu(&mut rig);
    rig.challenge(&["qi", "za"]);
    assert_eq!(rig.view().verdict.consequence, "The play stands: +20 to the player: 2 words × 10");
}

#[test]
fn a_profile_on_the_lexicon_in_use_records_the_profile_alone() {
    let mut rig = fake_with(&["CSW15"]);
    open_menu(&mut rig);
    choose(&mut rig, "Use CSW15");
    let before = rig.station.records.len();
    choose(&mut rig, "Profile: NASPA CSW, 5 points per word — CSW15");
    assert_eq!(
        rig.station.records[before..],
        [FakeRecord::ProfileSwitched { to: "NASPA-CSW-5".into() }],
        "no switch from CSW15 to itself"
    );
}
