#!/usr/bin/env python3
"""UI benchmark: the real app on a generated home, driven through WebDriver as the e2e suite drives
it, measured as a person meets it (`make bench-ui`; `make bench-ui-smoke` is part of `make test`).

    bench_ui.py [--smoke] [--runs N] [--home DIR]

Full run: a home of 10,000 sessions / 3 GB with a fleet (`corral-cli generate --sessions 10000
--size 3G --with-fleet`, made once into target/bench-ui-home), median of --runs (default 3) app
starts, each with its own temp HOME and data dir. Prints each row of the UI table in docs/performance.md and
writes target/bench-ui-results.json.

Smoke run (--smoke): 1,000 sessions / 100 MB in a temp dir, one start, loose bounds; fails when the
list is blank after a fast scroll or a figure is far off (a regression, not a target miss).

Needs xvfb (run under xvfb-run), tauri-driver, the built debug app and a release corral-cli.
Scrolling by a real mouse wheel uses xdotool when it is installed.
"""

import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.by import By

from harness import (ROOT, Driver, app_env, blank_bands, blank_rows, by_testid, click, cpu_seconds,
                     one, rss_mb, screenshot, wait_until)
from harness import log as harness_log

_RELEASE_CLI = ROOT / "target" / "release" / "corral-cli"
CLI = Path(os.environ.get("CORRAL_CLI", _RELEASE_CLI if _RELEASE_CLI.is_file() else ROOT / "target" / "debug" / "corral-cli")).resolve()
POLL = 0.02

log = functools.partial(harness_log, prefix="bench-ui")


def generate(out, sessions, size):
    if (out / "claude" / "projects").is_dir():
        return
    log(f"generating {sessions} sessions / {size} into {out}")
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(CLI), "generate", "--out", str(out), "--sessions", str(sessions), "--size", size,
                    "--with-fleet"], check=True, stdout=subprocess.DEVNULL)


def largest_session(fixture, scratch):
    """The largest session All Chats lists (size, id), as the CLI lists them."""
    out = subprocess.run(
        [str(CLI), "--claude-home", str(fixture / "claude"), "--fleet", str(fixture / "fleet" / "herdctl.yaml"),
         "--data-dir", str(scratch / "cli-data"), "sessions", "--json"],
        check=True, capture_output=True, text=True).stdout
    listing = json.loads(out)
    groups = listing["groups"] if isinstance(listing, dict) else listing
    best = max((s for g in groups for s in g["sessions"]), key=lambda s: s["sizeBytes"])
    return best["sizeBytes"], best["sessionId"]


def warm_page_cache(claude):
    """Reads every file under the Claude home once: the figures are for a page cache that holds
    the transcripts (as after any earlier look at them), not for the disk."""
    for dirpath, _, filenames in os.walk(claude):
        for name in filenames:
            try:
                with open(os.path.join(dirpath, name), "rb") as f:
                    while f.read(1 << 22):
                        pass
            except OSError:
                pass


def elapsed_until(what, fn, start, timeout=60):
    """Seconds from `start` until fn() is truthy (polled every 20 ms)."""
    wait_until(what, fn, timeout=timeout, every=POLL)
    return time.monotonic() - start


def elapsed_until_each(conditions, start, timeout):
    """Seconds from `start` until each condition first held (all polled together every 20 ms)."""
    got = {}

    def poll():
        for key, fn in conditions.items():
            if key not in got and fn():
                got[key] = time.monotonic() - start
        return len(got) == len(conditions)

    wait_until(", ".join(conditions), poll, timeout=timeout, every=POLL)
    return got


def startup_marks(driver):
    """The page's own start-up marks (ms from its navigation start): when it asked for the agents
    and the listing (together) and when each reply arrived (state.svelte.ts)."""
    return driver.execute_script(
        "return Object.fromEntries(performance.getEntriesByType('mark')"
        ".filter(m => m.name.startsWith('corral:')).map(m => [m.name.slice(7), Math.round(m.startTime)]));")


def engine_cold_listing(fixture, data):
    """Seconds the engine's own cold listing takes (the whole `corral-cli sessions --json`
    process, an empty data dir of its own): what the window's complete listing is held to."""
    start = time.monotonic()
    subprocess.run([str(CLI), "--claude-home", str(fixture / "claude"), "--fleet",
                    str(fixture / "fleet" / "herdctl.yaml"), "--data-dir", str(data), "sessions", "--json"],
                   check=True, stdout=subprocess.DEVNULL)
    took = time.monotonic() - start
    shutil.rmtree(data, ignore_errors=True)
    return took


def listing_complete(driver):
    """All Chats shows its complete listing: no progress line, no row still to be read."""
    return driver.execute_script(
        "return !document.querySelector('[data-testid=\"listing-progress\"]')"
        " && !document.querySelector('[data-testid=\"row-pending\"]')"
        " && document.querySelectorAll('[data-testid=\"session-row\"]').length > 0;")


def agent_counts(driver):
    """The Fleet view shows its agents with their session counts."""
    return driver.execute_script("return document.querySelectorAll('[data-testid=\"agent-count\"]').length > 0")


def sidebar_count(driver):
    return driver.execute_script(
        "const n = document.querySelector('[data-testid=\"nav-all-chats\"] .n');"
        "return n ? n.textContent.trim() : '';")


def rows_on_screen(driver, testid="session-row"):
    return driver.execute_script(
        "const h = window.innerHeight; return [...document.querySelectorAll("
        "'[data-testid=\"' + arguments[0] + '\"]')].filter(r => { const b = r.getBoundingClientRect();"
        " return b.bottom > 0 && b.top < h && b.height > 0; }).length;", testid)


def list_rect(driver, testid="virtual-list"):
    return driver.execute_script(
        "const el = document.querySelector('[data-testid=\"' + arguments[0] + '\"]');"
        "if (!el) return null; const b = el.getBoundingClientRect();"
        "return [b.left, b.top, b.right, Math.min(b.bottom, window.innerHeight)];", testid)


SCROLL_JS = """
const [testid, step, frames] = [arguments[0], arguments[1], arguments[2]];
const done = arguments[arguments.length - 1];
const vp = document.querySelector('[data-testid="' + testid + '"]');
const gaps = []; let last = null; let n = 0;
function frame(t) {
  if (last !== null) gaps.push(t - last);
  last = t;
  if (n++ >= frames) { done({gaps, top: vp.scrollTop}); return; }
  vp.scrollTop += step;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
"""


TIME_UNTIL_JS = """
const [selectors, condition] = [arguments[0], arguments[1]];
const done = arguments[arguments.length - 1];
const els = selectors.map(s => document.querySelector(s));
const t0 = performance.now();
for (const el of els) el.click();
// The page's CSP allows no eval: the condition is data. {sel, min}: at least `min` elements match;
// {lines, min}: the Fleet tree has at least `min` lines and none is loading.
const test = () => condition.lines
  ? Number(document.querySelector('[data-testid="fleet-tree"]')?.dataset.count ?? 0) >= condition.min
    && !document.querySelector('[aria-busy="true"]')
  : document.querySelectorAll(condition.sel).length >= condition.min;
const tick = () => { if (test()) done(performance.now() - t0);
  else if (performance.now() - t0 > 60000) done(null); else requestAnimationFrame(tick); };
requestAnimationFrame(tick);
"""


def time_until(driver, selectors, condition):
    """Seconds from clicking `selectors` (in order, in one go, inside the page) to the first frame
    at which `condition` holds (see TIME_UNTIL_JS): no WebDriver round trip in the figure."""
    ms = driver.execute_async_script(TIME_UNTIL_JS, selectors, condition)
    if ms is None:
        raise AssertionError(f"timed out waiting for {condition}")
    return ms / 1000


def index_built(driver):
    status = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.__TAURI_INTERNALS__.invoke('search_status').then(done, () => done(null));")
    return bool(status) and not status["building"] and status["indexed"] > 0


def idle_frames(driver, frames=60):
    """Frame times (ms) with nothing changing: what this display can do at best."""
    return driver.execute_async_script("""
      const done = arguments[arguments.length - 1]; const gaps = []; let last = null;
      const f = (t) => { if (last !== null) gaps.push(t - last); last = t;
        if (gaps.length >= arguments[0]) done(gaps); else requestAnimationFrame(f); };
      requestAnimationFrame(f);""", frames)


def scripted_scroll(driver, testid, step, frames=120):
    """Frame times (ms) while the list scrolls by `step` CSS px every frame."""
    out = driver.execute_async_script(SCROLL_JS, testid, step, frames)
    return out["gaps"]


def wheel(driver, rect, clicks, delay_ms):
    """Real mouse-wheel scrolling over the list (xdotool: X button 5 = wheel down); None when
    xdotool is missing."""
    if not shutil.which("xdotool"):
        return None
    # Window-relative CSS pixels to screen pixels: the window sits at the screen's origin under Xvfb
    # with no window manager; the scale is 1.
    x = int((rect[0] + rect[2]) / 2)
    y = int((rect[1] + rect[3]) / 2)
    pos = driver.execute_script("return [window.screenX, window.screenY]")
    subprocess.run(["xdotool", "mousemove", str(x + pos[0]), str(y + pos[1])], check=True)
    subprocess.Popen(["xdotool", "click", "--repeat", str(clicks), "--delay", str(delay_ms), "5"])
    return True


def blank_during_wheel(driver, speed):
    """Screenshots taken while a real wheel scrolls the list; how many showed blank rows."""
    rect = list_rect(driver)
    clicks, delay = {"medium": (40, 40), "fast": (80, 8)}[speed]
    if wheel(driver, rect, clicks, delay) is None:
        return None
    blank = 0
    grabs = 4
    for _ in range(grabs):
        time.sleep(clicks * delay / 1000 / (grabs + 1))
        img, scale = screenshot(driver)
        if blank_bands(img, scale, rect):
            blank += 1
            img.save(ROOT / "target" / f"bench-ui-blank-{speed}-{blank}.png")
    time.sleep(0.5)
    return blank, grabs


def web_memory(tauri):
    _, web = tauri.app_pids()
    return rss_mb(web) if web else None


def idle_burst(tauri, seconds=5.0):
    """CPU seconds the web and app processes use in the `seconds` after the last input."""
    app, web = tauri.app_pids()
    pids = [p for p in (app, web) if p]
    before = sum(cpu_seconds(p) for p in pids)
    time.sleep(seconds)
    return sum(cpu_seconds(p) for p in pids) - before


def go(driver, testid):
    click(driver, one(driver, testid))


def measure_run(fixture, args, runs_dir, run):
    """One cold start and one warm start, with every measurement between them."""
    tmp = Path(tempfile.mkdtemp(prefix=f"run{run}-", dir=runs_dir))
    home, data = tmp / "home", tmp / "data"
    home.mkdir()
    env = app_env(home, fixture / "claude", data, fixture / "fleet" / "herdctl.yaml")
    out = {}
    warm_page_cache(fixture / "claude")
    tauri = Driver(env, tmp / "tauri-driver.log")
    try:
        out["engine_cold"] = engine_cold_listing(fixture, tmp / "cli-data")
        start = time.monotonic()
        driver = tauri.session()
        # The first screen (Fleet, with a fleet): its agents with their counts (so far or not),
        # then All Chats: its first rows (read or not yet) and its complete listing.
        out["cold_fleet"] = elapsed_until("Fleet agents with counts (cold)", lambda: agent_counts(driver), start, 120)
        go(driver, "nav-all-chats")
        out.update(elapsed_until_each({
            "cold_rows": lambda: rows_on_screen(driver) > 0,
            "cold_count": lambda: sidebar_count(driver) and listing_complete(driver),
        }, start, 120))
        out["cold_after_engine"] = out["cold_count"] - out["engine_cold"]
        log(f"run {run}: cold start, Fleet's agents after {out['cold_fleet']:.2f} s, All Chats' first rows"
            f" after {out['cold_rows']:.2f} s, complete listing"
            f" ({sidebar_count(driver)}) after {out['cold_count']:.2f} s; the engine's own cold listing"
            f" {out['engine_cold']:.2f} s")

        out["web_mb_start"] = web_memory(tauri)
        # The search index is built in the background after the first listing; what follows is
        # measured once it is done (its build competes for the same two cores).
        start = time.monotonic()
        wait_until("the search index", lambda: index_built(driver), timeout=600, every=1.0)
        out["index_build"] = time.monotonic() - start
        log(f"run {run}: search index built {out['index_build']:.0f} s after the first paint")

        go(driver, "nav-all-chats")
        wait_until("session rows", lambda: rows_on_screen(driver) > 5, timeout=60)
        time.sleep(1.0)
        out["idle_frame_p50"] = statistics.median(idle_frames(driver))
        gaps = scripted_scroll(driver, "virtual-list", 1, 90) + scripted_scroll(driver, "virtual-list", 40, 90)
        out["scroll_p50"] = statistics.median(gaps)
        out["scroll_p95"] = sorted(gaps)[int(len(gaps) * 0.95) - 1]
        fast = scripted_scroll(driver, "virtual-list", 400, 60)
        out["scroll_fast_p50"] = statistics.median(fast)
        # The list is painted where it stands after a fast scroll.
        time.sleep(0.3)
        img = screenshot(driver)
        out["blank_after_fast_scroll"] = len(blank_bands(*img, list_rect(driver))) + len(blank_rows(driver, img=img))
        for speed in ("medium", "fast"):
            got = blank_during_wheel(driver, speed)
            out[f"wheel_{speed}_blank"] = None if got is None else f"{got[0]}/{got[1]}"
        out["idle_cpu_after_scroll"] = idle_burst(tauri)
        out["web_mb_scrolled"] = web_memory(tauri)

        # Search as you type over names: the worst keystroke, input to the next painted frame.
        typed = driver.execute_async_script("""
          const done = arguments[arguments.length - 1];
          const input = document.querySelector('[data-testid="search"]');
          const word = arguments[0]; const times = [];
          (async () => {
            for (let i = 1; i <= word.length; i++) {
              const t0 = performance.now();
              input.value = word.slice(0, i);
              input.dispatchEvent(new Event('input', {bubbles: true}));
              await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
              times.push(performance.now() - t0);
            }
            input.value = ''; input.dispatchEvent(new Event('input', {bubbles: true}));
            done(times);
          })();""", "deploy")
        out["type_worst"] = max(typed) / 1000

        # The largest session: its newest messages on screen.
        size, sid = largest_session(fixture, runs_dir)
        search = by_testid(driver, "search")[0]
        search.send_keys(sid)
        wait_until("the largest session's row", lambda: (lambda r: r[0] if len(r) == 1 else None)(
            by_testid(driver, "session-row")), timeout=30)
        time.sleep(0.5)
        out["largest_open"] = time_until(driver, ['[data-testid="session-row"]'],
                                         {"sel": '[data-testid="message"]', "min": 1})
        log(f"run {run}: largest session ({size / 1e6:.0f} MB) newest messages after {out['largest_open']:.2f} s")
        driver.execute_script("document.activeElement && document.activeElement.blur()")
        driver.find_element(By.TAG_NAME, "body").send_keys("\ue00c")  # Esc closes the viewer

        # Fleet: the agent with the most sessions, then every agent.
        go(driver, "nav-fleet")
        wait_until("agent rows", lambda: by_testid(driver, "agent-row"), timeout=30)
        counts = driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=\"agent-row\"]')].map(r => [r.dataset.agent,"
            " parseInt((r.querySelector('[data-testid=\"agent-count\"]')||{}).textContent.replace(/[^0-9]/g,'')) || 0]);")
        counts.sort(key=lambda c: -c[1])
        biggest, n = counts[0]
        agent_sel = '[data-testid="agent-row"][data-agent="{}"]'.format
        in_tree = "document.querySelectorAll('[data-testid=\"fleet-tree\"] [data-testid=\"session-row\"]').length"
        lines = "Number(document.querySelector('[data-testid=\"fleet-tree\"]').dataset.count)"
        collapsed_lines = driver.execute_script(f"return {lines}")
        out["open_agent"] = time_until(
            driver, [agent_sel(biggest)], {"sel": '[data-testid="fleet-tree"] [data-testid="session-row"]', "min": 1})
        out["open_agent_sessions"] = n
        log(f"run {run}: agent {biggest} ({n} sessions) opened in {out['open_agent']:.2f} s")
        # Every agent, from the bottom up in one go (an agent opened above would push the rest out
        # of the drawn window); the biggest one closed again first so that all start closed.
        click(driver, driver.find_element(By.CSS_SELECTOR, agent_sel(biggest)))
        wait_until("the agent closed", lambda: driver.execute_script(f"return {in_tree}") == 0)
        order = [a for a, _ in counts]
        expected = collapsed_lines + sum(max(1, c) for _, c in counts)
        out["expand_all"] = time_until(driver, [agent_sel(a) for a in reversed(order)],
                                       {"lines": True, "min": expected})
        out["expand_all_lines"] = driver.execute_script(f"return {lines}")
        log(f"run {run}: every agent expanded ({out['expand_all_lines']} lines) in {out['expand_all']:.2f} s")
        time.sleep(1.0)
        out["web_mb_fleet"] = web_memory(tauri)
        gaps = scripted_scroll(driver, "fleet-tree", 40, 90)
        out["fleet_scroll_p50"] = statistics.median(gaps)
        time.sleep(0.3)
        img = screenshot(driver)
        out["fleet_blank_after_scroll"] = len(blank_rows(driver, img=img))

        # Last, All Chats' whole list, top to bottom (after the rest, so that the figures before it
        # compare with earlier runs): memory just after, and once the page has been idle 5 s.
        go(driver, "nav-all-chats")
        driver.execute_script("const i = document.querySelector('[data-testid=\"search\"]');"
                              " i.value = ''; i.dispatchEvent(new Event('input', {bubbles: true}));")
        wait_until("session rows", lambda: rows_on_screen(driver) > 5, timeout=60)
        # A viewport a frame, from the top (as a person holding Page Down): every row drawn once.
        viewport, frames = driver.execute_script(
            "const v = document.querySelector('[data-testid=\"virtual-list\"]'); v.scrollTop = 0;"
            " return [v.clientHeight, Math.ceil((v.scrollHeight - v.clientHeight) / v.clientHeight)];")
        scripted_scroll(driver, "virtual-list", viewport, frames)
        out["whole_list_frames"] = frames
        out["web_mb_whole_list"] = web_memory(tauri)
        time.sleep(5.0)
        out["web_mb_whole_list_idle"] = web_memory(tauri)
        log(f"run {run}: whole list scrolled ({out['whole_list_frames']} viewports): web process"
            f" {out['web_mb_whole_list']:.0f} MB, {out['web_mb_whole_list_idle']:.0f} MB 5 s later")
        driver.quit()
    finally:
        tauri.close()

    # Warm start: the same HOME and data dir (the listing index and the job cache are in place).
    tauri = Driver(env, tmp / "tauri-driver-warm.log")
    try:
        start = time.monotonic()
        driver = tauri.session()
        # Both watched in one loop: each is the time it first showed, whichever comes first.
        out.update(elapsed_until_each({
            "warm_count": lambda: sidebar_count(driver),
            "warm_fleet": lambda: agent_counts(driver),
        }, start, 60))
        out["warm_marks"] = startup_marks(driver)
        log(f"run {run}: warm start, count after {out['warm_count']:.2f} s, Fleet after {out['warm_fleet']:.2f} s;"
            f" page marks (ms after its navigation start): {out['warm_marks']}")
        driver.quit()
    finally:
        tauri.close()
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


ROWS = [
    ("engine_cold", "the engine's own cold listing (corral-cli sessions --json, empty data dir)", "s", None),
    ("cold_fleet", "cold start (empty data dir) → Fleet agents with counts painted (the first screen)", "s", 1.0),
    ("cold_rows", "cold start → All Chats' first rows painted (opened after the Fleet's)", "s", 1.0),
    ("cold_count", "cold start → complete listing painted", "s", None),
    ("cold_after_engine", "complete listing painted − the engine's own cold listing", "s", 0.3),
    ("warm_count", "warm start → All Chats count painted", "s", 1.0),
    ("warm_fleet", "warm start → Fleet agents with counts painted", "s", 1.0),
    ("idle_frame_p50", "frame time with nothing changing (this display's best)", "ms", None),
    ("scroll_p50", "scripted scroll (1 and 40 px a frame), frame time p50", "ms", 16.7),
    ("scroll_p95", "scripted scroll, frame time p95", "ms", None),
    ("scroll_fast_p50", "scripted fast scroll (400 px a frame), frame time p50", "ms", None),
    ("blank_after_fast_scroll", "blank rows on screen after a fast scroll", "", 0),
    ("wheel_medium_blank", "real mouse wheel, medium: grabs with blank rows", "", "0/4"),
    ("wheel_fast_blank", "real mouse wheel, fast: grabs with blank rows", "", "0/4"),
    ("open_agent", "open the agent with the most sessions", "s", 0.15),
    ("expand_all", "expand every agent in Fleet", "s", 0.3),
    ("fleet_scroll_p50", "Fleet expanded, scripted scroll frame time p50", "ms", 16.7),
    ("largest_open", "largest session → newest messages", "s", 0.25),
    ("web_mb_start", "web process memory at the first paint", "MB", None),
    ("web_mb_scrolled", "web process memory after scrolling (about 6% of the list)", "MB", 400),
    ("web_mb_fleet", "web process memory with Fleet expanded", "MB", 400),
    ("web_mb_whole_list", "web process memory just after scrolling the whole list", "MB", 400),
    ("web_mb_whole_list_idle", "web process memory 5 s after scrolling the whole list", "MB", 400),
    ("type_worst", "search-as-you-type over names, worst keystroke", "s", None),
    ("idle_cpu_after_scroll", "CPU in the 5 s after scrolling stops (app + web)", "s", None),
    ("index_build", "search index built, after the first paint", "s", None),
]


def median(values):
    nums = [v for v in values if isinstance(v, (int, float))]
    if nums:
        return statistics.median(nums)
    return values[0] if values else None


def report(runs, meta):
    lines = [f"machine: {os.cpu_count()} cores; {meta}", "", "| what | median | target |", "|---|---|---|"]
    summary = {}
    for key, label, unit, target in ROWS:
        vals = [r.get(key) for r in runs]
        m = median(vals)
        summary[key] = m
        if isinstance(m, float):
            shown = f"{m * 1000:.0f} ms" if unit == "s" else f"{m:.1f} {unit}".strip()
            if len(vals) > 1:
                lo, hi = min(vals), max(vals)
                shown += f" ({lo * 1000:.0f}–{hi * 1000:.0f})" if unit == "s" else f" ({lo:.0f}–{hi:.0f})"
        else:
            shown = "n/a (no xdotool)" if m is None else str(m)
        tgt = "" if target is None else (f"≤ {target * 1000:.0f} ms" if unit == "s" else f"≤ {target} {unit}".strip())
        lines.append(f"| {label} | {shown} | {tgt} |")
    text = "\n".join(lines)
    print(text, flush=True)
    return summary, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="1,000 sessions, one run, loose bounds")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--home", type=Path, help="a generated home (default: target/bench-ui-home)")
    ap.add_argument("--keep", action="store_true", help="keep each run's temp dir")
    args = ap.parse_args()
    if not os.environ.get("DISPLAY"):
        sys.exit("[bench-ui] no DISPLAY: run under Xvfb (`make bench-ui` uses xvfb-run)")
    if not CLI.is_file():
        sys.exit(f"[bench-ui] corral-cli is not built: {CLI}")

    scratch = Path(tempfile.mkdtemp(prefix="corral-bench-ui-"))
    try:
        if args.smoke:
            fixture = scratch / "home"
            generate(fixture, 1000, "100M")
            runs = 1
        else:
            fixture = args.home or ROOT / "target" / "bench-ui-home"
            generate(fixture, 10_000, "3G")
            runs = args.runs
        results = [measure_run(fixture, args, scratch, i + 1) for i in range(runs)]
        summary, text = report(results, f"home {fixture}")
        (ROOT / "target").mkdir(exist_ok=True)
        name = "bench-ui-smoke-results.json" if args.smoke else "bench-ui-results.json"
        (ROOT / "target" / name).write_text(json.dumps({"runs": results, "median": summary}, indent=2))
        if args.smoke:
            smoke_check(summary)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


# Loose bounds for the smoke run on 1,000 sessions: far above the targets, so that only a regression
# (a list that is blank or that stalls) fails `make test`, never a slow CI machine.
SMOKE_BOUNDS = {
    "cold_fleet": 10.0,
    "cold_rows": 10.0,
    "cold_count": 10.0,
    "warm_count": 6.0,
    "scroll_p50": 60.0,
    "open_agent": 3.0,
    "expand_all": 5.0,
    "largest_open": 5.0,
}


def smoke_check(summary):
    failed = []
    if summary.get("blank_after_fast_scroll"):
        failed.append(f"{summary['blank_after_fast_scroll']} blank rows on screen after a fast scroll")
    if summary.get("fleet_blank_after_scroll"):
        failed.append(f"{summary['fleet_blank_after_scroll']} blank Fleet rows after a scroll")
    # The real-wheel grabs are reported, not asserted: mid-scroll, WebKit may show tiles it has not
    # painted yet on a loaded 2-core machine (software rendering), whatever the list does.
    for key, bound in SMOKE_BOUNDS.items():
        v = summary.get(key)
        if not isinstance(v, (int, float)) or v > bound:
            failed.append(f"{key} = {v} (bound {bound})")
    if failed:
        sys.exit("[bench-ui] smoke FAILED: " + "; ".join(failed))
    log("smoke passed: the list is painted after a fast scroll, figures within loose bounds")


if __name__ == "__main__":
    main()
