"""The Raspberry Pi card on QEMU's Pi 3 board model (qemu-system-aarch64 -M raspi3b): the
Pi 3 family (3 B, 3 B+, 3 A+, CM3, Zero 2 W) boots the same card as the Pi 4
and Pi 5. QEMU starts what the Pi 3 firmware would (config.txt read for a Pi 3 B:
kernel=u-boot.bin, cmdline-pi3.txt, no overlays) with the card's bcm2837-rpi-3-b tree; the
card's own U-Boot reads its environment from the SD host (mmc 0), runs the A/B script from
the boot partition through the hybrid MBR's GPT, and loads the chosen slot's kernel and
initrd; the kernel mounts root from the SD host (the bcm2835 module in the initrd) and the kiosk, with
no screen, reports out of service, as on the Pi 4 model.

What the model cannot show: the Pi 3's boot ROM, bootcode.bin and start.elf (their part,
the hybrid MBR, the firmware files, the tree's name and config.txt's sections, is checked
statically: picard), HDMI (vc4), USB and the mini UART console (the same QEMU model as the
Pi 4's: the test's console is the PL011, as pi4.TEST_CMDLINE says).

It runs beside the Pi 4 model's run (start, then check), on its own copy of the card the
Pi 4 model gets: the one the -M virt runs left right after the director installed a
release whose kernel panics, so that the Pi 3 family's rollback with no hands is shown
too (pi4.after_panic_install), or the card as built. The two boards are mostly one busy
core each (U-Boot reads the card a block at a time), and CI's time is what this costs."""
import os
import subprocess

from . import common, pifirmware
from .common import check, log
from .pi4 import OUT_OF_SERVICE, PiBoard, after_panic_install, from_card, sd_card, test_cmdline

MODEL = "pi3"  # a Pi 3 Model B: what QEMU's raspi3b is
# (node, reason): set to status "disabled" in the test's copy of the tree.
NOT_EMULATED = [
    ("/soc/serial@7e201000/bluetooth",
     "the Bluetooth chip on the PL011: not emulated; with it the PL011 is a serdev bus, not the "
     "tty the test's console and shell run on"),
]


def start(img):
    """Powers a copy of the card IMG on on -M raspi3b; None if QEMU has no such model."""
    qemu = common.host_tool("qemu-system-aarch64")
    if not qemu or "raspi3b" not in subprocess.run([qemu, "-M", "help"], capture_output=True, text=True).stdout:
        check("Pi 3 board model (qemu-system-aarch64 -M raspi3b) is installed", False, "test-boot.sh installs QEMU >= 9")
        return None
    w = common.WORK
    sd = sd_card(img, os.path.join(w, "pi3-sd.img"))
    settings = pifirmware.firmware_settings(img, MODEL)
    if any(k in settings for k in ("dtoverlay", "dtparam", "initramfs")):
        raise RuntimeError(f"the Pi 3's config.txt asks for what this test does not emulate: {settings}")
    uboot = pifirmware.firmware_kernel(img, os.path.join(w, "pi3-u-boot.bin"), MODEL)
    tree_name = pifirmware.MODEL_TREES[MODEL]
    dtb = from_card(img, tree_name, os.path.join(w, "test-" + tree_name))
    for node, reason in NOT_EMULATED:
        subprocess.run(["fdtput", "-t", "s", dtb, node, "status", "disabled"], check=True, capture_output=True)
        log(f"Pi 3 test tree: {node} disabled: {reason}")
    cmdline = test_cmdline(pifirmware.firmware_cmdline(img, MODEL))
    log(f"Pi 3 board: {tree_name}, U-Boot {settings.get('kernel')}, command line {settings.get('cmdline')} "
        "(changed as the Pi 4's: pi4.TEST_CMDLINE)")
    return PiBoard(sd, uboot, dtb, cmdline, "pi3-boot1", machine="raspi3b", label="Pi 3 board")


def check_board(board, rollback=None):
    """What the Pi 3 run showed; then it is powered off. ROLLBACK (the bundles' versions):
    the card was the one the -M virt runs left right after the install of the release
    whose kernel panics, and the board shows the rollback first (pi4.after_panic_install),
    as the Pi 4 model does on its own copy."""
    if board is None:
        return
    try:
        limit = 1800 if rollback else 900
        t = board.wait_console(OUT_OF_SERVICE, timeout=limit)
        try:
            with open(board.uboot_log, "rb") as f:
                uboot = f.read()
        except OSError:
            uboot = b""
        if not check("Pi 3 board: the card as built boots on the Pi 3 model (its U-Boot, the A/B script through the "
                     "hybrid MBR's GPT, slot A's kernel and initrd, the Pi 3 B tree) and the kiosk reports out of "
                     "service: no screen", t, f"{t:.0f} s after power-on" if t else f"no OUT OF SERVICE line within {limit} s"):
            print(uboot[-1500:].decode(errors="replace"))
            print(board.console_text()[-3000:].decode(errors="replace"))
            return
        starts = uboot.count(b"Loading Environment from FAT")
        check("Pi 3 board: U-Boot numbers the SD host mmc 0 and reads its environment there at every start (no "
              "countdown)" + ("" if rollback else ", and its script boots slot A with its try spent before the kernel"),
              starts and uboot.count(b"mmc@7e202000: 0") == starts
              and uboot.count(b"Loading Environment from FAT... OK") == starts
              and uboot.count(b"Hit any key to stop autoboot:  0") == starts
              and (rollback or board.slots() == [("A", "2", "0")]),
              f"{starts} starts, choices {board.slots()}; " + " | ".join(
                  l.decode(errors="replace").strip() for l in uboot.splitlines()
                  if b"MMC:" in l or b"Environment" in l or b"autoboot" in l)[:500])
        if rollback:
            after_panic_install(board, rollback)
        rc, out = board.sh("tr -d '\\0' </proc/device-tree/model; echo; findmnt -no SOURCE,OPTIONS /; "
                           "findmnt -no SOURCE,OPTIONS /data; readlink -f /sys/class/block/$(findmnt -no SOURCE / "
                           "| sed 's|/dev/||')")
        rows = out.splitlines() + ["", "", "", ""]
        check("Pi 3 board: a Raspberry Pi 3 Model B, root read-only and data read-write from the SD card on the SD "
              "host (3f202000.mmc, the bcm2835 driver from the initrd)",
              rows[0].startswith("Raspberry Pi 3 Model B") and rows[1].startswith("/dev/mmcblk") and " ro," in rows[1] + ","
              and rows[2].startswith("/dev/mmcblk") and " rw," in rows[2] and "3f202000.mmc" in rows[3],
              " | ".join(rows[:4]))
        log(f"Pi 3 board: out of service {t:.0f} s after power-on (U-Boot, kernel and user space on QEMU TCG)")
    finally:
        board.kill()
