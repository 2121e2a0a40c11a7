"""The station's network and the event's fleet.

nothing_listens: nothing listens on an address other than the loopback (the kernel's own
socket tables, /proc/net/*, read in the guest and judged here); on a station in no fleet
the fleet's uploader is installed and enabled but does not run (its ConditionPathExists=
on the fleet folder's upload.env fails).

fleet_upload (the PC): the station joins an event's fleet with a fleet stick made by
`wordjudge fleet setup` on the host (two visits: the request, then the certificate signed
by `wordjudge fleet sign`), and `wordjudge fleet serve` on the host's loopback receives its
journal. The guest's network is QEMU's user network with restrict=on: the one address it
can reach is the laptop's, 10.0.2.100:19532, forwarded (guestfwd) to the host's
127.0.0.1:FLEET_PORT; nothing else is ever a target. Checked: the station's challenges
arrive; the laptop down, two challenges judged, the laptop up: they arrive, in order, with
none missing; a laptop with another event's CA receives nothing; nothing listens while
the station sends; leaving the fleet sends its fleet_left record to the laptop, whose
`fleet status` then says the station left, and stops the uploader."""
import base64
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import time

from . import common
from .common import WJ, WJ_CONFIG, check, host_binary, host_tool, log

# /proc/net/tcp state 0A is LISTEN; an unconnected UDP socket (remote address all
# zeros) takes datagrams from anyone, so it counts as listening too.
TCP_LISTEN = "0A"


def _ipv4(hex_addr):
    """/proc/net's IPv4 address (one little-endian 32-bit word) as dotted quad."""
    return ".".join(str(int(hex_addr[i:i + 2], 16)) for i in (6, 4, 2, 0))


def _ipv6(hex_addr):
    """/proc/net's IPv6 address (four little-endian 32-bit words), as 8 hex groups."""
    raw = b"".join(bytes.fromhex(hex_addr[i:i + 8])[::-1] for i in range(0, 32, 8))
    return ":".join(raw[i:i + 2].hex() for i in range(0, 16, 2))


def _loopback(addr):
    if "." in addr:
        return addr.startswith("127.")
    groups = addr.split(":")
    if groups == ["0000"] * 7 + ["0001"]:  # ::1
        return True
    # ::ffff:127.x.x.x, an IPv4 loopback address mapped into IPv6.
    return groups[:6] == ["0000"] * 5 + ["ffff"] and int(groups[6], 16) >> 8 == 127


def listeners(tables):
    """[(proto, address, port)] of every listening socket bound to a non-loopback
    address, from the text of /proc/net/{tcp,tcp6,udp,udp6} (`tables`: name -> text)."""
    found = []
    for proto, text in tables.items():
        v6 = proto.endswith("6")
        for line in text.splitlines()[1:]:
            fields = line.split()
            if len(fields) < 4:
                continue
            local, remote, state = fields[1], fields[2], fields[3]
            addr_hex, port_hex = local.split(":")
            remote_addr = remote.split(":")[0]
            if proto.startswith("tcp") and state != TCP_LISTEN:
                continue
            if proto.startswith("udp") and int(remote_addr, 16) != 0:
                continue
            addr = _ipv6(addr_hex) if v6 else _ipv4(addr_hex)
            if not _loopback(addr):
                found.append((proto, addr, int(port_hex, 16)))
    return found


def nothing_listens(vm, joined=False):
    """Checks the guest's sockets and (in no fleet) that the uploader does not run."""
    tables = {}
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        rc, out = vm.sh(f"cat /proc/net/{proto} 2>/dev/null")
        tables[proto] = out
    read = all(t.strip() for t in (tables["tcp"], tables["udp"]))
    found = listeners(tables)
    check(f"nothing listens off the loopback{' while the station sends to the fleet' if joined else ''} "
          "(/proc/net/tcp, tcp6, udp, udp6 in the guest)",
          read and not found, f"listening: {found or 'none'}" if read else "could not read /proc/net")
    if joined:
        return
    rc, out = vm.sh("systemctl is-enabled wordjudge-fleet-upload.service; "
                    "systemctl show -p ActiveState -p ConditionResult wordjudge-fleet-upload.service; "
                    "systemctl is-enabled systemd-journal-remote.socket systemd-journal-gatewayd.socket 2>&1; "
                    "ls /var/lib/wordjudge/fleet 2>&1 | head -n 3")
    lines = out.split()
    check("fleet uploader installed and enabled, but not running on a station in no fleet "
          "(no upload.env); Debian's receiver sockets masked",
          lines[:1] == ["enabled"] and "ActiveState=inactive" in lines and "ConditionResult=no" in lines
          and lines.count("masked") == 2, out.replace("\n", " | "))


# The laptop as the station sees it, and the station's static address (QEMU's user network).
LAPTOP = "10.0.2.100:19532"
STATION_ADDRESS, GATEWAY = "10.0.2.15/24", "10.0.2.2"
FLEET_DIR = "/var/lib/wordjudge/fleet"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The host port behind the guest's 10.0.2.100:19532, chosen once per run (vm.py's -nic).
FLEET_PORT = free_port()


def qemu_nic():
    """amd64's -nic: virtio-net on QEMU's user network, restricted to the one forward."""
    host, port = LAPTOP.split(":")
    return ["-nic", f"user,model=virtio-net-pci,restrict=on,"
                    f"guestfwd=tcp:{host}:{port}-cmd:socat - TCP:127.0.0.1:{FLEET_PORT}"]


class Laptop:
    """`wordjudge fleet serve` on the host, into a folder of its own."""

    def __init__(self, ca_dir, out):
        self.out = out
        # The guest reaches the laptop's address (10.0.2.100) through QEMU's forward to the
        # host's loopback: the host has no such address, so serve listens on loopback.
        self.proc = subprocess.Popen([host_binary(), "fleet", "serve", "--ca-dir", ca_dir, "--port", str(FLEET_PORT),
                                      "--listen", "127.0.0.1", "--output", out], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(common.WORK, "fleet-serve.log"), "ab"))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", FLEET_PORT), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"fleet serve did not listen on {FLEET_PORT} (see fleet-serve.log)")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def challenges(self):
        """[(seq, challenge)] of the adjudications received, in the order received."""
        if not os.path.isdir(self.out) or not any(f.endswith(".journal") for f in os.listdir(self.out)):
            return []
        p = subprocess.run(["journalctl", "--no-pager", "-o", "json", f"--directory={self.out}",
                            "WORDJUDGE_EVENT=adjudication"], capture_output=True, text=True)
        got = []
        for line in p.stdout.splitlines():
            try:
                entry = json.loads(line)
                got.append((int(entry["WORDJUDGE_SEQ"]), int(entry["WORDJUDGE_CHALLENGE"])))
            except (ValueError, KeyError, TypeError):
                continue
        return got

    def entries(self):
        if not os.path.isdir(self.out) or not any(f.endswith(".journal") for f in os.listdir(self.out)):
            return 0
        p = subprocess.run(["journalctl", "--no-pager", "-o", "json", f"--directory={self.out}"],
                           capture_output=True, text=True)
        return sum(1 for l in p.stdout.splitlines() if l.startswith("{"))


def station_challenges(vm):
    """[(seq, challenge)] of the adjudications in the station's own journal: what the
    uploader has to send. (Its audit log may hold more: journald syncs every 10 s, so the
    power cut of boot 1 took the journal's last entries, never the log's.)"""
    rc, out = vm.sh("journalctl --no-pager -o json WORDJUDGE_EVENT=adjudication "
                    "--output-fields=WORDJUDGE_SEQ,WORDJUDGE_CHALLENGE", timeout=120)
    got = []
    for line in out.splitlines():
        try:
            entry = json.loads(line)
            got.append((int(entry["WORDJUDGE_SEQ"]), int(entry["WORDJUDGE_CHALLENGE"])))
        except (ValueError, KeyError, TypeError):
            continue
    return sorted(set(got))


def wait_for(what, timeout, every=3):
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(every)


def stick_visit(vm, image, stick_dir, shot):
    """The director's way: plugs the fleet stick, opens the director menu, opens its USB
    stick page and chooses "Join the event's fleet with ..." (row 3 with one stick: Back,
    install, export, join), confirms it (ENTER 1.5 s after the confirmation appeared), waits
    for the kiosk's journal line, returns to Ready, pulls the stick, and copies the stick's
    fleet folder back to stick_dir. The kiosk's line about the visit."""
    from .kiosk import leave_to_ready, menu_confirm
    from .sticks import STICK_JOIN, journal_count, plug_and_choose, wait_journal
    n = journal_count(vm, "fleet: ")
    try:
        if not plug_and_choose(vm, "fleet", image, "WJFLEET", "fleet stick (FAT32)", STICK_JOIN):
            return "stick not seen"
        vm.screen(f"fleet-{shot}-confirm")
        menu_confirm(vm)
        t, line = wait_journal(vm, "fleet: ", n, timeout=90)
        # A kiosk slowed by a loaded host may take the confirmation's ENTER inside its
        # first 0.6 s (the guard against a key pressed twice) and ignore it, as it
        # should; the director then presses ENTER again. ENTER on the stick's working
        # screen waits, so pressing it again while the visit runs changes nothing.
        for again in range(1, 3):
            if t is not None:
                break
            vm.screen(f"fleet-{shot}-no-answer-{again}")
            menu_confirm(vm)
            t, line = wait_journal(vm, "fleet: ", n, timeout=90)
            line = f"{line} (ENTER again, {again}x)" if t is not None else line
        time.sleep(1)
        vm.screen(f"fleet-{shot}")
        leave_to_ready(vm, 3)  # the result screen -> the USB stick page -> the first page -> leave
    finally:
        vm.unplug("fleet")
    shutil.rmtree(os.path.join(stick_dir, "wordjudge"), ignore_errors=True)
    subprocess.run(["mcopy", "-s", "-m", "-i", image, "::/wordjudge", stick_dir + "/"], check=True, capture_output=True)
    return line.strip() if t is not None else "no 'fleet:' line from the kiosk within 270 s (ENTER pressed 3 times)"


def fleet_upload(vm, judge):
    """The station joins the fleet and sends; `judge(words)` judges a challenge on screen."""
    if not (host_tool("socat") and host_tool("openssl") and os.path.exists("/usr/lib/systemd/systemd-journal-remote")):
        check("fleet: the host has socat, openssl and systemd-journal-remote (.ci/install-deps)", False)
        return
    work = os.path.join(common.WORK, "fleet")
    shutil.rmtree(work, ignore_errors=True)
    stick_dir, ca, other_ca = (os.path.join(work, n) for n in ("stick", "ca", "other-ca"))
    os.makedirs(stick_dir)
    wj = host_binary()
    setup = subprocess.run([wj, "fleet", "setup", "--event", "Boot test event", "--laptop", LAPTOP, "--stick", stick_dir,
                            "--address", STATION_ADDRESS, "--gateway", GATEWAY, "--ca-dir", ca],
                           capture_output=True, text=True)
    other_stick = os.path.join(work, "other-stick")
    os.makedirs(other_stick)
    other = subprocess.run([wj, "fleet", "setup", "--event", "Another event", "--laptop", LAPTOP, "--stick", other_stick,
                            "--ca-dir", other_ca], capture_output=True, text=True)
    if not check("fleet: `wordjudge fleet setup` on the host makes the event's CA and the fleet stick",
                 setup.returncode == 0 and other.returncode == 0, (setup.stdout + setup.stderr + other.stderr)[-300:]):
        return
    image = os.path.join(common.WORK, "stick-fleet.img")
    if os.path.exists(image):
        os.unlink(image)
    with open(image, "wb") as f:
        f.truncate(64 << 20)  # mtools reads no FAT32 under 64 MiB
    subprocess.run([host_tool("mkfs.vfat"), "-F", "32", "-n", "WJFLEET", image], check=True, capture_output=True)
    subprocess.run(["mcopy", "-s", "-m", "-i", image, os.path.join(stick_dir, "wordjudge"), "::/"], check=True,
                   capture_output=True)

    # Visit 1: a request on the stick, the key on the station; the laptop signs it.
    first = stick_visit(vm, image, stick_dir, "requested")
    rc, key = vm.sh(f"stat -c '%U %a' {FLEET_DIR}/station.key; ls {FLEET_DIR}")
    requested = os.path.isfile(os.path.join(stick_dir, "wordjudge", "fleet", "requests", "boot-test.csr"))
    check("fleet: the director menu's first visit of the stick leaves a request on it; the key stays on the "
          "station (the kiosk's, 600)",
          "fleet request for boot-test left on it" in first and requested and key.startswith("wordjudge 600"),
          f"{first} | key: {key}".replace("\n", " | "))
    # Pairing: the code the station showed and recorded is the one the laptop computes from
    # the request on the stick; the director confirms it (`--accept`), nothing is signed
    # without it.
    # The code is the station's audit key's: the first line of the request's binding
    # (requests/boot-test.bind) is that key as a note verifier key,
    # name+keyid+base64(0x01 || 32-byte Ed25519 key); the code is the first 16 hex
    # digits of the key's SHA-256, in groups of four.
    binding = os.path.join(stick_dir, "wordjudge", "fleet", "requests", "boot-test.bind")
    try:
        with open(binding) as f:
            verifier = f.readline().strip()
        raw = base64.b64decode(verifier.split("+", 2)[2])[1:]
        digest = hashlib.sha256(raw).hexdigest()
        code = "-".join([digest[0:4], digest[4:8], digest[8:12], digest[12:16]])
    except (OSError, IndexError, ValueError) as e:
        code = f"(no binding: {e})"

    shown = re.search(r"station key code ([0-9A-F]{4}(?:-[0-9A-F]{4}){3})", first)
    check("fleet: the station shows and records the request's station key code, the one the laptop computes from it",
          shown is not None and shown.group(1).lower() == code, f"station: {shown.group(1) if shown else first} | laptop: {code}")
    unconfirmed = subprocess.run([wj, "fleet", "sign", "--ca-dir", ca, "--stick", stick_dir], capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL)
    check("fleet: `fleet sign` without the director's confirmation signs nothing",
          unconfirmed.returncode != 0 and "waiting" in unconfirmed.stdout + unconfirmed.stderr
          and not os.path.exists(os.path.join(stick_dir, "wordjudge", "fleet", "certificates", "boot-test.pem")),
          (unconfirmed.stdout + unconfirmed.stderr).replace("\n", " | ")[:300])
    sign = subprocess.run([wj, "fleet", "sign", "--ca-dir", ca, "--stick", stick_dir, "--accept", f"boot-test={code}"],
                          capture_output=True, text=True)
    subprocess.run(["mcopy", "-s", "-o", "-m", "-i", image, os.path.join(stick_dir, "wordjudge"), "::/"], check=True,
                   capture_output=True)
    # Visit 2: the certificate is checked and installed, and the kiosk starts the units
    # (polkit); the laptop is not up yet, so the uploader tries again every 30 s.
    second = stick_visit(vm, image, stick_dir, "joined")
    rc, files = vm.sh(f"ls {FLEET_DIR}; cat {FLEET_DIR}/upload.env; "
                      f"cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -F '\"event\":\"fleet_joined\"' | tail -n1")
    laptop_fp = subprocess.run(["openssl", "x509", "-in", os.path.join(ca, "laptop.pem"), "-noout", "-fingerprint",
                                "-sha256"], capture_output=True, text=True).stdout.split("=")[-1].strip().replace(":", "").lower()
    check("fleet: `fleet sign` on the host, then the second visit joins: fleet_joined recorded with the laptop's "
          "certificate fingerprint, upload.env and wired.network written",
          sign.returncode == 0 and "joined Boot test event as boot-test" in second and "upload.env" in files
          and "wired.network" in files and f'"laptop_sha256":"{laptop_fp}"' in files,
          f"sign: {sign.stdout.strip()} | {second} | {files[-300:]}".replace("\n", " | "))

    laptop = Laptop(ca, os.path.join(work, "received"))
    try:
        rc, out = vm.sh("systemctl is-active wordjudge-fleet-network.service wordjudge-fleet-upload.service", timeout=90)
        ours = station_challenges(vm)
        arrived = wait_for(lambda: ours and set(ours) <= set(laptop.challenges()), 120)
        got = laptop.challenges()
        check("fleet: the station's journal arrives at the laptop: every adjudication in it, with its seq",
              arrived, f"units: {out.split()}; station {len(ours)} challenges (last {ours[-1] if ours else None}); "
                       f"received {len(got)} (last {got[-1] if got else None}); {laptop.entries()} entries")
        nothing_listens(vm, joined=True)

        # The laptop goes away; two challenges are judged; it comes back.
        laptop.stop()
        before = station_challenges(vm)
        judge(["CAT"])
        judge(["ZEBRA"])
        time.sleep(5)
        during = laptop.challenges()
        laptop = Laptop(ca, laptop.out)
        after = station_challenges(vm)
        new = [c for c in after if c not in before]
        caught_up = wait_for(lambda: set(after) <= set(laptop.challenges()), 150)
        got = laptop.challenges()
        first_seen = []
        for c in got:  # an entry sent twice (an upload cut mid-way) counts where it first came
            if c in new and c not in first_seen:
                first_seen.append(c)
        missing = sorted(set(after) - set(got))
        check("fleet: laptop down while 2 challenges are judged, then up: both arrive, in order; "
              "every challenge the station judged is on the laptop",
              len(new) == 2 and caught_up and first_seen == sorted(new) and not missing and len(during) < len(after),
              f"new {new}, arrived in the order {first_seen}; received while down {len(during)}, after {len(got)}; "
              f"missing {missing or 'none'}")
        laptop.stop()
        # The director's view of what arrived: `fleet status` on the received journal, and
        # its page as a browser would be given it.
        page = os.path.join(work, "fleet.html")
        status = subprocess.run([wj, "fleet", "status", "--dir", laptop.out, "--html", page, "--ca-dir", ca],
                                capture_output=True, text=True)
        row = next((l for l in status.stdout.splitlines() if l.startswith("Boot test")), "")
        last = max((n for _, n in after), default=None)
        rc, active = vm.sh(f"{WJ_CONFIG} config show 2>/dev/null | sed -n 's/^active_lexicon = \"\\(.*\\)\"$/\\1/p'")
        active = active.strip()
        # Shown only because every record verified under the audit key `fleet sign` paired
        # with the station: its line, sealed, with a checkpoint signed by that key.
        check("fleet: `wordjudge fleet status` on what arrived names the station, its lexicon and its last challenge, "
              "every record verified under the paired audit key",
              status.returncode == 0 and f"#{last} at" in row and active and f" {active} " in row
              and "NOT ITS RECORDS" not in row and "REFUSED" not in status.stdout and os.path.isfile(page),
              f"exit {status.returncode}: {row or (status.stdout + status.stderr)[-300:]}")

        # A laptop with another event's CA: the station does not send to it.
        stranger = Laptop(other_ca, os.path.join(work, "received-other"))
        try:
            judge(["DOG"])
            rc, _ = vm.sh("systemctl restart wordjudge-fleet-upload.service")
            time.sleep(40)
            rc, why = vm.sh("journalctl -u wordjudge-fleet-upload -o cat --no-pager -n 40 | "
                            "grep -iE 'certificate|ssl|tls|curl|peer' | tail -n 2")
            check("fleet: a laptop with another event's CA receives nothing",
                  stranger.entries() == 0, f"{stranger.entries()} entries received; uploader: {why.strip()}"[:400])
        finally:
            stranger.stop()
        # The event's laptop again; the uploader (in its 30 s wait after the stranger's
        # refusal) catches up with DOG before the director leaves.
        laptop = Laptop(ca, laptop.out)
        ours = station_challenges(vm)
        wait_for(lambda: set(ours) <= set(laptop.challenges()), 150)

        # Leaving, from the menu (no stick): the first page's "Event fleet" (row 2), its
        # "Leave the fleet of …" (row 1, after Back), then ENTER at the confirmation after
        # 1.5 s: the kiosk removes the files and records fleet_left at once, and stops the
        # units (polkit) once the uploader has sent that record (or 15 s on).
        from .kiosk import leave_to_ready, menu_choose, menu_confirm, menu_open_page, open_director_menu
        open_director_menu(vm)
        menu_open_page(vm, "fleet")
        menu_choose(vm, 1)
        vm.screen("fleet-leave-confirm")
        menu_confirm(vm)
        time.sleep(2)
        vm.screen("fleet-left")
        leave_to_ready(vm, 2)  # the Event fleet page -> the first page -> leave
        units = "systemctl show -p ActiveState wordjudge-fleet-upload.service wordjudge-fleet-network.service"
        stopped = wait_for(lambda: vm.sh(units)[1].count("ActiveState=inactive") == 2, 40, every=2)
        rc, out = vm.sh(f"ls -A {FLEET_DIR}; {units}; "
                        "cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -cF '\"event\":\"fleet_left\"'; "
                        f"{common.KIOSK_JOURNAL} | grep -F 'fleet: uploader stopped' | tail -n 1", timeout=60)
        check("fleet: the director menu leaves the fleet (Event fleet page, confirmed): fleet_left recorded, key, "
              "certificates and settings removed, both units stopped once the record was sent",
              stopped and "fleet_left record)" in out and "the laptop took" in out
              and "upload.env" not in out and "station.key" not in out and out.count("ActiveState=inactive") == 2,
              out.replace("\n", " | "))
        # The laptop's view: the station left, with the time it did.
        left = wait_for(lambda: subprocess.run(["journalctl", "--no-pager", "-o", "cat", f"--directory={laptop.out}",
                                                "WORDJUDGE_EVENT=fleet_left"], capture_output=True, text=True).stdout, 30)
        status = subprocess.run([wj, "fleet", "status", "--dir", laptop.out, "--ca-dir", ca],
                                capture_output=True, text=True)
        row = next((l for l in status.stdout.splitlines() if l.startswith("Boot test")), "")
        check("fleet: the station's fleet_left record reaches the laptop before the uploader stops; "
              "`fleet status` says it left the fleet",
              left and "left the fleet" in row, f"fleet_left received: {bool(left)}; {row or status.stdout[-300:]}")
    finally:
        laptop.stop()
