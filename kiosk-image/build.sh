#!/bin/bash
# Builds the wordjudge appliance disk image from Debian 13 "trixie" packages.
#
#   kiosk-image/build.sh                      # ARCH=amd64: PC image, also used by test-boot.sh
#   ARCH=arm64 kiosk-image/build.sh           # Raspberry Pi image: one card for the Pi 3, Pi 4 and
#                                             # Pi 5 families (a Pi 5 once tried on the board:
#                                             # docs/operators.md, "Which Raspberry Pi"); cross-builds
#                                             # wordjudge on amd64
#
# Settings (environment):
#   ARCH=amd64|arm64         target architecture (default amd64)
#   WORDJUDGE_BIN=PATH       the wordjudge binary for ARCH (amd64 default: cargo build --release
#                            then target/release/wordjudge; arm64 default on amd64:
#                            kiosk-image/cross-build.sh, then
#                            target/aarch64-unknown-linux-gnu/release/wordjudge)
#   PROFILE=release|dev      cargo profile of the default binaries (default release; CI uses dev:
#                            the same code, built faster, stripped before it goes in)
#   STAGE=all|tree|finish    all (default): the whole image. tree: only the root tree from
#                            Debian's packages (the long part, which needs no wordjudge binary),
#                            kept in OUT/work; finish: that tree's programs put in, then the data
#                            partition, the boot files and the disk. CI runs the two as separate
#                            steps: the tree beside the builds, the finish once they have ended.
#   HOST_WORDJUDGE=PATH      a wordjudge runnable on this machine, used to compile word lists
#                            and hash the PIN (default: WORDJUDGE_BIN when it runs here,
#                            else target/release/wordjudge)
#   LEXICON_SOURCES=NAME=FILE[,NAME=FILE...]  licensed word lists compiled to NAME.fst on the
#                            data partition; NAME is the fst a definition in lexicons/ names, e.g.
#                            CSW15=/media/usb/csw15.txt,OSPD4=/m/ospd4.txt,MW11-long=/m/mw11-long.txt
#   ACTIVE_LEXICON=ID        lexicon the kiosk judges with at first boot (default DEMO: the
#                            station then says it is not set up and judges nothing until a
#                            director installs and chooses the event's list)
#   PRACTICE_WITH_DEMO=1     with ACTIVE_LEXICON=DEMO: judge with DEMO from the first boot, a
#                            practice station (every screen and verdict says DEMO)
#   STATION_NAME="Table 1"   station name written to config.toml (default "Station 1")
#   DIRECTOR_PIN_FILE=PATH   file holding the director PIN (first line); hashed into config.toml
#   TIMEZONE=Area/City       time zone of the audit timestamps (default UTC)
#   DATA_SIZE_MB=512         size of the writable data partition (an update bundle is copied
#                            there before it is checked: up to ~170 MiB beside the journal's 48)
#   MIRROR=URL               Debian mirror (default http://deb.debian.org/debian)
#   OUT=DIR                  output directory (default target/kiosk-image/ARCH)
#   KEEP_ALL_MODULES=1       keep every kernel module (default: drop sound, media, wireless, ...)
#   UPDATE_CERT=PATH         the operator's update certificate (PEM), the only one the station's
#                            RAUC accepts bundles from (docs/operators.md, "Updates").
#                            Required: a station without it could never be updated.
#   VERSION=X.Y.Z            the release this image is (default: Cargo.toml's version); in
#                            /etc/wordjudge-release and in every bundle made from this image
#   ROOT_SLOT_MB=N           size of each of the two root slots (default: 1.5 x the root
#                            filesystem, at least 768), room for the releases to come
#
# Output: OUT/wordjudge-ARCH.img (raw disk image: write it with dd or Raspberry Pi Imager),
# plus OUT/boot/ (kernel, initrd, cmdline) for direct-kernel boots, and OUT/rootfs.ext4,
# the root filesystem that kiosk-image/build-bundle.sh signs into an update bundle.
#
# Both disks are GPT with two root slots, wjroot-a and wjroot-b (A/B updates with RAUC:
# kiosk-image/update/), and the data partition wjdata, which no update touches.
#   amd64: the EFI system partition wjboot (systemd-boot; each slot's kernel), then the slots.
#   arm64: wjboot (the Pi firmware's files, U-Boot, its A/B script and counter), then the
#          slots (each with its own kernel and initrd).
#
# How: mmdebstrap builds the root tree (no loop devices, no mounts besides its chroot),
# customize.sh installs wordjudge into it, mkfs.ext4 -d and mkfs.vfat + mtools make the
# partitions as plain files, sfdisk + dd assemble the disk. Needs root (chroot) and the
# Debian packages listed in need_tools below.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ARCH=${ARCH:-amd64}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
DATA_SIZE_MB=${DATA_SIZE_MB:-512}
STATION_NAME=${STATION_NAME:-Station 1}
ACTIVE_LEXICON=${ACTIVE_LEXICON:-DEMO}
TIMEZONE=${TIMEZONE:-UTC}
OUT=${OUT:-$REPO/target/kiosk-image/$ARCH}
SUITE=trixie

say() { printf '[build %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap chroots into the new tree)"

need_tools() {
    local missing=()
    for t in zstd:zstd cpio:cpio mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs mkfs.vfat:dosfstools mcopy:mtools sfdisk:fdisk depmod:kmod objcopy:binutils openssl:openssl dtc:device-tree-compiler mkimage:u-boot-tools mkenvimage:u-boot-tools; do
        command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
    done
    if [ "$ARCH" != "$(dpkg --print-architecture)" ]; then
        command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
        command -v update-binfmts >/dev/null || missing+=(binfmt-support)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing build tools: ${missing[*]}"
        apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
    fi
}
# DEPS_ONLY=1: install the build tools and stop (CI installs every step's tools before it
# runs steps side by side: two apt-get runs at once fail on dpkg's lock).
if [ "${DEPS_ONLY:-0}" = 1 ]; then need_tools; exit 0; fi
STAGE=${STAGE:-all}
case "$STAGE" in all|tree|finish) ;; *) die "STAGE must be all, tree or finish, not '$STAGE'" ;; esac

# ELF machine of a binary: x86_64 (0x3e) or aarch64 (0xb7).
elf_arch() {
    [ "$(head -c4 "$1" | od -An -c | tr -d ' ')" = "177ELF" ] || { echo "not-elf"; return; }
    case "$(od -An -tx1 -j18 -N2 "$1" | tr -d ' ')" in
        3e00) echo amd64 ;; b700) echo arm64 ;; *) echo other ;;
    esac
}

PROFILE=${PROFILE:-release}
export PROFILE
PDIR=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
case "$ARCH" in
    # rauc + rauc-service: A/B updates from a signed bundle (kiosk-image/update/).
    amd64) KERNEL_PKGS="linux-image-amd64 systemd-boot-efi qemu-guest-agent rauc rauc-service"
           DEFAULT_BIN=$REPO/target/$PDIR/wordjudge
           [ "$(dpkg --print-architecture)" = arm64 ] && DEFAULT_BIN=$REPO/target/x86_64-unknown-linux-gnu/$PDIR/wordjudge ;;
    # qemu-guest-agent only starts when its virtio port exists (QEMU): the boot test's shell.
    # The kernel comes from trixie-backports (pinned below): trixie's 6.12 has no RP1
    # drivers, so no USB, Ethernet or GPIO header on a Pi 5.
    # u-boot-rpi: the boot loader that counts the A/B tries (kiosk-image/pi-boot/boot.cmd),
    # with libubootenv-tool, RAUC's way to its counter; u-boot-qemu only lends its
    # qemu_arm64 build to the boot test (-M virt), and is removed from the tree below.
    arm64) KERNEL_PKGS="linux-image-arm64 raspi-firmware u-boot-rpi libubootenv-tool u-boot-qemu qemu-guest-agent rauc rauc-service"
           DEFAULT_BIN=$REPO/target/aarch64-unknown-linux-gnu/$PDIR/wordjudge
           [ "$(dpkg --print-architecture)" = arm64 ] && DEFAULT_BIN=$REPO/target/$PDIR/wordjudge ;;
    *) die "ARCH must be amd64 or arm64, not '$ARCH'" ;;
esac

# --- the wordjudge binary -------------------------------------------------------------
if [ -z "${WORDJUDGE_BIN:-}" ]; then
    WORDJUDGE_BIN=$DEFAULT_BIN
    if [ "$STAGE" = tree ]; then
        :   # the root tree needs no binary: STAGE=finish checks and installs them
    elif [ "$DEFAULT_BIN" = "$REPO/target/$PDIR/wordjudge" ]; then
        say "cargo build --profile $PROFILE"
        (cd "$REPO" && cargo build --profile "$PROFILE" --quiet) || die "cargo build --profile $PROFILE failed"
    elif [ "$ARCH" = arm64 ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
        # The real aarch64 binary, cross-built (installs the cross tools on first use).
        "$HERE/cross-build.sh" || die "kiosk-image/cross-build.sh failed"
        # Word lists and the PIN are compiled/hashed here, by a host binary.
        if [ -n "${LEXICON_SOURCES:-}${DIRECTOR_PIN_FILE:-}" ] && [ -z "${HOST_WORDJUDGE:-}" ]; then
            say "cargo build --profile $PROFILE (host wordjudge, for word lists and the PIN)"
            (cd "$REPO" && cargo build --profile "$PROFILE" --quiet) || die "cargo build failed"
        fi
    fi
fi
# The kiosk program is built beside it (crates/cli/src/lib.rs: two programs).
WORDJUDGE_KIOSK_BIN=${WORDJUDGE_KIOSK_BIN:-$(dirname "$WORDJUDGE_BIN")/wordjudge-kiosk}
# The image runs the binary only if it is an ARCH one (stage_binaries checks), so a host
# binary compiles word lists and hashes the PIN only where ARCH is this machine's.
if [ -z "${HOST_WORDJUDGE:-}" ]; then
    if [ "$ARCH" = "$(dpkg --print-architecture)" ]; then HOST_WORDJUDGE=$WORDJUDGE_BIN
    else HOST_WORDJUDGE=$REPO/target/$PDIR/wordjudge; fi
fi

need_tools
# Installed stripped of debug sections (a dev-profile build carries ~100 MB of line tables).
STRIPPED=$(mktemp); STRIPPED_KIOSK=$(mktemp)
trap 'rm -f "$STRIPPED" "$STRIPPED_KIOSK"' EXIT
stage_binaries() {  # checks both binaries, then strips them into STRIPPED and STRIPPED_KIOSK
    [ -f "$WORDJUDGE_KIOSK_BIN" ] || die "no wordjudge-kiosk binary at $WORDJUDGE_KIOSK_BIN (cargo builds it beside wordjudge)"
    [ -f "$WORDJUDGE_BIN" ] || die "no wordjudge binary at $WORDJUDGE_BIN.
  For ARCH=arm64, build an aarch64 wordjudge first (on an arm64 machine: cargo build --release;
  on amd64: cargo build --release --target aarch64-unknown-linux-gnu with the cross tools), or
  set WORDJUDGE_BIN=PATH: see docs/operators.md, 'Raspberry Pi (ARCH=arm64)'."
    local bin_arch objcopy
    bin_arch=$(elf_arch "$WORDJUDGE_BIN")
    [ "$bin_arch" = "$ARCH" ] || die "$WORDJUDGE_BIN is a $bin_arch binary, but ARCH=$ARCH: the image would not run it"
    "$WORDJUDGE_BIN" --help 2>/dev/null | grep -qw kiosk || [ "$bin_arch" != "$(dpkg --print-architecture)" ] ||
        say "WARNING: $WORDJUDGE_BIN has no 'kiosk' subcommand yet: the image will boot but the kiosk unit will fail"
    case "$bin_arch" in
        amd64) objcopy=objcopy; [ "$(dpkg --print-architecture)" = amd64 ] || objcopy=x86_64-linux-gnu-objcopy ;;
        arm64) objcopy=aarch64-linux-gnu-objcopy; [ "$(dpkg --print-architecture)" = arm64 ] && objcopy=objcopy ;;
    esac
    command -v "$objcopy" >/dev/null || die "$objcopy is missing (apt-get install binutils$([ "$objcopy" = objcopy ] || echo "-${objcopy%-objcopy}" | tr _ -))"
    "$objcopy" --strip-debug "$WORDJUDGE_BIN" "$STRIPPED" || die "cannot strip $WORDJUDGE_BIN"
    chmod 0755 "$STRIPPED"
    "$objcopy" --strip-debug "$WORDJUDGE_KIOSK_BIN" "$STRIPPED_KIOSK" || die "cannot strip $WORDJUDGE_KIOSK_BIN"
    chmod 0755 "$STRIPPED_KIOSK"
}
# Checked before the tree is built: a missing or foreign binary fails in seconds, not after it.
[ "$STAGE" = tree ] || stage_binaries
if [ "$ARCH" != "$(dpkg --print-architecture)" ]; then
    # The new tree's maintainer scripts are $ARCH programs: run them through qemu-user.
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
        die "binfmt_misc is not available: cannot run $ARCH programs here (build on an $ARCH machine)"
    update-binfmts --enable >/dev/null 2>&1 || true
    ls /proc/sys/fs/binfmt_misc/ | grep -q "qemu-${QEMU_ARCH:=aarch64}" ||
        die "qemu-$QEMU_ARCH is not registered with binfmt_misc: cannot run $ARCH programs here"
fi
mkdir -p "$OUT"
WORK=$OUT/work
ROOT=$WORK/rootfs
DATA=$WORK/data
# The tree stage's last act, and the finish stage's first check: the tree in WORK is a
# whole one, of this ARCH, not finished yet (finishing changes it: it is finished once).
TREE_BUILT=$WORK/tree-built
if [ "$STAGE" = finish ]; then
    [ "$(cat "$TREE_BUILT" 2>/dev/null)" = "$ARCH" ] ||
        die "no whole, unfinished $ARCH root tree in $WORK: build one first (STAGE=tree)"
    rm -f "$TREE_BUILT"
else
    # Room first: a disk that fills up half-way through fails deep inside mmdebstrap (or a
    # chroot under qemu-user), where the reason is easy to miss. The root tree with its
    # package cache, its filesystem, the disk image and the bundle's copy of the root need
    # about 3 GiB on amd64 and 4 GiB on arm64 (its tree holds a second kernel for a while).
    need_mb=$([ "$ARCH" = arm64 ] && echo 4096 || echo 3072)
    free_mb=$(df -Pm "$OUT" | awk 'NR == 2 { print $4 }')
    [ "$free_mb" -ge "$need_mb" ] ||
        die "only $free_mb MiB free for $OUT ($(df -P "$OUT" | awk 'NR == 2 { print $6 }')): the $ARCH image build needs about $need_mb MiB; free some space, or set OUT= to a folder on a larger disk"
    # (An image of an earlier build goes too: a boot test must never take it for this one.)
    rm -rf "$WORK" "$OUT/wordjudge-$ARCH.img"; mkdir -p "$WORK"
fi

# --- 1. root tree from Debian packages --------------------------------------------------
# systemd-timesyncd: no network, but it saves the clock every minute (SaveIntervalSec) and
# sets it forward at boot, so a Pi without a clock chip does not restart at an old date.
# gpiod: gpiodetect/gpioinfo, for an operator checking the button and lamp wiring.
# systemd-journal-remote: its systemd-journal-upload sends a joined station's journal to the
# event's laptop (wordjudge-fleet-upload.service); its own receiver units are masked.
# openssl: a station joining a fleet makes its own key and certificate request with it.
# tzdata: the time zones the director chooses from in the menu (and TIMEZONE below).
PKGS="usr-is-merged systemd systemd-sysv systemd-timesyncd udev dbus polkitd kmod initramfs-tools zstd e2fsprogs gpiod
      systemd-journal-remote openssl tzdata
      libinput10 libxkbcommon0 xkb-data libfontconfig1 libfreetype6 libudev1
      $KERNEL_PKGS"
COMPONENTS=main; [ "$ARCH" = arm64 ] && COMPONENTS="main non-free-firmware"
SOURCES=("deb $MIRROR $SUITE $COMPONENTS" "deb $MIRROR $SUITE-updates $COMPONENTS"
         "deb ${SECURITY_MIRROR:-${MIRROR%/debian}/debian-security} $SUITE-security $COMPONENTS")
PIN_HOOK=true
if [ "$ARCH" = arm64 ]; then
    # The Pi 5's RP1 (its USB, Ethernet and GPIO header) needs Linux >= 6.15: trixie-backports'
    # kernel series (7.3 when this was written) has RP1, the Pi 4 and Pi 5 device trees and
    # 4K pages; trixie's own 6.12 does not. Pinned by release so security updates of that
    # series come in; the build prints the version it got.
    SOURCES+=("deb $MIRROR $SUITE-backports $COMPONENTS")
    # RAUC from Debian's next release, forky, and only RAUC and the library it needs
    # newer: trixie's RAUC 1.13 cannot mount a verity bundle under Linux >= 6.19, whose
    # dm-verity status line has a new field (RAUC issue 1842; fixed in RAUC 1.15.1). Every
    # other forky package is pinned away (priority -1: never installed). forky's Release
    # file is checked for Debian's signature but not for its Valid-Until date: a frozen
    # mirror of the testing suite (this project's CI has one) would otherwise stop the
    # build; customize.sh refuses any RAUC older than 1.15.1, so an old signed snapshot
    # cannot bring the broken one back.
    SOURCES+=("deb [check-valid-until=no] $MIRROR forky main")
    PIN_HOOK='mkdir -p "$1/etc/apt/preferences.d" && printf "%s\n" "# wordjudge: the Pi kernel from trixie-backports (RP1 for the Pi 5; kiosk-image/build.sh)" "Package: linux-image-arm64 linux-modules-arm64 linux-base-arm64 linux-base" "Pin: release n='"$SUITE"'-backports" "Pin-Priority: 990" "" "# wordjudge: RAUC >= 1.15.1 for that kernel (dm-verity status; kiosk-image/build.sh), from forky" "Package: rauc rauc-service libnl-3-200 libnl-genl-3-200" "Pin: release n=forky" "Pin-Priority: 990" "" "Package: *" "Pin: release n=forky" "Pin-Priority: -1" >"$1/etc/apt/preferences.d/wordjudge-kernel"'
fi
# The kernel command line every model shares (read-only root; quiet). The root is named
# by its slot's partition label (both slots hold the same filesystem, label and all): on
# the PC in each slot's boot entry, on the Pi in each boot partition's command lines. The
# consoles are added per model: amd64 here (/dev/console is the last console=: the serial port, for the READY
# line and kernel messages), the Pi's by kiosk-image/pi-boot/wordjudge-pi-boot.
CMDLINE="ro rootwait quiet loglevel=3 systemd.show_status=error vt.global_cursor_default=0 consoleblank=0 fsck.repair=yes panic=10"
if [ "$ARCH" = arm64 ]; then
    CMDLINE="video=HDMI-A-1:1920x1080@60 $CMDLINE"
else
    CMDLINE="$CMDLINE console=tty1 console=ttyS0,115200"
fi
[ -f "${UPDATE_CERT:-}" ] || die "UPDATE_CERT: set it to the operator's update certificate (PEM); docs/operators.md, \"Updates\", says how to make one"
openssl x509 -in "$UPDATE_CERT" -noout 2>/dev/null || die "UPDATE_CERT $UPDATE_CERT is not a PEM certificate"
VERSION=${VERSION:-$(sed -n 's/^version = "\(.*\)"/\1/p' "$REPO/Cargo.toml" | head -n1)}
if [ "$STAGE" != finish ]; then
    say "mmdebstrap $SUITE $ARCH ($MIRROR)"
    # The kernel's install hook skips the initrd (INITRD=No): customize.sh makes it once, after
    # pruning modules (under qemu-user each mkinitramfs takes minutes).
    export INITRD=No
    # depmod is a no-op while the packages install: the kernel package's postinst runs it over
    # every module, a minute under qemu-user (two or more beside CI's builds), and customize.sh
    # puts kmod's own back first thing, then writes the module lists with the host's depmod
    # over the pruned tree, as it always has. The diversion is dpkg's, so kmod's files land
    # beside the stub, never over it.
    DEPMOD_DIVERTED=/usr/sbin/depmod.wordjudge-build
    DEPMOD_HOOK='chroot "$1" dpkg-divert --quiet --local --rename --divert '"$DEPMOD_DIVERTED"' --add /usr/sbin/depmod && printf "#!/bin/sh\n# wordjudge build: depmod runs after the packages (kiosk-image/build.sh)\nexit 0\n" >"$1/usr/sbin/depmod" && chmod 0755 "$1/usr/sbin/depmod"'
    export WJ_DEPMOD_DIVERTED=$DEPMOD_DIVERTED
    export WJ_ARCH=$ARCH WJ_REPO=$REPO WJ_TIMEZONE=$TIMEZONE WJ_KEEP_ALL_MODULES=${KEEP_ALL_MODULES:-0} WJ_CMDLINE=$CMDLINE
    export WJ_VERSION=$VERSION WJ_UPDATE_CERT=$UPDATE_CERT
    # The Pi kernel hook writes slot A's command lines (the build machine runs no slot).
    export WJ_PI_BOOT_SLOT=A
    for attempt in 1 2; do   # a second try rides out a mirror hiccup
        mmdebstrap --quiet --mode=root --variant=minbase --arch="$ARCH" \
            --include="$(echo $PKGS | tr ' ' ,)" \
            --aptopt='APT::Install-Recommends "false"' \
            --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
            --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
            --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
            --dpkgopt='path-exclude=/usr/share/lintian/*' \
            --setup-hook="$PIN_HOOK" --essential-hook="$DEPMOD_HOOK" \
            --customize-hook="\"$HERE/customize.sh\" \"\$1\"" \
            "$SUITE" "$ROOT" "${SOURCES[@]}" && break
        [ $attempt = 2 ] && die "mmdebstrap failed"
        say "mmdebstrap failed; trying once more"
        grep -q " $ROOT/" /proc/mounts && umount -R "$ROOT"/* 2>/dev/null
        rm -rf "$ROOT"
    done

    # One machine id per image (mmdebstrap leaves it empty, and on a read-only root systemd would
    # make up a new one at every boot): the persistent journal keeps one directory across boots.
    tr -d '-' </proc/sys/kernel/random/uuid >"$ROOT/etc/machine-id"
    ln -sf /etc/machine-id "$ROOT/var/lib/dbus/machine-id"
    echo "$ARCH" >"$TREE_BUILT"
    if [ "$STAGE" = tree ]; then
        say "root tree: $ROOT (STAGE=tree; STAGE=finish puts the programs in and makes the disk)"
        exit 0
    fi
fi

# --- the programs ---------------------------------------------------------------------
# They go in last, after the packages and the tree's own settings, so that the tree (the
# long part) can be built while they are still being compiled (STAGE). The units are then
# checked as installed, by the tree's own systemd-analyze: with its binaries in place,
# verify also finds each unit's ExecStart.
in_tree() {  # runs COMMAND in the tree with /proc, /sys and /dev as mmdebstrap's hooks have them
    local rc=0
    { mount -t proc proc "$ROOT/proc" && mount --bind /sys "$ROOT/sys" && mount --bind /dev "$ROOT/dev" &&
        chroot "$ROOT" "$@"; } || rc=$?
    umount "$ROOT/dev" 2>/dev/null || true; umount "$ROOT/sys" 2>/dev/null || true; umount "$ROOT/proc" 2>/dev/null || true
    # The tree becomes a filesystem (mkfs.ext4 -d): nothing of the host may stay mounted in it.
    ! grep -q " $ROOT/" /proc/mounts || die "could not unmount what was mounted in $ROOT for $1"
    return $rc
}
verify_units() {
    local out
    out=$(in_tree systemd-analyze verify --man=no "$@" 2>&1) || { printf '%s\n' "$out" >&2; die "systemd-analyze verify $* failed"; }
    [ -z "$out" ] || printf '%s\n' "$out" >&2
    say "systemd-analyze verify $*: ok"
}
install -D -m0755 "$STRIPPED" "$ROOT/usr/bin/wordjudge"
# The kiosk, screenshots and the USB helper: the program that links the GUI and input stack.
install -D -m0755 "$STRIPPED_KIOSK" "$ROOT/usr/bin/wordjudge-kiosk"
verify_units wordjudge.service
# Templates are verified as an instance (sdz1: any name will do, verify needs no device).
verify_units wordjudge-stick-import@sdz1.service wordjudge-stick-export@sdz1.service
verify_units wordjudge-boot-check.service
verify_units wordjudge-fleet-upload.service wordjudge-fleet-network.service

# --- 2. the data partition's contents ---------------------------------------------------
WJ_UID=$(awk -F: '$1=="wordjudge"{print $3}' "$ROOT/etc/passwd")
WJ_GID=$(awk -F: '$1=="wordjudge"{print $3}' "$ROOT/etc/group")
JOURNAL_GID=$(awk -F: '$1=="systemd-journal"{print $3}' "$ROOT/etc/group")
[ -n "$WJ_UID" ] && [ -n "$WJ_GID" ] || die "customize.sh did not create the wordjudge user"
mkdir -p "$DATA/wordjudge/lexicons" "$DATA/wordjudge/audit" "$DATA/journal" "$DATA/systemd"
mkdir -p "$DATA/rauc"   # RAUC's slot status (update/system.conf)
# Official lexicon definitions are compiled into wordjudge; licensed lists are not shipped.
if [ -n "${LEXICON_SOURCES:-}" ]; then
    [ -x "$HOST_WORDJUDGE" ] || die "LEXICON_SOURCES needs a wordjudge runnable here (HOST_WORDJUDGE)"
    IFS=, read -ra pairs <<<"$LEXICON_SOURCES"
    for pair in "${pairs[@]}"; do
        id=${pair%%=*}; src=${pair#*=}
        [[ "$id" =~ ^[A-Za-z0-9_+.-]+$ ]] && [ "$id" != "$pair" ] || die "LEXICON_SOURCES entry '$pair' is not NAME=FILE"
        [ -f "$src" ] || die "word list $src (for $id) not found"
        say "compiling lexicon $id from $src"
        # install checks the list against the official catalogue (pinned digest or
        # published fingerprint) and refuses one that is not the list named.
        "$HOST_WORDJUDGE" --lexicons "$DATA/wordjudge/lexicons" lexicon install "$src" --id "$id" >&2 ||
            die "wordjudge lexicon install $src --id $id failed"
    done
fi
toml_str() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
{
    echo "# wordjudge station config (see README: Configuration). Written by kiosk-image/build.sh."
    echo "station_name = $(toml_str "$STATION_NAME")"
    echo 'lexicon_dir = "/var/lib/wordjudge/lexicons"'
    echo "active_lexicon = $(toml_str "$ACTIVE_LEXICON")"
    [ "${PRACTICE_WITH_DEMO:-0}" = 1 ] && echo 'practice_with_demo = true'
    echo 'audit_dir = "/var/lib/wordjudge/audit"'
    echo 'allow_quit = false'
} >"$DATA/wordjudge/config.toml"
if [ -n "${DIRECTOR_PIN_FILE:-}" ]; then
    [ -x "$HOST_WORDJUDGE" ] || die "DIRECTOR_PIN_FILE needs a wordjudge runnable here (HOST_WORDJUDGE)"
    say "setting the director PIN"
    head -n1 "$DIRECTOR_PIN_FILE" | "$HOST_WORDJUDGE" --config "$DATA/wordjudge/config.toml" config set-pin >&2 ||
        die "wordjudge config set-pin failed"
fi
if [ -x "$HOST_WORDJUDGE" ] && "$HOST_WORDJUDGE" --help 2>/dev/null | grep -qw lexicon; then
    "$HOST_WORDJUDGE" --config "$DATA/wordjudge/config.toml" --lexicons "$DATA/wordjudge/lexicons" lexicon list >&2 || say "WARNING: lexicon list reports a problem"
fi
# systemd's state (random seed, clock stamp, backlight) lives here; start from the image's.
cp -a "$ROOT/var/lib/systemd/." "$DATA/systemd/"
chown -R "$WJ_UID:$WJ_GID" "$DATA/wordjudge"
chmod 0750 "$DATA/wordjudge" "$DATA/wordjudge/audit"
chmod 0640 "$DATA/wordjudge/config.toml"
chown "0:$JOURNAL_GID" "$DATA/journal"; chmod 2755 "$DATA/journal"

# --- 3. boot files --------------------------------------------------------------------
KVER=$(basename "$(ls -d "$ROOT"/lib/modules/* | sort -V | tail -n1)")
BOOT=$OUT/boot; rm -rf "$BOOT"; mkdir -p "$BOOT"
cp "$ROOT/boot/vmlinuz-$KVER" "$BOOT/vmlinuz"
cp "$ROOT/boot/initrd.img-$KVER" "$BOOT/initrd.img"
FAT=$WORK/boot.vfat
if [ "$ARCH" = amd64 ]; then
    echo "root=PARTLABEL=wjroot-a rauc.slot=A $CMDLINE" >"$BOOT/cmdline"
    # Room for both slots' kernels and initrds (the update back-end copies a new slot's
    # there: kiosk-image/update/rauc-systemd-boot).
    BOOT_MB=128
    mkfs.vfat -n WJBOOT -F 32 -C "$FAT" $((BOOT_MB * 1024)) >/dev/null
    export MTOOLS_SKIP_CHECK=1
    mmd -i "$FAT" ::/EFI ::/EFI/BOOT ::/EFI/systemd ::/loader ::/loader/entries ::/wordjudge-a
    mcopy -i "$FAT" "$ROOT/usr/lib/systemd/boot/efi/systemd-bootx64.efi" ::/EFI/BOOT/BOOTX64.EFI
    mcopy -i "$FAT" "$ROOT/usr/lib/systemd/boot/efi/systemd-bootx64.efi" ::/EFI/systemd/systemd-bootx64.efi
    mcopy -i "$FAT" "$BOOT/vmlinuz" ::/wordjudge-a/vmlinuz
    mcopy -i "$FAT" "$BOOT/initrd.img" ::/wordjudge-a/initrd.img
    # Slot A is the default; slot B gets its entry when an update is installed into it.
    printf 'default wordjudge-a.conf\ntimeout 0\neditor no\nauto-entries no\nauto-firmware no\nconsole-mode keep\n' >"$WORK/loader.conf"
    printf 'title wordjudge (slot A)\nlinux /wordjudge-a/vmlinuz\ninitrd /wordjudge-a/initrd.img\noptions %s\n' "$(cat "$BOOT/cmdline")" >"$WORK/wordjudge-a.conf"
    mcopy -i "$FAT" "$WORK/loader.conf" ::/loader/loader.conf
    mcopy -i "$FAT" "$WORK/wordjudge-a.conf" ::/loader/entries/wordjudge-a.conf
    # name:type:MiB:file of each partition before the root slots
    PRE_PARTS=("wjboot:C12A7328-F81F-11D2-BA4B-00A0C93EC3B8:$BOOT_MB:$FAT")
else
    # Raspberry Pi (Pi 3, Pi 4 and Pi 5 families), GPT (the Pi 4's EEPROM boots GPT since
    # 2020; the Pi 5's always has; the Pi 3's boot ROM reads the hybrid MBR below):
    #   1 wjboot: FAT, what the firmware reads (config.txt, its own files, the device
    #     trees and overlays, each family's command line) and what it starts on the Pi 3
    #     and Pi 4 families: U-Boot, whose script (boot.scr, kiosk-image/pi-boot/boot.cmd)
    #     counts the A/B tries in wjboot.env beside it and loads the chosen root slot's own
    #     kernel and initrd. The kernel hook (kiosk-image/pi-boot/wordjudge-pi-boot) filled
    #     /boot/firmware in the tree with all of it; this partition gets all but the kernel
    #     and initrd, which stay in each slot. The Pi 5 family's firmware starts the
    #     kernel itself, from the slot's folder here (wordjudge-a/, made below; an update
    #     adds wordjudge-b/: kiosk-image/update/rauc-pi-tryboot).
    #   then root A and B (each with its /boot/firmware) and data.
    # - No cma= override: Debian's raspi-firmware deliberately leaves it out on a Pi 4
    #   ("might render your system unbootable"); the device tree's CMA is used.
    # - video=: a fixed 1920x1080 mode, so a 4K TV does not force 4K buffers and
    #   full-screen 4K software drawing (a 7" panel keeps its own 800x480 mode).
    grep -qx "kernel=$KVER" "$ROOT/boot/firmware/wordjudge-boot.txt" ||
        die "the boot files in $ROOT/boot/firmware are not kernel $KVER's (kernel hook)"
    grep -q " root=PARTLABEL=wjroot-a rauc.slot=A " "$ROOT/boot/firmware/cmdline-pi4.txt" ||
        die "the kernel hook's command line does not name slot A's root: $(cat "$ROOT/boot/firmware/cmdline-pi4.txt")"
    for f in u-boot.bin boot.scr vmlinuz initrd.img; do
        [ -s "$ROOT/boot/firmware/$f" ] || die "the kernel hook left no $f in $ROOT/boot/firmware"
    done
    cp "$ROOT/boot/firmware/cmdline-pi4.txt" "$BOOT/cmdline"
    # 256 MiB: the firmware files, trees and U-Boot (about 30 MB), and for the Pi 5 family,
    # which the firmware starts with no U-Boot, each slot's kernel (an uncompressed
    # Image, about 52 MB), initrd and BCM2712 trees in its folder (about 75 MB a slot).
    BOOT_MB=256
    export MTOOLS_SKIP_CHECK=1
    mkfs.vfat -n WJBOOT -F 32 -C "$FAT" $((BOOT_MB * 1024)) >/dev/null
    for f in "$ROOT"/boot/firmware/*; do
        case "${f##*/}" in vmlinuz|initrd.img) continue ;; esac
        mcopy -s -i "$FAT" "$f" ::/
    done
    # Slot A's folder for the Pi 5 family (config.txt [pi5] os_prefix=wordjudge-a/), made
    # by the update back-end that makes slot B's at its first update.
    rm -rf "$WORK/pi5-boot"; mkdir -p "$WORK/pi5-boot"
    WJ_PI_BOOT="$WORK/pi5-boot" WJ_SLOT_TREE_A="$ROOT" WJ_PROC_CMDLINE=/dev/null \
        sh "$HERE/update/rauc-pi-tryboot" install-slot A || die "slot A's Pi 5 boot folder could not be made"
    mcopy -s -i "$FAT" "$WORK/pi5-boot/wordjudge-a" ::/
    # The counter as built: slot A, three tries; B holds nothing yet.
    printf 'BOOT_ORDER=A\nBOOT_A_LEFT=3\nBOOT_B_LEFT=0\n' >"$WORK/wjboot.txt"
    mkenvimage -s 0x4000 -o "$WORK/wjboot.env" "$WORK/wjboot.txt"
    mcopy -i "$FAT" "$WORK/wjboot.env" ::/wjboot.env
    # U-Boot's own environment: its defaults, made to start faster (pi-boot/uboot-env.txt).
    grep -v '^#' "$HERE/pi-boot/uboot-env.txt" >"$WORK/uboot-env.txt"
    mkenvimage -s 0x4000 -o "$WORK/uboot.env" "$WORK/uboot-env.txt"
    mcopy -i "$FAT" "$WORK/uboot.env" ::/uboot.env
    # The boot test's U-Boot for QEMU's -M virt (the same release as the card's), then
    # out of the tree.
    cp "$ROOT/usr/lib/u-boot/qemu_arm64/u-boot.bin" "$BOOT/u-boot-qemu_arm64.bin"
    chroot "$ROOT" dpkg --purge u-boot-qemu >/dev/null || die "could not remove u-boot-qemu from the tree"
    FAT_TYPE=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7     # Microsoft basic data: FAT
    PRE_PARTS=("wjboot:$FAT_TYPE:$BOOT_MB:$FAT")
fi

# --- 4. filesystems and disk ------------------------------------------------------------
# The kernel, initrd and device trees are on the boot partition. Each root slot also
# carries its own, so that an update brings them along: the PC's as /boot/vmlinuz and
# /boot/initrd.img, which the update back-end puts in place when the slot is installed;
# the Pi's as /boot/firmware (the kernel hook's output), from which U-Boot loads them. Other copies go (trixie-backports' kernel package also keeps the kernel and
# the device trees of every arm64 board in /usr/lib/modules: about 150 MB).
rm -f "$ROOT"/boot/vmlinuz* "$ROOT"/boot/initrd.img* "$ROOT"/vmlinuz* "$ROOT"/initrd.img*
if [ "$ARCH" = amd64 ]; then
    cp "$BOOT/vmlinuz" "$ROOT/boot/vmlinuz"; cp "$BOOT/initrd.img" "$ROOT/boot/initrd.img"
fi
rm -f "$ROOT"/usr/lib/modules/*/vmlinuz
rm -rf "$ROOT"/usr/lib/modules/*/dtb
ROOT_MB=$(( $(du -sm "$ROOT" | cut -f1) * 115 / 100 + 24 ))
say "root filesystem ${ROOT_MB} MiB, data ${DATA_SIZE_MB} MiB, boot ${BOOT_MB} MiB"
rm -f "$WORK/root.ext4" "$WORK/data.ext4"
mkfs.ext4 -q -F -L wjroot -m 0 -d "$ROOT" "$WORK/root.ext4" "${ROOT_MB}M" >/dev/null
mkfs.ext4 -q -F -L wjdata -m 1 -d "$DATA" "$WORK/data.ext4" "${DATA_SIZE_MB}M" >/dev/null

IMG=$OUT/wordjudge-$ARCH.img
rm -f "$IMG"
# A/B: two root slots of one size (the second empty until the first update), then data.
LINUX_TYPE=0FC63DAF-8483-4772-8E79-3D69D8477DE4
SLOT_MB=${ROOT_SLOT_MB:-$(( ROOT_MB * 3 / 2 > 768 ? ROOT_MB * 3 / 2 : 768 ))}
[ "$SLOT_MB" -ge "$ROOT_MB" ] || die "ROOT_SLOT_MB=$SLOT_MB is smaller than the root filesystem ($ROOT_MB MiB)"
PARTS=("${PRE_PARTS[@]}" "wjroot-a:$LINUX_TYPE:$SLOT_MB:$WORK/root.ext4" "wjroot-b:$LINUX_TYPE:$SLOT_MB:"
       "wjdata:$LINUX_TYPE:$DATA_SIZE_MB:$WORK/data.ext4")
TOTAL_MB=2   # the GPT at each end
for p in "${PARTS[@]}"; do IFS=: read -r _ _ mb _ <<<"$p"; TOTAL_MB=$((TOTAL_MB + mb)); done
truncate -s "${TOTAL_MB}M" "$IMG"
table="label: gpt"; at=1
for p in "${PARTS[@]}"; do
    IFS=: read -r name type mb _ <<<"$p"
    table+=$'\n'"start=$((at * 2048)), size=$((mb * 2048)), type=$type, name=$name"
    at=$((at + mb))
done
sfdisk --quiet "$IMG" <<<"$table"
if [ "$ARCH" = arm64 ]; then
    # A hybrid MBR for the Pi 3 family, whose boot ROM reads only an MBR and only a FAT
    # type there (raspberrypi/firmware#1711: not 0xee, not 0xef): entry 1 is the boot
    # partition as FAT32 (LBA), 0x0c; entry 2 the GPT's own 0xee, from sector 1 to the
    # boot partition. Everything after the ROM reads the GPT: the Pi 4 and 5 bootloaders,
    # U-Boot (its EFI table is tried first and takes a hybrid MBR's 0xee at sector 1) and
    # Linux (partitions by GPT name). Nothing on the station rewrites the partition table.
    sfdisk --quiet --label-nested dos "$IMG" <<<"start=2048, size=$((BOOT_MB * 2048)), type=c
start=1, size=2047, type=ee" || die "could not write the hybrid MBR"
fi
at=1
for p in "${PARTS[@]}"; do
    IFS=: read -r _ _ mb file <<<"$p"
    [ -z "$file" ] || dd if="$file" of="$IMG" bs=1M seek=$at conv=notrunc,sparse status=none
    at=$((at + mb))
done
# The bundle's payload (kiosk-image/build-bundle.sh): this very root filesystem.
cp --sparse=always "$WORK/root.ext4" "$OUT/rootfs.ext4"
say "root slots 2 x ${SLOT_MB} MiB; $OUT/rootfs.ext4 is release $VERSION's root filesystem"
[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"
say "image: $IMG ($(du -m --apparent-size "$IMG" | cut -f1) MiB, $(du -m "$IMG" | cut -f1) MiB allocated), kernel $KVER"
echo "$IMG"
