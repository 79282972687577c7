"""A batch cut by `sqlgym serve --deadline`: the answers judged come back
with their rewards, the rest as "unscored" with a null reward, which every
shim treats as no reward (masked), never as 0 and never as an outage.

The binary is $SQLGYM_BIN, or built from this repository with `go build`.
"""

import json
import os
import sys
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_reward as sr  # noqa: E402
import sqlgym_verl as sv  # noqa: E402
from serve_fixture import Serve  # noqa: E402

TASKS = [{"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"}]

# The gold's own text is judged on the gold's rows without running; the
# slow statements get a step budget of 1e10 (minutes: the default 2e8 would
# make them a timeout within the deadline) and, with one statement slot,
# cannot all run before the 2 s deadline.
GOLD = "```sql\nSELECT count(*) FROM orders\n```"
SLOW = "```sql\nWITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r) SELECT count(*) + %d FROM r\n```"


class DeadlineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--deadline", "2s", "--db-slots", "1", "--retry-after", "1s", "--vm-steps", "10000000000")
        cls.url = cls.serve.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_partial_batch_is_masked_in_every_shim(self):
        completions = [GOLD, SLOW % 1, SLOW % 2]
        client = sr.SqlgymClient(url=self.url, retry_for=0)
        results = client.rewards([{"task_id": "orders", "completion": c} for c in completions])
        self.assertEqual([r["outcome"] for r in results], ["correct", "unscored", "unscored"])
        self.assertEqual([r["reward"] for r in results], [1, None, None])
        self.assertIn("deadline", results[1]["detail"])

        # TRL: None, which TRL turns into NaN and leaves out.
        reward = sr.SqlgymReward(url=self.url, client=client)
        self.assertEqual(reward(completions=[GOLD, SLOW % 3, SLOW % 4], task_id=["orders"] * 3), [1.0, None, None])

        # verl: 0.0 flagged as masked.
        self.assertEqual([sv.verl_score(r) for r in results], [
            {"score": 1.0, "sqlgym_masked": 0.0, "sqlgym_correct": 1.0},
            {"score": 0.0, "sqlgym_masked": 1.0, "sqlgym_correct": 0.0},
            {"score": 0.0, "sqlgym_masked": 1.0, "sqlgym_correct": 0.0}])

        # OpenRLHF's route: 0 with sqlgym_masked 1.
        prompt = "<|user|>How many orders?<|assistant|>"
        body = json.dumps({"query": [prompt + GOLD, prompt + SLOW % 5, prompt + SLOW % 6], "prompts": [prompt] * 3,
                           "labels": ["orders"] * 3}).encode()
        req = urllib.request.Request(self.url + "/get_reward", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as resp:
            got = json.loads(resp.read())
        self.assertEqual(got["rewards"], [1.0, 0.0, 0.0])
        self.assertEqual(got["extra_logs"]["sqlgym_masked"], [0.0, 1.0, 1.0])


if __name__ == "__main__":
    unittest.main()
