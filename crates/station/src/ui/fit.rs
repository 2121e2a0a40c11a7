//! How many lines a verdict's words take, counted from the font's widths, so
//! that the window can give eight long words a size that keeps the slip on
//! the screen (`ui/screens/verdict.slint`).
//!
//! Why here and not in the `.slint` file: Slint can wrap a text but cannot
//! tell a layout how many lines the wrap made before it has a size, and the
//! size is what depends on it.

/// The line widths, in em, at which the lines are counted: from the
/// narrowest a line of words can be (`Fit.words` in `ui/theme.slint` keeps
/// the words' size at most 1/15.5 of the room) to lines four times as wide
/// (words at a quarter of their size). `verdict.slint` has the same list.
pub const LINE_WIDTHS_EM: [f32; 9] = [15.5, 17.5, 20.0, 23.0, 27.0, 32.0, 40.0, 50.0, 62.0];

/// DejaVu Sans's advance widths of A to Z, in 1/2048 em (its `hmtx` table;
/// the words are drawn in DejaVu Sans, `ui/fonts`).
const CAPITAL_WIDTHS: [u16; 26] = [
    1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300,
    1251, 1499, 1401, 2025, 1403, 1251, 1403,
];
/// The space's advance width, in 1/2048 em.
const SPACE_WIDTH: u16 = 651;
/// What any other character counts as: the widest capital, W.
const WIDEST: u16 = 2025;

fn width_em(word: &str) -> f32 {
    let units: u32 = word
        .chars()
        .map(|c| match c {
            'A'..='Z' => u32::from(CAPITAL_WIDTHS[(c as u8 - b'A') as usize]),
            _ => u32::from(WIDEST),
        })
        .sum();
    units as f32 / 2048.0
}

/// The lines `words` (as the verdict shows them: separated by spaces) take
/// when wrapped between words at each of [`LINE_WIDTHS_EM`], at least 1
/// each. Never fewer than the window's own wrap makes at a line at least
/// that wide: kerning only narrows a word.
pub fn word_lines(words: &str) -> Vec<i32> {
    LINE_WIDTHS_EM.iter().map(|&width| lines_at(words, width)).collect()
}

fn lines_at(words: &str, line_em: f32) -> i32 {
    let space = f32::from(SPACE_WIDTH) / 2048.0;
    let mut lines = 1;
    // The width of the line being filled, and the spaces waiting before the
    // next word on it (a space that ends a line takes no room).
    let (mut line, mut spaces) = (0.0_f32, 0usize);
    let mut started = false;
    for piece in words.split(' ') {
        if piece.is_empty() {
            spaces += 1;
            continue;
        }
        let width = width_em(piece);
        let joined = line + (spaces + 1) as f32 * space + width;
        if !started {
            line = width;
            started = true;
        } else if joined <= line_em {
            line = joined;
        } else {
            lines += 1;
            line = width;
        }
        spaces = 0;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::lines_at;

    fn word_lines(words: &str) -> i32 {
        lines_at(words, super::LINE_WIDTHS_EM[0])
    }

    #[test]
    fn one_word_of_fifteen_w_is_one_line_and_two_are_two() {
        assert_eq!(word_lines(""), 1);
        assert_eq!(word_lines("QI"), 1);
        assert_eq!(word_lines("WWWWWWWWWWWWWWW"), 1);
        assert_eq!(word_lines("WWWWWWWWWWWWWWW  WWWWWWWWWWWWWWW"), 2);
    }

    #[test]
    fn short_words_share_a_line_and_long_ones_do_not() {
        // 2 × 0.68 em + 2 spaces: far under 15.5 em.
        assert_eq!(word_lines("ZA  QI  CAT  DOG"), 1);
        // Two 15-letter words are about 20 em: one each.
        assert_eq!(word_lines("ENDURABLENESSES  ARTIFICIALIZING"), 2);
        assert_eq!(word_lines(&["WWWWWWWWWWWWWWW"; 8].join("  ")), 8);
    }

    #[test]
    fn wider_lines_hold_more_words_and_never_need_more_lines() {
        let words = "ENDURABLENESSES  ARTIFICIALIZING  BITUMINIZATIONS  RATIONALISATION";
        // 10.05, 8.19, 8.97 and 9.12 em, and 0.64 em between two.
        assert_eq!(lines_at(words, 17.0), 4);
        assert_eq!(lines_at(words, 18.0), 3, "the second and third share one");
        assert_eq!(lines_at(words, 19.0), 2);
        assert_eq!(lines_at(words, 28.0), 2);
        assert_eq!(lines_at(words, 29.0), 2);
        assert_eq!(lines_at(words, 37.0), 1 + 1, "three on the first line, 28.45 em");
        assert_eq!(lines_at(words, 38.5), 1);
        let all = super::word_lines(words);
        assert!(all.windows(2).all(|w| w[1] <= w[0]), "{all:?}");
    }
}
