//! What each screen shows, as plain strings: the one mapping from the flow's
//! typed state to the words on screen.
//!
//! Why one place: a rule worded twice drifts (the `.slint` file once said
//! "1 to 8" on its own, and re-implemented plurals). Here every sentence a
//! player or director reads is built from the flow's state and the station's
//! facts; the UI copies a [`ViewModel`] into the window as one value and
//! decides nothing. Tests read it without any display.

use super::flow::{
    EditField, EditMessage, EntryHint, Kiosk, MenuItem, MenuMessage, PinMessage, PinStep, ReadyHint, Screen, UsbDone,
    UsbMessage, UsbPhase, UsbScreen,
};
use super::station::{Counts, ImportRow, ImportState, Judged, Setting, UsbWork, Warning};
use crate::profile::ChallengeRule;
use crate::config::ConfigProblem;
use crate::judge::{Verdict, MAX_WORDS};
use crate::panel::Lamps;
use crate::word::{MAX_LEN, MIN_LEN};
use std::time::Duration;

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
    Edit,
    /// A USB stick: its word lists (shown like the director menu), or a
    /// status while it is read or written.
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
}

impl StationInfo {
    /// What `station` says of itself now, with the lamps `kiosk` lights.
    pub fn of(station: &dyn super::station::Station, kiosk: &Kiosk, show_lamps: bool) -> StationInfo {
        StationInfo {
            station_name: station.station_name(),
            counts: station.counts(),
            warnings: station.warnings(),
            facts: station.facts(),
            lamps: kiosk.lamps(station.needs_service()),
            show_lamps,
        }
    }
}

/// Everything the UI shows, worded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewModel {
    pub screen: ScreenKind,
    pub station_name: String,
    pub lexicon_id: String,
    pub lexicon_status: String,
    pub demo: bool,
    /// The DEMO badge text (empty unless `demo`).
    pub demo_label: String,
    /// A discreet marker that the director has something to look at.
    pub warning: bool,
    pub warning_label: String,
    /// Ready: heading, question and what to press.
    pub ready_heading: String,
    pub ready_question: String,
    pub ready_instruction: String,
    /// Ready: the last challenge's number and slip code, after its verdict
    /// (never its words), until the next challenge starts; and its label.
    pub ready_slip: String,
    pub ready_slip_label: String,
    /// Ready and Entry: the answer to the last key.
    pub hint: String,
    /// Entry: the hint refuses a TAB and is shown as large as the instruction.
    pub hint_alert: bool,
    pub entry_instruction: String,
    pub entry_footer: String,
    /// Entry: what the editing keys do, always on screen.
    pub entry_keys: String,
    /// Entry: the countdown before idle words are cleared (empty until then).
    pub countdown: String,
    pub expected: i32,
    /// Entry: one row per declared word, as shown (cursor included).
    pub words: Vec<String>,
    pub current_word: i32,
    /// Entry: the count confirmation ("3 words") for a moment after the count.
    pub confirmation: String,
    pub acceptable: bool,
    pub verdict_icon: String,
    pub verdict_label: String,
    pub verdict_words: String,
    /// Verdict: lexicon, its status and the record's time.
    pub verdict_details: String,
    /// Verdict: how it ends (a deliberate key, or by itself).
    pub verdict_footer: String,
    /// Verdict: the challenge number and slip code, large enough to copy.
    pub verdict_slip: String,
    /// Verdict: what the event's rule makes of it ("the challenger loses the turn").
    pub verdict_consequence: String,
    /// Verdict: the second-opinion lexicon's single verdict, smaller.
    pub verdict_second: String,
    pub service_title: String,
    pub service_call: String,
    pub service_detail: String,
    pub pin_title: String,
    /// PIN: dots for the digits typed, or a prompt when none are.
    pub pin_dots: String,
    pub pin_prompt: String,
    pub pin_message: String,
    pub pin_footer: String,
    pub edit_title: String,
    /// The value typed so far (dots for a PIN), or a prompt when empty.
    pub edit_value: String,
    pub edit_prompt: String,
    pub edit_message: String,
    pub edit_footer: String,
    pub menu_title: String,
    pub menu_items: Vec<String>,
    pub menu_selected: i32,
    pub director_lines: Vec<String>,
    pub director_message: String,
    /// USB: a large status line while the stick is busy or when it is done
    /// (empty while its word lists are shown), and what it means.
    pub usb_status: String,
    pub usb_detail: String,
    pub lamps: Lamps,
    pub show_lamps: bool,
    pub lamp_labels: [String; 3],
}

/// `n word` or `n words`.
fn words_count(n: usize) -> String {
    if n == 1 {
        "1 word".to_string()
    } else {
        format!("{n} words")
    }
}

fn ready_hint(hint: ReadyHint) -> String {
    match hint {
        ReadyHint::PressCount => format!("Press a number from 1 to {MAX_WORDS}: how many words are you challenging?"),
        ReadyHint::ClearedIdle { seconds, words: 0 } => {
            format!("The last challenge was cleared: no key was pressed for {seconds} seconds. Nothing was judged.")
        }
        ReadyHint::ClearedIdle { seconds, words: 1 } => {
            format!("The word typed was cleared: no key was pressed for {seconds} seconds. Nothing was judged.")
        }
        ReadyHint::ClearedIdle { seconds, words } => {
            format!("The {words} words typed were cleared: no key was pressed for {seconds} seconds. Nothing was judged.")
        }
        ReadyHint::Cancelled => "The challenge was cancelled with ESC. Nothing was judged.".into(),
    }
}

/// `Challenge #0042 · code 7KQ2F9`: what the slip needs, in one line.
fn slip_line(number: u64, code: Option<&str>) -> String {
    match code {
        Some(code) => format!("Challenge #{number:04} · code {code}"),
        None => format!("Challenge #{number:04}"),
    }
}

fn entry_hint(hint: EntryHint) -> String {
    match hint {
        EntryHint::WordCount { typed, expected } => {
            format!("{typed} of {} typed.", words_count(expected))
        }
        EntryHint::WordTooShort { index } => format!("Word {index} needs at least {MIN_LEN} letters."),
        EntryHint::WordTooLong => format!("A word has at most {MAX_LEN} letters."),
        EntryHint::OnlyLetters => "Only the letters A to Z can be typed.".into(),
        EntryHint::AllTyped { expected: 1 } => "The word is typed. CHALLENGED PLAYER: press TAB to judge.".into(),
        EntryHint::AllTyped { expected } => {
            format!("All {expected} words typed. CHALLENGED PLAYER: press TAB to judge.")
        }
        EntryHint::TooManyWords { expected } if expected >= MAX_WORDS => format!(
            "All {MAX_WORDS} words are typed: that letter was not added. {MAX_WORDS} words is the most one challenge takes."
        ),
        EntryHint::TooManyWords { expected } => format!(
            "You said {}, and {} typed: that letter was not added. To challenge {} words, press {} first.",
            words_count(expected),
            if expected == 1 { "it is" } else { "all are" },
            expected + 1,
            expected + 1
        ),
        EntryHint::CountChanged { expected } => format!("Changed: now {}.", words_count(expected)),
        EntryHint::CountBelowTyped { typed, asked } => format!(
            "{typed} words are typed, more than {asked}. Clear a word first (ESC clears the word being typed)."
        ),
        EntryHint::ConfirmClear { typed } => format!(
            "Press ESC again to clear {} and start over. Any other key keeps {}.",
            if typed == 1 { "the word".to_string() } else { format!("all {typed} words") },
            if typed == 1 { "it" } else { "them" }
        ),
        EntryHint::WordCleared { index } => format!("Word {index} cleared: type it again."),
    }
}

fn pin_message(message: PinMessage) -> String {
    match message {
        PinMessage::NotSet => {
            "No director PIN is set, and this station's settings are damaged: a PIN cannot be set here. Ask the operator to restore the card.".into()
        }
        PinMessage::Wrong { attempts_left: 1 } => "Wrong PIN. 1 attempt left.".into(),
        PinMessage::Wrong { attempts_left } => format!("Wrong PIN. {attempts_left} attempts left."),
        PinMessage::DigitsOnly => "Type the director PIN (digits), then ENTER. ESC leaves.".into(),
    }
}

/// The consequence line under a verdict, by the event's rule.
pub fn consequence(judged: &Judged, words: usize) -> String {
    let Some(rule) = judged.rule else { return String::new() };
    match (judged.verdict, rule) {
        (Verdict::Unacceptable, _) => "The play comes off the board.".into(),
        (Verdict::Acceptable, ChallengeRule::NaspaDouble) => "The play stands: the challenger loses the turn.".into(),
        (Verdict::Acceptable, ChallengeRule::School) => "The play stands: the challenging team loses its turn.".into(),
        (Verdict::Acceptable, ChallengeRule::PointsPerWord { points }) => format!(
            "The play stands: +{} to the player: {} × {points}",
            points as usize * words,
            words_count(words)
        ),
    }
}

fn setting_name(setting: Setting) -> &'static str {
    match setting {
        Setting::Pin => "The director PIN is changed.",
        Setting::StationName => "The station name is saved.",
        Setting::Clock => "The clock is set.",
    }
}

fn menu_message(message: &MenuMessage) -> String {
    match message {
        MenuMessage::Switched { id, status, profile_cleared: false } => format!("Now judging with {id} ({status})."),
        MenuMessage::Switched { id, status, profile_cleared: true } => format!(
            "Now judging with {id} ({status}). The profile judged with another lexicon, so it no longer applies: no challenge rule is shown under verdicts."
        ),
        MenuMessage::ProfileSwitched { name, lexicon, status } => {
            format!("Profile {name}: now judging with {lexicon} ({status}).")
        }
        MenuMessage::Saved(setting) => setting_name(*setting).into(),
        MenuMessage::SwitchRefused(reason) => format!("Not switched: {reason}"),
        MenuMessage::ConfirmAgain => "Press ENTER again to confirm.".into(),
        MenuMessage::Done => "Done.".into(),
        MenuMessage::NotPossible(reason) => format!("Not possible: {reason}"),
        MenuMessage::UsbRefused(reason) => format!("Not possible: {reason}"),
    }
}

/// The words for a config problem.
pub fn config_problem(problem: &ConfigProblem) -> String {
    problem.to_string()
}

/// The words for a warning.
pub fn warning(warning: &Warning) -> String {
    match warning {
        Warning::Config(problem) => config_problem(problem),
        Warning::AuditLog(p) => format!("Audit log: {p}"),
        Warning::Gpio(p) => format!("GPIO: {p}"),
        Warning::LexiconCatalog(p) => p.clone(),
        Warning::ActiveLexicon(p) => p.clone(),
        Warning::LexiconFileChanged { id, detail } => {
            format!("Lexicon {id}: {detail}. Choose it again in this menu to verify what is on disk now.")
        }
        Warning::JudgingFault(p) => format!("Judging failed unexpectedly and the station stopped judging: {p}"),
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
        let starts_path = rest[..at].chars().next_back().is_none_or(|c| c.is_whitespace() || "(\"'`[{=".contains(c));
        let (before, from) = rest.split_at(at);
        out.push_str(before);
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
            &mut self.lexicon_status,
            &mut self.hint,
            &mut self.service_detail,
            &mut self.pin_message,
            &mut self.edit_message,
            &mut self.director_message,
            &mut self.usb_status,
            &mut self.usb_detail,
            &mut self.verdict_details,
        ] {
            *field = for_screen(field);
        }
        for line in self.menu_items.iter_mut().chain(self.director_lines.iter_mut()) {
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
        station_name: info.station_name.clone(),
        lexicon_id: lexicon.id.clone(),
        lexicon_status: lexicon.status.clone(),
        demo: lexicon.demo,
        demo_label: if lexicon.demo { "DEMO — not a tournament lexicon".into() } else { String::new() },
        warning: !info.warnings.is_empty(),
        warning_label: if info.warnings.is_empty() { String::new() } else { "⚠ director".into() },
        lamps: info.lamps,
        show_lamps: info.show_lamps,
        lamp_labels: ["ACCEPTABLE".into(), "UNACCEPTABLE".into(), "SERVICE".into()],
        ..ViewModel::default()
    };
    match kiosk.screen() {
        Screen::Ready { hint } => {
            v.screen = ScreenKind::Ready;
            v.ready_heading = "CHALLENGER:".into();
            v.ready_question = "How many words are you challenging?".into();
            v.ready_instruction = format!("Press a number key, 1 to {MAX_WORDS}");
            v.hint = hint.map(ready_hint).unwrap_or_default();
            if let Some(slip) = kiosk.last_slip() {
                v.ready_slip_label = "Last challenge, for the slip:".into();
                v.ready_slip = match slip.slip_code.as_deref() {
                    Some(code) => format!("#{:04} · code {code}", slip.challenge_number),
                    None => format!("#{:04}", slip.challenge_number),
                };
            }
        }
        Screen::Entry(entry) => {
            v.screen = ScreenKind::Entry;
            v.expected = entry.expected as i32;
            v.entry_instruction = if entry.expected == 1 {
                "CHALLENGER: type the word".into()
            } else {
                format!("CHALLENGER: type the {} — SPACE or ENTER between words", words_count(entry.expected))
            };
            v.entry_footer = "CHALLENGED PLAYER: check the spelling, then press TAB".into();
            v.entry_keys = format!(
                "SPACE next word · BACKSPACE delete a letter · ESC clear the word · 1–{MAX_WORDS} change the number of words"
            );
            if let Some(left) = kiosk.entry_countdown(now) {
                v.countdown = format!("No key pressed: these words clear in {left} s. Press any key to keep them.");
            }
            // One row per declared word: typed words, then empty rows. Once
            // the last word is finished no row has the cursor.
            let current = if entry.finished { usize::MAX } else { entry.words.len() - 1 };
            v.words = (0..entry.expected)
                .map(|i| {
                    let word = entry.words.get(i).map(String::as_str).unwrap_or("");
                    match (word.is_empty(), i == current) {
                        (true, true) => "▁".to_string(),
                        (true, false) => "·".to_string(),
                        (false, true) => format!("{word}▁"),
                        (false, false) => word.to_string(),
                    }
                })
                .collect();
            v.current_word = if entry.finished { -1 } else { current as i32 };
            v.hint = entry.hint.map(entry_hint).unwrap_or_default();
            v.hint_alert = entry.hint.is_some_and(EntryHint::refuses_tab);
            if entry.confirming(now) {
                v.confirmation = words_count(entry.expected);
            }
        }
        Screen::Verdict(verdict) => {
            v.screen = ScreenKind::Verdict;
            v.acceptable = verdict.judged.verdict == Verdict::Acceptable;
            v.verdict_icon = if v.acceptable { "✓" } else { "✗" }.into();
            v.verdict_label = verdict.judged.verdict.label().into();
            v.verdict_words = verdict.words.join("  ");
            let code = Some(verdict.judged.slip_code.as_str()).filter(|c| !c.is_empty());
            v.verdict_slip = slip_line(verdict.judged.challenge_number, code);
            v.verdict_consequence = consequence(&verdict.judged, verdict.words.len());
            v.verdict_second = match &verdict.judged.second_opinion {
                Some(second) => match second.verdict {
                    Some(other) => format!("{} would say: {}", second.lexicon, other.label()),
                    None => format!("{} cannot judge here (not installed or not verified)", second.lexicon),
                },
                None => String::new(),
            };
            v.verdict_details = if lexicon.digest.is_empty() {
                format!("{} · {} · {}", lexicon.id, lexicon.status, verdict.judged.time)
            } else {
                format!("{} · {} · digest {} · {}", lexicon.id, lexicon.status, lexicon.digest, verdict.judged.time)
            };
            v.verdict_footer = "ENTER when the slip is copied · the number stays on the next screen".into();
        }
        Screen::OutOfService => {
            v.screen = ScreenKind::OutOfService;
            v.service_title = "This station is not judging right now.".into();
            v.service_call = "Please call the tournament director.".into();
            // The reason in full is in the director menu; players see a calm line.
            v.service_detail = format!("Lexicon {}: {}", lexicon.id, lexicon.status);
            // With no way to open the menu (a broken config and no PIN), the
            // reason must be on this screen for the director.
            if let Some(Warning::Config(problem)) = info.warnings.iter().find(|w| matches!(w, Warning::Config(_))) {
                v.service_detail = format!("{} · {}", v.service_detail, config_problem(problem));
            }
        }
        Screen::Pin(prompt) => {
            v.screen = ScreenKind::Pin;
            v.pin_title = "Director PIN".into();
            v.pin_dots = "●".repeat(prompt.typed.len());
            v.pin_prompt = if prompt.typed.is_empty() { "type the PIN".into() } else { String::new() };
            v.pin_footer = "ENTER to confirm · ESC to leave".into();
            v.pin_message = match kiosk.pin_locked_until(now) {
                Some(until) => {
                    let left = until - now;
                    let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
                    format!("Locked after too many wrong PINs. Try again in {seconds} s.")
                }
                None => prompt.message.map(pin_message).unwrap_or_default(),
            };
        }
        Screen::Edit(edit) => {
            v.screen = ScreenKind::Edit;
            let (title, prompt) = match &edit.field {
                EditField::Pin { step: PinStep::Old, .. } => ("Change the director PIN", "type the current PIN"),
                EditField::Pin { step: PinStep::New, .. } => ("Change the director PIN", "type the new PIN (4 to 12 digits)"),
                EditField::Pin { step: PinStep::Again, .. } => ("Change the director PIN", "type the new PIN again"),
                EditField::StationName => ("Rename the station", "type the station's name"),
                EditField::Clock => ("Set the date and time", "type it as 2026-11-23 14:05"),
            };
            v.edit_title = title.into();
            v.edit_prompt = prompt.into();
            v.edit_value = match edit.field {
                EditField::Pin { .. } => "●".repeat(edit.typed.len()),
                _ => edit.typed.clone(),
            };
            v.edit_message = match &edit.message {
                Some(EditMessage::PinsDiffer) => "The two new PINs differ. Type the new PIN again.".into(),
                Some(EditMessage::KeyNotAllowed) => match edit.field {
                    EditField::Pin { .. } => "A PIN is digits only.".into(),
                    EditField::Clock => "Digits, - : and a space only.".into(),
                    EditField::StationName => "That key cannot be typed here.".into(),
                },
                Some(EditMessage::Refused(error)) => format!("Not changed: {error}"),
                None => String::new(),
            };
            v.edit_footer = "ENTER to confirm · BACKSPACE to edit · ESC back to the menu".into();
        }
        Screen::Director(menu) => {
            v.screen = ScreenKind::Director;
            v.menu_title = "Director menu — ↑ ↓ to choose, ENTER to select, ESC to leave".into();
            v.menu_items = menu
                .items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let confirm = if menu.confirming == Some(i) { "  — ENTER again to confirm" } else { "" };
                    match item {
                        MenuItem::UseLexicon(c) => {
                            let active = if c.id == lexicon.id && lexicon.usable { "  ◀ active" } else { "" };
                            let fp =
                                if c.fingerprint.is_empty() { String::new() } else { format!(" · {}", c.fingerprint) };
                            let fp = if c.digest.is_empty() { fp } else { format!("{fp} · digest {}", c.digest) };
                            format!("Use {} — {}{}{}", c.id, c.status, fp, active)
                        }
                        MenuItem::UseProfile(p) => match &p.unavailable {
                            Some(why) => format!("Profile: {} — unavailable: {why}", p.name),
                            None => {
                                let active = if p.active { "  ◀ active" } else { "" };
                                format!("Profile: {}{active}", p.name)
                            }
                        },
                        MenuItem::ChangePin => "Change the director PIN".into(),
                        MenuItem::SetStationName => "Rename the station".into(),
                        MenuItem::SetClock => "Set the date and time".into(),
                        MenuItem::ImportFromUsb(stick) => format!("Install lexicons from USB: {}", stick.name),
                        MenuItem::ExportToUsb(stick) => format!("Export the audit log to USB: {}", stick.name),
                        MenuItem::Reboot => format!("Reboot the station{confirm}"),
                        MenuItem::PowerOff => format!("Power off the station{confirm}"),
                        MenuItem::Quit => format!("Quit wordjudge{confirm}"),
                        MenuItem::Leave => "Leave the director menu".into(),
                    }
                })
                .collect();
            v.menu_selected = menu.selected as i32;
            v.director_message = menu.message.as_ref().map(menu_message).unwrap_or_default();
            v.director_lines = vec![
                format!("Station: {}", info.station_name),
                format!("Active lexicon: {} ({}), digest {}", lexicon.id, lexicon.status, lexicon.digest),
                format!("Challenges judged since start: {}", info.counts.since_boot),
                format!("Challenges judged today: {}", info.counts.today),
            ];
            v.director_lines.extend(info.facts.iter().map(|(label, value)| format!("{label}: {value}")));
            if info.warnings.is_empty() {
                v.director_lines.push("No warnings.".into());
            } else {
                v.director_lines.extend(info.warnings.iter().map(|w| format!("⚠ {}", warning(w))));
            }
        }
        Screen::Usb(usb) => usb_view(&mut v, usb),
    }
    v
}

/// `276,663`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One word list's row.
fn import_row(row: &ImportRow) -> String {
    let named = |lexicon: &str| match &row.name {
        Some(name) if name != lexicon => format!("{} → {lexicon} ({name})", row.file),
        _ => format!("{} → {lexicon}", row.file),
    };
    match &row.state {
        ImportState::Unnamed { words, .. } => {
            format!("{} — which lexicon? ← → to choose · {} words", row.file, thousands(*words))
        }
        ImportState::Would { lexicon, status, words, installable: true, .. } => {
            format!("{} — would be {status} · {} words", named(lexicon), thousands(*words))
        }
        ImportState::Would { lexicon, status, .. } => format!("{} — {status}: will not be installed", named(lexicon)),
        ImportState::Unusable(why) => format!("{} — cannot be used: {why}", row.file),
        ImportState::Installed { lexicon, status } => format!("{} — installed: {status}", named(lexicon)),
    }
}

/// The right-hand column for the row under the cursor.
fn import_details(row: &ImportRow) -> Vec<String> {
    let mut lines = vec![format!("File: {}", row.file)];
    match &row.state {
        ImportState::Unnamed { fingerprint, words } => {
            lines.push("Lexicon: not named — ← → to choose which official list it is".into());
            lines.push(format!("Fingerprint: {fingerprint}"));
            lines.push(format!("Words: {}", thousands(*words)));
        }
        ImportState::Would { lexicon, status, fingerprint, words, note, .. } => {
            lines.push(format!("Installs as: {}", row.name.as_deref().unwrap_or(lexicon)));
            lines.push(format!("Lexicon: {lexicon}"));
            lines.push(format!("Status once installed: {status}"));
            lines.push(format!("Fingerprint: {fingerprint}"));
            lines.push(format!("Words: {}", thousands(*words)));
            if !note.is_empty() {
                lines.push(note.clone());
            }
        }
        ImportState::Unusable(why) => lines.push(format!("Cannot be used: {why}")),
        ImportState::Installed { lexicon, status } => {
            lines.push(format!("Installed as {lexicon}: {status}"));
            lines.push("Choose it in the director menu to judge with it.".into());
        }
    }
    lines
}

fn usb_message(message: &UsbMessage) -> String {
    match message {
        UsbMessage::ConfirmInstall => "Press ENTER again to install it.".into(),
        UsbMessage::Installed { lexicon, status } => {
            format!("Installed: {lexicon} is {status}. Choose it in the director menu to judge with it.")
        }
        UsbMessage::InstallRefused(reason) => format!("Not installed: {reason}"),
        UsbMessage::NeedsName => "Choose which lexicon this list is with ← and →.".into(),
        UsbMessage::WillNotInstall { name } => format!("This list is not {name}: it will not be installed."),
        UsbMessage::Unusable => "This file is not a word list that can be installed.".into(),
        UsbMessage::AlreadyInstalled => "Already installed.".into(),
        UsbMessage::Refused(reason) => format!("Not possible: {reason}"),
    }
}

fn usb_view(v: &mut ViewModel, usb: &UsbScreen) {
    v.screen = ScreenKind::Usb;
    v.menu_title = if usb.export {
        format!("Export the audit log to USB — {}", usb.stick.name)
    } else {
        format!("Install lexicons from USB — {}", usb.stick.name)
    };
    match &usb.phase {
        UsbPhase::Working(work) => {
            let (status, detail) = match work {
                UsbWork::Reading => ("Reading the stick…", "Each word list is checked and compiled; nothing is installed yet. Do not remove the stick."),
                UsbWork::Installing => ("Installing…", "Do not remove the stick."),
                UsbWork::Ejecting => ("Unmounting the stick…", "Do not remove the stick yet."),
                UsbWork::Exporting => ("Exporting the audit log…", "Do not remove the stick."),
            };
            v.usb_status = status.into();
            v.usb_detail = detail.into();
        }
        UsbPhase::Done(done) => {
            let back = "Press any key to return to the director menu.";
            match done {
                UsbDone::Ejected { installed } => {
                    v.usb_status = "You may remove the stick.".into();
                    v.usb_detail = match installed {
                        0 => format!("Nothing was installed from it. {back}"),
                        1 => format!("1 word list was installed from it. {back}"),
                        n => format!("{n} word lists were installed from it. {back}"),
                    };
                }
                UsbDone::Exported { folder, lines, intact, signed } => {
                    v.usb_status = "You may remove the stick.".into();
                    let check = match (intact, signed) {
                        (true, true) => "The copy verifies, with a checkpoint signed for it.",
                        (true, false) => "The copy verifies (this log has no signing key).",
                        (false, _) => "The copy does NOT verify: read verify.txt in the folder.",
                    };
                    v.usb_detail = format!("The audit log ({} lines) is in {folder} on the stick. {check} {back}", thousands(*lines as u64));
                }
                UsbDone::Failed { work, problem } => {
                    v.usb_status = match work {
                        UsbWork::Exporting => "The export did not finish.",
                        _ => "The stick could not be used.",
                    }
                    .into();
                    let unchanged = match work {
                        UsbWork::Exporting => "The audit log on the station is unchanged.",
                        UsbWork::Reading => "Nothing was installed.",
                        UsbWork::Installing | UsbWork::Ejecting => "Nothing more was installed.",
                    };
                    let mut problem = problem.clone();
                    if let Some(first) = problem.get(..1) {
                        problem.replace_range(..1, &first.to_uppercase());
                    }
                    v.usb_detail = format!("{problem}. {unchanged} {back}");
                }
            }
        }
        UsbPhase::List => {
            v.menu_items = usb.rows.iter().map(import_row).collect();
            if let Some(i) = usb.confirming {
                if let Some(item) = v.menu_items.get_mut(i) {
                    item.push_str("  — ENTER again to install");
                }
            }
            v.menu_items.push("Done: unmount the stick and return".into());
            v.menu_selected = usb.selected as i32;
            v.director_lines = match usb.rows.get(usb.selected) {
                Some(row) => import_details(row),
                None => vec![format!("{} installed from this stick so far.", usb.installed())],
            };
            v.director_lines.push(String::new());
            v.director_lines.push("↑ ↓ choose · ← → which lexicon a list is · ENTER install · ESC unmount and return".into());
            v.director_message = match &usb.message {
                Some(m) => usb_message(m),
                None if usb.rows.is_empty() => "No word lists (.txt files) at the top of this stick.".into(),
                None if usb.left_out > 0 => {
                    format!("{} more .txt files on the stick were not looked at (at most {}).", usb.left_out, crate::lexicon::import::MAX_FILES)
                }
                None => String::new(),
            };
        }
    }
}


#[cfg(test)]
mod tests {
    use super::for_screen;

    #[test]
    fn paths_become_file_names_and_other_slashes_stay() {
        assert_eq!(
            for_screen("config /var/lib/wordjudge/config.toml is broken at line 3"),
            "config config.toml is broken at line 3"
        );
        assert_eq!(for_screen("cannot save the config \"/etc/x/c.toml\": denied"), "cannot save the config \"c.toml\": denied");
        assert_eq!(for_screen("/srv/lex/CSW15.fst: not installed"), "CSW15.fst: not installed");
        assert_eq!(for_screen("(/a/b/): gone"), "(b): gone");
        assert_eq!(for_screen("Table 1/2 and 3/4 words"), "Table 1/2 and 3/4 words");
        assert_eq!(for_screen("no slash at all"), "no slash at all");
        assert_eq!(for_screen("/"), "/");
    }
}
