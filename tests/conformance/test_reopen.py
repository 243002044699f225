"""Reopening recent work with the real client, as after a restart.

Five folders (git repositories; one with a planted `core.fsmonitor` and a `clean` filter, one
with a name a shell would read as a command) each hold an interactive conversation, and a sixth
holds only a `claude -p` run. No `claude` runs. `corral-cli reopen --all`, with a tmux terminal
template, starts five real interactive `claude` processes, each on its folder's conversation in
that folder, all reported started; the `-p` folder is named as left out; the planted commands
never run. Then, with one folder held by a real `claude --continue` and another no longer
trusted, that folder is skipped as occupied, the other four start, and the untrusted one is
reported as waiting at Claude Code's trust question — which its screen shows.
"""

import json
import os
import subprocess
import time
import unittest
from pathlib import Path

from harness import Home, Terminal, eventually
from standin import StandIn, last_user_text, text

NAMES = ["alpha", "beta two", "gamma $(touch pwned) 'q'", "delta", "epsilon"]


def claude_pids_under(root):
    """The `claude` processes whose working directory is under `root`, by pid."""
    found = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if (d / "comm").read_text().strip() != "claude":
                continue
            cwd = os.readlink(d / "cwd")
            stat = (d / "stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[-1].split()[0] in ("Z", "X"):
            continue
        if cwd.startswith(str(root)):
            found[int(d.name)] = cwd
    return found


def git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, timeout=60)


class ReopeningRecentWork(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = Home()
        cls.api = StandIn(cls.reply).__enter__()
        cls.term = Terminal(cls.home, cls.api)
        cls.folders = [cls.home.folder(n) for n in NAMES]
        cls.marker = cls.home.root / "planted-command-ran"
        for i, f in enumerate(cls.folders):
            git(f, "init", "-q", "-b", "main")
            (f / "README").write_text("folder %d\n" % i)
            git(f, "add", "README")
            git(f, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
        planted = cls.folders[3]
        git(planted, "config", "core.fsmonitor", "touch %s; false" % cls.marker)
        git(planted, "config", "filter.evil.clean", "touch %s; cat" % cls.marker)
        (planted / ".gitattributes").write_text("* filter=evil\n")
        # A changed file of the same size: git must look at its content (the filter's moment).
        (planted / "README").write_text("folder 9\n")
        cls.sids = {}
        for i, f in enumerate(cls.folders):
            name = "make%d" % i
            cls.term.start(name, f)
            cls.term.type(name, "note for f%d" % i)
            cls.term.wait_for(name, "Noted: f%dword" % i)
            cls.term.type(name, "/exit")
        cls.printed = cls.home.folder("print only")
        cls.home.claude_p(cls.api, cls.printed, "a print run")
        eventually(lambda: not claude_pids_under(cls.home.root), "every claude to exit")
        for s in cls.home.sessions():
            cls.sids[s["workingDirectory"]] = s["sessionId"]

    @classmethod
    def tearDownClass(cls):
        cls.term.stop()
        cls.api.__exit__(None, None, None)
        cls.home.remove()

    @staticmethod
    def reply(request):
        said = last_user_text(request)
        return [text("Noted: %sword." % (said.split()[-1] if said.split() else "none"))]

    def restart_terminals(self):
        """Ends every terminal (and so every claude) and starts a fresh tmux server."""
        self.term.stop()
        eventually(lambda: not claude_pids_under(self.home.root), "every claude to exit")
        type(self).term = Terminal(self.home, self.api)

    def reopen(self, *args):
        template = "tmux -S %s new-session -d -x 160 -y 50 -c {cwd} {command}" % self.term.sock
        # The person's environment: `claude` on the PATH the terminal gets.
        env = self.home.env(self.api)
        return self.home.corral("reopen", "--terminal", template, "--start-timeout", "30", *args, env=env)

    def screen_of(self, pid):
        panes = self.term.tmux("list-panes", "-a", "-F", "#{pane_pid} #{session_name}").stdout.split("\n")
        for line in panes:
            p, _, name = line.partition(" ")
            if p == str(pid):
                return self.term.screen(name)
        return ""

    def check_started(self, row):
        """The row's process is a real claude on its conversation, in its folder."""
        self.assertEqual(row["result"], "started", row)
        pid = row["pid"]
        cmd = Path("/proc/%d/cmdline" % pid).read_bytes().split(b"\0")
        self.assertIn(b"--resume", cmd)
        self.assertEqual(cmd[cmd.index(b"--resume") + 1].decode(), row["sessionId"])
        self.assertEqual(os.readlink("/proc/%d/cwd" % pid), row["folder"])
        self.assertEqual(self.sids[row["folder"]], row["sessionId"])

    def test_1_every_free_folder_starts_verified_and_nothing_planted_runs(self):
        listed = self.home.corral("reopen", env=self.home.env(self.api))
        self.assertIsNone(listed["report"])
        self.assertEqual(listed["chosen"], [])
        rows = listed["recent"]["rows"]
        self.assertEqual(sorted(r["folder"] for r in rows), sorted(str(f) for f in self.folders))
        self.assertTrue(all(r["state"] == "free" for r in rows), rows)
        [left] = listed["recent"]["leftOut"]
        self.assertEqual((left["folder"], left["reason"]), (str(self.printed), "not-interactive"))
        by_folder = {r["folder"]: r for r in rows}
        planted = by_folder[str(self.folders[3])]["git"]
        self.assertEqual(planted["kind"], "repository", planted)
        self.assertEqual((planted["branch"], planted["changed"]), ("main", 1), planted)
        self.assertEqual(len({r["remoteName"] for r in rows}), 5)

        dry = self.reopen("--all", "--dry-run")
        self.assertIsNone(dry["report"])
        self.assertEqual(sorted(dry["chosen"]), sorted(r["sessionId"] for r in rows))
        self.assertEqual(claude_pids_under(self.home.root), {}, "a dry run starts nothing")

        done = self.reopen("--all")
        report = done["report"]
        self.assertEqual((report["started"], report["failed"], report["skipped"]), (5, 0, 0), report)
        for row in report["rows"]:
            self.check_started(row)
            folder = Path(row["folder"])
            i = self.folders.index(folder)
            eventually(lambda: "f%dword" % i in self.screen_of(row["pid"]), "the history on screen")
        self.assertFalse(self.marker.exists(), "a planted fsmonitor or filter ran")
        self.assertFalse(any(p.name == "pwned" for p in self.home.root.rglob("pwned")))
        # The plant is real: a plain `git status` there runs it.
        subprocess.run(["git", "-C", str(self.folders[3]), "status"], capture_output=True, timeout=60)
        self.assertTrue(self.marker.exists(), "the planted command is one git runs")
        self.marker.unlink()
        self.restart_terminals()

    def test_2_a_held_folder_is_skipped_and_an_untrusted_one_waits_at_the_question(self):
        held, untrusted = self.folders[0], self.folders[4]
        self.term.start("held", held, "--continue")
        config = self.home.claude / ".claude.json"
        data = json.loads(config.read_text())
        data["projects"][str(untrusted)]["hasTrustDialogAccepted"] = False
        config.write_text(json.dumps(data))

        done = self.reopen("--all")
        rows = {r["folder"]: r for r in done["recent"]["rows"]}
        self.assertEqual(rows[str(held)]["state"], "occupied")
        self.assertIn("--continue", rows[str(held)]["why"])
        self.assertIs(rows[str(untrusted)]["trusted"], False)
        report = done["report"]
        self.assertEqual((report["started"], report["failed"], report["skipped"]), (4, 0, 0), report)
        self.assertNotIn(str(held), [r["folder"] for r in report["rows"]])
        for row in report["rows"]:
            self.check_started(row)
        [waiting] = [r for r in report["rows"] if r["folder"] == str(untrusted)]
        self.assertIn("trust", waiting["why"])
        eventually(lambda: "trust" in self.screen_of(waiting["pid"]).lower(), "the trust question on screen")
        # Still exactly one claude in the held folder: the --continue one.
        in_held = [p for p, cwd in claude_pids_under(self.home.root).items() if cwd == str(held)]
        self.assertEqual(len(in_held), 1, in_held)
        time.sleep(0.1)


if __name__ == "__main__":
    unittest.main()
