#!/usr/bin/env python3
"""End-to-end test of the real Corral window.

Drives the built debug `corral` binary through tauri-driver + WebKitWebDriver (run it under Xvfb:
`make e2e`). A copy of fixtures/e2e-home is passed to the app through CLAUDE_CONFIG_DIR,
CORRAL_DATA_DIR and CORRAL_FLEET, with a throwaway HOME, so the real home is never touched.
Each step saves a screenshot into target/e2e-screenshots/ (every view in light and dark, every
wizard step). Exits non-zero on the first failure. tests/e2e/README.md lists the steps.
"""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from harness import (APP, ROOT, SHOTS, Driver, app_env, blank_rows, by_testid, click, log, one, open_by_link,
                     quit_app, set_theme, shot, text_of, wait_until)
from real_client import step_real_client_home

CLI = Path(os.environ.get("CORRAL_CLI", ROOT / "target" / "debug" / "corral-cli")).resolve()

ALPHA_JOB = "a1a1a1a1-0000-4000-8000-000000000001"
ALPHA_NATIVE = "a1a1a1a1-0000-4000-8000-000000000002"
LIVE_SID = "f6f6f6f6-0000-4000-8000-000000000001"
HUGE_SID = "e5e5e5e5-0000-4000-8000-000000000001"
HUGE_MESSAGES = 50_000
# A word said once, deep inside the huge session (message 12,345 of 50,000).
DEEP_WORD = "zanzibarquill"
DEEP_MESSAGE = 12_345
IMPORTED = ["c7c7c7c7-0000-4000-8000-000000000001", "c7c7c7c7-0000-4000-8000-000000000002"]
BUSY_SID = "c8c8c8c8-0000-4000-8000-000000000001"
REWOUND_SID = "7a1f3c5e-2b4d-4e6f-8a0b-1c3d5e7f9a2b"
TOOLS_SID = "f7f7f7f7-0000-4000-8000-000000000001"
IMAGES_SID = "a8a8a8a8-0000-4000-8000-000000000001"


def row_with_text(driver, testid, text):
    for el in by_testid(driver, testid):
        if text in text_of(el):
            return el
    return None


def project_folder(cwd):
    """The name Claude Code gives the projects folder of working directory `cwd`."""
    return "-" + str(cwd).strip("/").replace("/", "-").replace(".", "-").replace("_", "-")


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


def huge_session_lines(cwd):
    """A 50,000-message session (alternating user / assistant), newest last."""
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": HUGE_SID,
            "version": "2.1.114", "gitBranch": "main"}
    yield jsonl({"type": "permission-mode", "permissionMode": "default", "sessionId": HUGE_SID})
    parent = None
    for n in range(1, HUGE_MESSAGES + 1):
        uuid = f"e5e5e5e5-{n:04x}"[:13] + f"-4000-8000-{n:012d}"
        stamp = f"2026-11-2{1 + n // 20000}T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"
        if n % 2:
            # One prompt deep inside says a word no other message says (the search step finds it).
            said = f"Huge session message {n}" + (f" mentions {DEEP_WORD}" if n == DEEP_MESSAGE else "")
            line = {**base, "parentUuid": parent, "type": "user", "uuid": uuid, "timestamp": stamp,
                    "message": {"role": "user", "content": said}}
        else:
            line = {**base, "parentUuid": parent, "type": "assistant", "uuid": uuid, "timestamp": stamp,
                    "requestId": f"req_{n}",
                    "message": {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{n}", "type": "message",
                                "role": "assistant", "stop_reason": "end_turn", "stop_sequence": None,
                                "content": [{"type": "text", "text": f"Huge session message {n}"}],
                                "usage": {"input_tokens": 10, "output_tokens": 5}}}
        parent = uuid
        yield jsonl(line)
    yield jsonl({"type": "ai-title", "aiTitle": "Fifty thousand messages", "sessionId": HUGE_SID})


def retarget_transcript(src, dst, sid, cwd):
    """Copies a fixture transcript under a new session id and working directory."""
    out = []
    for raw in src.read_text().splitlines():
        obj = json.loads(raw)
        if "sessionId" in obj:
            obj["sessionId"] = sid
        if "cwd" in obj:
            obj["cwd"] = cwd
        out.append(jsonl(obj))
    dst.write_text("".join(out))


def tree_digest(*roots):
    """Every file (sha256) and folder under `roots`, by path relative to its root."""
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            rel = Path(dirpath).relative_to(root.parent)
            out[str(rel) + "/"] = "dir"
            for name in sorted(filenames):
                path = Path(dirpath) / name
                out[str(rel / name)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def digest_diff(before, after):
    lines = []
    for k in sorted(set(before) | set(after)):
        if before.get(k) != after.get(k):
            lines.append(f"{k}: {before.get(k, 'absent')} -> {after.get(k, 'absent')}")
    return "\n".join(lines)


def cli(fx, data, *args):
    return subprocess.run(
        [str(CLI), "--claude-home", str(fx / "claude"), "--fleet", str(fx / "fleet" / "herdctl.yaml"),
         "--data-dir", str(data), *args], check=True, capture_output=True, text=True).stdout


def agent_count(driver, agent):
    row = driver.find_elements(By.CSS_SELECTOR, f'[data-testid="agent-row"][data-agent="{agent}"]')
    if not row:
        return None
    counts = row[0].find_elements(By.CSS_SELECTOR, '[data-testid="agent-count"]')
    return text_of(counts[0]).strip() if counts else None


def emit_drop(driver, paths):
    """Emits `files-dropped` exactly as the window's drag-drop handler does (WebDriver cannot
    perform an OS-level drop); everything after it is the real path."""
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.__TAURI_INTERNALS__.invoke('plugin:event|emit',"
        " {event: 'files-dropped', payload: {paths: arguments[0], agent: null}})"
        ".then(() => done(null), (e) => done(String(e)));", [str(p) for p in paths])


def real_drag(driver, paths, target, while_over=None):
    """Drags `paths` onto the middle of `target` (an element of the page) with the X server's own
    drag-and-drop, as a file manager's drag is: from a helper GTK window offering them as
    `text/uri-list` (drag_source.py), the pointer driven by xdotool. `while_over(driver)` runs while
    the drag hovers over the target, before the button is released."""
    x0, y0, scale, cx, cy = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [window.screenX, window.screenY, window.devicePixelRatio || 1,"
        " r.left + r.width / 2, r.top + r.height / 2]", target)
    tx, ty = round((x0 + cx) * scale), round((y0 + cy) * scale)
    # The helper sits in the strip of the 1280×860 screen the 1200×800 window leaves free.
    helper = subprocess.Popen(["/usr/bin/python3", str(Path(__file__).with_name("drag_source.py")), "1212", "812",
                               *map(str, paths)], stdout=subprocess.PIPE, text=True)
    try:
        ready = helper.stdout.readline().split()
        assert ready[:1] == ["ready"], f"the drag source did not start: {ready}"
        sx, sy = int(ready[1]), int(ready[2])

        def xdo(*args):
            subprocess.run(["xdotool", *map(str, args)], check=True, timeout=10)

        xdo("mousemove", sx, sy)
        time.sleep(0.2)
        xdo("mousedown", 1)
        for i in range(1, 25):
            xdo("mousemove", sx + (tx - sx) * i // 24, sy + (ty - sy) * i // 24)
            time.sleep(0.03)
        xdo("mousemove", tx + 1, ty + 1)
        time.sleep(0.3)
        if while_over:
            while_over(driver)
        xdo("mouseup", 1)
        helper.wait(timeout=10)
        # The pointer leaves the window, or the tooltip of what it rests on stays over every
        # later screenshot.
        xdo("mousemove", 1270, 850)
    finally:
        if helper.poll() is None:
            helper.kill()


def wizard_step(driver, n):
    return wait_until(f"wizard step {n}", lambda: any(
        w.get_attribute("data-step") == str(n) for w in by_testid(driver, "wizard")))


def huge_numbers(driver):
    """The message numbers of the 50,000-message session shown now."""
    nums = []
    for m in by_testid(driver, "message"):
        t = text_of(m)
        if "Huge session message " in t:
            try:
                nums.append(int(t.split("Huge session message ")[1].split()[0]))
            except (IndexError, ValueError):
                pass
    return nums


def assert_one_stretch(nums, when):
    """The huge session's messages shown are one stretch of it: no page read for an earlier view
    was added to the one shown now."""
    gaps = [(a, b) for a, b in zip(nums, nums[1:]) if b != a + 1]
    assert nums and not gaps, f"{when}: messages shown out of sequence at {gaps[:3]}"


def prepare(tmp):
    """The fixture copy, plus what the later steps need (made before the app starts)."""
    fx = tmp / "fx"
    shutil.copytree(ROOT / "fixtures" / "e2e-home", fx)
    data = tmp / "data"
    # An adopted session for the release step, recorded by the real engine.
    cli(fx, data, "adopt", "alpha", ALPHA_NATIVE)
    # The 50,000-message session.
    huge = fx / "claude" / "projects" / "-home-dev-huge"
    huge.mkdir()
    with (huge / f"{HUGE_SID}.jsonl").open("w") as f:
        f.writelines(huge_session_lines("/home/dev/huge"))
    # A folder to import, as someone would drop it: two transcripts and a stray file.
    src = tmp / "import" / "-home-dev-imported"
    src.mkdir(parents=True)
    webshop = ROOT / "fixtures" / "e2e-home" / "claude" / "projects" / "-home-dev-webshop"
    for sid, orig in zip(IMPORTED, ["b2b2b2b2-0000-4000-8000-000000000001", "b2b2b2b2-0000-4000-8000-000000000002"]):
        retarget_transcript(webshop / f"{orig}.jsonl", src / f"{sid}.jsonl", sid, "/home/dev/imported")
    # The first one has its own folder (a subagent run), which must travel with it.
    shutil.copytree(webshop / "b2b2b2b2-0000-4000-8000-000000000001", src / IMPORTED[0])
    (src / "notes.txt").write_text("not a transcript\n")
    for i, sid in enumerate(IMPORTED):  # old mtimes, to see that they survive the copy
        stamp = 1_700_000_000 + i * 3600
        os.utime(src / f"{sid}.jsonl", (stamp, stamp))
    # A session "open" in a running claude: a process named claude whose cwd is its folder.
    work = tmp / "work"
    work.mkdir()
    busy = tmp / "busy" / project_folder(work)
    busy.mkdir(parents=True)
    retarget_transcript(webshop / "b2b2b2b2-0000-4000-8000-000000000002.jsonl", busy / f"{BUSY_SID}.jsonl",
                        BUSY_SID, str(work))
    return fx, data, src, busy, work


def start_fake_claude(tmp, work):
    """A process the occupancy guard sees as `claude` (no session flag, so it holds every session
    of its working directory) — a copy of `sleep` named claude, run in `work`."""
    bindir = tmp / "bin"
    bindir.mkdir()
    fake = bindir / "claude"
    shutil.copy2(shutil.which("sleep") or "/bin/sleep", fake)
    return subprocess.Popen([str(fake), "600"], cwd=work, start_new_session=True)


def step_window_and_chats(driver):
    # 1. The window opens on the UI.
    wait_until("the sidebar", lambda: by_testid(driver, "nav-all-chats"))
    assert driver.title == "Corral", f"title is {driver.title!r}"
    set_theme(driver, "light")
    shot(driver, "01-window-open")

    # 2. All Chats shows the fixture's groups (the temp folder hidden).
    click(driver, by_testid(driver, "nav-all-chats")[0])
    groups = wait_until("four groups in All Chats",
                        lambda: (lambda g: g if len(g) >= 4 else None)(by_testid(driver, "group-header")))
    text = text_of(driver.find_element(By.TAG_NAME, "body"))
    for wd in ("/home/dev/webshop", "/home/dev/notes", "/srv/herd/alpha", "/home/dev/huge"):
        assert wd in text, f"group {wd} missing from {text!r}"
    assert "/tmp/scratch" not in text, "the temp folder should be hidden by default"
    assert len(groups) == 4, f"expected 4 groups, got {len(groups)}"
    shot(driver, "02-all-chats")

    # 2b. Search narrows All Chats (and says how many match).
    total = len(by_testid(driver, "session-row"))
    search = one(driver, "search")
    search.send_keys("checkout")
    rows = wait_until("search to narrow the list", lambda: (lambda r: r if len(r) == 1 else None)(
        by_testid(driver, "session-row")))
    assert "Why is the checkout slow?" in text_of(rows[0]), text_of(rows[0])
    assert len(by_testid(driver, "group-header")) == 1
    count = text_of(one(driver, "result-count"))
    assert "1" in count, f"result count says {count!r}"
    shot(driver, "03-search")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    wait_until("the full list back", lambda: len(by_testid(driver, "session-row")) == total)


def assert_rows_painted(driver, when):
    """Every session row on screen is painted, not only the selected or hovered one."""
    time.sleep(0.5)  # the frame after the change
    blank = blank_rows(driver)
    assert not blank, f"{when}: rows in the DOM but not painted: {blank}"


def step_viewer_rename_live(driver, claude, state_dir):
    # 3. A session opens in the viewer.
    click(driver, wait_until("the cart session row", lambda: row_with_text(driver, "session-row", "Cart quantity selector")))
    wait_until("the cart transcript", lambda: any(
        "QuantitySelector" in text_of(t) for t in by_testid(driver, "transcript")))
    messages = by_testid(driver, "message")
    assert len(messages) >= 3, f"only {len(messages)} messages shown"
    assert_rows_painted(driver, "after opening a session")
    shot(driver, "04-session-open")

    # 4. A rename persists to <state dir>/session-metadata/<agent>.json.
    click(driver, wait_until("the alpha session row", lambda: row_with_text(driver, "session-row", "Nightly deploy summary")))
    wait_until("the alpha transcript", lambda: any(
        "Two deploys failed" in text_of(t) for t in by_testid(driver, "transcript")))
    row = wait_until("the alpha session row", lambda: row_with_text(driver, "session-row", "Nightly deploy summary"))
    button = row.find_elements(By.CSS_SELECTOR, '[data-testid="rename-button"]')
    if button:
        click(driver, button[0])
    else:
        row.send_keys(Keys.F2)
    field = one(driver, "rename-input", "the rename field")
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
    shot(driver, "05-renamed")

    # 4b. Keyboard: F2 renames the list's current row; Esc leaves the name as it was and gives the
    # keyboard back to the list (not to the page).
    wrap = driver.find_element(By.CSS_SELECTOR, ".list-wrap")
    driver.execute_script("arguments[0].focus()", wrap)
    wrap.send_keys(Keys.F2)
    field = one(driver, "rename-input", "the rename field from F2")
    assert driver.switch_to.active_element == field, "F2 puts the keyboard in the name field"
    field.send_keys(Keys.ESCAPE)
    wait_until("the rename field to close", lambda: not by_testid(driver, "rename-input"))
    assert driver.execute_script("return !!document.activeElement?.closest('.list-wrap')"), \
        driver.execute_script("return document.activeElement?.outerHTML.slice(0, 120)")
    assert any(text_of(el).strip() == "Deploy report (e2e)" for el in by_testid(driver, "session-name"))

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
    shot(driver, "06-live-append")

    # ... and a new session in a new folder appears in All Chats.
    folder = claude / "projects" / "-home-dev-live"
    folder.mkdir()
    (folder / f"{LIVE_SID}.jsonl").write_text("".join(live_session_lines("/home/dev/live")))
    wait_until("the new session in All Chats", lambda: row_with_text(driver, "session-row", "Live update arrived"))
    shot(driver, "07-live-new-session")


def step_huge_session(driver):
    # 6. A 50,000-message session opens on its newest page and scrolls back through older pages.
    row = wait_until("the huge session row", lambda: row_with_text(driver, "session-row", "Fifty thousand messages"))
    started = time.monotonic()
    click(driver, row)
    wait_until("the newest message of the huge session", lambda: HUGE_MESSAGES in huge_numbers(driver), timeout=60)
    opened = time.monotonic() - started
    shown = len(by_testid(driver, "message"))
    assert shown < 2000, f"{shown} messages rendered at once: the viewer should page"
    log(f"50,000-message session: newest page shown in {opened:.2f}s ({shown} messages rendered)")
    shot(driver, "08-huge-session")
    scroller = one(driver, "message-list")
    lowest = min(huge_numbers(driver))
    for page in range(3):
        driver.execute_script("arguments[0].scrollTop = 0; arguments[0].dispatchEvent(new Event('scroll'));", scroller)
        lowest = wait_until(f"an earlier page (below message {lowest})", lambda: (
            lambda nums, before=lowest: min(nums) if nums and min(nums) < before else None)(huge_numbers(driver)),
            timeout=30)
    log(f"scrolled back to message {lowest} of {HUGE_MESSAGES}")
    shot(driver, "09-huge-session-scrolled")


def step_content_search(driver):
    # 6b. Search finds a word said once, deep in the 50,000-message session; the hit opens the
    # transcript there, with the message on screen and the word marked.
    click(driver, one(driver, "nav-all-chats"))
    search = one(driver, "search")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(DEEP_WORD)
    started = time.monotonic()
    hit = wait_until("a content hit (the index is built in the background)",
                     lambda: (by_testid(driver, "content-hit") or [None])[0], timeout=180)
    log(f"content search: hit listed {time.monotonic() - started:.1f}s after typing "
        f"({text_of(one(driver, 'content-count'))})")
    assert "Fifty thousand messages" in text_of(hit), f"the hit names its session: {text_of(hit)!r}"
    shot(driver, "09b-content-search")
    click(driver, hit)
    def marked_on_screen():
        return driver.execute_script("""
            const m = document.querySelector('[data-testid="message"].anchor mark.term');
            const list = document.querySelector('[data-testid="message-list"]');
            if (!m || !list) return null;
            const r = m.getBoundingClientRect(), l = list.getBoundingClientRect();
            return r.top >= l.top && r.bottom <= l.bottom ? m.textContent : null;
        """)
    word = wait_until("the hit's message on screen with the word marked", marked_on_screen, timeout=60)
    assert word.lower() == DEEP_WORD, word
    nums = huge_numbers(driver)
    assert DEEP_MESSAGE in nums and max(nums) < HUGE_MESSAGES, \
        f"the page around the hit is shown, not the newest ({min(nums)}..{max(nums)})"
    assert_one_stretch(nums, "opened at the hit after scrolling elsewhere")
    # The viewer's find bar opens with the search's words, counting from the hit.
    wait_until("the find bar with the search's words", lambda: "1 of 1" in text_of(one(driver, "find-count")) or None,
               timeout=60)
    assert one(driver, "find-input").get_attribute("value") == DEEP_WORD
    shot(driver, "09c-search-hit-open")

    # 6c. Find in the open transcript: the whole file's matches counted, the next one opened.
    click(driver, one(driver, "find-open"))
    find = one(driver, "find-input")
    find.send_keys("message 4999*")
    wait_until("the find count", lambda: "of 11" in text_of(one(driver, "find-count")) or None, timeout=60)
    find.send_keys(Keys.ENTER)
    wait_until("the second match on screen", lambda: "2 of 11" in text_of(one(driver, "find-count")) and
               "Huge session message 4999" in (driver.execute_script(
                   "const m = document.querySelector('[data-testid=\"message\"].anchor');"
                   "return m && m.textContent;") or "") or None, timeout=60)
    assert_one_stretch(huge_numbers(driver), "the find bar's second match")
    shot(driver, "09d-find-in-transcript")
    find.send_keys(Keys.ESCAPE)
    search = one(driver, "search")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)


def step_fleet_and_release(driver, state_dir):
    # 7. Fleet view: the agents with the right counts (alpha: the scheduled job + one adopted).
    click(driver, one(driver, "nav-fleet"))
    wait_until("alpha with 2 sessions", lambda: agent_count(driver, "alpha") == "2 sessions")
    assert agent_count(driver, "beta") == "0 sessions", agent_count(driver, "beta")
    alpha = driver.find_element(By.CSS_SELECTOR, '[data-testid="agent-row"][data-agent="alpha"]')
    if alpha.get_attribute("aria-expanded") != "true":
        click(driver, alpha)
    row = wait_until("the adopted session under alpha", lambda: row_with_text(driver, "session-row", "Check the disk usage"))
    wait_until("the scheduled session under alpha", lambda: row_with_text(driver, "session-row", "Deploy report (e2e)"))
    shot(driver, "10-fleet")

    # 8. Release removes the adoption record (after a confirmation); the transcript stays.
    record = state_dir / "adopted-sessions" / f"{ALPHA_NATIVE}.yaml"
    assert record.is_file(), f"{record} missing before the release"
    click(driver, row.find_element(By.CSS_SELECTOR, '[data-testid="release-button"]'))
    one(driver, "confirm-dialog", "the release confirmation")
    shot(driver, "11-release-confirm")
    adopted = record.read_bytes()
    click(driver, one(driver, "confirm-button"))
    wait_until(f"{record} to be removed", lambda: not record.exists())
    wait_until("alpha back to 1 session", lambda: agent_count(driver, "alpha") == "1 session")

    # The release is a run: its toast's Undo puts the very record back (#43).
    toast = wait_until("the release's toast", lambda: row_with_text(driver, "toast", "Released from alpha"))
    click(driver, toast.find_element(By.XPATH, ".//button[normalize-space()='Undo']"))
    wait_until(f"{record} to be back", lambda: record.is_file() and record.read_bytes() == adopted)
    wait_until("alpha with 2 sessions again", lambda: agent_count(driver, "alpha") == "2 sessions")
    row = wait_until("the adopted session again", lambda: row_with_text(driver, "session-row", "Check the disk usage"))
    click(driver, row.find_element(By.CSS_SELECTOR, '[data-testid="release-button"]'))
    click(driver, one(driver, "confirm-button"))
    wait_until(f"{record} to be removed again", lambda: not record.exists())
    wait_until("alpha back to 1 session again", lambda: agent_count(driver, "alpha") == "1 session")
    # History lists both releases in their own words: the newest active, the first undone.
    click(driver, one(driver, "nav-history"))
    def releases():
        rows = [r for r in by_testid(driver, "run-row") if r.find_elements(By.CSS_SELECTOR, '[data-testid="run-release"]')]
        return [text_of(r.find_element(By.CSS_SELECTOR, '[data-testid="run-state"]')) for r in rows]
    wait_until("two releases in History", lambda: releases() == ["Active", "Undone"])
    assert re.search(r"Release “.+” from alpha", text_of(one(driver, "run-release"))), text_of(one(driver, "run-release"))
    shot(driver, "11b-history-release")
    click(driver, one(driver, "nav-fleet"))

    # All Chats says what its numbers count, and agrees: alpha's folder holds 2 sessions, 1 alpha's.
    click(driver, one(driver, "nav-all-chats"))
    counts = '[data-testid="group-header"][data-group="/srv/herd/alpha"] [data-testid="group-counts"]'
    wait_until("alpha's folder counts", lambda: [text_of(e) for e in driver.find_elements(By.CSS_SELECTOR, counts)]
               == ["2 sessions in this folder · 1 owned by alpha"])
    click(driver, one(driver, "nav-fleet"))


def step_import_and_undo(driver, fx, src):
    # 9. Import wizard: a folder dropped on the window is copied into beta, then undone.
    claude, state_dir = fx / "claude", fx / "fleet" / ".herdctl"
    before = tree_digest(claude, fx / "fleet")
    # A real drag from another window onto the Fleet view's heading (no agent row): the overlay
    # shows while it hovers, and the drop opens the wizard with the folder as a source.
    def overlay_shown(driver):
        overlay = wait_until("the drop overlay during the drag", lambda: by_testid(driver, "drop-overlay"))[0]
        assert "Nothing is written until you confirm" in text_of(overlay), text_of(overlay)
        shot(driver, "19-drag-over-window")

    real_drag(driver, [src], driver.find_element(By.CSS_SELECTOR, "h1, h2"), overlay_shown)
    wizard_step(driver, 2)
    wait_until("the dropped folder in the sources", lambda: str(src.name) in text_of(one(driver, "source-list")))
    Select(one(driver, "target-select")).select_by_value("beta")
    wait_until("the wizard to target beta", lambda: "into beta" in text_of(one(driver, "wizard")))
    shot(driver, "20-wizard-2-what")
    click(driver, one(driver, "wizard-back"))
    wizard_step(driver, 1)
    shot(driver, "21-wizard-1-where")
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 2)
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 3)
    table = text_of(one(driver, "plan-table", "the preview table"))
    skips = [r.get_attribute("data-reason") for r in by_testid(driver, "skip-row")]
    assert skips == ["not-a-transcript"], f"skips {skips} in {table!r}"
    assert "notes.txt" in table, table
    assert len(driver.find_elements(By.CSS_SELECTOR, '[data-testid="plan-table"] tr.ok')) == 2, table
    assert by_testid(driver, "nothing-written"), "the preview should say nothing was written"
    assert tree_digest(claude, fx / "fleet") == before, "the preview wrote something"
    shot(driver, "22-wizard-3-preview")
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 4)
    modes = by_testid(driver, "mode-option")
    assert modes[0].find_element(By.TAG_NAME, "input").is_selected(), "copy should be the default"
    # A short step makes a short dialog, not three options above an empty half (#43).
    height = driver.execute_script("return document.querySelector('[data-testid=wizard]').getBoundingClientRect().height")
    assert height < 480, f"the 'How' step's dialog is {height:.0f} px tall"
    shot(driver, "23-wizard-4-how")
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 5)
    run = wait_until("the run button", lambda: [b for b in by_testid(driver, "wizard-run") if b.is_enabled()])[0]
    assert "Copy 2 sessions" in text_of(run), text_of(run)
    shot(driver, "24-wizard-5-confirm")
    click(driver, run)
    wizard_step(driver, 6)
    result = text_of(one(driver, "result"))
    assert "2 placed" in " ".join(result.split()), result
    shot(driver, "25-wizard-6-result")

    # On disk: the transcripts in beta's folder with their mtimes, and herdctl adoption records.
    dest = claude / "projects" / "-srv-herd-beta"
    for sid in IMPORTED:
        placed, original = dest / f"{sid}.jsonl", src / f"{sid}.jsonl"
        assert placed.read_bytes() == original.read_bytes(), f"{placed} differs from {original}"
        gap = abs(placed.stat().st_mtime_ns - original.stat().st_mtime_ns)
        assert gap < 1_000_000, f"{placed}: mtime not preserved ({gap} ns apart)"
        rec = state_dir / "adopted-sessions" / f"{sid}.yaml"
        assert rec.is_file() and "agentName: beta" in rec.read_text(), f"{rec}: {rec.read_text() if rec.is_file() else 'missing'}"
    assert (src / "notes.txt").is_file() and all((src / f"{sid}.jsonl").is_file() for sid in IMPORTED), \
        "a copy must leave the originals"
    # The session's own folder came along (its subagent run opens at the new place).
    for f in (src / IMPORTED[0]).rglob("*"):
        if f.is_file():
            placed = dest / IMPORTED[0] / f.relative_to(src / IMPORTED[0])
            assert placed.is_file() and placed.read_bytes() == f.read_bytes(), f"{placed} missing or different"
    # The Fleet view behind the wizard already counts them.
    wait_until("beta with 2 sessions", lambda: agent_count(driver, "beta") == "2 sessions")

    # Undo from the result screen: the tree is byte-identical to before.
    click(driver, one(driver, "undo-import"))
    one(driver, "undo-panel")
    shot(driver, "26-wizard-undo-preview")
    click(driver, wait_until("the confirm-undo button", lambda: [b for b in by_testid(driver, "confirm-undo") if b.is_enabled()])[0])
    one(driver, "undo-report", "the undo report")
    shot(driver, "27-wizard-undone")
    after = tree_digest(claude, fx / "fleet")
    assert after == before, "undo did not restore the tree:\n" + digest_diff(before, after)
    click(driver, one(driver, "wizard-done"))
    wait_until("the wizard to close", lambda: not by_testid(driver, "wizard"))
    wait_until("beta back to 0 sessions", lambda: agent_count(driver, "beta") == "0 sessions")
    log(f"import: 2 copied into beta with mtimes and records, undone to a byte-identical tree ({len(before)} entries)")


def step_occupied_move(driver, busy):
    # 10. Moving a session that a running claude holds is refused, with the reason. The folder is
    # dragged for real onto beta's row in the Fleet view: the drop targets beta.
    def into_beta(driver):
        overlay = wait_until("the drop overlay over beta", lambda: [
            o for o in by_testid(driver, "drop-overlay") if "Into beta" in text_of(o)])[0]
        row = driver.find_element(By.CSS_SELECTOR, '[data-testid="agent-row"][data-agent="beta"]')
        assert "droptarget" in row.get_attribute("class"), row.get_attribute("class")
        assert overlay

    beta = driver.find_element(By.CSS_SELECTOR, '[data-testid="agent-row"][data-agent="beta"]')
    real_drag(driver, [busy], beta, into_beta)
    wizard_step(driver, 2)
    wait_until("the wizard to target beta", lambda: "into beta" in text_of(one(driver, "wizard")))
    assert not by_testid(driver, "target-select"), "a drop on an agent row chooses that agent"
    wait_until("the dropped folder in the sources", lambda: busy.name in text_of(one(driver, "source-list")))
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 3)
    one(driver, "plan-table")
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 4)
    move = [m for m in by_testid(driver, "mode-option") if "Move" in text_of(m)][0]
    click(driver, move.find_element(By.TAG_NAME, "input"))
    click(driver, one(driver, "wizard-next"))
    wizard_step(driver, 5)
    wait_until("the move plan", lambda: "Sessions open in a running claude are skipped" in text_of(one(driver, "wizard")))
    run = by_testid(driver, "wizard-run")
    assert run and not run[0].is_enabled(), "nothing can be moved, so Run must be disabled"
    shot(driver, "28-wizard-move-refused")
    click(driver, one(driver, "wizard-back"))
    wizard_step(driver, 4)
    click(driver, one(driver, "wizard-back"))
    wizard_step(driver, 3)
    rows = wait_until("the occupied skip row", lambda: by_testid(driver, "skip-row"))
    assert [r.get_attribute("data-reason") for r in rows] == ["occupied"], [text_of(r) for r in rows]
    reason = text_of(rows[0])
    assert "Open in a running claude process" in reason, reason
    shot(driver, "29-wizard-occupied-reason")
    assert (busy / f"{BUSY_SID}.jsonl").is_file(), "the held transcript must stay where it is"
    click(driver, driver.find_element(By.CSS_SELECTOR, '[data-testid="wizard"] button[aria-label="Close"]'))
    wait_until("the wizard to close", lambda: not by_testid(driver, "wizard"))


def live_badge(driver, sid):
    rows = driver.find_elements(By.CSS_SELECTOR, f'[data-testid="session-row"][data-session-id="{sid}"]')
    badges = rows[0].find_elements(By.CSS_SELECTOR, '[data-testid="live-badge"]') if rows else []
    return badges[0].get_attribute("data-state") if badges else None


def step_live_states(driver, claude):
    # 10c. A fake claude resuming the live session (the system python run as argv[0] `claude`):
    # its row gets a live badge; a pending question appended on disk turns it "waiting", and
    # the answer with Claude's reply turns it "idle".
    python = "/usr/bin/python3"
    if not os.path.exists(python):
        log(f"{python} is missing: the live-session step is skipped")
        return
    fake = subprocess.Popen(["claude", "-S", "-c", "import time; time.sleep(600)", "--resume", LIVE_SID],
                            executable=python, start_new_session=True)
    try:
        click(driver, one(driver, "nav-all-chats"))
        wait_until("the live session's badge", lambda: live_badge(driver, LIVE_SID), timeout=30)
        transcript = claude / "projects" / "-home-dev-live" / f"{LIVE_SID}.jsonl"
        base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/live", "sessionId": LIVE_SID,
                "version": "2.1.114", "gitBranch": "main"}
        with transcript.open("a") as f:
            f.write(jsonl({**base, "parentUuid": "f6f6f6f6-a000-4000-8000-000000000002", "type": "user",
                           "message": {"role": "user", "content": "Set up the database"},
                           "uuid": "f6f6f6f6-u000-4000-8000-000000000003", "timestamp": "2026-11-21T09:01:00.000Z"}))
            f.write(jsonl({**base, "parentUuid": "f6f6f6f6-u000-4000-8000-000000000003", "type": "assistant",
                           "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_live2", "type": "message",
                                       "role": "assistant", "stop_reason": "tool_use", "stop_sequence": None,
                                       "content": [{"type": "tool_use", "id": "toolu_live_ask",
                                                    "name": "AskUserQuestion",
                                                    "input": {"questions": [{"question": "Which database?",
                                                                             "options": [{"label": "Postgres"}]}]}}],
                                       "usage": {"input_tokens": 5, "output_tokens": 4}},
                           "uuid": "f6f6f6f6-a000-4000-8000-000000000004", "timestamp": "2026-11-21T09:01:02.000Z"}))
        wait_until("the badge to say waiting", lambda: live_badge(driver, LIVE_SID) == "waiting", timeout=30)
        assert_rows_painted(driver, "after a live badge changed")
        shot(driver, "29e-live-waiting")
        with transcript.open("a") as f:
            f.write(jsonl({**base, "parentUuid": "f6f6f6f6-a000-4000-8000-000000000004", "type": "user",
                           "message": {"role": "user", "content": [{"type": "tool_result",
                                                                    "tool_use_id": "toolu_live_ask",
                                                                    "content": "Postgres"}]},
                           "uuid": "f6f6f6f6-u000-4000-8000-000000000005", "timestamp": "2026-11-21T09:02:00.000Z"}))
            f.write(jsonl({**base, "parentUuid": "f6f6f6f6-u000-4000-8000-000000000005", "type": "assistant",
                           "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_live3", "type": "message",
                                       "role": "assistant", "stop_reason": "end_turn", "stop_sequence": None,
                                       "content": [{"type": "text", "text": "Postgres is set up."}],
                                       "usage": {"input_tokens": 5, "output_tokens": 4}},
                           "uuid": "f6f6f6f6-a000-4000-8000-000000000006", "timestamp": "2026-11-21T09:02:03.000Z"}))
        wait_until("the badge to say idle", lambda: live_badge(driver, LIVE_SID) == "idle", timeout=30)
        shot(driver, "29f-live-idle")
    finally:
        try:
            os.killpg(fake.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        fake.wait(timeout=10)
    wait_until("the badge to go", lambda: live_badge(driver, LIVE_SID) is None, timeout=30)


def step_desktop_app(driver, home, data, claude):
    # 11. The desktop app's sidebars: a store under the throwaway home, read when the view opens.
    store = home / ".config" / "Claude" / "claude-code-sessions"
    acct_a, org_a = "a0000000-0000-4000-8000-00000000000a", "a2000000-0000-4000-8000-0000000000a2"
    acct_b, org_b = "b0000000-0000-4000-8000-00000000000b", "b1000000-0000-4000-8000-0000000000b1"
    # Claude Code is signed in with account a: its sidebar is named by the email and the org.
    settings = claude / ".claude.json"
    config = json.loads(settings.read_text()) if settings.exists() else {}
    config["oauthAccount"] = {"accountUuid": acct_a, "emailAddress": "dev@example.com",
                              "organizationUuid": org_a, "organizationName": "Example Ltd"}
    settings.write_text(json.dumps(config))
    def entry(acct, org, n, cli_id, title, active, archived=False):
        d = store / acct / org
        d.mkdir(parents=True, exist_ok=True)
        name = f"local_{n:08d}-1111-4000-8000-000000000000"
        (d / f"{name}.json").write_text(json.dumps({
            "sessionId": name, "cliSessionId": cli_id, "cwd": f"/home/dev/work-{n}", "title": title,
            "isArchived": archived, "lastActivityAt": active}))
    entry(acct_a, org_a, 1, "c0000001-0000-4000-8000-000000000000", "Here already", 1_790_000_000_000)
    entry(acct_b, org_b, 2, ALPHA_NATIVE, "Lost after the switch", 1_780_000_000_000)
    entry(acct_b, org_b, 3, "c0000003-0000-4000-8000-000000000000", "Archived long ago", 1_700_000_000_000, True)
    click(driver, one(driver, "nav-desktop"))
    rows = wait_until("the missing conversation", lambda: by_testid(driver, "desktop-missing-row"))
    assert len(rows) == 1 and "Lost after the switch" in text_of(rows[0]), [text_of(r) for r in rows]
    assert rows[0].get_attribute("data-status") == "restorable"
    assert "its account was active last" in text_of(one(driver, "desktop-current"))
    assert "dev@example.com" in text_of(one(driver, "desktop-current")), text_of(one(driver, "desktop-current"))
    assert any("Example Ltd" in text_of(r) for r in by_testid(driver, "desktop-sidebar"))
    assert len(by_testid(driver, "desktop-sidebar")) == 2
    assert "1 conversation archived" in text_of(one(driver, "desktop-left-out"))
    shot(driver, "29b-desktop-app")

    # Restore it into the sidebar chosen (the rules named only the account), then undo: the store
    # is byte-identical to before, and the run's backup holds the whole store.
    def inside(root):
        return {k.partition("/")[2]: v for k, v in tree_digest(root).items()}
    before = inside(store)
    Select(one(driver, "desktop-target")).select_by_value(f"{acct_a}/{org_a}")
    wait_until("the report against the chosen sidebar",
               lambda: "you chose it" in text_of(one(driver, "desktop-current")))
    pick = wait_until("the row's checkbox", lambda: by_testid(driver, "desktop-pick"))
    click(driver, pick[0])
    click(driver, one(driver, "desktop-restore"))
    items = wait_until("the restore preview", lambda: by_testid(driver, "restore-item"))
    assert len(items) == 1 and "Lost after the switch" in text_of(items[0]), [text_of(i) for i in items]
    assert not by_testid(driver, "restore-app-running"), "no desktop app runs here"
    shot(driver, "29c-desktop-restore-preview")
    click(driver, one(driver, "restore-next"))
    click(driver, one(driver, "restore-run"))
    one(driver, "restore-result", "the restore's result")
    placed = store / acct_a / org_a / "local_00000002-1111-4000-8000-000000000000.json"
    source = store / acct_b / org_b / placed.name
    assert placed.is_file() and placed.read_bytes() == source.read_bytes(), "the entry was not copied unchanged"
    backups = list((data / "runs").glob("*/backup/store"))
    assert len(backups) == 1 and inside(backups[0]) == before, "the backup is not the whole store as it was"
    shot(driver, "29d-desktop-restored")
    click(driver, one(driver, "undo-restore"))
    click(driver, wait_until("the confirm-undo button",
                             lambda: [b for b in by_testid(driver, "confirm-undo") if b.is_enabled()])[0])
    one(driver, "undo-report", "the undo report")
    after = inside(store)
    assert after == before, "undo did not restore the store:\n" + digest_diff(before, after)
    click(driver, one(driver, "restore-done"))
    wait_until("the conversation missing again", lambda: by_testid(driver, "desktop-missing-row"))


def menu_item(driver, label):
    for el in driver.find_elements(By.CSS_SELECTOR, '[data-testid="context-menu"] [role="menuitem"]'):
        if text_of(el).startswith(label):
            return el
    return None


# The system's save dialog is a native window WebDriver cannot reach: the export is asked for
# through the same IPC command the dialog's answer goes to.
EXPORT_THROUGH_IPC = """
const [sessionId, path, done] = arguments;
window.__TAURI_INTERNALS__.invoke('export_session',
    {sessionId, request: {format: 'md', subagents: false}, path, replace: false})
  .then((r) => done({ok: r}), (e) => done({err: e}));
"""


def step_fidelity(driver, claude, tmp):
    # 13. Faithful transcripts, on fixture files copied in while the app runs: a rewound session
    # (the resumed branch, the mark, the abandoned branch one click away), tokens by model, an
    # export through the menu, a fork subagent's run without the copied history, Fleet tokens.
    ideas = claude / "projects" / "-home-dev-ideas"
    ideas.mkdir()
    shutil.copy(ROOT / "fixtures" / "transcripts" / "rewound-2.1.jsonl", ideas / f"{REWOUND_SID}.jsonl")
    shutil.copytree(ROOT / "fixtures" / "transcripts" / "forked", claude / "projects" / "-home-dev-parser")
    click(driver, one(driver, "nav-all-chats"))
    click(driver, wait_until("the rewound session row", lambda: row_with_text(
        driver, "session-row", "dev-docs/ vs work/ split")))
    mark = wait_until("the rewind mark", lambda: row_with_text(driver, "rewind-mark", "2 prompts rewound here"))
    shown = " ".join(text_of(m) for m in by_testid(driver, "message"))
    assert "five strengths" not in shown, "a rewound prompt is shown as part of the conversation"
    assert "2 rewound" in text_of(one(driver, "rewound-count"))
    click(driver, mark.find_element(By.CSS_SELECTOR, '[data-testid="rewind-toggle"]'))
    wait_until("the rewound branch", lambda: row_with_text(driver, "rewound-branch", "five strengths"))
    click(driver, one(driver, "usage-by-model"))
    rows = wait_until("tokens by model", lambda: by_testid(driver, "usage-row"))
    assert "claude-" in text_of(rows[0]), text_of(rows[0])
    shot(driver, "50-rewind-and-usage")

    click(driver, one(driver, "export-open"))
    wait_until("the export menu", lambda: menu_item(driver, "Markdown"))
    shot(driver, "50b-export-menu")
    one(driver, "context-menu").send_keys(Keys.ESCAPE)
    wait_until("the export menu to close", lambda: not by_testid(driver, "context-menu"))
    out = tmp / "exported.md"
    reply = driver.execute_async_script(EXPORT_THROUGH_IPC, REWOUND_SID, str(out))
    assert "ok" in reply, f"export_session failed: {reply}"
    assert reply["ok"]["path"] == str(out) and out.stat().st_size == reply["ok"]["bytes"], reply
    md = out.read_text()
    assert md.startswith("# "), md[:200]
    assert md.count("\n## ") >= 4, f"a heading per turn expected:\n{md[:600]}"
    assert "five strengths" not in md, "the export holds a rewound prompt"
    again = driver.execute_async_script(EXPORT_THROUGH_IPC, REWOUND_SID, str(out))
    assert "already exists" in json.dumps(again), f"an export replaced a file unasked: {again}"

    click(driver, wait_until("the forked session row", lambda: row_with_text(
        driver, "session-row", "tokenizer drop the last token")))
    click(driver, wait_until("a fork run button", lambda: by_testid(driver, "open-subagent"))[0])
    note = one(driver, "fork-start", "the fork run's first line")
    assert "3 messages" in text_of(note), text_of(note)
    run = by_testid(driver, "message-list")[0]
    own = run.find_elements(By.CSS_SELECTOR, '[data-testid="message"]')
    assert len(own) == 2, [text_of(m)[:60] for m in own]
    assert not any("drop the last token" in text_of(m) for m in own), "the run repeats the main conversation"
    shot(driver, "51-fork-run")
    click(driver, one(driver, "subagent-back"))

    click(driver, one(driver, "nav-fleet"))
    alpha = wait_until("alpha's row", lambda: driver.find_elements(
        By.CSS_SELECTOR, '[data-testid="agent-row"][data-agent="alpha"]'))[0]
    tokens = wait_until("alpha's tokens", lambda: alpha.find_elements(By.CSS_SELECTOR, '[data-testid="token-count"]'))
    assert text_of(tokens[0]).endswith(" tokens"), text_of(tokens[0])
    # What they cost beside them: the fixture's transcripts predate Claude Code's own figures,
    # so the bundled table priced them, and the tooltip says so.
    cost = wait_until("alpha's cost", lambda: alpha.find_elements(By.CSS_SELECTOR, '[data-testid="cost"]'))[0]
    assert text_of(cost).startswith(("$", "<$")), text_of(cost)
    assert "list price" in cost.get_attribute("title") and "bundled price table" in cost.get_attribute("title")
    click(driver, one(driver, "nav-all-chats"))
    wait_until("a folder's cost", lambda: [h for h in by_testid(driver, "group-header")
                                           if h.find_elements(By.CSS_SELECTOR, '[data-testid="cost"]')])
    click(driver, one(driver, "nav-fleet"))


def step_tool_forms(driver, claude):
    # 14. Tool calls in their own form, on a fixture copied in while the app runs: an Edit as a
    # coloured diff, Bash as "$ command" with its colour codes drawn (no escape bytes on screen), a
    # call the person declined said as "rejected by you", and every icon an SVG (no emoji font).
    shop = claude / "projects" / "-home-dev-shop"
    shop.mkdir()
    shutil.copy(ROOT / "fixtures" / "transcripts" / "tool-forms-2.1.jsonl", shop / f"{TOOLS_SID}.jsonl")
    click(driver, one(driver, "nav-all-chats"))
    click(driver, wait_until("the tool-forms session row", lambda: row_with_text(
        driver, "session-row", "Exact discount rounding")))
    calls = wait_until("the five tool calls", lambda: (lambda c: c if len(c) == 5 else None)(
        by_testid(driver, "tool-call")))
    states = [c.get_attribute("data-state") for c in calls]
    assert states == ["ok", "ok", "error", "error", "rejected"], states
    assert "rejected by you" in text_of(calls[4])
    click(driver, calls[1].find_element(By.CSS_SELECTOR, "button.head"))
    diff = wait_until("the Edit's diff", lambda: by_testid(driver, "edit-diff"))[0]
    lines = diff.find_elements(By.CSS_SELECTOR, "[data-change]")
    assert [ln.get_attribute("data-change") for ln in lines] == ["same", "removed", "added", "same"]
    added = lines[2]
    colour = driver.execute_script("return getComputedStyle(arguments[0]).backgroundColor", added)
    removed = driver.execute_script("return getComputedStyle(arguments[0]).backgroundColor", lines[1])
    assert colour != removed and "0, 0, 0, 0" not in colour, (colour, removed)
    click(driver, calls[3].find_element(By.CSS_SELECTOR, "button.head"))
    out = wait_until("the Bash output", lambda: [o for o in by_testid(driver, "tool-output") if "FAIL" in text_of(o)])[0]
    assert "\x1b" not in text_of(out) and "[31m" not in text_of(out), text_of(out)
    assert out.find_elements(By.CSS_SELECTOR, ".ansi-red-fg"), "the colour codes are not drawn"
    assert text_of(one(driver, "bash-command")).startswith("$ npm test")
    icons = driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=tool-call] .tool-ic svg')].map(s => s.dataset.icon)")
    assert icons == ["list-todo", "file-pen", "file-pen", "terminal", "file-pen"], icons
    # What Claude Code injected is a quiet system line, not a bubble the person seems to have typed:
    # the interrupt after the rejected Write, and a Stop hook's feedback right above Claude's answer.
    lines = [text_of(s) for s in by_testid(driver, "system-line")]
    assert any("You interrupted the tool call" in t for t in lines), lines
    assert any("Stop hook feedback: 1 test still fails" in t for t in lines), lines
    assert driver.execute_script(
        "const m = [...document.querySelectorAll('[data-testid=message]')];"
        "const i = m.findIndex(e => e.querySelector('[data-testid=system-line]')?.textContent.includes('Stop hook'));"
        "return i >= 0 && !m[i].querySelector('[data-testid=typed]') && m[i + 1].textContent.includes('The hook is right')"
    ), "the hook's line sits right above the reply it caused"
    shot(driver, "52-tool-forms")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", by_testid(driver, "system-line")[-1])
    shot(driver, "52b-system-lines")

    # A pasted image is a thumbnail decoded from the transcript; a document is a named chip.
    shutil.copy(ROOT / "fixtures" / "transcripts" / "attachments-2.1.jsonl", shop / f"{IMAGES_SID}.jsonl")
    click(driver, wait_until("the screenshot session row", lambda: row_with_text(
        driver, "session-row", "Blue header screenshot")))
    thumb = wait_until("the pasted image", lambda: [t for t in by_testid(driver, "attachment-image") if
                                                   driver.execute_script(
                                                       "return arguments[0].querySelector('img').naturalWidth", t) == 48])
    chips = [text_of(c) for c in by_testid(driver, "attachment-chip")]
    assert any("spec.pdf" in c for c in chips), chips
    assert len(chips) == 3, chips
    shot(driver, "53-image-thumbnail")
    click(driver, thumb[0])
    big = one(driver, "attachment-enlarged", "the enlarged image")
    assert driver.execute_script("return arguments[0].querySelector('img').naturalHeight", big) == 32
    shot(driver, "53b-image-enlarged")
    big.send_keys(Keys.ESCAPE)
    wait_until("the enlarged image to close", lambda: not by_testid(driver, "attachment-enlarged"))


def step_views(driver, theme, src=None):
    """Every view, for the light/dark screenshot set."""
    prefix = "30" if theme == "light" else "40"
    set_theme(driver, theme)
    click(driver, one(driver, "nav-fleet"))
    wait_until("the agents", lambda: agent_count(driver, "alpha"))
    shot(driver, f"{prefix}-{theme}-fleet")
    click(driver, one(driver, "nav-all-chats"))
    wait_until("the groups", lambda: by_testid(driver, "group-header"))
    click(driver, wait_until("the cart session row", lambda: row_with_text(driver, "session-row", "Cart quantity selector")))
    wait_until("the cart transcript", lambda: any(
        "QuantitySelector" in text_of(t) for t in by_testid(driver, "transcript")))
    shot(driver, f"{prefix}-{theme}-all-chats-viewer")
    # Tool calls in their own form, and a pasted image, in this theme.
    click(driver, wait_until("the tool-forms row", lambda: row_with_text(driver, "session-row", "Exact discount rounding")))
    calls = wait_until("the tool calls", lambda: (lambda c: c if len(c) == 5 else None)(by_testid(driver, "tool-call")))
    for i in (1, 3):
        click(driver, calls[i].find_element(By.CSS_SELECTOR, "button.head"))
    wait_until("the Edit's diff", lambda: by_testid(driver, "edit-diff"))
    shot(driver, f"{prefix}-{theme}-tool-forms")
    click(driver, wait_until("the screenshot row", lambda: row_with_text(driver, "session-row", "Blue header screenshot")))
    wait_until("the pasted image", lambda: by_testid(driver, "attachment-image"))
    shot(driver, f"{prefix}-{theme}-image")
    # What the sessions cost, by herdctl job: the job's own figure beside Corral's.
    click(driver, one(driver, "nav-cost"))
    Select(one(driver, "cost-range")).select_by_visible_text("All time")
    click(driver, one(driver, "cost-by-job"))
    own = wait_until("the job's own figure", lambda: by_testid(driver, "cost-job-own"))
    assert text_of(own[0]).startswith("herdctl says $0.04 · "), text_of(own[0])
    total = text_of(one(driver, "cost-total", "the cost total"))
    assert total.startswith("$") and total.endswith("at list price"), total
    shot(driver, f"{prefix}-{theme}-cost-jobs")
    click(driver, one(driver, "nav-import"))
    shot(driver, f"{prefix}-{theme}-import")
    click(driver, one(driver, "nav-history"))
    wait_until("the import run in History", lambda: by_testid(driver, "run-row"))
    shot(driver, f"{prefix}-{theme}-history")
    if src is not None:
        # The wizard too: its preview of the dropped folder (closed without running).
        emit_drop(driver, [src])
        wizard_step(driver, 2)
        Select(one(driver, "target-select")).select_by_value("beta")
        click(driver, one(driver, "wizard-next"))
        wizard_step(driver, 3)
        one(driver, "plan-table")
        shot(driver, f"{prefix}-{theme}-wizard-preview")
        click(driver, driver.find_element(By.CSS_SELECTOR, '[data-testid="wizard"] button[aria-label="Close"]'))
        wait_until("the wizard to close", lambda: not by_testid(driver, "wizard"))


CORPUS = Path(os.environ.get("CORRAL_CORPUS", ROOT.parent / "shared" / "corpus"))
CORPUS_IMAGE_SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"  # a 1 MB pasted PNG (Claude Code 1.0.43)
CORPUS_TOOLS_SID = "258c7280-ae70-4798-800f-63464d01a85d"  # 2.1.39: tools, subagents, notifications


def step_delete_and_quarantine(driver, fx, home):
    # 21. Clean up by age from All Chats: the preview names every session with its size and what it
    # left behind; the run moves them into the quarantine; the Quarantine view puts one back, then the rest, byte for byte; a second
    # clean-up is emptied into the (test home's) system trash.
    claude, state_dir = fx / "claude", fx / "fleet" / ".herdctl"
    before = tree_digest(claude / "projects", state_dir)
    click(driver, one(driver, "nav-all-chats"))
    click(driver, one(driver, "open-cleanup-chats"))
    one(driver, "delete-dialog")
    Select(one(driver, "rule-older-days")).select_by_value("7")
    summary = wait_until("the clean-up's preview", lambda: [
        e for e in by_testid(driver, "delete-summary") if "move into Corral's quarantine" in " ".join(text_of(e).split())])[0]
    run_button = ready_to_delete(driver, "the clean-up's run button")
    items = by_testid(driver, "delete-item")
    assert len(items) >= 3, text_of(summary)
    shot(driver, "70-cleanup-preview")
    click(driver, run_button)
    result = text_of(one(driver, "delete-result", "the delete's result"))
    assert "moved into the quarantine" in " ".join(result.split()), result
    shot(driver, "71-cleanup-result")
    click(driver, one(driver, "delete-done"))
    moved = [k for k in before if k not in tree_digest(claude / "projects", state_dir)]
    assert any(k.endswith(".jsonl") for k in moved), "no transcript left its place"

    click(driver, one(driver, "nav-quarantine"))
    run = one(driver, "quarantine-run", "the delete run in the quarantine")
    sessions = by_testid(run, "quarantined-session")
    assert len(sessions) == len(items), f"{len(sessions)} sessions held of {len(items)} deleted"
    shot(driver, "72-quarantine")
    click(driver, by_testid(driver, "restore-session")[0])
    wait_until("one session put back", lambda: "put back" in text_of(by_testid(driver, "quarantined-session")[0]))
    click(driver, one(driver, "restore-run"))
    wait_until("the whole run put back",
               lambda: by_testid(driver, "quarantine-run")[0].get_attribute("data-state") == "restored")
    after = tree_digest(claude / "projects", state_dir)
    assert after == before, f"not back byte for byte: {digest_diff(before, after)}"
    shot(driver, "73-quarantine-restored")

    # Again, then emptied into the trash: it lands whole in the test home's trash.
    click(driver, one(driver, "open-cleanup"))
    Select(one(driver, "rule-older-days")).select_by_value("7")
    wait_until("the second preview", lambda: by_testid(driver, "delete-item"))
    click(driver, ready_to_delete(driver, "the second clean-up's run button"))
    one(driver, "delete-result", "the second delete's result")
    click(driver, one(driver, "delete-done"))
    empty = wait_until("the Empty button", lambda: [b for b in by_testid(driver, "empty-quarantine") if b.is_enabled()])[0]
    click(driver, empty)
    confirm = one(driver, "confirm-dialog")
    assert "system's trash" in text_of(confirm), text_of(confirm)
    shot(driver, "74-empty-confirm")
    click(driver, one(driver, "confirm-button"))
    wait_until("the run marked as sent to the trash",
               lambda: by_testid(driver, "quarantine-run")[0].get_attribute("data-state") == "emptied")
    trash = home / ".local" / "share" / "Trash" / "files"
    held = list(trash.rglob("*.jsonl")) if trash.is_dir() else []
    assert len(held) >= len(items) - 1, f"the trash holds {len(held)} transcripts"
    shot(driver, "75-quarantine-emptied")


def ready_to_delete(driver, what):
    """The delete dialog's run button once the preview in force is made (a rule changed a moment
    ago re-plans; a click meanwhile would meet a disabled button)."""
    def ready():
        buttons = by_testid(driver, "delete-run")
        ok = buttons and buttons[0].get_attribute("data-planning") == "false" and buttons[0].is_enabled()
        return [buttons[0]] if ok else []
    return wait_until(what, ready)[0]


def step_storage_and_sweep(driver, fx):
    # 20. The Storage view measures the home, finds what a session that is gone left behind (its
    # transcript deleted by hand three days ago), and sweeps it into the quarantine.
    claude = fx / "claude"
    gone = "dead0000-0000-4000-a000-00000000e2e0"
    planted = [claude / "file-history" / gone, claude / "session-env" / gone]
    for d in planted:
        d.mkdir(parents=True)
        (d / "kept.bin").write_bytes(b"x" * 300_000)
    old = time.time() - 3 * 86_400
    for d in planted:
        for p in (d / "kept.bin", d):
            os.utime(p, (old, old))
    click(driver, one(driver, "nav-storage"))
    total = text_of(one(driver, "storage-total", "the home's total"))
    assert " in " in total, total
    card = wait_until("the gone session's leftovers", lambda: [
        e for e in by_testid(driver, "storage-orphaned") if "1 session" in " ".join(text_of(e).split())])[0]
    assert "586" in text_of(card) or "600" in text_of(card), text_of(card)
    assert by_testid(driver, "storage-largest-row"), "no session listed among the largest"
    shot(driver, "76-storage")
    click(driver, one(driver, "sweep-orphaned"))
    wait_until("the sweep's preview", lambda: [
        e for e in by_testid(driver, "delete-summary") if "1 set of leftovers" in " ".join(text_of(e).split())])
    shot(driver, "77-sweep-preview")
    click(driver, ready_to_delete(driver, "the sweep's run button"))
    one(driver, "delete-result", "the sweep's result")
    click(driver, one(driver, "delete-done"))
    assert not any(d.exists() for d in planted), "the leftovers are still in the home"
    wait_until("the view measured again", lambda: [
        e for e in by_testid(driver, "storage-orphaned") if "No session that is gone" in text_of(e)])
    shot(driver, "78-storage-swept")


FAKE_TERMINAL = """#!/bin/bash
# The e2e's terminal: runs the command's `claude --resume <id>` as a process named claude (the
# system python running sleeper.py beside it: no flag of its own Corral would read), in the folder
# it is started in, and notes its pid.
id=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--resume" ]; then id="$2"; fi
  shift
done
here="$(dirname "$0")"
setsid bash -c 'exec -a claude /usr/bin/python3 -S "$1/sleeper.py" --resume "$0"' "$id" "$here" \
  </dev/null >/dev/null 2>&1 &
echo $! >> "$(dirname "$0")/started.pids"
"""


def reopen_conversation(claude, sid, cwd, hours_ago, entrypoint="cli"):
    """A conversation in `cwd` whose last prompt and answer were `hours_ago` hours ago."""
    at = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - hours_ago * 3600))
    folder = claude / "projects" / project_folder(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    base = {"isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": sid,
            "version": "2.1.332", "entrypoint": entrypoint, "timestamp": at}
    with (folder / f"{sid}.jsonl").open("w") as f:
        f.write(jsonl({**base, "type": "user", "parentUuid": None, "uuid": f"{sid[:8]}-u1",
                       "message": {"role": "user", "content": f"Carry on in {cwd.name}"}}))
        f.write(jsonl({**base, "type": "assistant", "parentUuid": f"{sid[:8]}-u1", "uuid": f"{sid[:8]}-a1",
                       "message": {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{sid[:8]}", "type": "message",
                                   "role": "assistant", "stop_reason": "end_turn", "stop_sequence": None,
                                   "content": [{"type": "text", "text": "Done."}],
                                   "usage": {"input_tokens": 5, "output_tokens": 2}}}))


def step_reopen(driver, fx, tmp, work):
    # 21. Reopen recent work: three folders with recent conversations (one held by the fake
    # claude running in `work`, one Claude Code does not trust yet) and a `claude -p` run left
    # out; the free two start through the e2e's terminal, each verified by its process.
    claude = fx / "claude"
    alpha, beta, printed = (tmp / "reopen" / n for n in ("alpha", "beta", "printed"))
    for d in (alpha, beta, printed):
        d.mkdir(parents=True)
    subprocess.run(["git", "-C", str(alpha), "init", "-q", "-b", "main"], check=True)
    (alpha / "notes.txt").write_text("changed\n")
    reopen_conversation(claude, "7e0a0000-0000-4000-a000-000000000001", alpha, 2)
    reopen_conversation(claude, "7e0a0000-0000-4000-a000-000000000002", beta, 5)
    reopen_conversation(claude, "7e0a0000-0000-4000-a000-000000000003", work, 1)
    reopen_conversation(claude, "7e0a0000-0000-4000-a000-000000000004", printed, 3, "sdk-cli")
    (claude / ".claude.json").write_text(json.dumps({"projects": {
        str(alpha): {"hasTrustDialogAccepted": True}, str(work): {"hasTrustDialogAccepted": True}}}))
    click(driver, one(driver, "nav-reopen"))
    rows = wait_until("the three folders", lambda: (lambda r: r if len(r) == 3 else None)(
        by_testid(driver, "reopen-row")), timeout=30)
    states = {e.get_attribute("data-state") for e in rows}
    assert states == {"free", "occupied"}, states
    held = [e for e in rows if e.get_attribute("data-state") == "occupied"]
    assert len(held) == 1 and "claude process" in text_of(held[0]), [text_of(e) for e in held]
    wait_until("the git state", lambda: [g for g in by_testid(driver, "reopen-git") if "main" in text_of(g)])
    assert any("trust this folder" in text_of(e) for e in rows), "the untrusted folder is not marked"
    for theme in ("light", "dark"):
        set_theme(driver, theme)
        shot(driver, f"79-reopen-{theme}")
    set_theme(driver, "light")
    start = one(driver, "reopen-start")
    assert "Start 2 conversations" in text_of(start), text_of(start)
    click(driver, start)
    report = wait_until("the starts verified", lambda: [
        e for e in by_testid(driver, "reopen-report") if "2 started" in text_of(e)], timeout=60)[0]
    assert "failed" not in text_of(report), text_of(report)
    shot(driver, "80-reopen-started")
    pids = [int(p) for p in (tmp / "term" / "started.pids").read_text().split()]
    assert len(pids) == 2, pids
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def corpus_home(tmp):
    """A Claude home made of ../shared/corpus's real transcripts, laid out as Claude Code lays them
    out: each project folder as it was, spotter's flat files under one folder and named by their
    session id."""
    projects = tmp / "corpus-claude" / "projects"
    for folder in sorted((CORPUS / "claude-code-log" / "projects").iterdir()):
        if folder.is_dir():
            shutil.copytree(folder, projects / folder.name)
    spotter = projects / "-home-marco-projects-spotter"
    for f in sorted((CORPUS / "spotter").iterdir()):
        if f.is_dir():
            shutil.copytree(f, spotter / f.name)
        elif f.suffix == ".jsonl":
            head = f.read_text(encoding="utf-8", errors="replace")[:200_000]
            sid = head.split('"sessionId":"', 1)[1][:36]
            spotter.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, spotter / f"{sid}.jsonl")
    shutil.copytree(CORPUS / "claude-code-viewer" / "projects" / "sample-project", projects / "sample-project")
    return projects.parent


def step_corpus_home(tmp):
    # 15. Real transcripts: a home built from ../shared/corpus and no fleet. The app lands on All
    # Chats (nothing to show in Fleet without one), every row painted; a pasted PNG is a thumbnail;
    # Claude Code's own lines are never bubbles the person seems to have typed; light and dark.
    if not CORPUS.is_dir():
        log(f"corpus home skipped: {CORPUS} is absent (set CORRAL_CORPUS to its folder)")
        return
    claude = corpus_home(tmp)
    home, data = tmp / "corpus-user", tmp / "corpus-data"
    home.mkdir()
    tauri = Driver(app_env(home, claude, data), tmp / "tauri-driver-corpus.log")
    driver = None
    try:
        driver = tauri.session()
        wait_until("the corpus listing", lambda: len(by_testid(driver, "group-header")) >= 5)
        assert one(driver, "nav-all-chats").get_attribute("aria-current") == "page", "no fleet: All Chats first"
        for theme in ("light", "dark"):
            set_theme(driver, theme)
            assert_rows_painted(driver, f"the corpus home ({theme})")
            shot(driver, f"60-corpus-{theme}-all-chats")
            open_by_link(driver, CORPUS_IMAGE_SID)
            png = wait_until("the pasted PNG drawn", lambda: [t for t in by_testid(driver, "attachment-image") if
                                                               driver.execute_script(
                                                                   "return arguments[0].querySelector('img')?.naturalWidth || 0", t) > 0])
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", png[0])
            shot(driver, f"61-corpus-{theme}-image")
            open_by_link(driver, CORPUS_TOOLS_SID)
            wait_until("its tool calls", lambda: len(by_testid(driver, "tool-call")) >= 5)
            typed = [text_of(t).strip() for t in by_testid(driver, "typed")]
            injected = [t for t in typed if t.startswith(("<task-notification>", "<command-name>", "<local-command",
                                                          "[Request interrupted"))]
            assert not injected, f"Claude Code's own lines shown as typed prompts: {injected[:3]}"
            shot(driver, f"62-corpus-{theme}-tools")
        log("corpus home: landed on All Chats without a fleet, rows painted, a pasted PNG drawn, "
            "no injected line shown as typed, light and dark")
    finally:
        quit_app(driver, tauri)


def main():
    if not APP.is_file():
        sys.exit(f"[e2e] the app is not built: {APP} (run `make build`)")
    if not CLI.is_file():
        sys.exit(f"[e2e] corral-cli is not built: {CLI} (run `cargo build -p corral-cli`)")
    if not os.environ.get("DISPLAY"):
        sys.exit("[e2e] no DISPLAY: run under Xvfb (`make e2e` uses xvfb-run)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob("*.png"):
        old.unlink()

    tmp = Path(tempfile.mkdtemp(prefix="corral-e2e-"))
    fx, data, src, busy, work = prepare(tmp)
    home = tmp / "home"
    home.mkdir()
    claude = fx / "claude"
    state_dir = fx / "fleet" / ".herdctl"

    env = app_env(home, claude, data, fx / "fleet" / "herdctl.yaml")
    term = tmp / "term"
    term.mkdir()
    (term / "fake-term").write_text(FAKE_TERMINAL)
    (term / "fake-term").chmod(0o755)
    (term / "sleeper.py").write_text("import time\ntime.sleep(600)\n")
    env["TERMINAL"] = str(term / "fake-term")
    fake_claude = start_fake_claude(tmp, work)
    tauri = None
    driver = None
    ok = False
    try:
        tauri = Driver(env, tmp / "tauri-driver.log")
        started = time.monotonic()
        driver = tauri.session()
        log(f"session created in {time.monotonic() - started:.1f}s")

        step_window_and_chats(driver)
        step_viewer_rename_live(driver, claude, state_dir)
        step_huge_session(driver)
        step_content_search(driver)
        step_fleet_and_release(driver, state_dir)
        step_import_and_undo(driver, fx, src)
        step_occupied_move(driver, busy)
        step_live_states(driver, claude)
        step_desktop_app(driver, home, data, claude)
        step_fidelity(driver, claude, tmp)
        step_tool_forms(driver, claude)
        step_views(driver, "light")
        step_views(driver, "dark", src)
        step_storage_and_sweep(driver, fx)
        step_reopen(driver, fx, tmp, work)
        step_delete_and_quarantine(driver, fx, home)
        quit_app(driver, tauri)
        driver = tauri = None
        step_corpus_home(tmp)
        step_real_client_home(tmp)
        ok = True
        log("PASS: window, All Chats groups and search, viewer, rename persisted, live updates, "
            "50,000-message session, search deep inside it opened at the hit, find in the transcript, Fleet counts, release, import + undo (byte-identical), "
            "occupied move refused, live states (running, waiting, idle), the desktop app's sidebars with a restore "
            "undone byte-identically, a rewound session with its branch and tokens by model, the export "
            "menu and a Markdown export through its IPC command, a fork run without the copied history, Fleet tokens, "
            "tool calls in their own form (an Edit's diff, Bash colours, a rejected call), a pasted image's thumbnail, light and dark views, "
            "the Storage view and a sweep of a gone session's leftovers, "
            "Reopen recent work (a held folder skipped, two starts verified), "
            "a clean-up by age into the quarantine, put back byte-identically, and emptied into the trash, "
            "the real transcripts of ../shared/corpus, "
            "a home the real Claude Code wrote (typed prompts, its own lines, questions, a subagent's report), "
            "a splitter dragged without selecting text, the narrow rail")
    except Exception as e:  # noqa: BLE001 — report any failure with a last screenshot
        log(f"FAIL: {type(e).__name__}: {e}")
        if driver is not None:
            try:
                shot(driver, "99-failure")
            except WebDriverException:
                pass
    finally:
        quit_app(driver, tauri)
        try:
            os.killpg(fake_claude.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        fake_claude.wait(timeout=10)
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"kept {tmp} for inspection (tauri-driver.log inside)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
