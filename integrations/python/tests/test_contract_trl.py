"""Contract tests: the TRL adapters called exactly as TRL's current code
calls them, against a real `sqlgym serve --eval-holdout`.

Reproduced from huggingface/trl v1.9.0 (the newest release, tag v1.9.0):
- trl/trainer/grpo_trainer.py:1617-1627 builds reward_kwargs: every dataset
  column but prompt/completion/completion_ids, plus trainer_state, log_extra
  and log_metric; :1659-1661 calls reward_func(prompts=..., completions=...,
  completion_ids=completion_ids_list, **reward_kwargs); :1663 turns None into
  NaN; :2679-2683 leaves a row whose every reward is NaN out.
- grpo_trainer.py:2187 shapes conversational completions as
  [{"role": "assistant", "content": ...}].
- trl/experimental/async_grpo/async_grpo_trainer.py:485-489: reward functions
  must pickle (a spawned child scores); async_rollout_worker.py:785-797 calls
  them as asyncio.to_thread(reward_func, completions=..., prompts=...,
  completion_ids=..., **reward_kwargs).
- grpo_trainer.py:640-657 finds an environment's tools with
  inspect.getmembers(instance, predicate=inspect.ismethod), dropping reset,
  get_reward and _private names; :2320-2333 calls reset(**row) and appends a
  non-None observation to the last prompt message's content; :1963-1968 runs
  each tool call of a message as sync_tool_dict[name](**arguments);
  :671-679 scores each rollout with [e.get_reward() if type(e) is _env_type
  else None for e in environments].

Not checked without TRL installed: tokenisation, the chat template's
rendering of the prompt and of tool results, vLLM generation.
"""

import asyncio
import inspect
import json
import math
import os
import pickle
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
import sqlgym_reward as sr  # noqa: E402
from serve_fixture import Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
    {"id": "held", "db": "shop", "question": "How many reviews?", "sql": "SELECT count(*) FROM reviews", "split": "holdout"},
]
RIGHT = "```sql\nSELECT COUNT(*) FROM orders\n```"
WRONG = "```sql\nSELECT count(*) + 1 FROM orders\n```"


class TrainerState:
    """Stands for transformers.TrainerState, which TRL passes as trainer_state."""
    global_step = 3


def trl_reward_kwargs(rows, g):
    """grpo_trainer.py:1617-1627: columns repeated per generation, plus the trainer's extras."""
    inputs = [r for r in rows for _ in range(g)]
    keys = [k for k in inputs[0] if k not in ["prompt", "completion", "completion_ids"]]
    kw = {k: [x[k] for x in inputs] for k in keys}
    kw["trainer_state"] = TrainerState()
    kw["log_extra"] = lambda *a, **k: None
    kw["log_metric"] = lambda *a, **k: None
    return [x["prompt"] for x in inputs], kw


def to_nan(rewards):
    """grpo_trainer.py:1663."""
    return [r if r is not None else math.nan for r in rewards]


class TRLContractTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--eval-holdout", "--retry-after", "1s")
        cls.url = cls.serve.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def rows(self, split="train", task="orders"):
        return [{"prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
                 "task_id": task, "db": "shop", "gold_sql": "x", "split": split, "prompt_hash": "h", "label": task}]

    def test_grpo_trainer_call(self):
        reward = sr.SqlgymReward(url=self.url, eos_token_id=2, max_completion_length=8)
        prompts, kw = trl_reward_kwargs(self.rows(), 3)
        completions = [[{"role": "assistant", "content": c}] for c in (RIGHT, WRONG, RIGHT[:12])]
        completion_ids = [[5, 6, 2], [5, 2], [5, 6, 7, 8, 9, 10, 11, 12]]  # the third never ends
        got = to_nan(reward(prompts=prompts, completions=completions, completion_ids=completion_ids, **kw))
        self.assertEqual(got[:2], [1.0, 0.1])
        self.assertTrue(math.isnan(got[2]), got)  # truncated: left out, never a 0
        # TRL names the function by __name__ or, for a callable instance, its class (trl/trainer/utils.py:224-232).
        self.assertEqual(getattr(reward, "__name__", type(reward).__name__), "sqlgym_reward")
        self.assertFalse(inspect.iscoroutinefunction(reward))  # so GRPOTrainer calls it synchronously (:1654)

    def test_async_grpo_pickles_and_calls_in_a_thread(self):
        reward = pickle.loads(pickle.dumps(sr.SqlgymReward(url=self.url, eos_token_id=2)))
        old = pickle.loads(pickle.dumps(sr.make_trl_reward(url=self.url)))  # the deprecated factory pickles too
        self.assertIsInstance(old, sr.SqlgymReward)
        prompts, kw = trl_reward_kwargs(self.rows(), 2)
        for key in ("trainer_state", "log_extra", "log_metric"):
            kw.pop(key)  # async_rollout_worker.py:534-538 passes only the row's columns

        async def score_group():
            return await asyncio.gather(*[asyncio.to_thread(f, completions=[RIGHT, WRONG], prompts=prompts,
                                                             completion_ids=[[1, 2], [1, 2]], **kw) for f in (reward, old)])
        self.assertEqual(asyncio.run(score_group()), [[1.0, 0.1], [1.0, 0.1]])

    def test_validation_rows_are_evaluation_requests(self):
        reward = sr.SqlgymReward(url=self.url)
        prompts, kw = trl_reward_kwargs(self.rows("holdout", "held"), 2)
        got = reward(prompts=prompts, completions=["```sql\nSELECT count(*) FROM reviews\n```", WRONG], completion_ids=None, **kw)
        self.assertEqual(got, [1.0, 0.1])
        # The same task on a training row is refused: it is held out.
        prompts, kw = trl_reward_kwargs(self.rows("train", "held"), 1)
        with self.assertRaises(sr.SqlgymError) as cm:
            reward(prompts=prompts, completions=[RIGHT], completion_ids=None, **kw)
        self.assertIn("evaluation requests", str(cm.exception))

    def opening(self, task="orders", mode=None):
        c = sa.EpisodeClient(self.url)
        ep = c.start(task, "tools", mode)
        c.end(ep["episode_id"])
        return ep["messages"]

    def tools_of(self, env):
        """grpo_trainer.py:2305-2310 (and 645-651 at init)."""
        return {name: m for name, m in inspect.getmembers(env, predicate=inspect.ismethod)
                if name not in ("reset", "get_reward") and not name.startswith("_")}

    def trl_reset(self, env, row):
        """grpo_trainer.py:2320-2333: the prompt TRL generates from."""
        prompt = row.get("prompt", [{"role": "user", "content": ""}])
        observation = env.reset(**row)
        if observation is None:
            return prompt
        return prompt[:-1] + [{**prompt[-1], "content": prompt[-1]["content"] + observation}]

    def test_environment_factory_rollout(self):
        opening = self.opening()
        row = {"prompt": opening, "task_id": "orders", "split": "train"}
        env = sa.SqlgymEnvironment(self.url)
        self.assertEqual(sorted(self.tools_of(env)), ["describe_table", "list_tables", "run_sql", "submit"])
        # The agent export's prompt is the opening: nothing is appended, so the schema and question appear once.
        prompt = self.trl_reset(env, row)
        self.assertEqual(prompt, opening)
        tools = self.tools_of(env)
        # One assistant message with two tool calls, run one by one (grpo_trainer.py:1963-1968).
        message = [{"type": "function", "function": {"name": "describe_table", "arguments": {"name": "orders"}}},
                   {"type": "function", "function": {"name": "run_sql", "arguments": {"sql": "SELECT count(*) FROM orders"}}}]
        results = [tools[c["function"]["name"]](**c["function"]["arguments"]) for c in message]
        self.assertIn("primary key: order_id", results[0])
        self.assertIn("1 row:", results[1])
        # More calls than the server's max_turns (4): partial steps cost no turn, so the episode goes on.
        for _ in range(4):
            self.assertIn("1 row:", tools["run_sql"](sql="SELECT 1"))
        self.assertIn("Outcome: correct", tools["submit"](sql="SELECT COUNT(*) FROM orders"))
        self.assertEqual(env.result["stats"]["turns"], 0)
        self.assertEqual(env.result["stats"]["partial_calls"], 7)

        # grpo_trainer.py:671-679: the environment's own reward source.
        other = sa.SqlgymEnvironment(self.url)
        self.trl_reset(other, row)
        other.run_sql(sql="SELECT 1")  # never submits: judged no_query when the reward is asked

        def get_reward(environments, _env_type=sa.SqlgymEnvironment, **kwargs):
            return [e.get_reward() if type(e) is _env_type else None for e in environments]
        self.assertEqual(get_reward([env, other]), [1.0, 0.0])

    def test_environment_prompt_forms(self):
        opening = self.opening()
        env = sa.SqlgymEnvironment(self.url)
        # A row without a prompt: TRL uses an empty user message, and reset() supplies the whole opening.
        prompt = self.trl_reset(env, {"task_id": "orders"})
        self.assertEqual(prompt[-1]["content"], opening[0]["content"] + "\n\n" + opening[1]["content"])
        # A row with only the episode's system message: the user text is appended once.
        prompt = self.trl_reset(env, {"task_id": "orders", "prompt": [opening[0], {"role": "user", "content": ""}]})
        self.assertEqual(prompt[-1]["content"], opening[1]["content"])
        self.assertEqual(prompt[-1]["content"].count("Question: How many orders?"), 1)
        # A single-turn export's prompt would give two contradictory instructions: refused, naming the fix.
        single = [{"role": "system", "content": "Answer in one ```sql block."}, {"role": "user", "content": "Question: How many orders?"}]
        with self.assertRaises(ValueError) as cm:
            env.reset(task_id="orders", prompt=single)
        self.assertIn("sqlgym export --agent --format trl", str(cm.exception))

    def test_null_reward_is_none_and_eval_episodes(self):
        env = sa.SqlgymEnvironment(self.url)
        env.reset(task_id="orders", prompt=self.opening())
        env.episode_id = "ep-gone"  # an episode the server no longer has (expired past --episode-ttl)
        self.assertIsNone(env.get_reward())  # TRL drops it (NaN), where 0.0 would be learned
        # A held-out row opens an evaluation episode (--eval-holdout); a training episode of it is refused.
        ev = sa.SqlgymEnvironment(self.url)
        self.assertIsNone(ev.reset(task_id="held", split="holdout", prompt=self.opening("held", "eval")))
        self.assertIn("Outcome: correct", ev.submit(sql="SELECT count(*) FROM reviews"))
        self.assertEqual(ev.get_reward(), 1.0)
        with self.assertRaises(sa.EpisodeError):
            sa.SqlgymEnvironment(self.url).reset(task_id="held", split="train")

    def test_trl_environment_reward_no_longer_double_counts(self):
        env = sa.SqlgymEnvironment(self.url)
        env.reset(task_id="orders", prompt=self.opening())
        env.submit(sql="SELECT COUNT(*) FROM orders")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = sa.trl_environment_reward([env])
        # TRL >= 1.8 (or absent): None, which TRL ignores beside get_reward's own column.
        self.assertEqual(got, [None])
        self.assertTrue(any(issubclass(x.category, DeprecationWarning) for x in w))

    def test_environment_pickles(self):
        env = pickle.loads(pickle.dumps(sa.SqlgymEnvironment(self.url)))
        self.assertIsNone(env.reset(task_id="orders", prompt=self.opening()))
        json.dumps(env.messages)


if __name__ == "__main__":
    unittest.main()
