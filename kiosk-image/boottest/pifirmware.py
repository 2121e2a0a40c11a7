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


# --- config.txt: which overlays the firmware applies -------------------------------------
# Far enough for this card's config.txt: sections by model ([all], [none], [tryboot],
# [pi4], [pi400], [cm4], [pi5], [pi500], [cm5]; a new model section replaces the last,
# [all] ends them: config_txt/conditional.adoc), dtoverlay= and dtparam=, upstream_kernel,
# os_prefix and overlay_prefix (config_txt/boot.adoc) and display_auto_detect
# (config_txt/common.adoc). Anything else in a section header is refused rather than
# guessed, so a config.txt this cannot read fails the check instead of passing it.
SECTION_MODELS = {"all": None, "none": set(), "tryboot": set(), "pi4": {"pi4", "pi400", "cm4"}, "pi400": {"pi400"},
                  "cm4": {"cm4"}, "pi5": {"pi5", "pi500", "cm5"}, "pi500": {"pi500"}, "cm5": {"cm5"}}
MODEL_TREES = {"pi4": "bcm2711-rpi-4-b.dtb", "pi400": "bcm2711-rpi-400.dtb", "cm4": "bcm2711-rpi-cm4-io.dtb",
               "pi5": "bcm2712-rpi-5-b.dtb"}
# What display_auto_detect loads for the original 7" panel: the firmware finds its ATTINY
# on the display connector's I2C and loads this overlay; on standard boards only, "not
# Compute Modules" (raspberrypi/linux#5758; accessories/display, "Installation on Compute
# Module based devices": autodetection "is disabled on Compute Module devices"). The
# Pi 400 has no display connector.
DSI_7INCH_OVERLAY = "vc4-kms-dsi-7inch"
NO_DISPLAY_DETECT = {"cm4", "cm5", "pi400", "pi500"}


def config_lines(text, model):
    """The (key, value) settings of config.txt that apply to MODEL, in order."""
    active = True
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            name = line.strip("[]").strip()
            if name not in SECTION_MODELS:
                raise ValueError(f"config.txt section [{name}] is not emulated")
            models = SECTION_MODELS[name]
            active = models is None or model in models
            continue
        if not active:
            continue
        if line.startswith("initramfs "):
            out.append(("initramfs", line.split(None, 1)[1]))
            continue
        key, _, value = line.partition("=")
        out.append((key.strip(), value.strip()))
    return out


def firmware_overlays(text, model, panel, files):
    """What the firmware of MODEL applies from this config.txt, with or without the 7"
    panel on its display connector; FILES: every path on the boot partition. Returns
    {"overlays": [(path, params)], "dtparams": [...], "os_prefix", "missing": [paths the
    firmware would look for and not find], "overlay_map": bool}."""
    settings = config_lines(text, model)
    get = lambda k, d=None: next((v for key, v in reversed(settings) if key == k), d)
    kernel = get("kernel", "kernel8.img")
    tree = MODEL_TREES[model]
    # upstream_kernel=1 means os_prefix "upstream/" unless set; any prefix is dropped when
    # the kernel and the tree are not both under it.
    prefix = get("os_prefix", "upstream/" if get("upstream_kernel") == "1" else "")
    if prefix and not (prefix + kernel in files and prefix + tree in files):
        prefix = ""
    overlay_prefix = get("overlay_prefix", "overlays/")
    # Overlays come from ${os_prefix}${overlay_prefix} only if a README is there.
    odir = prefix + overlay_prefix if prefix + overlay_prefix + "README" in files else overlay_prefix
    names, dtparams = [], []
    for key, value in settings:
        if key == "dtoverlay" and value:
            name, _, params = value.partition(",")
            names.append((name, params))
        elif key == "dtparam":
            dtparams.append(value)
    # Current documentation: on when config.txt says display_auto_detect=1 (Raspberry Pi
    # OS writes the line; "or remove the line entirely" to disable).
    if panel and get("display_auto_detect", "0") == "1" and model not in NO_DISPLAY_DETECT:
        names.append((DSI_7INCH_OVERLAY, ""))
    overlays = [(f"{odir}{n}.dtbo", p) for n, p in names]
    return {"overlays": overlays, "dtparams": dtparams, "os_prefix": prefix,
            "missing": [p for p, _ in overlays if p not in files], "overlay_map": f"{odir}overlay_map.dtb" in files}
