"""sqlgym_verifiers against a real `sqlgym serve`, called as verifiers
0.3.0 calls an environment's rubric (PrimeIntellect-ai/verifiers at tag
v0.3.0; verifiers is not installed here, so the module's stand-ins of
vf.SingleTurnEnv and vf.Rubric hold the functions):

- each reward function gets the keywords of Rubric.score_objects
  (verifiers/rubrics/rubric.py:125-157): prompt, completion, answer, state,
  info, task, and the row's own columns (task_id), filtered by its
  signature unless it takes **kwargs (:199-212);
- score_group runs one function over all states with asyncio.gather
  (:392-396), then the next;
- a reward function's Exception becomes 0.0 (:202-217);
- a turn cut at max_tokens is a trajectory step with is_truncated
  (verifiers/envs/multiturn_env.py:149-160).
"""

import asyncio
import inspect
import json
import os
import re
import sys
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_batch  # noqa: E402
import sqlgym_verifiers as svf  # noqa: E402
from serve_fixture import OutageServer, Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]


def score_objects(row, completion, state):
    """Rubric.score_objects for a row of the TRL export."""
    fields = {k: v for k, v in row.items() if k not in ("prompt", "answer", "info", "task", "example_id")}
    fields.update({"prompt": row["prompt"], "completion": completion, "answer": "", "state": state, "info": {}, "task": None})
    return fields


async def call(func, objects):
    """Rubric._call_individual_reward_func, Exception -> 0.0 included."""
    sig = inspect.signature(func)
    if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        objects = {k: v for k, v in objects.items() if k in sig.parameters}
    try:
        return float(await func(**objects))
    except Exception:
        return 0.0


async def score_group(env, rows_and_completions):
    states = [{"trajectory": traj, "is_truncated": False} for _, _, traj in rows_and_completions]
    scores = {}
    for func, weight in zip(env.rubric.funcs, env.rubric.weights):
        scores[func.__name__] = await asyncio.gather(*[
            call(func, score_objects(row, comp, st)) for (row, comp, _), st in zip(rows_and_completions, states)])
    return scores, states


def assistant(text):
    return [{"role": "assistant", "content": text}]


class VerifiersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--retry-after", "1s")
        os.environ["SQLGYM_URL"] = cls.serve.url
        cls.tmp = tempfile.mkdtemp()
        cls.data = os.path.join(cls.tmp, "train.jsonl")
        with open(cls.data, "w") as f:
            for t in ("orders",):
                f.write(json.dumps({"prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
                                    "task_id": t, "db": "shop", "gold_sql": "x", "split": "train", "prompt_hash": "h"}) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def setUp(self):
        sqlgym_batch._batchers.clear()

    def requests_to_rewards(self):
        with urllib.request.urlopen(self.serve.url + "/metrics") as resp:
            text = resp.read().decode()
        return sum(float(m.group(1)) for m in re.finditer(r'sqlgym_serve_requests_total\{code="200",route="/v1/rewards"\} (\S+)', text))

    def test_group_is_scored_in_one_request(self):
        env = svf.load_environment(dataset_path=self.data)
        row = env.dataset[0]
        self.assertEqual(row["task_id"], "orders")
        before = self.requests_to_rewards()
        group = [
            (row, assistant("```sql\nSELECT COUNT(*) FROM orders\n```"), [{"is_truncated": False}]),
            (row, assistant("```sql\nSELECT count(*) + 1 FROM orders\n```"), [{"is_truncated": False}]),
            (row, assistant("```sql\nSELECT count(*) FROM ord"), [{"is_truncated": True}]),
        ]
        scores, states = asyncio.run(score_group(env, group))
        self.assertEqual(scores["sqlgym_reward"], [1.0, 0.1, 0.0])
        self.assertEqual(scores["sqlgym_correct"], [1.0, 0.0, 0.0])
        self.assertEqual([s["sqlgym_masked"] for s in states], [False, False, True])
        self.assertEqual(states[2]["sqlgym"]["outcome"], "truncated")
        # One request for the group: the metric function reuses the state's verdict.
        self.assertEqual(self.requests_to_rewards() - before, 1)
        self.assertEqual(env.rubric.weights, [1.0, 0.0])

    def test_outage_is_not_turned_into_a_zero(self):
        outage = OutageServer()
        self.addCleanup(outage.stop)
        os.environ["SQLGYM_URL"] = outage.url
        os.environ["SQLGYM_RETRY_FOR"] = "2"
        try:
            env = svf.load_environment(dataset_path=self.data)
            row = env.dataset[0]
            with self.assertRaises(svf.SqlgymOutage):
                asyncio.run(score_group(env, [(row, assistant("```sql\nSELECT 1\n```"), [])]))
        finally:
            del os.environ["SQLGYM_RETRY_FOR"]
            os.environ["SQLGYM_URL"] = self.serve.url

    def test_needs_a_dataset(self):
        with self.assertRaisesRegex(ValueError, "dataset_path"):
            svf.load_environment()


if __name__ == "__main__":
    unittest.main()
