//! The Raspberry Pi card's A/B rollback as the boot check (`kiosk-image/update/boot-check`)
//! sees it: U-Boot's script (`kiosk-image/pi-boot/boot.cmd`) counts the tries before the
//! kernel runs, RAUC (`bootloader=uboot`) reads and writes that counter with
//! `fw_printenv`/`fw_setenv`, and the boot check tells the director what happened. Here
//! the counter is a text file, and `fw_printenv` and `rauc` are stand-ins that keep to
//! RAUC's own rules for it (src/bootloaders/uboot.c: the primary is the first slot of
//! BOOT_ORDER with a try left; mark-good gives `boot-attempts` tries; mark-bad takes the
//! slot out of the order). U-Boot's side runs for real in the arm64 boot test.

use std::ffi::OsString;
use std::fs;

use crate::script_run::{run_script, scratch_station, Scratch};

const BOOT_CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/boot-check");

const FW_PRINTENV: &str = r##"#!/bin/sh
# fw_printenv [-n] NAME: one variable of the counter file, as libubootenv prints it.
[ "$1" = -n ] && { shift; n=1; }
v=$(sed -n "s/^$1=//p" "$WJ_TEST_COUNTER")
[ -n "$v" ] || { echo "fw_printenv: \"$1\" not defined" >&2; exit 1; }
if [ -n "$n" ]; then echo "$v"; else echo "$1=$v"; fi
"##;

const RAUC: &str = r##"#!/bin/sh
# rauc status ...: RAUC's uboot support over the counter file (src/bootloaders/uboot.c).
E=$WJ_TEST_COUNTER
echo "rauc $*" >>"$WJ_TEST_LOG"
get() { sed -n "s/^$1=//p" "$E"; }
put() { grep -v "^$1=" "$E" >"$E.new"; [ -z "$2" ] || echo "$1=$2" >>"$E.new"; mv "$E.new" "$E"; }
booted=$(tr ' ' '\n' <"$WJ_PROC_CMDLINE" | sed -n 's/^rauc\.slot=//p')
other() { if [ "$1" = A ]; then echo B; else echo A; fi; }
name() { if [ "$1" = A ]; then echo rootfs.0; else echo rootfs.1; fi; }
case "$*" in
    "status --output-format=shell")
        for s in $(get BOOT_ORDER); do
            if [ "$(( 0x$(get BOOT_${s}_LEFT) ))" -gt 0 ]; then echo "RAUC_BOOT_PRIMARY='$(name $s)'"; exit 0; fi
        done; exit 1 ;;
    "status --detailed --output-format=shell")
        echo "RAUC_SLOTS='1 2'"
        echo "RAUC_SLOT_BOOTNAME_1='A'"; echo "RAUC_SLOT_STATUS_BUNDLE_VERSION_1='$(get TEST_VERSION_A)'"
        echo "RAUC_SLOT_BOOTNAME_2='B'"; echo "RAUC_SLOT_STATUS_BUNDLE_VERSION_2='$(get TEST_VERSION_B)'" ;;
    "status mark-good booted") put "BOOT_${booted}_LEFT" 3 ;;
    "status mark-bad other"|"status mark-bad booted")
        s=$booted; [ "$3" = other ] && s=$(other "$booted")
        put BOOT_ORDER "$(for o in $(get BOOT_ORDER); do [ "$o" = "$s" ] || printf '%s ' "$o"; done | sed 's/ $//')"
        put "BOOT_${s}_LEFT" 0 ;;
    *) echo "rauc stand-in: unexpected: $*" >&2; exit 2 ;;
esac
"##;

scratch_station!(
    /// A station with the Pi card's counter: COUNTER's lines, booted into BOOTED.
    Station
);

impl Station {
    fn new(counter: &str, booted: &str) -> Station {
        let s = Station { scratch: Scratch::new() };
        for (name, text) in [("bin/fw_printenv", FW_PRINTENV), ("bin/rauc", RAUC)] {
            s.write_executable(name, text);
        }
        s.write("counter", counter);
        s.write("fw_env.config", "/boot/pi/wjboot.env 0x0000 0x4000\n");
        s.write(
            "proc-cmdline",
            &format!("root=PARTLABEL=wjroot-{} rauc.slot={booted} ro quiet\n", booted.to_lowercase()),
        );
        s.write("release", "VERSION=0.1.0\nARCH=arm64\n");
        s
    }

    /// The boot check as wordjudge-boot-check.service runs it at boot.
    fn boot_check(&self) -> (bool, String) {
        let path = format!("{}:{}", self.path("bin").display(), std::env::var("PATH").unwrap_or_default());
        let env: [(&str, OsString); 8] = [
            ("PATH", path.into()),
            ("WJ_TEST_COUNTER", self.path("counter").into_os_string()),
            ("WJ_TEST_LOG", self.path("rauc.log").into_os_string()),
            ("WJ_PROC_CMDLINE", self.path("proc-cmdline").into_os_string()),
            ("WJ_RELEASE_FILE", self.path("release").into_os_string()),
            ("WJ_UPDATE_STATE", self.path("update-state").into_os_string()),
            ("WJ_FW_ENV_CONFIG", self.path("fw_env.config").into_os_string()),
            ("WJ_BOOTLOADER_DT", self.path("bootloader").into_os_string()),
        ];
        let (ok, out, err) = run_script(BOOT_CHECK, &[], env);
        (ok, format!("{out}\n{err}"))
    }

    fn counter(&self, name: &str) -> String {
        self.read("counter").lines().find_map(|l| l.strip_prefix(&format!("{name}="))).unwrap_or("").to_string()
    }
}

#[test]
fn the_boot_check_records_the_bootloader_the_device_tree_names() {
    let s = Station::new("BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=3\n", "A");
    let (_, log) = s.boot_check();
    assert!(log.contains("bootloader: none named in the device tree"), "{log}");
    // A Pi 5's EEPROM as its firmware describes it: big-endian cells, the version a
    // NUL-terminated string.
    fs::create_dir_all(s.path("bootloader")).unwrap();
    fs::write(s.path("bootloader/build-timestamp"), 1_746_700_000u32.to_be_bytes()).unwrap();
    fs::write(s.path("bootloader/version"), b"8ba17717fbcedd4c3b6d4bce7e50c7af4155cba9\0").unwrap();
    fs::write(s.path("bootloader/tryboot"), 1u32.to_be_bytes()).unwrap();
    let (_, log) = s.boot_check();
    assert!(
        log.contains(
            "bootloader: built 2025-05-08 (build-timestamp 1746700000), \
             version 8ba17717fbcedd4c3b6d4bce7e50c7af4155cba9, this boot a try: 1"
        ),
        "{log}"
    );
    // A firmware that names less (the boot test's emulated Pi 5: the try alone): said
    // plainly, with no shell error about the missing properties.
    fs::remove_file(s.path("bootloader/version")).unwrap();
    fs::remove_file(s.path("bootloader/build-timestamp")).unwrap();
    let (_, log) = s.boot_check();
    assert!(
        log.contains("bootloader: built unknown (build-timestamp none), version none, this boot a try: 1"),
        "{log}"
    );
    assert!(!log.contains("cannot open") && !log.contains("No such file"), "{log}");
}

#[test]
fn a_new_slot_whose_one_try_never_came_back_is_recorded_once_and_taken_out_of_the_order() {
    // After an install into B (RAUC: B first, one try), U-Boot spent B's try and B's
    // kernel never reached the boot check (a panic: reset, U-Boot boots A).
    let s =
        Station::new("BOOT_ORDER=B A\nBOOT_A_LEFT=2\nBOOT_B_LEFT=0\nTEST_VERSION_A=0.1.0\nTEST_VERSION_B=0.2.0\n", "A");
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert_eq!(
        s.read("update-state/boot-check"),
        "slot=B\nversion=0.2.0\noutcome=rolled-back\ndetail=its one try ended before it was marked good: the kernel \
         or the early boot failed (a panic, a hang until the watchdog, or a power cut)\n",
        "the director's record names the slot and release that failed: {log}"
    );
    assert!(log.contains("slot B (version 0.2.0)") && log.contains("back on slot A"), "{log}");
    assert_eq!(s.counter("BOOT_ORDER"), "A", "B is out of U-Boot's order");
    assert_eq!(s.counter("BOOT_A_LEFT"), "3", "A has its tries back");
    assert_eq!(s.read("rauc.log").lines().filter(|l| l.contains("mark-bad other")).count(), 1);

    // The next boot of A: nothing more to record.
    fs::remove_file(s.path("update-state/boot-check")).unwrap();
    s.write("counter", &s.read("counter").replace("BOOT_A_LEFT=3", "BOOT_A_LEFT=2"));
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert_eq!(s.read("update-state/boot-check"), "", "recorded once: {log}");
    assert_eq!(s.counter("BOOT_A_LEFT"), "3");
}

#[test]
fn the_default_slot_gets_its_tries_back_at_every_boot() {
    // U-Boot spends a try at every start: without mark-good a working station would run
    // out after three boots.
    let s = Station::new("BOOT_ORDER=A B\nBOOT_A_LEFT=2\nBOOT_B_LEFT=3\n", "A");
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert!(log.contains("slot A is the default"), "{log}");
    assert_eq!(s.counter("BOOT_A_LEFT"), "3");
    assert_eq!(s.counter("BOOT_ORDER"), "A B", "nothing else changes");
    assert_eq!(s.read("update-state/boot-check"), "");
}

#[test]
fn a_count_that_is_no_number_is_no_try_left() {
    // U-Boot's `test zz -gt 0` is false: it skipped B and booted A. The same reading here.
    let s = Station::new("BOOT_ORDER=B A\nBOOT_A_LEFT=3\nBOOT_B_LEFT=zz\n", "A");
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert!(s.read("update-state/boot-check").contains("slot=B\nversion=\noutcome=rolled-back"), "{log}");
    assert_eq!(s.counter("BOOT_ORDER"), "A");
}

#[test]
fn without_u_boot_s_counter_the_pc_path_is_unchanged() {
    let s = Station::new("BOOT_ORDER=B A\nBOOT_A_LEFT=3\nBOOT_B_LEFT=0\n", "A");
    fs::remove_file(s.path("fw_env.config")).unwrap();
    let (ok, log) = s.boot_check();
    assert!(ok, "{log}");
    assert_eq!(s.read("update-state/boot-check"), "", "{log}");
    assert!(!s.read("rauc.log").contains("mark-"), "no counter to renew on the PC: {}", s.read("rauc.log"));
}
