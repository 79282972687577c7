"""sqlgym episodes as a GEM environment for ROLL (alibaba/ROLL).

Standard library only (GEM's Env is used when ``gem`` is installed; a
stand-in otherwise). ROLL's agentic pipeline builds its environments with
``gem.make(env_id=env_type, **config)`` and plays them with
``reset(seed=seed)`` and ``step(action=response)``, the response decoded
with its special tokens (roll/pipeline/agentic/env_manager/
traj_env_manager.py:72, :179, :192-194 at 8eb27cc2); its own environments
are registered with ``gem.register`` (roll/pipeline/agentic/env/
__init__.py:9-14). Call ``register_sqlgym()`` where ROLL's are registered
and set ``env_type: sqlgym`` with ``config: {tasks_path: train.jsonl}``.

- ``tasks_path``: rows of ``sqlgym export --format trl`` (their task_id);
  ``reset(seed)`` plays task ``seed mod n`` (ROLL's seeds pick the task,
  as its math env's dataset does), in the text protocol (<sql> runs a
  query, <solution> submits). The observation is the episode's user
  message; info["env_instruction"] its system prompt.
- ``step`` returns (observation, reward, terminated, truncated, info):
  reward 0.0 until the episode ends. A null reward (a broken gold, a reply
  the server judged truncated) is 0.0 with info metrics sqlgym_masked 1.
  ROLL ends a trajectory at max_steps itself (truncated); the next reset
  or close() ends the episode left open.
- A database outage raises: the rollout fails, never a 0.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sqlgym_agent import EpisodeClient  # noqa: E402
from sqlgym_reward import SqlgymError  # noqa: E402

try:
    from gem import Env  # type: ignore
except Exception:  # noqa: BLE001 - any import failure means "no GEM"

    class Env:  # type: ignore[no-redef]
        """Stand-in for gem.Env (reset, step)."""

        def reset(self, seed=None):
            return None


__all__ = ["SqlgymGemEnv", "register_sqlgym", "ENV_ID"]

ENV_ID = "sqlgym"


def register_sqlgym(env_id=ENV_ID):
    """gem.register(env_id, entry_point="sqlgym_roll:SqlgymGemEnv")."""
    import gem  # type: ignore

    gem.register(env_id, entry_point="sqlgym_roll:SqlgymGemEnv")


class SqlgymGemEnv(Env):
    """One sqlgym episode per reset (see the module doc)."""

    def __init__(self, tasks_path=None, task_ids=None, url=None, mode="train", seed=0, **_):
        super().__init__()
        self.task_ids = list(task_ids or [])
        if tasks_path:
            with open(tasks_path) as f:
                self.task_ids += [json.loads(line)["task_id"] for line in f if line.strip()]
        if not self.task_ids:
            raise ValueError("sqlgym GEM env: no tasks; give tasks_path (a `sqlgym export --format trl` file) or task_ids")
        self.client = EpisodeClient(url)
        self.mode = "eval" if mode in ("val", "eval") else None
        self.seed = seed
        self.episode_id = None

    def reset(self, seed=None):
        super().reset(seed)
        self.close()
        seed = self.seed if seed is None else seed
        task_id = self.task_ids[int(seed) % len(self.task_ids)]
        ep = self.client.start(task_id, "text", self.mode)
        self.episode_id = ep["episode_id"]
        system = "\n".join(m["content"] for m in ep["messages"] if m["role"] == "system")
        user = "\n".join(m["content"] for m in ep["messages"] if m["role"] != "system")
        return user, {"env_instruction": system, "task_id": task_id}

    def step(self, action):
        if self.episode_id is None:
            raise RuntimeError("sqlgym GEM env: step before reset")
        res = self.client.step(self.episode_id, {"role": "assistant", "content": action or ""})
        if not res["done"]:
            obs = "\n".join(o.get("content") or "" for o in res["observations"])
            return obs, 0.0, False, False, {"metrics": {}, "metrics_agg_mode": {}}
        self.episode_id = None
        if res.get("outcome") == "infra_error":
            raise SqlgymError("sqlgym: the database failed during the episode: %s" % res.get("detail", ""))
        masked = res.get("reward") is None
        metrics = {"sqlgym_correct": float(res.get("outcome") == "correct"), "sqlgym_masked": float(masked)}
        info = {"metrics": metrics, "metrics_agg_mode": {k: "last" for k in metrics}, "sqlgym_outcome": res.get("outcome")}
        return "", 0.0 if masked else float(res["reward"]), True, False, info

    def close(self):
        if self.episode_id is not None:
            ep, self.episode_id = self.episode_id, None
            try:
                self.client.end(ep)
            except Exception:  # noqa: BLE001 - closing must not fail the rollout
                pass
