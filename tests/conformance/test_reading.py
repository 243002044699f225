"""Corral reads what the real Claude Code writes.

One home, built by the pinned client against the stand-in API: a `-p` session in a working
directory with spaces, accents and an emoji, whose reply thinks, calls Bash (the client runs it)
and answers; the same session resumed with a second prompt; and a session in a directory whose
path is long enough for Claude Code to hash its folder name. Each test reads it back through
`corral-cli --json` as a person's Corral would.
"""

import unittest

from harness import Home, client_version
from standin import StandIn, has_tool_result, last_user_text, text, thinking, tool_use

FIRST = "please run the probe for zeppelinword"
SECOND = "and now a second turn with ocelotword"


# Where the long-path session's Write call writes (set before that session runs).
WRITE_TO = {}


def reply(request):
    said = last_user_text(request)
    if has_tool_result(request) and "notes.txt" in said:
        return [text("Written.")]
    if "wombatword" in said and not has_tool_result(request):
        # The subagent's own request: its prompt is its first user message.
        return [text("The subagent looked: badgerword.")]
    if "delegateword" in said and not has_tool_result(request):
        return [
            tool_use(
                "toolu_conformance_agent",
                "Agent",
                {
                    "description": "Look around",
                    "prompt": "look for the wombatword",
                    "subagent_type": "general-purpose",
                    # 2.1.332 runs agents in the background by default.
                    "run_in_background": False,
                },
            )
        ]
    if has_tool_result(request) and "badgerword" in said:
        return [text("The subagent is done.")]
    if "ocelotword" in said:
        return [text("Second answer, with yakword.")]
    if has_tool_result(request):
        return [thinking("The probe printed quokkaword-free output."), text("The probe is done: narwhalword.")]
    if "longpathword" in said:
        return [
            text("A plain answer, and a note."),
            tool_use("toolu_conformance_write", "Write", {"file_path": WRITE_TO["path"], "content": "written by the client: ibexword\n"}),
        ]
    if "zeppelinword" in said:
        return [
            text("I will run the probe."),
            tool_use("toolu_conformance_1", "Bash", {"command": "echo probe-output-marmotword", "description": "Run the probe"}),
        ]
    return [text("Nothing scripted for this.")]


class ReadingARealHome(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = Home()
        cls.api = StandIn(reply).__enter__()
        cls.cwd = cls.home.folder("dir with spaces é 🦀")
        cls.home.claude_p(cls.api, cls.cwd, FIRST)
        cls.first_requests = len(cls.api.requests)
        [path] = cls.home.transcripts()
        cls.sid = path.stem
        cls.home.claude_p(cls.api, cls.cwd, SECOND, "--resume", cls.sid)
        cls.long_cwd = cls.home.folder("deep/" + "/".join(["a-long-folder-name-for-hashing"] * 8))
        WRITE_TO["path"] = str(cls.long_cwd / "notes.txt")
        cls.home.claude_p(cls.api, cls.long_cwd, "the longpathword session")
        cls.agent_cwd = cls.home.folder("delegating")
        cls.home.claude_p(cls.api, cls.agent_cwd, "please delegateword this")

    @classmethod
    def tearDownClass(cls):
        cls.api.__exit__(None, None, None)
        cls.home.remove()

    def session(self, sid):
        found = [s for s in self.home.sessions() if s["sessionId"] == sid]
        self.assertEqual(len(found), 1, "listed exactly once: %s" % found)
        return found[0]

    def show(self, sid):
        return self.home.corral("show", sid)

    def test_every_session_is_listed_once_with_its_real_working_directory(self):
        sessions = self.home.sessions()
        self.assertEqual(len(sessions), 3, [s["workingDirectory"] for s in sessions])
        s = self.session(self.sid)
        self.assertEqual(s["workingDirectory"], str(self.cwd))
        self.assertEqual(s["claudeCodeVersion"], client_version())
        self.assertEqual(s["autoName"], FIRST)
        [long] = [x for x in sessions if x["workingDirectory"] == str(self.long_cwd)]
        self.assertEqual(long["workingDirectory"], str(self.long_cwd))
        self.assertGreater(len(str(self.long_cwd)), 200)

    def test_the_typed_prompts_are_the_only_messages_of_the_person(self):
        users = [(m["content"], m["originKind"]) for m in self.show(self.sid)["messages"] if m["role"] == "user"]
        self.assertEqual(users, [(FIRST, None), (SECOND, None)], "Claude Code's own records are not shown as yours")

    def test_a_tool_call_is_paired_with_its_real_output(self):
        calls = [m["toolCall"] for m in self.show(self.sid)["messages"] if m.get("toolCall")]
        self.assertEqual([c["toolName"] for c in calls], ["Bash"])
        self.assertIn("probe-output-marmotword", calls[0]["output"])
        self.assertFalse(calls[0]["pending"] or calls[0]["isError"], calls[0])

    def test_a_write_the_client_made_is_shown_as_its_call(self):
        self.assertEqual((self.long_cwd / "notes.txt").read_text(), "written by the client: ibexword\n")
        [s] = [x for x in self.home.sessions() if x["workingDirectory"] == str(self.long_cwd)]
        [call] = [m["toolCall"] for m in self.show(s["sessionId"])["messages"] if m.get("toolCall")]
        self.assertEqual(call["toolName"], "Write")
        self.assertFalse(call["pending"] or call["isError"], call)
        self.assertIn("notes.txt", call["inputSummary"])

    def test_nothing_of_claude_code_s_bookkeeping_is_a_message(self):
        # The system prompt's snapshot, reminders and request records are all in these files.
        for s in self.home.sessions():
            for m in self.show(s["sessionId"])["messages"]:
                shown = (m["content"] or "") + (m.get("thinking") or "")
                for mark in ["<system-reminder>", "You are Claude Code", "api-request", "deferred_tools"]:
                    self.assertNotIn(mark, shown, (s["sessionId"], m["role"], shown[:200]))

    def test_usage_is_by_the_model_the_client_asked_for(self):
        model = self.api.requests[0]["model"]
        self.assertEqual(self.show(self.sid)["usage"]["model"], model)

    def test_thinking_and_answers_are_shown(self):
        messages = self.show(self.sid)["messages"]
        thoughts = [m["thinking"] for m in messages if m.get("thinking")]
        self.assertTrue(any("quokkaword" in t for t in thoughts), thoughts)
        answers = " ".join(m["content"] for m in messages if m["role"] == "assistant")
        self.assertIn("narwhalword", answers)
        self.assertIn("yakword", answers)

    def test_a_resumed_session_is_one_conversation_and_its_history_was_replayed(self):
        self.assertEqual(len(self.home.transcripts()), 3, "the resume appended to the same file")
        resumed = self.api.requests[self.first_requests]
        sent = str(resumed.get("messages"))
        self.assertIn("zeppelinword", sent)
        self.assertIn("marmotword", sent)

    def test_usage_counts_each_streamed_response_once(self):
        # Three responses (the tool call, the answer, the second turn's answer), each streamed
        # as more than one line; each reports (input, output, cache read, cache write) =
        # (120, 30, 1000, 200).
        tokens = self.session(self.sid)["tokens"]
        self.assertEqual(
            (tokens["inputTokens"], tokens["outputTokens"], tokens["cacheReadTokens"], tokens["cacheWriteTokens"]),
            (3 * 120, 3 * 30, 3 * 1000, 3 * 200),
            tokens,
        )
        usage = self.show(self.sid)["usage"]
        self.assertEqual((usage["turnCount"], usage["outputTokens"]), (3, 90), usage)
        self.assertEqual(usage["inputTokens"], 120 + 1000 + 200, "the last turn's context")

    def test_search_finds_words_from_each_part(self):
        for word in ["zeppelinword", "marmotword", "narwhalword", "quokkaword", "ocelotword", "yakword"]:
            found = self.home.corral("search", word)
            self.assertEqual([s["sessionId"] for s in found["sessions"]], [self.sid], word)
            self.assertTrue(found["complete"], word)


    def test_a_subagent_run_is_the_session_s_and_shown_with_it(self):
        [s] = [x for x in self.home.sessions() if x["workingDirectory"] == str(self.agent_cwd)]
        shown = self.show(s["sessionId"])
        self.assertEqual(len(shown["subagents"]), 1, shown["subagents"])
        [call] = [m["toolCall"] for m in shown["messages"] if m.get("toolCall")]
        self.assertEqual(call["subagentId"], shown["subagents"][0]["agentId"], call)
        # 2.1.x frames the report for Claude ("[Subagent hand-back] …", the agent's id, its usage):
        # the report is shown, the frame kept as details, and only the report is searched.
        self.assertEqual(call["output"], "The subagent looked: badgerword.", call)
        self.assertTrue(call["outputDetails"].startswith("[Subagent hand-back]"), call)
        self.assertIn("agentId: " + call["subagentId"], call["outputDetails"])
        found = self.home.corral("search", "badgerword")
        self.assertEqual([x["sessionId"] for x in found["sessions"]], [s["sessionId"]])
        snippets = [h["snippet"] for h in found["sessions"][0]["hits"] if h["role"] == "tool"]
        self.assertEqual(snippets, ["The subagent looked: badgerword."], found)
        self.assertEqual(self.home.corral("search", "SendMessage")["sessions"], [], "the frame is not searched")


if __name__ == "__main__":
    unittest.main()
