//! The real [`Station`]: the active lexicon from the catalog, the config file,
//! the audit log, and systemd for reboot and power-off.
//!
//! Nothing here panics on bad files: a lexicon that fails verification leaves
//! the station out of service (it never falls back to another lexicon, since
//! judging with a list the players did not agree to would be worse than not
//! judging), and a config that cannot be saved leaves everything unchanged.

use super::station::{
    Counts, DirectorEvent, Judged, LexiconChoice, LexiconView, PinCheck, Station, SystemAction,
};
use crate::audit::{AdjudicationInput, AuditEvent, AuditLog, LexiconIdentity};
use crate::panel::Trigger;
use crate::config::{Config, Loaded};
use crate::judge::{judge, Challenge};
use crate::lexicon::catalog::Catalog;
use crate::lexicon::{Lexicon, LexiconError, Verification};
use std::path::PathBuf;

/// The active lexicon, or why there is none.
enum Active {
    Open(Lexicon, LexiconIdentity),
    Failed { id: String, status: String, problem: String },
}

/// The station as the kiosk runs it.
pub struct LiveStation {
    config: Config,
    config_path: PathBuf,
    config_problem: Option<String>,
    catalog: Catalog,
    active: Active,
    audit: AuditLog,
    gpio_problem: Option<String>,
}

/// Opens `id` with full verification: every word is read back and the
/// fingerprint recomputed, so an edited manifest cannot pass.
fn open_active(catalog: &Catalog, id: &str) -> Result<Lexicon, LexiconError> {
    catalog.open(id, Verification::Full)
}

impl LiveStation {
    /// Starts the station: opens the active lexicon and records start-up.
    pub fn start(loaded: Loaded, lexicon_dir: PathBuf, mut audit: AuditLog, gpio_problem: Option<String>) -> LiveStation {
        let Loaded { config, path, problem } = loaded;
        audit.record_event(AuditEvent::Startup { version: env!("CARGO_PKG_VERSION").to_string() });
        if let Some(problem) = &problem {
            tracing::warn!("{problem}");
            audit.record_event(AuditEvent::ConfigProblem { problem: problem.clone() });
        }
        if let Some(problem) = &gpio_problem {
            tracing::warn!("{problem}");
            audit.record_event(AuditEvent::GpioProblem { problem: problem.clone() });
        }
        let catalog = Catalog::load(&lexicon_dir);
        for problem in catalog.problems() {
            tracing::warn!("{problem}");
        }
        let mut station = LiveStation {
            active: Active::Failed { id: config.active_lexicon.clone(), status: String::new(), problem: String::new() },
            config,
            config_path: path,
            config_problem: problem,
            catalog,
            audit,
            gpio_problem,
        };
        let id = station.config.active_lexicon.clone();
        station.active = station.activate(&id);
        station
    }

    fn activate(&mut self, id: &str) -> Active {
        let active = match open_active(&self.catalog, id) {
            Ok(lexicon) => {
                let ident = LexiconIdentity::of(&lexicon);
                match lexicon.check_usable() {
                    Ok(()) => Active::Open(lexicon, ident),
                    Err(e) => Active::Failed { id: id.to_string(), status: e.status.to_string(), problem: e.to_string() },
                }
            }
            Err(e) => Active::Failed { id: id.to_string(), status: e.status().to_string(), problem: e.to_string() },
        };
        let event = match &active {
            Active::Open(_, ident) => AuditEvent::LexiconOpened {
                id: ident.id.clone(),
                status: ident.status.clone(),
                fingerprint: Some(ident.fingerprint.clone()),
                problem: None,
            },
            Active::Failed { id, status, problem } => {
                tracing::error!("lexicon {id} cannot judge: {problem}");
                AuditEvent::LexiconOpened { id: id.clone(), status: status.clone(), fingerprint: None, problem: Some(problem.clone()) }
            }
        };
        self.audit.record_event(event);
        active
    }
}

impl Station for LiveStation {
    fn lexicon(&self) -> LexiconView {
        match &self.active {
            Active::Open(lexicon, ident) => LexiconView {
                id: ident.id.clone(),
                status: ident.status.clone(),
                usable: true,
                demo: lexicon.is_demo(),
                problem: String::new(),
            },
            Active::Failed { id, status, problem } => LexiconView {
                id: id.clone(),
                status: status.clone(),
                usable: false,
                demo: false,
                problem: problem.clone(),
            },
        }
    }

    fn adjudicate(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, String> {
        let Active::Open(lexicon, ident) = &self.active else {
            return Err("no usable lexicon".into());
        };
        let challenge = Challenge::new(words).map_err(|e| e.to_string())?;
        let adjudication = judge(lexicon, &challenge).map_err(|e| e.to_string())?;
        // Written and fdatasynced before the verdict is shown; a failing log
        // does not stop the verdict (the game must go on).
        let challenge_number =
            self.audit.record_adjudication(&AdjudicationInput { lexicon: ident, adjudication: &adjudication, trigger }).challenge;
        let time = jiff::Zoned::now().strftime("%H:%M:%S").to_string();
        Ok(Judged { verdict: adjudication.verdict(), challenge_number, time })
    }

    fn check_pin(&mut self, pin: &str) -> PinCheck {
        match &self.config.director_pin_hash {
            None => PinCheck::NotSet,
            Some(hash) if crate::pin::verify_pin(pin, hash) => PinCheck::Accepted,
            Some(_) => PinCheck::Refused,
        }
    }

    fn director_event(&mut self, event: DirectorEvent) {
        self.audit.record_event(match event {
            DirectorEvent::PinAccepted => AuditEvent::PinAccepted,
            DirectorEvent::PinRefused { failures } => AuditEvent::PinRefused { failures },
            DirectorEvent::LockedOut { seconds } => AuditEvent::LockedOut { seconds },
            DirectorEvent::Left => AuditEvent::DirectorLeft,
        });
    }

    fn lexicon_choices(&mut self) -> Vec<LexiconChoice> {
        // Re-read the directory: a director may have installed a lexicon since start.
        self.catalog = Catalog::load(self.catalog.dir());
        self.catalog
            .entries()
            .iter()
            .map(|entry| {
                let id = entry.definition.id.clone();
                match self.catalog.open(&id, Verification::Quick) {
                    Ok(l) => LexiconChoice {
                        id,
                        status: l.status().to_string(),
                        fingerprint: l.fingerprint().short(),
                        usable: l.status().can_judge(),
                    },
                    Err(e) => LexiconChoice { id, status: e.status().to_string(), fingerprint: String::new(), usable: false },
                }
            })
            .collect()
    }

    fn switch_lexicon(&mut self, id: &str) -> Result<(), String> {
        let lexicon = open_active(&self.catalog, id).map_err(|e| format!("{} ({e})", e.status()))?;
        lexicon.check_usable().map_err(|e| e.to_string())?;
        let mut new_config = self.config.clone();
        new_config.active_lexicon = id.to_string();
        new_config
            .save(&self.config_path)
            .map_err(|e| format!("cannot save the config {}: {e}; nothing changed", self.config_path.display()))?;
        let from = self.lexicon().id;
        self.config = new_config;
        self.config_problem = None;
        let ident = LexiconIdentity::of(&lexicon);
        self.audit.record_event(AuditEvent::LexiconSwitched { from, to: id.to_string() });
        self.audit.record_event(AuditEvent::LexiconOpened {
            id: ident.id.clone(),
            status: ident.status.clone(),
            fingerprint: Some(ident.fingerprint.clone()),
            problem: None,
        });
        self.active = Active::Open(lexicon, ident);
        Ok(())
    }

    fn counts(&self) -> Counts {
        Counts { since_boot: self.audit.adjudications_since_start(), today: self.audit.adjudications_today() }
    }

    fn warnings(&self) -> Vec<String> {
        let mut warnings: Vec<String> = Vec::new();
        warnings.extend(self.config_problem.clone());
        warnings.extend(self.audit.problem().map(|p| format!("Audit log: {p}")));
        warnings.extend(self.gpio_problem.clone().map(|p| format!("GPIO: {p}")));
        warnings.extend(self.catalog.problems().iter().cloned());
        if let Active::Failed { problem, .. } = &self.active {
            warnings.push(problem.clone());
        }
        warnings
    }

    fn needs_service(&self) -> bool {
        self.audit.problem().is_some()
    }

    fn station_name(&self) -> String {
        self.config.station_name.clone()
    }

    fn quit_allowed(&self) -> bool {
        self.config.allow_quit
    }

    fn shut_down(&mut self) {
        self.audit.record_event(AuditEvent::Shutdown);
        // Give the journald copies a moment to leave before the process ends.
        self.audit.flush_journal(std::time::Duration::from_millis(500));
    }

    fn system(&mut self, action: SystemAction) -> Result<(), String> {
        let verb = match action {
            SystemAction::Quit => {
                return if self.config.allow_quit {
                    Ok(())
                } else {
                    Err("quitting is not allowed by the config".into())
                }
            }
            SystemAction::Reboot => "reboot",
            SystemAction::PowerOff => "poweroff",
        };
        self.shut_down();
        match std::process::Command::new("systemctl").arg(verb).status() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(format!("systemctl {verb} failed ({status})")),
            Err(e) => Err(format!("cannot run systemctl {verb}: {e}")),
        }
    }
}
