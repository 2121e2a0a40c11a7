//! `wordjudge judge`: the headless judge, for directors re-checking
//! challenge slips and for tests.
//!
//! `--each` reads standard input as bytes through a bounded line reader: a
//! line longer than [`MAX_LINE`] or not UTF-8 gets `INVALID` (reason on
//! stderr) and judging goes on with the next line, in bounded memory however
//! long the line is.

use super::{fail, Context};
use std::io::Write;
use std::process::ExitCode;
use wordjudge_core::judge::{judge, Challenge, Verdict};
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::outside_files::{read_line_bounded, Line};

/// Longest challenge line: 8 words of 15 letters and their separators fit in
/// 128 bytes; generous room for spaces and CRLF.
pub const MAX_LINE: usize = 4096;

#[derive(clap::Args, Debug)]
pub struct JudgeArgs {
    /// Lexicon id (see `wordjudge lexicon list`)
    #[arg(long, value_name = "ID")]
    lexicon: String,
    /// Read challenges from standard input, one per line (words separated by
    /// spaces), and print one verdict per line; a line that is not a valid
    /// challenge (or not UTF-8, or longer than 4096 bytes) prints INVALID
    /// (reason on stderr) and makes the exit code 2
    #[arg(long, conflicts_with = "words")]
    each: bool,
    /// The words of one challenge (1 to 8)
    #[arg(value_name = "WORD", required_unless_present = "each")]
    words: Vec<String>,
}

pub fn run(context: &Context, args: JudgeArgs) -> ExitCode {
    let catalog = Catalog::load(&context.lexicon_dir);
    let lexicon = match catalog.open(&args.lexicon) {
        Ok(l) => l,
        Err(e) => return fail(format_args!("lexicon {} is {}: {e}", args.lexicon, e.status())),
    };
    if let Err(e) = lexicon.check_usable() {
        return fail(e);
    }
    if !args.each {
        let challenge = match Challenge::new(&args.words) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        let verdict = judge(&lexicon, &challenge).map(|a| a.verdict());
        return match verdict {
            Ok(Verdict::Acceptable) => {
                println!("{}", Verdict::Acceptable);
                ExitCode::SUCCESS
            }
            Ok(Verdict::Unacceptable) => {
                println!("{}", Verdict::Unacceptable);
                ExitCode::from(1)
            }
            Err(e) => fail(e),
        };
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut input = std::io::stdin().lock();
    let mut buf = Vec::with_capacity(256);
    let mut code = ExitCode::SUCCESS;
    let mut line_no: u64 = 0;
    loop {
        line_no += 1;
        let result = match read_line_bounded(&mut input, MAX_LINE, &mut buf) {
            Ok(Line::End) => break,
            Err(e) => return fail(format_args!("standard input, line {line_no}: {e}")),
            Ok(Line::TooLong { len }) => {
                Err(format!("{len} bytes is longer than a challenge line may be ({MAX_LINE})"))
            }
            Ok(Line::Complete) => match std::str::from_utf8(&buf) {
                Err(e) => Err(format!("not UTF-8 text (bad bytes at byte {})", e.valid_up_to())),
                Ok(text) => {
                    let words: Vec<&str> = text.split_whitespace().collect();
                    Challenge::new(&words)
                        .map_err(|e| e.to_string())
                        .and_then(|c| judge(&lexicon, &c).map(|a| a.verdict()).map_err(|e| e.to_string()))
                }
            },
        };
        let printed = match result {
            Ok(verdict) => writeln!(out, "{verdict}"),
            Err(problem) => {
                eprintln!("wordjudge: standard input, line {line_no}: {problem}");
                code = ExitCode::from(super::EXIT_USAGE);
                writeln!(out, "INVALID")
            }
        };
        // Flush per line so a reader sees each verdict as soon as it is made.
        if printed.and_then(|()| out.flush()).is_err() {
            return ExitCode::from(super::EXIT_USAGE);
        }
    }
    code
}
