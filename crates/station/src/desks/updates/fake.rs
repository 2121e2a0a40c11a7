//! The fake station's update desk: the offers and reports a test scripted.

use crate::desks::fake::{FakeRecord, FakeStation};
use crate::desks::UpdateWork;
use crate::desks::{UpdateNotStarted, UpdateOffer, UpdateReport, UpdateRequest};
use wordjudge_core::update::{BootCheck, UpdateError};

impl UpdateWork for FakeStation {
    fn update_offer(&mut self) -> Option<UpdateOffer> {
        let plugged: Vec<&str> = self.sticks.iter().map(|s| s.device.as_str()).collect();
        self.refusals.plugged(&plugged);
        self.update_offer.clone().filter(|o| !self.refusals.is_refused(&o.device, &o.file))
    }

    fn update_request(&mut self, request: UpdateRequest) -> Result<(), UpdateNotStarted> {
        match &request {
            UpdateRequest::Check { .. } if self.update_offer.is_none() => return Err(UpdateNotStarted::Unavailable),
            UpdateRequest::Check { .. } if !self.update_reports.is_empty() => return Err(UpdateNotStarted::Busy),
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
                let preview = self.update_checked.take().ok_or(UpdateNotStarted::NotOpen)?;
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
            UpdateReport::Installed { version } => {
                self.records.push(FakeRecord::UpdateInstalled { version: version.clone() })
            }
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
}
