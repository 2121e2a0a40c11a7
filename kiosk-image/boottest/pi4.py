"""The Raspberry Pi card on QEMU's Pi 4 board model (qemu-system-aarch64 -M raspi4b, QEMU
>= 9): the card's own U-Boot (rpi_arm64) and Pi 4 device tree, read from its boot
partition, and the card itself as the SD card; U-Boot's script chooses the root slot from
the card's counter and loads that slot's kernel and initrd from the SD card, as on a Pi 4.
What -M virt cannot show: the Pi's own boot loader build, Debian's kernel on the BCM2711's
own devices (its SD host, the bcm2711 GPIO pinctrl, the BCM2835 watchdog, which is what
resets the board after a kernel panic), the device tree the firmware would load, and the
card's root.

The board model has no HDMI and no USB: the kiosk finds no DRM device and must stay out
of service calmly (one audit record, the service lamp, the watchdog fed, no restarts)
instead of crash-looping. The screen, keys and USB sticks are checked on -M virt.

The model does not run the Pi firmware, so QEMU starts what the firmware would (config.txt's
kernel=, U-Boot) with the command line the firmware would put in the device tree
(cmdline-pi4.txt: pifirmware), changed only as
TEST_CMDLINE lists: among them a debug shell on the PL011 UART (systemd.debug_shell, the
test's only way in: the board has no virtio port for the guest agent). The test's copy of
the device tree disables exactly the nodes listed in NOT_EMULATED, each with its reason;
the card's own tree is not touched. Before those edits, the overlays config.txt applies on a
Pi 4 without the 7" panel are applied as the firmware would (pifirmware.firmware_overlays,
fdtoverlay), and the mmc aliases then point at the controller QEMU wires the card to
(QEMU_SD_ALIASES).

What the model showed, and what the test does about it (NOT_EMULATED, TEST_CMDLINE):
  * QEMU wires the SD card to the BCM2711's older EMMC controller (mmc@7e300000, which
    a Pi 4 uses for Wi-Fi SDIO), through its GPIO model's SD bus, never to emmc2
    (hw/arm/bcm2838_peripherals.c: "sdbus-sdhci" is the base SoC's sdhci). With that
    controller's Wi-Fi power sequence dropped, the card is /dev/mmcblk0 or mmcblk1 and
    root mounts from it. emmc2 (sdhci-iproc), which a real Pi 4 reads the card with,
    probes but has no card here.
  * Opening the mini UART (ttyS1, the card's Pi 4 console) soft-locks the kernel in
    serial8250_do_startup in two runs of three: the test's console is the PL011.
  * systemd arming the BCM2835 watchdog resets the model at once (QEMU's power-management
    block treats the watchdog's reset configuration as an immediate reset): the test
    turns systemd's runtime watchdog off and checks the device and the card's setting.
"""
import os
import re
import socket
import subprocess
import time

from . import common, pifirmware
from .common import WJ_CONFIG, check, host_tool, log
from .gpio import wire_gpio_command
from .vm import JsonSocket, SerialConsole

PI4_DTB = "bcm2711-rpi-4-b.dtb"
OUT_OF_SERVICE = b"WORDJUDGE OUT OF SERVICE"

# (node, property, reason): set to status "disabled" (property "status") or deleted.
NOT_EMULATED = [
    ("/soc/interrupt-controller@7ef00100", "status",
     "the HDMI block's interrupt controller (brcm,bcm2711-l2-intc): raspi4b has no HDMI, and "
     "touching its registers ends the kernel with an external abort"),
    ("/soc/hdmi@7ef00700", "status", "HDMI0: not emulated"),
    ("/soc/hdmi@7ef05700", "status", "HDMI1: not emulated"),
    ("/soc/i2c@7ef04500", "status", "HDMI0's DDC I2C bus: part of the HDMI block"),
    ("/soc/i2c@7ef09500", "status", "HDMI1's DDC I2C bus: part of the HDMI block"),
    ("/soc/clock@7ef00000", "status", "the HDMI block's DVP clock: part of the HDMI block"),
    ("/soc/serial@7e201000/bluetooth", "status",
     "the Bluetooth chip on UART0: not emulated; with it the PL011 is a serdev bus, not the "
     "tty the test's shell runs on"),
    ("/emmc2-bus@fe000000/mmc@7e340000", "vqmmc-supply",
     "emmc2's I/O voltage regulator is driven through the firmware's GPIO expander, which "
     "is not emulated: the SD controller would wait for it for ever"),
    ("/emmc2-bus@fe000000/mmc@7e340000", "vmmc-supply", "emmc2's card power: the same expander"),
    ("/soc/mmc@7e300000", "mmc-pwrseq",
     "QEMU puts the SD card on this controller (the Pi 4's Wi-Fi SDIO), not on emmc2; its Wi-Fi "
     "power sequence's reset line is on the firmware's GPIO expander, which is not emulated, so "
     "the controller would wait for it for ever"),
]


# What the test changes on the card's Pi 4 command line (cmdline-pi4.txt), each with its
# reason: (what, how, reason).
TEST_CMDLINE = [
    ("console=ttyS1,115200", "console=ttyAMA0,115200",
     "the console on the PL011 instead of the mini UART: opening QEMU's mini UART model "
     "soft-locks the kernel in serial8250_do_startup (an interrupt that never clears) in "
     "two runs of three; the PL011 is also where the test's shell is"),
    ("", "systemd.watchdog_sec=0",
     "systemd's runtime watchdog off: QEMU's BCM2835 power-management model treats the "
     "watchdog's reset configuration as an immediate reset, so arming it restarts the board"),
    ("", "systemd.debug_shell=ttyAMA0", "a root shell on the PL011: the model has no virtio "
     "port for the guest agent, and this is the test's only way in"),
    ("", "systemd.default_device_timeout_sec=300",
     "devices get 300 s to appear instead of 90: with the boards beside the PC's boot test, "
     "the data partition's device appeared 82 s into user space in one run and after 90 s in "
     "the next, whose data mounts then failed"),
]


def test_cmdline(card_cmdline):
    """The card's Pi 4 command line with TEST_CMDLINE applied."""
    cmdline = card_cmdline
    for what, how, _ in TEST_CMDLINE:
        if what:
            if what not in cmdline:
                raise RuntimeError(f"{what!r} is not on the card's command line: {card_cmdline!r}")
            cmdline = cmdline.replace(what, how)
        else:
            cmdline += " " + how
    return cmdline


def sd_card(img, dest):
    """A copy of the card IMG for a board model's SD slot: QEMU's SD card model takes only
    power-of-two sizes, so the copy is grown to the next one; the partitions stay as
    built (the kernel notes that the GPT's backup is not at the end)."""
    subprocess.run(["cp", "--sparse=always", img, dest], check=True)
    os.truncate(dest, 1 << (os.path.getsize(dest) - 1).bit_length())
    return dest


def from_card(img, name, dest):
    """Copies NAME from the card's boot partition (pifirmware), with mtools: nothing is
    mounted."""
    return pifirmware.boot_file(img, name, dest)


# Where QEMU's model wires the SD card, set in the test's tree after the card's overlays
# (alias, path, reason).
QEMU_SD_ALIASES = [
    ("mmc0", "/soc/mmc@7e300000",
     "the card's wordjudge-sd-mmc0 overlay makes emmc2 (a Pi 4's SD card) mmc 0, where U-Boot "
     "reads uboot.env; QEMU wires the card to the older controller, so mmc 0 is that one here"),
    ("mmc1", "/emmc2-bus@fe000000/mmc@7e340000", "emmc2, which has no card in the model"),
]


def test_dtb(img, card_dtb, dest):
    """The test's copy of the card's Pi 4 tree as the firmware would hand it over (the
    overlays config.txt applies on a Pi 4 without the 7" panel, with fdtoverlay), then with
    NOT_EMULATED and QEMU_SD_ALIASES applied (fdtput). Returns (dest, overlays applied)."""
    config = (pifirmware.fat_read(img, pifirmware.boot_partition(img), "config.txt") or b"").decode(errors="replace")
    files = pifirmware.fat_files(img, pifirmware.boot_partition(img))
    wanted = pifirmware.firmware_overlays(config, "pi4", False, files)
    if wanted["missing"] or wanted["dtparams"]:
        raise RuntimeError(f"the Pi 4's config.txt: missing overlays {wanted['missing']}, dtparams {wanted['dtparams']}"
                           " (the test applies overlays without parameters only)")
    subprocess.run(["cp", card_dtb, dest], check=True)
    for overlay, params in wanted["overlays"]:
        if params:
            raise RuntimeError(f"{overlay} has parameters ({params}): not emulated")
        dtbo = pifirmware.boot_file(img, overlay, dest + "." + os.path.basename(overlay))
        subprocess.run(["fdtoverlay", "-i", dest, "-o", dest, dtbo], check=True, capture_output=True)
    for alias, path, _ in QEMU_SD_ALIASES:
        subprocess.run(["fdtput", "-t", "s", dest, "/aliases", alias, path], check=True, capture_output=True)
    for node, prop, _ in NOT_EMULATED:
        if prop == "status":
            cmd = ["fdtput", "-t", "s", dest, node, "status", "disabled"]
        else:
            cmd = ["fdtput", "-d", dest, node, prop]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return dest, [o for o, _ in wanted["overlays"]]


class PiBoard(SerialConsole):
    """One run of the card on a Pi board model (MACHINE: raspi4b, raspi3b): the kernel's
    console and a root shell on the PL011 (ttyAMA0), over a unix socket and logged to a
    file; U-Boot's console (the mini UART) in another; QMP for the power cut."""

    def __init__(self, sd, uboot, dtb, cmdline, tag, machine="raspi4b", label="Pi 4 board"):
        w = common.WORK
        self.tag, self.label = tag, label
        self.console = os.path.join(w, f"console-{tag}.log")
        self.uboot_log = os.path.join(w, f"uboot-{tag}.log")
        self.mbox_log = os.path.join(w, f"qemu-{tag}-mbox.log")
        self.shell_path = os.path.join(w, f"{tag}-shell.sock")
        self.qmp_path = os.path.join(w, f"{tag}-qmp.sock")
        for p in (self.console, self.uboot_log, self.mbox_log, self.shell_path, self.qmp_path):
            if os.path.exists(p):
                os.unlink(p)
        # One host thread for the board's four cores (tcg,thread=single): with a thread
        # each, the cores U-Boot parks spin, and on this 2-core host two boards side by
        # side read the card at 0.3 MiB/s instead of 3.
        cmd = ["qemu-system-aarch64", "-M", machine, "-accel", "tcg,thread=single",
               "-kernel", uboot, "-dtb", dtb,
               "-append", cmdline,
               "-drive", f"file={sd},if=sd,format=raw,cache=unsafe",
               "-display", "none",
               # serial 0 is the PL011 (ttyAMA0): the console and the shell, everything it
               # sends also logged to the console file; serial 1, the mini UART: U-Boot's
               # console once it has relocated, logged (the kernel does not use it:
               # TEST_CMDLINE says why)
               "-chardev", f"socket,id=shell,path={self.shell_path},server=on,wait=off,logfile={self.console}",
               "-serial", "chardev:shell", "-chardev", f"file,id=uboot,path={self.uboot_log}", "-serial", "chardev:uboot",
               "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
               # Every firmware property the kernel asks the model's mailbox for (QEMU's
               # trace event; tryboot_on_board reads them here)
               "-trace", f"enable=bcm2835_mbox_property,file={self.mbox_log}"]
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=open(os.path.join(w, f"qemu-{tag}.log"), "wb"), stderr=subprocess.STDOUT)
        self.qmp = JsonSocket(self.qmp_path)
        self.qmp.recv(10)
        self.qmp.call("qmp_capabilities")
        self.shell = None
        self.buf = b""

    def _read_until(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.buf, re.S)
            if m:
                self.buf = self.buf[m.end():]
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {pattern!r} from the {self.tag} shell; last: {self.buf[-300:]!r}")
            self.shell.settimeout(min(left, 1.0))
            try:
                chunk = self.shell.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise EOFError(f"the {self.tag} shell closed")
            self.buf += chunk

    def sh(self, command, timeout=120):
        """Runs COMMAND in the debug shell; returns (exit status, output)."""
        if self.shell is None:
            self.shell = socket.socket(socket.AF_UNIX)
            self.shell.connect(self.shell_path)
            # The shell starts early in boot; ask until it answers, then stop its echo.
            deadline = time.monotonic() + 300
            while True:
                self.shell.sendall(b"\nstty -echo; echo @@HI$((6*7))\n")
                try:
                    self._read_until(rb"@@HI42", 5)
                    break
                except TimeoutError:
                    if time.monotonic() > deadline:
                        raise
        self.shell.sendall(f"echo @@S; ( {command} ) 2>&1; echo \"@@E $?\"\n".encode())
        m = self._read_until(rb"@@S\r?\n(.*?)@@E (\d+)\r?\n", timeout)
        return int(m.group(2)), m.group(1).decode(errors="replace").replace("\r", "").strip()

    def slots(self):
        """What U-Boot's script chose at each start so far, from its console, the mini UART
        (pifirmware.uboot_choices)."""
        try:
            with open(self.uboot_log, "rb") as f:
                return pifirmware.uboot_choices(f.read())
        except OSError:
            return []

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.shell:
            self.shell.close()


KIOSK_STATE = ("ActiveState", "SubState", "NRestarts", "MainPID", "StatusText")


def kiosk_state(board, tries=4):
    """The kiosk unit's state as systemd sees it. The shell shares ttyAMA0 with the
    kernel's and systemd's console, so a line can come back cut by a message printed at
    the same moment: read again until every property is there, whole."""
    state = {}
    for attempt in range(tries):
        rc, out = board.sh("systemctl show wordjudge " + " ".join("-p " + k for k in KIOSK_STATE))
        state = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
        if all(k in state for k in KIOSK_STATE) and state["MainPID"].isdigit() and state["NRestarts"].isdigit():
            return state
        log(f"Pi 4 board: kiosk state read {attempt + 1} came back cut ({sorted(state)}); reading again")
        time.sleep(2)
    return state


def gpio_on_bcm2711(board):
    """The cdev backend on the SoC's own GPIO: [gpio] wired, the kiosk restarted (still out
    of service, so the service lamp is lit), the lines read back through the character
    device (gpioinfo: held by wordjudge, direction) and the lamp levels from the kernel."""
    rc, chips = board.sh("gpiodetect")
    check("Pi 4 board: the bcm2711 GPIO chip is there (gpiodetect)", "pinctrl-bcm2711" in chips, chips.replace("\n", " | "))
    table = ["judge_button = { bcm = 17 }", "green_lamp = { bcm = 22, active_low = false }",
             "red_lamp = { bcm = 27, active_low = false }", "service_lamp = { bcm = 23, active_low = false }"]
    before = board.console_text().count(OUT_OF_SERVICE)
    board.sh(wire_gpio_command(table))
    again = board.wait_console(OUT_OF_SERVICE, count=before + 1, timeout=180)
    rc, desc = board.sh("journalctl -b -u wordjudge -o cat --no-pager | grep -E 'GPIO|config problem' | tail -n2")
    # gpioinfo (libgpiod 2) takes the chip's name (gpiochipN), not its label.
    rc, info = board.sh("gpioinfo -c $(gpiodetect | awk '/\\[pinctrl-bcm2711\\]/{print $1}') 17 22 23 27")
    held = {n: (f'"GPIO{n}"' in info or f"GPIO{n}" in info) for n in (17, 22, 23, 27)}
    rows = {n: next((l for l in info.splitlines() if f"GPIO{n}\"" in l or f"GPIO{n} " in l), "") for n in (17, 22, 23, 27)}
    claimed = all('consumer="wordjudge"' in rows[n] or "wordjudge" in rows[n] for n in rows)
    directions = "input" in rows[17] and all("output" in rows[n] for n in (22, 23, 27))
    check("Pi 4 board: the kiosk claims the wiring's lines on the bcm2711 chip (gpioinfo: button input, lamps output, consumer wordjudge)",
          again and all(held.values()) and claimed and directions, info.replace("\n", " | ")[-400:] + " || " + desc.replace("\n", " | "))
    rc, dbg = board.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
                       "grep -E 'GPIO(22|23|27) ' /sys/kernel/debug/gpio")
    level = {n: next((("hi" if " hi" in l else "lo") for l in dbg.splitlines() if f"GPIO{n} " in l), "?") for n in (22, 23, 27)}
    check("Pi 4 board: out of service lights the service lamp only (kernel's line levels)",
          level == {22: "lo", 23: "hi", 27: "lo"}, f"{level} | {dbg}".replace("\n", " | ")[-300:])
    # The wiring stays: nothing after this needs the kiosk, and the card is the test's copy.


def after_panic_install(board, versions):
    """The card the -M virt run left right after the director installed the release whose
    kernel panics (update.update_panic), powered on here with no key pressed: U-Boot spends
    that slot's one try, its kernel panics and resets the board (the BCM2835 watchdog
    driver, loaded from the initrd), U-Boot finds no try left and boots the previous slot,
    where the boot check records the rollback once and takes the slot out of the order."""
    slots = board.slots()
    panics = board.console_text().count(b"Kernel panic")
    rc, state = board.sh("cat /proc/cmdline; sed -n 's/^VERSION=//p' /etc/wordjudge-release; "
                         "fw_printenv BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT")
    check(f"{board.label}, hands off after the install: U-Boot tried the new slot A once (its try spent before its "
          "kernel ran), the kernel panicked and reset the board, U-Boot booted slot B",
          [s for s, _, _ in slots] == ["A", "B"] and slots[0][1] == "0" and panics >= 1
          and "rauc.slot=B" in state and versions["good"] in state.split(),
          f"U-Boot's choices (slot, tries left A, B): {slots}; kernel panics on the console: {panics}; "
          f"{state.split()[-5:]}")
    # The boot check records the rollback first and then takes the slot out of U-Boot's
    # order (rauc status mark-bad other), so the kiosk's record can come before the order
    # changes: wait for both, then look once more.
    deadline = time.monotonic() + 240
    out = order = ""
    while time.monotonic() < deadline:
        rc, out = board.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -F '\"event\":\"update_outcome\"'")
        rc, order = board.sh("fw_printenv BOOT_ORDER")
        if "rolled-back" in out and versions["panic"] in out and "BOOT_ORDER=B" in order.split():
            break
        time.sleep(5)
    outcomes = [l for l in out.splitlines() if versions["panic"] in l]
    rc, order = board.sh("fw_printenv BOOT_ORDER; journalctl -b -t wordjudge-boot-check -o cat --no-pager | head -n3")
    check(f"{board.label}: the rollback is recorded once (audit update_outcome rolled-back, release {versions['panic']}) "
          "and slot A is out of U-Boot's order",
          len(outcomes) == 1 and "rolled-back" in outcomes[0] and "BOOT_ORDER=B" in order.split(),
          f"{outcomes[-1][-200:] if outcomes else 'no update_outcome for it'}; {order.replace(chr(10), ' | ')[-300:]}")
    rc, verify = board.sh(f"{WJ_CONFIG} audit verify >/dev/null 2>&1; echo rc=$?")
    check(f"{board.label}: the audit log verifies after the rollback", verify.strip().endswith("rc=0"), verify[-80:])


def tryboot_on_board(board):
    """The Pi 5's one-shot try (kiosk-image/pi-boot/tryboot) on the BCM2711 model: the
    module loads on the card's kernel, finds the firmware through the mainline driver, and
    its write reaches the firmware's mailbox as the set-reboot-flags property (tag
    0x00038064). The model answers that tag without acting on it; its mailbox trace
    (bcm2835_mbox_property) is how the test sees it arrive; what the Pi 5's
    bootloader then does with the flag is not emulated here (pifirmware)."""
    p = "/sys/module/wordjudge_tryboot/parameters/tryboot"
    rc, out = board.sh(f"modprobe wordjudge_tryboot; stat -c mode=%a {p}; "
                       f"runuser -u wordjudge -- sh -c 'echo 1 >{p}' 2>/dev/null; echo kiosk_user_rc=$?; "
                       f"echo 1 >{p}; echo rc=$?; dmesg | grep -o 'wordjudge_tryboot: .*' | tail -n1; echo 0 >{p}")
    try:
        with open(board.mbox_log, errors="replace") as f:
            sent = f.read().count("tag:0x00038064")
    except OSError:
        sent = 0
    check("Pi 4 board: the tryboot module loads on the card's kernel and root's write reaches the firmware's mailbox as "
          "set-reboot-flags (tag 0x00038064, twice: set and cleared); the kiosk's user cannot write it (mode 600)",
          "rc=0" in out and "the next boot reads tryboot.txt, once" in out and sent == 2
          and "mode=600" in out and "kiosk_user_rc=0" not in out,
          f"{out.replace(chr(10), ' | ')}; the model saw the tag {sent} times")
    rc, out = board.sh("journalctl -b -t wordjudge-boot-check --no-pager -o cat | grep '^bootloader:'")
    check("Pi 4 board: the boot check records the bootloader the device tree names (the model's tree names none)",
          out.startswith("bootloader: none named in the device tree"), out)


def pi4_board(img, rollback=None):
    """Boots the card on -M raspi4b; see the module's doc. ROLLBACK (the bundles' versions):
    IMG is the card right after the install of the release whose kernel panics, and the
    board first shows the rollback (after_panic_install). (A second boot after a hard stop,
    for audit verify, was dropped for CI's time: the virt boots check that on the same
    kernel and filesystem.)"""
    qemu = host_tool("qemu-system-aarch64")
    machines = subprocess.run([qemu, "-M", "help"], capture_output=True, text=True).stdout if qemu else ""
    if "raspi4b" not in machines:
        check("Pi 4 board model (qemu-system-aarch64 -M raspi4b, QEMU >= 9) is installed", False,
              "test-boot.sh installs it from the host's backports; see docs/architecture.md, \"The boot test\"")
        return
    w = common.WORK
    sd = sd_card(img, os.path.join(w, "pi4-sd.img"))
    uboot = pifirmware.firmware_kernel(img, os.path.join(w, "pi4-u-boot.bin"))
    card_dtb = from_card(img, PI4_DTB, os.path.join(w, "card-" + PI4_DTB))
    cmdline = test_cmdline(pifirmware.firmware_cmdline(img))
    for what, how, reason in TEST_CMDLINE:
        log(f"Pi 4 test command line: {what + ' -> ' if what else '+ '}{how}: {reason}")
    dtb, overlays = test_dtb(img, card_dtb, os.path.join(w, "test-" + PI4_DTB))
    log(f"Pi 4 test tree: the card's tree with the overlays its config.txt applies without a panel: {overlays}")
    for alias, path, reason in QEMU_SD_ALIASES:
        log(f"Pi 4 test tree: alias {alias} = {path}: {reason}")
    for node, prop, reason in NOT_EMULATED:
        log(f"Pi 4 test tree: {node} {'disabled' if prop == 'status' else 'without ' + prop}: {reason}")

    board = PiBoard(sd, uboot, dtb, cmdline, "pi4-boot1")
    try:
        # Through U-Boot, each slot's kernel and initrd come over the model's SD host at
        # under 1 MB/s (about 100 s a slot); a rollback boots two slots.
        limit = 1800 if rollback else 1200
        t = board.wait_console(OUT_OF_SERVICE, timeout=limit)
        if not check("Pi 4 board: the card boots (its U-Boot, the slot's kernel and initrd, the Pi 4 tree) and the kiosk "
                     "reports out of service: no screen",
                     t, f"{t:.0f} s after power-on" if t else f"no OUT OF SERVICE line within {limit} s"):
            print(board.console_text()[-3000:].decode(errors="replace"))
            return
        try:
            with open(board.uboot_log, "rb") as f:
                uboot = f.read()
        except OSError:
            uboot = b""
        starts = uboot.count(b"Loading Environment from FAT")
        check("Pi 4 board: U-Boot reads its environment (uboot.env) from mmc 0, the SD card's controller by the card's "
              "overlay, at every start: no countdown (bootdelay=0)",
              starts and uboot.count(b"Loading Environment from FAT... OK") == starts
              and uboot.count(b"Hit any key to stop autoboot:  0") == starts,
              f"{starts} starts; " + " | ".join(l.decode(errors="replace").strip() for l in uboot.splitlines()
                                                if b"Environment" in l or b"autoboot" in l or b"Unable to" in l)[:600])
        if rollback:
            after_panic_install(board, rollback)
        line = [l for l in board.console_text().splitlines() if OUT_OF_SERVICE in l][-1].decode(errors="replace")
        log(f"Pi 4 console: {line.strip()}")
        rc, out = board.sh("findmnt -no SOURCE,OPTIONS /; findmnt -no SOURCE,OPTIONS /data; ls /dev/dri 2>&1 | head -n1")
        rows = out.splitlines() + ["", "", ""]
        check("Pi 4 board: root read-only from the SD card (mmcblk)", rows[0].startswith("/dev/mmcblk") and " ro," in rows[0] + ",",
              rows[0])
        check("Pi 4 board: the data partition is mounted read-write from the SD card", rows[1].startswith("/dev/mmcblk") and " rw," in rows[1],
              rows[1])
        first = kiosk_state(board)
        time.sleep(25)  # longer than WatchdogSec=10s: a kiosk that stopped pinging would be restarted
        later = kiosk_state(board)
        calm = (later.get("ActiveState") == "active" and later.get("NRestarts") == "0"
                and later.get("MainPID") == first.get("MainPID") and "no screen" in later.get("StatusText", ""))
        # What was compared comes first: a long status line must not hide it.
        detail = (f"ActiveState {later.get('ActiveState')}, NRestarts {first.get('NRestarts')} -> {later.get('NRestarts')}, "
                  f"MainPID {first.get('MainPID')} -> {later.get('MainPID')}, /dev/dri: {rows[2]}")
        if not calm:
            rc, why = board.sh("journalctl -b -u wordjudge -o short-monotonic --no-pager "
                               "| grep -iE 'watchdog|changed|exited|killed|start' | tail -n 6")
            detail += " | journal: " + why.replace("\n", " | ")[:900]
        check("Pi 4 board: no DRM device -> the kiosk stays out of service calmly (active, same process, no restarts, watchdog fed)",
              calm, detail + f" | status: {later.get('StatusText', '')[:100]}")
        # This boot's records only: the card may come from the -M virt runs, where a kiosk
        # that started before udev had given the render node its group (a slow boot under
        # TCG) records its own display_problem and starts again once the devices change.
        rc, out = board.sh(f"b=$(cat /proc/sys/kernel/random/boot_id); "
                           f"{WJ_CONFIG} audit export --format jsonl 2>/dev/null | grep display_problem | grep -c \"$b\"")
        check("Pi 4 board: the missing screen is one audit record (display_problem) in this boot", out.strip() == "1", out)
        rc, out = board.sh("cat /sys/class/watchdog/watchdog0/identity 2>&1; "
                           "systemctl show -p RuntimeWatchdogUSec; systemd-analyze cat-config systemd/system.conf | grep RuntimeWatchdogSec")
        check("Pi 4 board: the BCM2835 watchdog is there for systemd (bcm2835-wdt as watchdog0; the card sets "
              "RuntimeWatchdogSec; this test turns it off: TEST_CMDLINE)",
              "BCM2835" in out.upper() and "RuntimeWatchdogSec=" in out, out.replace("\n", " | "))
        gpio_on_bcm2711(board)
        tryboot_on_board(board)
        rc, out = board.sh("systemd-analyze time --no-pager; systemd-analyze critical-chain wordjudge.service --no-pager")
        with open(os.path.join(w, "critical-chain-pi4.txt"), "w") as f:
            f.write(out + "\n")
        log("Pi 4 board: systemd-analyze time and critical-chain wordjudge.service:\n" + out)
    finally:
        board.kill()

