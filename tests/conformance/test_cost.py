"""What sessions cost agrees with Claude Code's own figures.

The pinned client writes sessions against the stand-in API, each reporting known token counts:
one model after another (a five-minute and one-hour cache-write split, a prompt long enough for a
long-context tier), a session resumed with a second prompt (the client's figure is cumulative),
one that runs a subagent (its figure covers the subagent's requests), and one on a model the
client prices but the public price data lacks. Corral's per-session figure must equal the last
`totalCostUSD` the client wrote. Then the same home with every `cost-state` line removed is
priced by Corral's table: within 1% of the client's figure for every model the table knows,
and "price unknown" (never $0) for the one it does not.
"""

import json
import shutil
import unittest

from harness import Home
from standin import StandIn, has_tool_result, last_user_text, text, tool_use

# (model, (input, output, cache read, cache write), (five-minute, one-hour) part of the write)
RUNS = [
    ("claude-opus-5-5", (1200, 300, 5000, 3000), (1000, 2000)),
    # 150,000 + 60,000 + 2,000 tokens of prompt: above Haiku 5.5's 100,000-token tier.
    ("claude-haiku-5-5", (150000, 1000, 60000, 2000), (0, 2000)),
    ("claude-sonnet-4-5-20250929", (20000, 800, 40000, 1500), (0, 1500)),
    ("claude-sonnet-5", (3000, 2000, 9000, 500), (500, 0)),
    ("claude-opus-4-6", (7000, 900, 30000, 4000), (0, 4000)),
    ("claude-haiku-4-5-20251001", (900, 400, 0, 0), None),
    ("claude-fable-5-1", (2500, 700, 12000, 800), (0, 800)),
    ("claude-3-7-sonnet-20250219", (1000, 100, 0, 300), None),
]

# Models the client 2.1.332 prices that genai-prices lacks (the README names them).
NOT_IN_THE_TABLE = ["claude-mythos-5", "claude-mythos-5-1"]


def reply(request):
    said = last_user_text(request)
    if has_tool_result(request):
        return [text("The subagent is done.")]
    if "wombatword" in said:
        return [text("The subagent looked: badgerword.")]
    if "delegateword" in said:
        return [
            tool_use(
                "toolu_cost_agent",
                "Agent",
                {"description": "Look around", "prompt": "look for the wombatword", "subagent_type": "general-purpose", "run_in_background": False},
            )
        ]
    return [text("Priced: yakword.")]


def recorded(path):
    """The last `totalCostUSD` and `hasUnknownModelCost` the client wrote in `path`."""
    last = None
    for line in path.read_text().splitlines():
        d = json.loads(line)
        if d.get("type") == "cost-state":
            last = d
    return last["totalCostUSD"], last["hasUnknownModelCost"]


class CostAgreesWithClaudeCode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = Home()
        cls.stripped = Home()
        work = cls.home.folder("costs")
        cls.model_of = {}
        for model, usage, split in RUNS + [(m, (2000, 500, 4000, 1000), (0, 1000)) for m in NOT_IN_THE_TABLE]:
            with StandIn(reply, usage=usage, split=split) as api:
                cls.home.claude_p(api, work, "price this for %s" % model, "--model", model)
            cls.model_of[cls.newest()] = model
        with StandIn(reply, usage=(4000, 600, 8000, 1200), split=(200, 1000)) as api:
            cls.home.claude_p(api, work, "a first prompt", "--model", "claude-opus-5-5")
            cls.resumed = cls.newest()
            cls.home.claude_p(api, work, "and a second", "--model", "claude-opus-5-5", "--resume", cls.resumed)
            cls.home.claude_p(api, work, "delegateword please", "--model", "claude-opus-5-5")
            cls.delegated = cls.newest()
        # The same home without Claude Code's figures: every other line as written.
        for path in cls.home.claude.joinpath("projects").rglob("*.jsonl"):
            copy = cls.stripped.claude / path.relative_to(cls.home.claude)
            copy.parent.mkdir(parents=True, exist_ok=True)
            lines = [l for l in path.read_text().splitlines(True) if '"type":"cost-state"' not in l]
            copy.write_text("".join(lines))

    @classmethod
    def newest(cls):
        known = set(cls.model_of) | {getattr(cls, "resumed", None), getattr(cls, "delegated", None)}
        [new] = [t.stem for t in cls.home.transcripts() if t.stem not in known]
        return new

    @classmethod
    def tearDownClass(cls):
        cls.home.remove()
        cls.stripped.remove()

    def path(self, sid):
        [p] = [t for t in self.home.transcripts() if t.stem == sid]
        return p

    def test_a_session_costs_the_clients_own_figure_to_the_cent(self):
        sessions = {s["sessionId"]: s for s in self.home.sessions()}
        self.assertEqual(len(sessions), len(RUNS) + len(NOT_IN_THE_TABLE) + 2)
        for sid, s in sessions.items():
            usd, unknown = recorded(self.path(sid))
            self.assertEqual(s["cost"]["source"], "claudeCode", sid)
            self.assertAlmostEqual(s["cost"]["usd"], usd, places=9, msg=sid)
            self.assertEqual(s["cost"]["unpriced"], unknown, sid)
        # Cumulative over the resumed run; the subagent's requests are in the figure.
        self.assertGreater(recorded(self.path(self.resumed))[0], 0)
        runs = list((self.path(self.delegated).parent / self.delegated / "subagents").glob("agent-*.jsonl"))
        self.assertEqual(len(runs), 1, "the subagent ran")
        report = self.home.corral("cost", "--by", "session")
        row = next(r for r in report["rows"] if r["key"] == self.delegated)
        self.assertAlmostEqual(row["usd"], recorded(self.path(self.delegated))[0], places=9)

    def test_without_the_clients_figures_the_table_prices_within_one_percent(self):
        report = self.stripped.corral("cost", "--by", "session")
        rows = {r["key"]: r for r in report["rows"]}
        listed = {s["sessionId"]: s for s in self.stripped.sessions()}
        for sid, model in list(self.model_of.items()) + [(self.resumed, "resumed"), (self.delegated, "subagent")]:
            usd, _ = recorded(self.path(sid))
            row = rows[sid]
            self.assertEqual(row["source"], "table", model)
            if model in NOT_IN_THE_TABLE:
                # "price unknown": nothing priced, the response counted as unpriced.
                self.assertEqual((row["usd"], row["unpriced"]), (0.0, 1), model)
                self.assertTrue(listed[sid]["cost"]["unpriced"], model)
                continue
            self.assertEqual(row["unpriced"], 0, model)
            self.assertLessEqual(abs(row["usd"] - usd), 0.01 * usd, "%s: %r vs the client's %r" % (model, row["usd"], usd))
            # The listing's own figure (the main transcript's responses and each subagent
            # run's) agrees too.
            self.assertLessEqual(abs(listed[sid]["cost"]["usd"] - usd), 0.01 * usd, model)

    def test_the_table_lacks_only_the_models_the_readme_names(self):
        # The client priced them (no unknown-model flag) while the table has no entry: the
        # README's list of such models stays true while this passes.
        for sid, model in self.model_of.items():
            if model in NOT_IN_THE_TABLE:
                self.assertFalse(recorded(self.path(sid))[1], model)
        report = self.stripped.corral("cost", "--by", "model")
        unpriced = sorted(r["key"] for r in report["rows"] if r["unpriced"])
        self.assertEqual(unpriced, NOT_IN_THE_TABLE)


class AnOlderSessionResumedByTheClient(unittest.TestCase):
    """A session begun by a version that wrote no `cost-state` (its lines rewritten to say
    2.1.100, its figures removed), resumed by the pinned client: the client's figure covers only
    the resumed run, and Corral adds the table's price of what came before."""

    def test_the_figure_covers_the_resumed_run_and_the_table_the_rest(self):
        home = Home()
        self.addCleanup(home.remove)
        work = home.folder("older")
        with StandIn(reply, usage=(4000, 600, 8000, 1200), split=(200, 1000)) as api:
            home.claude_p(api, work, "a first prompt", "--model", "claude-opus-5-5")
            [path] = home.transcripts()
            first, _ = recorded(path)
            older = []
            for line in path.read_text().splitlines(True):
                if '"type":"cost-state"' in line:
                    continue
                d = json.loads(line)
                if "version" in d:
                    d["version"] = "2.1.100"
                    line = json.dumps(d, separators=(",", ":")) + "\n"
                older.append(line)
            path.write_text("".join(older))
            home.claude_p(api, work, "and a second", "--model", "claude-opus-5-5", "--resume", path.stem)
        resumed, _ = recorded(path)
        # The same request twice: the client's figure is the second one's alone.
        self.assertAlmostEqual(resumed, first, delta=0.01 * first)
        [s] = [s for s in home.sessions() if s["sessionId"] == path.stem]
        self.assertEqual(s["cost"]["source"], "mixed")
        self.assertLessEqual(abs(s["cost"]["usd"] - (first + resumed)), 0.01 * first, s["cost"])
        report = home.corral("cost", "--by", "session")
        [row] = [r for r in report["rows"] if r["key"] == path.stem]
        self.assertAlmostEqual(row["usd"], s["cost"]["usd"], places=9)


class SonnetAboveTwoHundredThousand(unittest.TestCase):
    """Claude Code 2.1.332 prices a Sonnet 4.5 request above 200,000 prompt tokens at the base
    rate; the price list (and the API's bill) has a long-context tier there. Corral shows the
    client's figure where it wrote one and the table's where it did not; the README names the
    difference, and this fails when the client or the table changes its rule. Sonnet 4.6 (flat
    since 2026-03-13 in the table) agrees."""

    def test_the_client_prices_the_base_rate_and_the_table_the_tier(self):
        home, stripped = Home(), Home()
        self.addCleanup(home.remove)
        self.addCleanup(stripped.remove)
        work = home.folder("long")
        # 150,000 + 100,000 + 2,000 tokens of prompt.
        with StandIn(reply, usage=(150000, 1000, 100000, 2000), split=(0, 2000)) as api:
            for model in ("claude-sonnet-4-5-20250929", "claude-sonnet-4-6"):
                home.claude_p(api, work, "a long prompt for %s" % model, "--model", model)
        for path in home.transcripts():
            usd, _ = recorded(path)
            # 150,000 × $3 + 1,000 × $15 + 100,000 × $0.30 + 2,000 × $6 per million.
            self.assertAlmostEqual(usd, 0.507, places=6, msg=path.stem)
            copy = stripped.claude / path.relative_to(home.claude)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text("".join(l for l in path.read_text().splitlines(True) if '"type":"cost-state"' not in l))
        figures = {s["sessionId"]: s["cost"] for s in stripped.sessions()}
        model = {p.stem: ("4-5" if "claude-sonnet-4-5" in p.read_text() else "4-6") for p in home.transcripts()}
        for sid, cost in figures.items():
            self.assertEqual(cost["source"], "table")
            # Sonnet 4.5: every token at the tier's rate (twice the input, 1.5× the output…).
            want = 1.0065 if model[sid] == "4-5" else 0.507
            self.assertAlmostEqual(cost["usd"], want, places=6, msg=model[sid])
        self.assertEqual(sorted(model.values()), ["4-5", "4-6"])


if __name__ == "__main__":
    unittest.main()
