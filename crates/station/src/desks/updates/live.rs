//! An update of the station as audit records: refused at its check, or
//! started (what the director confirmed), installed or failed, and the boot
//! check's verdict after the restart, recorded exactly once.

use crate::desks::updates::boot_check::Looked;
use crate::desks::updates::worker::Finished;
use crate::desks::{UpdateNotStarted, UpdateOffer, UpdateReport, UpdateRequest};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::update::BootCheck;
use wordjudge_core::update::{clear_install_started, mark_install_started};

use crate::desks::live::LiveStation;
use crate::desks::UpdateWork;

impl LiveStation {
    pub(in crate::desks) fn request_update(&mut self, request: UpdateRequest) -> Result<(), UpdateNotStarted> {
        match request {
            UpdateRequest::Check { device, file } => {
                if self.update.release().is_none() {
                    return Err(UpdateNotStarted::Unavailable);
                }
                if !self.usb.idle() || self.update.busy() {
                    return Err(UpdateNotStarted::Busy);
                }
                let stick = self.stick(&device);
                self.update.check(stick, &file)
            }
            UpdateRequest::Install => {
                let current = self.update.release().map(|r| r.version.clone()).unwrap_or_default();
                let preview = self.update.previewed().ok_or(UpdateNotStarted::NotOpen)?.preview.clone();
                // An update is recorded before it starts, or it does not start.
                if let Some(problem) = self.audit_problem() {
                    tracing::warn!(
                        "update: {} not installed: the audit log cannot be written: {problem}",
                        preview.version
                    );
                    self.update.cancel();
                    return Err(UpdateNotStarted::AuditLogFailing(problem));
                }
                let started = AuditEvent::UpdateStarted {
                    version: preview.version.clone(),
                    current: wordjudge_core::update::shown(&current),
                    signer: preview.signer.clone(),
                    bundle: preview.file.clone(),
                    downgrade: preview.kind.needs_pin(),
                };
                let refused = if !self.record_written(started) {
                    // Held in memory: written later, followed by why nothing installed.
                    let problem = self.audit_problem().unwrap_or_else(|| "its record could not be written".into());
                    Some((
                        format!("the audit log cannot be written: {problem}"),
                        UpdateNotStarted::AuditLogFailing(problem),
                    ))
                } else {
                    // Marked before RAUC is asked: a kiosk killed from here on
                    // leaves the next one the question of how the install ended.
                    match self.update_state.as_deref().map(|dir| mark_install_started(dir, &preview.version)) {
                        Some(Err(e)) => {
                            let why = format!("the install could not be noted on the data partition: {e}");
                            Some((why.clone(), UpdateNotStarted::NotNoted(why)))
                        }
                        _ => None,
                    }
                };
                if let Some((why, error)) = refused {
                    tracing::warn!("update: {} not installed: {why}", preview.version);
                    self.record(AuditEvent::UpdateFailed {
                        version: preview.version,
                        reason: format!("not started: {why}"),
                    });
                    self.update.cancel();
                    return Err(error);
                }
                match self.update.install() {
                    Ok(bundle) => tracing::info!(
                        "update: installing {} from the station's copy of {} (sha256 {})",
                        preview.version,
                        preview.file,
                        bundle.staged.sha256()
                    ),
                    Err(e) => {
                        self.record(AuditEvent::UpdateFailed {
                            version: preview.version,
                            reason: format!("not started: {e}"),
                        });
                        self.install_ended();
                        return Err(e);
                    }
                }
                // A new update: the last one's verdict no longer applies.
                self.last_update = None;
                Ok(())
            }
            UpdateRequest::Cancel => {
                self.update.cancel();
                if self.update.abandon_check() {
                    tracing::warn!("update: stopped waiting for the bundle's check");
                }
                Ok(())
            }
        }
    }

    /// The next update report, recorded first when it ends a check with a
    /// refusal or ends an install (`update_installed` comes before the flow
    /// asks for the restart).
    pub(in crate::desks) fn next_update_report(&mut self) -> Option<UpdateReport> {
        let (report, finished) = self.update.poll()?;
        match finished {
            Some(Finished::Refused { bundle, reason }) => {
                tracing::warn!("update: {bundle} refused: {reason}");
                self.record(AuditEvent::UpdateRefused { bundle, reason: reason.to_string() });
            }
            Some(Finished::Installed { version }) => {
                tracing::info!("update: {version} installed; the station boots it at its next restart");
                self.record(AuditEvent::UpdateInstalled { version });
                self.install_ended();
            }
            Some(Finished::Failed { version, reason }) => {
                tracing::warn!("update: {version} failed: {reason}");
                self.record(AuditEvent::UpdateFailed { version, reason: reason.to_string() });
                self.install_ended();
            }
            None => {}
        }
        Some(report)
    }

    /// An install's end is recorded: the marker of its start goes.
    pub(in crate::desks) fn install_ended(&mut self) {
        if let Some(dir) = &self.update_state {
            clear_install_started(dir);
        }
    }

    /// Records the boot check's verdict, if one appeared (BootCheckRecorder:
    /// exactly once, even across restarts). Without a log nothing is recorded.
    pub(in crate::desks) fn record_boot_check(&mut self) {
        let Some(dir) = self.update_state.clone() else { return };
        let Some(audit) = self.audit.as_mut() else { return };
        match self.boot_check.look(&dir, audit) {
            Looked::Nothing => {}
            Looked::Recorded(check) => self.last_update = Some(check),
            Looked::RecordedStopLooking(check) => {
                self.last_update = Some(check);
                self.update_state = None;
            }
        }
    }
}

impl UpdateWork for LiveStation {
    fn update_offer(&mut self) -> Option<UpdateOffer> {
        let plugged = self.usb.list();
        let may_mount = self.usb.idle();
        self.update.offer(&plugged, may_mount)
    }

    fn update_request(&mut self, request: UpdateRequest) -> Result<(), UpdateNotStarted> {
        self.request_update(request)
    }

    fn update_report(&mut self) -> Option<UpdateReport> {
        self.next_update_report()
    }

    fn last_update(&self) -> Option<BootCheck> {
        self.last_update.clone()
    }
}
