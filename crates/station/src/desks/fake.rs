//! A station made of plain data, for flow tests and pictures.
//!
//! Why it exists: the flow's rules (counts, TAB, guards, PIN lockout, menu
//! cursor) must be testable in microseconds with no files, no fst, no Argon2
//! and no audit folder. [`FakeStation`] answers every [`Station`] call from
//! in-memory lists and records what the flow asked, so a test can assert
//! "the refused PIN was recorded" without reading a log. The real station is
//! [`crate::desks::live::LiveStation`]; a few tests run against it too.

use crate::desks::{
    AdjudicateError, DirectorEvent, FleetVisit, ImportRow, ImportState, StickChoice, SystemAction, UpdateOffer,
    UpdatePreview, UpdateReport, UpdateRequest, UsbRequest, UsbUpdate, Warning,
};
use std::collections::{BTreeSet, VecDeque};
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;
use wordjudge_core::profile::Profile;
use wordjudge_core::update::{BootCheck, Refusals, UpdateError, UpdateKind};

/// What the real station answers a change while the settings are held.
pub(in crate::desks) const HELD: &str = "the settings are damaged: restore the last good settings first";

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
    Adjudicated {
        number: u64,
        words: Vec<String>,
        verdict: Verdict,
        trigger: Trigger,
    },
    Director(DirectorEvent),
    Switched {
        to: String,
    },
    SwitchRefused {
        to: String,
    },
    System(SystemAction),
    ProfileSwitched {
        to: String,
    },
    PinChanged,
    /// The first PIN of a fresh station.
    PinSet,
    /// A lexicon switch left the profile's family: the profile no longer applies.
    ProfileCleared,
    StationRenamed {
        to: String,
    },
    ClockSet {
        to: String,
    },
    TimeZoneSet {
        to: String,
    },
    /// The screen rotation saved (degrees clockwise).
    RotationSet {
        to: u16,
    },
    /// The held last good settings were written back.
    SettingsRestored,
    /// A fresh config after the settings were gone.
    SetUpAgain {
        name: String,
    },
    Usb(UsbRequest),
    /// The flow stopped waiting for the stick work running.
    UsbCancelled,
    /// The station left the fleet of this event.
    FleetLeft {
        event: String,
    },
    Update(UpdateRequest),
    /// The audit records an update makes, in the order the real station
    /// writes them.
    UpdateRefused {
        reason: String,
    },
    UpdateStarted {
        version: String,
        downgrade: bool,
    },
    UpdateInstalled {
        version: String,
    },
    UpdateFailed {
        version: String,
        reason: String,
    },
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
    /// The config and its last good copy are gone, the PIN kept: no judging
    /// until the director sets the station up again.
    pub gone: bool,
    /// The PIN guard as saved (a new fake station over the same value is a restart).
    pub pin_guard: crate::desks::PinGuard,
    pub station_name: String,
    /// The screen rotation saved, and the one the screen started with.
    pub rotation: u16,
    pub rotation_at_start: u16,
    /// The time zone the station shows its times in.
    pub time_zone: String,
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
    pub(in crate::desks) usb_pending: Option<UsbUpdate>,
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
    pub(in crate::desks) update_checked: Option<UpdatePreview>,
    pub(in crate::desks) update_reports: VecDeque<UpdateReport>,
    /// The bundle being checked (device, file), and those refused.
    pub(in crate::desks) update_checking: Option<(String, String)>,
    pub(in crate::desks) refusals: Refusals,
    pub(in crate::desks) usb_rows: Vec<ImportRow>,
    pub(in crate::desks) next_number: u64,
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
            gone: false,
            facts: Vec::new(),
            pin_guard: Default::default(),
            station_name: "Table 3".into(),
            rotation: 0,
            rotation_at_start: 0,
            time_zone: "Europe/London".into(),
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

    pub(in crate::desks) fn active_lexicon(&self) -> Option<&FakeLexicon> {
        self.lexicons.get(self.active)
    }

    /// Plugs in a stick holding `files` (file name, the lexicon it really is).
    pub fn plug(&mut self, device: &str, files: &[(&str, &str)]) {
        self.sticks.push(StickChoice { device: device.into(), name: format!("FAKE ({device}, FAT32)") });
        self.stick_files = files
            .iter()
            .map(|(file, really)| FakeListFile { file: (*file).into(), really: (*really).into() })
            .collect();
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

    pub(in crate::desks) fn preview(file: &FakeListFile, name: Option<String>) -> ImportRow {
        let state = match &name {
            None => ImportState::Unnamed { fingerprint: "0123abcd".into(), words: 1000 },
            Some(n) if *n == file.really => ImportState::Would {
                lexicon: n.clone(),
                status: "Verified official".into(),
                fingerprint: "0123abcd".into(),
                words: 1000,
                installable: true,
                note: String::new(),
                already: false,
            },
            Some(n) => ImportState::Would {
                lexicon: n.clone(),
                status: "Mismatch".into(),
                fingerprint: "0123abcd".into(),
                words: 1000,
                installable: false,
                note: format!("not {n}"),
                already: false,
            },
        };
        ImportRow { file: file.file.clone(), name, state }
    }

    pub(in crate::desks) fn usb_work(&mut self, request: &UsbRequest) -> UsbUpdate {
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
            UsbRequest::Install { file } => self.install_row(file),
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
            UsbRequest::JoinFleet { .. } => UsbUpdate::Fleet(self.fleet_visit()),
        }
    }

    /// Installs the word list of row `file` when its preview says it can.
    pub(in crate::desks) fn install_row(&mut self, file: usize) -> UsbUpdate {
        match self.usb_rows[file].state.clone() {
            ImportState::Would { lexicon, status, installable: true, .. } => {
                if !self.lexicons.iter().any(|l| l.id == lexicon) {
                    let mut installed = FakeLexicon::usable(&lexicon, "");
                    installed.status = status.clone();
                    self.lexicons.push(installed);
                }
                let row =
                    ImportRow { state: ImportState::Installed { lexicon, status }, ..self.usb_rows[file].clone() };
                self.usb_rows[file] = row.clone();
                UsbUpdate::Row { index: file, row }
            }
            _ => UsbUpdate::InstallRefused { index: file, reason: "it is not that list".into() },
        }
    }

    /// The fake's fleet stick: the first visit leaves a request, the next
    /// one joins "Nationals 2026".
    pub(in crate::desks) fn fleet_visit(&mut self) -> FleetVisit {
        let upload_url = "https://192.168.10.2:19532".to_string();
        match &self.fleet {
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
                    code: Some("3F9A-0C21-77DE-B410".into()),
                    event: "Nationals 2026".into(),
                    ca: "abab-abab-abab-abab".into(),
                }
            }
        }
    }

    /// The adjudications recorded so far.
    pub fn adjudications(&self) -> Vec<&FakeRecord> {
        self.records.iter().filter(|r| matches!(r, FakeRecord::Adjudicated { .. })).collect()
    }
}
