//! The config's tests: parsing, checking, loading with its fallbacks, saving.

use super::*;

#[test]
fn defaults_round_trip_and_partial_files_fill_in() {
    let text = toml::to_string(&Config::default()).unwrap();
    assert_eq!(Config::from_toml(&text).unwrap(), Config::default());
    let c = Config::from_toml("station_name = \"Table 7\"\n[timeouts]\nverdict_seconds = 6\n").unwrap();
    assert_eq!(c.station_name, "Table 7");
    assert_eq!(c.timeouts.verdict_seconds, 6.0);
    assert_eq!(c.timeouts.entry_idle_seconds, 15.0);
}

#[test]
fn profile_ids_of_configs_in_the_field_still_load() {
    // Every id a saved config may hold, from before profiles had families too.
    for id in
        ["NASPA-NWL", "NASPA-TWL", "NASPA-NWL-CHANGEOVER", "NASPA-CSW-5", "NASPA-CSW-10", "WESPA-CSW", "SCHOOL", "DEMO"]
    {
        let c = Config::from_toml(&format!("active_lexicon = \"CSW15\"\nprofile = \"{id}\"\n")).unwrap();
        assert_eq!(c.profile.as_deref(), Some(id), "kept as written");
    }
    let e = Config::from_toml("profile = \"NASPA-CSW15\"\n").unwrap_err().to_string();
    assert!(e.contains("NASPA-CSW15") && e.contains("NASPA-CSW-5"), "{e}");
}

#[test]
fn rotation_and_display_output_are_refused_with_the_valid_values() {
    let c = Config::from_toml("rotation = 90\ndisplay_output = \"HDMI-A-2\"\n").unwrap();
    assert_eq!((c.rotation, c.display_output.as_deref()), (90, Some("HDMI-A-2")));
    assert_eq!(Config::default().rotation, 0);
    assert_eq!(Config::default().display_output, None, "the first connected screen");
    for ok in ["DSI-1", "DSI-2", "HDMI-A-1", "DPI-1", "eDP-1", "DP-3", "Composite-1"] {
        assert_eq!(check_display_output(ok), Ok(()), "{ok}");
    }
    for bad in ["rotation = 45", "rotation = -90", "rotation = 360", "rotation = \"90\""] {
        let e = Config::from_toml(bad).unwrap_err().to_string();
        assert!(e.contains("is not one of 0, 90, 180, 270"), "{bad}: {e}");
    }
    for bad in ["HDMI1", "hdmi-a-1", "HDMI-A", "HDMI-A-", "list", "", "DSI-1x", "Writeback-1", "HDMI-A-1\n"] {
        let e = Config::from_toml(&format!("display_output = {bad:?}\n")).unwrap_err().to_string();
        assert!(e.contains("HDMI-A-1") && e.contains("DSI"), "{bad}: {e}");
    }
}

#[test]
fn a_bad_rotation_keeps_the_last_good_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut good = Config::default();
    good.rotation = 270;
    good.display_output = Some("DSI-1".into());
    good.save(&path).unwrap();
    for bad in ["rotation = 45\n", "display_output = \"HDMI\"\n"] {
        let text = good.to_text().replace("rotation = 270\n", "").replace("display_output = \"DSI-1\"\n", "");
        std::fs::write(&path, format!("{bad}{text}")).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.source, ConfigSource::LastGood, "{bad}");
        assert_eq!(loaded.config, good, "{bad}: the last good rotation and output stay in force");
        let problem = loaded.problem.map(|p| p.to_string()).unwrap_or_default();
        assert!(problem.contains("0, 90, 180, 270") || problem.contains("e.g. HDMI-A-1"), "{bad}: {problem}");
    }
}

#[test]
fn broken_or_missing_config_gives_defaults_and_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let missing = Config::load(&dir.path().join("none.toml"));
    assert_eq!(missing.config, Config::default());
    assert_eq!(missing.source, ConfigSource::Defaults, "a fresh station");
    assert!(missing.problem.unwrap().to_string().contains("none.toml"));
    for bad in [
        "station_name = ",
        "stationname = \"x\"",
        "[timeouts]\nverdict_seconds = -1",
        "\u{0}\u{1}",
        "",
        "# only a comment\n",
        "[timeouts]\nverdict_seconds = 0.05",
    ] {
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, bad).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.config, Config::default(), "{bad}");
        assert_eq!(loaded.source, ConfigSource::Unusable, "{bad}: no last good copy, so no judging");
        assert!(loaded.problem.unwrap().to_string().contains("broken"), "{bad}");
    }
}

#[test]
fn a_typo_keeps_the_last_good_config_and_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut good = Config::default();
    good.active_lexicon = "CSW15".into();
    good.audit_dir = dir.path().join("audit-here");
    good.director_pin_hash = Some("$argon2id$fake".into());
    good.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap().replace("active_lexicon", "active_lexicn");
    std::fs::write(&path, text).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::LastGood);
    assert_eq!(loaded.config, good, "same lexicon, audit folder and PIN");
    match loaded.problem {
        Some(ConfigProblem::Syntax { line, ref message, .. }) => {
            assert!(line >= 2, "line {line}");
            assert!(message.contains("active_lexicn"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn special_and_huge_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.toml");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let big = dir.path().join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(100 * 1024 * 1024).unwrap();
    for path in [Path::new("/dev/zero"), fifo.as_path(), big.as_path()] {
        let started = std::time::Instant::now();
        let loaded = Config::load(path);
        assert!(started.elapsed() < std::time::Duration::from_secs(1), "{}", path.display());
        assert!(
            matches!(loaded.problem, Some(ConfigProblem::Unreadable { .. })),
            "{}: {:?}",
            path.display(),
            loaded.problem
        );
        assert_eq!(loaded.source, ConfigSource::Unusable);
    }
}

#[test]
fn a_damaged_guard_never_makes_a_station_fresh_or_prove_it_had_no_pin() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let guard = crate::guard::path_for(&path);
    // Nothing but a guard padded past its size: not a fresh station.
    std::fs::write(&guard, "# padding\n".repeat(1000)).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::Unusable, "{:?}", loaded.problem);
    assert!(loaded.problem.unwrap().to_string().contains("PIN guard is damaged"));
    // A config with no PIN line and no last good copy, beside a damaged
    // guard: the PIN may have been lost, so it is not in force.
    let mut c = Config::default();
    c.active_lexicon = "CSW15".into();
    std::fs::write(&path, c.to_text()).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::Unusable, "never a station that offers a first PIN");
    assert!(
        matches!(loaded.problem, Some(ConfigProblem::LostSettings { ref lost, .. }) if lost.contains(&"director_pin_hash"))
    );
}

#[test]
fn a_missing_config_with_a_damaged_last_good_copy_is_not_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(last_good_path(&path), "").unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::Unusable);
    let problem = loaded.problem.unwrap().to_string();
    assert!(problem.contains("not a fresh one") && problem.contains("last good copy is damaged"), "{problem}");
}

#[test]
fn save_then_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    let mut c = Config::default();
    c.active_lexicon = "CSW15".into();
    c.save(&path).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.problem, None);
    assert_eq!(loaded.config, c);
    assert_eq!(Config::load(&last_good_path(&path)).config, c, "the last good copy is written too");
}

#[test]
fn a_time_zone_name_is_refused_unless_it_is_formed_as_the_database_names_zones() {
    let c = Config::from_toml("time_zone = \"America/Port-au-Prince\"\n").unwrap();
    assert_eq!(c.time_zone.as_deref(), Some("America/Port-au-Prince"));
    for bad in [
        "../../etc/passwd",
        "/etc/localtime",
        "Europe//London",
        "Europe/London\n",
        "Europe/Lon don",
        "",
        "A/".repeat(30).as_str(),
    ] {
        let e = Config::from_toml(&format!("time_zone = {bad:?}\n")).unwrap_err().to_string();
        assert!(e.contains("is not a time zone name"), "{bad:?}: {e}");
        assert!(time_zone(Some(bad)).is_err(), "{bad:?}");
    }
    assert!(time_zone(Some("Mars/Olympus_Mons")).unwrap_err().contains("not in this station's time zone database"));
    assert_eq!(time_zone(Some("Etc/GMT+3")).unwrap().iana_name(), Some("Etc/GMT+3"));
}

#[test]
fn touch_is_auto_unless_set_and_refuses_other_words() {
    use crate::config::Touch;
    assert_eq!(Config::default().touch, Touch::Auto);
    assert_eq!(Config::from_toml("touch = \"on\"\n").unwrap().touch, Touch::On);
    assert_eq!(Config::from_toml("touch = \"off\"\n").unwrap().touch, Touch::Off);
    assert!(Config::from_toml("touch = \"yes\"\n").is_err(), "only auto, on or off");
    assert!(Config::from_toml("touch = true\n").is_err());
    assert!(Touch::Auto.shown(true) && !Touch::Auto.shown(false));
    assert!(Touch::On.shown(false) && !Touch::Off.shown(true));
}
