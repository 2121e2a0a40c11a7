//! The real station's update work: a plugged-in stick looked at for
//! bundles, one copied onto the station, checked and previewed, and that
//! copy installed with its progress.
//!
//! Like the USB desk (`super::usb`), every piece of work runs on the desk's
//! job thread ([`crate::desks::job`]), one at a time, and reports through a channel
//! the kiosk polls on each tick: copying a bundle from a slow stick, `rauc info` checking its
//! signature and `rauc install` writing a whole system slot take seconds to
//! minutes, and the screen must never freeze nor the watchdog go hungry.
//! The stick is mounted read-only through the same [`Sticks::attach`] as a
//! word-list import, only while it is looked at or copied from: the check
//! and the install work on the station's own copy ([`wordjudge_core::update::staged`]),
//! so what was previewed is what installs, whatever becomes of the stick.

mod bundle;

use crate::desks::job::{Busy, Heard, JobDesk};
use crate::desks::{UpdateNotStarted, UpdateOffer, UpdatePreview, UpdateReport};
use bundle::{choose, copy_and_inspect, Looked};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Arc;
use wordjudge_core::update::staged::{self, Staged};
use wordjudge_core::update::{
    install_started, shown, BundleInfo, InstallState, Refusals, StationRelease, UpdateError, UpdateKind, Updates,
};
use wordjudge_core::usb::{Mode, Stick, Sticks};

/// What a worker thread hands back.
enum Message {
    Scanned {
        device: String,
        looked: Vec<Looked>,
    },
    /// `file` on `device`: the station's copy and what it says of itself.
    Checked {
        device: String,
        file: String,
        result: Result<(Staged, BundleInfo), UpdateError>,
    },
    Progress(u8),
    Installed,
    InstallFailed(UpdateError),
    /// How the install of `version` the last kiosk started and did not see
    /// end has ended.
    Resumed {
        version: String,
        result: Result<(), UpdateError>,
    },
}

impl Message {
    /// Whether the work that sent it ends with it: all but progress do.
    fn ends_work(&self) -> bool {
        !matches!(self, Message::Progress(_))
    }
}

/// How often RAUC is asked whether the install the last kiosk left still runs.
const RESUME_POLL: std::time::Duration = std::time::Duration::from_secs(2);
/// Longest an install left by the last kiosk is waited for (a slot write
/// takes minutes; RAUC still at it after this is recorded as failed).
const RESUME_LIMIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// A bundle copied onto the station, checked and previewed.
#[derive(Debug, Clone)]
pub struct OpenBundle {
    /// The stick it came from and its file there (escaped).
    pub device: String,
    pub file: String,
    /// The station's copy: what the preview was made from, and what installs.
    pub staged: Staged,
    pub preview: UpdatePreview,
}

/// What finished, for the audit log.
pub enum Finished {
    /// The check refused the bundle the director chose (`bundle`: its file).
    Refused {
        bundle: String,
        reason: UpdateError,
    },
    Installed {
        version: String,
    },
    Failed {
        version: String,
        reason: UpdateError,
    },
}

/// The station's update desk: at most one piece of work at a time.
pub struct UpdateDesk {
    updates: Arc<dyn Updates>,
    sticks: Arc<dyn Sticks>,
    release: Option<StationRelease>,
    /// Where the station keeps its copy of the bundle being checked.
    staging: Option<PathBuf>,
    /// Each stick looked at (device), and the bundles on it.
    scanned: Vec<(String, Vec<Looked>)>,
    /// Bundles refused, not offered again until the sticks change.
    refusals: Refusals,
    /// The work running, and checks or scans the flow stopped waiting for (a
    /// stick that stopped answering): their answers are dropped and a copy
    /// they made is removed; no new work starts while one lives.
    jobs: JobDesk<(), Message>,
    /// The running work is the menu's background look at a stick.
    scanning: bool,
    open: Option<OpenBundle>,
    /// The bundle being installed.
    installing: Option<OpenBundle>,
    reports: VecDeque<(UpdateReport, Option<Finished>)>,
}

impl UpdateDesk {
    pub fn new(updates: Arc<dyn Updates>, sticks: Arc<dyn Sticks>) -> UpdateDesk {
        let release = updates.release();
        let staging = updates.state_dir();
        // A copy left by a power cut during an install is of no use now.
        if let Some(dir) = &staging {
            staged::discard(dir);
        }
        let interrupted = staging.as_deref().and_then(install_started);
        let mut desk = UpdateDesk {
            updates,
            sticks,
            release,
            staging,
            scanned: Vec::new(),
            refusals: Refusals::default(),
            jobs: JobDesk::new("wordjudge-update"),
            scanning: false,
            open: None,
            installing: None,
            reports: VecDeque::new(),
        };
        if let Some(version) = interrupted {
            desk.resume(version);
        }
        desk
    }

    /// The last kiosk started an install of `version` and stopped before it
    /// ended: RAUC is asked, in the background, until it says how it ended
    /// (reported and recorded as any install's end). Meanwhile the desk is
    /// busy: no other update starts while RAUC may still write the slot.
    fn resume(&mut self, version: String) {
        tracing::warn!("update: the last kiosk stopped during the install of {version}; asking RAUC how it ended");
        let updates = self.updates.clone();
        let on_panic = Message::Resumed {
            version: version.clone(),
            result: Err(UpdateError::InstallFailed(
                "an internal error stopped the look at RAUC's state (see the journal)".into(),
            )),
        };
        let started = std::time::Instant::now();
        let _ = self.start(
            move |_| {
                let result = loop {
                    match updates.after_interruption(&version) {
                        InstallState::Running if started.elapsed() < RESUME_LIMIT => std::thread::sleep(RESUME_POLL),
                        InstallState::Running => {
                            break Err(format!(
                                "RAUC was still installing after {} minutes",
                                RESUME_LIMIT.as_secs() / 60
                            ))
                        }
                        InstallState::Installed => break Ok(()),
                        InstallState::Failed(why) => break Err(why),
                    }
                };
                let result = result.map_err(UpdateError::Interrupted);
                Message::Resumed { version, result }
            },
            on_panic,
        );
    }

    /// The station's release (`None`: it takes no updates).
    pub fn release(&self) -> Option<&StationRelease> {
        self.release.as_ref()
    }

    /// Whether the work holding a stick is only the menu's background look
    /// for bundles (it ends by itself within seconds).
    pub fn scanning(&self) -> bool {
        self.scanning && self.open.is_none() && self.installing.is_none()
    }

    /// Whether it works now (running, or a bundle open).
    pub fn busy(&self) -> bool {
        self.jobs.busy() || self.open.is_some()
    }

    /// Stops waiting for the check or scan running (never an install,
    /// which RAUC runs to its end). True when one was stopped.
    pub fn abandon_check(&mut self) -> bool {
        if self.installing.is_some() {
            return false;
        }
        if self.jobs.abandon().is_none() {
            return false;
        }
        self.scanning = false;
        true
    }

    /// Ends what stopped work left: a bundle copied for a check nobody
    /// waits for any more is removed.
    fn drain_abandoned(&mut self) {
        for ((), message) in self.jobs.drain_abandoned(Message::ends_work) {
            if let Message::Checked { result: Ok((staged, _)), .. } = message {
                staged.remove();
            }
        }
    }

    /// Starts `job` unless work runs; a bug in it must end as failed work
    /// (`on_panic`), never as a dead kiosk.
    fn start(
        &mut self,
        job: impl FnOnce(&mpsc::Sender<Message>) -> Message + Send + 'static,
        on_panic: Message,
    ) -> Result<(), UpdateNotStarted> {
        self.jobs.start((), job, on_panic).map_err(|Busy| UpdateNotStarted::Busy)
    }

    /// The offer for the director menu, given the sticks plugged in now;
    /// a stick not looked at yet is looked at in the background when
    /// `may_mount` (no other stick work runs). A bundle refused since the
    /// sticks last changed is not offered.
    pub fn offer(&mut self, plugged: &[Stick], may_mount: bool) -> Option<UpdateOffer> {
        let release = self.release.clone()?;
        self.drain();
        let devices: Vec<&str> = plugged.iter().map(|s| s.device.as_str()).collect();
        self.refusals.plugged(&devices);
        self.scanned.retain(|(device, _)| plugged.iter().any(|s| s.device == *device));
        if may_mount && !self.busy() {
            if let Some(stick) = plugged.iter().find(|s| !self.scanned.iter().any(|(d, _)| *d == s.device)) {
                self.scan(stick.clone());
            }
        }
        self.scanned.iter().find_map(|(device, looked)| {
            let offered = looked.iter().filter(|(file, _)| !self.refusals.is_refused(device, file)).cloned().collect();
            let found = choose(offered)?;
            Some(UpdateOffer {
                device: device.clone(),
                file: found.file,
                version: found.version,
                current: shown(&release.version),
            })
        })
    }

    fn scan(&mut self, stick: Stick) {
        let (updates, sticks, device) = (self.updates.clone(), self.sticks.clone(), stick.device.clone());
        let started = self.start(
            move |_| {
                let looked = sticks
                    .attach(&stick, Mode::Import)
                    .map(|root| {
                        let bundles = wordjudge_core::update::find_bundles(&root).unwrap_or_default();
                        let looked = bundles
                            .iter()
                            .map(|path| {
                                let file = path.file_name().map(|n| shown(&n.to_string_lossy())).unwrap_or_default();
                                (file, updates.inspect(path).ok().map(|info| shown(&info.version)))
                            })
                            .collect();
                        let _ = sticks.detach(&stick);
                        looked
                    })
                    .unwrap_or_default();
                Message::Scanned { device: stick.device, looked }
            },
            Message::Scanned { device: device.clone(), looked: Vec::new() },
        );
        if started.is_ok() {
            self.scanning = true;
            // Looked at once while plugged in: a stick without bundles is
            // not mounted again every second.
            self.scanned.push((device, Vec::new()));
        }
    }

    /// Mounts the stick `device`, copies bundle `file` from it onto the
    /// station, unmounts it and checks the copy.
    pub fn check(&mut self, stick: Stick, file: &str) -> Result<(), UpdateNotStarted> {
        if self.open.is_some() {
            return Err(UpdateNotStarted::Busy);
        }
        let (updates, sticks, staging) = (self.updates.clone(), self.sticks.clone(), self.staging.clone());
        let (device, file) = (stick.device.clone(), file.to_string());
        let on_panic = Message::Checked {
            device: device.clone(),
            file: file.clone(),
            result: Err(UpdateError::Unreadable("an internal error stopped the check (see the journal)".into())),
        };
        self.start(
            move |_| {
                let result = copy_and_inspect(&*updates, &*sticks, &stick, &file, staging);
                Message::Checked { device, file, result }
            },
            on_panic,
        )
    }

    /// The bundle previewed: what an install would install.
    pub fn previewed(&self) -> Option<&OpenBundle> {
        self.open.as_ref()
    }

    /// Installs the bundle previewed, from the station's copy.
    pub fn install(&mut self) -> Result<&OpenBundle, UpdateNotStarted> {
        let open = self.open.clone().ok_or(UpdateNotStarted::NotOpen)?;
        let (updates, bundle) = (self.updates.clone(), open.clone());
        self.start(
            move |tx| {
                // The copy is read again first: only the bytes previewed install.
                let result = bundle.staged.verify().and_then(|()| {
                    updates.install(bundle.staged.path(), &mut |percent| {
                        let _ = tx.send(Message::Progress(percent));
                    })
                });
                bundle.staged.remove();
                match result {
                    Ok(()) => Message::Installed,
                    Err(e) => Message::InstallFailed(e),
                }
            },
            Message::InstallFailed(UpdateError::InstallFailed(
                "an internal error stopped the install (see the journal)".into(),
            )),
        )?;
        self.open = None;
        Ok(self.installing.insert(open))
    }

    /// Drops the bundle previewed and the station's copy of it.
    pub fn cancel(&mut self) {
        if let Some(open) = self.open.take() {
            open.staged.remove();
        }
    }

    /// Takes what the worker said into reports, in order.
    fn drain(&mut self) {
        loop {
            let message = match self.jobs.poll(Message::ends_work) {
                None => return,
                Some(((), Heard::Message(message))) => message,
                Some(((), Heard::Silent)) => {
                    if let Some(bundle) = self.installing.take() {
                        let reason = UpdateError::InstallFailed("the install stopped without an answer".into());
                        let version = bundle.preview.version;
                        self.reports.push_back((
                            UpdateReport::Failed(reason.clone()),
                            Some(Finished::Failed { version, reason }),
                        ));
                    }
                    return;
                }
            };
            self.apply(message);
        }
    }

    fn apply(&mut self, message: Message) {
        match message {
            Message::Scanned { device, looked } => {
                self.scanning = false;
                // Said once per stick plugged in: what the director menu can offer
                // from it (a bundle RAUC could not read has no version).
                let bundles: Vec<String> = looked
                    .iter()
                    .map(|(file, version)| format!("{file} ({})", version.as_deref().unwrap_or("unreadable")))
                    .collect();
                tracing::info!(
                    "update: looked at {device} for update bundles: {} found {}",
                    bundles.len(),
                    bundles.join(", ")
                );
                if let Some(entry) = self.scanned.iter_mut().find(|(d, _)| *d == device) {
                    entry.1 = looked;
                }
            }
            Message::Checked { device, file, result } => {
                let reason = match (result, self.release.clone()) {
                    (Ok((staged, info)), Some(release)) if info.compatible == release.compatible => {
                        let preview = UpdatePreview {
                            file: file.clone(),
                            signer: shown(&info.signer),
                            version: shown(&info.version),
                            current: shown(&release.version),
                            compatible: shown(&info.compatible),
                            description: shown(&info.description),
                            kind: UpdateKind::of(&release.version, &info.version),
                        };
                        tracing::info!(
                            "update: {file} copied and checked: version {} ({} bytes, sha256 {}); previewed",
                            preview.version,
                            staged.size(),
                            staged.sha256()
                        );
                        self.open = Some(OpenBundle { device, file, staged, preview: preview.clone() });
                        return self.reports.push_back((UpdateReport::Preview(preview), None));
                    }
                    (Ok((staged, info)), Some(release)) => {
                        staged.remove();
                        UpdateError::OtherStation { bundle: info.compatible, station: release.compatible }
                    }
                    (Ok((staged, _)), None) => {
                        staged.remove();
                        UpdateError::NotUpdatable
                    }
                    (Err(reason), _) => reason,
                };
                self.refusals.refuse(&device, &file);
                self.reports.push_back((
                    UpdateReport::Refused(reason.clone()),
                    Some(Finished::Refused { bundle: file, reason }),
                ));
            }
            Message::Progress(percent) => self.reports.push_back((UpdateReport::Progress(percent), None)),
            Message::Installed => {
                let version = self.installing.take().map(|b| b.preview.version).unwrap_or_default();
                self.reports.push_back((
                    UpdateReport::Installed { version: version.clone() },
                    Some(Finished::Installed { version }),
                ));
            }
            Message::InstallFailed(reason) => {
                let bundle = self.installing.take();
                if let (Some(bundle), UpdateError::Changed) = (&bundle, &reason) {
                    // Not what was previewed: not offered again either.
                    self.refusals.refuse(&bundle.device, &bundle.file);
                }
                let version = bundle.map(|b| b.preview.version).unwrap_or_default();
                self.reports
                    .push_back((UpdateReport::Failed(reason.clone()), Some(Finished::Failed { version, reason })));
            }
            // No screen waits for these (the flow drops a report for a phase
            // it is not in): they are recorded.
            Message::Resumed { version, result: Ok(()) } => self.reports.push_back((
                UpdateReport::Installed { version: version.clone() },
                Some(Finished::Installed { version }),
            )),
            Message::Resumed { version, result: Err(reason) } => self
                .reports
                .push_back((UpdateReport::Failed(reason.clone()), Some(Finished::Failed { version, reason }))),
        }
    }

    /// The next report, if any, and what to record of it.
    pub fn poll(&mut self) -> Option<(UpdateReport, Option<Finished>)> {
        self.drain_abandoned();
        self.drain();
        self.reports.pop_front()
    }
}

#[cfg(test)]
mod tests;
