"""SqlgymAgentLoop on verl's own AgentLoopBase, at v0.9.0 and on main.

verl main's commit df9e22433 ("[BREAKING][rollout] feat: Add Multimodal
Continuous Token") removed AgentLoopBase.apply_chat_template, system_prompt
and turn_separator; every tokenization goes through the Continuous Token
builder (ct_build_initial_tokens, ct_merge_assistant_token,
ct_merge_non_assistant_msg). The base classes are loaded from verl's git
history ($SQLGYM_VERL_GIT, see verl_source.py) at each commit and the
loop is constructed and run as that commit's AgentLoopWorker does it:

- v0.9.0 (483b8a00): agent_loop.py:697-707, the instantiate keywords
  without hf_model_type; AgentLoopBase.__init__ (:219-267) picks the
  legacy path unless data.continuous_token.enable (default False,
  verl/trainer/config/data/legacy_data.yaml:126);
- main (1dda039b): agent_loop.py:653-664, with hf_model_type (the root
  Hugging Face model_type, "qwen2" for Qwen2.5), and the Continuous Token
  builder always on (:221-252).

The output is validated by the commit's own AgentLoopOutput (pydantic).
"""

import asyncio
import importlib.util
import json
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_agent as sa  # noqa: E402
import verl_source  # noqa: E402
from serve_fixture import Serve  # noqa: E402

TASKS = [
    {"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"},
]
GOOD = "SELECT COUNT(*) FROM orders"
SPECIAL = {"<|im_start|>": 1, "<|im_end|>": 2, "<|endoftext|>": 3}
QWEN_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."


class QwenCharTokenizer:
    """Qwen2.5's chat template over one token per character, with its
    special tokens as single ids; the model stops at <|im_end|> (its EOS)."""

    eos_token_id = SPECIAL["<|im_end|>"]
    pad_token_id = SPECIAL["<|endoftext|>"]

    def convert_tokens_to_ids(self, token):
        return SPECIAL.get(token)

    def encode(self, text, add_special_tokens=False):
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

    def render(self, messages, tools=None, add_generation_prompt=True):
        out = ""
        msgs = list(messages)
        system = QWEN_SYSTEM
        if msgs and msgs[0]["role"] == "system":
            system = msgs.pop(0).get("content") or ""
        if tools:
            system += "\n\n# Tools\n<tools>\n" + "\n".join(json.dumps(t) for t in tools) + "\n</tools>"
        out += "<|im_start|>system\n%s<|im_end|>\n" % system
        for m in msgs:
            if m["role"] == "tool":
                out += "<|im_start|>user\n<tool_response>\n%s\n</tool_response><|im_end|>\n" % (m.get("content") or "")
                continue
            body = m.get("content") or ""
            for c in m.get("tool_calls") or []:
                f = c["function"]
                body += "\n<tool_call>\n%s\n</tool_call>" % json.dumps({"name": f["name"], "arguments": f["arguments"]})
            out += "<|im_start|>%s\n%s<|im_end|>\n" % (m["role"], body)
        if add_generation_prompt:
            out += "<|im_start|>assistant\n"
        return out

    def apply_chat_template(self, messages, tools=None, add_generation_prompt=True, tokenize=True, return_dict=False, **kw):
        text = self.render(messages, tools, add_generation_prompt)
        return self.encode(text) if tokenize else text


class ScriptedRollout:
    """The LLMServerClient as the loop sees it (replica.py TokenOutput:
    token_ids, log_probs): each call answers the next reply, ended by
    <|im_end|> unless max_tokens cuts it."""

    def __init__(self, replies, tok):
        self.replies, self.tok, self.prompts = list(replies), tok, []

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs):
        self.prompts.append(list(prompt_ids))
        ids = self.tok.encode(self.replies.pop(0)) + [self.tok.eos_token_id]
        ids = ids[:sampling_params["max_tokens"]]
        return types.SimpleNamespace(token_ids=ids, log_probs=[-0.25] * len(ids), stop_reason="completed",
                                     num_preempted=None, routed_experts=None, extra_fields={})


class Cfg(dict):
    """DictConfig as AgentLoopBase reads it: attributes and .get."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e


def trainer_config(response_length, continuous):
    rollout = Cfg(response_length=response_length, prompt_length=8192, multi_turn=Cfg(format="hermes"))
    model = Cfg(path="Qwen/Qwen2.5-Coder-1.5B-Instruct", tokenizer_path=None)
    data = Cfg(apply_chat_template_kwargs={}, mm_processor_kwargs={},
               continuous_token=Cfg(enable=continuous, model_family="qwen25"))
    return Cfg(actor_rollout_ref=Cfg(rollout=rollout, model=model), data=data)


def tool_call(name, **args):
    return "<tool_call>\n%s\n</tool_call>" % json.dumps({"name": name, "arguments": args})


def row(task_id):
    return {"raw_prompt": [{"role": "user", "content": "ignored"}], "data_source": "sqlgym",
            "reward_model": {"style": "rule", "ground_truth": "SELECT 1"},
            "extra_info": {"index": 0, "task_id": task_id, "db": "shop", "split": "train"},
            "index": 0, "tools_kwargs": {}}


SAMPLING = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}


@unittest.skipUnless(verl_source.git_dir(), verl_source.skip_reason())
class VerlSourceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS, "--max-episodes", "8", "--max-turns", "4")

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def load(self, name):
        """sqlgym_verl imported against commit name's verl; returns (module,
        verl's agent_loop module)."""
        root = verl_source.build(verl_source.git_dir(), verl_source.COMMITS[name])
        verl_source.activate(root)
        self.addCleanup(verl_source.deactivate, root)
        spec = importlib.util.spec_from_file_location("sqlgym_verl_" + name.replace(".", "_"),
                                                      os.path.join(os.path.dirname(HERE), "sqlgym_verl.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        from verl.experimental.agent_loop import agent_loop  # noqa: E402 - the commit's, just built
        self.assertTrue(mod.HAVE_VERL)
        self.assertTrue(issubclass(mod.SqlgymAgentLoop, agent_loop.AgentLoopBase))
        return mod, agent_loop

    def make(self, mod, al, commit, replies, response_length=4096, continuous=False):
        tok = QwenCharTokenizer()
        rollout = ScriptedRollout(replies, tok)
        cfg = trainer_config(response_length, continuous)
        kw = dict(config={"_target_": "sqlgym_verl.SqlgymAgentLoop"}, trainer_config=al.DictConfigWrap(config=cfg),
                  server_manager=rollout, tokenizer=tok, processor=None, dataset_cls=object,
                  data_config=al.DictConfigWrap(cfg.data), tools=al.ToolListWrap([]))
        if commit == "main":
            kw["hf_model_type"] = "qwen2"  # agent_loop.py:659 on main
        kw.pop("config")  # hydra's instantiate passes the rest as keyword arguments
        loop = mod.SqlgymAgentLoop(url=self.serve.url, **kw)
        loop.client = Recording(self.serve.url)
        return loop, rollout, tok

    def run_loop(self, mod, al, commit, replies, **kw):
        """Build the loop and run one trajectory inside one event loop, as
        AgentLoopWorker._run_agent_loop does (the base keeps the running loop)."""
        async def go():
            loop, rollout, tok = self.make(mod, al, commit, replies, **kw)
            return loop, rollout, tok, await loop.run(dict(SAMPLING), **row("orders"))
        return asyncio.run(go())

    def play(self, commit, continuous=False):
        mod, al = self.load(commit)
        loop, rollout, tok, out = self.run_loop(mod, al, commit, [tool_call("run_sql", sql="SELECT nope FROM orders"),
                                                                  tool_call("submit", sql=GOOD)], continuous=continuous)
        self.assertEqual(loop.continuous_token_builder is not None, commit == "main" or continuous)
        # The commit's own pydantic model accepts what the loop returns.
        checked = al.AgentLoopOutput(**out.__dict__) if not isinstance(out, al.AgentLoopOutput) else out
        self.assertEqual(checked.reward_score, 1.0)
        self.assertEqual(out.extra_fields["reward_extra_info"]["sqlgym_correct"], 1.0)
        self.assertEqual(len(out.response_ids), len(out.response_mask))
        self.assertEqual(len(out.response_logprobs), len(out.response_ids))
        # The prompt is the server's opening, with its tools, in Qwen's template.
        prompt = tok.decode(out.prompt_ids)
        self.assertIn('"name": "run_sql"', prompt)
        self.assertIn("Question: How many orders?", prompt)
        self.assertTrue(prompt.endswith("<|im_start|>assistant\n"))
        # Trained tokens are exactly the model's two replies; the rest is the observation.
        trained = tok.decode([t for t, m in zip(out.response_ids, out.response_mask) if m])
        self.assertEqual(trained, tool_call("run_sql", sql="SELECT nope FROM orders") + "<|im_end|>" +
                         tool_call("submit", sql=GOOD) + "<|im_end|>")
        observed = tok.decode([t for t, m in zip(out.response_ids, out.response_mask) if not m])
        self.assertIn("Error: ", observed)
        self.assertIn("<|im_start|>assistant\n", observed)
        self.assertNotIn(QWEN_SYSTEM, observed)  # no second system prompt mid-trajectory
        # The second turn was generated on the whole trajectory so far.
        self.assertEqual(rollout.prompts[1], out.prompt_ids + out.response_ids[:len(rollout.prompts[1]) - len(out.prompt_ids)])
        self.assert_closed(loop.client.opened[0])
        return out, tok

    def test_v090_legacy_chat_template(self):
        out, tok = self.play("v0.9.0")
        # v0.9.0 restores Qwen's turn separator ("\n" after <|im_end|>).
        observed = tok.decode([t for t, m in zip(out.response_ids, out.response_mask) if not m])
        self.assertTrue(observed.startswith("\n<|im_start|>user\n<tool_response>"), observed[:60])

    def test_v090_continuous_token_enabled(self):
        self.play("v0.9.0", continuous=True)

    def test_main_continuous_token(self):
        mod, al = self.load("main")
        # The API the loop used to call is gone on main: this is the commit that broke it.
        self.assertFalse(hasattr(al.AgentLoopBase, "apply_chat_template"))
        verl_source.deactivate(sys.path[0])
        out, tok = self.play("main")
        observed = tok.decode([t for t, m in zip(out.response_ids, out.response_mask) if not m])
        # Qwen's builder inserts the newline the model did not emit after <|im_end|>.
        self.assertTrue(observed.startswith("\n<|im_start|>user\n<tool_response>"), observed[:60])

    def test_main_cut_turn_is_masked(self):
        mod, al = self.load("main")
        _, _, _, out = self.run_loop(mod, al, "main", [tool_call("submit", sql=GOOD)], response_length=30)
        self.assertEqual(out.extra_fields["sqlgym_outcome"], "truncated")
        self.assertEqual(out.reward_score, 0.0)
        self.assertEqual(set(out.response_mask), {0})
        self.assertEqual(len(out.response_ids), 30)

    def test_main_no_room_for_observations(self):
        mod, al = self.load("main")
        call = tool_call("run_sql", sql=GOOD)
        loop, _, _, out = self.run_loop(mod, al, "main", [call], response_length=len(call) + 20)
        self.assertEqual(out.extra_fields["sqlgym_outcome"], "truncated")
        self.assert_closed(loop.client.opened[0])

    def assert_closed(self, episode_id):
        with self.assertRaises(sa.EpisodeError) as cm:
            sa.EpisodeClient(self.serve.url).step(episode_id, {"role": "assistant", "content": "x"})
        self.assertEqual(cm.exception.status, 404)


class Recording(sa.EpisodeClient):
    def __init__(self, url):
        super().__init__(url, retry_for=2.0)
        self.opened = []

    def start(self, task_id, protocol=None, mode=None):
        ep = super().start(task_id, protocol, mode)
        self.opened.append(ep["episode_id"])
        return ep


if __name__ == "__main__":
    unittest.main()
