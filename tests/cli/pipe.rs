//! `wordjudge … | head -1`: a reader that goes away ends any command quietly
//! (exit 0, or SIGPIPE like `cat`, status 141 in a shell), never with a
//! panic ("failed printing to stdout", exit 101).
//!
//! The read end of the pipe is closed before the command writes anything, so
//! its very first write meets a broken pipe: the test cannot pass by the
//! command finishing before the reader leaves.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

fn station() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let lex = dir.path().join("lexicons");
    std::fs::create_dir(&lex).unwrap();
    std::fs::create_dir(dir.path().join("audit")).unwrap();
    std::fs::write(dir.path().join("w.txt"), "CAT\nDOG\nQI\nZA\n").unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "lexicon_dir = {:?}\naudit_dir = {:?}\n",
            lex.display().to_string(),
            dir.path().join("audit").display().to_string()
        ),
    )
    .unwrap();
    dir
}

fn closed_early(dir: &Path, args: &[&str], stdin: &str) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(crate::built::wordjudge())
        .args(args)
        .env("WORDJUDGE_CONFIG", dir.join("config.toml"))
        .env_remove("WORDJUDGE_LEXICONS")
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let quiet = out.status.code() == Some(0) || out.status.signal() == Some(libc::SIGPIPE);
    assert!(quiet, "{args:?}: {:?}, stderr: {err}", out.status);
    assert!(
        !err.contains("panicked") && !err.contains("failed printing") && !err.contains("Broken pipe"),
        "{args:?}: {err}"
    );
}

#[test]
fn every_command_ends_quietly_when_its_reader_is_gone() {
    let dir = station();
    let d = dir.path();
    let src = d.join("w.txt");
    let out = d.join("lexicons/L.fst");
    closed_early(d, &["lexicon", "build", src.to_str().unwrap(), "--out", out.to_str().unwrap()], "");
    assert!(out.exists(), "the build itself completed before printing");
    std::fs::write(
        d.join("lexicons/L.toml"),
        "id = \"L\"\nname = \"l\"\nedition = \"e\"\n[[layer]]\nfst = \"L.fst\"\n",
    )
    .unwrap();
    let commands: &[(&[&str], &str)] = &[
        (&["lexicon", "list"], ""),
        (&["lexicon", "list", "--all"], ""),
        (&["lexicon", "info", "L"], ""),
        (&["lexicon", "info", "DEMO"], ""),
        (&["lexicon", "verify"], ""),
        (&["judge", "--lexicon", "L", "QI"], ""),
        (&["judge", "--lexicon", "DEMO", "CAT", "DOG"], ""),
        (&["judge", "--lexicon", "L", "--each"], "qi\nza\ncat dog\n"),
        (&["config", "show"], ""),
        (&["audit", "verify"], ""),
        (&["audit", "show"], ""),
        (&["audit", "export", "--format", "csv"], ""),
        (&["--help"], ""),
    ];
    for (args, stdin) in commands {
        closed_early(d, args, stdin);
    }
}
