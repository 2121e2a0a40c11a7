//! The PC image's A/B switch (`kiosk-image/update/rauc-systemd-boot`, RAUC's custom
//! boot-loader back-end for systemd-boot), run against an EFI system partition, an
//! efivarfs and a kernel command line this test writes: the sequence RAUC drives
//! through an update (slot bad before it is written, tried once, marked good or
//! not), and the refusals. The real thing, on OVMF and a real ESP, is the amd64
//! boot test's update part (kiosk-image/boottest/update.py).

use std::ffi::OsString;
use std::fs;

use crate::script_run::{run_script, run_script_ok, scratch_station, Scratch};

const BACKEND: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/update/rauc-systemd-boot");
const ONESHOT: &str = "LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";

scratch_station!(Station);

impl Station {
    /// A station as built: slot A's entry and kernel on the ESP, A the default, booted A.
    fn new() -> Station {
        let s = Station { scratch: Scratch::new() };
        s.write("esp/loader/loader.conf", "default wordjudge-a.conf\ntimeout 0\neditor no\n");
        s.write("esp/loader/entries/wordjudge-a.conf", "title wordjudge (slot A)\n");
        fs::create_dir_all(s.path("efivars")).unwrap();
        s.boot("A");
        for slot in ["A", "B"] {
            s.write(&format!("slot-{slot}/boot/vmlinuz"), &format!("kernel of slot {slot}"));
            s.write(&format!("slot-{slot}/boot/initrd.img"), &format!("initrd of slot {slot}"));
            s.write(&format!("slot-{slot}/usr/lib/wordjudge/kernel-cmdline"), "ro quiet console=ttyS0,115200\n");
        }
        s
    }

    /// What systemd-boot would boot into next: the one-shot slot (consumed), else the default.
    fn boot(&self, slot: &str) {
        self.write("cmdline", &format!("root=PARTLABEL=wjroot-{} rauc.slot={slot} ro quiet\n", slot.to_lowercase()));
        let _ = fs::remove_file(self.path("efivars").join(ONESHOT));
    }

    /// The back-end's environment: its test hooks pointed at this test's files.
    fn env(&self) -> [(&'static str, OsString); 5] {
        [
            ("WJ_ESP", self.path("esp").into_os_string()),
            ("WJ_EFIVARS", self.path("efivars").into_os_string()),
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

    fn default_entry(&self) -> String {
        let conf = fs::read_to_string(self.path("esp/loader/loader.conf")).unwrap();
        let defaults: Vec<&str> = conf.lines().filter_map(|l| l.strip_prefix("default ")).collect();
        assert_eq!(defaults.len(), 1, "exactly one default line: {conf}");
        assert!(conf.contains("timeout 0\neditor no\n"), "the rest of loader.conf is kept: {conf}");
        defaults[0].to_string()
    }

    /// The one-shot variable as efivarfs holds it: 4 attribute bytes, then UTF-16LE with a NUL.
    fn oneshot(&self) -> Option<String> {
        let bytes = fs::read(self.path("efivars").join(ONESHOT)).ok()?;
        assert_eq!(&bytes[..4], &[7, 0, 0, 0], "non-volatile, boot service and run time access");
        let units: Vec<u16> = bytes[4..].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        assert_eq!(units.last(), Some(&0), "NUL-terminated");
        Some(String::from_utf16(&units[..units.len() - 1]).unwrap())
    }
}

#[test]
fn an_update_is_tried_once_then_kept_only_when_marked_good() {
    let s = Station::new();
    assert_eq!(s.ok(&["get-current"]), "A");
    assert_eq!(s.ok(&["get-primary"]), "A");
    assert_eq!(s.ok(&["get-state", "B"]), "good");

    // RAUC: the target slot is marked bad before it is written...
    s.ok(&["set-state", "B", "bad"]);
    assert_eq!(s.ok(&["get-state", "B"]), "bad");
    assert_eq!(s.default_entry(), "wordjudge-a.conf", "marking the other slot bad leaves A the default");
    // ...then made primary: its kernel goes to the ESP and it is tried once.
    s.ok(&["set-primary", "B"]);
    assert_eq!(s.read("esp/wordjudge-b/vmlinuz"), "kernel of slot B");
    assert_eq!(s.read("esp/wordjudge-b/initrd.img"), "initrd of slot B");
    let entry = s.read("esp/loader/entries/wordjudge-b.conf");
    assert!(entry.contains("linux /wordjudge-b/vmlinuz\ninitrd /wordjudge-b/initrd.img\n"), "{entry}");
    assert!(entry.contains("options root=PARTLABEL=wjroot-b rauc.slot=B ro quiet console=ttyS0,115200\n"), "{entry}");
    assert_eq!(s.oneshot().as_deref(), Some("wordjudge-b.conf"));
    assert_eq!(s.default_entry(), "wordjudge-a.conf", "A stays the default until B proves itself");
    assert_eq!(s.ok(&["get-primary"]), "B", "the next boot is B's trial");

    // The trial boot: systemd-boot spends the one-shot; the boot check marks B good.
    s.boot("B");
    assert_eq!(s.ok(&["get-primary"]), "A", "without mark-good the boot after this one is A again");
    s.ok(&["set-state", "B", "good"]);
    assert_eq!(s.default_entry(), "wordjudge-b.conf");
    assert_eq!(s.ok(&["get-primary"]), "B");
    assert_eq!(s.ok(&["get-state", "B"]), "good");
    assert!(s.oneshot().is_none());
}

#[test]
fn a_failed_trial_leaves_the_previous_slot_the_default() {
    let s = Station::new();
    s.ok(&["set-state", "B", "bad"]);
    s.ok(&["set-primary", "B"]);
    s.boot("B");
    // The boot check: the kiosk never got READY.
    s.ok(&["set-state", "B", "bad"]);
    assert_eq!(s.default_entry(), "wordjudge-a.conf");
    assert_eq!(s.ok(&["get-primary"]), "A");
    assert_eq!(s.ok(&["get-state", "B"]), "bad");
    assert!(s.oneshot().is_none());
    // A panic or a watchdog reset instead: the one-shot is spent, nothing ran: still A.
    let s = Station::new();
    s.ok(&["set-primary", "B"]);
    s.boot("B");
    s.boot(&s.ok(&["get-primary"]));
    assert_eq!(s.ok(&["get-current"]), "A");
}

#[test]
fn marking_the_running_default_bad_falls_back_only_to_a_good_slot_with_an_entry() {
    let s = Station::new();
    // B has no entry (never installed): A stays the default even when marked bad.
    s.ok(&["set-state", "A", "bad"]);
    assert_eq!(s.default_entry(), "wordjudge-a.conf");
    // With B installed and good, marking A bad hands the default to B.
    s.ok(&["set-state", "A", "good"]);
    s.ok(&["set-primary", "B"]);
    s.ok(&["set-state", "A", "bad"]);
    assert_eq!(s.default_entry(), "wordjudge-b.conf");
}

#[test]
fn set_primary_of_the_running_slot_makes_it_the_default_and_drops_a_pending_trial() {
    let s = Station::new();
    s.ok(&["set-primary", "B"]);
    assert_eq!(s.oneshot().as_deref(), Some("wordjudge-b.conf"));
    s.ok(&["set-primary", "A"]);
    assert!(s.oneshot().is_none(), "`rauc status mark-active booted` cancels the trial");
    assert_eq!(s.default_entry(), "wordjudge-a.conf");
}

#[test]
fn refuses_what_it_cannot_do_and_changes_nothing() {
    let s = Station::new();
    let conf = s.read("esp/loader/loader.conf");
    for args in [&["set-primary", "C"][..], &["get-state", ""], &["set-state", "B", "maybe"], &["reboot"], &[]] {
        let (ok, _, err) = s.run(args);
        assert!(!ok, "{args:?} must fail");
        assert!(err.starts_with("rauc-systemd-boot: "), "{args:?}: a message that names the back-end: {err}");
    }
    // A slot without a kernel is never made bootable.
    fs::remove_file(s.path("slot-B/boot/initrd.img")).unwrap();
    let (ok, _, err) = s.run(&["set-primary", "B"]);
    assert!(!ok && err.contains("has no /boot/initrd.img"), "{err}");
    assert!(s.oneshot().is_none(), "no trial of a slot without its kernel");
    assert_eq!(s.read("esp/loader/loader.conf"), conf);
    // No rauc.slot= (booted some other way): no current slot.
    s.write("cmdline", "root=/dev/sda2 ro\n");
    let (ok, _, err) = s.run(&["get-current"]);
    assert!(!ok && err.contains("no rauc.slot="), "{err}");
    // A loader.conf that names no slot of ours.
    s.write("esp/loader/loader.conf", "default other.conf\n");
    let (ok, _, err) = s.run(&["get-primary"]);
    assert!(!ok && err.contains("names no wordjudge slot"), "{err}");
}
