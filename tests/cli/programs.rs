//! Two programs (src/cli/mod.rs): `wordjudge`, the command line, links no
//! GUI or input library; `wordjudge-kiosk` runs the kiosk, screenshots and
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

#[test]
fn the_command_line_links_only_libc_libm_and_libgcc_s() {
    let allowed = ["linux-vdso.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"];
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
