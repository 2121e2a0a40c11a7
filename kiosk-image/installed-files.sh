#!/usr/bin/env bash
# The files wordjudge installs besides its two programs, from the one list of them: the
# .deb's assets in Cargo.toml's [package.metadata.deb] (cargo-deb reads it there).
# customize.sh installs the image's from what this prints, so the image and the package
# install the same units, systemd drop-ins, udev and polkit rules and docs, in the same
# places, and cannot drift apart (the .deb once shipped without the two fleet units, and a
# station installed from it could not join). The programs (the rows from target/) are
# left out: the image installs its own build, stripped. tests/image_scripts/installed_files.rs
# checks that the list covers systemd/ and docs/ and that this prints exactly its rows.
#
#   kiosk-image/installed-files.sh [Cargo.toml]
#
# Prints one line per file: its source in the repository, its installed path and its mode, e.g.
#   systemd/wordjudge.service usr/lib/systemd/system/wordjudge.service 644
set -euo pipefail
manifest=${1:-"$(dirname "$0")/../Cargo.toml"}
awk '/^\[package\.metadata\.deb\]/ { deb = 1; next } /^\[/ { deb = 0 } deb' "$manifest" |
    sed -n 's|^[[:space:]]*\["\([^"]*\)",[[:space:]]*"\([^"]*\)",[[:space:]]*"\([0-7]*\)"\],.*|\1 \2 \3|p' |
    while read -r src dest mode; do
        case "$src" in target/*) continue ;; esac
        case "$dest" in */) dest="$dest${src##*/}" ;; esac
        printf '%s %s %s\n' "$src" "$dest" "$mode"
    done
