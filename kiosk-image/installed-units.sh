#!/usr/bin/env bash
# The systemd units wordjudge installs, from the one list of them: the .deb's assets in
# Cargo.toml's [package.metadata.deb] (cargo-deb reads it there). customize.sh installs
# the image's units from what this prints, so the image and the package install the same
# units and cannot drift apart (the .deb once shipped without the two fleet units, and a
# station installed from it could not join). tests/image_scripts/installed_units.rs
# checks the two agree.
#
#   kiosk-image/installed-units.sh [Cargo.toml]
#
# Prints one line per unit: its source in the repository and its installed path, e.g.
#   systemd/wordjudge.service usr/lib/systemd/system/wordjudge.service
set -euo pipefail
manifest=${1:-"$(dirname "$0")/../Cargo.toml"}
awk '/^\[package\.metadata\.deb\]/ { deb = 1; next } /^\[/ { deb = 0 } deb' "$manifest" |
    sed -n 's|^[[:space:]]*\["\(systemd/[^"/]*\.service\)",[[:space:]]*"\([^"]*\)",.*|\1 \2|p' |
    while read -r src dest; do
        case "$dest" in */) dest="$dest${src##*/}" ;; esac
        printf '%s %s\n' "$src" "$dest"
    done
