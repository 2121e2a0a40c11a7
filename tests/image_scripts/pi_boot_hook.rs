//! The Raspberry Pi card's kernel hook (`kiosk-image/pi-boot/wordjudge-pi-boot`),
//! run on small trees this test writes: which kernel the boot partition gets
//! as kernels come and go, in both Debian layouts (trixie's 6.12: /boot and
//! /usr/lib/linux-image-*; trixie-backports' 7.x: /usr/lib/modules/*). The
//! image build also runs it for real, installing and removing a second
//! kernel (kiosk-image/customize.sh).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const HOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/pi-boot/wordjudge-pi-boot");
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kiosk-image/pi-boot/config.txt");

fn write(path: PathBuf, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A tree with the hook's inputs: its config.txt, U-Boot and its script, and the shared
/// command line.
fn tree() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write(root.path().join("usr/share/wordjudge/pi-boot/config.txt"), &fs::read_to_string(CONFIG).unwrap());
    write(root.path().join("usr/share/wordjudge/pi-boot/boot.scr"), "the A/B script");
    write(root.path().join("usr/lib/u-boot/rpi_arm64/u-boot.bin"), "U-Boot");
    write(root.path().join("etc/kernel/cmdline"), "ro quiet");
    write(root.path().join("usr/lib/raspi-firmware/start4.elf"), "firmware");
    root
}

/// trixie's layout: image in /boot, trees in /usr/lib/linux-image-V/broadcom.
fn old_layout_kernel(root: &Path, v: &str) {
    write(root.join(format!("boot/vmlinuz-{v}")), &format!("kernel {v}"));
    fs::create_dir_all(root.join(format!("usr/lib/modules/{v}/kernel"))).unwrap();
    for dtb in ["bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb", "bcm2711-rpi-cm4-io.dtb", "bcm2711-rpi-old-only.dtb"] {
        write(root.join(format!("usr/lib/linux-image-{v}/broadcom/{dtb}")), &format!("{dtb} of {v}"));
    }
}

/// trixie-backports' layout: image and trees under /usr/lib/modules/V.
fn new_layout_kernel(root: &Path, v: &str) {
    write(root.join(format!("usr/lib/modules/{v}/vmlinuz")), &format!("kernel {v}"));
    for dtb in [
        "bcm2711-rpi-4-b.dtb",
        "bcm2711-rpi-400.dtb",
        "bcm2711-rpi-cm4-io.dtb",
        "bcm2712-rpi-5-b.dtb",
        "bcm2712-d-rpi-5-b.dtb",
        "bcm2837-rpi-3-b.dtb",
        "bcm2837-rpi-3-b-plus.dtb",
        "bcm2837-rpi-3-a-plus.dtb",
        "bcm2837-rpi-cm3-io3.dtb",
        "bcm2837-rpi-zero-2-w.dtb",
        "bcm2837-rpi-2-b.dtb",
    ] {
        write(root.join(format!("usr/lib/modules/{v}/dtb/broadcom/{dtb}")), &format!("{dtb} of {v}"));
    }
}

fn initrd(root: &Path, v: &str) {
    write(root.join(format!("boot/initrd.img-{v}")), &format!("initrd {v}"));
}

/// Runs the hook on ROOT; the kernel command line it sees is ROOT/proc-cmdline (absent:
/// a build machine, not a station).
fn run_hook(root: &Path) -> (bool, String) {
    let out = Command::new("sh")
        .arg(HOOK)
        .env("WJ_PI_BOOT_ROOT", root)
        .env("WJ_PROC_CMDLINE", root.join("proc-cmdline"))
        .output()
        .expect("run sh");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn boot(root: &Path, name: &str) -> Option<String> {
    fs::read_to_string(root.join("boot/firmware").join(name)).ok()
}

#[test]
fn a_kernel_update_moves_every_boot_file_to_the_newest_kernel_with_an_initrd() {
    let t = tree();
    let r = t.path();
    old_layout_kernel(r, "6.12.117+deb13-arm64");
    initrd(r, "6.12.117+deb13-arm64");
    let (ok, log) = run_hook(r);
    assert!(ok, "{log}");
    assert_eq!(boot(r, "wordjudge-boot.txt").as_deref(), Some("kernel=6.12.117+deb13-arm64\n"));
    assert_eq!(boot(r, "vmlinuz").as_deref(), Some("kernel 6.12.117+deb13-arm64"));
    assert_eq!(
        boot(r, "bcm2711-rpi-old-only.dtb").as_deref(),
        Some("bcm2711-rpi-old-only.dtb of 6.12.117+deb13-arm64")
    );
    assert_eq!(boot(r, "start4.elf").as_deref(), Some("firmware"));

    // The update's kernel is unpacked before its initrd is made: nothing moves yet.
    new_layout_kernel(r, "7.3.4+deb13-arm64");
    let (ok, log) = run_hook(r);
    assert!(ok, "{log}");
    assert!(log.contains("7.3.4+deb13-arm64 has no initrd"), "{log}");
    assert_eq!(boot(r, "vmlinuz").as_deref(), Some("kernel 6.12.117+deb13-arm64"));
    assert_eq!(boot(r, "initrd.img").as_deref(), Some("initrd 6.12.117+deb13-arm64"));

    // Its initrd made (initramfs-tools' post-update hook): every file is the new kernel's.
    initrd(r, "7.3.4+deb13-arm64");
    let (ok, log) = run_hook(r);
    assert!(ok, "{log}");
    assert_eq!(boot(r, "wordjudge-boot.txt").as_deref(), Some("kernel=7.3.4+deb13-arm64\n"));
    assert_eq!(boot(r, "vmlinuz").as_deref(), Some("kernel 7.3.4+deb13-arm64"));
    assert_eq!(boot(r, "initrd.img").as_deref(), Some("initrd 7.3.4+deb13-arm64"));
    assert_eq!(boot(r, "bcm2711-rpi-4-b.dtb").as_deref(), Some("bcm2711-rpi-4-b.dtb of 7.3.4+deb13-arm64"));
    assert_eq!(boot(r, "bcm2712-rpi-5-b.dtb").as_deref(), Some("bcm2712-rpi-5-b.dtb of 7.3.4+deb13-arm64"));
    // The D0 Pi 5 tree also under the name its firmware looks for.
    assert_eq!(boot(r, "bcm2712d0-rpi-5-b.dtb").as_deref(), Some("bcm2712-d-rpi-5-b.dtb of 7.3.4+deb13-arm64"));
    assert_eq!(boot(r, "bcm2711-rpi-old-only.dtb"), None, "a tree the new kernel does not ship is gone");
    // The Pi 3 family's trees (3 B, 3 B+, 3 A+, CM3, Zero 2 W); not the Pi 2 B's, which
    // the card does not boot.
    for dtb in [
        "bcm2837-rpi-3-b.dtb",
        "bcm2837-rpi-3-b-plus.dtb",
        "bcm2837-rpi-3-a-plus.dtb",
        "bcm2837-rpi-cm3-io3.dtb",
        "bcm2837-rpi-zero-2-w.dtb",
    ] {
        assert_eq!(boot(r, dtb), Some(format!("{dtb} of 7.3.4+deb13-arm64")), "{dtb}");
    }
    assert_eq!(boot(r, "bcm2837-rpi-2-b.dtb"), None);
    let pi3 = boot(r, "cmdline-pi3.txt").unwrap();
    let cm3 = boot(r, "cmdline-cm3.txt").unwrap();
    let pi4 = boot(r, "cmdline-pi4.txt").unwrap();
    let pi5 = boot(r, "cmdline-pi5.txt").unwrap();
    // Slot A's root (the image build; no slot running).
    assert!(pi3.ends_with("console=ttyS1,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n"), "{pi3}");
    assert!(cm3.ends_with("console=ttyAMA0,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n"), "{cm3}");
    assert!(pi4.ends_with("console=ttyS1,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n"), "{pi4}");
    assert!(pi5.ends_with("console=ttyAMA10,115200 root=PARTLABEL=wjroot-a rauc.slot=A ro quiet\n"), "{pi5}");
    let config = boot(r, "config.txt").unwrap();
    // The Pi 3 and Pi 4 families' firmware starts U-Boot, whose script loads the slot's
    // kernel and initrd; the Pi 5's loads them itself from the slot's folder.
    let (before_pi5, pi5_section) = config.split_once("\n[pi5]\n").expect("a [pi5] section");
    let pi5_section = pi5_section.split("\n[").next().unwrap();
    assert!(before_pi5.contains("\nkernel=u-boot.bin\n") && !before_pi5.contains("initramfs "), "{config}");
    for line in ["kernel=vmlinuz", "initramfs initrd.img followkernel", "os_prefix=wordjudge-a/", "cmdline=cmdline.txt"]
    {
        assert!(pi5_section.lines().any(|l| l == line), "[pi5] has {line}: {pi5_section}");
    }
    assert_eq!(config.matches("\nos_prefix=").count(), 1, "one os_prefix line, the one the update back-end rewrites");
    assert_eq!(boot(r, "u-boot.bin").as_deref(), Some("U-Boot"));
    assert_eq!(boot(r, "boot.scr").as_deref(), Some("the A/B script"));

    // The old kernel removed: nothing changes. The new one removed: back to the old.
    fs::remove_file(r.join("boot/vmlinuz-6.12.117+deb13-arm64")).unwrap();
    fs::remove_file(r.join("boot/initrd.img-6.12.117+deb13-arm64")).unwrap();
    let (ok, log) = run_hook(r);
    assert!(ok, "{log}");
    assert_eq!(boot(r, "vmlinuz").as_deref(), Some("kernel 7.3.4+deb13-arm64"));
    let leftovers: Vec<_> = fs::read_dir(r.join("boot/firmware"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn without_u_boot_or_its_script_nothing_is_written() {
    for missing in ["usr/lib/u-boot/rpi_arm64/u-boot.bin", "usr/share/wordjudge/pi-boot/boot.scr"] {
        let t = tree();
        let r = t.path();
        new_layout_kernel(r, "7.3.4+deb13-arm64");
        initrd(r, "7.3.4+deb13-arm64");
        fs::remove_file(r.join(missing)).unwrap();
        let (ok, log) = run_hook(r);
        assert!(!ok, "a card that cannot boot was written: {log}");
        assert!(log.contains(missing), "the message names what is missing: {log}");
        assert_eq!(boot(r, "vmlinuz"), None);
    }
}

#[test]
fn no_command_line_fails_and_leaves_the_partition_as_it_was() {
    let t = tree();
    let r = t.path();
    new_layout_kernel(r, "7.3.4+deb13-arm64");
    initrd(r, "7.3.4+deb13-arm64");
    write(r.join("boot/firmware/vmlinuz"), "the working kernel");
    fs::remove_file(r.join("etc/kernel/cmdline")).unwrap();
    let (ok, log) = run_hook(r);
    assert!(!ok, "the hook must fail without a command line: {log}");
    assert!(log.contains("etc/kernel/cmdline"), "{log}");
    assert_eq!(boot(r, "vmlinuz").as_deref(), Some("the working kernel"));
}

#[test]
fn with_no_complete_kernel_the_partition_is_left_alone() {
    let t = tree();
    let r = t.path();
    new_layout_kernel(r, "7.3.4+deb13-arm64");
    write(r.join("boot/firmware/vmlinuz"), "the working kernel");
    let (ok, log) = run_hook(r);
    assert!(ok, "{log}");
    assert!(log.contains("left as it is"), "{log}");
    assert_eq!(boot(r, "vmlinuz").as_deref(), Some("the working kernel"));
}

#[test]
fn the_command_lines_name_the_root_slot_that_is_running() {
    let t = tree();
    let r = t.path();
    new_layout_kernel(r, "7.3.4+deb13-arm64");
    initrd(r, "7.3.4+deb13-arm64");
    write(r.join("proc-cmdline"), "console=tty1 root=PARTLABEL=wjroot-b rauc.slot=B ro quiet\n");
    let (ok, log) = run_hook(r);
    assert!(ok, "{log}");
    for name in ["cmdline.txt", "cmdline-pi3.txt", "cmdline-cm3.txt", "cmdline-pi4.txt", "cmdline-pi5.txt"] {
        let line = boot(r, name).unwrap();
        assert!(line.contains(" root=PARTLABEL=wjroot-b rauc.slot=B ro quiet\n"), "{name}: {line}");
        assert_eq!(line.matches("root=").count(), 1, "{name}: one root: {line}");
    }
}
