#!/usr/bin/env bash
# Cross-builds the real aarch64 (Raspberry Pi) `wordjudge` on an amd64 Debian machine:
#
#   kiosk-image/cross-build.sh        # -> target/aarch64-unknown-linux-gnu/release/wordjudge
#   PROFILE=dev kiosk-image/cross-build.sh  # -> .../debug/wordjudge (CI: same code, faster to build)
#
# It installs what it needs, as .ci/install-deps does for the host build:
#   * arm64 as a Debian foreign architecture (dpkg --add-architecture arm64), so the
#     C libraries Slint's linuxkms backend links against come as their :arm64 -dev packages;
#   * gcc-aarch64-linux-gnu, the cross linker;
#   * arch-test, which mmdebstrap needs to build the arm64 image afterwards;
#   * the rustup target aarch64-unknown-linux-gnu.
# The aarch64 build has its own folder (cargo --target keeps it under
# target/aarch64-unknown-linux-gnu/), so it never disturbs the host build.
# ARCH=arm64 kiosk-image/build.sh uses this binary by default.
# A first run takes about 20 minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=aarch64-unknown-linux-gnu
PROFILE=${PROFILE:-release}
say() { printf '[cross-build %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

[ "$(dpkg --print-architecture)" = amd64 ] || {
    say "this machine is $(dpkg --print-architecture), not amd64: build natively with 'cargo build --release'"
    exit 1
}
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

libs=(libudev-dev libinput-dev libxkbcommon-dev libdrm-dev libgbm-dev libfontconfig1-dev)
packages=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross pkg-config arch-test)
for l in "${libs[@]}"; do packages+=("$l:arm64"); done
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        say "adding arm64 as a foreign architecture"
        $sudo dpkg --add-architecture arm64
    fi
    say "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! rustup target list --installed | grep -qx "$TARGET"; then
    say "rustup target add $TARGET"
    rustup target add "$TARGET"
fi
# DEPS_ONLY=1: install what the build needs, then stop (see build.sh).
[ "${DEPS_ONLY:-0}" = 1 ] && exit 0

say "cargo build --profile $PROFILE --target $TARGET (about 20 minutes the first time)"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export PKG_CONFIG_ALLOW_CROSS=1
export PKG_CONFIG_SYSROOT_DIR=/
export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
# CROSS_TARGET_DIR (CI): build in that target folder instead, so this build can run
# beside the host's builds and tests, which hold target/'s lock (its host-side units,
# build scripts and proc-macros, are compiled again either way), and link
# target/aarch64-unknown-linux-gnu to its output, where build.sh and build-deb.sh look.
if [ -n "${CROSS_TARGET_DIR:-}" ]; then
    if [ -e "target/$TARGET" ] && [ ! -L "target/$TARGET" ]; then
        say "target/$TARGET is a folder of another build: remove it, or leave CROSS_TARGET_DIR unset"
        exit 1
    fi
    export CARGO_TARGET_DIR=$CROSS_TARGET_DIR
fi
cargo build --locked --profile "$PROFILE" --target "$TARGET" --bin wordjudge --bin wordjudge-kiosk
if [ -n "${CROSS_TARGET_DIR:-}" ]; then
    mkdir -p target
    ln -sfn "$(realpath "$CROSS_TARGET_DIR")/$TARGET" "target/$TARGET"
fi
BIN=target/$TARGET/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")/wordjudge
file "$BIN" 2>/dev/null || ls -l "$BIN"
say "built $BIN"
