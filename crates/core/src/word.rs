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
/// Longest line a word list may have: a word of 15 letters and a comment.
/// A longer line is refused as soon as it is seen, before the rest of it is
/// read (a hostile stick's 60 MB line costs 1 KB of memory, not 60 MB).
pub const MAX_LINE_BYTES: usize = 1024;
/// Most words a word list may hold: twice the largest tournament list
/// (CSW24, about 280,000), so memory stays bounded whatever a file holds.
pub const MAX_LIST_WORDS: usize = 600_000;
/// Characters of outside text quoted in a message, at most.
const QUOTE_CHARS: usize = 32;

/// `text` quoted for a message: at most 32 characters, escaped (a newline,
/// an escape sequence or a control character shows as `\n`, `\u{1b}`…),
/// with "…" when cut. Text from files, sticks and keyboards goes into
/// messages, logs and screens only this way (or as [`printable`]).
pub fn quote(text: &str) -> String {
    format!("\"{}\"", printable(text, QUOTE_CHARS))
}

/// `text` escaped as [`quote`] does, without the quotes, at most
/// `max_chars` characters (for names: a file name on a stick may hold a
/// newline or an escape sequence that would split a log line or a row).
pub fn printable(text: &str, max_chars: usize) -> String {
    let cut: String = text.chars().take(max_chars).collect();
    let debug = format!("{cut:?}");
    let mut out = debug[1..debug.len() - 1].to_string();
    if text.chars().nth(max_chars).is_some() {
        out.push('…');
    }
    out
}

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
                "word {} has the character {character:?} ({}); only the letters A-Z can be judged",
                quote(word),
                character.escape_unicode()
            ),
            WordError::TooShort { word } => {
                write!(f, "word {} is too short: a word has {MIN_LEN} to {MAX_LEN} letters", quote(word))
            }
            WordError::TooLong { word, len } => {
                write!(f, "word {} has {len} letters: a word has {MIN_LEN} to {MAX_LEN} letters", quote(word))
            }
        }
    }
}

impl std::error::Error for WordError {}

/// Checks one typed word and returns it in uppercase.
///
/// ```
/// assert_eq!(wordjudge_core::word::normalize("qi").unwrap(), "QI");
/// assert!(wordjudge_core::word::normalize("don't").is_err());
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
    /// A line longer than [`MAX_LINE_BYTES`]: not a word list (refused at
    /// once); `start` quotes its beginning.
    LineTooLong { file: String, line: usize, start: String },
    /// More than [`MAX_LIST_WORDS`] words.
    TooManyWords { file: String },
    /// The file could not be read to its end.
    Read { file: String, problem: String },
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
            WordListError::LineTooLong { file, line, start } => write!(
                f,
                "{file}, line {line}: longer than {MAX_LINE_BYTES} bytes (it starts {start}): not a word list, \
                 which has one word of {MIN_LEN}-{MAX_LEN} letters per line"
            ),
            WordListError::TooManyWords { file } => {
                write!(f, "{file}: more than {MAX_LIST_WORDS} words, more than any tournament list: not taken")
            }
            WordListError::Read { file, problem } => write!(f, "{file}: cannot be read: {problem}"),
        }
    }
}

impl std::error::Error for WordListError {}

/// Parses a word-list file's bytes (see [`read_word_list`]).
pub fn parse_word_list(bytes: &[u8], file: &str, skip_invalid: bool) -> Result<WordList, WordListError> {
    read_word_list(&mut &bytes[..], file, skip_invalid)
}

/// Reads a word list line by line.
///
/// One word per line; `#` starts a comment (whole line or after the word);
/// blank lines, CRLF endings, lowercase and repeated words are accepted.
/// Any other line is an error naming `file` and the line number, unless
/// `skip_invalid` is set, in which case it is counted in [`WordList::skipped`].
/// Memory stays bounded whatever the input: a line over [`MAX_LINE_BYTES`]
/// ends the read at once, and so does a word past [`MAX_LIST_WORDS`].
pub fn read_word_list<R: std::io::BufRead>(
    reader: &mut R,
    file: &str,
    skip_invalid: bool,
) -> Result<WordList, WordListError> {
    use std::io::{BufRead, Read};
    let mut words = Vec::new();
    let mut skipped = 0;
    let mut buf = Vec::with_capacity(64);
    let mut line_no = 0;
    loop {
        buf.clear();
        let read = reader.by_ref().take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buf);
        let n = read.map_err(|e| WordListError::Read { file: file.to_string(), problem: e.to_string() })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let raw = match buf.strip_suffix(b"\n") {
            Some(line) => line,
            None if buf.len() > MAX_LINE_BYTES => {
                let start = String::from_utf8_lossy(&buf[..QUOTE_CHARS * 4]);
                return Err(WordListError::LineTooLong { file: file.to_string(), line: line_no, start: quote(&start) });
            }
            None => &buf[..],
        };
        let checked = std::str::from_utf8(raw)
            .map_err(|e| format!("bytes that are not UTF-8 text (at byte {})", e.valid_up_to()))
            .and_then(|text| {
                let content = text.split('#').next().unwrap_or("").trim();
                if content.is_empty() {
                    Ok(None)
                } else if content.contains(char::is_whitespace) {
                    Err(format!("{} is more than one word", quote(content)))
                } else {
                    normalize(content).map(Some).map_err(|e| e.to_string())
                }
            });
        match checked {
            Ok(Some(word)) => {
                if words.len() == MAX_LIST_WORDS {
                    return Err(WordListError::TooManyWords { file: file.to_string() });
                }
                words.push(word)
            }
            Ok(None) => {}
            Err(_) if skip_invalid => skipped += 1,
            Err(problem) => return Err(WordListError::BadLine { file: file.to_string(), line: line_no, problem }),
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
                    assert!(msg.contains(&quote(word)), "{msg}");
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
    fn a_huge_line_is_refused_at_once_and_quoted_short_and_escaped() {
        // A reader that would take a long time to give 60 MB: only the first
        // KB is ever asked for.
        let mut line = vec![b'A'; 60 * 1024 * 1024];
        line[3] = 0x1b;
        let mut reader = std::io::BufReader::new(&line[..]);
        let err = read_word_list(&mut reader, "big.txt", true).unwrap_err();
        assert!(matches!(err, WordListError::LineTooLong { line: 1, .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.len() < 300 && msg.contains("AAA\\u{1b}AAA") && msg.contains('…'), "{msg}");
        assert_eq!(printable("a\nb\u{1b}[31m", 64), "a\\nb\\u{1b}[31m");
        assert_eq!(quote(&"x".repeat(40)), format!("\"{}…\"", "x".repeat(32)));
        assert!(!msg.contains('\u{1b}'), "no raw escape character");
        let consumed = 60 * 1024 * 1024 - std::io::Read::bytes(reader).count();
        assert!(consumed < 64 * 1024, "read {consumed} bytes of it");
        let err = parse_word_list(format!("CAT\n{}\n", "Q".repeat(900)).as_bytes(), "l.txt", false).unwrap_err();
        assert!(err.to_string().len() < 300, "{err}");
    }

    #[test]
    fn a_list_past_the_word_limit_is_refused() {
        let mut text = String::new();
        let mut word = *b"AAAA";
        for _ in 0..=MAX_LIST_WORDS {
            text.push_str(std::str::from_utf8(&word).unwrap());
            text.push('\n');
            for i in (0..4).rev() {
                if word[i] < b'Z' {
                    word[i] += 1;
                    break;
                }
                word[i] = b'A';
            }
        }
        let err = parse_word_list(text.as_bytes(), "many.txt", false).unwrap_err();
        assert_eq!(err, WordListError::TooManyWords { file: "many.txt".into() });
    }

    #[test]
    fn word_list_refuses_empty_and_binary() {
        assert_eq!(
            parse_word_list(b"# nothing\n\n", "e.txt", false),
            Err(WordListError::Empty { file: "e.txt".into() })
        );
        let err = parse_word_list(&[0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff], "bin", false).unwrap_err();
        assert!(err.to_string().starts_with("bin, line 1"), "{err}");
        assert!(matches!(parse_word_list(&[0xff; 40], "bin", true), Err(WordListError::Empty { .. })));
    }
}
