#!/usr/bin/env python3
"""Launch benchmark: the real app started again and again where there is no session bus (D-Bus),
as on a minimal window manager, over `ssh -X`, in a container or in CI (`make bench-launch`).

    bench_launch.py [--launches N] [--home DIR]

Each launch goes through tauri-driver + WebKitWebDriver as the e2e suite's do, with no
DBUS_SESSION_BUS_ADDRESS and no $XDG_RUNTIME_DIR/bus, and is timed from the session request to the
All Chats count painted (a warm start: one unmeasured start builds the data dir first). Reports the
spread (min, median, max) and the bus autolaunches seen: a `dbus-launch` placed first on PATH
records each time a program asks for one (GLib's X11 autolaunch finds it on PATH), and any bus left
running for the display is counted. Without a bus, GLib, GTK and libdbus would each start
`dbus-launch --autolaunch` from the app's main thread; the app is meant to start none.

Default home: target/bench-ui-home (the UI benchmark's 10,000 sessions; generated when missing).
Needs xvfb (run under xvfb-run, with no session bus), tauri-driver and the built app.
"""

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_ui import generate, sidebar_count
from harness import ROOT, Driver, app_env
from harness import log as harness_log

log = functools.partial(harness_log, prefix="bench-launch")

SHIM = """#!/bin/sh
# Records who asked for a session bus, then starts the real dbus-launch.
echo "$(cat /proc/$PPID/comm 2>/dev/null) $*" >> "{record}"
exec {real} "$@"
"""


def shim_dir(tmp):
    """A folder holding a `dbus-launch` that records each call before running the real one."""
    real = shutil.which("dbus-launch")
    folder = tmp / "shim"
    folder.mkdir()
    record = tmp / "autolaunches.txt"
    record.touch()
    if real:
        script = folder / "dbus-launch"
        script.write_text(SHIM.format(record=record, real=real))
        script.chmod(0o755)
    return folder, record


def buses_for_display(display):
    """`dbus-launch` processes left running for this X display (an autolaunched bus)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "dbus-launch":
                continue
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"DISPLAY={display}".encode() in env:
            found.append(int(entry.name))
    return found


def launch(env, log_path):
    """One start: seconds from the session request to the All Chats count painted."""
    tauri = Driver(env, log_path)
    try:
        start = time.monotonic()
        driver = tauri.session()
        deadline = start + 60
        while not sidebar_count(driver):
            if time.monotonic() > deadline:
                raise AssertionError("the All Chats count was not painted within 60 s")
            time.sleep(0.01)
        took = time.monotonic() - start
        driver.quit()
        return took
    finally:
        tauri.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=20)
    ap.add_argument("--home", type=Path, help="a generated home (default: target/bench-ui-home)")
    args = ap.parse_args()
    display = os.environ.get("DISPLAY")
    if not display:
        sys.exit("[bench-launch] no DISPLAY: run under Xvfb (`make bench-launch` uses xvfb-run)")
    fixture = args.home or ROOT / "target" / "bench-ui-home"
    generate(fixture, 10_000, "3G")

    tmp = Path(tempfile.mkdtemp(prefix="corral-bench-launch-"))
    try:
        home = tmp / "home"
        home.mkdir()
        env = app_env(home, fixture / "claude", tmp / "data", fixture / "fleet" / "herdctl.yaml")
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        env.pop("XDG_RUNTIME_DIR", None)
        shim, record = shim_dir(tmp)
        env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
        before = set(buses_for_display(display))

        log("a first start builds the data dir (not measured)")
        launch(env, tmp / "driver-0.log")
        times = []
        for i in range(args.launches):
            times.append(launch(env, tmp / f"driver-{i + 1}.log"))
            log(f"launch {i + 1}: All Chats count painted after {times[-1]:.2f} s")

        asked = [line for line in record.read_text().splitlines() if line.strip()]
        by_app = [line for line in asked if not line.startswith("WebKitWebDrive")]
        left = set(buses_for_display(display)) - before
        stalls = [t for t in times if t > statistics.median(times) + 1.0]
        print(f"\nlaunches with no session bus: {len(times)}\n"
              f"All Chats count painted: min {min(times):.2f} s, median {statistics.median(times):.2f} s,"
              f" max {max(times):.2f} s; launches over a second above the median: {len(stalls)}\n"
              f"bus autolaunches asked for by the app and its web processes: {len(by_app)}"
              f" (by the WebDriver: {len(asked) - len(by_app)}); buses left running for the display: {len(left)}",
              flush=True)
        for line in by_app[:5]:
            print(f"  asked: {line}")
        for pid in left:
            try:
                os.kill(pid, 15)
            except OSError:
                pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
