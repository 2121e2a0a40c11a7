//! The director's screens, worded: the PIN prompt, a setting being typed,
//! and the menu with its facts and warnings.

use super::*;
use crate::desks::LexiconView;

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
        Setting::FirstPin => "The director PIN is set. Keep it with the event's papers: it opens this menu.".into(),
        Setting::StationName => "The station name is saved.".into(),
        Setting::Clock => "The clock is set.".into(),
        Setting::TimeZone => "The time zone is set: the station shows its times in it.".into(),
        Setting::Restored => "The last good settings are restored: players can judge again.".into(),
        Setting::SetUpAgain => "The station is set up again. Now choose its word list or event profile here: players \
                                 see \"not set up\" until you do."
            .into(),
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
            "Now judging with {id} ({status}). The profile's rule is for another family of lexicons, so no challenge rule is shown under verdicts."
        ),
        MenuMessage::ProfileSwitched { name, lexicon, status } => {
            format!("Profile {name}: now judging with {lexicon} ({status}).")
        }
        MenuMessage::Saved(setting) => setting_name(*setting),
        MenuMessage::SwitchRefused(reason) => format!("Not switched: {reason}"),
        MenuMessage::NothingChanged => "Nothing was changed.".into(),
        MenuMessage::AlreadyInUse(what) => format!("{what} is already in use: nothing to change."),
        MenuMessage::Done(SystemAction::Reboot) => {
            "Restarting now: players cannot judge until the station is back (about a minute).".into()
        }
        MenuMessage::Done(SystemAction::PowerOff) => "Powering off now: unplug the station once its screen is dark.".into(),
        MenuMessage::Done(SystemAction::Quit) => "Quitting.".into(),
        MenuMessage::NotPossible(reason) => format!("Not possible: {reason}"),
        MenuMessage::UsbRefused(reason) => format!("Not possible: {reason}"),
        MenuMessage::UpdateRefused(reason) => format!("Not possible: {reason}"),
        MenuMessage::ItemGone(item) => format!(
            "\"{}\" is no longer offered (a stick was pulled or changed): nothing was done.",
            item_text(item, &LexiconView::default())
        ),
        MenuMessage::NotRestored(error) => format!("Not restored: {error}"),
        MenuMessage::NotSaved(error) => format!("Not changed: {error}"),
        MenuMessage::LeftFleet(event) => {
            format!("Left the fleet of {event}: this station sends nothing now, and its fleet key is gone.")
        }
        MenuMessage::NotLeft(error) => format!("Still in the fleet: {error}"),
        MenuMessage::PinNotChanged(error) => format!("Not changed: {error}"),
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
            ("Set the director PIN", "this station has no director PIN yet: choose one of 4 to 12 digits")
        }
        EditField::Pin { step: PinStep::Again, first: true, .. } => ("Set the director PIN", "type the same PIN again"),
        EditField::Pin { step: PinStep::New, .. } => ("Change the director PIN", "type the new PIN (4 to 12 digits)"),
        EditField::Pin { step: PinStep::Again, .. } => ("Change the director PIN", "type the new PIN again"),
        EditField::StationName => ("Rename the station", "type the station's name"),
        EditField::SetUpName => ("Set up this station again", "its settings are gone: type the station's name"),
        EditField::Clock { .. } => ("Set the date and time", ""),
        EditField::TimeZone => (
            "Set the time zone",
            "type its name as the time zone database spells it, e.g. Europe/London, America/Toronto, \
                 Australia/Sydney (the audit log keeps UTC)",
        ),
    };
    v.edit.title = title.into();
    v.edit.prompt = match &edit.field {
        EditField::Clock { zone } => {
            format!("the station's time now, in its zone {zone} (the audit log keeps UTC): type over it as YYYY-MM-DD HH:MM")
        }
        _ => prompt.into(),
    };
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
            EditField::Clock { .. } => "Digits, - : and a space only.".into(),
            EditField::TimeZone => "Letters, digits and / _ - + only.".into(),
            EditField::StationName | EditField::SetUpName => "That key cannot be typed here.".into(),
        },
        Some(EditMessage::Refused(error)) => format!("Not changed: {error}"),
        Some(EditMessage::PinRefused(error)) => format!("Not changed: {error}"),
        None => String::new(),
    };
    v.edit.footer = if first {
        // No menu exists yet to go back to; say where its key is.
        "ENTER to confirm · ESC to leave · the director menu then opens with Ctrl+Alt+Shift+D".into()
    } else if edit.prefilled {
        "Type to replace it · BACKSPACE clears it · ENTER to confirm · ESC back to the menu".into()
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
            format!(
                "Last update: version {} did not start; the station went back to its previous version",
                check.version
            )
        }
        BootOutcome::RolledBack => format!(
            "Last update: version {} undone, the station went back to its previous version: {}",
            check.version, check.detail
        ),
    }
}

/// The menu item offering an update (never its file's name: the version
/// is what a director chooses by; a bundle the station could not read says
/// so, and its check then says why).
fn offer_item(offer: &UpdateOffer) -> String {
    match &offer.version {
        Some(version) => format!("Install update: version {version} (this station runs {})", offer.current),
        None => format!("Update on the stick: not readable (this station runs {})", offer.current),
    }
}

/// A page's name.
fn page_name(page: MenuPage) -> &'static str {
    match page {
        MenuPage::Home => "Director menu",
        MenuPage::Status => "Station status",
        MenuPage::Lexicon => "Lexicon and event rule",
        MenuPage::Usb => "USB stick",
        MenuPage::Station => "Station settings: name, clock, time zone, PIN, screen",
        MenuPage::Fleet => "Event fleet",
        MenuPage::Power => "Restart or power off",
    }
}

/// The words of one menu entry.
fn item_text(item: &MenuItem, lexicon: &LexiconView) -> String {
    match item {
        MenuItem::Open(page) => page_name(*page).into(),
        MenuItem::Back => "◀ Back".into(),
        MenuItem::RestoreSettings => "Restore the last good settings".into(),
        MenuItem::SetUpAgain => "Set up this station again".into(),
        MenuItem::UseLexicon(c) => {
            let active = if c.id == lexicon.id && lexicon.usable { "  ◀ active" } else { "" };
            let fp = if c.fingerprint.is_empty() { String::new() } else { format!(" · {}", c.fingerprint) };
            format!("Use {} — {}{}{}", c.id, c.status, fp, active)
        }
        MenuItem::UseProfile(p) => profile_item(p),
        MenuItem::ChangePin => "Change the director PIN".into(),
        MenuItem::SetStationName => "Rename the station".into(),
        MenuItem::SetClock => "Set the date and time".into(),
        MenuItem::SetTimeZone(zone) => format!("Time zone: {zone}"),
        MenuItem::ScreenRotation(r) if r.saved != r.in_force => {
            format!("Screen turned {}° — from the next restart (now {}°)", r.saved, r.in_force)
        }
        MenuItem::ScreenRotation(r) => format!("Screen turned {}°", r.saved),
        MenuItem::ImportFromUsb(stick) => format!("Install lexicons from {}", stick.name),
        MenuItem::ExportToUsb(stick) => format!("Export the audit log to {}", stick.name),
        MenuItem::JoinFleet(stick) => format!("Join the event's fleet with {}", stick.name),
        MenuItem::LeaveFleet(event) => format!("Leave the fleet of {event}"),
        MenuItem::InstallUpdate(offer) => offer_item(offer),
        MenuItem::Reboot => "Restart the station".into(),
        MenuItem::PowerOff => "Power off the station".into(),
        MenuItem::Quit => "Quit wordjudge".into(),
        MenuItem::Leave => "Leave the director menu".into(),
    }
}

/// A profile's menu row: its rule, the edition it would judge with (and a
/// changeover's second opinion), and why it cannot be chosen, if it cannot.
fn profile_item(p: &crate::desks::ProfileChoice) -> String {
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

/// The active lexicon in one line: its name, status and fingerprint.
fn lexicon_line(lexicon: &LexiconView) -> String {
    // A station that may not judge (not set up, its log failing, a list that
    // failed its check) is not "judging with" anything: the warnings say why.
    let label = if lexicon.usable { "Judging with" } else { "Lexicon, not judging now" };
    if lexicon.fingerprint.is_empty() {
        format!("{label}: {} ({})", lexicon.id, lexicon.status)
    } else {
        format!("{label}: {} ({}), fingerprint {}", lexicon.id, lexicon.status, lexicon.fingerprint)
    }
}

/// A fact of the station's, by its label.
fn fact<'a>(info: &'a StationInfo, label: &str) -> Option<&'a str> {
    info.facts.iter().find(|(l, _)| l == label).map(|(_, v)| v.as_str())
}

/// The warnings, one line each, or that there are none.
fn warning_lines(info: &StationInfo) -> Vec<String> {
    if info.warnings.is_empty() {
        return vec!["No warnings.".into()];
    }
    let mut lines: Vec<String> = info.warnings.iter().map(|w| format!("⚠ {}", warning(w))).collect();
    // Damage with no last good copy to restore: not the director's to mend.
    let damaged = info.warnings.iter().any(|w| matches!(w, Warning::Config(_)));
    let mendable = info.warnings.iter().any(|w| matches!(w, Warning::SettingsHeld | Warning::SettingsGone));
    if damaged && !mendable {
        lines.push(
            "Only an operator can restore these settings (operator guide: \"Restoring a station's settings\"); \
             players cannot judge until then."
                .into(),
        );
    }
    lines
}

/// The right-hand column of a page: what a director needs beside its entries.
fn page_lines(page: MenuPage, lexicon: &LexiconView, info: &StationInfo) -> Vec<String> {
    let mut lines = Vec::new();
    let facts = |labels: &[&str], lines: &mut Vec<String>| {
        for label in labels {
            if let Some(value) = fact(info, label) {
                lines.push(format!("{label}: {value}"));
            }
        }
    };
    match page {
        MenuPage::Home => {
            lines.push(format!("Station: {}", info.station_name));
            lines.push(lexicon_line(lexicon));
            facts(&["Profile", "Last challenge"], &mut lines);
            lines.extend(warning_lines(info));
        }
        MenuPage::Status => {
            lines.push(format!("Station: {}", info.station_name));
            lines.push(lexicon_line(lexicon));
            facts(&["Profile", "Last challenge"], &mut lines);
            lines.push(format!("Challenges judged since start: {}", info.counts.since_boot));
            lines.push(format!("Challenges judged today: {}", info.counts.today));
            let shown: &[&str] = &["Profile", "Last challenge"];
            for (label, value) in &info.facts {
                if !shown.contains(&label.as_str()) {
                    lines.push(format!("{label}: {value}"));
                }
            }
            lines.extend(info.last_update.as_ref().map(last_update_line));
            lines.extend(warning_lines(info));
        }
        MenuPage::Lexicon => {
            lines.push(lexicon_line(lexicon));
            facts(&["Profile"], &mut lines);
            lines.push("Each change asks you to confirm it first.".into());
        }
        MenuPage::Usb => {
            lines.push(
                "Install word lists, export the audit log, join the event's fleet or update the station from a stick."
                    .into(),
            );
            lines.extend(info.last_update.as_ref().map(last_update_line));
        }
        MenuPage::Station => {
            lines.push(format!("Station: {}", info.station_name));
            facts(&["Station key code", "Judge button and lamps", "Screen"], &mut lines);
        }
        MenuPage::Fleet => {
            facts(&["Fleet"], &mut lines);
        }
        MenuPage::Power => {
            lines.push("Players cannot judge while the station restarts or is off.".into());
        }
    }
    lines
}

/// The confirmation of a change, named in full: (question, what follows,
/// the keys).
fn confirm_words(change: &Change, info: &StationInfo) -> (String, String, String) {
    match change {
        // The lexicon in use cannot judge (its words changed since it was
        // chosen): choosing it again judges with its words as they are now.
        Change::SwitchLexicon { from, to, .. } if from == to => (
            format!("Judge with {to} as it is on the card now?"),
            "Its words are not the ones last chosen on this station. From now on the station judges with them.".to_string(),
            "ENTER: judge with it · ESC: leave the station out of service".to_string(),
        ),
        Change::SwitchLexicon { from, to, profile_lost } => {
            let rule = match profile_lost {
                Some(profile) => format!(" The {profile} rule line will no longer show under verdicts."),
                None => String::new(),
            };
            (
                format!("Switch from {from} to {to}?"),
                format!("Every challenge from now on is judged with {to}.{rule}"),
                format!("ENTER: switch · ESC: keep {from}"),
            )
        }
        Change::UseProfile { choice, from_lexicon, from_profile } => {
            let edition = choice.edition.as_deref().unwrap_or(from_lexicon);
            let lexicon = if edition == from_lexicon {
                format!("The station goes on judging with {edition}")
            } else {
                format!("The station judges with {edition} instead of {from_lexicon}")
            };
            let second = match &choice.second_opinion {
                Some(second) => format!(", with {second}'s verdict beside it,"),
                None => String::new(),
            };
            let ends = match from_profile {
                Some(name) => format!(" The profile {name} ends."),
                None => String::new(),
            };
            (
                format!("Use the profile {}?", choice.name),
                format!("{lexicon}{second} and shows the profile's rule under every verdict.{ends}"),
                "ENTER: use it · ESC: keep things as they are".into(),
            )
        }
        Change::RestoreSettings => {
            let lost: Vec<String> = info
                .warnings
                .iter()
                .filter_map(|w| match w {
                    Warning::Config(problem) => Some(config_problem(problem)),
                    _ => None,
                })
                .collect();
            let lost = if lost.is_empty() { "The settings file was damaged.".to_string() } else { lost.join(" ") };
            (
                "Restore the last good settings?".into(),
                format!("{lost} The station's last good settings are written back, and players can judge again."),
                "ENTER: restore · ESC: leave them as they are".into(),
            )
        }
        Change::SetUpAgain { name } => (
            format!("Set up this station again as \u{201c}{name}\u{201d}?"),
            "Its settings are gone. A fresh settings file is written with this name, the director PIN and the \
             audit log it has; it judges nothing until you choose its lexicon and profile on the Lexicon page."
                .into(),
            "ENTER: set it up · ESC: leave it out of service".into(),
        ),
        Change::Rename { from, to } => (
            format!("Rename the station from \u{201c}{from}\u{201d} to \u{201c}{to}\u{201d}?"),
            "The new name shows on every screen and in every record from now on.".into(),
            format!("ENTER: rename · ESC: keep \u{201c}{from}\u{201d}"),
        ),
        Change::SetTimeZone { from, to } => (
            format!("Show the station's times in {to}?"),
            format!("Now {from}. The clock is not moved: the same moment shows in the new zone, and every record keeps UTC."),
            format!("ENTER: use {to} · ESC: keep {from}"),
        ),
        Change::SetClock { to } => (
            format!("Set the date and time to {to}?"),
            "Every record from now on carries this time.".into(),
            "ENTER: set it · ESC: keep the clock as it is".into(),
        ),
        Change::ChangePin { .. } => (
            "Change the director PIN?".into(),
            "The new PIN opens this menu from now on.".into(),
            "ENTER: change it · ESC: keep the current PIN".into(),
        ),
        Change::Rotation { from, to, in_force } => (
            format!("Turn the screen to {to}°?"),
            if to == in_force {
                "The screen already shows it.".into()
            } else {
                "It takes effect at the next restart.".into()
            },
            format!("ENTER: turn it · ESC: keep {from}°"),
        ),
        Change::JoinFleet { stick } => (
            format!("Join the event's fleet with {}?", stick.name),
            "At the first visit the station leaves its request on the stick; at the second it joins the event's \
             fleet and sends its record of challenges to the event's laptop."
                .into(),
            "ENTER: go on · ESC: leave the stick alone".into(),
        ),
        Change::LeaveFleet { event } => (
            format!("Leave the fleet of {event}?"),
            "The station stops sending to the event's laptop and forgets its fleet key.".into(),
            "ENTER: leave · ESC: stay in the fleet".into(),
        ),
        Change::System(SystemAction::Reboot) => (
            "Restart the station?".into(),
            "Players cannot judge until it is back, in about a minute.".into(),
            "ENTER: restart · ESC: keep it running".into(),
        ),
        Change::System(SystemAction::PowerOff) => (
            "Power off the station?".into(),
            "Players cannot judge until it is switched on again.".into(),
            "ENTER: power off · ESC: keep it running".into(),
        ),
        Change::System(SystemAction::Quit) => (
            "Quit wordjudge?".into(),
            "Players cannot judge until it is started again.".into(),
            "ENTER: quit · ESC: keep it running".into(),
        ),
    }
}

pub(super) fn confirm(v: &mut ViewModel, info: &StationInfo, confirm: &ConfirmScreen) {
    v.screen = ScreenKind::Confirm;
    let (question, detail, keys) = confirm_words(&confirm.change, info);
    v.confirm = ConfirmView { question, detail, keys, ..ConfirmView::default() };
}

pub(super) fn director(v: &mut ViewModel, kiosk: &Kiosk, info: &StationInfo, menu: &DirectorMenu) {
    let lexicon = kiosk.lexicon();
    v.screen = ScreenKind::Director;
    v.menu.title = if menu.page == MenuPage::Home {
        "Director menu — ↑ ↓ choose · ENTER open · ESC leave".into()
    } else {
        format!("{} — ↑ ↓ choose · ENTER select · ESC back", page_name(menu.page))
    };
    v.menu.items = menu.items.iter().map(|item| item_text(item, lexicon)).collect();
    v.menu.facts_page = matches!(menu.items[..], [MenuItem::Back]);
    v.menu.selected = menu.selected as i32;
    v.menu.message = menu.message.as_ref().map(menu_message).unwrap_or_default();
    v.menu.lines = page_lines(menu.page, lexicon, info);
    // How to join, only where there is no fleet to leave.
    if menu.page == MenuPage::Fleet && !menu.items.iter().any(|i| matches!(i, MenuItem::LeaveFleet(_))) {
        v.menu.lines.push("To join, plug in the event's fleet stick and open USB stick on the first page.".into());
    }
}
