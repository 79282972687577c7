"""sqlgym as a verifiers environment (PrimeIntellect-ai/verifiers 0.3.0),
for prime-rl and `vf-eval`.

Standard library only; importable without verifiers (the environment is
then built from local stand-ins of vf.SingleTurnEnv and vf.Rubric, enough
for tests). ``load_environment`` is the entry point verifiers' loader calls
(verifiers/utils/env_utils.py:13-26):

    env = load_environment(dataset_path="band.trl.jsonl")   # sqlgym export --format trl

Rows keep their prompt (the one prompt renderer's, already holding the
system message) and their task_id column, which verifiers hands to the
reward function as a keyword (rubrics/rubric.py:143-157). The reward is the
server's (POST /v1/rewards, $SQLGYM_URL or url=); rollouts scored together
(Rubric.score_group gathers them, rubric.py:392-396) go in one request.

Truncation comes from the rollout state: a trajectory step marked
is_truncated (the model hit max_tokens; multiturn_env.py:149-160) or the
state's own is_truncated sends finish_reason "length", so the server
returns no reward; the rubric gets 0.0 and state["sqlgym_masked"] is set.
A database outage raises SqlgymOutage, a BaseException: verifiers turns an
Exception from a reward function into a 0.0 (rubric.py:199-217), so an
ordinary error would teach the model a 0 for the server's outage.
"""

import json
import os

from sqlgym_batch import batched_reward
from sqlgym_reward import SqlgymError, completion_text

__all__ = ["load_environment", "sqlgym_reward", "sqlgym_correct", "SqlgymOutage"]

try:  # verifiers 0.3.0: verifiers/__init__.py:30,79
    import verifiers as vf  # type: ignore

    _SingleTurnEnv, _Rubric = vf.SingleTurnEnv, vf.Rubric
except Exception:  # noqa: BLE001 - any import failure means "no verifiers"
    vf = None

    class _Rubric:
        """Stand-in for vf.Rubric: the reward functions and their weights."""

        def __init__(self, funcs=None, weights=None, **kwargs):
            self.funcs = list(funcs or [])
            self.weights = list(weights or [1.0] * len(self.funcs))

    class _SingleTurnEnv:
        """Stand-in for vf.SingleTurnEnv: the dataset and the rubric."""

        def __init__(self, dataset=None, eval_dataset=None, rubric=None, **kwargs):
            self.dataset, self.eval_dataset, self.rubric = dataset, eval_dataset, rubric
            self.max_turns = 1


class SqlgymOutage(BaseException):
    """The server could not score a rollout for a database outage: it has
    no reward, and must not be given verifiers' 0.0 for a failed reward
    function (which catches Exception, not BaseException)."""


def _truncated(state):
    if not state:
        return False
    if state.get("is_truncated"):
        return True
    return any(isinstance(step, dict) and step.get("is_truncated") for step in state.get("trajectory") or [])


async def _score(completion, state, task_id, info, split=None):
    info = info if isinstance(info, dict) else {}
    task_id = task_id or info.get("task_id")
    if not task_id:
        raise ValueError("the row has no task_id: build the dataset with `sqlgym export --format trl`")
    if state is not None and "sqlgym" in state:
        return state["sqlgym"]  # scored already, by the other function of the rubric
    item = {"task_id": task_id, "completion": completion_text(completion)}
    if (split or info.get("split")) == "holdout":
        item["mode"] = "eval"  # a held-out row: validation (eval_dataset)
    if _truncated(state):
        item["finish_reason"] = "length"
    try:
        res = await batched_reward(item)
    except SqlgymError as e:
        raise SqlgymOutage(str(e)) from None
    if res["outcome"] == "infra_error":
        raise SqlgymOutage("sqlgym serve met a database outage: %s" % res.get("detail", ""))
    if state is not None:
        state["sqlgym"] = res
        state["sqlgym_masked"] = res["reward"] is None
    return res


async def sqlgym_reward(completion, state=None, task_id=None, info=None, split=None, **kwargs):
    """The server's reward for the rollout (0.0 when it has none: see
    state["sqlgym_masked"])."""
    res = await _score(completion, state, task_id, info, split)
    return 0.0 if res["reward"] is None else float(res["reward"])


async def sqlgym_correct(completion, state=None, task_id=None, info=None, split=None, **kwargs):
    """1.0 when the server judged the answer correct (a metric, weight 0)."""
    res = await _score(completion, state, task_id, info, split)
    return 1.0 if res["outcome"] == "correct" else 0.0


def _read_rows(path):
    """Rows of a JSONL export: a datasets.Dataset when datasets is
    installed (verifiers needs one), else a list of dicts."""
    try:
        from datasets import load_dataset  # type: ignore
    except ImportError:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    return load_dataset("json", data_files=path, split="train")


def load_environment(dataset_path=None, eval_dataset_path=None, dataset=None, eval_dataset=None, url=None, **kwargs):
    """A single-turn sqlgym environment over rows of `sqlgym export
    --format trl` (dataset_path, or dataset). url overrides $SQLGYM_URL."""
    if url:
        os.environ["SQLGYM_URL"] = url
    if dataset is None:
        if not dataset_path:
            raise ValueError("load_environment needs dataset_path (a file of `sqlgym export --format trl`) or dataset")
        dataset = _read_rows(dataset_path)
    if eval_dataset is None and eval_dataset_path:
        eval_dataset = _read_rows(eval_dataset_path)
    rubric = _Rubric(funcs=[sqlgym_reward, sqlgym_correct], weights=[1.0, 0.0])
    return _SingleTurnEnv(dataset=dataset, eval_dataset=eval_dataset, rubric=rubric, **kwargs)
