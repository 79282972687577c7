"""sqlgym episodes as a SkyRL-gym text environment (NovaSky-AI/SkyRL).

Standard library only; importable without skyrl-gym (the class then
subclasses a local stand-in of skyrl_gym's BaseTextEnv). The episode runs
on a `sqlgym serve` ($SQLGYM_URL, or env_config url) over the text
protocol: the model writes <sql>QUERY</sql> to run a query and
<solution>QUERY</solution> to submit; the server's verifier judges the
submission.

Register it in the entrypoint, as SkyRL's examples register theirs
(examples/train/multiply/main_multiply.py), then train on rows from
`sqlgym export --agent --protocol text --format skyrl` (env_class
"sqlgym"):

    from sqlgym_skyrl import register_sqlgym
    register_sqlgym()

A step's reward is 0.0 until the episode ends, then the server's reward.
A null reward (the gold fails, or the server was told the reply was cut)
is sent as 0.0 with metadata sqlgym_masked 1: SkyRL takes a float. A
reply SkyRL cut at its length limit is masked by
generator.apply_overlong_filtering=true. A database outage raises
SqlgymError: the rollout fails instead of learning a 0.
"""

import os

from sqlgym_agent import EpisodeClient
from sqlgym_reward import SqlgymError

__all__ = ["SqlgymEnv", "register_sqlgym", "ENV_ID"]

ENV_ID = "sqlgym"

try:  # skyrl-gym: skyrl_gym/envs/base_text_env.py:9-17
    from skyrl_gym.envs.base_text_env import BaseTextEnv as _Base  # type: ignore
    from skyrl_gym.envs.base_text_env import BaseTextEnvStepOutput as _StepOutput  # type: ignore
except Exception:  # noqa: BLE001 - any import failure means "no skyrl-gym"

    class _Base:
        """Stand-in for skyrl-gym's BaseTextEnv: the fields and methods a
        SkyRL generator uses."""

        def __init__(self):
            self.turns = 0
            self.max_turns = 1

        def init(self, prompt):
            return prompt, {}

        def close(self):
            pass

        def get_metrics(self):
            return {}

    def _StepOutput(**fields):  # a TypedDict there: a plain dict at run time
        return dict(fields)


def _get(cfg, key, default=None):
    if cfg is None:
        return default
    if isinstance(cfg, dict) or hasattr(cfg, "get"):
        v = cfg.get(key)
    else:
        v = getattr(cfg, key, None)
    return default if v is None else v


class SqlgymEnv(_Base):
    """One sqlgym episode per trajectory.

    skyrl_gym.make builds it with env_config (environment.skyrl_gym.sqlgym:
    ``url``) and extras (the dataset row's columns besides prompt and
    env_class, plus max_turns). ``init`` opens the episode and returns its
    opening messages, which are the exported prompt; ``step`` sends the
    model's reply and returns the observations; ``close`` ends an episode
    still open (a rollout SkyRL stopped), so none is left on the server.
    """

    def __init__(self, env_config=None, extras=None):
        super().__init__()
        extras = dict(extras or {})
        self.task_id = extras.get("task_id")
        if not self.task_id:
            raise ValueError("sqlgym env: the row has no task_id (export with `sqlgym export --agent --protocol text --format skyrl`)")
        protocol = extras.get("protocol") or "text"
        if protocol != "text":
            raise ValueError("sqlgym env: SkyRL steps with the model's text, so the episode protocol must be text, not %r" % protocol)
        self.max_turns = int(extras.get("max_turns") or 4)
        self.client = EpisodeClient(_get(env_config, "url") or os.environ.get("SQLGYM_URL"))
        self.mode = "eval" if extras.get("split") == "holdout" else None  # held-out validation rows
        self.episode_id = None
        self.result = None

    def init(self, prompt):
        ep = self.client.start(self.task_id, "text", self.mode)
        self.episode_id = ep["episode_id"]
        return list(ep["messages"]), {"sqlgym_max_turns": ep["max_turns"]}

    def step(self, action):
        self.turns += 1
        res = self.client.step(self.episode_id, {"role": "assistant", "content": action or ""})
        if not res["done"]:
            return _StepOutput(observations=res["observations"], reward=0.0, done=False,
                               metadata={"sqlgym_turn": res["turn"]}, postprocessed_action=None)
        self.result, self.episode_id = res, None
        if res.get("outcome") == "infra_error":
            raise SqlgymError("sqlgym episode of task %s met a database outage: %s" % (self.task_id, res.get("detail", "")))
        masked = res["reward"] is None
        return _StepOutput(observations=[], reward=0.0 if masked else float(res["reward"]), done=True,
                           metadata={"sqlgym_outcome": res["outcome"], "sqlgym_masked": 1.0 if masked else 0.0,
                                     "sqlgym_sql": res.get("sql", "")},
                           postprocessed_action=None)

    def close(self):
        if self.episode_id is not None:
            ep, self.episode_id = self.episode_id, None
            self.result = self.client.end(ep)

    def get_metrics(self):
        r = self.result or {}
        return {"sqlgym_correct": 1.0 if r.get("outcome") == "correct" else 0.0,
                "sqlgym_masked": 1.0 if r and r.get("reward") is None else 0.0,
                "sqlgym_turns": float(r.get("turn", self.turns))}


def register_sqlgym(env_id=ENV_ID):
    """Register SqlgymEnv with skyrl-gym under env_id (default "sqlgym")."""
    from skyrl_gym.envs import register  # type: ignore

    register(id=env_id, entry_point="sqlgym_skyrl:SqlgymEnv")
