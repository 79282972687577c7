"""sqlgym_verl against a real `sqlgym serve`, called as verl 0.9.0 calls it.

verl is not installed here: the agent loop runs on the module's stand-in of
verl's AgentLoopBase, with a character-level tokenizer and a scripted
rollout server in place of vLLM. What is reproduced from verl-project/verl
at tag v0.9.0:

- the agent loop is built with the keyword arguments of
  verl/experimental/agent_loop/agent_loop.py:697-706 (trainer_config,
  server_manager, tokenizer, processor, dataset_cls, data_config, tools)
  and run as `await agent_loop.run(sampling_params, **kwargs)` (:707) with
  the row's non-tensor fields as kwargs, agent_name taken out (:659, :680);
- server_manager.generate(request_id=, prompt_ids=, sampling_params=) returns
  token_ids and log_probs (verl/workers/rollout/replica.py:39-51);
- the output's reward_score becomes rm_scores only when every sample of the
  batch has one (agent_loop.py:1086-1092) and reward_extra_info must have
  the same keys for every sample (:1101-1104);
- the reward loop awaits a coroutine reward function with data_source,
  solution_str, ground_truth, extra_info
  (verl/experimental/reward_loop/reward_manager/naive.py:30,66-73) and
  scores a worker's samples concurrently (reward_loop.py:138-143).
"""

import asyncio
import json
import os
import re
import sys
import types
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
import sqlgym_batch  # noqa: E402
import sqlgym_verl as sv  # noqa: E402
from serve_fixture import OutageServer, Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]
GOOD = "SELECT COUNT(*) FROM orders"
EOS = 0


class CharTokenizer:
    """One token per character (its code point); 0 is EOS. The chat
    template is ChatML, as Qwen's."""

    eos_token_id = EOS
    pad_token_id = EOS

    def encode(self, text):
        return [ord(c) for c in text]

    def decode(self, ids, skip_special_tokens=True):
        return "".join(chr(i) for i in ids if i != EOS)

    def apply_chat_template(self, messages, tools=None, add_generation_prompt=True, tokenize=True, **kwargs):
        text = ""
        if tools:
            text += "<|im_start|>system\n<tools>%s</tools><|im_end|>\n" % json.dumps(tools)
        for m in messages:
            text += "<|im_start|>%s\n%s<|im_end|>\n" % (m["role"], m.get("content") or "")
        if add_generation_prompt:
            text += "<|im_start|>assistant\n"
        return self.encode(text)


class ScriptedRollout:
    """verl's LLMServerClient as the agent loop sees it: each generate call
    returns the next scripted reply, cut at sampling_params["max_tokens"]
    as an engine would, with EOS when it is not cut."""

    def __init__(self, replies, tok):
        self.replies, self.tok, self.calls = list(replies), tok, []

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs):
        self.calls.append({"request_id": request_id, "prompt_len": len(prompt_ids), "max_tokens": sampling_params.get("max_tokens")})
        ids = self.tok.encode(self.replies.pop(0)) + [EOS]
        limit = sampling_params["max_tokens"]
        return types.SimpleNamespace(token_ids=ids[:limit], log_probs=[-0.5] * min(len(ids), limit), stop_reason="completed")


def trainer_config(response_length):
    rollout = types.SimpleNamespace(response_length=response_length, prompt_length=4096,
                                    multi_turn=types.SimpleNamespace(format="hermes"))
    return types.SimpleNamespace(config=types.SimpleNamespace(actor_rollout_ref=types.SimpleNamespace(rollout=rollout)))


def make_loop(url, replies, response_length=4096, **kw):
    tok = CharTokenizer()
    rollout = ScriptedRollout(replies, tok)
    cfg = trainer_config(response_length)
    # agent_loop.py:697-706: hydra.utils.instantiate(config=..., trainer_config=DictConfigWrap,
    # server_manager=..., tokenizer=..., processor=..., dataset_cls=..., data_config=DictConfigWrap,
    # tools=ToolListWrap(...)) plus the keys of the agent loop's YAML entry (url, protocol).
    loop = sv.SqlgymAgentLoop(trainer_config=cfg, server_manager=rollout, tokenizer=tok, processor=None,
                              dataset_cls=object, data_config=types.SimpleNamespace(config={}),
                              tools=types.SimpleNamespace(tools=[]), url=url, **kw)
    return loop, rollout


def row(task_id, protocol=None):
    """The kwargs verl passes to run(): a dataset row's non-tensor fields
    (agent_loop.py:659), without agent_name (:680)."""
    extra = {"index": 0, "task_id": task_id, "db": "shop", "split": "train"}
    if protocol:
        extra["protocol"] = protocol
    return {"raw_prompt": [{"role": "user", "content": "ignored: the episode's opening is the server's"}],
            "data_source": "sqlgym", "reward_model": {"style": "rule", "ground_truth": "SELECT 1"},
            "extra_info": extra, "index": 0, "tools_kwargs": {}}


def tool_call(name, **args):
    return "<tool_call>%s</tool_call>" % json.dumps({"name": name, "arguments": args})


SAMPLING = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}


class RecordingClient(sa.EpisodeClient):
    """The episode client, remembering the episodes it opened."""

    def __init__(self, url):
        super().__init__(url, retry_for=2.0)
        self.opened = []

    def start(self, task_id, protocol=None, mode=None):
        ep = super().start(task_id, protocol, mode)
        self.opened.append(ep["episode_id"])
        return ep


class VerlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--max-episodes", "4", "--retry-after", "1s", "--max-turns", "4")
        cls.url = cls.serve.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def assert_closed(self, episode_id):
        with self.assertRaises(sa.EpisodeError) as cm:
            sa.EpisodeClient(self.url).step(episode_id, {"role": "assistant", "content": "x"})
        self.assertEqual(cm.exception.status, 404)

    def test_tools_episode_sets_the_reward(self):
        loop, rollout = make_loop(self.url, [tool_call("run_sql", sql="SELECT nope FROM orders"), tool_call("submit", sql=GOOD)])
        loop.client = RecordingClient(self.url)
        out = asyncio.run(loop.run(dict(SAMPLING), **row("orders")))
        self.assertEqual(out.reward_score, 1.0)
        self.assertEqual(out.extra_fields["reward_extra_info"], {"sqlgym_masked": 0.0, "sqlgym_correct": 1.0, "sqlgym_turns": 2.0})
        self.assertEqual(out.num_turns, 4)  # two assistant turns, one observation turn, plus the prompt
        # One request id for the whole trajectory (sticky session), and each turn's prompt grows.
        self.assertEqual(len({c["request_id"] for c in rollout.calls}), 1)
        self.assertGreater(rollout.calls[1]["prompt_len"], rollout.calls[0]["prompt_len"])
        # The opening prompt is the server's, tools included.
        prompt = CharTokenizer().decode(out.prompt_ids)
        self.assertIn('"name": "run_sql"', prompt)
        self.assertIn("Question: How many orders?", prompt)
        self.assertNotIn("ignored", prompt)
        # The observation is in the response, masked out of the loss; the model's turns are trained.
        text = CharTokenizer().decode(out.response_ids)
        self.assertIn("Error: ", text)
        obs = [i for i, m in enumerate(out.response_mask) if m == 0]
        self.assertTrue(obs and all(out.response_ids[i] != EOS for i in obs))
        first = CharTokenizer().encode(tool_call("run_sql", sql="SELECT nope FROM orders")) + [EOS]
        self.assertEqual(out.response_ids[:len(first)], first)
        self.assertEqual(out.response_mask[:len(first)], [1] * len(first))
        self.assertEqual(len(out.response_logprobs), len(out.response_ids))
        self.assert_closed(loop.client.opened[0])

    def test_text_protocol_from_extra_info(self):
        loop, _ = make_loop(self.url, ["<sql>SELECT count(*) FROM orders</sql>", "<solution>SELECT count(*) + 1 FROM orders</solution>"])
        out = asyncio.run(loop.run(dict(SAMPLING), **row("orders", "text")))
        self.assertEqual(out.reward_score, 0.1)
        self.assertIn("<observation>", CharTokenizer().decode(out.response_ids))

    def test_cut_turn_is_masked_not_scored(self):
        # A 40-token response limit cuts the first turn: the episode is
        # truncated, its reward null, sent as 0.0 with the whole response out of the loss.
        loop, rollout = make_loop(self.url, [tool_call("submit", sql=GOOD)], response_length=40)
        out = asyncio.run(loop.run(dict(SAMPLING), **row("orders")))
        self.assertEqual(rollout.calls[0]["max_tokens"], 40)
        self.assertEqual(out.reward_score, 0.0)
        self.assertEqual(out.extra_fields["reward_extra_info"]["sqlgym_masked"], 1.0)
        self.assertEqual(out.extra_fields["sqlgym_outcome"], "truncated")
        self.assertEqual(len(out.response_ids), 40)
        self.assertEqual(set(out.response_mask), {0})

    def test_no_room_for_observations_ends_truncated(self):
        call = tool_call("run_sql", sql=GOOD)
        loop, _ = make_loop(self.url, [call], response_length=len(call) + 30)
        out = asyncio.run(loop.run(dict(SAMPLING), **row("orders")))
        self.assertEqual(out.extra_fields["sqlgym_outcome"], "truncated")
        self.assertEqual(out.reward_score, 0.0)

    def test_failed_rollout_leaves_no_episode_open(self):
        class Broken(ScriptedRollout):
            async def generate(self, request_id, **kw):
                raise RuntimeError("engine died")

        loop, _ = make_loop(self.url, [])
        loop.server_manager = Broken([], CharTokenizer())
        loop.client = RecordingClient(self.url)
        with self.assertRaises(RuntimeError):
            asyncio.run(loop.run(dict(SAMPLING), **row("orders")))
        self.assert_closed(loop.client.opened[0])

    def test_outage_raises_instead_of_scoring(self):
        outage = OutageServer()
        self.addCleanup(outage.stop)
        loop, rollout = make_loop(outage.url, [tool_call("submit", sql="SELECT 1")])
        loop.client = RecordingClient(outage.url)
        with self.assertRaises(sa.EpisodeError) as cm:
            asyncio.run(loop.run(dict(SAMPLING), **row("orders")))
        self.assertEqual(cm.exception.status, 503)
        self.assertEqual(rollout.calls, [])

    def test_row_without_task_id_is_refused(self):
        loop, _ = make_loop(self.url, [])
        r = row("orders")
        del r["extra_info"]["task_id"]
        with self.assertRaisesRegex(ValueError, "sqlgym export --agent"):
            asyncio.run(loop.run(dict(SAMPLING), **r))

    def test_loads_by_path_as_verl_does(self):
        # verl/utils/import_utils.py:119-133: spec_from_file_location under a
        # made-up name, the file's folder not on sys.path.
        import subprocess
        path = os.path.join(os.path.dirname(HERE), "sqlgym_verl.py")
        code = ("import importlib.util, inspect, sys; sys.path = [p for p in sys.path if 'integrations' not in p]; "
                "spec = importlib.util.spec_from_file_location('custom_module_1', %r); m = importlib.util.module_from_spec(spec); "
                "spec.loader.exec_module(m); print(inspect.iscoroutinefunction(m.compute_score))") % path
        out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True)
        self.assertEqual(out.stdout.strip(), "True", out.stderr)

    def test_held_out_rows_are_marked_as_evaluation(self):
        # Rows of a held-out validation export (data.val_files) ask for the eval mode.
        self.assertEqual(sv.verl_item("x", "", {"task_id": "t", "split": "holdout"})["mode"], "eval")
        self.assertNotIn("mode", sv.verl_item("x", "", {"task_id": "t", "split": "train"}))

        class Opened(Exception):
            pass

        class Client(sa.EpisodeClient):
            def start(self, task_id, protocol=None, mode=None):
                raise Opened(mode)

        loop, _ = make_loop(self.url, [])
        loop.client = Client(self.url)
        r = row("orders")
        r["extra_info"]["split"] = "holdout"
        with self.assertRaises(Opened) as cm:
            asyncio.run(loop.run(dict(SAMPLING), **r))
        self.assertEqual(cm.exception.args, ("eval",))

    def test_hermes_tool_calls(self):
        calls = sv.hermes_tool_calls('think <tool_call>{"name": "run_sql", "arguments": {"sql": "SELECT 1"}}</tool_call>'
                                     '<tool_call>{broken</tool_call>')
        self.assertEqual(calls[0]["function"], {"name": "run_sql", "arguments": '{"sql": "SELECT 1"}'})
        self.assertEqual(calls[1]["function"], {"name": "", "arguments": "{broken"})

    def requests_to_rewards(self):
        with urllib.request.urlopen(self.url + "/metrics") as resp:
            text = resp.read().decode()
        return sum(float(m.group(1)) for m in re.finditer(r'sqlgym_serve_requests_total\{code="200",route="/v1/rewards"\} (\S+)', text))

    def test_async_reward_batches_concurrent_samples(self):
        os.environ["SQLGYM_URL"] = self.url
        sqlgym_batch._batchers.clear()
        before = self.requests_to_rewards()

        async def reward_loop_worker():
            # reward_loop.py:138-143: one task per sample, gathered.
            samples = [("```sql\n%s\n```" % (GOOD if i % 2 else "SELECT 1")) for i in range(16)]
            return await asyncio.gather(*[
                sv.compute_score(data_source="sqlgym", solution_str=s, ground_truth="SELECT count(*) FROM orders",
                                 extra_info={"task_id": "orders", "num_turns": 2, "rollout_reward_scores": {}})
                for s in samples])

        scores = asyncio.run(reward_loop_worker())
        self.assertEqual([s["score"] for s in scores], [0.1 if i % 2 == 0 else 1.0 for i in range(16)])
        self.assertEqual({tuple(sorted(s)) for s in scores}, {("score", "sqlgym_correct", "sqlgym_masked")})
        self.assertEqual(self.requests_to_rewards() - before, 1)
        self.assertEqual(sv.compute_score_sync("sqlgym", GOOD, "", {"task_id": "orders"})["score"], 1.0)
        self.assertTrue(asyncio.iscoroutinefunction(sv.compute_score))


if __name__ == "__main__":
    unittest.main()
