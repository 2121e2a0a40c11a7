//! Real processes: a writer killed with SIGKILL in the middle of its write
//! loop, and a writer whose file cannot grow (RLIMIT_FSIZE: the kernel cuts
//! the write short and fails it with EFBIG, the same path as a full disk).
//!
//! The children are this test binary run again with an environment variable
//! that makes an `#[ignore]`d test do the child's part.
//!
//! Note on kill -9: a single write(2) to a regular file is not interrupted by
//! SIGKILL, and the log writes each line with one write, so a kill rarely
//! tears a line; the page cache still holds every completed write. Torn lines
//! come from power cuts. So after each kill the test also tears the last
//! line as a power cut would (the start of a record, no newline) and checks
//! the recovery; a kill that did tear a line is reported too.

use crate::support::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::inspect::{verify, BreakKind};
use wordjudge_core::recorder::{AuditLog, AuditOptions};

const CHILD_DIR: &str = "WORDJUDGE_AUDIT_TEST_CHILD_DIR";

fn child(test: &str, dir: &std::path::Path) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--ignored", "--exact", &test_name(module_path!(), test), "--nocapture", "--test-threads=1"])
        .env(CHILD_DIR, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

/// Child: records adjudications as fast as it can, printing each number
/// after `record_adjudication` returned (the record is on disk by then).
#[test]
#[ignore = "child process of kill_9_during_the_write_loop_then_recovery"]
fn child_write_loop() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    let (lexicon, identity) = demo();
    // Small files: kills also land around rotations.
    let options = AuditOptions { max_file_bytes: 16 * 1024, ..AuditOptions::default() };
    let mut log = AuditLog::open_with(std::path::Path::new(&dir), "Crash station", options).unwrap();
    assert_eq!(log.problem(), None);
    log.record_event(AuditEvent::Startup { version: "test".into() });
    let words: [&[&str]; 3] = [&["CAT"], &["DOG", "XQZT"], &["QUIXOTIC", "ZEBRA", "ZOO"]];
    for i in 0.. {
        let n = record(&mut log, &lexicon, &identity, words[i % 3]);
        println!("challenge {n}");
    }
}

#[test]
fn kill_9_during_the_write_loop_then_recovery() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let mut acknowledged: Vec<u64> = Vec::new();
    let mut kills_that_tore = 0;
    for (round, delay_ms) in [150u64, 420, 270].into_iter().enumerate() {
        let mut process = child("child_write_loop", dir.path()).spawn().unwrap();
        let stdout = process.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(n) = line.strip_prefix("challenge ") {
                    let _ = tx.send(n.trim().parse::<u64>().unwrap());
                }
            }
        });
        // Wait for the loop to run, then kill it mid-stride.
        let first = rx.recv_timeout(Duration::from_secs(60)).expect("the child writes");
        acknowledged.push(first);
        std::thread::sleep(Duration::from_millis(delay_ms));
        process.kill().unwrap(); // SIGKILL
        let status = process.wait().unwrap();
        assert!(!status.success(), "killed, not finished");
        reader.join().unwrap();
        acknowledged.extend(rx.try_iter());
        println!("round {round}: killed after {} acknowledged records in all", acknowledged.len());
        assert!(acknowledged.len() > 10 * (round + 1), "the loop ran: {}", acknowledged.len());

        let before = verify(dir.path()).unwrap();
        if let Some(b) = before.first_break() {
            assert!(matches!(b.kind, BreakKind::Torn { .. }), "a kill can only tear the last line: {before}");
            kills_that_tore += 1;
        }

        // As a power cut would: the last line written only in part.
        // (The last file may be a new, still empty one: a kill while rotating.)
        let last_file =
            log_files(dir.path()).into_iter().rev().find(|f| std::fs::metadata(f).unwrap().len() > 0).unwrap();
        let text = std::fs::read_to_string(&last_file).unwrap_or_default();
        if let Some(last) = text.lines().last().filter(|_| text.ends_with('\n')) {
            let cut = text.len() - last.len() / 2 - 1;
            std::fs::write(&last_file, &text.as_bytes()[..cut]).unwrap();
        }
        let torn_verify = verify(dir.path()).unwrap();
        assert!(matches!(torn_verify.first_break().unwrap().kind, BreakKind::Torn { .. }), "{torn_verify}");

        // Next start: recovered, the chain continues, verify passes and reports it.
        let mut log = AuditLog::open(dir.path(), "Crash station").unwrap();
        assert_eq!(log.problem(), None);
        let (lexicon, identity) = demo();
        let n = record(&mut log, &lexicon, &identity, &["CAT"]);
        drop(log);
        let report = verify(dir.path()).unwrap();
        assert!(report.ok(), "{report}");
        assert!(report.recoveries.len() > round, "{report}");
        assert!(report.to_string().contains("recovery at"), "{report}");

        let records = records(dir.path());
        let in_log: std::collections::HashSet<u64> =
            records.iter().filter(|r| r["event"] == "adjudication").filter_map(|r| r["challenge"].as_u64()).collect();
        // Every number acknowledged to the parent is in the log — except the
        // one whose line this test tore itself, standing in for a power cut.
        let torn_by_test = acknowledged.iter().filter(|n| !in_log.contains(n)).count();
        assert!(torn_by_test <= 1, "records acknowledged but missing: {torn_by_test}");
        let highest_acknowledged = *acknowledged.iter().max().unwrap();
        assert!(n > highest_acknowledged, "numbers are never reused: {n} after {highest_acknowledged}");
        acknowledged.retain(|n| in_log.contains(n));
        acknowledged.push(n);
    }
    println!("kills that tore a line themselves: {kills_that_tore} of 3");
    println!("{}", verify(dir.path()).unwrap());
}

/// Child: writes, then the file may not grow any more, then it may again.
#[test]
#[ignore = "child process of a_file_that_cannot_grow_refuses_verdicts_at_once_and_names_the_number"]
fn child_file_size_limit() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    let dir = std::path::PathBuf::from(dir);
    let (lexicon, identity) = demo();
    let clock = clock();
    let mut log = AuditLog::open_with(&dir, "S", options(&clock)).unwrap();
    for _ in 0..3 {
        record(&mut log, &lexicon, &identity, &["CAT"]);
    }
    let file = log_files(&dir).pop().unwrap();
    let good = std::fs::metadata(&file).unwrap().len();
    // SAFETY: plain libc calls on this process's own limits and signals.
    unsafe {
        // Without this, exceeding the limit kills the process with SIGXFSZ.
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit { rlim_cur: good + 100, rlim_max: libc::RLIM_INFINITY };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    let start = Instant::now();
    let refused = try_record(&mut log, &lexicon, &identity, &["DOG"]).expect_err("the record cannot be written");
    assert_eq!(refused.challenge, Some(4), "reserved, then refused: never shown");
    let again = try_record(&mut log, &lexicon, &identity, &["DOG"]).expect_err("still full");
    assert_eq!(again.challenge, None, "no number used while the log cannot be written");
    assert!(start.elapsed() < Duration::from_millis(500), "players are not held up: {:?}", start.elapsed());
    let problem = log.problem().expect("the director is warned");
    assert!(problem.contains("File too large") || problem.contains("too large"), "{problem}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), good, "the short write was cut back");
    assert!(verify(&dir).unwrap().ok(), "no half line left in the log");
    unsafe {
        let limit = libc::rlimit { rlim_cur: libc::RLIM_INFINITY, rlim_max: libc::RLIM_INFINITY };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    clock.advance(Duration::from_secs(5));
    assert_eq!(record(&mut log, &lexicon, &identity, &["ZOO"]), 5);
    assert_eq!(log.problem(), None);
    drop(log);
    let events: Vec<String> = records(&dir)
        .iter()
        .map(|r| {
            format!(
                "{}{}",
                r["event"].as_str().unwrap(),
                r["challenge"].as_u64().map(|n| format!(" {n}")).unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(events, ["adjudication 1", "adjudication 2", "adjudication 3", "write_failed", "adjudication 5",]);
    let report = verify(&dir).unwrap();
    assert!(report.ok(), "{report}");
    let text = report.to_string();
    assert!(text.contains("#4 was reserved and never shown: the record could not be written"), "{text}");
    assert!(report.write_failures[0].text.contains("File too large"), "{report}");
    println!("FSIZE-CHILD-OK");
}

#[test]
fn a_file_that_cannot_grow_refuses_verdicts_at_once_and_names_the_number() {
    // Tests run as root here, so permissions cannot make a directory
    // read-only, and mounting a tiny tmpfs needs privileges a container may
    // lack; a file-size limit makes the kernel refuse the write for real.
    let dir = tempfile::tempdir().unwrap();
    let out = child("child_file_size_limit", dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("FSIZE-CHILD-OK"), "child failed:\n{stdout}");
    assert!(verify(dir.path()).unwrap().ok());
}
