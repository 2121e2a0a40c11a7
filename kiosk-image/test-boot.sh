#!/bin/bash
# Boot test of the wordjudge appliance (see docs/architecture.md, "The boot test").
#
#   kiosk-image/test-boot.sh            # build the amd64 image if it is out of date, then boot-test it
#   ARCH=arm64 kiosk-image/test-boot.sh # the same for the Raspberry Pi image, under qemu-system-aarch64
#                                       # (cross-builds the aarch64 wordjudge first: cross-build.sh)
#   REBUILD=1 kiosk-image/test-boot.sh  # always rebuild first
#   IMAGE=path.img kiosk-image/test-boot.sh   # test a given image
#   ACCEL=kvm ...                       # use KVM where it works (default: TCG software emulation)
#   BOOT_TESTS=ci ...                   # what CI runs: each boot path once (default full: every check)
#   BUILD_ONLY=1 STAGE=tree|finish ...  # build the image in two steps and stop (CI: the root tree
#                                       # beside the builds, the finish once they ended; build.sh)
#
# Checks: the boottest package (kiosk-image/boottest/, run as `python3 -m boottest`) runs
# `systemd-analyze verify` on systemd/wordjudge.service, then boots the image
# twice under qemu-system-x86_64 (or -aarch64) and prints one PASS/FAIL line per check and
# "N passed, N failed". Exit 0 only if everything passed. Needs root (the image build).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
START=$(date +%s)
say() { printf '[test-boot %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

ARCH=${ARCH:-amd64}
PROFILE=${PROFILE:-release}   # CI: dev (the build its tests made; see build.sh)
PDIR=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
export ARCH PROFILE
need=()
case "$ARCH" in
    amd64) command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
           [ -f /usr/share/OVMF/OVMF_CODE_4M.fd ] || need+=(ovmf)
           BIN=$REPO/target/$PDIR/wordjudge ;;
    arm64) BIN=$REPO/target/aarch64-unknown-linux-gnu/$PDIR/wordjudge
           # The card is also checked statically (dtc, zstd + cpio for the initrd, debugfs)
           # and booted on QEMU's Pi 4 board model, -M raspi4b: QEMU >= 9. Debian 13 has
           # 10.0; on Debian 12 it comes from bookworm-backports.
           # fw_printenv (libubootenv-tool): the card's U-Boot counter, read as RAUC reads it.
           for t in fdtput:device-tree-compiler dtc:device-tree-compiler zstd:zstd cpio:cpio debugfs:e2fsprogs mcopy:mtools \
                    fw_printenv:libubootenv-tool; do
               command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
           done
           if ! qemu-system-aarch64 -M help 2>/dev/null | grep -q '^raspi4b'; then
               codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
               if [ "$codename" = bookworm ]; then
                   say "installing qemu-system-arm from bookworm-backports (QEMU >= 9: the raspi4b board model)"
                   echo "deb http://deb.debian.org/debian bookworm-backports main" >/etc/apt/sources.list.d/wordjudge-backports.list
                   apt-get update -q >/dev/null
                   apt-get install -y -q --no-install-recommends -t bookworm-backports qemu-system-arm >/dev/null
               else
                   need+=(qemu-system-arm)
               fi
           fi ;;
    *) echo "test-boot.sh: ARCH must be amd64 or arm64" >&2; exit 2 ;;
esac
# The update tests' bundles (build-bundle.sh) and their throwaway signing key; the card's
# partitions are read with mtools.
for t in rauc:rauc mksquashfs:squashfs-tools openssl:openssl mcopy:mtools; do
    command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
done
command -v systemd-analyze >/dev/null || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
    mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
    say "installing ${need[*]}"
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
# DEPS_ONLY=1: install what this test and its image build need, then stop (see build.sh).
if [ "${DEPS_ONLY:-0}" = 1 ]; then DEPS_ONLY=1 "$HERE/build.sh"; exit 0; fi
# STAGE=tree or finish builds half an image (build.sh): nothing to boot until both ran.
STAGE=${STAGE:-all}
export STAGE
if [ "$STAGE" != all ] && [ "${BUILD_ONLY:-0}" != 1 ]; then
    echo "test-boot.sh: STAGE=$STAGE builds part of the image: set BUILD_ONLY=1 too" >&2; exit 2
fi

# 1. The image: the operator's build with every option set, in its own directory. Where the
#    licensed lists are here (../shared/lexicons, as in CI), CSW15 goes in through
#    LEXICON_SOURCES (checked against its pinned digest at install) and is the active
#    lexicon; elsewhere the station judges with the built-in DEMO list. The image stays
#    under target/ and is never committed.
WORK=${WORK:-/tmp/wordjudge-boot-test-$ARCH}
mkdir -p "$WORK"
echo 2468 >"$WORK/test-pin"
# The image's update certificate: a throwaway key made here, once (an image built with
# it and reused later must still match it). docs/operators.md, "Updates", has the
# operator's way. A second key signs the bundle a station must refuse.
for who in update other; do
    [ -f "$WORK/$who-cert.pem" ] && [ -f "$WORK/$who-key.pem" ] && continue
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
        -keyout "$WORK/$who-key.pem" -out "$WORK/$who-cert.pem" \
        -subj "/O=wordjudge boot test/CN=$who signer" 2>/dev/null
done
export UPDATE_CERT=$WORK/update-cert.pem
SHARED=$(cd "$REPO/.." && pwd)/shared/lexicons
if [ -f "$SHARED/CSW15.txt" ]; then
    export LEXICON_SOURCES="CSW15=$SHARED/CSW15.txt" ACTIVE_LEXICON=CSW15
else
    unset LEXICON_SOURCES; export ACTIVE_LEXICON=DEMO PRACTICE_WITH_DEMO=1
    say "$SHARED/CSW15.txt not found: the image judges with the DEMO list"
fi
export EXPECT_LEXICON=$ACTIVE_LEXICON
IMAGE_GIVEN=${IMAGE:-}
IMAGE=${IMAGE:-$REPO/target/kiosk-image/$ARCH-test/wordjudge-$ARCH.img}
# The binary is rebuilt first (cargo is incremental), so a code change rebuilds the image.
# SKIP_CARGO_BUILD=1 (CI, which has just built it): use the binary as it is.
if [ -z "${IMAGE_GIVEN:-}" ] && [ "${SKIP_CARGO_BUILD:-0}" != 1 ] && [ "$STAGE" != tree ]; then
    if [ "$ARCH" = arm64 ]; then "$HERE/cross-build.sh" >&2; fi
    (cd "$REPO" && cargo build --profile "$PROFILE" --quiet)
fi
# REUSE_IMAGE=1 (CI, after its own BUILD_ONLY run made the image): use it as it is, whatever
# the tests touched in the tree since.
if [ "$STAGE" = all ] && [ "${REUSE_IMAGE:-0}" = 1 ] && [ -f "$IMAGE" ]; then
    say "reusing $IMAGE (REUSE_IMAGE)"
elif [ "$STAGE" != all ] || [ "${REBUILD:-0}" = 1 ] || [ ! -f "$IMAGE" ] ||
   [ -n "$(find "$REPO/systemd" "$REPO/kiosk-image" "$REPO/lexicons" "$REPO/target/$PDIR/wordjudge" "$BIN" "$BIN-kiosk" ${UPDATE_CERT:-} \
           -newer "$IMAGE" -type f ! -name '*.md' ! -name 'test-boot.*' ! -path '*/boottest/*' \
           ! -path '*/__pycache__/*' 2>/dev/null | head -n1)" ]; then
    say "building the image$([ "$STAGE" = all ] || echo " (STAGE=$STAGE)")"
    [ "${SKIP_CARGO_BUILD:-0}" = 1 ] && export WORDJUDGE_BIN=$BIN
    OUT=$(dirname "$IMAGE") STATION_NAME="Boot test" DIRECTOR_PIN_FILE="$WORK/test-pin" \
        "$HERE/build.sh" >/dev/null
else
    say "reusing $IMAGE"
fi
BUILT=$(date +%s)
# BUILD_ONLY=1 (CI builds the images in two steps, STAGE): the image, or its part, then stop;
# the next run reuses it (nothing in the tree it was built from is newer).
if [ "${BUILD_ONLY:-0}" = 1 ]; then
    say "image build $((BUILT - START)) s; BUILD_ONLY: no boot test"
    exit 0
fi

# 2. Verify the units and boot the image. BOOT_TESTS=full (the default) runs every check;
# BOOT_TESTS=ci, what CI's hour holds (boottest/common.py, SCOPE).
say "boot test, BOOT_TESTS=${BOOT_TESTS:=full}"
export BOOT_TESTS
set +e
REPO=$REPO PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" python3 -m boottest "$IMAGE" "$WORK"
rc=$?
set -e
END=$(date +%s)
say "image build $((BUILT - START)) s, boot test $((END - BUILT)) s, total $((END - START)) s"
exit $rc
