//! The boot check's verdict (`update/boot-check`, after an update's restart)
//! turned into one `update_outcome` audit record: by the live station, and by
//! a station out of service for want of a screen, whose record the director
//! needs just as much (an update may be what took the screen away).

use std::path::Path;

use wordjudge_core::audit::AuditEvent;
use wordjudge_core::recorder::AuditLog;
use wordjudge_core::update::{mark_boot_check_recorded, pending_boot_check, BootCheck};

/// What one look at the verdict file did.
#[derive(Debug)]
pub enum Looked {
    /// No verdict waiting, or one already recorded and not yet on disk.
    Nothing,
    /// A verdict, recorded now; its file renamed once the record was written.
    Recorded(BootCheck),
    /// Recorded, but its file cannot be renamed: left in place it would be
    /// recorded again at every look, so the caller stops looking.
    RecordedStopLooking(BootCheck),
}

/// Records each verdict exactly once, even across restarts: the file is
/// renamed only once its record is written. A record the log holds in memory
/// (the disk failing) keeps the file until it is written.
#[derive(Debug, Default)]
pub struct BootCheckRecorder {
    held: bool,
}

impl BootCheckRecorder {
    /// Looks for a verdict in the update folder `dir` and records it in `audit`.
    pub fn look(&mut self, dir: &Path, audit: &mut AuditLog) -> Looked {
        if self.held {
            // Recorded already, held in memory: renamed once it is written.
            if audit.problem().is_none() {
                self.held = false;
                if let Err(e) = mark_boot_check_recorded(dir) {
                    tracing::warn!("update: cannot mark the boot check recorded: {e}");
                }
            }
            return Looked::Nothing;
        }
        let Some(check) = pending_boot_check(dir) else { return Looked::Nothing };
        let written = audit.record_event(AuditEvent::UpdateOutcome {
            slot: check.slot.clone(),
            version: check.version.clone(),
            outcome: check.outcome.as_str().to_string(),
            detail: check.detail.clone(),
        });
        tracing::info!("update: boot check of {} (slot {}): {}", check.version, check.slot, check.outcome.as_str());
        if !written {
            self.held = true;
            return Looked::Recorded(check);
        }
        match mark_boot_check_recorded(dir) {
            Ok(()) => Looked::Recorded(check),
            Err(e) => {
                tracing::warn!("update: cannot mark the boot check recorded: {e}");
                Looked::RecordedStopLooking(check)
            }
        }
    }
}
