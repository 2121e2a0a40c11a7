//! Two programs (src/cli/mod.rs): `wordjudge`, the command line, links no
//! GUI or input library; `wordjudge-kiosk` runs the kiosk, screenshots and
//! the USB helper, and `wordjudge kiosk …` still reaches it.

use std::path::Path;
use std::process::Command;

const COMMAND: &str = env!("CARGO_BIN_EXE_wordjudge");
const KIOSK: &str = env!("CARGO_BIN_EXE_wordjudge-kiosk");

/// The shared libraries a program needs, as the dynamic loader resolves
/// them (`ldd`, from libc-bin, on every Debian).
fn needed(program: &str) -> Vec<String> {
    let out = Command::new("ldd").arg(program).output().expect("ldd");
    assert!(out.status.success(), "ldd {program}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|name| name.rsplit('/').next().unwrap_or(name).to_string())
        .collect()
}

#[test]
fn the_command_line_links_only_libc_libm_and_libgcc_s() {
    let allowed = ["linux-vdso.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"];
    let libraries = needed(COMMAND);
    let extra: Vec<&String> = libraries.iter().filter(|l| !allowed.contains(&l.as_str())).collect();
    assert!(extra.is_empty(), "wordjudge links {extra:?}");
    // The kiosk is the one that carries the GUI and input stack.
    let kiosk = needed(KIOSK);
    for gui in ["libinput.so.10", "libudev.so.1", "libxkbcommon.so.0"] {
        assert!(kiosk.iter().any(|l| l == gui), "wordjudge-kiosk should link {gui}: {kiosk:?}");
    }
}

#[test]
fn wordjudge_kiosk_commands_reach_the_kiosk_program() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(COMMAND)
        .args(["screenshot", "--out"])
        .arg(out.path())
        .args(["--width", "400", "--height", "240"])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(out.path().join("01-ready.png").is_file(), "the screenshots were rendered by wordjudge-kiosk");
    // The kiosk program takes the same command line.
    let help = Command::new(KIOSK).args(["kiosk", "--help"]).output().unwrap();
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("--windowed"));
}

#[test]
fn without_the_kiosk_program_beside_it_wordjudge_says_where_it_should_be() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("wordjudge");
    std::fs::copy(COMMAND, &alone).unwrap();
    let out = Command::new(&alone).args(["kiosk", "--windowed"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("wordjudge-kiosk") && said.contains("beside wordjudge"), "{said}");
    // The commands it runs itself do not need it.
    let out = Command::new(&alone).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(Path::new(KIOSK).is_file());
}
