#!/bin/bash
# mmdebstrap customize hook: turns the fresh Debian tree $1 into the wordjudge
# appliance's read-only root. Called by build.sh (which exports the WJ_* settings).
set -euo pipefail
R=$1
say() { printf '[customize %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
# Runs a command whose chatter is not wanted, and shows that chatter when it fails (inside
# mmdebstrap's hook a silenced failure would otherwise leave only "mmdebstrap failed").
quietly() {
    local out
    if ! out=$("$@" 2>&1); then
        say "failed: $*"; printf '%s\n' "$out" | tail -n 30 >&2; return 1
    fi
}

# Packages added to the tree and taken out again (the tryboot module's build, the kernel
# hook's test) go in as mmdebstrap installs the tree's own: the host's apt-get with
# mmdebstrap's configuration for this tree (MMDEBSTRAP_APT_CONFIG), its files under the
# tree's /tmp, and the tree's dpkg and maintainer scripts run in the chroot with TMPDIR
# unset, with kiosk-image/tree-apt.conf's settings on top. The tree's own apt-get, under
# qemu-user, spends two minutes building its package cache before it installs anything.
# Its chatter is shown when it fails.
[ -f "${MMDEBSTRAP_APT_CONFIG:-}" ] || { say "MMDEBSTRAP_APT_CONFIG is not set: run by mmdebstrap (build.sh)"; exit 1; }
tree_apt_get() {
    quietly env TMPDIR="$R/tmp" APT_CONFIG="$MMDEBSTRAP_APT_CONFIG" DEBIAN_FRONTEND=noninteractive apt-get \
        -o Dir::Bin::dpkg=env -o DPkg::Options::=--unset=TMPDIR -o DPkg::Options::=dpkg \
        -o DPkg::Chroot-Directory="$R" -c "$WJ_REPO/kiosk-image/tree-apt.conf" "$@"
}

# --- kmod's depmod back ------------------------------------------------------------------
# build.sh made depmod a no-op while the packages installed (under qemu-user the kernel
# package's run of it takes minutes); the module lists are written below by the host's
# depmod over the pruned tree. Nothing of the stub may reach the image: kmod's link must be
# back, with no diversion left.
rm -f "$R/usr/sbin/depmod"
chroot "$R" dpkg-divert --quiet --local --rename --divert "$WJ_DEPMOD_DIVERTED" --remove /usr/sbin/depmod
if [ ! -L "$R/usr/sbin/depmod" ] || [ -e "$R$WJ_DEPMOD_DIVERTED" ] || chroot "$R" dpkg-divert --list | grep -q depmod; then
    say "kmod's depmod is not back in place: $(ls -l "$R/usr/sbin/depmod" 2>&1); $(chroot "$R" dpkg-divert --list | grep depmod)"
    exit 1
fi

# --- units, drop-ins, rules, docs (the programs go in after this hook: build.sh) ----------
# Every file of the one list the .deb installs too (Cargo.toml's assets, read by
# installed-files.sh), where the package puts it: the kiosk's unit; the root units that
# mount a director's USB stick (started by the kiosk through polkit); the fleet's wired
# network and uploader, which run only on a station that joined an event's fleet (their
# ConditionPathExists=), enabled below so that a joined station sends again after every
# boot; systemd's drop-ins and the udev and polkit rules, in the vendor places (/usr/lib,
# /usr/share); the docs beside README.md, so that its links resolve.
files=$("$WJ_REPO/kiosk-image/installed-files.sh" "$WJ_REPO/Cargo.toml")
[ -n "$files" ] || { say "installed-files.sh listed nothing"; exit 1; }
while read -r src dest mode; do
    install -D -m"0$mode" "$WJ_REPO/$src" "$R/$dest"
done <<<"$files"

# --- release and updates -----------------------------------------------------------------
# The release this root filesystem is: shown by the director menu, compared by an update.
printf 'VERSION=%s\nARCH=%s\n' "$WJ_VERSION" "$WJ_ARCH" >"$R/etc/wordjudge-release"
# A/B root slots with RAUC (kiosk-image/update/): its configuration with this image's
# compatible string and boot loader (the PC: systemd-boot through our back-end; the Pi:
# U-Boot's boot counter, kiosk-image/pi-boot/boot.cmd, which RAUC drives itself), the
# operator's certificate (never a key), the check that keeps or rejects a new slot, and
# the D-Bus rule that lets the kiosk ask RAUC for an install.
U=$WJ_REPO/kiosk-image/update
if [ "$WJ_ARCH" = amd64 ]; then
    BOOTLOADER="bootloader=custom"
    HANDLERS=$'[handlers]\nbootloader-custom-backend=/usr/lib/wordjudge/rauc-systemd-boot'
    install -D -m0755 "$U/rauc-systemd-boot" "$R/usr/lib/wordjudge/rauc-systemd-boot"
else
    # A new slot gets one try (boot-attempts-primary); a slot marked good gets 3, which
    # boot.cmd also gives both slots when neither has one left.
    BOOTLOADER=$'bootloader=uboot\n# U-Boot\'s counter: one try for a newly installed slot, 3 once it is marked good\n# (kiosk-image/pi-boot/boot.cmd spends them; the boot check marks good).\nboot-attempts-primary=1\nboot-attempts=3'
    HANDLERS=""
    # fw_printenv/fw_setenv (RAUC's way to the counter): the counter file on partition 1.
    printf '%s\n' "# wordjudge: U-Boot's A/B counter (kiosk-image/pi-boot/boot.cmd), a 16 KiB environment" \
        "# file on the card's boot partition, mounted on demand at /boot/pi." \
        "/boot/pi/wjboot.env 0x0000 0x4000" >"$R/etc/fw_env.config"
    mkdir -p "$R/boot/pi"
fi
rauc_conf() {  # rauc_conf BOOTLOADER HANDLERS DEST: system.conf with them filled in
    sed -e "s/@COMPATIBLE@/wordjudge-$WJ_ARCH/" "$U/system.conf" |
        WJ_BL=$1 WJ_HANDLERS=$2 awk '$0 == "@BOOTLOADER@" { print ENVIRON["WJ_BL"]; next }
            $0 == "@HANDLERS@" { if (ENVIRON["WJ_HANDLERS"] != "") print ENVIRON["WJ_HANDLERS"]; next } { print }' |
        install -D -m0644 /dev/stdin "$3"
    if grep -q '@[A-Z]*@' "$3"; then say "$3: a placeholder was left unfilled"; exit 1; fi
}
rauc_conf "$BOOTLOADER" "$HANDLERS" "$R/etc/rauc/system.conf"
if [ "$WJ_ARCH" = arm64 ]; then
    # The Pi 5 family: the firmware's own A/B through our custom back-end, laid over
    # /etc/rauc/system.conf on a BCM2712 only (etc-rauc-system.conf.mount).
    install -D -m0755 "$U/rauc-pi-tryboot" "$R/usr/lib/wordjudge/rauc-pi-tryboot"
    rauc_conf "bootloader=custom" $'[handlers]\nbootloader-custom-backend=/usr/lib/wordjudge/rauc-pi-tryboot' \
        "$R/usr/lib/wordjudge/rauc/system-pi5.conf"
    install -D -m0644 "$U/etc-rauc-system.conf.mount" "$R/usr/lib/systemd/system/etc-rauc-system.conf.mount"
    quietly chroot "$R" systemctl enable etc-rauc-system.conf.mount
fi
install -D -m0644 "$WJ_UPDATE_CERT" "$R/etc/rauc/keyring.pem"
install -D -m0755 "$U/boot-check" "$R/usr/lib/wordjudge/boot-check"
install -D -m0644 "$U/wordjudge-boot-check.service" "$R/usr/lib/systemd/system/wordjudge-boot-check.service"
# RAUC's own D-Bus policy lets every local user control it. The bus reads a folder's
# files in no set order, so a second file cannot be sure to override it: it is
# diverted out of the folder and ours takes its name (the boot test checks the
# kiosk's user cannot Mark).
mkdir -p "$R/usr/share/wordjudge/dbus"
chroot "$R" dpkg-divert --quiet --local --rename \
    --divert /usr/share/wordjudge/dbus/de.pengutronix.rauc.conf.rauc /usr/share/dbus-1/system.d/de.pengutronix.rauc.conf
[ -f "$R/usr/share/wordjudge/dbus/de.pengutronix.rauc.conf.rauc" ] ||
    { say "RAUC's D-Bus policy is not where it was: nothing was diverted, the kiosk's user could control RAUC"; exit 1; }
install -D -m0644 "$U/dbus-wordjudge-rauc.conf" "$R/usr/share/dbus-1/system.d/de.pengutronix.rauc.conf"
# The Pi's kernel (Linux >= 6.19) needs RAUC >= 1.15.1 to mount a verity bundle (build.sh
# takes it from forky); trixie's 1.13 is enough for the PC's 6.12.
rauc_version=$(chroot "$R" dpkg-query -W -f '${Version}' rauc)
if [ "$WJ_ARCH" = arm64 ] && ! chroot "$R" dpkg --compare-versions "$rauc_version" ge 1.15.1; then
    say "RAUC $rauc_version cannot mount a verity bundle under this kernel (needs 1.15.1 or later)"; exit 1
fi
say "RAUC $rauc_version"
quietly chroot "$R" systemctl enable wordjudge-boot-check.service
if [ "$WJ_ARCH" = amd64 ]; then
    # The command line the slot's boot entry gets; the EFI system partition's mount point.
    printf '%s\n' "$WJ_CMDLINE" | install -D -m0644 /dev/stdin "$R/usr/lib/wordjudge/kernel-cmdline"
    mkdir -p "$R/efi"
fi

# --- users: created now, because /etc is read-only at run time --------------------------
quietly chroot "$R" systemd-sysusers
chroot "$R" passwd --lock root >/dev/null

# --- appliance identity -------------------------------------------------------------------
echo wordjudge >"$R/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\twordjudge\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$R/etc/hosts"
# (/etc/machine-id is written by build.sh: mmdebstrap empties it after this hook.)
ln -sf "/usr/share/zoneinfo/$WJ_TIMEZONE" "$R/etc/localtime"; echo "$WJ_TIMEZONE" >"$R/etc/timezone"

# --- read-only root, writable data partition ---------------------------------------------
mkdir -p "$R/data" "$R/var/lib/wordjudge" "$R/var/log/journal"
cat >"$R/etc/fstab" <<'FSTAB'
# wordjudge appliance. The root filesystem is never written: a power cut cannot damage it.
# (The root is named on the kernel command line, read-only: on the PC it is one of two
# slots holding the same filesystem, so no label here could tell them apart.)
# Everything that changes lives on the data partition (config, lexicons, audit log, journal).
LABEL=wjdata     /data               ext4   rw,noatime,nosuid,nodev,noexec,data=ordered,commit=5  0 2
/data/wordjudge  /var/lib/wordjudge  none   bind,x-systemd.requires-mounts-for=/data  0 0
/data/journal    /var/log/journal    none   bind,x-systemd.requires-mounts-for=/data  0 0
/data/systemd    /var/lib/systemd    none   bind,x-systemd.requires-mounts-for=/data  0 0
tmpfs            /tmp                tmpfs  mode=1777,nosuid,nodev,size=64M         0 0
tmpfs            /var/tmp            tmpfs  mode=1777,nosuid,nodev,size=16M         0 0
FSTAB
if [ "$WJ_ARCH" = amd64 ]; then
    # The EFI system partition, mounted only while the update back-end uses it.
    echo 'PARTLABEL=wjboot /efi vfat noauto,x-systemd.automount,x-systemd.idle-timeout=30,umask=0077,noexec,nosuid,nodev 0 0' >>"$R/etc/fstab"
else
    # The Pi's boot partition (firmware, U-Boot, its script and counter), mounted only
    # while RAUC or the boot check reads or writes the counter.
    echo 'PARTLABEL=wjboot /boot/pi vfat noauto,x-systemd.automount,x-systemd.idle-timeout=30,umask=0077,noexec,nosuid,nodev 0 0' >>"$R/etc/fstab"
fi

# --- boot straight into the kiosk: no logins, no VT tricks -------------------------------
quietly chroot "$R" systemctl enable wordjudge.service
quietly chroot "$R" systemctl enable wordjudge-fleet-upload.service wordjudge-fleet-network.service
quietly chroot "$R" systemctl set-default multi-user.target
for unit in getty@.service serial-getty@.service console-getty.service ctrl-alt-del.target \
            apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
            systemd-networkd-wait-online.service systemd-update-utmp.service \
            systemd-update-utmp-runlevel.service \
            systemd-journal-remote.socket systemd-journal-remote.service systemd-journal-upload.service \
            systemd-journal-gatewayd.socket systemd-journal-gatewayd.service; do
    ln -sf /dev/null "$R/etc/systemd/system/$unit"
done

# --- the Raspberry Pi boot partition (arm64) -------------------------------------------------
# Modules the Pi card's initrd must hold (kiosk-image/pi-boot/initramfs-hook says why).
PI_MODULES="bcm2835 sdhci-iproc sdhci-brcmstb gpio-regulator fixed gpio-brcmstb rp1_pci clk-rp1 pinctrl-rp1 xhci-plat-hcd vc4"
pi_boot_files() {
    local P=$WJ_REPO/kiosk-image/pi-boot hook
    install -D -m0755 "$P/wordjudge-pi-boot" "$R/usr/share/wordjudge/pi-boot/wordjudge-pi-boot"
    install -D -m0644 "$P/config.txt" "$R/usr/share/wordjudge/pi-boot/config.txt"
    # Our device-tree overlays (pi-boot/overlays/*.dts), compiled here with the host's dtc:
    # -@ keeps the label references for the firmware to resolve against the board's tree.
    mkdir -p "$R/usr/share/wordjudge/pi-boot/overlays"
    for dts in "$P"/overlays/*.dts; do
        dtc -q -@ -I dts -O dtb -o "$R/usr/share/wordjudge/pi-boot/overlays/$(basename "${dts%.dts}").dtbo" "$dts" ||
            { say "dtc failed on $dts"; exit 1; }
    done
    # U-Boot's A/B script, compiled here with the host's mkimage (u-boot-tools).
    mkimage -A arm64 -T script -C none -n "wordjudge A/B boot" -d "$P/boot.cmd" \
        "$R/usr/share/wordjudge/pi-boot/boot.scr" >/dev/null || { say "mkimage failed on $P/boot.cmd"; exit 1; }
    install -D -m0755 "$P/initramfs-hook" "$R/etc/initramfs-tools/hooks/wordjudge-pi"
    for hook in /etc/kernel/postinst.d /etc/kernel/postrm.d /etc/initramfs/post-update.d; do
        mkdir -p "$R$hook"
        ln -sf /usr/share/wordjudge/pi-boot/wordjudge-pi-boot "$R$hook/zz-wordjudge-pi-boot"
        # raspi-firmware's hook would write the same partition from /usr/lib/linux-image-*
        # only (none with trixie-backports' kernels): one writer, ours.
        if [ -e "$R$hook/z50-raspi-firmware" ]; then
            chroot "$R" dpkg-divert --quiet --local --rename \
                --divert "$hook/z50-raspi-firmware.disabled-by-wordjudge" "$hook/z50-raspi-firmware"
        fi
    done
    printf '%s\n' "$WJ_CMDLINE" >"$R/etc/kernel/cmdline"
    find "$R/boot/firmware" -mindepth 1 -delete 2>/dev/null || true
}
check_pi_boot() {  # check_pi_boot VERSION WHEN: every boot file is VERSION's
    local v=$1 when=$2 B=$R/boot/firmware dtbs f
    grep -qx "kernel=$v" "$B/wordjudge-boot.txt" 2>/dev/null ||
        { say "kernel hook: after $when the boot partition says '$(cat "$B/wordjudge-boot.txt" 2>/dev/null)', not kernel=$v"; exit 1; }
    cmp -s "$B/initrd.img" "$R/boot/initrd.img-$v" || { say "kernel hook: after $when initrd.img is not $v's"; exit 1; }
    if [ -f "$R/lib/modules/$v/vmlinuz" ]; then f=$R/lib/modules/$v/vmlinuz; else f=$R/boot/vmlinuz-$v; fi
    cmp -s "$B/vmlinuz" "$f" || { say "kernel hook: after $when vmlinuz is not $v's"; exit 1; }
    dtbs=$R/lib/modules/$v/dtb/broadcom; [ -d "$dtbs" ] || dtbs=$R/usr/lib/linux-image-$v/broadcom
    for f in "$dtbs"/bcm2837-rpi-3-b.dtb "$dtbs"/bcm2837-rpi-3-b-plus.dtb "$dtbs"/bcm2837-rpi-3-a-plus.dtb \
             "$dtbs"/bcm2837-rpi-cm3-io3.dtb "$dtbs"/bcm2837-rpi-zero-2-w.dtb \
             "$dtbs"/bcm2711-rpi-4-b.dtb "$dtbs"/bcm2711-rpi-400.dtb "$dtbs"/bcm2711-rpi-cm4-io.dtb; do
        cmp -s "$f" "$B/$(basename "$f")" || { say "kernel hook: after $when $(basename "$f") is not $v's"; exit 1; }
    done
    for f in "$R"/usr/share/wordjudge/pi-boot/overlays/*.dtbo; do
        cmp -s "$f" "$B/overlays/$(basename "$f")" || { say "kernel hook: after $when overlays/$(basename "$f") is missing"; exit 1; }
    done
    say "kernel hook: after $when the boot partition holds kernel $v, its initrd and device trees"
}

# --- kernel: drop modules an offline kiosk never loads, rebuild the initrd ---------------
# Kept on purpose: every display driver the image claims (amd64: i915, amdgpu, radeon,
# nouveau, bochs, virtio-gpu; arm64: vc4, v3d, virtio-gpu) with what they need: vc4 and
# i915 need cec (drivers/media/cec, with rc-core) and vc4 the ALSA SoC core (sound/) for
# HDMI audio, which is why media/cec, media/rc and sound stay. Also kept: what a USB stick
# needs (director menu import/export): the USB 3 host controller (xhci-pci: the PC's, the
# Pi 4's VL805, QEMU's), usb-storage and uas (drivers/usb/storage), the SCSI
# core and disk driver (drivers/scsi/scsi_mod.ko, sd_mod.ko: top-level files, which the
# drivers/scsi/*/ pruning below leaves alone), the filesystems the udev rule accepts (fs/fat
# for vfat, fs/exfat, fs/ext4 with jbd2 and mbcache) and the character sets a FAT mount
# loads (fs/nls: Debian's defaults are codepage 437 and iocharset ascii, utf8 if the mount
# asks for it; exFAT does UTF-8 itself). The check below fails the build if any of
# those modules is left with a missing module or an unresolved symbol; a module built into
# the kernel (modprobe says "builtin") passes as it is.
KVER=$(basename "$(ls -d "$R"/lib/modules/* | sort -V | tail -n1)")
case "$WJ_ARCH" in
    amd64) DISPLAY_DRIVERS="i915 amdgpu radeon nouveau bochs virtio-gpu" ;;
    arm64) DISPLAY_DRIVERS="vc4 v3d virtio-gpu" ;;
    *) DISPLAY_DRIVERS="" ;;
esac
STICK_MODULES="xhci-pci usb-storage uas sd_mod vfat exfat ext4 nls_cp437 nls_ascii nls_utf8"
# A keyboard: players type the words. The USB HID core and its generic driver everywhere;
# the PC's PS/2 keyboard (atkbd, built into Debian's kernel); on the Pi, the host
# controllers its USB ports hang from besides the Pi 4's VL805 (xhci-pci, above): the Pi 3
# family's dwc2 and the Pi 5's RP1 (dwc3 with xhci-plat-hcd). The kiosk says on READY when
# none is plugged in; this makes sure one that is plugged in can work.
case "$WJ_ARCH" in
    amd64) KEYBOARD_MODULES="usbhid hid-generic atkbd" ;;
    arm64) KEYBOARD_MODULES="usbhid hid-generic dwc2 dwc3 xhci-plat-hcd" ;;
    *) KEYBOARD_MODULES="" ;;
esac
# Wired Ethernet, for a station that joins an event's fleet (wordjudge-fleet-network.service
# brings it up; a station in no fleet leaves it down): the boards' own controllers and their
# PHYs, USB adapters (the Zero 2 W and 3 A+ have no Ethernet port), and QEMU's virtio-net
# (the boot test's upload). Everything else under net/ and drivers/net is dropped below.
case "$WJ_ARCH" in
    amd64) NET_MODULES="e1000 e1000e igb igc r8169 realtek tg3 broadcom virtio_net r8152 ax88179_178a cdc_ether" ;;
    # Pi 4: genet (bcmgenet) + mdio-bcm-unimac + broadcom; Pi 5: macb + broadcom; Pi 3 B:
    # smsc95xx + smsc; Pi 3 B+: lan78xx + microchip.
    arm64) NET_MODULES="genet mdio-bcm-unimac broadcom macb smsc95xx smsc lan78xx microchip virtio_net r8152 ax88179_178a cdc_ether" ;;
    *) NET_MODULES="" ;;
esac
# Unresolved symbols as depmod -e sees them before pruning (the baseline: with or without
# System.map, depmod names some symbols of the kernel proper), to compare with after.
# The host's depmod and modprobe read the tree directly (-b/-d): they handle any
# architecture's modules, and under qemu-user each chrooted run would take a minute.
unresolved() {
    depmod -b "$R" -a -e -F "$SYSTEM_MAP" "$KVER" 2>&1 | grep 'unknown symbol' | sed "s|$R||g" | sort -u
}
# trixie's kernels keep it in /boot, trixie-backports' (the Pi's) in /usr/lib/modules.
SYSTEM_MAP=$R/boot/System.map-$KVER; [ -f "$SYSTEM_MAP" ] || SYSTEM_MAP=$R/lib/modules/$KVER/System.map
unresolved_before=$(unresolved)
if [ "${WJ_KEEP_ALL_MODULES:-0}" != 1 ]; then
    M=$R/lib/modules/$KVER/kernel
    # The Ethernet modules and every module they need are set aside and put back (by their
    # real paths in the tree: /lib is a link to usr/lib). A name modprobe does not know
    # fails the build below (must_load).
    KEEP=$(mktemp -d)
    for mod in $NET_MODULES; do
        modprobe -d "$R" -S "$KVER" --show-depends "$mod" 2>/dev/null | awk '$1=="insmod"{print $2}'
    done | sort -u | while read -r ko; do
        [ -f "$ko" ] || ko=$R$ko
        real=$(readlink -f "$ko")
        install -D -m0644 "$real" "$KEEP/${real#"$R"/}"
    done
    rm -rf "$M/net" "$M/drivers/net" "$M/drivers/infiniband" \
           "$M/drivers/media/usb" "$M/drivers/media/pci" "$M/drivers/media/dvb-frontends" \
           "$M/drivers/media/tuners" "$M/drivers/media/radio" "$M/drivers/media/firewire" \
           "$M/drivers/media/test-drivers" "$M/sound/pci" "$M/sound/usb" "$M/sound/firewire" "$M/sound/isa" \
           "$M/drivers/staging" "$M/drivers/isdn" "$M/drivers/bluetooth" "$M/drivers/scsi/qla2xxx" \
           "$M/drivers/scsi/lpfc" "$M/drivers/scsi/mpt3sas" "$M/drivers/scsi/be2iscsi" "$M/drivers/target" \
           "$M/drivers/iio" \
           "$M/drivers/mtd" "$M/drivers/w1" "$M/drivers/xen" "$M/drivers/vfio" "$M/drivers/vhost" "$M/drivers/scsi/"*/ "$M/drivers/comedi" "$M/fs/ocfs2" "$M/fs/gfs2" "$M/fs/nfs" "$M/fs/nfsd" \
           "$M/fs/ceph" "$M/fs/smb" "$M/fs/cifs" "$M/fs/xfs" "$M/fs/btrfs" "$M/fs/f2fs" "$M/fs/jfs"
    (cd "$KEEP" && find . -type f) | while read -r f; do
        install -D -m0644 "$KEEP/$f" "$R/${f#./}"
    done
    rm -rf "$KEEP"
fi
# A symbol unresolved now but not before pruning was provided by a deleted module: any
# such symbol among the modules of the display drivers or the USB stick stack fails the build.
new_unresolved=$(comm -13 <(printf '%s\n' "$unresolved_before") <(unresolved))
must_load() {  # must_load WHAT MODULE...: each loads with all its modules, or the build fails
    local what=$1 mod deps ko builtin=""; shift
    for mod in "$@"; do
        deps=$(modprobe -d "$R" -S "$KVER" --show-depends "$mod" 2>&1) ||
            { say "$what $mod cannot load: $deps"; exit 1; }
        grep -q "^builtin " <<<"$deps" && builtin+=" $mod"
        for ko in $(printf '%s\n' "$deps" | awk '$1=="insmod"{print $2}'); do
            if grep -qF "/$(basename "$ko") needs" <<<"$new_unresolved"; then
                say "$what $mod: $(basename "$ko") lost symbols to the pruning:"
                printf '%s\n' "$new_unresolved" | grep -F "/$(basename "$ko") needs" >&2
                exit 1
            fi
        done
    done
    say "$what load with all their modules: ${*:-none}${builtin:+ (built into the kernel:$builtin)}"
}
must_load "display drivers" $DISPLAY_DRIVERS
must_load "USB stick modules" $STICK_MODULES
must_load "keyboard modules" $KEYBOARD_MODULES
must_load "wired Ethernet modules" $NET_MODULES
# An update bundle is a squashfs on a loop device behind dm-verity (RAUC's verity format).
must_load "update bundle modules" dm-verity squashfs loop
# The Pi card's initrd modules (kiosk-image/pi-boot/initramfs-hook): root from the SD card
# on the Pi 3, Pi 4 and Pi 5 families, RP1, the watchdog.
[ "$WJ_ARCH" = arm64 ] && must_load "Raspberry Pi modules" $PI_MODULES bcm2835_wdt
# The Pi 5's one-shot try: wordjudge_tryboot (kiosk-image/pi-boot/tryboot/wordjudge_tryboot.c
# says why), built here against this image's kernel with that kernel's own headers and
# Debian's compiler, which leave the image again afterwards: every update bundle is made
# from this root, so each kernel a station runs brings the module built for it. A module
# that does not build cleanly, is not this kernel's, or cannot load fails the build.
build_tryboot_module() {
    local src=$WJ_REPO/kiosk-image/pi-boot/tryboot build=/tmp/wordjudge-tryboot before added out vermagic
    local ko=$R/lib/modules/$KVER/updates/wordjudge_tryboot.ko
    before=$(chroot "$R" dpkg-query -W -f '${Package}\n' | sort)
    tree_apt_get install -y -q --no-install-recommends \
        "linux-headers-$KVER" gcc make ||
        { say "tryboot module: linux-headers-$KVER, gcc or make could not be installed"; exit 1; }
    added=$(comm -13 <(printf '%s\n' "$before") <(chroot "$R" dpkg-query -W -f '${Package}\n' | sort))
    rm -rf "$R$build" && cp -r "$src" "$R$build"
    if ! out=$(chroot "$R" make -C "/lib/modules/$KVER/build" M="$build" modules 2>&1) || grep -q 'warning:' <<<"$out"; then
        say "tryboot module: the build against $KVER failed or warned:"; printf '%s\n' "$out" >&2; exit 1
    fi
    chroot "$R" strip --strip-debug "$build/wordjudge_tryboot.ko"
    install -D -m0644 "$R$build/wordjudge_tryboot.ko" "$ko"
    rm -rf "$R$build"
    # shellcheck disable=SC2086 # one package name a word
    tree_apt_get purge -y -q $added ||
        { say "tryboot module: could not remove the build's packages: $added"; exit 1; }
    [ ! -e "$R/usr/src/linux-headers-$KVER" ] || { say "tryboot module: the kernel headers stayed in the image"; exit 1; }
    depmod -b "$R" -a "$KVER"
    vermagic=$(modinfo -F vermagic "$ko")
    [ "${vermagic%% *}" = "$KVER" ] || { say "tryboot module: built for '${vermagic%% *}', not $KVER"; exit 1; }
    say "tryboot module: built for $KVER ($(stat -c %s "$ko") bytes), its build's $(wc -w <<<"$added") packages removed"
}
if [ "$WJ_ARCH" = arm64 ]; then
    build_tryboot_module
    must_load "tryboot module" wordjudge_tryboot
fi
[ -z "$new_unresolved" ] || say "note: $(printf '%s\n' "$new_unresolved" | wc -l) symbols unresolved after pruning in modules neither list needs"
echo 'COMPRESS=zstd' >"$R/etc/initramfs-tools/conf.d/wordjudge"
if [ "$WJ_ARCH" = arm64 ]; then
    pi_boot_files
    # The kernel hook's own test, as a station's kernel update would run it: a second
    # kernel (trixie's own, in the older Debian layout) installed with its initrd takes
    # the boot partition; making this kernel's initrd hands it back (the newest wins);
    # removing the second leaves this one. After each step every boot file must be
    # this step's kernel's.
    if [ "${WJ_KERNEL_HOOK_TEST:-1}" = 1 ]; then
        second=$(APT_CONFIG=$MMDEBSTRAP_APT_CONFIG apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb13-arm64$' | awk '{print $1}' | sort -V | tail -n1)
        [ -n "$second" ] || { say "kernel hook test: no trixie 6.12 kernel package found"; exit 1; }
        say "kernel hook test: installing a second kernel, $second"
        # Its initrd only has to exist (the hook copies whichever kernel is newest), so it
        # holds just the listed modules: MODULES=most over a whole unpruned kernel takes
        # minutes under qemu-user. It is removed before this kernel's own initrd is made.
        echo 'MODULES=list' >"$R/etc/initramfs-tools/conf.d/zz-wordjudge-hook-test"
        INITRD=Yes tree_apt_get install -y -q --no-install-recommends "$second"
        rm "$R/etc/initramfs-tools/conf.d/zz-wordjudge-hook-test"
        check_pi_boot "${second#linux-image-}" "a second kernel installed"
    fi
fi
rm -f "$R/boot/initrd.img-$KVER"
quietly env INITRD=Yes chroot "$R" update-initramfs -c -k "$KVER"
[ -s "$R/boot/initrd.img-$KVER" ] || { say "update-initramfs failed"; exit 1; }
if [ "$WJ_ARCH" = arm64 ]; then
    check_pi_boot "$KVER" "this kernel's initrd made"
    if [ "${WJ_KERNEL_HOOK_TEST:-1}" = 1 ]; then
        tree_apt_get purge -y -q "$second"
        check_pi_boot "$KVER" "the second kernel removed"
        [ ! -d "$R/lib/modules/${second#linux-image-}" ] || rm -rf "$R/lib/modules/${second#linux-image-}"
    fi
    missing=""
    # Debian's own lister: trixie's initrd is an uncompressed cpio of the (xz) modules
    # followed by a zstd-compressed one.
    listing=$(chroot "$R" lsinitramfs "/boot/initrd.img-$KVER")
    # A here-string, never `printf | grep -q`: under pipefail, grep -q leaving at its
    # first match kills a printf still writing a long listing (SIGPIPE), and the module
    # found would count as missing (seen in CI, at random, as "the initrd lacks: …").
    for m in $PI_MODULES; do
        grep -q "/$m\.ko" <<<"$listing" || missing="$missing $m"
    done
    [ -z "$missing" ] || { say "the initrd lacks:$missing"; exit 1; }
    say "initrd holds the Pi modules: $PI_MODULES"
fi

# --- slim down ----------------------------------------------------------------------------
# Perl beyond perl-base (the Pi's kernel hooks need only perl-base) and usrmerge, where
# the suite's bootstrap pulled them in.
extra=$(chroot "$R" dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' usrmerge perl 'libperl5*' 'perl-modules-*' \
            libfile-find-rule-perl libnumber-compare-perl libtext-glob-perl 2>/dev/null | awk '$1=="ii"{print $2}' || true)
# (dpkg-query exits 1 when a name matches nothing, which is the usual case here.)
[ -z "$extra" ] || chroot "$R" dpkg --purge $extra >/dev/null 2>&1 || say "WARNING: could not purge $extra"
# (The package cache goes with the rest of /var/cache/apt: no `apt-get clean` first.)
rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/* "$R"/var/cache/debconf/*-old "$R"/var/lib/dpkg/*-old \
       "$R"/var/log/*.log "$R"/var/log/apt/* "$R"/usr/share/doc-base "$R"/usr/share/bug \
       "$R"/usr/lib/udev/hwdb.d/*   # sources of hwdb.bin, which stays
say "root tree: $(du -smx "$R" | cut -f1) MiB"
