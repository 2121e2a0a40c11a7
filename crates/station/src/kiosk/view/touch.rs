//! The director's touch targets on a touchscreen: the corner that opens the
//! PIN prompt, the PIN pad, Back, the menu's rows, and a confirmation's two
//! answers. (The player's targets are worded with their screens, in
//! `player`.) Each target stands for a key the screen already takes, so
//! its words come from that key's words: a confirmation's "ENTER: power off
//! · ESC: keep it running" gives "Power off" (and "Keep as it is").

use super::*;

/// The PIN pad's labels in the window's order: three to a row.
const PAD: [&str; 12] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"];

/// The most characters a confirmation's change target says.
const MAX_ANSWER: usize = 16;

fn pad() -> Vec<String> {
    PAD.iter().map(|s| s.to_string()).collect()
}

/// A key's part of a footer ("ENTER: power off"), capitalised for its
/// target: "Power off".
fn answer(keys: &str, key: &str) -> String {
    let said = keys.split(" · ").find_map(|part| part.strip_prefix(key)).unwrap_or_default();
    let mut chars = said.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Adds the director's targets to the view of `screen` (a touchscreen).
pub(super) fn director_targets(v: &mut ViewModel, screen: &Screen) {
    match screen {
        Screen::Ready { .. } | Screen::OutOfService => v.bar.director_hold = true,
        Screen::Pin(_) => {
            v.pin.pad = pad();
            v.pin.back = "Back".into();
        }
        Screen::Edit(edit) => {
            // The clock's digits too: the flow puts its dashes, space and
            // colon where the form has them.
            if matches!(edit.field, EditField::Pin { .. } | EditField::Clock { .. }) {
                v.edit.pad = pad();
            }
            if matches!(edit.field, EditField::Clock { .. }) {
                v.edit.prompt = v.edit.prompt.replace(
                    "type over it as YYYY-MM-DD HH:MM",
                    "tap the date and time over it, year to minute (the dashes and the colon come by themselves)",
                );
            }
            v.edit.back = "Back".into();
        }
        Screen::Director(menu) => {
            v.menu.rows_tap = true;
            v.menu.back = if menu.page == MenuPage::Home { "Leave the menu".into() } else { "Back".into() };
        }
        Screen::Confirm(_) => {
            // A target holds a few words: the change's own ("Power off",
            // "Switch"), or a plain yes when they name something long (a
            // time zone); the keys' line above says it in full.
            let change = answer(&v.confirm.keys, "ENTER: ");
            v.confirm.change = if change.chars().count() <= MAX_ANSWER { change } else { "Yes, change it".into() };
            v.confirm.keep = "Keep as it is".into();
        }
        // The list's last row ("Done") is its way back.
        Screen::Usb(usb) => match usb.phase {
            UsbPhase::List => v.menu.rows_tap = true,
            UsbPhase::Working(work) if work.deadline().is_some() => v.usb.back = "Stop waiting".into(),
            UsbPhase::Working(_) => {}
            UsbPhase::Done(_) => v.usb.back = "Back".into(),
        },
        Screen::Update(update) => match update.phase {
            UpdatePhase::Checking => v.usb.back = "Stop waiting".into(),
            UpdatePhase::Preview(_) => {
                v.usb.change = "Install".into();
                v.usb.back = "Cancel".into();
            }
            UpdatePhase::Pin { .. } => {
                v.usb.pad = pad();
                v.usb.back = "Cancel".into();
            }
            UpdatePhase::Installing { .. } | UpdatePhase::Done(UpdateDone::Installed { restart: Ok(()), .. }) => {}
            UpdatePhase::Done(_) => v.usb.back = "Back".into(),
        },
        Screen::Entry(_) | Screen::Verdict(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::answer;

    #[test]
    fn a_confirmations_answers_come_from_its_keys() {
        let keys = "ENTER: power off · ESC: keep it running";
        assert_eq!(answer(keys, "ENTER: "), "Power off");
        assert_eq!(answer(keys, "ESC: "), "Keep it running");
        assert_eq!(
            answer("ENTER: rename · ESC: keep \u{201c}Table 1\u{201d}", "ESC: "),
            "Keep \u{201c}Table 1\u{201d}"
        );
        assert_eq!(answer("no keys here", "ENTER: "), "");
    }
}
