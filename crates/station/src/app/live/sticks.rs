//! The live station's stick desk: the sticks plugged in, and the work on
//! one started, polled and cancelled through the job desk (`app::usb`).

use super::LiveStation;
use crate::app::usb::Finished;
use crate::kiosk::station::StickWork;
use crate::kiosk::station::{StickChoice, UsbError, UsbRequest, UsbUpdate};

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
    /// Records a director's request that waited for the menu's look for
    /// update bundles and was stopped before it began (its stick pulled, or
    /// no answer in time) as failed stick work, in the journal and the audit
    /// log, as a request that had begun is: every request the director makes
    /// leaves its trace, whichever of the two held the stick when it ended.
    fn record_unstarted(&mut self, request: UsbRequest) {
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
