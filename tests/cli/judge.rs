//! The `wordjudge` command as a director or script uses it: exit codes,
//! `--each`, the lexicon directory order, and clear messages for bad input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn run(dir: &Path, args: &[&str], stdin: &str, env_lexicons: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(crate::built::wordjudge());
    cmd.args(args).env("WORDJUDGE_CONFIG", dir.join("config.toml")).env_remove("WORDJUDGE_LEXICONS");
    if let Some(l) = env_lexicons {
        cmd.env("WORDJUDGE_LEXICONS", l);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A station directory: config naming `lexicons/`, with lexicon SMALL.
fn station() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let lex = dir.path().join("lexicons");
    std::fs::create_dir(&lex).unwrap();
    std::fs::write(lex.join("small.txt"), "cat\ndog\nqi\nza\n").unwrap();
    let (code, out, err) = run(
        dir.path(),
        &[
            "lexicon",
            "build",
            lex.join("small.txt").to_str().unwrap(),
            "--out",
            lex.join("SMALL.fst").to_str().unwrap(),
        ],
        "",
        None,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("4 words"), "{out}");
    std::fs::write(
        lex.join("SMALL.toml"),
        "id = \"SMALL\"\nname = \"s\"\nedition = \"e\"\n[[layer]]\nfst = \"SMALL.fst\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("config.toml"), format!("lexicon_dir = {:?}\n", lex.display().to_string())).unwrap();
    dir
}

#[test]
fn judge_prints_one_verdict_and_exits_0_or_1() {
    let dir = station();
    let d = dir.path();
    assert_eq!(
        run(d, &["judge", "--lexicon", "SMALL", "cat", "QI"], "", None),
        (0, "ACCEPTABLE\n".into(), String::new())
    );
    let (code, out, _) = run(d, &["judge", "--lexicon", "SMALL", "cat", "cats"], "", None);
    assert_eq!((code, out.as_str()), (1, "UNACCEPTABLE\n"));
}

#[test]
fn judge_refuses_bad_words_and_usage_with_exit_2() {
    let dir = station();
    let d = dir.path();
    let (code, out, err) = run(d, &["judge", "--lexicon", "SMALL", "cat", "d0g"], "", None);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("\"d0g\"") && err.contains("'0'"), "{err}");
    let nine: Vec<&str> = std::iter::repeat_n("cat", 9).collect();
    let mut args = vec!["judge", "--lexicon", "SMALL"];
    args.extend(nine);
    let (code, _, err) = run(d, &args, "", None);
    assert_eq!(code, 2);
    assert!(err.contains("at most 8"), "{err}");
    let (code, _, err) = run(d, &["judge", "--lexicon", "NOPE", "cat"], "", None);
    assert_eq!(code, 2);
    assert!(err.contains("NOPE") && err.contains("Missing"), "{err}");
    let (code, _, _) = run(d, &["judge", "--lexicon", "SMALL"], "", None);
    assert_eq!(code, 2, "no words");
    let (code, _, _) = run(d, &["judge", "--bogus"], "", None);
    assert_eq!(code, 2);
}

#[test]
fn kiosk_refuses_a_bad_usb_or_updates_value_naming_the_valid_ones() {
    let dir = tempfile::tempdir().unwrap();
    for (option, bad, valid) in [
        ("--usb", "udisks", ["system", "folders:DIR", "off"]),
        ("--usb", "folders:", ["system", "folders:DIR", "off"]),
        ("--updates", "sim", ["system", "sim:DIR", "off"]),
        ("--updates", "folders:/tmp/x", ["system", "sim:DIR", "off"]),
    ] {
        let (code, out, err) = run(dir.path(), &["kiosk", option, bad], "", None);
        assert_eq!((code, out.as_str()), (2, ""), "{option} {bad}: {err}");
        assert!(err.contains(&format!("\"{bad}\"")), "{option} {bad}: {err}");
        for value in valid {
            assert!(err.contains(value), "{option} {bad} names {value}: {err}");
        }
    }
}

#[test]
fn judge_each_reads_one_challenge_per_line() {
    let dir = station();
    let (code, out, err) =
        run(dir.path(), &["judge", "--lexicon", "SMALL", "--each"], "cat dog\nqi zax\n  za  \n", None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "ACCEPTABLE\nUNACCEPTABLE\nACCEPTABLE\n");
    let (code, out, err) = run(dir.path(), &["judge", "--lexicon", "SMALL", "--each"], "cat\nc@t\n\nqi\n", None);
    assert_eq!(code, 2);
    assert_eq!(out, "ACCEPTABLE\nINVALID\nINVALID\nACCEPTABLE\n", "one line out per line in");
    assert!(err.contains("line 2") && err.contains("line 3"), "{err}");
}

#[test]
fn lexicon_directory_comes_from_flag_then_environment_then_config() {
    let dir = station();
    let d = dir.path();
    let empty = tempfile::tempdir().unwrap();
    // The config names the station's directory: SMALL is found.
    assert_eq!(run(d, &["judge", "--lexicon", "SMALL", "qi"], "", None).0, 0);
    // The environment beats the config.
    assert_eq!(run(d, &["judge", "--lexicon", "SMALL", "qi"], "", Some(empty.path())).0, 2);
    // The flag beats the environment.
    let lex = d.join("lexicons");
    let args = ["--lexicons", lex.to_str().unwrap(), "judge", "--lexicon", "SMALL", "qi"];
    assert_eq!(run(d, &args, "", Some(empty.path())).0, 0);
}

#[test]
fn lexicon_list_and_verify_show_statuses() {
    let dir = station();
    let d = dir.path();
    let (code, out, _) = run(d, &["lexicon", "list"], "", None);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.starts_with("DEMO") && l.contains("Demo (built in)")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("SMALL") && l.contains("Custom")), "{out}");
    assert!(out.contains("official lexicons known, not installed"), "{out}");
    assert_eq!(run(d, &["lexicon", "verify", "SMALL"], "", None).0, 0);
    let fst = d.join("lexicons/SMALL.fst");
    let mut bytes = std::fs::read(&fst).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&fst, bytes).unwrap();
    let (code, out, _) = run(d, &["lexicon", "verify"], "", None);
    assert_eq!(code, 1);
    assert!(out.lines().any(|l| l.starts_with("SMALL") && l.contains("Corrupt") && l.contains("SMALL.fst")), "{out}");
    let (code, _, err) = run(d, &["judge", "--lexicon", "SMALL", "qi"], "", None);
    assert_eq!(code, 2, "a corrupt lexicon never judges");
    assert!(err.contains("Corrupt"), "{err}");
}

#[test]
fn config_set_pin_stores_only_a_salted_hash() {
    let dir = station();
    let d = dir.path();
    let (code, out, err) = run(d, &["config", "set-pin"], "97531\n", None);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(d.join("config.toml")).unwrap();
    assert!(!text.contains("97531"));
    assert!(text.contains("director_pin_hash = \"$argon2"), "{text}");
    assert!(text.contains("lexicon_dir"), "the rest of the config is kept");
    let (code, _, err) = run(d, &["config", "set-pin"], "12ab\n", None);
    assert_eq!(code, 2);
    assert!(err.contains("4 to 12 digits"), "{err}");
    assert_eq!(std::fs::read_to_string(d.join("config.toml")).unwrap(), text, "nothing changed");
}

#[test]
fn lexicon_install_refuses_a_list_that_is_not_the_official_one() {
    let dir = station();
    let d = dir.path();
    std::fs::write(d.join("CSW21.txt"), "cat\ndog\n").unwrap();
    let (code, out, err) = run(d, &["lexicon", "install", d.join("CSW21.txt").to_str().unwrap()], "", None);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("not CSW21") && err.contains("3724aee7") && err.contains("nothing was changed"), "{err}");
    assert!(!d.join("lexicons/CSW21.fst").exists());
    std::fs::write(d.join("mine.txt"), "cat\n").unwrap();
    let (code, _, err) = run(d, &["lexicon", "install", d.join("mine.txt").to_str().unwrap()], "", None);
    assert_eq!(code, 2);
    assert!(err.contains("\"mine\" is not an official lexicon"), "{err}");
    // A list with nothing published installs, and says what it could check.
    std::fs::write(d.join("school.txt"), "cat\ndog\n").unwrap();
    let (code, out, err) =
        run(d, &["lexicon", "install", d.join("school.txt").to_str().unwrap(), "--id", "OSPD4"], "", None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("installed as OSPD4.fst of OSPD4+MW11: nothing is published to check it against"), "{out}");
    // Its other layer is not installed yet.
    assert!(out.contains("OSPD4+MW11: Missing") && out.contains("MW11-long.fst"), "{out}");
    assert!(d.join("lexicons/OSPD4.fst").exists());
}
