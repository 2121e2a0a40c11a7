"""USB sticks and what the guest says about them: the stick image files made on the host,
plugging one in and choosing its entry on the director menu's USB stick page, and reading
the guest back (udev's mark, the kiosk's journal, the audit log, mounts, the installed
lexicon files)."""
import os
import shlex
import subprocess
import time

from . import common
from .common import AUDIT_FILES, KIOSK_JOURNAL, LEXICON_DIR, SHARED_LEXICONS, check, host_tool, log
from .kiosk import menu_choose, menu_open_page, open_director_menu


def blank_image(name, mib, mkfs):
    """A new image file `name` of `mib` MiB in WORK, formatted by the command `mkfs` (the
    image's path is its last argument)."""
    path = os.path.join(common.WORK, name)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.truncate(mib << 20)
    subprocess.run([*mkfs, path], check=True, capture_output=True)
    return path


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
        path = blank_image(name, 64, [host_tool("mkfs.vfat"), "-F", "32", "-n", label])
        for src, dest in files:
            subprocess.run(["mcopy", "-i", path, src, "::" + dest], check=True, capture_output=True)
        return path

    if with_lexicons:
        images["import"] = fat("stick-import.img", "WJIMPORT", [(os.path.join(SHARED_LEXICONS, "NWL2018.txt"), "NWL2018.txt")])
        images["pull"] = fat("stick-pull.img", "WJPULL",
                             [(os.path.join(SHARED_LEXICONS, "CSW15.txt"), f"BIG{i}.txt") for i in range(1, 7)])
    images["export"] = blank_image("stick-export.img", 32,
                                   [host_tool("mkfs.ext4"), "-q", "-F", "-L", "WJEXPORT", "-E", "root_owner=0:0"])
    # An empty exFAT stick: a second export, read back in the guest (no exFAT reader here).
    images["exfat"] = blank_image("stick-exfat.img", 32, [host_tool("mkfs.exfat"), "-L", "WJEXFAT"])
    return images


# The rows of the director menu's USB stick page with one stick plugged in: 0 "◀ Back",
# then the stick's three entries, then "Install update: version X" if a bundle is offered.
STICK_INSTALL = 1  # "Install lexicons from NAME": its import list, at once
STICK_EXPORT = 2   # "Export the audit log to NAME": the export, at once
STICK_JOIN = 3     # "Join the event's fleet with NAME": a confirmation first
STICK_UPDATE = 4   # "Install update: version X": its preview


def choose_stick_item(vm, item):
    """From the director menu's first page with one stick plugged in: opens "USB stick"
    (row 2), then chooses row `item` of that page (STICK_INSTALL, STICK_EXPORT, STICK_JOIN,
    STICK_UPDATE)."""
    menu_open_page(vm, "usb", stick=True)
    menu_choose(vm, item)


def plug_and_choose(vm, node, image, label, what, item):
    """Plugs the stick `image` in, checks udev marks it (a PASS/FAIL line naming `what`),
    opens the director menu and chooses `item` on its USB stick page (choose_stick_item).
    Install and Export start the stick's work at once; Join opens its confirmation (the
    caller confirms). False if unseen."""
    vm.plug(node, image)
    seen, props = wait_stick_seen(vm, label)
    check(f"{what} plugged in: udev marks it WORDJUDGE_STICK=1 (70-wordjudge-usb.rules)", seen, props)
    if not seen:
        return False
    open_director_menu(vm)
    vm.screen(f"usb-menu-{node}")
    choose_stick_item(vm, item)
    return True


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
    rc, out = vm.sh(f"{KIOSK_JOURNAL} | grep -cF -- {shlex.quote(needle)}")
    out = out.strip().splitlines()[-1] if out.strip() else "0"
    return int(out) if out.isdigit() else 0


def wait_journal(vm, needle, before, timeout, every=2):
    """Waits for a new kiosk journal line containing needle (more than `before` of them);
    returns (seconds waited or None, the last such line)."""
    t0 = time.monotonic()
    while True:
        if journal_count(vm, needle) > before:
            rc, line = vm.sh(f"{KIOSK_JOURNAL} | grep -F -- {shlex.quote(needle)} | tail -n1")
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
