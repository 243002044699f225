"""Deleting with the real client: a session Corral deletes is gone for Claude Code (it does not
resume, the picker does not list it) together with what it left behind, its undo brings the whole
tree back byte for byte and the session resumes with its history, and a session an interactive
`claude` holds is not deleted.

Two interactive sessions are made in one folder (the picker lists only interactive ones); the
first writes a file and runs a command, so the client keeps `file-history/<sid>/` and
`session-env/<sid>/` for it besides the transcript.
"""

import hashlib
import json
import subprocess
import unittest

from harness import Home, Terminal, client_bin, eventually
from standin import StandIn, has_tool_result, last_user_text, text, tool_use

FIRST = "keep the ocelotword safe"
SECOND = "a second talk about herons"


class DeletingWithTheRealClient(unittest.TestCase):
    def setUp(self):
        self.home = Home()
        self.cwd = self.home.folder("zoo ✿")
        # Tools allowed without asking, as a person's settings would.
        (self.home.claude / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Write", "Bash"]}}))
        self.api = StandIn(self.reply).__enter__()
        self.term = Terminal(self.home, self.api)
        self.term.start("first", self.cwd)
        self.term.type("first", FIRST)
        self.term.wait_for("first", "margayword")
        self.term.type("first", "/exit")
        [self.path] = self.home.transcripts()
        self.sid = self.path.stem
        self.term.start("second", self.cwd)
        self.term.type("second", SECOND)
        self.term.wait_for("second", "egretword")
        self.term.type("second", "/exit")
        eventually(lambda: len(self.home.transcripts()) == 2, "the second transcript")
        eventually(lambda: self.home.status(self.sid)["state"] == "not-running", "the first claude to exit")

    def reply(self, request):
        said = last_user_text(request)
        results = json.dumps(request.get("messages")).count('"tool_result"')
        if "ocelotword" in json.dumps(request.get("messages")) and results < 2:
            if results == 0:
                return [tool_use("w1", "Write", {"file_path": str(self.cwd / "notes.txt"), "content": "ocelot\n"})]
            return [tool_use("b1", "Bash", {"command": "cat notes.txt", "description": "read the notes"})]
        if has_tool_result(request):
            return [text("Saved it: margayword.")]
        if "herons" in said:
            return [text("Herons: egretword.")]
        return [text("Continuing: tapirword.")]

    def tearDown(self):
        self.term.stop()
        self.api.__exit__(None, None, None)
        self.home.remove()

    def tree(self):
        """Every file of the session's under the Claude home, with its bytes' hash."""
        out = {}
        for p in sorted(self.home.claude.rglob("*")):
            rel = p.relative_to(self.home.claude)
            if self.sid in str(rel) and (p.is_file() or p.is_dir()):
                out[str(rel)] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        return out

    def resume_p(self, prompt):
        env = self.home.env(self.api)
        cmd = [client_bin(), "--resume", self.sid, "--dangerously-skip-permissions", "-p", prompt]
        return subprocess.run(cmd, cwd=self.cwd, env=env, capture_output=True, text=True, timeout=120)

    def test_a_deleted_session_is_gone_for_the_client_and_its_undo_brings_it_back_whole(self):
        before = self.tree()
        kinds = {k.split("/")[0] for k in before}
        self.assertLessEqual({"projects", "file-history", "session-env"}, kinds, before)
        self.assertEqual(sorted(self.term.picker_titles(self.cwd)), sorted([FIRST, SECOND]))

        report = self.home.corral("delete", self.sid)
        self.assertEqual(report["deleted"], [self.sid], report)
        self.assertEqual(self.tree(), {}, "nothing of it is left in the Claude home")
        gone = self.resume_p("are you there")
        self.assertNotEqual(gone.returncode, 0, gone.stdout)
        self.assertIn("No conversation found", gone.stdout + gone.stderr)
        self.assertEqual(self.term.picker_titles(self.cwd), [SECOND])
        [held] = self.home.corral("quarantine", "list")
        self.assertEqual([s["sessionId"] for s in held["sessions"]], [self.sid])

        undone = self.home.corral("undo", report["runId"])
        self.assertEqual(undone["notUndone"], [], undone)
        self.assertEqual(self.tree(), before, "the tree is back byte for byte")
        before_resume = len(self.api.requests)
        back = self.resume_p("what was the word")
        self.assertEqual(back.returncode, 0, back.stderr)
        sent = str(self.api.requests[before_resume].get("messages"))
        self.assertIn("ocelotword", sent, "the client replayed the restored history")
        self.assertIn("margayword", sent)
        self.assertEqual(sorted(self.term.picker_titles(self.cwd)), sorted(["what was the word", SECOND]))

    def test_a_session_an_interactive_claude_holds_is_not_deleted(self):
        self.term.start("open", self.cwd, "--resume", self.sid)
        self.term.wait_for("open", "margayword")
        before = self.tree()
        report = self.home.corral("delete", self.sid)
        self.assertIsNone(report["runId"], report)
        self.assertEqual([r["sessionId"] for r in report["refused"]], [self.sid])
        self.assertIn("claude process", report["refused"][0]["reason"])
        self.assertEqual(self.tree(), before, "nothing moved")
        self.assertEqual(self.home.corral("quarantine", "list"), [])


if __name__ == "__main__":
    unittest.main()
