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
//! This file owns the station's state, its start and the [`Station`]
//! trait's face; the mechanisms are one a file: `judging` (a play judged
//! and recorded), `lexicon` (opening, verifying and switching lexicons and
//! profiles), `pin` (the director's PIN and its lockout), `director`
//! (clock, settings and USB sticks as audit records), `fleet` (the event's
//! fleet joined and left), `update` (an update of the station from a
//! stick, and the boot check's verdict after it).

mod director;
mod fleet;
mod judging;
mod lexicon;
mod pin;
mod update;

use super::pin_check::PinChecker;
use super::update::UpdateDesk;
use super::usb::UsbDesk;
use wordjudge_core::audit::{AuditEvent, LexiconIdentity};
use wordjudge_core::recorder::AuditLog;
use wordjudge_core::config::{Config, ConfigProblem, ConfigSource, Loaded};
use crate::kiosk::station::{
    AdjudicateError, Counts, DirectorEvent, Judged, LexiconChoice, LexiconView, PinCheck, PinGuard, ProfileChoice,
    Rotation, SettingsError, Station, StickChoice, SwitchError, SystemAction, SystemError, UpdateOffer, UpdateReport,
    UpdateRequest, UsbError, UsbRequest, UsbUpdate, Warning,
};
use wordjudge_core::update::{BootCheck, Updates};
use wordjudge_core::usb::Sticks;
use wordjudge_core::profile::Profile;
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::{Lexicon, LexiconError};
use wordjudge_core::panel::Trigger;
use std::path::PathBuf;
use std::sync::Arc;

/// The active lexicon, or why there is none.
enum Active {
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
    config: Config,
    config_path: PathBuf,
    config_source: ConfigSource,
    config_problem: Option<ConfigProblem>,
    catalog: Catalog,
    active: Active,
    audit: Option<AuditLog>,
    gpio_problem: Option<String>,
    gpio_description: String,
    /// Why wrong PINs and lockouts cannot be kept across a restart (the
    /// guard is damaged or cannot be written), as last found.
    guard_problem: Option<String>,
    pin_checker: PinChecker,
    appliance: bool,
    judging_fault: Option<String>,
    /// The event profile in force, if the config names one.
    profile: Option<&'static Profile>,
    /// The profile's second-opinion lexicon: opened and verified like the
    /// active one, or why it cannot judge.
    second: Option<(String, Result<Box<Lexicon>, String>)>,
    /// The active lexicon's file changed on disk after it was verified (the
    /// verified copy in memory still judges), as last noticed.
    file_changed: Option<String>,
    /// Work with USB sticks.
    usb: UsbDesk,
    /// Updates from a stick.
    update: UpdateDesk,
    /// Where the boot check writes its verdict.
    update_state: Option<PathBuf>,
    /// The boot check's last verdict, for the director menu.
    last_update: Option<BootCheck>,
    /// Records the boot check's verdict once (a verdict recorded while the
    /// log could not be written is held, and its file renamed once the log
    /// writes again).
    boot_check: crate::app::boot_check::BootCheckRecorder,
    /// A director's USB request that came while the menu's background look
    /// for update bundles held the stick: started as soon as that look ends.
    deferred_usb: Option<UsbRequest>,
    /// The rotation the screen started with (the backend turns the picture
    /// once, at start): a rotation saved since waits for the next start.
    rotation_at_start: u16,
    /// Which screen shows the kiosk and how it is turned, for the director
    /// menu (the runner says, [`LiveStation::screen_in_use`]).
    screen: Option<String>,
    keyboards: Arc<dyn wordjudge_core::keyboard::Keyboards>,
    /// No keyboard was plugged in at the last look (recorded once).
    keyboard_missing: bool,
    /// When the keyboards were last counted.
    keyboards_counted: Option<std::time::Instant>,
}

/// Where the chosen lexicons' digests are kept: beside the config.
fn digests_path(config: &std::path::Path) -> PathBuf {
    wordjudge_core::config::beside(config, "lexicon-digests")
}


/// Opens `id`: its status is computed from the bytes that will judge.
fn open_active(catalog: &Catalog, id: &str) -> Result<Lexicon, LexiconError> {
    catalog.open(id)
}

/// How often the live station counts the keyboards plugged in.
const KEYBOARD_LOOK: std::time::Duration = std::time::Duration::from_secs(1);

impl LiveStation {
    /// Counts the keyboards: none is said on screen and recorded once
    /// (`keyboard_missing`), and one plugged in again is recorded
    /// (`keyboard_found`). A station that cannot tell says nothing.
    fn count_keyboards(&mut self) {
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
        };
        station.record(AuditEvent::Startup { version: env!("CARGO_PKG_VERSION").to_string() });
        station.count_keyboards();
        // The first record made the audit key on a new station: from now on
        // the guard names it, so a guard copied from another station is
        // known for what it is (`wordjudge_core::guard`).
        // A damaged guard beside a whole config is written again from it,
        // and that is recorded: damage is never repaired without a trace.
        if station.config_source == ConfigSource::File {
            let guard_path = wordjudge_core::guard::path_for(&station.config_path);
            let damage = wordjudge_core::guard::Guard::read(&guard_path).damaged;
            let (pin, dir) = (station.config.director_pin_hash.as_deref(), &station.config.audit_dir);
            match wordjudge_core::guard::remember_identity(&station.config_path, pin, dir) {
                Err(e) => tracing::warn!("cannot write the PIN guard: {e}"),
                Ok(()) => {
                    if let Some(damage) = damage.filter(|_| wordjudge_core::guard::Guard::read(&guard_path).damaged.is_none()) {
                        let problem = format!("the PIN guard was damaged ({damage}); written again from the config");
                        tracing::warn!("{problem}");
                        station.record(AuditEvent::ConfigProblem { problem });
                    }
                }
            }
        }
        if let Some(problem) = &station.config_problem {
            tracing::warn!("{problem}");
            let problem = problem.to_string();
            station.record(AuditEvent::ConfigProblem { problem });
        }
        if let Some(problem) = station.gpio_problem.clone() {
            tracing::warn!("{problem}");
            station.record(AuditEvent::GpioProblem { problem });
        }
        for problem in station.catalog.problems() {
            tracing::warn!("{problem}");
        }
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
    fn save_config(&mut self, change: impl FnOnce(&mut Config)) -> Result<(), String> {
        if self.config_source == ConfigSource::LastGood {
            return Err("the settings are damaged: restore the last good settings first".into());
        }
        self.write_config(change)
    }

    /// Writes the config in force, changed by `change`, over the file.
    fn write_config(&mut self, change: impl FnOnce(&mut Config)) -> Result<(), String> {
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

    fn record(&mut self, event: AuditEvent) {
        if let Some(audit) = &mut self.audit {
            audit.record_event(event);
        }
    }

    /// Records `event`; whether it is in the file now (no audit log: true,
    /// there is nothing to wait for).
    fn record_written(&mut self, event: AuditEvent) -> bool {
        self.audit.as_mut().is_none_or(|audit| audit.record_event(event))
    }

    /// Why the audit log cannot be written now, if it cannot.
    fn audit_problem(&self) -> Option<String> {
        self.audit.as_ref().and_then(|audit| audit.problem())
    }

    /// Starts a director's USB request on the USB desk.
    fn start_usb_request(&mut self, request: UsbRequest) -> Result<(), UsbError> {
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
                    &jiff::Zoned::now().strftime("%Y-%m-%d").to_string(),
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
                self.usb.join_fleet(stick, self.fleet_dir(), self.fleet_station_name(), self.config.audit_dir.clone())?;
                self.record(AuditEvent::UsbStick { action: "opened to join the event's fleet".into(), stick: described });
                Ok(())
            }
        }
    }
}

impl Station for LiveStation {
    fn lexicon(&self) -> LexiconView {
        match &self.active {
            // Held for the director: the lexicon is the agreed one, but
            // players wait until the director has looked at the damage.
            Active::Open(_, ident) if self.settings_held() => LexiconView {
                id: ident.id.clone(),
                status: "waiting for the director".into(),
                usable: false,
                demo: false,
                fingerprint: String::new(),
            },
            Active::Open(lexicon, ident) => {
                LexiconView {
                    id: ident.id.clone(),
                    status: ident.status.clone(),
                    usable: true,
                    demo: lexicon.is_demo(),
                    fingerprint: lexicon.fingerprint().short(),
                }
            }
            Active::Failed { id, status, .. } => {
                LexiconView { id: id.clone(), status: status.clone(), usable: false, demo: false, fingerprint: String::new() }
            }
        }
    }

    fn adjudicate(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, AdjudicateError> {
        if self.settings_held() {
            return Err(AdjudicateError::NoUsableLexicon);
        }
        self.judge_play(words, trigger)
    }

    fn check_pin(&mut self, pin: &str) -> PinCheck {
        self.verify_pin(pin)
    }

    fn director_event(&mut self, event: DirectorEvent) {
        self.record(match event {
            DirectorEvent::PinAccepted => AuditEvent::PinAccepted,
            DirectorEvent::PinRefused { failures } => AuditEvent::PinRefused { failures },
            DirectorEvent::LockedOut { seconds } => AuditEvent::LockedOut { seconds },
            DirectorEvent::Left => AuditEvent::DirectorLeft,
        });
    }

    fn pin_guard(&self) -> PinGuard {
        self.load_pin_guard()
    }

    fn save_pin_guard(&mut self, guard: PinGuard) {
        self.store_pin_guard(guard)
    }

    fn lexicon_choices(&mut self) -> Vec<LexiconChoice> {
        self.list_lexicons()
    }

    fn switch_lexicon(&mut self, id: &str) -> Result<(), SwitchError> {
        self.switch_lexicon_recorded(id)
    }

    fn profile_choices(&mut self, lexicons: &[LexiconChoice]) -> Vec<ProfileChoice> {
        ProfileChoice::list(wordjudge_core::profile::BUILT_IN, self.profile, &self.lexicon().id, lexicons)
    }

    fn switch_profile(&mut self, id: &str) -> Result<(), SwitchError> {
        self.switch_profile_recorded(id)
    }

    fn change_pin(&mut self, old: &str, new: &str) -> Result<(), SettingsError> {
        let result = (|| {
            if self.check_pin(old) != PinCheck::Accepted {
                return Err(SettingsError::WrongPin);
            }
            let hash = wordjudge_core::pin::hash_pin(new).map_err(|e| SettingsError::Invalid(e.to_string()))?;
            self.save_config(|c| c.director_pin_hash = Some(hash)).map_err(SettingsError::Failed)
        })();
        self.record_setting("pin", None, &result);
        result
    }

    fn first_pin_needed(&self) -> bool {
        // A station whose config is damaged (last good copy in force, or
        // none usable) is never fresh: its PIN is not to be replaced here.
        self.config.director_pin_hash.is_none()
            && matches!(self.config_source, ConfigSource::File | ConfigSource::Defaults)
    }

    fn set_first_pin(&mut self, new: &str) -> Result<(), SettingsError> {
        let result = (|| {
            if !self.first_pin_needed() {
                return Err(SettingsError::Invalid("this station already has a director PIN".into()));
            }
            let hash = wordjudge_core::pin::hash_pin(new).map_err(|e| SettingsError::Invalid(e.to_string()))?;
            self.save_config(|c| c.director_pin_hash = Some(hash)).map_err(SettingsError::Failed)
        })();
        self.record_setting("pin", Some("first PIN, set at the station"), &result);
        result
    }

    fn settings_held(&self) -> bool {
        self.config_source == ConfigSource::LastGood
    }

    fn restore_settings(&mut self) -> Result<(), SettingsError> {
        let result = if self.settings_held() {
            // The config in force is the last good copy: saving it writes it
            // back over the damaged file (and refreshes the guard).
            self.write_config(|_| {}).map_err(SettingsError::Failed)
        } else {
            Err(SettingsError::Invalid("the settings are not damaged: nothing to restore".into()))
        };
        self.record_setting("config", Some("restored from the last good copy"), &result);
        result
    }

    fn set_station_name(&mut self, name: &str) -> Result<(), SettingsError> {
        self.rename_station(name)
    }

    fn set_clock(&mut self, local: &str) -> Result<(), SettingsError> {
        let result = self.try_set_clock(local);
        self.record_setting("clock", Some(local), &result);
        result
    }
    fn rotation(&self) -> Option<Rotation> {
        Some(Rotation { saved: self.config.rotation, in_force: self.rotation_at_start })
    }

    fn set_rotation(&mut self, degrees: u16) -> Result<(), SettingsError> {
        let result = if wordjudge_core::config::ROTATIONS.contains(&degrees) {
            self.save_config(|c| c.rotation = degrees).map_err(SettingsError::Failed)
        } else {
            Err(SettingsError::Invalid(format!("{degrees}° is not one of 0, 90, 180, 270")))
        };
        self.record_setting("rotation", Some(&degrees.to_string()), &result);
        result
    }

    fn counts(&self) -> Counts {
        match &self.audit {
            Some(audit) => Counts { since_boot: audit.adjudications_since_start(), today: audit.adjudications_today() },
            None => Counts::default(),
        }
    }

    fn warnings(&self) -> Vec<Warning> {
        let mut warnings: Vec<Warning> = Vec::new();
        warnings.extend(self.config_problem.clone().map(Warning::Config));
        match &self.audit {
            Some(audit) => {
                warnings.extend(audit.problem().map(|p| Warning::AuditLog(p.to_string())));
                warnings.extend(audit.signing_problem().map(Warning::SigningKey));
            }
            None => warnings.push(Warning::AuditLog("not opened: the config is broken".into())),
        }
        warnings.extend(self.gpio_problem.clone().map(Warning::Gpio));
        warnings.extend(self.guard_problem.clone().map(Warning::PinGuard));
        warnings.extend(self.catalog.problems().iter().cloned().map(Warning::LexiconCatalog));
        if let (Some(change), Active::Open(_, ident)) = (&self.file_changed, &self.active) {
            warnings.push(Warning::LexiconFileChanged { id: ident.id.clone(), detail: change.clone() });
        }
        if self.settings_held() {
            warnings.push(Warning::SettingsHeld);
        }
        if self.keyboard_missing {
            warnings.push(Warning::NoKeyboard);
        }
        if let Some(fault) = &self.judging_fault {
            warnings.push(Warning::JudgingFault(fault.clone()));
        } else if let Active::Failed { problem, .. } = &self.active {
            warnings.push(Warning::ActiveLexicon(problem.clone()));
        }
        warnings
    }

    fn needs_service(&self) -> bool {
        self.audit.as_ref().is_none_or(|a| a.problem().is_some())
    }

    fn station_name(&self) -> String {
        self.config.station_name.clone()
    }

    fn quit_allowed(&self) -> bool {
        self.config.allow_quit
    }

    fn appliance(&self) -> bool {
        self.appliance
    }

    fn switch_refused(&mut self, id: &str, reason: &str) {
        self.record_switch_refused(id, reason);
    }

    fn profile_refused(&mut self, id: &str, reason: &str) {
        self.record(AuditEvent::SettingRefused { setting: "profile".into(), reason: format!("{id}: {reason}") });
    }

    fn last_challenge(&self) -> Option<(u64, Option<wordjudge_core::audit::SlipCode>)> {
        let (number, code) = self.audit.as_ref()?.last_code()?;
        Some((number, Some(code)))
    }

    fn facts(&self) -> Vec<(String, String)> {
        let profile = match self.profile {
            Some(p) => {
                let lexicon = self.lexicon().id;
                match p.second_opinion(&lexicon) {
                    _ if !p.applies_to(&lexicon) => format!("{} — not applied: {lexicon} is not {}", p.name, p.family.one()),
                    Some(second) => format!("{} — {lexicon}, second opinion {second}", p.name),
                    None => format!("{} — {lexicon}", p.name),
                }
            }
            None => "none (no challenge rule shown under verdicts)".into(),
        };
        let mut facts = vec![("Profile".into(), profile)];
        if let Some(audit) = &self.audit {
            // Noted by the director at the end of a round, the last code
            // makes any later rewrite of the log up to it detectable.
            let last = match audit.last_code() {
                Some((number, code)) => crate::kiosk::view::slip_text(number, Some(code.as_str())),
                None => "none yet".into(),
            };
            facts.push(("Last challenge".into(), last));
            let key = audit.key_fingerprint().map_or_else(
                || audit.signing_problem().unwrap_or_else(|| "no signing key".into()),
                |k| k.short(),
            );
            facts.push(("Audit signing code".into(), key));
        }
        facts.push(("Judge button and lamps".into(), gpio_for_director(&self.gpio_description)));
        facts.push(("Fleet".into(), self.fleet_fact()));
        facts.extend(self.screen.clone().map(|screen| ("Screen".into(), screen)));
        facts
    }

    fn fleet_event(&self) -> Option<String> {
        wordjudge_core::fleet::join::joined(&self.fleet_dir()).ok().flatten().map(|j| j.event)
    }

    fn leave_fleet(&mut self) -> Result<String, SettingsError> {
        self.leave_fleet_now()
    }

    fn sticks(&mut self) -> Vec<StickChoice> {
        self.usb.list().into_iter().map(|s| StickChoice { name: s.describe(), device: s.device }).collect()
    }

    fn import_names(&self) -> Vec<String> {
        wordjudge_core::lexicon::import::names().into_iter().map(str::to_string).collect()
    }

    fn usb_request(&mut self, request: UsbRequest) -> Result<(), UsbError> {
        if self.usb.busy() {
            return Err(UsbError::Busy);
        }
        if self.update.busy() {
            // Plugging a stick in with the menu open starts a look for update
            // bundles on it (a few seconds): a director who chooses a USB item
            // then waits for it (the flow shows the work running) rather than
            // being refused. Anything else holding the stick refuses.
            if self.update.scanning() && self.deferred_usb.is_none() {
                self.deferred_usb = Some(request);
                return Ok(());
            }
            return Err(UsbError::Busy);
        }
        self.start_usb_request(request)
    }

    fn usb_cancel(&mut self) {
        self.deferred_usb = None;
        if let Some(work) = self.usb.abandon() {
            tracing::warn!(?work, "stopped waiting for stick work; what it still does is recorded when it ends");
        }
    }

    fn usb_update(&mut self) -> Option<UsbUpdate> {
        for finished in self.usb.poll_abandoned() {
            self.record_usb(finished);
        }
        if !self.update.busy() {
            if let Some(request) = self.deferred_usb.take() {
                let work = request.work();
                if let Err(e) = self.start_usb_request(request) {
                    return Some(UsbUpdate::Failed { work, problem: e.to_string() });
                }
            }
        }
        let (update, finished) = self.usb.poll()?;
        self.record_usb(finished);
        Some(update)
    }

    fn update_offer(&mut self) -> Option<UpdateOffer> {
        let plugged = self.usb.list();
        let may_mount = self.usb.idle();
        self.update.offer(&plugged, may_mount)
    }

    fn update_request(&mut self, request: UpdateRequest) -> Result<(), UsbError> {
        self.request_update(request)
    }

    fn update_report(&mut self) -> Option<UpdateReport> {
        self.next_update_report()
    }

    fn last_update(&self) -> Option<BootCheck> {
        self.last_update.clone()
    }

    fn poll(&mut self) -> bool {
        self.record_boot_check();
        if self.keyboards_counted.is_none_or(|at| at.elapsed() >= KEYBOARD_LOOK) {
            self.count_keyboards();
        }
        // A file changed under the active lexicon never changes a verdict
        // (the verified bytes are a private copy); the director is told once
        // per change, and it is recorded.
        let Active::Open(lexicon, ident) = &self.active else { return false };
        let change = lexicon.source_changed().map(|c| c.to_string());
        if change != self.file_changed {
            if let Some(text) = &change {
                tracing::warn!("lexicon {}: {text}", ident.id);
                let event = AuditEvent::LexiconFileChanged { lexicon: ident.id.clone(), change: text.clone() };
                self.record(event);
            }
            self.file_changed = change;
        }
        false
    }

    fn shut_down(&mut self) {
        self.record(AuditEvent::Shutdown);
        // Give the journald copies a moment to leave before the process ends.
        if let Some(audit) = &self.audit {
            audit.flush_journal(std::time::Duration::from_millis(500));
        }
    }

    fn system(&mut self, action: SystemAction) -> Result<(), SystemError> {
        let verb = match action {
            SystemAction::Quit if self.config.allow_quit => return Ok(()),
            SystemAction::Quit => return Err(SystemError::QuitNotAllowed),
            // Only the appliance's service may act on the machine: a desktop
            // kiosk must never reboot or power off the computer it runs on.
            // First: a desktop says it too, and so it is tested without a reboot.
            SystemAction::Reboot | SystemAction::PowerOff if self.audit_problem().is_some() => {
                let problem = self.audit_problem().unwrap_or_default();
                tracing::warn!("{action:?} refused: the audit log cannot be written: {problem}");
                return Err(SystemError::AuditLogFailing(problem));
            }
            SystemAction::Reboot | SystemAction::PowerOff if !self.appliance => return Err(SystemError::NotAppliance),
            SystemAction::Reboot => "reboot",
            SystemAction::PowerOff => "poweroff",
        };
        self.shut_down();
        match std::process::Command::new("systemctl").arg(verb).status() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(SystemError::Failed(format!("systemctl {verb} failed ({status})"))),
            Err(e) => Err(SystemError::Failed(format!("cannot run systemctl {verb}: {e}"))),
        }
    }
}

/// The GPIO back-end's description in a director's words: what is wired,
/// without the driver's name or the debounce window (the command line's
/// `wordjudge gpio` keeps those).
fn gpio_for_director(description: &str) -> String {
    let d = description.split("; debounce").next().unwrap_or(description);
    let d = d.split(" (debounce").next().unwrap_or(d);
    let d = d.strip_prefix("rppal: ").unwrap_or(d);
    match d.find("): ") {
        Some(at) if d.starts_with("GPIO character device") => d[at + 3..].to_string(),
        _ => d.to_string(),
    }
}

#[cfg(test)]
mod director_words_tests {
    #[test]
    fn gpio_descriptions_lose_the_driver_and_the_debounce() {
        use super::gpio_for_director as g;
        assert_eq!(g("simulated button and lamps (debounce 30 ms)"), "simulated button and lamps");
        assert_eq!(g("rppal: judge button BCM 17; debounce 30 ms"), "judge button BCM 17");
        assert_eq!(g("GPIO character device /dev/gpiochip0 (pinctrl-bcm2711): judge button 17; debounce 30 ms"), "judge button 17");
        assert_eq!(g("none configured"), "none configured");
    }
}
