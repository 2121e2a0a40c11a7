//! The station's TOML config: station name, where lexicons and the audit log
//! live, the active lexicon, the director's PIN hash, timeouts, quitting and
//! GPIO wiring. Every field has a documented default.
//!
//! Loading never fails: a missing or broken file gives the defaults plus a
//! problem message, which the kiosk shows to the director instead of crashing.
//! Saving is atomic ([`crate::atomic_file`]), so a power cut during a lexicon
//! switch leaves the old config or the new one.

use crate::atomic_file::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where the config is read when neither `--config` nor `WORDJUDGE_CONFIG` says.
pub const DEFAULT_CONFIG_PATH: &str = "/var/lib/wordjudge/config.toml";
/// Environment variable naming the config file.
pub const CONFIG_ENV: &str = "WORDJUDGE_CONFIG";
/// Environment variable naming the lexicon directory (beats the config).
pub const LEXICONS_ENV: &str = "WORDJUDGE_LEXICONS";

/// Kiosk timings, in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timeouts {
    /// Entry screen returns to Ready after this long without a key (15).
    pub entry_idle_seconds: f64,
    /// Keys are ignored for this long after a verdict appears (0.5).
    pub verdict_guard_seconds: f64,
    /// A verdict clears by itself after this long (10).
    pub verdict_seconds: f64,
    /// Director mode closes after this long without a key (60).
    pub director_idle_seconds: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts { entry_idle_seconds: 15.0, verdict_guard_seconds: 0.5, verdict_seconds: 10.0, director_idle_seconds: 60.0 }
    }
}

/// The whole config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Shown on every screen and in every audit record ("Station 1").
    pub station_name: String,
    /// Directory of lexicon definitions and compiled .fst files.
    pub lexicon_dir: PathBuf,
    /// Id of the lexicon the kiosk judges with ("DEMO": the built-in demo).
    pub active_lexicon: String,
    /// Salted Argon2 hash of the director PIN (`wordjudge config set-pin`);
    /// none means the director menu cannot be opened.
    pub director_pin_hash: Option<String>,
    /// Directory of the audit log.
    pub audit_dir: PathBuf,
    /// Whether the director menu offers "Quit" (desktop use only).
    pub allow_quit: bool,
    pub timeouts: Timeouts,
    pub gpio: crate::gpio::GpioConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            station_name: "Station 1".into(),
            lexicon_dir: PathBuf::from("/var/lib/wordjudge/lexicons"),
            active_lexicon: crate::lexicon::catalog::DEMO_ID.into(),
            director_pin_hash: None,
            audit_dir: PathBuf::from("/var/lib/wordjudge/audit"),
            allow_quit: false,
            timeouts: Timeouts::default(),
            gpio: Default::default(),
        }
    }
}

/// A config as loaded: the values in force, and what was wrong, if anything.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: Config,
    pub path: PathBuf,
    /// A problem to show the director (file missing, unreadable, malformed).
    pub problem: Option<String>,
}

impl Config {
    /// Parses and checks config text.
    pub fn from_toml(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| e.to_string())?;
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<(), String> {
        let t = &self.timeouts;
        for (name, value) in [
            ("entry_idle_seconds", t.entry_idle_seconds),
            ("verdict_guard_seconds", t.verdict_guard_seconds),
            ("verdict_seconds", t.verdict_seconds),
            ("director_idle_seconds", t.director_idle_seconds),
        ] {
            if !(0.0..=3600.0).contains(&value) {
                return Err(format!("timeouts.{name} = {value} must be between 0 and 3600 seconds"));
            }
        }
        if t.verdict_guard_seconds >= t.verdict_seconds {
            return Err("timeouts.verdict_guard_seconds must be shorter than timeouts.verdict_seconds".into());
        }
        if self.station_name.trim().is_empty() || self.station_name.chars().count() > 40 {
            return Err("station_name must have 1 to 40 characters".into());
        }
        Ok(())
    }

    /// Loads `path`; never fails (see the module docs).
    pub fn load(path: &Path) -> Loaded {
        let (config, problem) = match std::fs::read_to_string(path) {
            Ok(text) => match Config::from_toml(&text) {
                Ok(c) => (c, None),
                Err(e) => (Config::default(), Some(format!("config {} is broken, using defaults: {e}", path.display()))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                (Config::default(), Some(format!("no config at {}; using defaults", path.display())))
            }
            Err(e) => (Config::default(), Some(format!("cannot read config {}, using defaults: {e}", path.display()))),
        };
        Loaded { config, path: path.to_path_buf(), problem }
    }

    /// Writes the config atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let text = toml::to_string(self).expect("a config always serializes");
        write_atomically(path, format!("# wordjudge station config (see README: Configuration)\n{text}").as_bytes())
    }
}

/// The config path: `--config`, else `WORDJUDGE_CONFIG`, else the default.
pub fn config_path(flag: Option<&Path>) -> PathBuf {
    flag.map(Path::to_path_buf)
        .or_else(|| std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG_PATH))
}

/// The lexicon directory: `--lexicons`, else `WORDJUDGE_LEXICONS`, else the config's `lexicon_dir`.
pub fn lexicon_dir(flag: Option<&Path>, config: &Config) -> PathBuf {
    flag.map(Path::to_path_buf)
        .or_else(|| std::env::var_os(LEXICONS_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
        .unwrap_or_else(|| config.lexicon_dir.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_round_trip_and_partial_files_fill_in() {
        let text = toml::to_string(&Config::default()).unwrap();
        assert_eq!(Config::from_toml(&text).unwrap(), Config::default());
        let c = Config::from_toml("station_name = \"Table 7\"\n[timeouts]\nverdict_seconds = 6\n").unwrap();
        assert_eq!(c.station_name, "Table 7");
        assert_eq!(c.timeouts.verdict_seconds, 6.0);
        assert_eq!(c.timeouts.entry_idle_seconds, 15.0);
    }

    #[test]
    fn broken_or_missing_config_gives_defaults_and_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Config::load(&dir.path().join("none.toml"));
        assert_eq!(missing.config, Config::default());
        assert!(missing.problem.unwrap().contains("none.toml"));
        for bad in ["station_name = ", "stationname = \"x\"", "[timeouts]\nverdict_seconds = -1", "\u{0}\u{1}"] {
            let path = dir.path().join("bad.toml");
            std::fs::write(&path, bad).unwrap();
            let loaded = Config::load(&path);
            assert_eq!(loaded.config, Config::default(), "{bad}");
            assert!(loaded.problem.unwrap().contains("broken"), "{bad}");
        }
    }

    #[test]
    fn save_then_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        let mut c = Config::default();
        c.active_lexicon = "CSW15".into();
        c.save(&path).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.problem, None);
        assert_eq!(loaded.config, c);
    }
}
