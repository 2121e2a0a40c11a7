//! The crate's layers import only downward (see `src/lib.rs`): the core and
//! the station's records and devices know nothing of the kiosk, the UI, the
//! wiring or the command line; the kiosk knows nothing of the UI or the
//! wiring; the UI nothing of the wiring. This test reads every source file's
//! code lines (comments skipped) and names each reference that runs upward.

use std::path::{Path, PathBuf};

/// Top-level modules by layer, lowest first.
const LAYERS: &[&[&str]] = &[
    &["word", "fingerprint", "digest", "panel", "profile", "lexicon", "judge", "audit", "gpio", "usb", "config", "pin", "atomic_file", "shutdown", "bounded"],
    &["kiosk"],
    &["ui"],
    &["app"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::NAME` in the code lines of `text`, with its line number.
fn crate_references(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            found.push((number + 1, name));
            rest = after;
        }
    }
    found
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    let mut checked = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if top == "cli" || top == "main" || top == "lib" {
            continue; // the binary sits above every layer
        }
        let own = layer_of(&top).unwrap_or_else(|| panic!("src/{top} is in no layer: add it to LAYERS"));
        let text = std::fs::read_to_string(file).unwrap();
        for (line, name) in crate_references(&text) {
            checked += 1;
            if name == "cli" {
                upward.push(format!("src/{}:{line}: crate::cli", relative.display()));
            } else if let Some(theirs) = layer_of(&name) {
                if theirs > own {
                    upward.push(format!("src/{}:{line}: crate::{name} (layer {theirs} above {own})", relative.display()));
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
    assert!(layer_of("app") > layer_of("kiosk"));
}
