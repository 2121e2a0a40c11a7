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

use super::{key_value, parse_info_json, parse_progress, parse_signer, BundleInfo, StationRelease, UpdateError, Updates};
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
                    return Err(UpdateError::Refused(format!("rauc info took longer than {} s", INFO_TIME_LIMIT.as_secs())));
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

/// RAUC's reason: its last non-empty line of stderr (else stdout), shown
/// through [`super::shown`]-like escaping since it may quote the bundle.
fn last_words(stderr: &str, stdout: &str, status: &str) -> String {
    let line = stderr.lines().chain(stdout.lines()).filter(|l| !l.trim().is_empty() && parse_progress(l).is_none()).next_back();
    match line {
        Some(line) => crate::word::printable(line.trim(), 200),
        None => format!("rauc ended with {status}"),
    }
}

impl Updates for SystemUpdates {
    fn release(&self) -> Option<StationRelease> {
        // No system.conf: RAUC is not set up here (the Pi image, a desktop).
        let conf = std::fs::read_to_string(&self.system_conf).ok()?;
        let compatible = key_value(&conf, "compatible")?;
        let version = std::fs::read_to_string(&self.release_file)
            .ok()
            .and_then(|t| key_value(&t, "VERSION"))
            .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string());
        Some(StationRelease { version, compatible })
    }

    fn inspect(&self, bundle: &Path) -> Result<BundleInfo, UpdateError> {
        let keyring = format!("--keyring={}", self.keyring.display());
        let json = self.run(&["info".as_ref(), "--output-format=json".as_ref(), keyring.as_ref(), bundle.as_os_str()])?;
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
            rauc,
        }
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
        let updates = fake_rauc(dir.path(), "echo 'signature verification failed: unable to get local issuer certificate' >&2; exit 1");
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
    fn a_missing_rauc_is_a_clean_error() {
        let mut updates = SystemUpdates::appliance();
        updates.rauc = "/nonexistent/rauc".into();
        assert!(matches!(updates.inspect(Path::new("/x.raucb")), Err(UpdateError::NotRun(_))));
    }
}
