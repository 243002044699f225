#!/usr/bin/env python3
"""End-to-end test of the real Corral window.

Drives the built debug `corral` binary through tauri-driver + WebKitWebDriver (run it under Xvfb:
`make e2e`). A copy of fixtures/e2e-home is passed to the app through CLAUDE_CONFIG_DIR,
CORRAL_DATA_DIR and CORRAL_FLEET, with a throwaway HOME, so the real home is never touched.
Each step saves a screenshot into target/e2e-screenshots/. Exits non-zero on the first failure.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions

ROOT = Path(__file__).resolve().parents[2]
APP = Path(os.environ.get("CORRAL_APP", ROOT / "target" / "debug" / "corral")).resolve()
TAURI_DRIVER = os.environ.get("TAURI_DRIVER", str(ROOT / ".tools" / "bin" / "tauri-driver"))
NATIVE_DRIVER = os.environ.get("WEBKIT_WEBDRIVER", "/usr/bin/WebKitWebDriver")
SHOTS = Path(os.environ.get("E2E_SCREENSHOTS", ROOT / "target" / "e2e-screenshots"))
TIMEOUT = float(os.environ.get("E2E_TIMEOUT", "20"))

ALPHA_JOB = "a1a1a1a1-0000-4000-8000-000000000001"
LIVE_SID = "f6f6f6f6-0000-4000-8000-000000000001"


def log(msg):
    print(f"[e2e] {msg}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, fn, timeout=TIMEOUT):
    """Polls fn() until it returns something truthy; fails with `what` after the timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = fn()
            if value:
                return value
        except (StaleElementReferenceException, WebDriverException, OSError, ValueError) as e:
            last = e
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}" + (f" ({last})" if last else ""))


class Options(ArgOptions):
    def to_capabilities(self):
        return {"browserName": "wry", "tauri:options": {"application": str(APP)}}


def by_testid(driver, testid):
    return driver.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')


def text_of(el):
    """The element's textContent (WebDriver's visible-text algorithm drops some styled text)."""
    return el.get_property("textContent") or ""


def row_with_text(driver, testid, text):
    for el in by_testid(driver, testid):
        if text in text_of(el):
            return el
    return None


def shot(driver, name):
    # A screenshot taken right after a DOM change can show the previous frame: let it paint.
    time.sleep(1.0)
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    log(f"screenshot {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def jsonl(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


def live_session_lines(cwd):
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": LIVE_SID,
            "version": "2.1.114", "gitBranch": "main"}
    return [
        jsonl({"type": "permission-mode", "permissionMode": "default", "sessionId": LIVE_SID}),
        jsonl({**base, "parentUuid": None, "type": "user",
               "message": {"role": "user", "content": "Is the live update working?"},
               "uuid": "f6f6f6f6-u000-4000-8000-000000000001", "timestamp": "2026-11-21T09:00:00.000Z"}),
        jsonl({**base, "parentUuid": "f6f6f6f6-u000-4000-8000-000000000001", "type": "assistant",
               "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_live1", "type": "message",
                           "role": "assistant", "content": [{"type": "text", "text": "Yes, it arrived."}],
                           "stop_reason": "end_turn", "stop_sequence": None,
                           "usage": {"input_tokens": 5, "output_tokens": 4}},
               "requestId": "req_live1", "uuid": "f6f6f6f6-a000-4000-8000-000000000002",
               "timestamp": "2026-11-21T09:00:03.000Z"}),
        jsonl({"type": "ai-title", "aiTitle": "Live update arrived", "sessionId": LIVE_SID}),
    ]


def main():
    if not APP.is_file():
        sys.exit(f"[e2e] the app is not built: {APP} (run `make build`)")
    if not os.environ.get("DISPLAY"):
        sys.exit("[e2e] no DISPLAY: run under Xvfb (`make e2e` uses xvfb-run)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob("*.png"):
        old.unlink()

    tmp = Path(tempfile.mkdtemp(prefix="corral-e2e-"))
    fx = tmp / "fx"
    shutil.copytree(ROOT / "fixtures" / "e2e-home", fx)
    home = tmp / "home"
    home.mkdir()
    claude = fx / "claude"
    state_dir = fx / "fleet" / ".herdctl"

    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env.pop(var, None)
    env.update({
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CORRAL_DATA_DIR": str(tmp / "data"),
        "CORRAL_FLEET": str(fx / "fleet" / "herdctl.yaml"),
        "NO_AT_BRIDGE": "1",
    })
    port, native_port = free_port(), free_port()
    driver_log = open(tmp / "tauri-driver.log", "wb")
    tauri_driver = subprocess.Popen(
        [TAURI_DRIVER, "--port", str(port), "--native-port", str(native_port),
         "--native-driver", NATIVE_DRIVER],
        env=env, stdout=driver_log, stderr=subprocess.STDOUT, start_new_session=True)
    driver = None
    ok = False
    try:
        wait_until("tauri-driver to listen", lambda: urllib.request.urlopen(
            f"http://127.0.0.1:{port}/status", timeout=1).status == 200, timeout=15)
        started = time.monotonic()
        driver = webdriver.Remote(command_executor=f"http://127.0.0.1:{port}", options=Options())
        log(f"session created in {time.monotonic() - started:.1f}s")

        # 1. The window opens on the UI.
        wait_until("the sidebar", lambda: by_testid(driver, "nav-all-chats"))
        assert driver.title == "Corral", f"title is {driver.title!r}"
        shot(driver, "01-window-open")

        # 2. All Chats shows the fixture's groups (the temp folder hidden).
        by_testid(driver, "nav-all-chats")[0].click()
        groups = wait_until("three groups in All Chats",
                            lambda: (lambda g: g if len(g) >= 3 else None)(by_testid(driver, "group-header")))
        text = text_of(driver.find_element(By.TAG_NAME, "body"))
        for wd in ("/home/dev/webshop", "/home/dev/notes", "/srv/herd/alpha"):
            assert wd in text, f"group {wd} missing from {text!r}"
        assert "/tmp/scratch" not in text, "the temp folder should be hidden by default"
        assert len(groups) == 3, f"expected 3 groups, got {len(groups)}"
        shot(driver, "02-all-chats")

        # 3. A session opens in the viewer.
        row = wait_until("the cart session row", lambda: row_with_text(driver, "session-row", "Cart quantity selector"))
        row.click()
        wait_until("the cart transcript", lambda: any(
            "QuantitySelector" in text_of(t) for t in by_testid(driver, "transcript")))
        messages = by_testid(driver, "message")
        assert len(messages) >= 3, f"only {len(messages)} messages shown"
        shot(driver, "03-session-open")

        # 4. A rename persists to <state dir>/session-metadata/<agent>.json.
        row = wait_until("the alpha session row", lambda: row_with_text(driver, "session-row", "Nightly deploy summary"))
        row.click()
        wait_until("the alpha transcript", lambda: any(
            "Two deploys failed" in text_of(t) for t in by_testid(driver, "transcript")))
        row = wait_until("the alpha session row", lambda: row_with_text(driver, "session-row", "Nightly deploy summary"))
        button = row.find_elements(By.CSS_SELECTOR, '[data-testid="rename-button"]')
        if button:
            driver.execute_script("arguments[0].click()", button[0])
        else:
            row.send_keys(Keys.F2)
        field = wait_until("the rename field", lambda: by_testid(driver, "rename-input"))[0]
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("Deploy report (e2e)")
        field.send_keys(Keys.ENTER)
        meta_file = state_dir / "session-metadata" / "alpha.json"

        def saved_name():
            meta = json.loads(meta_file.read_text())
            return meta["sessions"][ALPHA_JOB].get("customName") == "Deploy report (e2e)"

        wait_until(f"the new name in {meta_file}", lambda: meta_file.is_file() and saved_name())
        wait_until("the new name in the header", lambda: any(
            text_of(el).strip() == "Deploy report (e2e)" for el in by_testid(driver, "session-name")))
        shot(driver, "04-renamed")

        # 5. Live updates: a transcript appended on disk shows up without any click.
        transcript = claude / "projects" / "-srv-herd-alpha" / f"{ALPHA_JOB}.jsonl"
        with transcript.open("a") as f:
            f.write(jsonl({"parentUuid": None, "isSidechain": False, "userType": "external",
                           "cwd": "/srv/herd/alpha", "sessionId": ALPHA_JOB, "version": "2.1.114",
                           "gitBranch": "main", "type": "user",
                           "message": {"role": "user", "content": "Appended on disk during the e2e run"},
                           "uuid": "a1a1a1a1-e2e0-4000-8000-000000000001",
                           "timestamp": "2026-11-21T08:00:00.000Z"}))
        wait_until("the appended message in the open transcript", lambda: any(
            "Appended on disk during the e2e run" in text_of(t) for t in by_testid(driver, "transcript")))
        shot(driver, "05-live-append")

        # ... and a new session in a new folder appears in All Chats.
        folder = claude / "projects" / "-home-dev-live"
        folder.mkdir()
        (folder / f"{LIVE_SID}.jsonl").write_text("".join(live_session_lines("/home/dev/live")))
        wait_until("the new session in All Chats", lambda: row_with_text(driver, "session-row", "Live update arrived"))
        shot(driver, "06-live-new-session")
        ok = True
        log("PASS: window, All Chats groups, session viewer, rename persisted, live updates")
    except Exception as e:  # noqa: BLE001 — report any failure with a last screenshot
        log(f"FAIL: {e}")
        if driver is not None:
            try:
                shot(driver, "99-failure")
            except WebDriverException:
                pass
    finally:
        if driver is not None:
            try:
                driver.quit()
            except WebDriverException:
                pass
        try:
            os.killpg(tauri_driver.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        tauri_driver.wait(timeout=10)
        driver_log.close()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"kept {tmp} for inspection (tauri-driver.log inside)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
