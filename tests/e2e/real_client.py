"""The app on a home the real Claude Code wrote (`tests/conformance/realhome.py`): what the person
typed reads as theirs, Claude Code's own lines (a task notification, a slash command) as Claude
Code's, a subagent's report without its frame, and a question with its answer — or "unanswered"
once no client holds it. Then the window's layout: a real pointer drag of a splitter selects no
text, and a narrow window turns the sidebar into a rail.

Needs the pinned client (`CLAUDE_CODE_BIN`, which `make e2e` sets); skipped with a notice without it.
"""

import os
import sys
from pathlib import Path

from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By

from harness import (ROOT, Driver, app_env, by_testid, click, log, one, open_by_link, quit_app, set_theme,
                     shot, text_of, wait_until)

CONFORMANCE = ROOT / "tests" / "conformance"


def _conformance():
    """`realhome` and the conformance harness. Both suites call their helpers `harness`: the
    conformance one is imported under that name only while `realhome` binds what it uses."""
    ours = sys.modules.pop("harness")
    sys.path.insert(0, str(CONFORMANCE))
    try:
        import realhome

        return realhome, sys.modules["harness"]
    finally:
        sys.path.remove(str(CONFORMANCE))
        sys.modules["harness"] = ours


def step_real_client_home(tmp):
    # 17. A home the pinned Claude Code wrote, findings 1, 2, 4, 5 and 12 of #43.
    if not os.environ.get("CLAUDE_CODE_BIN"):
        log("real-client home skipped: CLAUDE_CODE_BIN is not set (`make e2e` sets it)")
        return
    realhome, conformance = _conformance()
    # A temp dir under target/conformance/ (not /tmp, which Corral treats as temporary).
    home = conformance.Home()
    try:
        ids = realhome.build(home)
        log(f"real-client home written by Claude Code {home_version(home)}: {ids}")
        user, data = tmp / "real-user", tmp / "real-data"
        user.mkdir()
        tauri = Driver(app_env(user, home.claude, data), tmp / "tauri-driver-real.log")
        driver = None
        try:
            driver = tauri.session()
            wait_until("the real-client listing", lambda: len(by_testid(driver, "session-row")) >= 3)
            for theme in ("light", "dark"):
                set_theme(driver, theme)
                check_interactive(driver, ids["interactive"], theme)
                check_unanswered(driver, ids["unanswered"])
                check_delegated(driver, ids["delegated"], theme)
            check_splitter_drag(driver)
            check_narrow_and_wide(driver, ids["interactive"])
        finally:
            quit_app(driver, tauri)
    finally:
        home.remove()
    log("real-client home: typed prompts untagged, the task notification and /rename as Claude Code's, "
        "the question answered and unanswered, a subagent's report without its frame; a splitter dragged "
        "without selecting text; the narrow rail; light and dark")


def home_version(home):
    import json

    for path in home.transcripts():
        for line in path.read_text().splitlines():
            version = json.loads(line).get("version")
            if version:
                return version
    return "?"


def check_interactive(driver, sid, theme):
    open_by_link(driver, sid)
    wait_until("the answer to the question", lambda: "answeredword" in text_of(one(driver, "transcript")))
    # 1: what the person typed carries no "injected" tag; the task notification is Claude Code's line.
    typed = [text_of(t).strip() for t in by_testid(driver, "typed")]
    assert "hello typedword" in typed, typed
    tags = driver.execute_script(
        "return [...document.querySelectorAll('.injected')].map(e => e.closest('.msg').textContent.trim())")
    assert not tags, f"typed prompts tagged as injected: {tags}"
    notes = [s for s in by_testid(driver, "system-line") if s.get_attribute("data-kind") == "task-notification"]
    assert notes and "Task notification" in text_of(notes[0]), [text_of(s) for s in by_testid(driver, "system-line")]
    assert not [t for t in typed if "<task-notification>" in t], typed
    click(driver, notes[0].find_element(By.TAG_NAME, "summary"))
    report = wait_until("the background agent's report", lambda: by_testid(driver, "task-result"))
    assert "badgerword" in text_of(report[0]), text_of(report[0])
    # 4: the /rename the person ran is shown as their command, with its output.
    commands = [text_of(c) for c in by_testid(driver, "command")]
    assert any("/rename renamed-by-claude" in c for c in commands), commands
    # 5: the question with its options and the answer picked.
    chosen = [o for o in by_testid(driver, "question-option") if o.get_attribute("data-chosen") == "true"]
    assert [text_of(o).split("—")[0].strip() for o in chosen] == ["Red"], [text_of(o) for o in chosen]
    assert "You answered: Red" in text_of(one(driver, "question-answer"))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", one(driver, "questions"))
    shot(driver, f"63-real-client-{theme}-interactive")


def check_unanswered(driver, sid):
    open_by_link(driver, sid)
    status = wait_until("the question's state", lambda: [s for s in by_testid(driver, "tool-status")
                                                          if "unanswered" in text_of(s)])
    assert "pending" not in text_of(status[0]), text_of(status[0])
    assert "Unanswered" in text_of(one(driver, "question-answer"))


def check_delegated(driver, sid, theme):
    open_by_link(driver, sid)
    call = wait_until("the Agent call", lambda: [c for c in by_testid(driver, "tool-call")
                                                 if "Agent" in text_of(c)])[0]
    click(driver, call.find_element(By.CSS_SELECTOR, "button.head"))
    out = wait_until("the report", lambda: by_testid(driver, "tool-output"))[0]
    assert text_of(out).strip() == "The subagent looked: badgerword.", text_of(out)
    frame = one(driver, "output-details")
    assert frame.get_attribute("open") is None, "the frame is folded"
    assert "[Subagent hand-back]" in text_of(frame)
    shot(driver, f"64-real-client-{theme}-subagent-report")


def check_splitter_drag(driver):
    # 2: a real pointer drag (WebDriver actions, as a mouse) of the list's splitter.
    driver.execute_script("location.hash = '#view=chats'; location.reload();")
    split = wait_until("the list's splitter", lambda: [s for s in driver.find_elements(By.CSS_SELECTOR, '[role="separator"]')
                                                       if s.get_attribute("aria-label") == "Resize the list"])[0]
    before = int(split.get_attribute("aria-valuenow"))
    # The handle is a 0-px grid column with a 6-px grip around it: pressed at its x, by coordinates.
    x, y = driver.execute_script("const r = arguments[0].getBoundingClientRect();"
                                 "return [Math.round(r.left), Math.round(r.top + r.height / 2)]", split)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(x, y).pointer_down()
    for dx, dy in ((-40, -120), (60, 80), (120, 200)):
        actions.pointer_action.move_to_location(x + dx, y + dy)
    actions.pointer_action.pointer_up()
    actions.perform()
    after = int(split.get_attribute("aria-valuenow"))
    selected = driver.execute_script("return String(window.getSelection())")
    assert after != before, f"the splitter did not move ({before})"
    assert selected == "", f"dragging the splitter selected text: {selected[:80]!r}"
    log(f"splitter dragged {before} → {after} px with nothing selected")


def check_narrow_and_wide(driver, sid):
    # 12: at 900 px the sidebar is a rail of icons; at 1900 px the transcript keeps a readable measure.
    size = driver.get_window_size()
    try:
        driver.set_window_size(900, 700)
        open_by_link(driver, sid)
        side = wait_until("the rail", lambda: [s for s in by_testid(driver, "sidebar")
                                               if "compact" in (s.get_attribute("class") or "")])
        assert side[0].size["width"] <= 60, side[0].size
        # The transcript's header keeps to its main facts (the minor ones are in a tooltip).
        shown = driver.execute_script(
            "return [...document.querySelectorAll('.head .minor')].filter(e => getComputedStyle(e).display !== 'none').length")
        assert shown == 0, f"{shown} minor facts still shown in a narrow header"
        shot(driver, "65-narrow-rail")
        click(driver, one(driver, "sidebar-toggle"))
        wait_until("the sidebar over the page", lambda: "overlay" in one(driver, "sidebar").get_attribute("class"))
        shot(driver, "66-narrow-rail-open")
        click(driver, one(driver, "sidebar-toggle"))
        driver.set_window_size(1900, 1000)
        wait_until("the full sidebar", lambda: "compact" not in one(driver, "sidebar").get_attribute("class"))
        widest = driver.execute_script(
            "return Math.max(...[...document.querySelectorAll('[data-testid=message]')].map(m => m.getBoundingClientRect().width))")
        assert widest <= 1000, f"a message spreads {widest:.0f} px wide"
        shot(driver, "67-wide-transcript")
    finally:
        driver.set_window_size(size["width"], size["height"])
