//! `wordjudge lexicon build|list|info|verify`: compile word lists and show
//! directors what each lexicon is.

use super::{fail, Context};
use std::path::PathBuf;
use std::process::ExitCode;
use wordjudge::lexicon::build::build_lexicon;
use wordjudge::lexicon::catalog::{Catalog, Origin};
use wordjudge::lexicon::{Lexicon, Verification};

#[derive(clap::Subcommand, Debug)]
pub enum LexiconCommand {
    /// Compile a word list into NAME.fst plus its manifest NAME.fst.toml
    Build {
        /// Word list: one word per line; `#` comments, blank lines, CRLF, lowercase and duplicates allowed
        source: PathBuf,
        /// Output file, DIR/NAME.fst
        #[arg(long)]
        out: PathBuf,
        /// Skip lines that are not words (and report how many) instead of refusing the list
        #[arg(long)]
        skip_invalid: bool,
    },
    /// List the lexicons defined in the lexicon directory, with their status
    List,
    /// Show everything about one lexicon (full verification)
    Info { id: String },
    /// Verify one lexicon, or all: reads every word back. Exit 1 if any cannot judge
    Verify { id: Option<String> },
}

pub fn run(context: &Context, command: LexiconCommand) -> ExitCode {
    match command {
        LexiconCommand::Build { source, out, skip_invalid } => match build_lexicon(&source, &out, skip_invalid) {
            Ok(report) => {
                let m = &report.manifest;
                println!("built {} ({} words, {} bytes)", report.fst_path.display(), m.word_count, std::fs::metadata(&report.fst_path).map(|md| md.len()).unwrap_or(0));
                println!("manifest {}", report.manifest_path.display());
                println!("fingerprint {}", m.fingerprint);
                if report.duplicates > 0 {
                    println!("{} repeated words dropped", report.duplicates);
                }
                if report.skipped > 0 {
                    println!("{} invalid lines skipped", report.skipped);
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        LexiconCommand::List => {
            let catalog = load(context);
            for entry in catalog.entries() {
                let status = match catalog.open(&entry.definition.id, Verification::Quick) {
                    Ok(l) => l.status().to_string(),
                    Err(e) => e.status().to_string(),
                };
                let origin = match &entry.origin {
                    Origin::BuiltIn => "built-in".to_string(),
                    Origin::File(p) => p.display().to_string(),
                };
                println!("{:<12} {:<18} {}  [{}]", entry.definition.id, status, entry.definition.name, origin);
            }
            ExitCode::SUCCESS
        }
        LexiconCommand::Info { id } => {
            let catalog = load(context);
            match catalog.open(&id, Verification::Full) {
                Ok(lexicon) => {
                    print_info(&lexicon);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    println!("id:        {id}");
                    println!("status:    {}", e.status());
                    println!("problem:   {e}");
                    ExitCode::from(1)
                }
            }
        }
        LexiconCommand::Verify { id } => {
            let catalog = load(context);
            let ids: Vec<String> = match id {
                Some(id) => vec![id],
                None => catalog.entries().iter().map(|e| e.definition.id.clone()).collect(),
            };
            let mut all_usable = true;
            for id in ids {
                match catalog.open(&id, Verification::Full) {
                    Ok(l) => {
                        all_usable &= l.status().can_judge();
                        let words: u64 = l.layers().iter().map(|layer| layer.manifest.word_count).sum();
                        println!("{:<12} {:<18} {}  {} words", id, l.status().to_string(), l.fingerprint(), words);
                    }
                    Err(e) => {
                        all_usable = false;
                        println!("{:<12} {:<18} {e}", id, e.status().to_string());
                    }
                }
            }
            if all_usable {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn load(context: &Context) -> Catalog {
    let catalog = Catalog::load(&context.lexicon_dir);
    for problem in catalog.problems() {
        eprintln!("wordjudge: {problem}");
    }
    catalog
}

fn print_info(lexicon: &Lexicon) {
    let def = lexicon.definition();
    println!("id:          {}", def.id);
    println!("name:        {}", def.name);
    println!("edition:     {}", def.edition);
    println!("definition:  {}", lexicon.definition_path().display());
    println!("status:      {}", lexicon.status());
    println!("fingerprint: {}", lexicon.fingerprint());
    if !def.add.is_empty() || !def.remove.is_empty() {
        println!("corrections: {} added, {} removed", def.add.len(), def.remove.len());
    }
    for (i, layer) in lexicon.layers().iter().enumerate() {
        let m = &layer.manifest;
        println!("layer {}:     {} (lengths {}-{})", i + 1, layer.path.display(), layer.definition.min_len, layer.definition.max_len);
        println!("  fingerprint: {}", m.fingerprint);
        match (&layer.definition.published_fingerprint, layer.fingerprint_matches()) {
            (Some(p), Some(true)) => println!("  published:   {p} (matches)"),
            (Some(p), _) => println!("  published:   {p} (DOES NOT MATCH)"),
            (None, _) => println!("  published:   none known"),
        }
        println!("  words:       {} (lengths {}-{})", m.word_count, m.shortest, m.longest);
        let counts: Vec<String> = m.count_by_length.iter().enumerate().filter(|(_, &n)| n > 0).map(|(len, n)| format!("{len}:{n}")).collect();
        println!("  by length:   {}", counts.join(" "));
        println!("  sha256:      {}", m.fst_sha256);
        println!("  source:      {} (sha256 {})", m.source_file, m.source_sha256);
        println!("  built:       {} by {}", m.built_at, m.tool_version);
    }
}
