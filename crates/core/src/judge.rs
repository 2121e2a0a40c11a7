//! Judging a challenge: one verdict for the whole play.
//!
//! A challenge is 1 to 8 words. The verdict is ACCEPTABLE exactly when every
//! word is acceptable. Every word is always looked up — there is no early
//! exit — and each lookup consults every layer and both correction lists
//! ([`Lexicon::contains`]), so the work done does not reveal which word failed
//! by stopping early. (A single fst lookup does take a few nanoseconds longer
//! the more letters of a word it matches; nothing on a screen can show that.)
//! What the screen gets is a bare [`Verdict`]; which word failed exists only
//! inside an [`Adjudication`], for the audit log.

use crate::lexicon::{Lexicon, NotUsable};
use crate::word::{normalize, WordError};
use std::fmt;

/// Most words one challenge may name (the most a single play can form).
pub const MAX_WORDS: usize = 8;

/// The verdict for a whole challenge. Nothing else reaches the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Acceptable,
    Unacceptable,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Acceptable => "ACCEPTABLE",
            Verdict::Unacceptable => "UNACCEPTABLE",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The words of a challenge, checked: 1–8 words of 2–15 letters, uppercase.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Challenge {
    words: Vec<String>,
}

/// Why typed words do not make a challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeError {
    NoWords,
    TooManyWords { count: usize },
    Word(WordError),
}

impl fmt::Display for ChallengeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChallengeError::NoWords => write!(f, "a challenge names at least one word"),
            ChallengeError::TooManyWords { count } => {
                write!(f, "a challenge names at most {MAX_WORDS} words, not {count}")
            }
            ChallengeError::Word(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ChallengeError {}

impl Challenge {
    /// Checks typed words (any case) and makes a challenge of them.
    pub fn new<S: AsRef<str>>(typed: &[S]) -> Result<Challenge, ChallengeError> {
        if typed.is_empty() {
            return Err(ChallengeError::NoWords);
        }
        if typed.len() > MAX_WORDS {
            return Err(ChallengeError::TooManyWords { count: typed.len() });
        }
        let words =
            typed.iter().map(|w| normalize(w.as_ref())).collect::<Result<_, _>>().map_err(ChallengeError::Word)?;
        Ok(Challenge { words })
    }

    /// The words, uppercase, in the order typed.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// The full result of judging: the verdict and, for the audit log only, each
/// word's own result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjudication {
    verdict: Verdict,
    words: Vec<String>,
    per_word: Vec<bool>,
}

impl Adjudication {
    /// The verdict for the whole challenge: all the screen may show.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }
    /// The words as judged.
    pub fn words(&self) -> &[String] {
        &self.words
    }
    /// Each word's own result, in order. For the audit log only: the screen
    /// must never say which word failed.
    pub fn per_word_for_audit(&self) -> &[bool] {
        &self.per_word
    }
}

/// Judges `challenge` with `lexicon`. Refuses when the lexicon may not judge.
pub fn judge(lexicon: &Lexicon, challenge: &Challenge) -> Result<Adjudication, NotUsable> {
    lexicon.check_usable()?;
    let mut per_word = Vec::with_capacity(challenge.words.len());
    let mut all = true;
    for word in &challenge.words {
        // Look every word up, then combine without branching on the result.
        let acceptable = std::hint::black_box(lexicon.contains(word));
        all &= acceptable;
        per_word.push(acceptable);
    }
    let verdict = if all { Verdict::Acceptable } else { Verdict::Unacceptable };
    Ok(Adjudication { verdict, words: challenge.words.clone(), per_word })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_counts_words() {
        assert_eq!(Challenge::new::<&str>(&[]), Err(ChallengeError::NoWords));
        assert_eq!(Challenge::new(&["QI"; 9]), Err(ChallengeError::TooManyWords { count: 9 }));
        assert_eq!(Challenge::new(&["qi", "Za"]).unwrap().words(), ["QI", "ZA"]);
        assert!(matches!(Challenge::new(&["QI", "Z4"]), Err(ChallengeError::Word(_))));
    }
}
