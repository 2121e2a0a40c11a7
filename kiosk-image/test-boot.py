#!/usr/bin/env python3
"""Boot test of the wordjudge appliance image under QEMU (run by test-boot.sh).

ARCH=amd64 (default): boots the PC image through UEFI (OVMF + systemd-boot) on
q35 with a standard VGA display (bochs-drm: /dev/dri/card0) and a USB 3 controller
(qemu-xhci, for the USB sticks).
ARCH=arm64: boots the Raspberry Pi image's own kernel and initrd (its boot/
folder) on qemu-system-aarch64 -M virt, with a virtio GPU (virtio-gpu DRM, for
Slint's linuxkms backend), a USB keyboard (on the qemu-xhci controller the
sticks also plug into), and the kernel command line the Pi gets with its serial
console renamed for the virt board (ttyAMA0).
Both: the serial port as console, QMP (the QEMU monitor, for sendkey/
screendump/quit) and the QEMU guest agent on unix sockets; then checks,
printing one line per check (see README.md, "Boot test"):
  here:   verify-units.sh (systemd-analyze verify of the kiosk and USB stick units,
          sysusers, the polkit rule);
  boot 1: READY on the console with the station name; Ready screen navy; CAT -> the
          whole screen green; XYZZYQ -> red; DOG ZEBRA -> green; read-only root; the
          compiled word list and PIN hash on the data partition; no failed units;
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
          USB sticks (QMP hot-plug of image files as usb-storage; see usb_stick): with
          ../shared/lexicons, a word in CSW15 but not NWL2018 (ZO) is green; a FAT32 stick
          holding NWL2018.txt gets WORDJUDGE_STICK=1 from udev; the menu's "Install lexicons
          from USB" lists it, installs it (journal, audit lexicon_installed Verified
          official, `lexicon list`), Esc ejects it (nothing left mounted before the pull);
          the menu switches to NWL2018 (audit lexicon_switched) and the word turns red; a
          stick pulled mid-import fails cleanly (usb: failed, never listed, lexicons and
          mounts untouched, no temporary file, same kiosk process, audit usb_failed, audit
          verify passes) and CAT is still green; without the lists: "SKIPPED: USB import";
          always: "Export the audit log to USB" to an ext4 stick (usb: exported, ejected,
          audit export record), whose wordjudge/wordjudge-export-*/ folder, read on the
          host with debugfs, holds audit/, audit.csv, verify.txt, station-key.pub and
          checkpoint.txt and verifies with the host's `wordjudge audit verify --pubkey
          --checkpoint`; the kiosk restarted while that stick is attached (its unit
          started as root) keeps nothing of it in its mount namespace once the unit stops;
          the director menu's "Power off" (the sandboxed kiosk running systemctl through
          polkit) powers the VM off.
"""
import base64, glob, json, os, re, shlex, shutil, socket, subprocess, sys, time

IMG = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp/wordjudge-boot-test"
READY = b"WORDJUDGE READY"
GREEN, RED, NAVY = (0x1E, 0x7B, 0x34), (0xB0, 0x1C, 0x1C), (0x10, 0x18, 0x27)
# KVM where it works; this project's machines have only kvm-pvm, which cannot run
# ordinary guests (OVMF dies with "emulation failure"), so the default is TCG.
ACCEL = os.environ.get("ACCEL", "tcg")
ARCH = os.environ.get("ARCH", "amd64")
# Display drivers each image claims to support (kept by customize.sh).
# Key codes the guest's kernel must see from the Power and Sleep keys and the power button:
# KEY_POWER 116, KEY_SLEEP 142. QEMU's USB keyboard (arm64 virt has no PS/2) only has the
# HID keyboard page, which holds Power but not Sleep; the PC's PS/2 keyboard has both.
KEY_CODES_DELIVERED = {"amd64": ["116", "142"], "arm64": ["116"]}[ARCH]
DISPLAY_DRIVERS = {"amd64": ["i915", "amdgpu", "nouveau", "radeon"], "arm64": ["vc4", "v3d"]}[ARCH]
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
T0 = time.monotonic()
results = []


def log(msg):
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


def check(name, ok, detail=""):
    results.append((name, bool(ok)))
    log(f"{'PASS' if ok else 'FAIL'}: {name}{' -- ' + detail if detail else ''}")
    return ok


class JsonSocket:
    """Line-delimited JSON over a unix socket (QMP and the guest agent both speak it)."""

    def __init__(self, path, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.buf = b""

    def send(self, obj):
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def recv(self, timeout):
        self.sock.settimeout(timeout)
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("socket closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        line = line.strip(b"\xff").strip()
        return json.loads(line) if line else None

    def call(self, execute, timeout=30, **arguments):
        msg = {"execute": execute}
        if arguments:
            msg["arguments"] = arguments
        self.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            reply = self.recv(max(0.1, deadline - time.monotonic()))
            if reply and ("return" in reply or "error" in reply):
                if "error" in reply:
                    raise RuntimeError(f"{execute}: {reply['error']}")
                return reply["return"]


class VM:
    def __init__(self, disk, tag):
        self.tag = tag
        self.console = os.path.join(WORK, f"console-{tag}.log")
        self.qmp_path = os.path.join(WORK, "qmp.sock")
        self.qga_path = os.path.join(WORK, "qga.sock")
        for p in (self.qmp_path, self.qga_path, self.console):
            if os.path.exists(p):
                os.unlink(p)
        accel = ["-accel", "kvm", "-cpu", "host"] if ACCEL == "kvm" else ["-accel", "tcg"]
        if ARCH == "amd64":
            machine = ["qemu-system-x86_64", *accel, "-machine", "q35", "-smp", "2", "-m", "1024",
                       "-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                       "-drive", f"if=pflash,format=raw,file={os.path.join(WORK, 'OVMF_VARS.fd')}",
                       "-vga", "std",
                       # q35 has no USB controller: the USB sticks plug into this one (bus xhci.0).
                       "-device", "qemu-xhci,id=xhci"]
        else:
            if ACCEL != "kvm":
                accel += ["-cpu", "cortex-a72"]
            boot = os.path.join(os.path.dirname(os.path.abspath(IMG)), "boot")
            with open(os.path.join(boot, "cmdline")) as f:
                # The Pi's UART on GPIO 14/15 is ttyS1; the virt board's is the PL011, ttyAMA0.
                cmdline = f.read().strip().replace("console=ttyS1,", "console=ttyAMA0,")
            machine = ["qemu-system-aarch64", *accel, "-machine", "virt", "-smp", "2", "-m", "1024",
                       "-kernel", os.path.join(boot, "vmlinuz"), "-initrd", os.path.join(boot, "initrd.img"),
                       "-append", cmdline,
                       "-device", "virtio-gpu-pci", "-device", "qemu-xhci,id=xhci", "-device", "usb-kbd"]
        cmd = [*machine,
               "-drive", f"file={disk},format=raw,if=virtio,cache=unsafe",
               "-display", "none", "-nic", "none",
               "-serial", f"file:{self.console}",
               "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
               "-chardev", f"socket,path={self.qga_path},server=on,wait=off,id=qga0",
               "-device", "virtio-serial", "-device", "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0"]
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(os.path.join(WORK, f"qemu-{tag}.log"), "wb"),
                                     stderr=subprocess.STDOUT)
        self.qmp = JsonSocket(self.qmp_path)
        self.qmp.recv(10)  # greeting
        self.qmp.call("qmp_capabilities")
        self.qga = None
        self.plugged = []  # node names of USB sticks plugged in (plug/unplug)

    def console_text(self):
        with open(self.console, "rb") as f:
            return f.read()

    def wait_console(self, needle, count=1, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.console_text().count(needle) >= count:
                return time.monotonic() - self.started
            if self.proc.poll() is not None:
                return None
            time.sleep(0.2)
        return None

    def keys(self, *names, gap=0.08):
        for name in names:
            self.qmp.call("send-key", keys=[{"type": "qcode", "data": name}], **{"hold-time": 40})
            time.sleep(gap)

    def type_challenge(self, *words):
        self.keys(str(len(words)))
        time.sleep(0.3)
        for i, word in enumerate(words):
            if i:
                self.keys("spc")
            self.keys(*word.lower())
        self.keys("tab")

    def screen(self, name):
        path = os.path.join(WORK, f"{self.tag}-{name}.ppm")
        self.qmp.call("screendump", filename=path)
        return dominant(path)

    def wait_screen(self, want, name, timeout=15):
        deadline = time.monotonic() + timeout
        while True:
            colour, share = self.screen(name)
            if near(colour, want) or time.monotonic() > deadline:
                return colour, share
            time.sleep(0.25)

    def agent(self, timeout=180):
        """The guest agent's socket, once the agent answers (it starts with the guest's udev)."""
        if self.qga is None:
            self.qga = JsonSocket(self.qga_path)
        deadline = time.monotonic() + timeout
        sync_id = int(time.monotonic() * 1000) % 1000000
        while time.monotonic() < deadline:
            sync_id += 1
            self.qga.send({"execute": "guest-sync", "arguments": {"id": sync_id}})
            try:
                while True:  # replies to earlier syncs may still arrive: skip them
                    reply = self.qga.recv(3)
                    if reply and reply.get("return") == sync_id:
                        return self.qga
            except (socket.timeout, json.JSONDecodeError):
                pass
        raise RuntimeError("guest agent does not answer")

    def sh(self, script, timeout=60):
        """Runs a shell command in the guest as root; returns (exit code, stdout+stderr)."""
        qga = self.agent()
        pid = qga.call("guest-exec", path="/bin/sh", arg=["-c", script], **{"capture-output": True})["pid"]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = qga.call("guest-exec-status", pid=pid)
            if st.get("exited"):
                out = base64.b64decode(st.get("out-data", "")) + base64.b64decode(st.get("err-data", ""))
                return st.get("exitcode", -1), out.decode(errors="replace").strip()
            time.sleep(0.2)
        return -1, "timeout"

    def plug(self, node, image_path):
        """Hot-plugs the raw image file as a USB stick (usb-storage on the xhci controller)."""
        self.qmp.call("blockdev-add", driver="raw", file={"driver": "file", "filename": image_path},
                      **{"node-name": node})
        try:
            self.qmp.call("device_add", driver="usb-storage", id="usb-" + node, drive=node, bus="xhci.0",
                          removable=True)
        except Exception:
            self.qmp.call("blockdev-del", **{"node-name": node})
            raise
        self.plugged.append(node)

    def unplug(self, node, timeout=30):
        """Pulls the stick: device_del, waits until QEMU has removed the device (QMP events are
        skipped by JsonSocket.call, so this polls the peripherals), then frees the image file."""
        dev = "usb-" + node
        try:
            self.qmp.call("device_del", id=dev)
        except RuntimeError as e:
            if "not found" not in str(e).lower():
                raise
        deadline = time.monotonic() + timeout
        while any(p.get("name") == dev for p in self.qmp.call("qom-list", path="/machine/peripheral")):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{dev} still present {timeout} s after device_del")
            time.sleep(0.2)
        while True:
            try:
                self.qmp.call("blockdev-del", **{"node-name": node})
                break
            except RuntimeError as e:
                if "failed to find" in str(e).lower():
                    break
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        if node in self.plugged:
            self.plugged.remove(node)

    def power_cut(self):
        try:
            self.qmp.call("quit", timeout=5)
        except (EOFError, OSError, RuntimeError):
            pass
        self.proc.wait(timeout=10)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def dominant(ppm):
    """The most common colour of a binary PPM screendump, and its share of the pixels."""
    with open(ppm, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6", fields
    w, h = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + w * h * 3]
    counts = {}
    step = 3 * 7  # sample every 7th pixel: plenty for a full-screen background
    for i in range(0, len(pixels) - 2, step):
        key = pixels[i:i + 3]
        counts[key] = counts.get(key, 0) + 1
    best = max(counts, key=counts.get)
    return tuple(best), counts[best] / sum(counts.values())


def ppm_to_png(ppm):
    """Writes the screendump beside itself as PNG, for people to look at."""
    import struct, zlib
    with open(ppm, "rb") as f:
        data = f.read()
    head = data.split(maxsplit=3)
    w, h = int(head[1]), int(head[2])
    px = data[len(data) - w * h * 3:]
    raw = b"".join(b"\x00" + px[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    with open(ppm[:-4] + ".png", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def near(colour, want, tol=12):
    return all(abs(a - b) <= tol for a, b in zip(colour, want))


def hexc(c):
    return "#%02X%02X%02X" % c


def judge_and_check(vm, words, want, label):
    colour, _ = vm.wait_screen(NAVY, "ready", timeout=15)
    if not near(colour, NAVY):
        log(f"not on the Ready screen before {words} (dominant {hexc(colour)})")
    vm.type_challenge(*words)
    colour, share = vm.wait_screen(want, f"{label}-{'_'.join(words)}".replace(" ", "_"), timeout=8)
    ok = near(colour, want) and share > 0.5
    check(f"{' '.join(words)} -> {label} screen", ok, f"dominant {hexc(colour)} on {share:.0%} of the screen (want {hexc(want)})")
    time.sleep(0.6)  # the verdict ignores keys for verdict_guard_seconds (0.5), then any key goes home
    vm.keys("esc")
    return ok


def boot_state(vm):
    """(boot id, kiosk pid, whether the system is running)."""
    rc, out = vm.sh("cat /proc/sys/kernel/random/boot_id; systemctl show -P MainPID wordjudge; systemctl is-system-running")
    parts = out.split() + ["?", "?", "?"]
    return parts[0], parts[1], parts[2]


def escape_keys(vm):
    """Ctrl+Alt+Del 10 times within 2 s (systemd's burst would reboot), then the
    keyboard's Power and Sleep keys: the station neither reboots nor sleeps."""
    before = boot_state(vm)
    rc, since = vm.sh("date +%s")
    for _ in range(10):
        vm.qmp.call("send-key", keys=[{"type": "qcode", "data": k} for k in ("ctrl", "alt", "delete")], **{"hold-time": 20})
        time.sleep(0.08)
    time.sleep(3)
    after = boot_state(vm)
    check("Ctrl+Alt+Del 10 times in 1.5 s: no reboot, same kiosk (CtrlAltDelBurstAction=none)",
          after[0] == before[0] and after[1] == before[1],
          f"boot id kept: {after[0] == before[0]}, kiosk pid {before[1]} -> {after[1]}, system {after[2]}")
    # Record what the kernel delivers (every input device, as evdev events), to show the
    # keys really arrived; logind itself opens no button at all when every Handle*Key=
    # is "ignore" (manager_all_buttons_ignored), which is the strongest form of ignoring.
    vm.sh("for e in /dev/input/event*; do (timeout 25 cat $e > /run/keys-${e##*/} 2>/dev/null &); done; true")
    time.sleep(0.5)
    for key in ("power", "sleep"):
        vm.keys(key)
        time.sleep(3)
    # The board's own power button (ACPI on the PC, the virt board's PL061 line 3 through
    # gpio-keys on arm64): the same KEY_POWER, which logind is sure to watch.
    vm.qmp.call("system_powerdown")
    time.sleep(4)
    # struct input_event as 12 u16: type, code, value at 9, 10, 11; EV_KEY = 1, press = 1.
    rc, seen = vm.sh("for f in /run/keys-event*; do od -An -tu2 -w24 -v $f | awk '$9==1 && $11==1 {print $10}'; done | sort -un | tr '\\n' ' '")
    codes = seen.split()
    rc, pm = vm.sh(f"journalctl --since=@{since.strip()} -k --no-pager -o cat | grep -ciE 'PM: suspend entry|PM: hibernation' ; "
                   "busctl get-property org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager HandlePowerKey; "
                   "busctl get-property org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager HandleSuspendKey; "
                   "busctl get-property org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager HandleHibernateKey")
    after = boot_state(vm)
    lines = pm.split("\n")
    colour, share = vm.screen("after-power-sleep-keys")
    check("Power and Sleep keys and the power button arrive (evdev), and nothing powers off or sleeps (logind Handle*Key=ignore); kiosk on screen",
          after[0] == before[0] and after[1] == before[1] and lines[0].strip() == "0" and near(colour, NAVY)
          and all(code in codes for code in KEY_CODES_DELIVERED),
          f"key codes the kernel delivered: {' '.join(codes) or 'none'} (want {' '.join(KEY_CODES_DELIVERED)}: KEY_POWER 116, KEY_SLEEP 142); suspend entries {lines[0]}; "
          f"{' '.join(l.strip() for l in lines[1:])}; boot id kept: {after[0] == before[0]}; screen {hexc(colour)}")


def display_drivers(vm):
    """The display drivers the image claims load, with no unresolved symbol."""
    script = ("dmesg -C; fails=''; for m in " + " ".join(DISPLAY_DRIVERS) + "; do "
              "modprobe $m 2>&1 || fails=\"$fails $m\"; done; "
              "echo loaded: $(for m in " + " ".join(DISPLAY_DRIVERS) + "; do lsmod | grep -q \"^$m \" && echo $m; done); "
              "echo failed:$fails; echo unknown-symbols: $(dmesg | grep -c 'Unknown symbol')")
    rc, out = vm.sh(script, timeout=180)
    loaded = out.split("loaded:")[-1].split("\n")[0].split()
    ok = sorted(loaded) == sorted(DISPLAY_DRIVERS) and "unknown-symbols: 0" in out
    check(f"display drivers load without unresolved symbols: {' '.join(DISPLAY_DRIVERS)}", ok, out.replace("\n", " | ")[-400:])


GPIO_SIM = "/sys/kernel/config/gpio-sim/wordjudge"
GPIO_CONFIG = "/var/lib/wordjudge/config.toml"


def restart_with_gpio(vm, table):
    """Adds keys to the station config's [gpio] table (the kiosk writes one; a second
    table would be a broken config), keeping the file aside, and restarts the kiosk."""
    n_ready = vm.console_text().count(READY)
    lines = "\\n".join(table).replace('"', '\\"')
    vm.sh(f"cp -p {GPIO_CONFIG} /run/config.toml.before-gpio && printf \"{lines}\\n\" > /run/gpio-lines && "
          f"if grep -qx '\\[gpio\\]' {GPIO_CONFIG}; then sed -i '/^\\[gpio\\]$/r /run/gpio-lines' {GPIO_CONFIG}; "
          f"else printf '\\n[gpio]\\n' >> {GPIO_CONFIG}; cat /run/gpio-lines >> {GPIO_CONFIG}; fi; "
          "systemctl restart wordjudge")
    t = vm.wait_console(READY, count=n_ready + 1, timeout=90)
    rc, desc = vm.sh("journalctl -b -u wordjudge --no-pager -o cat | grep -E 'judge button and lamps:|config problem' | tail -n1")
    return t, desc


def restore_config(vm):
    n_ready = vm.console_text().count(READY)
    vm.sh(f"cp -p /run/config.toml.before-gpio {GPIO_CONFIG} && systemctl restart wordjudge")
    vm.wait_console(READY, count=n_ready + 1, timeout=90)


def gpio_chardev(vm):
    """The GPIO character-device backend, end to end, on a real kernel GPIO chip.

    Debian's 6.1 kernels are built without gpio-sim and gpio-mockup (CONFIG_GPIO_SIM and
    CONFIG_GPIO_MOCKUP are not set), so where gpio-sim is missing the nearest real thing
    is used: on arm64, the virt board's PL061 GPIO controller (kernel driver pl061, the
    same gpiolib and character device as the Pi's pinctrl-bcm2711). Its line 3 is wired
    by QEMU to the board's power button: QMP system_powerdown pulses it high for 100 ms,
    a real edge with a kernel interrupt. gpio-keys is unbound from it first, lines 0-2
    become the lamps, and the kernel reads their levels back (debugfs /sys/kernel/debug/gpio).
    The PC has no GPIO chip at all: there the check is that a wired [gpio] on a machine
    without one leaves the kiosk judging and says why."""
    rc, how = vm.sh("if modprobe gpio-sim 2>/dev/null; then echo gpio-sim; "
                    "else ls -d /sys/bus/amba/devices/*pl061 /sys/bus/platform/devices/*pl061 2>/dev/null | head -n1 | grep . || echo none; fi")
    how = how.strip()
    if how == "gpio-sim":
        gpio_sim(vm)
    elif how.endswith("pl061"):
        gpio_pl061(vm, how)
    else:
        t, desc = restart_with_gpio(vm, ["judge_button = { bcm = 17 }", "green_lamp = { bcm = 22 }"])
        ok = judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE (keyboard) with [gpio] wired and no GPIO chip")
        check("no GPIO chip on this machine (no gpio-sim, no PL061): [gpio] wired -> kiosk judges from the keyboard and says why",
              t and ok and "no GPIO chip" in desc, desc[-160:])
        restore_config(vm)


def debugfs_levels(vm, chip, offsets):
    """Levels ('hi'/'lo') of requested lines, as the kernel reads them from the chip."""
    rc, out = vm.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; cat /sys/kernel/debug/gpio")
    levels, base, inside = {}, None, False
    for line in out.splitlines():
        if line.startswith("gpiochip"):
            inside = line.startswith(chip + ":")
            if inside:
                base = int(line.split("GPIOs ")[1].split("-")[0])
        elif inside and line.strip().startswith("gpio-"):
            num = int(line.strip().split()[0][5:])
            levels[num - base] = line.split()[-1] if line.split()[-1] in ("hi", "lo") else line.split()[-2]
    return [levels.get(o, "?") for o in offsets]


def gpio_press_and_read(vm, words, want, label, press, lamps):
    """Types the challenge without TAB, presses the judge button with `press`, and
    returns (verdict colour right, lamp levels during the verdict, lamp levels after)."""
    vm.wait_screen(NAVY, "gpio-ready", timeout=15)
    vm.keys(str(len(words)))
    time.sleep(0.3)
    for i, word in enumerate(words):
        if i:
            vm.keys("spc")
        vm.keys(*word.lower())
    time.sleep(0.5)
    press()
    colour, share = vm.wait_screen(want, f"gpio-{label}", timeout=10)
    during = lamps()
    time.sleep(0.6)
    vm.keys("esc")
    vm.wait_screen(NAVY, "gpio-ready", timeout=15)
    time.sleep(0.3)
    return near(colour, want), during, lamps()


def gpio_pl061(vm, device):
    rc, chip = vm.sh(f"ls {device}/ | grep -m1 '^gpiochip'")
    device = os.path.basename(device)
    chip = chip.strip()
    vm.sh("for d in /sys/bus/platform/drivers/gpio-keys/*/; do [ -e \"$d/driver\" ] || continue; "
          "echo $(basename $d) > /sys/bus/platform/drivers/gpio-keys/unbind; done; true")
    t, desc = restart_with_gpio(vm, [f'chip = "/dev/{chip}"', "judge_button = { bcm = 3, active_low = false, pull = \"none\" }",
                                     "green_lamp = { bcm = 0 }", "red_lamp = { bcm = 1 }", "service_lamp = { bcm = 2 }"])
    check(f"--gpio auto picks the GPIO character device (no /dev/gpiomem) on the {device} chip and says so",
          t and "GPIO character device" in desc and chip in desc, desc[-220:])
    lamps = [0, 1, 2]

    def press():
        vm.qmp.call("system_powerdown")  # QEMU's gpio-key: PL061 line 3 high for 100 ms

    def press_and_read(words, want, label):
        return gpio_press_and_read(vm, words, want, label, press, lambda: debugfs_levels(vm, chip, lamps))

    shown, during, after = press_and_read(["CAT"], GREEN, "acceptable")
    rc, record = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep CAT | tail -n1")
    check("button press on the PL061 line (kernel edge, debounced) in Entry judges CAT: green screen; the record says button",
          shown and '"trigger":"button"' in record, f"record: {record[-160:]}")
    check("lamp lines read back by the kernel during/after ACCEPTABLE: green hi, red lo, service lo, then all lo",
          during == ["hi", "lo", "lo"] and after == ["lo", "lo", "lo"], f"during {during}, after {after}")
    shown, during, after = press_and_read(["XYZZYQ"], RED, "unacceptable")
    check("button judges XYZZYQ: red screen; red lamp hi during, all lo after",
          shown and during == ["lo", "hi", "lo"] and after == ["lo", "lo", "lo"], f"during {during}, after {after}")
    restore_config(vm)


def gpio_sim(vm):
    """The same with the kernel's gpio-sim, where the kernel has it: a 28-line bank."""
    rc, out = vm.sh(
        f"mkdir -p {GPIO_SIM}/bank0 && echo 28 > {GPIO_SIM}/bank0/num_lines && "
        f"echo wordjudge-sim > {GPIO_SIM}/bank0/label && echo 1 > {GPIO_SIM}/live && "
        f"echo $(cat {GPIO_SIM}/dev_name) $(cat {GPIO_SIM}/bank0/chip_name)")
    if rc != 0 or len(out.split()) != 2:
        check("gpio-sim: the kernel's simulated GPIO chip", False, f"exit {rc}: {out}")
        return
    dev, chip = out.split()
    sysfs = f"/sys/devices/platform/{dev}/{chip}"
    t, desc = restart_with_gpio(vm, ['chip = "wordjudge-sim"', "judge_button = { bcm = 17 }", "green_lamp = { bcm = 22 }",
                                     "red_lamp = { bcm = 27 }", "service_lamp = { bcm = 23 }"])
    check("--gpio auto picks the GPIO character device (no /dev/gpiomem) and says so",
          t and "GPIO character device" in desc and chip in desc, desc[-200:])

    def press():
        vm.sh(f"echo pull-down > {sysfs}/sim_gpio17/pull; sleep 0.15; echo pull-up > {sysfs}/sim_gpio17/pull")

    def lamps():
        rc, out = vm.sh(f"cat {sysfs}/sim_gpio22/value {sysfs}/sim_gpio27/value {sysfs}/sim_gpio23/value")
        return out.split()

    def press_and_read(words, want, label):
        return gpio_press_and_read(vm, words, want, label, press, lamps)

    shown, during, after = press_and_read(["CAT"], GREEN, "acceptable")
    rc, record = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep CAT | tail -n1")
    check("gpio-sim button press (pull set low) in Entry judges CAT: green screen; record says button",
          shown and '"trigger":"button"' in record, f"record: {record[-160:]}")
    check("lamp lines during/after ACCEPTABLE: green 1, red 0, service 0, then all 0",
          during == ["1", "0", "0"] and after == ["0", "0", "0"], f"during {during}, after {after}")
    shown, during, after = press_and_read(["XYZZYQ"], RED, "unacceptable")
    check("gpio-sim button judges XYZZYQ: red screen; red lamp 1 during, all 0 after",
          shown and during == ["0", "1", "0"] and after == ["0", "0", "0"], f"during {during}, after {after}")
    restore_config(vm)


# ---------------- USB sticks (director menu: install lexicons, export the audit log) ----------------
SHARED_LEXICONS = os.path.join(os.environ.get("REPO", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")),
                               "..", "shared", "lexicons")
LEXICON_DIR = "/var/lib/wordjudge/lexicons"
AUDIT_FILES = "/var/lib/wordjudge/audit/audit-*.jsonl"
WJ = "runuser -u wordjudge -- wordjudge"


def host_tool(name):
    return shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.path.exists(p)), None)


def make_stick_images(with_lexicons):
    """The sticks, as image files in WORK: FAT32 with NWL2018.txt (import), FAT32 with six
    copies of CSW15 (pulled while it is read), empty ext4 (export). Installs the tools."""
    need = [pkg for tool, pkg in (("mkfs.vfat", "dosfstools"), ("mcopy", "mtools"), ("mkfs.ext4", "e2fsprogs"),
                                  ("debugfs", "e2fsprogs"), ("mkfs.exfat", "exfatprogs")) if not host_tool(tool)]
    if need:
        log(f"installing {' '.join(sorted(set(need)))}")
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *sorted(set(need))],
                       check=True, capture_output=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    images = {}

    def fat(name, label, files):
        path = os.path.join(WORK, name)
        if os.path.exists(path):
            os.unlink(path)
        with open(path, "wb") as f:
            f.truncate(64 << 20)
        subprocess.run([host_tool("mkfs.vfat"), "-F", "32", "-n", label, path], check=True, capture_output=True)
        for src, dest in files:
            subprocess.run(["mcopy", "-i", path, src, "::" + dest], check=True, capture_output=True)
        return path

    if with_lexicons:
        images["import"] = fat("stick-import.img", "WJIMPORT", [(os.path.join(SHARED_LEXICONS, "NWL2018.txt"), "NWL2018.txt")])
        images["pull"] = fat("stick-pull.img", "WJPULL",
                             [(os.path.join(SHARED_LEXICONS, "CSW15.txt"), f"BIG{i}.txt") for i in range(1, 7)])
    path = os.path.join(WORK, "stick-export.img")
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run([host_tool("mkfs.ext4"), "-q", "-F", "-L", "WJEXPORT", "-E", "root_owner=0:0", path, "32M"],
                   check=True, capture_output=True)
    images["export"] = path
    # An empty exFAT stick: a second export, read back in the guest (no exFAT reader here).
    path = os.path.join(WORK, "stick-exfat.img")
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.truncate(32 << 20)
    subprocess.run([host_tool("mkfs.exfat"), "-L", "WJEXFAT", path], check=True, capture_output=True)
    images["exfat"] = path
    return images


def plug_and_choose(vm, node, image, label, what, item):
    """Plugs the stick `image` in, checks udev marks it (a PASS/FAIL line naming `what`),
    opens the director menu and chooses its `item`: 0 Install lexicons from USB, 1 Export
    the audit log to USB (with a stick present they are the first two). False if unseen."""
    vm.plug(node, image)
    seen, props = wait_stick_seen(vm, label)
    check(f"{what} plugged in: udev marks it WORDJUDGE_STICK=1 (70-wordjudge-usb.rules)", seen, props)
    if not seen:
        return False
    open_director_menu(vm)
    vm.screen(f"usb-menu-{node}")
    menu_top(vm)
    vm.keys(*["down"] * item, "ret")
    return True


def usb_export_exfat(vm, images):
    """The export to an exFAT stick (mounted with the kiosk's uid/gid and fmask/dmask):
    once the kiosk has ejected it, root mounts it read-only in the guest and
    `wordjudge audit verify` checks the folder with its key and checkpoint."""
    n_exported, n_ejected = journal_count(vm, "usb: exported"), journal_count(vm, "usb: ejected")
    if not plug_and_choose(vm, "exfat", images["exfat"], "WJEXFAT", "exFAT stick", 1):
        return False
    t, line = wait_journal(vm, "usb: exported", n_exported, timeout=120)
    t2, line2 = wait_journal(vm, "usb: ejected", n_ejected, timeout=60)
    rc, out = vm.sh("mkdir -p /run/exfat-check && mount -o ro -t exfat /dev/disk/by-label/WJEXFAT /run/exfat-check && "
                    "d=$(ls -d /run/exfat-check/wordjudge/wordjudge-export-* | head -n1) && echo \"folder $d\" && "
                    f"{WJ} audit verify \"$d/audit\" --pubkey \"$d/station-key.pub\" --checkpoint \"$d/checkpoint.txt\"; "
                    "rc=$?; umount /run/exfat-check; exit $rc", timeout=120)
    check("exFAT stick: the export lands, the stick is ejected, and its folder verifies (read back read-only in the guest)",
          t is not None and t2 is not None and rc == 0,
          f"{line or 'no usb: exported'}; {line2 or 'no usb: ejected'}; exit {rc}: {out[-250:]}".replace("\n", " | "))
    vm.unplug("exfat")
    leave_to_ready(vm, 2)  # the Done screen -> the menu -> leave
    return t2 is not None


def baseline_word():
    """A short word in CSW15 but not in NWL2018 (ZO if it is one), computed from the lists."""
    def short(name):
        with open(os.path.join(SHARED_LEXICONS, name)) as f:
            return {w.strip().upper() for w in f if 2 <= len(w.strip()) <= 3}
    only_csw = short("CSW15.txt") - short("NWL2018.txt")
    if "ZO" in only_csw:
        return "ZO"
    return sorted(only_csw, key=lambda w: (len(w), w))[0]


def journal_count(vm, needle):
    """How many lines of this boot's kiosk journal contain needle."""
    rc, out = vm.sh(f"journalctl -b -u wordjudge -o cat --no-pager | grep -cF -- {shlex.quote(needle)}")
    out = out.strip().splitlines()[-1] if out.strip() else "0"
    return int(out) if out.isdigit() else 0


def wait_journal(vm, needle, before, timeout, every=2):
    """Waits for a new kiosk journal line containing needle (more than `before` of them);
    returns (seconds waited or None, the last such line)."""
    t0 = time.monotonic()
    while True:
        if journal_count(vm, needle) > before:
            rc, line = vm.sh(f"journalctl -b -u wordjudge -o cat --no-pager | grep -F -- {shlex.quote(needle)} | tail -n1")
            return time.monotonic() - t0, line.strip()
        if time.monotonic() - t0 > timeout:
            return None, ""
        time.sleep(every)


def wait_stick_seen(vm, label, timeout=30):
    """The guest's udev has the stick (by its filesystem label) and marked it WORDJUDGE_STICK=1."""
    deadline = time.monotonic() + timeout
    out = ""
    while time.monotonic() < deadline:
        rc, out = vm.sh(f"udevadm settle -t 5; udevadm info --query=property --name=/dev/disk/by-label/{label} 2>&1 "
                        "| grep -E '^(DEVNAME|ID_BUS|ID_FS_TYPE|WORDJUDGE_STICK)='", timeout=30)
        if "WORDJUDGE_STICK=1" in out:
            return True, out.replace("\n", " ")
        time.sleep(1)
    rc, dmesg = vm.sh("dmesg | grep -iE 'usb|sd[a-z]|scsi' | tail -n 5")
    return False, f"{out.strip()} | dmesg: {dmesg}".replace("\n", " | ")


def open_director_menu(vm):
    """Ctrl+Alt+Shift+D, then the PIN 2468 and Enter (as the power-off step does)."""
    vm.wait_screen(NAVY, "ready", timeout=15)
    vm.qmp.call("send-key", keys=[{"type": "qcode", "data": k} for k in ("ctrl", "alt", "shift", "d")])
    time.sleep(1)
    vm.keys("2", "4", "6", "8", "ret")
    time.sleep(2)


def menu_top(vm):
    vm.keys(*["up"] * 40, gap=0.05)  # the cursor starts elsewhere; 40 ups reach the first item
    time.sleep(0.5)


def guest_mounts(vm):
    """(mounts on /run/wordjudge/stick, number of mounts under /run/wordjudge-usb), on the host's view."""
    rc, out = vm.sh("findmnt -rn /run/wordjudge/stick; echo ==; findmnt -rn | grep -c wordjudge-usb")
    stick, _, count = out.partition("==")
    count = count.strip()
    return stick.strip(), int(count) if count.isdigit() else -1


def lexicon_hashes(vm):
    rc, out = vm.sh(f"find {LEXICON_DIR} -type f ! -name '.wordjudge-*.tmp' -exec sha256sum {{}} + | sort")
    return out


def audit_lines(vm, *needles):
    """The guest's audit-log lines that contain every needle."""
    grep = " | ".join(f"grep -F -- {shlex.quote(n)}" for n in needles)
    rc, out = vm.sh(f"cat {AUDIT_FILES} | {grep}")
    return [l for l in out.splitlines() if all(n in l for n in needles)]


def leave_to_ready(vm, presses=2):
    for _ in range(presses):
        vm.keys("esc")
        time.sleep(1)
    colour, _ = vm.wait_screen(NAVY, "ready", timeout=15)
    if not near(colour, NAVY):
        log(f"not back on the Ready screen (dominant {hexc(colour)})")


def usb_import(vm, images, state):
    """Installs NWL2018 from a FAT32 stick through the director menu, then ejects it.
    Sets state["installed"]; returns whether the kiosk ended where the next part expects it
    (in the director menu, no stick)."""
    before_hashes = lexicon_hashes(vm)
    n_ready, n_installed, n_ejected = (journal_count(vm, s) for s in
                                       ("usb: import list ready", "usb: installed NWL2018", "usb: ejected"))
    if not plug_and_choose(vm, "import", images["import"], "WJIMPORT", "USB stick (FAT32, NWL2018.txt)", 0):
        return False
    t, line = wait_journal(vm, "usb: import list ready", n_ready, timeout=180)
    vm.screen("usb-import-list")
    rc, units = vm.sh("systemctl list-units --all --no-legend --plain 'wordjudge-stick-*' | cut -c1-120")
    found = f"after {t:.1f} s: {line}" if t is not None else "no 'usb: import list ready' within 180 s"
    if not check("director menu: Install lexicons from USB -> the stick is mounted (import unit) and listed",
                 t is not None, f"{found}; units: {units}".replace("\n", " | ")):
        return False
    vm.keys("ret")  # the first row, NWL2018.txt: asks to confirm
    time.sleep(1)
    vm.keys("ret")
    t, line = wait_journal(vm, "usb: installed NWL2018", n_installed, timeout=60)
    vm.screen("usb-installed")
    records = audit_lines(vm, '"event":"lexicon_installed"', "NWL2018")
    rc, listed = vm.sh(f"{WJ} lexicon list 2>&1 | grep -w NWL2018")
    after_hashes = lexicon_hashes(vm)
    kept = set(before_hashes.splitlines()) <= set(after_hashes.splitlines())
    installed = (t is not None and any("Verified official" in r for r in records)
                 and "verified official" in listed.lower())
    state["installed"] = installed
    check("NWL2018.txt from the stick installed: journal, audit record lexicon_installed (Verified official), "
          "`wordjudge lexicon list`", installed,
          f"journal: {line or 'no usb: installed NWL2018 within 60 s'}; audit: {(records[-1] if records else 'none')[-200:]}; "
          f"list: {listed.strip()}; lexicon files {len(before_hashes.splitlines())} -> {len(after_hashes.splitlines())}"
          f"{'' if kept else ', AN EXISTING FILE CHANGED'}")
    vm.keys("esc")  # leaves the list: the kiosk ejects the stick
    t, line = wait_journal(vm, "usb: ejected", n_ejected, timeout=60)
    stick_mounts, usb_mounts = guest_mounts(vm)  # before the stick is pulled: eject must have unmounted it
    vm.screen("usb-eject-done")
    check("Esc ejects the stick: journal 'usb: ejected', then nothing mounted at /run/wordjudge/stick or "
          "/run/wordjudge-usb (before it is pulled)", t is not None and not stick_mounts and usb_mounts == 0,
          f"{line or 'no usb: ejected within 60 s'}; /run/wordjudge/stick: {stick_mounts or 'not mounted'}; "
          f"mounts under /run/wordjudge-usb: {usb_mounts}")
    vm.unplug("import")
    vm.keys("esc")  # the Done screen returns to the menu on any key
    time.sleep(1)
    return t is not None


def usb_switch_lexicon(vm, word):
    """In the menu (no stick now): the installed lexicons come first, in `lexicon list` order;
    picks NWL2018, leaves the menu, and the baseline word is now UNACCEPTABLE."""
    rc, out = vm.sh(f"{WJ} lexicon list 2>/dev/null")
    rows = []
    for l in out.splitlines():
        if l.startswith("("):
            break
        if l.strip():
            rows.append(l)
    index = next((i for i, l in enumerate(rows) if re.search(r"\bNWL2018\b", l)), None)
    if not check("NWL2018 is among the installed lexicons the menu lists", index is not None, " | ".join(rows)):
        return False
    before = len(audit_lines(vm, '"event":"lexicon_switched"', '"to":"NWL2018"'))
    menu_top(vm)
    vm.keys(*["down"] * index, "ret", gap=0.1)
    time.sleep(2)
    vm.screen("usb-switched")
    records = audit_lines(vm, '"event":"lexicon_switched"', '"to":"NWL2018"')
    check(f"director menu switches to NWL2018 (row {index}): audit record lexicon_switched to NWL2018",
          len(records) > before, (records[-1] if records else "no lexicon_switched record to NWL2018")[-200:])
    leave_to_ready(vm, 1)
    judge_and_check(vm, [word], RED, "UNACCEPTABLE with NWL2018")
    return True


def usb_pull_mid_import(vm, images):
    """A stick pulled while the kiosk reads it: the import fails cleanly and nothing changes."""
    hashes = lexicon_hashes(vm)
    rc, pid = vm.sh("systemctl show -P MainPID wordjudge")
    n_ready, n_failed = journal_count(vm, "usb: import list ready"), journal_count(vm, "usb: failed")
    n_audit_failed = len(audit_lines(vm, '"event":"usb_failed"'))
    if not plug_and_choose(vm, "pull", images["pull"], "WJPULL", "second stick (FAT32, 6 x CSW15, 17 MB)", 0):
        return False
    time.sleep(2)
    vm.unplug("pull")  # device_del while the kiosk reads the stick
    t, line = wait_journal(vm, "usb: failed", n_failed, timeout=60)
    ready_after = journal_count(vm, "usb: import list ready")
    check("stick pulled while being read: the kiosk says 'usb: failed' and never lists it",
          t is not None and ready_after == n_ready,
          f"{line or 'no usb: failed within 60 s'}; 'usb: import list ready' lines {n_ready} -> {ready_after}")
    deadline = time.monotonic() + 30  # systemd stops the unit once the device is gone (BindsTo=)
    while True:
        stick_mounts, usb_mounts = guest_mounts(vm)
        if (not stick_mounts and usb_mounts == 0) or time.monotonic() > deadline:
            break
        time.sleep(1)
    rc, tmp = vm.sh(f"ls -a {LEXICON_DIR} | grep -E '^\\.wordjudge-.*\\.tmp$'")
    rc, pid2 = vm.sh("systemctl show -P MainPID wordjudge")
    records = audit_lines(vm, '"event":"usb_failed"')
    rc_verify, verify = vm.sh(f"{WJ} --config /var/lib/wordjudge/config.toml audit verify 2>&1")
    same = lexicon_hashes(vm) == hashes
    check("after the pull: lexicons unchanged, no temporary file, nothing mounted, same kiosk process, "
          "audit record usb_failed, `wordjudge audit verify` passes",
          same and not tmp.strip() and not stick_mounts and usb_mounts == 0 and pid2.strip() == pid.strip()
          and len(records) > n_audit_failed and rc_verify == 0,
          f"lexicons unchanged: {same}; temporary files: {tmp.strip() or 'none'}; /run/wordjudge/stick: "
          f"{stick_mounts or 'not mounted'}; under /run/wordjudge-usb: {usb_mounts}; kiosk pid {pid.strip()} -> "
          f"{pid2.strip()}; usb_failed records {n_audit_failed} -> {len(records)}; audit verify exit {rc_verify}: "
          f"{verify[-120:]}".replace("\n", " | "))
    vm.screen("usb-pulled")
    leave_to_ready(vm, 2)  # the Done screen -> the menu -> leave
    return judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE after the pulled stick")


def usb_export(vm, images, word):
    """Exports the audit log to an ext4 stick; the export verifies on the host."""
    n_exported, n_ejected = journal_count(vm, "usb: exported"), journal_count(vm, "usb: ejected")
    n_export_records = len(audit_lines(vm, '"event":"export"'))
    if not plug_and_choose(vm, "export", images["export"], "WJEXPORT", "ext4 stick", 1):
        return False
    t0 = time.monotonic()
    t, line = wait_journal(vm, "usb: exported", n_exported, timeout=120)
    t2, line2 = wait_journal(vm, "usb: ejected", n_ejected, timeout=max(5, 120 - (time.monotonic() - t0)))
    records = audit_lines(vm, '"event":"export"')
    vm.screen("usb-exported")
    check("director menu: Export the audit log to USB -> 'usb: exported', 'usb: ejected', audit record export",
          t is not None and t2 is not None and len(records) > n_export_records,
          f"{line or 'no usb: exported'}; {line2 or 'no usb: ejected'} (120 s); export records "
          f"{n_export_records} -> {len(records)}")
    vm.unplug("export")
    out = os.path.join(WORK, "usb-export")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    p = subprocess.run([host_tool("debugfs"), "-R", f"rdump /wordjudge {out}", images["export"]],
                       capture_output=True, text=True)
    folders = sorted(glob.glob(os.path.join(out, "wordjudge", "wordjudge-export-*")))
    ended = t2 is not None
    if not check("the stick holds one export folder wordjudge/wordjudge-export-*", len(folders) == 1,
                 f"{[os.path.basename(f) for f in folders]}; debugfs: {p.stderr.strip()[-200:]}"):
        leave_to_ready(vm, 2)
        return False
    folder = folders[0]
    jsonl = sorted(glob.glob(os.path.join(folder, "audit", "audit-*.jsonl")))
    missing = [n for n in ("audit.csv", "verify.txt", "station-key.pub", "checkpoint.txt")
               if not os.path.isfile(os.path.join(folder, n))] + ([] if jsonl else ["audit/audit-*.jsonl"])
    check("export folder: audit/ (audit-*.jsonl), audit.csv, verify.txt, station-key.pub, checkpoint.txt",
          not missing, f"{os.path.basename(folder)}: {sorted(os.listdir(folder))}; missing: {missing or 'none'}")
    pdir = "debug" if os.environ.get("PROFILE", "release") == "dev" else os.environ.get("PROFILE", "release")
    host_bin = os.path.join(os.environ.get("REPO", ""), "target", pdir, "wordjudge")
    if os.path.exists(host_bin):
        v = subprocess.run([host_bin, "audit", "verify", os.path.join(folder, "audit"),
                            "--pubkey", os.path.join(folder, "station-key.pub"),
                            "--checkpoint", os.path.join(folder, "checkpoint.txt")],
                           capture_output=True, text=True, timeout=120)
        verified, detail = v.returncode == 0, f"exit {v.returncode}: {(v.stdout + v.stderr).strip()[-250:]}"
    else:
        verified, detail = False, f"no host binary {host_bin}"
    text = ""
    for f in jsonl:
        with open(f, errors="replace") as fh:
            text += fh.read()
    hits = [l for l in text.splitlines() if f'"{word}"' in l]
    check(f"its files verify on the host (wordjudge audit verify --pubkey --checkpoint) and hold the {word} verdicts",
          verified and len(hits) >= (2 if word != "CAT" else 1),
          f"{detail}; {len(hits)} records with \"{word}\"".replace("\n", " | "))
    leave_to_ready(vm, 2)  # the Done screen -> the menu -> leave
    return ended


def usb_kiosk_restart_with_stick(vm, images):
    """A kiosk restarted while a stick is attached keeps no copy of it once the stick's unit
    stops (its mount namespace is a copy of the host's taken at start, where a mount that
    covered the stick's could keep the old stick for good). The unit is started and
    stopped as root here; the kiosk's namespace is read through nsenter."""
    vm.plug("export", images["export"])
    seen, props = wait_stick_seen(vm, "WJEXPORT")
    dev = next((p.split("/")[-1] for p in props.split() if p.startswith("DEVNAME=")), "")
    if not check("ext4 stick plugged in again: WORDJUDGE_STICK=1", seen and dev, props):
        return False
    unit = f"wordjudge-stick-export@{dev}.service"
    rc, state = vm.sh(f"systemctl start {unit}; systemctl is-active {unit}; findmnt -rn -o SOURCE,OPTIONS /run/wordjudge/stick")
    n_ready = vm.console_text().count(READY)
    vm.sh("systemctl restart wordjudge")
    t = vm.wait_console(READY, count=n_ready + 1, timeout=90)
    rc, pid = vm.sh("systemctl show -P MainPID wordjudge")
    pid = pid.strip()
    rc, inside_before = vm.sh(f"nsenter -t {pid} -m findmnt -rn -o SOURCE,OPTIONS /run/wordjudge/stick")
    rc, stopped = vm.sh(f"systemctl stop {unit}; systemctl is-active {unit}")
    rc, inside = vm.sh(f"nsenter -t {pid} -m findmnt -rn /run/wordjudge/stick; nsenter -t {pid} -m findmnt -rn "
                       "| grep -c wordjudge-usb")
    stick_mounts, usb_mounts = guest_mounts(vm)
    inside_lines = inside.strip().splitlines()
    clean_inside = len(inside_lines) == 1 and inside_lines[0].strip() == "0"
    check("kiosk restarted while a stick is attached: once the unit stops, the stick is gone from the host and "
          "from the kiosk's own mount namespace", t and clean_inside and not stick_mounts and usb_mounts == 0,
          f"unit {unit}: {state.strip()}; kiosk READY again: {bool(t)}; kiosk namespace while attached: "
          f"{inside_before.strip() or 'nothing'}; after stop ({stopped.strip()}): {inside.strip()}; host: "
          f"{stick_mounts or 'nothing'} / {usb_mounts} under /run/wordjudge-usb".replace("\n", " | "))
    vm.unplug("export")
    vm.wait_screen(NAVY, "ready", timeout=15)
    return bool(t)


def usb_stick(vm):
    """USB sticks from the director menu (boot 2): install a lexicon from a FAT32 stick and judge
    with it, a stick pulled mid-import, the audit log exported to an ext4 stick. A part that
    stops early or raises is reported, then everything is unplugged and the kiosk restarted
    (a known state: the Ready screen), so the later parts and the power-off step still run."""
    with_lexicons = (all(os.path.isfile(os.path.join(SHARED_LEXICONS, n)) for n in ("NWL2018.txt", "CSW15.txt"))
                     and os.environ.get("EXPECT_LEXICON") == "CSW15")
    if not with_lexicons:
        log("SKIPPED: USB import (needs ../shared/lexicons)")
    try:
        images = make_stick_images(with_lexicons)
    except Exception as e:
        check("USB stick images made on the host (mkfs.vfat, mcopy, mkfs.ext4)", False, f"{type(e).__name__}: {e}")
        return
    word = baseline_word() if with_lexicons else "CAT"
    state = {"installed": False}
    parts = []
    if with_lexicons:
        log(f"USB: baseline word {word} (in CSW15, not in NWL2018)")
        parts += [("baseline", lambda: judge_and_check(vm, [word], GREEN, "ACCEPTABLE with CSW15") or True),
                  ("import", lambda: usb_import(vm, images, state)),
                  ("switch", lambda: usb_switch_lexicon(vm, word)),
                  ("pull", lambda: usb_pull_mid_import(vm, images))]
    parts.append(("export", lambda: usb_export(vm, images, word)))
    parts.append(("export-exfat", lambda: usb_export_exfat(vm, images)))
    parts.append(("restart", lambda: usb_kiosk_restart_with_stick(vm, images)))
    ended_well = True
    for name, part in parts:
        if name == "switch" and not state["installed"]:
            log("USB: NWL2018 was not installed, so no switch to it")
            if ended_well:
                usb_cleanup(vm)  # the import ended in the director menu: back to Ready
            continue
        try:
            ended_well = part()
        except Exception as e:
            check(f"USB {name} part ran to the end", False, f"{type(e).__name__}: {e}")
            ended_well = False
        if ended_well is False:
            usb_cleanup(vm)
    usb_cleanup(vm, restart=False)


def usb_cleanup(vm, restart=True):
    """Pulls whatever is still plugged in, stops the stick units, and (restart) restarts the
    kiosk so it is on the Ready screen whatever screen it was on."""
    for node in list(vm.plugged):
        try:
            vm.unplug(node)
        except Exception as e:
            log(f"unplug {node}: {type(e).__name__}: {e}")
    if not restart:
        return
    try:
        n_ready = vm.console_text().count(READY)
        vm.sh("systemctl stop 'wordjudge-stick-import@*.service' 'wordjudge-stick-export@*.service'; "
              "systemctl restart wordjudge")
        t = vm.wait_console(READY, count=n_ready + 1, timeout=90)
        log(f"USB cleanup: sticks pulled, kiosk restarted ({'READY again' if t else 'no READY within 90 s'})")
        vm.wait_screen(NAVY, "usb-recovered", timeout=15)
    except Exception as e:
        log(f"USB cleanup: {type(e).__name__}: {e}")


def verify_units_here():
    """verify-units.sh: systemd-analyze verify and sysusers on the repo's systemd/ files."""
    p = subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "verify-units.sh")],
                       capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith(("PASS", "FAIL"))]
    check("verify-units.sh (systemd-analyze verify, sysusers) here", p.returncode == 0, " | ".join(lines) + p.stderr.strip())


def main():
    os.makedirs(WORK, exist_ok=True)
    verify_units_here()
    disk = os.path.join(WORK, "disk.img")
    subprocess.run(["cp", "--sparse=always", IMG, disk], check=True)
    if ARCH == "amd64":
        shutil.copy(OVMF_VARS, os.path.join(WORK, "OVMF_VARS.fd"))
    log(f"image {IMG}: {os.path.getsize(IMG) / 2**20:.0f} MiB; scratch copy in {WORK}")

    # ---------------- boot 1 ----------------
    vm = VM(disk, "boot1")
    try:
        t = vm.wait_console(READY, timeout=180)
        if not check("boot 1: kiosk READY on the serial console", t, f"{t:.1f} s after power-on" if t else "no READY within 180 s"):
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

        rc, out = vm.sh("journalctl -b -o short-monotonic -t wordjudge | grep -m1 'WORDJUDGE READY' | sed 's/^\\[ *\\([0-9.]*\\)\\].*/\\1/'")
        kernel_ready = out
        log(f"READY at {kernel_ready} s after the kernel started (systemd journal)")
        rc, out = vm.sh("findmnt -no OPTIONS /; findmnt -no SOURCE,OPTIONS /var/lib/wordjudge; touch /usr/x 2>&1; true")
        check("root filesystem is read-only, data partition writable", out.startswith("ro") and "Read-only" in out, out.replace("\n", " | "))
        want = os.environ.get("EXPECT_LEXICON", "DEMO")
        rc, out = vm.sh(f"runuser -u wordjudge -- wordjudge lexicon list 2>&1 | grep -w {want}; "
                        "runuser -u wordjudge -- wordjudge config show 2>&1 | grep -c '^director_pin_hash = \"'")
        status = "Verified official" if want != "DEMO" else "Demo"
        check(f"active lexicon {want} is on the data partition ({status}); DIRECTOR_PIN_FILE hashed into config.toml",
              want in out and status.lower() in out.lower() and out.strip().endswith("1"), out.replace("\n", " | "))
        check(f"READY line names the active lexicon {want}", f"lexicon={want}" in line, line.strip()[-90:])
        rc, out = vm.sh("systemctl --failed --no-legend --plain; systemctl is-system-running")
        check("no failed units", "failed" not in out.split("\n")[0] and out.strip().endswith("running"), out.replace("\n", " | "))
        # Players' keyboard: Ctrl+Alt+Del and Alt+SysRq+B must not reboot, Ctrl+Alt+F2 must
        # not take the screen away from the kiosk.
        def combo(*keys):
            vm.qmp.call("send-key", keys=[{"type": "qcode", "data": k} for k in keys])
            time.sleep(1.5)
        rc, before = vm.sh("cat /proc/sys/kernel/random/boot_id; systemctl show -P MainPID wordjudge")
        n_ready = vm.console_text().count(READY)
        combo("ctrl", "alt", "delete")
        combo("alt", "sysrq", "b")
        vm.wait_screen(NAVY, "after-ctrl-alt-del", timeout=20)
        rc, after = vm.sh("cat /proc/sys/kernel/random/boot_id; systemctl show -P MainPID wordjudge; "
                          "systemctl is-active wordjudge; cat /proc/sys/kernel/sysrq")
        b_id, b_pid = before.split()
        a_vals = after.split()
        check("Ctrl+Alt+Del and Alt+SysRq+B do not reboot (ctrl-alt-del.target masked, kernel.sysrq=0); kiosk on screen",
              a_vals[0] == b_id and a_vals[2:] == ["active", "0"], f"boot id kept: {a_vals[0] == b_id}, kiosk {a_vals[2:3]}, sysrq {a_vals[3:]}")
        combo("ctrl", "alt", "backspace")
        vm.wait_screen(NAVY, "after-ctrl-alt-backspace", timeout=20)
        rc, pid_now = vm.sh("systemctl show -P MainPID wordjudge")
        # Slint's linuxkms backend quits its event loop on these; the kiosk swallows them.
        check("Ctrl+Alt+Del and Ctrl+Alt+Backspace do not end the kiosk (same process)",
              a_vals[1] == b_pid and pid_now.strip() == b_pid, f"pid {b_pid} -> {a_vals[1]} -> {pid_now.strip()}")
        if pid_now.strip() != b_pid:
            vm.wait_console(READY, count=n_ready + 1, timeout=30)
        combo("ctrl", "alt", "f2")
        colour, share = vm.screen("after-ctrl-alt-f2")
        rc, vt = vm.sh("cat /sys/class/tty/tty0/active")
        check("Ctrl+Alt+F2 leaves the kiosk on screen", near(colour, NAVY), f"active VT {vt}, screen {hexc(colour)} on {share:.0%}")
        combo("ctrl", "alt", "f1")
        escape_keys(vm)
        display_drivers(vm)
        gpio_chardev(vm)
        rc, out = vm.sh("systemd-analyze verify wordjudge.service wordjudge-stick-import@sdz1.service "
                        "wordjudge-stick-export@sdz1.service 2>&1; echo rc=$?")
        check("systemd-analyze verify wordjudge.service and the USB stick units (in the image)", out.endswith("rc=0"),
              out.replace("\n", " | "))
        rc, out = vm.sh("systemd-analyze security wordjudge.service --no-pager | tail -n1")
        log(f"systemd-analyze security: {out}")
        rc, out = vm.sh("systemd-analyze time --no-pager; systemd-analyze critical-chain wordjudge.service --no-pager")
        with open(os.path.join(WORK, f"critical-chain-{ARCH}.txt"), "w") as f:
            f.write(out + "\n")
        log("systemd-analyze time and critical-chain wordjudge.service:\n" + out)

        rc, pid1 = vm.sh("systemctl show -P MainPID wordjudge")
        n_ready = vm.console_text().count(READY)
        vm.sh("systemctl kill -s KILL wordjudge")
        t_kill = time.monotonic()
        t = vm.wait_console(READY, count=n_ready + 1, timeout=60)
        rc, pid2 = vm.sh("systemctl show -P MainPID wordjudge; systemctl show -P NRestarts wordjudge")
        check("SIGKILLed kiosk is restarted by systemd (READY again)", t and pid2.split()[0] not in ("0", pid1),
              f"pid {pid1} -> {pid2.split()[0]}, NRestarts={pid2.split()[-1]}, READY again {time.monotonic() - t_kill:.1f} s after the kill")
        judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE after restart")

        rc, pid = vm.sh("systemctl show -P MainPID wordjudge")
        n_ready = vm.console_text().count(READY)
        vm.sh(f"kill -STOP {pid}")
        t_stop = time.monotonic()
        t = vm.wait_console(READY, count=n_ready + 1, timeout=60)
        rc, out = vm.sh("journalctl -b -u wordjudge --no-pager | grep -ci 'watchdog timeout'")
        check("frozen kiosk (SIGSTOP) is killed by the watchdog and restarted", t and int(out or 0) >= 1,
              f"READY again {time.monotonic() - t_stop:.1f} s after SIGSTOP; journal 'watchdog timeout' lines: {out}")

        rc, before = vm.sh("runuser -u wordjudge -- wordjudge --config /var/lib/wordjudge/config.toml audit show 2>/dev/null | wc -l")
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

    # ---------------- boot 2 ----------------
    vm = VM(disk, "boot2")
    try:
        t = vm.wait_console(READY, timeout=180)
        check("boot 2 after the power cut: kiosk READY", t, f"{t:.1f} s after power-on" if t else "no READY")
        rc, out = vm.sh("runuser -u wordjudge -- wordjudge --config /var/lib/wordjudge/config.toml audit verify 2>&1")
        check("wordjudge audit verify passes after the power cut", rc == 0, f"exit {rc}: {out[-300:]}".replace("\n", " | "))
        rc, out = vm.sh("runuser -u wordjudge -- wordjudge --config /var/lib/wordjudge/config.toml audit show 2>/dev/null")
        have = out.upper()
        check("audit log kept the verdicts of boot 1", all(w in have for w in ("CAT", "XYZZYQ", "ZEBRA")),
              f"{len(out.splitlines())} lines")
        rc, out = vm.sh("journalctl --list-boots --no-pager | grep -cE '^ *-?[0-9]+ [0-9a-f]{32}'; journalctl -b -1 -t wordjudge --no-pager | grep -c 'WORDJUDGE READY'")
        n_boots, ready_prev = (out.split() + ["0", "0"])[:2]
        check("persistent journal on the data partition kept boot 1", int(n_boots) >= 2 and int(ready_prev) >= 1,
              f"{n_boots} boots listed, {ready_prev} READY lines in boot -1")
        # USB sticks from the director menu; it ends on the Ready screen with nothing plugged in.
        usb_stick(vm)
        # Director menu (Ctrl+Alt+Shift+D, PIN), "Power off", ENTER twice: the kiosk runs
        # `systemctl poweroff` as user wordjudge, inside its sandbox (polkit rule).
        vm.wait_screen(NAVY, "ready", timeout=15)
        vm.qmp.call("send-key", keys=[{"type": "qcode", "data": k} for k in ("ctrl", "alt", "shift", "d")])
        time.sleep(1)
        vm.keys("2", "4", "6", "8", "ret")
        time.sleep(2)
        vm.screen("director-menu")
        vm.keys(*["down"] * 40, "up", gap=0.05)  # the last item is Leave; Power off is just above
        time.sleep(1)
        vm.screen("director-poweroff-selected")
        vm.keys("ret")
        time.sleep(1)
        vm.keys("ret")
        try:
            vm.proc.wait(timeout=90)
            off = True
        except subprocess.TimeoutExpired:
            off = False
            vm.screen("director-poweroff-failed")
        check("director menu powers the station off (systemctl as user wordjudge, polkit)", off, "VM powered off" if off else "still running after 90 s")
    finally:
        vm.kill()

    firmware = "UEFI firmware included" if ARCH == "amd64" else "direct kernel boot"
    summary = f"{ARCH} boot to READY: {boot_ready:.1f} s from power-on ({firmware}), {kernel_ready} s from kernel start"
    log(summary)
    with open(os.path.join(WORK, f"boot-times-{ARCH}.txt"), "w") as f:
        f.write(summary + "\n")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a crash is a failure, with what we know so far
        check("test ran to the end", False, f"{type(e).__name__}: {e}")
    for name in sorted(os.listdir(WORK)):
        if name.endswith(".ppm"):
            ppm_to_png(os.path.join(WORK, name))
    print(f"screendumps (PNG), console logs: {WORK}")
    passed = sum(ok for _, ok in results)
    failed = len(results) - passed
    print(f"boot test: {time.monotonic() - T0:.0f} s")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not results else 0)
