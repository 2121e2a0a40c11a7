//! `wordjudge fleet status` on real journal files: the tests write each
//! station's entries in the Journal Export Format and have
//! `systemd-journal-remote` turn them into `remote-<host>.journal`, as it
//! does on the director's laptop (SplitMode=host), then run the built
//! program over the folder. Named `needs_journal_remote_*`: `.ci/test` runs
//! them where `/usr/lib/systemd/systemd-journal-remote` is installed
//! (`.ci/install-deps` installs it).

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use wordjudge_core::audit::AuditEvent;

pub const JOURNAL_REMOTE: &str = "/usr/lib/systemd/systemd-journal-remote";

/// Writes `station`'s entries to `dir/remote-<host>.journal`.
pub fn write_journal(dir: &Path, station: &Station) -> PathBuf {
    assert!(
        Path::new(JOURNAL_REMOTE).exists(),
        "{JOURNAL_REMOTE} is missing: install the systemd-journal-remote package (.ci/install-deps does)"
    );
    let file = dir.join(format!("remote-{}.journal", station.host));
    let mut child = Command::new(JOURNAL_REMOTE)
        .arg(format!("--output={}", file.display()))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("systemd-journal-remote runs");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&station.export()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "systemd-journal-remote: {}", String::from_utf8_lossy(&out.stderr));
    assert!(file.is_file(), "{} written", file.display());
    file
}

/// A CA folder in `dir` whose `signed/` holds the stations' paired audit
/// keys, as `fleet sign` leaves it: what `fleet status --ca-dir` reads.
pub fn paired_ca(dir: &Path, stations: &[&Station]) -> PathBuf {
    let ca = dir.join("ca");
    std::fs::create_dir_all(ca.join("signed")).unwrap();
    for s in stations {
        let file =
            ca.join("signed").join(format!("{}{}", s.fleet_name(), wordjudge_core::fleet::ca::PAIRED_KEY_SUFFIX));
        std::fs::write(file, format!("{}\n", s.verifier.to_text())).unwrap();
    }
    ca
}

pub fn fleet_status(args: &[&str]) -> Output {
    Command::new(crate::built::wordjudge())
        .args(["fleet", "status", "--now", "2026-11-22T16:00:00Z"])
        .args(args)
        .env("TZ", "UTC")
        .output()
        .expect("wordjudge runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_two_stations_from_their_journal_files() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = two_stations();
    let journals = dir.path().join("received");
    std::fs::create_dir(&journals).unwrap();
    write_journal(&journals, &one);
    write_journal(&journals, &two);
    let ca = paired_ca(dir.path(), &[&one, &two]);
    let html = dir.path().join("fleet.html");
    let out = fleet_status(&[
        "--dir",
        journals.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--ca-dir",
        ca.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("fleet status at 2026-11-22 16:00:00 UTC: 2 station(s)"), "{stdout}");
    let a = lines.iter().find(|l| l.starts_with("table-1 ")).expect("a line for table-1");
    let b = lines.iter().find(|l| l.starts_with("table-2 ")).expect("a line for table-2");
    for expected in [
        "CSW21",
        "01234567",
        "NASPA CSW, 5 points per word",
        "#6 at 14:10:07",
        "BROKEN: records 5-6 of its log never arrived; challenge 3-4 missing",
        "in service",
        "LEXICON MISMATCH: table-2 has fedcba98",
    ] {
        assert!(a.contains(expected), "table-1 has {expected:?}: {a}");
    }
    for expected in [
        "13:10:06 (2 h 49 min ago)",
        "#2 at 13:10:04",
        "ok over 5 records",
        "OUT OF SERVICE: judging with CSW21 failed unexpectedly; out of service: index out of bounds",
        "LEXICON MISMATCH: table-1 has 01234567",
        "1 warning(s)",
    ] {
        assert!(b.contains(expected), "table-2 has {expected:?}: {b}");
    }
    assert!(stdout.contains("LEXICON MISMATCH: CSW21 is judged with different word lists"), "{stdout}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<section class=\"tile alarm\">").count(), 2);
    assert!(page.contains("table-1") && page.contains("table-2"));

    // One file on its own.
    let out = fleet_status(&[
        "--file",
        journals.join("remote-wj-02.journal").to_str().unwrap(),
        "--ca-dir",
        ca.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("1 station(s)") && stdout.contains("table-2 ") && !stdout.contains("table-1 "), "{stdout}");
    assert!(!stdout.contains("MISMATCH"), "one station alone has nothing to differ from: {stdout}");
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_an_oversized_entry_is_one_refusal_not_the_end_of_the_status() {
    // Any station's certificate can upload one wordjudge entry with a
    // 1.1 MB MESSAGE: the summary of every station still comes, and the
    // entry is one refusal.
    let dir = tempfile::tempdir().unwrap();
    let (mut one, two) = two_stations();
    let big = "x".repeat(1_100_000);
    one.push("wordjudge", 6, &big, vec![("WORDJUDGE_EVENT".into(), "adjudication".into())]);
    let journals = dir.path().join("received");
    std::fs::create_dir(&journals).unwrap();
    write_journal(&journals, &one);
    write_journal(&journals, &two);
    let ca = paired_ca(dir.path(), &[&one, &two]);
    let out = fleet_status(&["--dir", journals.to_str().unwrap(), "--ca-dir", ca.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.lines().any(|l| l.starts_with("table-1 ")) && stdout.lines().any(|l| l.starts_with("table-2 ")),
        "{stdout}"
    );
    assert!(stdout.contains("bytes long, more than a wordjudge record can be: refused"), "{stdout}");
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_a_journal_without_wordjudge_records_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Station::new("t", "laptop-guest");
    s.other("sshd", "Accepted publickey for root").other("wordjudge", "the kiosk's own log line, not a record");
    write_journal(dir.path(), &s);
    let html = dir.path().join("fleet.html");
    let out = fleet_status(&["--dir", dir.path().to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no wordjudge audit record among the 1 journal entries read"), "{stderr}");
    assert!(!html.exists(), "nothing written");
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_a_field_beside_the_signed_line_changes_nothing_shown() {
    let dir = tempfile::tempdir().unwrap();
    let journals = dir.path().join("received");
    std::fs::create_dir(&journals).unwrap();
    let mut bad = Station::new("table-9", "wj-09");
    bad.event(AuditEvent::Startup { version: "0.1.0".into() });
    bad.judge(&lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified"), &["QI"], true)
        .set_last("WORDJUDGE_CHALLENGE", "forty-two\nand more")
        .set_last("WORDJUDGE_VERDICT", "UNACCEPTABLE");
    write_journal(&journals, &bad);
    let ca = paired_ca(dir.path(), &[&bad]);
    let out = fleet_status(&["--dir", journals.to_str().unwrap(), "--ca-dir", ca.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let line = stdout.lines().find(|l| l.starts_with("table-9 ")).expect("a line for table-9");
    assert!(
        line.contains("#1 at 13:00:01") && line.contains("ok over 2 records") && !line.contains("NOT ITS"),
        "{line}"
    );
    // The same journal read with no key paired: nobody's records.
    let out =
        fleet_status(&["--dir", journals.to_str().unwrap(), "--ca-dir", dir.path().join("none").to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("0 station(s)") && stdout.contains("NO PAIRED STATION"), "{stdout}");
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_the_real_recorders_records_link_up_through_a_journal_file() {
    let dir = tempfile::tempdir().unwrap();
    let journals = dir.path().join("received");
    std::fs::create_dir(&journals).unwrap();
    let station = crate::recorded::recorded_station();
    write_journal(&journals, &station);
    let ca = paired_ca(dir.path(), &[&station]);
    let out = fleet_status(&["--dir", journals.to_str().unwrap(), "--ca-dir", ca.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let line = stdout.lines().find(|l| l.starts_with("Table 7 ")).expect("a line for Table 7");
    assert!(line.contains(" DEMO ") && line.contains("#3 at 13:02:00") && line.contains("ok over 6 records"), "{line}");
    assert!(line.contains("in service; 1 warning(s), last: director PIN refused (1 failures)"), "{line}");
}
