//! The simulated twin of [`super::system::SystemUpdates`], for tests and
//! desktops (`--updates sim:DIR`), where nothing may ever be installed.
//!
//! A "bundle" is a `.raucb` file whose first line holds what `rauc info`
//! would say of it, as JSON, plus the signer: `{"compatible":"wordjudge-sim",
//! "version":"0.2.0","description":"…","signer":"CN = test"}`; anything after
//! that line is its payload (a real bundle's image), of any size. A file whose
//! first line (at most [`HEADER_LIMIT`] bytes) is not such JSON is refused as
//! RAUC refuses a bundle it cannot verify. `"install_fails":"why"` makes its
//! install fail with that reason.
//!
//! Looking at a bundle reads its first line only; installing it reads every
//! byte, [`super::staged::CHUNK`] at a time, as RAUC writes a slot, and then
//! writes what a slot would now hold to [`SIM_SLOT_FILE`]: the version and
//! the SHA-256 of the bytes read. So a test can tell which bytes "installed",
//! and a bundle of a gigabyte costs no more memory than one of a kilobyte.

use super::{key_value, parse_info_json, BundleInfo, InstallState, StationRelease, UpdateError, Updates};
use crate::digest::HashingReader;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The compatible string of the simulated station.
pub const SIM_COMPATIBLE: &str = "wordjudge-sim";
/// Longest first line a simulated bundle may have.
pub const HEADER_LIMIT: u64 = 64 * 1024;
/// What the simulated other slot holds after an install (in the state
/// directory): `version=…` and `sha256=…` of the bundle installed.
pub const SIM_SLOT_FILE: &str = "sim-slot";

/// Simulated updates.
#[derive(Debug, Clone)]
pub struct SimUpdates {
    pub release: Option<StationRelease>,
    pub state_dir: PathBuf,
    /// Pause between progress steps (tests watch the screen move).
    pub step: Duration,
    /// How long looking at a bundle takes (RAUC checks its signature).
    pub inspect_time: Duration,
}

fn open(bundle: &Path) -> Result<(std::fs::File, u64), UpdateError> {
    let (file, metadata) = crate::outside_files::open_regular(bundle, u64::MAX)
        .map_err(|e| UpdateError::Refused(format!("failed to open bundle: {e}")))?;
    Ok((file, metadata.len()))
}

/// The bundle's first line, as JSON.
fn header(reader: impl Read) -> Result<serde_json::Value, UpdateError> {
    let mut line = Vec::new();
    BufReader::new(reader.take(HEADER_LIMIT))
        .read_until(b'\n', &mut line)
        .map_err(|e| UpdateError::Refused(format!("failed to read bundle: {e}")))?;
    serde_json::from_slice(&line).map_err(|_| UpdateError::Refused("signature verification failed".into()))
}

impl SimUpdates {
    /// A station at `version`, its boot-check files in `state_dir`.
    pub fn new(version: &str, state_dir: PathBuf) -> SimUpdates {
        SimUpdates {
            release: Some(StationRelease { version: version.into(), compatible: SIM_COMPATIBLE.into() }),
            state_dir,
            step: Duration::from_millis(200),
            inspect_time: Duration::ZERO,
        }
    }
}

impl Updates for SimUpdates {
    fn release(&self) -> Option<StationRelease> {
        self.release.clone()
    }

    fn inspect(&self, bundle: &Path) -> Result<BundleInfo, UpdateError> {
        std::thread::sleep(self.inspect_time);
        let value = header(open(bundle)?.0)?;
        let (compatible, version, description) = parse_info_json(&value.to_string())?;
        let signer = value.get("signer").and_then(|s| s.as_str()).unwrap_or("not named").to_string();
        Ok(BundleInfo { compatible, version, description, signer })
    }

    fn install(&self, bundle: &Path, progress: &mut dyn FnMut(u8)) -> Result<(), UpdateError> {
        let failed = |e: UpdateError| UpdateError::InstallFailed(e.to_string());
        // As RAUC marks the slot it writes unbootable first: an install that
        // stops half-way leaves no slot behind.
        let _ = std::fs::remove_file(self.state_dir.join(SIM_SLOT_FILE));
        let (file, size) = open(bundle).map_err(failed)?;
        let mut reader = HashingReader::new(file);
        // The header is read through the hashing reader too: every byte
        // of the bundle counts, once.
        let mut line = Vec::new();
        BufReader::with_capacity(1, (&mut reader).take(HEADER_LIMIT))
            .read_until(b'\n', &mut line)
            .map_err(|e| UpdateError::InstallFailed(format!("failed to read the bundle: {e}")))?;
        let value = header(line.as_slice()).map_err(failed)?;
        let (_, version, _) = parse_info_json(&value.to_string()).map_err(failed)?;
        let mut read = line.len() as u64;
        let mut buf = vec![0u8; super::staged::CHUNK];
        for percent in [0u64, 25, 50, 75, 100] {
            std::thread::sleep(self.step);
            let until = (u128::from(size) * u128::from(percent) / 100) as u64;
            while read < until {
                let want = buf.len().min((until - read) as usize);
                match reader.read(&mut buf[..want]) {
                    Ok(0) => {
                        return Err(UpdateError::InstallFailed("failed to read the bundle: it ended early".into()))
                    }
                    Ok(n) => read += n as u64,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(UpdateError::InstallFailed(format!("failed to read the bundle: {e}"))),
                }
            }
            if let Some(why) = value.get("install_fails").and_then(|s| s.as_str()).filter(|_| percent == 50) {
                return Err(UpdateError::InstallFailed(why.to_string()));
            }
            progress(percent as u8);
        }
        let slot = format!("version={version}\nsha256={}\n", reader.sha256_hex());
        crate::outside_files::write_atomically(&self.state_dir.join(SIM_SLOT_FILE), slot.as_bytes())
            .map_err(|e| UpdateError::InstallFailed(format!("failed to write the simulated slot: {e}")))
    }

    fn state_dir(&self) -> Option<PathBuf> {
        Some(self.state_dir.clone())
    }

    /// The simulated install ran on the kiosk's own thread, so it ended with
    /// the kiosk: installed only if it got as far as writing the slot.
    fn after_interruption(&self, version: &str) -> InstallState {
        let slot = crate::outside_files::read_small_text(&self.state_dir.join(SIM_SLOT_FILE), 4096).unwrap_or_default();
        if key_value(&slot, "version").as_deref() == Some(version) {
            InstallState::Installed
        } else {
            InstallState::Failed("the simulated install stopped with the kiosk".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_is_its_first_line_and_installs_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let mut updates = SimUpdates::new("0.1.0", dir.path().to_path_buf());
        updates.step = Duration::ZERO;
        let bundle = dir.path().join("u.raucb");
        let mut bytes = br#"{"compatible":"wordjudge-sim","version":"0.2.0","signer":"CN = s"}"#.to_vec();
        bytes.push(b'\n');
        bytes.extend((0..200_000u32).map(|i| (i % 251) as u8));
        std::fs::write(&bundle, &bytes).unwrap();
        let info = updates.inspect(&bundle).unwrap();
        assert_eq!((info.version.as_str(), info.signer.as_str()), ("0.2.0", "CN = s"));
        let mut seen = Vec::new();
        updates.install(&bundle, &mut |p| seen.push(p)).unwrap();
        assert_eq!(seen, [0, 25, 50, 75, 100]);
        let slot = std::fs::read_to_string(dir.path().join(SIM_SLOT_FILE)).unwrap();
        assert_eq!(slot, format!("version=0.2.0\nsha256={}\n", crate::digest::sha256_hex(&bytes)));
    }

    #[test]
    fn an_install_cut_short_with_the_kiosk_left_no_slot() {
        let dir = tempfile::tempdir().unwrap();
        let mut updates = SimUpdates::new("0.1.0", dir.path().to_path_buf());
        updates.step = Duration::ZERO;
        assert!(matches!(updates.after_interruption("0.2.0"), InstallState::Failed(_)));
        let bundle = dir.path().join("u.raucb");
        std::fs::write(&bundle, "{\"compatible\":\"wordjudge-sim\",\"version\":\"0.2.0\"}\npayload").unwrap();
        updates.install(&bundle, &mut |_| {}).unwrap();
        assert_eq!(updates.after_interruption("0.2.0"), InstallState::Installed);
        assert!(matches!(updates.after_interruption("0.3.0"), InstallState::Failed(_)));
        // The next install starts by dropping the slot it will write.
        std::fs::write(&bundle, "{\"compatible\":\"wordjudge-sim\",\"version\":\"0.2.0\",\"install_fails\":\"x\"}\n")
            .unwrap();
        assert!(updates.install(&bundle, &mut |_| {}).is_err());
        assert!(matches!(updates.after_interruption("0.2.0"), InstallState::Failed(_)));
    }

    #[test]
    fn a_first_line_that_is_not_a_description_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let updates = SimUpdates::new("0.1.0", dir.path().to_path_buf());
        let bundle = dir.path().join("u.raucb");
        std::fs::write(&bundle, "not a bundle\n{\"version\":\"1\"}").unwrap();
        assert_eq!(updates.inspect(&bundle), Err(UpdateError::Refused("signature verification failed".into())));
        // A first line longer than the limit is not read to its end.
        std::fs::write(&bundle, vec![b' '; HEADER_LIMIT as usize + 10]).unwrap();
        assert!(matches!(updates.inspect(&bundle), Err(UpdateError::Refused(_))));
    }
}
