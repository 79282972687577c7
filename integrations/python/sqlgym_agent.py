"""Multi-turn text-to-SQL episodes from `sqlgym serve`, for RL trainers.

Standard library only. The server runs the loop (package agent): the model
lists and describes tables, runs queries in the database's sandbox and
submits one final query, which the server's verifier judges. Three layers:

- EpisodeClient: the HTTP episode API (POST /v1/episodes, .../step, DELETE).
- verl: see sqlgym_verl.py (an agent loop that drives this client).
- SqlgymEnvironment: a class for TRL's GRPOTrainer(environment_factory=...):
  reset(**row) opens an episode of row["task_id"], the public methods are
  the tools, get_reward() is the episode's reward.

The server's address comes from the url argument or $SQLGYM_URL.
"""

import json
import os
import time
import urllib.error
import urllib.request

__all__ = ["EpisodeClient", "SqlgymEnvironment", "TOOL_SCHEMAS", "trl_environment_reward"]


class EpisodeError(RuntimeError):
    """The server refused a request; status is the HTTP status."""

    def __init__(self, status, message):
        super().__init__("sqlgym episode API: HTTP %d: %s" % (status, message))
        self.status = status


class EpisodeClient:
    """The episode API of one `sqlgym serve`.

    A 429 (too many open episodes, or the database's queue full) or a 503 is
    retried after the server's Retry-After for up to retry_for seconds.
    """

    def __init__(self, url=None, timeout=300.0, retry_for=120.0):
        self.url = (url or os.environ.get("SQLGYM_URL") or "http://127.0.0.1:8421").rstrip("/")
        self.timeout = timeout
        self.retry_for = retry_for

    def start(self, task_id, protocol=None, mode=None):
        """Open an episode: {"episode_id", "protocol", "max_turns", "messages", "tools"?}.
        mode "eval" opens a validation episode (a held-out task, scored by
        a server started with --eval-holdout)."""
        body = {"task_id": task_id}
        if protocol:
            body["protocol"] = protocol
        if mode:
            body["mode"] = mode
        return self._call("POST", "/v1/episodes", body)

    def step(self, episode_id, message, finish_reason=None, completion_tokens=None):
        """Send the assistant's message (a dict with content and/or tool_calls).

        Returns {"observations", "done", "turn", "reward", "outcome"?, ...}.
        """
        body = {"message": message}
        if finish_reason:
            body["finish_reason"] = finish_reason
        if completion_tokens:
            body["completion_tokens"] = int(completion_tokens)
        return self._call("POST", "/v1/episodes/%s/step" % episode_id, body)

    def end(self, episode_id):
        """End an episode early; the server judges it (no_query, or the last query with --submit-last)."""
        return self._call("DELETE", "/v1/episodes/%s" % episode_id, None)

    def _call(self, method, path, body):
        deadline = time.monotonic() + self.retry_for
        data = None if body is None else json.dumps(body).encode()
        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode())
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors="replace")
                try:
                    text = json.loads(text).get("error", text)
                except ValueError:
                    pass
                if e.code in (429, 503):
                    wait = float(e.headers.get("Retry-After") or 1)
                    if time.monotonic() + wait < deadline:
                        time.sleep(wait)
                        continue
                raise EpisodeError(e.code, text) from None


def _tool(name, description, properties=None, required=()):
    params = {"type": "object", "properties": properties or {}}
    if required:
        params["required"] = list(required)
    params["additionalProperties"] = False
    return {"type": "function", "function": {"name": name, "description": description, "parameters": params}}


# The tools as the server offers them (POST /v1/episodes returns the same
# list; a test checks they agree).
TOOL_SCHEMAS = {
    "list_tables": _tool("list_tables", "List the database's tables with their row counts."),
    "describe_table": _tool(
        "describe_table",
        "Show one table's columns with their types, its primary and foreign keys, and its first few rows.",
        {"name": {"type": "string", "description": "the table's name"}}, ["name"]),
    "run_sql": _tool(
        "run_sql", "Run one read-only SQL query and see its first rows, or the database's error message.",
        {"sql": {"type": "string", "description": "one SQL query"}}, ["sql"]),
    "submit": _tool(
        "submit",
        "Submit the final SQL query that answers the question. This ends the episode; the query is then run and judged.",
        {"sql": {"type": "string", "description": "the final SQL query"}}, ["sql"]),
}

class SqlgymEnvironment:
    """A sqlgym episode as a TRL environment (GRPOTrainer environment_factory).

    TRL makes one instance per rollout, calls reset(**row) with the dataset
    row before generating, and offers the public methods below as tools. The
    dataset row must hold task_id; reset returns the episode's opening user
    message (schema and question), which TRL adds to the row's prompt, so the
    prompt itself can be just the system instruction. get_reward() ends the
    episode if the model never submitted and returns its reward (a null
    reward, for a truncated turn or an outage, is 0.0 and sets reward_is_null
    so a reward function can drop the sample).
    """

    def __init__(self, url=None, protocol="tools"):
        self.client = EpisodeClient(url)
        self.protocol = protocol
        self.episode_id = None
        self.result = None
        self.reward_is_null = False

    def reset(self, **kwargs):
        task_id = kwargs.get("task_id")
        if not task_id:
            raise ValueError("SqlgymEnvironment.reset needs the row's task_id")
        if self.episode_id and self.result is None:
            self._end()
        opened = self.client.start(task_id, self.protocol)
        self.episode_id, self.result, self.reward_is_null = opened["episode_id"], None, False
        self.messages = opened["messages"]
        return self.messages[-1]["content"]

    def list_tables(self) -> str:
        """List the database's tables with their row counts.

        Returns:
            One line per table.
        """
        return self._call("list_tables", {})

    def describe_table(self, name: str) -> str:
        """Show one table's columns, types, keys and first rows.

        Args:
            name: The table's name.

        Returns:
            The table's description.
        """
        return self._call("describe_table", {"name": name})

    def run_sql(self, sql: str) -> str:
        """Run one read-only SQL query and see its first rows or its error.

        Args:
            sql: One SQL query.

        Returns:
            The first rows, or the database's error message.
        """
        return self._call("run_sql", {"sql": sql})

    def submit(self, sql: str) -> str:
        """Submit the final SQL query; this ends the episode.

        Args:
            sql: The final SQL query that answers the question.

        Returns:
            The verdict.
        """
        return self._call("submit", {"sql": sql})

    def get_reward(self) -> float:
        if self.result is None and self.episode_id:
            self._end()
        if self.result is None or self.result.get("reward") is None:
            self.reward_is_null = self.result is not None
            return 0.0
        return float(self.result["reward"])

    def _call(self, name, args):
        if self.episode_id is None:
            return "Error: no episode (reset was not called)."
        if self.result is not None:
            return "The episode is over."
        msg = {"role": "assistant", "content": "", "tool_calls": [
            {"id": name, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
        res = self.client.step(self.episode_id, msg)
        text = "\n".join(o["content"] for o in res["observations"])
        if res["done"]:
            self.result = res
            text = (text + "\n" if text else "") + "Outcome: %s." % res["outcome"]
        return text

    def _end(self):
        try:
            self.result = self.client.end(self.episode_id)
        except EpisodeError as e:
            if e.status != 404:
                raise
            self.result = {"reward": None, "outcome": "expired", "done": True}


def trl_environment_reward(environments, **kwargs):
    """A TRL reward function: each rollout's episode reward."""
    return [env.get_reward() for env in environments]
