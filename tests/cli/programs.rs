//! Two programs (crates/cli/src/lib.rs): `wordjudge`, the command line, has
//! no GUI or input crate in its graph and links no GUI or input library; `wordjudge-kiosk` runs the kiosk, screenshots and
//! the USB helper, and `wordjudge kiosk …` still reaches it.

use std::path::Path;
use std::process::Command;

/// The shared libraries a program needs, as the dynamic loader resolves
/// them (`ldd`, from libc-bin, on every Debian).
fn needed(program: &Path) -> Vec<String> {
    let out = Command::new("ldd").arg(program).output().expect("ldd");
    assert!(out.status.success(), "ldd {}: {}", program.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|name| name.rsplit('/').next().unwrap_or(name).to_string())
        .collect()
}

/// The crates of a package's graph as `cargo tree` lists them (normal
/// dependencies, which are what its programs link), names only.
fn crate_graph(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--locked", "--offline", "-e", "normal", "--prefix", "none", "-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree");
    assert!(out.status.success(), "cargo tree -p {package}: {}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A crate of the GUI or input stack: Slint's, the window systems', libinput's.
fn is_gui_crate(name: &str) -> bool {
    [
        "slint",
        "i-slint",
        "winit",
        "input",
        "input-sys",
        "xkbcommon",
        "x11rb",
        "x11-dl",
        "tiny-xlib",
        "softbuffer",
        "wayland",
        "drm",
        "gbm",
    ]
    .iter()
    .any(|gui| name == *gui || name.starts_with(&format!("{gui}-")))
}

#[test]
fn the_command_lines_crate_graph_holds_no_gui_crate() {
    // Cargo's own answer: the command line's package names the core alone,
    // and the core no GUI crate; the station's graph, for contrast, has them.
    let cli = crate_graph("wordjudge-cli");
    assert!(cli.iter().any(|c| c == "wordjudge-core"), "the command line is built on the core: {cli:?}");
    let gui: Vec<&String> = cli.iter().filter(|c| is_gui_crate(c)).collect();
    assert!(gui.is_empty(), "wordjudge-cli's graph holds GUI crates: {gui:?}");
    let station = crate_graph("wordjudge-station");
    for expected in ["slint", "winit", "input"] {
        assert!(
            station.iter().any(|c| c == expected),
            "the check must see {expected} in the station's graph: {station:?}"
        );
    }
}

#[test]
fn the_command_line_links_only_libc_libm_and_libgcc_s() {
    let allowed =
        ["linux-vdso.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"];
    let libraries = needed(&crate::built::wordjudge());
    let extra: Vec<&String> = libraries.iter().filter(|l| !allowed.contains(&l.as_str())).collect();
    assert!(extra.is_empty(), "wordjudge links {extra:?}");
    // The kiosk is the one that carries the GUI and input stack.
    let kiosk = needed(&crate::built::kiosk());
    for gui in ["libinput.so.10", "libudev.so.1", "libxkbcommon.so.0"] {
        assert!(kiosk.iter().any(|l| l == gui), "wordjudge-kiosk should link {gui}: {kiosk:?}");
    }
}

/// What the dynamic loader loads while `wordjudge --version` runs, as it
/// reports it (`LD_DEBUG=files`: every object, linked or opened at run time).
/// A constructor in any crate of the program's graph runs before `main`:
/// tiny-xlib's, under Slint's winit backend, opened libX11 and five more
/// libraries at every start when `wordjudge` still shared the kiosk's
/// package, which `ldd` does not show.
#[test]
fn the_command_line_opens_no_gui_library_at_run_time() {
    let out = Command::new(crate::built::wordjudge()).arg("--version").env("LD_DEBUG", "files").output().unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    let opened: Vec<&str> = said
        .lines()
        .filter_map(|l| l.split("file=").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    assert!(opened.iter().any(|f| f.starts_with("libc.so")), "LD_DEBUG=files reported no libc: {said}");
    let allowed = ["libc.so.6", "libm.so.6", "libgcc_s.so.1"];
    let extra: Vec<&&str> = opened.iter().filter(|f| !allowed.contains(f)).collect();
    assert!(extra.is_empty(), "wordjudge --version opened {extra:?}");
    // The same check sees the kiosk's libraries, so it can fail.
    let kiosk = Command::new(crate::built::kiosk()).arg("--version").env("LD_DEBUG", "files").output().unwrap();
    assert!(String::from_utf8_lossy(&kiosk.stderr).contains("file=libinput.so.10"));
}

#[test]
fn wordjudge_kiosk_commands_reach_the_kiosk_program() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(crate::built::wordjudge())
        .args(["screenshot", "--out"])
        .arg(out.path())
        .args(["--width", "400", "--height", "240"])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(out.path().join("01-ready.png").is_file(), "the screenshots were rendered by wordjudge-kiosk");
    // The kiosk program takes the same command line.
    let help = Command::new(crate::built::kiosk()).args(["kiosk", "--help"]).output().unwrap();
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("--windowed"));
}

#[test]
fn without_the_kiosk_program_beside_it_wordjudge_says_where_it_should_be() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("wordjudge");
    std::fs::copy(crate::built::wordjudge(), &alone).unwrap();
    let out = Command::new(&alone).args(["kiosk", "--windowed"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("wordjudge-kiosk") && said.contains("beside wordjudge"), "{said}");
    // The commands it runs itself do not need it.
    let out = Command::new(&alone).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(crate::built::kiosk().is_file());
}
