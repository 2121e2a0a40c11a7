#!/usr/bin/env bash
# Whole-process figures that criterion cannot take from inside a process:
#  - `wordjudge judge --lexicon CSW15 QI ZA`: wall time (hyperfine) and peak RSS (/usr/bin/time -v);
#  - the kiosk under Xvfb (winit, software renderer, 1920x1080) with three lexicons installed
#    (CSW15, TWL2016 built from NWL2018, OSPD4+MW11): process start to READY, a challenge typed
#    with xdotool and found in the audit log, and peak RSS (VmHWM).
# Needs ../shared/lexicons; installs xvfb, xdotool, hyperfine and time when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/lexicons
[ -d "$shared" ] || { echo "SKIPPED: $shared not found"; exit 0; }
bash .ci/install-deps --desktop
for p in xvfb xdotool hyperfine time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null
done
cargo build --release --locked -q
bin=$PWD/target/release/wordjudge
work=$(mktemp -d /var/tmp/wordjudge-process.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
lex=$work/lexicons; mkdir -p "$lex"
# CSW15 is official and pinned: installed by its word file alone. NWL2018 is
# put in place as TWL2016 with `build --out` (install would refuse it): it is
# a Mismatch. The OSPD4/MW11 stand-ins go in under the layer names.
$bin --lexicons "$lex" lexicon install "$shared/CSW15.txt" >/dev/null
$bin lexicon build "$shared/NWL2018.txt" --out "$lex/TWL2016.fst" >/dev/null
$bin lexicon build "$shared/OSPD4-upto8.txt" --out "$lex/OSPD4.fst" >/dev/null
$bin lexicon build "$shared/TWL06.txt" --out "$lex/MW11-long.fst" >/dev/null
cat > "$work/config.toml" <<TOML
station_name = "Bench"
lexicon_dir = "$lex"
active_lexicon = "CSW15"
audit_dir = "$work/audit"
TOML
export WORDJUDGE_CONFIG=$work/config.toml
echo "== judge QI ZA with CSW15 (whole process)"
hyperfine -N --warmup 5 --runs 200 "$bin judge --lexicon CSW15 QI ZA" 2>&1 | grep -E 'Time|Range'
/usr/bin/time -v "$bin" judge --lexicon CSW15 QI ZA 2>&1 | grep -E 'ACCEPTABLE|Maximum resident'

echo "== kiosk under Xvfb, 1920x1080, three lexicons installed, CSW15 active"
Xvfb :77 -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
sleep 1
export DISPLAY=:77
for run in 1 2 3 4 5; do
  start=$(date +%s%N)
  "$bin" kiosk --windowed --gpio off > "$work/out.txt" 2>"$work/err.txt" &
  pid=$!
  until grep -q READY "$work/out.txt" 2>/dev/null; do sleep 0.005; kill -0 $pid || { cat "$work/err.txt"; exit 1; }; done
  ready=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "run $run: process start to READY: ${ready} ms"
  if [ $run -lt 5 ]; then kill $pid; wait $pid 2>/dev/null || true; fi
done
sleep 0.5
wid=$(xdotool search --name wordjudge | head -1)
xdotool windowactivate --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid"
xdotool type --delay 30 "2qi za"
xdotool key Tab
sleep 1
grep -h '"words":\["QI","ZA"\]' "$work"/audit/* >/dev/null && echo "kiosk answered keys: the QI ZA adjudication is in the audit log" || { echo "no adjudication recorded"; exit 1; }
echo "peak RSS of the running kiosk: $(grep VmHWM /proc/$pid/status)"
kill $pid; wait $pid 2>/dev/null || true
