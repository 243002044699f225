"""Corral's live state of a real interactive Claude Code.

One `claude` runs in a real terminal (tmux) in its own home, talking to the stand-in API. The
test walks it through the states a person meets — at its prompt after an answer, streaming a
slow answer (with a prompt typed meanwhile, which Claude Code queues), asking a question and
waiting for the answer — and checks after each step that `corral-cli status` says what the
terminal shows. Then Claude Code's own `/rename` names the session in Corral, and every typed
prompt, the queued one too, is shown once as the person's.
"""

import threading
import time
import unittest

from harness import Home, Terminal, eventually
from standin import Held, StandIn, has_tool_result, last_user_text, text, tool_use

NAME = "Conformance — renamed in Claude Code"


class LiveStateOfARealClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = Home()
        cls.release = threading.Event()
        cls.release_late = threading.Event()
        cls.api = StandIn(cls.reply).__enter__()
        cls.term = Terminal(cls.home, cls.api)
        cls.cwd = cls.home.folder("live project ✓")
        cls.term.start("live", cls.cwd)

    @classmethod
    def tearDownClass(cls):
        cls.release.set()
        cls.release_late.set()
        cls.term.stop()
        cls.api.__exit__(None, None, None)
        cls.home.remove()

    @classmethod
    def reply(cls, request):
        said = last_user_text(request)
        if has_tool_result(request):
            return [text("Red it is: answeredword.")]
        if "busyword" in said:
            return [text("The queued prompt's answer: beaverword.")]
        if "slowword" in said:
            return Held([text("A slow answer, streamed: slothword.")], cls.release)
        if "lateword" in said:
            return Held([text("Another slow answer: lemurword.")], cls.release_late)
        if "askword" in said:
            question = {
                "question": "Which colour should the badge be?",
                "header": "Colour",
                "options": [
                    {"label": "Red", "description": "warm"},
                    {"label": "Blue", "description": "cool"},
                ],
                "multiSelect": False,
            }
            return [tool_use("toolu_live_question", "AskUserQuestion", {"questions": [question]})]
        return [text("Hello from the stand-in: idleword.")]

    def state_of_the_session(self, want):
        """Waits until Corral says `want` of the terminal's session; returns that status."""
        seen = []

        def probe():
            listed = self.home.sessions()
            if len(listed) != 1:
                return None
            status = self.home.status(listed[0]["sessionId"])
            seen[:] = [status]
            return status if status and status["state"] == want else None

        try:
            return eventually(probe, "the session reads %s" % want)
        except AssertionError as e:
            raise AssertionError("%s; Corral said %r; the screen:\n%s" % (e, seen, self.term.screen("live"))) from None

    def test_states_follow_the_terminal_and_claude_code_s_own_rename_is_corral_s_name(self):
        claude = self.term.pid("live")

        self.term.type("live", "hello idleword")
        self.term.wait_for("live", "Hello from", "idleword")
        idle = self.state_of_the_session("idle")
        self.assertEqual(idle["pid"], claude, idle)

        self.term.type("live", "please slowword")
        eventually(lambda: len(self.api.requests) >= 2, "the slow request arrives")
        running = self.state_of_the_session("running")
        self.assertEqual(running["pid"], claude, running)
        self.release.set()
        self.term.wait_for("live", "slothword")
        self.state_of_the_session("idle")

        self.term.type("live", "please askword")
        self.term.wait_for("live", "Which colour", "Enter to select")
        waiting = self.state_of_the_session("waiting")
        self.assertIn("question", waiting["why"])
        # The first option, by its number. A key pressed while the dialog is still being set up
        # can be lost (as for a person, who presses again): pressed until the dialog is gone.
        def answered():
            if "Enter to select" in self.term.screen("live"):
                self.term.keys("live", "1")
                time.sleep(1.0)
                return "Enter to select" not in self.term.screen("live")
            return True

        eventually(answered, "the question is answered")
        self.term.wait_for("live", "answeredword")
        self.state_of_the_session("idle")

        # A prompt typed while Claude answers waits in Claude Code's queue, then is sent. (Last:
        # after a queued prompt 2.1.332 may hold back writing its next assistant line — a question
        # then shows on screen while the transcript still ends with the prompt; see
        # docs/conformance.md.)
        self.term.type("live", "one more lateword")
        eventually(lambda: any("lateword" in str(r.get("messages")) for r in self.api.requests), "the late request")
        self.term.tmux("send-keys", "-t", "live", "-l", "typed while busyword")
        time.sleep(0.3)
        self.term.keys("live", "Enter")
        time.sleep(0.5)
        self.release_late.set()
        self.term.wait_for("live", "lemurword", "beaverword")

        self.term.type("live", "/rename " + NAME)
        # Corral keeps a name set in Corral (`customName`) apart from the title Claude Code
        # keeps (`autoName`); the person sees the first there is.
        [listed] = eventually(
            lambda: [s for s in self.home.sessions() if (s.get("customName") or s.get("autoName")) == NAME],
            "Claude Code's /rename is the session's name in Corral",
        )
        # The command itself is shown where it was run, as the person's (2.1.332 writes it as a
        # `system`/`local_command` line, older versions as a user line).
        def users_and_commands():
            shown = self.home.corral("show", listed["sessionId"])
            users = [(m["content"], m["originKind"]) for m in shown["messages"] if m["role"] == "user"]
            commands = [c for c, kind in users if c.lstrip().startswith("<command-name>") and kind is None]
            return (users, commands) if commands else None

        users, commands = eventually(users_and_commands, "the /rename command in the transcript")
        self.assertEqual(len(commands), 1, commands)
        self.assertIn("/rename", commands[0])
        self.assertIn(NAME, commands[0])
        users = [u for u in users if not u[0].lstrip().startswith(("<command-name>", "<local-command-stdout>"))]
        typed = [
            ("hello idleword", None),
            ("please slowword", None),
            ("please askword", None),
            ("one more lateword", None),
            ("typed while busyword", None),
        ]
        self.assertEqual(users, typed, "the typed prompts, as the person's, and nothing else as theirs")
        # The question is shown with its options and the answer picked, not as JSON.
        shown = self.home.corral("show", listed["sessionId"])
        [asked] = [m["toolCall"] for m in shown["messages"] if (m.get("toolCall") or {}).get("toolName") == "AskUserQuestion"]
        [q] = asked["form"]["items"]
        self.assertEqual((asked["form"]["kind"], q["header"], q["question"]), ("questions", "Colour", "Which colour should the badge be?"))
        self.assertEqual([o["label"] for o in q["options"]], ["Red", "Blue"])
        self.assertEqual(q["answer"], "Red", asked)


class AQuestionAfterAQueuedPrompt(unittest.TestCase):
    """After a queued prompt, 2.1.332 may show a question before it writes the question's line:
    the transcript then ends with the prompt. The client's own record of its session
    (`sessions/<pid>.json`, status `waiting`) still makes it read `waiting`."""

    def setUp(self):
        self.home = Home()
        self.release = threading.Event()
        self.api = StandIn(self.reply).__enter__()
        self.term = Terminal(self.home, self.api)
        self.cwd = self.home.folder("queued then asked")

    def tearDown(self):
        self.release.set()
        self.term.stop()
        self.api.__exit__(None, None, None)
        self.home.remove()

    def reply(self, request):
        said = last_user_text(request)
        if has_tool_result(request):
            return [text("Noted: answeredword.")]
        if "busyword" in said:
            return [text("The queued prompt's answer: beaverword.")]
        if "slowword" in said:
            return Held([text("A slow answer: slothword.")], self.release)
        if "askword" in said:
            question = {"question": "Which colour?", "header": "Colour", "multiSelect": False,
                        "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}
            return [tool_use("toolu_queued_question", "AskUserQuestion", {"questions": [question]})]
        return [text("Hello.")]

    def test_reads_waiting_while_the_question_is_on_screen(self):
        self.term.start("q", self.cwd)
        self.term.type("q", "please slowword")
        eventually(lambda: self.api.requests, "the slow request")
        self.term.tmux("send-keys", "-t", "q", "-l", "typed while busyword")
        time.sleep(0.3)
        self.term.keys("q", "Enter")
        time.sleep(0.5)
        self.release.set()
        self.term.wait_for("q", "slothword", "beaverword")
        self.term.type("q", "please askword")
        self.term.wait_for("q", "Which colour", "Enter to select")
        [s] = self.home.sessions()
        seen = []

        def waiting():
            seen[:] = [self.home.status(s["sessionId"])]
            return seen[0]["state"] == "waiting"

        try:
            eventually(waiting, "the session reads waiting", timeout=15)
        except AssertionError as e:
            raise AssertionError("%s; Corral said %r" % (e, seen)) from None


if __name__ == "__main__":
    unittest.main()
