"""Multi-turn sqlgym episodes for OpenRLHF (--train.agent_func_path this file).

Standard library only (OpenRLHF and torch are used when present). OpenRLHF
0.10.2 to 0.11 loads the file given to --train.agent_func_path, takes its
AgentExecutor class (openrlhf/trainer/ray/vllm_engine.py,
_load_agent_executor) and, for each prompt, runs MultiTurnAgentExecutor
(openrlhf/utils/agent.py): one AgentInstance per sample, reset({"observation":
prompt, "label": label}) once, then step({"observation_text", "action_text",
"label", "sampling_params"}) after every generation, appending the step's
"environment_feedback" text to the token stream until "done".

Each sample is one sqlgym episode under the text protocol (<sql> to run a
query, <solution> to submit), since OpenRLHF hands the environment text,
not parsed tool calls:

- reset opens the episode of the row's label (a task id, or the export's
  {"task_id", "mode": "eval"} for a held-out row) and returns the episode's
  opening messages (system with the text-protocol instructions, then the
  user message with schema and question) in the model's chat format, so the
  model reads exactly what the episode API renders; the dataset's prompt is
  not used.
- step sends the generated text as the assistant message; the observation
  comes back as a user turn followed by the opening of the next assistant
  turn. The last step carries the reward: rewards is the sqlgym reward
  (0.0 for a null one, flagged in extra_logs.sqlgym_masked), scores is 0/1
  correctness (what --algo.dynamic_filtering_range filters on).
- A database outage raises instead of returning a reward, so it is never
  learned as a 0.

The chat format is SQLGYM_CHAT_FORMAT: chatml (Qwen, default), llama3 or
gemma. The feedback assumes the engine's output ends with the model's
end-of-turn token when it stops on its own (vLLM keeps the EOS id in
token_ids); that is the format's end_of_turn. The server is $SQLGYM_URL.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # OpenRLHF loads this file by path

import asyncio  # noqa: E402
import json  # noqa: E402

from sqlgym_agent import EpisodeClient  # noqa: E402

try:  # The real base classes when OpenRLHF is installed; stand-ins otherwise.
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # type: ignore
except Exception:  # noqa: BLE001 - any import failure means "no OpenRLHF"

    class AgentInstanceBase:  # type: ignore[no-redef]
        def __init__(self, *args, **kwargs):
            pass

    class MultiTurnAgentExecutor:  # type: ignore[no-redef]
        def __init__(self, agent_instance_cls):
            self.agent_instance_cls = agent_instance_cls


# Chat formats: how a system or user turn is written, how an assistant turn
# opens, the text before the first turn, and what ends a turn (the EOS the
# engine leaves at the end of a finished reply).
CHAT_FORMATS = {
    "chatml": {"bos": "", "system": "<|im_start|>system\n{}<|im_end|>\n", "user": "<|im_start|>user\n{}<|im_end|>\n",
               "assistant": "<|im_start|>assistant\n", "end_of_turn": "<|im_end|>", "after_reply": "\n"},
    "llama3": {"bos": "<|begin_of_text|>",
               "system": "<|start_header_id|>system<|end_header_id|>\n\n{}<|eot_id|>",
               "user": "<|start_header_id|>user<|end_header_id|>\n\n{}<|eot_id|>",
               "assistant": "<|start_header_id|>assistant<|end_header_id|>\n\n", "end_of_turn": "<|eot_id|>", "after_reply": ""},
    # Gemma has no system role: the system text opens the first user turn.
    "gemma": {"bos": "<bos>", "system": None, "user": "<start_of_turn>user\n{}<end_of_turn>\n",
              "assistant": "<start_of_turn>model\n", "end_of_turn": "<end_of_turn>", "after_reply": "\n"},
}


def chat_format(name=None):
    name = name or os.environ.get("SQLGYM_CHAT_FORMAT") or "chatml"
    if name not in CHAT_FORMATS:
        raise ValueError("SQLGYM_CHAT_FORMAT=%r: one of %s" % (name, ", ".join(sorted(CHAT_FORMATS))))
    return CHAT_FORMATS[name]


def render_opening(messages, fmt):
    """The episode's opening messages as prompt text, ending with the
    opening of the first assistant turn."""
    out, pending_system = [fmt["bos"]], ""
    for m in messages:
        if m["role"] == "system":
            if fmt["system"] is None:
                pending_system = m["content"] + "\n\n"
            else:
                out.append(fmt["system"].format(m["content"]))
        else:
            out.append(fmt["user"].format(pending_system + m["content"]))
            pending_system = ""
    out.append(fmt["assistant"])
    return "".join(out)


def parse_label(label):
    """The task id and mode of a row's label: a task id, or the export's
    {"task_id", "mode"} object."""
    text = label.strip() if isinstance(label, str) else label
    if isinstance(text, str) and text.startswith("{"):
        text = json.loads(text)
    if isinstance(text, dict):
        return text.get("task_id"), text.get("mode")
    return text, None


class _Scalar:
    """A number with .item(), as OpenRLHF reads step rewards, when torch is absent."""

    def __init__(self, v):
        self.v = float(v)

    def item(self):
        return self.v


def _tensor(v):
    try:
        import torch  # OpenRLHF has it
    except ImportError:
        return _Scalar(v)
    return torch.tensor(float(v))


class SqlgymAgentInstance(AgentInstanceBase):
    """One sample's sqlgym episode (see the module's docstring)."""

    def __init__(self, *args, **kwargs):
        self.client = EpisodeClient(kwargs.get("url"))
        self.fmt = chat_format(kwargs.get("chat_format"))
        self.episode_id = None
        self.turns = 0

    async def reset(self, states, **kwargs):
        task_id, mode = parse_label(states.get("label"))
        if not task_id:
            raise ValueError("sqlgym agent: the row's label must be its task id: export with `sqlgym export --format trl` "
                             "and pass --data.label_key label")
        # The HTTP calls run in a worker thread: OpenRLHF runs every sample's
        # agent on the vLLM actor's event loop, which a blocking call would stall.
        opened = await asyncio.to_thread(self.client.start, task_id, "text", mode)
        self.episode_id = opened["episode_id"]
        return {"observation": render_opening(opened["messages"], self.fmt)}

    async def step(self, states, **kwargs):
        action = states["action_text"]
        res = await asyncio.to_thread(self.client.step, self.episode_id, {"role": "assistant", "content": action})
        self.turns += 1
        if not res["done"]:
            obs = "\n".join(o["content"] for o in res["observations"])
            feedback = self.fmt["after_reply"] + self.fmt["user"].format(obs) + self.fmt["assistant"]
            return {"rewards": _tensor(0.0), "scores": _tensor(0.0), "environment_feedback": feedback, "done": False,
                    "sampling_params": states.get("sampling_params"), "extra_logs": {}}
        if res.get("outcome") == "infra_error":
            # Never a 0: the sample fails, and with it the rollout.
            raise RuntimeError("sqlgym: the database failed during the episode: %s" % res.get("detail", ""))
        reward = res.get("reward")
        correct = 1.0 if res.get("outcome") == "correct" else 0.0
        logs = {"sqlgym_masked": _tensor(1.0 if reward is None else 0.0), "sqlgym_correct": _tensor(correct),
                "sqlgym_turns": _tensor(self.turns)}
        return {"rewards": _tensor(0.0 if reward is None else reward), "scores": _tensor(correct),
                "environment_feedback": "", "done": True, "sampling_params": states.get("sampling_params"),
                "extra_logs": logs}


class AgentExecutor(MultiTurnAgentExecutor):
    """What --train.agent_func_path loads: OpenRLHF's multi-turn executor
    over sqlgym episodes."""

    def __init__(self):
        super().__init__(SqlgymAgentInstance)
