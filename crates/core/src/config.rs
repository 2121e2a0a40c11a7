//! The station's TOML config: station name, where lexicons and the audit log
//! live, the active lexicon, the director's PIN hash, timeouts, quitting and
//! GPIO wiring. Every field has a documented default.
//!
//! Loading never fails, and a broken file never changes who judges: every
//! save also writes a last good copy beside the file, a broken or missing file
//! falls back to that copy (same lexicon, audit folder and director PIN), and
//! a broken file with no copy leaves the station out of service with a typed
//! [`ConfigProblem`] naming the file, line and column. Only a station that
//! never had a config starts on the defaults. Files are read bounded and
//! without blocking (a FIFO or `/dev/zero` in its place is refused at once).
//! Saving is atomic ([`crate::outside_files::write_atomically`]), so a power cut during a lexicon
//! switch leaves the old config or the new one.

use crate::outside_files::write_atomically;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Longest station name (it is on every screen and every record).
pub const MAX_STATION_NAME: usize = 40;

/// Whether `c` may be in a station name: not a control character and not
/// one that changes the direction of text (U+200E/F, U+061C, U+202A–U+202E,
/// U+2066–U+2069). The name is on every screen, record, checkpoint and
/// export: a direction override would make `Table 7` read as another name
/// there, or reorder the text after it.
pub fn station_name_char_allowed(c: char) -> bool {
    !c.is_control() && !matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `name` may name a station: 1 to [`MAX_STATION_NAME`] characters,
/// not only spaces, no control or text-direction characters
/// ([`station_name_char_allowed`]).
pub fn check_station_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() || name.chars().count() > MAX_STATION_NAME {
        return Err(format!("station_name must have 1 to {MAX_STATION_NAME} characters, not only spaces"));
    }
    if let Some(c) = name.chars().find(|c| !station_name_char_allowed(*c)) {
        return Err(format!(
            "station_name {} holds the control or text-direction character U+{:04X}, which would hide or reorder \
             text on screens and in the audit log: type the name again without it",
            crate::word::quote(name),
            c as u32
        ));
    }
    Ok(())
}

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
    /// Entry screen returns to Ready after this long without a key (15),
    /// with a countdown on screen for the last 10 s.
    pub entry_idle_seconds: f64,
    /// The same once every declared word is typed (60): the players are
    /// checking the spelling, which the rules make part of the procedure.
    pub entry_complete_idle_seconds: f64,
    /// Keys are ignored for this long after a verdict appears (0.5).
    pub verdict_guard_seconds: f64,
    /// A verdict clears by itself after this long (10).
    pub verdict_seconds: f64,
    /// Director mode closes after this long without a key (60).
    pub director_idle_seconds: f64,
    /// After a verdict, Ready shows its challenge number and slip code for
    /// this long; 0 (the default): until the next challenge starts.
    pub last_slip_seconds: f64,
}

/// Each timing's name, its allowed range in seconds, and why it has a
/// minimum: a value below it would take something from a player or a
/// director before they could act on it.
pub const TIMING_LIMITS: &[(&str, f64, f64, &str)] = &[
    ("entry_idle_seconds", 10.0, 3600.0, "the 10-second countdown before idle words are cleared must show whole"),
    ("entry_complete_idle_seconds", 15.0, 3600.0, "both players must have time to check the spelling"),
    ("verdict_guard_seconds", 0.2, 5.0, "keys already on their way must not end a verdict"),
    ("verdict_seconds", 3.0, 3600.0, "a verdict must stay long enough to be read"),
    ("director_idle_seconds", 15.0, 3600.0, "a director must have time to read the menu"),
];

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            entry_idle_seconds: 15.0,
            entry_complete_idle_seconds: 60.0,
            verdict_guard_seconds: 0.5,
            verdict_seconds: 10.0,
            director_idle_seconds: 60.0,
            last_slip_seconds: 0.0,
        }
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
    /// The event profile in force (`crate::profile::BUILT_IN` ids, e.g.
    /// `NASPA-CSW-5`, or an old id `crate::profile::ALIASES` maps); none: no
    /// challenge rule is shown under verdicts. Its edition is
    /// `active_lexicon`: the rule shows while that is of the profile's family.
    pub profile: Option<String>,
    /// How far the picture is turned clockwise on the appliance's screen:
    /// 0 (the default), 90, 180 or 270 degrees (a panel mounted in
    /// portrait or upside down). Read when the kiosk starts; a desktop
    /// window is never turned.
    #[serde(deserialize_with = "rotation_degrees")]
    pub rotation: u16,
    /// The display connector that shows the kiosk when more than one is
    /// connected (`HDMI-A-1`, `HDMI-A-2`, `DSI-1`: the names under
    /// `/sys/class/drm` without `cardN-`); none (the default): the first
    /// connected one.
    pub display_output: Option<String>,
    pub timeouts: Timeouts,
    pub gpio: crate::gpio::GpioConfig,
}

/// The values `rotation` may take, in degrees clockwise.
pub const ROTATIONS: [u16; 4] = [0, 90, 180, 270];

/// Why `rotation` cannot be `value`: the valid values.
fn rotation_refused(value: impl fmt::Display) -> String {
    format!("rotation = {value} is not one of 0, 90, 180, 270 (degrees the picture is turned clockwise)")
}

/// Reads `rotation`: any value that is not one of [`ROTATIONS`] (another
/// number, a string, a fraction) is refused with the valid ones.
fn rotation_degrees<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
    let value = toml::Value::deserialize(d)?;
    match value.as_integer().and_then(|n| u16::try_from(n).ok()) {
        Some(degrees) if ROTATIONS.contains(&degrees) => Ok(degrees),
        _ => Err(serde::de::Error::custom(rotation_refused(value))),
    }
}

/// The kinds of display connector the kernel names (`drm_connector.c`), as
/// `display_output` spells them: the kind, a dash and its number.
pub const CONNECTOR_KINDS: &[&str] = &[
    "HDMI-A", "HDMI-B", "DSI", "DPI", "DP", "eDP", "DVI-I", "DVI-D", "DVI-A", "VGA", "LVDS", "Composite", "SVIDEO",
    "Component", "DIN", "TV", "Virtual", "SPI", "USB", "Unknown",
];

/// Whether `name` names a display connector as the kernel does
/// (`HDMI-A-1`, `DSI-1`): one of [`CONNECTOR_KINDS`], a dash and a number.
pub fn check_display_output(name: &str) -> Result<(), String> {
    let known = name.rsplit_once('-').is_some_and(|(kind, number)| {
        CONNECTOR_KINDS.contains(&kind) && !number.is_empty() && number.len() <= 3 && number.bytes().all(|b| b.is_ascii_digit())
    });
    if known {
        return Ok(());
    }
    Err(format!(
        "display_output = {name:?} is not a display connector: write a kind ({}), a dash and its number, \
         as the kernel names it, e.g. HDMI-A-1, HDMI-A-2 or DSI-1; or leave it out for the first connected screen",
        CONNECTOR_KINDS.join(", ")
    ))
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
            profile: None,
            rotation: 0,
            display_output: None,
            timeouts: Timeouts::default(),
            gpio: Default::default(),
        }
    }
}

/// Largest config file read: a config is a few hundred bytes; anything
/// bigger is not one, and must not be read whole into memory.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// What is wrong with the config file. The kiosk shows it to the director
/// (and, when the station cannot judge, on the out-of-service screen).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigProblem {
    /// No file at the path.
    Missing { path: PathBuf },
    /// The file cannot be read: permissions, not a regular file, too large.
    Unreadable { path: PathBuf, reason: String },
    /// Not valid TOML, or a key this wordjudge does not know.
    Syntax { path: PathBuf, line: usize, column: usize, message: String },
    /// Valid TOML with a value out of range.
    Invalid { path: PathBuf, message: String },
    /// No config, but the station is not fresh: a damaged last good copy,
    /// or data (an audit log, a director PIN in the guard) a fresh station
    /// cannot have.
    NotFresh { path: PathBuf, reason: String },
    /// Valid TOML that has lost settings the station had (its PIN line, its
    /// lexicon, its audit folder): a cut or edited file, which must not make
    /// the station fresh, hand its menu to a new PIN, or start a new chain.
    LostSettings { path: PathBuf, lost: Vec<&'static str> },
}

impl ConfigProblem {
    /// The file the problem is in.
    pub fn path(&self) -> &Path {
        match self {
            ConfigProblem::Missing { path }
            | ConfigProblem::Unreadable { path, .. }
            | ConfigProblem::Syntax { path, .. }
            | ConfigProblem::Invalid { path, .. }
            | ConfigProblem::NotFresh { path, .. }
            | ConfigProblem::LostSettings { path, .. } => path,
        }
    }
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigProblem::Missing { path } => write!(f, "no config at {}", path.display()),
            ConfigProblem::Unreadable { path, reason } => write!(f, "cannot read config {}: {reason}", path.display()),
            ConfigProblem::Syntax { path, line, column, message } => {
                write!(f, "config {} is broken at line {line}, column {column}: {message}", path.display())
            }
            ConfigProblem::Invalid { path, message } => write!(f, "config {} is broken: {message}", path.display()),
            ConfigProblem::NotFresh { path, reason } => {
                write!(f, "no config at {}, and {reason}: a damaged station, not a fresh one", path.display())
            }
            ConfigProblem::LostSettings { path, lost } => write!(
                f,
                "config {} has lost settings this station had ({}): a damaged config, not a fresh one",
                path.display(),
                lost.join(", ")
            ),
        }
    }
}

impl std::error::Error for ConfigProblem {}

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
        crate::guard::remember_identity(&self.path, config.director_pin_hash.as_deref(), &config.audit_dir)?;
        let path = last_good_path(&self.path);
        let text = self.config.to_text();
        if crate::outside_files::read_small_text(&path, MAX_CONFIG_BYTES).ok().as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        write_atomically(&path, text.as_bytes())
    }
}

/// Where the last good copy of `path` is kept: `config.toml.last-good`.
pub fn last_good_path(path: &Path) -> PathBuf {
    beside(path, "last-good")
}

/// A file the station keeps beside its config (`config.toml.SUFFIX`): the
/// last good copy, the PIN guard, the chosen lexicons' digests.
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Line and column (1-based) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl Config {
    /// Parses and checks config text; `path` only names the file in problems.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigProblem> {
        // A config that says nothing (0 bytes, only comments, as an editor or
        // a failed copy leaves it) is damaged, not fresh: read as defaults it
        // would start a PIN-less DEMO judge on a new audit chain.
        if toml::from_str::<toml::Table>(text).is_ok_and(|table| table.is_empty()) {
            return Err(ConfigProblem::Invalid {
                path: path.to_path_buf(),
                message: "the file is empty (no settings at all): a damaged config, not a fresh one".into(),
            });
        }
        let config: Config = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |span| line_column(text, span.start));
            ConfigProblem::Syntax { path: path.to_path_buf(), line, column, message: e.message().trim().to_string() }
        })?;
        config.check().map_err(|message| ConfigProblem::Invalid { path: path.to_path_buf(), message })?;
        Ok(config)
    }

    /// Parses and checks config text (its problems name the file "(text)").
    pub fn from_toml(text: &str) -> Result<Config, ConfigProblem> {
        Config::parse(text, Path::new("(text)"))
    }

    fn check(&self) -> Result<(), String> {
        let t = &self.timeouts;
        for (name, value) in [
            ("entry_idle_seconds", t.entry_idle_seconds),
            ("entry_complete_idle_seconds", t.entry_complete_idle_seconds),
            ("verdict_guard_seconds", t.verdict_guard_seconds),
            ("verdict_seconds", t.verdict_seconds),
            ("director_idle_seconds", t.director_idle_seconds),
        ] {
            let (_, min, max, why) =
                TIMING_LIMITS.iter().find(|(n, ..)| *n == name).copied().unwrap_or((name, 0.0, 3600.0, ""));
            if !(min..=max).contains(&value) {
                return Err(format!("timeouts.{name} = {value} must be between {min} and {max} seconds: {why}"));
            }
        }
        if t.last_slip_seconds != 0.0 && !(10.0..=86400.0).contains(&t.last_slip_seconds) {
            return Err(format!(
                "timeouts.last_slip_seconds = {} must be 0 (until the next challenge) or between 10 and 86400 seconds: \
                 the slip must stay long enough to be copied",
                t.last_slip_seconds
            ));
        }
        if t.verdict_guard_seconds >= t.verdict_seconds {
            return Err("timeouts.verdict_guard_seconds must be shorter than timeouts.verdict_seconds".into());
        }
        check_station_name(&self.station_name)?;
        if !ROTATIONS.contains(&self.rotation) {
            return Err(rotation_refused(self.rotation));
        }
        if let Some(output) = &self.display_output {
            check_display_output(output)?;
        }
        if let Some(id) = &self.profile {
            if crate::profile::find(id).is_none() {
                let known: Vec<&str> = crate::profile::BUILT_IN.iter().map(|p| p.id).collect();
                return Err(format!("profile {id:?} is not one of {}", known.join(", ")));
            }
        }
        Ok(())
    }

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
                ConfigProblem::NotFresh { path: path.to_path_buf(), reason: format!("its last good copy is damaged ({copy})") },
            ),
            Err(_) => (Config::default(), ConfigSource::Unusable, problem),
        };
        Loaded { config, path: path.to_path_buf(), source, problem: Some(problem) }
    }

    /// The config as the text [`Config::save`] writes.
    pub fn to_text(&self) -> String {
        let text = toml::to_string(self).unwrap_or_default();
        format!("# wordjudge station config (see README: Configuration)\n{text}")
    }

    /// Writes the config atomically, and the same text as its last good copy.
    /// The station's identity goes into the guard as well.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let text = self.to_text();
        write_atomically(path, text.as_bytes())?;
        write_atomically(&last_good_path(path), text.as_bytes())?;
        crate::guard::remember_identity(path, self.director_pin_hash.as_deref(), &self.audit_dir)
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
    fn profile_ids_of_configs_in_the_field_still_load() {
        // Every id a saved config may hold, from before profiles had families too.
        for id in ["NASPA-NWL", "NASPA-TWL", "NASPA-NWL-CHANGEOVER", "NASPA-CSW-5", "NASPA-CSW-10", "WESPA-CSW", "SCHOOL", "DEMO"] {
            let c = Config::from_toml(&format!("active_lexicon = \"CSW15\"\nprofile = \"{id}\"\n")).unwrap();
            assert_eq!(c.profile.as_deref(), Some(id), "kept as written");
        }
        let e = Config::from_toml("profile = \"NASPA-CSW15\"\n").unwrap_err().to_string();
        assert!(e.contains("NASPA-CSW15") && e.contains("NASPA-CSW-5"), "{e}");
    }

    #[test]
    fn rotation_and_display_output_are_refused_with_the_valid_values() {
        let c = Config::from_toml("rotation = 90\ndisplay_output = \"HDMI-A-2\"\n").unwrap();
        assert_eq!((c.rotation, c.display_output.as_deref()), (90, Some("HDMI-A-2")));
        assert_eq!(Config::default().rotation, 0);
        assert_eq!(Config::default().display_output, None, "the first connected screen");
        for ok in ["DSI-1", "DSI-2", "HDMI-A-1", "DPI-1", "eDP-1", "DP-3", "Composite-1"] {
            assert_eq!(check_display_output(ok), Ok(()), "{ok}");
        }
        for bad in ["rotation = 45", "rotation = -90", "rotation = 360", "rotation = \"90\""] {
            let e = Config::from_toml(bad).unwrap_err().to_string();
            assert!(e.contains("is not one of 0, 90, 180, 270"), "{bad}: {e}");
        }
        for bad in ["HDMI1", "hdmi-a-1", "HDMI-A", "HDMI-A-", "list", "", "DSI-1x", "Writeback-1", "HDMI-A-1\n"] {
            let e = Config::from_toml(&format!("display_output = {bad:?}\n")).unwrap_err().to_string();
            assert!(e.contains("HDMI-A-1") && e.contains("DSI"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_bad_rotation_keeps_the_last_good_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let mut good = Config::default();
        good.rotation = 270;
        good.display_output = Some("DSI-1".into());
        good.save(&path).unwrap();
        for bad in ["rotation = 45\n", "display_output = \"HDMI\"\n"] {
            let text = good.to_text().replace("rotation = 270\n", "").replace("display_output = \"DSI-1\"\n", "");
            std::fs::write(&path, format!("{bad}{text}")).unwrap();
            let loaded = Config::load(&path);
            assert_eq!(loaded.source, ConfigSource::LastGood, "{bad}");
            assert_eq!(loaded.config, good, "{bad}: the last good rotation and output stay in force");
            let problem = loaded.problem.map(|p| p.to_string()).unwrap_or_default();
            assert!(problem.contains("0, 90, 180, 270") || problem.contains("e.g. HDMI-A-1"), "{bad}: {problem}");
        }
    }

    #[test]
    fn broken_or_missing_config_gives_defaults_and_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Config::load(&dir.path().join("none.toml"));
        assert_eq!(missing.config, Config::default());
        assert_eq!(missing.source, ConfigSource::Defaults, "a fresh station");
        assert!(missing.problem.unwrap().to_string().contains("none.toml"));
        for bad in ["station_name = ", "stationname = \"x\"", "[timeouts]\nverdict_seconds = -1", "\u{0}\u{1}", "", "# only a comment\n", "[timeouts]\nverdict_seconds = 0.05"] {
            let path = dir.path().join("bad.toml");
            std::fs::write(&path, bad).unwrap();
            let loaded = Config::load(&path);
            assert_eq!(loaded.config, Config::default(), "{bad}");
            assert_eq!(loaded.source, ConfigSource::Unusable, "{bad}: no last good copy, so no judging");
            assert!(loaded.problem.unwrap().to_string().contains("broken"), "{bad}");
        }
    }

    #[test]
    fn a_typo_keeps_the_last_good_config_and_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let mut good = Config::default();
        good.active_lexicon = "CSW15".into();
        good.audit_dir = dir.path().join("audit-here");
        good.director_pin_hash = Some("$argon2id$fake".into());
        good.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap().replace("active_lexicon", "active_lexicn");
        std::fs::write(&path, text).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.source, ConfigSource::LastGood);
        assert_eq!(loaded.config, good, "same lexicon, audit folder and PIN");
        match loaded.problem {
            Some(ConfigProblem::Syntax { line, ref message, .. }) => {
                assert!(line >= 2, "line {line}");
                assert!(message.contains("active_lexicn"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn special_and_huge_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.toml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let big = dir.path().join("big.toml");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(100 * 1024 * 1024).unwrap();
        for path in [Path::new("/dev/zero"), fifo.as_path(), big.as_path()] {
            let started = std::time::Instant::now();
            let loaded = Config::load(path);
            assert!(started.elapsed() < std::time::Duration::from_secs(1), "{}", path.display());
            assert!(matches!(loaded.problem, Some(ConfigProblem::Unreadable { .. })), "{}: {:?}", path.display(), loaded.problem);
            assert_eq!(loaded.source, ConfigSource::Unusable);
        }
    }

    #[test]
    fn a_damaged_guard_never_makes_a_station_fresh_or_prove_it_had_no_pin() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let guard = crate::guard::path_for(&path);
        // Nothing but a guard padded past its size: not a fresh station.
        std::fs::write(&guard, "# padding\n".repeat(1000)).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.source, ConfigSource::Unusable, "{:?}", loaded.problem);
        assert!(loaded.problem.unwrap().to_string().contains("PIN guard is damaged"));
        // A config with no PIN line and no last good copy, beside a damaged
        // guard: the PIN may have been lost, so it is not in force.
        let mut c = Config::default();
        c.active_lexicon = "CSW15".into();
        std::fs::write(&path, c.to_text()).unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.source, ConfigSource::Unusable, "never a station that offers a first PIN");
        assert!(matches!(loaded.problem, Some(ConfigProblem::LostSettings { ref lost, .. }) if lost.contains(&"director_pin_hash")));
    }

    #[test]
    fn a_missing_config_with_a_damaged_last_good_copy_is_not_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(last_good_path(&path), "").unwrap();
        let loaded = Config::load(&path);
        assert_eq!(loaded.source, ConfigSource::Unusable);
        let problem = loaded.problem.unwrap().to_string();
        assert!(problem.contains("not a fresh one") && problem.contains("last good copy is damaged"), "{problem}");
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
        assert_eq!(Config::load(&last_good_path(&path)).config, c, "the last good copy is written too");
    }
}
