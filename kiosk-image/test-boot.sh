#!/bin/bash
# Boot test of the wordjudge appliance (see kiosk-image/README.md, "Boot test").
#
#   kiosk-image/test-boot.sh            # build the amd64 image if it is out of date, then boot-test it
#   REBUILD=1 kiosk-image/test-boot.sh  # always rebuild first
#   IMAGE=path.img kiosk-image/test-boot.sh   # test a given image
#   ACCEL=kvm ...                       # use KVM where it works (default: TCG software emulation)
#
# Checks: test-boot.py runs `systemd-analyze verify` on systemd/wordjudge.service, then boots the image
# twice under qemu-system-x86_64 and prints one PASS/FAIL line per check and
# "N passed, N failed". Exit 0 only if everything passed. Needs root (the image build).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
START=$(date +%s)
say() { printf '[test-boot %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -f /usr/share/OVMF/OVMF_CODE_4M.fd ] || need+=(ovmf)
command -v systemd-analyze >/dev/null || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

# 1. The image: the operator's build with every option set, in its own directory. The
#    "TWL2016" word list is a made-up 20-word list: it shows LEXICON_SOURCES works (its
#    fingerprint does not match the real list's, so it can never pass as the real one).
WORK=${WORK:-/tmp/wordjudge-boot-test}
mkdir -p "$WORK"
printf 'CAT\nDOG\nZEBRA\nQI\nZA\nXU\nJO\nAA\nQAT\nJIAO\nQOPH\nZAX\nCWM\nCRWTH\nEUOUAE\nMUZJIKS\nSYZYGY\nOXYPHENBUTAZONE\nQUIXOTRY\nFAVOURITE\n' >"$WORK/test-words.txt"
echo 2468 >"$WORK/test-pin"
IMAGE=${IMAGE:-$REPO/target/kiosk-image/amd64-test/wordjudge-amd64.img}
if [ "${REBUILD:-0}" = 1 ] || [ ! -f "$IMAGE" ] ||
   [ -n "$(find "$REPO/systemd" "$REPO/kiosk-image" "$REPO/lexicons" "$REPO/target/release/wordjudge" \
           -newer "$IMAGE" -type f ! -name '*.md' ! -name 'test-boot.*' 2>/dev/null | head -n1)" ]; then
    say "building the image"
    ARCH=amd64 OUT=$(dirname "$IMAGE") STATION_NAME="Boot test" DIRECTOR_PIN_FILE="$WORK/test-pin" \
        LEXICON_SOURCES="TWL2016=$WORK/test-words.txt" "$HERE/build.sh" >/dev/null
else
    say "reusing $IMAGE"
fi
BUILT=$(date +%s)

# 2. Verify the units and boot the image.
set +e
REPO=$REPO python3 "$HERE/test-boot.py" "$IMAGE" "$WORK"
rc=$?
set -e
END=$(date +%s)
say "image build $((BUILT - START)) s, boot test $((END - BUILT)) s, total $((END - START)) s"
exit $rc
