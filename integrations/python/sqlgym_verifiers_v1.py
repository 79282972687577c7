"""sqlgym as a verifiers v1 taskset (PrimeIntellect-ai/verifiers main,
``verifiers.v1``), the only kind prime-rl serves since its commit
03f12efba ("drop v0 env compat").

verifiers loads a taskset by id: ``--env.taskset.id sqlgym-verifiers-v1``
imports this module (verifiers/v1/utils/loaders.py ``_import_plugin``:
the id's name, hyphens as underscores) and takes the one Taskset subclass
its ``__all__`` exports (``_plugin_class``). Put this folder on
PYTHONPATH, or install it as a package of that name. The rows are a
``sqlgym export --format trl`` file:

    --env.taskset.id sqlgym-verifiers-v1 --env.taskset.dataset_path band.trl.jsonl

Each row becomes a SqlgymTask whose data (SqlgymData) carries the prompt
(the export's system message as ``system_prompt``, the user message as
``prompt``), the row's ``task_id`` and, for a held-out row, ``mode``
"eval". prime-rl loads the taskset in its orchestrator, ships each task's
``model_dump()`` to the env server, which validates it back into
SqlgymData and builds the task (verifiers/v1/serve/server.py
``_build_task``); the task's data must survive that wire whole.

The task is single-turn (a ``@vf.stop`` after the first reply). Its one
``@vf.reward``, ``sqlgym``, posts the last reply to ``POST /v1/rewards``
($SQLGYM_URL); replies scored at the same time in one event loop go in
one request (sqlgym_batch). A reply the model cut at its token limit
(``trace.is_truncated``) is sent with finish_reason "length" and gets no
reward: like a broken gold's null reward it is 0.0 here, with the trace
metric ``sqlgym_masked`` 1 (prime-rl's own handling of truncated
rollouts applies). The metric ``sqlgym_correct`` is 1.0 for a correct
answer. A database outage raises SqlgymOutage, a BaseException, so that
it fails the rollout instead of being scored (verifiers' scoring boundary
catches Exception).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifiers.v1 as vf  # noqa: E402

from sqlgym_batch import batched_reward  # noqa: E402
from sqlgym_reward import SqlgymError  # noqa: E402

__all__ = ["SqlgymTaskset"]


class SqlgymOutage(BaseException):
    """The server could not score the reply for a database outage: no
    reward exists, and a 0.0 must not be trained on."""


class SqlgymData(vf.TaskData):
    task_id: str
    """The sqlgym task the reply is judged against (the export's task_id)."""
    mode: str | None = None
    """"eval" for a held-out row (scored by ``sqlgym serve --eval-holdout``)."""


class SqlgymTask(vf.Task[SqlgymData]):
    @vf.stop
    async def single_turn(self, trace: vf.Trace) -> bool:
        return trace.num_turns >= 1

    @vf.reward(weight=1.0)
    async def sqlgym(self, trace: vf.Trace) -> float:
        item = {"task_id": self.data.task_id, "completion": trace.last_reply}
        if self.data.mode:
            item["mode"] = self.data.mode
        if trace.is_truncated:
            item["finish_reason"] = "length"
        try:
            res = await batched_reward(item)
        except SqlgymError as e:
            raise SqlgymOutage(str(e)) from None
        if res["outcome"] == "infra_error":
            raise SqlgymOutage("sqlgym serve met a database outage: %s" % res.get("detail", ""))
        trace.record_metric("sqlgym_masked", 1.0 if res["reward"] is None else 0.0)
        trace.record_metric("sqlgym_correct", 1.0 if res["outcome"] == "correct" else 0.0)
        return 0.0 if res["reward"] is None else float(res["reward"])


class SqlgymTasksetConfig(vf.TasksetConfig):
    dataset_path: str = ""
    """A file of ``sqlgym export --format trl`` (``--env.taskset.dataset_path``)."""


def task_data(i, row):
    """The SqlgymData of an export row."""
    task_id = row.get("task_id") or (row.get("info") or {}).get("task_id")
    if not task_id:
        raise ValueError("row %d has no task_id: build the dataset with `sqlgym export --format trl`" % i)
    prompt = row.get("prompt")
    system = None
    if isinstance(prompt, list):
        system = "\n\n".join(m["content"] for m in prompt if m.get("role") == "system") or None
        prompt = "\n\n".join(m["content"] for m in prompt if m.get("role") != "system")
    mode = "eval" if row.get("split") == "holdout" else None
    return SqlgymData(idx=i, name=task_id, prompt=prompt, system_prompt=system, task_id=task_id, mode=mode)


class SqlgymTaskset(vf.Taskset[SqlgymTask, SqlgymTasksetConfig]):
    def load(self):
        path = self.config.dataset_path
        if not path:
            raise ValueError("sqlgym taskset: set --env.taskset.dataset_path to a file of `sqlgym export --format trl`")
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        return [SqlgymTask(task_data(i, row), self.config.task) for i, row in enumerate(rows)]
