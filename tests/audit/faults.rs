//! Fault injection: 200+ rounds of a real child process judging challenges
//! while it is killed with SIGKILL at a random moment, or its files stop
//! growing (RLIMIT_FSIZE: the kernel fails the write with EFBIG, the same
//! path as a full disk), then restarted on the same folder.
//!
//! The child prints `shown N` after `record_adjudication` returned a record,
//! right where the kiosk would show the verdict (and `refused` where the
//! kiosk would go out of service instead). After every round the test checks
//! what the station promises: every number ever shown has its record, and
//! no number is ever handed out twice.

use crate::support::*;
use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wordjudge_core::inspect::read::read_all;
use wordjudge_core::inspect::{verify, BreakKind};
use wordjudge_core::recorder::{AuditLog, AuditOptions};

const CHILD_DIR: &str = "WORDJUDGE_FAULT_CHILD_DIR";
const CHILD_COUNT: &str = "WORDJUDGE_FAULT_CHILD_COUNT";
const CHILD_FULL_AT: &str = "WORDJUDGE_FAULT_CHILD_FULL_AT";
const ROUNDS: usize = 200;
const ROUNDS_PER_FOLDER: usize = 10;

/// The log itself never holds a challenge number twice.
fn check_no_number_twice_in_log(dir: &std::path::Path) {
    let mut in_log: Vec<u64> =
        read_all(dir).unwrap().iter().filter_map(|l| l.record.as_ref().and_then(|r| r.challenge())).collect();
    let total = in_log.len();
    in_log.sort_unstable();
    in_log.dedup();
    assert_eq!(in_log.len(), total, "a challenge number appears twice in the log");
}

/// Child: opens the log (a restart), judges `COUNT` challenges, and from
/// challenge `FULL_AT` on its files may not grow past their size.
#[test]
#[ignore = "child process of fault_injection_kill_9_and_disk_full_then_restart"]
fn child_fault_round() {
    // Only the parent test sets this; run on its own, there is nothing to do.
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    let dir = std::path::PathBuf::from(dir);
    let count: usize = std::env::var(CHILD_COUNT).unwrap().parse().unwrap();
    let full_at: Option<usize> = std::env::var(CHILD_FULL_AT).ok().and_then(|v| v.parse().ok());
    let (lexicon, identity) = demo();
    // Small files: faults also land around rotations.
    let options = AuditOptions { max_file_bytes: 6 * 1024, signing_key: false, ..AuditOptions::default() };
    let mut log = AuditLog::open_with(&dir, "Fault station", options).expect("the previous child is gone");
    println!("ready");
    let words: [&[&str]; 3] = [&["CAT"], &["DOG", "XQZT"], &["QUIXOTIC", "ZEBRA", "ZOO"]];
    for i in 0..count {
        if Some(i) == full_at {
            // The file being appended to may not grow (the counter's 256
            // bytes stay below the limit: on a full ext4 disk, writing inside
            // its allocated blocks works too).
            let active = log_files(&dir).last().map_or(0, |f| std::fs::metadata(f).unwrap().len());
            // SAFETY: plain libc calls on this process's own limits and signals.
            unsafe {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let limit = libc::rlimit { rlim_cur: active.max(300), rlim_max: libc::RLIM_INFINITY };
                assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
            }
            println!("full");
        }
        match try_record(&mut log, &lexicon, &identity, words[i % 3]) {
            // Shown now.
            Ok(recorded) => println!("shown {}", recorded.challenge),
            // Not shown: the station goes out of service.
            Err(_) => println!("refused"),
        }
    }
    println!("done");
}

/// Numbers named by `verify` as shown without a record or missing.
fn named_missing(report: &wordjudge_core::inspect::VerifyReport) -> Vec<(u64, u64)> {
    report
        .breaks
        .iter()
        .flat_map(|b| match &b.kind {
            BreakKind::ShownWithoutRecord { challenges } | BreakKind::ChallengeMissing { challenges } => {
                challenges.clone()
            }
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn fault_injection_kill_9_and_disk_full_then_restart() {
    let started = Instant::now();
    let seed = std::env::var("WORDJUDGE_FAULT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_2025u64);
    println!("seed {seed} (set WORDJUDGE_FAULT_SEED to replay)");
    let mut rng = fastrand::Rng::with_seed(seed);
    // A fresh station every ROUNDS_PER_FOLDER rounds: once a verdict is lost
    // every later verify fails, so fresh folders keep both outcomes coming.
    let mut dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let mut shown_ever: BTreeSet<u64> = BTreeSet::new();
    let mut folders = 0;
    let (mut kills, mut fulls, mut torn_rounds, mut shown_total) = (0, 0, 0, 0);
    let (mut refused_total, mut full_but_judged, mut gap_rounds) = (0, 0, 0);
    for round in 0..ROUNDS {
        if round % ROUNDS_PER_FOLDER == 0 {
            if round > 0 {
                check_no_number_twice_in_log(dir.path());
            }
            dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
            shown_ever.clear();
            folders += 1;
        }
        let count = rng.usize(2..30);
        let full_at = if rng.u8(0..10) < 3 { Some(rng.usize(0..count)) } else { None };
        let kill = rng.u8(0..10) < 7;
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "--ignored",
                "--exact",
                &test_name(module_path!(), "child_fault_round"),
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_COUNT, count.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(at) = full_at {
            command.env(CHILD_FULL_AT, at.to_string());
            fulls += 1;
        }
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // libtest's own lines come first.
        let mut lines: Vec<String> = Vec::new();
        while let Ok(line) = rx.recv_timeout(Duration::from_secs(60)) {
            lines.push(line);
            if lines.last().is_some_and(|l| l.ends_with("ready")) {
                break;
            }
        }
        assert!(lines.iter().any(|l| l.ends_with("ready")), "round {round}: the child did not start: {lines:?}");
        if kill {
            // Somewhere in the middle of the judging (or after it).
            std::thread::sleep(Duration::from_micros(rng.u64(0..6000)));
            let _ = child.kill();
            kills += 1;
        }
        let status = child.wait().unwrap();
        reader.join().unwrap();
        lines.extend(rx.try_iter());
        if !kill {
            assert!(status.success() && lines.iter().any(|l| l == "done"), "round {round}: {status} {lines:?}");
        }

        // No number is ever handed out twice.
        for n in lines.iter().filter_map(|l| l.strip_prefix("shown ")).map(|n| n.parse::<u64>().unwrap()) {
            assert!(shown_ever.insert(n), "round {round}: challenge {n} was shown twice");
            shown_total += 1;
        }

        let report = verify(dir.path()).unwrap();
        if report.breaks.iter().any(|b| matches!(b.kind, BreakKind::Torn { .. })) {
            torn_rounds += 1;
        }
        let recorded: HashSet<u64> = read_all(dir.path())
            .unwrap()
            .iter()
            .filter_map(|l| l.record.as_ref().and_then(|r| r.challenge()))
            .collect();
        let missing: Vec<u64> = shown_ever.iter().copied().filter(|n| !recorded.contains(n)).collect();
        assert!(missing.is_empty(), "round {round}: {missing:?} were shown without records:\n{report}");
        refused_total += lines.iter().filter(|l| l.as_str() == "refused").count();
        if full_at.is_some() && !lines.iter().any(|l| l == "refused") && lines.iter().any(|l| l == "full") {
            full_but_judged += 1;
        }
        // No gap in the numbers is left without its reason (a number reserved
        // and not recorded is above the last record until the next record
        // names it as skipped).
        if !named_missing(&report).is_empty() {
            gap_rounds += 1;
        }
        assert_eq!(gap_rounds, 0, "round {round}: a gap verify cannot explain:\n{report}");
    }
    check_no_number_twice_in_log(dir.path());
    println!(
        "{ROUNDS} rounds in {folders} folders in {:?}: {kills} killed, {fulls} with a full disk ({full_but_judged} of \
         them judged on: the file still had room), {shown_total} verdicts shown, every one recorded; {refused_total} \
         refused for want of a record; verify saw a torn line after {torn_rounds}, a gap it could not explain after \
         {gap_rounds}",
        started.elapsed(),
    );
    assert!(refused_total > 0, "a full disk refused no verdict: the test no longer reaches the failure");
    println!("{}", verify(dir.path()).unwrap());
    assert!(started.elapsed() < Duration::from_secs(240), "took {:?}", started.elapsed());
}

/// Makes a FIFO at `path` (replacing what is there).
fn fifo_at(path: &std::path::Path) {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "{}", path.display());
}

/// Runs `f` on a thread and fails the test if it does not return in 5 s.
fn within_5_s<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| panic!("{what}: hung on a FIFO"))
}

#[test]
fn a_fifo_in_any_place_the_writer_or_verify_reads_is_refused_never_waited_on() {
    let (lexicon, identity) = demo();
    for place in ["challenge-counter", "writer.lock", "key/ed25519.key", "the log file"] {
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("audit");
        let clock = clock();
        {
            let mut log = AuditLog::open_with(&audit, "Table 1", signed_options(&clock)).unwrap();
            record(&mut log, &lexicon, &identity, &["QI"]);
        }
        let path = match place {
            "the log file" => log_files(&audit).pop().unwrap(),
            other => audit.join(other),
        };
        fifo_at(&path);
        let (dir2, clock2) = (audit.clone(), clock.clone());
        let problem = within_5_s(place, move || match AuditLog::open_with(&dir2, "Table 1", signed_options(&clock2)) {
            Ok(log) => log.problem().or_else(|| log.signing_problem()).unwrap_or_default(),
            Err(busy) => busy.to_string(),
        });
        assert!(problem.contains("FIFO"), "{place}: the station says what is wrong: {problem:?}");
        let dir3 = audit.clone();
        let report = within_5_s(place, move || verify(&dir3).map(|r| r.to_string()));
        if place == "the log file" {
            // Not a log file at all: named, and the log does not verify.
            let report = report.unwrap();
            assert!(report.contains("not part of the log: audit-") && report.contains("BAD"), "{report}");
        }
    }
    // `audit verify` with /dev/zero or a FIFO as its slips, key or checkpoint.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    fifo_at(&fifo);
    for input in [std::path::Path::new("/dev/zero"), fifo.as_path()] {
        for flags in [vec!["--slips"], vec!["--pubkey", "--checkpoint"]] {
            let mut args = vec!["audit".to_string(), "verify".into(), dir.path().display().to_string()];
            for flag in &flags {
                args.push(flag.to_string());
                args.push(input.display().to_string());
            }
            let started = Instant::now();
            let out = Command::new(crate::built::wordjudge()).args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && (stderr.contains("FIFO") || stderr.contains("character device")),
                "{args:?}: {stderr}"
            );
            assert!(started.elapsed() < Duration::from_secs(5), "{args:?} took {:?}", started.elapsed());
        }
    }
}

/// A counter that cannot be kept (a FIFO, a folder, a link to /dev/zero in
/// its place) stops judging: across three starts no verdict is shown, so no
/// number is shown twice; once the counter is usable again numbering goes on
/// above the log's highest number.
#[test]
fn a_counter_that_cannot_be_kept_refuses_every_verdict_across_starts() {
    let (lexicon, identity) = demo();
    for hostile in ["fifo", "folder", "link to /dev/zero"] {
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("audit");
        let clock = clock();
        {
            let mut log = AuditLog::open_with(&audit, "Table 1", options(&clock)).unwrap();
            for _ in 0..3 {
                record(&mut log, &lexicon, &identity, &["QI"]);
            }
        }
        let counter = audit.join("challenge-counter");
        std::fs::remove_file(&counter).unwrap();
        match hostile {
            "fifo" => fifo_at(&counter),
            "folder" => std::fs::create_dir(&counter).unwrap(),
            _ => std::os::unix::fs::symlink("/dev/zero", &counter).unwrap(),
        }
        for start in 1..=3 {
            let (dir2, clock2) = (audit.clone(), clock.clone());
            let (problem, refused) = within_5_s(hostile, move || {
                let (lexicon2, identity2) = demo();
                let mut log = AuditLog::open_with(&dir2, "Table 1", options(&clock2)).unwrap();
                let problem = log.problem().unwrap_or_default();
                (problem, try_record(&mut log, &lexicon2, &identity2, &["ZA"]))
            });
            assert!(problem.contains("challenge counter"), "{hostile}, start {start}: {problem}");
            let refused = refused.expect_err("no verdict without a counter");
            assert_eq!(refused.challenge, None, "{hostile}, start {start}: no number used");
        }
        let recorded: Vec<u64> =
            read_all(&audit).unwrap().iter().filter_map(|l| l.record.as_ref().and_then(|r| r.challenge())).collect();
        assert_eq!(recorded, [1, 2, 3], "{hostile}: nothing judged, nothing recorded");
        // The operator removes it: numbering goes on from the log.
        if counter.is_dir() && !counter.is_symlink() {
            std::fs::remove_dir(&counter).unwrap();
        } else {
            std::fs::remove_file(&counter).unwrap();
        }
        let mut log = AuditLog::open_with(&audit, "Table 1", options(&clock)).unwrap();
        assert_eq!(log.problem(), None, "{hostile}");
        assert_eq!(record(&mut log, &lexicon, &identity, &["ZA"]), 4, "{hostile}");
        drop(log);
        let report = verify(&audit).unwrap();
        assert!(report.ok(), "{hostile}: {report}");
    }
}
