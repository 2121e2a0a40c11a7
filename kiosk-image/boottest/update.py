"""A/B updates (kiosk-image/update/: RAUC, the boot-loader back-end, the boot check) on the
PC image (systemd-boot) and on the Pi card (U-Boot's A/B counter, kiosk-image/pi-boot/boot.cmd,
run at every start of -M virt: pifirmware, VM), tested the way they break:
  boot 2 (update_refusals): bundles signed by another key, truncated, or made for the other
          architecture are refused with RAUC's reason, and nothing changes (boot entries,
          one-shot variable, slot B's first MiB, the data partition's files); a stick pulled
          mid-install is refused cleanly (same kiosk, same boot entries);
  boot 3 (update_power_cut): the power is cut mid-install;
  boot 4 (update_install): slot A still boots, the audit log verifies and kept every
          verdict; the good bundle installs from the stick (the kiosk's user asking RAUC
          over D-Bus); reboot into B through the one-shot; READY; the boot check marks B
          good (RAUC's primary, loader.conf's default); the release is the bundle's; the data
          partition is the same; a new challenge is numbered above every one before;
          then a bundle whose kiosk cannot start goes into A, its trial boot fails three
          kiosk starts, the boot check marks it bad and the station is back on B by itself;
          (amd64, downgrade_with_pin) then the image's own, older release from the director
          menu: a wrong PIN installs nothing, the director PIN installs it, and the station
          restarts into A on the older release;
  (arm64, update_panic) then a bundle whose kernel never reaches user space (PID 1 exits at
          once: the kernel panics) from the director menu; the station's own restart ends
          the -M virt run, and the card goes on, hands off, on the Pi 4 board model
          (pi4.py): U-Boot spends the new slot's one try, the panic resets the board, U-Boot
          boots the previous slot, and the boot check records the rollback.
The bundles are made here from the image's own root filesystem (build-bundle.sh): the good
one with its release bumped, the bad one with /usr/bin/wordjudge-kiosk replaced by a script that
exits 1, with debugfs on copies."""
import json
import os
import re
import subprocess
import time

from . import common
from .common import ARCH, GREEN, HERE, READY, WJ_CONFIG, check, host_tool, log
from .kiosk import open_director_menu, ready_after
from .screens import judge_and_check
from .sticks import STICK_UPDATE, blank_image, choose_stick_item, journal_count, wait_journal, wait_stick_seen

STICK = "/run/wordjudge/stick"
AS_KIOSK = "runuser -u wordjudge --"
OTHER_ARCH = "arm64" if ARCH == "amd64" else "amd64"
# What decides the next boot, read in the guest: the PC's boot entries, loader.conf's default
# and the one-shot variable; the Pi's U-Boot counter (fw_printenv: wjboot.env).
SWITCH_STATE = {
    "amd64": "ls /efi/loader/entries; grep ^default /efi/loader/loader.conf; "
             "ls /sys/firmware/efi/efivars | grep -c LoaderEntryOneShot",
    "arm64": "fw_printenv BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT",
}[ARCH]
# ... as the image was built (slot A the default, nothing pending; on the Pi, A's tries
# given back by the boot check at every boot).
SWITCH_AS_BUILT = {
    "amd64": ["wordjudge-a.conf", "default", "wordjudge-a.conf", "0"],
    "arm64": ["BOOT_ORDER=A", "BOOT_A_LEFT=3", "BOOT_B_LEFT=0"],
}[ARCH]
MAX_CHALLENGE = ("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -o '\"challenge\":[0-9]*' "
                 "| cut -d: -f2 | sort -n | tail -n1")


def _bump(version, step):
    parts = version.split(".")
    parts[-1] = str(int(parts[-1]) + step) if parts[-1].isdigit() else parts[-1] + f"-{step}"
    return ".".join(parts)


def _debugfs(fs, *commands):
    script = os.path.join(common.WORK, "debugfs.cmd")
    with open(script, "w") as f:
        f.write("\n".join(commands) + "\n")
    subprocess.run([host_tool("debugfs"), "-w", "-f", script, fs], check=True, capture_output=True)


def make_bundles():
    """The bundles and the stick image holding them, in WORK/bundles; returns {name: path}
    and the versions. Timed: bundle creation is part of what docs/measured.md reports."""
    work = common.WORK
    rootfs = os.path.join(os.path.dirname(os.path.abspath(common.IMG)), "rootfs.ext4")
    out = os.path.join(work, "bundles")
    subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    release = subprocess.run([host_tool("debugfs"), "-R", "cat /etc/wordjudge-release", rootfs],
                             capture_output=True, text=True).stdout
    base = dict(l.split("=", 1) for l in release.splitlines() if "=" in l).get("VERSION", "0.0.0")
    versions = {"base": base, "good": _bump(base, 1), "bad": _bump(base, 2), "panic": _bump(base, 3)}
    env = {**os.environ, "UPDATE_KEY": os.path.join(work, "update-key.pem"),
           "UPDATE_CERT": os.path.join(work, "update-cert.pem")}

    def variant(name, version, *extra):
        fs = os.path.join(out, f"rootfs-{name}.ext4")
        subprocess.run(["cp", "--sparse=always", rootfs, fs], check=True)
        rel = os.path.join(out, "release")
        with open(rel, "w") as f:
            f.write(f"VERSION={version}\nARCH={ARCH}\n")
        _debugfs(fs, "rm /etc/wordjudge-release", f"write {rel} /etc/wordjudge-release", *extra)
        return fs

    def bundle(name, fs, **kw):
        t0 = time.monotonic()
        path = os.path.join(out, f"{name}.raucb")
        p = subprocess.run(["bash", os.path.join(HERE, "build-bundle.sh")], env={**env, "ROOTFS": fs, "BUNDLE": path, **kw},
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"build-bundle.sh {name}: {p.stderr[-500:]}")
        log(f"bundle {name}: {os.path.getsize(path) / 2**20:.1f} MiB in {time.monotonic() - t0:.0f} s")
        return path

    bundles = {"good": bundle("good", variant("good", versions["good"]))}
    broken = os.path.join(out, "wordjudge-broken")
    with open(broken, "w") as f:
        f.write("#!/bin/sh\necho 'wordjudge boot test: this release cannot start' >&2\nexit 1\n")
    os.chmod(broken, 0o755)
    if common.FULL:  # the rollback, which BOOT_TESTS=ci leaves out (common.SCOPE)
        bundles["bad"] = bundle("bad", variant("bad", versions["bad"], "rm /usr/bin/wordjudge-kiosk",
                                               f"write {broken} /usr/bin/wordjudge-kiosk",
                                               "sif /usr/bin/wordjudge-kiosk mode 0100755"))
    if ARCH == "arm64":
        # A kernel that never reaches user space: PID 1 (/sbin/init) is /bin/false, which
        # exits at once, and the kernel panics ("Attempted to kill init"); panic=10 resets
        # the board. (A relative link: the initrd checks init= inside the new root.)
        bundles["panic"] = bundle("panic", variant("panic", versions["panic"], "rm /usr/sbin/init",
                                                   "symlink /usr/sbin/init ../bin/false"))
    bundles["wrongarch"] = bundle("wrongarch", os.path.join(out, "rootfs-good.ext4"), COMPATIBLE=f"wordjudge-{OTHER_ARCH}")
    if ARCH == "amd64" and common.FULL:
        # The release the image has, for the downgrade at the end (downgrade_with_pin): once
        # the station runs the good bundle's, this one is OLDER. The PC only: its boot test
        # runs beside the cross-build, which takes longer, so the step costs no CI time.
        bundles["old"] = bundle("old", variant("old", versions["base"]))
    # Signed by a key the station does not trust: the good bundle, re-signed.
    bundles["wrongkey"] = os.path.join(out, "wrongkey.raucb")
    subprocess.run(["rauc", f"--keyring={env['UPDATE_CERT']}", f"--signing-keyring={os.path.join(work, 'other-cert.pem')}",
                    f"--cert={os.path.join(work, 'other-cert.pem')}",
                    f"--key={os.path.join(work, 'other-key.pem')}", "resign", bundles["good"], bundles["wrongkey"]],
                   check=True, capture_output=True)
    bundles["truncated"] = os.path.join(out, "truncated.raucb")
    with open(bundles["good"], "rb") as src, open(bundles["truncated"], "wb") as dst:
        dst.write(src.read(os.path.getsize(bundles["good"]) // 2))
    for name in ("good", "bad", "wrongarch", "old", "panic"):
        os.unlink(os.path.join(out, f"rootfs-{name}.ext4")) if os.path.exists(os.path.join(out, f"rootfs-{name}.ext4")) else None
    check("update bundles built from the image's root filesystem (build-bundle.sh), one re-signed by another key, one cut short",
          all(os.path.getsize(p) > 0 for p in bundles.values()),
          ", ".join(f"{n} {os.path.getsize(p) / 2**20:.0f} MiB" for n, p in bundles.items()))
    # Three ext4 sticks: every bundle (for rauc install as the kiosk's user), and one
    # with only the good or only the bad bundle (for the director menu, which offers the
    # newest bundle a stick holds).
    sticks = {}
    labels = [("WJUPDATE", [n for n in bundles if n not in ("old", "panic")]), ("WJGOOD", ["good"])]
    if "bad" in bundles:
        labels.append(("WJBAD", ["bad"]))
    if "old" in bundles:
        labels.append(("WJOLD", ["old"]))
    if "panic" in bundles:
        labels.append(("WJPANIC", ["panic"]))
    for label, names in labels:
        stick_dir = os.path.join(out, "stick")
        os.makedirs(stick_dir)
        for name in names:
            os.link(bundles[name], os.path.join(stick_dir, f"{name}.raucb"))
        size = sum(os.path.getsize(bundles[n]) for n in names) >> 20
        sticks[label] = blank_image(f"stick-{label.lower()}.img", size + 64,
                                    [host_tool("mkfs.ext4"), "-q", "-F", "-L", label, "-E", "root_owner=0:0", "-d", stick_dir])
        subprocess.run(["rm", "-rf", stick_dir], check=True)
    return bundles, versions, sticks


def attach_stick(vm, node, sticks):
    """Plugs the stick holding every bundle in and mounts it for the kiosk (the import unit,
    started by the kiosk's user through polkit, as the director menu does). Returns the
    kernel name or None."""
    vm.plug(node, sticks["WJUPDATE"])
    seen, props = wait_stick_seen(vm, "WJUPDATE")
    if not seen:
        check("update stick plugged in: udev marks it WORDJUDGE_STICK=1", False, props)
        return None
    kname = next((p.split("=", 1)[1].rsplit("/", 1)[-1] for p in props.split() if p.startswith("DEVNAME=")), "")
    rc, out = vm.sh(f"{AS_KIOSK} systemctl start --no-ask-password wordjudge-stick-import@{kname}.service 2>&1; "
                    f"ls {STICK}", timeout=90)
    if rc != 0 or "good.raucb" not in out:
        check("update stick mounted for the kiosk (wordjudge-stick-import@)", False, out.replace("\n", " | "))
        return None
    return kname


def boot_state(vm):
    """What an update must not change until it succeeds: what decides the next boot
    (SWITCH_STATE), slot B's first MiB, the data partition's wordjudge files."""
    rc, out = vm.sh(f"{SWITCH_STATE}; "
                    "head -c 1048576 /dev/disk/by-partlabel/wjroot-b | sha256sum | cut -c1-16; "
                    "find /var/lib/wordjudge/lexicons /var/lib/wordjudge/config.toml -type f -exec sha256sum {} + | sort | sha256sum | cut -c1-16")
    return out.strip()


def rauc_status(vm):
    rc, out = vm.sh("rauc status --output-format=json 2>/dev/null")
    try:
        return json.loads(out)
    except ValueError:
        return {"error": out[-200:]}


def _install(vm, name, timeout=900):
    """`rauc install` of a bundle on the stick as the kiosk's user (RAUC, root, over D-Bus).
    Returns (exit code, output, seconds)."""
    t0 = time.monotonic()
    rc, out = vm.sh(f"{AS_KIOSK} rauc install {STICK}/{name}.raucb 2>&1", timeout=timeout)
    return rc, out, time.monotonic() - t0


def update_refusals(vm, bundles, sticks):
    """Boot 2: the three bundles a station must refuse, and a stick pulled mid-install."""
    kname = attach_stick(vm, "upd1", sticks)
    if not kname:
        return
    st = rauc_status(vm)
    check(f"RAUC on the station: compatible wordjudge-{ARCH}, booted from slot A, A primary",
          st.get("compatible") == f"wordjudge-{ARCH}" and st.get("booted") == "A" and st.get("boot_primary") == "rootfs.0",
          json.dumps({k: st.get(k) for k in ("compatible", "booted", "boot_primary", "error")}))
    before = boot_state(vm)
    pid = vm.sh("systemctl show -P MainPID wordjudge")[1]
    for name, want, what in (("wrongkey", "signature", "a bundle signed by another key"),
                             ("truncated", "", "a truncated bundle"),
                             ("wrongarch", "compatible", f"a bundle for the other architecture (wordjudge-{OTHER_ARCH})")):
        rc, out, t = _install(vm, name, timeout=180)
        after = boot_state(vm)
        # RAUC's reason is the line before its closing "Installing ... failed".
        reason = " / ".join(l.strip() for l in out.strip().splitlines()[-2:]) if out.strip() else ""
        check(f"update refused: {what}; nothing changed", rc != 0 and want in out.lower() and after == before,
              f"exit {rc}: {reason[-160:]}; state {'unchanged' if after == before else before + ' -> ' + after}".replace("\n", " | "))
    # The kiosk's user may ask for an install, never decide which slot boots.
    rc, out = vm.sh(f"{AS_KIOSK} rauc status mark-active other 2>&1; {AS_KIOSK} rauc status mark-good other 2>&1")
    after = boot_state(vm)
    rejected = sorted(set(re.findall(r'member="([A-Za-z]+)"', out)))
    check("the kiosk's user cannot mark a slot active or good (D-Bus policy: install and inspect only: RAUC's Mark is rejected)",
          rejected == ["Mark"] and after == before,
          f"rejected: {rejected}; state {'unchanged' if after == before else 'CHANGED'}; {out[-120:]}".replace("\n", " | "))
    # Pulled mid-install: RAUC reads the bundle as it writes slot B; the stick goes away.
    progress = install_until(vm, "/tmp/pull.log", 25)
    vm.unplug("upd1")
    deadline = time.monotonic() + 180
    out = ""
    while time.monotonic() < deadline:
        rc, out = vm.sh("cat /tmp/pull.log")
        if "exit=" in out:
            break
        time.sleep(1)
    vm.sh(f"{AS_KIOSK} systemctl stop --no-ask-password wordjudge-stick-import@{kname}.service", timeout=90)
    rc, entries = vm.sh(SWITCH_STATE)
    pid_after = vm.sh("systemctl show -P MainPID wordjudge")[1]
    failed = "exit=0" not in out and "exit=" in out
    # Pulled while RAUC was still writing: an install that had already ended (100 %: done
    # or failed on its own) would prove nothing.
    mid = progress != "?" and int(progress.rstrip("%")) < 100
    check(f"update refused: the stick pulled mid-install (at {progress}); A stays the default, "
          "no trial boot, same kiosk", mid and failed and entries.split() == SWITCH_AS_BUILT
          and pid_after == pid, f"{out.strip().splitlines()[-2:] if out.strip() else 'no output'}; {entries.split()}; pid {pid} -> {pid_after}")
    log(f"after the pulled stick, rauc status: {json.dumps(rauc_status(vm).get('slots', ''))[:300]}")


def install_until(vm, log_file, percent, timeout=180):
    """Starts `rauc install` of the good bundle as the kiosk's user in the background (its
    output and then `exit=N` in log_file) and returns once RAUC reports `percent` % or more:
    the progress reached ("?" if none within timeout)."""
    vm.sh(f"rm -f {log_file}; setsid sh -c '{AS_KIOSK} rauc install {STICK}/good.raucb >{log_file} 2>&1; "
          f"echo exit=$? >>{log_file}' >/dev/null 2>&1 &")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rc, progress = vm.sh(f"grep -oE '[0-9]+%' {log_file} | tail -n1")
        if progress.strip() and int(progress.strip().rstrip("%")) >= percent:
            return progress.strip()
        time.sleep(0.5)
    return "?"


def update_power_cut(vm, sticks):
    """Boot 3: the power is cut while RAUC writes slot B."""
    kname = attach_stick(vm, "upd2", sticks)
    if not kname:
        return False
    progress = install_until(vm, "/tmp/cut.log", 40)
    vm.power_cut()
    return check(f"the power is cut mid-install (RAUC at {progress})", progress != "?" and int(progress.rstrip("%")) < 100,
                 "an install that had already ended would prove nothing" if progress in ("?", "100%") else "")


# The kiosk's journal line once it has looked at a stick for update bundles (in the
# background, with `rauc info`, while the director menu is open): only then is one offered.
LOOKED_AT = "update: looked at"


def wait_offered(vm, before):
    """After the director menu opens with a stick plugged in: waits for the kiosk to say it
    looked at the stick for bundles (more than `before` such lines), then for the menu's
    next refresh to offer what it found."""
    waited, line = wait_journal(vm, LOOKED_AT, before, timeout=120, every=1)
    log(f"stick looked at for bundles after {waited if waited is None else round(waited)} s: {line[-120:]}")
    time.sleep(1.5)


def menu_confirm_install(vm, node, stick, label):
    """The director's way, up to the install: plug the stick in, open the director menu,
    open its USB stick page and choose "Install update: version X" (row 4 with one stick:
    Back, install, export, join, update), look at the preview, confirm with ENTER. Returns
    the time of the ENTER, or None when the stick was not seen."""
    n_looked = journal_count(vm, LOOKED_AT)
    vm.plug(node, stick)
    seen, props = wait_stick_seen(vm, label)
    if not check(f"stick {label} plugged in: udev marks it WORDJUDGE_STICK=1", seen, props):
        return None
    open_director_menu(vm)
    wait_offered(vm, n_looked)
    vm.screen(f"update-menu-{label}")
    n_checked = journal_count(vm, "copied and checked")
    choose_stick_item(vm, STICK_UPDATE)
    # The bundle is copied onto the station (what is previewed is what installs), checked
    # (signature, compatible) and previewed: the kiosk logs it; then ENTER confirms.
    waited, line = wait_journal(vm, "copied and checked", n_checked, timeout=300)
    log(f"bundle copied, checked and previewed after {waited if waited is None else round(waited)} s: {line[-160:]}")
    time.sleep(2)
    vm.screen(f"update-preview-{label}")
    vm.keys("ret")
    return time.monotonic()


def audit_events(vm, pattern):
    """The audit records whose event matches the regular expression `pattern`, in order."""
    rc, lines = vm.sh(f"cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -E '\"event\":\"({pattern})\"'")
    return [json.loads(l) for l in lines.splitlines() if l.startswith("{")]


def wait_rauc_progress(vm, percent, timeout=180):
    """Waits until RAUC's service is installing and at `percent` % or more (its D-Bus
    properties): the progress reached, or "" if not within timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rc, out = vm.sh("busctl get-property de.pengutronix.rauc / de.pengutronix.rauc.Installer Operation Progress")
        m = re.search(r'\(isi\) (\d+) "', out)
        if '"installing"' in out and m and int(m.group(1)) >= percent:
            return m.group(1) + "%"
        time.sleep(0.5)
    return ""


def install_records(vm, n_started, pattern, timeout=300):
    """Waits until the install begun after the first n_started update_started records has
    ended in the audit log; returns its records matching `pattern`, from update_started
    on (empty if it never started)."""
    after, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        records = audit_events(vm, pattern)
        starts = [i for i, r in enumerate(records) if r["event"] == "update_started"]
        after = records[starts[-1]:] if len(starts) > n_started else []
        if any(r["event"] in ("update_installed", "update_failed") for r in after):
            break
        time.sleep(2)
    return after


def disk_full_mid_install(vm, node, stick, label, version):
    """The data partition filled to its last block (as root: ext4's reserved blocks too)
    while RAUC writes slot B for the director's install. RAUC cannot write its slot status
    there at the end and fails the install; the kiosk records why (update_failed, once its
    copy of the bundle is gone and there is room again), shows it, and the station stays on
    slot A with A primary. Then the room is freed and the kiosk restarted (back to Ready)."""
    n_ready = vm.console_text().count(READY)
    n_started = len(audit_events(vm, "update_started"))
    if menu_confirm_install(vm, node, stick, label) is None:
        return
    progress = wait_rauc_progress(vm, 10)
    rc, out = vm.sh("dd if=/dev/zero of=/data/wj-fill bs=1M status=none 2>&1; sync; "
                    "df --output=avail -B1 /data | tail -n1", timeout=300)
    avail = out.strip().splitlines()[-1].strip() if out.strip() else "?"
    after = install_records(vm, n_started, "update_[a-z]+")
    time.sleep(2)
    vm.screen("update-disk-full")
    ended = next((r for r in after if r["event"] in ("update_installed", "update_failed")), {})
    st = rauc_status(vm)
    rc, entries = vm.sh(SWITCH_STATE)
    rc, line = vm.sh(f"journalctl -b -t wordjudge --no-pager -o cat | grep -m1 'update: {version} failed'")
    restarted = vm.console_text().count(READY) > n_ready
    check(f"the data partition filled to its last block mid-install (RAUC at {progress or '?'}, {avail} bytes left): "
          "RAUC fails the install (no room for its slot status), the kiosk records why (update_failed) and shows it, "
          "the station stays on slot A, A primary, no restart",
          progress != "" and avail == "0" and ended.get("event") == "update_failed"
          and "No space left on device" in ended.get("reason", "") and st.get("boot_primary") == "rootfs.0"
          and entries.split()[-3:] == SWITCH_AS_BUILT[-3:] and not restarted and "No space left" in line,
          f"{ended.get('event')}: {ended.get('reason', '')[-120:]}; primary {st.get('boot_primary')}; {entries.split()}; "
          f"restarted: {restarted}")
    vm.unplug(node)
    t, _ = ready_after(vm, "rm -f /data/wj-fill; systemctl restart wordjudge")
    check("room freed, kiosk restarted: READY, the audit log verifies", t and vm.sh(f"{WJ_CONFIG} audit verify >/dev/null 2>&1")[0] == 0,
          f"READY again: {bool(t)}")


def kiosk_killed_mid_install(vm, node, stick, label, version):
    """The kiosk SIGKILLed while RAUC writes the slot it asked for from the director menu.
    RAUC's service goes on writing; the next kiosk finds its mark of the install, asks RAUC
    how it ended, and records it: the audit log never ends with update_started and nothing
    after it. RAUC finishing makes slot B the next boot, so the director's own install that
    follows writes it again."""
    n_ready = vm.console_text().count(READY)
    n_started = len(audit_events(vm, "update_started"))
    if menu_confirm_install(vm, node, stick, label) is None:
        return
    progress = wait_rauc_progress(vm, 10)
    rc, pid = vm.sh("systemctl show -P MainPID wordjudge")
    marked = vm.sh("cat /var/lib/wordjudge/update/install-started")[1]
    vm.sh(f"kill -9 {pid}")
    killed_at = time.monotonic()
    restarted = vm.wait_console(READY, count=n_ready + 1, timeout=180) is not None
    vm.screen("kiosk-killed-mid-install-restarted")
    # RAUC goes on (about 30 s more); the new kiosk asks it every 2 s.
    after = install_records(vm, n_started, "update_[a-z]+|startup")
    events = [r["event"] for r in after]
    ended = next((r for r in after if r["event"] in ("update_installed", "update_failed")), {})
    rc, left = vm.sh("ls /var/lib/wordjudge/update/")
    st = rauc_status(vm)
    rc, line = vm.sh("journalctl -b -t wordjudge --no-pager -o cat | grep -m1 'stopped during the install'")
    vm.unplug(node)
    check(f"kiosk SIGKILLed mid-install (RAUC at {progress or '?'}): restarted, it asked RAUC how the install ended "
          "and recorded it: update_started, startup, update_installed; slot B boots next; nothing left marked",
          progress != "" and restarted and events[:1] == ["update_started"] and "startup" in events
          and ended.get("event") == "update_installed" and ended.get("version") == version
          and st.get("boot_primary") == "rootfs.1" and "install-started" not in left and f"version={version}" in marked,
          f"events {events}; {ended.get('event')} {ended.get('version')} {round(time.monotonic() - killed_at)} s after the kill; "
          f"primary {st.get('boot_primary')}; update/: {left.split()}; journal: {line.strip()[-120:]}")


def menu_install(vm, node, stick, label, version):
    """The director's way (menu_confirm_install); the kiosk installs, then restarts the
    station. Returns (whether READY came
    back on the console after the restart, the audit records update_started and
    update_installed of that install, seconds between them, seconds from the director's
    ENTER to READY on the new slot)."""
    n_ready = vm.console_text().count(READY)
    entered = menu_confirm_install(vm, node, stick, label)
    if entered is None:
        return False, [], 0, 0
    time.sleep(8)
    vm.screen(f"update-progress-{label}")
    restarted = vm.wait_console(READY, count=n_ready + 1, timeout=600) is not None
    # The audit records of the install (kept across the restart; a rollback's trial boot
    # writes none of them): the last update_started and update_installed, their
    # monotonic clocks (the same boot) giving the install's length.
    rc, lines = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -E '\"event\":\"update_(started|installed)\"' | tail -n2")
    records = [json.loads(l) for l in lines.splitlines() if l.startswith("{")]
    took = ((records[-1]["mono_ns"] - records[0]["mono_ns"]) / 1e9
            if len(records) == 2 and [r["event"] for r in records] == ["update_started", "update_installed"]
            and records[-1].get("version") == version else 0)
    return restarted, records, took, time.monotonic() - entered


def update_install(vm, bundles, versions, sticks, before_cut):
    """Boot 4 (after the power cut) and the boots the updates cause, in one QEMU run."""
    rc, cmdline = vm.sh("cat /proc/cmdline")
    verify_rc, verify = vm.sh(f"{WJ_CONFIG} audit verify 2>&1")
    max_before = max_challenge(vm)
    rc, data_before = vm.sh("find /var/lib/wordjudge/lexicons /var/lib/wordjudge/config.toml -type f -exec sha256sum {} + | sort")
    after_cut = before_cut is not None  # arm64 has no cut before this boot
    before_cut = before_cut if after_cut else max_before
    check("power cut mid-install: slot A boots, the audit log verifies and kept every challenge" if after_cut
          else "slot A boots and the audit log verifies",
          "rauc.slot=A" in cmdline and verify_rc == 0 and max_before == before_cut,
          f"slot {'A' if 'rauc.slot=A' in cmdline else '?'}; max challenge {before_cut} -> {max_before}; audit verify exit {verify_rc}")

    if ARCH == "amd64" and common.FULL:
        # The PC only: the same kiosk and RAUC code on the Pi. Not with BOOT_TESTS=ci
        # (common.SCOPE): each costs an install; the good one below shows the path.
        kiosk_killed_mid_install(vm, "upd5", sticks["WJGOOD"], "WJGOOD", versions["good"])
        disk_full_mid_install(vm, "upd6", sticks["WJGOOD"], "WJGOOD", versions["good"])
    # The good bundle, from the director menu.
    t, records, t_install, to_ready = menu_install(vm, "upd3", sticks["WJGOOD"], "WJGOOD", versions["good"])
    vm.unplug("upd3")
    started = records[0] if records else {}
    check(f"director menu: Install update {versions['good']} (preview, ENTER) -> installed from the stick, "
          "audit update_started (version, current, signer, bundle) then update_installed, the station restarted",
          t and t_install > 0 and started.get("current") == versions["base"] and started.get("bundle") == "good.raucb"
          and "update signer" in started.get("signer", "") and started.get("downgrade") is False,
          f"install {t_install:.1f} s (the two records' monotonic clocks); started: "
          + json.dumps({k: started.get(k) for k in ("version", "current", "signer", "bundle", "downgrade")}))
    rc, cmdline = vm.sh("cat /proc/cmdline")
    if ARCH == "amd64":
        rc, entries = vm.sh("ls /efi/loader/entries")
        how, tried = "tried once through LoaderEntryOneShot", "wordjudge-b.conf" in entries.split()
        detail = f"entries {entries.split()}"
    else:
        how = "U-Boot's script chose it, first in the order, and spent its one try before its kernel ran"
        tried = vm.slots()[-1:] and vm.slots()[-1][0] == "B" and vm.slots()[-1][2] == "0"
        detail = f"U-Boot's choices (slot, tries left A, B): {vm.slots()}"
    check(f"after the restart: slot B ({how}), kiosk READY", t and "rauc.slot=B" in cmdline and tried,
          f"READY {to_ready:.0f} s after the director confirmed; slot "
          f"{'B' if 'rauc.slot=B' in cmdline else cmdline[-60:]}; {detail}")
    marked = wait_boot_check(vm)
    st = rauc_status(vm)
    rc, switch = vm.sh(f"{SWITCH_STATE}; sed -n 's/^VERSION=//p' /etc/wordjudge-release")
    default = {"amd64": ["default", "wordjudge-b.conf"],  # loader.conf's default
               "arm64": ["BOOT_ORDER=B", "A", "BOOT_A_LEFT=3", "BOOT_B_LEFT=3"]}[ARCH]  # B first, its tries back
    where = {"amd64": "the systemd-boot default", "arm64": "first in U-Boot's order with its 3 tries back"}[ARCH]
    check(f"boot check: READY and audit verify -> slot B marked good, RAUC's primary, {where}; "
          f"release {versions['good']}", "marked good" in marked and st.get("boot_primary") == "rootfs.1"
          and " ".join(default) in " ".join(switch.split()) and versions["good"] in switch.split(),
          f"{marked[-120:]}; primary {st.get('boot_primary')}; {switch.split()}")
    t_out, outcome = wait_audit(vm, "update_outcome", 1, timeout=60)
    check("the kiosk records the boot check's verdict once: audit update_outcome marked-good, slot B",
          t_out is not None and "marked-good" in outcome and '"slot":"B"' in outcome.replace(" ", ""), outcome[-200:])
    rc, data_after = vm.sh("find /var/lib/wordjudge/lexicons /var/lib/wordjudge/config.toml -type f -exec sha256sum {} + | sort")
    rc, verify = vm.sh(f"{WJ_CONFIG} audit verify 2>&1; echo rc=$?")
    judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE on slot B")
    max_after = max_challenge(vm)
    check("nothing lost: lexicons, PIN and config the same, audit log verifies, the next challenge is numbered above every earlier one",
          data_after == data_before and verify.strip().endswith("rc=0")
          and max_after.isdigit() and int(max_after) > int(max_before or 0),
          f"data {'same' if data_after == data_before else 'CHANGED'}; challenges {max_before} -> {max_after}; {verify[-60:]}".replace("\n", " | "))
    summary = (f"bundle {os.path.getsize(bundles['good']) / 2**20:.0f} MiB; install {t_install:.0f} s (between its audit records); "
               f"the director's ENTER to READY on the new slot {to_ready:.0f} s (install, restart, boot)")
    log(f"update: {summary}")
    with open(os.path.join(common.WORK, "update-times.txt"), "w") as f:
        f.write(summary + "\n")

    # A release whose kiosk cannot start: into slot A (the other one now), tried once, rejected.
    # The PC only: the boot check's verdict and RAUC's marks are the same on the Pi, and the
    # Pi's run shows U-Boot spending a slot's one try with a kernel that panics
    # (update_panic, then pi4.after_panic_install and pi3).
    if ARCH != "amd64" or not common.FULL:  # BOOT_TESTS=ci: two more installs and three boots
        return
    t, records, t_install, _ = menu_install(vm, "upd4", sticks["WJBAD"], "WJBAD", versions["bad"])
    done = t_install > 0
    vm.unplug("upd4")
    rc, cmdline = vm.sh("cat /proc/cmdline")
    rc, why = vm.sh("journalctl -b -1 -t wordjudge-boot-check -o cat --no-pager | grep -m1 'failed its trial'")
    st = rauc_status(vm)
    states = {k: v.get("boot_status") for s in st.get("slots", []) for k, v in s.items()}
    check(f"a release whose kiosk cannot start ({versions['bad']}, slot A): its trial boot fails, it is marked bad "
          "and the station is back on slot B by itself", done and t and "rauc.slot=B" in cmdline
          and "failed its trial" in why and states.get("rootfs.0") == "bad",
          f"installed from the menu: {done}; now slot {'B' if 'rauc.slot=B' in cmdline else '?'}; {why[-160:]}; states {states}")
    t_out, outcome = wait_audit(vm, "update_outcome", 2, timeout=60)
    check("the kiosk records the rollback: audit update_outcome rolled-back, naming the release",
          t_out is not None and "rolled-back" in outcome and versions["bad"] in outcome, outcome[-200:])
    judge_and_check(vm, ["CAT"], GREEN, "ACCEPTABLE after the rollback")
    if "WJOLD" in sticks:
        downgrade_with_pin(vm, sticks["WJOLD"], versions)


def audit_count(vm, event):
    """How many records of `event` the station's audit log holds."""
    rc, out = vm.sh(f"cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -cF '\"event\":\"{event}\"'")
    return int(out) if out.strip().isdigit() else -1


def downgrade_with_pin(vm, stick, versions):
    """The PC, on slot B with the good release after the rollback: the director offers the
    image's own, OLDER release. ENTER at the preview asks for the director PIN again; a
    wrong PIN installs nothing (a pin_refused record, no update_started); the right one
    installs it (update_started with downgrade true, then update_installed), and the
    station restarts into slot A on the older release."""
    n_looked = journal_count(vm, LOOKED_AT)
    vm.plug("upd6", stick)
    seen, props = wait_stick_seen(vm, "WJOLD")
    if not check("stick WJOLD plugged in: udev marks it WORDJUDGE_STICK=1", seen, props):
        return
    refused, started, installed = (audit_count(vm, e) for e in ("pin_refused", "update_started", "update_installed"))
    n_ready = vm.console_text().count(READY)
    open_director_menu(vm)
    wait_offered(vm, n_looked)
    n_checked = journal_count(vm, "copied and checked")
    choose_stick_item(vm, STICK_UPDATE)  # USB stick page, "Install update: version X"
    waited, line = wait_journal(vm, "copied and checked", n_checked, timeout=300)
    time.sleep(2)
    vm.screen("downgrade-preview")
    vm.keys("ret")  # the preview's ENTER: a downgrade asks for the PIN again
    time.sleep(1.5)
    vm.screen("downgrade-pin")
    vm.keys("1", "1", "1", "1", "ret")
    time.sleep(3)
    after = (audit_count(vm, "pin_refused"), audit_count(vm, "update_started"))
    check(f"a downgrade ({versions['good']} -> {versions['base']}): ENTER at the preview asks for the director PIN "
          "again, and a wrong one installs nothing (pin_refused recorded, no update_started)",
          after == (refused + 1, started), f"pin_refused {refused} -> {after[0]}, update_started {started} -> {after[1]}")
    vm.keys("2", "4", "6", "8", "ret")
    entered = time.monotonic()
    # The station installs, then restarts: the guest agent is only asked again once the
    # kiosk is READY on the console after the restart (a call during the reboot would
    # time out), then the records, kept across the restart, are read.
    restarted = vm.wait_console(READY, count=n_ready + 1, timeout=600) is not None
    to_ready = time.monotonic() - entered
    rc, lines = vm.sh("cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -E '\"event\":\"update_(started|installed)\"' | tail -n2")
    records = [json.loads(l) for l in lines.splitlines() if l.startswith("{")]
    start = records[0] if records else {}
    check("the director PIN accepts the downgrade: update_started (downgrade true, the older release) then "
          "update_installed", [r.get("event") for r in records] == ["update_started", "update_installed"]
          and start.get("downgrade") is True and start.get("version") == versions["base"]
          and records[-1].get("version") == versions["base"] and audit_count(vm, "update_installed") == installed + 1,
          f"started: {json.dumps({k: start.get(k) for k in ('version', 'current', 'downgrade')})}; "
          f"then {records[-1].get('event') if records else 'nothing'}")
    vm.unplug("upd6")
    rc, cmdline = vm.sh("cat /proc/cmdline")
    rc, release = vm.sh("sed -n 's/^VERSION=//p' /etc/wordjudge-release")
    check(f"after the downgrade the station restarts into slot A on release {versions['base']}, kiosk READY",
          restarted and "rauc.slot=A" in cmdline and release.strip() == versions["base"],
          f"READY {to_ready:.0f} s after the PIN; slot {'A' if 'rauc.slot=A' in cmdline else cmdline[-40:]}; "
          f"release {release.strip()}")


def update_panic(vm, sticks, versions):
    """arm64, on B after update_install (A holds the image's own release): the director
    installs the release whose kernel never reaches user space (its /sbin/init is
    /bin/false: PID 1 exits, the kernel panics, panic=10 resets the board) into A from
    the menu. The kiosk restarts the station; that restart ends this -M virt
    run (vm.restart off) and the card goes on, untouched, on the Pi 4 board model
    (pi4.after_panic_install). Returns whether the install was recorded and the station
    restarted by itself."""
    vm.restart = False
    entered = menu_confirm_install(vm, "upd7", sticks["WJPANIC"], "WJPANIC")
    ended = False
    if entered is not None:
        try:
            vm.proc.wait(timeout=600)
            ended = not vm.stopping
        except subprocess.TimeoutExpired:
            ended = False
    tail = vm.console_text()[-300:].decode(errors="replace").replace("\n", " | ")
    return check(f"director menu: Install update {versions['panic']} (a kernel that panics before user space) "
                 "-> installed into slot A, and the station restarted by itself (the -M virt run ends there)",
                 entered is not None and ended, f"console tail: {tail[-200:]}")


def wait_audit(vm, event, count, timeout):
    """Waits until the audit log holds `count` records of `event`; (seconds or None, the last one)."""
    t0 = time.monotonic()
    while True:
        rc, out = vm.sh(f"cat /var/lib/wordjudge/audit/audit-*.jsonl | grep -F '\"event\":\"{event}\"'")
        lines = [l for l in out.splitlines() if l.strip()]
        if len(lines) >= count:
            return time.monotonic() - t0, lines[-1]
        if time.monotonic() - t0 > timeout:
            return None, lines[-1] if lines else "none"
        time.sleep(2)


def wait_boot_check(vm, timeout=300):
    """The boot check's last word this boot (it ends when the slot is marked good or bad)."""
    deadline = time.monotonic() + timeout
    out = ""
    while time.monotonic() < deadline:
        rc, out = vm.sh("journalctl -b -t wordjudge-boot-check -o cat --no-pager | tail -n1")
        if "marked good" in out or "failed its trial" in out or "nothing to assess" in out or "is the default" in out:
            return out.strip()
        time.sleep(2)
    return out.strip() or "no word from wordjudge-boot-check"


def max_challenge(vm):
    """The highest challenge number in the station's audit log ("" if none)."""
    return vm.sh(MAX_CHALLENGE)[1].strip()
