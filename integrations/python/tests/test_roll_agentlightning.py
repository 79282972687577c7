"""sqlgym_roll and sqlgym_agentlightning, called as ROLL and Agent
Lightning call them.

Read from git history ($SQLGYM_GEM_GIT, $SQLGYM_AGENTLIGHTNING_GIT or
$SQLGYM_TRAINER_SRC, see trainer_src.py) and run as they are:

- GEM (axon-rl/gem, main 4069f2f), the environment library ROLL's agentic
  pipeline uses: gem/core.py (Env, whole; its seeding helper, which needs
  numpy, stood in by random) and register/make from
  gem/envs/registration.py:26-80. The calls are ROLL's (alibaba/ROLL
  8eb27cc2): gem.make(env_id=..., **config) (traj_env_manager.py:72),
  reset(seed=seed) (:179), step(action=response) with the response decoded
  with its special tokens (:192-194).
- Agent Lightning (microsoft/agent-lightning, v1.0.0 8f8b8f95 and main
  c632d8dd): the local controller's worker (_run_local_reconciler_worker,
  local_reconciler.py:31-46) and env mapping (_build_env_from_map,
  _resolve_input_path, :59-87), run in a subprocess with the environment
  _spawn_for builds (:200-218). Agent Lightning's server and its model
  gateway are a small HTTP stand-in here (the OpenAI chat route the
  gateway proxies, and the events route); sqlgym serve is real.
"""

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
sys.path.insert(0, PYDIR)

import trainer_src  # noqa: E402
from serve_fixture import ServeTestCase, open_episodes  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
    {"id": "customers", "db": "shop", "question": "How many customers?", "sql": "SELECT count(*) FROM customers", "split": "train"},
]
GEM = trainer_src.git_dir("SQLGYM_GEM_GIT", "axon-rl/gem")
GEM_COMMIT = "4069f2f"
AGL = trainer_src.git_dir("SQLGYM_AGENTLIGHTNING_GIT", "microsoft/agent-lightning")
AGL_COMMITS = {"v1.0.0": "8f8b8f95fd4ed664822734811b61bb3341f4ddfe", "main": "c632d8dd"}


class Base(ServeTestCase):
    TASKS = TASKS
    SERVE_ARGS = ("--max-turns", "4")


@unittest.skipUnless(GEM, trainer_src.skip_reason("SQLGYM_GEM_GIT", "axon-rl/gem", [GEM_COMMIT]))
class RollTest(Base):
    def setUp(self):
        super().setUp()
        gem = types.ModuleType("gem")
        utils = types.ModuleType("gem.utils")
        seeding = types.ModuleType("gem.utils.seeding")
        exec("import random\ndef set_seed(seed):\n    random.seed(seed)\n", seeding.__dict__)
        utils.seeding = seeding
        core = types.ModuleType("gem.core")
        sys.modules.update({"gem": gem, "gem.utils": utils, "gem.utils.seeding": seeding, "gem.core": core})
        exec(trainer_src.show(GEM, GEM_COMMIT, "gem/core.py"), core.__dict__)
        reg = trainer_src.show(GEM, GEM_COMMIT, "gem/envs/registration.py")
        exec("import importlib\nfrom dataclasses import dataclass, field\nfrom typing import Any, Callable, Dict, Union\n"
             "from gem.core import Env\n" + trainer_src.cut(reg, {"EnvSpec", "ENV_REGISTRY", "register", "make"}), gem.__dict__)
        gem.Env = core.Env
        self.gem = gem
        for name in ("gem", "gem.utils", "gem.utils.seeding", "gem.core", "sqlgym_roll"):
            self.addCleanup(sys.modules.pop, name, None)
        sys.modules.pop("sqlgym_roll", None)
        import sqlgym_roll

        self.mod = sqlgym_roll
        self.assertTrue(issubclass(sqlgym_roll.SqlgymGemEnv, core.Env))
        sqlgym_roll.register_sqlgym()

    def test_trajectory(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for t in TASKS:
                f.write(json.dumps({"task_id": t["id"], "prompt": []}) + "\n")
        self.addCleanup(os.unlink, f.name)
        env = self.gem.make(env_id="sqlgym", **{"tasks_path": f.name, "mode": "train"})
        self.assertEqual(env.env_id, "sqlgym")
        obs, info = env.reset(seed=1)  # task 1 mod 2: customers
        self.assertIn("How many customers?", obs)
        self.assertIn("<solution>", info["env_instruction"])
        obs, reward, terminated, truncated, info = env.step(action="<sql>SELECT count(*) FROM customers</sql><|im_end|>")
        self.assertEqual((reward, terminated, truncated), (0.0, False, False))
        self.assertIn("<observation>", obs)
        obs, reward, terminated, truncated, info = env.step(action="<solution>SELECT count(*) FROM customers</solution><|im_end|>")
        self.assertEqual((reward, terminated), (1.0, True))
        self.assertEqual(info["metrics"]["sqlgym_correct"], 1.0)
        # ROLL stops at max_steps without telling the env: the next reset closes it.
        env.reset(seed=0)
        env.step(action="<sql>SELECT 1</sql>")
        self.assertEqual(open_episodes(self.serve.url), 1)
        obs, _ = env.reset(seed=2)
        self.assertIn("How many orders?", obs)
        env.close()
        self.assertEqual(open_episodes(self.serve.url), 0)


class FakeAgentLightning:
    """Agent Lightning's server as the agent sees it: the gateway's OpenAI
    chat route (scripted replies, each with a finish_reason) and the
    events route; it records the events."""

    def __init__(self, replies):
        self.replies, self.events, self.requests = list(replies), [], []
        fake = self

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.endswith("/chat/completions"):
                    fake.requests.append(body)
                    text, finish = fake.replies.pop(0)
                    out = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}]}
                else:
                    fake.events.append((self.path, self.headers.get("Authorization"), body))
                    out = {"ok": True}
                data = json.dumps(out).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@unittest.skipUnless(AGL, trainer_src.skip_reason("SQLGYM_AGENTLIGHTNING_GIT", "microsoft/agent-lightning", AGL_COMMITS.values()))
class AgentLightningTest(Base):
    def run_rollout(self, commit, task_input, replies, extra_env=None, spawn=False):
        """_spawn_for's environment and worker (local_reconciler.py:200-218):
        in a subprocess as Agent Lightning does (spawn), or in this process
        with the same environment (a Python start costs seconds here)."""
        fake = FakeAgentLightning(replies)
        self.addCleanup(fake.stop)
        src = trainer_src.show(AGL, commit, "agentlightning/controller/local_reconciler.py")
        worker = ("import asyncio, importlib, inspect, json, sys, traceback\n"
                  + trainer_src.cut(src, {"_run_local_reconciler_worker", "_build_env_from_map", "_resolve_input_path"}))
        ns = {}
        exec(worker, ns)
        env = dict(os.environ, AGL_KEY="k", AGL_OPENAI_BASE_URL=fake.url + "/proxy/rollout/r1/attempt/a/mode/train/openai/v1",
                   AGL_EVENT_URL=fake.url + "/api/rollouts/r1/attempt/a/events", PYTHONPATH=PYDIR, **(extra_env or {}))
        env.update(ns["_build_env_from_map"](task_input, {"SQLGYM_TASK_ID": "input.task_id", "SQLGYM_PROMPT": "input.prompt"}))
        if not spawn:
            saved = dict(os.environ)
            os.environ.update(env)
            try:
                rc = ns["_run_local_reconciler_worker"]("sqlgym_agentlightning:SqlgymAgent")
            finally:
                os.environ.clear()
                os.environ.update(saved)
            return types.SimpleNamespace(returncode=rc, stderr="(in process)"), fake
        code = worker + "\nsys.exit(_run_local_reconciler_worker(sys.argv[1]))\n"
        proc = subprocess.run([sys.executable, "-c", code, "sqlgym_agentlightning:SqlgymAgent"], env=env,
                              capture_output=True, text=True, timeout=120)
        return proc, fake

    def test_single_turn(self):
        row = {"task_id": "orders", "prompt": [{"role": "user", "content": "How many orders?"}]}
        for name, commit in AGL_COMMITS.items():
            for reply, finish, want in (("```sql\nSELECT count(*) FROM orders\n```", "stop", 1.0),
                                        ("```sql\nSELECT count(*) + 1 FROM orders\n```", "stop", 0.1),
                                        ("```sql\nSELECT count(*) FROM orders\n```", "length", 0.0)):
                with self.subTest(agentlightning=name, finish=finish, want=want):
                    proc, fake = self.run_rollout(commit, row, [(reply, finish)], spawn=(want == 1.0 and name == "main"))
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    self.assertEqual(fake.requests[0]["messages"], row["prompt"])
                    path, auth, ev = fake.events[0]
                    self.assertEqual((path, auth, ev["event_type"]), ("/api/rollouts/r1/attempt/a/events", "Bearer k", "reward"))
                    self.assertEqual(ev["data"]["value"], want)
                    self.assertEqual(ev["data"].get("reason"), "sqlgym_masked" if finish == "length" else None)

    def test_text_episode(self):
        for name, commit in AGL_COMMITS.items():
            with self.subTest(agentlightning=name):
                self.text_episode(commit)

    def text_episode(self, commit):
        row = {"task_id": "orders", "prompt": []}
        proc, fake = self.run_rollout(commit, row, [("<sql>SELECT count(*) FROM orders</sql>", "stop"),
                                                    ("<solution>SELECT count(*) FROM orders</solution>", "stop")],
                                      {"SQLGYM_PROTOCOL": "text"})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(fake.events[0][2]["data"]["value"], 1.0)
        self.assertIn("<observation>", fake.requests[1]["messages"][-1]["content"])
        self.assertEqual(open_episodes(self.serve.url), 0)

    def test_outage_fails_the_rollout(self):
        from serve_fixture import OutageServer

        outage = OutageServer()
        self.addCleanup(outage.stop)
        row = {"task_id": "orders", "prompt": [{"role": "user", "content": "q"}]}
        proc, fake = self.run_rollout(AGL_COMMITS["main"], row, [("SELECT 1", "stop")],
                                      {"SQLGYM_URL": outage.url, "SQLGYM_RETRY_FOR": "1"})
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(fake.events, [], "an outage must not be reported as a reward")


if __name__ == "__main__":
    unittest.main()
