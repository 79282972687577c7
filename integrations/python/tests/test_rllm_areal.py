"""sqlgym_rllm and sqlgym_areal, called as rLLM and AReaL call them.

Read from the frameworks' git history ($SQLGYM_RLLM_GIT, $SQLGYM_AREAL_GIT
or $SQLGYM_TRAINER_SRC, see trainer_src.py) and run as they are:

- rLLM (rllm-org/rllm, v0.3.0-pre 09567646 and main 9beb6e0f): BaseEnv, whole
  (rllm/environments/base/base_env.py, no dependencies), which the
  adapter must subclass; the call sequence is MultiTurnWorkflow's
  (rllm/workflows/multi_turn_workflow.py:34-60): env_cls(**env_args),
  Workflow.reset's reset(task=task) (workflow.py:280-286), then
  reset(task), then step(action) until done, with the action the agent's
  text. rLLM's newest tag (v0.3.0-pre) has the same BaseEnv.
- AReaL (inclusionAI/AReaL, v1.0.4 37d6c640 and main 4aef98d8):
  AsyncRewardWrapper (areal/api/reward_api.py:63-209) cut out of its
  module and run with its real ProcessPoolExecutor, awaited as the RLVR
  workflow does (areal/workflow/rlvr.py:101-107): (prompt_str,
  completions_str, input_tokens, output_tokens, **task_data).
"""

import asyncio
import importlib.util
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import trainer_src  # noqa: E402
from serve_fixture import OutageServer, ServeTestCase, open_episodes  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]
RLLM = trainer_src.git_dir("SQLGYM_RLLM_GIT", "rllm-org/rllm")
RLLM_COMMITS = {"v0.3.0-pre": "09567646bfeacfa022c64aa8f97135d7f1e3f824", "main": "9beb6e0f"}
AREAL = trainer_src.git_dir("SQLGYM_AREAL_GIT", "inclusionAI/AReaL")
AREAL_COMMITS = {"v1.0.4": "37d6c6400e99a05fa3409d6a067762a44df40d3b", "main": "4aef98d8d"}


class Base(ServeTestCase):
    TASKS = TASKS
    SERVE_ARGS = ("--max-turns", "4")


@unittest.skipUnless(RLLM, trainer_src.skip_reason("SQLGYM_RLLM_GIT", "rllm-org/rllm", RLLM_COMMITS.values()))
class RllmTest(Base):
    def load(self, commit):
        """sqlgym_rllm imported with rLLM's own BaseEnv at commit."""
        for name in ("rllm", "rllm.environments", "rllm.environments.base"):
            sys.modules[name] = types.ModuleType(name)
        base = types.ModuleType("rllm.environments.base.base_env")
        exec(trainer_src.show(RLLM, commit, "rllm/environments/base/base_env.py"), base.__dict__)
        sys.modules["rllm.environments.base.base_env"] = base
        self.addCleanup(lambda: [sys.modules.pop(n, None) for n in ("rllm", "rllm.environments", "rllm.environments.base",
                                                                       "rllm.environments.base.base_env")])
        spec = importlib.util.spec_from_file_location("sqlgym_rllm_" + commit, os.path.join(os.path.dirname(HERE), "sqlgym_rllm.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        self.assertTrue(issubclass(mod.SqlgymRllmEnv, base.BaseEnv))
        return mod

    def workflow(self, env, task, actions):
        """MultiTurnWorkflow.run's env calls (multi_turn_workflow.py:37-56)."""
        env.reset(task=task)  # Workflow.reset, workflow.py:286
        obs, info = env.reset(task)  # MultiTurnWorkflow.reset, :60
        steps = []
        for action in actions:
            obs, reward, done, info = env.step(types.SimpleNamespace(action=action))
            steps.append((obs, reward, done, info))
            if done:
                break
        return steps

    def test_episode(self):
        for name, commit in RLLM_COMMITS.items():
            with self.subTest(rllm=name):
                mod = self.load(commit)
                env = mod.SqlgymRllmEnv(**{})  # env_cls(**env_args)
                self.assertTrue(env.is_multithread_safe())
                task = {"task_id": "orders", "db": "shop", "split": "train"}
                steps = self.workflow(env, task, ["<sql>SELECT count(*) FROM orders</sql>",
                                                  "<solution>SELECT count(*) FROM orders</solution>"])
                self.assertEqual([s[2] for s in steps], [False, True])
                self.assertIn("<observation>", steps[0][0])
                self.assertEqual(steps[1][1], 1.0)
                self.assertEqual(steps[1][3]["sqlgym_outcome"], "correct")
                # The double reset left no episode open.
                self.assertEqual(open_episodes(self.serve.url), 0)
                # Out of turns on rLLM's side: close ends it.
                env2 = mod.SqlgymRllmEnv.from_dict(dict(task))
                self.workflow(env2, task, ["<sql>SELECT 1</sql>"])
                self.assertEqual(open_episodes(self.serve.url), 1)
                env2.close()
                self.assertEqual(open_episodes(self.serve.url), 0)
                with self.assertRaisesRegex(ValueError, "task_id"):
                    env.reset({"question": "no id"})

    def test_single_turn(self):
        # SingleTurnWorkflow.run (single_turn_workflow.py:33-56): reset, one step.
        for name, commit in RLLM_COMMITS.items():
            with self.subTest(rllm=name):
                mod = self.load(commit)
                task = {"task_id": "orders"}
                for reply, reward, outcome in (("<solution>SELECT count(*) FROM orders</solution>", 1.0, "correct"),
                                               ("<solution>SELECT 1</solution>", 0.1, "wrong"),
                                               ("<sql>SELECT count(*) FROM orders</sql>", 0.0, "no_query")):
                    env = mod.SqlgymRllmEnv(single_turn=True)
                    steps = self.workflow(env, task, [reply])
                    self.assertEqual(steps[-1][1:3], (reward, True))
                    self.assertEqual(steps[-1][3]["sqlgym_outcome"], outcome)
                self.assertEqual(open_episodes(self.serve.url), 0)


def load_wrapper(commit):
    src = trainer_src.show(AREAL, commit, "areal/api/reward_api.py")
    mod = types.ModuleType("areal_reward_api_" + commit[:8])
    header = ("import asyncio, logging, os, threading, traceback, weakref\nfrom collections.abc import Callable\n"
              "from concurrent.futures import ProcessPoolExecutor\nfrom concurrent.futures.process import BrokenProcessPool\n"
              "from functools import partial\nlogger = logging.getLogger('RewardAPI')\n")
    exec(header + trainer_src.cut(src, {"_get_device_count_safely", "AsyncRewardWrapper"}), mod.__dict__)
    return mod


@unittest.skipUnless(AREAL, trainer_src.skip_reason("SQLGYM_AREAL_GIT", "inclusionAI/AReaL", AREAL_COMMITS.values()))
class ArealTest(Base):
    def rewards(self, wrapper, samples):
        import sqlgym_areal

        async def rlvr():
            fn = wrapper.AsyncRewardWrapper(sqlgym_areal.reward_fn, max_workers=2)  # rlvr.py:73
            return await asyncio.gather(*[fn("prompt", text, [1, 2, 3], ids, **data) for text, ids, data in samples])
        return asyncio.run(rlvr())

    def test_gold_and_wrong(self):
        os.environ["SQLGYM_EOS_TOKEN_ID"] = "0"
        self.addCleanup(os.environ.pop, "SQLGYM_EOS_TOKEN_ID", None)
        row = {"task_id": "orders", "db": "shop", "split": "train", "gold_sql": "SELECT count(*) FROM orders"}
        for name, commit in AREAL_COMMITS.items():
            with self.subTest(areal=name):
                got = self.rewards(load_wrapper(commit), [
                    ("```sql\nSELECT count(*) FROM orders\n```", [5, 6, 0], row),
                    ("```sql\nSELECT count(*) + 1 FROM orders\n```", [5, 6, 0], row),
                    ("```sql\nSELECT count(*) FROM orders\n```", [5, 6, 7], row),  # no EOS: cut off
                ])
                self.assertEqual(got, [1.0, 0.1, 0.0])

    def test_outage_fails_instead_of_zero(self):
        outage = OutageServer()
        self.addCleanup(outage.stop)
        os.environ["SQLGYM_URL"] = outage.url
        self.addCleanup(os.environ.__setitem__, "SQLGYM_URL", self.serve.url)
        os.environ["SQLGYM_RETRY_FOR"] = "1"
        self.addCleanup(os.environ.pop, "SQLGYM_RETRY_FOR", None)
        with self.assertRaises(Exception) as cm:
            self.rewards(load_wrapper(AREAL_COMMITS["main"]), [("SELECT 1", [0], {"task_id": "orders"})])
        self.assertIn("could not score", str(cm.exception))


if __name__ == "__main__":
    unittest.main()


class ArealAgentTest(Base):
    """sqlgym_areal.SqlgymAgent as AReaL's OpenAI-proxy workflow runs an
    agent (areal/experimental/openai/proxy/workflow.py, v1.0.4 and main
    4aef98d8d): run must be a coroutine function (:107); inline mode awaits
    run(data, base_url=proxy, http_client=..., api_key=session key)
    (:122-130); subprocess mode sets OPENAI_BASE_URL/OPENAI_API_KEY and runs
    asyncio.run(agent.run(data)) (:62-69); a float result is the last
    completion's reward (:240). The proxy (AReaL's OpenAI-compatible
    server) is a stand-in that answers scripted replies."""

    def test_inline_and_subprocess_modes(self):
        import sqlgym_areal
        from test_roll_agentlightning import FakeAgentLightning

        agent = sqlgym_areal.SqlgymAgent(max_turns=4, temperature=1.0)
        self.assertTrue(asyncio.iscoroutinefunction(agent.run))
        data = {"task_id": "orders", "messages": [{"role": "user", "content": "ignored"}]}
        turns = [("<sql>SELECT count(*) FROM orders</sql>", "stop"), ("<solution>SELECT count(*) FROM orders</solution>", "stop")]
        proxy = FakeAgentLightning(list(turns))
        self.addCleanup(proxy.stop)
        reward = asyncio.run(agent.run(data, base_url=proxy.url, http_client=None, api_key="session"))
        self.assertIsInstance(reward, float)
        self.assertEqual(reward, 1.0)
        self.assertEqual(proxy.requests[0]["temperature"], 1.0)
        self.assertIn("<observation>", proxy.requests[1]["messages"][-1]["content"])
        # Subprocess mode: the address in the environment; a turn cut by max_tokens ends it truncated.
        proxy2 = FakeAgentLightning([("<solution>SELECT count(*) FROM ord", "length")])
        self.addCleanup(proxy2.stop)
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = proxy2.url, "k"
        self.addCleanup(os.environ.pop, "OPENAI_BASE_URL", None)
        self.addCleanup(os.environ.pop, "OPENAI_API_KEY", None)
        self.assertEqual(asyncio.run(agent.run(data)), 0.0)
        self.assertEqual(open_episodes(self.serve.url), 0)
