"""sqlgym_slime and /slime/reward, called by slime's own code.

slime (THUDM/slime) cannot be imported here (torch, sglang, ray). Its
reward-model functions are read from its git history ($SQLGYM_SLIME_GIT or
$SQLGYM_TRAINER_SRC, see trainer_src.py) at the newest release (v0.3.1,
a6272da0) and at main (624b824a8), and run as they are:

- slime/rollout/rm_hub/__init__.py: remote_rm (:34-52, the body
  {"prompt", "response", "label"} posted to --rm-url, the JSON answer
  returned as the reward), async_rm (:55-95, --custom-rm-path called as
  rm_function(args, sample)) and batched_async_rm (:98-109, --group-rm's
  rm_function(args, samples));
- slime/utils/types.py: the Sample dataclass (:93-), whose
  get_reward_value (:246-247) reads sample.reward[args.reward_key];
- slime/utils/misc.py:39-47: load_function, how slime imports
  "module.function" paths.

aiohttp is the one stand-in: a session whose post() sends the JSON body
with urllib and answers raise_for_status() and json() as aiohttp does.
Checked: the shop's gold scores 1 and a wrong answer 0.1 (the default
--reward) through both ways in; a broken gold is masked so slime drops it
(remove_sample, which zeroes the loss mask, slime/ray/rollout.py:680-681);
a truncated sample (Sample.Status.TRUNCATED) gets no reward through the
custom RM; --group-rm scores a group in one request.
"""

import asyncio
import json
import os
import re
import sys
import types
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import trainer_src  # noqa: E402
from serve_fixture import Serve  # noqa: E402

REPO = "THUDM/slime"
ENV = "SQLGYM_SLIME_GIT"
COMMITS = {"v0.3.1": "a6272da0d4f3d0a08520c99a2f3b4f6c887960dc", "main": "624b824a898ab0ec1fcb4d373004c7f3852bf515"}
GIT = trainer_src.git_dir(ENV, REPO)

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]
GOLD = "<think>count</think>\n```sql\nSELECT count(*) FROM orders\n```"
WRONG = "```sql\nSELECT count(*) + 1 FROM orders\n```"

_AIOHTTP = '''
class _Response:
    def __init__(self, status, body):
        self.status, self._body = status, body

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    def raise_for_status(self):
        if self.status >= 400:
            raise RuntimeError("HTTP %d: %s" % (self.status, self._body[:200]))

    async def json(self):
        return json.loads(self._body)


class ClientSession:
    closed = False

    def __init__(self, *a, **kw):
        pass

    def post(self, url, json=None):
        import json as _json
        req = urllib.request.Request(url, data=_json.dumps(json).encode(), headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as r:
                return _Response(r.status, r.read().decode())
        except urllib.error.HTTPError as e:
            return _Response(e.code, e.read().decode())


class TCPConnector:
    def __init__(self, *a, **kw):
        pass


class ClientTimeout:
    def __init__(self, *a, **kw):
        pass
'''


def load_slime(commit):
    """slime's reward-model functions and Sample at commit, as a module."""
    rm = trainer_src.show(GIT, commit, "slime/rollout/rm_hub/__init__.py")
    types_src = trainer_src.show(GIT, commit, "slime/utils/types.py")
    misc = trainer_src.show(GIT, commit, "slime/utils/misc.py")
    aiohttp = types.ModuleType("aiohttp")
    exec("import json, urllib.request, urllib.error\n" + _AIOHTTP, aiohttp.__dict__)
    mod = types.ModuleType("slime_rm_" + commit[:8])
    header = ("import asyncio, importlib, logging, random\nfrom functools import cache, lru_cache\nfrom dataclasses import dataclass, field\nfrom enum import Enum\n"
              "from typing import Any\nlogger = logging.getLogger('slime')\n"
              "class _T:\n    Tensor = object\ntorch = _T\n"
              "def decode_int32_meta_array(*a, **kw):\n    return None\n")
    mod.__dict__["aiohttp"] = aiohttp
    exec(header, mod.__dict__)
    exec(trainer_src.cut(misc, {"load_function"}), mod.__dict__)
    exec(trainer_src.cut(types_src, {"Sample"}), mod.__dict__)
    exec(trainer_src.cut(rm, {"_shared_session", "_get_shared_session", "remote_rm", "async_rm", "batched_async_rm"}), mod.__dict__)
    return mod


def args(**kw):
    """slime's parsed arguments: the reward-model ones (arguments.py:1329-1386)."""
    base = dict(rm_type=None, reward_key=None, eval_reward_key=None, group_rm=False, rm_url=None, custom_rm_path=None)
    base.update(kw)
    return types.SimpleNamespace(**base)


@unittest.skipUnless(GIT, trainer_src.skip_reason(ENV, REPO, COMMITS.values()))
class SlimeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS)
        cls.mods = {name: load_slime(c) for name, c in COMMITS.items()}

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url
        os.environ.pop("SQLGYM_REWARD_WEIGHTS", None)

    def sample(self, m, response, label="orders", **kw):
        return m.Sample(prompt=[{"role": "user", "content": "How many orders?"}], response=response, label=label, **kw)

    def test_remote_rm_with_reward_key(self):
        for name, m in self.mods.items():
            with self.subTest(slime=name):
                a = args(rm_type="remote_rm", rm_url=self.serve.url + "/slime/reward", reward_key="reward")
                for response, want in ((GOLD, 1.0), (WRONG, 0.1)):
                    s = self.sample(m, response)
                    s.reward = asyncio.run(m.async_rm(a, s))
                    self.assertEqual(s.get_reward_value(a), want)
                    self.assertEqual(s.reward["sqlgym_masked"], 0)
                # A broken gold: 0, masked, dropped by the sample filter.
                import sqlgym_slime
                s = self.sample(m, GOLD, label=json.dumps({"db": "shop", "gold_sql": "SELECT * FROM nope"}))
                s.reward = asyncio.run(m.async_rm(a, s))
                self.assertEqual((s.get_reward_value(a), s.reward["sqlgym_masked"]), (0, 1))
                sqlgym_slime.drop_masked(a, [[s, self.sample(m, GOLD)]])
                self.assertTrue(s.remove_sample)

    def test_remote_rm_as_a_number(self):
        for name, m in self.mods.items():
            with self.subTest(slime=name):
                a = args(rm_type="remote_rm", rm_url=self.serve.url + "/slime/reward?answer=number")
                got = [asyncio.run(m.async_rm(a, self.sample(m, r))) for r in (GOLD, WRONG)]
                self.assertEqual(got, [1, 0.1])

    def test_custom_rm_path(self):
        for name, m in self.mods.items():
            with self.subTest(slime=name):
                a = args(custom_rm_path="sqlgym_slime.reward")
                samples = [self.sample(m, GOLD), self.sample(m, WRONG),
                           self.sample(m, GOLD, status=m.Sample.Status.TRUNCATED)]
                got = [asyncio.run(m.async_rm(a, s)) for s in samples]
                self.assertEqual(got, [1.0, 0.1, 0.0])
                self.assertEqual([s.remove_sample for s in samples], [False, False, True])
                self.assertEqual(samples[2].metadata["sqlgym"]["outcome"], "truncated")

    def test_group_rm_is_one_request(self):
        for name, m in self.mods.items():
            with self.subTest(slime=name):
                a = args(custom_rm_path="sqlgym_slime.reward", group_rm=True)
                group = [self.sample(m, GOLD if i % 2 else WRONG) for i in range(8)]
                before = self.requests()
                got = asyncio.run(m.batched_async_rm(a, group))
                self.assertEqual(got, [1.0 if i % 2 else 0.1 for i in range(8)])
                self.assertEqual(self.requests() - before, 1)

    def test_reward_weights_from_the_environment(self):
        # SQLGYM_REWARD_WEIGHTS: every shim's batches carry the weights (serve --components).
        comp = Serve(TASKS, "--components")
        self.addCleanup(comp.stop)
        os.environ["SQLGYM_URL"] = comp.url
        os.environ["SQLGYM_REWARD_WEIGHTS"] = "outcome=1,executes=0.5"
        self.addCleanup(os.environ.pop, "SQLGYM_REWARD_WEIGHTS", None)
        self.addCleanup(os.environ.__setitem__, "SQLGYM_URL", self.serve.url)
        m = self.mods["main"]
        a = args(custom_rm_path="sqlgym_slime.reward")
        got = [asyncio.run(m.async_rm(a, self.sample(m, r))) for r in (GOLD, WRONG, "```sql\nSELECT nope\n```")]
        self.assertEqual(got, [1.5, 0.6, 0.0])

    def requests(self):
        with urllib.request.urlopen(self.serve.url + "/metrics") as r:
            text = r.read().decode()
        return sum(float(x) for x in re.findall(r'sqlgym_serve_requests_total\{code="200",route="/v1/rewards"\} (\S+)', text))


if __name__ == "__main__":
    unittest.main()
