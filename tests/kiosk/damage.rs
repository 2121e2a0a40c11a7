//! A damaged card never hands the director menu to a passer-by (issue 30):
//! a config that lost its PIN line, a config cut to its first lines, a
//! config and its last good copy both deleted with the audit log elsewhere,
//! and a lockout taken while the clock said 2099. Each case on the live
//! station, restarted over the damaged files as the kiosk would be.

use crate::live::{audit_text, config_for, start_station};
use crate::support::{choose, confirm, enter_pin, leave_menu, open_pin, Rig, PIN};
use std::path::{Path, PathBuf};
use wordjudge_core::config::{Config, ConfigProblem, ConfigSource};
use wordjudge_station::kiosk::flow::{Key, MenuItem, MenuPage, Screen};
use wordjudge_station::kiosk::view::ScreenKind;

/// A station with a PIN, a licensed-looking lexicon and its audit log in a
/// folder that is not the default; one challenge judged. Returns the
/// config's path, the config and the challenge's number.
fn used_station(dir: &Path) -> (PathBuf, Config, u64) {
    let mut config = config_for(dir, "OTHER");
    config.audit_dir = dir.join("audit-elsewhere");
    let path = dir.join("config.toml");
    config.save(&path).unwrap();
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    let (_, number) = rig.challenge(&["xyzzy"]);
    (path, config, number)
}

/// After a restart over damaged files: players cannot judge, the chord asks
/// for the existing PIN (never a new one), and that PIN opens the menu.
fn asks_the_existing_pin(path: &Path, config: &Config) -> Rig<wordjudge_station::desks::live::LiveStation> {
    let mut rig = Rig::with(start_station(path), &config.timeouts);
    assert_eq!(rig.screen(), &Screen::OutOfService, "no player judges on a damaged card");
    rig.keys("1");
    assert_eq!(rig.screen(), &Screen::OutOfService);
    open_pin(&mut rig);
    enter_pin(&mut rig, "1357");
    assert_eq!(rig.view().screen, ScreenKind::Pin, "a new PIN opens nothing");
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().screen, ScreenKind::Director, "the existing PIN opens the menu");
    rig
}

#[test]
fn a_config_that_lost_its_pin_line_asks_for_the_existing_pin() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, first) = used_station(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    let cut: String = text.lines().filter(|l| !l.starts_with("director_pin_hash")).map(|l| format!("{l}\n")).collect();
    assert_ne!(cut, text);
    std::fs::write(&path, cut).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::LastGood);
    assert!(
        matches!(&loaded.problem, Some(ConfigProblem::LostSettings { lost, .. }) if lost == &["director_pin_hash"])
    );

    let mut rig = asks_the_existing_pin(&path, &config);
    choose(&mut rig, "Restore the last good settings");
    leave_menu(&mut rig);
    let (ok, next) = rig.challenge(&["xyzzy"]);
    assert!(ok && next == first + 1, "judging again, in the same chain: #{first} then #{next}");
    let log = audit_text(&config.audit_dir);
    assert!(log.contains("lost settings") && log.contains("director_pin_hash"), "the damage is recorded");
    assert!(log.contains("restored from the last good copy"), "the restore is recorded");
    assert!(!log.contains("first PIN"), "no first PIN was ever offered");
}

#[test]
fn a_config_cut_to_its_first_lines_keeps_its_pin_lexicon_and_chain() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, _) = used_station(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    let cut: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    assert!(toml::from_str::<toml::Table>(&cut).is_ok(), "still valid TOML: {cut}");
    std::fs::write(&path, &cut).unwrap();

    let rig = asks_the_existing_pin(&path, &config);
    assert_eq!(rig.view().bar.lexicon_id, "OTHER", "never DEMO");
    let log = audit_text(&config.audit_dir);
    assert!(log.contains("config_problem") && log.contains("audit_dir"), "recorded in the station's own chain");
    assert_eq!(Config::load(&path).config.audit_dir, config.audit_dir, "not the default folder's new chain");
}

/// Issue 55, item 3: both settings files gone, the PIN guard whole. The
/// PIN opens a menu whose only change is "Set up this station again"; the
/// fresh config keeps the PIN and the station's own chain, takes one
/// record, and players see "not set up" until a lexicon is chosen.
#[test]
fn a_deleted_config_and_copy_is_set_up_again_by_the_director_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, number) = used_station(dir.path());
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(wordjudge_core::config::last_good_path(&path)).unwrap();
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::Unusable, "{:?}", loaded.problem);
    assert_eq!(loaded.config.audit_dir, config.audit_dir, "the guard names the station's own chain");

    let mut rig = asks_the_existing_pin(&path, &config);
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("Set up this station again") && !lines.contains("Only an operator"), "{lines}");
    assert!(!lines.contains("os error") && !lines.contains("config.toml"), "no file names or system errors: {lines}");
    let Screen::Director(menu) = rig.screen().clone() else { panic!("{:?}", rig.screen()) };
    assert_eq!(menu.items[0], MenuItem::SetUpAgain, "{:?}", menu.items);
    for page in [MenuPage::Lexicon, MenuPage::Station, MenuPage::Fleet] {
        assert!(!menu.items.contains(&MenuItem::Open(page)), "no page whose entries would refuse: {:?}", menu.items);
    }
    rig.key(Key::Escape);
    let v = rig.view();
    assert_eq!(v.service.title, "This station is not set up for the event yet.", "{v:?}");
    assert_eq!(v.service.detail, "Its settings are damaged.");

    // The name, typed over the prefilled one; the confirmation names it.
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    rig.key(Key::Enter);
    assert_eq!(rig.view().edit.title, "Set up this station again");
    rig.keys("Table 7");
    rig.key(Key::Enter);
    assert!(rig.view().confirm.question.contains("Table 7"), "{:?}", rig.view().confirm);
    confirm(&mut rig);
    assert!(rig.view().menu.message.contains("set up again"), "{}", rig.view().menu.message);
    let fresh = Config::load(&path);
    assert_eq!(fresh.source, ConfigSource::File);
    assert_eq!(fresh.config.station_name, "Table 7");
    assert_eq!(fresh.config.director_pin_hash, config.director_pin_hash, "the PIN is kept");
    assert_eq!(fresh.config.audit_dir, config.audit_dir, "the station's own chain is kept");
    let log = audit_text(&config.audit_dir);
    assert_eq!(log.matches("set up again as Table 7").count(), 1, "one record: {log}");
    // The next step is where the director already is: the list and the
    // profile. Players still judge nothing until the director chooses one.
    assert!(
        matches!(rig.screen(), Screen::Director(menu) if menu.page == MenuPage::Lexicon),
        "set up again leads on to the Lexicon page: {:?}",
        rig.screen()
    );
    leave_menu(&mut rig);
    assert_eq!(rig.view().service.title, "This station is not set up for the event yet.");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    choose(&mut rig, "Use OTHER");
    leave_menu(&mut rig);
    let (_, next) = rig.challenge(&["xyzzy"]);
    assert_eq!(next, number + 1, "the numbering goes on from the station's own chain");
    assert_eq!(rig.view().bar.station_name, "Table 7");
    let report = wordjudge_core::inspect::verify(&config.audit_dir).unwrap();
    assert!(report.ok(), "{report}");
}

#[test]
fn a_fresh_station_still_sets_its_first_pin() {
    // The guard must not make every station look used: one that never had
    // a PIN nor a log is fresh.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let loaded = Config::load(&path);
    assert_eq!(loaded.source, ConfigSource::Defaults);
}

#[test]
fn a_lockout_taken_while_the_clock_said_2099_lasts_at_most_an_hour() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, _) = used_station(dir.path());
    // The guard as the old wall-clock lockout left it: locked until 2099.
    let guard = wordjudge_core::guard::path_for(&path);
    let mut text = std::fs::read_to_string(&guard).unwrap();
    text.push_str("failures 3\nlockouts 1\nlocked_until 4102444800\n");
    std::fs::write(&guard, text).unwrap();
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    open_pin(&mut rig);
    let message = rig.view().pin.message;
    let seconds: u64 = message.split_whitespace().find_map(|w| w.parse().ok()).expect(&message);
    assert!(seconds <= 3600, "{message}");
    // Waiting the hour out on the boot clock opens it.
    rig.advance(3_601_000);
    if !matches!(rig.screen(), Screen::Pin(_)) {
        open_pin(&mut rig);
    }
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().screen, ScreenKind::Director);
}

#[test]
fn blank_pins_are_not_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, _) = used_station(dir.path());
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    open_pin(&mut rig);
    for _ in 0..10 {
        rig.key(Key::Enter);
    }
    assert!(!rig.view().pin.message.starts_with("Locked"), "{}", rig.view().pin.message);
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert!(!audit_text(&config.audit_dir).contains("pin_refused"), "no wrong PIN recorded");
}

/// The guard padded past its size, then the PIN line and the last good copy
/// deleted: the guard proves nothing, so nothing proves there never was a
/// PIN. Out of service; the chord asks for a PIN (never a first one) that
/// nothing accepts: an operator restores the station.
#[test]
fn a_padded_guard_with_the_pin_line_and_copy_deleted_never_offers_a_first_pin() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, _) = used_station(dir.path());
    let guard = wordjudge_core::guard::path_for(&path);
    let mut padded = std::fs::read_to_string(&guard).unwrap();
    padded.push_str(&"# padding\n".repeat(500));
    std::fs::write(&guard, padded).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let cut: String = text.lines().filter(|l| !l.starts_with("director_pin_hash")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, cut).unwrap();
    std::fs::remove_file(wordjudge_core::config::last_good_path(&path)).unwrap();

    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    rig.key(Key::DirectorChord);
    assert_eq!(rig.view().screen, ScreenKind::Pin, "never the first PIN's prompt: {:?}", rig.view());
    for pin in ["1357", PIN] {
        enter_pin(&mut rig, pin);
        assert_eq!(rig.view().screen, ScreenKind::Pin, "{pin} opens nothing");
    }
    assert!(rig.view().pin.message.contains("cannot be set here"), "{}", rig.view().pin.message);
}

/// A guard replaced by a directory: wrong PINs still lock the prompt in
/// this run, and the director is told they are not kept across a restart,
/// on the menu's pages and in one record. (A FIFO in its place is replaced
/// at start from the whole config, and that is recorded:
/// `a_damaged_guard_beside_a_whole_config_is_written_again_and_recorded`.)
#[test]
fn a_guard_that_cannot_be_written_is_a_warning_and_a_record_never_silence() {
    {
        let damage = "directory";
        let dir = tempfile::tempdir().unwrap();
        let (path, config, _) = used_station(dir.path());
        let guard = wordjudge_core::guard::path_for(&path);
        std::fs::remove_file(&guard).unwrap();
        if damage == "directory" {
            std::fs::create_dir(&guard).unwrap();
        } else {
            let fifo = std::ffi::CString::new(guard.as_os_str().as_encoded_bytes()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        }
        let mut rig = Rig::with(start_station(&path), &config.timeouts);
        assert!(crate::support::is_ready(rig.screen()), "{damage}: the config and its copy still hold the PIN");
        open_pin(&mut rig);
        enter_pin(&mut rig, "1357");
        enter_pin(&mut rig, PIN);
        assert_eq!(rig.view().screen, ScreenKind::Director, "{damage}");
        let lines = rig.view().menu.lines.join("\n");
        assert!(lines.contains("wrong PINs and lockouts are not kept across a restart"), "{damage}: {lines}");
        let log = audit_text(&config.audit_dir);
        let records = log.lines().filter(|l| l.contains("\"setting\":\"pin_guard\"")).count();
        assert_eq!(records, 1, "{damage}: one record while the reason stays the same: {log}");
    }
}

/// Another station's guard copied over this one's (the same install, so it
/// names the same audit folder), then the PIN line and the last good copy
/// deleted: the guard names another station's audit key, so it proves
/// nothing. Out of service; neither the other station's PIN nor a new one
/// opens the menu.
#[test]
fn another_stations_guard_copied_in_never_lets_its_pin_open_this_station() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, _) = used_station(&dir.path().join("this").tap_dir());
    let (other_path, _, _) = used_station(&dir.path().join("other").tap_dir());
    let guard = wordjudge_core::guard::path_for(&path);
    let ours = std::fs::read_to_string(&guard).unwrap();
    assert!(ours.contains("audit_key "), "a used station's guard names its audit key:\n{ours}");
    // The other station's guard as it would be on an identical card: its
    // own PIN and key, this station's folder path.
    let theirs = std::fs::read_to_string(wordjudge_core::guard::path_for(&other_path)).unwrap();
    let other_dir = dir.path().join("other").join("audit-elsewhere");
    let copied = theirs.replace(other_dir.to_str().unwrap(), config.audit_dir.to_str().unwrap());
    std::fs::write(&guard, &copied).unwrap();
    assert!(
        wordjudge_core::guard::Guard::read(&guard).damaged.is_some_and(|d| d.contains("another station")),
        "{:?}",
        wordjudge_core::guard::Guard::read(&guard)
    );
    // With the config whole, the station judges on and its own PIN works.
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert!(crate::support::is_ready(rig.screen()));
    drop(rig);
    // The guard was repaired from the whole config: write the copy again,
    // then lose the PIN line and the last good copy.
    std::fs::write(&guard, &copied).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let cut: String = text.lines().filter(|l| !l.starts_with("director_pin_hash")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, cut).unwrap();
    std::fs::remove_file(wordjudge_core::config::last_good_path(&path)).unwrap();
    rig = Rig::with(start_station(&path), &config.timeouts);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    rig.key(Key::DirectorChord);
    assert_eq!(rig.view().screen, ScreenKind::Pin, "never the first PIN's prompt: {:?}", rig.view());
    // The other station's PIN is the same digits in this rig: it is the
    // hash copied in that must open nothing.
    for pin in ["1357", PIN] {
        enter_pin(&mut rig, pin);
        assert_eq!(rig.view().screen, ScreenKind::Pin, "{pin} opens nothing");
    }
}

trait TapDir {
    fn tap_dir(self) -> Self;
}

impl TapDir for PathBuf {
    fn tap_dir(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

/// A FIFO (or padding) in the guard's place beside a whole config: the
/// kiosk writes the guard again from the config at start, says so in the
/// log, and lockouts are kept again.
#[test]
fn a_damaged_guard_beside_a_whole_config_is_written_again_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (path, config, _) = used_station(dir.path());
    let guard = wordjudge_core::guard::path_for(&path);
    std::fs::remove_file(&guard).unwrap();
    let fifo = std::ffi::CString::new(guard.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert!(crate::support::is_ready(rig.screen()));
    let read = wordjudge_core::guard::Guard::read(&guard);
    assert!(read.damaged.is_none() && read.pin_hash.is_some() && read.audit_key.is_some(), "{read:?}");
    let log = audit_text(&config.audit_dir);
    assert!(log.contains("the PIN guard was damaged") && log.contains("FIFO"), "{log}");
    open_pin(&mut rig);
    enter_pin(&mut rig, "1357");
    enter_pin(&mut rig, PIN);
    let lines = rig.view().menu.lines.join("\n");
    assert!(!lines.contains("not kept across a restart"), "{lines}");
}
