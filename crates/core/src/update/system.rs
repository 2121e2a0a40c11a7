//! The appliance's [`Updates`]: the `rauc` command line as the kiosk's
//! unprivileged user (RAUC's service does the writing, over D-Bus), and the
//! release files the image carries.
//!
//! `rauc info` runs twice per bundle looked at: once with
//! `--output-format=json` for the facts (a machine format that stays put
//! across RAUC versions), once readable for the signer, which only the
//! readable form prints (its certificate chain). Parsing the facts out of
//! the readable form instead would save a signature check of a few seconds
//! and tie the kiosk to wording RAUC may change.

use super::{
    key_value, parse_info_json, parse_progress, parse_signer, BundleInfo, InstallState, StationRelease, UpdateError,
    Updates,
};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `rauc info` may take (it checks the signature over a bundle
/// read from a slow stick) before it is stopped.
pub const INFO_TIME_LIMIT: Duration = Duration::from_secs(180);

/// RAUC on the appliance.
#[derive(Debug, Clone)]
pub struct SystemUpdates {
    pub release_file: PathBuf,
    pub system_conf: PathBuf,
    pub keyring: PathBuf,
    pub state_dir: PathBuf,
    /// The `rauc` program (tests put a script in its place).
    pub rauc: PathBuf,
    /// The `busctl` program, which reads RAUC's D-Bus properties (tests put a
    /// script in its place).
    pub busctl: PathBuf,
}

impl SystemUpdates {
    /// The appliance's paths.
    pub fn appliance() -> SystemUpdates {
        SystemUpdates {
            release_file: "/etc/wordjudge-release".into(),
            system_conf: "/etc/rauc/system.conf".into(),
            keyring: "/etc/rauc/keyring.pem".into(),
            state_dir: "/var/lib/wordjudge/update".into(),
            rauc: "rauc".into(),
            busctl: "busctl".into(),
        }
    }

    /// Runs `rauc ARGS` to its end (or the time limit): stdout on success,
    /// RAUC's last words on failure.
    fn run(&self, args: &[&std::ffi::OsStr]) -> Result<String, UpdateError> {
        let mut child = Command::new(&self.rauc)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| UpdateError::NotRun(e.to_string()))?;
        let reader = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_string(&mut text);
                }
                text
            })
        };
        let stdout = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let stderr = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() > INFO_TIME_LIMIT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(UpdateError::Refused(format!(
                        "rauc info took longer than {} s",
                        INFO_TIME_LIMIT.as_secs()
                    )));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => return Err(UpdateError::NotRun(e.to_string())),
            }
        };
        let out = stdout.join().unwrap_or_default();
        let err = stderr.join().unwrap_or_default();
        if status.success() {
            Ok(out)
        } else {
            Err(UpdateError::Refused(last_words(&err, &out, &status.to_string())))
        }
    }
}

/// RAUC's reason: the `LastError:` line its client prints for a failed
/// install, wherever it came (stdout or stderr; the client's lines arrive in
/// either order), else the last line of stderr, else of stdout, that is not
/// progress or an operation's name (`idle`: seen as the last line of a
/// failed install). Shown through [`crate::word::printable`] since it may
/// quote the bundle.
fn last_words(stderr: &str, stdout: &str, status: &str) -> String {
    let last_error = stderr
        .lines()
        .chain(stdout.lines())
        .filter_map(|l| l.trim().strip_prefix("LastError:"))
        .map(str::trim)
        .rfind(|reason| !reason.is_empty());
    let telling = |text: &str| {
        text.lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty() && parse_progress(l).is_none() && !matches!(*l, "idle" | "installing"))
            .map(str::to_string)
    };
    match last_error.map(str::to_string).or_else(|| telling(stderr)).or_else(|| telling(stdout)) {
        Some(line) => crate::word::printable(&line, 200),
        None => format!("rauc ended with {status}"),
    }
}

impl Updates for SystemUpdates {
    fn release(&self) -> Option<StationRelease> {
        // No system.conf: RAUC is not set up here (the Pi image, a desktop).
        let conf =
            crate::outside_files::read_small_text(&self.system_conf, crate::outside_files::limits::SMALL_FILE).ok()?;
        let compatible = key_value(&conf, "compatible")?;
        let version =
            crate::outside_files::read_small_text(&self.release_file, crate::outside_files::limits::SMALL_FILE)
                .ok()
                .and_then(|t| key_value(&t, "VERSION"))
                .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string());
        Some(StationRelease { version, compatible })
    }

    fn inspect(&self, bundle: &Path) -> Result<BundleInfo, UpdateError> {
        let keyring = format!("--keyring={}", self.keyring.display());
        let json =
            self.run(&["info".as_ref(), "--output-format=json".as_ref(), keyring.as_ref(), bundle.as_os_str()])?;
        let (compatible, version, description) = parse_info_json(&json)?;
        let readable = self.run(&["info".as_ref(), keyring.as_ref(), bundle.as_os_str()])?;
        let signer = parse_signer(&readable).unwrap_or_else(|| "not named".into());
        Ok(BundleInfo { compatible, version, description, signer })
    }

    fn install(&self, bundle: &Path, progress: &mut dyn FnMut(u8)) -> Result<(), UpdateError> {
        let mut child = Command::new(&self.rauc)
            .arg("install")
            .arg(bundle)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| UpdateError::NotRun(e.to_string()))?;
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        });
        // Progress comes line by line while the other slot is written; an
        // install has no time limit of ours (RAUC ends it when the stick goes).
        let mut out = String::new();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(percent) = parse_progress(&line) {
                    progress(percent);
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
        let status = child.wait().map_err(|e| UpdateError::NotRun(e.to_string()))?;
        let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
        if status.success() {
            Ok(())
        } else {
            Err(UpdateError::InstallFailed(last_words(&err, &out, &status.to_string())))
        }
    }

    fn state_dir(&self) -> Option<PathBuf> {
        Some(self.state_dir.clone())
    }

    /// RAUC's service goes on writing the slot when the kiosk that asked
    /// for it dies: its `Operation` says whether it still does, the slot it
    /// made primary whether it finished (both back-ends make the new slot
    /// primary only at the very end), and `LastError` why not.
    fn after_interruption(&self, _version: &str) -> InstallState {
        let properties = Command::new(&self.busctl)
            .args(["--system", "get-property", "de.pengutronix.rauc", "/", "de.pengutronix.rauc.Installer"])
            .args(["Operation", "LastError"])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        let (operation, last_error) = match &properties {
            Ok(out) if out.status.success() => match parse_string_properties(&String::from_utf8_lossy(&out.stdout))
                .as_slice()
            {
                [operation, last_error] => (operation.clone(), last_error.clone()),
                _ => return InstallState::Failed("RAUC's state could not be read (busctl gave no Operation)".into()),
            },
            Ok(out) => {
                let why = last_words(&String::from_utf8_lossy(&out.stderr), "", &out.status.to_string());
                return InstallState::Failed(format!("RAUC's state could not be read: {why}"));
            }
            Err(e) => return InstallState::Failed(format!("RAUC's state could not be read: {e}")),
        };
        if operation == "installing" {
            return InstallState::Running;
        }
        let status = match self.run(&["status".as_ref(), "--output-format=json".as_ref()]) {
            Ok(status) => status,
            Err(e) => return InstallState::Failed(format!("RAUC's slot status could not be read: {e}")),
        };
        match primary_is_other_slot(&status) {
            Some(true) => InstallState::Installed,
            _ if !last_error.is_empty() => {
                InstallState::Failed(format!("RAUC reported: {}", crate::word::printable(&last_error, 200)))
            }
            Some(false) => InstallState::Failed("RAUC did not make the new slot the one that boots next".into()),
            None => InstallState::Failed("RAUC's slot status could not be understood".into()),
        }
    }
}

/// The string values `busctl get-property` prints, one per line (`s "idle"`).
fn parse_string_properties(text: &str) -> Vec<String> {
    text.lines().filter_map(|line| line.trim().strip_prefix("s \"")?.strip_suffix('"').map(str::to_string)).collect()
}

/// Whether `rauc status --output-format=json` names a primary slot other
/// than the one booted (`None`: it does not say).
fn primary_is_other_slot(json: &str) -> Option<bool> {
    let status: serde_json::Value = serde_json::from_str(json).ok()?;
    let booted = status.get("booted")?.as_str()?;
    let primary = status.get("boot_primary")?.as_str()?;
    let bootname =
        status.get("slots")?.as_array()?.iter().find_map(|slot| slot.get(primary)?.get("bootname")?.as_str())?;
    Some(bootname != booted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A `rauc` stand-in: a shell script answering like RAUC.
    fn fake_rauc(dir: &Path, script: &str) -> SystemUpdates {
        let rauc = dir.join("rauc");
        std::fs::write(&rauc, format!("#!/bin/sh\n{script}")).unwrap();
        std::fs::set_permissions(&rauc, std::fs::Permissions::from_mode(0o755)).unwrap();
        SystemUpdates {
            release_file: dir.join("wordjudge-release"),
            system_conf: dir.join("system.conf"),
            keyring: dir.join("keyring.pem"),
            state_dir: dir.join("update"),
            busctl: dir.join("busctl"),
            rauc,
        }
    }

    /// A `busctl` stand-in printing RAUC's Operation and LastError.
    fn fake_busctl(updates: &SystemUpdates, operation: &str, last_error: &str) {
        std::fs::write(
            &updates.busctl,
            format!("#!/bin/sh\nprintf 's \"%s\"\\ns \"%s\"\\n' '{operation}' '{last_error}'\n"),
        )
        .unwrap();
        std::fs::set_permissions(&updates.busctl, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    const STATUS: &str = r#"{"compatible":"wordjudge-amd64","variant":"","booted":"A","boot_primary":"PRIMARY","slots":[{"rootfs.0":{"class":"rootfs","bootname":"A","state":"booted","boot_status":"good"}},{"rootfs.1":{"class":"rootfs","bootname":"B","state":"inactive","boot_status":"bad"}}]}"#;

    #[test]
    fn an_install_the_last_kiosk_left_is_read_from_raucs_state() {
        let dir = tempfile::tempdir().unwrap();
        let status = |primary: &str| format!("echo '{}'", STATUS.replace("PRIMARY", primary));
        // Still writing: ask again later.
        let updates = fake_rauc(dir.path(), &status("rootfs.0"));
        fake_busctl(&updates, "installing", "");
        assert_eq!(updates.after_interruption("0.2.0"), InstallState::Running);
        // Done, and the new slot boots next: installed (a stale error from
        // an earlier install does not count).
        let updates = fake_rauc(dir.path(), &status("rootfs.1"));
        fake_busctl(&updates, "idle", "Failed to mount bundle");
        assert_eq!(updates.after_interruption("0.2.0"), InstallState::Installed);
        // Done, the old slot still primary: failed, with RAUC's reason.
        let updates = fake_rauc(dir.path(), &status("rootfs.0"));
        fake_busctl(&updates, "idle", "Installation error: No space left on device");
        assert_eq!(
            updates.after_interruption("0.2.0"),
            InstallState::Failed("RAUC reported: Installation error: No space left on device".into())
        );
        fake_busctl(&updates, "idle", "");
        assert!(
            matches!(updates.after_interruption("0.2.0"), InstallState::Failed(why) if why.contains("did not make the new slot"))
        );
        // RAUC not answering is said, never guessed.
        let updates = fake_rauc(dir.path(), "echo 'not json'");
        fake_busctl(&updates, "idle", "");
        assert!(
            matches!(updates.after_interruption("0.2.0"), InstallState::Failed(why) if why.contains("could not be understood"))
        );
        std::fs::write(
            &updates.busctl,
            "#!/bin/sh\necho 'Failed to get property Operation: Access denied' >&2; exit 1\n",
        )
        .unwrap();
        assert_eq!(
            updates.after_interruption("0.2.0"),
            InstallState::Failed(
                "RAUC's state could not be read: Failed to get property Operation: Access denied".into()
            )
        );
    }

    #[test]
    fn no_system_conf_means_no_updates() {
        let dir = tempfile::tempdir().unwrap();
        let updates = fake_rauc(dir.path(), "exit 0");
        assert_eq!(updates.release(), None);
        std::fs::write(&updates.system_conf, "[system]\ncompatible=wordjudge-amd64\nbootloader=grub\n").unwrap();
        std::fs::write(&updates.release_file, "VERSION=0.1.0\nARCH=amd64\n").unwrap();
        assert_eq!(
            updates.release(),
            Some(StationRelease { version: "0.1.0".into(), compatible: "wordjudge-amd64".into() })
        );
    }

    #[test]
    fn info_takes_the_facts_from_json_and_the_signer_from_the_chain() {
        let dir = tempfile::tempdir().unwrap();
        let updates = fake_rauc(
            dir.path(),
            r#"case "$2" in
--output-format=json) echo '{"compatible":"wordjudge-amd64","version":"0.1.1","description":"d"}' ;;
*) printf 'Certificate Chain:\n 0 Subject: O = test, CN = update signer\n' ;;
esac"#,
        );
        let info = updates.inspect(Path::new("/stick/u.raucb")).unwrap();
        assert_eq!((info.version.as_str(), info.signer.as_str()), ("0.1.1", "O = test, CN = update signer"));
    }

    #[test]
    fn a_bundle_rauc_refuses_carries_raucs_reason() {
        let dir = tempfile::tempdir().unwrap();
        let updates = fake_rauc(
            dir.path(),
            "echo 'signature verification failed: unable to get local issuer certificate' >&2; exit 1",
        );
        match updates.inspect(Path::new("/stick/u.raucb")) {
            Err(UpdateError::Refused(why)) => assert!(why.contains("signature verification failed"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn install_reports_progress_and_failure() {
        let dir = tempfile::tempdir().unwrap();
        let updates = fake_rauc(dir.path(), "echo '  0% Installing'; echo ' 40% Copying image'; echo 'Failed to read bundle: No such device' >&2; exit 1");
        let mut seen = Vec::new();
        let result = updates.install(Path::new("/stick/u.raucb"), &mut |p| seen.push(p));
        assert_eq!(seen, [0, 40]);
        assert_eq!(result, Err(UpdateError::InstallFailed("Failed to read bundle: No such device".into())));
        let ok = fake_rauc(dir.path(), "echo ' 50% x'; echo '100% Installing done.'");
        let mut seen = Vec::new();
        assert_eq!(ok.install(Path::new("/u.raucb"), &mut |p| seen.push(p)), Ok(()));
        assert_eq!(seen, [50, 100]);
    }

    #[test]
    fn a_failed_install_gives_raucs_last_error_whatever_the_order_of_its_lines() {
        // As the client printed it for a full data partition in the boot test:
        // the operation's name last, on either stream.
        let stdout = "installing\n 40% Copying image\nLastError: Installation error: Error while writing status file: No space left on device\nidle\n";
        let want = "Installation error: Error while writing status file: No space left on device";
        assert_eq!(last_words("Installing `/x.raucb` failed\n", stdout, "exit status: 1"), want);
        assert_eq!(last_words(stdout, "", "exit status: 1"), want);
        // No LastError: stderr's last telling line, then stdout's.
        assert_eq!(
            last_words("Failed to read bundle: No such device\nidle\n", "installing\n", "x"),
            "Failed to read bundle: No such device"
        );
        assert_eq!(last_words("", "something went wrong\nidle\n", "x"), "something went wrong");
        assert_eq!(last_words("", "idle\n", "exit status: 1"), "rauc ended with exit status: 1");
    }

    #[test]
    fn a_missing_rauc_is_a_clean_error() {
        let mut updates = SystemUpdates::appliance();
        updates.rauc = "/nonexistent/rauc".into();
        assert!(matches!(updates.inspect(Path::new("/x.raucb")), Err(UpdateError::NotRun(_))));
    }
}
