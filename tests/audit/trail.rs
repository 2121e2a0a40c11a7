//! The audit trail against an operator or a cheater: one writer per folder,
//! slip codes, signed checkpoints, deletions that only copies off the
//! station can show, numbering across restarts, director actions as
//! records, and terminal escapes in `audit show`.

use crate::support::*;
use std::path::Path;
use std::process::Output;
use wordjudge_core::audit::checkpoint::{self, NoteVerifier};
use wordjudge_core::audit::format::{line_hash, seal};
use wordjudge_core::audit::{AuditEvent, CheckpointReason, Slip, SlipCode};
use wordjudge_core::inspect::{verify, verify_with, BreakKind, VerifyOptions};
use wordjudge_core::recorder::AuditLog;

fn wordjudge(args: &[&str]) -> Output {
    wordjudge_with(std::path::Path::new("/nonexistent/wordjudge-test-config.toml"), args)
}

/// Every line of the log, in order.
fn all_lines(dir: &Path) -> Vec<String> {
    log_files(dir)
        .iter()
        .flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(String::from).collect::<Vec<_>>())
        .collect()
}

/// What a forger with the code (but no copy off the station) does: edit the
/// adjudication of `challenge` and recompute every hash from there on.
fn forge(dir: &Path, challenge: u64) {
    let files = log_files(dir);
    let mut prev: Option<String> = None;
    let mut forged = false;
    for file in &files {
        let mut out = String::new();
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            if value["event"] == "adjudication" && value["challenge"] == challenge {
                let verdict = if value["verdict"] == "ACCEPTABLE" { "UNACCEPTABLE" } else { "ACCEPTABLE" };
                value["verdict"] = verdict.into();
                forged = true;
            }
            if let Some(p) = &prev {
                value["prev"] = p.clone().into();
            }
            let object = value.as_object_mut().unwrap();
            object.remove("line_sha256");
            object.remove("code");
            let line = if forged { seal(&serde_json::to_string(&value).unwrap()) } else { line.to_string() };
            prev = Some(line_hash(line.as_bytes()));
            out.push_str(&line);
            out.push('\n');
        }
        std::fs::write(file, out).unwrap();
    }
    assert!(forged, "challenge {challenge} is in the log");
}

#[test]
fn a_second_writer_is_refused_by_name_and_the_chain_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut first = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    for expected in 1..=3 {
        assert_eq!(record(&mut first, &lexicon, &identity, &["CAT"]), expected);
    }
    let busy = match AuditLog::open_with(dir.path(), "Table 8", options(&clock)) {
        Err(busy) => busy,
        Ok(_) => panic!("a second writer was let in"),
    };
    let message = busy.to_string();
    assert!(message.contains(&format!("pid {}", std::process::id())), "{message}");
    assert!(message.contains("station \"Table 7\"") && message.contains("only one writer"), "{message}");
    assert_eq!(busy.holder.station, "Table 7");
    // The second one wrote nothing; the first goes on numbering.
    assert_eq!(record(&mut first, &lexicon, &identity, &["DOG"]), 4);
    // Readers work while the writer runs.
    let out = wordjudge(&["audit", "verify", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let show = wordjudge(&["audit", "show", dir.path().to_str().unwrap()]);
    assert_eq!(stdout(&show).lines().count(), 4);
    drop(first);
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.challenges, Some((1, 4)));
    // Once the first is gone the folder is free again, numbering continues.
    let mut second = AuditLog::open_with(dir.path(), "Table 8", options(&clock)).unwrap();
    assert_eq!(record(&mut second, &lexicon, &identity, &["CAT"]), 5);
}

#[test]
fn slips_name_the_first_one_a_rewrite_no_longer_matches() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    let mut slips = Vec::new();
    for n in 1..=20u64 {
        clock.advance(std::time::Duration::from_secs(30));
        let recorded = try_record(&mut log, &lexicon, &identity, &["CAT", "XQZT"]).unwrap();
        assert_eq!(recorded.challenge, n);
        let code = recorded.code;
        assert_eq!(code.as_str().len(), 8);
        if [3, 8, 15].contains(&n) {
            slips.push(Slip { challenge: n, code });
        }
    }
    assert_eq!(log.last_code().unwrap().0, 20);
    drop(log);
    // The code is in the record too, and grep finds it.
    let lines = all_lines(dir.path());
    let eighth: serde_json::Value =
        serde_json::from_str(lines.iter().find(|l| l.contains("\"challenge\":8,")).unwrap()).unwrap();
    assert_eq!(eighth["code"], slips[1].code.as_str());
    assert_eq!(SlipCode::of_line_hash(eighth["line_sha256"].as_str().unwrap()).unwrap(), slips[1].code);

    let with_slips = VerifyOptions { slips: slips.clone(), ..VerifyOptions::default() };
    let report = verify_with(dir.path(), &with_slips).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.slips_matched.len(), 3);

    forge(dir.path(), 5);
    // The chain alone cannot tell: that is the documented limit.
    let alone = verify(dir.path()).unwrap();
    assert!(alone.ok(), "a full rewrite passes the chain alone: {alone}");
    let report = verify_with(dir.path(), &with_slips).unwrap();
    assert!(!report.ok());
    let first = report.first_break().unwrap();
    match &first.kind {
        BreakKind::SlipMismatch { slip, .. } => assert_eq!(slip, &slips[1].to_string()),
        other => panic!("{other:?}: {report}"),
    }
    assert_eq!(report.slips_matched, [slips[0].clone()], "the slip before the edit still matches");
    assert!(matches!(&report.breaks[1].kind, BreakKind::SlipMismatch { slip, .. } if *slip == slips[2].to_string()));

    // The same through the command line, with slips as copied by hand.
    let lowercase = slips[0].to_string().to_lowercase();
    let dir_text = dir.path().to_str().unwrap();
    let args = ["audit", "verify", dir_text, "--slip", &lowercase, "--slip"];
    let out =
        wordjudge(&[&args[..], &[slips[1].to_string().as_str(), "--slip", slips[2].to_string().as_str()]].concat());
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("BAD: ") && text.contains(&format!("slip {} does not match", slips[1])), "{text}");
    let file = dir.path().join("..").join(format!("slips-{}.txt", std::process::id()));
    std::fs::write(&file, format!("# table 7\n{}\n{}\n", slips[0], slips[2])).unwrap();
    let out = wordjudge(&["audit", "verify", dir_text, "--slips", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains(&format!("slip {} does not match", slips[2])), "{}", stdout(&out));
    let bad = wordjudge(&["audit", "verify", dir_text, "--slip", "8=K7Q3MXAU"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a slip code"));
}

#[test]
fn a_signed_checkpoint_verifies_and_fails_after_any_edit_or_truncation() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", signed_options(&clock)).unwrap();
    let fingerprint = log.key_fingerprint().expect("a key is made at the first start");
    assert_eq!(fingerprint.short().len(), 19);
    log.record_event(AuditEvent::Startup { version: "test".into() });
    for _ in 0..6 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    let note = log.checkpoint(CheckpointReason::Requested).unwrap();
    record(&mut log, &lexicon, &identity, &["DOG"]); // after the checkpoint
    log.record_event(AuditEvent::Shutdown); // signs another
    drop(log);
    // Private key for the service only; public key next to it.
    use std::os::unix::fs::PermissionsExt;
    let private = dir.path().join("key").join("ed25519.key");
    assert_eq!(std::fs::metadata(&private).unwrap().permissions().mode() & 0o777, 0o600);
    let public_text = std::fs::read_to_string(checkpoint::public_key_path(dir.path())).unwrap();
    let verifier = NoteVerifier::parse(&public_text).unwrap();
    assert_eq!(verifier.fingerprint(), fingerprint);

    let records = records(dir.path());
    let events: Vec<&str> = records.iter().map(|r| r["event"].as_str().unwrap()).collect();
    assert_eq!(events[0], "key_created");
    assert_eq!(events.iter().filter(|e| **e == "checkpoint").count(), 2, "{events:?}");
    assert_eq!(events.last(), Some(&"checkpoint"), "shut-down is followed by a checkpoint");
    assert_eq!(records.last().unwrap()["reason"], "shutdown");

    let check = |note: &str| {
        let options =
            VerifyOptions { checkpoint: Some((note.to_string(), verifier.clone())), ..VerifyOptions::default() };
        verify_with(dir.path(), &options).unwrap()
    };
    let report = check(&note);
    assert!(report.ok(), "{report}");
    let signed = report.checkpoint.clone().unwrap();
    assert_eq!((signed.count, signed.station.as_str(), signed.reason.as_str()), (8, "Table 7", "requested"));

    // An altered note, or another station's key: refused.
    let altered = note.replacen("\n8\n", "\n7\n", 1);
    assert!(matches!(check(&altered).first_break().unwrap().kind, BreakKind::CheckpointInvalid { .. }));

    let files = log_files(dir.path());
    let original = std::fs::read_to_string(&files[0]).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    // Any single edit before the count.
    for i in [0usize, 3, 7] {
        let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edited[i] = edited[i].replacen("\"seq\"", "\"seq\" ", 1);
        std::fs::write(&files[0], edited.join("\n") + "\n").unwrap();
        let report = check(&note);
        assert!(!report.ok(), "edit of line {} unnoticed", i + 1);
        assert!(report.breaks.iter().any(|b| matches!(b.kind, BreakKind::CheckpointMismatch { count: 8 })), "{report}");
    }
    // Truncation before its count: the last lines cut (the chain alone passes).
    std::fs::write(&files[0], lines[..6].join("\n") + "\n").unwrap();
    assert!(verify(dir.path()).unwrap().ok(), "cut lines at the end pass the chain alone");
    let report = check(&note);
    assert_eq!(report.first_break().unwrap().kind, BreakKind::CheckpointBeyondLog { count: 8, records: 6 });
    // A rewrite with every later hash recomputed.
    std::fs::write(&files[0], &original).unwrap();
    forge(dir.path(), 3);
    assert!(verify(dir.path()).unwrap().ok());
    assert!(matches!(check(&note).first_break().unwrap().kind, BreakKind::CheckpointMismatch { count: 8 }));

    // The command line, with the note and key copied off the station.
    std::fs::write(&files[0], &original).unwrap();
    let copy = tempfile::tempdir().unwrap();
    let (note_file, key_file) = (copy.path().join("cp.note"), copy.path().join("station.pub"));
    std::fs::write(&note_file, &note).unwrap();
    std::fs::write(&key_file, &public_text).unwrap();
    let args = |d: &Path| {
        vec![
            "audit".to_string(),
            "verify".into(),
            d.to_str().unwrap().into(),
            "--pubkey".into(),
            key_file.to_str().unwrap().into(),
            "--checkpoint".into(),
            note_file.to_str().unwrap().into(),
        ]
    };
    let a = args(dir.path());
    let ok = wordjudge(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    assert!(stdout(&ok).contains("signature good, record 8 is the one signed"), "{}", stdout(&ok));
    std::fs::write(&files[0], lines[..5].join("\n") + "\n").unwrap();
    let bad = wordjudge(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(bad.status.code(), Some(1));
    assert!(stdout(&bad).contains("it signed 8 records, the log has 5"), "{}", stdout(&bad));
}

#[test]
fn deleting_the_torn_file_or_the_last_line_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    for _ in 0..4 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    let last = try_record(&mut log, &lexicon, &identity, &["DOG"]).unwrap();
    drop(log);
    let file = log_files(dir.path()).remove(0);
    let text = std::fs::read_to_string(&file).unwrap();

    // Deleting the last line: the chain alone cannot see it; the last slip does.
    let kept: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, &kept).unwrap();
    assert!(verify(dir.path()).unwrap().ok());
    let slip = Slip { challenge: last.challenge, code: last.code.clone() };
    let report = verify_with(dir.path(), &VerifyOptions { slips: vec![slip], ..Default::default() }).unwrap();
    assert!(matches!(report.first_break().unwrap().kind, BreakKind::SlipNoRecord { .. }), "{report}");
    std::fs::write(&file, &text).unwrap();

    // A torn record (a power cut mid-write), recovered at the next start.
    let torn = "{\"seq\":6,\"prev\":\"0000\",\"time\":\"2025-05-01T12:00:00.000Z\",\"event\":\"adjudication\",\"challenge\":6,\"lexi";
    std::fs::write(&file, format!("{text}{torn}")).unwrap();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!(record(&mut log, &lexicon, &identity, &["CAT"]), 7, "the torn record's number is not reused");
    drop(log);
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    let aside = dir.path().join(&report.recoveries[0].moved_to);
    std::fs::remove_file(&aside).unwrap();
    let report = verify(dir.path()).unwrap();
    assert!(!report.ok());
    assert!(matches!(&report.first_break().unwrap().kind, BreakKind::AsideMissing { name } if aside.ends_with(name)));
    let out = wordjudge(&["audit", "verify", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("is missing"), "{}", stdout(&out));
}

#[test]
fn shown_without_a_record_then_killed_is_named_and_numbers_continue_above() {
    // A process that showed 35 and 36 while the disk was full and died
    // (its counter says so); the log ends at 34.
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    for _ in 0..34 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    drop(log);
    let mut counter = wordjudge_core::audit::numbering::Counter::open(dir.path()).unwrap();
    counter.store(wordjudge_core::audit::numbering::CounterState { reserved: 48, unrecorded: Some((35, 36)) }).unwrap();
    drop(counter);
    // Before any restart, verify already names them from the counter.
    let report = verify(dir.path()).unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::ShownWithoutRecord { challenges: vec![(35, 36)] });
    let text = report.to_string();
    assert!(text.contains("challenge(s) 35 to 36 were shown to players"), "{text}");

    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 49, "above every reserved number");
    drop(log);
    let records = records(dir.path());
    let lost = records.iter().find(|r| r["event"] == "challenges_lost").unwrap();
    assert_eq!((lost["first"].as_u64(), lost["last"].as_u64()), (Some(35), Some(36)));
    let next = records.iter().find(|r| r["challenge"] == 49).unwrap();
    assert_eq!(next["skipped"], serde_json::json!([[37, 48]]), "reserved, never shown: explained where the gap is");
    let report = verify(dir.path()).unwrap();
    assert!(!report.ok(), "lost verdicts fail verify for good");
    assert!(
        matches!(&report.first_break().unwrap().kind, BreakKind::ShownWithoutRecord { challenges } if challenges == &[(35, 36)])
    );
    assert!(!report.breaks.iter().any(|b| matches!(b.kind, BreakKind::ChallengeMissing { .. })), "{report}");
    // `audit show` names the gap on the record after it, in a director's words.
    let shown = stdout(&wordjudge(&["audit", "show", dir.path().to_str().unwrap()]));
    let line = shown.lines().find(|l| l.contains("challenge 49 ")).unwrap_or_else(|| panic!("{shown}"));
    assert!(line.ends_with("; #37–#48 were reserved and never shown (audit verify says why)"), "{line}");

    // A record deleted from the middle and the chain recomputed: its number is missing.
    let dir2 = tempfile::tempdir().unwrap();
    let mut log = AuditLog::open_with(dir2.path(), "S", options(&clock)).unwrap();
    for _ in 0..5 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    drop(log);
    let file = log_files(dir2.path()).remove(0);
    let lines: Vec<String> = std::fs::read_to_string(&file).unwrap().lines().map(String::from).collect();
    let mut out = String::new();
    let mut prev = wordjudge_core::audit::format::GENESIS.to_string();
    for (seq, line) in lines.iter().enumerate().filter(|(i, _)| *i != 2).map(|(_, l)| l).enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["seq"] = (seq as u64 + 1).into();
        v["prev"] = prev.clone().into();
        v.as_object_mut().unwrap().remove("line_sha256");
        v.as_object_mut().unwrap().remove("code");
        let sealed = seal(&serde_json::to_string(&v).unwrap());
        prev = line_hash(sealed.as_bytes());
        out.push_str(&sealed);
        out.push('\n');
    }
    std::fs::write(&file, out).unwrap();
    let report = verify(dir2.path()).unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::ChallengeMissing { challenges: vec![(3, 3)] });
}

#[test]
fn director_actions_are_records() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    log.record_event(AuditEvent::PinRefused { failures: 1 });
    log.record_event(AuditEvent::LockedOut { seconds: 30 });
    log.record_event(AuditEvent::PinAccepted);
    log.record_event(AuditEvent::LexiconSwitchRefused {
        from: "DEMO".into(),
        to: "CSW21".into(),
        reason: "Corrupt: the .fst does not match its manifest".into(),
    });
    log.record_event(AuditEvent::LexiconSwitched { from: "DEMO".into(), to: "TWL06".into() });
    assert_eq!(log.record_export("csv", "/media/usb/audit.csv"), None, "no key here: nothing to sign");
    drop(log);
    let events: Vec<String> = records(dir.path()).iter().map(|r| r["event"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        events,
        ["pin_refused", "locked_out", "pin_accepted", "lexicon_switch_refused", "lexicon_switched", "export"]
    );
    let refused = &records(dir.path())[3];
    assert_eq!(refused["reason"], "Corrupt: the .fst does not match its manifest");
    let shown = stdout(&wordjudge(&["audit", "show", dir.path().to_str().unwrap(), "--lexicon", "CSW21"]));
    assert!(shown.contains("lexicon_switch_refused") && shown.contains("Corrupt"), "{shown}");
    assert!(verify(dir.path()).unwrap().ok());
}

#[test]
fn show_escapes_terminal_control_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    // A C1 CSI (U+009B) reaches the file only as an escape.
    log.record_event(AuditEvent::ConfigProblem { problem: "bad \u{9b}2J value \u{1b}[31m".into() });
    log.record_event(AuditEvent::Shutdown);
    drop(log);
    let file = log_files(dir.path()).remove(0);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "no raw control character in the file");
    // A tampered line with raw escape sequences that would hide its marker.
    let evil = "{\"seq\":3,\"event\":\"shutdown\",\"x\":\"\u{1b}[2K\u{1b}[1A\u{1b}[8m\"}";
    std::fs::write(&file, format!("{text}{evil}\n")).unwrap();
    let out = wordjudge(&["audit", "show", dir.path().to_str().unwrap()]);
    let shown = stdout(&out);
    assert!(!shown.contains('\u{1b}') && !shown.contains('\u{9b}'), "raw escapes printed: {shown:?}");
    assert!(shown.contains("\\x1b[2K\\x1b[1A"), "{shown}");
    assert!(shown.contains("\\u{9b}2J"), "{shown}");
    assert!(shown.lines().last().unwrap().ends_with("[SEAL DOES NOT MATCH: edited]"), "{shown}");
    let csv = stdout(&wordjudge(&["audit", "export", dir.path().to_str().unwrap(), "--format", "csv"]));
    assert!(!csv.contains('\u{1b}') && !csv.contains('\u{9b}'), "{csv:?}");
}

#[test]
fn an_export_is_recorded_and_comes_with_a_signed_checkpoint_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", signed_options(&clock)).unwrap();
    for _ in 0..3 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    let fingerprint = log.key_fingerprint().unwrap();
    // The station's own config names this folder: only through it does the
    // CLI write to the log, and under the station's own name.
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!("station_name = \"Table 7\"\naudit_dir = {:?}\n", dir.path().display().to_string()),
    )
    .unwrap();
    let wordjudge = |args: &[&str]| wordjudge_with(&config, args);
    // Another station's config (here: none) exports read-only: no record, no checkpoint.
    let usb = tempfile::tempdir().unwrap();
    let out = usb.path().join("audit.jsonl");
    let foreign = wordjudge_with(
        std::path::Path::new("/nonexistent/other.toml"),
        &["audit", "export", dir.path().to_str().unwrap(), "--format", "jsonl", "--out", out.to_str().unwrap()],
    );
    assert_eq!(foreign.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&foreign.stderr);
    assert!(stderr.contains("not the audit folder of this station's config"), "{stderr}");
    assert_eq!(records(dir.path()).len(), 4, "nothing written through another config");
    // While the kiosk runs: the checkpoint is signed over the log as read, and not recorded.
    let busy = wordjudge(&[
        "audit",
        "export",
        dir.path().to_str().unwrap(),
        "--format",
        "jsonl",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(busy.status.code(), Some(0), "{}", String::from_utf8_lossy(&busy.stderr));
    assert!(String::from_utf8_lossy(&busy.stderr).contains(&fingerprint.short()));
    assert_eq!(records(dir.path()).len(), 4, "key_created and 3 adjudications: a reader wrote nothing");
    drop(log);
    // With the kiosk stopped, the export is a record and its checkpoint covers it.
    let done = wordjudge(&[
        "audit",
        "export",
        dir.path().to_str().unwrap(),
        "--format",
        "jsonl",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("signed checkpoint in") && stderr.contains(&fingerprint.short()), "{stderr}");
    // (The command runs on today's clock: the log also rotates to a new day,
    // which signs a checkpoint of its own.)
    let all = records(dir.path());
    let events: Vec<&str> = all.iter().map(|r| r["event"].as_str().unwrap()).collect();
    assert!(events[4..].contains(&"export"), "{events:?}");
    let last = all.last().unwrap();
    assert_eq!((last["event"].as_str(), last["reason"].as_str()), (Some("checkpoint"), Some("export")));
    assert_eq!(last["count"].as_u64(), Some(all.len() as u64 - 1), "it covers the export record");
    let exported = std::fs::read_to_string(&out).unwrap();
    assert!(exported.contains("\"event\":\"export\"") && exported.contains("\"reason\":\"export\""));
    let verified = wordjudge(&[
        "audit",
        "verify",
        dir.path().to_str().unwrap(),
        "--pubkey",
        &format!("{}.pub", out.display()),
        "--checkpoint",
        &format!("{}.checkpoint", out.display()),
    ]);
    assert_eq!(verified.status.code(), Some(0), "{}", stdout(&verified));
    let signed = format!("record {} is the one signed", all.len() - 1);
    assert!(stdout(&verified).contains(&signed), "{}", stdout(&verified));
}

#[test]
fn records_cut_with_the_counter_deleted_are_caught_by_the_journald_copies() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    for _ in 0..5 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    drop(log);
    // What journald was sent: each record's seq, challenge and line hash.
    let copies: Vec<wordjudge_core::inspect::JournalCopy> = records(dir.path())
        .iter()
        .map(|r| wordjudge_core::inspect::JournalCopy {
            seq: r["seq"].as_u64().unwrap(),
            challenge: r["challenge"].as_u64(),
            line_sha256: r["line_sha256"].as_str().unwrap().to_string(),
        })
        .collect();
    // With card access: the last two verdicts cut, the counter deleted.
    let file = log_files(dir.path()).remove(0);
    let text = std::fs::read_to_string(&file).unwrap();
    let kept: Vec<&str> = text.lines().collect();
    std::fs::write(&file, kept[..kept.len() - 2].join("\n") + "\n").unwrap();
    std::fs::remove_file(dir.path().join("challenge-counter")).unwrap();
    assert!(wordjudge_core::inspect::verify(dir.path()).unwrap().ok(), "the file alone cannot tell");
    let options = wordjudge_core::inspect::VerifyOptions { journal: Some(copies), ..Default::default() };
    let report = wordjudge_core::inspect::verify_with(dir.path(), &options).unwrap();
    assert!(!report.ok(), "{report}");
    let text = report.to_string();
    assert!(
        text.contains("is in journald's copy of this log but not in the file: cut") && text.contains("challenge #0005"),
        "{text}"
    );
}

#[test]
fn a_slip_with_another_challenges_code_names_that_challenge() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 2", options(&clock)).unwrap();
    let codes: Vec<SlipCode> =
        (0..5).map(|_| try_record(&mut log, &lexicon, &identity, &["CAT"]).unwrap().code).collect();
    drop(log);
    // #4's code written on a slip numbered 3: the number was miscopied.
    let slip = Slip { challenge: 3, code: codes[3].clone() };
    let report = verify_with(dir.path(), &VerifyOptions { slips: vec![slip.clone()], ..Default::default() }).unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::SlipOtherChallenge { slip, owner: 4 }, "{report}");
    let text = report.to_string();
    assert!(text.contains(&format!("{} is exactly #4's code: check the number on the slip", codes[3])), "{text}");
    assert!(!text.contains("rewritten"), "not read as tampering: {text}");
    // A slip numbered past the log, with a real code: named too.
    let slip = Slip { challenge: 9, code: codes[0].clone() };
    let report = verify_with(dir.path(), &VerifyOptions { slips: vec![slip.clone()], ..Default::default() }).unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::SlipOtherChallenge { slip, owner: 1 }, "{report}");
    // A code that is nobody's stays a mismatch.
    let nobody = SlipCode::parse("T3AS849W").unwrap();
    let slip = Slip { challenge: 3, code: nobody };
    let report = verify_with(dir.path(), &VerifyOptions { slips: vec![slip], ..Default::default() }).unwrap();
    assert!(
        matches!(
            report.first_break().unwrap().kind,
            BreakKind::SlipMismatch { .. } | BreakKind::SlipLikelyMiscopied { .. }
        ),
        "{report}"
    );
}
