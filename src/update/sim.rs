//! The simulated twin of [`super::system::SystemUpdates`], for tests and
//! desktops (`--updates sim:DIR`), where nothing may ever be installed.
//!
//! A "bundle" is a `.raucb` file holding what `rauc info` would say of it,
//! as JSON, plus the signer: `{"compatible":"wordjudge-sim","version":
//! "0.2.0","description":"…","signer":"CN = test"}`. A file that is not such
//! JSON is refused as RAUC refuses a bundle it cannot verify. `"install_fails":
//! "why"` makes its install fail with that reason; a bundle removed during
//! the install (its stick pulled) fails it as RAUC would.

use super::{parse_info_json, BundleInfo, StationRelease, UpdateError, Updates};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The compatible string of the simulated station.
pub const SIM_COMPATIBLE: &str = "wordjudge-sim";

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

    fn read(bundle: &Path) -> Result<serde_json::Value, UpdateError> {
        let text = std::fs::read_to_string(bundle)
            .map_err(|e| UpdateError::Refused(format!("failed to open bundle: {e}")))?;
        serde_json::from_str(&text).map_err(|_| UpdateError::Refused("signature verification failed".into()))
    }
}

impl Updates for SimUpdates {
    fn release(&self) -> Option<StationRelease> {
        self.release.clone()
    }

    fn inspect(&self, bundle: &Path) -> Result<BundleInfo, UpdateError> {
        std::thread::sleep(self.inspect_time);
        let value = SimUpdates::read(bundle)?;
        let (compatible, version, description) = parse_info_json(&value.to_string())?;
        let signer = value.get("signer").and_then(|s| s.as_str()).unwrap_or("not named").to_string();
        Ok(BundleInfo { compatible, version, description, signer })
    }

    fn install(&self, bundle: &Path, progress: &mut dyn FnMut(u8)) -> Result<(), UpdateError> {
        let value = SimUpdates::read(bundle).map_err(|e| UpdateError::InstallFailed(e.to_string()))?;
        for percent in [0, 25, 50, 75, 100] {
            std::thread::sleep(self.step);
            if !bundle.exists() {
                return Err(UpdateError::InstallFailed("failed to read the bundle: the stick was removed".into()));
            }
            if let Some(why) = value.get("install_fails").and_then(|s| s.as_str()).filter(|_| percent == 50) {
                return Err(UpdateError::InstallFailed(why.to_string()));
            }
            progress(percent);
        }
        Ok(())
    }

    fn state_dir(&self) -> Option<PathBuf> {
        Some(self.state_dir.clone())
    }
}
