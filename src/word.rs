//! Word rules: what counts as a word, for a judge input and for a word list.
//!
//! This is the one place that decides. A judged word is 2–15 letters A–Z
//! (the longest word a 15×15 board can hold), typed in any case and stored in
//! uppercase. Anything else is refused with a message that names the word and
//! the offending character — never silently "fixed", because a station that
//! quietly drops an apostrophe or a digit would judge a word nobody typed.

use std::fmt;

/// Shortest word a judge accepts (no one-letter words exist on the board).
pub const MIN_LEN: usize = 2;
/// Longest word a judge accepts: the width of the board.
pub const MAX_LEN: usize = 15;

/// Why a typed word cannot be judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordError {
    /// The word has a character other than the letters A–Z.
    BadCharacter { word: String, character: char },
    /// The word has fewer than [`MIN_LEN`] letters.
    TooShort { word: String },
    /// The word has more than [`MAX_LEN`] letters.
    TooLong { word: String, len: usize },
}

impl fmt::Display for WordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordError::BadCharacter { word, character } => write!(
                f,
                "word {word:?} has the character {character:?} ({}); only the letters A-Z can be judged",
                character.escape_unicode()
            ),
            WordError::TooShort { word } => {
                write!(f, "word {word:?} is too short: a word has {MIN_LEN} to {MAX_LEN} letters")
            }
            WordError::TooLong { word, len } => write!(
                f,
                "word {word:?} has {len} letters: a word has {MIN_LEN} to {MAX_LEN} letters"
            ),
        }
    }
}

impl std::error::Error for WordError {}

/// Checks one typed word and returns it in uppercase.
///
/// ```
/// assert_eq!(wordjudge::word::normalize("qi").unwrap(), "QI");
/// assert!(wordjudge::word::normalize("don't").is_err());
/// ```
pub fn normalize(typed: &str) -> Result<String, WordError> {
    if let Some(character) = typed.chars().find(|c| !c.is_ascii_alphabetic()) {
        return Err(WordError::BadCharacter { word: typed.to_string(), character });
    }
    // Only ASCII letters remain, so bytes == characters.
    let len = typed.len();
    if len < MIN_LEN {
        return Err(WordError::TooShort { word: typed.to_string() });
    }
    if len > MAX_LEN {
        return Err(WordError::TooLong { word: typed.to_string(), len });
    }
    Ok(typed.to_ascii_uppercase())
}

/// A word list parsed from a file: sorted, deduplicated, uppercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordList {
    /// The words, sorted bytewise and without duplicates (what `fst` needs).
    pub words: Vec<String>,
    /// Lines that were not words and were skipped (only with `skip_invalid`).
    pub skipped: usize,
    /// Lines that repeated a word already seen.
    pub duplicates: usize,
}

/// Why a word list cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordListError {
    /// A line is neither a word, a comment nor blank.
    BadLine { file: String, line: usize, problem: String },
    /// The file holds no words at all.
    Empty { file: String },
}

impl fmt::Display for WordListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordListError::BadLine { file, line, problem } => write!(
                f,
                "{file}, line {line}: {problem} (a word list has one word of {MIN_LEN}-{MAX_LEN} letters A-Z per line; \
                 `#` starts a comment; use --skip-invalid to skip such lines)"
            ),
            WordListError::Empty { file } => write!(f, "{file}: the word list has no words"),
        }
    }
}

impl std::error::Error for WordListError {}

/// Parses a word-list file's bytes.
///
/// One word per line; `#` starts a comment (whole line or after the word);
/// blank lines, CRLF endings, lowercase and repeated words are accepted.
/// Any other line is an error naming `file` and the line number, unless
/// `skip_invalid` is set, in which case it is counted in [`WordList::skipped`].
pub fn parse_word_list(bytes: &[u8], file: &str, skip_invalid: bool) -> Result<WordList, WordListError> {
    let mut words = Vec::new();
    let mut skipped = 0;
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = index + 1;
        let checked = std::str::from_utf8(raw)
            .map_err(|e| format!("bytes that are not UTF-8 text (at byte {})", e.valid_up_to()))
            .and_then(|text| {
                let content = text.split('#').next().unwrap_or("").trim();
                if content.is_empty() {
                    Ok(None)
                } else if content.contains(char::is_whitespace) {
                    Err(format!("{content:?} is more than one word"))
                } else {
                    normalize(content).map(Some).map_err(|e| e.to_string())
                }
            });
        match checked {
            Ok(Some(word)) => words.push(word),
            Ok(None) => {}
            Err(_) if skip_invalid => skipped += 1,
            Err(problem) => {
                return Err(WordListError::BadLine { file: file.to_string(), line: line_no, problem })
            }
        }
    }
    if words.is_empty() {
        return Err(WordListError::Empty { file: file.to_string() });
    }
    words.sort_unstable();
    let before = words.len();
    words.dedup();
    let duplicates = before - words.len();
    Ok(WordList { words, skipped, duplicates })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_uppercases_and_checks_length() {
        assert_eq!(normalize("Qi").unwrap(), "QI");
        assert_eq!(normalize("a"), Err(WordError::TooShort { word: "a".into() }));
        assert_eq!(normalize(&"A".repeat(15)).unwrap().len(), 15);
        assert_eq!(normalize(&"A".repeat(16)), Err(WordError::TooLong { word: "A".repeat(16), len: 16 }));
    }

    #[test]
    fn normalize_refuses_and_names_any_other_character() {
        for (word, bad) in [("DON'T", '\''), ("CAFÉ", 'É'), ("AB1", '1'), ("A B", ' '), ("ZA\t", '\t'), ("", ' ')] {
            match normalize(word) {
                Err(WordError::BadCharacter { word: w, character }) => {
                    assert_eq!(w, word);
                    assert_eq!(character, bad);
                    let msg = normalize(word).unwrap_err().to_string();
                    assert!(msg.contains(&format!("{word:?}")), "{msg}");
                }
                Err(WordError::TooShort { .. }) if word.is_empty() => {}
                other => panic!("{word:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn word_list_accepts_comments_blanks_crlf_lowercase_duplicates() {
        let text = b"# header\r\nzebra\r\n\r\nQI # two letters\nqi\n  ZA  \n";
        let list = parse_word_list(text, "x.txt", false).unwrap();
        assert_eq!(list.words, ["QI", "ZA", "ZEBRA"]);
        assert_eq!(list.duplicates, 1);
        assert_eq!(list.skipped, 0);
    }

    #[test]
    fn word_list_bad_line_names_file_and_line() {
        let err = parse_word_list(b"CAT\nDOG\nDON'T\n", "lists/a.txt", false).unwrap_err();
        assert!(matches!(err, WordListError::BadLine { line: 3, .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("lists/a.txt, line 3") && msg.contains("DON'T"), "{msg}");
        let err = parse_word_list(b"CAT\nTWO WORDS\n", "b.txt", false).unwrap_err();
        assert!(err.to_string().contains("line 2"));
    }

    #[test]
    fn word_list_skip_invalid_counts_skips() {
        let list = parse_word_list(b"CAT\nX\nDON'T\n\xff\xfe\nDOG\n", "a", true).unwrap();
        assert_eq!(list.words, ["CAT", "DOG"]);
        assert_eq!(list.skipped, 3);
    }

    #[test]
    fn word_list_refuses_empty_and_binary() {
        assert_eq!(parse_word_list(b"# nothing\n\n", "e.txt", false), Err(WordListError::Empty { file: "e.txt".into() }));
        let err = parse_word_list(&[0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff], "bin", false).unwrap_err();
        assert!(err.to_string().starts_with("bin, line 1"), "{err}");
        assert!(matches!(parse_word_list(&[0xff; 40], "bin", true), Err(WordListError::Empty { .. })));
    }
}
