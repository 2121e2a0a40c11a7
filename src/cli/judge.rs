//! `wordjudge judge`: the headless judge, for directors re-checking
//! challenge slips and for tests.

use super::{fail, Context};
use std::io::BufRead;
use std::process::ExitCode;
use wordjudge::judge::{judge, Challenge, Verdict};
use wordjudge::lexicon::catalog::Catalog;
use wordjudge::lexicon::Verification;

#[derive(clap::Args, Debug)]
pub struct JudgeArgs {
    /// Lexicon id (see `wordjudge lexicon list`)
    #[arg(long, value_name = "ID")]
    lexicon: String,
    /// Read challenges from standard input, one per line (words separated by
    /// spaces), and print one verdict per line; a line that is not a valid
    /// challenge prints INVALID (reason on stderr) and makes the exit code 2
    #[arg(long, conflicts_with = "words")]
    each: bool,
    /// The words of one challenge (1 to 8)
    #[arg(value_name = "WORD", required_unless_present = "each")]
    words: Vec<String>,
}

pub fn run(context: &Context, args: JudgeArgs) -> ExitCode {
    let catalog = Catalog::load(&context.lexicon_dir);
    let lexicon = match catalog.open(&args.lexicon, Verification::Quick) {
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
    let mut code = ExitCode::SUCCESS;
    for (index, line) in std::io::stdin().lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => return fail(format_args!("standard input, line {}: {e}", index + 1)),
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let result = Challenge::new(&words).map_err(|e| e.to_string()).and_then(|c| {
            judge(&lexicon, &c).map(|a| a.verdict()).map_err(|e| e.to_string())
        });
        use std::io::Write;
        let printed = match result {
            Ok(verdict) => writeln!(out, "{verdict}"),
            Err(problem) => {
                eprintln!("wordjudge: standard input, line {}: {problem}", index + 1);
                code = ExitCode::from(super::EXIT_USAGE);
                writeln!(out, "INVALID")
            }
        };
        if printed.is_err() {
            return ExitCode::from(super::EXIT_USAGE);
        }
    }
    code
}
