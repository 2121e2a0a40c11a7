use super::*;

#[test]
fn versions_compare_by_numeric_components() {
    assert_eq!(compare_versions("0.1.10", "0.1.9"), Some(Ordering::Greater));
    assert_eq!(compare_versions("0.1.1", "0.1.0"), Some(Ordering::Greater));
    assert_eq!(compare_versions("1.0", "1.0.0"), Some(Ordering::Equal));
    assert_eq!(compare_versions("v0.2.0", "0.10.0"), Some(Ordering::Less));
    assert_eq!(compare_versions("0.1.0-rc1", "0.1.0"), None);
    assert_eq!(compare_versions("", "0.1.0"), None);
    assert_eq!(compare_versions("1..2", "1.2"), None);
    assert_eq!(compare_versions("99999999999999999999999", "1"), None);
}

#[test]
fn an_equal_or_older_or_odd_version_needs_the_pin_again() {
    assert_eq!(UpdateKind::of("0.1.0", "0.1.1"), UpdateKind::Upgrade);
    assert_eq!(UpdateKind::of("0.1.0", "0.1.0"), UpdateKind::Reinstall);
    assert_eq!(UpdateKind::of("0.1.1", "0.1.0"), UpdateKind::Downgrade);
    assert_eq!(UpdateKind::of("0.1.0", "banana"), UpdateKind::Downgrade);
    assert!(!UpdateKind::Upgrade.needs_pin());
    assert!(UpdateKind::Reinstall.needs_pin() && UpdateKind::Downgrade.needs_pin());
}

#[test]
fn rauc_info_json_gives_the_facts() {
    let json = r#"{"compatible":"wordjudge-amd64","version":"0.1.1","description":"wordjudge 0.1.1 (amd64)","build":"2026-11-25T16:31:04Z","hooks":[],"images":[]}"#;
    let (compatible, version, description) = parse_info_json(json).unwrap();
    assert_eq!((compatible.as_str(), version.as_str()), ("wordjudge-amd64", "0.1.1"));
    assert_eq!(description, "wordjudge 0.1.1 (amd64)");
    assert!(matches!(parse_info_json("Compatible: 'x'"), Err(UpdateError::Unreadable(_))));
    assert!(matches!(parse_info_json(r#"{"version":"1"}"#), Err(UpdateError::Unreadable(_))));
}

#[test]
fn the_signer_is_the_first_subject_of_the_chain() {
    let text = "Compatible: 'wordjudge-amd64'\nSubject: not this\nCertificate Chain:\n 0 Subject: O = wordjudge boot test, CN = update signer\n   Issuer: O = wordjudge boot test, CN = root\n 1 Subject: O = wordjudge boot test, CN = root\n";
    assert_eq!(parse_signer(text).as_deref(), Some("O = wordjudge boot test, CN = update signer"));
    assert_eq!(parse_signer("Subject: x\n"), None);
}

#[test]
fn progress_lines_give_their_percentage() {
    assert_eq!(parse_progress("  0% Installing"), Some(0));
    assert_eq!(parse_progress(" 42% Copying image to rootfs.1"), Some(42));
    assert_eq!(parse_progress("100% Installing done."), Some(100));
    assert_eq!(parse_progress("installing: 250% nonsense"), None);
    assert_eq!(parse_progress("Installing `/run/x.raucb` succeeded"), None);
}

#[test]
fn release_files_and_boot_checks_parse() {
    assert_eq!(key_value("VERSION=0.1.0\nARCH=amd64\n", "VERSION").as_deref(), Some("0.1.0"));
    assert_eq!(key_value("[system]\ncompatible=wordjudge-amd64\n", "compatible").as_deref(), Some("wordjudge-amd64"));
    assert_eq!(key_value("VERSION=\n", "VERSION"), None);
    let check =
        parse_boot_check("slot=B\nversion=0.1.1\noutcome=rolled-back\ndetail=kiosk not READY in 120 s\n").unwrap();
    assert_eq!(check.outcome, BootOutcome::RolledBack);
    assert_eq!((check.slot.as_str(), check.version.as_str()), ("B", "0.1.1"));
    assert_eq!(check.detail, "kiosk not READY in 120 s");
    assert_eq!(parse_boot_check("slot=B\noutcome=maybe\n"), None);
    let hostile = parse_boot_check("outcome=marked-good\nversion=\u{1b}[2J1.0\n").unwrap();
    assert_eq!(hostile.version, "\\u{1b}[2J1.0");
}

#[test]
fn an_install_started_is_marked_until_its_end_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(install_started(dir.path()), None);
    mark_install_started(dir.path(), "0.2.0").unwrap();
    assert_eq!(install_started(dir.path()).as_deref(), Some("0.2.0"));
    clear_install_started(dir.path());
    assert_eq!(install_started(dir.path()), None);
    clear_install_started(dir.path()); // twice: nothing to do, no complaint
                                       // A marker that is not ours still says an install was under way.
    std::fs::write(dir.path().join(INSTALL_MARKER), "garbage\u{1b}").unwrap();
    assert_eq!(install_started(dir.path()).as_deref(), Some(""));
    // A FIFO or a huge file in its place is never read (a FIFO would
    // block the kiosk's start for ever).
    std::fs::remove_file(dir.path().join(INSTALL_MARKER)).unwrap();
    let fifo = std::ffi::CString::new(dir.path().join(INSTALL_MARKER).to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    assert_eq!(install_started(dir.path()).as_deref(), Some(""));
    clear_install_started(dir.path());
    std::fs::write(dir.path().join(INSTALL_MARKER), vec![b'x'; 1 << 20]).unwrap();
    assert_eq!(install_started(dir.path()).as_deref(), Some(""));
}

#[test]
fn a_boot_check_file_that_is_a_fifo_is_never_read_and_counts_as_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = std::ffi::CString::new(dir.path().join(BOOT_CHECK_FILE).to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let check = pending_boot_check(dir.path()).expect("a file is there");
    assert_eq!(check.outcome, BootOutcome::RolledBack);
    assert!(check.detail.contains("could not be read"), "{}", check.detail);
    mark_boot_check_recorded(dir.path()).unwrap();
    assert_eq!(recorded_boot_check(dir.path()), None);
}

#[test]
fn a_boot_check_is_recorded_by_renaming_it() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(pending_boot_check(dir.path()), None);
    std::fs::write(dir.path().join(BOOT_CHECK_FILE), "slot=B\nversion=0.1.1\noutcome=marked-good\ndetail=\n").unwrap();
    let check = pending_boot_check(dir.path()).unwrap();
    assert_eq!(check.outcome, BootOutcome::MarkedGood);
    mark_boot_check_recorded(dir.path()).unwrap();
    assert_eq!(pending_boot_check(dir.path()), None);
    assert_eq!(recorded_boot_check(dir.path()), Some(check));
}

#[test]
fn only_bundles_at_the_top_are_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.raucb"), "").unwrap();
    std::fs::write(dir.path().join("A.RAUCB"), "").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "").unwrap();
    std::fs::create_dir(dir.path().join("c.raucb")).unwrap();
    let names: Vec<String> = find_bundles(dir.path())
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["A.RAUCB", "b.raucb"]);
}

#[test]
fn backends_parse() {
    assert_eq!(backend("system"), Ok(Backend::System));
    assert_eq!(backend("sim:/tmp/u"), Ok(Backend::Simulated("/tmp/u".into())));
    assert!(backend("sim:").is_err());
}

#[test]
fn a_bad_updates_value_names_the_valid_ones() {
    let text = backend("folders:/tmp/u").unwrap_err().to_string();
    assert!(text.contains("system") && text.contains("sim:DIR") && text.contains("off"), "{text}");
}

#[test]
fn compatible_strings_name_kinds_of_station() {
    assert_eq!(StationKind::of("wordjudge-amd64"), StationKind::PcImage);
    assert_eq!(StationKind::of("wordjudge-arm64"), StationKind::PiCard);
    assert_eq!(StationKind::of("wordjudge-sim"), StationKind::Simulated);
    assert_eq!(StationKind::of("wordjudge-riscv"), StationKind::Other);
    assert_eq!(StationKind::of(""), StationKind::Other);
}

#[test]
fn a_refusal_lasts_until_the_sticks_change() {
    let mut refusals = Refusals::default();
    refusals.plugged(&["sdb1"]);
    refusals.refuse("sdb1", "u.raucb");
    refusals.plugged(&["sdb1"]);
    assert!(refusals.is_refused("sdb1", "u.raucb"));
    assert!(!refusals.is_refused("sdb1", "v.raucb") && !refusals.is_refused("sdc1", "u.raucb"));
    // Pulled out and plugged back in.
    refusals.plugged(&[]);
    refusals.plugged(&["sdb1"]);
    assert!(!refusals.is_refused("sdb1", "u.raucb"));
    // Another stick appears beside it.
    refusals.refuse("sdb1", "u.raucb");
    refusals.plugged(&["sdb1", "sdc1"]);
    assert!(!refusals.is_refused("sdb1", "u.raucb"));
}
