"""What every conformance test needs: the pinned Claude Code, corral-cli, a home in a temp dir,
and the stand-in API between them.

The client comes from `CLAUDE_CODE_BIN` (set by `make conformance`, which installs the pinned
version once per machine into `~/.cache/corral-dev/claude-code/<version>/`); corral-cli from
`CORRAL_CLI`. Homes live under `target/conformance/` (not `/tmp`: Corral treats `/tmp` folders as
temporary ones), one per test class, removed afterwards.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = (Path(__file__).parent / "CLAUDE_CODE_VERSION").read_text().strip()
API_KEY = "sk-standin-conformance"


def client_bin():
    found = os.environ.get("CLAUDE_CODE_BIN")
    if not found or not Path(found).is_file():
        raise unittest.SkipTest("no Claude Code client (run `make conformance`, which installs it)")
    return found


def client_version():
    """What the client says it is (`2.1.332 (Claude Code)` → `2.1.332`)."""
    out = subprocess.run([client_bin(), "--version"], capture_output=True, text=True, timeout=60).stdout
    return out.split()[0] if out.split() else ""


def eventually(probe, what, timeout=30.0):
    """Polls `probe()` until it returns something true; fails naming `what` and the last value."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("%s: not within %.0f s (last: %r)" % (what, timeout, got))
        time.sleep(0.25)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def corral_bin():
    found = os.environ.get("CORRAL_CLI") or str(ROOT / "target" / "debug" / "corral-cli")
    if not Path(found).is_file():
        raise unittest.SkipTest("no corral-cli (cargo build -p corral-cli)")
    return found


class Home:
    """A Claude home and a HOME of its own, in a temp dir under target/conformance/."""

    def __init__(self):
        base = ROOT / "target" / "conformance"
        base.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="home-", dir=base))
        self.home = self.root / "home"
        self.claude = self.root / "claude"
        self.data = self.root / "corral-data"
        # The client keeps task output under $TMPDIR/claude-<uid>/: inside the test's dir too.
        self.tmp = self.root / "tmp"
        for d in (self.home, self.claude, self.tmp):
            d.mkdir()

    def folder(self, name):
        """A working directory for a session (created)."""
        d = self.root / "work" / name
        d.mkdir(parents=True, exist_ok=True)
        return d

    def env(self, api):
        return {
            # `claude` on the PATH is the pinned client (a link named `claude`, so the process
            # table shows the name a person's machine shows).
            "PATH": "%s:/usr/bin:/bin" % Path(client_bin()).parent,
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "ANTHROPIC_BASE_URL": api.url,
            "ANTHROPIC_API_KEY": API_KEY,
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",
            "TMPDIR": str(self.tmp),
            # The work folders are inside this repository's tree: git must not find it.
            "GIT_CEILING_DIRECTORIES": str(self.root),
        }

    def trust(self, *folders):
        """Skips the interactive client's first-run screens (onboarding, the API key, trusting
        each folder) the way a person's answers would be recorded in `.claude.json`."""
        config = self.claude / ".claude.json"
        data = json.loads(config.read_text()) if config.exists() else {}
        data["hasCompletedOnboarding"] = True
        # The client records an approved key by its last 20 characters.
        data["customApiKeyResponses"] = {"approved": [API_KEY, API_KEY[-20:]], "rejected": []}
        projects = data.setdefault("projects", {})
        for f in folders:
            projects.setdefault(str(f), {})["hasTrustDialogAccepted"] = True
        config.write_text(json.dumps(data))

    def claude_p(self, api, cwd, prompt, *args, timeout=120):
        """`claude -p PROMPT` in `cwd` (tools allowed); returns the completed process."""
        cmd = [client_bin(), *args, "--dangerously-skip-permissions", "-p", prompt]
        p = subprocess.run(cmd, cwd=cwd, env=self.env(api), capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise AssertionError("claude failed (%d): %s %s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
        return p

    def corral_run(self, *args, env=None):
        """`corral-cli --json ARGS` on this home; returns the completed process."""
        cmd = [corral_bin(), "--claude-home", str(self.claude), "--data-dir", str(self.data), "--json", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)

    def corral(self, *args, env=None):
        """`corral-cli --json ARGS` on this home; returns its JSON."""
        p = self.corral_run(*args, env=env)
        if p.returncode != 0:
            raise AssertionError("corral-cli %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
        return json.loads(p.stdout)

    def status(self, sid):
        """Corral's live state of one session (`None` when it is not listed)."""
        return next((s for s in self.corral("status") if s["sessionId"] == sid), None)

    def sessions(self):
        return [s for g in self.corral("sessions")["groups"] for s in g["sessions"]]

    def transcripts(self):
        return sorted((self.claude / "projects").glob("*/*.jsonl"))

    def remove(self):
        """Records what the client wrote, by kind (the run's drift report: `drift.py`), then
        removes the home (kept when `CONFORMANCE_KEEP` is set, to look at)."""
        try:
            survey = self.corral("formats")
            out = ROOT / "target" / "conformance" / "formats"
            out.mkdir(parents=True, exist_ok=True)
            (out / (self.root.name + ".json")).write_text(json.dumps(survey))
        finally:
            if not os.environ.get("CONFORMANCE_KEEP"):
                shutil.rmtree(self.root, ignore_errors=True)


class Terminal:
    """Interactive `claude` processes in a tmux server of the test's own (its socket in the
    home's dir), each in a real terminal of 160×50, so the process table holds what a person's
    machine holds. The server starts with the home's environment, which every window inherits."""

    def __init__(self, home, api):
        self.home = home
        self.sock = str(home.root / "tmux.sock")
        self.env = home.env(api)
        # The server stays up with no sessions: otherwise the last window's exit shuts it down,
        # and a window started while it is shutting down fails ("server exited unexpectedly").
        self.tmux("start-server", ";", "set-option", "-g", "exit-empty", "off")

    def tmux(self, *args, check=True):
        done = subprocess.run(["tmux", "-S", self.sock, *args], env=self.env, capture_output=True, text=True, timeout=30)
        if check and done.returncode != 0:
            raise AssertionError("tmux %s failed (%d): %s" % (" ".join(args[:3]), done.returncode, done.stderr.strip()))
        return done

    def start(self, name, cwd, *args, ready=True):
        """`claude ARGS` in `cwd`, in a window called `name`; returns once its prompt is drawn
        (at once with `ready=False`, for a screen that is no prompt, such as the picker)."""
        self.home.trust(cwd)
        self.tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", str(cwd), "--", client_bin(), *args)
        if ready:
            self.wait_ready(name)

    def wait_ready(self, name):
        # The prompt box is drawn (its footer shows the permission mode) before keys are read.
        eventually(lambda: "❯" in self.screen(name) and "⏵⏵" in self.screen(name), "the prompt of %s" % name)
        time.sleep(0.5)

    def screen(self, name):
        return self.tmux("capture-pane", "-p", "-t", name, check=False).stdout

    def wait_for(self, name, *texts, timeout=30.0):
        """Waits until the window shows every one of `texts`; fails showing the screen."""
        try:
            eventually(lambda: all(t in self.screen(name) for t in texts), "%r on screen" % (texts,), timeout)
        except AssertionError as e:
            raise AssertionError("%s; the screen:\n%s" % (e, self.screen(name))) from None

    def type(self, name, text):
        """Types `text`, waits until the prompt box shows it, and presses Enter."""
        self.tmux("send-keys", "-t", name, "-l", text)
        # The box's line: "❯", a no-break space, what was typed.
        in_box = lambda: any(l.startswith("❯") and l[1:].strip() == text for l in self.screen(name).splitlines())
        try:
            eventually(in_box, "%r in the prompt box" % text, timeout=10)
        except AssertionError as e:
            raise AssertionError("%s; the screen:\n%s" % (e, self.screen(name))) from None
        time.sleep(0.2)
        self.tmux("send-keys", "-t", name, "Enter")

    def keys(self, name, *keys):
        self.tmux("send-keys", "-t", name, *keys)

    def picker_titles(self, cwd):
        """The titles `claude --resume` (the picker) lists in `cwd`, as its screen shows them."""
        self.start("picker", cwd, "--resume", ready=False)
        try:
            self.wait_for("picker", "Resume session", "Enter to resume")
            time.sleep(0.5)
            rows = [l.strip() for l in self.screen("picker").splitlines()]
            return [r.lstrip("❯").strip() for r in rows if r and rows.index(r) > 0 and self._is_title(rows, r)]
        finally:
            pid = self.tmux("display-message", "-p", "-t", "picker", "#{pane_pid}", check=False).stdout.strip()
            self.keys("picker", "Escape")
            self.tmux("kill-session", "-t", "picker", check=False)
            # Gone from the process table before the test goes on (a picker is a `claude` in
            # the session's folder: Corral's guard would count it).
            if pid.isdigit():
                eventually(lambda: not _alive(int(pid)), "the picker's exit", timeout=15)

    @staticmethod
    def _is_title(rows, row):
        # A title row is followed by its "… ago · branch · size" row.
        i = rows.index(row)
        return i + 1 < len(rows) and " · " in rows[i + 1] and ("ago" in rows[i + 1] or rows[i + 1].startswith("now"))

    def pid(self, name):
        return int(self.tmux("display-message", "-p", "-t", name, "#{pane_pid}").stdout.strip())

    def stop(self):
        """Ends the server and every window in it; waits until the server is gone (a server left
        running keeps its `claude` processes, and their files, after the test)."""
        servers = self._server_pids()
        self.tmux("kill-server", check=False)
        try:
            eventually(lambda: not any(_alive(p) for p in servers), "the tmux server's exit", timeout=10)
        except AssertionError:
            for p in servers:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def _server_pids(self):
        """The tmux servers on this terminal's socket (Linux: read from /proc)."""
        found = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                argv = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv and Path(argv[0].decode(errors="replace")).name == "tmux" and self.sock.encode() in argv:
                found.append(int(d.name))
        return found
