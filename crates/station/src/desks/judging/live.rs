//! Judging a play on the live station: the active, verified lexicon under
//! `catch_unwind`, the profile's second opinion, and the audit record that
//! is written before the verdict is shown. A fault here is an audit record
//! and an out-of-service screen, never a dead kiosk.

use crate::desks::{AdjudicateError, Counts, DirectorSettings, Judged, LexiconView, SecondOpinion, Warning};
use std::panic::{catch_unwind, AssertUnwindSafe};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::judge::{judge, Challenge};
use wordjudge_core::lexicon::Lexicon;
use wordjudge_core::panel::Trigger;
use wordjudge_core::profile::Profile;
use wordjudge_core::recorder::AdjudicationInput;

use crate::desks::live::{open_active, Active, LiveStation, KEYBOARD_LOOK};
use crate::desks::Judging;

impl LiveStation {
    /// Opens a profile's second-opinion lexicon while it judges with
    /// `edition`, verified like any other.
    pub(in crate::desks) fn open_second(
        &self,
        profile: Option<&'static Profile>,
        edition: &str,
    ) -> Option<(String, Result<Box<Lexicon>, String>)> {
        let id = profile?.second_opinion(edition)?;
        let opened = open_active(&self.catalog, id)
            .map_err(|e| e.to_string())
            .and_then(|l| l.check_usable().map(|()| Box::new(l)).map_err(|e| e.to_string()));
        Some((id.to_string(), opened))
    }

    /// Whether the station is not set up for the event: it would judge with
    /// the built-in DEMO list, and no director chose DEMO to practise with.
    pub(in crate::desks) fn not_set_up(&self) -> bool {
        matches!(&self.active, Active::Open(lexicon, _) if lexicon.is_demo()) && !self.config.practice_with_demo
    }

    /// Takes the station out of service after a fault in the judging path.
    pub(in crate::desks) fn fault(&mut self, why: String) -> AdjudicateError {
        tracing::error!("judging fault: {why}");
        let id = self.lexicon().id;
        self.record(AuditEvent::JudgingFault { lexicon: id.clone(), problem: why.clone() });
        self.active = Active::Failed { id, status: "Out of service".into(), problem: format!("judging fault: {why}") };
        self.judging_fault = Some(why.clone());
        AdjudicateError::Fault(why)
    }

    /// Judges one play with the active lexicon (and the profile's second
    /// opinion), records it, and words the result for the screen.
    pub(in crate::desks) fn judge_play(
        &mut self,
        words: &[String],
        trigger: Trigger,
    ) -> Result<Judged, AdjudicateError> {
        let Active::Open(lexicon, ident) = &self.active else {
            return Err(AdjudicateError::NoUsableLexicon);
        };
        let challenge = Challenge::new(words).map_err(|e| AdjudicateError::BadChallenge(e.to_string()))?;
        let judged = catch_unwind(AssertUnwindSafe(|| judge(lexicon, &challenge)));
        let adjudication = match judged {
            Ok(Ok(adjudication)) => adjudication,
            Ok(Err(e)) => return Err(AdjudicateError::BadChallenge(e.to_string())),
            Err(payload) => return Err(self.fault(panic_text(payload.as_ref()))),
        };
        // The second opinion is one verdict for the whole play, or none when
        // that lexicon cannot judge; a fault there never costs the main verdict.
        let second_opinion = self.second.as_ref().map(|(id, opened)| SecondOpinion {
            lexicon: id.clone(),
            verdict: opened.as_ref().ok().and_then(|second| {
                catch_unwind(AssertUnwindSafe(|| judge(second, &challenge))).ok()?.ok().map(|a| a.verdict())
            }),
        });
        let rule = wordjudge_core::profile::rule_for(self.profile, &ident.id);
        let Some(audit) = &mut self.audit else {
            return Err(AdjudicateError::NoUsableLexicon);
        };
        // Written and fdatasynced before the verdict is shown; a record that
        // cannot be written means no verdict: out of service, and the
        // director is told why (the log's problem is a warning).
        let profile = self.profile.map(|p| p.id);
        let recorded = audit
            .record_adjudication(&AdjudicationInput { lexicon: ident, adjudication: &adjudication, trigger, profile })
            .map_err(|e| {
                tracing::error!("{e}: the station is out of service until it can be written");
                AdjudicateError::NotRecorded(e.problem)
            })?;
        // The record's own stamp, in local time: the screen never reads a
        // second clock.
        let time = recorded.time.to_zoned(self.zone()).strftime("%H:%M:%S").to_string();
        Ok(Judged {
            verdict: adjudication.verdict(),
            challenge_number: recorded.challenge,
            slip_code: Some(recorded.code),
            time,
            rule,
            second_opinion,
        })
    }

    /// Whether the audit log can take a record now: a failing log is tried
    /// again at most every [`AUDIT_RETRY`], so a station out of service for
    /// its log comes back by itself once the log can be written.
    pub(in crate::desks) fn audit_healthy(&mut self) -> bool {
        let Some(audit) = &mut self.audit else { return false };
        if audit.problem().is_none() {
            return true;
        }
        if self.audit_retried.is_some_and(|at| at.elapsed() < AUDIT_RETRY) {
            return false;
        }
        self.audit_retried = Some(std::time::Instant::now());
        let healthy = audit.retry();
        if healthy {
            tracing::info!("the audit log can be written again: judging again");
        }
        healthy
    }
}

/// How often a failing audit log is tried again while the station waits.
pub const AUDIT_RETRY: std::time::Duration = std::time::Duration::from_secs(5);

/// The text of a caught panic.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

impl Judging for LiveStation {
    fn event_rule(&self) -> Option<wordjudge_core::profile::ChallengeRule> {
        match &self.active {
            Active::Open(_, ident) => wordjudge_core::profile::rule_for(self.profile, &ident.id),
            _ => None,
        }
    }

    fn lexicon(&self) -> LexiconView {
        match &self.active {
            // Held for the director: the lexicon is the agreed one, but
            // players wait until the director has looked at the damage.
            // Not set up for the event (DEMO that no director chose): players
            // call the director; the bar still says DEMO.
            Active::Open(lexicon, ident) if self.not_set_up() => LexiconView {
                id: ident.id.clone(),
                status: ident.status.clone(),
                usable: false,
                demo: lexicon.is_demo(),
                fingerprint: lexicon.fingerprint().short(),
            },
            Active::Open(_, ident) if self.settings_held() => LexiconView {
                id: ident.id.clone(),
                status: "waiting for the director".into(),
                usable: false,
                demo: false,
                fingerprint: String::new(),
            },
            // No verdict without its record: while the log cannot be
            // written, players wait (the director's page says why).
            Active::Open(lexicon, ident) => LexiconView {
                id: ident.id.clone(),
                status: ident.status.clone(),
                usable: self.audit.as_ref().is_some_and(|a| a.problem().is_none()),
                demo: lexicon.is_demo(),
                fingerprint: lexicon.fingerprint().short(),
            },
            Active::Failed { id, status, .. } => LexiconView {
                id: id.clone(),
                status: status.clone(),
                usable: false,
                demo: false,
                fingerprint: String::new(),
            },
        }
    }

    fn adjudicate(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, AdjudicateError> {
        if self.settings_held() || self.not_set_up() {
            return Err(AdjudicateError::NoUsableLexicon);
        }
        self.judge_play(words, trigger)
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
        if self.not_set_up() {
            warnings.push(Warning::NotSetUp);
        }
        if self.settings_gone() {
            warnings.push(Warning::SettingsGone);
        }
        if self.keyboard_missing {
            warnings.push(Warning::NoKeyboard);
        }
        if self.wrong_pins_shown.refused > 0 {
            let w = &self.wrong_pins_shown;
            warnings.push(Warning::WrongPins { refused: w.refused, lockouts: w.lockouts, since: w.since.clone() });
        }
        if let Some(fault) = &self.judging_fault {
            warnings.push(Warning::JudgingFault(fault.clone()));
        } else if let (Active::Failed { problem, .. }, false) = (&self.active, self.settings_gone()) {
            // Gone settings open no lexicon: SettingsGone says all of it.
            warnings.push(Warning::ActiveLexicon(problem.clone()));
        }
        warnings
    }

    fn needs_service(&self) -> bool {
        self.audit.as_ref().is_none_or(|a| a.problem().is_some()) || self.not_set_up()
    }

    fn station_name(&self) -> String {
        self.config.station_name.clone()
    }

    fn last_challenge(&self) -> Option<(u64, Option<wordjudge_core::audit::SlipCode>)> {
        let (number, code) = self.audit.as_ref()?.last_code()?;
        Some((number, Some(code)))
    }

    fn poll(&mut self) -> bool {
        self.record_boot_check();
        self.stop_fleet_units_once_sent();
        // The log's health decides whether players may judge: a change
        // either way is a change of what the screens show.
        let audit_ok = self.audit_healthy();
        let changed = std::mem::replace(&mut self.audit_ok, audit_ok) != audit_ok;
        if self.keyboards_counted.is_none_or(|at| at.elapsed() >= KEYBOARD_LOOK) {
            self.count_keyboards();
        }
        // A file changed under the active lexicon never changes a verdict
        // (the verified bytes are a private copy); the director is told once
        // per change, and it is recorded.
        let Active::Open(lexicon, ident) = &self.active else { return changed };
        let change = lexicon.source_changed().map(|c| c.to_string());
        if change != self.file_changed {
            if let Some(text) = &change {
                tracing::warn!("lexicon {}: {text}", ident.id);
                let event = AuditEvent::LexiconFileChanged { lexicon: ident.id.clone(), change: text.clone() };
                self.record(event);
            }
            self.file_changed = change;
        }
        changed
    }

    fn shut_down(&mut self) {
        self.record(AuditEvent::Shutdown);
        // Give the journald copies a moment to leave before the process ends.
        if let Some(audit) = &self.audit {
            audit.flush_journal(std::time::Duration::from_millis(500));
        }
    }
}
