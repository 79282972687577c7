"""The trainer shims against a real `sqlgym serve` on the shop database.

The binary is $SQLGYM_BIN, or built from this repository with `go build`.
"""

import asyncio
import json
import os
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_reward as sr  # noqa: E402
from serve_fixture import Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
    {"id": "top3", "db": "shop", "question": "First three orders?", "sql": "SELECT order_id FROM orders ORDER BY order_id LIMIT 3", "split": "train"},
    {"id": "held", "db": "shop", "question": "How many reviews?", "sql": "SELECT count(*) FROM reviews", "split": "holdout"},
]

# A task on a database that is down: nothing listens on port 1.
DOWN_TASK = {"id": "pg", "db": "down", "question": "Anything?", "sql": "SELECT 1", "split": "train"}
DOWN_DB = "down=postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"

RIGHT = "Counting.\n```sql\nSELECT COUNT(*) FROM orders\n```"
WRONG = "```sql\nSELECT count(*) + 1 FROM orders\n```"
BROKEN = "```sql\nSELECT nope FROM orders\n```"
CUT = "```sql\nSELECT count(*) FROM ord"


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--retry-after", "1s")
        cls.tmp, cls.bin, cls.tasks, cls.env, cls.url = (
            cls.serve.tmp, cls.serve.bin, cls.serve.tasks, cls.serve.env, cls.serve.url)
        os.environ["SQLGYM_URL"] = cls.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def verify_cli(self, items):
        """The rewards `sqlgym verify` gives the same answers."""
        preds = os.path.join(self.tmp, "preds.jsonl")
        out = os.path.join(self.tmp, "results.jsonl")
        with open(preds, "w") as f:
            for i, it in enumerate(items):
                f.write(json.dumps(dict(it, sample=i)) + "\n")
        subprocess.run([self.bin, "verify", "--tasks", self.tasks, "--predictions", preds, "--out", out, "--replace"],
                       check=True, env=self.env, capture_output=True)
        with open(out) as f:
            return [json.loads(l)["reward"] for l in f if l.strip()]

    def test_trl_plain_matches_verify(self):
        completions = [RIGHT, WRONG, BROKEN, CUT, "I cannot tell."]
        task_ids = ["orders"] * 5
        # TRL passes completion_ids; eos id 2 ends every reply but the cut one.
        ids = [[5, 6, 2], [5, 2], [7, 2], [5, 6, 7, 8], [9, 2]]
        reward = sr.make_trl_reward(eos_token_id=2)
        got = reward(prompts=["p"] * 5, completions=completions, task_id=task_ids, completion_ids=ids)
        self.assertEqual(got, [1.0, 0.1, 0.0, None, 0.0])
        items = [{"task_id": t, "completion": c} for t, c in zip(task_ids, completions)]
        items[3]["finish_reason"] = "length"
        self.assertEqual(got, self.verify_cli(items))

    def test_trl_conversational_and_env_default(self):
        completions = [[{"role": "assistant", "content": RIGHT}],
                       [{"role": "assistant", "content": "thinking"}, {"role": "assistant", "content": WRONG}]]
        got = sr.sqlgym_reward(prompts=[[{"role": "user", "content": "q"}]] * 2, completions=completions,
                               task_id=["orders", "orders"])
        self.assertEqual(got, [1.0, 0.1])
        # Without a way to tell truncation, a cut reply is judged as it is.
        os.environ["SQLGYM_MAX_COMPLETION_LENGTH"] = "4"
        try:
            got = sr.sqlgym_reward(completions=[CUT, RIGHT], task_id=["orders", "orders"], completion_ids=[[1, 2, 3, 4], [1, 2]])
        finally:
            del os.environ["SQLGYM_MAX_COMPLETION_LENGTH"]
        self.assertEqual(got, [None, 1.0])

    def test_trl_async(self):
        f = sr.make_trl_reward_async()
        got = asyncio.run(f(prompts=["p", "p"], completions=[RIGHT, BROKEN], task_id=["orders", "top3"]))
        self.assertEqual(got, [1.0, 0.0])
        got = asyncio.run(sr.sqlgym_reward_async(completions=["```sql\nSELECT order_id FROM orders ORDER BY order_id LIMIT 3\n```"], task_id=["top3"]))
        self.assertEqual(got, [1.0])

    def test_verl(self):
        s = sr.compute_score("sqlgym", RIGHT, "SELECT count(*) FROM orders", {"task_id": "orders", "db": "shop"})
        self.assertEqual(s, {"score": 1.0, "sqlgym_masked": 0.0, "sqlgym_correct": 1.0})
        # A task whose gold fails: no reward to learn from, flagged.
        s = sr.compute_score("sqlgym", "```sql\nSELECT 1\n```", "SELECT * FROM no_such_table", {"db": "shop"})
        self.assertEqual((s["score"], s["sqlgym_masked"]), (0.0, 1.0))

    def test_openrlhf_reward_func_and_remote_route(self):
        prompt = "<|user|>How many orders?<|assistant|>"
        out = sr.reward_func([prompt + RIGHT, prompt + WRONG], [prompt, prompt], ["orders", "orders"])
        rewards = out["rewards"].tolist() if hasattr(out["rewards"], "tolist") else out["rewards"]
        self.assertEqual([round(r, 6) for r in rewards], [1.0, 0.1])
        body = json.dumps({"query": [prompt + RIGHT, prompt + BROKEN], "prompts": [prompt, prompt], "labels": ["orders", "orders"]}).encode()
        req = urllib.request.Request(self.url + "/get_reward", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as resp:
            got = json.loads(resp.read())
        self.assertEqual(got["rewards"], [1.0, 0.0])
        self.assertEqual(got["scores"], [1.0, 0.0])
        self.assertEqual(got["extra_logs"]["sqlgym_masked"], [0.0, 0.0])

    def test_bad_task_raises_at_once(self):
        with self.assertRaises(sr.SqlgymError) as cm:
            sr.sqlgym_reward(completions=[RIGHT], task_id=["no-such-task"])
        self.assertIn("no task with id", str(cm.exception))
        with self.assertRaises(sr.SqlgymError) as cm:
            sr.sqlgym_reward(completions=[RIGHT], task_id=["held"])
        self.assertIn("held out", str(cm.exception))
        with self.assertRaises(ValueError):
            sr.sqlgym_reward(completions=[RIGHT])

    def test_database_down_stops_serve_at_start(self):
        # serve opens every database before it listens: a trainer pointed at
        # it never meets a server that fails on every request (the outage
        # during a run, 503 and a null reward, is tested in serve/).
        with self.assertRaises(RuntimeError) as cm:
            Serve(TASKS + [DOWN_TASK], "--db", DOWN_DB)
        self.assertIn("database down cannot be reached", str(cm.exception))
        self.assertIn("hint: is the database server running", str(cm.exception))

if __name__ == "__main__":
    unittest.main()
