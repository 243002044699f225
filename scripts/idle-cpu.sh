#!/usr/bin/env bash
# Benchmark 6 (docs/performance.md): idle CPU of the running app watching a large Claude home.
#
#   scripts/idle-cpu.sh [corpus dir] [app binary]
#
# Defaults: target/bench-corpus/s10000-5G-seed20261129-v4 (made by scripts/bench.sh) and
# target/debug/corral (built by the lead's `make`; this script builds nothing). Linux only; needs
# xvfb-run. The app runs with a temp HOME and data dir, CLAUDE_CONFIG_DIR and CORRAL_FLEET pointing
# into the corpus. The script waits until the initial scan is over (the app's CPU time stops
# growing for 10 s), then reads utime + stime of the app and of each of its child processes
# (WebKit) from /proc/<pid>/stat over two 30-second windows. Only the processes it started are
# measured and stopped.
set -euo pipefail

cd "$(dirname "$0")/.."
corpus="${1:-target/bench-corpus/s10000-5G-seed20261129-v4}"
app_bin="${2:-target/debug/corral}"
[[ -d "$corpus/claude" ]] || { echo "no corpus at $corpus (run scripts/bench.sh first)" >&2; exit 2; }
[[ -x "$app_bin" ]] || { echo "no app binary at $app_bin" >&2; exit 2; }
corpus="$(cd "$corpus" && pwd)"
app_bin="$(cd "$(dirname "$app_bin")" && pwd)/$(basename "$app_bin")"

tmp="$(mktemp -d)"
mkdir -p "$tmp/home" "$tmp/data"
fleet=()
[[ -f "$corpus/fleet/herdctl.yaml" ]] && fleet=(CORRAL_FLEET="$corpus/fleet/herdctl.yaml")
env HOME="$tmp/home" CORRAL_DATA_DIR="$tmp/data" CLAUDE_CONFIG_DIR="$corpus/claude" "${fleet[@]}" \
  xvfb-run -a "$app_bin" >"$tmp/app.log" 2>&1 &
xvfb=$!

app=""
for _ in $(seq 1 60); do
  app="$(pgrep -P "$xvfb" -x "$(basename "$app_bin")" || true)"
  [[ -n "$app" ]] && break
  sleep 1
done
[[ -n "$app" ]] || { echo "the app did not start; see $tmp/app.log" >&2; kill "$xvfb" 2>/dev/null; exit 1; }
cleanup() { kill "$app" 2>/dev/null || true; sleep 2; kill "$xvfb" 2>/dev/null || true; }
trap cleanup EXIT

ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
tree() { echo "$app" $(pgrep -P "$app" || true); }
total() { local s=0; for p in $(tree); do s=$((s + $(ticks "$p" 2>/dev/null || echo 0))); done; echo "$s"; }

start=$(date +%s); prev=-1; stable=0
while (( stable < 2 )); do
  sleep 5
  t=$(total)
  echo "$(( $(date +%s) - start )) s: $t ticks (initial scan)"
  if (( prev >= 0 && t - prev <= 2 )); then stable=$((stable + 1)); else stable=0; fi
  prev=$t
  (( $(date +%s) - start < 1800 )) || { echo "the app never went idle" >&2; exit 1; }
done

hz=$(getconf CLK_TCK)
for w in 1 2; do
  declare -A before=()
  for p in $(tree); do before[$p]=$(ticks "$p"); done
  sleep 30
  sum=0
  for p in "${!before[@]}"; do
    d=$(( $(ticks "$p" 2>/dev/null || echo "${before[$p]}") - before[$p] ))
    sum=$((sum + d))
    echo "  window $w: pid $p ($(cat "/proc/$p/comm" 2>/dev/null || echo gone)): $d ticks"
  done
  awk -v s="$sum" -v hz="$hz" -v w="$w" \
    'BEGIN { printf "window %d: %d ticks in 30 s = %.2f%% of one core (app + WebKit processes)\n", w, s, 100 * s / hz / 30 }'
  unset before
done
