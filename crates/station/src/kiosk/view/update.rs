//! An update of the station, worded for a director: what the update is,
//! what happens next (it installs, then the station restarts by itself, and
//! for about how long the judge is out of service), and, in the alert band
//! the other screens use for what must not be missed, why one will not
//! install or why a PIN was refused. No file name, path or internal name (a
//! compatible string, a system "slot", RAUC's own words) reaches these
//! screens: a director at a venue cannot act on them, and the audit log
//! keeps them for whoever can. (The menu item and the line about the last
//! update are the director menu's.)

use super::*;
use crate::desks::{StationKind, UpdateError, UpdateNotStarted};

/// How long an update keeps the station from judging, from the director's
/// ENTER to Ready on the new version, as a director can plan with it. The
/// measured figures (docs/measured.md, "Updates"; emulated machines, which
/// are slower than a Pi or a PC): 45 s on the PC image (133 s beside a
/// build), 83 s on the Pi card (39 s of it the install); the station now
/// also reads its copy of the bundle again before installing it. Rounded up
/// to a figure that holds on a busy or slow station.
const HOW_LONG: &str = "about 2 minutes";

const BACK: &str = "Press any key to return to the director menu.";

/// A kind of station in words.
fn kind_words(kind: StationKind) -> Option<&'static str> {
    match kind {
        StationKind::PcImage => Some("PC image"),
        StationKind::PiCard => Some("Raspberry Pi card"),
        StationKind::Simulated => Some("simulated station"),
        StationKind::Other => None,
    }
}

/// `162` for 161,234,567 bytes: MB as the stick menu counts them, rounded up.
fn megabytes(bytes: u64) -> u64 {
    bytes.div_ceil(1_000_000)
}

/// Why an update will not install, or did not, for the alert band.
fn refusal(error: &UpdateError) -> String {
    match error {
        UpdateError::OtherStation { bundle, station } => {
            let this =
                kind_words(StationKind::of(station)).map(|k| format!(" This station is a {k}.")).unwrap_or_default();
            match kind_words(StationKind::of(bundle)) {
                Some(kind) => format!("This update is for a different kind of station ({kind}).{this}"),
                None => format!("This update is for another kind of station.{this}"),
            }
        }
        UpdateError::Refused(_) => {
            "This update is not signed with this station's update key, or its file is damaged or incomplete.".into()
        }
        UpdateError::Unreadable(_) => "The station could not read what this update says of itself.".into(),
        UpdateError::NotRun(_) => "The station's update service could not be started.".into(),
        UpdateError::NotUpdatable => "This station does not take updates.".into(),
        UpdateError::Stick(_) => "The update could not be read from the stick. Was it removed?".into(),
        UpdateError::NoRoom { needed, free } => format!(
            "There is not enough room on the station for this update: it needs {} MB free, and {} MB are.",
            megabytes(*needed),
            free / 1_000_000
        ),
        UpdateError::CopyFailed(_) => "The station could not keep a copy of this update to install it from.".into(),
        UpdateError::Changed => {
            "The station's copy of this update changed after it was checked, so it was not installed.".into()
        }
        UpdateError::InstallFailed(why) => install_failed(why),
        UpdateError::Interrupted(_) => {
            "Installing stopped before the end: the station's screen program restarted during it.".into()
        }
    }
}

/// Why an install stopped, in words a director can act on where RAUC's
/// reason is one we know (the whole reason is in the audit log): RAUC's
/// own text is all there is to go by.
fn install_failed(why: &str) -> String {
    let cause = if why.contains("No space left on device") {
        ": the station's data partition is full. Free space, then install again."
    } else if why.contains("Failed to read bundle") || why.contains("No such device") {
        ": the update could not be read. Was the stick removed?"
    } else {
        "."
    };
    format!("Installing stopped before the end{cause}")
}

/// Why the install did not start.
fn not_started(error: &UpdateNotStarted) -> String {
    match error {
        UpdateNotStarted::Busy => "The station is still busy with a stick. Try again in a moment.".into(),
        UpdateNotStarted::NotOpen => {
            "The update was put away before it could install. Choose it again in the menu.".into()
        }
        UpdateNotStarted::Unavailable => "This station has no USB stick support.".into(),
        UpdateNotStarted::AuditLogFailing(problem) => {
            format!("Nothing was installed: the audit log cannot be written. {problem}")
        }
        UpdateNotStarted::NotNoted(_) => {
            "Nothing was installed: the station could not write to its data partition.".into()
        }
    }
}

/// How the offered version stands to the station's; `asking` once the
/// director is already at the PIN prompt it announces.
fn kind_line(kind: UpdateKind, asking: bool) -> &'static str {
    match (kind, asking) {
        (UpdateKind::Upgrade, _) => "Newer than this station's version.",
        (UpdateKind::Reinstall, false) => {
            "The SAME version as this station's: a reinstall. ENTER asks for the director PIN again."
        }
        (UpdateKind::Downgrade, false) => {
            "OLDER than this station's version: a downgrade. ENTER asks for the director PIN again."
        }
        (UpdateKind::Reinstall, true) => "The SAME version as this station's: a reinstall.",
        (UpdateKind::Downgrade, true) => "OLDER than this station's version: a downgrade.",
    }
}

/// What ENTER sets going, on the screens that confirm an install.
fn what_happens() -> String {
    format!("It installs, then the station restarts by itself: {HOW_LONG}, during which players cannot use it.")
}

fn facts(preview: &UpdatePreview) -> String {
    let made_for = match kind_words(StationKind::of(&preview.compatible)) {
        Some(kind) => format!("Made for this kind of station ({kind})."),
        None => "Made for this kind of station.".to_string(),
    };
    let mut lines = vec![
        format!("Version {} (this station: {})", preview.version, preview.current),
        format!("Signed by: {}", preview.signer),
        made_for,
    ];
    if !preview.description.is_empty() {
        lines.push(preview.description.clone());
    }
    lines.join("\n")
}

pub(super) fn update_view(v: &mut ViewModel, kiosk: &Kiosk, now: Duration, update: &UpdateScreen) {
    v.screen = ScreenKind::Usb;
    v.menu.title = "Update the station".into();
    let (status, alert, detail) = match &update.phase {
        UpdatePhase::Checking => (
            "Checking the update…".to_string(),
            String::new(),
            "It is copied onto the station and its signature checked; nothing is installed yet. Do not remove the stick until this is done.".to_string(),
        ),
        UpdatePhase::Preview(preview) => (
            format!("Install version {}?", preview.version),
            String::new(),
            format!(
                "{}\n{}\n{}\nENTER to install · ESC to cancel",
                facts(preview),
                kind_line(preview.kind, false),
                what_happens()
            ),
        ),
        UpdatePhase::Pin { preview, typed, message } => {
            let dots = if typed.is_empty() { "type the PIN".to_string() } else { "●".repeat(typed.len()) };
            let alert = match kiosk.pin_locked_until(now) {
                Some(_) => "Locked after too many wrong PINs.".to_string(),
                None => message.map(super::director::pin_message).unwrap_or_default(),
            };
            (
                format!("Director PIN again to install version {}", preview.version),
                alert,
                format!(
                    "{dots}\n{}\n{}\nENTER to install · ESC to cancel",
                    kind_line(preview.kind, true),
                    what_happens()
                ),
            )
        }
        UpdatePhase::Installing { preview, percent } => {
            v.usb.progress_shown = true;
            v.usb.progress = percent.map_or(0, i32::from);
            let shown = percent.map(|p| format!(" {p}%")).unwrap_or_default();
            (
                format!("Installing version {}…{shown}", preview.version),
                String::new(),
                format!(
                    "Then the station restarts by itself into the new version: {HOW_LONG} in all, during which players cannot use it. \
                     It keeps its current version until then. The stick is no longer needed."
                ),
            )
        }
        UpdatePhase::Done(UpdateDone::Refused(error)) => (
            "This update will not be installed.".to_string(),
            refusal(error),
            format!(
                "Nothing changed on this station. It is not offered again until the stick is plugged in again. \
                 The audit log has the details. {BACK}"
            ),
        ),
        UpdatePhase::Done(UpdateDone::NoAnswer { seconds }) => (
            "The update did not start.".to_string(),
            format!("The stick did not answer within {seconds} seconds, so the station stopped waiting for it."),
            format!("Nothing changed on this station. Try the stick again, or another stick. {BACK}"),
        ),
        UpdatePhase::Done(UpdateDone::NotStarted(error)) => (
            "The update did not start.".to_string(),
            not_started(error),
            format!("Nothing changed on this station. {BACK}"),
        ),
        UpdatePhase::Done(UpdateDone::Failed(error)) => (
            "The update did not finish.".to_string(),
            refusal(error),
            format!("The station runs as before. The audit log has the details. {BACK}"),
        ),
        UpdatePhase::Done(UpdateDone::Installed { version, restart: Ok(()) }) => (
            format!("Installed version {version} — restarting"),
            String::new(),
            "The station restarts now, which takes about a minute, and checks that the new version starts; \
             if it does not, it goes back to this version by itself."
                .to_string(),
        ),
        UpdatePhase::Done(UpdateDone::Installed { version, restart: Err(_) }) => (
            format!("Installed version {version}"),
            "The station could not restart by itself.".to_string(),
            format!("It runs the new version after its next restart. {BACK}"),
        ),
    };
    v.usb.status = status;
    v.usb.alert = alert;
    v.usb.detail = detail;
}
