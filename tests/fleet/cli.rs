//! `wordjudge fleet status` refusing what it cannot read: exit 2, a
//! message naming the problem, nothing on standard output, no page written.

use crate::journal_files::fleet_status;
use std::process::Command;

fn refused(out: &std::process::Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr.contains(expected), "{expected:?} in {stderr}");
}

#[test]
fn a_folder_without_journal_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let html = dir.path().join("fleet.html");
    let out = fleet_status(&["--dir", dir.path().to_str().unwrap(), "--html", html.to_str().unwrap()]);
    refused(&out, "holds no journal files (*.journal): has systemd-journal-remote received anything yet?");
    assert!(!html.exists());
    refused(&fleet_status(&["--dir", "/nonexistent/fleet"]), "cannot read /nonexistent/fleet");
    refused(&fleet_status(&["--file", dir.path().to_str().unwrap()]), "is not a journal file");
}

#[test]
fn without_journalctl_it_says_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("remote-wj-01.journal"), "not read").unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(crate::built::wordjudge())
        .args(["fleet", "status", "--dir", dir.path().to_str().unwrap()])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    refused(&out, "journalctl is not installed here");
}

#[test]
fn a_file_journalctl_cannot_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("remote-wj-01.journal");
    std::fs::write(&file, "not a journal file").unwrap();
    let out = fleet_status(&["--file", file.to_str().unwrap()]);
    refused(&out, "journalctl could not read the journal (exit status: 1)");
}

#[test]
fn bad_options_are_refused() {
    let out = Command::new(crate::built::wordjudge()).args(["fleet", "status", "--now", "tomorrow"]).output().unwrap();
    refused(&out, "--now \"tomorrow\" is not an RFC 3339 time");
    let out = Command::new(crate::built::wordjudge())
        .args(["fleet", "status", "--dir", "/tmp", "--file", "/tmp/x.journal"])
        .output()
        .unwrap();
    refused(&out, "cannot be used with");
}
