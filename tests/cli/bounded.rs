//! Bounded, typed input: special and huge files named as definitions or
//! manifests are refused with a message within a second, and `judge --each`
//! survives a 1 GB line and invalid UTF-8 in bounded memory.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn wordjudge(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(crate::built::wordjudge());
    cmd.arg("--lexicons").arg(dir.join("lexicons")).args(args).env("WORDJUDGE_CONFIG", dir.join("none.toml"));
    cmd
}

/// Runs with no stdin; panics if it takes more than `limit`.
fn run_within(mut cmd: Command, limit: Duration) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > limit * 5 {
            let _ = child.kill();
            panic!("still running after {:?}", started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let took = started.elapsed();
    (child.wait_with_output().unwrap(), took)
}

fn station() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let lex = dir.path().join("lexicons");
    std::fs::create_dir(&lex).unwrap();
    std::fs::write(dir.path().join("w.txt"), "CAT\nDOG\nQI\nZA\n").unwrap();
    let out = Command::new(crate::built::wordjudge())
        .args([
            "lexicon",
            "build",
            dir.path().join("w.txt").to_str().unwrap(),
            "--out",
            lex.join("L.fst").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(lex.join("L.toml"), "id = \"L\"\nname = \"l\"\nedition = \"e\"\n[[layer]]\nfst = \"L.fst\"\n")
        .unwrap();
    dir
}

/// Makes `path` into one of the hostile kinds of file.
fn hostile(path: &Path, kind: &str) {
    let _ = std::fs::remove_file(path);
    match kind {
        "/dev/zero" => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        "FIFO" => {
            let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo with a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        }
        "100 MB file" => {
            let f = std::fs::File::create(path).unwrap();
            f.set_len(100 * 1024 * 1024).unwrap();
        }
        _ => unreachable!(),
    }
}

#[test]
fn special_and_huge_definitions_and_manifests_are_refused_within_a_second() {
    for kind in ["/dev/zero", "FIFO", "100 MB file"] {
        let dir = station();
        let lex = dir.path().join("lexicons");
        // As a definition.
        hostile(&lex.join("EVIL.toml"), kind);
        let (out, took) = run_within(wordjudge(dir.path(), &["lexicon", "list"]), Duration::from_secs(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(took < Duration::from_secs(1), "{kind} as definition took {took:?}");
        assert!(out.status.success(), "{kind}: {err}");
        assert!(err.contains("EVIL.toml") && err.contains("refused"), "{kind}: {err}");
        assert!(String::from_utf8_lossy(&out.stdout).lines().any(|l| l.starts_with("L ")), "others still listed");
        std::fs::remove_file(lex.join("EVIL.toml")).unwrap();
        // As a manifest: informative, so the lexicon still opens and judges,
        // and info says what is wrong with it.
        hostile(&lex.join("L.fst.toml"), kind);
        let (out, took) = run_within(wordjudge(dir.path(), &["lexicon", "info", "L"]), Duration::from_secs(1));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(took < Duration::from_secs(1), "{kind} as manifest took {took:?}");
        assert!(out.status.success(), "{kind}: {text}");
        let line = text.lines().find(|l| l.trim_start().starts_with("manifest:")).unwrap_or_default();
        assert!(line.contains("L.fst.toml") && line.contains("refused"), "{kind}: {text}");
        let (out, _) = run_within(wordjudge(dir.path(), &["judge", "--lexicon", "L", "QI"]), Duration::from_secs(1));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ACCEPTABLE\n", "{kind}");
    }
}

#[test]
fn special_files_as_word_lists_are_refused() {
    let dir = station();
    for kind in ["/dev/zero", "FIFO"] {
        let src = dir.path().join("src.txt");
        hostile(&src, kind);
        let out_path = dir.path().join("lexicons/X.fst");
        let (out, took) = run_within(
            wordjudge(dir.path(), &["lexicon", "build", src.to_str().unwrap(), "--out", out_path.to_str().unwrap()]),
            Duration::from_secs(1),
        );
        assert!(took < Duration::from_secs(1));
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("src.txt") && err.contains("not a regular file"), "{kind}: {err}");
        assert!(!out_path.exists());
    }
}

fn max_child_rss_kib() -> i64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) }, 0);
    usage.ru_maxrss
}

#[test]
fn judge_each_survives_a_1_gb_line_and_invalid_utf8_in_bounded_memory() {
    let dir = station();
    let mut child = wordjudge(dir.path(), &["judge", "--lexicon", "L", "--each"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The writer streams 1 GB without newline from a 1 MB buffer.
    let writer = std::thread::spawn(move || {
        stdin.write_all(b"qi za\n").unwrap();
        let chunk = vec![b'A'; 1 << 20];
        for _ in 0..1024 {
            stdin.write_all(&chunk).unwrap();
        }
        stdin.write_all(b"\ncat \xff\xfe dog\n\xc3\x28\ndog cat\nd0g\n").unwrap();
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).unwrap();
        s
    });
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    let err = errors.join().unwrap();
    assert_eq!(out, "ACCEPTABLE\nINVALID\nINVALID\nINVALID\nACCEPTABLE\nINVALID\n", "{err}");
    assert_eq!(status.code(), Some(2));
    assert!(err.contains("line 2: 1073741824 bytes is longer than"), "{err}");
    assert!(err.contains("line 3: not UTF-8") && err.contains("line 4: not UTF-8"), "{err}");
    assert!(err.contains("line 6") && err.contains("d0g"), "{err}");
    let rss = max_child_rss_kib();
    assert!(rss < 200 * 1024, "a child used {rss} KiB: the line was collected");
}

#[test]
fn escape_codes_in_a_definition_are_printed_escaped() {
    let dir = station();
    let lex = dir.path().join("lexicons");
    std::fs::write(
        lex.join("L.toml"),
        "id = \"L\"\nname = \"Evil \\u001b[2J\\u001b]0;owned\\u0007 list\"\nedition = \"line\\nbreak\"\n[[layer]]\nfst = \"L.fst\"\n",
    )
    .unwrap();
    for args in [&["lexicon", "list"][..], &["lexicon", "info", "L"][..]] {
        let (out, _) = run_within(wordjudge(dir.path(), args), Duration::from_secs(5));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("Evil \\u{1b}[2J"), "{args:?}: {stdout}");
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
            "{args:?}: raw control characters: {stdout:?}"
        );
    }
}

#[test]
fn escape_codes_and_direction_overrides_in_the_config_are_printed_escaped() {
    // TOML escapes control characters in what `config show` prints; it does
    // not escape a right-to-left override, which would reorder the line.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "active_lexicon = \"EVIL\\u001b[2J\\u202e LIST\"\n").unwrap();
    let mut cmd = Command::new(crate::built::wordjudge());
    cmd.arg("--config").arg(&config).args(["config", "show"]);
    let (out, _) = run_within(cmd, Duration::from_secs(5));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(!stdout.contains('\u{1b}') && !stdout.contains('\u{202e}'), "raw: {stdout:?}");
    let line = stdout.lines().find(|l| l.contains("active_lexicon")).unwrap();
    assert!(
        line.starts_with("# hidden characters escaped: active_lexicon") && line.contains("\\u{202e} LIST"),
        "{line}"
    );
    assert!(stdout.contains("\nstation_name = \"Station 1\"\n"), "other lines as they are: {stdout}");
}
