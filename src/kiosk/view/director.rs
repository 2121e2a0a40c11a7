//! The director's screens, worded: the PIN prompt, a setting being typed,
//! and the menu with its facts and warnings.

use super::*;
use crate::kiosk::station::LexiconView;

pub(super) fn pin_message(message: PinMessage) -> String {
    match message {
        PinMessage::NotSet => {
            "No director PIN is set, and this station's settings are damaged: a PIN cannot be set here. Ask the operator to restore the card.".into()
        }
        PinMessage::Wrong { attempts_left: 1 } => "Wrong PIN. 1 attempt left.".into(),
        PinMessage::Wrong { attempts_left } => format!("Wrong PIN. {attempts_left} attempts left."),
        PinMessage::DigitsOnly => "Type the director PIN (digits), then ENTER. ESC leaves.".into(),
    }
}

fn setting_name(setting: Setting) -> String {
    match setting {
        Setting::Pin => "The director PIN is changed.".into(),
        Setting::StationName => "The station name is saved.".into(),
        Setting::Clock => "The clock is set.".into(),
        Setting::Restored => "The last good settings are restored: players can judge again.".into(),
        Setting::Rotation { degrees, pending: true } => format!(
            "Screen rotation {degrees}° is saved: it takes effect after a restart (Reboot, or power off and on)."
        ),
        Setting::Rotation { degrees, pending: false } => {
            format!("Screen rotation {degrees}° is saved: the screen already shows it.")
        }
    }
}

fn menu_message(message: &MenuMessage) -> String {
    match message {
        MenuMessage::Switched { id, status, profile_cleared: false } => format!("Now judging with {id} ({status})."),
        MenuMessage::Switched { id, status, profile_cleared: true } => format!(
            "Now judging with {id} ({status}). The profile's rule is for another family of lexicons, so it no longer applies: no challenge rule is shown under verdicts."
        ),
        MenuMessage::ProfileSwitched { name, lexicon, status } => {
            format!("Profile {name}: now judging with {lexicon} ({status}).")
        }
        MenuMessage::Saved(setting) => setting_name(*setting),
        MenuMessage::SwitchRefused(reason) => format!("Not switched: {reason}"),
        MenuMessage::ConfirmAgain => "Press ENTER again to confirm.".into(),
        MenuMessage::Done => "Done.".into(),
        MenuMessage::NotPossible(reason) => format!("Not possible: {reason}"),
        MenuMessage::UsbRefused(reason) => format!("Not possible: {reason}"),
        MenuMessage::ItemGone(item) => format!(
            "\"{}\" is no longer offered (a stick was pulled or changed): nothing was done.",
            item_text(item, &LexiconView::default(), None)
        ),
        MenuMessage::NotRestored(error) => format!("Not restored: {error}"),
        MenuMessage::NotSaved(error) => format!("Not saved: {error}"),
        MenuMessage::LeftFleet(event) => {
            format!("Left the fleet of {event}: this station sends nothing now, and its fleet key is gone.")
        }
        MenuMessage::NotLeft(error) => format!("Still in the fleet: {error}"),
    }
}

pub(super) fn pin(v: &mut ViewModel, kiosk: &Kiosk, now: Duration, prompt: &PinPrompt) {
        v.screen = ScreenKind::Pin;
        v.pin.title = "Director PIN".into();
        v.pin.dots = "●".repeat(prompt.typed.len());
        v.pin.prompt = if prompt.typed.is_empty() { "type the PIN".into() } else { String::new() };
        v.pin.footer = "ENTER to confirm · ESC to leave".into();
        v.pin.message = match kiosk.pin_locked_until(now) {
            Some(until) => {
                let left = until - now;
                let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
                format!("Locked after too many wrong PINs. Try again in {seconds} s.")
            }
            None => prompt.message.map(pin_message).unwrap_or_default(),
        };
}

pub(super) fn edit(v: &mut ViewModel, edit: &EditPrompt) {
        v.screen = ScreenKind::Edit;
        let first = matches!(edit.field, EditField::Pin { first: true, .. });
        let (title, prompt) = match &edit.field {
            EditField::Pin { step: PinStep::Old, .. } => ("Change the director PIN", "type the current PIN"),
            EditField::Pin { step: PinStep::New, first: true, .. } => {
                ("Set the director PIN", "this station has no director PIN yet: choose one (4 to 12 digits)")
            }
            EditField::Pin { step: PinStep::Again, first: true, .. } => ("Set the director PIN", "type the same PIN again"),
            EditField::Pin { step: PinStep::New, .. } => ("Change the director PIN", "type the new PIN (4 to 12 digits)"),
            EditField::Pin { step: PinStep::Again, .. } => ("Change the director PIN", "type the new PIN again"),
            EditField::StationName => ("Rename the station", "type the station's name"),
            EditField::Clock => ("Set the date and time", "type it as 2026-11-23 14:05"),
        };
        v.edit.title = title.into();
        v.edit.prompt = prompt.into();
        v.edit.value = match edit.field {
            EditField::Pin { .. } => "●".repeat(edit.typed.len()),
            _ => edit.typed.clone(),
        };
        v.edit.message = match &edit.message {
            Some(EditMessage::PinsDiffer) => {
                "The two PINs differ, so nothing was set. Start again: type the new PIN, then once more to confirm.".into()
            }
            Some(EditMessage::KeyNotAllowed) => match edit.field {
                EditField::Pin { .. } => "A PIN is digits only.".into(),
                EditField::Clock => "Digits, - : and a space only.".into(),
                EditField::StationName => "That key cannot be typed here.".into(),
            },
            Some(EditMessage::Refused(error)) => format!("Not changed: {error}"),
            None => String::new(),
        };
        v.edit.footer = if first {
            // No menu exists yet to go back to; say where its key is.
            "ENTER to confirm · ESC to leave · the director menu then opens with Ctrl+Alt+Shift+D".into()
        } else {
            "ENTER to confirm · BACKSPACE to edit · ESC back to the menu".into()
        };
}

/// The director menu's line about the last update the boot check judged
/// (which system slot it went into is the audit log's, not a director's).
fn last_update_line(check: &BootCheck) -> String {
    match check.outcome {
        BootOutcome::MarkedGood => format!("Last update: version {} installed and kept", check.version),
        BootOutcome::RolledBack if check.detail.is_empty() => {
            format!("Last update: version {} did not start; the station went back to its previous version", check.version)
        }
        BootOutcome::RolledBack => format!(
            "Last update: version {} undone, the station went back to its previous version: {}",
            check.version, check.detail
        ),
    }
}

/// The menu item offering an update (never its file's name: the version
/// is what a director chooses by, and is unknown only when the station
/// could not read the bundle, which its check then says).
fn offer_item(offer: &UpdateOffer) -> String {
    match &offer.version {
        Some(version) => format!("Install update: version {version} (current {})", offer.current),
        None => format!("Install update: version unknown (current {})", offer.current),
    }
}

/// The words of one menu item; `confirming` when it waits for a second ENTER.
fn item_text(item: &MenuItem, lexicon: &LexiconView, confirming: Option<()>) -> String {
    let confirm = if confirming.is_some() { "  — ENTER again to confirm" } else { "" };
    match item {
        MenuItem::RestoreSettings => "Restore the last good settings (players cannot judge until then)".into(),
        MenuItem::UseLexicon(c) => {
            let active = if c.id == lexicon.id && lexicon.usable { "  ◀ active" } else { "" };
            let fp = if c.fingerprint.is_empty() { String::new() } else { format!(" · {}", c.fingerprint) };
            let fp = if c.digest.is_empty() { fp } else { format!("{fp} · digest {}", c.digest) };
            format!("Use {} — {}{}{}", c.id, c.status, fp, active)
        }
        MenuItem::UseProfile(p) => profile_item(p),
        MenuItem::ChangePin => "Change the director PIN".into(),
        MenuItem::SetStationName => "Rename the station".into(),
        MenuItem::SetClock => "Set the date and time".into(),
        MenuItem::ScreenRotation(r) if r.saved != r.in_force => {
            format!("Screen rotation: {}° — takes effect after a restart (now {}°)", r.saved, r.in_force)
        }
        MenuItem::ScreenRotation(r) => format!("Screen rotation: {}°", r.saved),
        MenuItem::ImportFromUsb(stick) => format!("Install lexicons from USB: {}", stick.name),
        MenuItem::ExportToUsb(stick) => format!("Export the audit log to USB: {}", stick.name),
        MenuItem::JoinFleet(stick) => format!("Join the event's fleet with USB: {}", stick.name),
        MenuItem::LeaveFleet(event) => format!("Leave the fleet of {event} (stop sending to its laptop){confirm}"),
        MenuItem::InstallUpdate(offer) => offer_item(offer),
        MenuItem::Reboot => format!("Reboot the station{confirm}"),
        MenuItem::PowerOff => format!("Power off the station{confirm}"),
        MenuItem::Quit => format!("Quit wordjudge{confirm}"),
        MenuItem::Leave => "Leave the director menu".into(),
    }
}

/// A profile's menu row: its rule, the edition it would judge with (and a
/// changeover's second opinion), and why it cannot be chosen, if it cannot.
fn profile_item(p: &crate::kiosk::station::ProfileChoice) -> String {
    let edition = p.edition.as_ref().map(|e| format!(" — {e}")).unwrap_or_default();
    match &p.unavailable {
        // The reason names the second opinion when it is the trouble.
        Some(why) => format!("Profile: {}{edition} — unavailable: {why}", p.name),
        None => {
            let edition = match &p.second_opinion {
                Some(second) => format!("{edition}, second opinion {second}"),
                None => edition,
            };
            let active = if p.active { "  ◀ active" } else { "" };
            format!("Profile: {}{edition}{active}", p.name)
        }
    }
}

pub(super) fn director(v: &mut ViewModel, kiosk: &Kiosk, info: &StationInfo, menu: &DirectorMenu) {
    let lexicon = kiosk.lexicon();
        v.screen = ScreenKind::Director;
        v.menu.title = "Director menu — ↑ ↓ to choose, ENTER to select, ESC to leave".into();
        v.menu.items = menu
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| item_text(item, &lexicon, (menu.confirming == Some(i)).then_some(())))
            .collect();
        v.menu.selected = menu.selected as i32;
        v.menu.message = menu.message.as_ref().map(menu_message).unwrap_or_default();
        v.menu.lines = vec![
            format!("Station: {}", info.station_name),
            format!("Active lexicon: {} ({}), digest {}", lexicon.id, lexicon.status, lexicon.digest),
            format!("Challenges judged since start: {}", info.counts.since_boot),
            format!("Challenges judged today: {}", info.counts.today),
        ];
        v.menu.lines.extend(info.facts.iter().map(|(label, value)| format!("{label}: {value}")));
        v.menu.lines.extend(info.last_update.as_ref().map(last_update_line));
        if info.warnings.is_empty() {
            v.menu.lines.push("No warnings.".into());
        } else {
            v.menu.lines.extend(info.warnings.iter().map(|w| format!("⚠ {}", warning(w))));
        }
}

