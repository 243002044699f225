"""Names Claude Code shows: a rename in Corral is the title in `claude --resume`'s picker.

A real interactive session (the picker lists only interactive ones) is renamed and cleared with
`corral-cli rename`, and the picker is read from a real terminal after each step; then a session a
running `claude` holds is renamed, and the name survives that process's exit (the client
re-appends the title it finds at the end of its transcript). A rename's undo brings the
picker's earlier title back; and a title a long continuation pushed out of the picker's view
(the client reads the first and last 64 KiB) is still shown from the sidecar a rename writes.
"""

import json
import time
import unittest

from harness import Home, Terminal
from standin import StandIn, text

PROMPT = "plan the migration of the llama farm"


class NamesClaudeCodeShows(unittest.TestCase):
    def setUp(self):
        self.home = Home()
        self.api = StandIn(lambda request: [text("Sure: alpacaword.")]).__enter__()
        self.term = Terminal(self.home, self.api)
        self.cwd = self.home.folder("farm ✿")
        self.term.start("first", self.cwd)
        self.term.type("first", PROMPT)
        self.term.wait_for("first", "alpacaword")
        self.term.type("first", "/exit")
        [path] = self.home.transcripts()
        self.sid = path.stem
        self.path = path

    def tearDown(self):
        self.term.stop()
        self.api.__exit__(None, None, None)
        self.home.remove()

    def titles(self):
        return self.term.picker_titles(self.cwd)

    def test_a_name_set_in_corral_is_the_picker_s_title_and_a_clear_brings_the_automatic_one_back(self):
        self.assertEqual(self.titles(), [PROMPT])
        before = self.path.read_bytes()
        self.home.corral("rename", self.sid, "Llama migration ✈")
        self.assertEqual(self.titles(), ["Llama migration ✈"])
        self.assertTrue(self.path.read_bytes().startswith(before), "appended, never rewritten")
        self.home.corral("rename", self.sid, "--clear")
        self.assertEqual(self.titles(), [PROMPT])

    def test_a_rename_of_an_open_session_survives_its_exit(self):
        self.term.start("open", self.cwd, "--resume", self.sid)
        self.term.wait_for("open", "alpacaword")
        self.home.corral("rename", self.sid, "Renamed while open")
        self.term.type("open", "/exit")
        deadline = time.monotonic() + 15
        while self.home.status(self.sid)["state"] != "not-running" and time.monotonic() < deadline:
            time.sleep(0.25)
        self.assertEqual(self.titles(), ["Renamed while open"])
        [s] = self.home.sessions()
        self.assertEqual(s["customName"] or s["autoName"], "Renamed while open")

    def test_a_rename_in_claude_code_after_one_in_corral_is_the_name_everywhere(self):
        self.home.corral("rename", self.sid, "Named in Corral")
        self.term.start("open", self.cwd, "--resume", self.sid)
        self.term.wait_for("open", "alpacaword")
        self.term.type("open", "/rename Renamed in Claude Code")
        self.term.wait_for("open", "Session renamed")
        [s] = self.home.sessions()
        self.assertEqual(s["customName"] or s["autoName"], "Renamed in Claude Code", s)
        self.term.type("open", "/exit")
        self.assertEqual(self.titles(), ["Renamed in Claude Code"])

    def test_undoing_renames_brings_back_the_picker_s_earlier_titles(self):
        self.home.corral("rename", self.sid, "First name")
        self.home.corral("rename", self.sid, "Second name")
        self.assertEqual(self.titles(), ["Second name"])
        before = self.path.read_bytes()
        newest, older = [r["runId"] for r in self.home.corral("runs")][:2]
        report = self.home.corral("undo", newest)
        self.assertEqual(report["notUndone"], [], report)
        self.assertEqual(self.titles(), ["First name"])
        self.assertTrue(self.path.read_bytes().startswith(before), "appended, never cut")
        report = self.home.corral("undo", older)
        self.assertEqual(report["notUndone"], [], report)
        self.assertEqual(self.titles(), [PROMPT])

    def test_a_title_pushed_out_of_the_picker_s_view_is_shown_from_the_sidecar(self):
        self.home.corral("rename", self.sid, "Kept in view")
        # A long continuation after the rename: records the client reads past, 100 KB of them.
        filler = {"type": "system", "subtype": "informational", "content": "x" * 1000,
                  "isMeta": True, "sessionId": self.sid}
        with open(self.path, "a", encoding="utf-8") as f:
            for _ in range(100):
                f.write(json.dumps(filler) + "\n")
        sidecar = self.path.parent / self.sid / "custom-title.json"
        self.assertEqual(self.titles(), ["Kept in view"], "the sidecar keeps it")
        sidecar.unlink()
        # Without it the picker loses the title, though the line is in the first 64 KiB it reads.
        self.assertEqual(self.titles(), [PROMPT])
        # Renaming to the same name puts the title back where the picker reads it.
        self.home.corral("rename", self.sid, "Kept in view")
        self.assertEqual(self.titles(), ["Kept in view"])


if __name__ == "__main__":
    unittest.main()
