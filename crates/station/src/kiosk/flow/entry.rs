//! Entry: the challenger types the declared words; the count, ESC and
//! BACKSPACE edit them, TAB (or the button) judges them.

use super::*;

/// What the Entry screen answers the last key or TAB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryHint {
    /// TAB with the wrong number of words typed.
    WordCount { typed: usize, expected: usize },
    /// TAB with a word shorter than [`MIN_LEN`] (1-based index).
    WordTooShort { index: usize },
    /// A letter beyond [`MAX_LEN`].
    WordTooLong,
    /// A key that is not a letter.
    OnlyLetters,
    /// SPACE or ENTER after the last declared word.
    AllTyped { expected: usize },
    /// A letter after the last declared word was finished: refused, never
    /// added to a word. The count can be changed with a number key.
    TooManyWords { expected: usize },
    /// The count was changed with a number key.
    CountChanged { expected: usize },
    /// A count smaller than the words already typed: refused.
    CountBelowTyped { typed: usize, asked: usize },
    /// ESC on an empty word with words typed: ESC again clears them all.
    ConfirmClear { typed: usize },
    /// ESC cleared the word under the cursor (1-based).
    WordCleared { index: usize },
    /// TAB after a letter beyond the declared words was refused: a sign of
    /// a miscount. Nothing was judged; the count key adds the word, TAB
    /// again judges the `expected` words.
    ConfirmMiscount { expected: usize },
}

impl EntryHint {
    /// Whether the hint refuses a TAB (shown as prominently as the
    /// instruction it answers).
    pub fn refuses_tab(self) -> bool {
        matches!(
            self,
            EntryHint::WordCount { .. }
                | EntryHint::WordTooShort { .. }
                | EntryHint::TooManyWords { .. }
                | EntryHint::CountBelowTyped { .. }
                | EntryHint::ConfirmClear { .. }
                | EntryHint::ConfirmMiscount { .. }
        )
    }
}

/// The Entry screen: the challenger types the declared number of words.
///
/// Invariants (kept by every key): `words` is never empty and never longer
/// than `expected`; its last entry is the word under the cursor; only that
/// one may be empty; `finished` means the cursor is past the last declared
/// word, so a letter there is refused rather than glued onto it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Words the challenger declared (1–8); a number key changes it.
    pub expected: usize,
    /// Words typed so far; the last one is being typed and may be empty.
    pub words: Vec<String>,
    /// SPACE or ENTER finished the last declared word.
    pub finished: bool,
    /// The answer to the last key or TAB.
    pub hint: Option<EntryHint>,
    /// A letter beyond the declared words was refused since the count was
    /// last set: the next TAB asks before it judges fewer words than the
    /// challenger started to type.
    pub(super) extra_refused: bool,
    pub(super) confirm_until: Duration,
    pub(super) last_key: Duration,
    /// When the entry opened: taps wait [`super::TAP_SETTLE`] after it.
    pub(super) opened: Duration,
}

impl Entry {
    /// A digit typed while words are typed: the challenger says the play
    /// has `asked` words after all. Refused below the words already typed;
    /// a count that drops the empty word under the cursor ends the entry.
    fn count_key(&mut self, asked: usize, now: Duration) {
        let typed = self.typed_words().len();
        if !(1..=MAX_WORDS).contains(&asked) {
            self.hint = Some(EntryHint::OnlyLetters);
        } else if asked < typed {
            self.hint = Some(EntryHint::CountBelowTyped { typed, asked });
        } else {
            self.expected = asked;
            if self.words.len() > asked {
                // Only an empty word under the cursor can be beyond
                // the new count: the last typed word is now the last.
                self.words.pop();
                self.finished = true;
            } else if self.finished && self.words.len() < asked {
                self.words.push(String::new());
                self.finished = false;
            }
            self.confirm_until = now + COUNT_CONFIRMATION;
            self.hint = Some(EntryHint::CountChanged { expected: asked });
            self.extra_refused = false;
        }
    }

    /// Words with at least one letter.
    pub fn typed_words(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).filter(|w| !w.is_empty()).collect()
    }
    /// Whether the count confirmation ("3 words") is still showing at `now`.
    pub fn confirming(&self, now: Duration) -> bool {
        now < self.confirm_until
    }
    /// Whether every declared word has letters (the entry is ready to judge
    /// unless a word is too short).
    pub fn complete(&self) -> bool {
        self.typed_words().len() == self.expected
    }
}

/// How long an Entry may stay without a key: longer once every declared
/// word is typed, since the players are then checking the spelling.
pub(super) fn entry_idle_limit(entry: &Entry, idle: Duration, complete_idle: Duration) -> Duration {
    if entry.complete() {
        complete_idle.max(idle)
    } else {
        idle
    }
}

impl Kiosk {
    pub(super) fn entry_key(&mut self, key: Key, trigger: Trigger, now: Duration, station: &mut dyn Station) {
        let Screen::Entry(entry) = &mut self.screen else { return };
        entry.last_key = now;
        // ESC asks before clearing every word; any other key takes the question back.
        let asked_to_clear = matches!(entry.hint, Some(EntryHint::ConfirmClear { .. }));
        entry.hint = None;
        let current = entry.words.len() - 1;
        match key {
            Key::Char(c) if c.is_ascii_alphabetic() => {
                if entry.finished {
                    // Never glued onto the last word: the count says how
                    // many words this challenge has.
                    entry.hint = Some(EntryHint::TooManyWords { expected: entry.expected });
                    entry.extra_refused = true;
                } else if entry.words[current].len() >= MAX_LEN {
                    entry.hint = Some(EntryHint::WordTooLong);
                } else {
                    entry.words[current].push(c.to_ascii_uppercase());
                }
            }
            Key::Char(c) if c.is_ascii_digit() => entry.count_key(c.to_digit(10).unwrap_or(0) as usize, now),
            Key::Char(' ') | Key::Enter => {
                if entry.words[current].is_empty() {
                    // Nothing to finish: a double space does not make an empty word.
                } else if entry.words.len() < entry.expected {
                    entry.words.push(String::new());
                } else {
                    entry.finished = true;
                    entry.hint = Some(EntryHint::AllTyped { expected: entry.expected });
                }
            }
            Key::Backspace => {
                if entry.finished {
                    // Takes back the SPACE after the last word.
                    entry.finished = false;
                } else if !entry.words[current].is_empty() {
                    entry.words[current].pop();
                } else if current > 0 {
                    entry.words.pop();
                }
            }
            Key::Escape => {
                if entry.finished || !entry.words[current].is_empty() {
                    // The word under the cursor (the last one, once finished).
                    entry.words[current].clear();
                    entry.finished = false;
                    entry.hint = Some(EntryHint::WordCleared { index: current + 1 });
                } else if entry.typed_words().is_empty() {
                    self.go_home();
                } else if asked_to_clear {
                    self.go_home();
                    if let Screen::Ready { hint } = &mut self.screen {
                        *hint = Some(ReadyHint::Cancelled);
                    }
                } else {
                    entry.hint = Some(EntryHint::ConfirmClear { typed: entry.typed_words().len() });
                }
            }
            Key::Tab => self.entry_tab(trigger, now, station),
            Key::Char(_) => entry.hint = Some(EntryHint::OnlyLetters),
            Key::Up | Key::Down | Key::Left | Key::Right | Key::DirectorChord | Key::Other => {}
        }
    }

    /// TAB on the entry: the play judged once the count, the words' lengths
    /// and a refused extra word allow it; else what stands in the way.
    fn entry_tab(&mut self, trigger: Trigger, now: Duration, station: &mut dyn Station) {
        let Screen::Entry(entry) = &mut self.screen else { return };
        let typed = entry.typed_words().len();
        let short = entry.words.iter().position(|w| !w.is_empty() && w.len() < MIN_LEN);
        if typed != entry.expected {
            entry.hint = Some(EntryHint::WordCount { typed, expected: entry.expected });
        } else if let Some(index) = short {
            entry.hint = Some(EntryHint::WordTooShort { index: index + 1 });
        } else if std::mem::take(&mut entry.extra_refused) {
            // A refused extra word means the count may be wrong: a
            // phony word left out would stand. Ask once; judge nothing.
            entry.hint = Some(EntryHint::ConfirmMiscount { expected: entry.expected });
        } else {
            let words: Vec<String> = entry.typed_words().iter().map(|w| w.to_string()).collect();
            match station.adjudicate(&words, trigger) {
                Ok(judged) => {
                    let held_before = self.held.clone();
                    self.screen = Screen::Verdict(VerdictScreen { judged, words, shown_at: now, held_before })
                }
                // The flow and the judge disagree about a word: keep
                // the entry, say what the rule is; nothing was judged.
                Err(AdjudicateError::BadChallenge(_)) => {
                    entry.hint = Some(EntryHint::OnlyLetters);
                }
                // No lexicon, a fault, or no record (so no verdict): out
                // of service until the director acts or the log can be
                // written again. The station knows why.
                Err(AdjudicateError::NoUsableLexicon | AdjudicateError::Fault(_) | AdjudicateError::NotRecorded(_)) => {
                    self.out_of_service(station)
                }
            }
        }
    }
}
