"""What the e2e suite (`run_e2e.py`) and the UI benchmark (`bench_ui.py`) share: starting the real
app through tauri-driver + WebKitWebDriver with an isolated environment, waiting, finding elements
and checking that what is on screen is painted."""

import io
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions

ROOT = Path(__file__).resolve().parents[2]
APP = Path(os.environ.get("CORRAL_APP", ROOT / "target" / "debug" / "corral")).resolve()
TAURI_DRIVER = os.environ.get("TAURI_DRIVER", str(ROOT / ".tools" / "bin" / "tauri-driver"))
NATIVE_DRIVER = os.environ.get("WEBKIT_WEBDRIVER", "/usr/bin/WebKitWebDriver")
TIMEOUT = float(os.environ.get("E2E_TIMEOUT", "20"))
SHOTS = Path(os.environ.get("E2E_SCREENSHOTS", ROOT / "target" / "e2e-screenshots"))


def log(msg, prefix="e2e"):
    print(f"[{prefix}] {msg}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, fn, timeout=TIMEOUT, every=0.25):
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
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}" + (f" ({last})" if last else ""))


class Options(ArgOptions):
    def to_capabilities(self):
        return {"browserName": "wry", "tauri:options": {"application": str(APP)}}


def by_testid(driver, testid):
    return driver.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')


def text_of(el):
    """The element's textContent (WebDriver's visible-text algorithm drops some styled text)."""
    return el.get_property("textContent") or ""


def click(driver, el):
    """Clicks through the DOM (a WebDriver click can be refused by an overlapping sticky header)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'nearest'}); arguments[0].click();", el)


def one(driver, testid, what=None):
    return wait_until(what or testid, lambda: by_testid(driver, testid))[0]


def app_env(home, claude, data, fleet=None):
    """The app's environment: every place it reads or writes is under the given temp paths."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CORRAL_FLEET"):
        env.pop(var, None)
    env.update({
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CORRAL_DATA_DIR": str(data),
        "NO_AT_BRIDGE": "1",
    })
    if fleet:
        env["CORRAL_FLEET"] = str(fleet)
    return env


class Driver:
    """tauri-driver on free ports, logging into `log_path`; `session()` starts the app."""

    def __init__(self, env, log_path):
        self.port, native_port = free_port(), free_port()
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [TAURI_DRIVER, "--port", str(self.port), "--native-port", str(native_port),
             "--native-driver", NATIVE_DRIVER],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until("tauri-driver to listen", lambda: urllib.request.urlopen(
            f"http://127.0.0.1:{self.port}/status", timeout=1).status == 200, timeout=15)

    def session(self):
        """Starts the app and returns the WebDriver session on its window."""
        driver = webdriver.Remote(command_executor=f"http://127.0.0.1:{self.port}", options=Options())
        driver.set_script_timeout(60)
        return driver

    def app_pids(self):
        """The app's process and its WebKit web process (None when not found)."""
        children = _children()
        app = web = None
        for pid in _descendants(self.proc.pid, children):
            exe = _exe(pid)
            if exe and Path(exe).name == APP.name:
                app = pid
        if app is not None:
            for pid in _descendants(app, children):
                if (_comm(pid) or "").startswith("WebKitWebProces"):
                    web = pid
        return app, web

    def close(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)
        self.log.close()


def _children():
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        out.setdefault(ppid, []).append(int(entry.name))
    return out


def _descendants(pid, children):
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            seen.append(c)
            todo.append(c)
    return seen


def _exe(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def _comm(pid):
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def rss_mb(pid):
    """Resident memory of a process in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    """User + system CPU time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def screenshot(driver):
    """The page as the X server shows it (an RGB image), and the factor from CSS pixels to its
    pixels. Taken from the screen, not through WebDriver: WebKitWebDriver's snapshot never returns
    when the app draws without GPU compositing (what it does where there is no GPU, as here), and
    the screen is what a person sees. Under Xvfb with no window manager the window has no frame:
    the page starts at the window's position."""
    x, y, w, h, scale = driver.execute_script(
        "return [window.screenX, window.screenY, window.innerWidth, window.innerHeight,"
        " window.devicePixelRatio || 1]")
    png = subprocess.run(["import", "-window", "root", "png:-"], check=True, capture_output=True,
                         timeout=30).stdout
    box = tuple(round(v * scale) for v in (x, y, x + w, y + h))
    return Image.open(io.BytesIO(png)).convert("RGB").crop(box), scale


def blank_rows(driver, testid="session-row", img=None):
    """Rows with this test id that are on screen but not painted (their rectangle in a real
    screenshot holds fewer than three colours). WebKitGTK once drew a `contain: strict` list half
    blank: the rows in the DOM, their pixels not."""
    if img is None:
        img, scale = screenshot(driver)
    else:
        img, scale = img
    blank = []
    for row in by_testid(driver, testid):
        r = driver.execute_script("const b = arguments[0].getBoundingClientRect(); "
                                  "return [b.left, b.top, b.right, b.bottom];", row)
        box = [int(v * scale) for v in r]
        if box[1] < 0 or box[3] > img.height or box[3] - box[1] < 10:
            continue  # not on screen
        colours = img.crop(box).getcolors(maxcolors=4096)
        if colours is not None and len(colours) < 3:
            blank.append(text_of(row)[:40])
    return blank


def blank_bands(img, scale, rect, band_css=46):
    """Horizontal bands (one row high) of the list's on-screen rectangle `rect` (CSS pixels:
    left, top, right, bottom) that hold a single colour: rows the list had not drawn when the
    frame was shown (a list of sessions has text in every row). Returns their tops, in CSS px."""
    left, top, right, bottom = rect
    out = []
    y = top
    while y + band_css <= bottom:
        box = (int(left * scale), int(y * scale), int(right * scale), int((y + band_css) * scale))
        colours = img.crop(box).getcolors(maxcolors=4096)
        if colours is not None and len(colours) < 2:
            out.append(round(y - top))
        y += band_css
    return out


def shot(driver, name):
    # A screenshot taken right after a DOM change can show the previous frame: let it paint.
    time.sleep(1.0)
    path = SHOTS / f"{name}.png"
    screenshot(driver)[0].save(path)
    log(f"screenshot {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def quit_app(driver, tauri):
    """Ends the WebDriver session (if one started) and tauri-driver with the app."""
    if driver is not None:
        try:
            driver.quit()
        except WebDriverException:
            pass
    if tauri is not None:
        tauri.close()


def set_theme(driver, choice):
    click(driver, one(driver, f"theme-{choice}"))
    wait_until(f"the {choice} theme", lambda: driver.execute_script(
        "return document.documentElement.dataset.theme") == choice)


def open_by_link(driver, sid):
    """Opens a session through the app's deep link (the page reloads and reads its hash)."""
    driver.execute_script(f"location.hash = '#view=chats&open={sid}'; location.reload();")
    time.sleep(0.5)
    wait_until(f"session {sid[:8]} open", lambda: by_testid(driver, "transcript"))
