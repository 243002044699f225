"""Names Claude Code shows: a rename in Corral is the title in `claude --resume`'s picker.

A real interactive session (the picker lists only interactive ones) is renamed and cleared with
`corral-cli rename`, and the picker is read from a real terminal after each step; then a session a
running `claude` holds is renamed, and the name survives that process's exit (the client
re-appends the title it finds at the end of its transcript).
"""

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


if __name__ == "__main__":
    unittest.main()
