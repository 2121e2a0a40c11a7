"""The Raspberry Pi card, checked in the built image for what each model's firmware and
kernel need: no Pi here, and QEMU has no Pi 5 model, so the Pi 5 family and the Pi 3
family's firmware are checked statically. Read from the image with mtools (boot
partition), debugfs (root partition), zstd and cpio (the initrd) and dtc (the device
trees); nothing is mounted.

  A/B layout   GPT: the boot partition (FAT: firmware, config.txt, trees, U-Boot, its A/B
               script and counter), root A and B, data; the boot partition holds what the
               kernel hook wrote into slot A's /boot/firmware but the kernel and initrd,
               which U-Boot loads from the slot it chose (an update brings its own)
  Pi 3 family  a hybrid MBR whose first entry is the boot partition as FAT32 (0x0c: the
               Pi 3 boot ROM reads nothing else) and whose second is the GPT's 0xee;
               bootcode.bin, start.elf, fixup.dat; config.txt read as the firmware reads
               it for the 3 B, 3 B+, 3 A+, CM3, CM3+ and Zero 2 W: U-Boot, the command
               line, the serial console the tree's alias names, the tree by the name
               start.elf makes (its own strings), the SD host enabled and first of the
               tree's MMC controllers (U-Boot's mmc 0, where its environment is read)
  SD numbering on the Pi 4 family, config.txt's wordjudge-sd-mmc0 overlay makes emmc2
               (the SD card) mmc0 in every bcm2711 tree (fdtoverlay)
  boot files   config.txt with [pi3], [pi02], [pi4] and [pi5] sections, U-Boot as its kernel=
               for the Pi 3 and Pi 4 families, each family's command line with its serial
               console, the Pi 4 family's firmware, and one kernel version everywhere (boot
               partition, root's modules, initrd)
  Pi 5 family  config.txt read as its firmware reads it on C1 and D0 boards: no U-Boot;
               slot A's kernel, initrd, command line and the stepping's tree from its
               folder (os_prefix wordjudge-a/), the same files as the slot's own
  trees        every Pi 4 family tree and both Pi 5 steppings' (C1 bcm2712-rpi-5-b, D0
               bcm2712-d-rpi-5-b, also as bcm2712d0-rpi-5-b), each decompiling with dtc
               and naming its board
  consoles     the alias each command line's console comes from (Pi 4 serial1: the mini
               UART; Pi 5 serial10: uart10, the debug connector)
  modules      RP1, sdhci-brcmstb, xhci and vc4 (and the Pi 4's sdhci-iproc) in the
               initrd, built for the card's kernel; the tryboot module (the Pi 5's
               one-shot try, pi-boot/tryboot) in the root, built for it too
  GPIO wiring  the Pi 5's header is RP1 bank 0: the trees' RP1 pinctrl node, the driver
               that binds to it (its of: alias) registering the chip label the kiosk looks
               for (crates/core/src/gpio/config.rs HEADER_CHIP_LABELS), lines by BCM number
  7" panel     our overlay (pi-boot/overlays) applies to every Pi 4 family tree
               (fdtoverlay); the result has dsi1 on, wired to a panel on the display I2C
               whose compatible, like every part on the way, a module on the card serves
               (modules.alias); the shipped trees carry none of it; config.txt, read as
               the firmware reads it (pifirmware), applies the overlay on a Pi 4 with the
               panel and nowhere else
"""
import filecmp
import lzma
import os
import re
import subprocess

from . import common, pifirmware
from .common import check, host_tool, log

PI4_TREES = ["bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb", "bcm2711-rpi-cm4-io.dtb"]
PI5_TREES = ["bcm2712-rpi-5-b.dtb", "bcm2712-d-rpi-5-b.dtb", "bcm2712d0-rpi-5-b.dtb"]
INITRD_MODULES = ["bcm2835", "sdhci-iproc", "sdhci-brcmstb", "gpio-regulator", "gpio-brcmstb", "rp1_pci", "clk-rp1",
                  "pinctrl-rp1", "xhci-plat-hcd", "vc4"]


def initrd_listing(path):
    """Every file name in a Debian initrd. trixie's mkinitramfs writes the modules, already
    xz-compressed, as an uncompressed cpio archive first, then the rest as a zstd-compressed
    one: cpio lists the first; the second starts at the first zstd frame after the first's
    trailer. (Debian's lsinitramfs does the same, but its package would bring udev onto
    the host.)"""
    with open(path, "rb") as f:
        data = f.read()
    names = []
    if data.startswith(b"070701"):
        names += subprocess.run(["cpio", "-it", "--quiet"], input=data, capture_output=True).stdout.decode().splitlines()
        trailer = data.find(b"TRAILER!!!")
        start = data.find(b"\x28\xb5\x2f\xfd", trailer if trailer >= 0 else 0)
        data = data[start:] if start >= 0 else b""
    if data:
        cpio = subprocess.run("zstd -dcq | cpio -it --quiet", shell=True, input=data, capture_output=True)
        names += cpio.stdout.decode().splitlines()
    return names


def boot_files(img, dest):
    """The whole boot partition the firmware boots (wjboot), copied out into an
    empty DEST."""
    subprocess.run(["rm", "-rf", dest], check=True)
    return pifirmware.fat_copy(img, pifirmware.boot_partition(img), "*", dest)


def root_fs(img, dest):
    _, p = pifirmware.partition(img, "wjroot-a")
    subprocess.run(["dd", f"if={img}", f"of={dest}", "bs=512", f"skip={p['start']}", f"count={p['size']}", "conv=sparse",
                    "status=none"], check=True)
    return dest


def debugfs(fs, request):
    return subprocess.run(["debugfs", "-R", request, fs], capture_output=True, text=True).stdout


def dts(path):
    p = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", path], capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def alias_node(tree, alias):
    m = re.search(rf"^\s*{alias} = \"([^\"]+)\";", tree or "", re.M)
    return m.group(1) if m else None


FAT = "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"
LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
LAYOUT = [("wjboot", FAT), ("wjroot-a", LINUX), ("wjroot-b", LINUX), ("wjdata", LINUX)]
# U-Boot's A/B counter as built (kiosk-image/build.sh): slot A, three tries, B empty.
COUNTER_AS_BUILT = ["BOOT_ORDER=A", "BOOT_A_LEFT=3", "BOOT_B_LEFT=0"]


# What pi-boot/uboot-env.txt changes in U-Boot's defaults: {name: (default, ours)}.
UBOOT_ENV_CHANGES = {"bootdelay": ("2", "0"), "preboot": ("pci enum; usb start;", None), "stdin": ("serial,usbkbd", "serial"),
                     "boot_targets": ("mmc usb pxe dhcp", "mmc")}


def uboot_env(path):
    """A U-Boot environment file (CRC, then NUL-separated name=value up to a double NUL)."""
    with open(path, "rb") as f:
        data = f.read()[4:]
    return dict(e.decode().split("=", 1) for e in data[:data.find(b"\0\0")].split(b"\0") if b"=" in e)


def builtin_env(path):
    """The default environment built into a U-Boot binary: the NUL-separated block of
    name=value strings around its bootcmd= (U-Boot's default_environment[])."""
    with open(path, "rb") as f:
        data = f.read()
    at = data.find(b"\0bootcmd=") + 1
    if at <= 0:
        return {}
    start = at
    while True:  # back over whole entries while they look like name=value
        prev = data.rfind(b"\0", 0, start - 1)
        entry = data[prev + 1:start - 1]
        if prev < 0 or b"=" not in entry or not all(32 <= c < 127 for c in entry):
            break
        start = prev + 1
    return dict(e.decode().split("=", 1) for e in data[start:data.find(b"\0\0", at)].split(b"\0") if b"=" in e)


def ab_layout(img, boot):
    """The A/B card: GPT with the boot partition, both root slots and data; on the boot
    partition U-Boot (config.txt's kernel=), its A/B script compiled for it, and the counter
    file as built, read with the tool RAUC uses (fw_printenv, libubootenv)."""
    parts = pifirmware.partitions(img)
    got = [(p.get("name"), p.get("type")) for p in parts]
    check("Pi card: GPT with the boot partition (FAT), root A/B and data partitions (A/B updates)", got == LAYOUT,
          f"{[n for n, _ in got]}")
    with open(os.path.join(boot, "boot.scr"), "rb") as f:
        script = f.read()
    # A legacy U-Boot image (magic 0x27051956), type script (6), for arm64 (22).
    check("Pi card: U-Boot (rpi_arm64) and its A/B script (boot.scr: a U-Boot script image for arm64 holding "
          "kiosk-image/pi-boot/boot.cmd) on the boot partition",
          os.path.getsize(os.path.join(boot, "u-boot.bin")) > 100000 and script[:4] == bytes.fromhex("27051956")
          and script[29] == 22 and script[30] == 6 and b"wordjudge-boot: slot" in script,
          f"u-boot.bin {os.path.getsize(os.path.join(boot, 'u-boot.bin'))} bytes; boot.scr {len(script)} bytes, "
          f"arch {script[29] if len(script) > 30 else '?'}, type {script[30] if len(script) > 30 else '?'}")
    # U-Boot's own environment (uboot.env, which rpi_arm64 loads whole): the defaults built
    # into this u-boot.bin, with only the changes pi-boot/uboot-env.txt lists.
    shipped = uboot_env(os.path.join(boot, "uboot.env"))
    defaults = builtin_env(os.path.join(boot, "u-boot.bin"))
    changed = {k: (defaults.get(k), shipped.get(k)) for k in set(defaults) | set(shipped) if defaults.get(k) != shipped.get(k)}
    check("Pi card: U-Boot's environment (uboot.env) is u-boot.bin's own defaults but for the faster start "
          "(bootdelay=0, no preboot USB, serial input only, SD card only)",
          bool(defaults) and changed == UBOOT_ENV_CHANGES, f"{len(defaults)} defaults; changed {changed}")
    conf = os.path.join(common.WORK, "fw_env.config")
    with open(conf, "w") as f:
        f.write(f"{os.path.join(boot, 'wjboot.env')} 0x0000 0x4000\n")
    p = subprocess.run([host_tool("fw_printenv") or "fw_printenv", "-c", conf, "BOOT_ORDER", "BOOT_A_LEFT", "BOOT_B_LEFT"],
                       capture_output=True, text=True)
    check("Pi card: U-Boot's counter (wjboot.env, 16 KiB with its CRC, read by fw_printenv as RAUC reads it) boots "
          "slot A with three tries, B not at all", p.stdout.split() == COUNTER_AS_BUILT, (p.stdout + p.stderr).strip())


def pi_card(img):
    w = common.WORK
    boot = boot_files(img, os.path.join(w, "card-boot"))
    ab_layout(img, boot)
    # Slot A's root: its /boot/firmware holds what the kernel hook wrote, the kernel and
    # initrd U-Boot loads from it among them.
    fs = root_fs(img, os.path.join(w, "card-root.ext4"))
    carried = os.path.join(w, "card-root-firmware")
    subprocess.run(["rm", "-rf", carried], check=True)
    os.makedirs(carried)
    debugfs(fs, f"rdump /boot/firmware {carried}")
    carried = os.path.join(carried, "firmware")
    config = read(os.path.join(boot, "config.txt"))
    stamp = read(os.path.join(boot, "wordjudge-boot.txt")).strip()
    kver = stamp.partition("=")[2]
    allsec = pifirmware.section(config, "all")
    pi4 = pifirmware.section(config, "pi4")
    pi5 = pifirmware.section(config, "pi5")
    common_ok = ("kernel=u-boot.bin" in allsec and not any(l.startswith("initramfs") for l in allsec) and "arm_64bit=1" in allsec
                 and all(os.path.getsize(os.path.join(carried, f)) > 0 for f in ("vmlinuz", "initrd.img")))
    check("Pi card: config.txt starts U-Boot for the Pi 3 and Pi 4 families ([all]); the kernel and initrd are slot A's "
          "own (its /boot/firmware), which U-Boot's script loads", common_ok, f"[all] {allsec}")
    fw = all(os.path.exists(os.path.join(boot, f)) for f in ("start4.elf", "fixup4.dat"))
    check("Pi card: [pi4] section (mini UART console, its command line) and the Pi 4 family's firmware (start4.elf, fixup4.dat)",
          "cmdline=cmdline-pi4.txt" in pi4 and "enable_uart=1" in pi4 and fw, f"[pi4] {pi4}; start4/fixup4: {fw}")
    pi5_firmware_boot(img, boot, config, carried)
    with open(os.path.join(carried, "vmlinuz"), "rb") as f:
        head = f.read(64)
    # arm64 Image header: magic "ARM\x64" at 0x38; flags at 0x18 (after code0, code1, text_offset, image_size), bits 1-2 the page size (1 = 4K).
    flags = int.from_bytes(head[0x18:0x20], "little")
    check("Pi card: vmlinuz is an uncompressed arm64 Image with 4K pages (what U-Boot's booti starts)",
          head[0x38:0x3C] == b"ARMd" and (flags >> 1) & 3 == 1, f"magic {head[0x38:0x3C]!r}, flags {flags:#x}")

    trees = {}
    for name in PI4_TREES + PI5_TREES:
        trees[name] = dts(os.path.join(boot, name)) if os.path.exists(os.path.join(boot, name)) else None
    named = {n: bool(t) and ("raspberrypi,5-model-b" in t if n.startswith("bcm2712") else "brcm,bcm2711" in t)
             for n, t in trees.items()}
    check("Pi card: every Pi 4 family and Pi 5 (C1, D0) device tree is on the partition and decompiles (dtc), naming its board",
          all(named.values()), ", ".join(f"{n}: {'ok' if ok else 'MISSING/BAD'}" for n, ok in named.items()))
    d0_same = read(os.path.join(boot, "bcm2712d0-rpi-5-b.dtb")) == read(os.path.join(boot, "bcm2712-d-rpi-5-b.dtb"))
    check("Pi card: the D0 tree also under the Pi 5 firmware's name for it (bcm2712d0-rpi-5-b.dtb)", d0_same and named["bcm2712d0-rpi-5-b.dtb"])

    c4 = read(os.path.join(boot, "cmdline-pi4.txt")).split()
    c5 = read(os.path.join(boot, "cmdline-pi5.txt")).split()
    last4 = [a for a in c4 if a.startswith("console=")][-1:]
    last5 = [a for a in c5 if a.startswith("console=")][-1:]
    pi4_uart = alias_node(trees["bcm2711-rpi-4-b.dtb"], "serial1") or ""
    pi5_uart = alias_node(trees["bcm2712-rpi-5-b.dtb"], "serial10") or ""
    check("Pi card: each family's serial console (Pi 4 ttyS1 = serial1, the mini UART; Pi 5 ttyAMA10 = serial10, uart10), "
          "and slot A's root (root=PARTLABEL=wjroot-a rauc.slot=A)",
          last4 == ["console=ttyS1,115200"] and pi4_uart.endswith("serial@7e215040")
          and last5 == ["console=ttyAMA10,115200"] and pi5_uart.endswith("serial@7d001000")
          and all(c.count("root=PARTLABEL=wjroot-a") == 1 and "rauc.slot=A" in c and "ro" in c for c in (c4, c5))
          and len([a for a in c4 if a.startswith("root=")]) == 1,
          f"pi4 {last4} -> {pi4_uart}; pi5 {last5} -> {pi5_uart}")

    # One kernel version: the partition's stamp, the root's modules, the initrd's modules.
    # Every file, those in folders (overlays/) too.
    tree_files = lambda top: sorted(os.path.relpath(os.path.join(d, n), top) for d, _, ns in os.walk(top) for n in ns)
    on_part = [n for n in tree_files(boot) if n not in ("wjboot.env", "uboot.env") and not n.startswith("wordjudge-a/")]
    in_root = [n for n in (tree_files(carried) if os.path.isdir(carried) else []) if n not in ("vmlinuz", "initrd.img")]
    same = on_part == in_root and all(filecmp.cmp(os.path.join(boot, n), os.path.join(carried, n), shallow=False) for n in on_part)
    check("Pi card: the boot partition holds exactly what the kernel hook wrote into slot A's /boot/firmware, "
          "but the kernel and initrd (which stay in the slot), the two U-Boot environments and the Pi 5's slot folder",
          same and on_part, f"{len(on_part)} files on the partition, {len(in_root)} in the root"
          + ("" if same else f"; differ: {sorted(set(on_part) ^ set(in_root))[:6]}"))
    mods = debugfs(fs, "ls -p /usr/lib/modules")
    root_versions = sorted({l.split("/")[5] for l in mods.splitlines() if l.count("/") > 5 and l.split("/")[5] not in (".", "..")})
    initrd = initrd_listing(os.path.join(carried, "initrd.img"))
    initrd_versions = sorted({m.group(1) for l in initrd for m in [re.match(r"(?:usr/)?lib/modules/([^/]+)/", l)] if m})
    check("Pi card: one kernel version on the partition, in the root's modules and in the initrd",
          kver and root_versions == [kver] and initrd_versions == [kver],
          f"partition {kver}, root {root_versions}, initrd {initrd_versions}")
    missing = [m for m in INITRD_MODULES if not any(re.search(rf"/{re.escape(m)}\.ko", l) for l in initrd)]
    check("Pi card: the initrd holds RP1, sdhci-brcmstb, xhci-plat and vc4 for the Pi 5, sdhci-iproc for the Pi 4, "
          "bcm2835 (the SD host) for the Pi 3 family",
          not missing, f"missing: {missing}" if missing else ", ".join(INITRD_MODULES))

    # The Pi 5's GPIO header: RP1's pinctrl in both Pi 5 trees, the driver for it in the
    # root, registering the label the kiosk looks for.
    nodes = {n: re.search(r"pinctrl@400d0000 \{\s*compatible = \"raspberrypi,rp1-gpio\";.*?gpio-controller;", trees[n] or "", re.S)
             for n in ("bcm2712-rpi-5-b.dtb", "bcm2712-d-rpi-5-b.dtb")}
    ko = f"/usr/lib/modules/{kver}/kernel/drivers/pinctrl/pinctrl-rp1.ko.xz"
    dumped = os.path.join(w, "pinctrl-rp1.ko.xz")
    debugfs(fs, f"dump {ko} {dumped}")
    try:
        with open(dumped, "rb") as f:
            module = lzma.decompress(f.read())
    except (OSError, lzma.LZMAError):
        module = b""
    labels = re.search(r"HEADER_CHIP_LABELS: \[&str; \d+\] = \[([^\]]*)\]", read(os.path.join(common.REPO, "crates/core/src/gpio/config.rs")))
    kiosk_labels = re.findall(r'"([^"]+)"', labels.group(1)) if labels else []
    check("Pi card: the Pi 5 header's GPIO is RP1's pinctrl (both trees), whose driver binds to it and registers "
          "a chip label the kiosk looks for (lines by BCM number)",
          all(nodes.values()) and b"alias=of:N*T*Craspberrypi,rp1-gpio" in module and b"pinctrl-rp1\x00" in module
          and "pinctrl-rp1" in kiosk_labels,
          f"trees {[n for n, ok in nodes.items() if ok]}, module {len(module)} bytes, kiosk looks for {kiosk_labels}")
    tryboot_module(fs, kver)
    seven_inch_panel(boot, fs, kver, config)
    pi3_family(img, boot, config)
    sd_numbering(boot)
    log(f"Pi card: kernel {kver}; boot partition {sorted(os.listdir(boot))[:12]}...")
    os.unlink(fs)


def pi5_firmware_boot(img, boot, config, carried):
    """The Pi 5 family's start, read as its firmware reads config.txt (pifirmware.pi5_plan)
    on a C1 and a D0 board: no U-Boot; the kernel, initrd (followkernel), command line and
    the stepping's tree all under os_prefix wordjudge-a/ (the firmware would drop a prefix
    whose kernel or tree is missing); os_check=0 for Debian's kernel; the folder's kernel,
    initrd and trees the slot's own (its /boot/firmware), its command line slot A's with
    the debug UART last; no tryboot.txt on a card as built. The initrd's Pi 5 modules are
    checked with the rest (INITRD_MODULES)."""
    files = pifirmware.fat_files(img, pifirmware.boot_partition(img))
    plans = {s: pifirmware.pi5_plan(config, files, stepping=s) for s in pifirmware.PI5_STEPPING_TREES}
    folder = os.path.join(boot, "wordjudge-a")
    same = {n: filecmp.cmp(os.path.join(folder, n), os.path.join(carried, n), shallow=False)
            if os.path.exists(os.path.join(folder, n)) else False
            for n in ["vmlinuz", "initrd.img", *pifirmware.PI5_STEPPING_TREES.values()]}
    cmdline = read(os.path.join(folder, "cmdline.txt")).split()
    consoles = [a for a in cmdline if a.startswith("console=")]
    ok = all(p["os_prefix"] == "wordjudge-a/" and not p["missing"] and p["kernel"] == "wordjudge-a/vmlinuz"
             and p["initramfs"] == "wordjudge-a/initrd.img" and p["followkernel"] and p["cmdline"] == "wordjudge-a/cmdline.txt"
             and p["settings"].get("os_check") == "0" and "u-boot" not in p["kernel"] for p in plans.values())
    check("Pi card: the Pi 5 family's firmware, C1 and D0 boards, reads config.txt's [pi5] to start slot A's own "
          "kernel, initrd (followkernel), command line and the stepping's tree from wordjudge-a/: no U-Boot, os_check=0",
          ok and plans["C1"]["tree"] == "wordjudge-a/bcm2712-rpi-5-b.dtb"
          and plans["D0"]["tree"] == "wordjudge-a/bcm2712d0-rpi-5-b.dtb",
          "; ".join(f"{s}: {p['kernel']}, {p['initramfs']}, {p['cmdline']}, {p['tree']}, missing {p['missing']}"
                    for s, p in plans.items()))
    check("Pi card: the Pi 5 slot folder holds slot A's own kernel, initrd and trees (its /boot/firmware), and its "
          "command line names slot A's root with the debug UART (ttyAMA10) last; no try pending (no tryboot.txt)",
          all(same.values()) and consoles[-1:] == ["console=ttyAMA10,115200"] and "root=PARTLABEL=wjroot-a" in cmdline
          and "rauc.slot=A" in cmdline and "tryboot.txt" not in files and pifirmware.EMULATED_FLAG not in files,
          f"same as the slot's: {same}; {' '.join(cmdline)}")


def tryboot_module(fs, kver):
    """The Pi 5's one-shot try (kiosk-image/pi-boot/tryboot): the module is in the root,
    built for the card's own kernel, known to modprobe, and calls the mainline firmware
    driver's property interface; the headers and compiler that built it left again."""
    dumped = os.path.join(common.WORK, "wordjudge_tryboot.ko")
    rel = "updates/wordjudge_tryboot.ko"
    debugfs(fs, f"dump /usr/lib/modules/{kver}/{rel} {dumped}")
    module = open(dumped, "rb").read() if os.path.exists(dumped) else b""
    deps = debugfs(fs, f"cat /usr/lib/modules/{kver}/modules.dep")
    listed = any(l.startswith(f"{rel}:") for l in deps.splitlines())
    vermagic = re.search(rb"vermagic=(\S+)", module)
    src = debugfs(fs, "ls -p /usr/src")
    headers = [l for l in src.splitlines() if "linux-headers" in l]
    check("Pi card: the tryboot module (wordjudge_tryboot) is in the root, built for the card's kernel (vermagic), "
          "listed for modprobe, calling the firmware driver's property interface; no kernel headers left in the image",
          bool(module) and vermagic is not None and vermagic.group(1).decode() == kver and listed
          and b"rpi_firmware_property" in module and b"parm=tryboot:" in module and not headers,
          f"{len(module)} bytes, vermagic {vermagic.group(1).decode() if vermagic else None} (kernel {kver}), "
          f"modules.dep {listed}, headers left {headers}")
    if os.path.exists(dumped):
        os.unlink(dumped)


def fdt(path):
    """A flattened device tree (.dtb) as {node path: {property: bytes}}: the format's
    tokens read directly (dtc's text output would have to be parsed back)."""
    with open(path, "rb") as f:
        data = f.read()
    be = lambda o: int.from_bytes(data[o:o + 4], "big")
    if be(0) != 0xD00DFEED:
        raise ValueError(f"{path} is not a device tree")
    struct, strings = be(8), be(12)
    nodes, stack, o = {}, [], struct
    while True:
        token = be(o); o += 4
        if token == 1:  # FDT_BEGIN_NODE
            end = data.index(b"\0", o)
            name = data[o:end].decode()
            o = (end + 4) & ~3
            stack.append(name)
            nodes["/" + "/".join(stack[1:])] = {}
        elif token == 2:  # FDT_END_NODE
            stack.pop()
        elif token == 3:  # FDT_PROP
            size, nameoff = be(o), be(o + 4)
            pname = data[strings + nameoff:data.index(b"\0", strings + nameoff)].decode()
            nodes["/" + "/".join(stack[1:])][pname] = data[o + 8:o + 8 + size]
            o = (o + 8 + size + 3) & ~3
        elif token == 4:  # FDT_NOP
            continue
        elif token == 9:  # FDT_END
            return nodes
        else:
            raise ValueError(f"{path}: bad token {token} at {o - 4}")


def fdt_str(value):
    return (value or b"").split(b"\0")[0].decode(errors="replace")


def fdt_u32(value):
    return int.from_bytes(value[:4], "big") if value and len(value) >= 4 else None


PANEL_OVERLAY = "overlays/vc4-kms-dsi-7inch.dtbo"


def panel_wiring(tree):
    """What the Pi 4 tree says of the DSI panel: {dsi1_status, panel (path), compatible,
    reg, linked (the graph both ways), at_45 (nodes at 0x45 on the bus), touch [(path,
    compatible, status)], bus_compatibles}."""
    sym = {k: fdt_str(v) for k, v in tree.get("/__symbols__", {}).items()}
    dsi1, bus, fw = sym.get("dsi1", "?"), sym.get("i2c0_1", "?"), sym.get("firmware", "?")
    by_phandle = {fdt_u32(p["phandle"]): path for path, p in tree.items() if "phandle" in p}
    out = {"dsi1_status": fdt_str(tree.get(dsi1, {}).get("status")), "panel": None, "compatible": None,
           "reg": None, "linked": False}
    dsi_ep = tree.get(dsi1 + "/port/endpoint", {})
    panel_ep = by_phandle.get(fdt_u32(dsi_ep.get("remote-endpoint")))
    if panel_ep and panel_ep.endswith("/port/endpoint"):
        panel = panel_ep[:-len("/port/endpoint")]
        out.update(panel=panel, compatible=fdt_str(tree[panel].get("compatible")), reg=fdt_u32(tree[panel].get("reg")),
                   linked=(fdt_u32(tree[panel_ep].get("remote-endpoint")) == fdt_u32(dsi_ep.get("phandle"))
                           and panel.rsplit("/", 1)[0] == bus))
    out["at_45"] = [path for path, p in tree.items() if path.rsplit("/", 1)[0] == bus and fdt_u32(p.get("reg")) == 0x45]
    out["touch"] = [(path, fdt_str(p.get("compatible")), fdt_str(p.get("status")) or "okay") for path, p in tree.items()
                    if path.startswith(fw + "/") and fdt_str(p.get("compatible")) == "raspberrypi,firmware-ts"]
    # What has to bind for the panel to show: the I2C mux and the controller behind it;
    # the DSI host is a part of vc4, loaded for the /gpu node.
    mux = bus.rsplit("/", 1)[0]
    parent = by_phandle.get(fdt_u32(tree.get(mux, {}).get("i2c-parent")), "?")
    out["bus_compatibles"] = [fdt_str(tree.get(n, {}).get("compatible")) for n in (mux, parent)]
    out["dsi1_compatible"] = fdt_str(tree.get(dsi1, {}).get("compatible"))
    out["gpu_compatible"] = fdt_str(tree.get("/gpu", {}).get("compatible"))
    return out


def seven_inch_panel(boot, fs, kver, config):
    """The original 7" panel on the Pi 4 family (kiosk-image/pi-boot/overlays)."""
    w = common.WORK
    overlay = os.path.join(boot, PANEL_OVERLAY)
    aliases_file = os.path.join(w, "modules.alias")
    debugfs(fs, f"dump /usr/lib/modules/{kver}/modules.alias {aliases_file}")
    aliases = {}
    for line in read(aliases_file).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "alias" and parts[1].startswith("of:N*T*C"):
            aliases.setdefault(parts[1][len("of:N*T*C"):].removesuffix("C*"), set()).add(parts[2])
    modules_dep = debugfs(fs, f"cat /usr/lib/modules/{kver}/modules.dep")
    ko_paths = {os.path.basename(l.split(":", 1)[0]).split(".ko")[0].replace("-", "_"): l.split(":", 1)[0]
                for l in modules_dep.splitlines() if ":" in l}
    on_card = set(ko_paths)

    def module_strings(module):
        """The module's file, decompressed (b"" if it is not in the root)."""
        dumped = os.path.join(w, f"{module}.ko.xz")
        debugfs(fs, f"dump /usr/lib/modules/{kver}/{ko_paths.get(module, 'none')} {dumped}")
        try:
            with open(dumped, "rb") as f:
                return lzma.decompress(f.read())
        except (OSError, lzma.LZMAError):
            return b""

    def served(compatible):
        """The module that binds to this compatible, if its file is in the root."""
        mods = sorted(m for m in aliases.get(compatible, ()) if m.replace("-", "_") in on_card)
        return mods[0] if mods else None

    results = {}
    for name in PI4_TREES:
        base = os.path.join(boot, name)
        merged = os.path.join(w, name.replace(".dtb", "+panel.dtb"))
        p = subprocess.run(["fdtoverlay", "-i", base, "-o", merged, overlay], capture_output=True, text=True)
        shipped = panel_wiring(fdt(base)) if os.path.exists(base) else None
        results[name] = (p.returncode == 0 and os.path.exists(merged), p.stderr.strip()[:200],
                         panel_wiring(fdt(merged)) if p.returncode == 0 else None, shipped)
    check("Pi card: the 7\" panel's overlay is on the partition (overlays/) and fdtoverlay applies it to every Pi 4 family tree",
          os.path.exists(overlay) and all(ok for ok, _, _, _ in results.values()),
          ", ".join(f"{n}: {'applies' if ok else 'FAILS ' + err}" for n, (ok, err, _, _) in results.items()))
    good, detail, vc4_tables = True, [], {}
    for name, (ok, _, got, _) in results.items():
        got = got or {}
        mods = [served(c) for c in [got.get("compatible")] + got.get("bus_compatibles", [])]
        # vc4's DSI driver has no alias of its own: vc4 binds it as a component, from the
        # match table in the module vc4 is loaded as for /gpu.
        gpu_module = served(got.get("gpu_compatible"))
        if gpu_module and gpu_module not in vc4_tables:
            vc4_tables[gpu_module] = module_strings(gpu_module)
        host = f"{gpu_module} (for {got.get('gpu_compatible')})" if gpu_module and (
            got.get("dsi1_compatible", "").encode() + b"\0") in vc4_tables.get(gpu_module, b"") else None
        mods.append(host)
        this = (got.get("dsi1_status") == "okay" and got.get("linked") and got.get("reg") == 0x45
                and got.get("compatible") == "raspberrypi,7inch-touchscreen-panel" and all(mods))
        good &= bool(this)
        detail.append(f"{name}: dsi1 {got.get('dsi1_status')}, panel {got.get('panel')} ({got.get('compatible')}) "
                      f"linked {got.get('linked')}, modules {mods}")
    check("Pi card: with the overlay, dsi1 is on and wired (endpoints both ways) to the panel at 0x45 on the display "
          "connector's I2C (i2c0_1), and a module in the root binds to the panel, the I2C mux and controller "
          "(modules.alias) and the DSI host (vc4's match table)", good, "; ".join(detail))
    one_client = all(r[2] and len(r[2]["at_45"]) == 1 for r in results.values())
    check("Pi card: one I2C client at 0x45, the panel driver (which powers the panel through the ATTINY itself; a "
          "regulator node there would contend for the chip)", one_client,
          ", ".join(f"{n}: {r[2]['at_45'] if r[2] else None}" for n, r in results.items()))
    touch = {n: (r[2] or {}).get("touch") for n, r in results.items()}
    check("Pi card: the firmware-polled touch is described under the firmware node (raspberrypi,firmware-ts, a module "
          "in the root serves it), disabled: the kiosk reads no touch",
          all(t and len(t) == 1 and t[0][2] == "disabled" and served(t[0][1]) for t in touch.values()),
          f"{touch}, module {served('raspberrypi,firmware-ts')}")
    # HDMI-only stations boot the shipped trees: the overlay was not merged into them (the
    # build compares them with the kernel package's copies, customize.sh check_pi_boot;
    # those copies are not kept on the card).
    shipped = {n: r[3] for n, r in results.items()}
    check("Pi card: the shipped Pi 4 family trees are the kernel's (dsi1 disabled, no panel, no touch node): "
          "without a panel the firmware boots them as they are",
          all(s and s["dsi1_status"] == "disabled" and not s["panel"] and not s["touch"] and not s["at_45"]
              for s in shipped.values()),
          ", ".join(f"{n}: dsi1 {s['dsi1_status'] if s else None}" for n, s in shipped.items()))

    files = set()
    for root, _, names in os.walk(boot):
        files |= {os.path.relpath(os.path.join(root, n), boot) for n in names}
    sd = SD_OVERLAY
    want = {("pi4", True): [sd, PANEL_OVERLAY], ("pi4", False): [sd], ("pi400", False): [sd], ("cm4", True): [sd],
            ("cm4", False): [sd], ("pi5", True): [], ("pi5", False): []}
    want.update({(m, panel): [] for m in pifirmware.PI3_FAMILY for panel in (True, False)})
    got, problems = {}, []
    for (model, panel), expected in want.items():
        try:
            r = pifirmware.firmware_overlays(config, model, panel, files)
        except ValueError as e:
            problems.append(str(e)); continue
        got[(model, panel)] = [o for o, _ in r["overlays"]]
        if r["missing"] or r["overlay_map"]:
            problems.append(f"{model}: missing {r['missing']}, overlay_map {r['overlay_map']}")
    check("Pi card: config.txt as the firmware reads it applies the panel's overlay on a Pi 4 with the panel only "
          "(Pi 4 without, Pi 400, CM4: no display detection there; Pi 5: DSI on RP1, which Debian's kernel cannot "
          "drive; Pi 3 family: the overlay is the Pi 4's: none), the SD numbering overlay on every Pi 4 family "
          "board and nowhere else, from the partition's overlays/ (no overlay_map)",
          not problems and all(got.get(k) == v for k, v in want.items()),
          "; ".join(f"{m}{' +panel' if p else ''}: {got.get((m, p))}" for m, p in want) + (f"; {problems}" if problems else ""))


SD_OVERLAY = "overlays/wordjudge-sd-mmc0.dtbo"
# The Pi 4 family's controllers, as the upstream bcm2711 trees name them.
EMMC2 = "/emmc2-bus@fe000000/mmc@7e340000"
SDHCI = "/soc/mmc@7e300000"


def sd_numbering(boot):
    """The Pi 4 family's SD card is U-Boot's (and Linux's) mmc 0 once the firmware applies
    wordjudge-sd-mmc0 (pi-boot/overlays/wordjudge-sd-mmc0.dts says why)."""
    w = common.WORK
    overlay = os.path.join(boot, SD_OVERLAY)
    got = {}
    for name in PI4_TREES:
        merged = os.path.join(w, name.replace(".dtb", "+sd.dtb"))
        p = subprocess.run(["fdtoverlay", "-i", os.path.join(boot, name), "-o", merged, overlay], capture_output=True, text=True)
        if p.returncode != 0:
            got[name] = f"FAILS {p.stderr.strip()[:160]}"
            continue
        tree = fdt(merged)
        aliases = {k: fdt_str(v) for k, v in tree.get("/aliases", {}).items()}
        compat = lambda path: fdt_str(tree.get(path, {}).get("compatible"))
        status = lambda path: fdt_str(tree.get(path, {}).get("status")) or "okay"
        ok = (aliases.get("mmc0") == EMMC2 and compat(EMMC2) == "brcm,bcm2711-emmc2" and status(EMMC2) == "okay"
              and aliases.get("mmc1") == SDHCI and compat(SDHCI) == "brcm,bcm2835-sdhci")
        got[name] = "ok" if ok else f"mmc0 {aliases.get('mmc0')} ({compat(aliases.get('mmc0', ''))}), mmc1 {aliases.get('mmc1')}"
    check("Pi card: on every Pi 4 family tree the SD numbering overlay applies (fdtoverlay) and makes emmc2, the SD "
          "card's controller, mmc0 (U-Boot reads uboot.env from mmc 0:1) and the Wi-Fi SDIO controller mmc1",
          os.path.exists(overlay) and all(v == "ok" for v in got.values()), ", ".join(f"{n}: {v}" for n, v in got.items()))


# The Pi 3 family's trees, by model, with what start.elf appends to "bcm2837-rpi-".
PI3_TREE_SUFFIX = {"pi3": "3-b", "pi3b+": "3-b-plus", "pi3a+": "3-a-plus", "cm3": "cm3-io3", "cm3+": "cm3-io3",
                   "pi02": "zero-2-w"}
# Each model's header UART: the mini UART where the PL011 drives Bluetooth (ttyS1, alias
# serial1), the PL011 on the CM3s (ttyAMA0, alias serial0).
PI3_CONSOLE = {"pi3": ("ttyS1", "serial1", "serial@7e215040"), "pi3b+": ("ttyS1", "serial1", "serial@7e215040"),
               "pi3a+": ("ttyS1", "serial1", "serial@7e215040"), "pi02": ("ttyS1", "serial1", "serial@7e215040"),
               "cm3": ("ttyAMA0", "serial0", "serial@7e201000"), "cm3+": ("ttyAMA0", "serial0", "serial@7e201000")}
PI3_SD_HOST = "/soc/mmc@7e202000"


def hybrid_mbr(img):
    """The card's MBR entries: [(type, first LBA, sectors)] of the used ones, and whether
    the boot signature is there."""
    with open(img, "rb") as f:
        mbr = f.read(512)
    entries = []
    for i in range(4):
        e = mbr[446 + 16 * i:446 + 16 * (i + 1)]
        if e[4]:
            entries.append((e[4], int.from_bytes(e[8:12], "little"), int.from_bytes(e[12:16], "little")))
    return entries, mbr[510:512] == b"\x55\xaa"


def pi3_family(img, boot, config):
    """The Pi 3 family (3 B, 3 B+, 3 A+, CM3, CM3+, Zero 2 W) from the same card."""
    _, wjboot = pifirmware.partition(img, "wjboot")
    entries, signed = hybrid_mbr(img)
    check("Pi card: a hybrid MBR for the Pi 3 family's boot ROM: entry 1 is the boot partition as FAT32 LBA (0x0c, "
          "same start and size as in the GPT), entry 2 the GPT's 0xee from sector 1; nothing else",
          signed and entries == [(0x0C, wjboot["start"], wjboot["size"]), (0xEE, 1, wjboot["start"] - 1)],
          f"MBR {[(hex(t), s, n) for t, s, n in entries]}, GPT wjboot {wjboot['start']}+{wjboot['size']}")
    firmware = {f: os.path.getsize(os.path.join(boot, f)) if os.path.exists(os.path.join(boot, f)) else 0
                for f in ("bootcode.bin", "start.elf", "fixup.dat")}
    start_elf = b""
    if firmware["start.elf"]:
        with open(os.path.join(boot, "start.elf"), "rb") as f:
            start_elf = f.read()
    check("Pi card: the Pi 3 family's firmware (bootcode.bin, start.elf, fixup.dat) on the boot partition",
          all(firmware.values()), f"{firmware}")
    # start.elf makes the tree's name as "bcm%d-rpi-%s.dtb" (2837 with upstream_kernel=1)
    # from a per-board string: both are in its own strings.
    made = b"bcm%d-rpi-%s.dtb\0" in start_elf and b"\0bcm2837\0" in start_elf
    good, detail = True, []
    for model in pifirmware.PI3_FAMILY:
        settings = pifirmware.config_lines(config, model)
        get = pifirmware.setting_of(settings)
        suffix = PI3_TREE_SUFFIX[model]
        tree_name = f"bcm2837-rpi-{suffix}.dtb"
        path = os.path.join(boot, tree_name)
        tree = fdt(path) if os.path.exists(path) else {}
        console, alias, uart = PI3_CONSOLE[model]
        cmdline = read(os.path.join(boot, get("cmdline") or "cmdline.txt")).split()
        last = [a for a in cmdline if a.startswith("console=")][-1:]
        uart_path = fdt_str(tree.get("/aliases", {}).get(alias))
        mmc = [p for p, props in tree.items() if re.fullmatch(r"/soc/mmc@[0-9a-f]+", p)
               and (fdt_str(props.get("status")) or "okay") == "okay"]
        this = {
            "firmware names the tree": made and f"\0{suffix}\0".encode() in start_elf
                                       and tree_name == pifirmware.MODEL_TREES[model],
            "tree names a BCM2837": b"brcm,bcm2837" in tree.get("/", {}).get("compatible", b""),
            "U-Boot, 64-bit, upstream trees": get("kernel") == "u-boot.bin" and get("arm_64bit") == "1"
                                              and get("upstream_kernel") == "1",
            "console": last == [f"console={console},115200"] and get("enable_uart") == "1"
                       and uart_path.endswith(uart) and (fdt_str(tree.get(uart_path, {}).get("status")) or "okay") == "okay",
            "slot A's root": cmdline.count("root=PARTLABEL=wjroot-a") == 1 and "rauc.slot=A" in cmdline,
            "SD host first": bool(mmc) and mmc[0] == PI3_SD_HOST
                             and fdt_str(tree.get(PI3_SD_HOST, {}).get("compatible")) == "brcm,bcm2835-sdhost",
            "no panel detection": get("display_auto_detect") == "0",
        }
        good &= all(this.values())
        failed = [k for k, v in this.items() if not v]
        detail.append(f"{model}: {tree_name}, {get('cmdline')} {last} -> {alias} {uart_path}, mmc {mmc}"
                      + (f" FAILED {failed}" if failed else ""))
    uboot = read(os.path.join(boot, "u-boot.bin"))
    check("Pi card: config.txt as the Pi 3 family's firmware reads it (3 B, 3 B+, 3 A+, CM3, CM3+, Zero 2 W): U-Boot "
          "in 64-bit mode, the tree start.elf names (its own strings) on the partition, the serial console that tree's "
          "alias names (mini UART ttyS1; the CM3's PL011 ttyAMA0), slot A's root, the SD host enabled and first of the "
          "MMC controllers (U-Boot's mmc 0, whose driver u-boot.bin has), no 7\" panel detection",
          good and "brcm,bcm2835-sdhost" in uboot, "; ".join(detail))
