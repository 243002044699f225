# Corral — developer and CI entry points. `make help` lists the targets.
#
# Rust, Node (npm) and Python 3 are assumed; `make deps` adds the rest (Debian/Ubuntu packages for
# Tauri/WebKitGTK/Xvfb, the UI's node_modules, tauri-driver and Selenium for the e2e suite).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

ROOT  := $(CURDIR)
TOOLS := $(ROOT)/.tools
VENV  := $(TOOLS)/venv
TAURI_DRIVER := $(TOOLS)/bin/tauri-driver
CARGO_DENY := $(TOOLS)/bin/cargo-deny
# Cargo's output dir (CARGO_TARGET_DIR when set, else target/).
CARGO_OUT := $(or $(CARGO_TARGET_DIR),$(ROOT)/target)
APP   := $(CARGO_OUT)/debug/corral
SUDO  := $(if $(filter 0,$(shell id -u)),,sudo)

# What the shell needs to build (GTK/WebKitGTK 4.1) and what the e2e suite needs to run (xdotool and
# PyGObject drive a real drag from a GTK window), plus the fonts transcripts need on Linux (CJK text
# and emoji written in them; the packaged app recommends the same two), and tmux (the conformance
# suite runs the real Claude Code interactively in it).
APT_PACKAGES := build-essential pkg-config curl wget file libssl-dev libgtk-3-dev \
  libwebkit2gtk-4.1-dev libjavascriptcoregtk-4.1-dev libsoup-3.0-dev librsvg2-dev \
  libayatana-appindicator3-dev libxdo-dev xvfb xauth imagemagick x11-apps webkit2gtk-driver \
  dbus-daemon dbus-x11 at-spi2-core fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji python3-venv xdotool \
  python3-gi gir1.2-gtk-3.0 tmux

XVFB := xvfb-run -a -s "-screen 0 1920x1080x24"
# A desktop as people have one: a display and a session bus (D-Bus) of its own, so that the e2e
# suite's and the benchmarks' figures are a desktop's. `make bench-launch` runs with no bus.
DESKTOP := dbus-run-session -- $(XVFB)

.PHONY: help deps deps-apt deps-ui deps-e2e ui build run e2e test fmt-check clippy doc-check test-engine \
  test-shell check-ui deny test-ui bindings icons bench bench-quick bench-ui bench-ui-smoke bench-launch bundle \
  conformance deps-claude-code prices

help:
	@echo "make deps      install what is missing (apt packages, ui/node_modules, tauri-driver, selenium, the pinned Claude Code)"
	@echo "make ui        build the UI into ui/dist"
	@echo "make build     build the UI and the debug app (target/debug/corral)"
	@echo "make run       build, then open the app on your real Claude home"
	@echo "make e2e       end-to-end tests of the real window under Xvfb (screenshots: target/e2e-screenshots/)"
	@echo "make conformance  Corral against the real Claude Code (pinned; CLAUDE_CODE_VERSION=latest tries the newest)"
	@echo "make test      everything CI runs: deps, fmt, clippy, docs, engine/shell/UI tests, e2e"
	@echo "make bench     performance benchmarks (docs/performance.md); make bench-quick for a smoke run"
	@echo "make bench-ui  the app at 10,000 sessions through WebDriver (docs/performance.md); bench-ui-smoke is in make test"
	@echo "make bench-launch  the app started 20 times with no session bus: the spread, and no bus started"
	@echo "make bindings  regenerate the TypeScript bindings in ui/src/lib/bindings"
	@echo "make icons     regenerate icons/ from scripts/icon.svg"
	@echo "make prices    regenerate the bundled price table from the pinned genai-prices package"
	@echo "make bundle    release installers with the Tauri CLI (BUNDLES=deb by default; appimage also configured)"

# ---- dependencies (idempotent, quiet when present) ----

deps: deps-apt deps-ui deps-e2e deps-claude-code $(CARGO_DENY)

deps-apt:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing apt packages:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-ui: ui/node_modules/.package-lock.json

ui/node_modules/.package-lock.json: ui/package.json ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps-e2e: $(TAURI_DRIVER) $(VENV)/.installed

$(TAURI_DRIVER):
	cargo install tauri-driver --version '^2.1' --locked --root $(TOOLS)

$(CARGO_DENY):
	cargo install cargo-deny --version '^0.20' --locked --root $(TOOLS)

$(VENV)/.installed: tests/e2e/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/e2e/requirements.txt
	@touch $@

# ---- build and run ----

ui: deps-ui
	cd ui && npm run build --silent

build: ui
	cargo build -p corral

run: build
	$(APP)

# ---- tests ----

e2e: deps-e2e deps-claude-code build
	cargo build -p corral-cli
	CORRAL_APP=$(APP) CORRAL_CLI=target/debug/corral-cli CLAUDE_CODE_BIN=$(TOOLS)/claude-code/bin/claude \
	  $(DESKTOP) $(VENV)/bin/python tests/e2e/run_e2e.py

# The real Claude Code, pinned in tests/conformance/CLAUDE_CODE_VERSION (`latest`: the newest on npm),
# installed once per machine into a cache outside the repository ($(CLAUDE_CODE_CACHE)/<version>/,
# never committed; each version installed into a temp folder, then renamed into place, so two clones
# installing at once do not mix), run offline against the stand-in API of tests/conformance/standin.py.
CLAUDE_CODE_VERSION ?= $(shell cat tests/conformance/CLAUDE_CODE_VERSION)
CLAUDE_CODE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/corral-dev/claude-code
CLAUDE_CODE_PLATFORM := $(shell node -p 'process.platform + "-" + process.arch' 2>/dev/null)

deps-claude-code:
	@v="$(CLAUDE_CODE_VERSION)"; \
	if [ "$$v" = latest ]; then v=$$(npm view @anthropic-ai/claude-code version); fi; \
	dir="$(CLAUDE_CODE_CACHE)/$$v"; \
	bin="$$dir/node_modules/@anthropic-ai/claude-code-$(CLAUDE_CODE_PLATFORM)/claude"; \
	if [ ! -x "$$bin" ]; then \
	  echo "installing Claude Code $$v into $$dir"; \
	  tmp="$$dir.tmp.$$$$"; rm -rf "$$tmp"; mkdir -p "$$tmp" && \
	  npm install --no-audit --no-fund --loglevel=error --prefix "$$tmp" "@anthropic-ai/claude-code@$$v" >/dev/null && \
	  { mv -T "$$tmp" "$$dir" 2>/dev/null || rm -rf "$$tmp"; }; \
	fi; \
	test -x "$$bin" || { echo "Claude Code $$v did not install: $$bin is missing"; exit 1; }; \
	mkdir -p "$(TOOLS)/claude-code/bin" && ln -sfn "$$bin" "$(TOOLS)/claude-code/bin/claude"

conformance: deps-claude-code
	cargo build -q -p corral-cli
	rm -rf target/conformance/formats
	cd tests/conformance && CLAUDE_CODE_BIN=$(TOOLS)/claude-code/bin/claude CORRAL_CLI=$(CARGO_OUT)/debug/corral-cli \
	  python3 -m unittest discover -s . -v && \
	  CLAUDE_CODE_BIN=$(TOOLS)/claude-code/bin/claude CORRAL_CLI=$(CARGO_OUT)/debug/corral-cli python3 drift.py

# The UI benchmark's smoke run: 1,000 generated sessions, loose bounds; fails when the list is blank
# after a fast scroll (tests/e2e/bench_ui.py).
bench-ui-smoke: deps-e2e build
	cargo build -p corral-cli
	CORRAL_APP=$(APP) CORRAL_CLI=target/debug/corral-cli $(DESKTOP) $(VENV)/bin/python tests/e2e/bench_ui.py --smoke

fmt-check:
	cargo fmt --all -- --check

# The shell embeds ui/dist at compile time, so the UI is built before anything compiles it.
clippy: ui
	cargo clippy --workspace --all-targets -- -D warnings

# Every doc comment's links resolve and its markup is valid (warnings fail).
doc-check: ui
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

test-engine:
	cargo test -p corral-engine -p corral-synthetic -p corral-cli --all-features

test-shell: ui
	cargo test -p corral

# Licenses, banned sources and duplicate versions of every dependency (deny.toml). The advisories
# check needs the RustSec database from a git host this machine cannot reach: not run here.
deny: $(CARGO_DENY)
	$(CARGO_DENY) deny --log-level error check licenses bans sources

# TypeScript and Svelte type errors fail CI, so does UI code prettier would change (`npm run format`
# fixes it), and so does demo code in the production bundle.
check-ui: ui
	cd ui && npm run --silent check -- --fail-on-warnings
	cd ui && npm run --silent format:check
	@if grep -rlq "Demo backend does not know" ui/dist; then \
	  echo "ui/dist holds the development demo backend"; exit 1; fi

test-ui: deps-ui
	@if node -e "process.exit(require('./ui/package.json').scripts?.test ? 0 : 1)"; then \
	  cd ui && npm test --silent; \
	else echo "ui/package.json has no test script; skipping UI tests"; fi

# Every check runs even when an earlier one fails (one CI run shows all problems); the target fails
# at the end, naming the checks that failed.
TEST_STEPS := fmt-check clippy doc-check deny test-engine test-shell check-ui test-ui conformance e2e bench-ui-smoke

test: deps
	@failed=""; \
	for step in $(TEST_STEPS); do \
	  echo "==> make $$step"; \
	  $(MAKE) $$step || failed="$$failed $$step"; \
	done; \
	if [ -n "$$failed" ]; then echo "==> FAILED:$$failed"; exit 1; fi; \
	echo "==> all checks passed"

# ---- benchmarks (not part of make test) ----

bench:
	scripts/bench.sh

bench-quick:
	scripts/bench.sh --quick

# The app on a generated home of 10,000 sessions / 3 GB (made once into target/bench-ui-home), through
# WebDriver as the e2e suite drives it: the UI table in docs/performance.md (tests/e2e/bench_ui.py).
# The app measured is a release build, as people run it: a dev build's engine lists the cold
# 10,000-session home in 3.1 s against 1.7 s released. The smoke run keeps the dev build.
bench-ui: deps-e2e ui
	cargo build --release -p corral -p corral-cli
	CORRAL_APP=$(CARGO_OUT)/release/corral CORRAL_CLI=$(CARGO_OUT)/release/corral-cli $(DESKTOP) $(VENV)/bin/python tests/e2e/bench_ui.py

# The release app started 20 times where there is no session bus (a minimal window manager, ssh -X,
# a container): the spread of its starts and the buses it asked for, none (tests/e2e/bench_launch.py).
bench-launch: deps-e2e ui
	cargo build --release -p corral -p corral-cli
	env -u DBUS_SESSION_BUS_ADDRESS CORRAL_APP=$(CARGO_OUT)/release/corral CORRAL_CLI=$(CARGO_OUT)/release/corral-cli \
	  $(XVFB) $(VENV)/bin/python tests/e2e/bench_launch.py

# ---- generated files ----

bindings: ui
	UPDATE_BINDINGS=1 cargo test -p corral --lib bindings

# The price table (engine `pricing`) from genai-prices' data. Pinned: a new table is a reviewed
# commit, never a fetch at run time.
GENAI_PRICES_VERSION := 0.2.5
prices: $(VENV)/.installed
	$(VENV)/bin/pip install -q genai-prices==$(GENAI_PRICES_VERSION)
	$(VENV)/bin/python scripts/update-prices.py

icons: scripts/node_modules/.package-lock.json
	scripts/node_modules/.bin/tauri icon scripts/icon.svg -o icons
	rm -rf icons/android icons/ios

BUNDLES ?= deb

scripts/node_modules/.package-lock.json: scripts/package.json scripts/package-lock.json
	cd scripts && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

bundle: ui scripts/node_modules/.package-lock.json
	scripts/node_modules/.bin/tauri build --bundles $(BUNDLES) -- --profile dist
