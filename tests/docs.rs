//! The documentation's links and example commands work.
//!
//! Reads README.md, every docs/*.md and docs/decisions/*.md,
//! kiosk-image/README.md and lexicons/README.md, and checks:
//! - every relative Markdown link and image, `[text](path)` and `![alt](path)`,
//!   names a file (or folder) that exists; with `path#anchor` (or `#anchor`
//!   alone), that the anchor is a heading of that Markdown file, by GitHub's
//!   slug rule (lowercase, spaces to `-`, punctuation other than `-` and `_`
//!   dropped, `-1`, `-2`… for repeated headings). `http(s)://` and `mailto:`
//!   links are counted, not fetched;
//! - in fenced blocks marked `sh`, `console`, `bash` or `shell`, every line
//!   that runs `wordjudge` (after an optional `$ ` prompt, `sudo` or `VAR=value`
//!   settings): its subcommand words (`wordjudge audit verify …`) are
//!   subcommands the built binary has, and `wordjudge <subcommands> --help`
//!   exits 0; every line that runs a script (`bash PATH`, `PATH.sh`,
//!   `kiosk-image/…`, `.ci/…`): the file exists and `bash -n` parses it.
//!
//! - docs/measured.md's figures about the code are what `.ci/code-figures`
//!   prints now.
//!
//! Lines ending in `\` are joined with the next before they are read.
//! Standard library only.

#[path = "common/built.rs"]
mod built;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents this test reads, as paths relative to the repository.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut files = vec![
        PathBuf::from("README.md"),
        PathBuf::from("CHANGELOG.md"),
        PathBuf::from("kiosk-image/README.md"),
        PathBuf::from("lexicons/README.md"),
    ];
    let mut docs: Vec<PathBuf> = ["docs", "docs/decisions"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}/ is readable: {e}")))
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| path.strip_prefix(&root).expect("under the repository").to_path_buf())
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// GitHub's anchor for a heading: lowercase, spaces to `-`, every character
/// that is not a letter, digit, `-` or `_` dropped.
fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// Whether a line opens or closes a fenced code block; if so, its info string.
fn fence(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let marker = if trimmed.starts_with("```") {
        '`'
    } else if trimmed.starts_with("~~~") {
        '~'
    } else {
        return None;
    };
    let info = trimmed.trim_start_matches(marker).trim();
    Some(info.split_whitespace().next().unwrap_or("").to_lowercase())
}

/// One Markdown file, split into prose (outside fenced blocks) and the lines
/// of fenced blocks, each with its 1-based line number.
struct Document {
    path: PathBuf,
    /// Lines outside fenced blocks; fenced lines are left empty, so that an
    /// index is still a line number.
    prose: Vec<String>,
    /// (line number, info string of its block, line) for every fenced line.
    fenced: Vec<(usize, String, String)>,
}

impl Document {
    fn read(path: &Path) -> Document {
        let text = std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut prose = Vec::new();
        let mut fenced = Vec::new();
        let mut open: Option<String> = None;
        for (index, line) in text.lines().enumerate() {
            match (&open, fence(line)) {
                (None, Some(info)) => {
                    open = Some(info);
                    prose.push(String::new());
                }
                (Some(_), Some(_)) => {
                    open = None;
                    prose.push(String::new());
                }
                (Some(info), None) => {
                    fenced.push((index + 1, info.clone(), line.to_string()));
                    prose.push(String::new());
                }
                (None, None) => prose.push(line.to_string()),
            }
        }
        Document { path: path.to_path_buf(), prose, fenced }
    }

    /// The anchors of its headings (ATX `#` headings outside fenced blocks).
    fn anchors(&self) -> HashSet<String> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut anchors = HashSet::new();
        for line in &self.prose {
            let trimmed = line.trim_start();
            if line.len() - trimmed.len() > 3 || !trimmed.starts_with('#') {
                continue;
            }
            let hashes = trimmed.chars().take_while(|&c| c == '#').count();
            let rest = &trimmed[hashes..];
            if hashes > 6 || !(rest.is_empty() || rest.starts_with(' ')) {
                continue;
            }
            // A closing run of #s is not part of the heading.
            let text = rest.trim().trim_end_matches('#').trim_end();
            let base = slug(text);
            let count = seen.entry(base.clone()).or_insert(0);
            anchors.insert(if *count == 0 { base.clone() } else { format!("{base}-{count}") });
            *count += 1;
        }
        anchors
    }

    /// Every link target in the prose, with its line number. Code spans
    /// (which may run over line ends, not over a blank line) are skipped.
    fn links(&self) -> Vec<(usize, String)> {
        let prose = self.prose.join("\n");
        let text = blank_code_spans(&prose);
        let mut links = Vec::new();
        let mut from = 0;
        while let Some(found) = text[from..].find("](") {
            let start = from + found + 2;
            let line = text[..start].matches('\n').count() + 1;
            let target = link_target(&text[start..]);
            links.push((line, target));
            from = start;
        }
        links
    }
}

/// The text with the inside of every code span replaced by spaces (line ends
/// kept), so that nothing in a code span is read as a link.
fn blank_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        // The closing run: exactly as many backticks, before a blank line.
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n' && chars.get(j + 1) == Some(&'\n') {
                break;
            }
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|&&c| c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
                continue;
            }
            j += 1;
        }
        match close {
            Some(end) => {
                for c in &mut out[i + run..end] {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
                i = end + run;
            }
            None => i += run,
        }
    }
    out.into_iter().collect()
}

/// The target of a link whose `](` was just read: `<…>`, or up to the `)`
/// that closes it (parentheses inside balanced), without a title.
fn link_target(rest: &str) -> String {
    if let Some(inner) = rest.strip_prefix('<') {
        return inner.split('>').next().unwrap_or("").to_string();
    }
    let mut depth = 0usize;
    let mut target = String::new();
    for c in rest.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            c if c.is_whitespace() => break,
            _ => {}
        }
        target.push(c);
    }
    target
}

/// Shell words of a line: quotes removed, a `#` at the start of a word ends
/// the line (a comment).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    in_word = true;
                }
                '#' if !in_word => break,
                c if c.is_whitespace() => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                c => {
                    word.push(c);
                    in_word = true;
                }
            },
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `NAME=value`: an environment setting before a command.
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            let mut chars = name.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// What a line of an example runs.
#[derive(Debug, PartialEq)]
enum Example {
    /// `wordjudge` and the words after it.
    Wordjudge(Vec<String>),
    /// A script, by its path from the repository's top.
    Script(String),
    /// Anything else (apt, dd, mount, …): not checked.
    Other,
}

fn example(line: &str) -> Example {
    let mut words = shell_words(line);
    if words.first().is_some_and(|w| w == "$") {
        words.remove(0);
    }
    let mut rest = words.as_slice();
    loop {
        match rest.first().map(String::as_str) {
            Some("sudo") => {
                rest = &rest[1..];
                while rest.first().is_some_and(|w| w.starts_with('-')) {
                    rest = &rest[1..];
                }
            }
            Some("env") => rest = &rest[1..],
            Some(w) if is_assignment(w) => rest = &rest[1..],
            _ => break,
        }
    }
    let Some(first) = rest.first() else { return Example::Other };
    if first == "wordjudge" {
        return Example::Wordjudge(rest[1..].to_vec());
    }
    if first == "bash" {
        return match rest[1..].iter().find(|w| !w.starts_with('-')) {
            Some(path) => Example::Script(path.clone()),
            None => Example::Other,
        };
    }
    let script_like = first.ends_with(".sh") || first.starts_with("kiosk-image/") || first.starts_with(".ci/");
    if script_like {
        return Example::Script(first.trim_start_matches("./").to_string());
    }
    Example::Other
}

/// A subcommand word as `wordjudge` spells them.
fn is_command_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_lowercase() || c == '-')
}

/// The built binary's `--help`, asked once per subcommand path.
struct Help {
    binary: PathBuf,
    /// Subcommand path → the subcommands its `--help` lists, or why it failed.
    answers: HashMap<Vec<String>, Result<Vec<String>, String>>,
}

impl Help {
    fn new() -> Help {
        Help { binary: crate::built::wordjudge(), answers: HashMap::new() }
    }

    fn ask(&mut self, path: &[String]) -> Result<Vec<String>, String> {
        if let Some(answer) = self.answers.get(path) {
            return answer.clone();
        }
        let output = Command::new(&self.binary)
            .args(path)
            .arg("--help")
            .env_remove("WORDJUDGE_CONFIG")
            .env_remove("WORDJUDGE_LEXICONS")
            .output();
        let answer = match output {
            Err(e) => Err(format!("could not run {}: {e}", self.binary.display())),
            Ok(out) if !out.status.success() => Err(format!(
                "`wordjudge {} --help` exited with {}: {}",
                path.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Ok(out) => Ok(listed_subcommands(&String::from_utf8_lossy(&out.stdout))),
        };
        self.answers.insert(path.to_vec(), answer.clone());
        answer
    }
}

/// The names under clap's `Commands:` heading (without `help`).
fn listed_subcommands(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim() == "Commands:" {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if line.trim().is_empty() || !line.starts_with(' ') {
            break;
        }
        // Names are indented by two spaces; a wrapped description, by more.
        if line.starts_with("   ") {
            continue;
        }
        if let Some(name) = line.split_whitespace().next() {
            let name = name.trim_end_matches(',');
            if name != "help" {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Checks one `wordjudge …` example: returns the command it ran.
fn check_wordjudge(help: &mut Help, args: &[String]) -> Result<String, String> {
    let mut path: Vec<String> = Vec::new();
    let mut i = 0;
    let mut listed = help.ask(&path)?;
    while i < args.len() {
        let word = &args[i];
        // The global options, anywhere before the first argument.
        if word == "--config" || word == "--lexicons" {
            i += 2;
            continue;
        }
        if word.starts_with("--config=") || word.starts_with("--lexicons=") {
            i += 1;
            continue;
        }
        if listed.is_empty() || !is_command_word(word) {
            break;
        }
        let mut next = path.clone();
        next.push(word.clone());
        if !listed.contains(word) {
            // Not listed: a hidden subcommand still answers --help; anything else is a mistake.
            help.ask(&next).map_err(|why| {
                let parent: Vec<&str> = std::iter::once("wordjudge").chain(path.iter().map(String::as_str)).collect();
                format!("`{word}` is not a subcommand of `{}` ({why})", parent.join(" "))
            })?;
        }
        path = next;
        listed = help.ask(&path)?;
        i += 1;
    }
    let mut command = vec!["wordjudge".to_string()];
    command.extend(path);
    command.push("--help".to_string());
    Ok(command.join(" "))
}

/// Checks one script example: it exists and `bash -n` parses it.
fn check_script(path: &str) -> Result<String, String> {
    let file = repo().join(path);
    if !file.is_file() {
        return Err(format!("`{path}`: no such file"));
    }
    let out = Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
        .map_err(|e| format!("`bash -n {path}`: could not run bash: {e}"))?;
    if !out.status.success() {
        return Err(format!("`bash -n {path}` failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(format!("bash -n {path}"))
}

/// Checks one link target found in `doc`.
fn check_link(doc: &Document, target: &str, anchors: &mut HashMap<PathBuf, HashSet<String>>) -> Result<(), String> {
    let (file, anchor) = match target.split_once('#') {
        Some((file, anchor)) => (file, Some(anchor)),
        None => (target, None),
    };
    let resolved = if file.is_empty() {
        doc.path.clone()
    } else if let Some(from_top) = file.strip_prefix('/') {
        PathBuf::from(from_top)
    } else {
        doc.path.parent().unwrap_or(Path::new("")).join(file)
    };
    let on_disk = repo().join(&resolved);
    if !on_disk.exists() {
        return Err(format!("{}: no such file or folder", resolved.display()));
    }
    let Some(anchor) = anchor else { return Ok(()) };
    if on_disk.extension().is_none_or(|ext| ext != "md") {
        return Ok(());
    }
    let known = anchors.entry(resolved.clone()).or_insert_with(|| Document::read(&resolved).anchors());
    if known.contains(anchor) {
        Ok(())
    } else {
        Err(format!("{}: no heading whose anchor is #{anchor}", resolved.display()))
    }
}

#[test]
fn every_link_and_example_command_in_the_docs_works() {
    let mut broken: Vec<String> = Vec::new();
    let mut anchors: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut help = Help::new();
    let (mut relative, mut external) = (0, 0);
    let mut commands: BTreeSet<String> = BTreeSet::new();
    let mut examples = 0;

    for path in documents() {
        let doc = Document::read(&path);
        for (line, target) in doc.links() {
            let at = format!("{}:{line}", path.display());
            if target.is_empty() {
                broken.push(format!("{at}: empty link target"));
                continue;
            }
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                external += 1;
                continue;
            }
            relative += 1;
            if let Err(why) = check_link(&doc, &target, &mut anchors) {
                broken.push(format!("{at}: link ({target}): {why}"));
            }
        }

        // Example commands: fenced shell blocks, continued lines joined.
        let mut pending: Option<(usize, String)> = None;
        for (line_no, info, line) in &doc.fenced {
            if !matches!(info.as_str(), "sh" | "console" | "bash" | "shell") {
                continue;
            }
            let (start, mut joined) = pending.take().unwrap_or((*line_no, String::new()));
            let text = line.trim_end();
            if let Some(head) = text.strip_suffix('\\') {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
                continue;
            }
            joined.push_str(text);
            let at = format!("{}:{start}", path.display());
            let result = match example(&joined) {
                Example::Wordjudge(args) => check_wordjudge(&mut help, &args),
                Example::Script(script) => check_script(&script),
                Example::Other => continue,
            };
            examples += 1;
            match result {
                Ok(command) => {
                    commands.insert(command);
                }
                Err(why) => broken.push(format!("{at}: `{}`: {why}", joined.trim())),
            }
        }
    }

    println!("docs: {relative} relative links and images checked ({external} web links not fetched)");
    println!("docs: {examples} example command lines checked, {} distinct commands:", commands.len());
    for command in &commands {
        println!("  {command}");
    }
    assert!(broken.is_empty(), "{} broken in the docs:\n  {}", broken.len(), broken.join("\n  "));
    // A reader that found nothing would pass vacuously.
    assert!(relative > 0, "no relative link found: the link reader is broken");
    assert!(commands.iter().any(|c| c.starts_with("wordjudge ")), "no wordjudge example found");
    assert!(commands.iter().any(|c| c.starts_with("bash -n ")), "no script example found");
}

#[test]
fn anchors_follow_githubs_slug_rule() {
    assert_eq!(slug("Where CI's time goes"), "where-cis-time-goes");
    assert_eq!(slug("Raspberry Pi OS: the Debian package"), "raspberry-pi-os-the-debian-package");
    assert_eq!(slug("Legible on the 7\" panel"), "legible-on-the-7-panel");
    assert_eq!(slug("The demo lexicon (`demo/`): what we may ship"), "the-demo-lexicon-demo-what-we-may-ship");
    assert_eq!(slug("Raspberry Pi (ARCH=arm64)"), "raspberry-pi-archarm64");
    assert_eq!(slug("snake_case and-dash"), "snake_case-and-dash");
}

#[test]
fn example_lines_are_read_as_a_shell_would() {
    let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        example("$ sudo wordjudge --config /mnt/c.toml config set-pin   # type the PIN"),
        Example::Wordjudge(words(&["--config", "/mnt/c.toml", "config", "set-pin"]))
    );
    assert_eq!(
        example(r#"STATION_NAME="Table 7" ACTIVE_LEXICON=CSW15 kiosk-image/build.sh"#),
        Example::Script("kiosk-image/build.sh".into())
    );
    assert_eq!(example("bash .ci/kiosk   # starts the kiosk"), Example::Script(".ci/kiosk".into()));
    assert_eq!(example("sudo dd if=a.img of=/dev/sdX"), Example::Other);
    assert_eq!(example("# a comment"), Example::Other);
    assert_eq!(
        listed_subcommands(
            "Usage: x\n\nCommands:\n  judge    Judge\n  audit    Audit\n  help     Print\n\nOptions:\n  -h\n"
        ),
        vec!["judge".to_string(), "audit".to_string()]
    );
    assert_eq!(
        listed_subcommands("Commands:\n  judge    Judge a challenge,\n           wrapped here\n  kiosk    Run\n"),
        vec!["judge".to_string(), "kiosk".to_string()]
    );
}

#[test]
fn links_in_code_spans_are_not_links() {
    let text = "see [a](b.md) and `[c](d.md)` and ``x ` [e](f.md)``\n[g](h.md#i)";
    let blanked = blank_code_spans(text);
    assert!(blanked.contains("[a](b.md)"));
    assert!(!blanked.contains("[c](d.md)"));
    assert!(!blanked.contains("[e](f.md)"));
    assert!(blanked.contains("[g](h.md#i)"));
    assert_eq!(link_target("b.md \"title\") rest"), "b.md");
    assert_eq!(link_target("<a b.md>)"), "a b.md");
    assert_eq!(link_target("w/Foo_(bar))"), "w/Foo_(bar)");
}

/// The `text` block of docs/measured.md that follows the line naming
/// `bash .ci/code-figures` must be that command's output now: a figure about
/// the code is produced by a command, never typed in and left to drift.
#[test]
fn the_code_figures_in_measured_md_are_what_the_script_prints_now() {
    let doc = std::fs::read_to_string(repo().join("docs/measured.md")).expect("docs/measured.md");
    let after = doc.split_once("`bash .ci/code-figures`").expect("docs/measured.md names `bash .ci/code-figures`").1;
    let block = after.split_once("```text\n").expect("a ```text block after it").1;
    let shown = block.split_once("```").expect("the block ends").0;
    let out = Command::new("bash").arg(repo().join(".ci/code-figures")).output().expect("bash runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let now = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(shown, now, "docs/measured.md's code figures are not `bash .ci/code-figures`'s output: paste it in");
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The identifiers of the workspace's Rust sources (crates/, tests/, benches/).
fn source_identifiers() -> HashSet<String> {
    let mut files = Vec::new();
    for dir in ["crates", "tests", "benches"] {
        rust_files(&repo().join(dir), &mut files);
    }
    let mut names = HashSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        names.extend(
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string),
        );
    }
    names
}

/// The test targets cargo finds: tests/NAME.rs and tests/NAME/main.rs.
fn test_targets() -> BTreeSet<String> {
    let mut targets = BTreeSet::new();
    for entry in std::fs::read_dir(repo().join("tests")).expect("tests/ is readable").flatten() {
        let path = entry.path();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if (path.is_file() && path.extension().is_some_and(|ext| ext == "rs")) || path.join("main.rs").is_file() {
            targets.insert(name);
        }
    }
    targets
}

/// The test-name prefixes `.ci/test` knows (`--skip PREFIX`): those a doc may name.
fn test_prefixes() -> BTreeSet<String> {
    let script = std::fs::read_to_string(repo().join(".ci/test")).expect(".ci/test");
    let words: Vec<&str> = script.split(|c: char| c.is_whitespace() || c == '(' || c == ')').collect();
    words.windows(2).filter(|w| w[0] == "--skip").map(|w| w[1].to_string()).collect()
}

/// The inline code spans of one line of prose (single backticks).
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// What a code span names that must exist: a test target (`--test NAME`), a test-name
/// prefix (`needs_…_`, `real_data_`, `child_`), a path in the repository (`tests/…`,
/// `crates/…`, …) or a test or function by its path (`kiosk::live::a_name_with_words`).
fn check_named(
    span: &str,
    targets: &BTreeSet<String>,
    prefixes: &BTreeSet<String>,
    idents: &HashSet<String>,
) -> Vec<String> {
    let mut wrong = Vec::new();
    let words: Vec<&str> = span.split_whitespace().collect();
    for pair in words.windows(2) {
        if pair[0] == "--test" && !targets.contains(pair[1]) {
            wrong.push(format!(
                "`--test {}`: no such test target (tests/{}.rs or tests/{}/main.rs)",
                pair[1], pair[1], pair[1]
            ));
        }
    }
    let is_word =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if words.len() == 1 {
        let word = words[0];
        let prefix_like =
            (word.starts_with("needs_") || word == "real_data_" || word == "child_") && word.ends_with('_');
        if prefix_like && !prefixes.contains(word) {
            wrong.push(format!("`{word}`: .ci/test knows no such test prefix"));
        }
        let roots = ["tests/", "benches/", "crates/", "kiosk-image/", "systemd/", ".ci/", "docs/", "ui/", "lexicons/"];
        // A segment in capitals (`DATE-MACHINE`, `NAME.rs`, `ARCH`) stands for any name.
        let capitals = |segment: &str| {
            let stem = segment.split('.').next().unwrap_or(segment);
            stem.chars().filter(char::is_ascii_uppercase).count() >= 2 && !stem.chars().any(|c| c.is_ascii_lowercase())
        };
        let placeholder = word.contains(['*', '<', '>', '{', '…']) || word.split('/').any(capitals);
        if roots.iter().any(|root| word.starts_with(root)) && !placeholder {
            let path = word.split([':', '#']).next().unwrap_or(word);
            if !repo().join(path).exists() {
                wrong.push(format!("`{word}`: no such file or folder"));
            }
        }
        let segments: Vec<&str> = word.split("::").collect();
        if segments.len() >= 2 && segments.iter().all(|s| is_word(s)) {
            let last = segments[segments.len() - 1];
            if last.contains('_') && !idents.contains(last) {
                wrong.push(format!("`{word}`: no function, test or module `{last}` in crates/, tests/ or benches/"));
            }
        }
    }
    wrong
}

/// The docs name tests (docs/security.md's rows), test targets, prefixes and files:
/// each must exist, so that a renamed test or a moved file fails here, not in a reader.
#[test]
fn every_test_target_prefix_file_and_test_the_docs_name_exists() {
    let (targets, prefixes, idents) = (test_targets(), test_prefixes(), source_identifiers());
    assert!(targets.contains("docs") && prefixes.contains("real_data_"), "targets {targets:?}, prefixes {prefixes:?}");
    let mut wrong = Vec::new();
    let mut named = 0;
    for path in documents() {
        let doc = Document::read(&path);
        let spans =
            doc.prose.iter().enumerate().flat_map(|(i, line)| code_spans(line).into_iter().map(move |s| (i + 1, s)));
        let fenced = doc.fenced.iter().map(|(n, _, line)| (*n, line.as_str()));
        for (line, span) in spans.chain(fenced) {
            let found = check_named(span, &targets, &prefixes, &idents);
            named += usize::from(span.contains("::") || span.contains('/') || span.contains("--test"));
            wrong.extend(found.into_iter().map(|why| format!("{}:{line}: {why}", path.display())));
        }
    }
    assert!(named > 100, "only {named} code spans name something: is the reader broken?");
    assert!(wrong.is_empty(), "{} names in the docs that do not exist:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn a_name_the_docs_give_is_checked_by_its_kind() {
    let targets: BTreeSet<String> = ["docs".to_string(), "kiosk".to_string()].into();
    let prefixes: BTreeSet<String> = ["real_data_".to_string(), "needs_xvfb_".to_string()].into();
    let idents: HashSet<String> = ["a_real_test".to_string()].into();
    let check = |span: &str| check_named(span, &targets, &prefixes, &idents).len();
    assert_eq!(check("cargo test --test kiosk"), 0);
    assert_eq!(check("cargo test --test kiosks"), 1);
    assert_eq!(check("needs_xvfb_"), 0);
    assert_eq!(check("needs_wayland_"), 1);
    assert_eq!(check("kiosk::live::a_real_test"), 0);
    assert_eq!(check("kiosk::live::a_renamed_test"), 1);
    assert_eq!(check("tests/docs.rs"), 0);
    assert_eq!(check("tests/no_such_file.rs"), 1);
    assert_eq!(check("tests/NAME.rs"), 0);
    assert_eq!(check("benches/runs/DATE-MACHINE/summary.md"), 0);
    assert_eq!(check("config::tests"), 0);
}

/// The newest release in CHANGELOG.md is the workspace's version, which images and
/// update bundles carry: a bump and its entry land together.
#[test]
fn the_newest_changelog_entry_is_the_workspace_version() {
    let changelog = std::fs::read_to_string(repo().join("CHANGELOG.md")).expect("CHANGELOG.md");
    let newest = changelog
        .lines()
        .find_map(|line| line.strip_prefix("## "))
        .and_then(|heading| heading.split_whitespace().next())
        .expect("CHANGELOG.md has a `## VERSION — DATE` heading");
    assert_eq!(newest, env!("CARGO_PKG_VERSION"), "CHANGELOG.md's newest entry is not Cargo.toml's version");
    let versions: Vec<&str> =
        changelog.lines().filter_map(|l| l.strip_prefix("## ")).filter_map(|h| h.split_whitespace().next()).collect();
    let unique: BTreeSet<&&str> = versions.iter().collect();
    assert_eq!(unique.len(), versions.len(), "a version twice in CHANGELOG.md: {versions:?}");
}
