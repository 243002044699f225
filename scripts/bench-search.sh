#!/usr/bin/env bash
# Full-text search benchmark (the search rows of docs/performance.md).
#
#   scripts/bench-search.sh     SESSIONS=2000 SIZE=800M by default (CORRAL_BENCH_SEARCH_SESSIONS,
#                               CORRAL_BENCH_SEARCH_SIZE override; the target corpus is
#                               10000 / 5G, about 12 GB of disk with its index)
#
# With a release corral-cli on a generated, deterministic corpus it measures: the full build
# (`index --rebuild`: wall time, peak memory), the index size against the transcript bytes, an
# incremental update after 1 MB is appended, and queries of one to three words, a phrase, a prefix
# and filters: each as the engine's own time (`tookMs`, in the process) and as a whole
# `corral-cli search --json` process, warm, 20 runs each (p50 / p95).
#
# The generator's vocabulary is a hundred words, each in nearly every session: the worst case for
# a query, and not what people type. So that ordinary queries are measured too, the script plants
# four words once (a prompt appended to chosen sessions): `plantone` in one session, `plantrare`
# in 0.1% of them, `plantsome` in 1%, `plantmany` in 10%.
set -euo pipefail
cd "$(dirname "$0")/.."

sessions=${CORRAL_BENCH_SEARCH_SESSIONS:-2000}
size=${CORRAL_BENCH_SEARCH_SIZE:-800M}
runs=${CORRAL_BENCH_SEARCH_RUNS:-20}
dir=${CORRAL_BENCH_DIR:-$PWD/target/bench-corpus}/search-$sessions-$size
cli=target/release/corral-cli

cargo build --release -q -p corral-cli
if [[ ! -d $dir/claude ]]; then
  rm -rf "$dir"
  "$cli" generate --out "$dir" --sessions "$sessions" --size "$size" --with-fleet --json >/dev/null
fi
args=(--claude-home "$dir/claude" --fleet "$dir/fleet/herdctl.yaml" --data-dir "$dir/data")
if [[ ! -f $dir/planted ]]; then
  python3 - "$dir/claude/projects" <<'PY'
import json, pathlib, sys, uuid
root = pathlib.Path(sys.argv[1])
mains = sorted(p for p in root.glob("*/*.jsonl") if not p.name.startswith("agent-"))
def plant(path, word):
    first = None
    with path.open("rb") as f:
        for l in f:
            if b'"type":"user"' in l:
                try:
                    first = json.loads(l)
                    break
                except ValueError:
                    continue
    if not isinstance(first, dict):
        return
    line = {"type": "user", "sessionId": first.get("sessionId"), "cwd": first.get("cwd"),
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, str(path) + word)),
            "timestamp": first.get("timestamp"),
            "message": {"role": "user", "content": f"please look at the {word} report again"}}
    with path.open("a") as f:
        f.write(json.dumps(line) + "\n")
n = len(mains)
for word, every in (("plantone", n), ("plantrare", 1000), ("plantsome", 100), ("plantmany", 10)):
    for p in mains[::max(1, min(every, n))][: max(1, n // every)]:
        plant(p, word)
PY
  touch "$dir/planted"
fi
bytes=$(du -sb "$dir/claude/projects" | cut -f1)
echo "corpus: $sessions sessions, $((bytes / 1024 / 1024)) MB of transcripts ($(nproc) cores)"

# The listing index is built first, so the build below measures the search index alone.
"$cli" "${args[@]}" sessions --json >/dev/null
# Peak memory is sampled from /proc: anonymous memory (what the build allocates) apart from
# mapped index files (page cache the kernel can drop, which a plain peak RSS counts too).
start=$(date +%s%N)
"$cli" "${args[@]}" --json index --rebuild >"$dir/build.json" 2>/dev/null &
pid=$!
anon=0 mapped=0
while kill -0 "$pid" 2>/dev/null; do
  read -r a f < <(awk '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {print a+0, f+0}' "/proc/$pid/status" 2>/dev/null || echo "0 0")
  ((a > anon)) && anon=$a
  ((f > mapped)) && mapped=$f
  sleep 0.1
done
wait "$pid"
wall=$((($(date +%s%N) - start) / 1000000))
index_bytes=$(du -sb "$dir"/data/search-v* | cut -f1)
echo "full build: $((wall / 1000)).$((wall % 1000 / 100)) s wall, peak $((anon / 1024)) MB anonymous + $((mapped / 1024)) MB mapped files;" \
  "index $((index_bytes / 1024 / 1024)) MB =" \
  "$(awk -v a="$index_bytes" -v b="$bytes" 'BEGIN { printf "%.1f", 100 * a / b }')% of the transcripts"

# 1 MB appended to one transcript, then an update.
victim=$(find "$dir/claude/projects" -name '*.jsonl' -size +100k | sort | sed -n 1p)
cp "$victim" "$dir/victim.bak"
line=$(grep -m1 '"type":"user"' "$victim")
for _ in $(seq 1 $((1024 * 1024 / (${#line} + 1)))); do echo "$line"; done >>"$victim"
/usr/bin/time -f '%e' -o "$dir/append.time" "$cli" "${args[@]}" --json index >"$dir/append.json" 2>/dev/null
echo "1 MB appended, then update: $(cat "$dir/append.time") s (whole process, includes the listing)"
cp "$dir/victim.bak" "$victim"
"$cli" "${args[@]}" --json index >/dev/null 2>&1
# One line appended to the largest transcript: the update checks that every byte read before is
# unchanged (a CRC of the whole file) before it reads the line.
largest=$(find "$dir/claude/projects" -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
cp "$largest" "$dir/largest.bak"
echo "$line" >>"$largest"
/usr/bin/time -f '%e' -o "$dir/append-largest.time" "$cli" "${args[@]}" --json index >/dev/null 2>&1
echo "a line appended to the largest transcript ($(($(stat -c %s "$largest") / 1024 / 1024)) MB), then update:" \
  "$(cat "$dir/append-largest.time") s (whole process)"
cp "$dir/largest.bak" "$largest"
"$cli" "${args[@]}" --json index >/dev/null 2>&1

# Query words that occur in the corpus: the most common words of one transcript.
words=$(grep -o '"text":"[^"]*"' "$victim" | sed -n 1,200p | tr -c 'A-Za-z\n' ' ' | tr 'A-Z' 'a-z' |
  tr ' ' '\n' | awk 'length($0) > 4' | sort | uniq -c | sort -rn | awk 'NR <= 6 {print $2}' | tr '\n' ' ')
read -r w1 w2 w3 w4 _ <<<"$words"
queries=(plantone plantrare plantsome plantmany "plantsome report" "\"the plantsome report\"" "plant*"
  "plantmany role:user" "plantmany after:2026-01-01"
  "$w1" "$w1 $w2" "$w1 $w2 $w3" "\"$w1 $w2\"" "${w4:0:4}*" "$w1 role:user" "$w2 tool:bash" "$w1 after:2026-01-01")

pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int((NR - 1) * p / 100) + 1; print a[i] }'; }
printf '%-28s %14s %14s %10s\n' query "engine p50/p95" "process p50/p95" sessions
for q in "${queries[@]}"; do
  engine=()
  process=()
  for _ in $(seq 1 "$runs"); do
    start=$(date +%s%N)
    out=$("$cli" "${args[@]}" --json search "$q" --limit 50 2>/dev/null)
    end=$(date +%s%N)
    process+=($(((end - start) / 1000000)))
    engine+=("$(grep -o '"tookMs": [0-9]*' <<<"$out" | grep -o '[0-9]*$')")
  done
  found=$(grep -o '"totalSessions": [0-9]*' <<<"$out" | grep -o '[0-9]*$')
  e50=$(printf '%s\n' "${engine[@]}" | pct 50)
  e95=$(printf '%s\n' "${engine[@]}" | pct 95)
  p50=$(printf '%s\n' "${process[@]}" | pct 50)
  p95=$(printf '%s\n' "${process[@]}" | pct 95)
  printf '%-28s %9s/%-4s ms %9s/%-4s ms %10s\n' "$q" "$e50" "$e95" "$p50" "$p95" "$found"
done
