//! The layers inside each crate import only downward (see each crate's
//! `lib.rs`). Between crates Cargo keeps the order: the core
//! (`crates/core`) cannot name the station or the command line, and the
//! command line (`crates/cli`) cannot name the station. Inside a crate it is
//! this test's job: the core's rows import only from rows below, never
//! sideways; in the station the kiosk knows nothing of the UI or the wiring,
//! the UI nothing of the wiring. It reads every source file's code lines
//! (comments skipped) and names each reference that runs upward.

#[path = "common/sources.rs"]
mod sources;

use sources::rust_files;
use std::path::{Path, PathBuf};

/// Each crate's folder and its top-level modules by layer, lowest first.
/// The command line's crate has no layers: its modules are one per
/// subcommand group, over the core.
const CRATES: &[(&str, &[&[&str]])] = &[("crates/core", CORE_LAYERS), ("crates/station", STATION_LAYERS)];

/// The core's top-level modules by layer, lowest first. A module imports
/// only from layers below its own, never from a neighbour in its layer: the
/// audit log's writer (`recorder`) and its readers (`inspect`) share the
/// format (`audit`) and nothing else.
const CORE_LAYERS: &[&[&str]] = &[
    // The one backend choice of the `--usb` and `--updates` ports: imports nothing.
    &["backend"],
    // Foundations: import nothing of the crate.
    &["word", "fingerprint", "digest", "panel", "profile", "pin", "outside_files", "shutdown"],
    // The word lists, the GPIO panel, the USB sticks, updates of the station,
    // the director's guard kept beside the config.
    &["lexicon", "gpio", "usb", "update", "guard", "keyboard"],
    // Judging words; the station's config.
    &["judge", "config"],
    // The audit log's format.
    &["audit"],
    // Writing it; reading it back.
    &["recorder", "inspect"],
    // The fleet's status from the records' journal copies (their fields, as
    // the recorder names them).
    &["fleet"],
];

/// The station's: the desks' ports and fakes, the flow over them, the
/// window that shows it, the desks' live side, the wiring. The `desks`
/// folder holds two layers (see [`logical_module`]): a desk's port and fake
/// sit below the flow, which calls them, and its live side above it, which
/// words the director's facts with the flow's view.
const STATION_LAYERS: &[&[&str]] = &[&["desks"], &["kiosk"], &["ui"], &["desks-live"], &["app"]];

/// A module path's name in the layers: its first segment, except in the
/// station's `desks` folder, whose live side (`desks::live`, `desks::job`,
/// and in a desk's folder everything but its `mod.rs` and `fake.rs`) is
/// `desks-live`. Items (capitalised) and `prelude` are the port's.
fn logical_module(path: &[&str]) -> String {
    let Some((&top, rest)) = path.split_first() else { return String::new() };
    if top != "desks" {
        return top.to_string();
    }
    let port = |segment: Option<&&str>| match segment {
        None => true,
        Some(s) => s.starts_with(|c: char| c.is_ascii_uppercase()) || ["fake", "prelude", "mod"].contains(s),
    };
    let live = match rest.first() {
        Some(&("live" | "job")) => true,
        Some(_) if port(rest.first()) => false,
        Some(_) => !port(rest.get(1)),
        None => false,
    };
    if live {
        "desks-live".into()
    } else {
        "desks".into()
    }
}

fn layer_of(layers: &[&[&str]], module: &str) -> Option<usize> {
    layers.iter().position(|layer| layer.contains(&module))
}

/// Every `.rs` file under a crate's `src`, sorted, with that folder.
fn crate_files(folder: &str) -> (PathBuf, Vec<PathBuf>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    (src, files)
}

/// Every `crate::PATH` in the code lines of `text`, as its module's name in
/// the layers ([`logical_module`]), with its line number. A group
/// (`crate::desks::{a::B, C}`) counts each of its paths.
fn crate_references(text: &str) -> Vec<(usize, String)> {
    let segment =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':').collect::<String>();
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let head = segment(after);
            let mut paths = Vec::new();
            match after[head.len()..].strip_prefix('{') {
                Some(group) if head.ends_with("::") => {
                    for item in group.split('}').next().unwrap_or("").split(',') {
                        paths.push(format!("{head}{}", segment(item.trim())));
                    }
                }
                _ => paths.push(head),
            }
            for path in paths {
                let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
                found.push((number + 1, logical_module(&parts)));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let mut upward = Vec::new();
    let mut checked = 0;
    for (folder, layers) in CRATES {
        let (src, files) = crate_files(folder);
        for file in &files {
            let relative = file.strip_prefix(&src).unwrap();
            let parts: Vec<String> = relative
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            let top = logical_module(&parts);
            if top == "lib" {
                continue; // declares the modules
            }
            let own = layer_of(layers, &top)
                .unwrap_or_else(|| panic!("{folder}/src/{top} is in no layer: add it to its crate's layers"));
            let text = std::fs::read_to_string(file).unwrap();
            for (line, name) in crate_references(&text) {
                checked += 1;
                let at = format!("{folder}/src/{}:{line}", relative.display());
                if let Some(theirs) = layer_of(layers, &name) {
                    if theirs > own {
                        upward.push(format!("{at}: crate::{name} (layer {theirs} above {own})"));
                    } else if theirs == own && name != top {
                        upward.push(format!("{at}: crate::{name} (a neighbour in layer {own})"));
                    }
                }
            }
        }
    }
    assert!(checked > 50, "the scan found only {checked} references: is it reading the sources?");
    assert!(upward.is_empty(), "references that run upward:\n{}", upward.join("\n"));
}

#[test]
fn the_scan_sees_an_upward_reference() {
    // The check above must be able to fail: a kiosk line naming the app.
    let refs = crate_references("use crate::app::Controller;\n// crate::ui in a comment\nlet x = crate::ui::show;");
    assert_eq!(refs, [(1, "app".to_string()), (3, "ui".to_string())]);
    assert!(layer_of(STATION_LAYERS, "app") > layer_of(STATION_LAYERS, "kiosk"));
    // A desk's port sits below the flow, its live side above it, whether
    // named one by one or in a group.
    let desks = crate_references(
        "use crate::desks::{Judging, sticks::worker::Finished};\nuse crate::desks::live::LiveStation;",
    );
    assert_eq!(desks, [(1, "desks".into()), (1, "desks-live".into()), (2, "desks-live".into())]);
    assert_eq!(logical_module(&["desks", "sticks", "fake"]), "desks");
    assert_eq!(logical_module(&["desks", "sticks", "mod"]), "desks");
    assert_eq!(logical_module(&["desks", "sticks", "live"]), "desks-live");
    assert!(layer_of(STATION_LAYERS, "desks-live") > layer_of(STATION_LAYERS, "kiosk"));
    assert!(layer_of(STATION_LAYERS, "desks") < layer_of(STATION_LAYERS, "kiosk"));
    assert_eq!(
        layer_of(CORE_LAYERS, "recorder"),
        layer_of(CORE_LAYERS, "inspect"),
        "neighbours: neither may name the other"
    );
}

/// A source file's module path in its crate: `crates/core/src/audit/scan.rs` →
/// `audit::scan`, `crates/core/src/audit/mod.rs` → `audit`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if path.last().is_some_and(|l| l == "mod" || l == "lib" || l == "main") {
        path.pop();
    }
    path
}

/// The modules a file names through `super::…` and `crate::…` in its code
/// lines, each cut to the longest path that is a file of the crate.
fn file_references(text: &str, own: &[String], known: &[Vec<String>]) -> Vec<Vec<String>> {
    // `super` of `audit/scan.rs` is `audit`; of `audit/mod.rs`, the crate:
    // one level up from the module's own path either way.
    let parent: Vec<String> = own[..own.len().saturating_sub(1)].to_vec();
    let mut named: Vec<Vec<String>> = Vec::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("super::") {
            let after = &rest[at + "super::".len()..];
            let names: Vec<String> = match after.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or("").split(',').map(|n| ident(n.trim())).collect(),
                None => vec![ident(after)],
            };
            for name in names.into_iter().filter(|n| !n.is_empty() && n != "self") {
                let mut path = parent.clone();
                path.push(name);
                named.push(path);
            }
            rest = after;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let path: String =
                after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':').collect();
            named.push(path.split("::").filter(|p| !p.is_empty()).map(str::to_string).collect());
            rest = after;
        }
    }
    let mut found = Vec::new();
    for path in named {
        if let Some(k) = (1..=path.len()).rev().find(|&k| known.contains(&path[..k].to_vec())) {
            let module = path[..k].to_vec();
            if module != own && !found.contains(&module) {
                found.push(module);
            }
        }
    }
    found
}

#[test]
fn no_two_files_of_one_folder_reach_into_each_other() {
    // Between files of one folder the arrows run one way only: a circle
    // (scan.rs uses writer.rs, which uses scan.rs) makes two rooms one.
    let mut edges: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for folder in ["crates/core", "crates/station", "crates/cli"] {
        let (src, files) = crate_files(folder);
        let known: Vec<Vec<String>> = files.iter().map(|f| module_of(&src, f)).collect();
        for file in &files {
            let own = module_of(&src, file);
            let text = std::fs::read_to_string(file).unwrap();
            for target in file_references(&text, &own, &known) {
                // Siblings only: a folder's mod.rs naming its files (and they
                // its shared items) is how Rust lays out a folder. Module
                // paths are the crate's own, so each crate's arrows are its
                // own: the folder's name leads them.
                if !own.is_empty() && target.len() == own.len() && target[..own.len() - 1] == own[..own.len() - 1] {
                    let tag = |m: Vec<String>| [vec![folder.to_string()], m].concat();
                    edges.push((tag(own.clone()), tag(target)));
                }
            }
        }
    }
    assert!(edges.len() > 20, "only {} arrows between sibling files: is the scan reading?", edges.len());
    // Every circle, by walking from each file.
    let mut circles = Vec::new();
    for (start, _) in &edges {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((node, trail)) = stack.pop() {
            for (_, next) in edges.iter().filter(|(from, _)| *from == node) {
                if next == start {
                    let mut circle: Vec<String> = trail.iter().map(|m| m.join("::")).collect();
                    circle.sort();
                    if !circles.contains(&circle) {
                        circles.push(circle);
                    }
                } else if !trail.contains(next) && trail.len() < 8 {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    assert!(circles.is_empty(), "files that reach into each other: {circles:?}");
}

#[test]
fn the_file_scan_sees_a_circle() {
    let known = vec![vec!["audit".to_string(), "scan".to_string()], vec!["audit".to_string(), "writer".to_string()]];
    let own = vec!["audit".to_string(), "scan".to_string()];
    let found = file_references("use super::{writer::Recent, format};\n// super::nothing\n", &own, &known);
    assert_eq!(found, [vec!["audit".to_string(), "writer".to_string()]]);
}
