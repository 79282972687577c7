"""The multi-turn agent on OpenRLHF's own MultiTurnAgentExecutor (v0.11.0).

openrlhf/utils/agent.py and openrlhf/utils/logging_utils.py are read from
OpenRLHF's git history at tag v0.11.0 ($SQLGYM_OPENRLHF_GIT or
$SQLGYM_TRAINER_SRC, see trainer_src.py) and imported as they are, with
aiohttp (used only by the single-turn executor's HTTP client) stood in.
The executor is loaded and called as vllm_engine.py does it:
_load_agent_executor (:19-30) imports --train.agent_func_path by path and
checks AgentExecutor subclasses AgentExecutorBase; generate_responses
(:196-206) awaits executor.execute(prompt=, label=, sampling_params=,
max_length=, hf_tokenizer=, llm_engine=self, images=) once per sample,
concurrently. The engine is scripted; the tokenizer is character level
with ChatML's special tokens, called as agent.py:66-68 and :141-144 call
a Hugging Face tokenizer.

What is checked is issue 27's third point: when the token budget runs out
(agent.py:92-95) or the engine cuts a turn, the sample comes back with
"truncated": True (what samples_generator.py:282 reads for
--reward.stop_properly_penalty_coef), reward 0.0 and sqlgym_masked 1, and
sqlgym_serve_open_episodes returns to 0.
"""

import asyncio
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import types
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
sys.path.insert(0, PYDIR)

import trainer_src  # noqa: E402
from serve_fixture import Serve  # noqa: E402

REPO = "OpenRLHF/OpenRLHF"
ENV = "SQLGYM_OPENRLHF_GIT"
COMMIT = "3c3be6234e0cb353e76bb8019947db9dfe99fca7"  # tag v0.11.0
GIT = trainer_src.git_dir(ENV, REPO)

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]
SPECIAL = {"<|im_start|>": 1, "<|im_end|>": 2}


class Ids(list):
    def tolist(self):
        return list(self)


class Tokenizer:
    """A Hugging Face tokenizer as agent.py calls it: tokenizer(text=...,
    add_special_tokens=False, return_tensors="pt")["input_ids"][0].tolist()
    and decode(ids, skip_special_tokens=False)."""

    def __call__(self, text, add_special_tokens=False, return_tensors=None):
        return {"input_ids": [Ids(self.encode(text))]}

    def encode(self, text):
        ids, i = [], 0
        while i < len(text):
            for tok, tid in SPECIAL.items():
                if text.startswith(tok, i):
                    ids.append(tid)
                    i += len(tok)
                    break
            else:
                ids.append(ord(text[i]) + 16)
                i += 1
        return ids

    def decode(self, ids, skip_special_tokens=False):
        inv = {v: k for k, v in SPECIAL.items()}
        return "".join(("" if skip_special_tokens else inv[i]) if i in inv else chr(i - 16) for i in ids)


class Engine:
    """The vLLM actor as the executor calls it: generate(prompt_token_ids,
    sampling_params, multi_modal_data=) -> RequestOutput with outputs[0]
    token_ids, text, finish_reason. A reply ends with <|im_end|> unless
    max_tokens cuts it (finish_reason "length")."""

    def __init__(self, replies):
        self.replies, self.tok = list(replies), Tokenizer()

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = self.tok.encode(self.replies.pop(0)) + [SPECIAL["<|im_end|>"]]
        cut = len(ids) > sampling_params.max_tokens
        ids = ids[:sampling_params.max_tokens]
        out = types.SimpleNamespace(token_ids=ids, text=self.tok.decode(ids, skip_special_tokens=True),
                                    finish_reason="length" if cut else "stop", logprobs=None)
        return types.SimpleNamespace(outputs=[out])


class SamplingParams:
    """vLLM's SamplingParams: the attributes the executor reads and sets."""

    def __init__(self, max_tokens=None):
        self.max_tokens, self.logprobs = max_tokens, None


@unittest.skipUnless(GIT, trainer_src.skip_reason(ENV, REPO, [COMMIT]))
class OpenRLHFSourceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="openrlhf-src-")
        for path in ("openrlhf/utils/agent.py", "openrlhf/utils/logging_utils.py"):
            full = os.path.join(cls.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(trainer_src.show(GIT, COMMIT, path))
        for path in ("openrlhf/__init__.py", "openrlhf/utils/__init__.py"):
            open(os.path.join(cls.root, path), "w").close()
        if importlib.util.find_spec("aiohttp") is None:
            with open(os.path.join(cls.root, "aiohttp.py"), "w") as f:
                f.write("# stand-in: only SingleTurnAgentExecutor's HTTP client uses it\n")
        sys.path.insert(0, cls.root)
        for name in [n for n in sys.modules if n == "openrlhf" or n.startswith("openrlhf.")]:
            del sys.modules[name]
        from openrlhf.utils import agent  # noqa: E402 - OpenRLHF's own, v0.11.0

        cls.agent = agent
        spec = importlib.util.spec_from_file_location("agent_module", os.path.join(PYDIR, "sqlgym_openrlhf_agent.py"))
        cls.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.module)
        cls.serve = Serve(TASKS, "--max-turns", "4")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()
        sys.path.remove(cls.root)
        for name in [n for n in sys.modules if n == "openrlhf" or n.startswith("openrlhf.")]:
            del sys.modules[name]
        shutil.rmtree(cls.root, ignore_errors=True)

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url
        self.assertTrue(issubclass(self.module.AgentExecutor, self.agent.AgentExecutorBase))
        self.assertTrue(issubclass(self.module.SqlgymAgentInstance, self.agent.AgentInstanceBase))

    def open_episodes(self):
        with urllib.request.urlopen(self.serve.url + "/metrics") as resp:
            return float(re.search(r"^sqlgym_serve_open_episodes (\S+)$", resp.read().decode(), re.M).group(1))

    def execute(self, replies, max_length, n=1):
        """vllm_engine.py:196-206: n samples of one prompt, concurrently."""
        executor = self.module.AgentExecutor()
        engine = Engine(replies * n)

        async def generate_responses():
            return await asyncio.gather(*[executor.execute(
                prompt="<|im_start|>user\nHow many orders?<|im_end|>\n<|im_start|>assistant\n", label="orders",
                sampling_params=SamplingParams(), max_length=max_length, hf_tokenizer=Tokenizer(),
                llm_engine=engine, images=None) for _ in range(n)])
        return asyncio.run(generate_responses())

    def test_finished_episode_is_scored(self):
        out = self.execute(["<sql>SELECT count(*) FROM orders</sql>", "<solution>SELECT count(*) FROM orders</solution>"],
                           max_length=8192)[0]
        self.assertEqual(out["reward"], 1.0)
        self.assertNotIn("truncated", out)  # OpenRLHF reads it with .get("truncated", False)
        self.assertEqual(out["extra_logs"]["sqlgym_masked"].item(), 0.0)
        self.assertEqual(len(out["action_ranges"]), 2)
        self.assertEqual(self.open_episodes(), 0)

    def test_budget_out_is_masked_and_closed(self):
        # The first turn fits; after its observation no token is left, so
        # OpenRLHF's loop breaks without another step (agent.py:92-95).
        reply = "<sql>SELECT count(*) FROM orders</sql>"
        opening = self.opening_length()
        outs = self.execute([reply], max_length=opening + len(reply) + 6, n=3)
        for out in outs:
            self.assertEqual(len(out["action_ranges"]), 1)
            self.assertIs(out["truncated"], True)
            self.assertEqual(out["reward"], 0.0)
            self.assertEqual(out["scores"], 0.0)
            self.assertEqual(out["extra_logs"]["sqlgym_masked"].item(), 1.0)
        self.assertEqual(self.open_episodes(), 0)

    def test_turn_cut_by_the_engine_is_masked(self):
        # max_tokens cuts a correct submission mid-way: never rewarded for a lucky prefix.
        reply = "<solution>SELECT count(*) FROM orders</solution> and some more words"
        out = self.execute([reply], max_length=self.opening_length() + 48)[0]
        self.assertIs(out["truncated"], True)
        self.assertEqual(out["reward"], 0.0)
        self.assertEqual(out["extra_logs"]["sqlgym_masked"].item(), 1.0)
        self.assertEqual(self.open_episodes(), 0)

    def test_engine_failure_leaves_no_episode_open(self):
        class Broken(Engine):
            async def generate(self, *a, **kw):
                raise RuntimeError("engine died")

        executor = self.module.AgentExecutor()
        with self.assertRaises(RuntimeError):
            asyncio.run(executor.execute(prompt="p", label="orders", sampling_params=SamplingParams(), max_length=8192,
                                         hf_tokenizer=Tokenizer(), llm_engine=Broken([]), images=None))
        self.assertEqual(self.open_episodes(), 0)

    def opening_length(self):
        """Tokens of the episode's opening as the agent renders it."""
        import sqlgym_agent

        client = sqlgym_agent.EpisodeClient(self.serve.url)
        ep = client.start("orders", "text")
        client.end(ep["episode_id"])
        return len(Tokenizer().encode(self.module.render_opening(ep["messages"], self.module.chat_format())))


if __name__ == "__main__":
    unittest.main()
