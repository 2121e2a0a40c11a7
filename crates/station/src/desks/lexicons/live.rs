//! Which lexicon the live station judges with: opened and verified at start,
//! and only the content last chosen for that id on this station (a list
//! replaced while the station was off does not judge until the director
//! chooses it again), or switched by the director.

use crate::desks::{Judging, LexiconChoice, ProfileChoice, SettingsError, SwitchError};
use wordjudge_core::audit::{AuditEvent, LexiconIdentity};
use wordjudge_core::lexicon::catalog::Catalog;

use crate::desks::live::{digests_path, open_active, Active, LiveStation};
use crate::desks::LexiconChoices;

impl LiveStation {
    /// Opens the configured lexicon at start. Its content must be the
    /// content last chosen for that id on this station: a list replaced
    /// while the station was off (the same id, other words) does not judge
    /// until the director chooses it again with the PIN.
    pub(in crate::desks) fn activate(&mut self, id: &str) -> Active {
        let active = match open_active(&self.catalog, id) {
            Ok(lexicon) => {
                let ident = LexiconIdentity::of(&lexicon);
                let digest = ident.content_sha256.join("+");
                match (lexicon.check_usable(), self.known_digest(id)) {
                    (Err(e), _) => {
                        Active::Failed { id: id.to_string(), status: e.status.to_string(), problem: e.to_string() }
                    }
                    (Ok(()), Some(known)) if known != digest => Active::Failed {
                        id: id.to_string(),
                        status: "Changed since it was chosen".into(),
                        problem: format!(
                            "the content of {id} is not the one last chosen on this station (content {} now, {} then): \
                             choose it again in the director menu to judge with it",
                            crate::desks::short_digest(ident.content_sha256.iter().map(String::as_str)),
                            crate::desks::short_digest(known.split('+'))
                        ),
                    },
                    (Ok(()), known) => {
                        if known.is_none() {
                            self.remember_digest(id, &digest);
                        }
                        Active::Open(Box::new(lexicon), ident)
                    }
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
                AuditEvent::LexiconOpened {
                    id: id.clone(),
                    status: status.clone(),
                    fingerprint: None,
                    problem: Some(problem.clone()),
                }
            }
        };
        self.record(event);
        active
    }

    /// The content digest last chosen for lexicon `id` on this station.
    pub(in crate::desks) fn known_digest(&self, id: &str) -> Option<String> {
        let text = wordjudge_core::outside_files::read_small_text(&digests_path(&self.config_path), 64 * 1024).ok()?;
        text.lines().find_map(|l| l.strip_prefix(id)?.strip_prefix(' ').map(str::to_string))
    }

    /// Remembers `digest` as the content chosen for lexicon `id`.
    pub(in crate::desks) fn remember_digest(&mut self, id: &str, digest: &str) {
        let path = digests_path(&self.config_path);
        let old = wordjudge_core::outside_files::read_small_text(&path, 64 * 1024).unwrap_or_default();
        let mut text =
            String::from("# wordjudge: the content digest last chosen for each lexicon id on this station\n");
        for line in old.lines().filter(|l| !l.starts_with('#') && l.split(' ').next() != Some(id)) {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!("{id} {digest}\n"));
        if let Err(e) = wordjudge_core::outside_files::write_atomically(&path, text.as_bytes()) {
            tracing::warn!("cannot save the digest of {id}: {e}");
        }
    }

    pub(in crate::desks) fn try_switch(&mut self, id: &str) -> Result<(), SwitchError> {
        // From the last good copy a switch saves a whole good config again
        // (which repairs the broken file); with no config in force at all,
        // nothing may be saved (`save_config` refuses).
        let unusable = |status: String, problem: String| SwitchError::Unusable { id: id.to_string(), status, problem };
        let lexicon = open_active(&self.catalog, id).map_err(|e| unusable(e.status().to_string(), e.to_string()))?;
        lexicon.check_usable().map_err(|e| unusable(e.status.to_string(), e.to_string()))?;
        let from = self.lexicon().id;
        // DEMO chosen with the PIN is practice, the director's explicit
        // choice; any other list is the event's.
        let practice = lexicon.is_demo();
        self.save_config(|c| {
            c.active_lexicon = id.to_string();
            c.practice_with_demo = practice;
        })
        .map_err(|error| SwitchError::ConfigNotSaved { path: self.config_path.display().to_string(), error })?;
        self.judging_fault = None;
        self.file_changed = None;
        let ident = LexiconIdentity::of(&lexicon);
        let digest = ident.content_sha256.join("+");
        if let Some(known) = self.known_digest(id).filter(|k| *k != digest) {
            // The same id with other content: chosen by the director with the
            // PIN, and recorded as such.
            let change = format!("{id}: {known} -> {digest}");
            self.record(AuditEvent::SettingChanged { setting: "lexicon_content".into(), value: Some(change) });
        }
        self.remember_digest(id, &digest);
        self.record(AuditEvent::LexiconSwitched { from, to: id.to_string() });
        self.record(AuditEvent::LexiconOpened {
            id: ident.id.clone(),
            status: ident.status.clone(),
            fingerprint: Some(ident.fingerprint.clone()),
            problem: None,
        });
        self.active = Active::Open(Box::new(lexicon), ident);
        Ok(())
    }
}

impl LiveStation {
    /// Every installed lexicon with its status, re-read from disk.
    pub(in crate::desks) fn list_lexicons(&mut self) -> Vec<LexiconChoice> {
        // Re-read the directory: a director may have installed a lexicon since start.
        self.catalog = Catalog::load(self.catalog.dir());
        self.catalog
            .entries()
            .iter()
            .map(|entry| {
                let id = entry.definition.id.clone();
                match self.catalog.open(&id) {
                    Ok(l) => LexiconChoice {
                        id,
                        status: l.status().to_string(),
                        fingerprint: l.fingerprint().short(),
                        usable: l.status().can_judge(),
                    },
                    Err(e) => {
                        LexiconChoice { id, status: e.status().to_string(), fingerprint: String::new(), usable: false }
                    }
                }
            })
            .collect()
    }

    /// Records a switch the menu refused itself (see [`crate::desks::Station::switch_refused`]).
    pub(in crate::desks) fn record_switch_refused(&mut self, id: &str, reason: &str) {
        let from = self.lexicon().id;
        self.record(AuditEvent::LexiconSwitchRefused { from, to: id.to_string(), reason: reason.to_string() });
    }

    /// Switches the lexicon, recording a refusal too; a profile whose
    /// family the new lexicon is not of is cleared (another edition of its
    /// family keeps it, with that edition's second opinion).
    pub(in crate::desks) fn switch_lexicon_recorded(&mut self, id: &str) -> Result<(), SwitchError> {
        let result = self.try_switch(id);
        if let Err(reason) = &result {
            // A refused switch is a director action too: recorded.
            let from = self.lexicon().id;
            self.record(AuditEvent::LexiconSwitchRefused { from, to: id.to_string(), reason: reason.to_string() });
            return result;
        }
        // A profile of another family no longer applies: no rule line of
        // another event under these verdicts.
        if self.profile.is_some_and(|p| !p.applies_to(id)) {
            let cleared = self.save_config(|c| c.profile = None);
            if cleared.is_ok() {
                self.profile = None;
                self.second = None;
            }
            self.record_setting("profile", None, &cleared.map_err(SettingsError::Failed));
        } else {
            self.second = self.open_second(self.profile, id);
        }
        result
    }

    /// Switches to a built-in profile with the edition its row names: the
    /// edition verified and made active, the rule and the second opinion,
    /// recorded with the rule and the edition.
    pub(in crate::desks) fn switch_profile_recorded(&mut self, id: &str) -> Result<(), SwitchError> {
        let lexicons = self.list_lexicons();
        let chosen = match ProfileChoice::choose(id, &self.lexicon().id, &lexicons) {
            Ok(chosen) => chosen,
            Err(reason) => {
                // A refused choice is a director action too: recorded.
                self.record(AuditEvent::SettingRefused {
                    setting: "profile".into(),
                    reason: format!("{id}: {reason}"),
                });
                return Err(reason);
            }
        };
        let profile = chosen.profile;
        // Switching to the edition must not first clear the profile being
        // replaced (the record says which profile came before).
        let before = self.profile.take();
        // A profile judging with the lexicon in use switches nothing: no
        // `lexicon_switched` from a lexicon to itself.
        let current = self.lexicon();
        let switch =
            if current.usable && current.id == chosen.edition { Ok(()) } else { self.switch_lexicon(chosen.edition) };
        if let Err(e) = switch {
            self.profile = before;
            // The lexicon's refusal, with its details, is recorded; the
            // director reads the edition and its status, not its files.
            return Err(match e {
                SwitchError::Unusable { id, status, .. } => SwitchError::ProfileUnavailable {
                    profile: profile.name.into(),
                    reason: format!("{id} is {status}"),
                },
                other => other,
            });
        }
        self.profile = before;
        self.save_config(|c| c.profile = Some(profile.id.to_string()))
            .map_err(|error| SwitchError::ConfigNotSaved { path: self.config_path.display().to_string(), error })?;
        let from = self.profile.map(|p| p.id.to_string());
        self.profile = Some(profile);
        self.second = self.open_second(Some(profile), chosen.edition);
        self.record(AuditEvent::ProfileSwitched {
            from,
            to: profile.id.into(),
            lexicon: chosen.edition.into(),
            rule: profile.rule.name(),
        });
        Ok(())
    }
}

impl LexiconChoices for LiveStation {
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

    fn switch_refused(&mut self, id: &str, reason: &str) {
        self.record_switch_refused(id, reason);
    }

    fn profile_refused(&mut self, id: &str, reason: &str) {
        self.record(AuditEvent::SettingRefused { setting: "profile".into(), reason: format!("{id}: {reason}") });
    }
}
