//! The director PIN, checked in a short-lived child process.
//!
//! Argon2 needs a 19 MiB work buffer for each check. Freed and trimmed
//! afterwards ([`wordjudge_core::pin::verify_pin`]), it still counts in the kiosk's
//! peak resident memory for the rest of its life, and the kiosk's whole
//! budget on a Pi is 40 MB. A child process (this same program, run as
//! `wordjudge check-pin-child`) does the check instead: its buffer is gone
//! when it exits, and the kiosk never holds it. The kiosk hands over the
//! stored hash and the typed PIN on the child's stdin (never on its command
//! line, which other users could read) and reads the answer from the exit
//! status.
//!
//! If the child cannot be run (no memory for a process, a binary replaced
//! mid-upgrade that no longer knows the command), the check falls back to
//! running in the kiosk: a director must never be locked out by this.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden subcommand the child runs (see `cli::run`).
pub const CHILD_COMMAND: &str = "check-pin-child";
/// Exit status and stdout of the child when the PIN matches. Both must agree:
/// a program that merely exits 0 (or 1) is not an answer, and the check
/// falls back to the kiosk.
pub const EXIT_MATCH: u8 = 0;
pub const SAYS_MATCH: &str = "pin-match";
/// Exit status and stdout of the child when it does not.
pub const EXIT_NO_MATCH: u8 = 1;
pub const SAYS_NO_MATCH: &str = "pin-no-match";
/// Longest a check may take before the child is killed (Argon2 takes
/// about 0.1 s on a Pi 4).
const TIMEOUT: Duration = Duration::from_secs(10);

/// Where the PIN check runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinChecker {
    /// In the calling process (tests, screenshots, one-shot commands).
    InProcess,
    /// In a child running this program (`/proc/self/exe` for the kiosk).
    Child(PathBuf),
}

impl PinChecker {
    /// The kiosk's checker: this very executable, even if the file on disk
    /// was replaced since it started.
    pub fn this_program() -> PinChecker {
        PinChecker::Child(PathBuf::from("/proc/self/exe"))
    }

    /// Whether `pin` matches `stored_hash`.
    pub fn verify(&self, pin: &str, stored_hash: &str) -> bool {
        match self {
            PinChecker::InProcess => wordjudge_core::pin::verify_pin(pin, stored_hash),
            PinChecker::Child(program) => match in_child(program, pin, stored_hash) {
                Ok(matches) => matches,
                Err(e) => {
                    tracing::warn!("PIN check in a child process failed ({e}); checking in the kiosk");
                    wordjudge_core::pin::verify_pin(pin, stored_hash)
                }
            },
        }
    }
}

/// Runs the child and reads its verdict.
fn in_child(program: &PathBuf, pin: &str, stored_hash: &str) -> std::io::Result<bool> {
    if pin.contains('\n') || stored_hash.contains('\n') {
        return Ok(false); // cannot be a PIN or a hash, and would confuse the protocol
    }
    let mut child = Command::new(program)
        .arg(CHILD_COMMAND)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let written = child.stdin.take().map(|mut stdin| stdin.write_all(format!("{stored_hash}\n{pin}\n").as_bytes()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the PIN check took too long"));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if let Some(Err(e)) = written {
        return Err(e);
    }
    let mut said = String::new();
    if let Some(stdout) = child.stdout.take() {
        stdout.take(64).read_to_string(&mut said)?;
    }
    match (status.code(), said.trim_end()) {
        (Some(code), SAYS_MATCH) if code == i32::from(EXIT_MATCH) => Ok(true),
        (Some(code), SAYS_NO_MATCH) if code == i32::from(EXIT_NO_MATCH) => Ok(false),
        _ => Err(std::io::Error::other(format!("the PIN check child ended with {status}, saying {said:?}"))),
    }
}
