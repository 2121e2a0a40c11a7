"""What the Raspberry Pi firmware does with the card at every power-on and reset, for the
boot tests that cannot run it (QEMU -M virt and -M raspi4b boot a kernel directly): read
autoboot.txt on partition 1 and boot the partition its [all] boot_partition= names (its
[tryboot] section would count only with the firmware's tryboot flag, which Debian's kernel
never sets: kiosk-image/update/rauc-pi-tryboot), loading that partition's kernel, initrd,
device trees and command line. Read from the disk image with sfdisk and mtools; nothing is
mounted. The A/B update back-end rewrites autoboot.txt; a test that boots the card again
after it did reads it again here, as the firmware would."""
import json
import os
import re
import subprocess

from . import common

MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


def partitions(img):
    """The card's GPT: [{start, size, name, type}] in partition-number order."""
    out = subprocess.run(["sfdisk", "-J", img], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["partitiontable"]["partitions"]


def partition(img, name):
    """(number, entry) of the partition with this GPT name."""
    for i, p in enumerate(partitions(img), 1):
        if p.get("name") == name:
            return i, p
    raise RuntimeError(f"{img} has no partition named {name}")


def fat_read(img, number, name):
    """One file's bytes from FAT partition NUMBER (None if it is not there)."""
    p = partitions(img)[number - 1]
    r = subprocess.run(["mcopy", "-n", "-i", f"{img}@@{p['start'] * 512}", f"::/{name}", "-"],
                       capture_output=True, env=MTOOLS_ENV)
    return r.stdout if r.returncode == 0 else None


def fat_copy(img, number, name, dest):
    """Copies NAME (a file, or "*" with dest a directory) out of FAT partition NUMBER."""
    p = partitions(img)[number - 1]
    args = ["-s", "-o", "-n"] if name == "*" else ["-o", "-n"]
    if name == "*":
        os.makedirs(dest, exist_ok=True)
    subprocess.run(["mcopy", *args, "-i", f"{img}@@{p['start'] * 512}", f"::/{name}", dest],
                   check=True, env=MTOOLS_ENV, capture_output=True)
    return dest


def autoboot(img):
    """autoboot.txt from partition 1, as text ("" if missing)."""
    data = fat_read(img, 1, "autoboot.txt")
    return data.decode(errors="replace") if data else ""


def section(text, name):
    """The non-comment lines of one [name] section of a firmware config file (the first
    one of that name)."""
    m = re.search(rf"^\[{re.escape(name)}\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M)
    return [l.strip() for l in m.group(1).splitlines() if l.strip() and not l.startswith("#")] if m else []


def boot_partition(img):
    """The partition the firmware boots: autoboot.txt's [all] boot_partition."""
    values = [l.split("=", 1)[1] for l in section(autoboot(img), "all") if l.startswith("boot_partition=")]
    if not values or not values[-1].isdigit():
        raise RuntimeError(f"autoboot.txt names no boot partition: {autoboot(img)!r}")
    return int(values[-1])


def boot_file(img, name, dest):
    """Copies NAME from the partition the firmware would boot."""
    return fat_copy(img, boot_partition(img), name, dest)


def direct_boot(img, tag):
    """The kernel, initrd and Pi 4 command line the firmware would start, copied to WORK
    under names carrying TAG: (kernel, initrd, cmdline, partition number)."""
    w = common.WORK
    n = boot_partition(img)
    kernel = fat_copy(img, n, "vmlinuz", os.path.join(w, f"{tag}-vmlinuz"))
    initrd = fat_copy(img, n, "initrd.img", os.path.join(w, f"{tag}-initrd.img"))
    cmdline = (fat_read(img, n, "cmdline-pi4.txt") or b"").decode().strip()
    return kernel, initrd, cmdline, n
