//! The director's USB sticks against the live station (the rig of
//! `live.rs`): word lists installed as previewed and then judging, sticks
//! pulled mid-import and mid-export, exports that verify off the station
//! (and forged ones that do not), and hostile sticks refused at once.

use crate::live::{audit_text, config_for, start_station_with, Live};
use crate::support::{choose, confirm, enter_pin, leave_menu, open_pin, select_menu, Rig, PIN};
use std::path::Path;
use wordjudge_station::kiosk::flow::{Key, Screen};
use wordjudge_station::kiosk::view::ScreenKind;

// ---- USB sticks (folders standing in for them; the QEMU boot test mounts real ones) ----

/// Plugs in a stick (a folder of `sticks/`) holding `files`.
fn plug(rig: &Live, name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let stick = rig.dir.path().join("sticks").join(name);
    std::fs::create_dir_all(&stick).unwrap();
    for (file, text) in files {
        std::fs::write(stick.join(file), text).unwrap();
    }
    stick
}

/// Ticks until the USB work (on its own thread) has answered.
fn wait_usb(rig: &mut Live) {
    for _ in 0..1000 {
        if let Screen::Usb(usb) = rig.screen() {
            if !matches!(usb.phase, wordjudge_station::kiosk::flow::UsbPhase::Working(_)) {
                return;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        rig.advance(10);
    }
    panic!("the USB work did not answer: {:?}", rig.screen());
}

/// Every file of a directory with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default()))
        .collect();
    files.sort();
    files
}

fn open_usb(rig: &mut Live, item: &str) {
    if !matches!(rig.screen(), Screen::Director(_)) {
        open_pin(rig);
        enter_pin(rig, PIN);
    }
    rig.advance(1100);
    select_menu(rig, item);
    rig.key(Key::Enter);
    if matches!(rig.screen(), Screen::Confirm(_)) {
        confirm(rig);
    }
    wait_usb(rig);
}

/// The lines of the menu's status page (the menu is left on its first page).
fn status_lines(rig: &mut Live) -> Vec<String> {
    select_menu(rig, "Station status");
    rig.key(Key::Enter);
    let lines = rig.view().menu.lines;
    rig.key(Key::Escape);
    lines
}

#[test]
fn word_lists_from_a_stick_install_as_previewed_and_then_judge() {
    let mut rig = Live::new("SMALL");
    let stick = plug(
        &rig,
        "usb1",
        &[
            ("OSPD4.txt", "cat\ndog\nzebra\n"),
            ("MW11.txt", "ABANDONMENT\nABANDONMENTS\n"),
            ("CSW21.txt", "CAT\n"),
            ("mine.txt", "CAT\nDOG\n"),
            ("notes.md", "not a list"),
            // Forged or damaged: not words, and not text at all.
            ("x-bad.txt", "CAT\nDROP TABLE;\n"),
            ("y-binary.txt", "\u{0}\u{1}\u{2}\u{fffd}"),
        ],
    );
    let lexicons = rig.dir.path().join("lexicons");
    open_usb(&mut rig, "Install lexicons from");
    let v = rig.view();
    assert_eq!(v.screen, ScreenKind::Usb);
    let rows = v.menu.items.clone();
    assert_eq!(rows.len(), 7, "six word lists and the row that ends: {rows:?}");
    assert_eq!(
        rows[4], "x-bad — cannot be used: line 2: \"DROP TABLE;\" is more than one word",
        "no file name, no command-line advice"
    );
    assert!(rows[5].starts_with("y-binary — cannot be used:"), "{}", rows[5]);
    assert!(rows[0].starts_with("CSW21 → CSW21 — Mismatch: will not be installed"), "{}", rows[0]);
    assert!(rows[1].starts_with("MW11 → OSPD4+MW11 (MW11-long) — would be Missing"), "{}", rows[1]);
    assert!(rows[2].starts_with("OSPD4 → OSPD4+MW11 (OSPD4) — would be Missing"), "{}", rows[2]);
    assert!(rows[2].ends_with("· 3 words"), "{}", rows[2]);
    assert!(rows[3].starts_with("mine — which lexicon?") && rows[3].ends_with("· 2 words"), "{}", rows[3]);

    // A file that is not a word list cannot be chosen, named or installed.
    for _ in 0..4 {
        rig.key(Key::Down);
    }
    rig.key(Key::Enter);
    assert_eq!(rig.view().menu.message, "This file is not a word list that can be installed.");
    rig.key(Key::Right);
    assert!(
        matches!(rig.screen(), Screen::Usb(u) if u.phase == wordjudge_station::kiosk::flow::UsbPhase::List),
        "nothing asked of it"
    );
    for _ in 0..4 {
        rig.key(Key::Up);
    }
    // The Mismatch never installs, even on a second ENTER.
    rig.key(Key::Enter);
    rig.key(Key::Enter);
    assert!(!lexicons.join("CSW21.fst").exists());
    // OSPD4, then MW11: after the second the lexicon is whole.
    rig.key(Key::Down);
    rig.key(Key::Down);
    rig.key(Key::Enter);
    rig.key(Key::Enter);
    wait_usb(&mut rig);
    assert!(
        rig.view().menu.items[2].starts_with("OSPD4 → OSPD4+MW11 (OSPD4) — installed: Missing"),
        "{:?}",
        rig.view().menu.items
    );
    rig.key(Key::Up);
    rig.key(Key::Enter);
    rig.key(Key::Enter);
    wait_usb(&mut rig);
    let unverified = wordjudge_core::lexicon::Status::Unverified.label();
    assert_eq!(rig.view().menu.items[1], format!("MW11 → OSPD4+MW11 (MW11-long) — installed: {unverified}"));
    // What was installed is exactly what the list compiles to.
    for (txt, fst) in [("OSPD4.txt", "OSPD4.fst"), ("MW11.txt", "MW11-long.fst")] {
        let compiled = wordjudge_core::lexicon::build::compile_file(&stick.join(txt), false).unwrap();
        assert_eq!(std::fs::read(lexicons.join(fst)).unwrap(), compiled.bytes, "{fst}");
    }
    let audit = rig.audit_text();
    let installs: Vec<&str> = audit.lines().filter(|l| l.contains("\"event\":\"lexicon_installed\"")).collect();
    assert_eq!(installs.len(), 2, "{audit}");
    assert!(
        installs[1].contains("OSPD4+MW11")
            && installs[1].contains(unverified)
            && installs[1].contains("MW11.txt on USB1"),
        "{}",
        installs[1]
    );

    // ESC finishes with the stick; then the director judges with what was installed.
    rig.key(Key::Escape);
    wait_usb(&mut rig);
    assert_eq!(rig.view().usb.status, "You may remove the stick.");
    assert!(rig.view().usb.detail.starts_with("2 word lists were installed"), "{}", rig.view().usb.detail);
    assert!(audit_text(&rig.dir.path().join("audit")).contains("\"action\":\"ejected\""));
    rig.key(Key::Enter);
    std::fs::remove_dir_all(&stick).unwrap();
    rig.advance(1100);
    choose(&mut rig, "Use OSPD4+MW11");
    assert!(rig.view().menu.message.starts_with("Now judging with OSPD4+MW11"), "{}", rig.view().menu.message);
    leave_menu(&mut rig);
    assert!(rig.challenge(&["zebra"]).0);
    rig.advance(600);
    rig.key(Key::Char(' '));
    assert!(rig.challenge(&["abandonment"]).0, "a long word from the MW11 layer");
    rig.advance(600);
    rig.key(Key::Char(' '));
    assert!(!rig.challenge(&["xyzzy"]).0);
}

/// A stick that is gone the moment it was mounted: udev no longer lists it
/// and its files cannot be read.
struct PulledAtOnce {
    inner: wordjudge_core::usb::sim::FolderSticks,
    root: std::path::PathBuf,
}

impl wordjudge_core::usb::Sticks for PulledAtOnce {
    fn list(&self) -> Vec<wordjudge_core::usb::Stick> {
        self.inner.list()
    }
    fn attach(
        &self,
        stick: &wordjudge_core::usb::Stick,
        mode: wordjudge_core::usb::Mode,
    ) -> Result<std::path::PathBuf, wordjudge_core::usb::StickError> {
        let path = self.inner.attach(stick, mode)?;
        std::fs::rename(self.root.join(&stick.device), self.root.join(".pulled")).unwrap();
        Ok(path)
    }
    fn detach(&self, stick: &wordjudge_core::usb::Stick) -> Result<(), wordjudge_core::usb::StickError> {
        self.inner.detach(stick)
    }
}

/// A live station whose sticks are pulled out the moment they are mounted.
fn live_with_pulled_sticks() -> Live {
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(dir.path(), "SMALL");
    let path = dir.path().join("config.toml");
    config.save(&path).unwrap();
    let root = dir.path().join("sticks");
    let sticks = PulledAtOnce { inner: wordjudge_core::usb::sim::FolderSticks::new(root.clone()), root };
    let station = start_station_with(&path, std::sync::Arc::new(sticks));
    Live { rig: Rig::with(station, &config.timeouts), dir }
}

#[test]
fn a_stick_pulled_mid_export_leaves_the_log_intact_and_says_so() {
    let mut rig = live_with_pulled_sticks();
    rig.challenge(&["cat"]);
    rig.advance(20_000);
    plug(&rig, "usb2", &[]);
    let audit_dir = rig.dir.path().join("audit");
    open_usb(&mut rig, "Export the audit log to");
    let v = rig.view();
    assert_eq!(v.usb.status, "The export did not finish.");
    assert!(v.usb.detail.contains("The audit log on the station is unchanged."), "{}", v.usb.detail);
    let pulled = rig.dir.path().join("sticks").join(".pulled");
    assert!(!pulled.join("wordjudge").exists() || std::fs::read_dir(pulled.join("wordjudge")).unwrap().count() == 0);
    let text = audit_text(&audit_dir);
    assert!(text.contains("\"event\":\"usb_failed\"") && text.contains("\"action\":\"export\""), "recorded");
    assert!(wordjudge_core::inspect::verify(&audit_dir).unwrap().ok(), "the log verifies");
    rig.key(Key::Enter);
    leave_menu(&mut rig);
    assert!(rig.challenge(&["cat"]).0);
}

#[test]
fn a_stick_pulled_mid_import_changes_nothing_and_the_station_judges_on() {
    let mut rig = live_with_pulled_sticks();
    plug(&rig, "usb1", &[("OSPD4.txt", "CAT\nDOG\n"), ("MW11.txt", "ABANDONMENT\n")]);
    let lexicons = rig.dir.path().join("lexicons");
    let before = snapshot(&lexicons);
    open_usb(&mut rig, "Install lexicons from");
    let v = rig.view();
    assert_eq!(v.usb.status, "The stick could not be used.");
    assert!(v.usb.detail.contains("Nothing was installed."), "{}", v.usb.detail);
    assert_eq!(snapshot(&lexicons), before, "the lexicon directory is byte for byte as it was");
    let audit_dir = rig.dir.path().join("audit");
    assert!(audit_text(&audit_dir).contains("\"event\":\"usb_failed\""));
    assert!(wordjudge_core::inspect::verify(&audit_dir).unwrap().ok());
    rig.key(Key::Enter);
    assert!(matches!(rig.screen(), Screen::Director(_)));
    leave_menu(&mut rig);
    assert!(rig.challenge(&["cat"]).0, "the station judges on, with the same lexicon");
    assert_eq!(rig.kiosk.lexicon().id, "SMALL");
}

#[test]
fn an_export_to_a_stick_verifies_off_the_station_and_leaves_the_log_as_it_was() {
    let mut rig = Live::new("SMALL");
    rig.challenge(&["cat", "zebra"]);
    rig.advance(600);
    rig.key(Key::Char(' '));
    rig.challenge(&["xyzzy"]);
    rig.advance(20_000);
    let stick = plug(&rig, "usb2", &[("other.txt", "the director's own file")]);
    let audit_dir = rig.dir.path().join("audit");
    open_usb(&mut rig, "Export the audit log to");
    let v = rig.view();
    assert_eq!(v.usb.status, "You may remove the stick.", "{}", v.usb.detail);
    assert!(v.usb.detail.contains("The copy verifies, with a checkpoint signed for it."), "{}", v.usb.detail);
    let date = jiff::Zoned::now().strftime("%Y-%m-%d").to_string();
    let folder = stick.join("wordjudge").join(format!("wordjudge-export-Table-3-{date}"));
    assert!(v.usb.detail.contains(folder.file_name().unwrap().to_str().unwrap()), "{}", v.usb.detail);
    for file in ["audit.csv", "verify.txt", "station-key.pub", "checkpoint.txt", "README.txt"] {
        assert!(folder.join(file).is_file(), "{file}");
    }
    assert_eq!(std::fs::read_to_string(stick.join("other.txt")).unwrap(), "the director's own file");
    // Off the station: the copy, its key and its checkpoint.
    let key =
        wordjudge_core::audit::NoteVerifier::parse(&std::fs::read_to_string(folder.join("station-key.pub")).unwrap())
            .unwrap();
    let note = std::fs::read_to_string(folder.join("checkpoint.txt")).unwrap();
    let options =
        wordjudge_core::inspect::VerifyOptions { checkpoint: Some((note, key.clone())), ..Default::default() };
    let report = wordjudge_core::inspect::verify_with(&folder.join("audit"), &options).unwrap();
    assert!(report.ok(), "{report}");
    let copy = audit_text(&folder.join("audit"));
    assert!(copy.contains("XYZZY") && copy.contains("\"event\":\"export\""), "the export holds its own record");
    let csv = std::fs::read_to_string(folder.join("audit.csv")).unwrap();
    assert!(csv.lines().count() > 5 && csv.contains("XYZZY"), "{csv}");
    // The live log only grew: each copied file is a prefix of the live one, and it verifies.
    for entry in std::fs::read_dir(folder.join("audit")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("audit-") {
            let copied = std::fs::read(entry.path()).unwrap();
            let live = std::fs::read(audit_dir.join(&name)).unwrap();
            assert!(live.starts_with(&copied) && !copied.is_empty(), "{name}: the export never alters the log");
        }
    }
    assert!(wordjudge_core::inspect::verify(&audit_dir).unwrap().ok());

    // A forger flips the UNACCEPTABLE verdict, reseals the whole chain, and
    // signs a new checkpoint with a fresh key under the station's key name.
    let forged = forge_export(&folder, false);
    let report = forged_report(&forged, None);
    assert!(!report.ok(), "the key is not the one the log's key_created names: {report}");
    let text = report.to_string();
    assert!(text.contains("station key code used: ") && text.contains("key_created record names"), "{text}");
    // Rewriting key_created too beats every check inside the folder: only the
    // fingerprint noted at set-up catches it, and verify says which key it used.
    let forged = forge_export(&folder, true);
    assert!(forged_report(&forged, None).ok(), "a forger who rewrites everything fools the folder alone");
    // What the director noted at set-up: the status page's station key code
    // (that page shows this form: `a_station_joins_the_fleet_from_the_menu…`).
    let noted = key.fingerprint().short();
    let report = forged_report(&forged, Some(noted.clone()));
    assert!(!report.ok() && report.to_string().contains("noted at set-up"), "{report}");
    assert!(forged_report(&folder, Some(noted)).ok(), "the real export passes with the noted fingerprint");
    let readme = std::fs::read_to_string(folder.join("README.txt")).unwrap();
    assert!(
        readme.contains("AS NOTED AT SET-UP") && readme.contains("NOT AUTHENTICATED: one row per record"),
        "{readme}"
    );

    // A second export the same day gets a folder of its own.
    rig.key(Key::Enter);
    rig.advance(1100);
    select_menu(&mut rig, "Export the audit log to");
    rig.key(Key::Enter);
    wait_usb(&mut rig);
    assert!(stick.join("wordjudge").join(format!("wordjudge-export-Table-3-{date}-2")).is_dir());
}

/// Verifies an export folder with its own key and checkpoint, and the noted fingerprint.
fn forged_report(folder: &Path, noted: Option<String>) -> wordjudge_core::inspect::VerifyReport {
    let key =
        wordjudge_core::audit::NoteVerifier::parse(&std::fs::read_to_string(folder.join("station-key.pub")).unwrap())
            .unwrap();
    let note = std::fs::read_to_string(folder.join("checkpoint.txt")).unwrap();
    let options = wordjudge_core::inspect::VerifyOptions {
        checkpoint: Some((note, key)),
        key_fingerprint: noted,
        ..Default::default()
    };
    wordjudge_core::inspect::verify_with(&folder.join("audit"), &options).unwrap()
}

/// A forged copy of an export folder: every UNACCEPTABLE made ACCEPTABLE,
/// the chain resealed, a checkpoint signed by a new key under the station's
/// key name (and, with `key_record`, the key_created record rewritten too).
fn forge_export(folder: &Path, key_record: bool) -> std::path::PathBuf {
    use wordjudge_core::audit::format::{line_hash, seal, SEAL_KEY};
    let out = folder.with_file_name(format!("forged-{key_record}"));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(out.join("audit")).unwrap();
    let real =
        wordjudge_core::audit::NoteVerifier::parse(&std::fs::read_to_string(folder.join("station-key.pub")).unwrap())
            .unwrap();
    let keys = tempfile::tempdir().unwrap();
    let (forger, _) =
        wordjudge_core::audit::checkpoint::StationKey::load_or_create(keys.path(), "Table 3", true).unwrap().unwrap();
    let fake = forger.verifier();
    let mut files: Vec<_> = std::fs::read_dir(folder.join("audit")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let (mut prev_old, mut prev_new) = (String::new(), String::new());
    let mut count = 0;
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("audit-") {
            std::fs::copy(&path, out.join("audit").join(&name)).unwrap();
            continue;
        }
        let mut text = String::new();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let mut body = line[..line.find(SEAL_KEY).unwrap()].to_string() + "}";
            body = body.replace("\"UNACCEPTABLE\"", "\"ACCEPTABLE\"");
            if key_record {
                body = body
                    .replace(&real.fingerprint().0, &fake.fingerprint().0)
                    .replace(&real.to_text(), &fake.to_text());
            }
            if !prev_old.is_empty() {
                body = body.replace(&prev_old, &prev_new);
            }
            let sealed = seal(&body);
            prev_old = line_hash(line.as_bytes());
            prev_new = line_hash(sealed.as_bytes());
            count += 1;
            text.push_str(&sealed);
            text.push('\n');
        }
        std::fs::write(out.join("audit").join(&name), text).unwrap();
    }
    let checkpoint = wordjudge_core::audit::checkpoint::Checkpoint {
        count,
        head: prev_new,
        time: "2026-11-25T12:00:00Z".into(),
        station: "Table 3".into(),
        reason: "export".into(),
    };
    std::fs::write(out.join("checkpoint.txt"), forger.sign(&checkpoint)).unwrap();
    std::fs::write(out.join("station-key.pub"), format!("{}\n", fake.to_text())).unwrap();
    out
}

#[test]
fn a_hostile_stick_is_refused_at_once_with_short_escaped_words() {
    let mut rig = Live::new("SMALL");
    let stick = plug(&rig, "usb9", &[("CSW21.txt", "CAT\n")]);
    // One 60 MB line (over the size cap), one 10 MB line of letters and an
    // escape sequence (under it), and a name that would split a log line.
    std::fs::write(stick.join("HUGE.txt"), vec![b'A'; 60 * 1024 * 1024]).unwrap();
    let mut long = b"ZZ\x1b[2J".to_vec();
    long.resize(10 * 1024 * 1024, b'Q');
    std::fs::write(stick.join("LONG.txt"), long).unwrap();
    std::fs::write(stick.join("evil\nname\u{1b}[31m.txt"), "CAT\n").unwrap();
    open_usb(&mut rig, "Install lexicons from");
    let rows = rig.view().menu.items.clone();
    assert_eq!(rows.len(), 5, "{rows:?}");
    let huge = rows.iter().find(|r| r.starts_with("HUGE ")).unwrap();
    assert!(huge.contains("cannot be used") && huge.contains("is more than the 16777216 bytes"), "{huge}");
    let long = rows.iter().find(|r| r.starts_with("LONG ")).unwrap();
    assert!(long.contains("line 1: longer than 1024 bytes") && long.contains(r"ZZ\u{1b}[2JQQQ"), "{long}");
    for row in &rows {
        assert!(row.len() < 400, "a short row: {} bytes", row.len());
        assert!(!row.contains('\n') && !row.contains('\u{1b}'), "escaped: {row:?}");
    }
    assert!(rows.iter().any(|r| r.starts_with(r"evil\nname\u{1b}[31m ")), "{rows:?}");
    let lexicons = rig.dir.path().join("lexicons");
    assert!(!lexicons.join("CSW21.fst").exists(), "nothing installed");
    assert!(rig.audit_text().lines().all(|l| !l.contains('\u{1b}')), "no raw escape in the log");
}

// ---- the event's fleet, joined from the director menu ----

/// The status line of the USB screen after "Join the event's fleet".
fn join_from_menu(rig: &mut Live) -> String {
    open_usb(rig, "Join the event's fleet");
    let status = rig.view().usb.status;
    rig.key(Key::Enter); // back to the menu
    status
}

#[test]
fn a_station_joins_the_fleet_from_the_menu_records_it_and_leaves_it() {
    let mut rig = Live::new("SMALL");
    let laptop = tempfile::tempdir().unwrap();
    let ca = laptop.path().join("ca");
    let stick = plug(&rig, "fleet", &[]);
    let (ca_s, stick_s) = (ca.to_str().unwrap(), stick.to_str().unwrap());
    let printed = crate::built::fleet(&[
        "setup",
        "--event",
        "Nationals 2026",
        "--laptop",
        "192.168.10.2",
        "--stick",
        stick_s,
        "--ca-dir",
        ca_s,
    ]);
    let fleet_dir = rig.dir.path().join("fleet");

    // First visit: the request on the stick, recorded as the stick's use;
    // its station key code and the event CA's fingerprint on the screen.
    let ca_grouped = printed
        .lines()
        .find_map(|l| l.trim().strip_prefix("(stations show it as "))
        .map(|l| l.trim_end_matches(')').to_string());
    open_usb(&mut rig, "Join the event's fleet");
    let (first, detail) = (rig.view().usb.status, rig.view().usb.detail);
    rig.key(Key::Enter); // back to the menu
    let code = wordjudge_core::fleet::join::pending_code(&fleet_dir).unwrap().expect("a request waits");
    assert_eq!(first, format!("Station key code {code}. You may remove the stick: take it to the laptop."));
    let ca_grouped = ca_grouped.expect("setup prints the fingerprint as stations show it");
    assert!(
        detail.contains(&format!("whose fingerprint is {ca_grouped}")),
        "the CA's fingerprint as setup printed it: {detail}"
    );
    assert!(stick.join("wordjudge/fleet/requests/table-3.csr").is_file());
    assert!(fleet_dir.join("station.key").is_file() && !fleet_dir.join("upload.env").exists());
    assert!(
        rig.audit_text().contains(&format!("fleet request for table-3 left on it, station key code {code}")),
        "{}",
        rig.audit_text()
    );
    let fact = status_lines(&mut rig).into_iter().find(|l| l.starts_with("Fleet: ")).unwrap_or_default();
    assert!(fact.contains("request for table-3 on the stick of Nationals 2026"), "{fact}");
    // One code under one name: the Event fleet page keeps it until the second
    // visit, and it is the station key code the status page shows.
    assert!(fact.contains(&format!("station key code {code}")), "{fact}");
    // In a director's words: no command quoted (the words no screen may show).
    assert_eq!(crate::support::forbidden_in(&fact), None, "{fact}");
    let lines = status_lines(&mut rig);
    assert!(lines.contains(&format!("Station key code: {code}")), "{lines:?}");

    // Signed on the laptop; the second visit joins, recorded with the CA's fingerprint.
    // The director confirms on the laptop the code the station showed.
    let accept = format!("table-3={code}");
    assert!(crate::built::fleet(&["sign", "--ca-dir", ca_s, "--stick", stick_s, "--accept", &accept])
        .contains("signed   table-3"));
    assert_eq!(join_from_menu(&mut rig), "Joined the fleet of Nationals 2026. You may remove the stick.");
    let fleet_toml = std::fs::read_to_string(stick.join("wordjudge/fleet/fleet.toml")).unwrap();
    let ca_sha256 =
        fleet_toml.lines().find_map(|l| l.strip_prefix("ca_sha256 = ")).unwrap().trim_matches('"').to_string();
    let audit = rig.audit_text();
    let joined = audit.lines().find(|l| l.contains("\"event\":\"fleet_joined\"")).expect("fleet_joined recorded");
    assert!(
        joined.contains(&format!("\"ca_sha256\":\"{ca_sha256}\""))
            && joined.contains("\"certificate_name\":\"table-3\""),
        "{joined}"
    );
    assert!(joined.contains("\"upload_url\":\"https://192.168.10.2:19532\""), "{joined}");
    let fact = status_lines(&mut rig).into_iter().find(|l| l.starts_with("Fleet: ")).unwrap_or_default();
    assert!(fact.starts_with("Fleet: Nationals 2026: sending to the event's laptop (192.168.10.2)"), "{fact}");

    // Another event's stick is refused while in this fleet: recorded, nothing changed.
    let other = plug(&rig, "other", &[]);
    std::fs::remove_dir_all(&stick).unwrap();
    let other_ca = laptop.path().join("other-ca");
    crate::built::fleet(&[
        "setup",
        "--event",
        "Open 2026",
        "--laptop",
        "10.0.0.2",
        "--stick",
        other.to_str().unwrap(),
        "--ca-dir",
        other_ca.to_str().unwrap(),
    ]);
    let before: Vec<_> = ["station.pem", "ca.pem", "upload.env", "joined.toml"]
        .iter()
        .map(|f| std::fs::read(fleet_dir.join(f)).unwrap())
        .collect();
    assert_eq!(join_from_menu(&mut rig), "Not joined: nothing changed. You may remove the stick.");
    let after: Vec<_> = ["station.pem", "ca.pem", "upload.env", "joined.toml"]
        .iter()
        .map(|f| std::fs::read(fleet_dir.join(f)).unwrap())
        .collect();
    assert_eq!(before, after);
    let refused = rig.audit_text().lines().filter(|l| l.contains("\"event\":\"fleet_refused\"")).count();
    assert_eq!(refused, 1);

    // Leaving: confirmed, recorded; the station's fleet files are gone.
    choose(&mut rig, "Leave the fleet of Nationals 2026");
    assert!(rig.view().menu.message.starts_with("Left the fleet of Nationals 2026"), "{}", rig.view().menu.message);
    assert!(rig.audit_text().contains("\"event\":\"fleet_left\""));
    for f in ["station.key", "station.pem", "ca.pem", "upload.env", "joined.toml", "wired.network"] {
        assert!(!fleet_dir.join(f).exists(), "{f} is left");
    }
    let verified = std::process::Command::new(crate::built::wordjudge())
        .args(["--config", rig.dir.path().join("config.toml").to_str().unwrap(), "audit", "verify"])
        .output()
        .unwrap();
    assert!(verified.status.success(), "{}", String::from_utf8_lossy(&verified.stdout));
}
