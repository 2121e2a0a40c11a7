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
//!
//! This file owns the settings and their checks; `load` decides which
//! config is in force.

use crate::outside_files::write_atomically;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

mod load;
pub use load::{ConfigSource, Loaded};
mod screen;
pub use screen::{check_display_output, Touch, CONNECTOR_KINDS, ROTATIONS};
use screen::{rotation_degrees, rotation_refused};

/// Longest station name (it is on every screen and every record).
pub const MAX_STATION_NAME: usize = 40;

/// Whether `c` may be in a station name: not a control character and not
/// one that changes the direction of text (U+200E/F, U+061C, U+202A–U+202E,
/// U+2066–U+2069). The name is on every screen, record, checkpoint and
/// export: a direction override would make `Table 7` read as another name
/// there, or reorder the text after it.
pub fn station_name_char_allowed(c: char) -> bool {
    !c.is_control()
        && !matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
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
    /// The director chose the built-in DEMO list to practise with. Without
    /// it a station on DEMO is not set up for the event: players are told
    /// to call the director and nothing is judged (a hurried set-up that
    /// forgot the install must not give players DEMO verdicts, where QI
    /// and ZA are UNACCEPTABLE). Choosing DEMO in the director menu sets it;
    /// choosing any other list clears it. Written only when set.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub practice_with_demo: bool,
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
    /// The time zone the station shows its times in (an IANA name such as
    /// `Europe/London`, chosen by the director); none (the default): the
    /// system's, which the image sets at build time. Display only: every
    /// audit record keeps UTC.
    pub time_zone: Option<String>,
    /// Whether the player's screens show their touch targets (the count
    /// buttons, an on-screen keyboard, JUDGE, the slip's "copied"): `auto`
    /// (the default) when the appliance finds a touchscreen at start, `on`,
    /// or `off`. The keys and the judge button work either way.
    pub touch: Touch,
    pub timeouts: Timeouts,
    pub gpio: crate::gpio::GpioConfig,
}

/// Longest time zone name taken (the longest IANA name has 32 characters).
pub const MAX_TIME_ZONE_NAME: usize = 40;

/// Whether `c` may be typed in a time zone name (`America/Port-au-Prince`,
/// `Etc/GMT+3`).
pub fn time_zone_char_allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+')
}

/// Whether `name` has the form of an IANA time zone name: letters, digits
/// and `/ _ - +` only, no empty, `.` or `..` part, at most
/// [`MAX_TIME_ZONE_NAME`] characters. The form alone keeps the name from
/// reaching outside the time zone database; [`time_zone`] looks it up.
pub fn check_time_zone_name(name: &str) -> Result<(), String> {
    let formed = !name.is_empty()
        && name.len() <= MAX_TIME_ZONE_NAME
        && name.chars().all(time_zone_char_allowed)
        && name.split('/').all(|part| !part.is_empty());
    match formed {
        true => Ok(()),
        false => Err(format!(
            "time_zone = {name:?} is not a time zone name: write one as the time zone database spells it, \
             e.g. Europe/London or America/Toronto (letters, digits and / _ - + only)"
        )),
    }
}

/// The time zone `name` names, as the system's time zone database holds
/// it; none: the system's own zone. An unknown name is the error (the
/// station then shows the system's zone and says why).
pub fn time_zone(name: Option<&str>) -> Result<jiff::tz::TimeZone, String> {
    let Some(name) = name else { return Ok(jiff::tz::TimeZone::system()) };
    check_time_zone_name(name)?;
    jiff::tz::db().get(name).map_err(|_| format!("the time zone {name:?} is not in this station's time zone database"))
}

impl Default for Config {
    fn default() -> Self {
        Config {
            station_name: "Station 1".into(),
            lexicon_dir: PathBuf::from("/var/lib/wordjudge/lexicons"),
            active_lexicon: crate::lexicon::catalog::DEMO_ID.into(),
            practice_with_demo: false,
            director_pin_hash: None,
            audit_dir: PathBuf::from("/var/lib/wordjudge/audit"),
            allow_quit: false,
            profile: None,
            rotation: 0,
            display_output: None,
            time_zone: None,
            touch: Touch::Auto,
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
        if let Some(zone) = &self.time_zone {
            check_time_zone_name(zone)?;
        }
        if let Some(id) = &self.profile {
            if crate::profile::find(id).is_none() {
                let known: Vec<&str> = crate::profile::BUILT_IN.iter().map(|p| p.id).collect();
                return Err(format!("profile {id:?} is not one of {}", known.join(", ")));
            }
        }
        Ok(())
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
        crate::guard::remember_identity(path, self.director_pin_hash.as_deref(), &self.audit_dir, &self.lexicon_dir)
    }
}

/// Where a damaged config is kept when the director sets the station up
/// again: beside it, never read by the station, for the operator's eyes.
pub fn damaged_copy_path(config: &Path) -> PathBuf {
    let mut name = config.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".damaged");
    config.with_file_name(name)
}

/// Moves whatever is in the config's place (a damaged file, a folder, a
/// FIFO) to [`damaged_copy_path`], replacing an older one there; `Ok(false)`
/// when nothing is there. A rename: nothing in it is opened or read.
pub fn set_aside_damaged(config: &Path) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(config) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
        Ok(_) => std::fs::rename(config, damaged_copy_path(config)).map(|()| true),
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
mod tests;
