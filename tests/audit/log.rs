//! The audit log: records, numbering, repeats, rotation, recovery of a torn
//! line, and a log that cannot be written.

use crate::support::*;
use std::time::{Duration, Instant};
use wordjudge_core::audit::format::{line_hash, GENESIS};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::inspect::{verify, BreakKind};
use wordjudge_core::recorder::{AuditLog, AuditOptions};

#[test]
fn a_record_per_adjudication_with_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    assert_eq!(log.problem(), None);
    log.record_event(AuditEvent::Startup { version: "0.1.0".into() });
    let adjudication = adjudication(&lexicon, &["cat", "xqzt"]);
    assert_eq!(adjudication.per_word_for_audit(), [true, false], "CAT is in the demo list, XQZT is not");
    clock.advance(Duration::from_millis(1500));
    let n = log.record_adjudication(&wordjudge_core::recorder::AdjudicationInput {
        lexicon: &identity,
        adjudication: &adjudication,
        trigger: wordjudge_core::panel::Trigger::Button,
        profile: Some("NASPA-CSW-5"),
    });
    let n = n.expect("recorded").challenge;
    assert_eq!(n, 1);

    let files = log_files(dir.path());
    assert_eq!(files.iter().map(|f| name(f)).collect::<Vec<_>>(), ["audit-000001-2025-05-01.jsonl"]);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let startup: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(startup["seq"], 1);
    assert_eq!(startup["prev"], GENESIS);
    assert_eq!(startup["event"], "startup");
    assert_eq!(startup["version"], "0.1.0");

    let r: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    for key in [
        "seq",
        "prev",
        "time",
        "boot_id",
        "mono_ns",
        "clock_synced",
        "station",
        "event",
        "challenge",
        "lexicon",
        "words",
        "verdict",
        "per_word",
        "trigger",
        "repeat_of",
        "line_sha256",
    ] {
        assert!(keys.contains(&key), "{key} missing from {r}");
    }
    assert_eq!(r["seq"], 2);
    assert_eq!(r["prev"], line_hash(lines[0].as_bytes()), "each line carries the SHA-256 of the line before");
    assert_eq!(r["time"], "2025-05-01T12:00:01.500Z");
    assert_eq!(r["boot_id"], "boot-a");
    assert_eq!(r["mono_ns"], 2_500_000_000u64);
    assert_eq!(r["clock_synced"], true);
    assert_eq!(r["station"], "Table 7");
    assert_eq!(r["event"], "adjudication");
    assert_eq!(r["challenge"], 1);
    assert_eq!(r["lexicon"]["id"], "DEMO");
    assert_eq!(r["lexicon"]["fingerprint"], lexicon.fingerprint().to_string());
    assert_eq!(r["lexicon"]["fst_sha256"], serde_json::json!([lexicon.layers()[0].fst_sha256()]));
    assert_eq!(r["lexicon"]["status"], lexicon.status().label());
    assert_eq!(r["words"], serde_json::json!(["CAT", "XQZT"]));
    assert_eq!(r["verdict"], "UNACCEPTABLE");
    assert_eq!(r["per_word"], serde_json::json!([true, false]));
    assert_eq!(r["trigger"], "button");
    assert_eq!(r["profile"], "NASPA-CSW-5", "every adjudication record carries the event profile");
    assert_eq!(r["repeat_of"], serde_json::Value::Null);
    assert!(r.get("delayed").is_none());

    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!((report.records, report.adjudications, report.challenges), (2, 1, Some((1, 1))));
}

#[test]
fn a_play_judged_by_touch_is_recorded_as_touch_and_reads_back() {
    // Each trigger word round-trips: written, verified, and read back by
    // `audit show`'s reader as the same trigger.
    use wordjudge_core::panel::Trigger;
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "Table 7", options(&clock)).unwrap();
    for trigger in [Trigger::Touch, Trigger::Keyboard, Trigger::Button] {
        let adjudication = adjudication(&lexicon, &["cat"]);
        log.record_adjudication(&wordjudge_core::recorder::AdjudicationInput {
            lexicon: &identity,
            adjudication: &adjudication,
            trigger,
            profile: None,
        })
        .expect("recorded");
        clock.advance(Duration::from_secs(2));
    }
    let text = std::fs::read_to_string(&log_files(dir.path())[0]).unwrap();
    let triggers: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["event"] == "adjudication")
        .map(|r| r["trigger"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(triggers, ["touch", "keyboard", "button"]);
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.adjudications, 3);
}

#[test]
fn numbers_continue_and_counts_include_todays_records_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    {
        let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
        for expected in 1..=3 {
            assert_eq!(record(&mut log, &lexicon, &identity, &["CAT"]), expected);
        }
        assert_eq!((log.adjudications_since_start(), log.adjudications_today()), (3, 3));
    }
    // Restart the same day: numbering continues, today's count includes the log's.
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!((log.adjudications_since_start(), log.adjudications_today()), (0, 3));
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 4);
    assert_eq!((log.adjudications_since_start(), log.adjudications_today()), (1, 4));
    // Next day: today starts again from zero; since-start does not.
    clock.advance(Duration::from_secs(24 * 3600));
    assert_eq!(log.adjudications_today(), 0);
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 5);
    assert_eq!((log.adjudications_since_start(), log.adjudications_today()), (2, 1));
    drop(log);
    let log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!(log.adjudications_today(), 1);
    assert!(verify(dir.path()).unwrap().ok());
}

#[test]
fn repeat_of_names_the_same_words_within_ten_minutes() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    let first = record(&mut log, &lexicon, &identity, &["CAT", "DOG"]);
    clock.advance(Duration::from_secs(60));
    let other_order = record(&mut log, &lexicon, &identity, &["DOG", "CAT"]);
    clock.advance(Duration::from_secs(60));
    let again = record(&mut log, &lexicon, &identity, &["cat", "dog"]);
    clock.advance(Duration::from_secs(599));
    let third = record(&mut log, &lexicon, &identity, &["CAT", "DOG"]); // 599 s after `again`
    clock.advance(Duration::from_secs(601));
    let late = record(&mut log, &lexicon, &identity, &["CAT", "DOG"]);
    // A wall-clock step (NTP) does not matter within a boot: boot time measures.
    clock.set_wall("2030-01-01T00:00:00Z".parse().unwrap());
    clock.advance(Duration::from_secs(5));
    let after_step = record(&mut log, &lexicon, &identity, &["CAT", "DOG"]);
    drop(log);
    // A restart within the window still sees the earlier one (same boot).
    clock.advance(Duration::from_secs(5));
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    let after_restart = record(&mut log, &lexicon, &identity, &["CAT", "DOG"]);
    drop(log);
    // After a reboot with an unsynchronized clock nothing can be trusted.
    clock.reboot("boot-b");
    clock.set_synchronized(false);
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    let after_reboot = record(&mut log, &lexicon, &identity, &["CAT", "DOG"]);

    let repeat_of: std::collections::HashMap<u64, serde_json::Value> = records(dir.path())
        .into_iter()
        .filter(|r| r["event"] == "adjudication")
        .map(|r| (r["challenge"].as_u64().unwrap(), r["repeat_of"].clone()))
        .collect();
    let r = |n: u64| repeat_of[&n].as_u64();
    assert_eq!(r(first), None);
    assert_eq!(r(other_order), None, "another order is another play");
    assert_eq!(r(again), Some(first));
    assert_eq!(r(third), Some(again), "the most recent one within 10 minutes");
    assert_eq!(r(late), None, "601 s later is outside the window");
    assert_eq!(r(after_step), Some(late));
    assert_eq!(r(after_restart), Some(after_step));
    assert_eq!(r(after_reboot), None);
}

#[test]
fn rotation_by_size_and_day_keeps_one_chain() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let options = AuditOptions { max_file_bytes: 4000, ..options(&clock) };
    let mut log = AuditLog::open_with(dir.path(), "S", options.clone()).unwrap();
    for _ in 0..20 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    clock.advance(Duration::from_secs(24 * 3600));
    record(&mut log, &lexicon, &identity, &["DOG"]);
    let files = log_files(dir.path());
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    assert!(names.len() >= 4, "{names:?}");
    assert!(names[..names.len() - 1].iter().all(|n| n.ends_with("2025-05-01.jsonl")), "{names:?}");
    assert!(names.last().unwrap().ends_with("2025-05-02.jsonl"), "{names:?}");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(sorted, names, "file names sort in log order");
    for pair in files.windows(2) {
        let before = std::fs::read_to_string(&pair[0]).unwrap();
        let after = std::fs::read_to_string(&pair[1]).unwrap();
        assert!(before.len() <= 4000, "{} has {} bytes", name(&pair[0]), before.len());
        let last = before.lines().last().unwrap();
        let closing: serde_json::Value = serde_json::from_str(last).unwrap();
        assert_eq!(closing["event"], "rotated");
        assert_eq!(closing["next_file"], name(&pair[1]));
        let first: serde_json::Value = serde_json::from_str(after.lines().next().unwrap()).unwrap();
        assert_eq!(first["prev"], line_hash(last.as_bytes()), "a new file chains to the last line of the one before");
    }
    let last_closing: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&files[files.len() - 2]).unwrap().lines().last().unwrap())
            .unwrap();
    assert_eq!(last_closing["reason"], "new day");
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.adjudications, 21);

    // Deleting a middle file, or the last one, is seen.
    let middle = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), middle.path());
    std::fs::remove_file(middle.path().join(&names[1])).unwrap();
    let report = verify(middle.path()).unwrap();
    let first = report.first_break().unwrap();
    assert_eq!(first.at.file, names[0], "{report}");
    assert_eq!(first.kind, BreakKind::MissingFile { name: names[1].clone() });
    assert_eq!(first.kind.label(), "deleted");
    let second = &report.breaks[1];
    assert_eq!((second.at.file.as_str(), second.at.line), (names[2].as_str(), 1));
    assert!(matches!(second.kind, BreakKind::Deleted { .. }), "{report}");

    let last = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), last.path());
    std::fs::remove_file(last.path().join(names.last().unwrap())).unwrap();
    let report = verify(last.path()).unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::MissingFile { name: names.last().unwrap().clone() });
    assert!(report.to_string().contains("BAD:"), "{report}");
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Builds a one-file log: startup and four adjudications (5 lines).
fn five_line_log() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    log.record_event(AuditEvent::Startup { version: "0.1.0".into() });
    for words in [&["CAT"][..], &["DOG", "XQZT"], &["QI"], &["ZEBRA"]] {
        clock.advance(Duration::from_secs(30));
        record(&mut log, &lexicon, &identity, words);
    }
    drop(log);
    let file = log_files(dir.path()).remove(0);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 5);
    assert!(verify(dir.path()).unwrap().ok());
    (dir, file, text)
}

#[test]
fn editing_any_byte_is_detected_and_the_line_named() {
    let (dir, file, text) = five_line_log();
    let bytes = text.as_bytes();
    let file_name = name(&file);
    let mut line = 1u64;
    for i in 0..bytes.len() {
        for replacement in [bytes[i] ^ 0x01, if bytes[i] == b'7' { b'8' } else { b'7' }] {
            let mut edited = bytes.to_vec();
            edited[i] = replacement;
            std::fs::write(&file, &edited).unwrap();
            let report = verify(dir.path()).unwrap();
            assert!(!report.ok(), "byte {i} ({:?} -> {:?}) edited unnoticed", bytes[i] as char, replacement as char);
            let first = report.first_break().unwrap();
            assert_eq!((first.at.file.as_str(), first.at.line), (file_name.as_str(), line), "byte {i}: {first}");
            if i == bytes.len() - 1 {
                assert!(matches!(first.kind, BreakKind::Torn { .. }), "the last newline: {first}");
            } else {
                assert_eq!(first.kind, BreakKind::Edited, "byte {i}: {first}");
                assert!(report.to_string().contains(&format!("BAD: {file_name} line {line}: edited")), "{report}");
            }
        }
        if bytes[i] == b'\n' {
            line += 1;
        }
    }
    std::fs::write(&file, bytes).unwrap();
    assert!(verify(dir.path()).unwrap().ok());
}

fn rewrite(file: &std::path::Path, lines: &[&str]) {
    std::fs::write(file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

#[test]
fn deleting_swapping_truncating_and_resealing_are_named() {
    let (dir, file, original) = five_line_log();
    let lines: Vec<&str> = original.lines().collect();
    let file_name = name(&file);
    let first_break = |expect_line: u64| {
        let report = verify(dir.path()).unwrap();
        assert!(!report.ok());
        let first = report.first_break().unwrap().clone();
        assert_eq!(first.at.file, file_name);
        assert_eq!(first.at.line, expect_line, "{report}");
        (first.kind, report.to_string())
    };

    // A line deleted from the middle.
    rewrite(&file, &[lines[0], lines[1], lines[3], lines[4]]);
    let (kind, text) = first_break(3);
    assert_eq!(kind, BreakKind::Deleted { first: 3, last: 3 });
    assert!(text.contains("line 3: deleted: record 3 is missing"), "{text}");

    // The first line deleted.
    rewrite(&file, &lines[1..]);
    assert_eq!(first_break(1).0, BreakKind::MissingStart { first_seq: 2 });

    // Two lines swapped.
    rewrite(&file, &[lines[0], lines[2], lines[1], lines[3], lines[4]]);
    let (kind, text) = first_break(2);
    assert_eq!(kind, BreakKind::Reordered { expected: 2, found: 3 });
    assert!(text.contains("line 2: reordered"), "{text}");

    // The last line moved to the front.
    rewrite(&file, &[lines[4], lines[0], lines[1], lines[2], lines[3]]);
    assert_eq!(first_break(1).0, BreakKind::MissingStart { first_seq: 5 });

    // The last line truncated.
    let cut = &original[..original.len() - lines[4].len() / 2];
    std::fs::write(&file, cut).unwrap();
    let (kind, text) = first_break(5);
    assert!(matches!(kind, BreakKind::Torn { .. }), "{kind:?}");
    assert!(text.contains("line 5: torn"), "{text}");

    // An edit resealed by someone who knows the seal but not the chain.
    let mut record: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    record["verdict"] = "ACCEPTABLE".into();
    let object = record.as_object_mut().unwrap();
    object.remove("line_sha256");
    object.remove("code"); // the seal is line_sha256 and the code derived from it
    let resealed = wordjudge_core::audit::format::seal(&serde_json::to_string(&record).unwrap());
    rewrite(&file, &[lines[0], lines[1], &resealed, lines[3], lines[4]]);
    let (kind, text) = first_break(4);
    assert_eq!(kind, BreakKind::Rewritten);
    assert!(text.contains("line 4: edited"), "{text}");

    // Intact again.
    std::fs::write(&file, text_of(&lines)).unwrap();
    assert!(verify(dir.path()).unwrap().ok());
}

fn text_of(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn garbage_gives_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(verify(&dir.path().join("nope")), Err(wordjudge_core::inspect::VerifyError::Missing { .. })));
    let report = verify(dir.path()).unwrap();
    assert!(!report.ok() && report.to_string().contains("no audit records"), "{report}");

    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let file = dir.path().join("audit-000001-2025-05-01.jsonl");
    for round in 0..200 {
        let len = (next() % 3000) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                let b = next() as u8;
                if round % 2 == 0 {
                    b
                } else {
                    b"{}\"seq:,prev0123456789abcdef\n"[b as usize % 29]
                }
            })
            .collect();
        std::fs::write(&file, &bytes).unwrap();
        let report = verify(dir.path()).unwrap();
        assert!(!report.ok() || bytes.is_empty(), "round {round}");
        let _ = report.to_string();
        // Opening it must not panic either, and must keep going.
        let mut log = AuditLog::open_with(dir.path(), "S", options(&clock())).unwrap();
        log.record_event(AuditEvent::Shutdown);
        drop(log);
    }
    // Crafted, sealed records with absurd numbers: named, no overflow, no endless scan.
    let sealed = |seq: u64, prev: &str| {
        wordjudge_core::audit::format::seal(&format!(
            r#"{{"seq":{seq},"prev":"{prev}","time":"2025-05-01T12:00:00.000Z","event":"adjudication","challenge":{seq}}}"#
        ))
    };
    let a = sealed(u64::MAX, GENESIS);
    let b = sealed(1, &line_hash(a.as_bytes()));
    let c = sealed(u64::MAX - 1, &line_hash(b.as_bytes()));
    std::fs::write(&file, format!("{a}\n{b}\n{c}\n")).unwrap();
    let report = verify(dir.path()).unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::MissingStart { first_seq: u64::MAX });
    assert!(matches!(report.breaks[2].kind, BreakKind::Deleted { first: 2, last } if last == u64::MAX - 2), "{report}");
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock())).unwrap();
    log.record_event(AuditEvent::Shutdown);
    drop(log);

    std::fs::write(&file, b"\x00\xff\xfegarbage\n{\"seq\":1}\n").unwrap();
    let report = verify(dir.path()).unwrap();
    let first = report.first_break().unwrap();
    assert_eq!(first.at.line, 1);
    assert!(matches!(&first.kind, BreakKind::NotARecord { problem } if problem.contains("UTF-8")), "{first}");
    assert!(report.to_string().contains("line 1: not an audit record"), "{report}");
}

#[test]
fn a_torn_last_line_is_moved_aside_and_the_chain_continues() {
    let (dir, file, text) = five_line_log();
    let (lexicon, identity) = demo();
    let clock = clock();
    clock.advance(Duration::from_secs(3600));
    // What a power cut mid-write leaves: the start of the next record.
    let next = {
        let scratch = tempfile::tempdir().unwrap();
        for f in log_files(dir.path()) {
            std::fs::copy(&f, scratch.path().join(name(&f))).unwrap();
        }
        let mut log = AuditLog::open_with(scratch.path(), "S", options(&clock)).unwrap();
        assert_eq!(record(&mut log, &lexicon, &identity, &["TORN"]), 5);
        std::fs::read_to_string(&log_files(scratch.path())[0]).unwrap().lines().last().unwrap().to_string()
    };
    let torn = &next[..next.find("\"lexicon\"").unwrap() + 5];
    assert!(torn.contains("\"challenge\":5,"));
    std::fs::write(&file, format!("{text}{torn}")).unwrap();
    let report = verify(dir.path()).unwrap();
    assert!(matches!(report.first_break().unwrap().kind, BreakKind::Torn { .. }));

    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!(log.problem(), None);
    assert_eq!(record(&mut log, &lexicon, &identity, &["CAT"]), 6, "the torn record's number is not reused");
    drop(log);

    let lines: Vec<String> = std::fs::read_to_string(&file).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), 7);
    let recovered: serde_json::Value = serde_json::from_str(&lines[5]).unwrap();
    assert_eq!(recovered["event"], "recovered");
    assert_eq!(recovered["torn_bytes"], torn.len());
    assert_eq!(recovered["offset"], text.len());
    assert_eq!(recovered["challenge"], 5);
    let aside = dir.path().join(recovered["moved_to"].as_str().unwrap());
    assert_eq!(std::fs::read(&aside).unwrap(), torn.as_bytes(), "the torn bytes are kept next to the log");
    assert!(name(&aside).starts_with(&format!("{}.torn-at-{}-", name(&file), text.len())));

    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.recoveries.len(), 1);
    assert_eq!(report.recoveries[0].aside, wordjudge_core::inspect::verify::AsideState::Present);
    let shown = report.to_string();
    assert!(
        shown.contains("recovery at") && shown.contains("kept, SHA-256 matches") && shown.starts_with("Audit log"),
        "{shown}"
    );

    // What ext4 can leave after a power cut: the size grew, the data did not.
    let before = std::fs::read(&file).unwrap();
    let mut zeros = before.clone();
    zeros.extend_from_slice(&[0u8; 300]);
    std::fs::write(&file, &zeros).unwrap();
    // A crash during recovery (aside written, log not yet cut) is redone.
    let aside_name = wordjudge_core::audit::format::torn_aside_name(
        &name(&file),
        before.len() as u64,
        &wordjudge_core::digest::sha256_hex(&[0u8; 300]),
    );
    std::fs::write(dir.path().join(&aside_name), [0u8; 300]).unwrap();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 7);
    drop(log);
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.recoveries.len(), 2);
    assert_eq!(report.aside_files.len(), 2, "{:?}", report.aside_files);
    assert_eq!(report.recoveries[1].moved_to, aside_name);
}

#[test]
fn a_file_in_the_way_refuses_the_verdict_uses_no_number_and_the_failure_is_recorded() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("audit");
    std::fs::write(&dir, b"not a directory").unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&dir, "S", options(&clock)).unwrap();
    let problem = log.problem().expect("a failing log says so");
    assert!(problem.contains("cannot create the audit directory"), "{problem}");
    log.record_event(AuditEvent::Startup { version: "0.1.0".into() });
    let start = Instant::now();
    for _ in 0..2 {
        let refused = try_record(&mut log, &lexicon, &identity, &["CAT"]).expect_err("no record, no verdict");
        assert!(refused.problem.contains("cannot create the audit directory"), "{refused}");
        assert_eq!(refused.challenge, None, "no number is used while the log cannot be read");
    }
    assert!(!log.retry(), "still in the way");
    assert!(start.elapsed() < Duration::from_millis(500), "{:?}", start.elapsed());
    let problem = log.problem().unwrap();
    assert!(problem.contains("No challenge is judged") && problem.contains("1 record(s) held"), "{problem}");

    // The way is cleared: a retry (the station's, while out of service)
    // writes the failure and the held event; the next verdict is number 1.
    std::fs::remove_file(&dir).unwrap();
    clock.advance(Duration::from_secs(90));
    assert!(log.retry());
    assert_eq!(log.problem(), None);
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 1);
    let records = records(&dir);
    let events: Vec<&str> = records.iter().map(|r| r["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["write_failed", "startup", "adjudication"]);
    assert_eq!(records[0]["since"], "2025-05-01T12:00:00.000Z");
    assert!(records[0]["error"].as_str().unwrap().contains("cannot create the audit directory"));
    assert_eq!(records[0]["held"], 1);
    assert_eq!(records[0]["lost"], 0);
    assert_eq!(records[0]["challenges"], serde_json::Value::Null, "no verdict was held");
    assert_eq!(records[1]["delayed"], true);
    assert_eq!(records[1]["time"], "2025-05-01T12:00:00.000Z", "held records keep their own time");
    assert!(records[2].get("delayed").is_none());
    assert!(records[2].get("skipped").is_none(), "no number was used while failing");
    let report = verify(&dir).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.write_failures.len(), 1);
}

#[test]
fn a_full_disk_refuses_the_verdict_and_the_next_record_names_its_number() {
    // The number is reserved, then the record cannot be written: the new
    // day's file cannot be made (a folder is in its place). The full-disk
    // path (EFBIG) is the same one: tests/audit/faults.rs takes it.
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    assert_eq!(record(&mut log, &lexicon, &identity, &["CAT"]), 1);
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 2);
    let next_day = wordjudge_core::audit::format::LogName { index: 2, date: "2025-05-02".parse().unwrap() };
    std::fs::create_dir(dir.path().join(next_day.file_name())).unwrap();
    clock.advance(Duration::from_secs(24 * 3600));
    let refused = try_record(&mut log, &lexicon, &identity, &["ZOO"]).expect_err("the new day's file cannot be made");
    assert_eq!(refused.challenge, Some(3), "the number reserved for it");
    assert!(log.problem().is_some());
    // Cleared: the next verdict is 4 and says why 3 is missing.
    std::fs::remove_dir(dir.path().join(next_day.file_name())).unwrap();
    assert!(log.retry());
    assert_eq!(record(&mut log, &lexicon, &identity, &["ZOO"]), 4);
    drop(log);
    let records = records(dir.path());
    let four = records.iter().find(|r| r["challenge"] == 4).unwrap();
    assert_eq!(four["skipped"], serde_json::json!([[3, 3]]), "{four}");
    assert!(!records.iter().any(|r| r["challenge"] == 3), "never shown, never recorded as a verdict");
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
}

#[test]
fn an_unreadable_log_judges_nothing_and_numbering_continues_past_its_highest() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let audit = dir.path().join("audit");
    {
        let mut log = AuditLog::open_with(&audit, "S", options(&clock)).unwrap();
        for _ in 0..3 {
            record(&mut log, &lexicon, &identity, &["CAT"]);
        }
    }
    // The directory is replaced by a file at start-up (e.g. a bad mount).
    let moved = dir.path().join("audit.moved");
    std::fs::rename(&audit, &moved).unwrap();
    std::fs::write(&audit, b"x").unwrap();
    let mut log = AuditLog::open_with(&audit, "S", options(&clock)).unwrap();
    assert!(log.problem().is_some());
    let refused = try_record(&mut log, &lexicon, &identity, &["DOG"]).expect_err("nothing judged from memory");
    assert_eq!(refused.challenge, None);
    std::fs::remove_file(&audit).unwrap();
    std::fs::rename(&moved, &audit).unwrap();
    assert_eq!(record(&mut log, &lexicon, &identity, &["DOG"]), 4, "once readable, past the log's highest number");
    let records = records(&audit);
    let failed = records.iter().find(|r| r["event"] == "write_failed").unwrap();
    assert_eq!(failed["challenges"], serde_json::Value::Null, "{failed}");
    assert!(verify(&audit).unwrap().ok());
}

#[test]
fn a_power_cut_while_rotating_is_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let clock = clock();
    let (lexicon, identity) = demo();
    let options = AuditOptions { max_file_bytes: 2500, ..options(&clock) };
    let mut log = AuditLog::open_with(dir.path(), "S", options.clone()).unwrap();
    while log_files(dir.path()).len() < 2 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    drop(log);
    // The new file was created (empty) and the old file's closing `rotated`
    // line was being written when the power went.
    let files = log_files(dir.path());
    std::fs::write(&files[1], b"").unwrap();
    let old = std::fs::read_to_string(&files[0]).unwrap();
    let rotated = old.lines().last().unwrap();
    assert!(rotated.contains("\"event\":\"rotated\""));
    let cut = old.len() - 1 - rotated.len() / 2;
    std::fs::write(&files[0], &old.as_bytes()[..cut]).unwrap();
    assert!(matches!(verify(dir.path()).unwrap().first_break().unwrap().kind, BreakKind::Torn { .. }));

    let mut log = AuditLog::open_with(dir.path(), "S", options).unwrap();
    assert_eq!(log.problem(), None);
    record(&mut log, &lexicon, &identity, &["DOG"]);
    drop(log);
    let report = verify(dir.path()).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.recoveries[0].file, name(&files[0]));
    let new: Vec<serde_json::Value> =
        std::fs::read_to_string(&files[1]).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(new[0]["event"], "recovered");
    assert_eq!(new[1]["event"], "adjudication");
}

#[test]
fn a_folder_has_a_chain_only_once_it_holds_log_files() {
    let dir = tempfile::tempdir().unwrap();
    assert!(!wordjudge_core::audit::has_chain(&dir.path().join("none")), "no folder");
    assert!(!wordjudge_core::audit::has_chain(dir.path()), "an empty folder");
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    assert!(!wordjudge_core::audit::has_chain(dir.path()), "other files are no chain");
    let clock = clock();
    let mut log = AuditLog::open_with(dir.path(), "S", options(&clock)).unwrap();
    log.record_event(AuditEvent::Shutdown);
    drop(log);
    assert!(wordjudge_core::audit::has_chain(dir.path()));
}
