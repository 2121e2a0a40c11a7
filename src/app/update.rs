//! The real station's update work: a plugged-in stick looked at for
//! bundles, one checked and previewed, installed with its progress.
//!
//! Like the USB desk (`super::usb`), every piece of work runs on a thread of
//! its own, one at a time, and reports through a channel the kiosk polls on
//! each tick: `rauc info` checks a signature over a bundle on a slow stick
//! and `rauc install` writes a whole system slot, and the screen must never
//! freeze nor the watchdog go hungry. The stick is mounted read-only through
//! the same [`Sticks::attach`] as a word-list import, and unmounted when the
//! work is over, whatever its outcome.

use crate::kiosk::station::{UpdateOffer, UpdatePreview, UpdateReport, UsbError};
use crate::update::{shown, BundleInfo, StationRelease, UpdateKind, Updates};
use crate::usb::{Mode, Stick, Sticks};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Arc;

/// What a stick holds: the bundle to offer (the newest verified version,
/// else the first file, unverified).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Found {
    file: String,
    version: Option<String>,
}

/// What a worker thread hands back.
enum Message {
    Scanned { device: String, found: Option<Found> },
    Checked { stick: Stick, path: PathBuf, result: Result<BundleInfo, String> },
    Progress(u8),
    Installed,
    InstallFailed(String),
}

/// A bundle checked and previewed, its stick still mounted.
#[derive(Debug, Clone)]
pub struct OpenBundle {
    pub stick: Stick,
    pub path: PathBuf,
    pub preview: UpdatePreview,
}

/// What finished, for the audit log.
pub enum Finished {
    /// The check refused the bundle the director chose (`bundle`: its file).
    Refused { bundle: String, reason: String },
    Installed { version: String },
    Failed { version: String, reason: String },
}

/// The station's update desk: at most one piece of work at a time.
pub struct UpdateDesk {
    updates: Arc<dyn Updates>,
    sticks: Arc<dyn Sticks>,
    release: Option<StationRelease>,
    /// Each stick looked at (device), and what it holds.
    scanned: Vec<(String, Option<Found>)>,
    running: Option<mpsc::Receiver<Message>>,
    /// The running work is the menu's background look at a stick.
    scanning: bool,
    open: Option<OpenBundle>,
    /// The bundle being installed.
    installing: Option<OpenBundle>,
    reports: VecDeque<(UpdateReport, Option<Finished>)>,
}

/// The bundle to offer among those looked at.
fn choose(found: Vec<(String, Option<String>)>) -> Option<Found> {
    let newest = found
        .iter()
        .filter_map(|(file, version)| Some((file, version.as_ref()?)))
        .max_by(|a, b| crate::update::compare_versions(a.1, b.1).unwrap_or(std::cmp::Ordering::Equal));
    match newest {
        Some((file, version)) => Some(Found { file: file.clone(), version: Some(version.clone()) }),
        None => found.into_iter().next().map(|(file, _)| Found { file, version: None }),
    }
}

impl UpdateDesk {
    pub fn new(updates: Arc<dyn Updates>, sticks: Arc<dyn Sticks>) -> UpdateDesk {
        let release = updates.release();
        UpdateDesk { updates, sticks, release, scanned: Vec::new(), running: None, scanning: false, open: None, installing: None, reports: VecDeque::new() }
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

    /// Whether it works with a stick now (running, or a bundle open).
    pub fn busy(&self) -> bool {
        self.running.is_some() || self.open.is_some()
    }

    fn start(&mut self, job: impl FnOnce(&mpsc::Sender<Message>) -> Message + Send + 'static, on_panic: Message) -> Result<(), UsbError> {
        if self.running.is_some() {
            return Err(UsbError::Busy);
        }
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new().name("wordjudge-update".into()).spawn(move || {
            // A bug below must end as failed work, never as a dead kiosk.
            let last = catch_unwind(AssertUnwindSafe(|| job(&tx))).unwrap_or(on_panic);
            let _ = tx.send(last);
        });
        match spawned {
            Ok(_) => {
                self.running = Some(rx);
                Ok(())
            }
            Err(_) => Err(UsbError::Busy),
        }
    }

    /// The offer for the director menu, given the sticks plugged in now;
    /// a stick not looked at yet is looked at in the background when
    /// `may_mount` (no other stick work runs).
    pub fn offer(&mut self, plugged: &[Stick], may_mount: bool) -> Option<UpdateOffer> {
        let release = self.release.clone()?;
        self.drain();
        self.scanned.retain(|(device, _)| plugged.iter().any(|s| s.device == *device));
        if may_mount && !self.busy() {
            if let Some(stick) = plugged.iter().find(|s| !self.scanned.iter().any(|(d, _)| *d == s.device)) {
                self.scan(stick.clone());
            }
        }
        self.scanned.iter().find_map(|(device, found)| {
            let found = found.as_ref()?;
            Some(UpdateOffer {
                device: device.clone(),
                file: found.file.clone(),
                version: found.version.clone(),
                current: shown(&release.version),
            })
        })
    }

    fn scan(&mut self, stick: Stick) {
        let (updates, sticks, device) = (self.updates.clone(), self.sticks.clone(), stick.device.clone());
        let started = self.start(
            move |_| {
                let found = sticks.attach(&stick, Mode::Import).ok().and_then(|root| {
                    let bundles = crate::update::find_bundles(&root).unwrap_or_default();
                    let looked: Vec<(String, Option<String>)> = bundles
                        .iter()
                        .map(|path| {
                            let file = path.file_name().map(|n| shown(&n.to_string_lossy())).unwrap_or_default();
                            (file, updates.inspect(path).ok().map(|info| shown(&info.version)))
                        })
                        .collect();
                    let _ = sticks.detach(&stick);
                    choose(looked)
                });
                Message::Scanned { device: stick.device, found }
            },
            Message::Scanned { device: device.clone(), found: None },
        );
        if started.is_ok() {
            self.scanning = true;
            // Looked at once while plugged in: a stick without bundles is
            // not mounted again every second.
            self.scanned.push((device, None));
        }
    }

    /// Mounts the stick `device` and checks bundle `file` on it.
    pub fn check(&mut self, stick: Stick, file: &str) -> Result<(), UsbError> {
        if self.open.is_some() {
            return Err(UsbError::Busy);
        }
        let (updates, sticks, s, file) = (self.updates.clone(), self.sticks.clone(), stick.clone(), file.to_string());
        self.start(
            move |_| {
                let root = match sticks.attach(&s, Mode::Import) {
                    Ok(root) => root,
                    Err(e) => return Message::Checked { stick: s, path: PathBuf::new(), result: Err(e.to_string()) },
                };
                // The file as listed: its name was escaped for the menu, so
                // it is found again among the bundles, never joined blindly.
                let path = crate::update::find_bundles(&root)
                    .unwrap_or_default()
                    .into_iter()
                    .find(|p| p.file_name().is_some_and(|n| shown(&n.to_string_lossy()) == file));
                let Some(path) = path else {
                    return Message::Checked { stick: s, path: PathBuf::new(), result: Err(format!("{file} is no longer on the stick")) };
                };
                let result = updates.inspect(&path).map_err(|e| e.to_string());
                Message::Checked { stick: s, path, result }
            },
            Message::Checked { stick, path: PathBuf::new(), result: Err("an internal error stopped the check (see the journal)".into()) },
        )
    }

    /// Installs the bundle previewed.
    pub fn install(&mut self) -> Result<&OpenBundle, UsbError> {
        let open = self.open.clone().ok_or(UsbError::NotOpen)?;
        let (updates, sticks, bundle) = (self.updates.clone(), self.sticks.clone(), open.clone());
        self.start(
            move |tx| {
                let result = updates.install(&bundle.path, &mut |percent| {
                    let _ = tx.send(Message::Progress(percent));
                });
                let _ = sticks.detach(&bundle.stick);
                match result {
                    Ok(()) => Message::Installed,
                    Err(e) => Message::InstallFailed(e.to_string()),
                }
            },
            Message::InstallFailed("an internal error stopped the install (see the journal)".into()),
        )?;
        self.open = None;
        Ok(self.installing.insert(open))
    }

    /// Drops the bundle previewed and unmounts its stick (in the background).
    pub fn cancel(&mut self) {
        if let Some(open) = self.open.take() {
            self.unmount(open.stick);
        }
    }

    fn unmount(&self, stick: Stick) {
        let sticks = self.sticks.clone();
        let _ = std::thread::Builder::new().name("wordjudge-update".into()).spawn(move || {
            let _ = sticks.detach(&stick);
        });
    }

    /// Takes what the worker said into reports, in order.
    fn drain(&mut self) {
        loop {
            let Some(rx) = self.running.as_ref() else { return };
            let message = match rx.try_recv() {
                Ok(message) => message,
                Err(mpsc::TryRecvError::Empty) => return,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.running = None;
                    if let Some(bundle) = self.installing.take() {
                        let reason = "the install stopped without an answer".to_string();
                        let version = bundle.preview.version;
                        self.reports.push_back((
                            UpdateReport::Failed(reason.clone()),
                            Some(Finished::Failed { version, reason }),
                        ));
                    }
                    return;
                }
            };
            if !matches!(message, Message::Progress(_)) {
                self.running = None;
            }
            self.apply(message);
        }
    }

    fn apply(&mut self, message: Message) {
        match message {
            Message::Scanned { device, found } => {
                self.scanning = false;
                if let Some(entry) = self.scanned.iter_mut().find(|(d, _)| *d == device) {
                    entry.1 = found;
                }
            }
            Message::Checked { stick, path, result } => {
                let file = path.file_name().map(|n| shown(&n.to_string_lossy())).unwrap_or_default();
                let reason = match (result, self.release.clone()) {
                    (Ok(info), Some(release)) if info.compatible == release.compatible => {
                        let preview = UpdatePreview {
                            file,
                            signer: shown(&info.signer),
                            version: shown(&info.version),
                            current: shown(&release.version),
                            compatible: shown(&info.compatible),
                            description: shown(&info.description),
                            kind: UpdateKind::of(&release.version, &info.version),
                        };
                        self.open = Some(OpenBundle { stick, path, preview: preview.clone() });
                        return self.reports.push_back((UpdateReport::Preview(preview), None));
                    }
                    (Ok(info), Some(release)) => format!(
                        "it is for {}, and this station is {}",
                        shown(&info.compatible),
                        shown(&release.compatible)
                    ),
                    (Ok(_), None) => crate::update::UpdateError::NotUpdatable.to_string(),
                    (Err(reason), _) => reason,
                };
                self.unmount(stick);
                self.reports
                    .push_back((UpdateReport::Refused(reason.clone()), Some(Finished::Refused { bundle: file, reason })));
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
                let version = self.installing.take().map(|b| b.preview.version).unwrap_or_default();
                self.reports.push_back((UpdateReport::Failed(reason.clone()), Some(Finished::Failed { version, reason })));
            }
        }
    }

    /// The next report, if any, and what to record of it.
    pub fn poll(&mut self) -> Option<(UpdateReport, Option<Finished>)> {
        self.drain();
        self.reports.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_verified_bundle_is_offered() {
        let found = |v: &[(&str, Option<&str>)]| {
            choose(v.iter().map(|(f, v)| (f.to_string(), v.map(str::to_string))).collect())
        };
        assert_eq!(
            found(&[("a.raucb", Some("0.1.2")), ("b.raucb", None), ("c.raucb", Some("0.1.10"))]),
            Some(Found { file: "c.raucb".into(), version: Some("0.1.10".into()) })
        );
        assert_eq!(found(&[("x.raucb", None), ("y.raucb", None)]), Some(Found { file: "x.raucb".into(), version: None }));
        assert_eq!(found(&[]), None);
    }
}
