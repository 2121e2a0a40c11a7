//! An update of the station, worded: the bundle's facts to confirm, the
//! director PIN again for a downgrade, the progress bar, the outcome. (Its
//! menu item and the line about the last update are the director menu's.)

use super::*;

fn kind_line(kind: UpdateKind) -> &'static str {
    match kind {
        UpdateKind::Upgrade => "Newer than this station's version.",
        UpdateKind::Reinstall => "The SAME version as this station's: a reinstall. ENTER asks for the director PIN again.",
        UpdateKind::Downgrade => "OLDER than this station's version: a downgrade. ENTER asks for the director PIN again.",
    }
}

fn facts(preview: &UpdatePreview) -> String {
    let mut lines = vec![
        format!("Version {} (this station: {})", preview.version, preview.current),
        format!("Signed by: {}", preview.signer),
        format!("For: {} (compatible with this station)", preview.compatible),
        format!("File: {}", preview.file),
    ];
    if !preview.description.is_empty() {
        lines.push(preview.description.clone());
    }
    lines.join("\n")
}

pub(super) fn update_view(v: &mut ViewModel, kiosk: &Kiosk, now: Duration, update: &UpdateScreen) {
    v.screen = ScreenKind::Usb;
    v.menu.title = format!("Update the station — {}", update.offer.file);
    let back = "Press any key to return to the director menu.";
    let (status, detail) = match &update.phase {
        UpdatePhase::Checking => (
            "Checking the update…".to_string(),
            "Its signature and compatibility are checked; nothing is installed yet. Do not remove the stick.".to_string(),
        ),
        UpdatePhase::Preview(preview) => (
            format!("Install version {}?", preview.version),
            format!("{}\n{}\nENTER to install · ESC to cancel", facts(preview), kind_line(preview.kind)),
        ),
        UpdatePhase::Pin { preview, typed, message } => {
            let dots = if typed.is_empty() { "type the PIN".to_string() } else { "●".repeat(typed.len()) };
            let message = match kiosk.pin_locked_until(now) {
                Some(_) => "Locked after too many wrong PINs.".to_string(),
                None => message.map(super::director::pin_message).unwrap_or_default(),
            };
            (
                format!("Director PIN again to install version {}", preview.version),
                format!("{dots}\n{message}\n{}\nENTER to install · ESC to cancel", kind_line(preview.kind)),
            )
        }
        UpdatePhase::Installing { preview, percent } => {
            v.usb.progress_shown = true;
            v.usb.progress = percent.map_or(0, i32::from);
            let shown = percent.map(|p| format!(" {p}%")).unwrap_or_default();
            (
                format!("Installing version {}…{shown}", preview.version),
                "The other system slot is being written; this station keeps its current version until it restarts. Do not remove the stick.".to_string(),
            )
        }
        UpdatePhase::Done(UpdateDone::Refused(reason)) => {
            ("This update will not be installed.".to_string(), format!("{reason}. Nothing changed. {back}"))
        }
        UpdatePhase::Done(UpdateDone::Failed(reason)) => (
            "The update did not finish.".to_string(),
            format!("{reason}. The station runs as before. {back}"),
        ),
        UpdatePhase::Done(UpdateDone::Installed { version, restart: Ok(()) }) => (
            format!("Installed version {version} — restarting"),
            "The station restarts into the new version and checks that it starts; if it does not, it returns to this one.".to_string(),
        ),
        UpdatePhase::Done(UpdateDone::Installed { version, restart: Err(why) }) => (
            format!("Installed version {version}"),
            format!("The station could not restart ({why}): it runs the new version after its next restart. {back}"),
        ),
    };
    v.usb.status = status;
    v.usb.detail = detail;
}
