"""sqlgym_verifiers_v1, loaded and scored by verifiers v1's own code as
prime-rl's orchestrator and env server call it.

verifiers.v1 cannot be installed here (it imports openai, anthropic, mcp,
renderers, pydantic_config, numpy, zmq ... from PyPI). Its modules are
read from its git history ($SQLGYM_VERIFIERS_GIT or $SQLGYM_TRAINER_SRC,
see trainer_src.py) at main a60a606e and run as they are: utils/generic.py,
utils/decorators.py (@vf.reward, @vf.stop), utils/artifacts.py, types.py,
state.py, errors.py, configs/task.py, configs/taskset.py, task.py (TaskData,
Task and its score()) and taskset.py (Taskset), with the plugin loader of
utils/loaders.py (_import_plugin, _plugin_class, taskset_class,
load_taskset, taskset_config_type, load_plugged_fn).

Stand-ins, for what the contract does not reach: the third-party modules
those files import (openai.OpenAIError, renderers.base.MultiModalData,
pydantic_config.BaseConfig as a pydantic model), configs/judge.py (no judge
is plugged), and the Trace, whose real class needs the message graph:
here it has the members the task reads and score() writes (num_turns,
is_truncated, last_reply, rewards, metrics, record_reward, record_metric;
Reward is verifiers' own). The calls are prime-rl's (main 559b4477): the
orchestrator loads the taskset by id and materializes it
(src/prime_rl/orchestrator/envs.py:75-84), ships each task as
``task.data.model_dump(mode="json")`` (dispatcher.py:532), and the env
server rebuilds it (verifiers/v1/serve/server.py:37-38 and _build_task),
runs the task's stop hooks after the reply (rollout.py:103) and awaits
``task.score(trace)`` (rollout.py:488).
"""

import asyncio
import json
import os
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import trainer_src  # noqa: E402
from serve_fixture import OutageServer, Serve  # noqa: E402

REPO = "PrimeIntellect-ai/verifiers"
ENV = "SQLGYM_VERIFIERS_GIT"
COMMIT = "a60a606ecc4d309247edf9ff92c3eabca362781f"
GIT = trainer_src.git_dir(ENV, REPO)

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]
GOLD = "<think>count</think>\n```sql\nSELECT count(*) FROM orders\n```"
WRONG = "```sql\nSELECT count(*) + 1 FROM orders\n```"

# Modules run from verifiers' own source, in import order.
REAL = ["utils/generic", "utils/decorators", "utils/artifacts", "types", "state", "errors",
        "configs/task", "configs/taskset", "task", "taskset"]
LOADER_NAMES = {"_import_plugin", "_plugin_class", "import_taskset", "taskset_class", "load_taskset",
                "taskset_config_type", "load_plugged_fn", "plugged_fn", "file_module", "load_judge",
                "judge_class", "import_judge"}

STANDINS = {
    "openai": "class OpenAIError(Exception):\n    pass\n",
    "renderers": "",
    "renderers.base": "MultiModalData = dict\n",
    "pydantic_config": "import pydantic\nclass BaseConfig(pydantic.BaseModel):\n    pass\n",
    # No judge is plugged: the list type, and validators with nothing to do.
    "verifiers.v1.configs.judge": "Judges = list\ndef resolve_judges(j):\n    return j\ndef check_judges(j):\n    return None\n",
}

TRACE = '''
class Trace:
    """The members of verifiers.v1.trace.Trace that a task reads and
    Task.score writes (trace.py:386-389, :413-414, :489-504, :522-525,
    :554-563)."""

    def __init__(self, replies, finish_reason="stop", stop_condition=None):
        self.replies, self.finish_reason, self.stop_condition = replies, finish_reason, stop_condition
        self.rewards, self.metrics, self.info = {}, {}, {}

    @property
    def num_turns(self):
        return len(self.replies)

    @property
    def is_truncated(self):
        if self.stop_condition in ("max_turns", "max_input_tokens", "max_output_tokens", "max_total_tokens", "context_length"):
            return True
        return bool(self.replies) and self.finish_reason == "length"

    @property
    def last_reply(self):
        return (self.replies[-1] or "").strip() if self.replies else ""

    @property
    def reward(self):
        return sum(r.value for r in self.rewards.values() if r is not None)

    def record_metric(self, name, value):
        self.metrics[name] = value

    def record_metrics(self, values):
        self.metrics.update(values)

    def record_reward(self, name, value, weight=1.0):
        self.rewards[name] = Reward(score=float(value), weight=float(weight))
'''


def _module(name, source="", path=None):
    mod = types.ModuleType(name)
    if path is not None:
        mod.__path__ = []
    sys.modules[name] = mod
    exec(compile(source, "<%s>" % name, "exec"), mod.__dict__)
    return mod


def load_verifiers():
    """verifiers.v1 at COMMIT, as `vf`, registered in sys.modules."""
    # verifiers.v1.tasksets holds the built-in tasksets, which the loader tries first.
    for name in ("verifiers", "verifiers.v1", "verifiers.v1.utils", "verifiers.v1.configs", "verifiers.v1.tasksets"):
        _module(name, path=True)
    for name, src in STANDINS.items():
        _module(name, src)
    for rel in REAL:
        name = "verifiers.v1." + rel.replace("/", ".")
        _module(name, trainer_src.show(GIT, COMMIT, "verifiers/v1/%s.py" % rel))
    loaders_src = trainer_src.show(GIT, COMMIT, "verifiers/v1/utils/loaders.py")
    head = ("from __future__ import annotations\nimport functools, importlib, importlib.util\nfrom pathlib import Path\nfrom typing import Any\n"
            "from collections.abc import Callable\nfrom types import ModuleType\n"
            "from verifiers.v1.configs.task import DecoratedFunctionConfig\n"
            "from verifiers.v1.configs.taskset import TasksetConfig\n"
            "from verifiers.v1.task import Task\nfrom verifiers.v1.taskset import Taskset\n"
            "from verifiers.v1.utils.generic import concrete_type\n")
    loaders = _module("verifiers.v1.utils.loaders", head + trainer_src.cut(loaders_src, LOADER_NAMES))
    trace_src = trainer_src.show(GIT, COMMIT, "verifiers/v1/trace.py")
    trace = _module("verifiers.v1.trace", "from pydantic import BaseModel\n" + trainer_src.cut(trace_src, {"Reward"}) + TRACE)
    vf = sys.modules["verifiers.v1"]
    task, taskset, deco = (sys.modules["verifiers.v1." + n] for n in ("task", "taskset", "utils.decorators"))
    vf.__dict__.update(TaskData=task.TaskData, Task=task.Task, Taskset=taskset.Taskset, Trace=trace.Trace,
                       TasksetConfig=sys.modules["verifiers.v1.configs.taskset"].TasksetConfig,
                       reward=deco.reward, stop=deco.stop, metric=deco.metric, load_taskset=loaders.load_taskset)
    return vf, loaders


@unittest.skipUnless(GIT, trainer_src.skip_reason(ENV, REPO, [COMMIT]))
class VerifiersV1Test(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.saved = dict(sys.modules)
        cls.vf, cls.loaders = load_verifiers()
        cls.serve = Serve(TASKS)
        cls.tmp = tempfile.mkdtemp(prefix="sqlgym-vf1-")
        cls.data = os.path.join(cls.tmp, "train.jsonl")
        with open(cls.data, "w") as f:
            for split in ("train", "holdout"):
                f.write(json.dumps({"prompt": [{"role": "system", "content": "Answer in SQL."},
                                               {"role": "user", "content": "How many orders?"}],
                                    "task_id": "orders", "split": split}) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()
        for name in set(sys.modules) - set(cls.saved):
            del sys.modules[name]

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url

    def orchestrator_tasks(self):
        """prime-rl's orchestrator: the taskset loaded by id and materialized;
        each task as it goes on the wire."""
        taskset_id = "sqlgym-verifiers-v1"
        config = self.loaders.taskset_config_type(taskset_id).model_validate({"id": taskset_id, "dataset_path": self.data})
        taskset = self.vf.load_taskset(config)
        self.assertFalse(type(taskset).INFINITE)
        return taskset, [t.data.model_dump(mode="json") for t in list(taskset)]

    def server_rollout(self, taskset, task_data, replies, **trace_kw):
        """The env server: the task rebuilt from its wire data, the stop hooks
        after the reply, then score()."""
        task_cls = type(taskset).task_type()
        data = task_cls.data_type().model_validate(task_data)
        task = task_cls(data, taskset.config.task)
        trace = self.vf.Trace(replies, **trace_kw)
        stops = asyncio.run(_all([fn(trace) for fn in task.hooks("stop")]))
        asyncio.run(task.score(trace))
        return task, trace, stops

    def test_taskset_loads_by_id_and_survives_the_wire(self):
        taskset, wire = self.orchestrator_tasks()
        self.assertEqual(type(taskset).__name__, "SqlgymTaskset")
        self.assertEqual(type(taskset).task_type().__name__, "SqlgymTask")
        self.assertEqual([(d["task_id"], d["mode"]) for d in wire], [("orders", None), ("orders", "eval")])
        self.assertEqual(wire[0]["prompt"], "How many orders?")
        self.assertEqual(wire[0]["system_prompt"], "Answer in SQL.")
        task, _, _ = self.server_rollout(taskset, wire[0], [GOLD])
        self.assertEqual(task.data.task_id, "orders")

    def test_gold_and_wrong_answers(self):
        taskset, wire = self.orchestrator_tasks()
        for reply, want, correct in ((GOLD, 1.0, 1.0), (WRONG, 0.1, 0.0)):
            _, trace, stops = self.server_rollout(taskset, wire[0], [reply])
            self.assertEqual(stops, [True], "single turn: the stop hook ends the rollout after one reply")
            self.assertEqual(trace.reward, want)
            self.assertEqual(trace.rewards["sqlgym"].weight, 1.0)
            self.assertEqual((trace.metrics["sqlgym_correct"], trace.metrics["sqlgym_masked"]), (correct, 0.0))

    def test_truncated_reply_gets_no_reward(self):
        taskset, wire = self.orchestrator_tasks()
        for kw in ({"finish_reason": "length"}, {"stop_condition": "max_output_tokens"}):
            _, trace, _ = self.server_rollout(taskset, wire[0], [GOLD], **kw)
            self.assertEqual((trace.reward, trace.metrics["sqlgym_masked"]), (0.0, 1.0))

    def test_outage_is_never_a_reward(self):
        taskset, wire = self.orchestrator_tasks()
        outage = OutageServer()
        self.addCleanup(outage.stop)
        os.environ["SQLGYM_URL"] = outage.url
        os.environ["SQLGYM_RETRY_FOR"] = "1"
        self.addCleanup(os.environ.pop, "SQLGYM_RETRY_FOR", None)
        mod = sys.modules["sqlgym_verifiers_v1"]
        with self.assertRaises(mod.SqlgymOutage):
            self.server_rollout(taskset, wire[0], [GOLD])


async def _all(aws):
    return list(await asyncio.gather(*aws))


if __name__ == "__main__":
    unittest.main()
