//! The log's trust gaps (issue 30): a renamed station, a clock that jumps,
//! a signing key that cannot be read, journald copies that are not there,
//! and a key never compared with the fingerprint noted at set-up. Each is
//! said, in the log and by `audit verify`, and none fails an honest log.

use crate::support::*;
use std::path::Path;
use std::time::Duration;
use wordjudge_core::audit::{AuditEvent, CheckpointReason, NoteVerifier};
use wordjudge_core::inspect::{verify, verify_with, BreakKind, VerifyOptions};
use wordjudge_core::recorder::AuditLog;

fn events(dir: &Path) -> Vec<String> {
    records(dir).iter().map(|r| r["event"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_renamed_station_is_named_in_every_later_record_and_checkpoint_and_by_verify_and_show() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("audit");
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&dir, "Station 1", signed_options(&clock)).unwrap();
    record(&mut log, &lexicon, &identity, &["CAT"]);
    log.record_event(AuditEvent::SettingChanged { setting: "station_name".into(), value: Some("Table 7".into()) });
    log.set_station("Table 7");
    assert_eq!(log.station(), "Table 7");
    for _ in 0..12 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    let note = log.checkpoint(CheckpointReason::Requested).unwrap();
    assert!(note.contains("\nstation Table 7\n"), "the checkpoint names the station as it is now: {note}");
    drop(log);

    let all = records(&dir);
    let rename = all.iter().position(|r| r["setting"] == "station_name").unwrap();
    assert_eq!(all[rename]["station"], "Station 1", "the rename's own record carries the old name");
    assert!(all[..rename].iter().all(|r| r["station"] == "Station 1"));
    assert!(all[rename + 1..].iter().all(|r| r["station"] == "Table 7"), "every later record carries the new one");
    let rename_seq = all[rename]["seq"].as_u64().unwrap();

    let report = verify(&dir).unwrap();
    assert!(report.ok(), "{report}");
    let text = report.to_string();
    assert!(text.contains(&format!("  station: Table 7 (was Station 1 until record #{rename_seq})\n")), "{text}");

    let config = base.path().join("config.toml");
    std::fs::write(&config, format!("station_name = \"Table 7\"\naudit_dir = {:?}\n", dir.display().to_string()))
        .unwrap();
    let shown = stdout(&wordjudge_with(&config, &["audit", "show"]));
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines[0].ends_with("[station Station 1]"), "the first record shown names the station: {shown}");
    let renamed = format!("[station Table 7, was Station 1 until record #{rename_seq}]");
    assert_eq!(shown.matches(&renamed).count(), 1, "named once, where it changed: {shown}");
    assert!(lines[rename_seq as usize].ends_with(&renamed), "on the first record under the new name: {shown}");
    // Filtered: the first record shown names the station as it was then.
    let one = stdout(&wordjudge_with(&config, &["audit", "show", "--challenge", "5"]));
    assert!(one.trim_end().ends_with("[station Table 7]"), "{one}");
}

#[test]
fn clock_jumps_are_recorded_and_listed_by_verify_and_an_honest_log_still_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock(); // 2025-05-01T12:00:00Z
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    record(&mut log, &lexicon, &identity, &["CAT"]);
    clock.advance(Duration::from_secs(600));
    record(&mut log, &lexicon, &identity, &["CAT"]); // ten minutes on both clocks: no jump
    clock.advance(Duration::from_secs(30));
    clock.set_wall("2099-05-01T12:10:30Z".parse().unwrap());
    record(&mut log, &lexicon, &identity, &["DOG"]);
    clock.advance(Duration::from_secs(60));
    log.expect_clock_jump("the director set the clock");
    clock.set_wall("2025-05-01T12:12:00Z".parse().unwrap());
    log.record_event(AuditEvent::SettingChanged { setting: "clock".into(), value: Some("2025-05-01 12:12".into()) });
    // A cause said before a record without a jump is not kept for a later one.
    log.expect_clock_jump("the director set the clock");
    clock.advance(Duration::from_secs(5));
    record(&mut log, &lexicon, &identity, &["ZA"]);
    clock.advance(Duration::from_secs(5));
    clock.set_wall("2025-05-01T12:00:00Z".parse().unwrap());
    record(&mut log, &lexicon, &identity, &["QI"]);
    drop(log);

    let all = records(dir.path());
    let jumps: Vec<&serde_json::Value> = all.iter().filter(|r| r["event"] == "clock_jumped").collect();
    assert_eq!(jumps.len(), 3, "{:?}", events(dir.path()));
    assert_eq!(jumps[0]["from"], "2025-05-01T12:10:30.000Z");
    assert_eq!(jumps[0]["to"], "2099-05-01T12:10:30.000Z");
    assert!(jumps[0]["seconds"].as_i64().unwrap() > 2_000_000_000);
    assert_eq!(jumps[0].get("cause"), None, "nobody said why");
    assert_eq!(jumps[1]["to"], "2025-05-01T12:12:00.000Z");
    assert_eq!(jumps[1]["cause"], "the director set the clock");
    assert_eq!(jumps[2]["seconds"], -730, "back 12:12:10 → 12:00:00");
    assert_eq!(jumps[2].get("cause"), None, "the second cause went with its record");
    // Each jump is written just before the record that saw it.
    let order = events(dir.path());
    let first = order.iter().position(|e| e == "clock_jumped").unwrap();
    assert_eq!(order[first + 1], "adjudication");
    assert!(order.windows(2).any(|w| w == ["clock_jumped", "setting_changed"]), "{order:?}");

    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "an honest log with jumps verifies: {report}");
    assert_eq!(report.clock_jumps.len(), 3, "{report}");
    assert!(report.clock_jumps.iter().all(|j| j.recorded), "{report}");
    let text = report.to_string();
    assert!(text.contains("WARNING: the wall clock jumped 3 time(s)"), "{text}");
    // Named between the record before the jump and the clock_jumped record
    // (the file's `rotated` record in between is the log's own).
    let at = all.iter().position(|r| r["event"] == "clock_jumped").unwrap();
    let before = all[..at].iter().rev().find(|r| r["event"] != "rotated").unwrap()["seq"].as_u64().unwrap();
    assert!(
        text.contains(&format!("between records #{before} and #{}", all[at]["seq"]))
            && text.contains("jumped forward by")
            && text.contains("recorded by the station (the director set the clock)")
            && text.contains("jumped back by 730 s (about 12 minutes)"),
        "{text}"
    );
    assert!(text.contains("OK: the hash chain is intact") && text.contains("with 3 clock jump warning(s)"), "{text}");
}

#[test]
fn a_clock_set_while_the_station_was_stopped_is_recorded_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    log.record_event(AuditEvent::Shutdown);
    drop(log);
    clock.advance(Duration::from_secs(10));
    clock.set_wall("2025-05-01T18:00:00Z".parse().unwrap()); // six hours on, the same day
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    log.record_event(AuditEvent::Startup { version: "test".into() });
    drop(log);
    assert_eq!(events(dir.path()), ["shutdown", "clock_jumped", "startup"]);
    // After a reboot the boot clock starts again: nothing to compare.
    clock.reboot("boot-b");
    clock.set_wall("2025-05-01T08:00:00Z".parse().unwrap());
    let log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    drop(log);
    assert_eq!(events(dir.path()).iter().filter(|e| *e == "clock_jumped").count(), 1);
    assert!(verify(dir.path()).unwrap().ok());
}

/// Seals `bodies` into a chain written as if by a station that recorded no
/// clock jumps: each with its wall time, boot id and boot time.
fn crafted_log(dir: &Path, lines: &[(&str, &str, u64)]) {
    use wordjudge_core::audit::format::{line_hash, seal, GENESIS};
    let mut prev = GENESIS.to_string();
    let mut text = String::new();
    for (i, (time, boot, mono_s)) in lines.iter().enumerate() {
        let object = format!(
            "{{\"seq\":{},\"prev\":\"{prev}\",\"time\":\"{time}\",\"boot_id\":\"{boot}\",\"mono_ns\":{},\
             \"clock_synced\":true,\"station\":\"Table 7\",\"event\":\"director_left\"}}",
            i + 1,
            mono_s * 1_000_000_000
        );
        let line = seal(&object);
        prev = line_hash(line.as_bytes());
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(dir.join("audit-000001-2026-05-01.jsonl"), text).unwrap();
}

#[test]
fn verify_finds_clock_jumps_the_station_did_not_record() {
    let dir = tempfile::tempdir().unwrap();
    crafted_log(
        dir.path(),
        &[
            ("2026-05-01T10:00:00.000Z", "a", 100),
            ("2026-05-01T10:05:00.000Z", "a", 400), // five minutes on both
            ("2099-05-01T10:05:10.000Z", "a", 410), // 2026 → 2099
            ("2026-05-01T10:05:20.000Z", "a", 420), // → 2026
            ("2026-05-01T10:05:18.000Z", "a", 421), // backwards by 2 s
            ("2026-05-01T09:00:00.000Z", "b", 5),   // another boot: not compared
        ],
    );
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    let pairs: Vec<(u64, u64, bool)> =
        report.clock_jumps.iter().map(|j| (j.before_seq, j.after_seq, j.recorded)).collect();
    assert_eq!(pairs, [(2, 3, false), (3, 4, false), (4, 5, false)], "{report}");
    assert_eq!(report.clock_jumps[2].seconds, -3);
    let text = report.to_string();
    assert!(text.contains("between records #2 and #3") && text.contains("NOT recorded by the station"), "{text}");
}

#[test]
fn a_fifo_in_place_of_the_signing_key_is_recorded_once_per_start_and_never_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    drop(AuditLog::open_with(dir.path(), "Table 7", signed_options(&clock)).unwrap());
    let key = dir.path().join("key").join("ed25519.key");
    std::fs::remove_file(&key).unwrap();
    let c = std::ffi::CString::new(key.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for start in 1..=2 {
        let (dir2, clock2) = (dir.path().to_path_buf(), clock.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut log = AuditLog::open_with(&dir2, "Table 7", signed_options(&clock2)).unwrap();
            log.record_event(AuditEvent::Startup { version: "test".into() });
            let problem = log.signing_problem();
            let checkpoint = log.checkpoint(CheckpointReason::Requested);
            log.record_event(AuditEvent::Shutdown);
            let _ = tx.send((problem, checkpoint));
        });
        let (problem, checkpoint) = rx.recv_timeout(Duration::from_secs(5)).expect("opening the log hung on a FIFO");
        let problem = problem.expect("the station knows it cannot sign");
        assert!(problem.contains("FIFO") && problem.contains("ed25519.key"), "{problem}");
        assert_eq!(checkpoint, None);
        let found = events(dir.path());
        assert_eq!(found.iter().filter(|e| *e == "key_problem").count(), start, "once per start: {found:?}");
        assert!(!found.contains(&"checkpoint".to_string()), "no checkpoint, even at shut-down: {found:?}");
    }
    let all = records(dir.path());
    let recorded = all.iter().find(|r| r["event"] == "key_problem").unwrap();
    assert!(recorded["problem"].as_str().unwrap().contains("FIFO"), "{recorded}");
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
}

#[test]
fn journald_copies_not_found_or_not_read_are_said_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    record(&mut log, &lexicon, &identity, &["CAT"]);
    drop(log);
    let none = verify_with(dir.path(), &VerifyOptions { journal: Some(Vec::new()), ..Default::default() }).unwrap();
    let text = none.to_string();
    assert!(none.ok(), "{text}");
    assert!(text.contains("  journald copies: none found — not compared\n"), "{text}");
    assert!(!text.contains("0 copies"), "{text}");
    assert!(text.contains("NOT checked against: ") && text.contains("journald's copies (none found)"), "{text}");
    let unread =
        VerifyOptions { journal_unavailable: Some("journalctl did not run here".into()), ..Default::default() };
    let text = verify_with(dir.path(), &unread).unwrap().to_string();
    assert!(text.contains("journald copies: not compared (journalctl did not run here)"), "{text}");
    // On the command line, --no-journal is said too.
    let config = dir.path().join("config.toml");
    std::fs::write(&config, format!("audit_dir = {:?}\n", dir.path().display().to_string())).unwrap();
    let out = wordjudge_with(&config, &["audit", "verify", "--no-journal"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("journald copies: not compared (--no-journal)"), "{}", stdout(&out));
}

#[test]
fn the_key_is_checked_against_the_fingerprint_noted_at_set_up_in_any_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit");
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&audit, "Table 7", signed_options(&clock)).unwrap();
    record(&mut log, &lexicon, &identity, &["CAT"]);
    let fingerprint = log.key_fingerprint().unwrap();
    let note = log.checkpoint(CheckpointReason::Requested).unwrap();
    let verifier = log.verifier_key().unwrap();
    drop(log);
    let (pubkey, checkpoint) = (dir.path().join("station.pub"), dir.path().join("checkpoint.txt"));
    std::fs::write(&pubkey, format!("{}\n", verifier.to_text())).unwrap();
    std::fs::write(&checkpoint, &note).unwrap();
    let grouped = fingerprint.short();
    assert!(grouped.len() == 19 && grouped.chars().filter(|c| *c == '-').count() == 3, "{grouped}");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "station_name = \"Elsewhere\"\n").unwrap();
    let verify_cli = |extra: &[&str]| {
        let mut args = vec!["audit", "verify", audit.to_str().unwrap(), "--pubkey", pubkey.to_str().unwrap()];
        args.extend(["--checkpoint", checkpoint.to_str().unwrap()]);
        args.extend(extra);
        wordjudge_with(&config, &args)
    };

    // Without a noted fingerprint: verified, and said to be unchecked.
    let plain = verify_cli(&[]);
    assert_eq!(plain.status.code(), Some(0), "{}", stdout(&plain));
    let text = stdout(&plain);
    assert!(text.contains("station key code: NOT checked against the one noted at set-up"), "{text}");
    assert!(text.contains("NOT checked against: ") && text.contains("the station key code noted at set-up"), "{text}");
    assert!(text.contains(&format!("station key code {grouped}")), "the one grouped form: {text}");

    // Grouped, without dashes, lower case: the same key.
    let ungrouped = grouped.replace('-', "");
    for spelling in [grouped.clone(), ungrouped.clone(), ungrouped.to_lowercase(), grouped.to_lowercase()] {
        let out = verify_cli(&["--station-key-code", &spelling]);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{spelling}: {text}");
        assert!(text.contains(&format!("station key code: matches the one noted at set-up ({grouped})")), "{text}");
        assert!(
            text.contains(&format!(
                "checked against: a signed checkpoint; the station key code noted at set-up ({grouped})"
            )),
            "{text}"
        );
    }

    // Another key noted: fails, naming both in the grouped form only.
    let other = "0123-4567-89AB-CDEF";
    let out = verify_cli(&["--station-key-code", &other.to_lowercase()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("the station key code noted at set-up is {other}")) && text.contains(&grouped),
        "{text}"
    );
    assert!(!text.contains("0123456789ABCDEF") && !text.contains(&ungrouped), "never the ungrouped form: {text}");

    // Mistyped: a usage error that says what a fingerprint looks like.
    let out = verify_cli(&["--station-key-code", "3C37-CA65"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has 8 hex digits, not 16") && err.contains("e.g. 3C37-CA65-132D-CD46"), "{err}");

    // Without a checkpoint: the key the log's key_created record names (and
    // the option's earlier name, in scripts written before, still works).
    let out = wordjudge_with(&config, &["audit", "verify", audit.to_str().unwrap(), "--key-fingerprint", &ungrouped]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains(&format!("the log's key_created record names the key noted at set-up ({grouped})")));
    let report =
        verify_with(&audit, &VerifyOptions { key_fingerprint: Some(other.into()), ..Default::default() }).unwrap();
    assert!(matches!(report.first_break().unwrap().kind, BreakKind::LogKeyNotNoted { .. }), "{report}");
    // The export's message shows the same grouped form.
    let export = wordjudge_with(&config, &["audit", "export", audit.to_str().unwrap(), "--format", "csv"]);
    assert!(!String::from_utf8_lossy(&export.stderr).contains(&ungrouped));
    let _ = NoteVerifier::parse(&std::fs::read_to_string(&pubkey).unwrap()).unwrap();
}

#[test]
fn the_export_s_verify_txt_names_its_final_folder_never_the_partial_one() {
    let base = tempfile::tempdir().unwrap();
    let audit = base.path().join("audit");
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&audit, "Table 7", options(&clock)).unwrap();
    record(&mut log, &lexicon, &identity, &["CAT"]);
    drop(log);
    let stick = base.path().join("stick");
    std::fs::create_dir(&stick).unwrap();
    let name = wordjudge_core::inspect::export::folder_name("Table 7", "2026-11-23");
    let export = wordjudge_core::inspect::export::write_folder(&audit, &stick, &name, None).unwrap();
    let text = std::fs::read_to_string(export.folder.join("verify.txt")).unwrap();
    assert!(!text.contains(".partial"), "{text}");
    assert!(text.starts_with(&format!("Audit log {name}/audit\n")), "{text}");
    assert!(!text.contains(&stick.display().to_string()), "no path of the station: {text}");
}

/// A weak row of issue 56: the export's folder on the stick traded for a
/// link to another folder while the station writes it, at once after it is
/// made (an inotify watch on the stick) or by a process scanning for it as
/// fast as it can: no file of the export lands in the other folder, and an
/// export that finishes holds all its files.
#[test]
fn an_export_folder_swapped_for_a_link_while_it_is_written_writes_nothing_elsewhere() {
    let base = tempfile::tempdir().unwrap();
    let audit = base.path().join("audit");
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&audit, "Table 7", signed_options(&clock)).unwrap();
    for _ in 0..50 {
        record(&mut log, &lexicon, &identity, &["CAT", "DOG"]);
    }
    let note = log.checkpoint(CheckpointReason::Requested).unwrap();
    let verifier = log.verifier_key().unwrap();
    drop(log);
    let victim = base.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep"), "the victim's").unwrap();
    let stick = base.path().join("stick");
    std::fs::create_dir_all(&stick).unwrap();
    let link = base.path().join("stick/.racer");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let name = wordjudge_core::inspect::export::folder_name("Table 7", "2026-11-23");
    let (mut swaps, mut finished) = (0, 0);
    for round in 0..12 {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let racer =
            crate::race::race_new_entries(stick.clone(), ".partial", link.clone(), round % 2 == 0, stop.clone());
        let result = wordjudge_core::inspect::export::write_folder(
            &audit,
            &stick,
            &name,
            Some((note.clone(), verifier.clone())),
        );
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        swaps += racer.join().unwrap();
        let names: Vec<String> = std::fs::read_dir(&victim)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["keep"], "round {round}: the export wrote into the folder a link pointed at ({result:?})");
        if let Ok(export) = result {
            finished += 1;
            for file in ["audit.csv", "verify.txt", "README.txt", "checkpoint.txt", "station-key.pub", "audit"] {
                assert!(std::fs::symlink_metadata(export.folder.join(file)).is_ok(), "round {round}: {file} missing");
            }
        }
    }
    println!("{swaps} swaps over 12 exports ({finished} finished); nothing written elsewhere");
    assert!(swaps > 0, "the racer never swapped: the test did not race");
    assert!(finished > 0, "no export finished at all");
}
