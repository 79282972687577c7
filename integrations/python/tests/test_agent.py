"""The episode API shims against a real `sqlgym serve` on the shop database.

Whole episodes are played over HTTP through EpisodeClient and the TRL
environment (the verl agent loop: test_verl.py). The binary is $SQLGYM_BIN, or built with `go build`.
"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
from serve_fixture import Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
    {"id": "held", "db": "shop", "question": "How many reviews?", "sql": "SELECT count(*) FROM reviews", "split": "holdout"},
]
GOOD = "SELECT COUNT(*) FROM orders"


def call(name, args, cid="c1"):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


class EpisodeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--max-episodes", "8", "--retry-after", "1s")
        cls.url = cls.serve.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_client_plays_a_whole_episode(self):
        c = sa.EpisodeClient(self.url)
        ep = c.start("orders")
        self.assertEqual(ep["protocol"], "tools")
        self.assertEqual([t["function"]["name"] for t in ep["tools"]], list(sa.TOOL_SCHEMAS))
        # The shim's schemas are the server's.
        self.assertEqual(ep["tools"], list(sa.TOOL_SCHEMAS.values()))
        r = c.step(ep["episode_id"], {"role": "assistant", "content": "", "tool_calls": [call("run_sql", {"sql": "SELECT nope FROM orders"})]})
        self.assertFalse(r["done"])
        self.assertIsNone(r["reward"])
        self.assertTrue(r["observations"][0]["content"].startswith("Error: "), r)
        self.assertEqual(r["observations"][0]["tool_call_id"], "c1")
        r = c.step(ep["episode_id"], {"role": "assistant", "content": "", "tool_calls": [call("submit", {"sql": GOOD}, "c2")]})
        self.assertTrue(r["done"])
        self.assertEqual((r["outcome"], r["reward"]), ("correct", 1.0))
        self.assertTrue(r["stats"]["crash_fixed"])
        with self.assertRaises(sa.EpisodeError) as cm:
            c.step(ep["episode_id"], {"role": "assistant", "content": "again"})
        self.assertEqual(cm.exception.status, 404)

    def test_text_protocol_and_refusals(self):
        c = sa.EpisodeClient(self.url)
        ep = c.start("orders", "text")
        self.assertNotIn("tools", ep)
        r = c.step(ep["episode_id"], {"role": "assistant", "content": "<solution>SELECT count(*) + 1 FROM orders</solution>"})
        self.assertEqual((r["done"], r["outcome"], r["reward"]), (True, "wrong", 0.1))
        with self.assertRaises(sa.EpisodeError) as cm:
            c.start("held")
        self.assertEqual(cm.exception.status, 400)

    def test_trl_environment(self):
        env = sa.SqlgymEnvironment(self.url)
        opening = env.reset(task_id="orders")  # no prompt in the row: reset supplies the opening
        self.assertIn("Question: How many orders?", opening)
        self.assertIn("orders (300 rows)", env.list_tables())
        self.assertIn("primary key: order_id", env.describe_table("orders"))
        self.assertIn("1 row:", env.run_sql(GOOD))
        self.assertIn("Outcome: correct", env.submit(GOOD))
        self.assertEqual(env.run_sql("SELECT 1"), "The episode is over.")
        # A rollout that never submits is judged when the reward is asked.
        other = sa.SqlgymEnvironment(self.url)
        other.reset(task_id="orders")
        other.run_sql(GOOD)
        self.assertEqual([env.get_reward(), other.get_reward()], [1.0, 0.0])
        self.assertEqual(other.result["outcome"], "no_query")


if __name__ == "__main__":
    unittest.main()
