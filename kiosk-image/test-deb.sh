#!/usr/bin/env bash
# Installs wordjudge_*_amd64.deb with apt in throwaway Debian roots (mmdebstrap), one per
# suite an operator may run: Debian 13 "trixie" (stable) and Debian 12 "bookworm"
# (oldstable), and checks what each gets. In the trixie root it then runs the operator guide's
# Raspberry Pi OS steps (Raspberry Pi OS Lite is trixie-based) and checks what a boot would get:
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
    [ "$SUITE" = trixie ] && raspios_route "$ROOT" "$log"
    touch "$ROOT/var/lib/wordjudge/audit/audit-000001-2026-01-01.jsonl"
    in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q wordjudge' >>"$log" 2>&1; rc=$?
    [ $rc = 0 ] && [ ! -e "$ROOT/usr/bin/wordjudge" ] && [ -e "$ROOT/var/lib/wordjudge/audit/audit-000001-2026-01-01.jsonl" ]
    result $? "$SUITE: apt purge removes the program and keeps the audit log" "exit $rc"
    rm -rf "$ROOT"
}

# The Raspberry Pi OS route (docs/operators.md, "Raspberry Pi OS: the Debian package"), in
# the trixie root: Raspberry Pi OS Lite (trixie) is Debian trixie plus Raspberry Pi's kernel,
# firmware and a few packages. The operator's steps run here as the guide gives them, then
# the checks read what a boot of this root would get. Raspberry Pi's kernel and firmware
# (the panels, vc4, /dev/gpiomem) are not here: the guide says what only a real Pi shows.
raspios_route() {  # raspios_route ROOT LOG: after test_in's checks, before its purge
    local ROOT=$1 log=$2 S="trixie, Raspberry Pi OS route" t0=$SECONDS out rc why a f masked_before
    # eff CONFIG KEY...: "KEY=value " for each KEY, its last value in CONFIG and its drop-ins.
    eff() {
        in_root systemd-analyze cat-config "$1" 2>/dev/null | awk -v keys=" ${*:2} " '
            { k = substr($0, 1, index($0, "=") - 1) }
            k != "" && index(keys, " " k " ") { v[k] = substr($0, length(k) + 2) }
            END { n = split(keys, ks, " "); for (i = 1; i <= n; i++) printf "%s=%s ", ks[i], v[ks[i]] }'
    }
    say "$S: the operator's steps, then what a boot would get"
    # As Raspberry Pi OS Lite may leave tty1: raspi-config's console autologin (System
    # Options > Boot / Auto Login > B2) is this drop-in on getty@tty1.
    mkdir -p "$ROOT/etc/systemd/system/getty@tty1.service.d"
    printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin pi --noclear %%I $TERM\n' \
        >"$ROOT/etc/systemd/system/getty@tty1.service.d/autologin.conf"
    masked_before=$(in_root systemctl is-enabled ctrl-alt-del.target 2>/dev/null)
    cp "$DEB" "$ROOT/tmp/"
    # The guide's steps. apt runs with the root's own settings, as on a Pi (Recommends too).
    {
        in_root sh -c "cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./$(basename "$DEB") polkitd" &&
        in_root systemctl set-default multi-user.target &&
        in_root systemctl mask ctrl-alt-del.target &&
        in_root systemctl enable wordjudge.service
    } >>"$log" 2>&1
    result $? "$S: the guide's steps work in the root, systemctl offline (apt install ./$(basename "$DEB") polkitd; systemctl set-default multi-user.target, mask ctrl-alt-del.target, enable wordjudge)" "$(tail -n3 "$log")"

    out="default $(in_root systemctl get-default 2>/dev/null), wordjudge $(in_root systemctl is-enabled wordjudge.service 2>/dev/null)"
    [ "$out" = "default multi-user.target, wordjudge enabled" ] && [ -L "$ROOT/etc/systemd/system/multi-user.target.wants/wordjudge.service" ]
    result $? "$S: a boot starts the kiosk: wordjudge.service is wanted by the default target" "$out"
    # Loads the default target and builds its start transaction (through wordjudge.service,
    # tty1's getty and everything else enabled): an ordering cycle or a unit error is output.
    out=$(in_root systemd-analyze verify --man=no default.target 2>&1); rc=$?
    [ -n "$out" ] && rc=1
    result $rc "$S: systemd-analyze verify default.target: the boot's start transaction has no ordering cycle or unit error" "$out"

    # The screen: the kiosk takes tty1 from its login prompt (autologin or not), no other
    # VT gets one, and it runs full screen (--appliance: linuxkms, no window).
    # (Conflicts= adds up and cannot be emptied; the others take their last value.)
    out=$(in_root systemd-analyze cat-config systemd/system/wordjudge.service 2>&1 | grep -x 'Conflicts=getty@tty1.service')
    out+=" $(eff systemd/system/wordjudge.service ExecStart StandardInput)$(eff systemd/logind.conf NAutoVTs ReserveVT)"
    case "$out" in "Conflicts=getty@tty1.service ExecStart=/usr/bin/wordjudge-kiosk kiosk --appliance "*" StandardInput=null NAutoVTs=0 ReserveVT=0 ") rc=0 ;; *) rc=1 ;; esac
    result $rc "$S: the kiosk replaces tty1's login prompt (RPi OS autologin too), full screen; no login prompt on other VTs" "$out"
    out="ctrl-alt-del.target $masked_before before the steps, $(in_root systemctl is-enabled ctrl-alt-del.target 2>/dev/null) after; "
    out+=$(eff systemd/system.conf CtrlAltDelBurstAction)
    case "$out" in *" masked after; CtrlAltDelBurstAction=none ") rc=0 ;; *) rc=1 ;; esac
    result $rc "$S: Ctrl+Alt+Del does nothing (ctrl-alt-del.target masked by the guide's step, bursts off by the package)" "$out"

    # The director menu's reboot, power off, clock and USB sticks go through polkit.
    why=""
    [ "$(in_root dpkg-query -W -f='${Status}' polkitd 2>/dev/null)" = "install ok installed" ] || why+=" polkitd not installed;"
    f=$ROOT/usr/share/polkit-1/rules.d/50-wordjudge.rules
    [ -s "$f" ] || why+=" no rule;"
    for a in org.freedesktop.login1.reboot org.freedesktop.login1.power-off org.freedesktop.systemd1.manage-units org.freedesktop.timedate1.set-time; do
        grep -qF "\"$a\"" "$f" 2>/dev/null || why+=" the rule does not name $a;"
        grep -qsF "<action id=\"$a\"" "$ROOT"/usr/share/polkit-1/actions/*.policy || why+=" no action $a on the system;"
    done
    [ -z "$why" ]; result $? "$S: polkitd installed, the rule in place, every action it grants defined on the system" "$why"
    out=$(in_root systemd-analyze verify --man=no wordjudge-stick-import@sda1.service wordjudge-stick-export@sda1.service 2>&1); rc=$?
    [ -n "$out" ] && rc=1
    [ -s "$ROOT/usr/lib/udev/rules.d/70-wordjudge-usb.rules" ] || { rc=1; out+=" (no udev rule for sticks)"; }
    result $rc "$S: the USB stick helper units verify as installed (as instances for sda1), the stick udev rule in place" "$out"

    # The audit log's folder on the card's one root filesystem: a file left there by root
    # (sudo wordjudge ... config set-pin) becomes the kiosk's at boot; other users see nothing.
    touch "$ROOT/var/lib/wordjudge/config.toml"
    systemd-tmpfiles --root="$ROOT" --create --boot wordjudge.conf >>"$log" 2>&1; rc=$?
    out=$(in_root stat -c '%n %U:%G %a' /var/lib/wordjudge /var/lib/wordjudge/audit /var/lib/wordjudge/config.toml 2>&1 | tr '\n' ' ')
    out+=$(in_root systemd-analyze cat-config systemd/system/wordjudge.service 2>&1 | grep -E '^(RequiresMountsFor|ReadWritePaths)=/var/lib/wordjudge$' | tr '\n' ' ')
    case "$out" in "/var/lib/wordjudge wordjudge:wordjudge 750 /var/lib/wordjudge/audit wordjudge:wordjudge 750 /var/lib/wordjudge/config.toml wordjudge:wordjudge "*"RequiresMountsFor=/var/lib/wordjudge ReadWritePaths=/var/lib/wordjudge ") ;; *) rc=1 ;; esac
    rm -f "$ROOT/var/lib/wordjudge/config.toml"
    result $rc "$S: data folder /var/lib/wordjudge: the kiosk's alone (750), root's files there become the kiosk's at boot (tmpfiles --boot)" "$out"

    # The unit's hardening, as systemd rates it: 0 is best, 10 worst; above 1.5 fails.
    out=$(in_root systemd-analyze security --offline=yes --threshold=15 wordjudge.service 2>&1); rc=$?
    out=$(printf '%s\n' "$out" | grep -o 'Overall exposure level for wordjudge.service: [0-9.]*' || printf '%s' "$out" | tail -n2)
    result $rc "$S: hardening: systemd-analyze security --offline=yes, at most 1.5 -- ${out##*: }" "$out"
    say "$S: $((SECONDS - t0)) s"
}

for suite in ${SUITES:-trixie bookworm}; do test_in "$suite"; done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
