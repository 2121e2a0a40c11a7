//! The live stick desk: the sticks plugged in, and the work on one
//! started, polled and cancelled on the job desk's thread (`worker`), each
//! outcome recorded.

use crate::desks::live::LiveStation;
use crate::desks::sticks::worker::Finished;
use crate::desks::StickWork;
use crate::desks::{StickChoice, UsbError, UsbRequest, UsbUpdate, UsbWork};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::usb::Stick;

impl StickWork for LiveStation {
    fn sticks(&mut self) -> Vec<StickChoice> {
        self.usb.list().into_iter().map(|s| StickChoice { name: s.describe(), device: s.device }).collect()
    }

    fn import_names(&self) -> Vec<String> {
        wordjudge_core::lexicon::import::names().into_iter().map(str::to_string).collect()
    }

    fn usb_request(&mut self, request: UsbRequest) -> Result<(), UsbError> {
        if self.usb.busy() {
            return Err(UsbError::Busy);
        }
        if self.update.busy() {
            // Plugging a stick in with the menu open starts a look for update
            // bundles on it (a few seconds): a director who chooses a USB item
            // then waits for it (the flow shows the work running) rather than
            // being refused. Anything else holding the stick refuses.
            if self.update.scanning() && self.deferred_usb.is_none() {
                self.deferred_usb = Some(request);
                return Ok(());
            }
            return Err(UsbError::Busy);
        }
        self.start_usb_request(request)
    }

    fn usb_cancel(&mut self) {
        if let Some(request) = self.deferred_usb.take() {
            self.record_unstarted(request);
        }
        if let Some(work) = self.usb.abandon() {
            tracing::warn!(?work, "stopped waiting for stick work; what it still does is recorded when it ends");
        }
    }

    fn usb_update(&mut self) -> Option<UsbUpdate> {
        for finished in self.usb.poll_abandoned() {
            self.record_usb(finished);
        }
        if !self.update.busy() {
            if let Some(request) = self.deferred_usb.take() {
                let work = request.work();
                if let Err(e) = self.start_usb_request(request) {
                    return Some(UsbUpdate::Failed { work, problem: e.to_string() });
                }
            }
        }
        let (update, finished) = self.usb.poll()?;
        self.record_usb(finished);
        Some(update)
    }
}

impl LiveStation {
    /// The plugged-in stick named `device` (or a bare one: the helper will
    /// say it is gone).
    pub(in crate::desks) fn stick(&self, device: &str) -> Stick {
        self.usb.list().into_iter().find(|s| s.device == device).unwrap_or_else(|| Stick {
            device: device.to_string(),
            label: String::new(),
            fs_type: String::new(),
            size: 0,
        })
    }

    /// Records finished USB work and says it in the journal (the boot test
    /// and an operator read these lines).
    pub(in crate::desks) fn record_usb(&mut self, finished: Finished) {
        match finished {
            Finished::Opened { stick, lists } => {
                tracing::info!("usb: import list ready: {lists} word lists on {}", stick.describe());
            }
            Finished::Quiet => {}
            Finished::Installed { stick, file, report, facts } => {
                let id = report.lexicon.id.to_string();
                tracing::info!("usb: installed {id} from {file} ({})", facts.status);
                self.record(AuditEvent::LexiconInstalled {
                    lexicon: id,
                    file: report.layer.fst.to_string(),
                    source: format!("{file} on {}", stick.describe()),
                    status: facts.status,
                    evidence: report.evidence.to_string(),
                    fingerprint: facts.fingerprint,
                    content_sha256: facts.content_sha256,
                    fst_sha256: facts.fst_sha256,
                    words: facts.words,
                });
            }
            Finished::InstallRefused { stick, file, name, reason } => {
                tracing::warn!("usb: install of {file} refused: {reason}");
                let source = format!("{file} on {}", stick.describe());
                self.record(AuditEvent::LexiconInstallRefused { source, name, reason });
            }
            Finished::Ejected { stick } => {
                tracing::info!("usb: ejected {}: the stick may be removed", stick.device);
                self.record(AuditEvent::UsbStick { action: "ejected".into(), stick: stick.describe() });
            }
            Finished::Exported { stick, export } => {
                let folder = export.folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                tracing::info!(
                    "usb: exported {} lines to {folder} on {} (intact: {})",
                    export.lines,
                    stick.device,
                    export.intact
                );
                tracing::info!("usb: ejected {}: the stick may be removed", stick.device);
                self.record(AuditEvent::UsbStick {
                    action: format!("export written to {folder}, ejected"),
                    stick: stick.describe(),
                });
            }
            Finished::Fleet { stick, result } => self.record_fleet(&stick, result),
            Finished::Failed { stick, work, problem } => {
                let action = match work {
                    UsbWork::Reading => "import",
                    UsbWork::Installing => "install",
                    UsbWork::Ejecting => "eject",
                    UsbWork::Exporting => "export",
                    UsbWork::JoiningFleet => "fleet join",
                };
                tracing::warn!("usb: failed ({action}) with {}: {problem}", stick.device);
                self.record(AuditEvent::UsbFailed { action: action.into(), stick: stick.describe(), problem });
            }
        }
    }

    /// Records a director's request that waited for the menu's look for
    /// update bundles and was stopped before it began (its stick pulled, or
    /// no answer in time) as failed stick work, in the journal and the audit
    /// log, as a request that had begun is: every request the director makes
    /// leaves its trace, whichever of the two held the stick when it ended.
    pub(in crate::desks) fn record_unstarted(&mut self, request: UsbRequest) {
        let device = match &request {
            UsbRequest::OpenForImport { device } | UsbRequest::Export { device } | UsbRequest::JoinFleet { device } => {
                device.as_str()
            }
            UsbRequest::Rename { .. } | UsbRequest::Install { .. } | UsbRequest::Eject => "",
        };
        let stick = self.stick(device);
        let problem =
            "stopped before it began: the station was still looking at the stick for update bundles".to_string();
        self.record_usb(Finished::Failed { stick, work: request.work(), problem });
    }
}
