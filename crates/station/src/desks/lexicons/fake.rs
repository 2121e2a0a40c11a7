//! The fake station's lexicon desk: the lexicon and profile choices a test
//! set, and switching between them, recorded for the test to read.

use crate::desks::fake::HELD;
use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::{Judging, LexiconChoices};
use crate::desks::{LexiconChoice, ProfileChoice, SwitchError};

impl LexiconChoices for FakeStation {
    fn lexicon_choices(&mut self) -> Vec<LexiconChoice> {
        self.lexicons
            .iter()
            .map(|l| LexiconChoice {
                id: l.id.clone(),
                status: l.status.clone(),
                fingerprint: if l.usable { "0123abcd".into() } else { String::new() },
                usable: l.usable,
            })
            .collect()
    }

    fn switch_lexicon(&mut self, id: &str) -> Result<(), SwitchError> {
        if self.held {
            return Err(SwitchError::ConfigNotWritable(HELD.into()));
        }
        match self.lexicons.iter().position(|l| l.id == id) {
            Some(index) if self.lexicons[index].usable => {
                self.active = index;
                self.records.push(FakeRecord::Switched { to: id.into() });
                if self.profile.is_some_and(|p| !p.applies_to(id)) {
                    self.profile = None;
                    self.records.push(FakeRecord::ProfileCleared);
                }
                Ok(())
            }
            found => {
                self.records.push(FakeRecord::SwitchRefused { to: id.into() });
                let status = found.map_or("Missing".to_string(), |i| self.lexicons[i].status.clone());
                Err(SwitchError::Unusable { id: id.into(), status, problem: "it may not judge".into() })
            }
        }
    }

    fn profile_choices(&mut self, lexicons: &[LexiconChoice]) -> Vec<ProfileChoice> {
        ProfileChoice::list(self.profiles.iter().copied(), self.profile, &self.lexicon().id, lexicons)
    }

    fn switch_profile(&mut self, id: &str) -> Result<(), SwitchError> {
        if self.held {
            return Err(SwitchError::ConfigNotWritable(HELD.into()));
        }
        let lexicons = self.lexicon_choices();
        let chosen = ProfileChoice::choose(id, &self.lexicon().id, &lexicons)?;
        let Some(profile) = self.profiles.iter().copied().find(|p| p.id == chosen.profile.id) else {
            return Err(SwitchError::ProfileUnavailable { profile: id.into(), reason: "no such profile".into() });
        };
        // The old profile is replaced, not cleared by the switch below.
        let before = self.profile.take();
        // As the real station: a profile on the lexicon in use switches nothing.
        let current = self.lexicon();
        let switch =
            if current.usable && current.id == chosen.edition { Ok(()) } else { self.switch_lexicon(chosen.edition) };
        if let Err(e) = switch {
            self.profile = before;
            return Err(e);
        }
        self.profile = Some(profile);
        self.records.push(FakeRecord::ProfileSwitched { to: profile.id.into() });
        Ok(())
    }

    fn switch_refused(&mut self, id: &str, _reason: &str) {
        self.records.push(FakeRecord::SwitchRefused { to: id.into() });
    }
}
