"""sqlgym_verifiers_v1_agent (multi-turn), run by verifiers v1's own code
as prime-rl's env server runs a rollout with a per-rollout tool server.

verifiers.v1 is read from its git history at main a60a606e as in
test_verifiers_v1.py (whose loader this reuses), plus the tool server's
own modules: mcp/server.py (ServerBase: the state channel pull/push around
each tool call, the task fetched over /task, run()'s config) and
mcp/toolset.py (Toolset.register: every @vf.tool added to FastMCP by name
and docstring). The tools are registered and called by the MCP Python
SDK's own tool code (modelcontextprotocol/python-sdk v1.29.0, verifiers
pins mcp>=1.24,<2; $SQLGYM_MCP_GIT or $SQLGYM_TRAINER_SRC): types.py,
tools/base.py (Tool.from_function: the input schema from the signature,
Tool.run: arguments validated, then the function awaited),
tools/tool_manager.py and func_metadata.py, behind a FastMCP whose
add_tool and call_tool are server.py:428-437 and :346-349 (the rest of
FastMCP, its HTTP transport, needs anyio/starlette/uvicorn). Other
stand-ins, for third-party imports only: httpx (an AsyncClient over
urllib), tenacity (one attempt), and verifiers.v1.runtimes (the config
types toolset.py names). The env server's side of the state channel
(interception/server.py:983-1033: GET /state dumps trace.state, PUT
/state validates into the trace's State type and replaces it, GET /task
hands the task data's class ref and JSON) is served by the test.

The calls are verifiers' rollout (rollout.py, main a60a606e): the state
built from the task's State type (:92), task.setup(trace) (:241),
task.toolsets(config) (:248), the tool server started with VF_CONFIG,
VF_STATE_URL, VF_STATE_SECRET (mcp/launch.py:262-266) and set up as its
process does (mcp/server.py:302-315, run() :335-337), the task's
@vf.stop hooks before each model call (session.py refused), then after
the tool server is down task.finalize (:474-480) and task.score (:488).
"""

import asyncio
import json
import os
import secrets
import sys
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
import test_verifiers_v1 as base  # noqa: E402
import trainer_src  # noqa: E402
from serve_fixture import OutageServer, Serve, open_episodes  # noqa: E402

TASKS = base.TASKS + [
    {"id": "held", "db": "shop", "question": "How many reviews?", "sql": "SELECT count(*) FROM reviews", "split": "holdout"},
]
GOLD_SQL = "SELECT COUNT(*) FROM orders"
WRONG_SQL = "SELECT count(*) + 1 FROM orders"

STANDINS = {
    "httpx": '''
import asyncio, json, urllib.error, urllib.request
class TransportError(Exception):
    pass
class HTTPStatusError(Exception):
    def __init__(self, message, response):
        super().__init__(message)
        self.response = response
class Response:
    def __init__(self, status_code, content):
        self.status_code, self.content = status_code, content
    def json(self):
        return json.loads(self.content)
    def raise_for_status(self):
        if self.status_code >= 400:
            raise HTTPStatusError("HTTP %d" % self.status_code, self)
class AsyncClient:
    def __init__(self, timeout=None, **kwargs):
        self.timeout = timeout
    async def __aenter__(self):
        return self
    async def __aexit__(self, *exc):
        return False
    async def request(self, method, url, content=None, headers=None):
        def send():
            req = urllib.request.Request(url, data=content, method=method, headers=headers or {})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    return Response(r.status, r.read())
            except urllib.error.HTTPError as e:
                return Response(e.code, e.read())
            except OSError as e:
                raise TransportError(str(e))
        return await asyncio.to_thread(send)
''',
    "tenacity": '''
class AsyncRetrying:
    def __init__(self, **kwargs):
        pass
    def __call__(self, fn):
        return fn()
def retry_if_exception(pred):
    return pred
def stop_after_attempt(n):
    return n
def wait_exponential_jitter(**kwargs):
    return kwargs
''',
    "mcp.server.lowlevel.server": "import contextvars\nrequest_ctx = contextvars.ContextVar('request_ctx')\n",
    "mcp.server.fastmcp.server": "class Context:\n    pass\n",
    "mcp.shared.context": "from typing import TypeVar\nLifespanContextT = TypeVar('LifespanContextT')\nRequestT = TypeVar('RequestT')\n",
    "verifiers.v1.runtimes": '''
import pydantic
class SubprocessConfig(pydantic.BaseModel):
    type: str = "subprocess"
RuntimeConfig = SubprocessConfig
class Runtime:
    pass
''',
}


MCP_REPO = "modelcontextprotocol/python-sdk"
MCP_ENV = "SQLGYM_MCP_GIT"
MCP_COMMIT = "98b7159cb89274964055d2c016e3360a551280d0"  # tag v1.29.0
MCP_GIT = trainer_src.git_dir(MCP_ENV, MCP_REPO)
MCP_PACKAGES = ["mcp", "mcp.shared", "mcp.server", "mcp.server.lowlevel", "mcp.server.fastmcp",
                "mcp.server.fastmcp.utilities", "mcp.server.fastmcp.tools"]
MCP_REAL = ["types", "shared/exceptions", "shared/tool_name_validation", "server/fastmcp/exceptions",
            "server/fastmcp/utilities/logging", "server/fastmcp/utilities/types",
            "server/fastmcp/utilities/context_injection", "server/fastmcp/utilities/func_metadata",
            "server/fastmcp/tools/base", "server/fastmcp/tools/tool_manager"]

FASTMCP = '''
from mcp.server.fastmcp.tools.tool_manager import ToolManager

class FastMCP:
    """FastMCP's tool registry: add_tool as server.py:428-437, call_tool as :346-349."""

    def __init__(self, name, **kwargs):
        self.name, self._tool_manager = name, ToolManager()

    def add_tool(self, fn, name=None, title=None, description=None, annotations=None, icons=None, meta=None,
                 structured_output=None):
        self._tool_manager.add_tool(fn, name=name, title=title, description=description, annotations=annotations,
                                    icons=icons, meta=meta, structured_output=structured_output)

    async def call_tool(self, name, arguments):
        return await self._tool_manager.call_tool(name, arguments, context=None, convert_result=True)
'''


def load_mcp():
    """The MCP SDK's tool code at MCP_COMMIT, and the FastMCP registry over it."""
    for name in MCP_PACKAGES:
        base._module(name, path=True)
    for name, src in STANDINS.items():
        if name.startswith("mcp."):
            base._module(name, src)
    for rel in MCP_REAL:
        base._module("mcp." + rel.replace("/", "."), trainer_src.show(MCP_GIT, MCP_COMMIT, "src/mcp/%s.py" % rel))
    fastmcp = sys.modules["mcp.server.fastmcp"]
    exec(compile(FASTMCP, "<FastMCP>", "exec"), fastmcp.__dict__)


def text_of(result):
    """The text an MCP client reads from a call's result (unstructured content)."""
    content = result[0] if isinstance(result, tuple) else result
    return "\n".join(block.text for block in content)


def load_verifiers():
    """verifiers.v1 at base.COMMIT with the tool server's modules."""
    for name, src in STANDINS.items():
        if not name.startswith("mcp."):
            base._module(name, src)
    load_mcp()
    vf, loaders = base.load_verifiers()
    base._module("verifiers.v1.mcp", path=True)
    for rel in ("mcp/server", "mcp/toolset"):
        base._module("verifiers.v1." + rel.replace("/", "."), trainer_src.show(base.GIT, base.COMMIT, "verifiers/v1/%s.py" % rel))
    toolset = sys.modules["verifiers.v1.mcp.toolset"]
    sys.modules["verifiers.v1.mcp"].__dict__.update(Toolset=toolset.Toolset, ToolsetConfig=toolset.ToolsetConfig)
    vf.__dict__.update(Toolset=toolset.Toolset, ToolsetConfig=toolset.ToolsetConfig, State=sys.modules["verifiers.v1.state"].State,
                       tool=sys.modules["verifiers.v1.utils.decorators"].tool,
                       TaskConfig=sys.modules["verifiers.v1.configs.task"].TaskConfig)
    return vf, loaders


class StateChannel:
    """The env server's /state and /task routes for one rollout
    (interception/server.py:983-1033), keyed by the rollout's state bearer."""

    def __init__(self, trace):
        from pydantic import TypeAdapter

        self.trace, self.secret = trace, secrets.token_urlsafe(16)
        adapter = TypeAdapter(type(trace.state))
        channel = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, code, body):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _authorized(self):
                if self.headers.get("Authorization") != "Bearer " + channel.secret:
                    self._reply(401, b'{"error": "unauthorized"}')
                    return False
                return True

            def do_GET(self):
                if not self._authorized():
                    return
                if self.path == "/state":
                    self._reply(200, adapter.dump_json(channel.trace.state))
                else:
                    data = channel.trace.task_data
                    self._reply(200, json.dumps({"cls": "%s:%s" % (type(data).__module__, type(data).__qualname__),
                                                 "task": data.model_dump_json()}).encode())

            def do_PUT(self):
                if not self._authorized():
                    return
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                channel.trace.state = adapter.validate_json(raw)
                self._reply(200, b'{"ok": true}')

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@unittest.skipUnless(base.GIT, trainer_src.skip_reason(base.ENV, base.REPO, [base.COMMIT]))
@unittest.skipUnless(MCP_GIT, trainer_src.skip_reason(MCP_ENV, MCP_REPO, [MCP_COMMIT]))
class VerifiersV1AgentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.saved = dict(sys.modules)
        cls.vf, cls.loaders = load_verifiers()
        cls.serve = Serve(TASKS, "--retry-after", "1s", "--eval-holdout")
        c = sa.EpisodeClient(cls.serve.url)
        ep = c.start("orders", "tools")
        c.end(ep["episode_id"])
        cls.opening = ep["messages"]  # what `sqlgym export --agent --format trl` writes as the prompt
        held = c.start("held", "tools", "eval")
        c.end(held["episode_id"])
        cls.tmp = tempfile.mkdtemp(prefix="sqlgym-vf1a-")
        cls.data = os.path.join(cls.tmp, "agent.jsonl")
        with open(cls.data, "w") as f:
            f.write(json.dumps({"prompt": cls.opening, "task_id": "orders", "split": "train"}) + "\n")
            # A single-turn export's prompt: not the episode's opening.
            f.write(json.dumps({"prompt": [{"role": "system", "content": "Answer in a sql block."},
                                           {"role": "user", "content": "How many orders?"}],
                                "task_id": "orders", "split": "train"}) + "\n")
            f.write(json.dumps({"prompt": held["messages"], "task_id": "held", "split": "holdout"}) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()
        for name in set(sys.modules) - set(cls.saved):
            del sys.modules[name]

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url

    def wire(self):
        """prime-rl's orchestrator: the taskset loaded by id, each task as it goes on the wire."""
        taskset_id = "sqlgym-verifiers-v1-agent"
        config = self.loaders.taskset_config_type(taskset_id).model_validate({"id": taskset_id, "dataset_path": self.data})
        taskset = self.vf.load_taskset(config)
        return taskset, [t.data.model_dump(mode="json") for t in list(taskset)]

    def open_rollout(self, row=0):
        """The env server: task rebuilt from the wire, state of the task's type, setup."""
        taskset, wire = self.wire()
        task_cls = type(taskset).task_type()
        task = task_cls(task_cls.data_type().model_validate(wire[row]), taskset.config.task)
        trace = self.vf.Trace([])
        trace.state = sys.modules["verifiers.v1.state"].state_cls(type(task))()
        trace.task_data = task.data
        invoke = sys.modules["verifiers.v1.utils.decorators"].invoke
        asyncio.run(invoke(task.setup, {"trace": trace, "runtime": None}))
        return task, trace

    def tool_server(self, task, trace):
        """The tool server as its own process starts: config from VF_CONFIG, the
        state channel from VF_STATE_URL/VF_STATE_SECRET, setup, the task over
        /task, the tools registered on FastMCP."""
        [declared] = task.toolsets(task.config)
        channel = StateChannel(trace)
        self.addCleanup(channel.stop)
        for k, v in (("VF_STATE_URL", channel.url + "/state"), ("VF_STATE_SECRET", channel.secret)):
            os.environ[k] = v
            self.addCleanup(os.environ.pop, k, None)
        config = type(declared)._config_cls().model_validate_json(declared.config.model_dump_json())
        server = type(declared)(config)

        async def start():
            await server.setup()
            state_url, secret, _ = server._state_channel()
            await server._setup_task_from_channel(state_url, secret)
        asyncio.run(start())
        mcp = sys.modules["mcp.server.fastmcp"].FastMCP(server.server_name)
        server.register(mcp)
        return server, mcp

    def play(self, task, trace, tools, calls):
        """The harness's tool calls, each after the task's stop hooks (run
        before every model call); returns the tool results and whether a
        stop hook ended the rollout."""
        out = []
        for name, args in calls:
            if any(asyncio.run(base._all([fn(trace) for fn in task.hooks("stop")]))):
                return out, True
            trace.replies.append("")
            out.append(text_of(asyncio.run(tools.call_tool(name, args))))
        return out, any(asyncio.run(base._all([fn(trace) for fn in task.hooks("stop")])))

    def close(self, task, trace):
        invoke = sys.modules["verifiers.v1.utils.decorators"].invoke
        asyncio.run(invoke(task.finalize, {"trace": trace, "runtime": None}))
        asyncio.run(task.score(trace))

    def test_tools_are_the_servers(self):
        taskset, _ = self.wire()
        self.assertEqual(type(taskset).task_type().__name__, "SqlgymAgentTask")
        task, trace = self.open_rollout()
        _, mcp = self.tool_server(task, trace)
        listed = mcp._tool_manager.list_tools()
        self.assertEqual(sorted(t.name for t in listed), sorted(sa.TOOL_SCHEMAS))
        for tool in listed:
            want = sa.TOOL_SCHEMAS[tool.name]["function"]
            self.assertEqual(tool.description, want["description"])
            # The input schema MCP derives from the tool's signature asks for the server's arguments.
            self.assertEqual(sorted(tool.parameters["properties"]), sorted(want["parameters"]["properties"]))
            self.assertEqual(tool.parameters.get("required", []), want["parameters"].get("required", []))
        sa.EpisodeClient(self.serve.url).end(trace.state.episode_id)

    def test_gold_episode(self):
        before = open_episodes(self.serve.url)
        task, trace = self.open_rollout()
        self.assertEqual(open_episodes(self.serve.url), before + 1)
        server, tools = self.tool_server(task, trace)
        out, stopped = self.play(task, trace, tools, [
            ("list_tables", {}), ("describe_table", {"name": "orders"}), ("run_sql", {"sql": "SELECT nope FROM orders"}),
            ("submit", {"sql": GOLD_SQL}), ("run_sql", {"sql": "SELECT 1"})])
        self.assertIn("orders (300 rows)", out[0])
        self.assertIn("primary key: order_id", out[1])
        self.assertTrue(out[2].startswith("Error: "), out[2])
        self.assertIn("Outcome: correct", out[3])
        self.assertEqual(len(out), 4, "the stop hook ends the rollout after submit")
        self.assertTrue(stopped)
        self.close(task, trace)
        self.assertEqual(trace.reward, 1.0)
        self.assertEqual((trace.metrics["sqlgym_correct"], trace.metrics["sqlgym_masked"]), (1.0, 0.0))
        self.assertEqual(trace.state.result["stats"]["partial_calls"], 4)
        self.assertEqual(open_episodes(self.serve.url), before)

    def test_wrong_and_unsubmitted_episodes(self):
        task, trace = self.open_rollout()
        _, tools = self.tool_server(task, trace)
        self.play(task, trace, tools, [("submit", {"sql": WRONG_SQL})])
        self.close(task, trace)
        self.assertEqual((trace.reward, trace.state.result["outcome"]), (0.1, "wrong"))
        # The model stops without submitting (a finished reply, no tool call): finalize ends the episode.
        before = open_episodes(self.serve.url)
        task, trace = self.open_rollout()
        _, tools = self.tool_server(task, trace)
        _, stopped = self.play(task, trace, tools, [("run_sql", {"sql": GOLD_SQL})])
        self.assertFalse(stopped)
        self.close(task, trace)
        self.assertEqual((trace.reward, trace.state.result["outcome"], trace.metrics["sqlgym_masked"]), (0.0, "no_query", 0.0))
        self.assertEqual(open_episodes(self.serve.url), before)

    def test_holdout_row_opens_an_eval_episode(self):
        task, trace = self.open_rollout(row=2)
        self.assertEqual(task.data.mode, "eval")
        _, tools = self.tool_server(task, trace)
        self.play(task, trace, tools, [("submit", {"sql": "SELECT COUNT(*) FROM reviews"})])
        self.close(task, trace)
        self.assertEqual((trace.reward, trace.state.result["outcome"]), (1.0, "correct"))

    def test_truncated_episode_is_masked_and_closed(self):
        before = open_episodes(self.serve.url)
        for kw in ({"finish_reason": "length"}, {"stop_condition": "max_turns"}):
            task, trace = self.open_rollout()
            _, tools = self.tool_server(task, trace)
            self.play(task, trace, tools, [("run_sql", {"sql": GOLD_SQL})])
            trace.finish_reason, trace.stop_condition = kw.get("finish_reason", "stop"), kw.get("stop_condition")
            trace.replies.append("```sql\nSELECT COUNT(*) FROM ord")
            self.assertTrue(trace.is_truncated)
            self.close(task, trace)
            self.assertEqual(trace.state.result["outcome"], "truncated", kw)
            self.assertEqual((trace.reward, trace.metrics["sqlgym_masked"]), (0.0, 1.0))
            self.assertEqual(open_episodes(self.serve.url), before, "the cut-off episode is closed on the server")

    def test_outage_is_never_a_reward(self):
        outage = OutageServer()
        self.addCleanup(outage.stop)
        os.environ["SQLGYM_RETRY_FOR"] = "1"
        self.addCleanup(os.environ.pop, "SQLGYM_RETRY_FOR", None)
        # The database fails during the episode: the tool says so, the rollout stops, scoring raises.
        task, trace = self.open_rollout()
        mod = sys.modules["sqlgym_verifiers_v1_agent"]
        real_episode = trace.state.episode_id
        self.addCleanup(lambda: sa.EpisodeClient(self.serve.url).end(real_episode))
        trace.state.url = outage.url
        _, tools = self.tool_server(task, trace)
        out, stopped = self.play(task, trace, tools, [("run_sql", {"sql": GOLD_SQL}), ("submit", {"sql": GOLD_SQL})])
        self.assertEqual(out, ["Error: the database is unavailable."])
        self.assertTrue(stopped)
        with self.assertRaises(mod.SqlgymOutage):
            self.close(task, trace)
        # The server cannot open the episode at all.
        os.environ["SQLGYM_URL"] = outage.url
        with self.assertRaises(mod.SqlgymOutage):
            self.open_rollout()

    def test_prompt_must_be_the_opening(self):
        before = open_episodes(self.serve.url)
        with self.assertRaisesRegex(ValueError, "sqlgym export --agent --format trl"):
            self.open_rollout(row=1)
        self.assertEqual(open_episodes(self.serve.url), before)


if __name__ == "__main__":
    unittest.main()
