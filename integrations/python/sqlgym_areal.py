"""sqlgym rewards for AReaL (inclusionAI/AReaL).

Standard library only. ``reward_fn`` has the signature of AReaL's reward
functions (areal/api/reward_api.py:38-44 at 4aef98d8d): AReaL's RLVR
workflow wraps it in AsyncRewardWrapper (areal/workflow/rlvr.py:73) and
awaits it per sample with (prompt_str, completions_str, input_tokens,
output_tokens, **task_data) (:101-107). The wrapper runs it in a process
pool, so it is a plain module-level function.

- The row's ``task_id`` (``sqlgym export --format trl``) names the task;
  a row whose ``split`` is ``holdout`` is scored as evaluation.
- Truncation: with SQLGYM_EOS_TOKEN_ID set, a completion whose last token
  is not EOS was cut by the token limit and is sent as truncated. AReaL
  wants a float, so a null reward is 0.0 (no masking through this
  signature).
- Multi-turn: ``SqlgymAgent``, an agent for AReaL's OpenAI-proxy workflow
  (areal/experimental/openai/proxy/workflow.py at 4aef98d8d): the workflow
  checks ``run`` is a coroutine function (:107), awaits
  ``agent.run(data, base_url=, http_client=, api_key=)`` in inline mode
  (:122-130), or ``agent.run(data)`` with OPENAI_BASE_URL/OPENAI_API_KEY
  set in subprocess mode (:62-69), and assigns a float result to the last
  completion (:234-241); an exception rejects the trajectory (:224-232).
  The agent plays a text-protocol episode (<sql> runs a query, <solution>
  submits), one chat completion per turn through AReaL's proxy (which
  records them for training), and returns the episode's reward; a turn
  cut by max_tokens ends it as truncated (0.0).
- Outages: AsyncRewardWrapper turns a timeout (timeout_seconds, 15 s by
  default) into reward 0 (reward_api.py:158-170), but re-raises other
  errors after its retries. So the client here retries an outage for
  SQLGYM_RETRY_FOR seconds, default 10 (below the wrapper's timeout),
  then raises: the rollout fails instead of learning 0.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import asyncio  # noqa: E402
import json  # noqa: E402
import urllib.request  # noqa: E402

from sqlgym_agent import EpisodeClient  # noqa: E402
from sqlgym_reward import SqlgymClient, SqlgymError, _truncated  # noqa: E402

__all__ = ["reward_fn", "SqlgymAgent", "SqlgymError"]


def _eos():
    v = os.environ.get("SQLGYM_EOS_TOKEN_ID", "")
    return int(v) if v.strip() else None


def reward_fn(prompt, completions, prompt_ids, completion_ids, **data):
    """AReaL's reward function: the sqlgym reward of one completion (0.0
    for a null one)."""
    task_id = data.get("task_id")
    if not task_id:
        raise ValueError("sqlgym: the row has no task_id (use `sqlgym export --format trl` rows as AReaL's dataset)")
    item = {"task_id": task_id, "completion": completions}
    if _truncated(list(completion_ids or []), _eos(), None):
        item["finish_reason"] = "length"
    if data.get("split") == "holdout":
        item["mode"] = "eval"
    retry_for = float(os.environ.get("SQLGYM_RETRY_FOR") or 10.0)
    r = SqlgymClient(retry_for=retry_for).rewards([item])[0]
    return 0.0 if r["reward"] is None else float(r["reward"])


class SqlgymAgent:
    """AReaL's agent interface (``async def run(data, **extra_kwargs)``) over
    a sqlgym episode of data["task_id"]; see the module doc."""

    def __init__(self, max_turns=None, **kwargs):
        # The rest are the chat completion's sampling arguments, as AReaL's
        # example agents pass them on.
        self.kwargs = {k: v for k, v in kwargs.items() if k != "max_turns"}

    async def run(self, data, **extra_kwargs):
        base_url = (extra_kwargs.get("base_url") or os.environ.get("OPENAI_BASE_URL") or "").rstrip("/")
        api_key = extra_kwargs.get("api_key") or os.environ.get("OPENAI_API_KEY") or ""
        if not data.get("task_id"):
            raise ValueError("sqlgym: the row has no task_id (use `sqlgym export --format trl` rows)")
        return await asyncio.to_thread(self._episode, data, base_url, api_key)

    def _chat(self, base_url, api_key, messages):
        body = dict(self.kwargs, model="default", messages=messages)
        req = urllib.request.Request(base_url + "/chat/completions", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + api_key})
        with urllib.request.urlopen(req, timeout=600) as resp:
            choice = json.loads(resp.read())["choices"][0]
        return choice["message"].get("content") or "", choice.get("finish_reason")

    def _episode(self, data, base_url, api_key):
        mode = "eval" if data.get("split") == "holdout" else None
        done = EpisodeClient().run_text(data["task_id"], lambda messages: self._chat(base_url, api_key, messages), mode)
        if done.get("outcome") == "infra_error":
            raise SqlgymError("sqlgym: a database outage during the episode: %s" % done.get("detail", ""))
        return 0.0 if done.get("reward") is None else float(done["reward"])
