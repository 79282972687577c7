"""sqlgym_skyrl against a real `sqlgym serve`, driven as SkyRL drives an
environment. skyrl-gym is not installed here: SqlgymEnv runs on the
module's stand-in of BaseTextEnv. Reproduced from NovaSky-AI/SkyRL at tag
skyrl-v0.3.0 (skyrl-gym 0.4.0):

- the row's columns other than prompt and env_class become the env's
  extras (skyrl/train/dataset/dataset.py:86-94), plus max_turns
  (skyrl/train/generators/skyrl_gym_generator.py:335);
- the env is built as skyrl_gym.make(env_class, env_config=..., extras=...)
  (skyrl_gym_generator.py:338-339; skyrl-gym/skyrl_gym/envs/
  registration.py:276 calls the entry point with those keywords);
- init(chat_history) returns (messages, metadata) (:346); each step gets
  the engine's decoded text and returns observations, reward (a float,
  asserted not None at :638), done and metadata (:446;
  skyrl-gym/skyrl_gym/envs/base_text_env.py:9-14, :60-77); get_metrics()
  then close() end every rollout, also one the generator stopped at its
  length limit (:389, :520-522).
"""

import copy
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
import sqlgym_skyrl as sk  # noqa: E402
from serve_fixture import OutageServer, Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]


def skyrl_row(task_id):
    """A row of `sqlgym export --agent --protocol text --format skyrl`."""
    return {"prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], "env_class": "sqlgym",
            "task_id": task_id, "db": "shop", "split": "train", "protocol": "text", "prompt_hash": "h"}


def make_env(url, row, max_turns=4):
    """PromptDataset.__getitem__ (dataset.py:86-94), then the generator's
    extras and make call (skyrl_gym_generator.py:333-337)."""
    row = dict(row)
    prompt, env_class = row.pop("prompt"), row.pop("env_class")
    extras = {k: v for k, v in row.items()}
    extras["max_turns"] = max_turns
    assert env_class == sk.ENV_ID
    return sk.SqlgymEnv(env_config={"url": url}, extras=extras), prompt


def rollout(env, prompt, replies):
    """The generator's agent loop, reduced to the env calls."""
    chat_history, _ = env.init(copy.deepcopy(prompt))
    steps = []
    try:
        for text in replies:
            out = env.step(text)
            assert isinstance(out["reward"], float)
            steps.append(out)
            chat_history = chat_history + [{"role": "assistant", "content": text}] + out["observations"]
            if out["done"]:
                break
        return chat_history, steps, env.get_metrics()
    finally:
        env.close()


class SkyRLTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--retry-after", "1s", "--max-episodes", "4")
        cls.url = cls.serve.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_episode(self):
        env, prompt = make_env(self.url, skyrl_row("orders"))
        history, steps, metrics = rollout(env, prompt, ["<sql>SELECT nope FROM orders</sql>", "<solution>SELECT COUNT(*) FROM orders</solution>"])
        # The opening is the server's (the export writes the same messages).
        self.assertIn("Question: How many orders?", history[1]["content"])
        self.assertEqual(history[0]["role"], "system")
        first = steps[0]
        self.assertEqual((first["done"], first["reward"]), (False, 0.0))
        self.assertEqual(first["observations"][0]["role"], "user")
        self.assertIn("<observation>", first["observations"][0]["content"])
        last = steps[1]
        self.assertEqual((last["done"], last["reward"], last["observations"]), (True, 1.0, []))
        self.assertEqual(last["metadata"]["sqlgym_outcome"], "correct")
        self.assertEqual(metrics, {"sqlgym_correct": 1.0, "sqlgym_masked": 0.0, "sqlgym_turns": 2.0})

    def test_rollout_stopped_by_skyrl_is_ended_on_the_server(self):
        env, prompt = make_env(self.url, skyrl_row("orders"))
        env.init(prompt)
        ep = env.episode_id
        env.step("<sql>SELECT 1</sql>")
        env.get_metrics()
        env.close()  # the generator broke out at max_input_length
        self.assertEqual(env.result["outcome"], "no_query")
        with self.assertRaises(sa.EpisodeError) as cm:
            sa.EpisodeClient(self.url).step(ep, {"role": "assistant", "content": "x"})
        self.assertEqual(cm.exception.status, 404)

    def test_refusals(self):
        with self.assertRaisesRegex(ValueError, "protocol must be text"):
            make_env(self.url, dict(skyrl_row("orders"), protocol="tools"))
        r = skyrl_row("orders")
        del r["task_id"]
        with self.assertRaisesRegex(ValueError, "no task_id"):
            make_env(self.url, r)

    def test_held_out_rows_open_evaluation_episodes(self):
        env, _ = make_env(self.url, dict(skyrl_row("orders"), split="holdout"))
        self.assertEqual(env.mode, "eval")
        env, _ = make_env(self.url, skyrl_row("orders"))
        self.assertIsNone(env.mode)

    def test_outage_raises(self):
        outage = OutageServer()
        self.addCleanup(outage.stop)
        env, prompt = make_env(outage.url, skyrl_row("orders"))
        env.client.retry_for = 1.0
        with self.assertRaises(sa.EpisodeError) as cm:
            env.init(prompt)
        self.assertEqual(cm.exception.status, 503)


if __name__ == "__main__":
    unittest.main()
