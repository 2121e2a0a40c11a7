//! A director's USB stick, worded: its word lists and what each would be,
//! and the status while the stick works or when it is done.

use super::*;

/// A word list as a director knows it: its file's name without the
/// extension (screens show no file names; the list is the director's own).
fn list_name(file: &str) -> &str {
    let cut = file.len().saturating_sub(4);
    match file.get(cut..) {
        Some(ext) if ext.eq_ignore_ascii_case(".txt") => &file[..cut],
        _ => file,
    }
}

/// Why a file on a stick cannot be used, as a director reads it: without the
/// file's name (its row names it) and without the command line's advice.
fn unusable_reason<'a>(file: &str, why: &'a str) -> &'a str {
    let why = why.strip_prefix(file).map_or(why, |rest| rest.trim_start_matches([',', ':', ' ']));
    why.split(" (a word list has one word").next().unwrap_or(why)
}

/// One word list's row.
fn import_row(row: &ImportRow) -> String {
    let file = list_name(&row.file);
    let named = |lexicon: &str| match &row.name {
        Some(name) if name != lexicon => format!("{file} → {lexicon} ({name})"),
        _ => format!("{file} → {lexicon}"),
    };
    match &row.state {
        ImportState::Unnamed { words, .. } => {
            format!("{file} — which lexicon? ← → to choose · {}", words_count(*words))
        }
        ImportState::Would { lexicon, status, installable: true, already: true, .. } => {
            format!("{} — already installed: {status}", named(lexicon))
        }
        ImportState::Would { lexicon, status, words, installable: true, .. } => {
            format!("{} — would be {status} · {}", named(lexicon), words_count(*words))
        }
        ImportState::Would { lexicon, status, .. } => format!("{} — {status}: will not be installed", named(lexicon)),
        ImportState::Unusable(why) => format!("{file} — cannot be used: {}", unusable_reason(&row.file, why)),
        ImportState::Installed { lexicon, status } => format!("{} — installed: {status}", named(lexicon)),
    }
}

/// The right-hand column for the row under the cursor.
fn import_details(row: &ImportRow) -> Vec<String> {
    let mut lines = vec![format!("Word list: {}", list_name(&row.file))];
    match &row.state {
        ImportState::Unnamed { fingerprint, words } => {
            lines.push("Lexicon: not named — ← → to choose which official list it is".into());
            lines.push(format!("Fingerprint: {fingerprint}"));
            lines.push(format!("Words: {}", thousands(*words)));
        }
        ImportState::Would { lexicon, status, fingerprint, words, note, already, .. } => {
            if *already {
                lines.push("Already installed, these very words: installing it again changes nothing.".into());
            }
            lines.push(format!("Installs as: {}", row.name.as_deref().unwrap_or(lexicon)));
            lines.push(format!("Lexicon: {lexicon}"));
            lines.push(format!("Status once installed: {status}"));
            lines.push(format!("Fingerprint: {fingerprint}"));
            lines.push(format!("Words: {}", thousands(*words)));
            if !note.is_empty() {
                lines.push(note.clone());
            }
        }
        ImportState::Unusable(why) => lines.push(format!("Cannot be used: {}", unusable_reason(&row.file, why))),
        ImportState::Installed { lexicon, status } => {
            lines.push(format!("Installed as {lexicon}: {status}"));
            lines.push("Choose it on the Lexicon and event rule page to judge with it.".into());
        }
    }
    lines
}

fn usb_message(message: &UsbMessage) -> String {
    match message {
        UsbMessage::ConfirmInstall => "Press ENTER again to install it.".into(),
        UsbMessage::Installed { lexicon, status } => {
            format!("Installed: {lexicon} is {status}. Choose it on the Lexicon and event rule page to judge with it.")
        }
        UsbMessage::InstallRefused(reason) => format!("Not installed: {reason}"),
        UsbMessage::NeedsName => "Choose which lexicon this list is with ← and →.".into(),
        UsbMessage::WillNotInstall { name } => format!("This list is not {name}: it will not be installed."),
        UsbMessage::Unusable => "This file is not a word list that can be installed.".into(),
        UsbMessage::AlreadyInstalled => "Already installed.".into(),
        UsbMessage::Refused(reason) => format!("Not possible: {reason}"),
    }
}

/// What a fleet stick's visit came to: the status line and what to do next.
fn fleet_visit(visit: &FleetVisit) -> (String, String) {
    match visit {
        FleetVisit::Requested { station, replaced, code, event, ca } => (
            match code {
                Some(code) => format!("Station key code {code}. You may remove the stick: take it to the laptop."),
                None => "You may remove the stick: take it to the laptop.".into(),
            },
            format!(
                "The stick is for {event}, whose fingerprint is {ca}: it must be the one the event's laptop printed. \
                 This station's request ({station}) is on the stick{}. Sign it on the event's laptop{}, \
                 then bring the stick back here and choose \"Join the event's fleet\" again.",
                if *replaced { " again: the certificate there was for another key of this station" } else { "" },
                if code.is_some() { " when it shows the same station key code" } else { "" }
            ),
        ),
        FleetVisit::Joined { event, upload_url } => (
            format!("Joined the fleet of {event}. You may remove the stick."),
            format!(
                "This station now sends its record (every verdict and director action) to the event's laptop ({}).",
                laptop_of(upload_url)
            ),
        ),
        FleetVisit::AlreadyJoined { event, upload_url } => (
            format!("Already in the fleet of {event}. You may remove the stick."),
            format!("Nothing changed: this station sends to the event's laptop ({}).", laptop_of(upload_url)),
        ),
        FleetVisit::Refused(reason) => {
            ("Not joined: nothing changed. You may remove the stick.".into(), format!("{reason}."))
        }
    }
}

pub(super) fn usb_view(v: &mut ViewModel, usb: &UsbScreen) {
    v.screen = ScreenKind::Usb;
    v.menu.title = match usb.purpose {
        UsbPurpose::Export => format!("Export the audit log to USB — {}", usb.stick.name),
        UsbPurpose::Import => format!("Install lexicons from USB — {}", usb.stick.name),
        UsbPurpose::JoinFleet => format!("Join the event's fleet — {}", usb.stick.name),
    };
    match &usb.phase {
        UsbPhase::Working(work) => {
            let (status, detail) = match work {
                UsbWork::Reading => (
                    "Reading the stick…",
                    "Each word list is checked and compiled; nothing is installed yet. Do not remove the stick.",
                ),
                UsbWork::Installing => ("Installing…", "Do not remove the stick."),
                UsbWork::Ejecting => ("Finishing with the stick…", "Do not remove the stick yet."),
                UsbWork::Exporting => ("Exporting the audit log…", "Do not remove the stick."),
                UsbWork::JoiningFleet => ("Reading the fleet stick…", "Do not remove the stick."),
            };
            v.usb.status = status.into();
            v.usb.detail = match work.deadline() {
                Some(_) => format!("{detail} ESC: stop waiting."),
                None => detail.into(),
            };
        }
        UsbPhase::Done(done) => {
            let back = "Press any key to return to the menu.";
            match done {
                UsbDone::Ejected { installed } => {
                    v.usb.status = "You may remove the stick.".into();
                    v.usb.detail = match installed {
                        0 => format!("Nothing was installed from it. {back}"),
                        1 => format!("1 word list was installed from it. {back}"),
                        n => format!("{n} word lists were installed from it. {back}"),
                    };
                }
                UsbDone::Exported { folder, lines, intact, signed } => {
                    v.usb.status = "You may remove the stick.".into();
                    let check = match (intact, signed) {
                        (true, true) => "The copy verifies, with a checkpoint signed for it.",
                        (true, false) => "The copy verifies (this log has no signing key).",
                        (false, _) => "The copy does NOT verify: read the report in the same folder.",
                    };
                    v.usb.detail = format!(
                        "The audit log ({} lines) is in {folder} on the stick. {check} {back}",
                        thousands(*lines as u64)
                    );
                }
                UsbDone::Fleet(visit) => {
                    let (status, detail) = fleet_visit(visit);
                    v.usb.status = status;
                    v.usb.detail = format!("{detail} {back}");
                }
                UsbDone::Stopped { work, why } => {
                    v.usb.status = match why {
                        StopReason::Escape => "Stopped.".to_string(),
                        StopReason::NoAnswer(seconds) => format!("The stick did not answer within {seconds} seconds."),
                        StopReason::Removed => "The stick was pulled out.".to_string(),
                    };
                    let what = match work {
                        UsbWork::Reading | UsbWork::Installing => "Nothing was installed.",
                        UsbWork::Exporting => {
                            "The copy on the stick may be incomplete; the audit log on the station is unchanged."
                        }
                        UsbWork::JoiningFleet => {
                            "The fleet settings change only if the visit still ends; the audit log will say."
                        }
                        UsbWork::Ejecting => "Wait until the stick's light stops before you pull it out.",
                    };
                    v.usb.detail = format!("{what} Players can judge again when you leave the menu. {back}");
                }
                UsbDone::Failed { work, problem } => {
                    v.usb.status = match work {
                        UsbWork::Exporting => "The export did not finish.",
                        _ => "The stick could not be used.",
                    }
                    .into();
                    let unchanged = match work {
                        UsbWork::Exporting => "The audit log on the station is unchanged.",
                        UsbWork::Reading => "Nothing was installed.",
                        UsbWork::Installing | UsbWork::Ejecting => "Nothing more was installed.",
                        UsbWork::JoiningFleet => "The station's fleet settings are unchanged.",
                    };
                    let mut problem = problem.clone();
                    if let Some(first) = problem.get(..1) {
                        problem.replace_range(..1, &first.to_uppercase());
                    }
                    v.usb.detail = format!("{problem}. {unchanged} {back}");
                }
            }
        }
        UsbPhase::List => {
            v.menu.items = usb.rows.iter().map(import_row).collect();
            if let Some(i) = usb.confirming {
                if let Some(item) = v.menu.items.get_mut(i) {
                    item.push_str("  — ENTER again to install");
                }
            }
            v.menu.items.push("Done: finish with the stick and return".into());
            v.menu.selected = usb.selected as i32;
            v.menu.lines = match usb.rows.get(usb.selected) {
                Some(row) => import_details(row),
                None => vec![format!("{} installed from this stick so far.", usb.installed())],
            };
            v.menu.lines.push(String::new());
            v.menu
                .lines
                .push("↑ ↓ choose · ← → which lexicon a list is · ENTER install · ESC finish and return".into());
            v.menu.message = match &usb.message {
                Some(m) => usb_message(m),
                None if usb.rows.is_empty() => "No word lists (text files) at the top of this stick.".into(),
                None if usb.left_out > 0 => {
                    format!(
                        "{} more text files on the stick were not looked at (at most {}).",
                        usb.left_out,
                        wordjudge_core::lexicon::import::MAX_FILES
                    )
                }
                None => String::new(),
            };
        }
    }
}

/// The laptop's address in an upload URL (`https://192.168.10.2:19532` →
/// `192.168.10.2`): a director knows the laptop by its address; a URL is no
/// director's word.
pub fn laptop_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host_port = rest.split('/').next().unwrap_or(rest);
    match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host_port.rsplit_once(':').map_or(host_port, |(host, _)| host),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_laptop_is_named_by_its_address_and_a_list_by_its_name() {
        assert_eq!(super::laptop_of("https://192.168.10.2:19532"), "192.168.10.2");
        assert_eq!(super::laptop_of("https://[fd00::2]:19532/upload"), "fd00::2");
        assert_eq!(super::laptop_of("192.168.10.2"), "192.168.10.2");
        assert_eq!(super::list_name("NWL2018.txt"), "NWL2018");
        assert_eq!(super::list_name("big.TXT"), "big");
        assert_eq!(super::list_name("é.txt"), "é");
        assert_eq!(super::list_name("notes"), "notes");
    }
}
