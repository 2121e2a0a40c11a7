"""The boot test in order, and run(), which reports the totals ("N passed, N failed") and
sets the exit status.

ARCH=amd64 (default): boots the PC image through UEFI (OVMF + systemd-boot) on
q35 with a standard VGA display (bochs-drm: /dev/dri/card0) and a USB 3 controller
(qemu-xhci, for the USB sticks).
ARCH=arm64: boots the Raspberry Pi card through U-Boot (qemu_arm64 as the machine's
firmware, running the card's own A/B script from its boot partition, with the card's
command line in the device tree: pifirmware) on qemu-system-aarch64 -M virt, with a virtio GPU (virtio-gpu DRM, for
Slint's linuxkms backend), a USB keyboard (on the qemu-xhci controller the
sticks also plug into), and the kernel command line the Pi gets with its serial
console renamed for the virt board (ttyAMA0).
Both: the serial port as console, QMP (the QEMU monitor, for sendkey/
screendump/quit) and the QEMU guest agent on unix sockets; then checks,
printing one line per check (see docs/architecture.md, "The boot test"); BOOT_TESTS=ci
(CI) leaves out the checks common.SCOPE names, BOOT_TESTS=full (the default) runs all:
  here:   verify-units.sh (systemd-analyze verify of the kiosk and USB stick units,
          sysusers, the polkit rule);
  boot 1: READY on the console with the station name; Ready screen navy; CAT -> the
          whole screen green; XYZZYQ -> red; DOG ZEBRA -> green; read-only root; the
          compiled word list and PIN hash on the data partition; no failed units;
          nothing listens off the loopback, the fleet uploader enabled but idle (fleet.py);
          Ctrl+Alt+Del / Alt+SysRq+B do not reboot; Ctrl+Alt+Del 10 times in a row,
          the Power and Sleep keys neither reboot nor sleep; Ctrl+Alt+F2 keeps the
          kiosk on screen; the display drivers the image claims load without
          unresolved symbols; the GPIO character-device backend against the
          kernel's gpio-sim (a simulated button press judges, the record says
          button, the lamp lines read back right); systemd-analyze verify in the
          image; critical-chain; kiosk SIGKILLed -> restarted;
          kiosk SIGSTOPped -> watchdog -> restarted; hard power-off (QMP quit) 50 ms
          after a challenge is judged;
  boot 2: READY again; `wordjudge audit verify` passes; boot 1's verdicts are in the
          audit log; the journal kept boot 1;
          (amd64) touch (touch.py): a virtual touchscreen hot-plugged, the kiosk restarted
          with its targets, a challenge tapped through libinput with a second finger and a
          pinch that type nothing, the director's corner, PIN pad and "Leave the menu"; unplugged;
          USB sticks (QMP hot-plug of image files as usb-storage; see usb.usb_stick): with
          ../shared/lexicons, a word in CSW15 but not NWL2018 (ZO) is green; a FAT32 stick
          holding NWL2018.txt gets WORDJUDGE_STICK=1 from udev; the menu's "Install lexicons
          from ..." (its USB stick page) lists it, installs it (journal, audit
          lexicon_installed Verified official, `lexicon list`), Esc ejects it (nothing left
          mounted before the pull); the menu's Lexicon page switches to NWL2018, confirmed
          (audit lexicon_switched), and the word turns red; a stick pulled mid-import
          fails cleanly (usb: failed, never listed, lexicons and mounts untouched, no
          temporary file, same kiosk process, audit usb_failed, audit verify passes) and
          CAT is still green; without the lists: "SKIPPED: USB import";
          always: "Export the audit log to ..." to an ext4 stick (usb: exported, ejected,
          audit export record), whose wordjudge/wordjudge-export-*/ folder, read on the
          host with debugfs, holds audit/, audit.csv, verify.txt, station-key.pub and
          checkpoint.txt and verifies with the host's `wordjudge audit verify --pubkey
          --checkpoint`; the kiosk restarted while that stick is attached (its unit
          started as root) keeps nothing of it in its mount namespace once the unit stops;
          (amd64) the event's fleet (fleet.py): the station joins with a fleet stick made
          and signed by `wordjudge fleet setup`/`sign` on the host, sends its journal to
          `wordjudge fleet serve` through the one address QEMU's restricted user network
          forwards, catches up after the laptop was down, sends nothing to a laptop of
          another CA, listens on nothing, and leaves;
          update bundles refused (another key, truncated, the other architecture, the
          stick pulled mid-install; update.py), then the director menu's "Set the clock"
          (timedated through polkit while timesyncd runs; kiosk.py) and its "Power off the
          station", confirmed (the sandboxed kiosk running systemctl through polkit),
          powers the VM off;
  boot 3 (amd64): the power is cut mid-install;
  boot 4: slot A boots with every challenge kept; (amd64) the kiosk SIGKILLed mid-install
          and the next one recording how RAUC ended it; (amd64) the data partition filled to
          its last block mid-install: failed, recorded, shown, still on A; the good bundle
          installs, the
          station reboots into slot B once, READY, the boot check marks it good, nothing
          lost, numbering continues; a bundle whose kiosk cannot start is tried once in
          slot A and the station is back on B by itself (update.py; on arm64 every start
          runs U-Boot's A/B script, which chooses the slot from the card's counter:
          pifirmware); (arm64) a release whose kernel panics before user space, installed
          from the director menu, and the station's own restart ends the -M virt run.
ARCH=arm64 leaves out what is the same code and units on both architectures and checked
on the PC: the keys, the kiosk killed and frozen, the power cut and boot 2 (sticks, refused
bundles, the menu's power-off), and the release whose kiosk cannot start; its boot 1 ends
with the tryboot module's refusal and a hard stop, and boot 4 follows.
ARCH=arm64 then checks the card itself: picard.py (the boot partition, config.txt per
model, the Pi 3 family's hybrid MBR, firmware and trees, both Pi 5 device trees and the
Pi 5 start as its C1 and D0 firmware reads config.txt, the initrd's modules, the RP1 GPIO
wiring), pi3.py (the same card as pi4.py's on QEMU's Pi 3
board model, -M raspi3b, beside it: U-Boot, the rollback with no hands, root from the SD
host, out of service with no screen) and pi4.py (that
card on QEMU's Pi 4 board model, -M raspi4b, through the card's own U-Boot, hands off:
the new slot's one try spent, its panic resetting the board, U-Boot back on the previous
slot, the rollback recorded once; then root from the SD card, the kiosk out of service
calmly with no screen, GPIO on the bcm2711 chip, the watchdog); then pi5.py (a fresh copy
of the card as the Pi 5 family starts it, on -M virt with its firmware emulated: no
U-Boot, a release whose kernel panics tried once from tryboot.txt, hands off back on
slot A, the rollback recorded once).
"""
import os
import shutil
import subprocess
import sys
import time

from . import common, pi3, pi5
from .common import ARCH, GREEN, HERE, NAVY, OVMF_VARS, READY, RED, T0, WJ, WJ_CONFIG, check, log
from .fleet import fleet_upload, nothing_listens
from .gpio import gpio_chardev
from .pi4 import pi4_board
from .picard import pi_card
from .kiosk import (director_sets_clock, display_drivers, escape_keys, kiosk_frozen, kiosk_killed, menu_choose,
                    menu_confirm, open_director_menu, reboot_keys)
from .screens import hexc, judge_and_check, near, ppm_to_png
from .touch import touch_checks
from .update import make_bundles, max_challenge, update_install, update_panic, update_power_cut, update_refusals
from .usb import usb_stick
from .vm import VM


def verify_units_here():
    """verify-units.sh: systemd-analyze verify and sysusers on the repo's systemd/ files."""
    p = subprocess.run(["bash", os.path.join(HERE, "verify-units.sh")], capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith(("PASS", "FAIL"))]
    check("verify-units.sh (systemd-analyze verify, sysusers) here", p.returncode == 0, " | ".join(lines) + p.stderr.strip())


# Where the guest writes systemd-analyze's boot time and critical chain (boot 1).
BOOT_CHAIN = "/run/wordjudge-boot-test-chain.txt"


def read_boot_chain(vm, timeout=180):
    """The boot time and critical chain the guest wrote to BOOT_CHAIN (started after the
    READY checks), waiting for it at most `timeout` seconds; "timeout" if it never came."""
    deadline = time.monotonic() + timeout
    while True:
        rc, out = vm.sh(f"cat {BOOT_CHAIN}")
        if rc == 0 or time.monotonic() > deadline:
            return out if rc == 0 else "timeout"
        time.sleep(5)


def main():
    work = common.WORK
    os.makedirs(work, exist_ok=True)
    verify_units_here()
    disk = os.path.join(work, "disk.img")
    subprocess.run(["cp", "--sparse=always", common.IMG, disk], check=True)
    if ARCH == "amd64":
        shutil.copy(OVMF_VARS, os.path.join(work, "OVMF_VARS.fd"))
    log(f"image {common.IMG}: {os.path.getsize(common.IMG) / 2**20:.0f} MiB; scratch copy in {work}")
    # The update bundles, made before any boot (their compression would slow a boot down).
    updates = None
    try:
        # BOOT_TESTS=ci leaves the Pi's update checks out (common.SCOPE): no bundles.
        updates = make_bundles() if common.FULL or ARCH == "amd64" else None
    except Exception as e:  # the other checks still run; the update ones are then failed
        check("update bundles built (build-bundle.sh)", False, f"{type(e).__name__}: {e}")

    # ---------------- boot 1 ----------------
    vm = VM(disk, "boot1")
    try:
        t, detail = vm.wait_ready("boot1")
        if not check("boot 1: kiosk READY on the serial console", t, detail):
            print(vm.console_text()[-3000:].decode(errors="replace"))
            return
        boot_ready = t
        line = [l for l in vm.console_text().splitlines() if READY in l][-1].decode(errors="replace")
        log(f"console: {line.strip()}")
        check("READY line names the station set at build time", "station=Boot test" in line, line.strip()[-90:])
        colour, share = vm.wait_screen(NAVY, "ready", timeout=10)
        check("Ready screen is navy", near(colour, NAVY), f"dominant {hexc(colour)} on {share:.0%}")
        judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE")
        judge_and_check(vm, ["XYZZYQ"], RED, "UNACCEPTABLE")
        judge_and_check(vm, ["DOG", "ZEBRA"], GREEN, "ACCEPTABLE")

        # systemd-analyze's critical chain asks systemd about every unit: under TCG on arm64
        # that takes about a minute (56 s with nothing beside it), more than vm.sh waits. So
        # it runs in the guest beside the checks below, once the boot has finished, and is
        # read after them (read_boot_chain).
        vm.sh_detached(f"systemctl is-system-running --wait >/dev/null; (systemd-analyze time --no-pager; "
                       f"systemd-analyze critical-chain wordjudge.service --no-pager) >{BOOT_CHAIN}.part 2>&1; "
                       f"mv {BOOT_CHAIN}.part {BOOT_CHAIN}")
        rc, out = vm.sh("journalctl -b -o short-monotonic -t wordjudge | grep -m1 'WORDJUDGE READY' | sed 's/^\\[ *\\([0-9.]*\\)\\].*/\\1/'")
        kernel_ready = out
        log(f"READY at {kernel_ready} s after the kernel started (systemd journal)")
        rc, out = vm.sh("findmnt -no OPTIONS /; findmnt -no SOURCE,OPTIONS /var/lib/wordjudge; touch /usr/x 2>&1; true")
        check("root filesystem is read-only, data partition writable", out.startswith("ro") and "Read-only" in out, out.replace("\n", " | "))
        want = os.environ.get("EXPECT_LEXICON", "DEMO")
        rc, out = vm.sh(f"{WJ} lexicon list 2>&1 | grep -w {want}; "
                        f"{WJ} config show 2>&1 | grep -c '^director_pin_hash = \"'")
        status = "Verified official" if want != "DEMO" else "Demo"
        check(f"active lexicon {want} is on the data partition ({status}); DIRECTOR_PIN_FILE hashed into config.toml",
              want in out and status.lower() in out.lower() and out.strip().endswith("1"), out.replace("\n", " | "))
        check(f"READY line names the active lexicon {want}", f"lexicon={want}" in line, line.strip()[-90:])
        rc, out = vm.sh("test -f /usr/share/zoneinfo/America/Toronto && echo zones=ok; readlink /etc/localtime")
        check("the time zone database is in the image (the director menu's time zone)", "zones=ok" in out,
              out.replace("\n", " | "))
        rc, out = vm.sh("systemctl --failed --no-legend --plain; systemctl is-system-running")
        check("no failed units", "failed" not in out.split("\n")[0] and out.strip().endswith("running"), out.replace("\n", " | "))
        nothing_listens(vm)
        display_drivers(vm)
        if ARCH == "amd64":
            # The keys, the kiosk killed and frozen, the power cut, the sticks, the
            # refused bundles and the menu's power-off are the same code and units on both
            # architectures: the PC checks them, and the Pi's run (CI's longest) goes on to
            # what only the Pi has, U-Boot's A/B, its card and its boards.
            reboot_keys(vm)
            escape_keys(vm)
        gpio_chardev(vm)
        rc, out = vm.sh("systemd-analyze verify wordjudge.service wordjudge-stick-import@sdz1.service "
                        "wordjudge-stick-export@sdz1.service 2>&1; echo rc=$?")
        check("systemd-analyze verify wordjudge.service and the USB stick units (in the image)", out.endswith("rc=0"),
              out.replace("\n", " | "))
        rc, out = vm.sh("systemd-analyze security wordjudge.service --no-pager | tail -n1")
        log(f"systemd-analyze security: {out}")
        out = read_boot_chain(vm)
        with open(os.path.join(work, f"critical-chain-{ARCH}.txt"), "w") as f:
            f.write(out + "\n")
        log("systemd-analyze time and critical-chain wordjudge.service:\n" + out)

        if ARCH == "arm64":
            # The Pi 5's tryboot module (kiosk-image/pi-boot/tryboot) on a board without the
            # Raspberry Pi firmware: it refuses to load rather than pretend to set a flag.
            rc, out = vm.sh("modprobe wordjudge_tryboot; echo rc=$?; test -e /sys/module/wordjudge_tryboot && echo loaded")
            check("tryboot module: refuses to load where there is no Raspberry Pi firmware (virt: No such device)",
                  "No such device" in out and "rc=1" in out and "loaded" not in out, out.replace("\n", " | "))
        else:
            kiosk_killed(vm)
            judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE after restart")
            kiosk_frozen(vm)

            rc, before = vm.sh(f"{WJ_CONFIG} audit show 2>/dev/null | wc -l")
            log(f"audit log lines before the power cut: {before}")
            judge_and_check(vm, ["ZEBRA"], GREEN, "ACCEPTABLE")
            vm.wait_screen(NAVY, "ready", timeout=15)
            vm.type_challenge("CAT")  # one more, not waited for
            time.sleep(1.5)
            vm.keys("esc")
            vm.wait_screen(NAVY, "ready", timeout=15)
            vm.type_challenge("DOG")
            time.sleep(0.05)
            vm.power_cut()
            log("power cut (QMP quit) 50 ms after TAB")
    finally:
        vm.kill()

    if ARCH == "amd64":
        # ---------------- boot 2 (the PC only: see boot 1) ----------------
        vm = VM(disk, "boot2")
        try:
            t, detail = vm.wait_ready("boot2")
            check("boot 2 after the power cut: kiosk READY", t, detail)
            rc, out = vm.sh(f"{WJ_CONFIG} audit verify 2>&1")
            check("wordjudge audit verify passes after the power cut", rc == 0, f"exit {rc}: {out[-300:]}".replace("\n", " | "))
            rc, out = vm.sh(f"{WJ_CONFIG} audit show 2>/dev/null")
            have = out.upper()
            check("audit log kept the verdicts of boot 1", all(w in have for w in ("CAT", "XYZZYQ", "ZEBRA")),
                  f"{len(out.splitlines())} lines")
            rc, out = vm.sh("journalctl --list-boots --no-pager | grep -cE '^ *-?[0-9]+ [0-9a-f]{32}'; journalctl -b -1 -t wordjudge --no-pager | grep -c 'WORDJUDGE READY'")
            n_boots, ready_prev = (out.split() + ["0", "0"])[:2]
            check("persistent journal on the data partition kept boot 1", int(n_boots) >= 2 and int(ready_prev) >= 1,
                  f"{n_boots} boots listed, {ready_prev} READY lines in boot -1")
            # Touch, on a touchscreen plugged for these checks only (touch.py).
            touch_checks(vm)
            # USB sticks from the director menu; it ends on the Ready screen with nothing plugged in.
            usb_stick(vm)
            if ARCH == "amd64":
                fleet_upload(vm, lambda words: judge_and_check(vm, words, GREEN, "ACCEPTABLE while in the fleet"))
            if updates:
                update_refusals(vm, updates[0], updates[2])
            # The clock, as a director sets it in a hall without network: two hours on, so
            # later boots' update certificates (made on the host) stay valid.
            director_sets_clock(vm)
            # Director menu (Ctrl+Alt+Shift+D, PIN), "Restart or power off", "Power off the
            # station", ENTER at its confirmation: the kiosk runs `systemctl poweroff` as user
            # wordjudge, inside its sandbox (polkit rule).
            open_director_menu(vm)
            vm.screen("director-menu")
            # The first page's last entry is Leave; "Restart or power off" is just above it
            # (with or without "USB stick" on the page).
            menu_choose(vm, -2)
            vm.screen("director-power-page")
            menu_choose(vm, 2)  # 0 Back, 1 Restart the station, 2 Power off the station
            vm.screen("director-poweroff-confirm")
            menu_confirm(vm)
            try:
                vm.proc.wait(timeout=90)
                off = True
            except subprocess.TimeoutExpired:
                off = False
                vm.screen("director-poweroff-failed")
            check("director menu powers the station off (systemctl as user wordjudge, polkit)", off, "VM powered off" if off else "still running after 90 s")
        finally:
            vm.kill()

    panicked = False
    if updates:
        bundles, versions, sticks = updates
        # ---------------- boot 3: the power is cut mid-install ----------------
        # The PC only: the cut hits RAUC writing a slot, the same on both (the Pi's back-end
        # runs only at the end), and the arm64 boot test is CI's longest step.
        # BOOT_TESTS=ci goes on to boot 4 with no cut (common.SCOPE).
        cut, before_cut = ARCH == "arm64" or not common.FULL, None
        if ARCH == "amd64" and common.FULL:
            vm = VM(disk, "boot3")
            try:
                t, detail = vm.wait_ready("boot3")
                check("boot 3: kiosk READY", t, detail)
                before_cut = max_challenge(vm)
                cut = t and update_power_cut(vm, sticks)
            finally:
                vm.kill()
        # ---------------- boot 4 and the reboots of two updates ----------------
        if cut:
            vm = VM(disk, "boot4")
            try:
                t, detail = vm.wait_ready("boot4")
                if check(f"boot 4{' (after the cut mid-install)' if before_cut is not None else ''}: kiosk READY", t, detail):
                    update_install(vm, bundles, versions, sticks, before_cut)
                    # The Pi: a kernel that never reaches user space, installed from the menu;
                    # the card then goes on on the Pi 4 board model, hands off.
                    panicked = ARCH == "arm64" and update_panic(vm, sticks, versions)
            finally:
                vm.kill()

    if ARCH == "arm64":
        # The card itself: what the Pi 3 and Pi 5 firmware and kernel need, checked in the
        # image (picard), then the card on the Pi 4 board model (pi4): the card the -M virt
        # runs left behind, its new slot about to panic, or the image as built; and the same
        # card on the Pi 3 board model (pi3).
        # The Pi 3 model boots its own copy of the same card beside the Pi 4's run.
        pi_card(common.IMG)
        card = disk if panicked else common.IMG
        pi3_run = pi3.start(card)
        try:
            pi4_board(card, rollback=versions if panicked else None)
        finally:
            pi3.check_board(pi3_run, rollback=versions if panicked else None)
        # The Pi 5 family's path (no U-Boot, the firmware's one-shot try) on -M virt with
        # its firmware emulated: a fresh copy of the card as built.
        if updates:
            pi5.pi5_rollback(common.IMG, updates[2], updates[1])

    firmware = "UEFI firmware included" if ARCH == "amd64" else "U-Boot included"
    summary = f"{ARCH} boot to READY: {boot_ready:.1f} s from power-on ({firmware}), {kernel_ready} s from kernel start"
    log(summary)
    with open(os.path.join(work, f"boot-times-{ARCH}.txt"), "w") as f:
        f.write(summary + "\n")


def run():
    """python3 -m boottest IMAGE [WORK]: main(), then the screendumps as PNG and the totals;
    exit 0 only if every check passed."""
    common.parse_args(sys.argv)
    try:
        main()
    except Exception as e:  # a crash is a failure, with what we know so far
        check("test ran to the end", False, f"{type(e).__name__}: {e}")
    for name in sorted(os.listdir(common.WORK)):
        if name.endswith(".ppm"):
            ppm_to_png(os.path.join(common.WORK, name))
    print(f"screendumps (PNG), console logs: {common.WORK}")
    for hang in common.HANGS:  # not a failure: each was reset once and the checks went on
        print(f"note: a boot hung after the firmware and was reset once (QEMU TCG): {hang[:400]}")
    passed = sum(ok for _, ok in common.results)
    failed = len(common.results) - passed
    # The failed checks again, last: CI shows a failed step's last lines, and a FAIL line
    # from half an hour earlier may be far above them.
    for name, ok in common.results:
        if not ok:
            print(f"failed: {name}")
    print(f"boot test: {time.monotonic() - T0:.0f} s")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not common.results else 0)
