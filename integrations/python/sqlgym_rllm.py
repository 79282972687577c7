"""sqlgym episodes as an rLLM environment (rllm-org/rllm).

Standard library only (rLLM's BaseEnv is used when rLLM is installed; a
stand-in with the same methods otherwise). ``SqlgymRllmEnv`` is a
``rllm.environments.base.base_env.BaseEnv``: reset(task) opens a sqlgym
episode of task["task_id"] on a running ``sqlgym serve`` ($SQLGYM_URL) and
returns its opening; step(action) sends the model's text and returns the
observation, the reward (0.0 until the episode ends), done and info.

rLLM's MultiTurnWorkflow (rllm/workflows/multi_turn_workflow.py:34-60 at
9beb6e0f) builds the env as env_cls(**env_args), resets it twice per task
(Workflow.reset, workflow.py:280-286, calls reset(task=task), then
MultiTurnWorkflow.reset calls reset(task)), and steps it with the agent's
action; so reset ends an episode still open before it opens the next, and
close() ends the last. A reply rLLM's engine cut at its token limit is
stepped before the workflow sees finish_reason "length" (:47-50); rLLM
then ends the trajectory with MAX_RESPONSE_LENGTH_EXCEEDED, which
``rllm.compact_filtering.enable=True
rllm.compact_filtering.mask_max_response_length_exceeded=True`` keeps out
of the loss (rllm/trainer/algorithms/config.py:110-157,
trainer/config/agent_ppo_trainer.yaml:53).

The episodes use the text protocol (<sql> runs a query, <solution>
submits). For SingleTurnWorkflow (single_turn_workflow.py:33-56), which
steps once, pass env_args {"single_turn": True}: the one reply ends the
episode, judged as the end of its turns when it did not submit. A null reward (a broken gold) is 0.0 with info["sqlgym_masked"];
an outage raises. Data: ``sqlgym export --format trl`` rows (their
``task_id``) as rLLM tasks.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sqlgym_agent import EpisodeClient  # noqa: E402
from sqlgym_reward import SqlgymError  # noqa: E402

try:  # rllm/environments/base/base_env.py
    from rllm.environments.base.base_env import BaseEnv  # type: ignore
except Exception:  # noqa: BLE001 - any import failure means "no rLLM"

    class BaseEnv:  # type: ignore[no-redef]
        """Stand-in for rLLM's BaseEnv (reset, step, close, from_dict)."""

        def close(self):
            return None

        @staticmethod
        def is_multithread_safe():
            return True


__all__ = ["SqlgymRllmEnv"]


class SqlgymRllmEnv(BaseEnv):
    """One sqlgym episode per task (see the module doc)."""

    def __init__(self, task=None, url=None, protocol="text", single_turn=False, **kwargs):
        self.task = task
        self.client = EpisodeClient(url)
        self.protocol = protocol
        # SingleTurnWorkflow steps once: the one reply ends the episode
        # (judged as the end of its turns when it did not submit).
        self.single_turn = bool(single_turn)
        self.episode_id = None

    def reset(self, task=None):
        self.close()
        task = task if task is not None else self.task
        if not task or not task.get("task_id"):
            raise ValueError("sqlgym rLLM env: the task has no task_id (use rows of `sqlgym export --format trl`)")
        self.task = task
        mode = "eval" if task.get("split") == "holdout" else None
        ep = self.client.start(task["task_id"], self.protocol, mode)
        self.episode_id = ep["episode_id"]
        user = next((m["content"] for m in reversed(ep["messages"]) if m["role"] == "user"), "")
        obs = {"question": user, "messages": ep["messages"]}
        return obs, {"episode_id": self.episode_id, "task_id": task["task_id"], "max_turns": ep.get("max_turns")}

    def step(self, action):
        text = getattr(action, "action", action)
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        if self.episode_id is None:
            raise RuntimeError("sqlgym rLLM env: step before reset")
        res = self.client.step(self.episode_id, {"role": "assistant", "content": text})
        if not res["done"] and self.single_turn:
            res = self.client.end(self.episode_id)
        if not res["done"]:
            obs = "\n".join(o.get("content") or "" for o in res["observations"])
            return obs, 0.0, False, {"turn": res.get("turn")}
        self.episode_id = None
        if res.get("outcome") == "infra_error":
            raise SqlgymError("sqlgym: the database failed during the episode: %s" % res.get("detail", ""))
        masked = res.get("reward") is None
        info = {"sqlgym_outcome": res.get("outcome"), "sqlgym_masked": masked, "sqlgym_sql": res.get("sql", ""),
                "turn": res.get("turn")}
        return "", 0.0 if masked else float(res["reward"]), True, info

    def close(self):
        """End an episode rLLM stopped (turns or tokens out): none is left open."""
        if self.episode_id is not None:
            ep, self.episode_id = self.episode_id, None
            try:
                self.client.end(ep)
            except Exception:  # noqa: BLE001 - closing must not fail the rollout
                pass

    @staticmethod
    def from_dict(info):
        """rLLM's factory: the task row itself, plus optional url/protocol."""
        info = dict(info or {})
        return SqlgymRllmEnv(task=info, url=info.pop("url", None), protocol=info.pop("protocol", None) or "text",
                             single_turn=info.pop("single_turn", False))

    @staticmethod
    def is_multithread_safe():
        # Each instance holds its own episode; the HTTP client shares nothing.
        return True
