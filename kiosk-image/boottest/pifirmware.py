"""What the Raspberry Pi firmware does with the card at every power-on and reset, for the
boot tests that cannot run it: read config.txt on the card's boot partition (wjboot,
partition 1), start the `kernel=` it names, U-Boot, with the board's device tree carrying
the command line of cmdline-pi4.txt in /chosen/bootargs. The A/B choice is U-Boot's own
and runs for real: its script (boot.scr, kiosk-image/pi-boot/boot.cmd) counts the tries in
wjboot.env and loads the chosen root slot's kernel and initrd. On -M raspi4b QEMU starts
the card's own rpi_arm64 U-Boot as the firmware would (-kernel, -dtb, -append: pi4.py); on
-M virt, which rpi_arm64 cannot run on, the same release's qemu_arm64 build is the
machine's firmware (-bios), given QEMU's own virt tree with the card's command line in it
(virt_dtb). Read from the disk image with sfdisk and mtools; nothing is mounted."""
import json
import os
import re
import subprocess


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


def fat_at(img, number):
    """mtools' name for FAT partition NUMBER of the disk image IMG (its byte offset)."""
    return f"{img}@@{partitions(img)[number - 1]['start'] * 512}"


def fat_read(img, number, name):
    """One file's bytes from FAT partition NUMBER (None if it is not there)."""
    r = subprocess.run(["mcopy", "-n", "-i", fat_at(img, number), f"::/{name}", "-"], capture_output=True, env=MTOOLS_ENV)
    return r.stdout if r.returncode == 0 else None


def fat_copy(img, number, name, dest):
    """Copies NAME (a file, or "*" with dest a directory) out of FAT partition NUMBER."""
    args = ["-s", "-o", "-n"] if name == "*" else ["-o", "-n"]
    if name == "*":
        os.makedirs(dest, exist_ok=True)
    subprocess.run(["mcopy", *args, "-i", fat_at(img, number), f"::/{name}", dest],
                   check=True, env=MTOOLS_ENV, capture_output=True)
    return dest


def section(text, name):
    """The non-comment lines of one [name] section of a firmware config file (the first
    one of that name)."""
    m = re.search(rf"^\[{re.escape(name)}\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M)
    return [l.strip() for l in m.group(1).splitlines() if l.strip() and not l.startswith("#")] if m else []


def boot_partition(img):
    """The partition the firmware boots: the card's one FAT boot partition, wjboot."""
    return partition(img, "wjboot")[0]


def boot_file(img, name, dest):
    """Copies NAME from the partition the firmware boots."""
    return fat_copy(img, boot_partition(img), name, dest)


def firmware_settings(img, model="pi4"):
    """config.txt's settings for MODEL, as the firmware reads them: {key: last value}."""
    text = (fat_read(img, boot_partition(img), "config.txt") or b"").decode(errors="replace")
    return dict(config_lines(text, model))


def firmware_cmdline(img, model="pi4"):
    """The command line the firmware puts in the device tree for MODEL: the file config.txt's
    cmdline= names (cmdline.txt if none)."""
    name = firmware_settings(img, model).get("cmdline", "cmdline.txt")
    data = fat_read(img, boot_partition(img), name)
    if not data:
        raise RuntimeError(f"the boot partition has no {name} (config.txt's cmdline=)")
    return data.decode().strip()


def firmware_kernel(img, dest, model="pi4"):
    """Copies what the firmware starts for MODEL (config.txt's kernel=: U-Boot) to DEST."""
    return boot_file(img, firmware_settings(img, model).get("kernel", "kernel8.img"), dest)


def uboot_choices(console):
    """What U-Boot's script chose at each start, from its console output (bytes):
    [(slot, tries A has left, tries B has left)], the tries as written back before the
    kernel ran (kiosk-image/pi-boot/boot.cmd prints them)."""
    return [(s.decode(), a.decode(), b.decode()) for s, a, b in re.findall(
        rb"wordjudge-boot: slot ([AB]) \(partition \S+\), tries left after this one: A=(\w+) B=(\w+)", console)]


def virt_dtb(machine, cmdline, dest, pi5_tryboot=None):
    """QEMU's own device tree for the -M virt machine MACHINE (its QEMU arguments, firmware
    included: the tree depends on them) with CMDLINE in /chosen/bootargs, where the Pi
    firmware puts cmdline-pi4.txt for U-Boot's script to read. PI5_TRYBOOT (True or False:
    the machine plays a Pi 5): the root also says brcm,bcm2712, as a Pi 5's tree does (the
    card's Pi 5 units look for it), and /chosen/bootloader/tryboot says whether this start
    is the tryboot flag's, as the Pi 5 firmware's tree does."""
    args = list(machine)
    i = args.index("-machine") + 1
    args[i] += f",dumpdtb={dest}"
    subprocess.run([*args, "-display", "none", "-nic", "none"], check=True, capture_output=True)
    subprocess.run(["fdtput", "-t", "s", dest, "/chosen", "bootargs", cmdline], check=True, capture_output=True)
    if pi5_tryboot is not None:
        subprocess.run(["fdtput", "-t", "s", dest, "/", "compatible", "linux,dummy-virt", "brcm,bcm2712"],
                       check=True, capture_output=True)
        subprocess.run(["fdtput", "-c", dest, "/chosen/bootloader"], check=True, capture_output=True)
        subprocess.run(["fdtput", "-t", "u", dest, "/chosen/bootloader", "tryboot", "1" if pi5_tryboot else "0"],
                       check=True, capture_output=True)
    return dest


# --- config.txt: which overlays the firmware applies -------------------------------------
# Far enough for this card's config.txt (config_txt/conditional.adoc): model filters
# ([pi3], [pi3+], [pi02], [pi4], [pi400], [cm4], [pi5], ...), each replacing the last model
# filter; [board-type=0xNN] filters, a second type that combines with a model filter (both
# must match) and replaces the last board-type filter; [none]; [tryboot] (true only on the
# start the tryboot flag asked for);
# [all] ends every filter. Settings: dtoverlay= and dtparam=, upstream_kernel, os_prefix
# and overlay_prefix (config_txt/boot.adoc) and display_auto_detect (config_txt/common.adoc).
# Anything else in a section header is refused rather than guessed, so a config.txt this
# cannot read fails the check instead of passing it.
# Models, by the names the tests use: pi3 (3 B), pi3b+, pi3a+, cm3, cm3+, pi02 (Zero 2 W),
# pi4, pi400, cm4, pi5, pi500, cm5.
SECTION_MODELS = {"none": set(), "tryboot": set(),
                  "pi3": {"pi3", "pi3b+", "pi3a+", "cm3", "cm3+"}, "pi3+": {"pi3b+", "pi3a+"},
                  "pi0": {"pi02"}, "pi0w": {"pi02"}, "pi02": {"pi02"},
                  "pi4": {"pi4", "pi400", "cm4"}, "pi400": {"pi400"}, "cm4": {"cm4"},
                  "pi5": {"pi5", "pi500", "cm5"}, "pi500": {"pi500"}, "cm5": {"cm5"}}
# Board types (raspberry-pi/revision-codes.adoc) of the models above that have one here.
BOARD_TYPES = {0x08: "pi3", 0x0a: "cm3", 0x0d: "pi3b+", 0x0e: "pi3a+", 0x10: "cm3+", 0x12: "pi02",
               0x11: "pi4", 0x13: "pi400", 0x14: "cm4", 0x17: "pi5"}
MODEL_TREES = {"pi3": "bcm2837-rpi-3-b.dtb", "pi3b+": "bcm2837-rpi-3-b-plus.dtb", "pi3a+": "bcm2837-rpi-3-a-plus.dtb",
               "cm3": "bcm2837-rpi-cm3-io3.dtb", "cm3+": "bcm2837-rpi-cm3-io3.dtb", "pi02": "bcm2837-rpi-zero-2-w.dtb",
               "pi4": "bcm2711-rpi-4-b.dtb", "pi400": "bcm2711-rpi-400.dtb", "cm4": "bcm2711-rpi-cm4-io.dtb",
               "pi5": "bcm2712-rpi-5-b.dtb"}
PI3_FAMILY = ["pi3", "pi3b+", "pi3a+", "cm3", "cm3+", "pi02"]
# What display_auto_detect loads for the original 7" panel: the firmware finds its ATTINY
# on the display connector's I2C and loads this overlay; on standard boards only, "not
# Compute Modules" (raspberrypi/linux#5758; accessories/display, "Installation on Compute
# Module based devices": autodetection "is disabled on Compute Module devices"). The
# Pi 400 has no display connector.
DSI_7INCH_OVERLAY = "vc4-kms-dsi-7inch"
NO_DISPLAY_DETECT = {"cm3", "cm3+", "cm4", "cm5", "pi400", "pi500"}


def setting_of(settings):
    """get(key, default): the last value KEY has in SETTINGS (config_lines), as the
    firmware reads a setting given twice."""
    return lambda key, default=None: next((v for k, v in reversed(settings) if k == key), default)


def os_prefix(get, kernel, tree, files):
    """The os_prefix the firmware uses: the setting, or "upstream/" when upstream_kernel=1
    sets none; dropped when the kernel and the board's tree are not both under it."""
    prefix = get("os_prefix", "upstream/" if get("upstream_kernel") == "1" else "")
    return prefix if not prefix or (prefix + kernel in files and prefix + tree in files) else ""


def config_lines(text, model, tryboot=False):
    """The (key, value) settings of config.txt (or tryboot.txt) that apply to MODEL, in
    order; TRYBOOT: this start is the one the firmware's tryboot flag asked for, where
    [tryboot] applies."""
    if model not in MODEL_TREES and model not in {"pi500", "cm5"}:
        raise ValueError(f"model {model} is not emulated")
    model_ok, board_ok = True, True   # no filter of either type: everything applies
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            name = line.strip("[]").strip()
            if name == "all":
                model_ok, board_ok = True, True
            elif name.startswith("board-type="):
                try:
                    board_ok = BOARD_TYPES.get(int(name.partition("=")[2], 16)) == model
                except ValueError:
                    raise ValueError(f"config.txt section [{name}] is not a board type")
            elif name == "tryboot":
                model_ok = tryboot
            elif name in SECTION_MODELS:
                model_ok = model in SECTION_MODELS[name]
            else:
                raise ValueError(f"config.txt section [{name}] is not emulated")
            continue
        if not (model_ok and board_ok):
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
    get = setting_of(settings)
    prefix = os_prefix(get, get("kernel", "kernel8.img"), MODEL_TREES[model], files)
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


# --- the Pi 5 family: the firmware starts the kernel itself ------------------------------
# config_txt/boot.adoc and raspberry-pi/boot-eeprom ("tryboot"): with the tryboot flag set
# (a reboot flag the kernel sets through the firmware's set-reboot-flags property), the
# next start reads tryboot.txt instead of config.txt, and the flag is cleared as it does.
# os_prefix is put before every OS file the firmware loads (kernel, initramfs, the
# command line, the trees) and dropped when the kernel and the board's tree are not both
# under it. The Pi 5's tree by stepping (upstream_kernel=1): C1 bcm2712-rpi-5-b.dtb, D0
# bcm2712d0-rpi-5-b.dtb.
PI5_STEPPING_TREES = {"C1": "bcm2712-rpi-5-b.dtb", "D0": "bcm2712d0-rpi-5-b.dtb"}
# The -M virt run has no firmware mailbox: the card's update back-end (rauc-pi-tryboot),
# told so on the command line, keeps the flag in this file, which the emulation below
# reads and clears as the firmware does its own.
EMULATED_FLAG = "wordjudge-emulated-tryboot.flag"
EMULATED_WORD = "wordjudge.firmware=emulated"


def fat_files(img, number):
    """Every file on FAT partition NUMBER, as paths relative to its root (folders too)."""
    out = subprocess.run(["mdir", "-/", "-b", "-i", fat_at(img, number), "::/"],
                         capture_output=True, text=True, check=True, env=MTOOLS_ENV).stdout
    return {l.strip()[3:] for l in out.splitlines() if l.strip().startswith("::/")}


def pi5_plan(text, files, stepping="C1", tryboot=False):
    """What a Pi 5 of STEPPING starts from this config.txt (or tryboot.txt) with these files
    on the partition: {"kernel", "initramfs", "cmdline", "tree": paths or None, "os_prefix",
    "settings": {key: last value}, "missing": [paths it would look for and not find]}."""
    settings = config_lines(text, "pi5", tryboot)
    get = setting_of(settings)
    kernel = get("kernel", "kernel_2712.img")
    tree = PI5_STEPPING_TREES[stepping]
    prefix = os_prefix(get, kernel, tree, files)
    initramfs = get("initramfs")
    initrd = initramfs.split()[0] if initramfs else None
    paths = {"kernel": prefix + kernel, "initramfs": prefix + initrd if initrd else None,
             "cmdline": prefix + get("cmdline", "cmdline.txt"), "tree": prefix + tree}
    return {**paths, "os_prefix": prefix, "settings": dict(settings),
            "followkernel": bool(initramfs) and initramfs.split()[-1] == "followkernel",
            "missing": [p for p in paths.values() if p and p not in files]}


def pi5_start(img, dest):
    """One power-on of a Pi 5 with this card, as far as the firmware goes: the tryboot flag
    read and cleared (the emulated one: EMULATED_FLAG), tryboot.txt or config.txt read, the
    slot's kernel, initrd and command line copied to DEST. Returns the plan (pi5_plan) with
    "config" (the file read), "kernel_file", "initrd_file" and "cmdline_text"."""
    number = boot_partition(img)
    flag = (fat_read(img, number, EMULATED_FLAG) or b"").strip() == b"1"
    if fat_read(img, number, EMULATED_FLAG) is not None:  # spent, or written 0: gone either way
        subprocess.run(["mdel", "-i", fat_at(img, number), f"::/{EMULATED_FLAG}"],
                       check=True, capture_output=True, env=MTOOLS_ENV)
    name = "tryboot.txt" if flag else "config.txt"
    text = (fat_read(img, number, name) or b"").decode(errors="replace")
    plan = pi5_plan(text, fat_files(img, number), tryboot=flag)
    if plan["missing"]:
        raise RuntimeError(f"the Pi 5 firmware would not find {plan['missing']} ({name})")
    os.makedirs(dest, exist_ok=True)
    out = {}
    for key in ("kernel", "initramfs"):
        target = os.path.join(dest, key)
        data = fat_read(img, number, plan[key])
        with open(target, "wb") as f:
            f.write(data)
        out[key + "_file"] = target
    return {**plan, "config": name, "kernel_file": out["kernel_file"], "initrd_file": out["initramfs_file"],
            "cmdline_text": fat_read(img, number, plan["cmdline"]).decode().strip()}
