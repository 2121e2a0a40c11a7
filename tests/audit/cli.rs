//! `wordjudge audit verify|show|export` as a director runs them.

use crate::support::*;
use std::time::Duration;
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::panel::Trigger;
use wordjudge_core::recorder::{AdjudicationInput, AuditLog};

/// A log over two days with two lexicons' worth of events; the config
/// points at it.
fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let base = tempfile::tempdir().unwrap();
    let audit = base.path().join("audit");
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&audit, "Table 7", options(&clock)).unwrap();
    log.record_event(AuditEvent::Startup { version: "0.1.0".into() });
    record(&mut log, &lexicon, &identity, &["CAT", "XQZT"]); // 1
    clock.advance(Duration::from_secs(60));
    record(&mut log, &lexicon, &identity, &["CAT", "XQZT"]); // 2, repeat of 1
    log.record_event(AuditEvent::LexiconSwitched { from: "DEMO".into(), to: "CSW21".into() });
    clock.advance(Duration::from_secs(24 * 3600));
    record(&mut log, &lexicon, &identity, &["DOG"]); // 3, next day
    drop(log);
    let config = base.path().join("config.toml");
    std::fs::write(&config, format!("audit_dir = {:?}\n", audit.to_str().unwrap())).unwrap();
    (base, audit, config)
}

#[test]
fn verify_passes_then_names_the_bad_line() {
    let (_base, audit, config) = setup();
    // DIR defaults to the config's audit_dir.
    let ok = wordjudge_with(&config, &["audit", "verify"]);
    assert_eq!(ok.status.code(), Some(0), "{}{}", stdout(&ok), String::from_utf8_lossy(&ok.stderr));
    let text = stdout(&ok);
    assert!(text.contains("OK: the hash chain is intact from genesis to record"), "{text}");
    assert!(text.contains("challenges 1 to 3"), "{text}");

    let files = log_files(&audit);
    assert_eq!(files.len(), 2);
    let day1 = std::fs::read_to_string(&files[0]).unwrap();
    std::fs::write(&files[0], day1.replacen("\"verdict\":\"UNACCEPTABLE\"", "\"verdict\":\"ACCEPTABLE\"", 1)).unwrap();
    let bad = wordjudge_with(&config, &["audit", "verify", audit.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stdout(&bad).contains(&format!("BAD: {} line 2: edited", name(&files[0]))), "{}", stdout(&bad));
    // show warns that the log is damaged.
    let show = wordjudge_with(&config, &["audit", "show"]);
    assert!(String::from_utf8_lossy(&show.stderr).contains("WARNING: the audit log is damaged"));

    let missing = wordjudge_with(&config, &["audit", "verify", "/nonexistent/audit"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("there is no audit log at /nonexistent/audit"));
}

#[test]
fn show_filters_by_time_challenge_and_lexicon() {
    let (_base, _audit, config) = setup();
    let all = stdout(&wordjudge_with(&config, &["audit", "show"]));
    assert_eq!(all.lines().count(), 6, "{all}"); // startup, 1, 2, switched, rotated, 3
    assert!(all.contains("challenge 2  UNACCEPTABLE  CAT XQZT  [CAT:acceptable XQZT:unacceptable]  DEMO"), "{all}");
    assert!(all.contains("repeat of 1"), "{all}");

    let one = stdout(&wordjudge_with(&config, &["audit", "show", "--challenge", "3"]));
    assert_eq!(one.lines().count(), 1, "{one}");
    assert!(one.starts_with("2025-05-02 12:01:00 UTC") && one.contains("challenge 3"), "{one}");

    let day1 = stdout(&wordjudge_with(&config, &["audit", "show", "--since", "2025-05-01", "--until", "2025-05-01"]));
    assert!(day1.contains("challenge 1") && day1.contains("challenge 2") && !day1.contains("challenge 3"), "{day1}");
    let later = stdout(&wordjudge_with(&config, &["audit", "show", "--since", "2025-05-01T12:00:30Z"]));
    assert!(
        !later.contains("challenge 1 ") && later.contains("challenge 2") && later.contains("challenge 3"),
        "{later}"
    );

    let csw = stdout(&wordjudge_with(&config, &["audit", "show", "--lexicon", "CSW21"]));
    assert_eq!(csw.lines().count(), 1, "{csw}");
    assert!(csw.contains("lexicon_switched"), "{csw}");

    let bad = wordjudge_with(&config, &["audit", "show", "--since", "yesterday"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a time"));
}

#[test]
fn export_csv_and_jsonl() {
    let (base, audit, config) = setup();
    let csv = stdout(&wordjudge_with(&config, &["audit", "export", "--format", "csv", "--challenge", "2"]));
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(rows[0].starts_with("seq,time_utc,station,event,challenge,verdict,words,per_word,lexicon"), "{}", rows[0]);
    assert!(
        rows[1].contains(",Table 7,adjudication,2,UNACCEPTABLE,CAT XQZT,CAT:acceptable XQZT:unacceptable,DEMO,"),
        "{}",
        rows[1]
    );

    // A full JSON Lines export is the log itself and verifies on its own.
    let out = base.path().join("usb").join("export.jsonl");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let done = wordjudge_with(&config, &["audit", "export", "--format", "jsonl", "--out", out.to_str().unwrap()]);
    assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));
    let exported = std::fs::read_to_string(&out).unwrap();
    let original: String = log_files(&audit).iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    assert_eq!(exported, original);
    let copy = base.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::write(copy.join("audit-000001-2025-05-01.jsonl"), &exported).unwrap();
    let report = wordjudge_core::inspect::verify(&copy).unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!(report.records, 6);

    let no_format = wordjudge_with(&config, &["audit", "export"]);
    assert_eq!(no_format.status.code(), Some(2));
}

#[test]
fn a_slip_a_character_or_two_off_reads_as_miscopied_and_still_fails() {
    let (_base, audit, config) = setup();
    let third = records(&audit).into_iter().find(|r| r["event"] == "adjudication" && r["challenge"] == 3).unwrap();
    let code = third["code"].as_str().unwrap().to_string();
    let chars: Vec<char> = code.chars().collect();
    // `code` with the characters at `at` written as others.
    let miscopied = |at: &[usize]| -> String {
        let other = |c: char| if c == 'X' { 'Y' } else { 'X' };
        chars.iter().enumerate().map(|(i, &c)| if at.contains(&i) { other(c) } else { c }).collect()
    };
    let dir = audit.to_str().unwrap();
    let verify = |code: &str| {
        let out = wordjudge_with(&config, &["audit", "verify", dir, "--no-journal", "--slip", &format!("3={code}")]);
        (out.status.code(), stdout(&out))
    };
    let (status, text) = verify(&code);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains(&format!("slip 3={code}: matches")), "{text}");

    // One character off, two, or two neighbours swapped: the director is
    // sent to the slip, and the check still fails.
    let act = format!(
        "challenge #3's code is {code}: check the slip; if it was copied right, the record or one before it was changed"
    );
    let one = miscopied(&[5]);
    let (status, text) = verify(&one);
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains("BAD: "), "{text}");
    assert!(text.contains(&format!("slip 3={one} does not match, likely miscopied (")), "{text}");
    assert!(text.contains(&format!("at character 6): {act}")), "{text}");
    assert!(!text.contains("rewritten"), "{text}");
    let two = miscopied(&[0, 7]);
    let (status, text) = verify(&two);
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains(&format!("slip 3={two} does not match, likely miscopied (")), "{text}");
    assert!(text.contains(&act), "{text}");
    assert!(text.contains("at character 1 and ") && text.contains("at character 8)"), "{text}");
    let i = (0..chars.len() - 1).find(|&i| chars[i] != chars[i + 1]).expect("a code of 8 equal characters");
    let mut swapped = chars.clone();
    swapped.swap(i, i + 1);
    let swapped: String = swapped.into_iter().collect();
    let (status, text) = verify(&swapped);
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains(&format!("likely miscopied (characters {} and {} swapped): {act}", i + 1, i + 2)), "{text}");

    // Three characters off: named a rewrite.
    let three = miscopied(&[0, 3, 6]);
    let (status, text) = verify(&three);
    assert_eq!(status, Some(1), "{text}");
    let rewritten = format!("slip 3={three} does not match: that challenge's record now has code {code}");
    assert!(text.contains(&rewritten), "{text}");
    assert!(text.contains("was rewritten") && !text.contains("miscopied"), "{text}");
}

#[test]
fn show_names_the_profile_each_adjudication_was_judged_under() {
    let base = tempfile::tempdir().unwrap();
    let audit = base.path().join("audit");
    let clock = clock();
    let (lexicon, identity) = demo();
    let mut log = AuditLog::open_with(&audit, "Table 7", options(&clock)).unwrap();
    record(&mut log, &lexicon, &identity, &["CAT"]); // 1, no profile
    clock.advance(Duration::from_secs(60));
    let dog = adjudication(&lexicon, &["DOG"]);
    let input = AdjudicationInput {
        lexicon: &identity,
        adjudication: &dog,
        trigger: Trigger::Keyboard,
        profile: Some("NASPA-CSW-5"),
    };
    assert_eq!(log.record_adjudication(&input).unwrap().challenge, 2);
    drop(log);
    let no_config = base.path().join("no-config.toml");
    let show = wordjudge_with(&no_config, &["audit", "show", audit.to_str().unwrap()]);
    assert_eq!(show.status.code(), Some(0), "{}", String::from_utf8_lossy(&show.stderr));
    let text = stdout(&show);
    let line =
        |n: u64| text.lines().find(|l| l.contains(&format!("  challenge {n}  "))).unwrap_or_else(|| panic!("{text}"));
    assert!(line(2).contains("  keyboard  profile NASPA-CSW-5"), "{text}");
    assert!(!line(1).contains("profile"), "{text}");
}
