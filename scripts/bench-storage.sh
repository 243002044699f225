#!/usr/bin/env bash
# The Storage view's figures for a home of 10,000 sessions, as a person meets them: the whole
# `corral-cli storage` process, warm (the listing index made, the files in the page cache), wall
# time and peak memory, median of 5 runs. Each session keeps a hook environment, copies of edited
# files and a debug log beside its transcript, as a real home does; 500 sessions are gone and left
# theirs behind. The figures go in docs/performance.md.
#
#   scripts/bench-storage.sh [sessions (10000)] [size (1G)]
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${1:-10000}
SIZE=${2:-1G}
ROUNDS=${CORRAL_BENCH_RUNS:-5}
DIR=${CORRAL_BENCH_DIR:-target/bench-storage}
CLI=target/release/corral-cli
cargo build -q --release -p corral-cli
rm -rf "$DIR"
mkdir -p "$DIR"
"$CLI" generate --out "$DIR/gen" --sessions "$SESSIONS" --size "$SIZE" --huge-files 0 --long-line 0 --json >/dev/null
HOME_DIR="$DIR/gen/claude"
mkdir -p "$HOME_DIR/debug"
n=0
for t in "$HOME_DIR"/projects/*/*.jsonl; do
  sid=$(basename "$t" .jsonl)
  mkdir -p "$HOME_DIR/session-env/$sid" "$HOME_DIR/file-history/$sid"
  printf 'v1\n' > "$HOME_DIR/file-history/$sid/a1b2c3d4@v1"
  printf 'debug\n' > "$HOME_DIR/debug/$sid.txt"
  n=$((n + 1))
  # Every 20th session is gone: its transcript deleted by hand, its leftovers still there.
  if [ $((n % 20)) -eq 0 ]; then rm "$t"; fi
done
find "$HOME_DIR/session-env" "$HOME_DIR/file-history" "$HOME_DIR/debug" -exec touch -d '3 days ago' {} +
G=(--claude-home "$HOME_DIR" --data-dir "$DIR/data" --json)
"$CLI" "${G[@]}" sessions --limit 1 >/dev/null  # the listing index, as an app that ran once has it
"$CLI" "${G[@]}" storage >/dev/null             # the page cache
echo "home: $(du -sh "$HOME_DIR" | cut -f1), $(find "$HOME_DIR/projects" -name '*.jsonl' | wc -l) transcripts"
"$CLI" "${G[@]}" storage | python3 -c 'import json,sys; r=json.load(sys.stdin); print("report:", r["totalBytes"], "bytes,", r["orphanedSessions"], "gone sessions with leftovers")'
times=(); peaks=()
for r in $(seq "$ROUNDS"); do
  m=$(/usr/bin/time -f "%e %M" "$CLI" "${G[@]}" storage 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f %.0f\n", $1, $2/1024}')
  echo "run $r: ${m% *} s (${m#* } MB peak)"
  times+=("${m% *}"); peaks+=("${m#* }")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median of $ROUNDS: $(median "${times[@]}") s, $(median "${peaks[@]}") MB peak (target: 1 s warm)"
