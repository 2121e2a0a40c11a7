//! Updating the live station with the simulated twin: the whole path
//! through the worker thread and the audit log; what was previewed is what
//! installs (a bundle swapped on the stick after its preview, in place or by
//! rename, never installs; the station's copy changed is refused and
//! recorded); a refused bundle leaves the menu until its stick is plugged in
//! again; a bundle of a gigabyte in bounded memory; the boot check's verdict
//! recorded exactly once.

use crate::live::{config_for, start_station_updating, Live};
use crate::support::*;
use crate::update::phase;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wordjudge_core::update::sim::SIM_SLOT_FILE;
use wordjudge_core::update::staged::STAGED_FILE;
use wordjudge_station::desks::prelude::*;
use wordjudge_station::kiosk::flow::{Key, Screen, UpdateDone, UpdatePhase, UsbPhase};

/// A live station whose sticks are folders of `sticks/` and whose updates
/// are the simulated twin's (station at 0.1.0, boot checks in `update/`).
fn live_updating(step_ms: u64) -> Live {
    live_updating_with(step_ms, 0)
}

/// The same, each bundle taking `inspect_ms` to look at.
fn live_updating_with(step_ms: u64, inspect_ms: u64) -> Live {
    live_with_updates(|update_dir| {
        let mut updates = wordjudge_core::update::sim::SimUpdates::new("0.1.0", update_dir.to_path_buf());
        updates.step = Duration::from_millis(step_ms);
        updates.inspect_time = Duration::from_millis(inspect_ms);
        std::sync::Arc::new(updates)
    })
}

/// A live station whose sticks are folders of `sticks/` and whose updates
/// are made by `updates` from the folder `update/` (made for it).
fn live_with_updates(updates: impl FnOnce(&Path) -> std::sync::Arc<dyn wordjudge_core::update::Updates>) -> Live {
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    std::fs::create_dir_all(dir.path().join("sticks")).unwrap();
    std::fs::create_dir_all(dir.path().join("update")).unwrap();
    let sticks = std::sync::Arc::new(wordjudge_core::usb::sim::FolderSticks::new(dir.path().join("sticks")));
    let station = start_station_updating(&path, sticks, updates(&dir.path().join("update")));
    Live { rig: Rig::with(station, &config.timeouts), dir }
}

/// Ticks (real time passes for the worker) until `done` or 10 s.
fn wait_until(live: &mut Live, what: &str, done: impl Fn(&Live) -> bool) {
    wait_for(live, what, Duration::from_secs(10), done)
}

/// From the menu's first page: waits for the stick to be seen and opens the
/// USB stick page.
fn usb_page(live: &mut Live) {
    wait_until(live, "the stick", |l| l.view().menu.items.iter().any(|i| i == "USB stick"));
    select_menu(&mut **live, "USB stick");
    live.key(Key::Enter);
}

fn wait_for(live: &mut Live, what: &str, limit: Duration, done: impl Fn(&Live) -> bool) {
    let started = Instant::now();
    while !done(live) {
        assert!(started.elapsed() < limit, "waiting for {what}: {:?}", live.screen());
        std::thread::sleep(Duration::from_millis(20));
        live.advance(50);
    }
}

#[test]
fn live_a_bundle_is_checked_installed_and_recorded_in_order_then_the_station_restarts() {
    let mut live = live_updating(5);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(
        stick.join("wordjudge-0.1.1.raucb"),
        r#"{"compatible":"wordjudge-sim","version":"0.1.1","description":"sim","signer":"CN = test signer"}"#,
    )
    .unwrap();
    std::fs::write(stick.join("old.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.0.9","signer":"x"}"#)
        .unwrap();
    std::fs::write(stick.join("broken.raucb"), "not a bundle").unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    usb_page(&mut live);
    wait_until(&mut live, "the offer", |l| l.view().menu.items.iter().any(|i| i.starts_with("Install update")));
    select_menu(&mut *live, "Install update: version 0.1.1 (this station runs 0.1.0)");
    live.key(Key::Enter);
    wait_until(
        &mut live,
        "the preview",
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Preview(_))),
    );
    live.advance(wordjudge_station::kiosk::flow::CONFIRM_SETTLE.as_millis() as u64); // the preview counts an ENTER once it settled
    assert!(live.view().usb.detail.contains("Signed by: CN = test signer"), "{}", live.view().usb.detail);
    live.key(Key::Enter);
    wait_until(
        &mut live,
        "the end",
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_))),
    );
    // A desktop station refuses the restart: it says so, and the records stand.
    assert!(
        matches!(phase(&live), UpdatePhase::Done(UpdateDone::Installed { ref version, restart: Err(_) }) if version == "0.1.1"),
        "{:?}",
        phase(&live)
    );
    let text = live.audit_text();
    let started = text.find("\"event\":\"update_started\"").expect(&text);
    let installed = text.find("\"event\":\"update_installed\"").expect(&text);
    assert!(started < installed);
    assert!(text.contains("\"bundle\":\"wordjudge-0.1.1.raucb\""), "{text}");
    assert!(text.contains("\"downgrade\":false") && text.contains("\"current\":\"0.1.0\""), "{text}");
}

#[test]
fn live_a_bundle_for_another_station_is_refused_and_one_checked_installs_without_its_stick() {
    let mut live = live_updating(300);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-arm64","version":"0.2.0","signer":"x"}"#)
        .unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    usb_page(&mut live);
    wait_until(&mut live, "the offer", |l| l.view().menu.items.iter().any(|i| i.starts_with("Install update")));
    select_menu(&mut *live, "Install update");
    live.key(Key::Enter);
    wait_until(
        &mut live,
        "the refusal",
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_))),
    );
    assert_eq!(
        live.view().usb.alert,
        "This update is for a different kind of station (Raspberry Pi card). This station is a simulated station."
    );
    // The director's attempt is on the record, with the bundle and the reason
    // the screen gave, and nothing was started.
    let text = live.audit_text();
    let refused = text.lines().filter(|l| l.contains("\"event\":\"update_refused\"")).collect::<Vec<_>>();
    assert_eq!(refused.len(), 1, "{text}");
    assert!(
        refused[0].contains("\"bundle\":\"u.raucb\"") && refused[0].contains("it is for wordjudge-arm64"),
        "{text}"
    );
    assert!(!text.contains("update_started"), "{text}");
    live.key(Key::Enter);

    // The stick is pulled out, a compatible bundle put on it, and it is
    // plugged in again: offered. Pulled out again once that bundle is
    // checked: the install is from the station's copy, and needs no stick.
    std::fs::remove_dir_all(&stick).unwrap();
    wait_until(&mut live, "the stick gone", |l| l.view().menu.items == ["◀ Back"]);
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.2.0","signer":"x"}"#).unwrap();
    wait_until(&mut live, "the new offer", |l| {
        l.view().menu.items.iter().any(|i| i.starts_with("Install update: version 0.2.0"))
    });
    select_menu(&mut *live, "Install update");
    live.key(Key::Enter);
    wait_until(
        &mut live,
        "the preview",
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Preview(_))),
    );
    live.advance(wordjudge_station::kiosk::flow::CONFIRM_SETTLE.as_millis() as u64); // the preview counts an ENTER once it settled
    std::fs::remove_dir_all(&stick).unwrap();
    live.key(Key::Enter);
    wait_until(
        &mut live,
        "the end",
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_))),
    );
    assert!(
        matches!(phase(&live), UpdatePhase::Done(UpdateDone::Installed { ref version, .. }) if version == "0.2.0"),
        "{:?}",
        phase(&live)
    );
    let text = live.audit_text();
    assert!(text.contains("\"event\":\"update_installed\"") && !text.contains("update_failed"), "{text}");
    assert!(!live.dir.path().join("update").join(STAGED_FILE).exists(), "the copy is removed after its install");
}

#[test]
fn live_the_boot_checks_verdict_is_recorded_exactly_once_and_renamed() {
    let mut live = live_updating(5);
    let state = live.dir.path().join("update");
    std::fs::write(state.join("boot-check"), "slot=B\nversion=0.1.1\noutcome=marked-good\ndetail=READY in 9 s\n")
        .unwrap();
    live.station.poll();
    live.station.poll();
    assert!(!state.join("boot-check").exists(), "renamed once recorded");
    assert!(state.join("boot-check.recorded").exists());
    let text = live.audit_text();
    assert_eq!(text.matches("\"event\":\"update_outcome\"").count(), 1, "{text}");
    assert!(text.contains("\"outcome\":\"marked-good\"") && text.contains("\"slot\":\"B\""), "{text}");
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    select_menu(&mut *live, "Station status");
    live.key(Key::Enter);
    assert!(
        live.view().menu.lines.contains(&"Last update: version 0.1.1 installed and kept".to_string()),
        "{:?}",
        live.view().menu.lines
    );

    // A restart finds only the recorded file: nothing is recorded again, and
    // the menu still says what the last update came to.
    let path = live.dir.path().join("config.toml");
    let Live { rig, dir } = live;
    drop(rig);
    let sticks = std::sync::Arc::new(wordjudge_core::usb::NoSticks);
    let updates = wordjudge_core::update::sim::SimUpdates::new("0.1.1", dir.path().join("update"));
    let station = start_station_updating(&path, sticks, std::sync::Arc::new(updates));
    assert_eq!(station.last_update().map(|c| c.version), Some("0.1.1".into()));
    drop(station);
    let text = crate::live::audit_text(&dir.path().join("audit"));
    assert_eq!(text.matches("\"event\":\"update_outcome\"").count(), 1, "{text}");
}

#[test]
fn live_a_lexicon_import_chosen_while_the_menu_looks_for_bundles_waits_for_it_instead_of_being_refused() {
    // The director plugs a stick in and at once chooses "Install lexicons
    // from USB": the menu's background look for bundles holds the stick for
    // a moment (RAUC checking a signature); the import starts after it.
    let mut live = live_updating_with(5, 600);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.1.1","signer":"x"}"#).unwrap();
    std::fs::write(stick.join("MINE.txt"), "CAT\nDOG\nZEBRA\n").unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    live.advance(50);
    select_menu(&mut *live, "Install lexicons from");
    live.key(Key::Enter);
    assert!(
        matches!(live.screen(), Screen::Usb(u) if matches!(u.phase, UsbPhase::Working(_))),
        "the import waits, it is not refused: {:?}",
        live.screen()
    );
    wait_until(&mut live, "the word lists", |l| matches!(l.screen(), Screen::Usb(u) if u.phase == UsbPhase::List));
    assert!(
        matches!(live.screen(), Screen::Usb(u) if u.rows.iter().any(|r| r.file == "MINE.txt")),
        "{:?}",
        live.screen()
    );
}

/// The simulated twin whose look at a bundle says it began (`looking`), then
/// waits until the test lets it go (or 30 s): the look for bundles holds the
/// stick as long as a test needs.
struct HeldLook {
    inner: wordjudge_core::update::sim::SimUpdates,
    looking: std::sync::Arc<std::sync::atomic::AtomicBool>,
    go: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl wordjudge_core::update::Updates for HeldLook {
    fn release(&self) -> Option<wordjudge_core::update::StationRelease> {
        self.inner.release()
    }
    fn inspect(
        &self,
        bundle: &Path,
    ) -> Result<wordjudge_core::update::BundleInfo, wordjudge_core::update::UpdateError> {
        self.looking.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = self.go.lock().map(|go| go.recv_timeout(Duration::from_secs(30)));
        self.inner.inspect(bundle)
    }
    fn install(&self, bundle: &Path, progress: &mut dyn FnMut(u8)) -> Result<(), wordjudge_core::update::UpdateError> {
        self.inner.install(bundle, progress)
    }
    fn state_dir(&self) -> Option<PathBuf> {
        self.inner.state_dir()
    }
    fn after_interruption(&self, version: &str) -> wordjudge_core::update::InstallState {
        self.inner.after_interruption(version)
    }
}

#[test]
fn live_a_lexicon_import_waiting_for_the_look_for_bundles_whose_stick_is_pulled_is_recorded_as_failed() {
    // As above, but the stick is pulled while the look still holds it: the
    // import never began, the screen says the stick went away, and the
    // director's request is in the audit log as failed stick work (a request
    // that had begun would be recorded when its work ended).
    let (go, held) = std::sync::mpsc::channel();
    let looking = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut live = live_with_updates(|update_dir| {
        std::sync::Arc::new(HeldLook {
            inner: wordjudge_core::update::sim::SimUpdates::new("0.1.0", update_dir.to_path_buf()),
            looking: looking.clone(),
            go: std::sync::Mutex::new(held),
        })
    });
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.1.1","signer":"x"}"#).unwrap();
    std::fs::write(stick.join("MINE.txt"), "CAT\nDOG\nZEBRA\n").unwrap();
    let lexicons = live.dir.path().join("lexicons");
    let before: Vec<_> = std::fs::read_dir(&lexicons).unwrap().map(|e| e.unwrap().file_name()).collect();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    // The menu's first page starts the look once the station's start-up work
    // is done: the request below is made while it holds the stick.
    wait_until(&mut live, "the look for bundles", |_| looking.load(std::sync::atomic::Ordering::SeqCst));
    select_menu(&mut *live, "Install lexicons from");
    live.key(Key::Enter);
    assert!(matches!(live.screen(), Screen::Usb(u) if matches!(u.phase, UsbPhase::Working(_))), "{:?}", live.screen());
    std::fs::remove_dir_all(&stick).unwrap();
    wait_until(
        &mut live,
        "the stopped import",
        |l| matches!(l.screen(), Screen::Usb(u) if matches!(u.phase, UsbPhase::Done(_))),
    );
    let audit_dir = live.dir.path().join("audit");
    let text = crate::live::audit_text(&audit_dir);
    let failed: Vec<_> = text.lines().filter(|l| l.contains("\"event\":\"usb_failed\"")).collect();
    assert_eq!(failed.len(), 1, "one record of the request: {text}");
    assert!(failed[0].contains("\"action\":\"import\"") && failed[0].contains("before it began"), "{}", failed[0]);
    assert!(!text.contains("opened for import"), "the import never began: {text}");
    let _ = go.send(()); // the look ends: nothing more is recorded of the request
    live.advance(1_000);
    std::thread::sleep(Duration::from_millis(200));
    live.advance(1_000);
    let text = crate::live::audit_text(&audit_dir);
    assert_eq!(text.lines().filter(|l| l.contains("\"event\":\"usb_failed\"")).count(), 1, "{text}");
    assert!(wordjudge_core::inspect::verify(&audit_dir).unwrap().ok(), "the log verifies");
    let after: Vec<_> = std::fs::read_dir(&lexicons).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before, after, "nothing installed");
    live.key(Key::Enter);
    leave_menu(&mut *live);
    assert!(live.challenge(&["cat"]).0, "the station judges on");
}

/// A simulated bundle of `version` with `payload` after its first line.
fn bundle(version: &str, payload: &[u8]) -> Vec<u8> {
    let mut bytes =
        format!(r#"{{"compatible":"wordjudge-sim","version":"{version}","signer":"CN = test signer"}}"#).into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(payload);
    bytes
}

/// What the simulated slot holds: (version, SHA-256), if anything installed.
fn installed(dir: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(dir.join("update").join(SIM_SLOT_FILE)).ok()?;
    Some((wordjudge_core::update::key_value(&text, "version")?, wordjudge_core::update::key_value(&text, "sha256")?))
}

fn sha256(bytes: &[u8]) -> String {
    wordjudge_core::digest::sha256_hex(bytes)
}

/// A live station with `file` on stick sdb1, the director at its preview.
fn previewed(file: &str, bytes: &[u8]) -> (Live, PathBuf) {
    previewed_with(5, file, bytes)
}

/// The same, each step of an install taking `step_ms`.
fn previewed_with(step_ms: u64, file: &str, bytes: &[u8]) -> (Live, PathBuf) {
    let mut live = live_updating(step_ms);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join(file), bytes).unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    usb_page(&mut live);
    wait_until(&mut live, "the offer", |l| l.view().menu.items.iter().any(|i| i.starts_with("Install update")));
    select_menu(&mut *live, "Install update");
    live.key(Key::Enter);
    wait_until(
        &mut live,
        "the preview",
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Preview(_))),
    );
    live.advance(wordjudge_station::kiosk::flow::CONFIRM_SETTLE.as_millis() as u64); // the preview counts an ENTER once it settled
    let path = stick.join(file);
    (live, path)
}

fn done(l: &Live) -> bool {
    matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Done(_)))
}

#[test]
fn live_a_bundle_swapped_on_the_stick_after_its_preview_never_installs() {
    let previewed_bytes = bundle("0.2.0", b"the 0.2.0 system image");
    let swapped = bundle("0.0.1", b"an old system image, signed and all");
    for how in ["overwritten in place", "replaced by rename"] {
        let (mut live, path) = previewed("u.raucb", &previewed_bytes);
        assert_eq!(live.view().usb.status, "Install version 0.2.0?", "{how}");
        assert!(matches!(phase(&live), UpdatePhase::Preview(ref p) if !p.kind.needs_pin()), "an upgrade: no PIN");
        match how {
            "overwritten in place" => {
                use std::io::{Seek, Write};
                let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                file.rewind().unwrap();
                file.write_all(&swapped).unwrap();
                file.set_len(swapped.len() as u64).unwrap();
            }
            _ => {
                let beside = path.with_file_name("new.tmp");
                std::fs::write(&beside, &swapped).unwrap();
                std::fs::rename(&beside, &path).unwrap();
            }
        }
        assert_eq!(std::fs::read(&path).unwrap(), swapped);
        live.key(Key::Enter);
        wait_until(&mut live, "the end", done);
        // Exactly the bytes previewed installed, and the records say so.
        assert!(
            matches!(phase(&live), UpdatePhase::Done(UpdateDone::Installed { ref version, .. }) if version == "0.2.0"),
            "{how}: {:?}",
            phase(&live)
        );
        assert_eq!(installed(live.dir.path()), Some(("0.2.0".to_string(), sha256(&previewed_bytes))), "{how}");
        let text = live.audit_text();
        let started: Vec<&str> = text.lines().filter(|l| l.contains("\"event\":\"update_started\"")).collect();
        assert_eq!(started.len(), 1, "{text}");
        assert!(
            started[0].contains("\"version\":\"0.2.0\"") && started[0].contains("\"downgrade\":false"),
            "{how}: {text}"
        );
        assert!(text.contains("\"event\":\"update_installed\"") && !text.contains("0.0.1"), "{how}: {text}");
    }
}

#[test]
fn live_the_stations_copy_changed_after_its_check_is_refused_and_recorded() {
    let bytes = bundle("0.2.0", b"the 0.2.0 system image");
    let (mut live, _) = previewed("u.raucb", &bytes);
    let copy = live.dir.path().join("update").join(STAGED_FILE);
    assert_eq!(std::fs::read(&copy).unwrap(), bytes, "the preview was made from the station's copy");
    std::fs::write(&copy, bundle("0.0.1", b"the 0.2.0 system imagf")).unwrap();
    live.key(Key::Enter);
    wait_until(&mut live, "the end", done);
    assert_eq!(phase(&live), UpdatePhase::Done(UpdateDone::Failed(wordjudge_core::update::UpdateError::Changed)));
    let v = live.view();
    assert_eq!(v.usb.status, "The update did not finish.");
    assert_eq!(v.usb.alert, "The station's copy of this update changed after it was checked, so it was not installed.");
    assert_eq!(installed(live.dir.path()), None, "nothing installed");
    let text = live.audit_text();
    let failed: Vec<&str> = text.lines().filter(|l| l.contains("\"event\":\"update_failed\"")).collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert!(
        failed[0].contains("changed after it was checked") && failed[0].contains("\"version\":\"0.2.0\""),
        "{text}"
    );
    assert!(!text.contains("update_installed"), "{text}");
    assert!(!copy.exists(), "the copy is removed");
    // Refused: not offered again while the stick stays.
    live.key(Key::Enter);
    live.advance(1100);
    assert!(!live.view().menu.items.iter().any(|i| i.starts_with("Install update")), "{:?}", live.view().menu.items);
}

#[test]
fn live_a_refused_bundle_leaves_the_menu_until_its_stick_is_plugged_in_again() {
    let mut live = live_updating(5);
    let sticks = live.dir.path().join("sticks");
    let stick = sticks.join("sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), "not a bundle at all").unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    let offered = |l: &Live| l.view().menu.items.iter().any(|i| i.starts_with("Update on the stick"));
    usb_page(&mut live);
    wait_until(&mut live, "the offer", offered);
    assert!(
        live.view().menu.items.contains(&"Update on the stick: not readable (this station runs 0.1.0)".to_string()),
        "{:?}",
        live.view().menu.items
    );
    select_menu(&mut *live, "Update on the stick");
    live.key(Key::Enter);
    wait_until(&mut live, "the refusal", done);
    assert_eq!(
        live.view().usb.alert,
        "This update is not signed with this station's update key, or its file is damaged or incomplete."
    );
    live.key(Key::Enter);
    for _ in 0..3 {
        live.advance(1100);
        assert!(!offered(&live), "not offered again: {:?}", live.view().menu.items);
    }
    // Pulled out (the menu sees it go), then plugged in again.
    let away = live.dir.path().join("away");
    std::fs::rename(&stick, &away).unwrap();
    wait_until(&mut live, "the stick gone", |l| l.view().menu.items == ["◀ Back"]);
    std::fs::rename(&away, &stick).unwrap();
    wait_until(&mut live, "the offer again", offered);
}

/// The process's peak resident memory (VmHWM), in kB.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Set in the child process that runs [`GIGABYTE`] alone.
const CHILD: &str = "WORDJUDGE_TEST_GIGABYTE_CHILD";
const GIGABYTE: &str = "live_update::live_a_one_gigabyte_bundle_is_copied_checked_and_installed_in_bounded_memory";

#[test]
fn live_a_one_gigabyte_bundle_is_copied_checked_and_installed_in_bounded_memory() {
    // The peak memory is the whole process's, and other tests of this
    // binary run beside this one: it runs again, alone, in a child process.
    if std::env::var_os(CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", GIGABYTE, "--test-threads=1", "--nocapture"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && text.contains("1 passed"), "the child run:\n{text}");
        return;
    }
    const GIB: u64 = 1 << 30;
    let mut live = live_updating(0);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    // A sparse gigabyte: its header, then zeros that cost no disk.
    let path = stick.join("big.raucb");
    std::fs::write(&path, bundle("0.2.0", b"")).unwrap();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(GIB).unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    usb_page(&mut live);
    wait_until(&mut live, "the offer", |l| l.view().menu.items.iter().any(|i| i.starts_with("Install update")));
    // The peak from here on: reset where the kernel lets a process do it,
    // else measured from the peak so far (a whole read would pass either).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = peak_rss_kb();
    select_menu(&mut *live, "Install update");
    live.key(Key::Enter);
    wait_for(
        &mut live,
        "the preview",
        Duration::from_secs(120),
        |l| matches!(l.screen(), Screen::Update(u) if matches!(u.phase, UpdatePhase::Preview(_))),
    );
    live.advance(wordjudge_station::kiosk::flow::CONFIRM_SETTLE.as_millis() as u64); // the preview counts an ENTER once it settled
    live.key(Key::Enter);
    wait_for(&mut live, "the end", Duration::from_secs(120), done);
    assert!(matches!(phase(&live), UpdatePhase::Done(UpdateDone::Installed { .. })), "{:?}", phase(&live));
    let grew_mb = peak_rss_kb().saturating_sub(before) / 1024;
    // Copy, check and install each stream the bundle through 64 KiB.
    println!("peak resident memory grew by {grew_mb} MB for a 1024 MB bundle");
    assert!(grew_mb < 64, "the peak grew by {grew_mb} MB for a 1024 MB bundle");
    let header = bundle("0.2.0", b"");
    let zeros = std::io::Read::take(std::io::repeat(0), GIB - header.len() as u64);
    let (size, digest) =
        wordjudge_core::update::staged::sha256_of(std::io::Read::chain(header.as_slice(), zeros)).unwrap();
    assert_eq!(size, GIB);
    assert_eq!(installed(live.dir.path()), Some(("0.2.0".to_string(), digest)), "every byte went through the install");
}

/// Starts the simulated station again on `dir` (the kiosk restarted), waits
/// for the end of the install the last one left, and returns what was
/// reported and the audit log's text.
fn restart_and_wait_for_the_install(dir: &Path, version: &str) -> (wordjudge_station::desks::UpdateReport, String) {
    let sticks = std::sync::Arc::new(wordjudge_core::usb::NoSticks);
    let updates = wordjudge_core::update::sim::SimUpdates::new(version, dir.join("update"));
    let mut station = start_station_updating(&dir.join("config.toml"), sticks, std::sync::Arc::new(updates));
    let started = Instant::now();
    let report = loop {
        if let Some(report) = station.update_report() {
            break report;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no answer about the install the last kiosk left");
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(station);
    (report, crate::live::audit_text(&dir.join("audit")))
}

/// The update and start-up events of the audit log, in order, from the
/// first `update_started` on.
fn events_from_update(text: &str) -> Vec<String> {
    let events: Vec<String> = text
        .lines()
        .filter_map(|l| l.split("\"event\":\"").nth(1)?.split('"').next().map(str::to_string))
        .filter(|e| e.starts_with("update_") || e == "startup")
        .collect();
    let from = events.iter().position(|e| e == "update_started").unwrap_or(events.len());
    events[from..].to_vec()
}

#[test]
fn live_a_kiosk_stopped_mid_install_leaves_the_next_start_to_record_how_it_ended() {
    // Each progress step takes 2 s: the install is under way when the kiosk
    // "dies" (its station dropped, its worker thread left behind, as kill -9
    // leaves RAUC's service writing the slot).
    let (mut live, _) = previewed_with(2000, "u.raucb", &bundle("0.2.0", b"a system image"));
    live.key(Key::Enter);
    assert!(matches!(phase(&live), UpdatePhase::Installing { .. }), "{:?}", phase(&live));
    let marker = live.dir.path().join("update").join(wordjudge_core::update::INSTALL_MARKER);
    assert!(marker.exists(), "the install is marked as started before RAUC is asked");
    assert_eq!(events_from_update(&live.audit_text()), ["update_started"]);
    let Live { rig, dir } = live;
    drop(rig);

    // The next start asks how the install ended (the simulated one ended
    // with its kiosk: no slot written) and records it: the log does not end
    // with update_started.
    let (report, text) = restart_and_wait_for_the_install(dir.path(), "0.1.0");
    assert!(
        matches!(
            &report,
            wordjudge_station::desks::UpdateReport::Failed(wordjudge_core::update::UpdateError::Interrupted(_))
        ),
        "{report:?}"
    );
    assert_eq!(events_from_update(&text), ["update_started", "startup", "update_failed"], "{text}");
    assert!(text.contains("\"version\":\"0.2.0\""), "{text}");
    assert!(!marker.exists(), "the marker goes once the end is recorded");

    // An install that RAUC finished while the kiosk was down: recorded as
    // installed, once; a further restart records nothing more.
    wordjudge_core::update::mark_install_started(&dir.path().join("update"), "0.2.0").unwrap();
    std::fs::write(dir.path().join("update").join(SIM_SLOT_FILE), "version=0.2.0\nsha256=00\n").unwrap();
    let (report, text) = restart_and_wait_for_the_install(dir.path(), "0.1.0");
    assert!(
        matches!(&report, wordjudge_station::desks::UpdateReport::Installed { version } if version == "0.2.0"),
        "{report:?}"
    );
    assert_eq!(text.matches("\"event\":\"update_installed\"").count(), 1, "{text}");
    assert!(!marker.exists());
    let sticks = std::sync::Arc::new(wordjudge_core::usb::NoSticks);
    let updates = wordjudge_core::update::sim::SimUpdates::new("0.1.0", dir.path().join("update"));
    let mut station = start_station_updating(&dir.path().join("config.toml"), sticks, std::sync::Arc::new(updates));
    std::thread::sleep(Duration::from_millis(200));
    assert!(station.update_report().is_none());
    drop(station);
    let text = crate::live::audit_text(&dir.path().join("audit"));
    assert_eq!(text.matches("\"event\":\"update_installed\"").count(), 1, "{text}");
}

const FULL_CHILD_DIR: &str = "WORDJUDGE_UPDATE_FULL_CHILD_DIR";

/// Child of the test below: a live station at its update preview whose
/// files may not grow any more (RLIMIT_FSIZE: the kernel fails the audit
/// log's append with EFBIG, the path a full disk takes). Prints what the
/// director saw, then lets the files grow and shuts the station down.
#[test]
#[ignore = "child process of live_an_audit_log_that_cannot_be_written_starts_no_update_and_no_restart"]
fn child_update_with_a_full_audit_log() {
    let Some(out) = std::env::var_os(FULL_CHILD_DIR) else { return };
    let (mut live, _) = previewed("u.raucb", &bundle("0.2.0", b"a system image"));
    let audit_dir = live.dir.path().join("audit");
    // The file being appended to: the newest log file.
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&audit_dir)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    logs.sort();
    let active = std::fs::metadata(logs.last().expect("a log file")).unwrap().len();
    // SAFETY: plain libc calls on this process's own limits and signals.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit { rlim_cur: active, rlim_max: libc::RLIM_INFINITY };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    live.key(Key::Enter);
    let phase = format!("{:?}", phase(&live));
    let restart = format!("{:?}", live.station.system(wordjudge_station::desks::SystemAction::Reboot));
    let slot = installed(live.dir.path()).is_some();
    let marked = live.dir.path().join("update").join(wordjudge_core::update::INSTALL_MARKER).exists();
    // SAFETY: as above.
    unsafe {
        let limit = libc::rlimit { rlim_cur: libc::RLIM_INFINITY, rlim_max: libc::RLIM_INFINITY };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    live.station.shut_down();
    let text = live.audit_text();
    std::fs::write(out, format!("phase {phase}\nrestart {restart}\nslot {slot}\nmarked {marked}\n{text}")).unwrap();
}

#[test]
fn live_an_audit_log_that_cannot_be_written_starts_no_update_and_no_restart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("child.txt");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "live_update::child_update_with_a_full_audit_log",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FULL_CHILD_DIR, &out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the child failed: {status}");
    let text = std::fs::read_to_string(&out).unwrap();
    let line = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_default().to_string();
    // The director is told why, on the update screen; nothing installs, no
    // install is marked as under way.
    assert!(line("phase ").contains("NotStarted(AuditLogFailing("), "{}", line("phase "));
    assert_eq!((line("slot "), line("marked ")), ("false".to_string(), "false".to_string()));
    // A restart (or power-off) would lose the records held in memory.
    assert!(line("restart ").starts_with("Err(AuditLogFailing("), "{}", line("restart "));
    // Once the log can be written again, the held records follow the note of
    // the failure, in order: the update that was asked for, and why it did
    // not start.
    let events = events_from_update(&text);
    assert_eq!(events, ["update_started", "update_failed"], "{text}");
    let failed = text.lines().find(|l| l.contains("\"event\":\"update_failed\"")).unwrap();
    assert!(failed.contains("not started: the audit log cannot be written"), "{failed}");
    let write_failed = text.find("\"event\":\"write_failed\"").expect("the failure is noted in the log");
    assert!(write_failed < text.find("\"event\":\"update_started\"").unwrap(), "{text}");
}

#[test]
fn live_an_install_that_cannot_be_noted_does_not_start_and_says_why() {
    // The mark of an install under way cannot be written (a directory in
    // its place: root writes anywhere else): nothing installs, the screen
    // says why, and the log has the request and why it did not start.
    let (mut live, _) = previewed("u.raucb", &bundle("0.2.0", b"a system image"));
    std::fs::create_dir(live.dir.path().join("update").join(wordjudge_core::update::INSTALL_MARKER)).unwrap();
    live.key(Key::Enter);
    let shown = format!("{:?}", phase(&live));
    assert!(shown.contains("NotStarted(NotNoted("), "{shown}");
    assert!(live.view().usb.alert.contains("could not write to its data partition"), "{}", live.view().usb.alert);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(installed(live.dir.path()), None);
    let text = live.audit_text();
    assert_eq!(events_from_update(&text), ["update_started", "update_failed"], "{text}");
    assert!(text.contains("not started: the install could not be noted on the data partition"), "{text}");
}

/// The menu's first page starts looking at a stick's bundle (RAUC checks
/// its signature, which takes seconds): when the director opens the stick
/// page, the update is already offered where the page lists it, and a
/// count of DOWNs lands on it (the boot test's, and a director's habit).
#[test]
fn live_the_first_page_looks_at_a_bundle_so_the_stick_page_offers_it_at_once() {
    let mut live = live_updating_with(5, 300);
    let stick = live.dir.path().join("sticks/sdb1");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::write(stick.join("u.raucb"), r#"{"compatible":"wordjudge-sim","version":"0.1.1","signer":"x"}"#).unwrap();
    open_pin(&mut *live);
    enter_pin(&mut *live, PIN);
    wait_until(&mut live, "the stick", |l| l.view().menu.items.iter().any(|i| i == "USB stick"));
    // A director reads the first page for a moment.
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(25));
        live.advance(50);
    }
    select_menu(&mut *live, "USB stick");
    live.key(Key::Enter);
    let items = live.view().menu.items;
    assert!(items.get(4).is_some_and(|i| i.starts_with("Install update: version 0.1.1")), "at once, fifth: {items:?}");
}
