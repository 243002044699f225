"""What Corral writes, Claude Code accepts: sessions Corral places resume in the real client, and
`corral-cli resume` starts a real interactive `claude` on the id — once.

Each test makes a session with the pinned client (`claude -p`), has Corral act on it, then has
the client resume it. The stand-in records what the client sent, so "it resumed" means the
client replayed the whole earlier conversation to the API, not merely that it exited 0.
"""

import shutil
import unittest

from harness import Home, Terminal, eventually
from standin import StandIn, last_user_text, text

FIRST = "remember the quetzalword for later"


def reply(request):
    said = last_user_text(request)
    if "quetzalword" in said:
        return [text("Noted: the answer holds jaguarword.")]
    return [text("Continuing: tapirword.")]


def replayed(request):
    """Whether a request carried the first turn's prompt and answer (the resumed history)."""
    sent = str(request.get("messages"))
    return "quetzalword" in sent and "jaguarword" in sent


class RoundTrips(unittest.TestCase):
    def setUp(self):
        self.api = StandIn(reply).__enter__()
        self.homes = []

    def tearDown(self):
        self.api.__exit__(None, None, None)
        for h in self.homes:
            h.remove()

    def home(self):
        h = Home()
        self.homes.append(h)
        return h

    def made_session(self, home, folder):
        """A `-p` session in `folder` of `home`; its transcript's path."""
        cwd = home.folder(folder)
        home.claude_p(self.api, cwd, FIRST)
        [path] = home.transcripts()
        return cwd, path

    def resume_p(self, home, cwd, sid, prompt):
        """`claude --resume SID -p PROMPT`; the request it sent."""
        before = len(self.api.requests)
        home.claude_p(self.api, cwd, prompt, "--resume", sid)
        self.assertEqual(len(self.api.requests), before + 1)
        return self.api.requests[before]

    def test_a_session_imported_into_another_home_resumes_there(self):
        a, b = self.home(), self.home()
        cwd, path = self.made_session(a, "origin ✈ folder")
        report = b.corral("import", "--claude-home-target", str(path))
        self.assertEqual(len(report["placed"]), 1, report)
        [placed] = b.transcripts()
        self.assertEqual(placed.name, path.name)
        self.assertEqual(placed.read_bytes(), path.read_bytes(), "placed as written")

        sent = self.resume_p(b, cwd, path.stem, "carry on with the importedword")
        self.assertTrue(replayed(sent), "the client loaded the placed history")
        [s] = b.sessions()
        users = [m["content"] for m in b.corral("show", s["sessionId"])["messages"] if m["role"] == "user"]
        self.assertEqual(users, [FIRST, "carry on with the importedword"])
        self.assertEqual(b.transcripts(), [placed], "the client appended to the placed file")

    def test_a_session_moved_into_an_agent_resumes_from_the_agent_s_folder(self):
        h = self.home()
        _, path = self.made_session(h, "somewhere else")
        agent_dir = h.folder("keeper's workspace")
        fleet = h.root / "fleet"
        (fleet / "agents").mkdir(parents=True)
        (fleet / "agents" / "keeper.yaml").write_text(
            "name: keeper\nruntime: cli\nworking_directory: %s\n" % agent_dir
        )
        (fleet / "herdctl.yaml").write_text(
            "version: 1\nfleet:\n  name: conformance\nagents:\n  - path: ./agents/keeper.yaml\n"
        )
        f = ["--fleet", str(fleet / "herdctl.yaml")]
        h.corral(*f, "import", "--agent", "keeper", "--mode", "move", str(path))
        self.assertFalse(path.exists(), "moved, not copied")
        [moved] = h.transcripts()
        self.assertNotEqual(moved.parent, path.parent)

        sent = self.resume_p(h, agent_dir, path.stem, "the keeper goes on: keeperword")
        self.assertTrue(replayed(sent), "the client found the session in the agent's folder")
        [s] = [s for g in h.corral(*f, "sessions")["groups"] for s in g["sessions"]]
        self.assertEqual((s["sessionId"], s["agentName"]), (path.stem, "keeper"), s)
        self.assertEqual(h.transcripts(), [moved])

    def test_corral_resume_starts_a_real_claude_on_the_id_and_refuses_a_second(self):
        h = self.home()
        cwd, path = self.made_session(h, "resume here")
        sid = path.stem
        h.trust(cwd)
        term = Terminal(h, self.api)
        self.addCleanup(term.stop)
        template = "tmux -S %s new-session -d -x 160 -y 50 -c {cwd} {command}" % term.sock
        self.assertNotIn(" ", term.sock, "the template is split on spaces")
        env = term.env

        started = h.corral("resume", sid, "--terminal", template, env=env)
        self.assertIsNone(started.get("reason"), started)
        pid = started["pid"]
        self.assertIsInstance(pid, int)
        [window] = term.tmux("list-sessions", "-F", "#{session_name}").stdout.split()
        term.wait_for(window, "jaguarword")
        status = h.status(sid)
        self.assertEqual((status["state"], status["pid"]), ("idle", pid), status)

        second = h.corral_run("resume", sid, "--terminal", template, env=env)
        self.assertNotEqual(second.returncode, 0, second.stdout)
        self.assertIn("not resumed", second.stderr)
        self.assertEqual(len(term.tmux("list-sessions").stdout.splitlines()), 1, "no second claude on it")

        term.type(window, "and a live turn: liveword")
        term.wait_for(window, "tapirword")
        sent = self.api.requests[-1]
        self.assertTrue(replayed(sent) and "liveword" in str(sent["messages"]), "one conversation")


if __name__ == "__main__":
    unittest.main()
