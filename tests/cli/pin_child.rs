//! The kiosk checks the director PIN in a child process (this program's
//! hidden `check-pin-child`), so Argon2's buffer never counts in its memory.
//! The answer must be the same as the in-process check, a child that cannot
//! run must not lock the director out, and the child takes its input on
//! stdin only.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use wordjudge_station::desks::pin::checker::PinChecker;

fn program() -> PathBuf {
    crate::built::wordjudge()
}

#[test]
fn the_child_agrees_with_the_in_process_check() {
    let hash = wordjudge_core::pin::hash_pin("2468").unwrap();
    // The kiosk runs its own program as the child (`/proc/self/exe`):
    // `wordjudge-kiosk`; `wordjudge` answers the same.
    for program in [program(), crate::built::kiosk()] {
        let child = PinChecker::Child(program);
        for (pin, want) in [("2468", true), ("2469", false), ("", false), ("24680", false)] {
            assert_eq!(child.verify(pin, &hash), want, "PIN {pin:?}");
            assert_eq!(PinChecker::InProcess.verify(pin, &hash), want, "PIN {pin:?}");
        }
    }
    let child = PinChecker::Child(program());
    // A forged hash asking for 4 GiB matches nothing, in the child too.
    let greedy = hash.replace("m=19456", "m=4194304");
    assert_ne!(greedy, hash);
    assert!(!child.verify("2468", &greedy));
}

#[test]
fn a_child_that_cannot_run_falls_back_to_the_kiosk() {
    let hash = wordjudge_core::pin::hash_pin("1357").unwrap();
    let missing = PinChecker::Child(PathBuf::from("/nonexistent/wordjudge"));
    assert!(missing.verify("1357", &hash));
    assert!(!missing.verify("1358", &hash));
    // A program that exits 0 or 1 without the child's answer is no answer:
    // neither accepts a wrong PIN nor refuses the right one.
    for stranger in ["/bin/true", "/bin/false"] {
        let stranger = PinChecker::Child(PathBuf::from(stranger));
        assert!(stranger.verify("1357", &hash), "{stranger:?}");
        assert!(!stranger.verify("1358", &hash), "{stranger:?}");
    }
}

#[test]
fn a_newline_in_the_pin_cannot_smuggle_a_second_line() {
    let hash = wordjudge_core::pin::hash_pin("2468").unwrap();
    assert!(!PinChecker::Child(program()).verify("0000\n2468", &hash));
}

#[test]
fn the_child_refuses_input_that_is_not_one_hash_and_one_pin() {
    let hash = wordjudge_core::pin::hash_pin("2468").unwrap();
    for input in [String::new(), format!("{hash}\n"), format!("{hash}\n2468\nextra\n"), "x".repeat(10_000)] {
        let mut child = Command::new(program())
            .arg("check-pin-child")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(2), "input of {} bytes", input.len());
    }
}
