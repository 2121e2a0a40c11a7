//! The kiosk flow against the live station on small lexicons the test builds
//! (config, lexicon directory and audit log in a temporary directory): what
//! must reach the audit log and the config, and how real lexicon statuses
//! and a broken config take the station out of service.

use crate::support::{choose, enter_pin, leave_menu, one_verdict_per_play, open_pin, select_menu, Rig, PIN};
use std::path::Path;
use wordjudge_core::config::{Config, ConfigSource};
use wordjudge_core::lexicon::build::build_lexicon;
use wordjudge_core::recorder::AuditLog;
use wordjudge_station::desks::live::{LiveStation, StationSetup};
use wordjudge_station::kiosk::flow::{Event, Key, MenuItem, Screen};
use wordjudge_station::kiosk::view::ScreenKind;

pub(crate) struct Live {
    pub(crate) rig: Rig<LiveStation>,
    pub(crate) dir: tempfile::TempDir,
}

impl std::ops::Deref for Live {
    type Target = Rig<LiveStation>;
    fn deref(&self) -> &Self::Target {
        &self.rig
    }
}

impl std::ops::DerefMut for Live {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.rig
    }
}

pub(crate) fn lexicon(dir: &Path, id: &str, words: &str, published: Option<&str>) {
    std::fs::write(dir.join(format!("{id}.txt")), words).unwrap();
    build_lexicon(&dir.join(format!("{id}.txt")), &dir.join(format!("{id}.fst")), false).unwrap();
    let fp = published.map(|p| format!("published_fingerprint = \"{p}\"\n")).unwrap_or_default();
    std::fs::write(
        dir.join(format!("{id}.toml")),
        format!("id = \"{id}\"\nname = \"{id} list\"\nedition = \"test\"\n[[layer]]\nfst = \"{id}.fst\"\n{fp}"),
    )
    .unwrap();
}

pub(crate) fn config_for(dir: &Path, active: &str) -> Config {
    let lexicons = dir.join("lexicons");
    std::fs::create_dir_all(&lexicons).unwrap();
    lexicon(&lexicons, "SMALL", "CAT\nDOG\nQI\nZA\nZEBRA\nABANDONMENT\n", None);
    lexicon(&lexicons, "OTHER", "XYZZY\nCAT\n", None);
    lexicon(&lexicons, "WRONG", "CAT\n", Some("0badf00d"));
    lexicon(&lexicons, "BROKEN", "CAT\nDOG\n", None);
    let fst = lexicons.join("BROKEN.fst");
    let mut bytes = std::fs::read(&fst).unwrap();
    bytes.truncate(bytes.len() - 1);
    std::fs::write(&fst, bytes).unwrap();
    let mut config = Config::default();
    config.station_name = "Table 3".into();
    config.lexicon_dir = lexicons;
    config.audit_dir = dir.join("audit");
    config.active_lexicon = active.into();
    // A station set up to practise on DEMO (a real event's is tested apart).
    config.practice_with_demo = active == "DEMO";
    config.director_pin_hash = Some(wordjudge_core::pin::hash_pin(PIN).unwrap());
    config
}

pub(crate) fn start_station(path: &Path) -> LiveStation {
    // Each folder of `sticks/` beside the config is a plugged-in stick.
    let sticks =
        std::sync::Arc::new(wordjudge_core::usb::sim::FolderSticks::new(path.parent().unwrap().join("sticks")));
    start_station_with(path, sticks)
}

pub(crate) fn start_station_with(path: &Path, sticks: std::sync::Arc<dyn wordjudge_core::usb::Sticks>) -> LiveStation {
    start_station_updating(path, sticks, std::sync::Arc::new(wordjudge_core::update::NoUpdates))
}

/// A live station with `sticks` and `updates` (and one keyboard).
pub(crate) fn start_station_updating(
    path: &Path,
    sticks: std::sync::Arc<dyn wordjudge_core::usb::Sticks>,
    updates: std::sync::Arc<dyn wordjudge_core::update::Updates>,
) -> LiveStation {
    start_station_typing(path, sticks, updates, std::sync::Arc::new(wordjudge_core::keyboard::SimKeyboards::new(1)))
}

/// A live station with `sticks`, `updates` and `keyboards`.
pub(crate) fn start_station_typing(
    path: &Path,
    sticks: std::sync::Arc<dyn wordjudge_core::usb::Sticks>,
    updates: std::sync::Arc<dyn wordjudge_core::update::Updates>,
    keyboards: std::sync::Arc<dyn wordjudge_core::keyboard::Keyboards>,
) -> LiveStation {
    let mut loaded = Config::load(path);
    // As the kiosk's runner does it: with no config in force, only a chain
    // the folder already holds (the guard's, or the default) takes the
    // record, under the name its last record carries.
    let audit = wordjudge_station::app::runner::open_audit(&mut loaded).unwrap();
    let config = loaded.config.clone();
    // With no config in force, the lists the guard remembers.
    let lexicon_dir = config.lexicon_dir.clone();
    LiveStation::start(StationSetup {
        loaded,
        lexicon_dir,
        audit,
        gpio_problem: None,
        gpio_description: "none (test)".into(),
        pin_checker: wordjudge_station::desks::pin::checker::PinChecker::InProcess,
        appliance: false,
        sticks,
        updates,
        keyboards,
    })
}

/// A live station over the config at `path` whose audit log is `audit`
/// (opened with a clock of the test's own), with no sticks and no updates.
pub(crate) fn start_station_with_log(path: &Path, audit: AuditLog) -> LiveStation {
    let loaded = Config::load(path);
    LiveStation::start(StationSetup {
        lexicon_dir: loaded.config.lexicon_dir.clone(),
        loaded,
        audit: Some(audit),
        gpio_problem: None,
        gpio_description: "none (test)".into(),
        pin_checker: wordjudge_station::desks::pin::checker::PinChecker::InProcess,
        appliance: false,
        sticks: std::sync::Arc::new(wordjudge_core::usb::NoSticks),
        updates: std::sync::Arc::new(wordjudge_core::update::NoUpdates),
        keyboards: std::sync::Arc::new(wordjudge_core::keyboard::SimKeyboards::new(1)),
    })
}

impl Live {
    pub(crate) fn with_config(dir: tempfile::TempDir, config: Config) -> Live {
        let path = dir.path().join("config.toml");
        config.save(&path).unwrap();
        assert_eq!(Config::load(&path).problem, None);
        let station = start_station(&path);
        Live { rig: Rig::with(station, &config.timeouts), dir }
    }

    pub(crate) fn new(active: &str) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let config = config_for(dir.path(), active);
        Live::with_config(dir, config)
    }

    pub(crate) fn audit_text(&self) -> String {
        audit_text(&self.dir.path().join("audit"))
    }
}

pub(crate) fn audit_text(dir: &Path) -> String {
    let mut text = String::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        text += &std::fs::read_to_string(f).unwrap_or_default();
    }
    text
}

#[test]
fn verdicts_come_from_the_lexicon_and_only_the_audit_log_says_which_word_failed() {
    let mut rig = Live::new("SMALL");
    one_verdict_per_play(&mut *rig, "SMALL");
    // Which word failed exists only in the audit log.
    assert!(rig.audit_text().contains("XYZZY"));
}

#[test]
fn judge_button_is_audited_as_button() {
    let mut rig = Live::new("SMALL");
    rig.keys("1");
    rig.keys("zebra");
    rig.event(Event::JudgeButton);
    assert!(rig.verdict().0);
    let audit = rig.audit_text();
    let record = audit.lines().find(|l| l.contains("ZEBRA")).expect("the adjudication is in the audit log");
    assert!(record.contains("\"trigger\":\"button\""), "{record}");
    rig.advance(600);
    rig.key(Key::Char(' '));
    rig.challenge(&["cat"]);
    let audit = rig.audit_text();
    let record = audit.lines().rfind(|l| l.contains("\"CAT\"")).unwrap();
    assert!(record.contains("\"trigger\":\"keyboard\""), "{record}");
}

#[test]
fn director_pin_events_are_audited() {
    let mut rig = Live::new("SMALL");
    open_pin(&mut rig);
    for wrong in ["1111", "2222", "3333"] {
        enter_pin(&mut rig, wrong);
    }
    rig.key(Key::Escape);
    rig.advance(30_500);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)), "after 30 s the right PIN opens the menu");
    let audit = rig.audit_text();
    for event in ["pin_refused", "locked_out", "pin_accepted"] {
        assert!(audit.contains(event), "{event} is audited");
    }
}

#[test]
fn director_switches_lexicons_and_config_follows() {
    let mut rig = Live::new("SMALL");
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(rig.view().menu.lines.iter().any(|l| l.contains("Table 3")));
    select_menu(&mut rig, "Lexicon and event rule");
    rig.key(Key::Enter);
    let items = match rig.screen() {
        Screen::Director(menu) => menu.items.clone(),
        other => panic!("{other:?}"),
    };
    let ids: Vec<String> =
        items.iter().filter_map(|i| if let MenuItem::UseLexicon(c) = i { Some(c.id.clone()) } else { None }).collect();
    assert_eq!(ids, ["DEMO", "BROKEN", "OTHER", "SMALL", "WRONG"]);
    let statuses = rig.view().menu.items.join("\n");
    assert!(statuses.contains("BROKEN — Corrupt") && statuses.contains("WRONG — Mismatch"), "{statuses}");
    let select = |rig: &mut Live, id: &str| choose(rig, &format!("Use {id} "));
    select(&mut rig, "BROKEN");
    assert!(rig.view().menu.message.starts_with("Not switched"), "{}", rig.view().menu.message);
    select(&mut rig, "WRONG");
    assert!(rig.view().menu.message.starts_with("Not switched"));
    assert_eq!(rig.kiosk.lexicon().id, "SMALL", "a refused switch changes nothing");
    select(&mut rig, "OTHER");
    assert!(rig.view().menu.message.contains("Now judging with OTHER"), "{}", rig.view().menu.message);
    let saved = Config::load(&rig.dir.path().join("config.toml"));
    assert_eq!(saved.config.active_lexicon, "OTHER", "written to the config");
    assert!(saved.config.director_pin_hash.is_some(), "the rest of the config is kept");
    leave_menu(&mut rig);
    assert_eq!(rig.view().bar.lexicon_id, "OTHER");
    assert!(rig.challenge(&["xyzzy"]).0, "in effect at once");
    let audit = rig.audit_text();
    assert!(audit.contains("lexicon_switched"));
    assert!(audit.contains("lexicon_switch_refused"), "refused switches are director actions, recorded too");
}

#[test]
fn out_of_service_when_the_lexicon_cannot_judge() {
    for active in ["BROKEN", "WRONG", "MISSING"] {
        let mut rig = Live::new(active);
        crate::support::out_of_service_until_the_director_switches(&mut *rig, active);
    }
}

#[test]
fn with_no_licensed_lexicon_the_demo_judges_and_says_demo() {
    let mut rig = Live::new("DEMO");
    let v = rig.view();
    assert!(v.bar.demo && v.bar.lexicon_id == "DEMO");
    assert!(rig.challenge(&["zebra"]).0);
    assert!(rig.view().bar.demo, "the verdict screen says DEMO too");
}

#[test]
fn a_typo_in_the_config_never_changes_who_judges() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "OTHER");
    config.audit_dir = dir.path().join("audit-configured");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    // A first run numbers a challenge in the configured folder.
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    let (_, first) = rig.challenge(&["xyzzy"]);
    drop(rig);
    // The director's typo.
    let text = std::fs::read_to_string(&path).unwrap().replace("station_name", "station_nmae");
    std::fs::write(&path, text).unwrap();
    assert_eq!(Config::load(&path).source, ConfigSource::LastGood);
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert_eq!(rig.view().bar.lexicon_id, "OTHER", "still the configured lexicon, not DEMO");
    // Held for the director: no player judges until the director has seen
    // the damage and restored the last good settings.
    assert_eq!(rig.screen(), &Screen::OutOfService);
    assert_eq!(rig.view().service.detail, "Its settings are damaged.", "players read a short reason");
    assert!(audit_text(&config.audit_dir).contains("config_problem"));
    rig.advance(600);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)), "the old PIN opens the menu");
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("The settings file is damaged (near line"), "the director sees where: {lines}");
    assert!(!lines.contains("station_nmae") && !lines.contains("config.toml"), "in a director's words: {lines}");
    assert!(rig.view().menu.items[0].starts_with("Restore the last good settings"), "{:?}", rig.view().menu.items);
    choose(&mut rig, "Restore the last good settings");
    assert!(rig.view().menu.message.contains("restored"), "{}", rig.view().menu.message);
    leave_menu(&mut rig);
    let (ok, second) = rig.challenge(&["xyzzy"]);
    assert!(ok && second > first, "the audit chain continues: #{first} then #{second}");
    assert!(audit_text(&config.audit_dir).contains("restored from the last good copy"), "recorded");
    assert_eq!(Config::load(&path).source, ConfigSource::File, "the file is whole again");
    drop(rig);
    // The typo again, for the case below.
    let text = std::fs::read_to_string(&path).unwrap().replace("station_name", "station_nmae");
    std::fs::write(&path, text).unwrap();

    // With no last good copy, a broken config is out of service, saying why.
    std::fs::remove_file(wordjudge_core::config::last_good_path(&path)).unwrap();
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert_eq!(rig.screen(), &Screen::OutOfService);
    assert_eq!(rig.view().service.detail, "Its settings are damaged.", "a short reason, naming no key or file");
    // The director sets it up again: the damaged file is kept aside, whole.
    let damaged = std::fs::read_to_string(&path).unwrap();
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    rig.key(Key::Enter);
    // The name starts from the one the station's log knows, not a default.
    assert_eq!(rig.view().edit.value, "Table 3");
    assert_eq!(rig.view().bar.station_name, "Table 3");
    rig.keys("Table 9");
    rig.key(Key::Enter);
    crate::support::confirm(&mut rig);
    assert_eq!(Config::load(&path).config.station_name, "Table 9");
    assert_eq!(std::fs::read_to_string(wordjudge_core::config::damaged_copy_path(&path)).unwrap(), damaged);
}

#[test]
fn settings_and_profiles_from_the_menu_are_saved_in_the_config() {
    use wordjudge_station::desks::prelude::*;
    let mut rig = Live::new("SMALL");
    let path = rig.dir.path().join("config.toml");
    assert!(rig.station.switch_profile("DEMO").is_ok());
    assert!(rig.station.change_pin(PIN, "97531").is_ok());
    assert!(rig.station.change_pin(PIN, "11111").is_err(), "the old PIN is no longer the PIN");
    assert!(rig.station.set_station_name("Hall B").is_ok());
    assert!(rig.station.switch_profile("NASPA-CSW-5").is_err(), "CSW24 is not installed here: refused");
    let saved = Config::load(&path);
    assert_eq!(saved.config.profile.as_deref(), Some("DEMO"), "the refused switch changed nothing");
    assert_eq!(saved.config.active_lexicon, "DEMO");
    assert_eq!(saved.config.station_name, "Hall B");
    assert!(wordjudge_core::pin::verify_pin("97531", saved.config.director_pin_hash.as_deref().unwrap()));
    assert!(rig.station.set_clock("2026-11-23 14:05").is_err(), "a desktop never sets the system clock");
    // After a restart, the same (the first station lets go of the audit
    // folder; the temporary directory stays).
    let Live { rig: first, dir: _dir } = rig;
    drop(first);
    let rig = Rig::with(start_station(&path), &saved.config.timeouts);
    assert_eq!(rig.view().bar.station_name, "Hall B");
    assert_eq!(rig.view().bar.lexicon_id, "DEMO");
}

#[test]
fn the_screen_rotation_is_saved_recorded_and_in_force_from_the_next_start() {
    use wordjudge_station::desks::prelude::*;
    use wordjudge_station::desks::Rotation;
    let rig = Live::new("SMALL");
    let path = rig.dir.path().join("config.toml");
    let Live { rig: mut live, dir: _dir } = rig;
    assert_eq!(live.station.rotation(), Some(Rotation { saved: 0, in_force: 0 }));
    assert!(live.station.set_rotation(90).is_ok());
    assert!(live.station.set_rotation(45).is_err(), "not one of 0, 90, 180, 270");
    assert_eq!(live.station.rotation(), Some(Rotation { saved: 90, in_force: 0 }), "waits for a restart");
    assert_eq!(Config::load(&path).config.rotation, 90, "saved in the config");
    let audit = audit_text(&_dir.path().join("audit"));
    assert!(
        audit.contains(r#""event":"setting_changed""#) && audit.contains(r#""setting":"rotation","value":"90""#),
        "{audit}"
    );
    assert!(audit.contains(r#""setting":"rotation","reason":"45° is not one of 0, 90, 180, 270""#), "{audit}");
    drop(live);
    let restarted = start_station(&path);
    assert_eq!(restarted.rotation(), Some(Rotation { saved: 90, in_force: 90 }));
}

/// The active lexicon's file is changed under the running kiosk in every way
/// the trust issue names; after each, verdicts are the verified list's,
/// nothing panics, and the director is told (and it is recorded).
#[test]
fn a_lexicon_file_changed_under_the_running_kiosk_changes_no_verdict() {
    use wordjudge_core::gpio::NoHardware;
    use wordjudge_station::app::Controller;
    use wordjudge_station::kiosk::view::ScreenKind;
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let lexicons = config.lexicon_dir.clone();
    // A larger and a smaller list to write over SMALL.fst.
    let big: String = (0..5000).map(|i| format!("Q{}\n", to_letters(i))).collect();
    std::fs::write(lexicons.join("BIG.txt"), big).unwrap();
    build_lexicon(&lexicons.join("BIG.txt"), &lexicons.join("BIG.fst"), false).unwrap();
    let clock = std::rc::Rc::new(std::cell::Cell::new(std::time::Duration::from_secs(10)));
    let c = clock.clone();
    let mut controller = Controller::new(
        Box::new(start_station(&path)),
        Box::new(NoHardware::new("test")),
        &config.timeouts,
        Box::new(move || c.get()),
        false,
    );
    let fst = lexicons.join("SMALL.fst");
    let original = std::fs::read(&fst).unwrap();
    // Each change: what it is, and how it is made.
    type Change<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let changes: Vec<Change> = vec![
        (
            "a byte flipped in place",
            Box::new(|| {
                use std::io::{Seek, SeekFrom, Write};
                let mut f = std::fs::OpenOptions::new().write(true).open(&fst).unwrap();
                f.seek(SeekFrom::Start(original.len() as u64 / 2)).unwrap();
                f.write_all(&[original[original.len() / 2] ^ 0xff]).unwrap();
            }),
        ),
        (
            "overwritten in place by a larger list",
            Box::new(|| std::fs::write(&fst, std::fs::read(lexicons.join("BIG.fst")).unwrap()).unwrap()),
        ),
        (
            "overwritten in place by a smaller list",
            Box::new(|| std::fs::write(&fst, std::fs::read(lexicons.join("OTHER.fst")).unwrap()).unwrap()),
        ),
        ("truncated", Box::new(|| std::fs::OpenOptions::new().write(true).open(&fst).unwrap().set_len(7).unwrap())),
    ];
    let judge =
        |controller: &mut Controller, clock: &std::rc::Rc<std::cell::Cell<std::time::Duration>>, words: &str| {
            clock.set(clock.get() + std::time::Duration::from_secs(20));
            controller.tick();
            let count = words.split(' ').count().to_string();
            for key in count.chars().chain(words.chars()).map(Key::Char).chain([Key::Tab]) {
                controller.input(wordjudge_station::kiosk::flow::Event::Key(key));
            }
            let v = controller.view();
            assert_eq!(v.screen, ScreenKind::Verdict, "{words}: {v:?}");
            v.verdict.acceptable
        };
    for (what, change) in changes {
        std::fs::write(&fst, &original).unwrap();
        controller.poll();
        let told =
            |controller: &Controller| {
                controller.station().warnings().iter().any(
                    |w| matches!(w, wordjudge_station::desks::Warning::LexiconFileChanged { id, .. } if id == "SMALL"),
                )
            };
        assert!(!told(&controller), "{what}: the same bytes back again are no change");
        change();
        clock.set(clock.get() + std::time::Duration::from_secs(5));
        controller.poll();
        assert!(judge(&mut controller, &clock, "cat zebra qi"), "{what}: SMALL's words stay acceptable");
        assert!(!judge(&mut controller, &clock, "xyzzy"), "{what}: OTHER's word stays unacceptable");
        assert!(!judge(&mut controller, &clock, "qaab"), "{what}: BIG's words stay unacceptable");
        assert!(told(&controller), "{what}: the director is told: {:?}", controller.station().warnings());
    }
    assert!(audit_text(&config.audit_dir).contains("lexicon_file_changed"), "and it is recorded");
}

#[test]
fn the_last_code_survives_a_restart_and_a_fresh_station_sets_its_pin_on_screen() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "SMALL");
    config.director_pin_hash = None;
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    // A fresh card with no PIN: the director chord asks for one.
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    let (_, number) = rig.challenge(&["za"]);
    let code = match rig.screen() {
        Screen::Verdict(v) => v.judged.slip_code.clone().unwrap().to_string(),
        other => panic!("{other:?}"),
    };
    rig.advance(600);
    rig.key(Key::Enter);
    rig.key(Key::DirectorChord);
    assert_eq!(rig.view().screen, ScreenKind::Edit, "{:?}", rig.view());
    for _ in 0..2 {
        rig.keys("97531");
        rig.key(Key::Enter);
    }
    assert_eq!(rig.view().screen, ScreenKind::Director);
    let last = format!("Last challenge: #{number:04} · code {code}");
    assert!(rig.view().menu.lines.contains(&last), "{:?}", rig.view().menu.lines);
    drop(rig);
    assert!(Config::load(&path).config.director_pin_hash.is_some(), "the PIN is saved");
    let text = audit_text(&config.audit_dir);
    assert!(text.contains("first PIN, set at the station"), "recorded");
    // After a restart: the PIN set on screen opens the menu, which still
    // names the last challenge and its code.
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    open_pin(&mut rig);
    enter_pin(&mut rig, "97531");
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert!(rig.view().menu.lines.contains(&last), "{:?}", rig.view().menu.lines);
    drop(rig);
    // A damaged config (emptied) never offers a new PIN, and never judges with DEMO.
    std::fs::write(&path, "").unwrap();
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert_eq!(rig.view().bar.lexicon_id, "SMALL", "the last good copy is in force");
    rig.key(Key::DirectorChord);
    assert_eq!(rig.view().screen, ScreenKind::Pin, "the old PIN is asked, not a new one");
    enter_pin(&mut rig, "97531");
    assert_eq!(rig.view().screen, ScreenKind::Director);
    assert!(audit_text(&config.audit_dir).contains("the file is empty"), "the damage is recorded");
}

#[test]
fn a_lexicon_switch_away_from_the_profile_clears_it_in_the_config_and_the_record() {
    use wordjudge_station::desks::prelude::*;
    let mut rig = Live::new("SMALL");
    assert!(rig.station.switch_profile("DEMO").is_ok());
    let path = rig.dir.path().join("config.toml");
    assert_eq!(Config::load(&path).config.profile.as_deref(), Some("DEMO"));
    assert!(rig.station.switch_lexicon("SMALL").is_ok());
    assert_eq!(Config::load(&path).config.profile, None, "the profile no longer applies");
    let (_, _) = rig.challenge(&["za"]);
    assert_eq!(rig.view().verdict.consequence, "", "no rule line of another lexicon's profile");
    assert!(rig.audit_text().contains("\"setting\":\"profile\""), "recorded");
}

#[test]
fn a_pin_lockout_is_kept_beside_the_config_across_a_restart() {
    let rig = Live::new("SMALL");
    let path = rig.dir.path().join("config.toml");
    let Live { mut rig, dir } = rig;
    open_pin(&mut rig);
    for _ in 0..3 {
        enter_pin(&mut rig, "0000");
    }
    drop(rig);
    let saved = std::fs::read_to_string(dir.path().join("config.toml.pin-guard")).unwrap();
    assert!(saved.contains("failures 3") && saved.contains("lockouts 1"), "{saved}");
    let config = Config::load(&path).config;
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert_eq!(rig.view().screen, ScreenKind::Pin, "the right PIN waits out the lockout after a restart too");
    assert!(rig.view().pin.message.starts_with("Locked"), "{}", rig.view().pin.message);
}

#[test]
fn a_list_replaced_while_the_station_was_off_waits_for_the_director() {
    let Live { rig, dir } = Live::new("SMALL");
    drop(rig);
    let path = dir.path().join("config.toml");
    let lexicons = dir.path().join("lexicons");
    // Off: SMALL's words are replaced by other words, under the same id.
    lexicon(&lexicons, "SMALL", "CAT\nDOG\nQI\nZA\nZEBRA\nABANDONMENT\nXYZZY\n", None);
    let config = Config::load(&path).config;
    let mut rig = Rig::with(start_station(&path), &config.timeouts);
    assert_eq!(rig.screen(), &Screen::OutOfService, "it does not judge with words nobody chose");
    let text = audit_text(&config.audit_dir);
    assert!(text.contains("not the one last chosen on this station"), "recorded");
    // The director chooses it again, with the PIN: recorded, and it judges.
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("choose it again in the director menu"), "{lines}");
    select_menu(&mut rig, "Use SMALL");
    rig.key(Key::Enter);
    assert_eq!(rig.view().confirm.question, "Judge with SMALL as it is on the card now?");
    crate::support::confirm(&mut rig);
    assert!(rig.view().menu.message.starts_with("Now judging with SMALL"), "{}", rig.view().menu.message);
    leave_menu(&mut rig);
    assert!(rig.challenge(&["xyzzy"]).0);
    assert!(audit_text(&config.audit_dir).contains("\"setting\":\"lexicon_content\""));
}

#[test]
fn the_verdict_shows_the_time_and_code_of_its_own_record() {
    // An audit clock stopped at a known instant: the screen must show it,
    // not a second reading of the system clock.
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let at: jiff::Timestamp = "2025-05-01T07:08:09Z".parse().unwrap();
    let clock = std::sync::Arc::new(wordjudge_core::audit::ManualClock::new(at, "boot-a"));
    let options = wordjudge_core::recorder::AuditOptions { clock, ..Default::default() };
    let audit = AuditLog::open_with(&config.audit_dir, &config.station_name, options).unwrap();
    let station = start_station_with_log(&path, audit);
    let mut rig = Rig::with(station, &config.timeouts);
    rig.challenge(&["za"]);
    let shown = at.to_zoned(jiff::tz::TimeZone::system()).strftime("%H:%M:%S").to_string();
    let v = rig.view();
    assert!(v.verdict.details.ends_with(&shown), "{} (record at {shown})", v.verdict.details);
    let record =
        audit_text(&config.audit_dir).lines().find(|l| l.contains("\"event\":\"adjudication\"")).unwrap().to_string();
    let code = record.rsplit("\"code\":\"").next().unwrap().trim_end_matches("\"}");
    assert!(v.verdict.slip.ends_with(code), "{} vs the record's {code}", v.verdict.slip);
}

/// Issue 55, item 6: the director's time zone is the one the verdict, the
/// clock prompt and the status page show; a name the database lacks is
/// refused and recorded; the audit log keeps UTC.
#[test]
fn the_time_zone_the_director_chooses_is_the_one_every_time_shows_in() {
    use wordjudge_station::desks::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(dir.path(), "SMALL");
    // Kolkata: +05:30 all year, so the shown time is known whatever the date.
    config.time_zone = Some("Asia/Kolkata".into());
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let at: jiff::Timestamp = "2025-05-01T07:08:09Z".parse().unwrap();
    let clock = std::sync::Arc::new(wordjudge_core::audit::ManualClock::new(at, "boot-a"));
    let options = wordjudge_core::recorder::AuditOptions { clock, ..Default::default() };
    let audit = AuditLog::open_with(&config.audit_dir, &config.station_name, options).unwrap();
    let mut rig = Rig::with(start_station_with_log(&path, audit), &config.timeouts);
    rig.challenge(&["za"]);
    assert!(rig.view().verdict.details.ends_with("12:38:09"), "{}", rig.view().verdict.details);
    assert_eq!(rig.station.local_time().zone, "Asia/Kolkata");
    let time = rig.station.facts().into_iter().find(|(label, _)| label == "Station time").unwrap().1;
    assert!(time.contains("IST") && time.contains("the audit log keeps UTC"), "{time}");

    assert!(rig.station.set_time_zone("Mars/Olympus_Mons").is_err(), "not in the database");
    assert!(rig.station.set_time_zone("../../../../etc/passwd").is_err(), "not a zone's name");
    assert!(rig.station.set_time_zone("America/Toronto").is_ok());
    assert_eq!(rig.station.local_time().zone, "America/Toronto");
    assert_eq!(Config::load(&path).config.time_zone.as_deref(), Some("America/Toronto"), "saved");
    let audit = audit_text(&config.audit_dir);
    assert!(audit.contains(r#""setting":"time_zone","value":"America/Toronto""#), "{audit}");
    assert!(audit.contains(r#""setting":"time_zone","reason":"#), "the refusals are recorded: {audit}");
    assert!(audit.contains(r#""time":"2025-05-01T07:08:09"#), "records keep UTC: {audit}");
}

/// `0 → "AA"`, `1 → "AB"`, … : distinct letter strings for generated lists.
pub(crate) fn to_letters(mut n: usize) -> String {
    let mut s = String::new();
    for _ in 0..3 {
        s.insert(0, (b'A' + (n % 26) as u8) as char);
        n /= 26;
    }
    s
}

/// Issue 43, item 3: a station with no keyboard says so on READY and in its
/// audit log (once), instead of waiting for players who cannot type; a
/// keyboard plugged in is noticed within seconds and recorded.
#[test]
fn a_station_without_a_keyboard_says_so_and_notices_one_plugged_in() {
    use wordjudge_station::desks::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let keyboards = wordjudge_core::keyboard::SimKeyboards::new(0);
    let station = start_station_typing(
        &path,
        std::sync::Arc::new(wordjudge_core::usb::NoSticks),
        std::sync::Arc::new(wordjudge_core::update::NoUpdates),
        std::sync::Arc::new(keyboards.clone()),
    );
    let mut rig = Live { rig: Rig::with(station, &config.timeouts), dir };
    assert!(matches!(rig.screen(), Screen::Ready { .. }));
    let v = rig.view();
    assert_eq!(v.ready.hint, "No keyboard is plugged in: call the director.");
    assert!(v.bar.warning, "the director is told too");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    rig.station.poll();
    assert_eq!(rig.audit_text().matches("\"event\":\"keyboard_missing\"").count(), 1, "recorded once");
    keyboards.set(1);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    rig.station.poll();
    let audit = rig.audit_text();
    assert!(audit.contains("\"event\":\"keyboard_found\",\"keyboards\":1"), "{audit}");
    let v = rig.view();
    assert_eq!(v.ready.hint, "", "the notice goes once a keyboard is in");
    assert!(!v.bar.warning);
    rig.keys("1");
    assert!(matches!(rig.screen(), Screen::Entry(_)), "and players type");
}

#[test]
fn wrong_pins_and_a_lockout_before_the_right_pin_are_on_the_directors_pages() {
    let mut rig = Live::new("SMALL");
    open_pin(&mut *rig);
    for _ in 0..3 {
        enter_pin(&mut *rig, "9999");
    }
    assert!(matches!(rig.screen(), Screen::Pin(_)), "locked out: {:?}", rig.screen());
    rig.advance(31_000);
    rig.key(Key::Escape);
    open_pin(&mut *rig);
    enter_pin(&mut *rig, PIN);
    let lines = rig.view().menu.lines.join("\n");
    assert!(lines.contains("Before this visit: 3 wrong PIN(s) and 1 lockout since"), "{lines}");
    leave_menu(&mut *rig);
    // Seen once: the next visit starts a new count.
    open_pin(&mut *rig);
    enter_pin(&mut *rig, PIN);
    let lines = rig.view().menu.lines.join("\n");
    assert!(!lines.contains("wrong PIN"), "{lines}");
    leave_menu(&mut *rig);

    // Wrong PINs, then a restart (a power cut) before the right one: the
    // count is kept in the guard, and the next visit still hears of it.
    open_pin(&mut *rig);
    for _ in 0..2 {
        enter_pin(&mut *rig, "9999");
    }
    let Live { rig: old, dir } = rig;
    drop(old);
    let path = dir.path().join("config.toml");
    let mut rig = Rig::with(start_station(&path), &Config::load(&path).config.timeouts);
    open_pin(&mut rig);
    enter_pin(&mut rig, PIN);
    assert!(matches!(rig.screen(), Screen::Director(_)), "{:?}", rig.view().pin);
    let lines = rig.view().menu.lines.join("\n");
    assert!(
        lines.contains("Before this visit: 2 wrong PIN(s)") && lines.contains("since before the station last started"),
        "{lines}"
    );
}
