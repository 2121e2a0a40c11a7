//! The fake station's judging: one verdict from the fake lexicon, the
//! counts and warnings a test set.

use crate::desks::fake::{FakeLexicon, FakeRecord, FakeStation};
use crate::desks::Judging;
use crate::desks::{AdjudicateError, Counts, Judged, LexiconView, SecondOpinion, Warning};
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;

/// One verdict for the whole play from a fake lexicon.
fn judge_with(lexicon: &FakeLexicon, words: &[String]) -> Verdict {
    if words.iter().all(|w| lexicon.words.contains(w)) {
        Verdict::Acceptable
    } else {
        Verdict::Unacceptable
    }
}

impl Judging for FakeStation {
    fn event_rule(&self) -> Option<wordjudge_core::profile::ChallengeRule> {
        wordjudge_core::profile::rule_for(self.profile, &self.active_lexicon()?.id)
    }

    fn lexicon(&self) -> LexiconView {
        match self.active_lexicon() {
            Some(l) => LexiconView {
                id: l.id.clone(),
                status: l.status.clone(),
                usable: l.usable && !self.held,
                demo: l.id == "DEMO",
                fingerprint: if l.usable { "0a1b2c3d".into() } else { String::new() },
            },
            None => LexiconView {
                id: "NONE".into(),
                status: "Missing".into(),
                usable: false,
                demo: false,
                fingerprint: String::new(),
            },
        }
    }

    fn adjudicate(&mut self, words: &[String], trigger: Trigger) -> Result<Judged, AdjudicateError> {
        if self.held {
            return Err(AdjudicateError::NoUsableLexicon);
        }
        if let Some(error) = self.fail_next.take() {
            return Err(error);
        }
        if std::mem::take(&mut self.panic_next) {
            // The fake must be unusable afterwards, like a real station whose
            // lexicon failed: the boundary asks it again for the lexicon.
            self.active = usize::MAX;
            panic!("fake station: a panic in the judging path");
        }
        let lexicon = self.active_lexicon().filter(|l| l.usable).ok_or(AdjudicateError::NoUsableLexicon)?;
        let verdict = judge_with(lexicon, words);
        let lexicon_id = lexicon.id.clone();
        let second_opinion = self.profile.and_then(|p| p.second_opinion(&lexicon_id)).map(|id| SecondOpinion {
            lexicon: id.to_string(),
            verdict: self.lexicons.iter().find(|l| l.id == id && l.usable).map(|l| judge_with(l, words)),
        });
        let number = self.next_number;
        self.next_number += 1;
        self.records.push(FakeRecord::Adjudicated { number, words: words.to_vec(), verdict, trigger });
        Ok(Judged {
            verdict,
            challenge_number: number,
            slip_code: wordjudge_core::audit::SlipCode::parse(&format!("FAKE{number:04}")).ok(),
            time: "12:00:00".into(),
            rule: wordjudge_core::profile::rule_for(self.profile, &lexicon_id),
            second_opinion,
        })
    }

    fn counts(&self) -> Counts {
        let n = self.adjudications().len() as u64;
        Counts { since_boot: n, today: n }
    }

    fn last_challenge(&self) -> Option<(u64, Option<wordjudge_core::audit::SlipCode>)> {
        self.records.iter().rev().find_map(|r| match r {
            FakeRecord::Adjudicated { number, .. } => {
                Some((*number, wordjudge_core::audit::SlipCode::parse(&format!("FAKE{number:04}")).ok()))
            }
            _ => None,
        })
    }

    fn warnings(&self) -> Vec<Warning> {
        let mut warnings = self.warnings.clone();
        if self.held {
            warnings.push(Warning::SettingsHeld);
        }
        if self.gone {
            warnings.push(Warning::SettingsGone);
        }
        warnings
    }

    fn needs_service(&self) -> bool {
        self.warnings.iter().any(|w| matches!(w, Warning::AuditLog(_)))
    }

    fn station_name(&self) -> String {
        self.station_name.clone()
    }

    fn shut_down(&mut self) {}
}
