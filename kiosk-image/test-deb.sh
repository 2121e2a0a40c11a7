#!/usr/bin/env bash
# Installs wordjudge_*_amd64.deb with apt in throwaway Debian roots (mmdebstrap), one per
# suite an operator may run: Debian 13 "trixie" (stable) and Debian 12 "bookworm"
# (oldstable, and what Raspberry Pi OS is built on), and checks what each gets:
#
#   kiosk-image/test-deb.sh [PACKAGE.deb]     # default: target/debian/wordjudge_*_amd64.deb
#   SUITES="trixie" kiosk-image/test-deb.sh   # only some suites
#
# Prints one PASS/FAIL line per check and "N passed, N failed"; exit 0 only if all passed.
# Needs root (chroot) and the Debian mirror. An arm64 package is checked the same way on
# an arm64 machine (the throwaway root runs the package's programs).
set -uo pipefail
cd "$(dirname "$0")/.."
say() { printf '[test-deb %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
DEB=${1:-$(ls -1t target/debian/wordjudge_*_amd64.deb 2>/dev/null | head -n1)}
[ -f "$DEB" ] || { say "no package: run kiosk-image/build-deb.sh amd64 first"; exit 2; }
[ "$(id -u)" = 0 ] || { say "run as root (chroot)"; exit 2; }
command -v mmdebstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
ARCH=$(dpkg-deb -f "$DEB" Architecture)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
pass=0; fail=0
result() { if [ "$1" = 0 ]; then echo "PASS: $2"; pass=$((pass + 1)); else echo "FAIL: $2${3:+ -- $3}"; fail=$((fail + 1)); fi; }

test_in() {  # test_in SUITE: one throwaway root of that suite, every check
    local SUITE=$1 ROOT=${WORK:-/tmp/wordjudge-deb-test}/root-$1 log out rc groups missing f g
    rm -rf "$ROOT"; mkdir -p "$(dirname "$ROOT")"

    say "throwaway $SUITE root ($ARCH), then apt install ./$(basename "$DEB")"
    log=$(dirname "$ROOT")/apt-$SUITE.log
    mmdebstrap --quiet --mode=root --variant=apt --arch="$ARCH" --include=ca-certificates \
        --customize-hook="copy-in \"$DEB\" /tmp" \
        --customize-hook="chroot \"\$1\" sh -c 'cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./$(basename "$DEB")' >\"$log\" 2>&1" \
        --skip=cleanup/apt/lists \
        $SUITE "$ROOT" "deb $MIRROR $SUITE main" >/dev/null 2>&1
    rc=$?
    result $rc "$SUITE: apt install ./$(basename "$DEB") in a fresh $SUITE root (pulls its dependencies)" "$(tail -n5 "$log" 2>/dev/null)"
    [ $rc = 0 ] || return 0
    in_root() { chroot "$ROOT" "$@"; }

    out=$(in_root dpkg-query -W -f='${Status} ${Version} ${Depends}' wordjudge 2>&1)
    case "$out" in "install ok installed"*libinput*systemd*) rc=0 ;; *) rc=1 ;; esac
    result $rc "$SUITE: dpkg: installed, with library dependencies worked out (dpkg-shlibdeps)" "$out"
    out=$(in_root /usr/bin/wordjudge --version 2>&1); rc=$?
    result $rc "$SUITE: /usr/bin/wordjudge runs" "$out"
    out=$(in_root /usr/bin/wordjudge-kiosk --version 2>&1); rc=$?
    result $rc "$SUITE: /usr/bin/wordjudge-kiosk runs" "$out"
    groups=$(in_root id -nG wordjudge 2>&1)
    rc=0; for g in video input render gpio; do case " $groups " in *" $g "*) ;; *) rc=1 ;; esac; done
    result $rc "$SUITE: system user wordjudge in video input render gpio (sysusers.d)" "$groups"
    out=$(in_root stat -c '%U:%G %a' /var/lib/wordjudge /var/lib/wordjudge/audit 2>&1 | tr '\n' ' ')
    case "$out" in "wordjudge:wordjudge 750 wordjudge:wordjudge 750 ") rc=0 ;; *) rc=1 ;; esac
    result $rc "$SUITE: data directory /var/lib/wordjudge for the kiosk only (tmpfiles.d)" "$out"
    out=$(in_root systemd-analyze verify --man=no wordjudge.service 2>&1); rc=$?
    [ -n "$out" ] && rc=1
    result $rc "$SUITE: systemd-analyze verify wordjudge.service, as installed" "$out"
    out=$(in_root systemd-analyze cat-config systemd/logind.conf 2>&1 | grep -E '^Handle(Power|Suspend|Hibernate|Reboot)Key=' | tr '\n' ' ')
    case "$out" in *HandlePowerKey=ignore*HandleSuspendKey=ignore*) rc=0 ;; *) rc=1 ;; esac
    result $rc "$SUITE: logind drop-in: the keyboard's power keys are ignored" "$out"
    out=$(in_root systemd-analyze cat-config systemd/system.conf 2>&1 | grep -E '^(CtrlAltDelBurstAction|RuntimeWatchdogSec)=' | tr '\n' ' ')
    case "$out" in *CtrlAltDelBurstAction=none*RuntimeWatchdogSec=*) rc=0 ;; *) rc=1 ;; esac
    result $rc "$SUITE: system.conf drop-in: no Ctrl+Alt+Del burst reboot, hardware watchdog" "$out"
    missing=""
    for f in usr/lib/udev/rules.d/60-wordjudge-gpio.rules usr/lib/udev/rules.d/70-wordjudge-usb.rules \
             usr/lib/systemd/system/wordjudge-stick-import@.service usr/lib/systemd/system/wordjudge-stick-export@.service \
             usr/share/polkit-1/rules.d/50-wordjudge.rules \
             usr/lib/sysctl.d/90-wordjudge.conf usr/lib/systemd/journald.conf.d/wordjudge.conf \
             usr/share/doc/wordjudge/copyright; do
        [ -s "$ROOT/$f" ] || missing+=" $f"
    done
    result "$([ -z "$missing" ] && echo 0 || echo 1)" "$SUITE: udev rules (GPIO, USB sticks), the stick helper units, polkit rule, sysctl and journald drop-ins, copyright installed" "missing:$missing"
    # stdout only: systemd 257 warns on stderr that /proc is not mounted in the root
    out=$(in_root systemctl is-enabled wordjudge.service 2>/dev/null)
    [ "$out" = disabled ]; result $? "$SUITE: the unit is installed but not enabled (the operator enables it)" "$out"
    touch "$ROOT/var/lib/wordjudge/audit/audit-000001-2026-01-01.jsonl"
    in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q wordjudge' >>"$log" 2>&1; rc=$?
    [ $rc = 0 ] && [ ! -e "$ROOT/usr/bin/wordjudge" ] && [ -e "$ROOT/var/lib/wordjudge/audit/audit-000001-2026-01-01.jsonl" ]
    result $? "$SUITE: apt purge removes the program and keeps the audit log" "exit $rc"
    rm -rf "$ROOT"
}

for suite in ${SUITES:-trixie bookworm}; do test_in "$suite"; done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
