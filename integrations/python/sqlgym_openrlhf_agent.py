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
- A cut-off episode is masked and closed. OpenRLHF's loop stops without
  another step when the token budget is spent (agent.py:92-95 at v0.11.0),
  and a turn the engine cut (finish_reason "length") reaches step() as
  plain text. AgentExecutor.execute sees both: it hands the instance the
  engine's finish_reason (a turn cut by the engine is stepped with
  finish_reason "length", which the server judges truncated), and when the
  loop ends with the episode still open it ends it on the server the same
  way. Either way the sample's output carries "truncated": True, which
  OpenRLHF reads (samples_generator.py:282) for
  --reward.stop_properly_penalty_coef, reward 0.0 and
  extra_logs.sqlgym_masked 1, and no episode is left open.

The chat format is SQLGYM_CHAT_FORMAT: chatml (Qwen, default), llama3 or
gemma. The feedback assumes the engine's output ends with the model's
end-of-turn token when it stops on its own (vLLM keeps the EOS id in
token_ids); that is the format's end_of_turn. The server is $SQLGYM_URL.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # OpenRLHF loads this file by path

import asyncio  # noqa: E402
import contextvars  # noqa: E402
import json  # noqa: E402

from sqlgym_agent import CHAT_FORMATS, EpisodeClient, chat_format, parse_label, render_opening  # noqa: E402,F401

try:  # The real base classes when OpenRLHF is installed; stand-ins otherwise.
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # type: ignore
except Exception:  # noqa: BLE001 - any import failure means "no OpenRLHF"

    class AgentInstanceBase:  # type: ignore[no-redef]
        def __init__(self, *args, **kwargs):
            pass

    class MultiTurnAgentExecutor:  # type: ignore[no-redef]
        def __init__(self, agent_instance_cls):
            self.agent_instance_cls = agent_instance_cls


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


class _Run:
    """What AgentExecutor.execute knows about its sample beyond OpenRLHF's
    loop: the engine's last finish reason, and the episode's end."""

    def __init__(self):
        self.finish_reason = None
        self.instance = None
        self.done = None  # the server's last step result, once the episode ended


# execute() runs its sample's whole loop in one task, so the run it sets
# here is the one the instance it builds sees, though one executor serves
# every sample concurrently.
_RUN = contextvars.ContextVar("sqlgym_openrlhf_run", default=None)


class _Engine:
    """OpenRLHF's llm_engine, passed through, noting each generation's
    finish_reason (vLLM's CompletionOutput) for the run."""

    def __init__(self, engine, run):
        self._engine, self._run = engine, run

    async def generate(self, *args, **kwargs):
        out = await self._engine.generate(*args, **kwargs)
        self._run.finish_reason = getattr(out.outputs[0], "finish_reason", None)
        return out

    def __getattr__(self, name):
        return getattr(self._engine, name)


class SqlgymAgentInstance(AgentInstanceBase):
    """One sample's sqlgym episode (see the module's docstring)."""

    def __init__(self, *args, **kwargs):
        self.client = EpisodeClient(kwargs.get("url"))
        self.fmt = chat_format(kwargs.get("chat_format"))
        self.episode_id = None
        self.turns = 0
        self.run = _RUN.get()
        if self.run is not None:
            self.run.instance = self

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
        cut = self.run is not None and self.run.finish_reason == "length"
        res = await asyncio.to_thread(self.client.step, self.episode_id, {"role": "assistant", "content": action},
                                      "length" if cut else None)
        self.turns += 1
        if res["done"] and self.run is not None:
            self.run.done = res
        if not res["done"]:
            obs = "\n".join(o["content"] for o in res["observations"])
            feedback = self.fmt["after_reply"] + self.fmt["user"].format(obs) + self.fmt["assistant"]
            return {"rewards": _tensor(0.0), "scores": _tensor(0.0), "environment_feedback": feedback, "done": False,
                    "sampling_params": states.get("sampling_params"), "extra_logs": {}}
        if res.get("outcome") == "infra_error":
            # Never a 0: the sample fails, and with it the rollout.
            raise RuntimeError("sqlgym: the database failed during the episode: %s" % res.get("detail", ""))
        reward, correct, logs = self.verdict(res)
        return {"rewards": _tensor(reward), "scores": _tensor(correct),
                "environment_feedback": "", "done": True, "sampling_params": states.get("sampling_params"),
                "extra_logs": logs}

    def verdict(self, res):
        """reward (0.0 for a null one), score and extra_logs of an ended episode."""
        reward = res.get("reward")
        correct = 1.0 if res.get("outcome") == "correct" else 0.0
        logs = {"sqlgym_masked": _tensor(1.0 if reward is None else 0.0), "sqlgym_correct": _tensor(correct),
                "sqlgym_turns": _tensor(self.turns)}
        return (0.0 if reward is None else float(reward)), correct, logs

    async def cut_off(self):
        """End an episode OpenRLHF's loop left without a last step (its
        token budget ran out): judged truncated, so it is closed and gets no
        reward."""
        res = await asyncio.to_thread(self.client.step, self.episode_id, {"role": "assistant", "content": ""}, "length")
        if res.get("outcome") == "infra_error":
            raise RuntimeError("sqlgym: the database failed during the episode: %s" % res.get("detail", ""))
        return res

    async def abandon(self):
        """End the episode after an error, without a verdict anyone reads."""
        if self.episode_id is not None:
            try:
                await asyncio.to_thread(self.client.end, self.episode_id)
            except Exception:  # noqa: BLE001 - the original error matters more
                pass


class AgentExecutor(MultiTurnAgentExecutor):
    """What --train.agent_func_path loads: OpenRLHF's multi-turn executor
    over sqlgym episodes."""

    def __init__(self):
        super().__init__(SqlgymAgentInstance)

    async def execute(self, prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine, images=None):
        """OpenRLHF's multi-turn loop (agent.py:34-176), plus what it does not
        do: a cut-off episode is closed on the server and its output marked
        truncated, with reward 0.0 and sqlgym_masked 1."""
        run = _Run()
        token = _RUN.set(run)
        try:
            out = await super().execute(prompt, label, sampling_params, max_length, hf_tokenizer,
                                        _Engine(llm_engine, run), images)
            if run.instance is not None and run.instance.episode_id is not None and run.done is None:
                run.done = await run.instance.cut_off()
        except BaseException:
            if run.instance is not None and run.done is None:
                await run.instance.abandon()
            raise
        finally:
            _RUN.reset(token)
        if run.done is not None and run.done.get("outcome") == "truncated":
            reward, correct, logs = run.instance.verdict(run.done)
            out.update(reward=reward, scores=correct, truncated=True, extra_logs=logs)
        return out
