"""A home the real Claude Code writes, for the e2e suite to open in the app.

The pinned client, against the stand-in API, writes what a person's home holds today:

- `interactive`: a terminal session. The person types a prompt, renames the session with
  `/rename`, delegates to a subagent (which 2.1.x runs in the background: its report comes back
  as a task notification), and answers an `AskUserQuestion` by picking an option.
- `unanswered`: a terminal session asked an `AskUserQuestion` and closed before anyone answered.
- `delegated`: a `claude -p` session whose subagent ran in the foreground: its result is the
  "[Subagent hand-back]" frame around the report.

`build(home)` returns the session ids by those names. The words each answer carries (`…word`)
are what the e2e looks for on screen.
"""

import json
import time

from harness import Terminal, _alive, eventually
from standin import StandIn, has_tool_result, last_user_text, text, tool_use

TYPED = "hello typedword"
RENAMED = "renamed-by-claude"
QUESTION = "Which colour should the badge be?"
REPORT = "The subagent looked: badgerword."


def _question(tool_id):
    q = {
        "question": QUESTION,
        "header": "Colour",
        "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
        "multiSelect": False,
    }
    return [tool_use(tool_id, "AskUserQuestion", {"questions": [q]})]


def reply(request):
    said = last_user_text(request)
    if "wombatword" in said and not has_tool_result(request):
        # The subagent's own request: its prompt is its first user message.
        return [text(REPORT)]
    if "<task-notification>" in said:
        return [text("The background agent is back: heronword.")]
    if has_tool_result(request):
        if "badgerword" in said:
            return [text("The subagent is done: otterword.")]
        if "Red" in said or "Blue" in said:
            return [text("Red it is: answeredword.")]
        return [text("It runs on: finchword.")]
    if "delegateword" in said:
        return [tool_use("toolu_realhome_agent", "Agent", {
            "description": "Look around",
            "prompt": "look for the wombatword",
            "subagent_type": "general-purpose",
            "run_in_background": False,
        })]
    if "askword" in said:
        return _question("toolu_realhome_question")
    if "leaveword" in said:
        return _question("toolu_realhome_unanswered")
    return [text("Hello from the stand-in: idleword.")]


def _only_new(home, before):
    made = [p for p in home.transcripts() if p not in before]
    assert len(made) == 1, "one new transcript: %s" % made
    return made[0].stem


def build(home):
    """Writes the three sessions into `home` (a `harness.Home`); returns their ids by name."""
    # Bypass mode: the default (auto) mode asks a server-side check the stand-in does not answer.
    (home.claude / "settings.json").write_text(json.dumps({"skipDangerousModePermissionPrompt": True}))
    ids = {}
    with StandIn(reply) as api:
        term = Terminal(home, api)
        try:
            before = home.transcripts()
            cwd = home.folder("interactive")
            term.start("live", cwd, "--dangerously-skip-permissions")
            term.type("live", TYPED)
            term.wait_for("live", "idleword")
            term.type("live", "/rename " + RENAMED)
            term.wait_for("live", "Session renamed to")
            term.type("live", "please delegateword this")
            term.wait_for("live", "heronword", timeout=60)
            term.type("live", "askword now")
            term.wait_for("live", QUESTION)
            time.sleep(0.5)
            term.keys("live", "Enter")
            term.wait_for("live", "answeredword")
            ids["interactive"] = _only_new(home, before)

            before = home.transcripts()
            cwd = home.folder("unanswered")
            term.start("left", cwd, "--dangerously-skip-permissions")
            term.type("left", "leaveword please")
            term.wait_for("left", QUESTION)
            ids["unanswered"] = _only_new(home, before)
            pids = [term.pid("live"), term.pid("left")]
        finally:
            term.stop()
        # Closed with the question on screen: no process holds a session any more.
        eventually(lambda: not any(_alive(p) for p in pids), "the clients gone", 20)

        before = home.transcripts()
        home.claude_p(api, home.folder("delegated"), "please delegateword this")
        ids["delegated"] = _only_new(home, before)
    return ids

