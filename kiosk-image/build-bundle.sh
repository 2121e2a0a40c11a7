#!/bin/bash
# Builds a signed update bundle (RAUC, dm-verity format) for wordjudge stations, the PC
# image's or (ARCH=arm64) the Raspberry Pi card's:
#
#   UPDATE_KEY=~/wordjudge-update/key.pem UPDATE_CERT=~/wordjudge-update/cert.pem \
#       kiosk-image/build-bundle.sh
#
# It builds the image first, with the same recipe and settings as kiosk-image/build.sh
# (which it runs; VERSION= names the release), then signs that image's root filesystem
# into OUT/wordjudge-ARCH-VERSION.raucb. Copy the bundle to a USB stick; the director
# menu's "Install update" installs it into the station's other root slot. The data
# partition (lexicons, PIN, name, profile, station key, audit log) is not in a bundle and
# is never touched by one. docs/operators.md, "Updates", says how to make, keep and
# rotate the key: it never goes on a station, which only has the certificate.
#
# Settings (environment), besides build.sh's:
#   UPDATE_KEY=PATH     the signing key (PEM; or a PKCS#11 URI, as RAUC accepts)
#   UPDATE_CERT=PATH    its certificate: the one the stations were built with (UPDATE_CERT of
#                       build.sh), or one signed by it
#   STATION_CERTS=PATH  the certificates (PEM, one or more) the stations running the new
#                       image will trust (default UPDATE_CERT); both old and new while a key
#                       is rotated (docs/operators.md, "Updates")
#   ROOTFS=PATH         sign this root filesystem instead of building one (the OUT/rootfs.ext4
#                       of an earlier build.sh); its /etc/wordjudge-release gives the version
#   BUNDLE=PATH         where to write the bundle (default OUT/wordjudge-ARCH-VERSION.raucb)
#   COMPATIBLE=STRING   the stations it is for (default wordjudge-ARCH, what the image's
#                       /etc/rauc/system.conf says; the boot test changes it to make a bundle
#                       a station must refuse)
# Needs: rauc, squashfs-tools, e2fsprogs (debugfs), installed when missing. Runs as root
# only when it builds the image.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ARCH=${ARCH:-amd64}
case "$ARCH" in amd64|arm64) ;; *) echo "build-bundle.sh: ARCH must be amd64 or arm64, not '$ARCH'" >&2; exit 1 ;; esac
OUT=${OUT:-$REPO/target/kiosk-image/$ARCH}
say() { printf '[bundle %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { printf 'build-bundle.sh: error: %s\n' "$*" >&2; exit 1; }

need=()
for t in rauc:rauc mksquashfs:squashfs-tools debugfs:e2fsprogs openssl:openssl; do
    command -v "${t%%:*}" >/dev/null || [ -x "/sbin/${t%%:*}" ] || need+=("${t#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
if [ "${DEPS_ONLY:-0}" = 1 ]; then exit 0; fi

[ -n "${UPDATE_KEY:-}" ] || die "UPDATE_KEY: the signing key (docs/operators.md, \"Updates\")"
[ -f "${UPDATE_CERT:-}" ] || die "UPDATE_CERT: the certificate that goes with UPDATE_KEY"
if [ -z "${ROOTFS:-}" ]; then
    say "building the image (kiosk-image/build.sh)"
    OUT=$OUT UPDATE_CERT=${STATION_CERTS:-$UPDATE_CERT} "$HERE/build.sh"
    ROOTFS=$OUT/rootfs.ext4
fi
[ -f "$ROOTFS" ] || die "root filesystem $ROOTFS not found"
release=$(debugfs -R 'cat /etc/wordjudge-release' "$ROOTFS" 2>/dev/null) ||
    die "$ROOTFS is not an ext4 filesystem"
version=$(printf '%s\n' "$release" | sed -n 's/^VERSION=//p')
fs_arch=$(printf '%s\n' "$release" | sed -n 's/^ARCH=//p')
[ -n "$version" ] && [ -n "$fs_arch" ] || die "$ROOTFS has no /etc/wordjudge-release (VERSION=, ARCH=): not a wordjudge root filesystem"
COMPATIBLE=${COMPATIBLE:-wordjudge-$fs_arch}
BUNDLE=${BUNDLE:-$OUT/wordjudge-$fs_arch-$version.raucb}

dir=$(mktemp -d "${TMPDIR:-/tmp}/wordjudge-bundle.XXXXXX")
trap 'rm -rf "$dir"' EXIT
ln "$ROOTFS" "$dir/rootfs.ext4" 2>/dev/null || cp --sparse=always "$ROOTFS" "$dir/rootfs.ext4"
cat >"$dir/manifest.raucm" <<MANIFEST
[update]
compatible=$COMPATIBLE
version=$version
description=wordjudge $version ($fs_arch)
build=$(date -u +%Y-%m-%dT%H:%M:%SZ)

[bundle]
format=verity

[image.rootfs]
filename=rootfs.ext4
MANIFEST
rm -f "$BUNDLE"
mkdir -p "$(dirname "$BUNDLE")"
# zstd (level 9), not mksquashfs's default gzip: measured on the PC image's root
# (355 MB), 2.3 s instead of 31 s and 137 MB instead of 140 MB, and a station reads it
# back faster as it installs. Both images' kernels have CONFIG_SQUASHFS_ZSTD=y.
rauc --cert="$UPDATE_CERT" --key="$UPDATE_KEY" --mksquashfs-args="-comp zstd -Xcompression-level 9" \
    bundle "$dir" "$BUNDLE" >&2 || die "rauc bundle failed"
# Check it as a station would, with the certificate alone.
rauc --keyring="$UPDATE_CERT" info "$BUNDLE" >/dev/null 2>&1 || die "the new bundle does not verify against $UPDATE_CERT"
say "bundle $BUNDLE: version $version, compatible $COMPATIBLE, $(du -m --apparent-size "$BUNDLE" | cut -f1) MiB"
echo "$BUNDLE"
