//! Loading the config: which config is in force ([`ConfigSource`]) and why
//! ([`Loaded`]). Loading never fails and never changes who judges: a broken,
//! missing or cut file falls back to the last good copy beside it, and only
//! a station that never had a config, a copy, a PIN or an audit log starts
//! on the defaults.

use super::*;

/// Which config is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    /// The file itself.
    File,
    /// The file is missing or broken; the last good copy saved beside it is
    /// in force (same lexicon, audit folder and PIN as before the damage).
    LastGood,
    /// No file and no last good copy: a fresh station on the defaults.
    Defaults,
    /// The file is broken and there is no last good copy: the station must
    /// not judge (defaults would silently change who judges).
    Unusable,
}

/// A config as loaded: the values in force, where they came from, and what
/// was wrong, if anything.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: Config,
    pub path: PathBuf,
    pub source: ConfigSource,
    pub problem: Option<ConfigProblem>,
}

impl Loaded {
    /// Whether the station may judge with this config.
    pub fn usable(&self) -> bool {
        self.source != ConfigSource::Unusable
    }

    /// Saves the config in force as the last good copy, when it came from the
    /// file (a no-op otherwise, or when the copy is already the same).
    /// The station's identity (PIN hash, audit folder) goes into the guard
    /// too ([`crate::guard`]).
    pub fn remember_last_good(&self) -> std::io::Result<()> {
        if self.source != ConfigSource::File {
            return Ok(());
        }
        let config = &self.config;
        crate::guard::remember_identity(
            &self.path,
            config.director_pin_hash.as_deref(),
            &config.audit_dir,
            &config.lexicon_dir,
        )?;
        let path = last_good_path(&self.path);
        let text = self.config.to_text();
        if crate::outside_files::read_small_text(&path, MAX_CONFIG_BYTES).ok().as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        write_atomically(&path, text.as_bytes())
    }
}

impl Config {
    fn read(path: &Path) -> Result<(Config, toml::Table), ConfigProblem> {
        // Bounded and without blocking: a FIFO or device in the config's
        // place is refused at once, a huge file before it is read.
        match crate::outside_files::read_small_text(path, MAX_CONFIG_BYTES) {
            Ok(text) => {
                let config = Config::parse(&text, path)?;
                Ok((config, toml::from_str(&text).unwrap_or_default()))
            }
            Err(e) if e.is_not_found() => Err(ConfigProblem::Missing { path: path.to_path_buf() }),
            Err(e) => Err(ConfigProblem::Unreadable { path: path.to_path_buf(), reason: e.to_string() }),
        }
    }

    /// Loads `path`; never fails. A broken or missing file, or one that lost
    /// settings the station had ([`ConfigProblem::LostSettings`]), falls back
    /// to the last good copy beside it, never to defaults that would change
    /// who judges: without a last good copy the station is
    /// [`ConfigSource::Unusable`] (out of service, saying why). Only a
    /// station that never had a config (no file, no copy, no audit log in
    /// the default folder, no PIN in the guard) starts on the defaults.
    ///
    /// Whatever is in force, a station that has had a director PIN keeps it:
    /// when neither the file nor its copy holds one, the guard's is used.
    pub fn load(path: &Path) -> Loaded {
        let guard = crate::guard::Guard::read(&crate::guard::path_for(path));
        let last_good = Config::read(&last_good_path(path));
        let mut loaded = Config::load_with(path, &guard, last_good);
        if loaded.source != ConfigSource::File && loaded.source != ConfigSource::Defaults {
            let config = &mut loaded.config;
            if config.director_pin_hash.is_none() {
                config.director_pin_hash = guard.pin_hash.clone();
            }
            // With no config in force, the guard names the station's own
            // audit chain (a problem is recorded there, never in a new one).
            if loaded.source == ConfigSource::Unusable {
                if let Some(dir) = &guard.audit_dir {
                    config.audit_dir = dir.clone();
                }
                // And the lists it had, wherever they are.
                if let Some(dir) = &guard.lexicon_dir {
                    config.lexicon_dir = dir.clone();
                }
            }
        }
        loaded
    }

    fn load_with(
        path: &Path,
        guard: &crate::guard::Guard,
        last_good: Result<(Config, toml::Table), ConfigProblem>,
    ) -> Loaded {
        let problem = match Config::read(path) {
            Ok((config, table)) => {
                let lost = lost_settings(&table, last_good.as_ref().ok().map(|(c, _)| c), guard);
                if lost.is_empty() {
                    return Loaded { config, path: path.to_path_buf(), source: ConfigSource::File, problem: None };
                }
                ConfigProblem::LostSettings { path: path.to_path_buf(), lost }
            }
            Err(problem) => problem,
        };
        let missing = matches!(problem, ConfigProblem::Missing { .. });
        let (config, source, problem) = match last_good {
            Ok((config, _)) => (config, ConfigSource::LastGood, problem),
            // A fresh station is recognised only by the absence of any
            // config, any last good copy and any data.
            Err(ConfigProblem::Missing { .. }) if missing => match data_of_a_used_station(&Config::default(), guard) {
                None => (Config::default(), ConfigSource::Defaults, problem),
                Some(reason) => (
                    Config::default(),
                    ConfigSource::Unusable,
                    ConfigProblem::NotFresh { path: path.to_path_buf(), reason },
                ),
            },
            Err(copy) if missing => (
                Config::default(),
                ConfigSource::Unusable,
                ConfigProblem::NotFresh {
                    path: path.to_path_buf(),
                    reason: format!("its last good copy is damaged ({copy})"),
                },
            ),
            Err(_) => (Config::default(), ConfigSource::Unusable, problem),
        };
        Loaded { config, path: path.to_path_buf(), source, problem: Some(problem) }
    }
}

/// What a station that never had a config cannot have: a director PIN in
/// its guard, or records in the default audit folder or in the folder the
/// guard names. Some(why) when it has them.
fn data_of_a_used_station(defaults: &Config, guard: &crate::guard::Guard) -> Option<String> {
    if guard.pin_hash.is_some() {
        return Some("it has had a director PIN".into());
    }
    // A guard in place that cannot be read proves nothing either way: never
    // a fresh station (which would offer anyone a first PIN).
    if let Some(damage) = &guard.damaged {
        return Some(format!("its PIN guard is damaged ({damage})"));
    }
    [Some(&defaults.audit_dir), guard.audit_dir.as_ref()].into_iter().flatten().find_map(|dir| {
        let listing = crate::outside_files::list_folder(dir, 1).ok()?;
        (!listing.entries.is_empty()).then(|| format!("the audit folder {} already holds a log", dir.display()))
    })
}

/// The settings a readable config lost: each a key the file does not have
/// while the station's last good copy (or, for the PIN, its guard) holds a
/// value other than the default. Only the settings that decide who may open
/// the menu, who judges and where it is recorded count: a deleted `[gpio]`
/// table or timing falls back to its default harmlessly, and an operator
/// may do that on purpose.
fn lost_settings(file: &toml::Table, last_good: Option<&Config>, guard: &crate::guard::Guard) -> Vec<&'static str> {
    let defaults = Config::default();
    let mut lost = Vec::new();
    // A damaged guard cannot prove the station never had a PIN.
    let had_pin =
        last_good.is_some_and(|c| c.director_pin_hash.is_some()) || guard.pin_hash.is_some() || guard.damaged.is_some();
    if !file.contains_key("director_pin_hash") && had_pin {
        lost.push("director_pin_hash");
    }
    if let Some(good) = last_good {
        for (key, differs) in [
            ("active_lexicon", good.active_lexicon != defaults.active_lexicon),
            ("audit_dir", good.audit_dir != defaults.audit_dir),
            ("lexicon_dir", good.lexicon_dir != defaults.lexicon_dir),
        ] {
            if differs && !file.contains_key(key) {
                lost.push(key);
            }
        }
    }
    lost
}
