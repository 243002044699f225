#!/usr/bin/env bash
# Corral listing benchmarks: reproduces the table in docs/performance.md.
#
#   scripts/bench.sh            full run: 5,000-session / ~2 GB corpus, 1 GB transcript page,
#                               10,000-session / ~5 GB corpus (about 12 GB of disk for corpora)
#   scripts/bench.sh --quick    smoke run: 500 sessions / 200 MB, 64 MB page, no large corpus
#
# Environment overrides: CORRAL_BENCH_RUNS (default 5), CORRAL_BENCH_SESSIONS, CORRAL_BENCH_SIZE,
# CORRAL_BENCH_LARGE=0, CORRAL_BENCH_LARGE_SESSIONS, CORRAL_BENCH_LARGE_SIZE,
# CORRAL_BENCH_PAGE_SIZE, CORRAL_BENCH_DIR (default target/bench-corpus, whatever CARGO_TARGET_DIR is).
#
# Corpora are generated once (deterministic, seeded) and reused; delete target/bench-corpus to
# regenerate. Results: stdout, target/bench-results.md and target/bench-results.json.
set -euo pipefail

cd "$(dirname "$0")/.."

case "${1:-}" in
  --quick) export CORRAL_BENCH_QUICK=1 ;;
  "") ;;
  -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
  *) echo "usage: scripts/bench.sh [--quick]" >&2; exit 2 ;;
esac

if [[ "$(uname -s)" != "Linux" ]]; then
  echo "note: peak-memory figures (VmHWM) are only available on Linux" >&2
fi

# Corpora stay in the repo's target/bench-corpus even when CARGO_TARGET_DIR points elsewhere.
export CORRAL_BENCH_DIR="${CORRAL_BENCH_DIR:-$PWD/target/bench-corpus}"

echo "machine: $(nproc) cores, $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GB RAM"}')" >&2
exec cargo bench -p corral-engine --bench listing
