//! The Pi 5 family's A/B switch (`kiosk-image/update/rauc-pi-tryboot`, RAUC's custom
//! boot-loader back-end for the firmware's own tryboot), run against a boot partition, a
//! tryboot flag and a kernel command line this test writes: the sequence RAUC drives
//! through an update (slot bad before it is written, its files to its folder, tried once,
//! marked good or not), the spent try the boot check records, and the refusals. The
//! firmware's side (tryboot.txt read once while the flag is set, the flag then cleared) is
//! `Station::boot`; on an emulated Pi 5 it is the arm64 boot test's (boottest/pi5.py).

use std::ffi::OsString;
use std::fs;

use crate::script_run::{run_script, run_script_ok, scratch_station, Scratch};

const BACKEND: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/rauc-pi-tryboot");
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/pi-boot/config.txt");

scratch_station!(Station);

impl Station {
    /// A card as built: the shipped config.txt (slot A), slot A's folder, booted A, flag clear.
    fn new() -> Station {
        let s = Station { scratch: Scratch::new() };
        s.write("boot/config.txt", &fs::read_to_string(CONFIG).unwrap());
        for slot in ["A", "B"] {
            for f in ["vmlinuz", "initrd.img", "bcm2712-rpi-5-b.dtb", "bcm2712d0-rpi-5-b.dtb"] {
                s.write(&format!("slot-{slot}/boot/firmware/{f}"), &format!("{f} of slot {slot}"));
            }
            s.write(
                &format!("slot-{slot}/boot/firmware/cmdline-pi5.txt"),
                "console=tty1 console=ttyAMA10,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n",
            );
        }
        s.ok(&["install-slot", "A"]);
        s.write("cmdline", "console=ttyAMA10,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n");
        s
    }

    /// What the Pi 5 firmware does at the next start: with the flag set it clears it and
    /// reads tryboot.txt, else config.txt; the slot its os_prefix names boots.
    fn boot(&self) -> String {
        let file = if self.read("flag").trim() == "1" { "boot/tryboot.txt" } else { "boot/config.txt" };
        self.write("flag", "0\n");
        let config = self.read(file);
        let prefix = config.lines().find_map(|l| l.strip_prefix("os_prefix=")).expect("an os_prefix").to_string();
        let cmdline = self.read(&format!("boot/{prefix}cmdline.txt"));
        assert!(!cmdline.is_empty(), "{prefix}cmdline.txt is there");
        self.write("cmdline", &cmdline);
        self.ok(&["get-current"])
    }

    /// The back-end's environment: its test hooks pointed at this test's files.
    fn env(&self) -> [(&'static str, OsString); 5] {
        [
            ("WJ_PI_BOOT", self.path("boot").into_os_string()),
            ("WJ_TRYBOOT_FLAG", self.path("flag").into_os_string()),
            ("WJ_PROC_CMDLINE", self.path("cmdline").into_os_string()),
            ("WJ_SLOT_TREE_A", self.path("slot-A").into_os_string()),
            ("WJ_SLOT_TREE_B", self.path("slot-B").into_os_string()),
        ]
    }

    fn run(&self, args: &[&str]) -> (bool, String, String) {
        run_script(BACKEND, args, self.env())
    }

    fn ok(&self, args: &[&str]) -> String {
        run_script_ok(BACKEND, args, self.env())
    }

    /// The slot a firmware config file starts, checking it has exactly one os_prefix line.
    fn slot_of(&self, rel: &str) -> Option<String> {
        let text = fs::read_to_string(self.path(rel)).ok()?;
        let prefixes: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("os_prefix=")).collect();
        assert_eq!(prefixes.len(), 1, "{rel}: one os_prefix line: {text}");
        assert!(text.contains("[pi4]\n") && text.contains("kernel=u-boot.bin"), "{rel}: the rest is config.txt's");
        Some(prefixes[0].trim_end_matches('/').trim_start_matches("wordjudge-").to_uppercase())
    }
}

#[test]
fn an_update_is_tried_once_by_the_firmware_then_kept_only_when_marked_good() {
    let s = Station::new();
    assert_eq!(s.read("boot/wordjudge-a/vmlinuz"), "vmlinuz of slot A");
    assert_eq!(s.ok(&["get-current"]), "A");
    assert_eq!(s.ok(&["get-primary"]), "A");
    assert_eq!(s.ok(&["get-state", "B"]), "good");

    // RAUC: the target slot is marked bad before it is written, then made primary.
    s.ok(&["set-state", "B", "bad"]);
    assert_eq!(s.ok(&["get-state", "B"]), "bad");
    s.ok(&["set-primary", "B"]);
    for f in ["vmlinuz", "initrd.img", "bcm2712-rpi-5-b.dtb", "bcm2712d0-rpi-5-b.dtb"] {
        assert_eq!(s.read(&format!("boot/wordjudge-b/{f}")), format!("{f} of slot B"), "{f}");
    }
    assert_eq!(
        s.read("boot/wordjudge-b/cmdline.txt"),
        "console=tty1 console=ttyAMA10,115200 root=PARTLABEL=wjroot-b rauc.slot=B ro quiet\n",
        "slot B's own command line names its root and slot"
    );
    assert_eq!(s.slot_of("boot/tryboot.txt").as_deref(), Some("B"));
    assert_eq!(s.slot_of("boot/config.txt").as_deref(), Some("A"), "A stays the default until B proves itself");
    assert_eq!(s.read("flag").trim(), "1", "the flag is set: the next boot reads tryboot.txt");
    assert_eq!(s.ok(&["get-primary"]), "B", "the next boot is B's trial");
    assert_eq!(s.ok(&["spent-try"]), "", "nothing spent before the reboot");

    // The trial boot: the firmware spends the flag; the boot check marks B good.
    assert_eq!(s.boot(), "B");
    assert_eq!(s.ok(&["get-primary"]), "A", "without mark-good the boot after this one is A again");
    assert_eq!(s.ok(&["spent-try"]), "", "the try is running, not spent");
    s.ok(&["set-state", "B", "good"]);
    assert_eq!(s.slot_of("boot/config.txt").as_deref(), Some("B"));
    assert!(!s.path("boot/tryboot.txt").exists(), "the try is settled");
    assert_eq!(s.ok(&["get-primary"]), "B");
    assert_eq!(s.boot(), "B", "and it stays");
}

#[test]
fn a_try_that_never_reached_mark_good_is_spent_once_and_the_old_slot_boots() {
    let s = Station::new();
    s.ok(&["set-state", "B", "bad"]);
    s.ok(&["set-primary", "B"]);
    assert_eq!(s.boot(), "B");
    // The kernel panics (panic=10 resets the board): the firmware reads config.txt again.
    assert_eq!(s.boot(), "A");
    assert_eq!(s.ok(&["spent-try"]), "B", "the boot check sees the spent try");
    // The boot check: `rauc status mark-bad other`.
    s.ok(&["set-state", "B", "bad"]);
    assert_eq!(s.ok(&["spent-try"]), "", "recorded once");
    assert!(!s.path("boot/tryboot.txt").exists());
    assert_eq!(s.slot_of("boot/config.txt").as_deref(), Some("A"));
    assert_eq!(s.ok(&["get-state", "B"]), "bad");
    assert_eq!(s.boot(), "A");

    // A trial that reached user space and failed there: the boot check marks it bad and
    // reboots; the flag is already spent, config.txt names A.
    let s = Station::new();
    s.ok(&["set-primary", "B"]);
    assert_eq!(s.boot(), "B");
    s.ok(&["set-state", "B", "bad"]);
    assert_eq!(s.boot(), "A");
    assert_eq!(s.ok(&["spent-try"]), "", "marked bad by the check itself: nothing more to record");
}

#[test]
fn a_power_cut_before_the_trial_reboot_loses_the_flag_and_counts_as_a_spent_try() {
    // The flag lives in the board's power manager, not on the card: a power cut clears it.
    let s = Station::new();
    s.ok(&["set-primary", "B"]);
    s.write("flag", "0\n");
    assert_eq!(s.boot(), "A");
    assert_eq!(s.ok(&["spent-try"]), "B");
}

#[test]
fn set_primary_of_the_running_slot_makes_it_the_default_and_drops_a_pending_trial() {
    let s = Station::new();
    s.ok(&["set-primary", "B"]);
    s.ok(&["set-primary", "A"]);
    assert_eq!(s.read("flag").trim(), "0", "`rauc status mark-active booted` cancels the trial");
    assert!(!s.path("boot/tryboot.txt").exists());
    assert_eq!(s.slot_of("boot/config.txt").as_deref(), Some("A"));
    assert_eq!(s.boot(), "A");
}

#[test]
fn marking_the_running_default_bad_falls_back_only_to_a_good_slot_with_its_files() {
    let s = Station::new();
    // B was never installed: A stays the default even when marked bad.
    s.ok(&["set-state", "A", "bad"]);
    assert_eq!(s.slot_of("boot/config.txt").as_deref(), Some("A"));
    s.ok(&["set-state", "A", "good"]);
    s.ok(&["set-primary", "B"]);
    s.ok(&["set-state", "A", "bad"]);
    assert_eq!(s.slot_of("boot/config.txt").as_deref(), Some("B"));
}

#[test]
fn refuses_what_it_cannot_do_and_changes_nothing() {
    let s = Station::new();
    let config = s.read("boot/config.txt");
    for args in [&["set-primary", "C"][..], &["get-state", ""], &["set-state", "B", "maybe"], &["reboot"], &[]] {
        let (ok, _, err) = s.run(args);
        assert!(!ok, "{args:?} must fail");
        assert!(err.starts_with("rauc-pi-tryboot: "), "{args:?}: a message that names the back-end: {err}");
    }
    // A slot without its kernel is never tried.
    fs::remove_file(s.path("slot-B/boot/firmware/vmlinuz")).unwrap();
    let (ok, _, err) = s.run(&["set-primary", "B"]);
    assert!(!ok && err.contains("has no /boot/firmware/vmlinuz"), "{err}");
    assert_ne!(s.read("flag").trim(), "1", "no trial of a slot without its kernel");
    assert!(!s.path("boot/tryboot.txt").exists());
    assert_eq!(s.read("boot/config.txt"), config);
    // A firmware that refuses the flag (a bootloader too old): no tryboot.txt is left to be
    // taken for a spent try at the next boot.
    let s = Station::new();
    let env = s.env().map(|(k, v)| (k, if k == "WJ_TRYBOOT_FLAG" { s.path("gone/flag").into_os_string() } else { v }));
    let (ok, _, err) = run_script(BACKEND, &["set-primary", "B"], env);
    assert!(!ok && err.contains("tryboot flag"), "{err}");
    assert!(!s.path("boot/tryboot.txt").exists());
    assert_eq!(s.ok(&["spent-try"]), "");
    // A config.txt with no slot of ours, or two: no primary, and nothing rewritten.
    for text in ["[all]\narm_64bit=1\n", "os_prefix=wordjudge-a/\nos_prefix=wordjudge-b/\n"] {
        let s = Station::new();
        s.write("boot/config.txt", text);
        let (ok, _, err) = s.run(&["get-primary"]);
        assert!(!ok && err.contains("names no wordjudge slot"), "{err}");
        let (ok, _, _) = s.run(&["set-state", "A", "good"]);
        assert!(!ok);
        assert_eq!(s.read("boot/config.txt"), text);
    }
    // No rauc.slot= (booted some other way): no current slot.
    s.write("cmdline", "root=/dev/mmcblk0p2 ro\n");
    let (ok, _, err) = s.run(&["get-current"]);
    assert!(!ok && err.contains("no rauc.slot="), "{err}");
}

#[test]
fn the_emulated_firmware_keeps_its_flag_on_the_card_only_when_the_command_line_says_so() {
    // The boot test's -M virt run has no firmware mailbox: its emulator says so on the
    // command line and reads the flag from the partition.
    let s = Station::new();
    let env: Vec<(&str, OsString)> = s.env().into_iter().filter(|(k, _)| *k != "WJ_TRYBOOT_FLAG").collect();
    s.write("cmdline", "console=ttyAMA0,115200 root=PARTLABEL=wjroot-a rauc.slot=A wordjudge.firmware=emulated\n");
    run_script_ok(BACKEND, &["set-primary", "B"], env.clone());
    assert_eq!(s.read("boot/wordjudge-emulated-tryboot.flag").trim(), "1");
    assert_eq!(run_script_ok(BACKEND, &["get-primary"], env.clone()), "B");
    // Without that word, the flag is the kernel module's: never a file on the card.
    let s = Station::new();
    let env: Vec<(&str, OsString)> = s.env().into_iter().filter(|(k, _)| *k != "WJ_TRYBOOT_FLAG").collect();
    s.write("boot/wordjudge-emulated-tryboot.flag", "1\n");
    let (ok, _, err) = run_script(BACKEND, &["set-primary", "B"], env);
    if !std::path::Path::new("/sys/module/wordjudge_tryboot").exists() {
        assert!(!ok && err.contains("tryboot module"), "{err}");
        assert!(!s.path("boot/tryboot.txt").exists());
    }
}
