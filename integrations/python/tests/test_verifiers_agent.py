"""sqlgym_verifiers_agent (verifiers 0.3.0 multi-turn) run in verifiers'
own rollout loop at tag v0.3.0 against a real `sqlgym serve`.

verifiers cannot be installed here; its files are read from its git
history ($SQLGYM_VERIFIERS_GIT or $SQLGYM_TRAINER_SRC, trainer_src.py) at
v0.3.0 (0a4d872f) and run as they are: errors.py, decorators.py
(@vf.stop, @vf.cleanup, discover_decorated), types.py (the messages,
Tool, Response, State), utils/message_utils.py, utils/response_utils.py,
maybe_call_with_named_args of utils/async_utils.py, the whole
MultiTurnEnv of envs/multiturn_env.py (rollout loop, stop conditions,
env_response/final_env_response handling, trajectory steps with
is_truncated) and, of Environment (envs/environment.py), init_state,
cleanup, _render_stop, is_completed and _normalize_tool_defs.

Stand-ins, for what the contract does not reach: the third-party imports
(anthropic, openai, renderers, rich), logging_utils.warning_once, the
rest of Environment (datasets, clients, servers: its __init__ keeps the
arguments MultiTurnEnv passes on and discovers the decorated handlers as
__post_init__ does, environment.py:258-260), the model (a scripted
get_model_response returning vf.Response objects, recording the tools it
was offered) and the Rubric (the functions and weights; scoring is
reproduced as test_verifiers.py does, Rubric.score_group calling each
function with the state and the row's columns, an Exception -> 0.0).
"""

import ast
import asyncio
import inspect
import json
import os
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
import trainer_src  # noqa: E402
from serve_fixture import OutageServer, Serve, open_episodes  # noqa: E402

REPO = "PrimeIntellect-ai/verifiers"
ENV = "SQLGYM_VERIFIERS_GIT"
COMMIT = "0a4d872f021022310a08ec213a25f4efb4a0244a"  # tag v0.3.0
GIT = trainer_src.git_dir(ENV, REPO)

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
    {"id": "held", "db": "shop", "question": "How many reviews?", "sql": "SELECT count(*) FROM reviews", "split": "holdout"},
]
GOLD_SQL = "SELECT COUNT(*) FROM orders"

STANDINS = {
    "anthropic": "class Anthropic: pass\nclass AsyncAnthropic: pass\n",
    "openai": "class OpenAI: pass\nclass AsyncOpenAI: pass\n",
    "renderers": "import pydantic\nclass RendererConfig(pydantic.BaseModel):\n    pass\n",
    "renderers.base": "class RenderedTokens: pass\n",
    "rich": "",
    "rich.text": "class Text: pass\n",
    "verifiers.utils.logging_utils": "def warning_once(logger, message):\n    pass\n",
}
ENV_METHODS = ["_normalize_tool_defs", "init_state", "cleanup", "_render_stop", "is_completed"]

ENVIRONMENT = '''
class Environment(_EnvironmentMethods):
    """The parts of verifiers.envs.environment.Environment a MultiTurnEnv
    rollout reaches that are not lifted: the constructor's bookkeeping and
    the model call (scripted)."""

    def __init__(self, dataset=None, eval_dataset=None, rubric=None, tool_defs=None, max_seq_len=None, **kwargs):
        self.dataset, self.eval_dataset, self.rubric, self.max_seq_len = dataset, eval_dataset, rubric, max_seq_len
        self.tool_defs = self._normalize_tool_defs(tool_defs)
        self.logger = logging.getLogger("verifiers")
        if not self.logger.handlers:
            self.logger.addHandler(logging.NullHandler())  # its "Aborted rollout" line is expected here
        for key, value in kwargs.items():
            setattr(self, key, value)
        self._stop_conditions = discover_decorated(self, "stop")
        self._cleanup_handlers = discover_decorated(self, "cleanup")

    def add_rubric(self, rubric):
        pass

    def _get_usage_tracker(self, state, create_if_missing=False):
        return None

    def get_state_usage(self, state):
        return None

    async def get_model_response(self, state, prompt_messages):
        self.seen.append((list(prompt_messages), list(state["tool_defs"])))
        out = self.script.pop(0)
        if isinstance(out, Exception):
            raise out
        if out == "hang":  # a model that never answers: verifiers' timeout_seconds cuts the rollout
            await asyncio.Event().wait()
        return out
'''


def _module(name, source="", package=False):
    mod = types.ModuleType(name)
    if package:
        mod.__path__ = []
    sys.modules[name] = mod
    exec(compile(source, "<%s>" % name, "exec"), mod.__dict__)
    return mod


def cut_methods(source, cls, names):
    """The source of the methods `names` of class `cls`, indented as methods."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    parts = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in names:
            start = min([item.lineno] + [d.lineno for d in item.decorator_list])
            parts[item.name] = "".join(lines[start - 1:item.end_lineno])
    missing = set(names) - set(parts)
    if missing:
        raise LookupError("not in verifiers' %s: %s" % (cls, ", ".join(sorted(missing))))
    return "".join(parts[n] for n in names)


def load_verifiers():
    """verifiers at COMMIT, as much of it as the rollout loop needs."""
    show = lambda path: trainer_src.show(GIT, COMMIT, path)  # noqa: E731
    vf = _module("verifiers", package=True)
    for name in ("verifiers.utils", "verifiers.envs"):
        _module(name, package=True)
    for name, src in STANDINS.items():
        _module(name, src)
    errors = _module("verifiers.errors", show("verifiers/errors.py"))
    deco = _module("verifiers.decorators", show("verifiers/decorators.py"))
    typ = _module("verifiers.types", show("verifiers/types.py"))
    msg = _module("verifiers.utils.message_utils", show("verifiers/utils/message_utils.py"))
    resp = _module("verifiers.utils.response_utils", show("verifiers/utils/response_utils.py"))
    aio = _module("verifiers.utils.async_utils", "import inspect\nfrom typing import Callable\n" + trainer_src.cut(
        show("verifiers/utils/async_utils.py"), {"maybe_await", "maybe_call_with_named_args"}))
    ns = {"asyncio": asyncio, "json": json, "uuid": __import__("uuid"), "time": __import__("time"), "logging": __import__("logging"),
          "deepcopy": __import__("copy").deepcopy, "cast": lambda t, v: v, "Any": object, "vf": vf,
          "RolloutInput": typ.RolloutInput, "State": typ.State, "Tool": typ.Tool, "RolloutTiming": typ.RolloutTiming,
          "flatten_task_input": typ.flatten_task_input, "normalize_messages": msg.normalize_messages,
          "resolve_client": lambda c: c, "maybe_call_with_named_args": aio.maybe_call_with_named_args,
          "ErrorChain": repr, "discover_decorated": deco.discover_decorated, "final": __import__("typing").final,
          "Client": object, "ClientConfig": object, "Messages": typ.Messages, "Response": typ.Response}
    # ns doubles as the globals of the lifted methods and of the stand-in class built on them.
    exec(compile("from __future__ import annotations\nclass _EnvironmentMethods:\n"
                 + cut_methods(show("verifiers/envs/environment.py"), "Environment", ENV_METHODS), "<Environment>", "exec"), ns)
    exec(compile(ENVIRONMENT, "<Environment stand-in>", "exec"), ns)

    class Rubric:
        def __init__(self, funcs=None, weights=None, **kwargs):
            self.funcs, self.weights = list(funcs or []), list(weights or [1.0] * len(funcs or []))

        def add_metric(self, func):
            self.funcs.append(func)
            self.weights.append(0.0)

    vf.__dict__.update(Environment=ns["Environment"], Rubric=Rubric, stop=deco.stop, cleanup=deco.cleanup,
                       Error=errors.Error, OverlongPromptError=errors.OverlongPromptError,
                       ToolMessage=typ.ToolMessage, UserMessage=typ.UserMessage, AssistantMessage=typ.AssistantMessage)
    mt_src = show("verifiers/envs/multiturn_env.py")
    head = ("import asyncio, logging, time\nfrom abc import abstractmethod\nfrom typing import final\nimport verifiers as vf\n"
            "from verifiers.types import Messages, Response, RolloutInput, SamplingArgs, State, TimeSpan, TrajectoryStep\n"
            "from verifiers.utils.message_utils import concat_messages, maybe_normalize_messages\n"
            "from verifiers.utils.response_utils import parse_response_message, parse_response_tokens\n"
            "Client = object\nlogger = logging.getLogger(__name__)\n")
    mt = _module("verifiers.envs.multiturn_env", head + trainer_src.cut(mt_src, {"MultiTurnMonitorRubric", "MultiTurnEnv"}))
    vf.MultiTurnEnv = mt.MultiTurnEnv
    del resp
    return vf, typ


def reply(typ, content="", calls=(), finish="stop"):
    """A model response as verifiers' clients hand it to the rollout loop."""
    tool_calls = [typ.ToolCall(id="c%d" % i, name=name, arguments=json.dumps(args)) for i, (name, args) in enumerate(calls)]
    return typ.Response(id="r", created=0, model="m", message=typ.ResponseMessage(
        content=content, tool_calls=tool_calls or None, finish_reason=finish, is_truncated=finish == "length"))


async def score(env, row, state):
    """Rubric.score_rollout as test_verifiers.py reproduces it (rubric.py:125-217)."""
    fields = {k: v for k, v in row.items() if k not in ("prompt", "answer", "info", "task", "example_id")}
    fields.update({"prompt": row["prompt"], "completion": state["completion"], "answer": "", "state": state, "info": {}, "task": None})
    out = {}
    for func in env.rubric.funcs:
        sig = inspect.signature(func)
        objects = fields if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()) else \
            {k: v for k, v in fields.items() if k in sig.parameters}
        try:
            out[func.__name__] = float(await func(**objects))
        except Exception:
            out[func.__name__] = 0.0
    return out


@unittest.skipUnless(GIT, trainer_src.skip_reason(ENV, REPO, [COMMIT]))
class VerifiersAgentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.saved = dict(sys.modules)
        for name in [n for n in sys.modules if n == "verifiers" or n.startswith("verifiers.")] + ["sqlgym_verifiers_agent"]:
            sys.modules.pop(name, None)
        cls.vf, cls.typ = load_verifiers()
        import sqlgym_verifiers_agent as sva
        cls.sva = sva
        cls.serve = Serve(TASKS, "--retry-after", "1s", "--max-turns", "4", "--eval-holdout")
        c = sa.EpisodeClient(cls.serve.url)
        ep = c.start("orders", "tools")
        c.end(ep["episode_id"])
        cls.row = {"prompt": ep["messages"], "task_id": "orders", "split": "train", "example_id": 0}
        cls.tmp = tempfile.mkdtemp(prefix="sqlgym-vfa-")
        cls.data = os.path.join(cls.tmp, "agent.jsonl")
        with open(cls.data, "w") as f:
            f.write(json.dumps(cls.row) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()
        for name in set(sys.modules) - set(cls.saved):
            del sys.modules[name]
        sys.modules.update(cls.saved)

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url

    def run_rollout(self, script, row=None, **env_kw):
        env = self.sva.load_environment(dataset=[row or self.row], **env_kw)
        env.script, env.seen = list(script), []
        state = asyncio.run(env.rollout(dict(row or self.row), client=None, model="m"))
        return env, state, asyncio.run(score(env, row or self.row, state))

    def test_gold_episode(self):
        before = open_episodes(self.serve.url)
        env, state, scores = self.run_rollout([
            reply(self.typ, calls=[("list_tables", {}), ("run_sql", {"sql": "SELECT nope FROM orders"})], finish="tool_calls"),
            reply(self.typ, "done", calls=[("submit", {"sql": GOLD_SQL})], finish="tool_calls"),
            reply(self.typ, "never asked"),
        ])
        self.assertEqual((scores["sqlgym_reward"], scores["sqlgym_correct"]), (1.0, 1.0))
        self.assertEqual(state["stop_condition"], "has_final_env_response")
        self.assertEqual(len(state["trajectory"]), 2, "the server ended the episode at submit")
        self.assertEqual(len(env.script), 1)
        # The model was offered the server's four tools, and saw the tool results of its first turn.
        self.assertEqual([t.name for t in env.seen[0][1]], list(sa.TOOL_SCHEMAS))
        results = [m for m in env.seen[1][0] if m.role == "tool"]
        self.assertEqual([m.tool_call_id for m in results], ["c0", "c1"])
        self.assertIn("orders (300 rows)", results[0].content)
        self.assertTrue(results[1].content.startswith("Error: "), results[1].content)
        self.assertEqual(state["sqlgym"]["stats"]["turns"], 2)
        self.assertFalse(state["sqlgym_masked"])
        self.assertEqual(open_episodes(self.serve.url), before)

    def test_wrong_and_max_turns(self):
        _, state, scores = self.run_rollout([reply(self.typ, calls=[("submit", {"sql": "SELECT 1"})], finish="tool_calls")])
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym"]["outcome"]), (0.1, "wrong"))
        # verifiers' max_turns stops the loop before the last reply reaches env_response: cleanup steps it.
        before = open_episodes(self.serve.url)
        _, state, scores = self.run_rollout([
            reply(self.typ, calls=[("run_sql", {"sql": GOLD_SQL})], finish="tool_calls"),
            reply(self.typ, calls=[("submit", {"sql": GOLD_SQL})], finish="tool_calls"),
        ], max_turns=2)
        self.assertEqual(state["stop_condition"], "max_turns_reached")
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym"]["outcome"]), (1.0, "correct"))
        # A rollout that ends without submitting is judged on close.
        _, state, scores = self.run_rollout([reply(self.typ, calls=[("run_sql", {"sql": GOLD_SQL})], finish="tool_calls")], max_turns=1)
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym"]["outcome"]), (0.0, "no_query"))
        self.assertEqual(open_episodes(self.serve.url), before)

    def test_truncated_reply_is_masked_and_closed(self):
        before = open_episodes(self.serve.url)
        for kw in ({}, {"max_turns": 2}):
            _, state, scores = self.run_rollout([
                reply(self.typ, calls=[("run_sql", {"sql": GOLD_SQL})], finish="tool_calls"),
                reply(self.typ, "```sql\nSELECT COUNT(*) FROM ord", finish="length"),
            ], **kw)
            self.assertTrue(state["trajectory"][-1]["is_truncated"])
            self.assertEqual(state["sqlgym"]["outcome"], "truncated", kw)
            self.assertEqual((scores["sqlgym_reward"], state["sqlgym_masked"]), (0.0, True))
            self.assertEqual(open_episodes(self.serve.url), before, "the cut-off episode is closed on the server")

    def test_failed_rollout_is_masked_and_closed(self):
        before = open_episodes(self.serve.url)
        _, state, scores = self.run_rollout([
            reply(self.typ, calls=[("run_sql", {"sql": GOLD_SQL})], finish="tool_calls"),
            self.vf.Error("the model server went away"),
        ])
        self.assertEqual(state["stop_condition"], "has_error")
        self.assertEqual((state["sqlgym"]["outcome"], state["sqlgym"]["reward"]), ("no_query", None))
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym_masked"]), (0.0, True))
        self.assertEqual(open_episodes(self.serve.url), before)

    def test_timed_out_rollout_is_masked_and_closed(self):
        before = open_episodes(self.serve.url)
        _, state, scores = self.run_rollout([
            reply(self.typ, calls=[("run_sql", {"sql": GOLD_SQL})], finish="tool_calls"), "hang"], timeout_seconds=0.5)
        self.assertEqual(state["stop_condition"], "timeout_reached")
        self.assertEqual(state["sqlgym"]["outcome"], "truncated")
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym_masked"]), (0.0, True))
        self.assertEqual(open_episodes(self.serve.url), before)

    def test_outage_is_never_a_reward(self):
        outage = OutageServer()
        self.addCleanup(outage.stop)
        os.environ["SQLGYM_RETRY_FOR"] = "1"
        self.addCleanup(os.environ.pop, "SQLGYM_RETRY_FOR", None)
        os.environ["SQLGYM_URL"] = outage.url
        with self.assertRaises(self.sva.SqlgymOutage):
            self.run_rollout([reply(self.typ, calls=[("submit", {"sql": GOLD_SQL})], finish="tool_calls")])
        # The database fails mid-episode: the rollout stops, and scoring raises instead of giving 0.0.
        os.environ["SQLGYM_URL"] = self.serve.url
        env = self.sva.load_environment(dataset=[self.row])
        env.script, env.seen = [reply(self.typ, calls=[("run_sql", {"sql": GOLD_SQL})], finish="tool_calls"),
                                reply(self.typ, "x")], []

        async def setup_then_fail(state, _orig=env.setup_state):
            state = await _orig(state)
            self.addCleanup(sa.EpisodeClient(self.serve.url).end, state["sqlgym_episode"]["id"])
            state["sqlgym_episode"]["url"] = outage.url
            return state
        env.setup_state = setup_then_fail
        state = asyncio.run(env.rollout(dict(self.row), client=None, model="m"))
        self.assertEqual(len(state["trajectory"]), 1)
        with self.assertRaises(self.sva.SqlgymOutage):
            asyncio.run(score(env, self.row, state))

    def test_text_protocol(self):
        c = sa.EpisodeClient(self.serve.url)
        ep = c.start("orders", "text")
        c.end(ep["episode_id"])
        row = dict(self.row, prompt=ep["messages"])
        env, state, scores = self.run_rollout([
            reply(self.typ, "<sql>SELECT count(*) FROM orders</sql>"),
            reply(self.typ, "<solution>%s</solution>" % GOLD_SQL),
        ], row=row, protocol="text")
        self.assertEqual(env.seen[0][1], [], "no tools under the text protocol")
        self.assertEqual([m.role for m in env.seen[1][0]][-2:], ["assistant", "user"])
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym"]["outcome"]), (1.0, "correct"))

    def test_holdout_row_opens_an_eval_episode(self):
        c = sa.EpisodeClient(self.serve.url)
        ep = c.start("held", "tools", "eval")
        c.end(ep["episode_id"])
        row = {"prompt": ep["messages"], "task_id": "held", "split": "holdout", "example_id": 1}
        _, state, scores = self.run_rollout(
            [reply(self.typ, calls=[("submit", {"sql": "SELECT COUNT(*) FROM reviews"})], finish="tool_calls")], row=row)
        self.assertEqual((scores["sqlgym_reward"], state["sqlgym"]["outcome"]), (1.0, "correct"))

    def test_prompt_must_be_the_opening(self):
        row = dict(self.row, prompt=[{"role": "user", "content": "How many orders? Answer in a sql block."}])
        before = open_episodes(self.serve.url)
        with self.assertRaisesRegex(ValueError, "sqlgym export --agent --format trl"):
            self.run_rollout([], row=row)
        self.assertEqual(open_episodes(self.serve.url), before)


if __name__ == "__main__":
    unittest.main()
