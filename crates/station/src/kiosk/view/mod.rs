//! What each screen shows, as plain strings: the one mapping from the flow's
//! typed state to the words on screen.
//!
//! Why one place: a rule worded twice drifts (the `.slint` file once said
//! "1 to 8" on its own, and re-implemented plurals). Here every sentence a
//! player or director reads is built from the flow's state and the station's
//! facts; the UI copies a [`ViewModel`] into the window as one value and
//! decides nothing. Tests read it without any display.
//!
//! This file owns the [`ViewModel`], the station facts, the scrubbing of
//! paths and the dispatcher; the words of each screen group are in their
//! own file: `player` (Ready, Entry, Verdict, Out of service), `director`
//! (PIN prompt, settings, menu) and `usb` (a director's stick).

use super::flow::{
    Change, ConfirmScreen, DirectorMenu, EditField, EditMessage, EditPrompt, Entry, EntryHint, Kiosk, MenuItem,
    MenuMessage, MenuPage, PinMessage, PinPrompt, PinStep, ReadyHint, Screen, StopReason, UpdateDone, UpdatePhase,
    UpdateScreen, UsbDone, UsbMessage, UsbPhase, UsbPurpose, UsbScreen, VerdictScreen,
};
use crate::desks::{
    BootCheck, BootOutcome, Counts, FleetVisit, ImportRow, ImportState, Judged, Setting, SystemAction, UpdateKind,
    UpdateOffer, UpdatePreview, UsbWork, Warning,
};
use wordjudge_core::config::ConfigProblem;
use wordjudge_core::profile::ChallengeRule;

use std::time::Duration;
use wordjudge_core::judge::{Verdict, MAX_WORDS};
use wordjudge_core::panel::Lamps;
use wordjudge_core::word::{MAX_LEN, MIN_LEN};

mod director;
mod player;
mod screens;
mod touch;
mod update;
mod usb;

pub use screens::*;

pub use player::{consequence, rule_line, slip_text};
pub use usb::laptop_of;

/// Which screen is up. The `.slint` file has the same enum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ScreenKind {
    #[default]
    Ready,
    Entry,
    Verdict,
    OutOfService,
    Pin,
    Director,
    /// A change named in full, waiting for its confirmation.
    Confirm,
    Edit,
    /// A USB stick: its word lists (shown like the director menu), or a
    /// status while it is read or written; an update of the station.
    Usb,
}

/// Station facts the screens show besides the flow's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StationInfo {
    pub station_name: String,
    pub counts: Counts,
    pub warnings: Vec<Warning>,
    /// (label, value) lines for the director menu: slip code, key, GPIO…
    pub facts: Vec<(String, String)>,
    pub lamps: Lamps,
    pub show_lamps: bool,
    /// The boot check's verdict on the last update, if any.
    pub last_update: Option<BootCheck>,
    /// The event's challenge rule a verdict now would carry.
    pub rule: Option<ChallengeRule>,
    /// The player's screens show their touch targets (the config's `touch`).
    pub touch: bool,
}

impl StationInfo {
    /// What `station` says of itself now, with the lamps `kiosk` lights.
    pub fn of(station: &dyn crate::desks::Station, kiosk: &Kiosk, show_lamps: bool) -> StationInfo {
        StationInfo {
            station_name: station.station_name(),
            counts: station.counts(),
            warnings: station.warnings(),
            facts: station.facts(),
            lamps: kiosk.lamps(station.needs_service()),
            show_lamps,
            last_update: station.last_update(),
            rule: station.event_rule(),
            touch: false,
        }
    }
}

/// Everything the UI shows, worded: which screen is up, the top bar and
/// the lamps (on every screen), and one struct per screen. The `.slint`
/// side has the same structs (`ui/seam.slint`), one screen file each
/// (`ui/screens/`); only the struct of the screen that is up is filled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewModel {
    pub screen: ScreenKind,
    pub bar: TopBar,
    pub ready: ReadyView,
    pub entry: EntryView,
    pub verdict: VerdictView,
    pub service: ServiceView,
    pub pin: PinView,
    pub edit: EditView,
    pub confirm: ConfirmView,
    /// The director menu, and a stick's word lists (shown the same way).
    pub menu: MenuView,
    pub usb: UsbView,
    pub lamps: LampPanel,
}

impl ViewModel {
    /// The answer to the last key on the screen that is up (Ready or
    /// Entry; empty elsewhere).
    pub fn hint(&self) -> &str {
        match self.screen {
            ScreenKind::Ready => &self.ready.hint,
            ScreenKind::Entry => &self.entry.hint,
            _ => "",
        }
    }
}

/// `1 word`, `3 words`, `276,663 words`.
fn words_count(n: impl TryInto<u64>) -> String {
    match n.try_into().unwrap_or(u64::MAX) {
        1 => "1 word".to_string(),
        n => format!("{} words", thousands(n)),
    }
}

/// `276,663`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The words for a config problem, a director's: what happened to the
/// settings, never the file's name, its path, its keys or the parser's
/// message (those are in the audit record and `wordjudge config`).
pub fn config_problem(problem: &ConfigProblem) -> String {
    match problem {
        ConfigProblem::Missing { .. } => "The settings file is missing.".into(),
        ConfigProblem::Unreadable { .. } => "The settings file cannot be read.".into(),
        ConfigProblem::Syntax { line, .. } => format!("The settings file is damaged (near line {line})."),
        ConfigProblem::Invalid { .. } => "The settings file holds a value this station cannot use.".into(),
        ConfigProblem::NotFresh { .. } => {
            "The settings file is gone, but this station has judged before: it does not start afresh.".into()
        }
        ConfigProblem::LostSettings { lost, .. } => {
            let names: Vec<&str> = lost.iter().map(|key| lost_setting(key)).collect();
            let were = if names.len() == 1 { "was" } else { "were" };
            format!("{} {were} lost from the settings file.", capitalised(&and_list(&names)))
        }
    }
}

/// A setting the config lost, named as a director knows it.
fn lost_setting(key: &str) -> &'static str {
    match key {
        "director_pin_hash" => "the director PIN",
        "active_lexicon" => "the lexicon in use",
        "audit_dir" => "the audit folder",
        "station_name" => "the station name",
        "profile" => "the event profile",
        _ => "another setting",
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The words for a warning.
pub fn warning(warning: &Warning) -> String {
    match warning {
        Warning::Config(problem) => config_problem(problem),
        Warning::AuditLog(p) => format!("Audit log: {p}"),
        Warning::Gpio(p) => format!("Judge button and lamps: {p}"),
        Warning::LexiconCatalog(p) => p.clone(),
        Warning::ActiveLexicon(p) => p.clone(),
        Warning::LexiconFileChanged { id, detail } => {
            format!("Lexicon {id}: {detail}. Choose it again in this menu to verify what is on the card now.")
        }
        Warning::JudgingFault(p) => format!("Judging failed unexpectedly and the station stopped judging: {p}"),
        Warning::SettingsHeld => "The station's settings were damaged. Its last good settings are kept, and players \
             cannot judge until you choose \"Restore the last good settings\" on the first page of this menu."
            .into(),
        // The detail (which file, why) is in the audit record.
        Warning::PinGuard(_) => "The record of wrong PINs kept beside the settings is damaged or cannot be written: \
             wrong PINs and lockouts are not kept across a restart. An operator can restore it."
            .into(),
        Warning::NoKeyboard => "No keyboard is plugged in: players cannot type the challenged words. Plug one into a \
             USB port; the station notices it within a few seconds."
            .into(),
        Warning::SigningKey(p) => {
            format!(
                "The audit log's signing key: {p}. The log goes on, but no signed summary is made until it is fixed."
            )
        }
        Warning::WrongPins { refused, lockouts, since } => {
            let lockouts = match lockouts {
                0 => String::new(),
                1 => " and 1 lockout".into(),
                n => format!(" and {n} lockouts"),
            };
            format!(
                "Before this visit: {refused} wrong PIN(s){lockouts} since {since}. If that was not you, someone tried \
                 to open this menu; each try is in the audit log."
            )
        }
        Warning::SettingsGone => "This station's settings are gone (the settings file and its last good copy). \
             Its director PIN and audit log are kept: choose \"Set up this station again\" on the first page of this \
             menu. Players cannot judge until it is set up."
            .into(),
        Warning::NotSetUp => "Not set up for the event: the station has only the built-in DEMO list, and players \
             cannot judge. Install the event's word list and choose it (or an event profile) in this menu; to \
             practise, choose DEMO there."
            .into(),
    }
}

/// A player's reason for an out-of-service screen: a few words, naming no
/// file, key or parser message (a passer-by must not learn which file to
/// tamper with; the director's status page has the detail).
pub fn players_reason(info: &StationInfo, lexicon_usable: bool) -> &'static str {
    if info.warnings.contains(&Warning::NotSetUp) {
        "It has no tournament word list yet."
    } else if info.warnings.iter().any(|w| matches!(w, Warning::Config(_) | Warning::SettingsHeld)) {
        "Its settings are damaged."
    } else if info.warnings.iter().any(|w| matches!(w, Warning::JudgingFault(_))) {
        "It stopped after an unexpected fault."
    } else if info.warnings.iter().any(|w| matches!(w, Warning::AuditLog(_))) {
        "It cannot keep its record of challenges."
    } else if !lexicon_usable {
        "Its word list cannot be used."
    } else {
        "It needs the director."
    }
}

/// Text from the layers below (errors, statuses, config problems) as the
/// station may show it: a file named by its name alone, never by its path.
/// Directors at a venue have no shell; a path on screen is noise to them
/// and a map of the card to a player.
pub fn for_screen(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('/') {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        // What comes before the slash in the whole text (a URL's second
        // slash follows its first: `https://` is no path).
        let starts_path = out.chars().next_back().is_none_or(|c| c.is_whitespace() || "(\"'`[{=".contains(c));
        if !starts_path {
            out.push('/');
            rest = &from[1..];
            continue;
        }
        let end = from.find(|c: char| c.is_whitespace() || "\"'`,;()[]{}".contains(c)).unwrap_or(from.len());
        let path = from[..end].trim_end_matches([':', '.']);
        let name = path.rsplit('/').find(|part| !part.is_empty()).unwrap_or("");
        out.push_str(if name.is_empty() { "/" } else { name });
        rest = &from[path.len()..];
    }
    out.push_str(rest);
    out
}

impl ViewModel {
    /// Applies [`for_screen`] to every line that can carry text from below.
    fn scrub(&mut self) {
        for field in [
            &mut self.bar.lexicon_status,
            &mut self.ready.hint,
            &mut self.entry.hint,
            &mut self.service.detail,
            &mut self.pin.message,
            &mut self.edit.message,
            &mut self.confirm.question,
            &mut self.confirm.detail,
            &mut self.confirm.keys,
            &mut self.menu.message,
            &mut self.usb.status,
            &mut self.usb.alert,
            &mut self.usb.detail,
            &mut self.verdict.details,
        ] {
            *field = for_screen(field);
        }
        for line in self.menu.items.iter_mut().chain(self.menu.lines.iter_mut()) {
            *line = for_screen(line);
        }
    }
}

/// Builds the view of `kiosk` at monotonic time `now`.
pub fn view(kiosk: &Kiosk, info: &StationInfo, now: Duration) -> ViewModel {
    let mut v = view_unscrubbed(kiosk, info, now);
    v.scrub();
    v
}

fn view_unscrubbed(kiosk: &Kiosk, info: &StationInfo, now: Duration) -> ViewModel {
    let lexicon = kiosk.lexicon();
    let mut v = ViewModel {
        bar: TopBar {
            station_name: info.station_name.clone(),
            lexicon_id: lexicon.id.clone(),
            lexicon_status: lexicon.status.clone(),
            demo: lexicon.demo,
            demo_label: if lexicon.demo { "DEMO — not a tournament lexicon".into() } else { String::new() },
            warning: !info.warnings.is_empty(),
            warning_label: if info.warnings.is_empty() { String::new() } else { "⚠ director".into() },
            director_hold: false,
        },
        lamps: LampPanel {
            show: info.show_lamps,
            lit: info.lamps,
            labels: ["ACCEPTABLE".into(), "UNACCEPTABLE".into(), "SERVICE".into()],
        },
        ..ViewModel::default()
    };
    match kiosk.screen() {
        Screen::Ready { hint } => player::ready(&mut v, kiosk, hint, info),
        Screen::Entry(entry) => player::entry(&mut v, kiosk, now, entry, info.touch),
        Screen::Verdict(verdict) => player::verdict(&mut v, kiosk, verdict, info.touch),
        Screen::OutOfService => player::out_of_service(&mut v, kiosk, info),
        Screen::Pin(prompt) => director::pin(&mut v, kiosk, now, prompt),
        Screen::Edit(edit) => director::edit(&mut v, edit),
        Screen::Director(menu) => director::director(&mut v, kiosk, info, menu),
        Screen::Confirm(confirm) => director::confirm(&mut v, info, confirm),
        Screen::Usb(usb) => usb::usb_view(&mut v, usb),
        Screen::Update(update) => update::update_view(&mut v, kiosk, now, update),
    }
    if info.touch {
        touch::director_targets(&mut v, kiosk.screen());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::{for_screen, words_count};

    #[test]
    fn one_word_is_singular_and_large_counts_are_grouped() {
        assert_eq!(words_count(1usize), "1 word");
        assert_eq!(words_count(8usize), "8 words");
        assert_eq!(words_count(1u64), "1 word", "a stick's list of one word");
        assert_eq!(words_count(276_663u64), "276,663 words");
    }

    #[test]
    fn paths_become_file_names_and_other_slashes_stay() {
        assert_eq!(
            for_screen("config /var/lib/wordjudge/config.toml is broken at line 3"),
            "config config.toml is broken at line 3"
        );
        assert_eq!(
            for_screen("cannot save the config \"/etc/x/c.toml\": denied"),
            "cannot save the config \"c.toml\": denied"
        );
        assert_eq!(for_screen("/srv/lex/CSW15.fst: not installed"), "CSW15.fst: not installed");
        assert_eq!(for_screen("(/a/b/): gone"), "(b): gone");
        assert_eq!(for_screen("Table 1/2 and 3/4 words"), "Table 1/2 and 3/4 words");
        assert_eq!(for_screen("no slash at all"), "no slash at all");
        assert_eq!(for_screen("/"), "/");
        assert_eq!(
            for_screen("sending to https://192.168.10.2:19532, last sent 14:02:11"),
            "sending to https://192.168.10.2:19532, last sent 14:02:11"
        );
    }
}
