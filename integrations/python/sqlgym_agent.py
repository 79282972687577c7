"""Multi-turn text-to-SQL episodes from `sqlgym serve`, for RL trainers.

Standard library only. The server runs the loop (package agent): the model
lists and describes tables, runs queries in the database's sandbox and
submits one final query, which the server's verifier judges. Three layers:

- EpisodeClient: the HTTP episode API (POST /v1/episodes, .../step, DELETE).
- verl: see sqlgym_verl.py (an agent loop that drives this client).
- SqlgymEnvironment: a class for TRL's GRPOTrainer(environment_factory=...):
  reset(**row) opens an episode of row["task_id"], the public methods are
  the tools (each call one partial step: a turn is a whole assistant
  message, which TRL bounds with max_tool_calling_iterations), get_reward()
  is the episode's reward (None when there is none: TRL drops it).

The server's address comes from the url argument or $SQLGYM_URL.
"""

import json
import os
import time
import urllib.error
import urllib.request

__all__ = ["EpisodeClient", "SqlgymEnvironment", "TOOL_SCHEMAS", "trl_environment_reward", "CHAT_FORMATS", "chat_format",
           "render_opening", "parse_label"]


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
        `sqlgym serve --eval-holdout`)."""
        body = {"task_id": task_id}
        if protocol:
            body["protocol"] = protocol
        if mode:
            body["mode"] = mode
        return self._call("POST", "/v1/episodes", body)

    def step(self, episode_id, message, finish_reason=None, completion_tokens=None, partial=False):
        """Send the assistant's message (a dict with content and/or tool_calls).

        partial=True sends one tool call of a message the caller sees only
        call by call: it costs no turn. Returns {"observations", "done",
        "turn", "reward", "outcome"?, ...}.
        """
        body = {"message": message}
        if partial:
            body["partial"] = True
        if finish_reason:
            body["finish_reason"] = finish_reason
        if completion_tokens:
            body["completion_tokens"] = int(completion_tokens)
        return self._call("POST", "/v1/episodes/%s/step" % episode_id, body)

    def end(self, episode_id):
        """End an episode early; the server judges it (no_query, or the last query with --submit-last)."""
        return self._call("DELETE", "/v1/episodes/%s" % episode_id, None)

    def run_text(self, task_id, chat, mode=None):
        """One whole episode under the text protocol: chat(messages) returns
        the model's (text, finish_reason) for the conversation so far; each
        reply is stepped ("length" when the model was cut) and the
        observations join the conversation as user turns. Returns the
        server's last answer (done); an episode left by an error is ended
        on the server."""
        ep = self.start(task_id, "text", mode)
        messages, done = list(ep["messages"]), None
        try:
            while done is None:
                text, finish = chat(messages)
                msg = {"role": "assistant", "content": text}
                res = self.step(ep["episode_id"], msg, "length" if finish == "length" else None)
                if res["done"]:
                    done = res
                    break
                messages += [msg] + [{"role": "user", "content": o.get("content") or ""} for o in res["observations"]]
        finally:
            if done is None:
                try:
                    self.end(ep["episode_id"])
                except Exception:  # noqa: BLE001 - the original error matters more
                    pass
        return done

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


# Chat formats: how a system or user turn is written, how an assistant turn
# opens, the text before the first turn, and what ends a turn (the EOS the
# engine leaves at the end of a finished reply).
CHAT_FORMATS = {
    "chatml": {"bos": "", "system": "<|im_start|>system\n{}<|im_end|>\n", "user": "<|im_start|>user\n{}<|im_end|>\n",
               "assistant": "<|im_start|>assistant\n", "end_of_turn": "<|im_end|>", "after_reply": "\n"},
    "llama3": {"bos": "<|begin_of_text|>",
               "system": "<|start_header_id|>system<|end_header_id|>\n\n{}<|eot_id|>",
               "user": "<|start_header_id|>user<|end_header_id|>\n\n{}<|eot_id|>",
               "assistant": "<|start_header_id|>assistant<|end_header_id|>\n\n", "end_of_turn": "<|eot_id|>", "after_reply": ""},
    # Gemma has no system role: the system text opens the first user turn.
    "gemma": {"bos": "<bos>", "system": None, "user": "<start_of_turn>user\n{}<end_of_turn>\n",
              "assistant": "<start_of_turn>model\n", "end_of_turn": "<end_of_turn>", "after_reply": "\n"},
}


def chat_format(name=None):
    name = name or os.environ.get("SQLGYM_CHAT_FORMAT") or "chatml"
    if name not in CHAT_FORMATS:
        raise ValueError("SQLGYM_CHAT_FORMAT=%r: one of %s" % (name, ", ".join(sorted(CHAT_FORMATS))))
    return CHAT_FORMATS[name]


def render_opening(messages, fmt):
    """The episode's opening messages as prompt text, ending with the
    opening of the first assistant turn."""
    out, pending_system = [fmt["bos"]], ""
    for m in messages:
        if m["role"] == "system":
            if fmt["system"] is None:
                pending_system = m["content"] + "\n\n"
            else:
                out.append(fmt["system"].format(m["content"]))
        else:
            out.append(fmt["user"].format(pending_system + m["content"]))
            pending_system = ""
    out.append(fmt["assistant"])
    return "".join(out)


def parse_label(label):
    """The task id and mode of a row's label: a task id, or the export's
    {"task_id", "mode"} object."""
    text = label.strip() if isinstance(label, str) else label
    if isinstance(text, str) and text.startswith("{"):
        text = json.loads(text)
    if isinstance(text, dict):
        return text.get("task_id"), text.get("mode")
    return text, None


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

    TRL (0.29 to 1.9) makes one instance per rollout, calls reset(**row)
    with the dataset row before generating, and offers the public methods
    below as tools; since 1.8 it also calls get_reward() once per rollout
    as a reward source of its own (trl/trainer/grpo_trainer.py).

    The prompt. TRL appends reset()'s text to the row's last prompt
    message. The agent export (`sqlgym export --agent --format trl`) puts
    the episode's opening messages (system with the tool instructions, then
    the user message with schema and question) in the row's prompt, so
    reset() returns None and TRL adds nothing. A row without a prompt (or
    with an empty user message) gets the opening as reset()'s text. A row
    whose prompt is something else, such as a single-turn export's "answer
    in a sql block" prompt, is refused: the model would read two
    contradictory sets of instructions.

    A turn. The server counts a turn per assistant message, whatever its
    number of tool calls. TRL runs a message's calls one method call at a
    time, so each is sent as a partial step, which costs no turn; bound the
    messages with GRPOConfig(max_tool_calling_iterations=MAX_TURNS - 1)
    (the generation after the last tool round is the last turn). The
    server ends an episode after max_turns x 8 calls all the same.

    Rows with split "holdout" (sqlgym export --split holdout, TRL's
    eval_dataset) open evaluation episodes (`sqlgym serve --eval-holdout`).
    """

    def __init__(self, url=None, protocol="tools"):
        self.client = EpisodeClient(url)
        self.protocol = protocol
        self.episode_id = None
        self.result = None
        self.messages = []

    def reset(self, **kwargs):
        task_id = kwargs.get("task_id")
        if not task_id:
            raise ValueError("SqlgymEnvironment.reset needs the row's task_id: export the dataset with `sqlgym export --agent --format trl`")
        if self.episode_id and self.result is None:
            self._end()
        mode = "eval" if kwargs.get("split") == "holdout" else None
        opened = self.client.start(task_id, self.protocol, mode)
        self.episode_id, self.result = opened["episode_id"], None
        self.messages = opened["messages"]
        return opening_text(kwargs.get("prompt"), self.messages, task_id)

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

    def get_reward(self):
        """The episode's reward, judging it first if the model never
        submitted; None when it has none (a truncated turn, a broken gold,
        an expired episode): TRL turns None into NaN and leaves the rollout
        out, where a 0 would teach it. A database outage raises (the
        client retries first), so it is never scored."""
        if self.result is None and self.episode_id:
            self._end()
        if self.result is None:
            return None
        if self.result.get("outcome") == "infra_error":
            raise EpisodeError(503, "the database failed during the episode: %s" % self.result.get("detail", ""))
        reward = self.result.get("reward")
        return None if reward is None else float(reward)

    def _call(self, name, args):
        if self.episode_id is None:
            return "Error: no episode (reset was not called)."
        if self.result is not None:
            return "The episode is over."
        msg = {"role": "assistant", "content": "", "tool_calls": [
            {"id": name, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
        res = self.client.step(self.episode_id, msg, partial=True)
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


def _same_messages(prompt, opening):
    if not isinstance(prompt, list) or len(prompt) != len(opening):
        return False
    return all(isinstance(m, dict) and m.get("role") == o["role"] and m.get("content") == o["content"]
               for m, o in zip(prompt, opening))


def opening_text(prompt, opening, task_id="?"):
    """What reset() returns for TRL to append to the row's last prompt
    message: None when the prompt is already the episode's opening; the
    opening's text when the prompt has no user text yet; else a ValueError
    naming the fix."""
    if _same_messages(prompt, opening):
        return None
    msgs = prompt if isinstance(prompt, list) else []
    users = [m for m in msgs if isinstance(m, dict) and m.get("role") == "user" and m.get("content")]
    if (prompt is None or isinstance(prompt, list)) and not users:
        system = [o["content"] for o in opening if o["role"] == "system"]
        if any(isinstance(m, dict) and m.get("role") == "system" and m.get("content") in system for m in msgs):
            system = []  # the row already holds the episode's system message
        return "\n\n".join(system + [o["content"] for o in opening if o["role"] == "user"])
    raise ValueError(
        "task %s: the row's prompt is not the episode's opening messages, so the model would read two sets of "
        "instructions; export the dataset with `sqlgym export --agent --format trl` (the prompt is the opening "
        "the server renders), with the same --schema and --prompt-template as `sqlgym serve`" % task_id)


def _trl_version():
    try:
        from importlib.metadata import version
        return tuple(int(p) for p in version("trl").split(".")[:2])
    except Exception:  # noqa: BLE001 - not installed, or an odd version string
        return None


def trl_environment_reward(environments, **kwargs):
    """Deprecated. Before TRL 1.8 this was the reward function of an
    environment_factory run. Since TRL 1.8, GRPOTrainer scores every rollout
    with the environment's get_reward() itself (one reward source, weight
    1), so adding this function counted the reward twice: with TRL 1.8 or
    later (or TRL not installed) it returns None for every rollout, which
    TRL ignores, and warns. Drop it from reward_funcs."""
    import warnings
    v = _trl_version()
    if v is None or v >= (1, 8):
        warnings.warn("trl_environment_reward is deprecated: TRL >= 1.8 already scores rollouts with "
                      "SqlgymEnvironment.get_reward(); remove it from reward_funcs", DeprecationWarning, stacklevel=2)
        return [None for _ in environments]
    return [env.get_reward() for env in environments]
