#!/bin/bash
# Fast checks of systemd/ (no image, no VM; CI runs this): systemd-analyze verify on
# wordjudge.service, and systemd-sysusers applying sysusers.d/wordjudge.conf to a
# scratch root. Prints "N passed, N failed"; exit 0 only if all passed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
command -v systemd-analyze >/dev/null || { echo "systemd-analyze is missing (apt-get install systemd)" >&2; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
result() { if [ "$1" = 0 ]; then echo "PASS: $2"; pass=$((pass + 1)); else echo "FAIL: $2${3:+ -- $3}"; fail=$((fail + 1)); fi; }

# verify wants ExecStart= to exist: point it at a stand-in in the scratch dir.
printf '#!/bin/sh\n' >"$T/wordjudge"; chmod +x "$T/wordjudge"
sed "s|/usr/bin/wordjudge|$T/wordjudge|" "$REPO/systemd/wordjudge.service" >"$T/wordjudge.service"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$T/wordjudge.service" 2>&1); rc=$?
[ -n "$out" ] && rc=1
result $rc "systemd-analyze verify systemd/wordjudge.service" "$out"

mkdir -p "$T/root/etc" "$T/root/usr/lib/sysusers.d"
cp /usr/lib/sysusers.d/basic.conf "$T/root/usr/lib/sysusers.d/" 2>/dev/null
cp "$REPO/systemd/sysusers.d/wordjudge.conf" "$T/root/usr/lib/sysusers.d/"
out=$(systemd-sysusers --root="$T/root" 2>&1); rc=$?
groups=$(awk -F: '$4 ~ /wordjudge/ {printf "%s ", $1}' "$T/root/etc/group")
for g in video input render gpio; do case " $groups" in *" $g "*) ;; *) rc=1 ;; esac; done
result $rc "sysusers.d/wordjudge.conf creates user wordjudge in video input render gpio" "$out groups: $groups"

# Nothing a player can press reboots, suspends or powers off the station.
rc=0; missing=""
for key in HandlePowerKey HandleRebootKey HandleSuspendKey HandleHibernateKey HandlePowerKeyLongPress HandleSuspendKeyLongPress; do
  grep -qx "$key=ignore" "$REPO/systemd/logind.conf.d/wordjudge-kiosk.conf" || { rc=1; missing+=" $key"; }
done
grep -qx "CtrlAltDelBurstAction=none" "$REPO/systemd/system.conf.d/wordjudge.conf" || { rc=1; missing+=" CtrlAltDelBurstAction"; }
grep -q 'system.conf.d/wordjudge.conf' "$REPO/kiosk-image/customize.sh" || { rc=1; missing+=" (system.conf.d not installed by the image)"; }
result $rc "logind ignores the Power/Reboot/Suspend/Hibernate keys; Ctrl+Alt+Del bursts do nothing" "not set:$missing"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
