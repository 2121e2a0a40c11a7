//! The director's guard: what a station keeps beside its config
//! (`config.toml.pin-guard`) so that neither a damaged config nor a wrong
//! clock can take the director menu from its director.
//!
//! It holds two things:
//!
//! * **The station's identity**: a third copy of the director PIN's hash and
//!   the audit folder, written whenever the config is saved or read whole.
//!   A config that lost its PIN line, or a config and its last good copy both
//!   deleted, would otherwise make the station look fresh, and a fresh
//!   station asks a passer-by for a *first* PIN. With the guard, a station
//!   that has had a PIN always knows it, and knows which audit chain is its
//!   own.
//! * **Wrong PINs and lockouts**, kept across restarts. A lockout is kept as
//!   the time it still has to run, measured on the boot clock
//!   (`CLOCK_BOOTTIME`, which no clock setting moves) and tied to the boot it
//!   was measured in. The wall clock is never used: a clock set to 2099 by a
//!   typo, then set right, once locked the director out for 73 years.
//!   After a restart the remaining time starts again in full (time spent
//!   powered off does not count), and it never exceeds the caller's cap.
//!
//! A guard belongs to one station: it names the SHA-256 of that station's
//! audit key (the checkpoint key's public file, [`AUDIT_KEY_FILE`] in the
//! audit folder), and a guard that names another key, or a key this station
//! does not have, is *damaged*. A guard copied from another station would
//! otherwise make that station's PIN open this one. A guard that names no
//! key (written before the station's first record made one) is taken as it
//! is: the kiosk adds the key at its next start.
//!
//! The file is a few `key value` lines, read bounded and without blocking.

use crate::outside_files::write_atomically;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where, in a station's audit folder, its audit key's public part is
/// (written by `audit::checkpoint`, whose test checks the two agree; the
/// guard sits below the audit layer and cannot ask it).
pub const AUDIT_KEY_FILE: &str = "key/ed25519.pub";

/// Largest guard file read.
const MAX_GUARD_BYTES: u64 = 4096;

/// A moment on the boot clock: which boot, and how long since it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootInstant {
    /// `/proc/sys/kernel/random/boot_id`.
    pub boot_id: String,
    /// `CLOCK_BOOTTIME`.
    pub since_boot: Duration,
}

/// Wrong PINs and the lockout in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lockout {
    /// Wrong PINs in a row.
    pub failures: u32,
    /// Lockouts in a row since the last right PIN.
    pub lockouts: u32,
    /// How long the current lockout still runs (zero: none).
    pub locked_for: Duration,
}

/// The guard as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Guard {
    pub lockout: Lockout,
    /// When `lockout.locked_for` was measured.
    pub measured: Option<BootInstant>,
    /// The director PIN's hash, as the config last had it.
    pub pin_hash: Option<String>,
    /// The station's audit folder, as the config last had it.
    pub audit_dir: Option<PathBuf>,
    /// The station's lexicon folder, as the config last had it: a station
    /// whose settings are lost still finds the lists it had.
    pub lexicon_dir: Option<PathBuf>,
    /// SHA-256 (hex) of the station's audit key file in that folder: which
    /// station the guard belongs to.
    pub audit_key: Option<String>,
    /// Why the guard could not be read although something is in its place
    /// (too large, a directory, a FIFO, a symbolic link, not text): then it
    /// proves nothing, and the station may not take itself for one that never
    /// had a PIN. `None` when it was read or is simply not there.
    pub damaged: Option<String>,
}

/// Where the guard of the config at `config` is kept.
pub fn path_for(config: &Path) -> PathBuf {
    let mut name = config.as_os_str().to_owned();
    name.push(".pin-guard");
    PathBuf::from(name)
}

impl Guard {
    /// Reads the guard. A missing file is an empty guard; an unreadable or
    /// odd one (too large, not a regular file, a symbolic link, not text) is
    /// an empty guard marked [`Guard::damaged`]: damage can only make the
    /// station safer, never make it fresh (nothing in a guard can make a
    /// lockout longer than the caller's cap either).
    pub fn read(path: &Path) -> Guard {
        let guard = match crate::outside_files::read_small_text_nofollow(path, MAX_GUARD_BYTES) {
            Ok(text) => Guard::parse(&text),
            Err(e) if e.is_not_found() => return Guard::default(),
            Err(e) => return Guard::damaged(e.to_string()),
        };
        match guard.foreign() {
            Some(why) => Guard::damaged(why),
            None => guard,
        }
    }

    fn damaged(why: String) -> Guard {
        Guard { damaged: Some(why), ..Guard::default() }
    }

    /// Why this guard is not this station's, if it is not: the audit key it
    /// names is not the key in the audit folder it names. A guard with no
    /// PIN, or naming no key, is let be.
    fn foreign(&self) -> Option<String> {
        self.pin_hash.as_ref()?;
        let here = self.audit_dir.as_deref().and_then(audit_key_of);
        match (&self.audit_key, here) {
            (Some(named), Some(here)) if *named == here => None,
            (Some(_), Some(_)) => Some("it belongs to another station (it names another audit key)".into()),
            (Some(_), None) => Some("the audit key it names is not on this station".into()),
            (None, _) => None,
        }
    }

    /// Parses the guard's text.
    pub fn parse(text: &str) -> Guard {
        let value = |name: &str| text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')).map(str::trim);
        let number = |name: &str| value(name).and_then(|v| v.parse::<u64>().ok());
        let measured = match (value("boot_id"), number("since_boot_ms")) {
            (Some(id), Some(ms)) if !id.is_empty() => {
                Some(BootInstant { boot_id: id.to_string(), since_boot: Duration::from_millis(ms) })
            }
            _ => None,
        };
        // A guard written before lockouts were measured on the boot clock
        // kept `locked_until` (wall-clock seconds). Read once more by the
        // wall clock, and never for longer than the cap (`remaining`): a
        // time in 2099 costs at most the cap, one in the past nothing.
        let wall_now = jiff::Timestamp::now().as_second().max(0) as u64;
        let legacy_locked = number("locked_until").map(|until| Duration::from_secs(until.saturating_sub(wall_now)));
        let locked_for = number("locked_left_ms").map(Duration::from_millis).or(legacy_locked).unwrap_or_default();
        Guard {
            lockout: Lockout {
                failures: number("failures").unwrap_or(0).min(u64::from(u32::MAX)) as u32,
                lockouts: number("lockouts").unwrap_or(0).min(u64::from(u32::MAX)) as u32,
                locked_for,
            },
            measured,
            pin_hash: value("pin_hash").filter(|h| !h.is_empty()).map(str::to_string),
            audit_dir: value("audit_dir").filter(|d| !d.is_empty()).map(PathBuf::from),
            lexicon_dir: value("lexicon_dir").filter(|d| !d.is_empty()).map(PathBuf::from),
            audit_key: value("audit_key").filter(|k| !k.is_empty()).map(str::to_string),
            damaged: None,
        }
    }

    /// The guard's text.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# wordjudge: the director PIN's guard (its hash, the audit and lexicon folders, wrong PINs and lockouts), kept across restarts\n",
        );
        text.push_str(&format!("failures {}\nlockouts {}\n", self.lockout.failures, self.lockout.lockouts));
        if let Some(at) = &self.measured {
            let left = self.lockout.locked_for.as_millis().min(u128::from(u64::MAX));
            text.push_str(&format!(
                "locked_left_ms {left}\nboot_id {}\nsince_boot_ms {}\n",
                at.boot_id,
                at.since_boot.as_millis()
            ));
        }
        // Hashes and folders written by this program hold no newline; one
        // that did would be dropped rather than split into two keys.
        if let Some(hash) = self.pin_hash.as_deref().filter(|h| !h.contains('\n')) {
            text.push_str(&format!("pin_hash {hash}\n"));
        }
        if let Some(dir) = self.audit_dir.as_ref().and_then(|d| d.to_str()).filter(|d| !d.contains('\n')) {
            text.push_str(&format!("audit_dir {dir}\n"));
        }
        if let Some(dir) = self.lexicon_dir.as_ref().and_then(|d| d.to_str()).filter(|d| !d.contains('\n')) {
            text.push_str(&format!("lexicon_dir {dir}\n"));
        }
        if let Some(key) = self.audit_key.as_deref().filter(|k| !k.contains('\n')) {
            text.push_str(&format!("audit_key {key}\n"));
        }
        text
    }

    /// Writes the guard atomically.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, self.to_text().as_bytes())
    }

    /// The lockout as it stands at `now`, never longer than `cap`: time
    /// passed in the same boot is taken off; after a restart (another boot)
    /// the remaining time counts again from the start.
    pub fn remaining(&self, now: &BootInstant, cap: Duration) -> Lockout {
        let mut lockout = self.lockout;
        let left = lockout.locked_for.min(cap);
        lockout.locked_for = match &self.measured {
            Some(then) if then.boot_id == now.boot_id => {
                // A boot clock that went backwards is impossible within one
                // boot: count nothing as passed rather than everything.
                let passed = now.since_boot.checked_sub(then.since_boot).unwrap_or_default();
                left.saturating_sub(passed)
            }
            _ => left,
        };
        lockout
    }

    /// Stores `lockout` as measured at `now`, keeping the identity.
    pub fn with_lockout(mut self, lockout: Lockout, now: BootInstant) -> Guard {
        self.lockout = lockout;
        self.measured = Some(now);
        self
    }
}

/// Records the station's identity (PIN hash, audit and lexicon folders) in the guard
/// beside `config`, when it is not already there. Called whenever a config
/// is saved or read whole. A config without a PIN never erases a PIN the
/// guard holds: the guard only ever learns.
pub fn remember_identity(
    config: &Path,
    pin_hash: Option<&str>,
    audit_dir: &Path,
    lexicon_dir: &Path,
) -> std::io::Result<()> {
    let path = path_for(config);
    let old = Guard::read(&path);
    let mut new = old.clone();
    if let Some(hash) = pin_hash {
        new.pin_hash = Some(hash.to_string());
    }
    new.audit_dir = Some(audit_dir.to_path_buf());
    new.lexicon_dir = Some(lexicon_dir.to_path_buf());
    // Once the station has an audit key, the guard names it (the recorder
    // makes the key at the kiosk's first start, before any PIN is set).
    new.audit_key = audit_key_of(audit_dir).or(new.audit_key);
    if new == old {
        return Ok(());
    }
    new.write(&path)
}

/// SHA-256 of the audit key file in `audit_dir`, if it can be read.
fn audit_key_of(audit_dir: &Path) -> Option<String> {
    crate::outside_files::read_small_file_nofollow(&audit_dir.join(AUDIT_KEY_FILE), MAX_GUARD_BYTES)
        .ok()
        .map(|bytes| crate::digest::sha256_hex(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: Duration = Duration::from_secs(3600);

    /// A guard made by this program, with a PIN's hash in it.
    fn written(dir: &Path) -> PathBuf {
        let path = dir.join("config.toml.pin-guard");
        let guard =
            Guard { pin_hash: Some("$argon2id$v=19$abc".into()), audit_dir: Some("/a".into()), ..Guard::default() };
        guard.write(&path).unwrap();
        path
    }

    #[test]
    fn a_guard_in_any_odd_form_is_damaged_never_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path());
        assert_eq!(Guard::read(&path).damaged, None);
        assert!(Guard::read(&path).pin_hash.is_some());
        assert_eq!(Guard::read(&dir.path().join("none")), Guard::default(), "missing: empty, not damaged");
        // Padded past its size: damaged, not read as empty.
        let mut padded = std::fs::read_to_string(&path).unwrap();
        padded.push_str(&"# padding\n".repeat(500));
        std::fs::write(&path, padded).unwrap();
        assert!(Guard::read(&path).damaged.is_some_and(|d| d.contains("bytes")), "{:?}", Guard::read(&path));
        // A directory, a FIFO, a symbolic link to a good guard, bytes that are no text.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(Guard::read(&path).damaged.is_some_and(|d| d.contains("directory")));
        std::fs::remove_dir(&path).unwrap();
        let fifo = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(Guard::read(&path).damaged.is_some_and(|d| d.contains("FIFO")), "a FIFO is never waited on");
        std::fs::remove_file(&path).unwrap();
        let other = written(&dir.path().join("other").tap_mkdir());
        std::os::unix::fs::symlink(&other, &path).unwrap();
        assert!(
            Guard::read(&path).damaged.is_some_and(|d| d.contains("symbolic link")),
            "another file's guard is not this one's"
        );
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
        assert!(Guard::read(&path).damaged.is_some());
    }

    trait TapMkdir {
        fn tap_mkdir(self) -> Self;
    }
    impl TapMkdir for PathBuf {
        fn tap_mkdir(self) -> Self {
            std::fs::create_dir_all(&self).unwrap();
            self
        }
    }

    fn at(boot: &str, seconds: u64) -> BootInstant {
        BootInstant { boot_id: boot.into(), since_boot: Duration::from_secs(seconds) }
    }

    #[test]
    fn a_lockout_runs_on_the_boot_clock_and_restarts_after_a_reboot() {
        let locked = Lockout { failures: 3, lockouts: 1, locked_for: Duration::from_secs(30) };
        let guard = Guard::default().with_lockout(locked, at("boot-a", 100));
        let again = Guard::parse(&guard.to_text());
        assert_eq!(again, guard, "round trip");
        assert_eq!(again.remaining(&at("boot-a", 110), CAP).locked_for, Duration::from_secs(20));
        assert_eq!(again.remaining(&at("boot-a", 200), CAP).locked_for, Duration::ZERO);
        assert_eq!(
            again.remaining(&at("boot-b", 5), CAP).locked_for,
            Duration::from_secs(30),
            "powered off: not counted"
        );
        assert_eq!(again.remaining(&at("boot-a", 50), CAP).locked_for, Duration::from_secs(30), "never longer");
        assert_eq!(again.remaining(&at("boot-a", 110), CAP).failures, 3);
    }

    #[test]
    fn no_file_can_lock_longer_than_the_cap() {
        // The attack: a lockout taken while the clock said 2099, kept in the
        // old wall-clock form.
        let legacy = Guard::parse("failures 3\nlockouts 1\nlocked_until 4102444800\n");
        assert_eq!(legacy.remaining(&at("boot-a", 1), CAP).locked_for, CAP);
        let forged = Guard::parse(&format!("locked_left_ms {}\nboot_id x\nsince_boot_ms 0\n", u64::MAX));
        assert_eq!(forged.remaining(&at("boot-b", 1), CAP).locked_for, CAP);
        assert_eq!(Guard::parse("locked_until 0\n").remaining(&at("b", 1), CAP).locked_for, Duration::ZERO);
        assert_eq!(
            Guard::parse("locked_until 1000\n").remaining(&at("b", 1), CAP).locked_for,
            Duration::ZERO,
            "expired"
        );
        assert_eq!(Guard::parse("\u{0}garbage").remaining(&at("b", 1), CAP), Lockout::default());
    }

    #[test]
    fn the_identity_is_learned_and_never_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        remember_identity(&config, Some("$argon2id$h"), Path::new("/data/audit"), Path::new("/data/lexicons")).unwrap();
        remember_identity(&config, None, Path::new("/data/audit"), Path::new("/data/lexicons")).unwrap();
        let guard = Guard::read(&path_for(&config));
        assert_eq!(guard.pin_hash.as_deref(), Some("$argon2id$h"), "a config without a PIN does not erase it");
        assert_eq!(guard.audit_dir.as_deref(), Some(Path::new("/data/audit")));
        assert_eq!(guard.lexicon_dir.as_deref(), Some(Path::new("/data/lexicons")));
        let locked = guard.clone().with_lockout(Lockout { failures: 1, ..Lockout::default() }, at("b", 3));
        locked.write(&path_for(&config)).unwrap();
        remember_identity(&config, Some("$argon2id$new"), Path::new("/data/audit"), Path::new("/data/lexicons"))
            .unwrap();
        let guard = Guard::read(&path_for(&config));
        assert_eq!(guard.lockout.failures, 1, "the count survives an identity update");
        assert_eq!(guard.pin_hash.as_deref(), Some("$argon2id$new"));
    }
}
