#!/bin/bash
# Fast checks of systemd/ (no image, no VM; CI runs this): systemd-analyze verify on
# wordjudge.service and on the two USB stick templates (as instances), systemd-sysusers
# applying sysusers.d/wordjudge.conf to a scratch root, the logind/system drop-ins, and
# the polkit rule's USB stick part. Prints "N passed, N failed"; exit 0 only if all passed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
# The one list of installed files (kiosk-image/installed-files.sh), read whole: `| grep -q`
# would close the pipe at its first match, and under pipefail the list's SIGPIPE would
# fail a check now and then.
installed=$(bash "$REPO/kiosk-image/installed-files.sh" "$REPO/Cargo.toml")
command -v systemd-analyze >/dev/null || { echo "systemd-analyze is missing (apt-get install systemd)" >&2; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
result() { if [ "$1" = 0 ]; then echo "PASS: $2"; pass=$((pass + 1)); else echo "FAIL: $2${3:+ -- $3}"; fail=$((fail + 1)); fi; }

# verify wants ExecStart= to exist: point it at a stand-in in the scratch dir.
printf '#!/bin/sh\n' >"$T/wordjudge-kiosk"; chmod +x "$T/wordjudge-kiosk"
sed "s|/usr/bin/wordjudge-kiosk|$T/wordjudge-kiosk|" "$REPO/systemd/wordjudge.service" >"$T/wordjudge.service"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$T/wordjudge.service" 2>&1); rc=$?
[ -n "$out" ] && rc=1
result $rc "systemd-analyze verify systemd/wordjudge.service" "$out"

# The USB stick templates, verified as an instance (sdz1) each, since a template alone is
# not a unit; both in one folder, so each one's Conflicts=/After= on the other resolves.
MOUNT_NS_OPTIONS="ProtectSystem|ProtectHome|PrivateTmp|PrivateDevices|PrivateMounts|PrivateNetwork|PrivateIPC|PrivateUsers"
MOUNT_NS_OPTIONS+="|ProtectKernelTunables|ProtectKernelModules|ProtectKernelLogs|ProtectControlGroups|ProtectProc|ProcSubset"
MOUNT_NS_OPTIONS+="|ReadOnlyPaths|ReadWritePaths|InaccessiblePaths|ExecPaths|NoExecPaths|BindPaths|BindReadOnlyPaths"
MOUNT_NS_OPTIONS+="|TemporaryFileSystem|RootDirectory|RootImage|MountImages|ExtensionImages|ExtensionDirectories"
MOUNT_NS_OPTIONS+="|MountFlags|DynamicUser|LogNamespace|NetworkNamespacePath|IPCNamespacePath|MountAPIVFS"
for mode in import export; do
    sed "s|/usr/bin/wordjudge-kiosk|$T/wordjudge-kiosk|" "$REPO/systemd/wordjudge-stick-$mode@.service" >"$T/wordjudge-stick-$mode@sdz1.service"
done
for mode in import export; do
    out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$T/wordjudge-stick-$mode@sdz1.service" 2>&1); rc=$?
    [ -n "$out" ] && rc=1
    grep -q "^ExecStart=/usr/bin/wordjudge-kiosk stick attach --mode $mode %I\$" "$REPO/systemd/wordjudge-stick-$mode@.service" || { rc=1; out+=" (ExecStart= is not the $mode attach)"; }
    # Its mounts must reach the host: no option that gives the unit a mount namespace.
    ns=$(grep -oE "^($MOUNT_NS_OPTIONS)=" "$REPO/systemd/wordjudge-stick-$mode@.service" | tr '\n' ' ')
    [ -z "$ns" ] || { rc=1; out+=" (creates a mount namespace, its mounts would not reach the kiosk: $ns)"; }
    result $rc "systemd-analyze verify systemd/wordjudge-stick-$mode@.service (as wordjudge-stick-$mode@sdz1.service); no mount namespace" "$out"
done

mkdir -p "$T/root/etc" "$T/root/usr/lib/sysusers.d"
cp /usr/lib/sysusers.d/basic.conf "$T/root/usr/lib/sysusers.d/" 2>/dev/null
cp "$REPO/systemd/sysusers.d/wordjudge.conf" "$T/root/usr/lib/sysusers.d/"
out=$(systemd-sysusers --root="$T/root" 2>&1); rc=$?
groups=$(awk -F: '$4 ~ /wordjudge/ {printf "%s ", $1}' "$T/root/etc/group")
for g in video input render gpio; do case " $groups" in *" $g "*) ;; *) rc=1 ;; esac; done
result $rc "sysusers.d/wordjudge.conf creates user wordjudge in video input render gpio" "$out groups: $groups"
upload_groups=$(awk -F: '$4 ~ /(^|,)wordjudge-upload(,|$)/ {printf "%s ", $1}' "$T/root/etc/group")
rc=0; [ "$upload_groups" = "systemd-journal " ] && grep -q '^wordjudge-upload:' "$T/root/etc/passwd" || rc=1
result $rc "sysusers.d/wordjudge.conf creates user wordjudge-upload in systemd-journal only" "groups: $upload_groups"

# The fleet's uploader: verified with its credentials and settings in place (as on a
# station that joined), runs only where upload.env exists, never listens (no socket
# units, no listen options), and scores as hardened.
U=$REPO/systemd/wordjudge-fleet-upload.service
F=$T/var/lib/wordjudge/fleet
mkdir -p "$F" && touch "$F/station.key" "$F/station.pem" "$F/ca.pem" && echo "WORDJUDGE_FLEET_URL=https://192.0.2.1:19532" >"$F/upload.env"
sed "s|/var/lib/wordjudge/fleet|$F|g" "$U" >"$T/wordjudge-fleet-upload.service"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$T/wordjudge-fleet-upload.service" 2>&1); rc=$?
[ -n "$out" ] && rc=1
grep -qx 'ConditionPathExists=/var/lib/wordjudge/fleet/upload.env' "$U" || { rc=1; out+=" (no ConditionPathExists= on upload.env)"; }
grep -qE '^ExecStart=/usr/lib/systemd/systemd-journal-upload .*--save-state=/var/lib/systemd/journal-upload/state' "$U" || { rc=1; out+=" (ExecStart= is not the uploader with its cursor)"; }
grep -v '^#' "$U" | grep -qE '^Listen|--listen' && { rc=1; out+=" (a listen option)"; }
grep -q 'wordjudge-fleet-upload.service' "$REPO/kiosk-image/customize.sh" || { rc=1; out+=" (not installed by the image)"; }
score=$(systemd-analyze security --offline=yes --no-pager "$T/wordjudge-fleet-upload.service" 2>/dev/null | awk '/Overall exposure level/ {print $(NF-2)}')
awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.5) }' || { rc=1; out+=" (exposure ${score:-unknown}, want at most 2.5)"; }
result $rc "systemd-analyze verify systemd/wordjudge-fleet-upload.service; only with upload.env; never listens; exposure ${score:-?}" "$out"

# The fleet's network: only where joining wrote wired.network, and systemd-networkd is
# started by it, never pulled in by a dependency a station in no fleet would also follow.
N=$REPO/systemd/wordjudge-fleet-network.service
echo "[Match]" >"$F/wired.network"
sed "s|/var/lib/wordjudge/fleet|$F|g; s|/run/systemd/network|$T/run-network|g" "$N" >"$T/wordjudge-fleet-network.service"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$T/wordjudge-fleet-network.service" 2>&1); rc=$?
[ -n "$out" ] && rc=1
grep -qx 'ConditionPathExists=/var/lib/wordjudge/fleet/wired.network' "$N" || { rc=1; out+=" (no ConditionPathExists= on wired.network)"; }
grep -qE '^(Wants|Requires|BindsTo|Upholds)=.*networkd' "$N" && { rc=1; out+=" (pulls in systemd-networkd by a dependency)"; }
grep -q 'wordjudge-fleet-network.service' "$REPO/kiosk-image/customize.sh" || { rc=1; out+=" (not installed by the image)"; }
result $rc "systemd-analyze verify systemd/wordjudge-fleet-network.service; only with wired.network; networkd started by it alone" "$out"

# Nothing a player can press reboots, suspends or powers off the station.
rc=0; missing=""
for key in HandlePowerKey HandleRebootKey HandleSuspendKey HandleHibernateKey HandlePowerKeyLongPress HandleSuspendKeyLongPress; do
  grep -qx "$key=ignore" "$REPO/systemd/logind.conf.d/wordjudge-kiosk.conf" || { rc=1; missing+=" $key"; }
done
grep -qx "CtrlAltDelBurstAction=none" "$REPO/systemd/system.conf.d/wordjudge.conf" || { rc=1; missing+=" CtrlAltDelBurstAction"; }
for dropin in logind.conf.d/wordjudge-kiosk.conf system.conf.d/wordjudge.conf; do
  grep -q "^systemd/$dropin " <<<"$installed" || { rc=1; missing+=" (systemd/$dropin not on the list of installed files)"; }
done
result $rc "logind ignores the Power/Reboot/Suspend/Hibernate keys; Ctrl+Alt+Del bursts do nothing" "not set:$missing"

# polkit: user wordjudge may start and stop the two USB stick units and the two fleet
# units, and nothing else of
# systemd's: the rule's one unit pattern (a /^...$/ literal) is tried on names it must and
# must not allow (bash reads these extended regular expressions as JavaScript does), and
# its only verbs are start and stop.
P=$REPO/systemd/polkit-1/rules.d/50-wordjudge.rules
rc=0; why=""
pats=$(grep -oE '/\^[^/ ]*\$/' "$P" | sed 's|^/||; s|/$||')
[ "$(printf '%s\n' "$pats" | grep -c .)" = 1 ] || { rc=1; why+=" unit patterns: $(printf '%s ' $pats);"; }
[ "$(grep -c 'manage-units' "$P")" = 1 ] && [ "$(grep -o '\.test(' "$P" | wc -l)" = 1 ] || { rc=1; why+=" manage-units/test() not exactly once;"; }
verbs=$(grep -oE 'verb == "[^"]*"' "$P" | sort -u | tr '\n' ' ')
[ "$verbs" = 'verb == "start" verb == "stop" ' ] || { rc=1; why+=" verbs: $verbs;"; }
pat=$(printf '%s\n' "$pats" | head -n1)
for unit in wordjudge-stick-import@sdb1.service wordjudge-stick-export@sdb1.service wordjudge-stick-import@sdb.service \
            wordjudge-fleet-network.service wordjudge-fleet-upload.service; do
    [[ $unit =~ $pat ]] || { rc=1; why+=" refuses $unit;"; }
done
for unit in wordjudge.service wordjudge-stick-import@.service wordjudge-stick-other@sdb1.service \
            wordjudge-stick-import@sdb1.service.d x-wordjudge-stick-import@sdb1.service \
            wordjudge-stick-export@sdb1.socket "wordjudge-stick-import@../sdb1.service" \
            wordjudge-stick-import@sdb1.serviceX systemd-logind.service \
            wordjudge-fleet-upload@x.service wordjudge-fleet-other.service wordjudge-fleetXupload.service \
            wordjudge-fleet-upload.serviceX systemd-journal-upload.service wordjudge-fleet-upload.socket; do
    [[ $unit =~ $pat ]] && { rc=1; why+=" allows $unit;"; }
done
for unit in wordjudge-fleet-network.service wordjudge-fleet-upload.service; do
    [ -f "$REPO/systemd/$unit" ] || { rc=1; why+=" no systemd/$unit;"; }
done
grep -q 'installed-files.sh' "$REPO/kiosk-image/customize.sh" || { rc=1; why+=" customize.sh does not install the list of files;"; }
[ -n "$installed" ] || { rc=1; why+=" the list of installed files cannot be read;"; }
for mode in import export; do
    [ -f "$REPO/systemd/wordjudge-stick-$mode@.service" ] || { rc=1; why+=" no systemd/wordjudge-stick-$mode@.service;"; }
    grep -q "^systemd/wordjudge-stick-$mode@.service " <<<"$installed" \
        || { rc=1; why+=" wordjudge-stick-$mode@.service not on the list of installed files;"; }
done
result $rc "polkit rule: user wordjudge may start/stop exactly wordjudge-stick-(import|export)@DEVICE.service and the two fleet units, nothing else of systemd's" "pattern ${pat:-none}:$why"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
