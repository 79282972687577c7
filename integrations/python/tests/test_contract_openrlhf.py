"""Contract tests: the OpenRLHF adapters called exactly as OpenRLHF's
current code calls them, against a real `sqlgym serve --eval-holdout`.

Reproduced from OpenRLHF/OpenRLHF v0.11.0 (the newest release, tag v0.11.0):
- openrlhf/utils/agent.py:234 cuts a long prompt's tokens from the left;
  :283 decodes prompt + reply with skip_special_tokens=False (the chat's
  end-of-turn token stays in the query); :285-287 asks for the reward of one
  sample per request ([query], [prompt], [label]); :303-319 calls a reward
  file's reward_func(queries, prompts, labels) in asyncio.to_thread; :332-336
  posts {"query", "prompts", "labels"} to --reward.remote_url; :290-296 reads
  "scores" (falling back to "rewards"), "rewards" and "extra_logs".
- agent.py:41-42 starts a multi-turn sample with reset({"observation":
  prompt, "label": label}) and reads reset_result["observation"]; :111-123
  calls step({"observation_text", "action_text", "label",
  "sampling_params"}) and reads step_result["rewards"].item(), "scores",
  "environment_feedback", "done" and "extra_logs"; :144 appends the feedback
  text to the observation.
- openrlhf/trainer/ray/vllm_engine.py:19-30 loads --train.agent_func_path by
  file path and instantiates its AgentExecutor class with no arguments.

Not checked without OpenRLHF installed: tokenisation (so where exactly a
left cut falls), vLLM's sampling, the torch tensors OpenRLHF builds from
the lists (openrlhf/trainer/ppo_utils/samples_generator.py:286-296).
"""

import asyncio
import importlib.util
import json
import os
import sys
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
sys.path.insert(0, PYDIR)

import sqlgym_reward as sr  # noqa: E402
from serve_fixture import OutageServer, Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
    {"id": "held", "db": "shop", "question": "How many reviews?", "sql": "SELECT count(*) FROM reviews", "split": "holdout"},
]
# A Qwen (ChatML) prompt as OpenRLHF renders it with --data.apply_chat_template.
PROMPT = ("<|im_start|>system\nWrite one SQLite query.<|im_end|>\n<|im_start|>user\n"
          "Database schema: CREATE TABLE orders (order_id INTEGER PRIMARY KEY, ...)\nQuestion: How many orders?<|im_end|>\n"
          "<|im_start|>assistant\n")
EVAL_LABEL = json.dumps({"task_id": "held", "mode": "eval"})


def load_by_path(path):
    """vllm_engine.py:19-30: spec_from_file_location("agent_module", path)."""
    spec = importlib.util.spec_from_file_location("agent_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class OpenRLHFContractTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--eval-holdout", "--retry-after", "1s")
        cls.url = cls.serve.url
        os.environ["SQLGYM_URL"] = cls.url

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def post(self, payload, url=None):
        req = urllib.request.Request((url or self.url) + "/get_reward", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as resp:
            return json.loads(resp.read())

    def single_turn(self, query, prompt, label, via_file):
        """agent.py:283-296 for one sample: the reward info OpenRLHF keeps."""
        if via_file:
            module = load_by_path(os.path.join(PYDIR, "sqlgym_reward.py"))

            async def fetch():
                return await asyncio.gather(asyncio.to_thread(module.reward_func, [query], [prompt], [label]))
            info = asyncio.run(fetch())[0]
        else:
            info = self.post({"query": [query], "prompts": [prompt], "labels": [label]})
        score = info.get("scores")
        if score is None:
            score = info.get("rewards")
        return info.get("rewards"), score, info.get("extra_logs") or {}

    def test_single_turn_both_routes(self):
        cases = [
            # A bare statement followed by the kept <|im_end|>: correct.
            (PROMPT + "SELECT count(*) FROM orders<|im_end|>", PROMPT, "orders", [1.0], [1.0]),
            # A wrong answer: reward 0.1, score 0 (correctness, for dynamic filtering).
            (PROMPT + "```sql\nSELECT count(*) + 1 FROM orders\n```<|im_end|>", PROMPT, "orders", [0.1], [0.0]),
            # The prompt cut from the left (agent.py:234): the query starts inside it.
            (PROMPT[57:] + "SELECT COUNT(*) FROM orders<|im_end|><|endoftext|>", PROMPT, "orders", [1.0], [1.0]),
            # A validation row's label: scored as evaluation on a held-out task.
            (PROMPT + "SELECT count(*) FROM reviews<|im_end|>", PROMPT, EVAL_LABEL, [1.0], [1.0]),
        ]
        for via_file in (False, True):
            for query, prompt, label, rewards, scores in cases:
                r, s, logs = self.single_turn(query, prompt, label, via_file)
                self.assertEqual((list(r), list(s)), (rewards, scores), (via_file, query[-60:]))
                self.assertEqual(list(logs["sqlgym_masked"]), [0.0])

    def test_outage_is_never_a_reward(self):
        """The HTTP route answers 503 (OpenRLHF's client retries, then the sample has no reward and the
        step stops); the file route retries for SQLGYM_RETRY_FOR seconds, then raises."""
        outage = OutageServer()
        self.addCleanup(outage.stop)
        with self.assertRaises(urllib.error.HTTPError) as cm:
            self.post({"query": ["SELECT 1"], "prompts": [""], "labels": ["orders"]}, url=outage.url)
        self.assertEqual(cm.exception.code, 503)
        os.environ["SQLGYM_RETRY_FOR"] = "2"
        os.environ["SQLGYM_URL"] = outage.url
        try:
            module = load_by_path(os.path.join(PYDIR, "sqlgym_reward.py"))
            with self.assertRaises(module.SqlgymError) as cm:
                module.reward_func(["SELECT 1"], [""], ["orders"])
        finally:
            del os.environ["SQLGYM_RETRY_FOR"]
            os.environ["SQLGYM_URL"] = self.url
        self.assertIn("could not score", str(cm.exception))

    def test_training_label_on_held_out_task_is_refused(self):
        with self.assertRaises(urllib.error.HTTPError) as cm:
            self.post({"query": [PROMPT + "SELECT 1"], "prompts": [PROMPT], "labels": ["held"]})
        self.assertEqual(cm.exception.code, 400)

    def run_multi_turn(self, executor, label, actions):
        """agent.py:39-160 with a scripted engine: the loop's calls, in order."""
        instance = executor.agent_instance_cls()
        reset_result = asyncio.run(instance.reset({"observation": "the dataset's prompt", "label": label}))
        observation_text = reset_result["observation"]
        total_reward, final_scores, extra_logs, feedbacks = 0, 0, {}, []
        for action_text in actions:
            states = {"observation_text": observation_text, "action_text": action_text, "label": label,
                      "sampling_params": object()}
            step_result = asyncio.run(instance.step(states))
            total_reward += step_result["rewards"].item()
            final_scores = step_result.get("scores", total_reward)
            feedbacks.append(step_result["environment_feedback"])
            extra_logs = step_result.get("extra_logs", {})
            observation_text = observation_text + action_text + step_result["environment_feedback"]
            if step_result["done"]:
                break
        return reset_result["observation"], total_reward, final_scores.item(), extra_logs, feedbacks

    def test_multi_turn_agent_executor(self):
        module = load_by_path(os.path.join(PYDIR, "sqlgym_openrlhf_agent.py"))
        executor = module.AgentExecutor()
        opening, reward, score, logs, feedbacks = self.run_multi_turn(executor, "orders", [
            "Let me look.\n<sql>SELECT count(*) FROM order</sql>",
            "<sql>SELECT count(*) FROM orders</sql>",
            "<solution>SELECT COUNT(*) FROM orders</solution>",
        ])
        # The prompt is the episode's text-protocol opening in ChatML, ending with the assistant's turn.
        self.assertTrue(opening.startswith("<|im_start|>system\n"), opening[:80])
        self.assertIn("<solution>", opening)
        self.assertTrue(opening.endswith("<|im_start|>assistant\n"))
        self.assertEqual(opening.count("Question: How many orders?"), 1)
        # Each observation is a user turn followed by the next assistant turn's opening.
        self.assertTrue(feedbacks[0].startswith("\n<|im_start|>user\n<observation>\nError: "), feedbacks[0])
        self.assertTrue(feedbacks[1].endswith("<|im_end|>\n<|im_start|>assistant\n"))
        self.assertEqual(feedbacks[2], "")
        self.assertEqual((reward, score), (1.0, 1.0))
        self.assertEqual((logs["sqlgym_masked"].item(), logs["sqlgym_turns"].item()), (0.0, 3.0))

        # A wrong submission: reward 0.1, score 0; a held-out task through its eval label.
        _, reward, score, _, _ = self.run_multi_turn(executor, "orders", ["<solution>SELECT 1</solution>"])
        self.assertEqual((round(reward, 6), score), (0.1, 0.0))
        _, reward, score, _, _ = self.run_multi_turn(executor, EVAL_LABEL, ["<solution>SELECT count(*) FROM reviews</solution>"])
        self.assertEqual((reward, score), (1.0, 1.0))

    def test_multi_turn_chat_formats(self):
        module = load_by_path(os.path.join(PYDIR, "sqlgym_openrlhf_agent.py"))
        msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
        self.assertEqual(module.render_opening(msgs, module.chat_format("llama3")),
                         "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>"
                         "<|start_header_id|>user<|end_header_id|>\n\nU<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
        self.assertEqual(module.render_opening(msgs, module.chat_format("gemma")),
                         "<bos><start_of_turn>user\nS\n\nU<end_of_turn>\n<start_of_turn>model\n")
        with self.assertRaises(ValueError):
            module.chat_format("nope")


if __name__ == "__main__":
    unittest.main()
