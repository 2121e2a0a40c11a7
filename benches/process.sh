#!/usr/bin/env bash
# Whole-process figures that criterion cannot take from inside a process:
#  - the command line (`wordjudge`, which links no GUI library), each as a ratio of medians
#    measured in one hyperfine run: `--version` against /bin/true; `judge --lexicon CSW15 QI ZA`
#    against two `grep -qxF` over CSW15.txt; `judge --each` over all of CSW15 against
#    `grep -cxFf`, with the peak RSS of both (/usr/bin/time -v); `audit verify` of a
#    10,000-record log (written by the audit bench's one writer: benches/audit.rs);
#  - the kiosk under Xvfb (winit, software renderer, 1920x1080, the touch targets shown) with every catalogue lexicon
#    this machine has a list for installed (CSW15, NWL2018, TWL06, OSPD4+MW11, plus NWL2018
#    put in place as TWL2016: a Mismatch): process start to READY, then the director PIN
#    entered (Argon2) and 100 challenges typed with xdotool and found in the audit log,
#    and the peak RSS (VmHWM) after all that; then a USB stick (a folder: --usb folders:DIR)
#    holding CSW15.txt and NWL2018.txt: both read, compiled and previewed, NWL2018
#    installed, the stick unmounted, the audit log exported to it, and the peak RSS again.
# Needs ../shared/lexicons; installs xvfb, xdotool, hyperfine and time when missing.
# WORDJUDGE_BIN=PATH measures another build (e.g. target/debug/wordjudge) instead of
# building the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/lexicons
[ -d "$shared" ] || { echo "SKIPPED: $shared not found"; exit 0; }
bash .ci/install-deps --desktop
for p in xvfb xdotool hyperfine time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null
done
if [ -n "${WORDJUDGE_BIN:-}" ]; then bin=$(realpath "$WORDJUDGE_BIN"); else
  cargo build --release --locked -q --bins
  bin=$PWD/target/release/wordjudge
fi
kiosk=$(dirname "$bin")/wordjudge-kiosk
echo "== measuring $bin"
work=$(mktemp -d /var/tmp/wordjudge-process.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
lex=$work/lexicons; mkdir -p "$lex"
# CSW15 is official and pinned: installed by its word file alone. NWL2018 is
# put in place as TWL2016 with `build --out` (install would refuse it): it is
# a Mismatch. The OSPD4/MW11 stand-ins go in under the layer names.
$bin --lexicons "$lex" lexicon install "$shared/CSW15.txt" >/dev/null
$bin --lexicons "$lex" lexicon install "$shared/NWL2018.txt" >/dev/null
$bin --lexicons "$lex" lexicon install "$shared/TWL06.txt" >/dev/null
$bin lexicon build "$shared/NWL2018.txt" --out "$lex/TWL2016.fst" >/dev/null
$bin lexicon build "$shared/OSPD4-upto8.txt" --out "$lex/OSPD4.fst" >/dev/null
$bin lexicon build "$shared/TWL06.txt" --out "$lex/MW11-long.fst" >/dev/null
cat > "$work/config.toml" <<TOML
station_name = "Bench"
lexicon_dir = "$lex"
active_lexicon = "CSW15"
audit_dir = "$work/audit"
# The touch targets shown (the on-screen keyboard in every entry): the peak
# memory is the one a touchscreen station reaches.
touch = "on"
TOML
export WORDJUDGE_CONFIG=$work/config.toml
echo 2468 | $bin config set-pin >/dev/null

# The medians (ms) of one hyperfine run's commands, in order.
medians() { python3 -c 'import json, sys; print(" ".join("%.3f" % (r["median"] * 1000) for r in json.load(open(sys.argv[1]))["results"]))' "$1"; }
ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}")' "$1" "$2"; }
rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {print $6}'; }
echo "== the command line: $(ldd "$bin" | awk '{print $1}' | tr '\n' ' ')"
hyperfine -N --warmup 50 --runs 1000 --export-json "$work/version.json" "/bin/true" "$bin --version" >/dev/null
read -r t v <<<"$(medians "$work/version.json")"
echo "wordjudge --version: median ${v} ms, /bin/true ${t} ms: $(ratio "$v" "$t")x /bin/true (target: at most 2x)"
hyperfine -N --warmup 20 --runs 500 --export-json "$work/judge.json" "$bin judge --lexicon CSW15 QI ZA" \
  "grep -qxF QI $shared/CSW15.txt" "grep -qxF ZA $shared/CSW15.txt" >/dev/null
read -r j g1 g2 <<<"$(medians "$work/judge.json")"
echo "judge --lexicon CSW15 QI ZA: median ${j} ms; grep -qxF QI ${g1} ms + grep -qxF ZA ${g2} ms: $(ratio "$j" "$(python3 -c "print($g1 + $g2)")")x the two greps (target: at most 0.3x)"
echo "   peak RSS of judge: $(rss "$bin" judge --lexicon CSW15 QI ZA) kB"
# Through the shell (whose start hyperfine measures and subtracts) for the redirection:
# Debian 12's hyperfine has no --input.
hyperfine --warmup 2 --runs 20 --export-json "$work/each.json" \
  "$bin judge --lexicon CSW15 --each < $shared/CSW15.txt" "grep -cxFf $shared/CSW15.txt < $shared/CSW15.txt" >/dev/null
read -r e g <<<"$(medians "$work/each.json")"
echo "judge --each over all of CSW15 (276,663 words): median ${e} ms; grep -cxFf ${g} ms: $(ratio "$e" "$g")x"
echo "   peak RSS: judge --each $(rss "$bin" judge --lexicon CSW15 --each <"$shared/CSW15.txt") kB, grep -cxFf $(rss grep -cxFf "$shared/CSW15.txt" <"$shared/CSW15.txt") kB"
mkdir -p "$work/audit10k"
WORDJUDGE_AUDIT_LOG_OUT="$work/audit10k" cargo bench --locked -q --bench audit 2>/dev/null | tail -n 1
hyperfine -N --warmup 2 --runs 20 --export-json "$work/verify.json" "$bin audit verify --no-journal $work/audit10k" >/dev/null
echo "audit verify of a 10,000-record log: median $(medians "$work/verify.json") ms; peak RSS $(rss "$bin" audit verify --no-journal "$work/audit10k") kB"
# Where the judge's time goes: opening CSW15 verifies the bytes it judges
# with (SHA-256 of the .fst, against the digest pinned or recorded).
echo "   (the lexicon file: $(du -k "$lex/CSW15.fst" | cut -f1) kB; sha256sum of it: $(hyperfine -N --runs 200 --export-json "$work/sha.json" "sha256sum $lex/CSW15.fst" >/dev/null; medians "$work/sha.json") ms)"

echo "== kiosk under Xvfb, 1920x1080, every catalogue lexicon with a list here installed, CSW15 active"
Xvfb :77 -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
sleep 1
export DISPLAY=:77
for run in 1 2 3 4 5; do
  start=$(date +%s%N)
  "$kiosk" kiosk --windowed --gpio off --usb "folders:$work/sticks" > "$work/out.txt" 2>"$work/err.txt" &
  pid=$!
  until grep -q READY "$work/out.txt" 2>/dev/null; do sleep 0.005; kill -0 $pid || { cat "$work/err.txt"; exit 1; }; done
  ready=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "run $run: process start to READY: ${ready} ms"
  if [ $run -lt 5 ]; then kill $pid; wait $pid 2>/dev/null || true; fi
done
sleep 0.5
wid=$(xdotool search --name wordjudge | head -1)
xdotool windowactivate --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid"
echo "peak RSS at READY: $(grep VmHWM /proc/$pid/status)"
# The director PIN (Argon2's 19 MiB work buffer), then leave the menu.
xdotool key ctrl+alt+shift+d
xdotool type --delay 30 2468
xdotool key Return Escape
sleep 0.5
grep -q '"event":"pin_accepted"' "$work"/audit/*.jsonl || { echo "the director PIN was not accepted"; exit 1; }
echo "peak RSS after the director PIN (accepted; checked in a child process): $(grep VmHWM /proc/$pid/status)"
for n in $(seq 1 100); do
  xdotool type --delay 15 "2qi za"
  xdotool key Tab
  sleep 0.6
  xdotool key space
done
sleep 1
count=$(cat "$work"/audit/*.jsonl | grep -c '"words":\["QI","ZA"\]' || true)
[ "$count" -ge 100 ] && echo "kiosk answered keys: $count QI ZA adjudications in the audit log" || { echo "only $count adjudications recorded"; exit 1; }
echo "peak RSS of the running kiosk after 100 challenges: $(grep VmHWM /proc/$pid/status)"

# A director's USB stick: two whole lists read and compiled for the preview, one installed.
wait_for() { for _ in $(seq 1 600); do grep -q "$1" "$work/err.txt" && return 0; sleep 0.1; done; echo "no '$1' from the kiosk"; exit 1; }
mkdir -p "$work/sticks/usb1"
cp "$shared/CSW15.txt" "$shared/NWL2018.txt" "$work/sticks/usb1/"
xdotool key ctrl+alt+shift+d
xdotool type --delay 30 2468
xdotool key Return
sleep 1.5
# The menu's first page opens on Station status: the USB stick page is two
# down; it opens on Back, then Install, Export, Join.
xdotool key Down Down Return
sleep 0.5
xdotool key Down
start=$(date +%s%N)
xdotool key Return
wait_for "usb: import list ready"
echo "stick with CSW15.txt and NWL2018.txt read, compiled and previewed in $(( ($(date +%s%N) - start) / 1000000 )) ms"
xdotool key Down Return Return
wait_for "usb: installed NWL2018"
xdotool key Escape
wait_for "usb: ejected"
xdotool key Return
sleep 0.5
xdotool key Down Down Return
wait_for "usb: exported"
ls "$work/sticks/usb1/wordjudge/" | grep -q wordjudge-export- || { echo "no export folder on the stick"; exit 1; }
echo "peak RSS after the USB import (two lists previewed, one installed) and an export: $(grep VmHWM /proc/$pid/status); resident now: $(grep VmRSS /proc/$pid/status)"

# A hostile stick (issue 23): six lists of one 60 MB line (over the size cap)
# and six of one 12 MB line (under it: refused after the first KB).
xdotool key Escape
rm -rf "$work/sticks/usb1"
mkdir -p "$work/sticks/usb2"
for i in 1 2 3 4 5 6; do
  head -c 62914560 /dev/zero | tr '\0' 'A' > "$work/sticks/usb2/BIG$i.txt"
  head -c 12582912 /dev/zero | tr '\0' 'Q' > "$work/sticks/usb2/LONG$i.txt"
done
sleep 2
before=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
hwm_before=$(grep VmHWM /proc/$pid/status | awk '{print $2}')
# Back on the USB stick page, which now offers usb2 (its cursor on Back).
xdotool key Down
lists_before=$(grep -c "usb: import list ready" "$work/err.txt" || true)
start=$(date +%s%N)
xdotool key Return
peak=$before
for _ in $(seq 1 3000); do
  rss=$(grep VmRSS /proc/$pid/status | awk '{print $2}'); [ "$rss" -gt "$peak" ] && peak=$rss
  [ "$(grep -c "usb: import list ready" "$work/err.txt" || true)" -gt "$lists_before" ] && break
  sleep 0.01
done
echo "hostile stick (6 x one 60 MB line, 6 x one 12 MB line) previewed in $(( ($(date +%s%N) - start) / 1000000 )) ms; resident before ${before} kB, highest seen during the import ${peak} kB (+$(( (peak - before) / 1024 )) MB); VmHWM ${hwm_before} -> $(grep VmHWM /proc/$pid/status | awk '{print $2}') kB"
kill $pid; wait $pid 2>/dev/null || true
