"""sqlgym_slime.generate, called by slime's own generate_and_rm.

slime (THUDM/slime) cannot be imported here (torch, sglang, ray). Its
generate_and_rm (slime/rollout/sglang_rollout.py:225-290 at main 624b824a8,
:223-288 at v0.3.1 a6272da0), apply_rollout_sample_hooks
(slime/rollout/sample_hooks.py), the Sample dataclass, load_function and
the reward-model functions are read from its git history
($SQLGYM_SLIME_GIT or $SQLGYM_TRAINER_SRC, see trainer_src.py) and run as
they are: generate_and_rm loads --custom-generate-function-path with
load_function and awaits it, then skips the reward model for a sample whose
reward is set, or defers to batched_async_rm under --group-rm.

Stand-ins, for what is slime's only by being heavy: GenerateState (its
tokenizer is the model's; here one token per character), trace_span and
trace_function (tracing, here nothing), and
the SGLang router, an HTTP server speaking SGLang's /generate (text,
sampling_params, return_logprob -> text, meta_info.finish_reason.type,
meta_info.output_token_logprobs [[logprob, id, text]]) with scripted
replies. The sqlgym side is a real `sqlgym serve`.
"""

import asyncio
import contextlib
import http.server
import json
import os
import sys
import threading
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import trainer_src  # noqa: E402
from serve_fixture import Serve, metric  # noqa: E402
from test_slime import COMMITS, ENV, GIT, REPO, TASKS, load_slime  # noqa: E402

RUN = "<sql>SELECT count(*) FROM orders</sql>"
SUBMIT = "<solution>SELECT count(*) FROM orders</solution>"
WRONG = "<solution>SELECT count(*) + 1 FROM orders</solution>"


class CharTokenizer:
    """The model's tokenizer, as slime calls it: one token per character."""

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}


class SGLang:
    """SGLang's router: each /generate answers the next scripted reply,
    (text, finish) with finish "stop", "length" or "abort"; a "length"
    reply is cut to max_new_tokens."""

    def __init__(self):
        self.script, self.requests = [], []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                text, finish = owner.script.pop(0)
                if finish == "length":
                    text = text[: body["sampling_params"]["max_new_tokens"]]
                out = json.dumps({"text": text, "meta_info": {
                    "finish_reason": {"type": finish},
                    "output_token_logprobs": [[-0.5, ord(c), c] for c in text]}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.port = self.httpd.server_address[1]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def load_rollout(commit, rm):
    """slime's generate_and_rm and sample hooks at commit, over the reward
    functions and Sample of load_slime."""
    src = trainer_src.show(GIT, commit, "slime/rollout/sglang_rollout.py")
    hooks = trainer_src.show(GIT, commit, "slime/rollout/sample_hooks.py")
    mod = types.ModuleType("slime_rollout_" + commit[:8])
    mod.__dict__.update(Sample=rm.Sample, load_function=rm.load_function, async_rm=rm.async_rm,
                        batched_async_rm=rm.batched_async_rm, GenerateState=GenerateState,
                        trace_span=lambda *a, **k: contextlib.nullcontext(),
                        trace_function=lambda *a, **k: (lambda f: f))
    exec("import inspect\nfrom typing import Any\nfrom argparse import Namespace\n_current_rollout_id = None\n", mod.__dict__)
    exec(trainer_src.cut(hooks, {"_accepted_kwargs", "_apply_to_sample", "apply_rollout_sample_hooks"}), mod.__dict__)
    exec(trainer_src.cut(src, {"generate_and_rm"}), mod.__dict__)
    return mod


class GenerateState:
    """slime's GenerateState (sglang_rollout.py:83-): what generate_and_rm
    and a custom generate function read of it."""

    def __init__(self, args):
        self.tokenizer = CharTokenizer()
        self.semaphore = asyncio.Semaphore(8)
        self.aborted = False

    @contextlib.contextmanager
    def dp_rank_context(self):
        yield 0


@unittest.skipUnless(GIT, trainer_src.skip_reason(ENV, REPO, COMMITS.values()))
class SlimeMultiTurnTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS)
        cls.sglang = SGLang()
        cls.mods = {}
        for name, c in COMMITS.items():
            rm = load_slime(c)
            cls.mods[name] = (rm, load_rollout(c, rm))
        # slime imports GenerateState from its rollout module; so does generate.
        for name in ("slime", "slime.rollout"):
            sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules["slime.rollout.sglang_rollout"] = types.SimpleNamespace(GenerateState=GenerateState)

    @classmethod
    def tearDownClass(cls):
        cls.sglang.stop()
        cls.serve.stop()
        for name in ("slime.rollout.sglang_rollout", "slime.rollout", "slime"):
            sys.modules.pop(name, None)

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url

    def args(self, **kw):
        """slime's parsed arguments that generate_and_rm and generate read."""
        base = dict(partial_rollout=False, mask_offpolicy_in_partial_rollout=False, group_rm=False,
                    custom_generate_function_path="sqlgym_slime.generate", custom_rm_path=None, rm_type=None,
                    reward_key=None, eval_reward_key=None, rm_url=None, rollout_sample_hook_path=None,
                    rollout_max_response_len=4096, sglang_router_ip="127.0.0.1", sglang_router_port=self.sglang.port)
        base.update(kw)
        return types.SimpleNamespace(**base)

    def run_sample(self, mods, script, **kw):
        rm, rollout = mods
        self.sglang.script = list(script)
        self.sglang.requests = []
        sample = rm.Sample(prompt="ignored: the episode's opening is the prompt", label="orders")
        params = {"temperature": 1.0, "max_new_tokens": 1024}
        out = asyncio.run(rollout.generate_and_rm(self.args(**kw), sample, params))
        self.assertEqual(self.sglang.script, [], "every scripted reply was asked for")
        return out

    def test_episode_reward_without_the_reward_model(self):
        for name, mods in self.mods.items():
            with self.subTest(slime=name):
                before = self.metric('sqlgym_serve_requests_total{code="200",route="/v1/rewards"}')
                s = self.run_sample(mods, [(RUN, "stop"), (SUBMIT, "stop")])
                self.assertEqual((s.reward, s.status, s.remove_sample), (1.0, mods[0].Sample.Status.COMPLETED, False))
                self.assertEqual(s.metadata["sqlgym"]["outcome"], "correct")
                # The token stream: prompt, reply (mask 1), observation (mask 0), reply (mask 1).
                self.assertEqual(len(s.tokens), len(s.prompt) + s.response_length)
                self.assertEqual(len(s.loss_mask), s.response_length)
                self.assertEqual(len(s.rollout_log_probs), s.response_length)
                first, second = len(RUN), len(SUBMIT)
                self.assertEqual(s.loss_mask[:first], [1] * first)
                self.assertEqual(s.loss_mask[-second:], [1] * second)
                obs = s.loss_mask[first:-second]
                self.assertTrue(obs and set(obs) == {0}, "the observation is not trained on")
                self.assertIn("<|im_start|>user", s.response[first:-second])
                # The second generation saw the first reply and the observation.
                self.assertTrue(self.sglang.requests[1]["text"].startswith(s.prompt + RUN))
                self.assertEqual(self.metric('sqlgym_serve_requests_total{code="200",route="/v1/rewards"}'), before,
                                 "the reward model was not called")
                self.assertEqual(self.metric("sqlgym_serve_open_episodes"), 0)

    def test_wrong_answer_gets_the_runs_reward(self):
        for name, mods in self.mods.items():
            with self.subTest(slime=name):
                s = self.run_sample(mods, [(WRONG, "stop")])
                self.assertEqual((s.reward, s.metadata["sqlgym"]["outcome"]), (0.1, "wrong"))

    def test_reply_cut_at_the_token_limit_is_masked_and_closed(self):
        for name, mods in self.mods.items():
            with self.subTest(slime=name):
                s = self.run_sample(mods, [(RUN + " and then " * 200, "length")], rollout_max_response_len=64)
                self.assertEqual((s.reward, s.remove_sample, s.status), (0.0, True, mods[0].Sample.Status.TRUNCATED))
                self.assertEqual(s.metadata["sqlgym"]["outcome"], "truncated")
                self.assertEqual(s.response_length, 64)
                self.assertEqual(self.metric("sqlgym_serve_open_episodes"), 0)

    def test_no_room_for_the_observation_is_a_cut_off(self):
        for name, mods in self.mods.items():
            with self.subTest(slime=name):
                s = self.run_sample(mods, [(RUN, "stop")], rollout_max_response_len=len(RUN) + 10)
                self.assertEqual((s.reward, s.remove_sample), (0.0, True))
                self.assertEqual(s.metadata["sqlgym"]["outcome"], "truncated")
                self.assertEqual(self.metric("sqlgym_serve_open_episodes"), 0)

    def test_abort_ends_the_episode(self):
        for name, mods in self.mods.items():
            with self.subTest(slime=name):
                s = self.run_sample(mods, [("", "abort")])
                self.assertEqual((s.status, s.reward), (mods[0].Sample.Status.ABORTED, None))
                self.assertEqual(self.metric("sqlgym_serve_open_episodes"), 0)

    def test_group_rm_keeps_the_episode_rewards(self):
        for name, mods in self.mods.items():
            with self.subTest(slime=name):
                rm, _ = mods
                a = dict(group_rm=True, custom_rm_path="sqlgym_slime.reward")
                group = [self.run_sample(mods, [(SUBMIT if i % 2 else WRONG, "stop")], **a) for i in range(4)]
                self.assertEqual([s.reward for s in group], [0.1, 1.0, 0.1, 1.0])
                before = self.metric('sqlgym_serve_requests_total{code="200",route="/v1/rewards"}')
                got = asyncio.run(rm.batched_async_rm(self.args(**a), group))
                self.assertEqual(got, [0.1, 1.0, 0.1, 1.0])
                self.assertEqual(self.metric('sqlgym_serve_requests_total{code="200",route="/v1/rewards"}'), before)

    def metric(self, name):
        return metric(self.serve.url, name)

if __name__ == "__main__":
    unittest.main()
