#!/usr/bin/env bash
# Builds the Debian packages for machines that already run Debian or Raspberry Pi OS:
#
#   kiosk-image/build-deb.sh            # amd64 and arm64 -> target/debian/wordjudge_VERSION_ARCH.deb
#   kiosk-image/build-deb.sh amd64      # just one
#   PROFILE=dev kiosk-image/build-deb.sh amd64   # from the dev-profile build (CI: no second,
#                                                # release build of the whole tree)
#   SKIP_CARGO_BUILD=1 ...                       # package the programs already built (CI:
#                                                # the ones its tests ran)
#
# Installs what it needs: cargo-deb (from crates.io, once), dpkg-dev (dpkg-shlibdeps works
# out the library dependencies), and for arm64 the cross tools (cross-build.sh).
# What goes in the package is [package.metadata.deb] in Cargo.toml; the maintainer
# scripts are kiosk-image/deb/. kiosk-image/test-deb.sh installs a package in a throwaway
# Debian root and checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[build-deb %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
archs=("$@"); [ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
PROFILE=${PROFILE:-release}
# cargo-deb warns that a dev profile is for development; CI uses it knowingly (stripped).

command -v dpkg-shlibdeps >/dev/null || {
    say "installing dpkg-dev"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends dpkg-dev >/dev/null
}
if ! cargo deb --version >/dev/null 2>&1; then
    say "cargo install cargo-deb (once; a few minutes)"
    cargo install cargo-deb --locked --quiet
fi
bash .ci/install-deps
for arch in "${archs[@]}"; do
    case "$arch" in
        amd64)
            say "cargo deb (amd64)"
            if [ "${SKIP_CARGO_BUILD:-0}" = 1 ]; then
                # CI: the programs its tests built and ran go in the package. A build without
                # the tests' dev-dependencies resolves other features and compiles Slint's
                # stack a second time (about 6 minutes on 2 cores).
                out=target/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
                for program in wordjudge wordjudge-kiosk; do
                    [ -x "$out/$program" ] || { say "no $out/$program: build it first, or leave SKIP_CARGO_BUILD unset"; exit 1; }
                done
            else
                cargo build --locked --profile "$PROFILE" --quiet
            fi
            cargo deb --no-build --quiet --profile "$PROFILE" ;;
        arm64)
            bash kiosk-image/cross-build.sh
            say "cargo deb --target aarch64-unknown-linux-gnu (arm64)"
            PKG_CONFIG_ALLOW_CROSS=1 cargo deb --no-build --quiet --profile "$PROFILE" --target aarch64-unknown-linux-gnu ;;
        *) say "unknown architecture $arch (amd64 or arm64)"; exit 2 ;;
    esac
done
ls -1 target/debian/wordjudge_*.deb target/*/debian/wordjudge_*.deb 2>/dev/null || true
