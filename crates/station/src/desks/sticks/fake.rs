//! The fake station's stick desk: the sticks and work a test scripted,
//! handed out as the flow polls for it.

use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::StickWork;
use crate::desks::{StickChoice, UsbError, UsbRequest, UsbUpdate};

impl StickWork for FakeStation {
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
}
