//! The rule behind `crates/core/src/outside_files`: every read, open and
//! write of a file in the sources (every crate's `src/`, and the kiosk
//! program's) goes through that one module, which never follows a link where
//! it must not, never waits on a FIFO, bounds every size and writes
//! atomically. This test reads every source file's code lines (comments, the
//! `#[cfg(test)]` module at a file's end and a folder's `tests.rs` that its
//! `mod.rs` declares under `#[cfg(test)]` skipped) and names each direct call
//! that bypasses it, apart from the short allow-list below, each entry with
//! its reason.

#[path = "common/sources.rs"]
mod sources;

use sources::rust_files;
use std::path::Path;

/// Where the sources are: the three crates and the kiosk's program.
const SOURCES: &[&str] = &["crates/core/src", "crates/station/src", "crates/cli/src", "src"];

/// Calls that open, read or write a file by name.
const FORBIDDEN: &[&str] = &[
    "fs::read(",
    "fs::read_to_string(",
    "fs::read_dir(",
    "fs::write(",
    "fs::copy(",
    "File::open(",
    "File::create(",
    "File::create_new(",
    "File::options(",
    "OpenOptions::new(",
    "Mmap::map(",
];

/// `(file, the call's text on its line, why it may stay)`. Each entry
/// reads something no outsider names or controls.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "crates/station/src/app/display.rs",
        "std::fs::read_dir(sys_drm)",
        "/sys/class/drm: the kernel's own connector list",
    ),
    (
        "crates/station/src/app/display.rs",
        "std::fs::read_to_string(entry.path().join(\"status\"))",
        "a /sys connector's status, written by the kernel",
    ),
    (
        "crates/station/src/app/no_screen.rs",
        "std::fs::read_dir(dev_dri)",
        "/dev/dri: the kernel's device nodes, names only",
    ),
    (
        "crates/station/src/app/no_screen.rs",
        "std::fs::read_dir(sys_drm)",
        "/sys/class/drm: the kernel's own connector list",
    ),
    (
        "crates/station/src/app/no_screen.rs",
        "std::fs::read_to_string(entry.path().join(\"status\"))",
        "a /sys connector's status, written by the kernel",
    ),
    (
        "crates/core/src/audit/clock.rs",
        "std::fs::read_to_string(\"/proc/sys/kernel/random/boot_id\")",
        "/proc: the kernel's boot id",
    ),
    (
        "crates/core/src/usb/helper.rs",
        "std::fs::read_to_string(\"/proc/self/mountinfo\")",
        "/proc: the kernel's mount table",
    ),
];

/// Each direct call in `text` (file `name`): `(line number, the line)`, the
/// allowed ones left out. Stops at a `#[cfg(test)]` at the start of a line:
/// tests make their own fixtures.
fn direct_calls(name: &str, text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        if !FORBIDDEN.iter().any(|call| code.contains(call)) {
            continue;
        }
        if ALLOWED.iter().any(|(file, call, _)| *file == name && code.contains(call)) {
            continue;
        }
        found.push((number + 1, code.to_string()));
    }
    found
}

/// Whether `path` is a folder's `tests.rs` that its parent module (the
/// folder's `mod.rs`, or `folder.rs` beside the folder) compiles only for
/// tests (`#[cfg(test)]` on the line before `mod tests;`): tests make their
/// own fixtures. Any other `tests.rs` is code like the rest.
fn test_only_module(path: &Path) -> bool {
    let declared = |parent: &Path| {
        std::fs::read_to_string(parent).is_ok_and(|parent| parent.contains("\n#[cfg(test)]\nmod tests;\n"))
    };
    path.file_name().is_some_and(|n| n == "tests.rs")
        && (declared(&path.with_file_name("mod.rs"))
            || path.parent().is_some_and(|folder| declared(&folder.with_extension("rs"))))
}

#[test]
fn every_file_access_in_src_goes_through_the_one_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in SOURCES {
        rust_files(&root.join(folder), &mut files);
    }
    files.sort();
    let mut bypasses = Vec::new();
    for path in &files {
        let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if name.starts_with("crates/core/src/outside_files/") || test_only_module(path) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (line, code) in direct_calls(&name, &text) {
            bypasses.push(format!("{name}:{line}: {code}"));
        }
    }
    assert!(files.len() > 50, "the sources were not found ({} files)", files.len());
    assert!(
        bypasses.is_empty(),
        "files read or written around crates/core/src/outside_files (use its functions, or add an allow-list entry with a reason):\n{}",
        bypasses.join("\n")
    );
}

#[test]
fn every_allowed_call_is_still_there() {
    // An allow-list entry whose call is gone would let a new one through
    // unseen; each must match a line of its file.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, call, why) in ALLOWED {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        assert!(text.lines().any(|l| l.contains(call)), "{file} no longer has `{call}` ({why}); drop the entry");
    }
}

#[test]
fn the_rule_sees_a_direct_read_a_direct_write_and_an_open() {
    // The check itself can fail: each form of bypass is named, a comment
    // and the test module at the end are not.
    let text = "use std::fs;\nfn a() { let _ = std::fs::read(\"x\"); }\n// std::fs::read(\"comment\")\nfn b() { fs::write(p, b) }\nfn c() { File::open(p) }\nfn d() { std::fs::OpenOptions::new().open(p) }\n#[cfg(test)]\nmod tests { fn e() { std::fs::read(\"fixture\"); } }\n";
    let lines: Vec<usize> = direct_calls("crates/core/src/example.rs", text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, [2, 4, 5, 6]);
    // The allow-list is per file: the same call elsewhere is a bypass.
    let proc_read = "fn f() { std::fs::read_to_string(\"/proc/self/mountinfo\") }\n";
    assert!(direct_calls("crates/core/src/usb/helper.rs", proc_read).is_empty());
    assert_eq!(direct_calls("crates/core/src/config/mod.rs", proc_read).len(), 1);
}

#[test]
fn only_a_tests_rs_declared_for_tests_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests.rs");
    std::fs::write(&tests, "fn e() { std::fs::read(\"fixture\"); }\n").unwrap();
    // No mod.rs, or one that compiles it always: scanned.
    assert!(!test_only_module(&tests));
    std::fs::write(dir.path().join("mod.rs"), "pub fn f() {}\n\nmod tests;\n").unwrap();
    assert!(!test_only_module(&tests));
    // Declared under #[cfg(test)]: skipped, as a test module at a file's end is.
    std::fs::write(dir.path().join("mod.rs"), "pub fn f() {}\n\n#[cfg(test)]\nmod tests;\n").unwrap();
    assert!(test_only_module(&tests));
    // Another file in that folder is scanned.
    assert!(!test_only_module(&dir.path().join("other.rs")));
    // Or by the file beside the folder (folder.rs, with no mod.rs).
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(inner.join("tests.rs"), "fn e() {}\n").unwrap();
    std::fs::write(dir.path().join("inner.rs"), "pub fn f() {}\n\nmod tests;\n").unwrap();
    assert!(!test_only_module(&inner.join("tests.rs")));
    std::fs::write(dir.path().join("inner.rs"), "pub fn f() {}\n\n#[cfg(test)]\nmod tests;\n").unwrap();
    assert!(test_only_module(&inner.join("tests.rs")));
    // The folders whose tests moved out are seen as such.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in [
        "crates/station/src/desks/updates/worker",
        "crates/core/src/profile",
        "crates/core/src/update",
        "crates/core/src/fleet/stick",
    ] {
        assert!(test_only_module(&root.join(folder).join("tests.rs")), "{folder}");
    }
}
