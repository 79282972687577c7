"""sqlgym episodes as a verifiers v1 taskset with a tool server
(PrimeIntellect-ai/verifiers main, ``verifiers.v1``): multi-turn text-to-SQL
for prime-rl main, whose env server runs only v1 tasksets.

Load it by id, with this folder on PYTHONPATH (the env server and the tool
server it starts both import this module):

    --env.taskset.id sqlgym-verifiers-v1-agent --env.taskset.dataset_path band.agent.jsonl

The rows are ``sqlgym export --agent --format trl``: their prompt is the
episode's opening (system message with the tool instructions, user message
with schema and question), which the task checks against the episode it
opens (export and serve must use the same --schema and --prompt-template).

How verifiers runs it (verifiers/v1/rollout.py, main a60a606e):

- ``SqlgymAgentTask.setup`` (rollout.py:241, in the env server) opens an
  episode on `sqlgym serve` (``POST /v1/episodes``, tools protocol) and
  keeps its id in the rollout's state (``SqlgymState``, the task's State
  type, rollout.py:92).
- ``Task.toolsets`` (rollout.py:248) gives ``SqlgymToolset``, which
  verifiers launches per rollout as an MCP server (``python -m`` this
  module, mcp/launch.py:288; ``ServerBase.run`` at the bottom). Its four
  ``@vf.tool`` methods are the server's tools, by the server's names
  (``TOOL_PREFIX = None``): list_tables, describe_table, run_sql, submit.
  Each call pulls the rollout's state over verifiers' state channel, steps
  the episode with that one call (a partial step: the server counts no
  turn for it, as for TRL), and pushes the state back (mcp/server.py:227-253).
- ``episode_over``, a ``@vf.stop`` on the trace, ends the rollout once the
  server has judged the episode (submit) or met an outage.
- ``SqlgymAgentTask.finalize`` (rollout.py:474-480, after the tool server
  is down) closes an episode still open: a truncated trace (verifiers'
  ``Trace.is_truncated``: a reply cut at max_tokens, or a max_turns/token
  limit, trace.py:493-504) is stepped with finish_reason "length", which the
  server judges ``truncated`` (no reward); any other is ended with
  ``DELETE`` and judged as the server judges an abandoned episode
  (``no_query``, or the last query with ``--submit-last``).
- The ``@vf.reward`` ``sqlgym`` is the server's reward (0.0 with the metric
  ``sqlgym_masked`` 1 when it has none); ``sqlgym_correct`` is 1.0 for a
  correct answer. A database outage raises SqlgymOutage, a BaseException,
  so the rollout fails instead of being scored.

A rollout that fails (a harness or model error) skips finalize in
verifiers (rollout.py:472); its episode stays open on the server until
``sqlgym serve --episode-ttl`` ends it, and it is never scored.
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifiers.v1 as vf  # noqa: E402

from sqlgym_agent import EpisodeClient, EpisodeError  # noqa: E402
from sqlgym_verifiers_v1 import SqlgymData, SqlgymOutage, task_data  # noqa: E402

__all__ = ["SqlgymAgentTaskset"]


class SqlgymState(vf.State):
    """The rollout's episode, shared by the task (env server) and the tool
    server (its own process) through verifiers' state channel."""

    url: str = ""
    """The `sqlgym serve` the episode lives on (the env server's $SQLGYM_URL)."""
    episode_id: str | None = None
    result: dict | None = None
    """The server's answer that ended the episode (reward, outcome, ...)."""
    outage: str | None = None
    """Set when the server could not use the database: the rollout has no reward."""


def _outage(err):
    return isinstance(err, EpisodeError) and err.status in (429, 503)


def _client(url=None):
    """The episode API, retrying a busy or failing server for $SQLGYM_RETRY_FOR
    seconds (120) before the outage is reported."""
    return EpisodeClient(url, retry_for=float(os.environ.get("SQLGYM_RETRY_FOR") or 120.0))


class SqlgymToolset(vf.Toolset[vf.ToolsetConfig, SqlgymState]):
    """The episode's tools, served per rollout."""

    TOOL_PREFIX = None  # the server's own tool names, which the opening prompt uses

    @vf.tool
    async def list_tables(self) -> str:
        """List the database's tables with their row counts."""
        return await self._call("list_tables", {})

    @vf.tool
    async def describe_table(self, name: str) -> str:
        """Show one table's columns with their types, its primary and foreign keys, and its first few rows."""
        return await self._call("describe_table", {"name": name})

    @vf.tool
    async def run_sql(self, sql: str) -> str:
        """Run one read-only SQL query and see its first rows, or the database's error message."""
        return await self._call("run_sql", {"sql": sql})

    @vf.tool
    async def submit(self, sql: str) -> str:
        """Submit the final SQL query that answers the question. This ends the episode; the query is then run and judged."""
        return await self._call("submit", {"sql": sql})

    async def _call(self, name, args):
        st = self.state
        if not st.episode_id:
            return "Error: no episode (the task's setup did not open one)."
        if st.result is not None:
            return "The episode is over."
        if st.outage:
            return "Error: the database is unavailable."
        msg = {"role": "assistant", "content": "", "tool_calls": [
            {"id": name, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
        try:
            res = await asyncio.to_thread(_client(st.url).step, st.episode_id, msg, None, None, True)
        except EpisodeError as e:
            if e.status == 404:  # expired past --episode-ttl: no reward
                st.result = {"done": True, "reward": None, "outcome": "expired"}
                return "The episode is over."
            if _outage(e):
                st.outage = str(e)
                return "Error: the database is unavailable."
            raise
        text = "\n".join(o.get("content") or "" for o in res["observations"])
        if res["done"]:
            st.result = res
            text = (text + "\n" if text else "") + "Outcome: %s." % res["outcome"]
        return text


class SqlgymAgentTaskConfig(vf.TaskConfig):
    tools: vf.ToolsetConfig = vf.ToolsetConfig()
    """Where the tool server runs (``--env.taskset.task.tools.*``; a subprocess by default)."""


def _opening_matches(data, messages):
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system") or None
    user = "\n\n".join(m["content"] for m in messages if m["role"] != "system")
    return data.system_prompt == system and data.prompt == user


class SqlgymAgentTask(vf.Task[SqlgymData, SqlgymState, SqlgymAgentTaskConfig]):
    async def setup(self, trace: vf.Trace) -> None:
        client = _client()
        try:
            ep = await asyncio.to_thread(client.start, self.data.task_id, "tools", self.data.mode)
        except EpisodeError as e:
            if _outage(e):
                raise SqlgymOutage(str(e)) from None
            raise
        if not _opening_matches(self.data, ep["messages"]):
            await asyncio.to_thread(_end_quietly, client, ep["episode_id"])
            raise ValueError(
                "task %s: the row's prompt is not the episode's opening, so the model would read other "
                "instructions than the server's; export the rows with `sqlgym export --agent --format trl` "
                "with the same --schema and --prompt-template as `sqlgym serve`" % self.data.task_id)
        trace.state.url, trace.state.episode_id = client.url, ep["episode_id"]

    @classmethod
    def toolsets(cls, config: SqlgymAgentTaskConfig) -> list:
        return [SqlgymToolset(config.tools)]

    @vf.stop
    async def episode_over(self, trace: vf.Trace) -> bool:
        return trace.state.result is not None or bool(trace.state.outage)

    async def finalize(self, trace: vf.Trace) -> None:
        st = trace.state
        if not st.episode_id or st.result is not None or st.outage:
            return
        client = _client(st.url)
        try:
            if trace.is_truncated:
                res = await asyncio.to_thread(client.step, st.episode_id,
                                              {"role": "assistant", "content": trace.last_reply}, "length")
            else:
                res = await asyncio.to_thread(client.end, st.episode_id)
        except EpisodeError as e:
            if e.status == 404:
                res = {"done": True, "reward": None, "outcome": "expired"}
            elif _outage(e):
                st.outage = str(e)
                return
            else:
                raise
        st.result = res

    @vf.reward(weight=1.0)
    async def sqlgym(self, trace: vf.Trace) -> float:
        st = trace.state
        if st.outage:
            raise SqlgymOutage("sqlgym serve met a database outage: %s" % st.outage)
        res = st.result or {"reward": None, "outcome": "no_episode"}
        if res.get("outcome") == "infra_error":
            raise SqlgymOutage("sqlgym serve met a database outage: %s" % res.get("detail", ""))
        trace.record_metric("sqlgym_masked", 1.0 if res.get("reward") is None else 0.0)
        trace.record_metric("sqlgym_correct", 1.0 if res.get("outcome") == "correct" else 0.0)
        return 0.0 if res.get("reward") is None else float(res["reward"])


def _end_quietly(client, episode_id):
    try:
        client.end(episode_id)
    except EpisodeError:
        pass  # the refusal that follows matters more


class SqlgymAgentTasksetConfig(vf.TasksetConfig):
    dataset_path: str = ""
    """A file of ``sqlgym export --agent --format trl`` (``--env.taskset.dataset_path``)."""
    task: SqlgymAgentTaskConfig = SqlgymAgentTaskConfig()


class SqlgymAgentTaskset(vf.Taskset[SqlgymAgentTask, SqlgymAgentTasksetConfig]):
    def load(self):
        path = self.config.dataset_path
        if not path:
            raise ValueError("sqlgym agent taskset: set --env.taskset.dataset_path to a file of "
                             "`sqlgym export --agent --format trl`")
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        return [SqlgymAgentTask(task_data(i, row), self.config.task) for i, row in enumerate(rows)]


if __name__ == "__main__":  # verifiers starts the tool server as `python -m sqlgym_verifiers_v1_agent`
    SqlgymToolset.run()
