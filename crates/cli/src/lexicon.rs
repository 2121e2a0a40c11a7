//! `wordjudge lexicon build|install|list|info|verify`: compile word lists and
//! show directors what each lexicon is. Every status printed here is computed
//! from the bytes that would judge (see `wordjudge_core::lexicon`), never from a
//! manifest or definition file's claims.

use super::{fail, Context};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wordjudge_core::lexicon::build::{build_lexicon, install_official, manifest_path_for, BuildReport};
use wordjudge_core::lexicon::catalog::{Catalog, Entry, Origin};
use wordjudge_core::lexicon::manifest::Manifest;
use wordjudge_core::lexicon::{DefinitionSource, Lexicon, Proof};

#[derive(clap::Subcommand, Debug)]
#[command(defer = true)] // built only when chosen: see the `Command` enum in lib.rs
pub enum LexiconCommand {
    /// Compile any word list into DIR/NAME.fst (plus an informative manifest NAME.fst.toml)
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
    /// Install an official word list into the lexicon directory by its file
    /// name (CSW21.txt → CSW21) or --id; refused if it is not that list
    Install {
        /// Word list of an official lexicon, e.g. CSW21.txt, NWL2023.txt, OSPD4.txt, MW11-long.txt
        source: PathBuf,
        /// The official lexicon (or layer) it is, when the file name does not say
        #[arg(long)]
        id: Option<String>,
        /// Skip lines that are not words (and report how many) instead of refusing the list
        #[arg(long)]
        skip_invalid: bool,
    },
    /// List the lexicons installed or defined in the lexicon directory, with their status
    List {
        /// Also list the official lexicons that are not installed
        #[arg(long)]
        all: bool,
    },
    /// Show everything about one lexicon
    Info { id: String },
    /// Verify one lexicon, or all installed: exit 1 if any cannot judge
    Verify { id: Option<String> },
}

fn print_build(report: &BuildReport) {
    let m = &report.manifest;
    if report.unchanged {
        println!(
            "{} already held exactly this list ({} words); nothing changed",
            report.fst_path.display(),
            m.word_count
        );
    } else {
        println!("built {} ({} words)", report.fst_path.display(), m.word_count);
    }
    println!("fingerprint {}", m.fingerprint);
    if let Some(content) = &m.content_sha256 {
        println!("content sha256 {content}");
    }
    if report.duplicates > 0 {
        println!("{} repeated words dropped", report.duplicates);
    }
    if report.skipped > 0 {
        println!("{} invalid lines skipped", report.skipped);
    }
    if let Some(problem) = &report.manifest_problem {
        eprintln!("wordjudge: warning: {problem}");
    }
}

pub fn run(context: &Context, command: LexiconCommand) -> ExitCode {
    match command {
        LexiconCommand::Build { source, out, skip_invalid } => match build_lexicon(&source, &out, skip_invalid) {
            Ok(report) => {
                print_build(&report);
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        LexiconCommand::Install { source, id, skip_invalid } => install(context, &source, id.as_deref(), skip_invalid),
        LexiconCommand::List { all } => list(context, all),
        LexiconCommand::Info { id } => info(context, &id),
        LexiconCommand::Verify { id } => verify(context, id),
    }
}

/// `lexicon install`: an official list built, checked against what is
/// published for it, and installed; then opened as the station would.
fn install(context: &Context, source: &Path, id: Option<&str>, skip_invalid: bool) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(&context.lexicon_dir) {
        return fail(format_args!("cannot create the lexicon directory {}: {e}", context.lexicon_dir.display()));
    }
    match install_official(source, &context.lexicon_dir, id, skip_invalid) {
        Ok(report) => {
            print_build(&report.build);
            let checked = match report.evidence {
                "pinned digest" => "its content digest equals the one pinned in wordjudge",
                "published fingerprint" => "its fingerprint matches the published one (no digest is pinned for it)",
                _ => "nothing is published to check it against",
            };
            println!("installed as {} of {}: {checked}", report.layer.fst, report.lexicon.id);
            let catalog = load(context);
            match catalog.open(report.lexicon.id) {
                Ok(l) => println!("{}: {}", l.id(), l.status_text()),
                Err(e) => println!("{}: {} ({e})", report.lexicon.id, e.status()),
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `lexicon list`: every lexicon installed with its status, and with
/// `--all` the official ones not installed.
fn list(context: &Context, all: bool) -> ExitCode {
    let catalog = load(context);
    for entry in catalog.entries() {
        let status = match catalog.open(&entry.definition.id) {
            Ok(l) => l.status().to_string(),
            Err(e) => e.status().to_string(),
        };
        println!("{:<12} {:<40} {}  [{}]", entry.definition.id, status, shown(&entry.definition.name), origin(entry));
    }
    if all {
        for entry in catalog.not_installed() {
            println!(
                "{:<12} {:<40} {}  [{}]",
                entry.definition.id,
                "Missing (not installed)",
                shown(&entry.definition.name),
                origin(entry)
            );
        }
    } else if !catalog.not_installed().is_empty() {
        println!(
            "({} more official lexicons known, not installed: `lexicon list --all`)",
            catalog.not_installed().len()
        );
    }
    ExitCode::SUCCESS
}

/// `lexicon info`: one lexicon's facts; exit 1 when it cannot judge.
fn info(context: &Context, id: &str) -> ExitCode {
    let catalog = load(context);
    match catalog.open(id) {
        Ok(lexicon) => {
            print_info(&lexicon);
            if lexicon.status().can_judge() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            println!("id:        {id}");
            println!("status:    {}", e.status());
            println!("problem:   {e}");
            ExitCode::from(1)
        }
    }
}

/// `lexicon verify`: one lexicon or every one opened and verified; exit 1
/// when any cannot judge.
fn verify(context: &Context, id: Option<String>) -> ExitCode {
    let catalog = load(context);
    let ids: Vec<String> = match id {
        Some(id) => vec![id],
        None => catalog.entries().iter().map(|e| e.definition.id.clone()).collect(),
    };
    let mut all_usable = true;
    for id in ids {
        match catalog.open(&id) {
            Ok(l) => {
                all_usable &= l.status().can_judge();
                let words: u64 = l.layers().iter().map(|layer| layer.facts().word_count).sum();
                println!("{:<12} {:<40} {}  {} words", id, l.status().to_string(), l.fingerprint(), words);
                if !l.status().can_judge() {
                    println!("{:<12} {}", "", l.status_text());
                }
            }
            Err(e) => {
                all_usable = false;
                println!("{:<12} {:<40} {e}", id, e.status().to_string());
            }
        }
    }
    if all_usable {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn origin(entry: &Entry) -> String {
    match &entry.origin {
        Origin::Demo => "built-in demo".to_string(),
        Origin::Official(_) => "official, built in".to_string(),
        Origin::File { path, .. } => format!("custom: {}", path.display()),
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
    println!("id:          {}", shown(&def.id));
    println!("name:        {}", shown(&def.name));
    println!("edition:     {}", shown(&def.edition));
    match lexicon.source() {
        DefinitionSource::Demo => println!("definition:  built in (demo)"),
        DefinitionSource::Official => println!("definition:  official catalogue, built in"),
        DefinitionSource::File { path, sha256 } => println!("definition:  {} (sha256 {sha256})", path.display()),
    }
    println!("status:      {}", lexicon.status_text());
    println!("fingerprint: {}", lexicon.fingerprint());
    let corrections = lexicon.corrections();
    if !corrections.is_empty() {
        println!("corrections: {}", corrections.summary());
    }
    for (i, layer) in lexicon.layers().iter().enumerate() {
        let facts = layer.facts();
        println!(
            "layer {}:     {} (lengths {}-{})",
            i + 1,
            layer.path.display(),
            layer.definition.min_len,
            layer.definition.max_len
        );
        println!("  fingerprint: {}", facts.fingerprint);
        match &layer.definition.published_fingerprint {
            Some(p) if facts.fingerprint.matches_published(p) => println!("  published:   {p} (matches)"),
            Some(p) => println!("  published:   {p} (DOES NOT MATCH)"),
            None => println!("  published:   none known"),
        }
        println!(
            "  content:     sha256 {} ({})",
            facts.content_sha256,
            match layer.proof() {
                Proof::PinnedFst => "the .fst is the pinned build of the official list",
                Proof::FullRead => "every word read back",
            }
        );
        println!("  fst sha256:  {}", layer.fst_sha256());
        match layer.scan() {
            Ok(full) => {
                let (shortest, longest) = full.length_range();
                println!("  words:       {} (lengths {shortest}-{longest})", full.word_count);
                let counts: Vec<String> = full
                    .count_by_length
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(len, n)| format!("{len}:{n}"))
                    .collect();
                println!("  by length:   {}", counts.join(" "));
            }
            Err(e) => println!("  words:       cannot be read back: {e}"),
        }
        if !matches!(lexicon.source(), DefinitionSource::Demo) {
            print_manifest(layer.path.clone(), layer.fst_sha256());
        }
    }
    if let Some(change) = lexicon.source_changed() {
        println!("note:        {change}");
    }
}

/// The manifest is informative: shown with whether it describes these bytes.
fn print_manifest(fst_path: PathBuf, sha256: &str) {
    let path = manifest_path_for(&fst_path);
    let text = match wordjudge_core::outside_files::read_small_text(
        &path,
        wordjudge_core::outside_files::limits::SMALL_FILE,
    ) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return println!("  manifest:    none"),
        Err(e) => return println!("  manifest:    {e}"),
    };
    match Manifest::from_toml(&text) {
        Ok(m) => {
            let describes =
                if m.fst_sha256 == sha256 { "describes these bytes" } else { "STALE: describes other bytes" };
            println!("  manifest:    {} ({describes}; informative only)", path.display());
            println!("  source:      {} (sha256 {})", m.source_file, m.source_sha256);
            println!("  built:       {} by {}", m.built_at, m.tool_version);
        }
        Err(problem) => println!("  manifest:    {}: unreadable ({problem}); informative only", path.display()),
    }
}

/// A definition's free text (a director's own file may hold anything,
/// escape sequences included) as a terminal may show it: escaped, short.
fn shown(text: &str) -> String {
    wordjudge_core::word::printable(text, 80)
}
