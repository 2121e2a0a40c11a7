"""JsonSocket, the JSON client for QMP (the QEMU monitor) and the QEMU guest agent; and VM,
one QEMU run of the image (amd64 through UEFI on q35, arm64 through U-Boot on virt)
and what the checks do to it: the serial console, keys and screendumps over QMP, shell
commands through the guest agent, USB sticks hot-plugged, the power cut."""
import base64
import json
import os
import socket
import subprocess
import time

from . import common, fleet, pifirmware
from .common import ACCEL, ARCH, OVMF_CODE, READY
from .screens import dominant, hexc, near


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



class SerialConsole:
    """A QEMU machine whose serial console is logged to the file self.console; the
    subclass sets self.console, self.proc (its QEMU) and self.started (when it began)."""

    def console_text(self):
        with open(self.console, "rb") as f:
            return f.read()

    def wait_console(self, needle, count=1, timeout=120):
        """Seconds from power-on until NEEDLE is on the console COUNT times; None if QEMU
        ended or TIMEOUT passed first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.console_text().count(needle) >= count:
                return time.monotonic() - self.started
            if self.proc.poll() is not None and not self.restarted_after_reset():
                return None
            time.sleep(0.2)
        return None

    def restarted_after_reset(self):
        """Whether the machine was started again after QEMU ended (VM, arm64); here never."""
        return False


class VM(SerialConsole):
    """One machine on the disk image DISK, from power-on until power_cut() or kill().
    amd64: OVMF and systemd-boot read the disk at every reset, as on a PC. arm64: the Pi
    firmware's part is emulated (pifirmware: U-Boot started with the card's command line in
    the device tree) and U-Boot's script chooses the slot from the card's counter, as on a
    Pi. QEMU runs with -no-reboot, and when the guest resets itself (a reboot, a panic) the
    machine is started again here, as the firmware would start U-Boot again: the same
    console log (appended), the same sticks plugged in, unless self.restart is False (the
    card then moves to another board: pi4.py)."""

    def __init__(self, disk, tag, firmware="pi4"):
        self.tag = tag
        self.disk = disk
        # arm64: whose firmware the -M virt machine plays: "pi4" (U-Boot's script counts the
        # A/B tries, as on the Pi 3 and Pi 4 families) or "pi5" (the Pi 5 firmware starts the
        # kernel itself, its tryboot flag the one-shot: pifirmware.pi5_start).
        self.firmware = firmware
        self.pi5_starts = []  # firmware "pi5": (file read, os_prefix) at each start
        self.console = os.path.join(common.WORK, f"console-{tag}.log")
        self.qmp_path = os.path.join(common.WORK, "qmp.sock")
        self.qga_path = os.path.join(common.WORK, "qga.sock")
        if os.path.exists(self.console):
            os.unlink(self.console)
        self.plugged = []  # node names of USB sticks plugged in (plug/unplug)
        self.images = {}   # node name -> image file, to plug them in again after a reset
        self.stopping = False  # power_cut() or kill(): QEMU's end is ours, not the guest's
        self.resets = 0    # arm64: how many times the guest reset the machine and it was started again
        self.restart = True  # arm64: start the machine again after a guest reset
        self.hangs = []    # amd64: the diagnosis of each boot that hung after the firmware (wait_console)
        self.started = time.monotonic()
        self._launch()

    def _launch(self):
        for p in (self.qmp_path, self.qga_path):
            if os.path.exists(p):
                os.unlink(p)
        accel = ["-accel", "kvm", "-cpu", "host"] if ACCEL == "kvm" else ["-accel", "tcg"]
        if ARCH == "amd64":
            machine = ["qemu-system-x86_64", *accel, "-machine", "q35", "-smp", "2", "-m", "1024",
                       "-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                       "-drive", f"if=pflash,format=raw,file={os.path.join(common.WORK, 'OVMF_VARS.fd')}",
                       "-vga", "std",
                       # q35 has no USB controller: the USB sticks plug into this one (bus xhci.0).
                       "-device", "qemu-xhci,id=xhci",
                       # An empty PCIe port: the touchscreen (virtio-multitouch-pci) is plugged into
                       # it for the touch checks only (touch.py), so every other check sees the
                       # station as it is without one.
                       "-device", "pcie-root-port,id=touchport,bus=pcie.0,chassis=9,slot=9"]
        elif self.firmware == "pi5":
            if ACCEL != "kvm":
                accel += ["-cpu", "cortex-a72"]
            start = pifirmware.pi5_start(self.disk, os.path.join(common.WORK, f"pi5-start-{self.tag}"))
            self.pi5_starts.append((start["config"], start["os_prefix"]))
            common.log(f"{self.tag}: Pi 5 firmware (emulated) read {start['config']}: {start['kernel']}, "
                       f"{start['initramfs']}, {start['cmdline']}")
            # The Pi 5's debug UART is ttyAMA10; the virt board's is the PL011, ttyAMA0. The
            # emulated firmware says so on the command line (its flag is on the card).
            cmdline = start["cmdline_text"].replace("console=ttyAMA10,", "console=ttyAMA0,") + " " + pifirmware.EMULATED_WORD
            machine = ["qemu-system-aarch64", *accel, "-machine", "virt", "-smp", "2", "-m", "1024",
                       "-device", "virtio-gpu-pci", "-device", "qemu-xhci,id=xhci", "-device", "usb-kbd"]
            dtb = pifirmware.virt_dtb(machine, cmdline, os.path.join(common.WORK, f"virt-{self.tag}.dtb"),
                                      pi5_tryboot=start["config"] == "tryboot.txt")
            machine += ["-dtb", dtb, "-kernel", start["kernel_file"], "-initrd", start["initrd_file"],
                        "-append", cmdline, "-no-reboot"]
        else:
            if ACCEL != "kvm":
                accel += ["-cpu", "cortex-a72"]
            # The Pi's UART on GPIO 14/15 is ttyS1; the virt board's is the PL011, ttyAMA0.
            cmdline = pifirmware.firmware_cmdline(self.disk).replace("console=ttyS1,", "console=ttyAMA0,")
            machine = ["qemu-system-aarch64", *accel, "-machine", "virt", "-smp", "2", "-m", "1024",
                       "-bios", common.virt_uboot(),
                       "-device", "virtio-gpu-pci", "-device", "qemu-xhci,id=xhci", "-device", "usb-kbd"]
            dtb = pifirmware.virt_dtb(machine, cmdline, os.path.join(common.WORK, f"virt-{self.tag}.dtb"))
            machine += ["-dtb", dtb, "-no-reboot"]
        cmd = [*machine,
               "-drive", f"file={self.disk},format=raw,if=virtio,cache=unsafe",
               "-display", "none", *(fleet.qemu_nic() if ARCH == "amd64" else ["-nic", "none"]),
               "-chardev", f"file,id=console,path={self.console},append=on", "-serial", "chardev:console",
               "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
               "-chardev", f"socket,path={self.qga_path},server=on,wait=off,id=qga0",
               "-device", "virtio-serial", "-device", "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=open(os.path.join(common.WORK, f"qemu-{self.tag}.log"), "ab"),
                                     stderr=subprocess.STDOUT)
        self.qmp = JsonSocket(self.qmp_path)
        self.qmp.recv(10)  # greeting
        self.qmp.call("qmp_capabilities")
        self.qga = None

    def restarted_after_reset(self):
        """arm64: if the guest reset the machine (QEMU ended by itself, and the kernel's last
        word was not "Power down"), starts it again as the Pi firmware would, sticks still
        plugged in; True if it did."""
        if ARCH == "amd64" or self.stopping or not self.restart or self.proc.poll() is None:
            return False
        if b"reboot: Power down" in self.console_text()[-400:]:
            return False
        images = [(n, self.images[n]) for n in self.plugged]
        self.plugged, self.images = [], {}
        self._launch()
        self.resets += 1
        chooser = "the Pi 5 firmware reads config.txt or tryboot.txt" if self.firmware == "pi5" else "U-Boot chooses the slot"
        common.log(f"{self.tag}: the guest reset the machine; started again ({chooser})")
        for node, image in images:
            self.plug(node, image)
        return True

    def slots(self):
        """arm64: what U-Boot's script chose at each start so far (pifirmware.uboot_choices)."""
        return pifirmware.uboot_choices(self.console_text())

    def wait_reset(self, timeout=300):
        """arm64: waits until the guest resets the machine and it is started again
        (restarted_after_reset); True if it was within TIMEOUT."""
        n = self.resets
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None and not self.restarted_after_reset():
                return False
            if self.resets > n:
                return True
            time.sleep(0.2)
        return False

    def chord(self, *names, hold=None):
        """Presses the keys together (QMP send-key; QEMU's default hold time unless `hold` ms)."""
        self.qmp.call("send-key", keys=[{"type": "qcode", "data": k} for k in names],
                      **({"hold-time": hold} if hold is not None else {}))

    def keys(self, *names, gap=0.08):
        for name in names:
            self.chord(name, hold=40)
            time.sleep(gap)

    def type_words(self, *words):
        """Types a challenge on the Ready screen, the number of words then the words, not yet judged."""
        self.keys(str(len(words)))
        time.sleep(0.3)
        for i, word in enumerate(words):
            if i:
                self.keys("spc")
            self.keys(*word.lower())

    def type_challenge(self, *words):
        self.type_words(*words)
        self.keys("tab")

    def screen(self, name):
        path = os.path.join(common.WORK, f"{self.tag}-{name}.ppm")
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

    def sh_detached(self, script):
        """Starts a shell command in the guest and does not wait for it: for a reboot, which
        takes the guest agent away before it could report the command's end."""
        self.agent().call("guest-exec", path="/bin/sh", arg=["-c", script])

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
        self.images[node] = image_path

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
        self.images.pop(node, None)

    def diagnose(self, name):
        """Where a machine that stopped answering is: a screendump, the first vCPU's
        instruction pointer (HMP `info registers`: firmware, boot loader or kernel) and the
        console's last lines; for the log when a boot does not reach READY."""
        parts = []
        try:
            colour, share = self.screen(name)
            parts.append(f"screen {name}.png: dominant {hexc(colour)} on {share:.0%}")
        except Exception as e:  # the diagnosis must never hide the failure it explains
            parts.append(f"screendump: {type(e).__name__}: {e}")
        try:
            parts.append("QEMU " + str(self.qmp.call("query-status", timeout=10).get("status")))
            regs = self.qmp.call("human-monitor-command", timeout=10, **{"command-line": "info registers"})
            parts.append(" ".join(w for w in regs.split() if w.startswith(("RIP=", "PC=", "pc"))) or regs[:80])
        except Exception as e:
            parts.append(f"QMP: {type(e).__name__}: {e}")
        tail = self.console_text()[-600:].decode(errors="replace").replace("\r", "").strip()
        parts.append("console tail: " + tail.replace("\n", " | "))
        return "; ".join(parts)

    # Seconds of silence on the console after the firmware started the boot loader before
    # a boot counts as hung: a boot shows nothing between "starting Boot0002" and READY
    # (the kernel is quiet), 40-85 s here, up to twice that on a loaded host.
    HANG_SECONDS = 200

    def wait_console(self, needle, count=1, timeout=120):
        """SerialConsole.wait_console, and on the PC image a boot hung after the firmware
        started the boot loader (the console's last line "starting Boot0002", nothing more
        for HANG_SECONDS) is diagnosed (diagnose()) and reset once, as an operator would
        (self.hangs keeps each diagnosis; the boot test reports them). Seen three times under
        TCG on a loaded 2-core host, never on the same boot twice: on a first boot, after a
        power cut, and after the boot check's reboot out of a failed trial (CI, stop 35);
        nothing on the console past "starting Boot0002", nothing written to the disk.
        TIMEOUT is stretched by the reset's wait, so the boot after it gets its full time."""
        deadline = time.monotonic() + timeout
        size, quiet_since = -1, time.monotonic()
        while time.monotonic() < deadline:
            text = self.console_text()
            if text.count(needle) >= count:
                return time.monotonic() - self.started
            if self.proc.poll() is not None and not self.restarted_after_reset():
                return None
            if len(text) != size:
                size, quiet_since = len(text), time.monotonic()
            elif (ARCH == "amd64" and time.monotonic() - quiet_since > self.HANG_SECONDS
                  and text.rstrip().splitlines()[-1:] and b"starting Boot" in text.rstrip().splitlines()[-1]):
                name = f"hang{len(self.hangs) + 1}"
                hung = self.diagnose(name)
                common.log(f"WARNING: {self.tag}: the boot hung after the firmware ({self.HANG_SECONDS} s silent); "
                           f"reset once: {hung}")
                self.hangs.append(hung)
                common.HANGS.append(f"{self.tag}: {hung}")
                self.qmp.call("system_reset")
                quiet_since = time.monotonic()
                deadline += self.HANG_SECONDS
            time.sleep(0.2)
        return None

    def wait_ready(self, name, timeout=300):
        """Waits for the kiosk's first READY after power-on: (seconds or None, detail); a
        hung boot is reset once by wait_console and named in the detail."""
        hangs = len(self.hangs)
        t = self.wait_console(READY, timeout=timeout)
        first = f" (after a reset: the first attempt hung: {self.hangs[hangs]})" if len(self.hangs) > hangs else ""
        return t, (f"{t:.1f} s after power-on{first}" if t else f"no READY within {timeout} s{first}")

    def power_cut(self):
        self.stopping = True
        try:
            self.qmp.call("quit", timeout=5)
        except (EOFError, OSError, RuntimeError):
            pass
        self.proc.wait(timeout=10)

    def kill(self):
        self.stopping = True
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
