#!/usr/bin/env bash
# Screenshots of every view, light and dark, from the demo backend (no Tauri needed).
# Usage: scripts/screenshots.sh [OUT_DIR]   (needs `chromium`; Debian: apt-get install chromium)
#        SHOTS=desktop scripts/screenshots.sh   only the shots whose name contains "desktop"
# The demo backend exists only in dev and `--mode demo` builds, so this builds one of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-../target/ui-screenshots}
mkdir -p "$out"
port=4179
demo_dist=../target/ui-demo-dist
node_modules/.bin/vite build --mode demo --outDir "$demo_dist" --emptyOutDir >/dev/null
node_modules/.bin/vite preview --outDir "$demo_dist" --port $port --strictPort >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -sf "http://localhost:$port/" >/dev/null && break; sleep 0.2; done
base="http://localhost:$port"
shots=(
  "fleet|/#view=fleet&expand=team.alpha"
  "all-chats|/#view=chats&open=7f3c2a10"
  "transcript-rewind|/#view=chats&open=7f3c2a10&at=6000&panels=rewound,usage"
  "all-chats-10k|/?demo=scale#view=chats"
  "all-chats-search|/#view=chats&q=deploy"
  "no-claude-home|/?demo=empty#view=chats"
  "no-fleet|/?demo=nofleet#view=fleet"
  "import|/#view=import"
  "history|/#view=history"
  "settings|/#view=settings"
  "desktop|/#view=desktop"
  "desktop-none|/?demo=empty#view=desktop"
  "desktop-restore-1-preview|/#view=desktop&restore=1"
  "desktop-restore-2-confirm|/#view=desktop&restore=2"
  "desktop-restore-3-result|/#view=desktop&restore=3"
  "drop-overlay|/#view=fleet&overlay=1&agent=team.alpha"
  "wizard-1-where|/#view=fleet&wizard=1"
  "wizard-2-what|/#view=fleet&wizard=2&agent=team.alpha&paths=/home/ada/backup/projects/-home-ada-src-old,/home/ada/Downloads/notes.txt"
  "wizard-3-preview|/#view=fleet&wizard=3&agent=team.alpha&paths=/home/ada/backup/projects/-home-ada-src-old,/home/ada/Downloads/notes.txt"
  "wizard-4-how|/#view=fleet&wizard=4&agent=team.alpha&paths=/home/ada/backup/projects/-home-ada-src-old"
  "wizard-5-confirm|/#view=fleet&wizard=5&agent=team.alpha&paths=/home/ada/backup/projects/-home-ada-src-old"
  "wizard-6-result|/#view=fleet&wizard=6&agent=team.alpha&paths=/home/ada/backup/projects/-home-ada-src-old"
)
for s in "${shots[@]}"; do
  name=${s%%|*}
  url=$base${s#*|}
  [[ -n ${SHOTS:-} && $name != *"$SHOTS"* ]] && continue
  for scheme in light dark; do
    extra=()
    [ $scheme = dark ] && extra=(--force-dark-mode --blink-settings=preferredColorScheme=0)
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
      --disable-sync --no-first-run --user-data-dir="$(mktemp -d)" "${extra[@]}" --virtual-time-budget=5000 \
      --screenshot="$out/$name-$scheme.png" --window-size=1200,800 "$url" >/dev/null 2>&1 || echo "failed: $name ($scheme)"
  done
done
echo "screenshots in $out"
