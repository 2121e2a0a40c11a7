//! What each screen shows, as plain strings: the one mapping from the flow's
//! state to the words on screen. The Slint UI copies a [`ViewModel`] into its
//! properties field by field; tests read it without any display.

use super::flow::{plural, Kiosk, MenuItem, Screen};
use super::station::Counts;
use crate::panel::Lamps;
use crate::judge::Verdict;
use std::time::Duration;

/// Station facts the screens show besides the flow's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StationInfo {
    pub station_name: String,
    pub counts: Counts,
    pub warnings: Vec<String>,
    pub lamps: Lamps,
    pub show_lamps: bool,
}

/// Everything the UI shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewModel {
    /// ready | entry | verdict | out-of-service | pin | director
    pub screen: &'static str,
    pub station_name: String,
    pub lexicon_id: String,
    pub lexicon_status: String,
    pub demo: bool,
    /// A discreet marker that the director has something to look at.
    pub warning: bool,
    pub hint: String,
    pub expected: i32,
    pub words: Vec<String>,
    pub current_word: i32,
    pub confirmation: String,
    pub acceptable: bool,
    pub verdict_words: String,
    pub verdict_details: String,
    pub service_detail: String,
    pub pin_dots: String,
    pub pin_message: String,
    pub menu_items: Vec<String>,
    pub menu_selected: i32,
    pub director_lines: Vec<String>,
    pub director_message: String,
    pub lamps: Lamps,
    pub show_lamps: bool,
}

/// Builds the view of `kiosk` at monotonic time `now`.
pub fn view(kiosk: &Kiosk, info: &StationInfo, now: Duration) -> ViewModel {
    let lexicon = kiosk.lexicon();
    let mut v = ViewModel {
        station_name: info.station_name.clone(),
        lexicon_id: lexicon.id.clone(),
        lexicon_status: lexicon.status.clone(),
        demo: lexicon.demo,
        warning: !info.warnings.is_empty(),
        lamps: info.lamps,
        show_lamps: info.show_lamps,
        ..ViewModel::default()
    };
    match kiosk.screen() {
        Screen::Ready { hint } => {
            v.screen = "ready";
            v.hint = hint.clone().unwrap_or_default();
        }
        Screen::Entry(entry) => {
            v.screen = "entry";
            v.expected = entry.expected as i32;
            // One row per declared word: typed words, then empty rows.
            v.words = (0..entry.expected).map(|i| entry.words.get(i).cloned().unwrap_or_default()).collect();
            v.current_word = (entry.words.len() - 1) as i32;
            v.hint = entry.hint.clone().unwrap_or_default();
            if entry.confirming(now) {
                v.confirmation = format!("{} word{}", entry.expected, plural(entry.expected));
            }
        }
        Screen::Verdict(verdict) => {
            v.screen = "verdict";
            v.acceptable = verdict.judged.verdict == Verdict::Acceptable;
            v.verdict_words = verdict.words.join("  ");
            v.verdict_details = format!(
                "{} · {} · Challenge #{:04} · {}",
                lexicon.id, lexicon.status, verdict.judged.challenge_number, verdict.judged.time
            );
        }
        Screen::OutOfService => {
            v.screen = "out-of-service";
            // The reason in full is in the director menu; players see a calm line.
            v.service_detail = format!("Lexicon {}: {}", lexicon.id, lexicon.status);
        }
        Screen::Pin(prompt) => {
            v.screen = "pin";
            v.pin_dots = "●".repeat(prompt.typed.len());
            v.pin_message = match kiosk.pin_locked_until(now) {
                Some(until) => format!("Locked after too many wrong PINs. Try again in {} s.", (until - now).as_secs() + 1),
                None => prompt.message.clone().unwrap_or_default(),
            };
        }
        Screen::Director(menu) => {
            v.screen = "director";
            v.menu_items = menu
                .items
                .iter()
                .map(|item| match item {
                    MenuItem::UseLexicon(c) => {
                        let active = if c.id == lexicon.id && lexicon.usable { "  ◀ active" } else { "" };
                        let fp = if c.fingerprint.is_empty() { String::new() } else { format!(" · {}", c.fingerprint) };
                        format!("Use {} — {}{}{}", c.id, c.status, fp, active)
                    }
                    MenuItem::Reboot => "Reboot the station".into(),
                    MenuItem::PowerOff => "Power off the station".into(),
                    MenuItem::Quit => "Quit wordjudge".into(),
                    MenuItem::Leave => "Leave the director menu".into(),
                })
                .collect();
            v.menu_selected = menu.selected as i32;
            v.director_message = menu.message.clone().unwrap_or_default();
            v.director_lines = vec![
                format!("Station: {}", info.station_name),
                format!("Active lexicon: {} ({})", lexicon.id, lexicon.status),
                format!("Challenges judged since start: {}", info.counts.since_boot),
                format!("Challenges judged today: {}", info.counts.today),
            ];
            if info.warnings.is_empty() {
                v.director_lines.push("No warnings.".into());
            } else {
                v.director_lines.extend(info.warnings.iter().map(|w| format!("⚠ {w}")));
            }
        }
    }
    v
}
