"""sqlgym episodes as a multi-turn verifiers 0.3.0 environment
(PrimeIntellect-ai/verifiers, tag v0.3.0), for prime-rl before its commit
03f12efba and `vf-eval`. For prime-rl main use sqlgym_verifiers_v1_agent.

``load_environment`` is the entry point verifiers' loader calls; put this
folder on PYTHONPATH and load the environment by name,
``sqlgym_verifiers_agent``:

    env = load_environment(dataset_path="band.agent.jsonl")  # sqlgym export --agent --format trl

The rows' prompt is the episode's opening (``sqlgym export --agent``, the
same --schema and --prompt-template as `sqlgym serve`); their task_id
column names the task. The environment is a ``vf.MultiTurnEnv``
(verifiers/envs/multiturn_env.py) over the server's episode API:

- ``setup_state`` opens the episode (``POST /v1/episodes``; the "tools"
  protocol by default, its four tools given to the model as
  ``tool_defs``; protocol="text" for a model without tool calling);
- ``env_response`` steps the model's last message, whole (one turn,
  every tool call in it), and returns the server's observations as tool
  (or user) messages; a reply the model cut at max_tokens (the trajectory
  step's is_truncated, multiturn_env.py:149-160) is stepped with
  finish_reason "length", which the server judges ``truncated``; when the
  server ends the episode its observations become ``final_env_response``,
  which stops the rollout (:94-97);
- the ``@vf.cleanup`` handler, which verifiers runs after every rollout
  (:218-223, also after an error or timeout), closes an episode still open:
  a reply not stepped yet (the rollout stopped at max_turns) is stepped
  first, then the episode is ended (``DELETE``; judged ``no_query``, or
  the last query with ``--submit-last``). A truncated or timed-out rollout
  is sent as "length" instead, and gets no reward; so does one that ended
  on an error (state["error"], e.g. the model server failing), whose
  episode is ended and its verdict not used.

The rubric is sqlgym_verifiers' reward pair read from the episode's
verdict: ``sqlgym_reward`` (0.0 when the server gave none, with
``state["sqlgym_masked"]``) and ``sqlgym_correct`` (weight 0). A database
outage raises SqlgymOutage (a BaseException: verifiers turns an Exception
in a reward function into 0.0).
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifiers as vf  # noqa: E402  (verifiers 0.3.0: verifiers/__init__.py)

from sqlgym_agent import TOOL_SCHEMAS, EpisodeClient, EpisodeError  # noqa: E402
from sqlgym_verifiers import SqlgymOutage, _read_rows  # noqa: E402

__all__ = ["load_environment", "SqlgymEpisodeEnv", "sqlgym_reward", "sqlgym_correct", "SqlgymOutage"]


def _outage(err):
    return isinstance(err, EpisodeError) and err.status in (429, 503)


def _client(url=None):
    return EpisodeClient(url, retry_for=float(os.environ.get("SQLGYM_RETRY_FOR") or 120.0))


def _get(message, key):
    return message.get(key) if isinstance(message, dict) else getattr(message, key, None)


def _wire_message(message):
    """A vf.AssistantMessage (or its dict) as the episode API reads it."""
    out = {"role": "assistant", "content": _get(message, "content") or ""}
    calls = _get(message, "tool_calls") or []
    if calls:
        out["tool_calls"] = []
        for c in calls:
            fn = _get(c, "function")  # an OpenAI-shaped dict, or vf.ToolCall (id, name, arguments)
            name, args = (_get(fn, "name"), _get(fn, "arguments")) if fn else (_get(c, "name"), _get(c, "arguments"))
            if not isinstance(args, str):
                args = json.dumps(args)
            out["tool_calls"].append({"id": _get(c, "id"), "type": "function", "function": {"name": name, "arguments": args}})
    return out


def _vf_message(obs):
    """A server observation as a vf message (verifiers 0.3.0 types.py)."""
    if obs.get("role") == "tool":
        return vf.ToolMessage(tool_call_id=obs.get("tool_call_id") or "", content=obs.get("content") or "")
    return vf.UserMessage(content=obs.get("content") or "")


def _task_id(state):
    for src in (state.get("input"), state.get("info"), state.get("task")):
        if isinstance(src, dict) and src.get("task_id"):
            return src["task_id"], src.get("split")
    raise ValueError("the row has no task_id: build the dataset with `sqlgym export --agent --format trl`")


class SqlgymEpisodeEnv(vf.MultiTurnEnv):
    """A sqlgym episode per rollout."""

    def __init__(self, protocol="tools", **kwargs):
        if protocol == "tools":
            kwargs.setdefault("tool_defs", [
                {k: s["function"][k] for k in ("name", "description", "parameters")} for s in TOOL_SCHEMAS.values()])
        self.protocol = protocol
        super().__init__(**kwargs)

    async def setup_state(self, state, **kwargs):
        task_id, split = _task_id(state)
        client = _client()
        try:
            ep = await asyncio.to_thread(client.start, task_id, self.protocol, "eval" if split == "holdout" else None)
        except EpisodeError as e:
            if _outage(e):
                raise SqlgymOutage(str(e)) from None
            raise
        prompt = [(_get(m, "role"), _get(m, "content")) for m in state.get("prompt") or []]
        if prompt != [(m["role"], m["content"]) for m in ep["messages"]]:
            try:
                await asyncio.to_thread(client.end, ep["episode_id"])
            except EpisodeError:
                pass  # the refusal below matters more
            raise ValueError(
                "task %s: the row's prompt is not the episode's opening, so the model would read other instructions "
                "than the server's; export the rows with `sqlgym export --agent --format trl` with the same --schema "
                "and --prompt-template as `sqlgym serve`" % task_id)
        state["sqlgym_episode"] = {"url": client.url, "id": ep["episode_id"], "stepped": 0}
        state["sqlgym"] = None
        return state

    async def env_response(self, messages, state, **kwargs):
        res = await self._step(state, messages[-1], state["trajectory"][-1].get("is_truncated"))
        if res is None:  # an outage: the rollout stops, unscored
            state["final_env_response"] = []
            return []
        obs = [_vf_message(o) for o in res.get("observations") or []]
        if res["done"]:
            state["final_env_response"] = obs
        return obs

    async def _step(self, state, message, truncated):
        ep = state["sqlgym_episode"]
        ep["stepped"] = len(state["trajectory"])
        try:
            res = await asyncio.to_thread(_client(ep["url"]).step, ep["id"], _wire_message(message),
                                          "length" if truncated else None)
        except EpisodeError as e:
            if e.status == 404:  # expired past --episode-ttl
                res = {"done": True, "reward": None, "outcome": "expired", "observations": []}
            elif _outage(e):
                state["sqlgym_outage"] = str(e)
                return None
            else:
                raise
        if res["done"]:
            state["sqlgym"] = res
        return res

    @vf.cleanup
    async def close_episode(self, state):
        ep = state.get("sqlgym_episode")
        if not ep or state.get("sqlgym") is not None or state.get("sqlgym_outage"):
            return
        # verifiers' own time limit cuts the episode as max_tokens cuts a reply: truncated, no reward.
        truncated = (bool(state.get("is_truncated")) or bool(state.get("timed_out"))
                     or any(s.get("is_truncated") for s in state["trajectory"]))
        if len(state["trajectory"]) > ep["stepped"]:  # the last reply, never stepped (max_turns)
            res = await self._step(state, state["trajectory"][-1]["completion"][-1], truncated)
            if res is None or res["done"]:
                return
        try:
            if truncated:
                res = await asyncio.to_thread(_client(ep["url"]).step, ep["id"], {"role": "assistant", "content": ""}, "length")
            else:
                res = await asyncio.to_thread(_client(ep["url"]).end, ep["id"])
                if state.get("error") is not None:
                    # The rollout failed (the model server, a bad response): not the policy's answer.
                    res = dict(res, reward=None)
        except EpisodeError as e:
            if e.status == 404:
                res = {"done": True, "reward": None, "outcome": "expired"}
            elif _outage(e):
                state["sqlgym_outage"] = str(e)
                return
            else:
                raise
        state["sqlgym"] = res


def _verdict(state):
    if state is None:
        raise ValueError("sqlgym's episode reward needs the rollout state")
    if state.get("sqlgym_outage"):
        raise SqlgymOutage("sqlgym serve met a database outage: %s" % state["sqlgym_outage"])
    res = state.get("sqlgym") or {"reward": None, "outcome": "no_episode"}
    if res.get("outcome") == "infra_error":
        raise SqlgymOutage("sqlgym serve met a database outage: %s" % res.get("detail", ""))
    state["sqlgym_masked"] = res.get("reward") is None
    return res


async def sqlgym_reward(state=None, **kwargs):
    """The episode's reward (0.0 when the server gave none: see state["sqlgym_masked"])."""
    res = _verdict(state)
    return 0.0 if res.get("reward") is None else float(res["reward"])


async def sqlgym_correct(state=None, **kwargs):
    """1.0 when the server judged the episode's answer correct (a metric, weight 0)."""
    return 1.0 if _verdict(state).get("outcome") == "correct" else 0.0


def load_environment(dataset_path=None, eval_dataset_path=None, dataset=None, eval_dataset=None, url=None,
                     protocol="tools", **kwargs):
    """A multi-turn sqlgym environment over rows of `sqlgym export --agent
    --format trl` (dataset_path, or dataset). url overrides $SQLGYM_URL;
    protocol is "tools" (default) or "text"."""
    if url:
        os.environ["SQLGYM_URL"] = url
    if dataset is None:
        if not dataset_path:
            raise ValueError("load_environment needs dataset_path (a file of `sqlgym export --agent --format trl`) or dataset")
        dataset = _read_rows(dataset_path)
    if eval_dataset is None and eval_dataset_path:
        eval_dataset = _read_rows(eval_dataset_path)
    rubric = vf.Rubric(funcs=[sqlgym_reward, sqlgym_correct], weights=[1.0, 0.0])
    return SqlgymEpisodeEnv(protocol=protocol, dataset=dataset, eval_dataset=eval_dataset, rubric=rubric, **kwargs)
