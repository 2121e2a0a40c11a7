//! The real station's USB work: a stick opened for import, its word lists
//! read and previewed, one installed, the log exported, the stick unmounted.
//!
//! Every piece of work runs on the desk's job thread ([`crate::desks::job`]), one at
//! a time, and reports back through a channel the kiosk polls on each tick: a
//! stick can take seconds (a Pi reading and compiling CSW21 from a slow stick), and the
//! screen must never freeze nor the watchdog go hungry. The thread owns
//! copies of what it needs; the station's state changes only on the UI
//! thread, when a result arrives ([`UsbDesk::poll`]), which is also where
//! everything is recorded in the audit log (by the caller, from the
//! [`Finished`] it gets).
//!
//! What the director confirms is what is installed: the bytes compiled
//! while previewing are kept and installed as they are, never read again
//! from a stick that may have been pulled out since.

use crate::desks::job::{Busy, Heard, JobDesk};
use crate::desks::{FleetVisit, ImportRow, ImportState, UsbError, UsbUpdate, UsbWork};
use std::path::PathBuf;
use std::sync::Arc;
use wordjudge_core::audit::NoteVerifier;
use wordjudge_core::fleet::join::JoinStep;
use wordjudge_core::inspect::export::{self, FolderExport};
use wordjudge_core::lexicon::build::InstallReport;
use wordjudge_core::lexicon::import::{self, Preview};
use wordjudge_core::usb::{Mode, Stick, Sticks};

mod read;
use read::{installed_facts, read_stick, row_of};

/// A stick open for import and what was read from it.
struct OpenStick {
    stick: Stick,
    /// The file each row is, and what it would be (or why it cannot be).
    files: Vec<(PathBuf, Result<Preview, String>)>,
    rows: Vec<ImportRow>,
}

/// What a worker thread hands back.
enum Outcome {
    Opened { stick: Stick, files: Vec<(PathBuf, Result<Preview, String>)>, left_out: usize },
    Renamed { index: usize, preview: Result<Preview, String> },
    Installed { index: usize, result: Result<(InstallReport, InstalledFacts), String> },
    Ejected { stick: Stick, result: Result<(), String> },
    Exported { stick: Stick, result: Result<FolderExport, String>, ejected: Result<(), String> },
    Fleet { stick: Stick, result: Result<JoinStep, String>, ejected: Result<(), String> },
    Failed { stick: Stick, work: UsbWork, problem: String },
}

/// The lexicon's facts after an install, from the installed bytes.
#[derive(Debug, Clone)]
pub struct InstalledFacts {
    pub status: String,
    pub fingerprint: String,
    pub content_sha256: Option<String>,
    pub fst_sha256: String,
    pub words: u64,
}

/// What finished, for the flow and for the audit log.
pub enum Finished {
    /// Read and previewed.
    Opened {
        stick: Stick,
        lists: usize,
    },
    /// Nothing to record: a list shown under another name, or an answer
    /// about a stick that is no longer open.
    Quiet,
    Installed {
        stick: Stick,
        file: String,
        report: InstallReport,
        facts: InstalledFacts,
    },
    InstallRefused {
        stick: Stick,
        file: String,
        name: Option<String>,
        reason: String,
    },
    Ejected {
        stick: Stick,
    },
    Exported {
        stick: Stick,
        export: FolderExport,
    },
    /// A fleet stick's visit: what it came to, or why it was refused (nothing changed).
    Fleet {
        stick: Stick,
        result: Result<JoinStep, String>,
    },
    Failed {
        stick: Stick,
        work: UsbWork,
        problem: String,
    },
}

/// The station's USB desk: at most one piece of work at a time.
pub struct UsbDesk {
    sticks: Arc<dyn Sticks>,
    lexicon_dir: PathBuf,
    /// The work running, and work the flow stopped waiting for
    /// ([`UsbDesk::abandon`]) that has not ended yet: its end is recorded,
    /// never shown, and no new stick work starts while it lives.
    jobs: JobDesk<UsbWork, Outcome>,
    open: Option<OpenStick>,
}

/// What the screen says of a fleet stick's visit.
fn fleet_visit(step: &JoinStep) -> FleetVisit {
    match step {
        JoinStep::Requested { request, replaced, code, event, ca } => FleetVisit::Requested {
            station: request.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            replaced: *replaced,
            code: code.clone(),
            event: wordjudge_core::word::printable(event, 64),
            ca: ca.clone(),
        },
        JoinStep::Joined(j) => FleetVisit::Joined { event: j.event.clone(), upload_url: j.upload_url.clone() },
        JoinStep::AlreadyJoined(j) => {
            FleetVisit::AlreadyJoined { event: j.event.clone(), upload_url: j.upload_url.clone() }
        }
    }
}

/// A visit in a few words, for a message that also says something else.
fn visit_words(visit: &FleetVisit) -> String {
    match visit {
        FleetVisit::Requested { .. } => "the request is on the stick".into(),
        FleetVisit::Joined { event, .. } => format!("joined the fleet of {event}"),
        FleetVisit::AlreadyJoined { event, .. } => format!("already in the fleet of {event}"),
        FleetVisit::Refused(reason) => format!("not joined: {reason}"),
    }
}

impl UsbDesk {
    pub fn new(sticks: Arc<dyn Sticks>, lexicon_dir: PathBuf) -> UsbDesk {
        UsbDesk { sticks, lexicon_dir, jobs: JobDesk::new("wordjudge-usb"), open: None }
    }

    /// The sticks plugged in now.
    pub fn list(&self) -> Vec<Stick> {
        self.sticks.list()
    }

    fn start(
        &mut self,
        work: UsbWork,
        job: impl FnOnce() -> Outcome + Send + 'static,
        stick: Stick,
    ) -> Result<(), UsbError> {
        // A bug in the job must end as failed work, never as a dead kiosk.
        let on_panic =
            Outcome::Failed { stick, work, problem: "an internal error stopped the work (see the journal)".into() };
        self.jobs.start(work, move |_| job(), on_panic).map_err(|Busy| UsbError::Busy)
    }

    /// Mounts `stick` read-only and previews its word lists.
    pub fn open_for_import(&mut self, stick: Stick) -> Result<(), UsbError> {
        if self.open.is_some() {
            return Err(UsbError::Busy);
        }
        let (sticks, dir, s) = (self.sticks.clone(), self.lexicon_dir.clone(), stick.clone());
        self.start(
            UsbWork::Reading,
            move || {
                let root = match sticks.attach(&s, Mode::Import) {
                    Ok(root) => root,
                    Err(e) => return Outcome::Failed { stick: s, work: UsbWork::Reading, problem: e.to_string() },
                };
                match read_stick(sticks.as_ref(), &s, &root, &dir) {
                    Ok(outcome) => outcome,
                    Err(problem) => {
                        let _ = sticks.detach(&s);
                        Outcome::Failed { stick: s, work: UsbWork::Reading, problem }
                    }
                }
            },
            stick,
        )
    }

    /// Shows word list `index` as `name` instead (no stick access: the
    /// compiled bytes are kept).
    pub fn rename(&mut self, index: usize, name: Option<String>) -> Result<(), UsbError> {
        let open = self.open.as_ref().ok_or(UsbError::NotOpen)?;
        let (_, preview) = open.files.get(index).ok_or(UsbError::NotOpen)?;
        let compiled = match preview {
            Ok(p) => p.compiled().clone(),
            Err(_) => return Err(UsbError::NotOpen),
        };
        let dir = self.lexicon_dir.clone();
        let stick = open.stick.clone();
        self.start(
            UsbWork::Reading,
            move || Outcome::Renamed {
                index,
                preview: import::preview(compiled, name.as_deref(), &dir).map_err(|e| e.to_string()),
            },
            stick,
        )
    }

    /// Installs word list `index`: the prepared bytes, atomically.
    pub fn install(&mut self, index: usize) -> Result<(), UsbError> {
        let open = self.open.as_ref().ok_or(UsbError::NotOpen)?;
        let prepared = match open.files.get(index) {
            Some((_, Ok(Preview::Named(named)))) => named.prepared.clone(),
            _ => return Err(UsbError::NotOpen),
        };
        let dir = self.lexicon_dir.clone();
        let stick = open.stick.clone();
        self.start(
            UsbWork::Installing,
            move || {
                let result = prepared.install(&dir).map(|report| {
                    let facts = installed_facts(&dir, report.lexicon.id);
                    (report, facts)
                });
                Outcome::Installed { index, result: result.map_err(|e| e.to_string()) }
            },
            stick,
        )
    }

    /// Unmounts the stick open for import.
    pub fn eject(&mut self) -> Result<(), UsbError> {
        let stick = self.open.as_ref().ok_or(UsbError::NotOpen)?.stick.clone();
        let (sticks, s) = (self.sticks.clone(), stick.clone());
        self.start(
            UsbWork::Ejecting,
            move || {
                let result = sticks.detach(&s).map_err(|e| e.to_string());
                Outcome::Ejected { stick: s, result }
            },
            stick,
        )
    }

    /// Mounts `stick` for export, writes the log's folder, unmounts.
    pub fn export(
        &mut self,
        stick: Stick,
        audit_dir: PathBuf,
        folder_name: String,
        signed: Option<(String, NoteVerifier)>,
    ) -> Result<(), UsbError> {
        if self.open.is_some() {
            return Err(UsbError::Busy);
        }
        let (sticks, s) = (self.sticks.clone(), stick.clone());
        self.start(
            UsbWork::Exporting,
            move || {
                let parent = match sticks.attach(&s, Mode::Export) {
                    Ok(parent) => parent,
                    Err(e) => return Outcome::Failed { stick: s, work: UsbWork::Exporting, problem: e.to_string() },
                };
                let result = export::write_folder(&audit_dir, &parent, &folder_name, signed).map_err(|e| e.to_string());
                let ejected = sticks.detach(&s).map_err(|e| e.to_string());
                Outcome::Exported { stick: s, result, ejected }
            },
            stick,
        )
    }

    /// Mounts the fleet stick `stick` for writing (only its `wordjudge/`
    /// folder: [`wordjudge_core::usb::Mode::Export`]), visits its fleet folder
    /// ([`wordjudge_core::fleet::join::visit`]: the request left, or the certificate
    /// taken into `fleet_dir`), unmounts.
    /// `audit_dir` is the station's audit folder, whose key the request is
    /// bound to.
    pub fn join_fleet(
        &mut self,
        stick: Stick,
        fleet_dir: PathBuf,
        station: String,
        audit_dir: PathBuf,
    ) -> Result<(), UsbError> {
        if self.open.is_some() {
            return Err(UsbError::Busy);
        }
        let (sticks, s) = (self.sticks.clone(), stick.clone());
        self.start(
            UsbWork::JoiningFleet,
            move || {
                let parent = match sticks.attach(&s, Mode::Export) {
                    Ok(parent) => parent,
                    Err(e) => return Outcome::Failed { stick: s, work: UsbWork::JoiningFleet, problem: e.to_string() },
                };
                let folder = wordjudge_core::fleet::stick::FOLDER_IN_EXPORT;
                let result = wordjudge_core::fleet::join::station_audit_key(&audit_dir)
                    .and_then(|key| wordjudge_core::fleet::join::visit(&parent, folder, &fleet_dir, &station, &key))
                    .map_err(|e| e.to_string());
                let ejected = sticks.detach(&s).map_err(|e| e.to_string());
                Outcome::Fleet { stick: s, result, ejected }
            },
            stick,
        )
    }

    /// Whether work is running (stopped work that has not ended counts).
    pub fn busy(&self) -> bool {
        self.jobs.busy()
    }

    /// Whether no stick is in use here: no work running, no stick open
    /// (only then may update work mount a stick).
    pub fn idle(&self) -> bool {
        !self.busy() && self.open.is_none()
    }

    /// Whether an export may start now: no work running, no stick open.
    pub fn can_export(&self) -> bool {
        self.idle()
    }

    /// Stops waiting for the work running (not an install: that writes the
    /// station's own bytes to its card and ends by itself), and lets go of
    /// a stick open for import. What the work still does is recorded when
    /// it ends ([`UsbDesk::poll_abandoned`]). Returns the work stopped.
    pub fn abandon(&mut self) -> Option<UsbWork> {
        if self.jobs.running() == Some(UsbWork::Installing) {
            return None;
        }
        let work = self.jobs.abandon();
        if let Some(open) = self.open.take() {
            self.let_go(open.stick);
        }
        work
    }

    /// Unmounts `stick` in the background, as stopped work.
    fn let_go(&mut self, stick: Stick) {
        let (sticks, s) = (self.sticks.clone(), stick.clone());
        let on_panic = Outcome::Ejected { stick, result: Err("an internal error stopped the unmount".into()) };
        self.jobs.start_unwaited(
            UsbWork::Ejecting,
            move |_| Outcome::Ejected { result: sticks.detach(&s).map_err(|e| e.to_string()), stick: s },
            on_panic,
        );
    }

    /// Stopped work that ended since the last call: what it did, for the
    /// audit log. A stick it opened is let go at once; nothing reaches a
    /// screen.
    pub fn poll_abandoned(&mut self) -> Vec<Finished> {
        let mut finished = Vec::new();
        for (_, outcome) in self.jobs.drain_abandoned(|_| true) {
            match outcome {
                // The stick it mounted is unmounted in its turn.
                Outcome::Opened { stick, .. } => self.let_go(stick),
                Outcome::Renamed { .. } | Outcome::Installed { .. } => {}
                outcome => finished.push(self.apply(outcome).1),
            }
        }
        finished
    }

    /// The work that finished, if any: what the flow is told, and what
    /// happened (for the audit log and the journal).
    pub fn poll(&mut self) -> Option<(UsbUpdate, Finished)> {
        let (work, heard) = self.jobs.poll(|_| true)?;
        let outcome = match heard {
            Heard::Message(outcome) => outcome,
            Heard::Silent => {
                let stick = self.open.as_ref().map(|o| o.stick.clone()).unwrap_or_else(|| Stick {
                    device: "?".into(),
                    label: String::new(),
                    fs_type: String::new(),
                    size: 0,
                });
                Outcome::Failed { stick, work, problem: "the work stopped without an answer".into() }
            }
        };
        Some(self.apply(outcome))
    }

    /// A word list's install ended: its row says what it is now, or why
    /// it was refused.
    fn installed(
        &mut self,
        index: usize,
        result: Result<(InstallReport, InstalledFacts), String>,
    ) -> (UsbUpdate, Finished) {
        let Some(open) = self.open.as_mut() else {
            return (UsbUpdate::InstallRefused { index, reason: "no stick is open".into() }, Finished::Quiet);
        };
        let stick = open.stick.clone();
        let file = open.rows[index].file.clone();
        match result {
            Ok((report, facts)) => {
                let row = ImportRow {
                    state: ImportState::Installed {
                        lexicon: report.lexicon.id.to_string(),
                        status: facts.status.clone(),
                    },
                    ..open.rows[index].clone()
                };
                open.rows[index] = row.clone();
                (UsbUpdate::Row { index, row }, Finished::Installed { stick, file, report, facts })
            }
            Err(reason) => {
                let name = open.rows[index].name.clone();
                (
                    UsbUpdate::InstallRefused { index, reason: reason.clone() },
                    Finished::InstallRefused { stick, file, name, reason },
                )
            }
        }
    }

    fn apply(&mut self, outcome: Outcome) -> (UsbUpdate, Finished) {
        match outcome {
            Outcome::Opened { stick, files, left_out } => {
                let rows: Vec<ImportRow> = files.iter().map(|(p, r)| row_of(p, r)).collect();
                let lists = rows.len();
                self.open = Some(OpenStick { stick: stick.clone(), files, rows: rows.clone() });
                (UsbUpdate::ImportList { rows, left_out }, Finished::Opened { stick, lists })
            }
            Outcome::Renamed { index, preview } => {
                let Some(open) = self.open.as_mut() else {
                    return (UsbUpdate::InstallRefused { index, reason: "no stick is open".into() }, Finished::Quiet);
                };
                let row = row_of(&open.files[index].0, &preview);
                open.files[index].1 = preview;
                open.rows[index] = row.clone();
                (UsbUpdate::Row { index, row }, Finished::Quiet)
            }
            Outcome::Installed { index, result } => self.installed(index, result),
            Outcome::Ejected { stick, result } => {
                self.open = None;
                match result {
                    Ok(()) => (UsbUpdate::Ejected, Finished::Ejected { stick }),
                    Err(problem) => (
                        UsbUpdate::Failed { work: UsbWork::Ejecting, problem: problem.clone() },
                        Finished::Failed { stick, work: UsbWork::Ejecting, problem },
                    ),
                }
            }
            Outcome::Exported { stick, result, ejected } => match (result, ejected) {
                (Ok(export), Ok(())) => {
                    let update = UsbUpdate::Exported {
                        folder: export.folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                        lines: export.lines,
                        intact: export.intact,
                        signed: export.signed,
                    };
                    (update, Finished::Exported { stick, export })
                }
                (Ok(_), Err(problem)) | (Err(problem), _) => (
                    UsbUpdate::Failed { work: UsbWork::Exporting, problem: problem.clone() },
                    Finished::Failed { stick, work: UsbWork::Exporting, problem },
                ),
            },
            Outcome::Fleet { stick, result, ejected } => {
                let visit = match &result {
                    Ok(step) => fleet_visit(step),
                    Err(reason) => FleetVisit::Refused(reason.clone()),
                };
                match ejected {
                    // The visit's outcome stands (it is recorded); the stick
                    // could not be unmounted, which the screen says instead.
                    Err(problem) => {
                        let problem = format!("{}; the stick could not be unmounted: {problem}", visit_words(&visit));
                        (UsbUpdate::Failed { work: UsbWork::JoiningFleet, problem }, Finished::Fleet { stick, result })
                    }
                    Ok(()) => (UsbUpdate::Fleet(visit), Finished::Fleet { stick, result }),
                }
            }
            Outcome::Failed { stick, work, problem } => {
                self.open = None;
                (UsbUpdate::Failed { work, problem: problem.clone() }, Finished::Failed { stick, work, problem })
            }
        }
    }
}

#[cfg(test)]
mod tests;
