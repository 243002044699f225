#!/usr/bin/env bash
# Deleting and restoring 1,000 sessions (about 500 MB with what they left behind) on one
# filesystem, as a person meets it: the whole `corral-cli delete` and `corral-cli undo` processes,
# wall time and peak memory, median of 5 rounds (each round deletes everything, then undoes it,
# and checks the tree came back byte for byte). The figures go in docs/performance.md.
#
#   scripts/bench-delete.sh [sessions (1000)] [size (450M)]
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${1:-1000}
SIZE=${2:-450M}
ROUNDS=${CORRAL_BENCH_RUNS:-5}
DIR=${CORRAL_BENCH_DIR:-target/bench-delete}
CLI=target/release/corral-cli
cargo build -q --release -p corral-cli
rm -rf "$DIR"
mkdir -p "$DIR"
"$CLI" generate --out "$DIR/gen" --sessions "$SESSIONS" --size "$SIZE" --huge-files 0 --long-line 0 --json >/dev/null
HOME_DIR="$DIR/gen/claude"
# What a real home keeps beside each transcript: its hook environment and copies of edited files.
for t in "$HOME_DIR"/projects/*/*.jsonl; do
  sid=$(basename "$t" .jsonl)
  mkdir -p "$HOME_DIR/session-env/$sid" "$HOME_DIR/file-history/$sid"
  head -c 40000 "$t" > "$HOME_DIR/file-history/$sid/a1b2c3d4@v1"
done
G=(--claude-home "$HOME_DIR" --data-dir "$DIR/data" --json)
"$CLI" "${G[@]}" sessions --limit 1 >/dev/null  # the listing index, as an app that ran once has it
digest() { (cd "$HOME_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
before=$(digest)
echo "home: $(du -sh "$HOME_DIR" | cut -f1), $(find "$HOME_DIR/projects" -name '*.jsonl' | wc -l) transcripts"
measure() {  # prints "<seconds> <peak MB>" of one command
  /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f %.0f\n", $1, $2/1024}'
}
dels=(); undos=()
for r in $(seq "$ROUNDS"); do
  d=$(measure "$CLI" "${G[@]}" delete --larger-than 0)
  run=$("$CLI" "${G[@]}" runs | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["runId"])')
  u=$(measure "$CLI" "${G[@]}" undo "$run")
  [ "$(digest)" = "$before" ] || { echo "round $r: the tree did not come back byte for byte" >&2; exit 1; }
  echo "round $r: delete ${d% *} s (${d#* } MB peak), undo ${u% *} s (${u#* } MB peak)"
  dels+=("${d% *}"); undos+=("${u% *}")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median of $ROUNDS: delete $(median "${dels[@]}") s, undo $(median "${undos[@]}") s (target: 2 s each)"
