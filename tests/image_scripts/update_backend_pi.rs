//! The Raspberry Pi card's A/B switch (`kiosk-image/update/rauc-pi-tryboot`, RAUC's
//! custom boot-loader back-end for the Pi firmware's autoboot.txt), run against the
//! card's partitions as directories this test writes: the autoboot partition, both
//! boot partitions and both root slots. It covers the sequence RAUC and the boot
//! check drive (the slot's boot files installed, tried once, kept only when marked
//! good), the one try kept by the back-end itself (Debian's kernel cannot set the
//! firmware's tryboot flag): spent by the first boot, rolled back by the next, and a
//! trial a power cut left half-written. The firmware's side is `firmware_boot` here; on a
//! built card, the arm64 boot test reads autoboot.txt the same way to choose what it boots.

use std::ffi::OsString;
use std::fs;

use crate::script_run::{run_script, run_script_ok, Scratch};

const BACKEND: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/rauc-pi-tryboot");
const BOOT_CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/boot-check");
const BOOT_FILES: [&str; 8] = [
    "config.txt",
    "vmlinuz",
    "initrd.img",
    "cmdline.txt",
    "cmdline-pi4.txt",
    "cmdline-pi5.txt",
    "wordjudge-boot.txt",
    "bcm2711-rpi-4-b.dtb",
];

struct Card {
    scratch: Scratch,
}

/// The scratch folder's path, write and read.
impl std::ops::Deref for Card {
    type Target = Scratch;
    fn deref(&self) -> &Scratch {
        &self.scratch
    }
}

impl Card {
    /// A card as built: autoboot.txt boots partition 2 (slot A), whose files are slot A's;
    /// partition 3 is empty; both root slots carry their own /boot/firmware.
    fn new() -> Card {
        let c = Card { scratch: Scratch::new() };
        c.write("auto/autoboot.txt", "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n");
        fs::create_dir_all(c.path("boot-B")).unwrap();
        for slot in ["A", "B"] {
            for f in BOOT_FILES {
                let text = if f.starts_with("cmdline") {
                    // Every slot's tree says slot A: the image build's kernel hook wrote it.
                    "console=tty1 console=ttyS1,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n".to_string()
                } else {
                    format!("{f} of slot {slot}")
                };
                c.write(&format!("slot-{slot}/boot/firmware/{f}"), &text);
                if slot == "A" {
                    c.write(&format!("boot-A/{f}"), &text);
                }
            }
        }
        c.firmware_boot();
        c
    }

    /// The firmware's choice, as it makes it at power-on: autoboot.txt's [all]
    /// boot_partition, and that partition's command line becomes /proc/cmdline. Returns
    /// the slot booted.
    fn firmware_boot(&self) -> String {
        let part = self.boot_partition("[all]");
        let slot = match part.as_str() {
            "2" => "A",
            "3" => "B",
            other => panic!("autoboot.txt boots partition {other}"),
        };
        let cmdline = self.read(&format!("boot-{slot}/cmdline-pi4.txt"));
        assert!(!cmdline.is_empty(), "partition {part} has no command line: the firmware could not boot it");
        self.write("proc-cmdline", &cmdline);
        self.booted()
    }

    /// The slot the running kernel's command line names.
    fn booted(&self) -> String {
        let line = self.read("proc-cmdline");
        line.split_whitespace().find_map(|w| w.strip_prefix("rauc.slot=")).unwrap().to_string()
    }

    /// `boot_partition=` of one section of autoboot.txt.
    fn boot_partition(&self, section: &str) -> String {
        let text = self.read("auto/autoboot.txt");
        assert!(text.len() <= 512, "the firmware reads 512 bytes of autoboot.txt: {text}");
        assert!(text.starts_with("[all]\ntryboot_a_b=1\n"), "{text}");
        let mut current = "";
        let mut found = Vec::new();
        for line in text.lines() {
            if line.starts_with('[') {
                current = line;
            } else if let Some(p) = line.strip_prefix("boot_partition=") {
                if current == section {
                    found.push(p.to_string());
                }
            }
        }
        assert_eq!(found.len(), 1, "one boot_partition in {section}: {text}");
        found.remove(0)
    }

    /// The back-end's environment: its test hooks pointed at this test's files.
    fn env(&self) -> [(&'static str, OsString); 10] {
        [
            ("WJ_AUTOBOOT", self.path("auto").into_os_string()),
            ("WJ_BOOT_PART_A", self.path("boot-A").into_os_string()),
            ("WJ_BOOT_PART_B", self.path("boot-B").into_os_string()),
            ("WJ_SLOT_TREE_A", self.path("slot-A").into_os_string()),
            ("WJ_SLOT_TREE_B", self.path("slot-B").into_os_string()),
            ("WJ_PROC_CMDLINE", self.path("proc-cmdline").into_os_string()),
            ("WJ_REBOOT", OsString::from(format!("touch {}", self.path("rebooted").display()))),
            ("WJ_BOOT_CHECK", OsString::from(BOOT_CHECK)),
            ("WJ_UPDATE_STATE", self.path("update-state").into_os_string()),
            ("WJ_RELEASE_FILE", self.path("release").into_os_string()),
        ]
    }

    fn run(&self, args: &[&str]) -> (bool, String, String) {
        run_script(BACKEND, args, self.env())
    }

    fn ok(&self, args: &[&str]) -> String {
        run_script_ok(BACKEND, args, self.env())
    }

    fn trial(&self) -> Option<String> {
        fs::read_to_string(self.path("auto/wordjudge-trial")).ok()
    }

    /// A boot as the card does it: the firmware's choice, then the early trial unit.
    /// Returns the slot running once it settled, and whether it asked for a reboot.
    fn power_on(&self) -> (String, bool) {
        let _ = fs::remove_file(self.path("rebooted"));
        self.firmware_boot();
        self.ok(&["boot-attempt"]);
        (self.booted(), self.path("rebooted").exists())
    }

    /// RAUC's install into B, from A: bad before it is written, then primary.
    fn install_b(&self) {
        self.ok(&["set-state", "B", "bad"]);
        self.ok(&["set-primary", "B"]);
    }
}

#[test]
fn an_update_is_tried_once_then_kept_only_when_marked_good() {
    let c = Card::new();
    assert_eq!(c.ok(&["get-current"]), "A");
    assert_eq!(c.ok(&["get-primary"]), "A");
    assert_eq!(c.ok(&["get-state", "B"]), "good");
    assert_eq!(c.power_on(), ("A".to_string(), false), "no trial: nothing happens at boot");

    c.ok(&["set-state", "B", "bad"]);
    assert_eq!(c.ok(&["get-state", "B"]), "bad");
    assert_eq!(c.boot_partition("[all]"), "2", "marking the other slot bad leaves A the default");
    c.ok(&["set-primary", "B"]);
    // Slot B's own boot files on partition 3, its root on every command line.
    for f in BOOT_FILES {
        let text = c.read(&format!("boot-B/{f}"));
        if f.starts_with("cmdline") {
            assert_eq!(text, "console=tty1 console=ttyS1,115200 root=PARTLABEL=wjroot-b rauc.slot=B ro quiet\n", "{f}");
        } else {
            assert_eq!(text, format!("{f} of slot B"));
        }
    }
    assert_eq!(c.read("boot-A/vmlinuz"), "vmlinuz of slot A", "slot A's partition is not touched");
    assert_eq!(c.boot_partition("[all]"), "3", "the firmware boots B next");
    assert_eq!(c.trial().as_deref(), Some("slot=B\nfallback=A\nboots=0\n"));
    assert_eq!(c.ok(&["get-primary"]), "B", "the next boot is B's trial");

    // The trial boot: the early unit spends the one try; the boot check marks B good.
    assert_eq!(c.power_on(), ("B".to_string(), false));
    assert_eq!(c.trial().as_deref(), Some("slot=B\nfallback=A\nboots=1\n"));
    assert_eq!(c.ok(&["get-primary"]), "A", "without mark-good the boot after this one is A again");
    c.ok(&["set-state", "B", "good"]);
    assert_eq!(c.boot_partition("[all]"), "3");
    assert_eq!(c.boot_partition("[tryboot]"), "2");
    assert_eq!(c.trial(), None);
    assert_eq!(c.ok(&["get-primary"]), "B");
    assert_eq!(c.ok(&["get-state", "B"]), "good");
    assert_eq!(c.power_on(), ("B".to_string(), false), "B boots from now on");

    // The next update goes into A, from B, the same way.
    c.ok(&["set-state", "A", "bad"]);
    c.ok(&["set-primary", "A"]);
    assert_eq!(
        c.read("boot-A/cmdline-pi5.txt"),
        "console=tty1 console=ttyS1,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n"
    );
    assert_eq!(c.trial().as_deref(), Some("slot=A\nfallback=B\nboots=0\n"));
    assert_eq!(c.power_on(), ("A".to_string(), false));
}

#[test]
fn a_trial_that_the_boot_check_fails_goes_back_to_the_previous_slot() {
    let c = Card::new();
    c.install_b();
    assert_eq!(c.power_on(), ("B".to_string(), false));
    // The boot check: the kiosk never got READY; `rauc status mark-bad booted`, reboot.
    c.ok(&["set-state", "B", "bad"]);
    assert_eq!(c.boot_partition("[all]"), "2");
    assert_eq!(c.trial(), None);
    assert_eq!(c.ok(&["get-primary"]), "A");
    assert_eq!(c.power_on(), ("A".to_string(), false));
    assert_eq!(c.ok(&["get-state", "B"]), "bad");
}

#[test]
fn a_try_that_ends_without_mark_good_is_rolled_back_at_the_next_boot() {
    // A kernel panic (panic=10), the watchdog, a power cut or a hang during B's one try:
    // nothing ran after the early unit. The firmware boots B again; the unit finds the
    // try spent, marks B bad, points autoboot.txt at A and reboots.
    let c = Card::new();
    c.install_b();
    c.write("release", "VERSION=0.2.0\nARCH=arm64\n");
    assert_eq!(c.power_on(), ("B".to_string(), false));
    assert_eq!(c.read("update-state/boot-check"), "", "nothing to record yet");
    assert_eq!(c.power_on(), ("B".to_string(), true), "the second boot of B on trial asks for a reboot");
    // What the director is told (the kiosk on A turns it into audit update_outcome).
    assert_eq!(
        c.read("update-state/boot-check"),
        "slot=B\nversion=0.2.0\noutcome=rolled-back\ndetail=its one try ended before it was marked good \
         (a kernel panic, the watchdog, a power cut or a hang)\n"
    );
    assert_eq!(c.boot_partition("[all]"), "2");
    assert_eq!(c.ok(&["get-state", "B"]), "bad");
    assert_eq!(c.trial(), None);
    assert_eq!(c.power_on(), ("A".to_string(), false), "and A boots, with nothing pending");
}

#[test]
fn a_trial_a_power_cut_left_half_written_is_dropped() {
    // The trial file was written, the power went before autoboot.txt changed: A boots.
    let c = Card::new();
    c.ok(&["set-state", "B", "bad"]);
    c.write("auto/wordjudge-trial", "slot=B\nfallback=A\nboots=0\n");
    assert_eq!(c.power_on(), ("A".to_string(), false));
    assert_eq!(c.trial(), None, "the trial that never started is gone");
    assert_eq!(c.boot_partition("[all]"), "2");
    assert_eq!(c.ok(&["get-primary"]), "A");
}

#[test]
fn set_primary_of_the_running_slot_keeps_it_and_cancels_a_pending_trial() {
    let c = Card::new();
    c.install_b();
    assert_eq!(c.boot_partition("[all]"), "3");
    c.ok(&["set-primary", "A"]);
    assert_eq!(c.trial(), None, "`rauc status mark-active booted` cancels the trial");
    assert_eq!(c.boot_partition("[all]"), "2");
    assert_eq!(c.power_on(), ("A".to_string(), false));
}

#[test]
fn marking_the_running_default_bad_falls_back_only_to_a_good_slot_with_boot_files() {
    let c = Card::new();
    // B was never installed (partition 3 empty): A stays the default even when marked bad.
    c.ok(&["set-state", "A", "bad"]);
    assert_eq!(c.boot_partition("[all]"), "2");
    // With B installed and good, marking A bad hands the card to B.
    c.ok(&["set-state", "A", "good"]);
    c.ok(&["set-primary", "B"]);
    c.ok(&["set-primary", "A"]);
    c.ok(&["set-state", "A", "bad"]);
    assert_eq!(c.boot_partition("[all]"), "3");
}

#[test]
fn refuses_what_it_cannot_do_and_changes_nothing() {
    let c = Card::new();
    let autoboot = c.read("auto/autoboot.txt");
    for args in [&["set-primary", "C"][..], &["get-state", ""], &["set-state", "B", "maybe"], &["reboot"], &[]] {
        let (ok, _, err) = c.run(args);
        assert!(!ok, "{args:?} must fail");
        assert!(err.starts_with("rauc-pi-tryboot: "), "{args:?}: a message that names the back-end: {err}");
    }
    // A slot without its initrd is never made bootable.
    fs::remove_file(c.path("slot-B/boot/firmware/initrd.img")).unwrap();
    let (ok, _, err) = c.run(&["set-primary", "B"]);
    assert!(!ok && err.contains("has no /boot/firmware/initrd.img"), "{err}");
    assert_eq!(c.trial(), None, "no trial of a slot without its boot files");
    assert_eq!(c.read("auto/autoboot.txt"), autoboot);
    // A command line that does not name one root: refused too.
    c.write("slot-B/boot/firmware/initrd.img", "initrd");
    c.write("slot-B/boot/firmware/cmdline-pi5.txt", "console=tty1 root=/dev/mmcblk0p2 ro\n");
    let (ok, _, err) = c.run(&["set-primary", "B"]);
    assert!(!ok && err.contains("cmdline-pi5.txt does not name one root and slot"), "{err}");
    assert_eq!(c.trial(), None);
    assert_eq!(c.read("auto/autoboot.txt"), autoboot);
    // No rauc.slot= (booted some other way): no current slot.
    c.write("proc-cmdline", "root=/dev/mmcblk0p2 ro\n");
    let (ok, _, err) = c.run(&["get-current"]);
    assert!(!ok && err.contains("no rauc.slot="), "{err}");
    // An autoboot.txt that boots no slot of ours.
    c.write("auto/autoboot.txt", "[all]\nboot_partition=5\n");
    let (ok, _, err) = c.run(&["get-primary"]);
    assert!(!ok && err.contains("not a wordjudge slot"), "{err}");
}
