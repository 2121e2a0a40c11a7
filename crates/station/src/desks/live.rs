//! The real [`Station`]: the active lexicon from the catalog, the config file,
//! the audit log, and systemd for reboot and power-off (appliance only).
//!
//! Nothing here panics on bad files, and nothing falls back silently: a
//! lexicon that fails verification leaves the station out of service (judging
//! with a list the players did not agree to would be worse than not judging),
//! a broken config with no last good copy does too, and a config that cannot
//! be saved leaves everything unchanged. Judging runs under `catch_unwind`,
//! so a fault in the judging path is an audit record and an out-of-service
//! screen, never a dead kiosk.
//!
//! This file owns the station's state and its start: the config, the
//! catalog, the audit log and the desks' workers. Each desk's mechanism
//! lives in its own folder beside its port and its fake
//! (`desks/judging/live.rs`, `desks/lexicons/live.rs`, …; the map is in
//! [`crate::desks`]), and reaches this state through the fields this
//! folder alone may see.

use crate::desks::pin::checker::PinChecker;
use crate::desks::sticks::worker::UsbDesk;
use crate::desks::updates::worker::UpdateDesk;
use crate::desks::{UsbError, UsbRequest};
use std::path::PathBuf;
use std::sync::Arc;
use wordjudge_core::audit::{AuditEvent, LexiconIdentity};
use wordjudge_core::config::{Config, ConfigProblem, ConfigSource, Loaded};
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::{Lexicon, LexiconError};
use wordjudge_core::profile::Profile;
use wordjudge_core::recorder::AuditLog;
use wordjudge_core::update::{BootCheck, Updates};
use wordjudge_core::usb::Sticks;

/// The active lexicon, or why there is none.
pub(in crate::desks) enum Active {
    Open(Box<Lexicon>, LexiconIdentity),
    Failed { id: String, status: String, problem: String },
}

/// How the station was started.
pub struct StationSetup {
    /// The config as loaded (possibly the last good copy, or unusable).
    pub loaded: Loaded,
    pub lexicon_dir: PathBuf,
    /// The audit log; `None` when the config is unusable (no folder is known
    /// to be the station's, and a new one would break the chain).
    pub audit: Option<AuditLog>,
    /// Why the judge button and lamps are not available, if they are not.
    pub gpio_problem: Option<String>,
    /// The GPIO backend in use, for the director ("rppal: button BCM17 …").
    pub gpio_description: String,
    /// Running as the appliance's service: only then reboot and power-off.
    pub appliance: bool,
    /// Where the director PIN is checked (a child process in the kiosk).
    pub pin_checker: PinChecker,
    /// USB sticks: the appliance's (udev and the helper units), folders on
    /// a desktop, or none.
    pub sticks: Arc<dyn Sticks>,
    /// Updates of the whole station from a stick (RAUC on the appliance's
    /// PC image; none elsewhere).
    pub updates: Arc<dyn Updates>,
    /// Whether a keyboard is plugged in (udev's on the appliance's screen;
    /// a desktop window cannot tell).
    pub keyboards: Arc<dyn wordjudge_core::keyboard::Keyboards>,
}

/// The station as the kiosk runs it.
pub struct LiveStation {
    pub(in crate::desks) config: Config,
    pub(in crate::desks) config_path: PathBuf,
    pub(in crate::desks) config_source: ConfigSource,
    pub(in crate::desks) config_problem: Option<ConfigProblem>,
    pub(in crate::desks) catalog: Catalog,
    pub(in crate::desks) active: Active,
    pub(in crate::desks) audit: Option<AuditLog>,
    pub(in crate::desks) gpio_problem: Option<String>,
    pub(in crate::desks) gpio_description: String,
    /// Why wrong PINs and lockouts cannot be kept across a restart (the
    /// guard is damaged or cannot be written), as last found.
    pub(in crate::desks) guard_problem: Option<String>,
    pub(in crate::desks) pin_checker: PinChecker,
    pub(in crate::desks) appliance: bool,
    pub(in crate::desks) judging_fault: Option<String>,
    /// The event profile in force, if the config names one.
    pub(in crate::desks) profile: Option<&'static Profile>,
    /// The profile's second-opinion lexicon: opened and verified like the
    /// active one, or why it cannot judge.
    pub(in crate::desks) second: Option<(String, Result<Box<Lexicon>, String>)>,
    /// The active lexicon's file changed on disk after it was verified (the
    /// verified copy in memory still judges), as last noticed.
    pub(in crate::desks) file_changed: Option<String>,
    /// Work with USB sticks.
    pub(in crate::desks) usb: UsbDesk,
    /// Updates from a stick.
    pub(in crate::desks) update: UpdateDesk,
    /// Where the boot check writes its verdict.
    pub(in crate::desks) update_state: Option<PathBuf>,
    /// The boot check's last verdict, for the director menu.
    pub(in crate::desks) last_update: Option<BootCheck>,
    /// Records the boot check's verdict once (a verdict recorded while the
    /// log could not be written is held, and its file renamed once the log
    /// writes again).
    pub(in crate::desks) boot_check: crate::desks::updates::boot_check::BootCheckRecorder,
    /// A director's USB request that came while the menu's background look
    /// for update bundles held the stick: started as soon as that look ends.
    pub(in crate::desks) deferred_usb: Option<UsbRequest>,
    /// The rotation the screen started with (the backend turns the picture
    /// once, at start): a rotation saved since waits for the next start.
    pub(in crate::desks) rotation_at_start: u16,
    /// Which screen shows the kiosk and how it is turned, for the director
    /// menu (the runner says, [`LiveStation::screen_in_use`]).
    pub(in crate::desks) screen: Option<String>,
    pub(in crate::desks) keyboards: Arc<dyn wordjudge_core::keyboard::Keyboards>,
    /// No keyboard was plugged in at the last look (recorded once).
    pub(in crate::desks) keyboard_missing: bool,
    /// When the keyboards were last counted.
    pub(in crate::desks) keyboards_counted: Option<std::time::Instant>,
    /// Whether the audit log could take a record at the last poll.
    pub(in crate::desks) audit_ok: bool,
    /// Wrong PINs since the menu was last opened, and those shown on the
    /// director's pages during this visit.
    pub(in crate::desks) wrong_pins: WrongPins,
    pub(in crate::desks) wrong_pins_shown: WrongPins,
    /// When a failing audit log was last tried again.
    pub(in crate::desks) audit_retried: Option<std::time::Instant>,
    /// The fleet's units, still running after the station left, until the
    /// uploader has sent the `fleet_left` record (or waited long enough).
    pub(in crate::desks) fleet_units_stop: Option<crate::desks::fleet::FleetUnitsStop>,
}

/// Wrong PINs at the prompt, and since when (local `HH:MM`).
#[derive(Debug, Clone, Default)]
pub(in crate::desks) struct WrongPins {
    pub(in crate::desks) refused: u32,
    pub(in crate::desks) lockouts: u32,
    pub(in crate::desks) since: String,
}

/// Where the chosen lexicons' digests are kept: beside the config.
pub(in crate::desks) fn digests_path(config: &std::path::Path) -> PathBuf {
    wordjudge_core::config::beside(config, "lexicon-digests")
}

/// Opens `id`: its status is computed from the bytes that will judge.
pub(in crate::desks) fn open_active(catalog: &Catalog, id: &str) -> Result<Lexicon, LexiconError> {
    catalog.open(id)
}

/// How often the live station counts the keyboards plugged in.
pub(in crate::desks) const KEYBOARD_LOOK: std::time::Duration = std::time::Duration::from_secs(1);

impl LiveStation {
    /// Counts the keyboards: none is said on screen and recorded once
    /// (`keyboard_missing`), and one plugged in again is recorded
    /// (`keyboard_found`). A station that cannot tell says nothing.
    pub(in crate::desks) fn count_keyboards(&mut self) {
        self.keyboards_counted = Some(std::time::Instant::now());
        match self.keyboards.count() {
            Some(0) if !self.keyboard_missing => {
                tracing::warn!("no keyboard is plugged in: players cannot type the words");
                self.keyboard_missing = true;
                self.record(AuditEvent::KeyboardMissing);
            }
            Some(n) if n > 0 && self.keyboard_missing => {
                tracing::info!("a keyboard is plugged in again");
                self.keyboard_missing = false;
                self.record(AuditEvent::KeyboardFound { keyboards: n as u32 });
            }
            _ => {}
        }
    }

    /// Starts the station: opens the active lexicon and records start-up.
    pub fn start(setup: StationSetup) -> LiveStation {
        let StationSetup {
            loaded,
            lexicon_dir,
            audit,
            gpio_problem,
            gpio_description,
            appliance,
            pin_checker,
            sticks,
            updates,
            keyboards,
        } = setup;
        let Loaded { config, path, source, problem } = loaded;
        let catalog = Catalog::load(&lexicon_dir);
        let usb = UsbDesk::new(sticks.clone(), lexicon_dir.clone());
        let update_state = updates.state_dir();
        let update = UpdateDesk::new(updates, sticks);
        let mut station = LiveStation {
            active: Active::Failed { id: config.active_lexicon.clone(), status: String::new(), problem: String::new() },
            rotation_at_start: config.rotation,
            screen: None,
            config,
            config_path: path,
            config_source: source,
            config_problem: problem,
            catalog,
            audit,
            gpio_problem,
            gpio_description,
            guard_problem: None,
            pin_checker,
            appliance,
            judging_fault: None,
            profile: None,
            second: None,
            file_changed: None,
            usb,
            last_update: update_state.as_deref().and_then(wordjudge_core::update::recorded_boot_check),
            update,
            update_state,
            boot_check: Default::default(),
            deferred_usb: None,
            keyboards,
            keyboard_missing: false,
            keyboards_counted: None,
            audit_ok: true,
            audit_retried: None,
            wrong_pins: WrongPins::default(),
            wrong_pins_shown: WrongPins::default(),
            fleet_units_stop: None,
        };
        // Wrong PINs since the last right one outlive a restart (the guard
        // keeps them for the lockout): the director's next visit still hears
        // of them.
        let guard = station.load_pin_guard();
        if guard.failures > 0 {
            station.wrong_pins = WrongPins {
                refused: guard.failures,
                lockouts: guard.lockouts,
                since: "before the station last started".into(),
            };
        }
        station.record(AuditEvent::Startup { version: env!("CARGO_PKG_VERSION").to_string() });
        station.stop_fleet_units_left_running();
        // What the screens start from: a log failing now keeps players out
        // until a poll finds it writable.
        station.audit_ok = station.audit.as_ref().is_some_and(|a| a.problem().is_none());
        station.count_keyboards();
        station.renew_guard();
        station.record_start_problems();
        station.active = if station.config_source == ConfigSource::Unusable {
            let problem = station.config_problem.as_ref().map(ToString::to_string).unwrap_or_default();
            Active::Failed { id: station.config.active_lexicon.clone(), status: "Not opened".into(), problem }
        } else {
            let id = station.config.active_lexicon.clone();
            station.activate(&id)
        };
        station.profile = station.config.profile.as_deref().and_then(wordjudge_core::profile::find);
        station.second = station.open_second(station.profile, &station.config.active_lexicon);
        station.record_boot_check();
        station
    }

    /// The first record made the audit key on a new station: from now on
    /// the guard names it, so a guard copied from another station is known
    /// for what it is (`wordjudge_core::guard`). A damaged guard beside a
    /// whole config is written again from it, and that is recorded: damage
    /// is never repaired without a trace.
    pub(in crate::desks) fn renew_guard(&mut self) {
        if self.config_source != ConfigSource::File {
            return;
        }
        let guard_path = wordjudge_core::guard::path_for(&self.config_path);
        let damage = wordjudge_core::guard::Guard::read(&guard_path).damaged;
        let (pin, audit, lexicons) =
            (self.config.director_pin_hash.as_deref(), &self.config.audit_dir, &self.config.lexicon_dir);
        match wordjudge_core::guard::remember_identity(&self.config_path, pin, audit, lexicons) {
            Err(e) => tracing::warn!("cannot write the PIN guard: {e}"),
            Ok(()) => {
                if let Some(damage) =
                    damage.filter(|_| wordjudge_core::guard::Guard::read(&guard_path).damaged.is_none())
                {
                    let problem = format!("the PIN guard was damaged ({damage}); written again from the config");
                    tracing::warn!("{problem}");
                    self.record(AuditEvent::ConfigProblem { problem });
                }
            }
        }
    }

    /// What was wrong at the start, in the journal and (the config's and
    /// the GPIO's) in the audit log; a lexicon file the catalogue could not
    /// use is the journal's and the director's.
    pub(in crate::desks) fn record_start_problems(&mut self) {
        if let Some(problem) = &self.config_problem {
            tracing::warn!("{problem}");
            let problem = problem.to_string();
            self.record(AuditEvent::ConfigProblem { problem });
        }
        if let Some(problem) = self.gpio_problem.clone() {
            tracing::warn!("{problem}");
            self.record(AuditEvent::GpioProblem { problem });
        }
        for problem in self.catalog.problems() {
            tracing::warn!("{problem}");
        }
    }

    /// Says which screen shows the kiosk (for the director menu's facts),
    /// and records why the configured one could not, if it could not.
    pub fn screen_in_use(&mut self, description: String, problem: Option<String>) {
        if let Some(problem) = problem {
            self.record(AuditEvent::DisplayProblem { problem });
        }
        self.screen = Some(description);
    }

    /// Saves a changed config (atomically, with its last good copy); on
    /// failure nothing changed.
    /// Saves a changed setting. Refused while the settings are damaged and
    /// the last good copy is held: a save would write that copy back over the
    /// damaged file as a side effect, and only the director's confirmed
    /// restore (one record that says so) may repair it.
    pub(in crate::desks) fn save_config(&mut self, change: impl FnOnce(&mut Config)) -> Result<(), String> {
        if self.config_source == ConfigSource::LastGood {
            return Err("the settings are damaged: restore the last good settings first".into());
        }
        self.write_config(change)
    }

    /// Writes the config in force, changed by `change`, over the file.
    pub(in crate::desks) fn write_config(&mut self, change: impl FnOnce(&mut Config)) -> Result<(), String> {
        if self.config_source == ConfigSource::Unusable {
            return Err("no config is in force (fix the file first)".into());
        }
        let mut new_config = self.config.clone();
        change(&mut new_config);
        new_config
            .save(&self.config_path)
            .map_err(|e| format!("cannot save the config {}: {e}", self.config_path.display()))?;
        self.config = new_config;
        self.config_problem = None;
        self.config_source = ConfigSource::File;
        Ok(())
    }

    pub(in crate::desks) fn record(&mut self, event: AuditEvent) {
        if let Some(audit) = &mut self.audit {
            audit.record_event(event);
        }
    }

    /// Records `event`; whether it is in the file now (no audit log: true,
    /// there is nothing to wait for).
    pub(in crate::desks) fn record_written(&mut self, event: AuditEvent) -> bool {
        self.audit.as_mut().is_none_or(|audit| audit.record_event(event))
    }

    /// Why the audit log cannot be written now, if it cannot.
    pub(in crate::desks) fn audit_problem(&self) -> Option<String> {
        self.audit.as_ref().and_then(|audit| audit.problem())
    }

    /// Starts a director's USB request on the USB desk.
    pub(in crate::desks) fn start_usb_request(&mut self, request: UsbRequest) -> Result<(), UsbError> {
        match request {
            UsbRequest::OpenForImport { device } => {
                let stick = self.stick(&device);
                let described = stick.describe();
                self.usb.open_for_import(stick)?;
                self.record(AuditEvent::UsbStick { action: "opened for import (read-only)".into(), stick: described });
                Ok(())
            }
            UsbRequest::Rename { file, name } => self.usb.rename(file, name),
            UsbRequest::Install { file } => self.usb.install(file),
            UsbRequest::Eject => self.usb.eject(),
            UsbRequest::Export { device } => {
                let stick = self.stick(&device);
                let name = wordjudge_core::inspect::export::folder_name(
                    &self.config.station_name,
                    &jiff::Timestamp::now().to_zoned(self.zone()).strftime("%Y-%m-%d").to_string(),
                );
                // No log in force (a broken config): nothing to export. Then
                // nothing is recorded unless the export can really start.
                let Some(audit) = self.audit.as_mut() else { return Err(UsbError::Unavailable) };
                if !self.usb.can_export() {
                    return Err(UsbError::Busy);
                }
                // Recorded and signed first, so the export holds its own
                // record and a checkpoint that covers it.
                let destination = format!("{name} on {}", stick.describe());
                let signed = audit
                    .record_export("usb folder", &destination)
                    .and_then(|note| Some((note, audit.verifier_key()?)));
                self.usb.export(stick, self.config.audit_dir.clone(), name, signed)
            }
            UsbRequest::JoinFleet { device } => {
                let stick = self.stick(&device);
                let described = stick.describe();
                self.usb.join_fleet(
                    stick,
                    self.fleet_dir(),
                    self.fleet_station_name(),
                    self.config.audit_dir.clone(),
                )?;
                self.record(AuditEvent::UsbStick {
                    action: "opened to join the event's fleet".into(),
                    stick: described,
                });
                Ok(())
            }
        }
    }
}
