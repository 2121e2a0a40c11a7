//! A station made of plain data, for flow tests and pictures.
//!
//! Why it exists: the flow's rules (counts, TAB, guards, PIN lockout, menu
//! cursor) must be testable in microseconds with no files, no fst, no Argon2
//! and no audit folder. [`FakeStation`] answers every [`Station`] call from
//! in-memory lists and records what the flow asked, so a test can assert
//! "the refused PIN was recorded" without reading a log. The real station is
//! `app::live::LiveStation`; a few tests still run against it.

use super::station::{
    parse_clock, AdjudicateError, Counts, DirectorEvent, FleetVisit, ImportRow, ImportState, Judged, LexiconChoice, LexiconView,
    PinCheck, ProfileChoice, SecondOpinion, SettingsError, Station, StickChoice, SwitchError, SystemAction,
    SystemError, UpdateOffer, UpdatePreview, UpdateReport, UpdateRequest, UsbError, UsbRequest, UsbUpdate,
    Warning,
};
use wordjudge_core::update::{BootCheck, Refusals, UpdateError, UpdateKind};
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;
use wordjudge_core::profile::Profile;
use std::collections::{BTreeSet, VecDeque};

/// One lexicon the fake station knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeLexicon {
    pub id: String,
    pub status: String,
    pub usable: bool,
    pub words: BTreeSet<String>,
}

impl FakeLexicon {
    /// A usable lexicon holding `words` (whitespace-separated, any case).
    pub fn usable(id: &str, words: &str) -> FakeLexicon {
        FakeLexicon {
            id: id.into(),
            status: "Verified".into(),
            usable: true,
            words: words.split_whitespace().map(str::to_ascii_uppercase).collect(),
        }
    }
    /// A lexicon that may not judge, with this status.
    pub fn unusable(id: &str, status: &str) -> FakeLexicon {
        FakeLexicon { id: id.into(), status: status.into(), usable: false, words: BTreeSet::new() }
    }
}

/// What the flow asked the fake station to do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeRecord {
    Adjudicated { number: u64, words: Vec<String>, verdict: Verdict, trigger: Trigger },
    Director(DirectorEvent),
    Switched { to: String },
    SwitchRefused { to: String },
    System(SystemAction),
    ProfileSwitched { to: String },
    PinChanged,
    /// The first PIN of a fresh station.
    PinSet,
    /// A lexicon switch left the profile's family: the profile no longer applies.
    ProfileCleared,
    StationRenamed { to: String },
    ClockSet { to: String },
    /// The screen rotation saved (degrees clockwise).
    RotationSet { to: u16 },
    /// The held last good settings were written back.
    SettingsRestored,
    Usb(UsbRequest),
    /// The flow stopped waiting for the stick work running.
    UsbCancelled,
    /// The station left the fleet of this event.
    FleetLeft { event: String },
    Update(UpdateRequest),
    /// The audit records an update makes, in the order the real station
    /// writes them.
    UpdateRefused { reason: String },
    UpdateStarted { version: String, downgrade: bool },
    UpdateInstalled { version: String },
    UpdateFailed { version: String, reason: String },
}

/// A word list on a fake stick: its file name and the lexicon it really is
/// (named after its file, it previews as that lexicon, Verified official;
/// named as anything else, as a Mismatch that will not install).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeListFile {
    pub file: String,
    pub really: String,
}

/// The fake station.
#[derive(Debug, Clone)]
pub struct FakeStation {
    pub lexicons: Vec<FakeLexicon>,
    /// Index of the active lexicon in `lexicons`.
    pub active: usize,
    pub pin: Option<String>,
    /// A station that never had a config (first boot): with no PIN, the
    /// director chord sets one.
    pub fresh: bool,
    /// The config was damaged and its last good settings are held: no
    /// judging until the director restores them.
    pub held: bool,
    /// The PIN guard as saved (a new fake station over the same value is a restart).
    pub pin_guard: super::station::PinGuard,
    pub station_name: String,
    /// The screen rotation saved, and the one the screen started with.
    pub rotation: u16,
    pub rotation_at_start: u16,
    pub appliance: bool,
    pub allow_quit: bool,
    pub warnings: Vec<Warning>,
    /// The (label, value) lines the status page shows (the live station's
    /// profile, last challenge, signing code, wiring, fleet, screen).
    pub facts: Vec<(String, String)>,
    pub records: Vec<FakeRecord>,
    /// The next adjudication fails with this (then it is cleared).
    pub fail_next: Option<AdjudicateError>,
    /// The next adjudication panics, as a bug deep in the judging path
    /// would (then it is cleared): for the kiosk boundary's catch.
    pub panic_next: bool,
    /// The profiles offered, and the active one.
    pub profiles: Vec<&'static Profile>,
    pub profile: Option<&'static Profile>,
    /// USB sticks plugged in, and the word lists on the one opened.
    pub sticks: Vec<StickChoice>,
    pub stick_files: Vec<FakeListFile>,
    /// The next USB work fails with this problem (the stick pulled out).
    pub usb_fail_next: Option<String>,
    /// Work "runs" until this is false: updates are held back meanwhile.
    pub usb_hold: bool,
    usb_pending: Option<UsbUpdate>,
    /// The event whose fleet the station is in.
    pub fleet: Option<String>,
    /// A fleet request was left on a stick (the next visit joins).
    pub fleet_requested: bool,
    /// The update bundle on a plugged-in stick (with an updatable station).
    pub update_offer: Option<UpdateOffer>,
    /// What checking it comes to: its facts, or why it is refused.
    pub update_check: Result<UpdatePreview, UpdateError>,
    /// The next install fails halfway with this reason (the stick pulled).
    pub update_fail: Option<String>,
    /// The boot check's verdict on the last update.
    pub last_update: Option<BootCheck>,
    /// The install "runs" at this percentage: later reports are held back.
    pub update_paused_at: Option<u8>,
    update_checked: Option<UpdatePreview>,
    update_reports: VecDeque<UpdateReport>,
    /// The bundle being checked (device, file), and those refused.
    update_checking: Option<(String, String)>,
    refusals: Refusals,
    usb_rows: Vec<ImportRow>,
    next_number: u64,
}

impl FakeStation {
    /// A station judging with `lexicons[0]`, PIN `pin`.
    pub fn new(lexicons: Vec<FakeLexicon>, pin: &str) -> FakeStation {
        FakeStation {
            lexicons,
            active: 0,
            pin: Some(pin.into()),
            fresh: false,
            held: false,
            facts: Vec::new(),
            pin_guard: Default::default(),
            station_name: "Table 3".into(),
            rotation: 0,
            rotation_at_start: 0,
            appliance: false,
            allow_quit: false,
            warnings: Vec::new(),
            records: Vec::new(),
            fail_next: None,
            panic_next: false,
            profiles: Vec::new(),
            profile: None,
            sticks: Vec::new(),
            stick_files: Vec::new(),
            usb_fail_next: None,
            usb_hold: false,
            usb_pending: None,
            fleet: None,
            fleet_requested: false,
            update_offer: None,
            update_check: Err(UpdateError::Stick("no bundle".into())),
            update_fail: None,
            last_update: None,
            update_paused_at: None,
            update_checked: None,
            update_reports: VecDeque::new(),
            update_checking: None,
            refusals: Refusals::default(),
            usb_rows: Vec::new(),
            next_number: 1,
        }
    }

    /// Makes the lexicon with `id` active (as a config would).
    pub fn with_active(mut self, id: &str) -> FakeStation {
        self.active = self.lexicons.iter().position(|l| l.id == id).unwrap_or(usize::MAX);
        self
    }

    fn active_lexicon(&self) -> Option<&FakeLexicon> {
        self.lexicons.get(self.active)
    }

    /// Plugs in a stick holding `files` (file name, the lexicon it really is).
    pub fn plug(&mut self, device: &str, files: &[(&str, &str)]) {
        self.sticks.push(StickChoice { device: device.into(), name: format!("FAKE ({device}, FAT32)") });
        self.stick_files =
            files.iter().map(|(file, really)| FakeListFile { file: (*file).into(), really: (*really).into() }).collect();
    }

    /// Plugs in a stick holding the update bundle `file` of `version`,
    /// signed and compatible, on a station at `current`.
    pub fn plug_update(&mut self, device: &str, file: &str, version: &str, current: &str) {
        self.plug(device, &[]);
        self.update_offer = Some(UpdateOffer {
            device: device.into(),
            file: file.into(),
            version: Some(version.into()),
            current: current.into(),
        });
        self.update_check = Ok(UpdatePreview {
            file: file.into(),
            signer: "O = wordjudge, CN = update signer".into(),
            version: version.into(),
            current: current.into(),
            compatible: "wordjudge-amd64".into(),
            description: format!("wordjudge {version} (amd64)"),
            kind: UpdateKind::of(current, version),
        });
    }

    /// The update requests made so far.
    pub fn update_requests(&self) -> Vec<&UpdateRequest> {
        self.records
            .iter()
            .filter_map(|r| match r {
                FakeRecord::Update(request) => Some(request),
                _ => None,
            })
            .collect()
    }

    /// The USB requests made so far.
    pub fn usb_requests(&self) -> Vec<&UsbRequest> {
        self.records
            .iter()
            .filter_map(|r| match r {
                FakeRecord::Usb(request) => Some(request),
                _ => None,
            })
            .collect()
    }

    fn preview(file: &FakeListFile, name: Option<String>) -> ImportRow {
        let state = match &name {
            None => ImportState::Unnamed { fingerprint: "0123abcd".into(), words: 1000 },
            Some(n) if *n == file.really => ImportState::Would {
                lexicon: n.clone(),
                status: "Verified official".into(),
                fingerprint: "0123abcd".into(),
                words: 1000,
                installable: true,
                note: String::new(),
            },
            Some(n) => ImportState::Would {
                lexicon: n.clone(),
                status: "Mismatch".into(),
                fingerprint: "0123abcd".into(),
                words: 1000,
                installable: false,
                note: format!("not {n}"),
            },
        };
        ImportRow { file: file.file.clone(), name, state }
    }

    fn usb_work(&mut self, request: &UsbRequest) -> UsbUpdate {
        let work = request.work();
        if let Some(problem) = self.usb_fail_next.take() {
            self.usb_rows.clear();
            return UsbUpdate::Failed { work, problem };
        }
        match request.clone() {
            UsbRequest::OpenForImport { device } | UsbRequest::Export { device } | UsbRequest::JoinFleet { device }
                if !self.sticks.iter().any(|s| s.device == device) =>
            {
                UsbUpdate::Failed { work, problem: format!("{device} is gone") }
            }
            UsbRequest::OpenForImport { .. } => {
                self.usb_rows = self
                    .stick_files
                    .iter()
                    .map(|f| {
                        let stem = f.file.trim_end_matches(".txt");
                        let known = wordjudge_core::lexicon::official::layer_for_name(stem).is_some();
                        FakeStation::preview(f, known.then(|| stem.to_string()))
                    })
                    .collect();
                UsbUpdate::ImportList { rows: self.usb_rows.clone(), left_out: 0 }
            }
            UsbRequest::Rename { file, name } => {
                // The stick's files changed since it was opened (another
                // stick plugged in its place): the list is gone, as on the
                // real station.
                let Some(list) = self.stick_files.get(file) else {
                    return UsbUpdate::Failed { work, problem: "that word list is no longer on the stick".into() };
                };
                let row = FakeStation::preview(list, name);
                self.usb_rows[file] = row.clone();
                UsbUpdate::Row { index: file, row }
            }
            UsbRequest::Install { file } => match self.usb_rows[file].state.clone() {
                ImportState::Would { lexicon, status, installable: true, .. } => {
                    if !self.lexicons.iter().any(|l| l.id == lexicon) {
                        let mut installed = FakeLexicon::usable(&lexicon, "");
                        installed.status = status.clone();
                        self.lexicons.push(installed);
                    }
                    let row = ImportRow {
                        state: ImportState::Installed { lexicon, status },
                        ..self.usb_rows[file].clone()
                    };
                    self.usb_rows[file] = row.clone();
                    UsbUpdate::Row { index: file, row }
                }
                _ => UsbUpdate::InstallRefused { index: file, reason: "it is not that list".into() },
            },
            UsbRequest::Eject => {
                self.usb_rows.clear();
                UsbUpdate::Ejected
            }
            UsbRequest::Export { .. } => UsbUpdate::Exported {
                folder: "wordjudge-export-Table-3-2026-11-23".into(),
                lines: self.records.len(),
                intact: true,
                signed: true,
            },
            // The fake's fleet stick: the first visit leaves a request, the
            // next one joins "Nationals 2026".
            UsbRequest::JoinFleet { .. } => {
                let upload_url = "https://192.168.10.2:19532".to_string();
                UsbUpdate::Fleet(match &self.fleet {
                    Some(event) => FleetVisit::AlreadyJoined { event: event.clone(), upload_url },
                    None if self.fleet_requested => {
                        self.fleet = Some("Nationals 2026".into());
                        FleetVisit::Joined { event: "Nationals 2026".into(), upload_url }
                    }
                    None => {
                        self.fleet_requested = true;
                        FleetVisit::Requested {
                            station: "table-3".into(),
                            replaced: false,
                            code: Some("3f9a-0c21-77de-b410".into()),
                            event: "Nationals 2026".into(),
                            ca: "abab-abab-abab-abab".into(),
                        }
                    }
                })
            }
        }
    }

    /// The adjudications recorded so far.
    pub fn adjudications(&self) -> Vec<&FakeRecord> {
        self.records.iter().filter(|r| matches!(r, FakeRecord::Adjudicated { .. })).collect()
    }
}

/// One verdict for the whole play from a fake lexicon.
fn judge_with(lexicon: &FakeLexicon, words: &[String]) -> Verdict {
    if words.iter().all(|w| lexicon.words.contains(w)) {
        Verdict::Acceptable
    } else {
        Verdict::Unacceptable
    }
}

/// What the real station answers a change while the settings are held.
const HELD: &str = "the settings are damaged: restore the last good settings first";

impl Station for FakeStation {
    fn lexicon(&self) -> LexiconView {
        match self.active_lexicon() {
            Some(l) => LexiconView {
                id: l.id.clone(),
                status: l.status.clone(),
                usable: l.usable && !self.held,
                demo: l.id == "DEMO",
                fingerprint: if l.usable { "0a1b2c3d".into() } else { String::new() },
            },
            None => LexiconView { id: "NONE".into(), status: "Missing".into(), usable: false, demo: false, fingerprint: String::new() },
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

    fn check_pin(&mut self, pin: &str) -> PinCheck {
        match &self.pin {
            None => PinCheck::NotSet,
            Some(p) if p == pin => PinCheck::Accepted,
            Some(_) => PinCheck::Refused,
        }
    }

    fn director_event(&mut self, event: DirectorEvent) {
        self.records.push(FakeRecord::Director(event));
    }

    fn pin_guard(&self) -> super::station::PinGuard {
        self.pin_guard
    }

    fn save_pin_guard(&mut self, guard: super::station::PinGuard) {
        self.pin_guard = guard;
    }

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
        let switch = if current.usable && current.id == chosen.edition { Ok(()) } else { self.switch_lexicon(chosen.edition) };
        if let Err(e) = switch {
            self.profile = before;
            return Err(e);
        }
        self.profile = Some(profile);
        self.records.push(FakeRecord::ProfileSwitched { to: profile.id.into() });
        Ok(())
    }

    fn change_pin(&mut self, old: &str, new: &str) -> Result<(), SettingsError> {
        if self.held {
            return Err(SettingsError::Failed(HELD.into()));
        }
        if self.pin.as_deref() != Some(old) {
            return Err(SettingsError::WrongPin);
        }
        wordjudge_core::pin::check_pin_format(new).map_err(|e| SettingsError::Invalid(e.to_string()))?;
        self.pin = Some(new.into());
        self.records.push(FakeRecord::PinChanged);
        Ok(())
    }

    fn first_pin_needed(&self) -> bool {
        self.fresh && self.pin.is_none()
    }

    fn settings_held(&self) -> bool {
        self.held
    }

    fn restore_settings(&mut self) -> Result<(), SettingsError> {
        if !self.held {
            return Err(SettingsError::Invalid("the settings are not damaged: nothing to restore".into()));
        }
        self.held = false;
        self.records.push(FakeRecord::SettingsRestored);
        Ok(())
    }

    fn set_first_pin(&mut self, new: &str) -> Result<(), SettingsError> {
        if !self.first_pin_needed() {
            return Err(SettingsError::Invalid("this station already has a director PIN".into()));
        }
        wordjudge_core::pin::check_pin_format(new).map_err(|e| SettingsError::Invalid(e.to_string()))?;
        self.pin = Some(new.into());
        self.records.push(FakeRecord::PinSet);
        Ok(())
    }

    fn set_station_name(&mut self, name: &str) -> Result<(), SettingsError> {
        if self.held {
            return Err(SettingsError::Failed(HELD.into()));
        }
        wordjudge_core::config::check_station_name(name).map_err(SettingsError::Invalid)?;
        self.station_name = name.into();
        self.records.push(FakeRecord::StationRenamed { to: name.into() });
        Ok(())
    }

    fn set_clock(&mut self, local: &str) -> Result<(), SettingsError> {
        let when = parse_clock(local)?;
        if !self.appliance {
            return Err(SettingsError::NotAppliance);
        }
        self.records.push(FakeRecord::ClockSet { to: when.to_string() });
        Ok(())
    }

    fn rotation(&self) -> Option<super::station::Rotation> {
        Some(super::station::Rotation { saved: self.rotation, in_force: self.rotation_at_start })
    }

    fn set_rotation(&mut self, degrees: u16) -> Result<(), SettingsError> {
        if self.held {
            return Err(SettingsError::Failed(HELD.into()));
        }
        if !wordjudge_core::config::ROTATIONS.contains(&degrees) {
            return Err(SettingsError::Invalid(format!("{degrees}° is not one of 0, 90, 180, 270")));
        }
        self.rotation = degrees;
        self.records.push(FakeRecord::RotationSet { to: degrees });
        Ok(())
    }

    fn counts(&self) -> Counts {
        let n = self.adjudications().len() as u64;
        Counts { since_boot: n, today: n }
    }

    fn switch_refused(&mut self, id: &str, _reason: &str) {
        self.records.push(FakeRecord::SwitchRefused { to: id.into() });
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
        warnings
    }

    fn needs_service(&self) -> bool {
        self.warnings.iter().any(|w| matches!(w, Warning::AuditLog(_)))
    }

    fn station_name(&self) -> String {
        self.station_name.clone()
    }

    fn quit_allowed(&self) -> bool {
        self.allow_quit
    }

    fn appliance(&self) -> bool {
        self.appliance
    }

    fn facts(&self) -> Vec<(String, String)> {
        self.facts.clone()
    }

    fn system(&mut self, action: SystemAction) -> Result<(), SystemError> {
        match action {
            SystemAction::Quit if !self.allow_quit => Err(SystemError::QuitNotAllowed),
            SystemAction::Reboot | SystemAction::PowerOff if !self.appliance => Err(SystemError::NotAppliance),
            _ => {
                self.records.push(FakeRecord::System(action));
                Ok(())
            }
        }
    }

    fn sticks(&mut self) -> Vec<StickChoice> {
        self.sticks.clone()
    }

    fn import_names(&self) -> Vec<String> {
        wordjudge_core::lexicon::import::names().into_iter().map(str::to_string).collect()
    }

    fn usb_request(&mut self, request: UsbRequest) -> Result<(), UsbError> {
        if self.usb_pending.is_some() {
            return Err(UsbError::Busy);
        }
        let needs_open = matches!(request, UsbRequest::Rename { .. } | UsbRequest::Install { .. });
        let in_range = match request {
            UsbRequest::Rename { file, .. } | UsbRequest::Install { file } => file < self.usb_rows.len(),
            _ => true,
        };
        if needs_open && !in_range {
            return Err(UsbError::NotOpen);
        }
        self.records.push(FakeRecord::Usb(request.clone()));
        self.usb_pending = Some(self.usb_work(&request));
        Ok(())
    }

    fn usb_cancel(&mut self) {
        // The held answer is the abandoned work's: it never reaches a
        // screen. Held work stays "alive" until the test lets it go.
        if self.usb_pending.take().is_some() {
            self.records.push(FakeRecord::UsbCancelled);
        }
    }

    fn usb_update(&mut self) -> Option<UsbUpdate> {
        if self.usb_hold {
            return None;
        }
        self.usb_pending.take()
    }

    fn update_offer(&mut self) -> Option<UpdateOffer> {
        let plugged: Vec<&str> = self.sticks.iter().map(|s| s.device.as_str()).collect();
        self.refusals.plugged(&plugged);
        self.update_offer.clone().filter(|o| !self.refusals.is_refused(&o.device, &o.file))
    }

    fn update_request(&mut self, request: UpdateRequest) -> Result<(), UsbError> {
        match &request {
            UpdateRequest::Check { .. } if self.update_offer.is_none() => return Err(UsbError::Unavailable),
            UpdateRequest::Check { .. } if !self.update_reports.is_empty() => return Err(UsbError::Busy),
            UpdateRequest::Check { device, file } => {
                self.update_checking = Some((device.clone(), file.clone()));
                self.update_reports.push_back(match self.update_check.clone() {
                    Ok(preview) => {
                        self.update_checked = Some(preview.clone());
                        UpdateReport::Preview(preview)
                    }
                    Err(reason) => UpdateReport::Refused(reason),
                });
            }
            UpdateRequest::Install => {
                let preview = self.update_checked.take().ok_or(UsbError::NotOpen)?;
                self.records.push(FakeRecord::Update(request.clone()));
                self.records.push(FakeRecord::UpdateStarted {
                    version: preview.version.clone(),
                    downgrade: preview.kind.needs_pin(),
                });
                self.update_reports.extend([UpdateReport::Progress(0), UpdateReport::Progress(50)]);
                self.update_reports.push_back(match self.update_fail.take() {
                    Some(reason) => UpdateReport::Failed(UpdateError::InstallFailed(reason)),
                    None => UpdateReport::Progress(100),
                });
                if !matches!(self.update_reports.back(), Some(UpdateReport::Failed(_))) {
                    self.update_reports.push_back(UpdateReport::Installed { version: preview.version });
                }
                return Ok(());
            }
            UpdateRequest::Cancel => {
                // A check's answer not yet taken is dropped with it.
                self.update_checked = None;
                self.update_reports.retain(|r| !matches!(r, UpdateReport::Preview(_) | UpdateReport::Refused(_)));
            }
        }
        self.records.push(FakeRecord::Update(request));
        Ok(())
    }

    fn update_report(&mut self) -> Option<UpdateReport> {
        if self.usb_hold {
            return None;
        }
        // Checking answers at once; the install's later reports wait.
        let paused = |r: &UpdateReport, at: u8| match r {
            UpdateReport::Progress(p) => *p > at,
            UpdateReport::Preview(_) | UpdateReport::Refused(_) => false,
            UpdateReport::Installed { .. } | UpdateReport::Failed(_) => true,
        };
        if let (Some(at), Some(next)) = (self.update_paused_at, self.update_reports.front()) {
            if paused(next, at) {
                return None;
            }
        }
        let report = self.update_reports.pop_front()?;
        let version = self.update_offer.as_ref().and_then(|o| o.version.clone()).unwrap_or_default();
        match &report {
            UpdateReport::Refused(reason) => {
                self.records.push(FakeRecord::UpdateRefused { reason: reason.to_string() });
                if let Some((device, file)) = self.update_checking.take() {
                    self.refusals.refuse(&device, &file);
                }
            }
            UpdateReport::Installed { version } => self.records.push(FakeRecord::UpdateInstalled { version: version.clone() }),
            UpdateReport::Failed(reason) => {
                self.records.push(FakeRecord::UpdateFailed { version, reason: reason.to_string() })
            }
            _ => {}
        }
        Some(report)
    }

    fn last_update(&self) -> Option<BootCheck> {
        self.last_update.clone()
    }

    fn fleet_event(&self) -> Option<String> {
        self.fleet.clone()
    }

    fn leave_fleet(&mut self) -> Result<String, SettingsError> {
        let event = self.fleet.take().ok_or_else(|| SettingsError::Invalid("this station is in no fleet".into()))?;
        self.fleet_requested = false;
        self.records.push(FakeRecord::FleetLeft { event: event.clone() });
        Ok(event)
    }

    fn shut_down(&mut self) {}
}
