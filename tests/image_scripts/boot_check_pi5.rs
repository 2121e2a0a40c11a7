//! The Pi 5 family's A/B rollback as the boot check (`kiosk-image/update/boot-check`) sees
//! it: the firmware reads tryboot.txt once while its flag is set, then config.txt again;
//! RAUC drives the real back-end (`kiosk-image/update/rauc-pi-tryboot`) through a
//! stand-in `rauc` that keeps to RAUC's custom back-end rules (the primary is get-primary's
//! answer; mark-good and mark-bad are set-state). The firmware's side runs, emulated, in
//! the arm64 boot test (boottest/pi5.py).

use std::ffi::OsString;
use std::fs;

use crate::script_run::{run_script, run_script_ok, scratch_station, Scratch};

const BOOT_CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/boot-check");
const BACKEND: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/rauc-pi-tryboot");
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/pi-boot/config.txt");

const RAUC: &str = r##"#!/bin/sh
# rauc status ...: RAUC with bootloader=custom, asking the back-end.
echo "rauc $*" >>"$WJ_TEST_LOG"
b() { sh "$WJ_TRYBOOT_BACKEND" "$@"; }
booted=$(b get-current)
other() { if [ "$1" = A ]; then echo B; else echo A; fi; }
name() { if [ "$1" = A ]; then echo rootfs.0; else echo rootfs.1; fi; }
case "$*" in
    "status --output-format=shell") echo "RAUC_BOOT_PRIMARY='$(name "$(b get-primary)")'" ;;
    "status --detailed --output-format=shell")
        echo "RAUC_SLOTS='1 2'"
        echo "RAUC_SLOT_BOOTNAME_1='A'"; echo "RAUC_SLOT_STATUS_BUNDLE_VERSION_1='$(cat "$WJ_TEST_VERSIONS/A")'"
        echo "RAUC_SLOT_BOOTNAME_2='B'"; echo "RAUC_SLOT_STATUS_BUNDLE_VERSION_2='$(cat "$WJ_TEST_VERSIONS/B")'" ;;
    "status mark-good booted") b set-state "$booted" good ;;
    "status mark-bad other") b set-state "$(other "$booted")" bad ;;
    "status mark-bad booted") b set-state "$booted" bad ;;
    *) echo "rauc stand-in: unexpected: $*" >&2; exit 2 ;;
esac
"##;

scratch_station!(Station);

impl Station {
    /// A Pi 5 card as built, booted A, with B installed (0.2.0) and its one try pending.
    /// U-Boot's counter on the same card says "B first, no try left": the Pi 3/4 path,
    /// which must not be read on a Pi 5.
    fn after_an_install_into_b() -> Station {
        let s = Station { scratch: Scratch::new() };
        s.write_executable("bin/rauc", RAUC);
        s.write("boot/config.txt", &fs::read_to_string(CONFIG).unwrap());
        for slot in ["A", "B"] {
            for f in ["vmlinuz", "initrd.img", "bcm2712-rpi-5-b.dtb"] {
                s.write(&format!("slot-{slot}/boot/firmware/{f}"), f);
            }
            s.write(&format!("slot-{slot}/boot/firmware/cmdline-pi5.txt"), "root=PARTLABEL=wjroot-a rauc.slot=A ro\n");
        }
        s.write("versions/A", "0.1.0");
        s.write("versions/B", "0.2.0");
        s.write(
            "rauc.conf",
            "[system]\nbootloader=custom\n[handlers]\nbootloader-custom-backend=/usr/lib/wordjudge/rauc-pi-tryboot\n",
        );
        s.write("fw_env.config", "/boot/pi/wjboot.env 0x0000 0x4000\n");
        s.write_executable(
            "bin/fw_printenv",
            "#!/bin/sh\n[ \"$1\" = -n ] && shift\ncase $1 in BOOT_ORDER) echo 'B A' ;; *) echo 0 ;; esac\n",
        );
        s.write("proc-cmdline", "root=PARTLABEL=wjroot-a rauc.slot=A ro\n");
        s.write("release", "VERSION=0.1.0\nARCH=arm64\n");
        run_script_ok(BACKEND, &["install-slot", "A"], s.env());
        run_script_ok(BACKEND, &["set-state", "B", "bad"], s.env());
        run_script_ok(BACKEND, &["set-primary", "B"], s.env());
        s
    }

    fn env(&self) -> Vec<(&'static str, OsString)> {
        let path = format!("{}:{}", self.path("bin").display(), std::env::var("PATH").unwrap_or_default());
        vec![
            ("PATH", path.into()),
            ("WJ_TEST_LOG", self.path("rauc.log").into_os_string()),
            ("WJ_TEST_VERSIONS", self.path("versions").into_os_string()),
            ("WJ_PROC_CMDLINE", self.path("proc-cmdline").into_os_string()),
            ("WJ_RELEASE_FILE", self.path("release").into_os_string()),
            ("WJ_UPDATE_STATE", self.path("update-state").into_os_string()),
            ("WJ_FW_ENV_CONFIG", self.path("fw_env.config").into_os_string()),
            ("WJ_BOOTLOADER_DT", self.path("bootloader").into_os_string()),
            ("WJ_RAUC_CONF", self.path("rauc.conf").into_os_string()),
            ("WJ_TRYBOOT_BACKEND", BACKEND.into()),
            ("WJ_PI_BOOT", self.path("boot").into_os_string()),
            ("WJ_TRYBOOT_FLAG", self.path("flag").into_os_string()),
            ("WJ_SLOT_TREE_A", self.path("slot-A").into_os_string()),
            ("WJ_SLOT_TREE_B", self.path("slot-B").into_os_string()),
        ]
    }

    /// The firmware's start: the flag spent, tryboot.txt or config.txt, its slot's command line.
    fn power_on(&self) {
        let file = if self.read("flag").trim() == "1" { "boot/tryboot.txt" } else { "boot/config.txt" };
        self.write("flag", "0\n");
        let text = self.read(file);
        let prefix = text.lines().find_map(|l| l.strip_prefix("os_prefix=")).unwrap().to_string();
        self.write("proc-cmdline", &self.read(&format!("boot/{prefix}cmdline.txt")));
    }

    fn boot_check(&self) -> (bool, String) {
        let (ok, out, err) = run_script(BOOT_CHECK, &[], self.env());
        (ok, format!("{out}\n{err}"))
    }
}

#[test]
fn a_panicking_trial_is_recorded_once_and_never_tried_again() {
    let s = Station::after_an_install_into_b();
    s.power_on(); // B's trial: the kernel panics before the boot check runs.
    assert!(s.read("proc-cmdline").contains("rauc.slot=B"));
    s.power_on(); // panic=10 resets the board: config.txt, slot A.
    assert!(s.read("proc-cmdline").contains("rauc.slot=A"));
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert_eq!(
        s.read("update-state/boot-check"),
        "slot=B\nversion=0.2.0\noutcome=rolled-back\ndetail=its one try ended before it was marked good: the kernel \
         or the early boot failed (a panic, a hang until the watchdog, or a power cut)\n",
        "{log}"
    );
    assert!(log.contains("slot B (version 0.2.0)") && log.contains("back on slot A"), "{log}");
    assert!(log.contains("slot A is the default"), "{log}");
    assert_eq!(s.read("rauc.log").lines().filter(|l| l.contains("mark-bad other")).count(), 1);
    assert!(!s.path("boot/tryboot.txt").exists(), "the try is settled");
    assert_eq!(run_script_ok(BACKEND, &["get-state", "B"], s.env()), "bad");

    // The next boot: nothing more to record, and U-Boot's counter was never read.
    fs::remove_file(s.path("update-state/boot-check")).unwrap();
    s.power_on();
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert_eq!(s.read("update-state/boot-check"), "", "recorded once: {log}");
    assert!(!log.contains("U-Boot") && !s.read("rauc.log").contains("mark-bad booted"), "{log}");
}

#[test]
fn the_trial_boot_waits_for_the_kiosk_and_the_default_boot_has_nothing_to_assess() {
    let s = Station::after_an_install_into_b();
    s.power_on();
    // The trial boot of B: RAUC's primary is A again (the flag is spent), so the check
    // waits for the kiosk; with no systemd here it gives up at once (0 s) and marks B bad.
    let mut env = s.env();
    env.push(("WJ_BOOT_CHECK_SECONDS", "0".into()));
    s.write_executable("bin/systemctl", "#!/bin/sh\ncase \"$*\" in *ActiveState*) echo failed ;; *NRestarts*) echo 0 ;; *reboot*) echo reboot >>\"$WJ_TEST_LOG\" ;; esac\n");
    let (ok, out, err) = run_script(BOOT_CHECK, &[], env);
    let log = format!("{out}\n{err}");
    assert!(!ok, "a failed trial ends the check with a reboot: {log}");
    assert!(log.contains("trial boot of slot B") && log.contains("failed its trial"), "{log}");
    assert!(s.read("rauc.log").contains("mark-bad booted") && s.read("rauc.log").contains("reboot"), "{log}");
    assert!(!s.path("boot/tryboot.txt").exists());
    s.power_on();
    assert!(s.read("proc-cmdline").contains("rauc.slot=A"), "back on A");
    let (ok, log) = s.boot_check();
    assert!(ok && log.contains("slot A is the default"), "{log}");
    assert_eq!(
        s.read("update-state/boot-check").lines().nth(2),
        Some("outcome=rolled-back"),
        "the trial's own record stays"
    );
}
