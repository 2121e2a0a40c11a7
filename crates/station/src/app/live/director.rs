//! The director's actions that reach past the flow: the clock, settings and
//! USB sticks, each one an audit record whatever its outcome.

use crate::app::usb::Finished;
use wordjudge_core::audit::AuditEvent;
use crate::kiosk::station::{parse_clock, SettingsError, UsbWork};
use wordjudge_core::usb::Stick;

use super::LiveStation;

impl LiveStation {
    /// The plugged-in stick named `device` (or a bare one: the helper will
    /// say it is gone).
    pub(super) fn stick(&self, device: &str) -> Stick {
        self.usb.list().into_iter().find(|s| s.device == device).unwrap_or_else(|| Stick {
            device: device.to_string(),
            label: String::new(),
            fs_type: String::new(),
            size: 0,
        })
    }

    /// Records finished USB work and says it in the journal (the boot test
    /// and an operator read these lines).
    pub(super) fn record_usb(&mut self, finished: Finished) {
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
                tracing::info!("usb: exported {} lines to {folder} on {} (intact: {})", export.lines, stick.device, export.intact);
                tracing::info!("usb: ejected {}: the stick may be removed", stick.device);
                self.record(AuditEvent::UsbStick { action: format!("export written to {folder}, ejected"), stick: stick.describe() });
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

    /// Renames the station, recorded; once saved, the audit log carries the
    /// new name in every later record and checkpoint (the rename's own
    /// record still carries the old one, so the log says where it changed).
    pub(super) fn rename_station(&mut self, name: &str) -> Result<(), SettingsError> {
        let result = wordjudge_core::config::check_station_name(name)
            .map_err(SettingsError::Invalid)
            .and_then(|()| self.save_config(|c| c.station_name = name.to_string()).map_err(SettingsError::Failed));
        self.record_setting("station_name", Some(name), &result);
        if result.is_ok() {
            if let Some(audit) = &mut self.audit {
                audit.set_station(name);
            }
        }
        result
    }

    pub(super) fn try_set_clock(&mut self, local: &str) -> Result<(), SettingsError> {
        let when = parse_clock(local)?;
        if !self.appliance {
            return Err(SettingsError::NotAppliance);
        }
        // systemd-timedated sets the clock (and the RTC, where there is one)
        // on the kiosk's behalf; polkit allows exactly this to user wordjudge.
        let text = when.strftime("%Y-%m-%d %H:%M:%S").to_string();
        match std::process::Command::new("timedatectl").args(["set-time", &text]).status() {
            Ok(status) if status.success() => {
                // The jump shows at the next record (this setting's own):
                // its `clock_jumped` record names the director as the cause.
                if let Some(audit) = &mut self.audit {
                    audit.expect_clock_jump("the director set the clock");
                }
                Ok(())
            }
            Ok(status) => Err(SettingsError::Failed(format!("timedatectl set-time failed ({status})"))),
            Err(e) => Err(SettingsError::Failed(format!("cannot run timedatectl: {e}"))),
        }
    }

    /// Records a director's setting change, done or refused.
    pub(super) fn record_setting(&mut self, setting: &str, value: Option<&str>, result: &Result<(), SettingsError>) {
        self.record(match result {
            Ok(()) => AuditEvent::SettingChanged { setting: setting.into(), value: value.map(str::to_string) },
            Err(e) => AuditEvent::SettingRefused { setting: setting.into(), reason: e.to_string() },
        });
    }

}
