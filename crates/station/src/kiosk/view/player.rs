//! The players' screens, worded: Ready (with the last slip), Entry (the
//! words, the keys, the countdown), the verdict and out of service.

use super::*;

/// The answer Ready gives; `touch`: the station shows touch targets, and
/// says tap where a keyboard-only station says press.
fn ready_hint(hint: ReadyHint, touch: bool) -> String {
    match hint {
        ReadyHint::PressCount if touch => {
            format!("Tap a number from 1 to {MAX_WORDS}: how many words are you challenging?")
        }
        ReadyHint::PressCount => format!("Press a number from 1 to {MAX_WORDS}: how many words are you challenging?"),
        ReadyHint::ClearedIdle { seconds, words: 0 } => {
            format!("The last challenge was cleared: no key was pressed for {seconds} seconds. Nothing was judged.")
        }
        ReadyHint::ClearedIdle { seconds, words: 1 } => {
            format!("The word typed was cleared: no key was pressed for {seconds} seconds. Nothing was judged.")
        }
        ReadyHint::ClearedIdle { seconds, words } => {
            format!(
                "The {words} words typed were cleared: no key was pressed for {seconds} seconds. Nothing was judged."
            )
        }
        ReadyHint::Cancelled if touch => "The challenge was cancelled. Nothing was judged.".into(),
        ReadyHint::Cancelled => "The challenge was cancelled with ESC. Nothing was judged.".into(),
    }
}

/// `#0042 · code 7KQ2F9XX`: what the slip needs, the same on the verdict,
/// on Ready and in the director menu. Short enough that the widest number
/// and code (`#99999 · code WWWWWWWW`) stay on one line at the verdict's
/// size on the 7" panel (`wordjudge screenshot` checks it), so the line
/// never breaks differently from one challenge to the next.
pub fn slip_text(number: u64, code: Option<&str>) -> String {
    match code {
        Some(code) => format!("#{number:04} · code {code}"),
        None => format!("#{number:04}"),
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, … (a challenge has at most nine words).
fn ordinal(n: usize) -> String {
    let suffix = match n {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The answer the entry gives to the last key or tap; with `touch`, the
/// keys it names are the targets on screen (JUDGE, CLEAR).
fn entry_hint(hint: EntryHint, touch: bool) -> String {
    match hint {
        EntryHint::AllTyped { expected: 1 } if touch => "The word is typed. CHALLENGED PLAYER: tap JUDGE.".into(),
        EntryHint::AllTyped { expected } if touch => {
            format!("All {expected} words typed. CHALLENGED PLAYER: tap JUDGE.")
        }
        EntryHint::TooManyWords { expected } if touch && expected < MAX_WORDS => format!(
            "You said {}: that letter was not added. To challenge {} words, CLEAR twice and start over.",
            words_count(expected),
            expected + 1
        ),
        EntryHint::ConfirmClear { typed } if touch => format!(
            "Tap CLEAR again to clear {} and start over. Anything else keeps {}.",
            if typed == 1 { "the word".to_string() } else { format!("all {typed} words") },
            if typed == 1 { "it" } else { "them" }
        ),
        EntryHint::ConfirmMiscount { expected } if touch => format!(
            "A {} word was started. Nothing judged yet: JUDGE again to judge {}, or CLEAR twice to start over.",
            ordinal(expected + 1),
            words_count(expected)
        ),
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
        EntryHint::ConfirmMiscount { expected } if expected >= MAX_WORDS => format!(
            "A {} word was started, but {MAX_WORDS} words is the most one challenge takes. Nothing judged yet: TAB again to judge {}.",
            ordinal(expected + 1),
            words_count(expected)
        ),
        EntryHint::ConfirmMiscount { expected } => format!(
            "{} word started: press {} to add it, or TAB again to judge {}. Nothing judged yet.",
            ordinal(expected + 1),
            expected + 1,
            words_count(expected)
        ),
    }
}

/// The event's rule on Ready, before the challenge: what a play that stands
/// costs (a play that does not stand always comes off the board).
pub fn rule_line(rule: ChallengeRule) -> String {
    match rule {
        ChallengeRule::NaspaDouble => {
            "Event rule: double challenge. If the play stands, the challenger loses the turn.".into()
        }
        ChallengeRule::School => "Event rule: if the play stands, the challenging team loses its turn.".into(),
        ChallengeRule::PointsPerWord { points } => {
            format!("Event rule: if the play stands, the player gets {points} points for each word challenged.")
        }
    }
}

/// The consequence line under a verdict, by the event's rule.
pub fn consequence(judged: &Judged, words: usize) -> String {
    let Some(rule) = judged.rule else { return String::new() };
    match (judged.verdict, rule) {
        (Verdict::Unacceptable, _) => "The play comes off the board.".into(),
        (Verdict::Acceptable, ChallengeRule::NaspaDouble) => "The play stands: the challenger loses the turn.".into(),
        (Verdict::Acceptable, ChallengeRule::School) => "The play stands: the challenging team loses its turn.".into(),
        (Verdict::Acceptable, ChallengeRule::PointsPerWord { points }) => {
            format!("The play stands: +{} to the player: {} × {points}", points as usize * words, words_count(words))
        }
    }
}

pub(super) fn ready(v: &mut ViewModel, kiosk: &Kiosk, hint: &Option<ReadyHint>, info: &StationInfo) {
    v.screen = ScreenKind::Ready;
    v.ready.heading = "CHALLENGER:".into();
    v.ready.question = "How many words are you challenging?".into();
    v.ready.instruction = if info.touch {
        format!("Tap the number, or press a number key, 1 to {MAX_WORDS}")
    } else {
        format!("Press a number key, 1 to {MAX_WORDS}")
    };
    if info.touch {
        v.ready.counts = (1..=MAX_WORDS).map(|n| n.to_string()).collect();
    }
    v.ready.hint = hint.map(|h| ready_hint(h, info.touch)).unwrap_or_default();
    // Players who cannot type are told so, instead of a READY that waits
    // (a touchscreen's keyboard is on screen).
    if v.ready.hint.is_empty() && info.warnings.contains(&Warning::NoKeyboard) && !info.touch {
        v.ready.hint = "No keyboard is plugged in: call the director.".into();
    }
    v.ready.rule = info.rule.map(rule_line).unwrap_or_default();
    if let Some(slip) = kiosk.last_slip() {
        v.ready.slip_label = "Last challenge, for the slip:".into();
        v.ready.slip = slip_text(slip.challenge_number, slip.slip_code.as_ref().map(|c| c.as_str()));
    }
}

/// The on-screen keyboard's letters, row by row (10, 9 and 7).
const TOUCH_LETTERS: &str = "QWERTYUIOPASDFGHJKLZXCVBNM";

pub(super) fn entry(v: &mut ViewModel, kiosk: &Kiosk, now: Duration, entry: &Entry, touch: bool) {
    v.screen = ScreenKind::Entry;
    v.entry.expected = entry.expected as i32;
    if touch {
        v.entry.instruction = if entry.expected == 1 {
            "CHALLENGER: type the word".into()
        } else {
            format!("CHALLENGER: type the {} — NEXT WORD between words", words_count(entry.expected))
        };
        v.entry.footer = "CHALLENGED PLAYER: check the spelling, then tap JUDGE".into();
        v.entry.letters = TOUCH_LETTERS.chars().map(String::from).collect();
        v.entry.next_word = "NEXT WORD".into();
        v.entry.delete = "⌫".into();
        v.entry.clear = "CLEAR".into();
        v.entry.judge = "JUDGE".into();
    } else {
        v.entry.instruction = if entry.expected == 1 {
            "CHALLENGER: type the word".into()
        } else {
            format!("CHALLENGER: type the {} — SPACE or ENTER between words", words_count(entry.expected))
        };
        v.entry.footer = "CHALLENGED PLAYER: check the spelling, then press TAB".into();
        v.entry.keys = format!(
            "SPACE next word · BACKSPACE delete a letter · ESC clear the word · 1–{MAX_WORDS} change the number of words"
        );
    }
    if let Some(left) = kiosk.entry_countdown(now) {
        v.entry.countdown = format!("No key pressed: these words clear in {left} s. Press any key to keep them.");
    }
    // One row per declared word: typed words, then empty rows. Once
    // the last word is finished no row has the cursor.
    let current = if entry.finished { usize::MAX } else { entry.words.len() - 1 };
    v.entry.words = (0..entry.expected)
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
    v.entry.current_word = if entry.finished { -1 } else { current as i32 };
    v.entry.hint = entry.hint.map(|h| entry_hint(h, touch)).unwrap_or_default();
    v.entry.hint_alert = entry.hint.is_some_and(EntryHint::refuses_tab);
    if entry.confirming(now) {
        v.entry.confirmation = words_count(entry.expected);
    }
}

pub(super) fn verdict(v: &mut ViewModel, kiosk: &Kiosk, verdict: &VerdictScreen, touch: bool) {
    let lexicon = kiosk.lexicon();
    v.screen = ScreenKind::Verdict;
    v.verdict.acceptable = verdict.judged.verdict == Verdict::Acceptable;
    v.verdict.icon = if v.verdict.acceptable { "✓" } else { "✗" }.into();
    v.verdict.label = verdict.judged.verdict.label().into();
    v.verdict.words = verdict.words.join("  ");
    let code = verdict.judged.slip_code.as_ref().map(|c| c.as_str());
    v.verdict.slip = slip_text(verdict.judged.challenge_number, code);
    v.verdict.consequence = consequence(&verdict.judged, verdict.words.len());
    v.verdict.second = match &verdict.judged.second_opinion {
        Some(second) => match second.verdict {
            Some(other) => format!("{} would say: {}", second.lexicon, other.label()),
            None => format!("{} cannot judge here (not installed or not verified)", second.lexicon),
        },
        None => String::new(),
    };
    v.verdict.details = if lexicon.fingerprint.is_empty() {
        format!("{} · {} · {}", lexicon.id, lexicon.status, verdict.judged.time)
    } else {
        format!("{} · {} · {} · {}", lexicon.id, lexicon.status, lexicon.fingerprint, verdict.judged.time)
    };
    if touch {
        v.verdict.copied = "SLIP COPIED".into();
        v.verdict.footer = "Tap SLIP COPIED (or ENTER) · the number stays on the next screen".into();
    } else {
        v.verdict.footer = "ENTER when the slip is copied · the number stays on the next screen".into();
    }
}

pub(super) fn out_of_service(v: &mut ViewModel, kiosk: &Kiosk, info: &StationInfo) {
    v.screen = ScreenKind::OutOfService;
    v.service.title = if info.warnings.iter().any(|w| matches!(w, Warning::NotSetUp | Warning::SettingsGone)) {
        "This station is not set up for the event yet.".into()
    } else {
        "This station is not judging right now.".into()
    };
    v.service.call = "Please call the tournament director.".into();
    // Players see a short reason in their words; the director's status page
    // and the audit record have the detail (which lexicon, which setting).
    v.service.detail = super::players_reason(info, kiosk.lexicon().usable).into();
}
