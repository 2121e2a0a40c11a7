//! Judging a play on the live station: the active, verified lexicon under
//! `catch_unwind`, the profile's second opinion, and the audit record that
//! is written before the verdict is shown. A fault here is an audit record
//! and an out-of-service screen, never a dead kiosk.

use wordjudge_core::audit::AuditEvent;
use wordjudge_core::judge::{judge, Challenge};
use crate::kiosk::station::{AdjudicateError, Judged, SecondOpinion, Station};
use wordjudge_core::lexicon::Lexicon;
use wordjudge_core::panel::Trigger;
use wordjudge_core::profile::Profile;
use wordjudge_core::recorder::AdjudicationInput;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{open_active, Active, LiveStation};

impl LiveStation {
    /// Opens a profile's second-opinion lexicon while it judges with
    /// `edition`, verified like any other.
    pub(super) fn open_second(
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

    /// Takes the station out of service after a fault in the judging path.
    fn fault(&mut self, why: String) -> AdjudicateError {
        tracing::error!("judging fault: {why}");
        let id = self.lexicon().id;
        self.record(AuditEvent::JudgingFault { lexicon: id.clone(), problem: why.clone() });
        self.active = Active::Failed { id, status: "Out of service".into(), problem: format!("judging fault: {why}") };
        self.judging_fault = Some(why.clone());
        AdjudicateError::Fault(why)
    }

    /// Judges one play with the active lexicon (and the profile's second
    /// opinion), records it, and words the result for the screen.
    pub(super) fn judge_play(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, AdjudicateError> {
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
        // Written and fdatasynced before the verdict is shown; a failing log
        // does not stop the verdict (the game must go on).
        let profile = self.profile.map(|p| p.id);
        let recorded = audit.record_adjudication(&AdjudicationInput { lexicon: ident, adjudication: &adjudication, trigger, profile });
        // The record's own stamp, in local time: the screen never reads a
        // second clock.
        let time = recorded.time.to_zoned(jiff::tz::TimeZone::system()).strftime("%H:%M:%S").to_string();
        Ok(Judged {
            verdict: adjudication.verdict(),
            challenge_number: recorded.challenge,
            // No code while the log cannot be written: the verdict still
            // shows (the game goes on) and the number is durably marked as
            // shown without a record, which `audit verify` names.
            slip_code: recorded.code,
            time,
            rule,
            second_opinion,
        })
    }
}

/// The text of a caught panic.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}
