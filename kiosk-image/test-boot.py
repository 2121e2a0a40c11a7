#!/usr/bin/env python3
"""Boot test of the wordjudge appliance image under QEMU (run by test-boot.sh).

ARCH=amd64 (default): boots the PC image through UEFI (OVMF + systemd-boot) on
q35 with a standard VGA display (bochs-drm: /dev/dri/card0).
ARCH=arm64: boots the Raspberry Pi image's own kernel and initrd (its boot/
folder) on qemu-system-aarch64 -M virt, with a virtio GPU (virtio-gpu DRM, for
Slint's linuxkms backend), a USB keyboard, and the kernel command line the Pi
gets with its serial console renamed for the virt board (ttyAMA0).
Both: the serial port as console, QMP (the QEMU monitor, for sendkey/
screendump/quit) and the QEMU guest agent on unix sockets; then checks,
printing one line per check (see README.md, "Boot test"):
  here:   verify-units.sh (systemd-analyze verify, sysusers);
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
          audit log; the journal kept boot 1; the director menu's "Power off" (the
          sandboxed kiosk running systemctl through polkit) powers the VM off.
"""
import base64, json, os, shutil, socket, subprocess, sys, time

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
                       "-vga", "std"]
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
                       "-device", "virtio-gpu-pci", "-device", "qemu-xhci", "-device", "usb-kbd"]
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
        rc, out = vm.sh("systemd-analyze verify wordjudge.service 2>&1; echo rc=$?")
        check("systemd-analyze verify wordjudge.service (in the image)", out.endswith("rc=0"), out.replace("\n", " | "))
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
