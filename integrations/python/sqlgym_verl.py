"""sqlgym for verl 0.9 (verl-project/verl): rewards and multi-turn episodes.

Standard library only; importable without verl (the agent loop then
subclasses a local stand-in of verl's AgentLoopBase, enough for tests).
Every reward comes from a running ``sqlgym serve`` ($SQLGYM_URL).

Single turn, through verl's reward loop:

    reward.custom_reward_function.path=integrations/python/sqlgym_verl.py
    reward.custom_reward_function.name=compute_score

``compute_score`` is a coroutine. verl 0.9's reward loop awaits a coroutine
reward function directly (verl/experimental/reward_loop/reward_manager/
naive.py:30,66) and scores a worker's samples concurrently
(reward_loop.py:138-143), so the calls that are pending together are sent
as one POST /v1/rewards: the batch the removed ``compute_score_batch`` and
verl's batch reward manager used to make (that manager is not used by the
reward loop since verl 0.7.1).

Multi turn, as a verl agent loop (verl/experimental/agent_loop/):

    actor_rollout_ref.rollout.agent.agent_loop_config_path=examples/verl/sqlgym_agent_loop.yaml

and rows whose ``agent_name`` is ``sqlgym_agent`` (sqlgym export --agent
--format verl). ``SqlgymAgentLoop`` opens one episode per trajectory on
the server's episode API, generates each turn with verl's rollout server,
steps the episode with the engine's text (and, when a turn was cut at the
token limit, finish_reason "length"), feeds the observations back as
non-trained tokens, and sets the trajectory's ``reward_score`` itself, so
verl's reward loop does not score it again (agent_loop.py:966). Tool
responses are the server's, not verl's: ``multi_turn.max_tool_response_length``
(256 characters by default) does not cut them; the server caps each
observation at 4096 bytes.

Rewards that must not be learned from (a truncated episode, a task whose
gold fails) are sent as 0.0 with ``sqlgym_masked`` 1.0; the agent loop also
zeroes such a trajectory's response mask, so it leaves the loss. A database
outage is never a reward: the client retries, then raises, and the step
stops.
"""

import asyncio
import json
import os
import re
import sys
import uuid

# verl loads a custom reward function from its file path
# (verl/utils/import_utils.py:119-133), which does not put the file's
# folder on sys.path: the sibling modules are found from here.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from sqlgym_agent import EpisodeClient  # noqa: E402
from sqlgym_batch import batched_reward  # noqa: E402
from sqlgym_reward import SqlgymClient, SqlgymError  # noqa: E402

__all__ = ["compute_score", "compute_score_sync", "SqlgymAgentLoop", "AGENT_NAME", "SqlgymError"]

AGENT_NAME = "sqlgym_agent"


# ---- single turn: the reward function ------------------------------------


def verl_item(solution_str, ground_truth, extra_info):
    """The /v1/rewards item of one verl sample: the task named by
    extra_info.task_id, or an ad-hoc task from extra_info.db and the gold;
    marked as evaluation on a held-out row."""
    info = extra_info or {}
    if info.get("task_id"):
        item = {"task_id": info["task_id"], "completion": solution_str}
    elif info.get("db") and ground_truth:
        item = {"db": info["db"], "gold_sql": ground_truth, "completion": solution_str}
    else:
        raise ValueError("extra_info has no task_id: export the dataset with `sqlgym export --format verl`")
    if eval_mode(info.get("split")):
        item["mode"] = "eval"
    return item


def eval_mode(split):
    """Whether a row's split makes its requests evaluation (held-out
    validation rows: data.val_files from `sqlgym export --split holdout`)."""
    return split == "holdout"


def verl_score(result):
    """verl's dict result: "score" is the reward; the other keys are logged
    (naive.py:89-92 keeps every key as reward_extra_info)."""
    masked = result["reward"] is None
    return {
        "score": 0.0 if masked else float(result["reward"]),
        "sqlgym_masked": 1.0 if masked else 0.0,
        "sqlgym_correct": 1.0 if result["outcome"] == "correct" else 0.0,
    }


async def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl 0.9's custom reward function (a coroutine): {"score",
    "sqlgym_masked", "sqlgym_correct"}. Samples scored at the same time go
    to the server in one request."""
    return verl_score(await batched_reward(verl_item(solution_str, ground_truth, extra_info)))


def compute_score_sync(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """The same reward as a plain function, one request per sample (for
    verl's reward managers that do not await, or a quick check)."""
    return verl_score(SqlgymClient().rewards([verl_item(solution_str, ground_truth, extra_info)])[0])


# ---- multi turn: the agent loop -------------------------------------------

try:  # verl 0.9: verl/experimental/agent_loop/agent_loop.py:90 (output), :206 (base), :486 (register)
    from verl.experimental.agent_loop.agent_loop import AgentLoopBase as _Base  # type: ignore
    from verl.experimental.agent_loop.agent_loop import AgentLoopOutput as _Output  # type: ignore
    from verl.experimental.agent_loop.agent_loop import register as _register  # type: ignore
    HAVE_VERL = True
except Exception:  # noqa: BLE001 - any import failure means "no verl"
    HAVE_VERL = False

    class _Output:
        """Stand-in for verl's AgentLoopOutput (a pydantic model there): the
        fields this loop sets, by the same names."""

        def __init__(self, **fields):
            self.__dict__.update(fields)

    class _Base:
        """Stand-in for verl's AgentLoopBase: the constructor verl's worker
        calls (agent_loop.py:697-706) and the chat-template helper the loop
        uses (agent_loop.py:381-462), without multimodal inputs."""

        def __init__(self, trainer_config, server_manager, tokenizer, processor, dataset_cls, data_config, **kwargs):
            self.config = trainer_config.config
            self.rollout_config = self.config.actor_rollout_ref.rollout
            self.server_manager = server_manager
            self.tokenizer = tokenizer
            self.processor = processor
            self.data_config = data_config.config
            self.apply_chat_template_kwargs = {}
            self.system_prompt = []
            self.turn_separator = []

        async def apply_chat_template(self, messages, tools=None, remove_system_prompt=False, **kwargs):
            ids = list(self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=True))
            if remove_system_prompt:
                ids = ids[len(self.system_prompt):]
            return ids

    def _register(name):
        return lambda cls: cls


def _config_get(cfg, dotted, default=None):
    """cfg.a.b.c for an OmegaConf DictConfig or plain objects/dicts."""
    cur = cfg
    for part in dotted.split("."):
        if cur is None:
            return default
        cur = cur.get(part) if isinstance(cur, dict) or hasattr(cur, "get") else getattr(cur, part, None)
    return default if cur is None else cur


_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def hermes_tool_calls(text):
    """Tool calls written in the hermes format (Qwen's chat templates):
    <tool_call>{"name": ..., "arguments": {...}}</tool_call>. A call that is
    not valid JSON is passed on as written, so the server answers it with
    its broken-call observation and the turn still counts."""
    calls = []
    for i, m in enumerate(_TOOL_CALL.finditer(text or "")):
        body = m.group(1)
        try:
            obj = json.loads(body)
            name, args = obj.get("name", ""), obj.get("arguments", {})
            args = args if isinstance(args, str) else json.dumps(args)
        except (ValueError, AttributeError):
            name, args = "", body
        calls.append({"id": "call_%d" % i, "type": "function", "function": {"name": name, "arguments": args}})
    return calls


class _Tokens:
    """A trajectory's token stream, built with whichever tokenization API
    the installed verl's AgentLoopBase offers.

    verl main (from df9e22433, "Multimodal Continuous Token") removed
    ``apply_chat_template``, ``system_prompt`` and ``turn_separator``: its
    base always has a ``continuous_token_builder`` and the ``ct_*`` methods
    (agent_loop.py:315-405 at 1dda039b9). verl 0.9.0 has both and uses the
    builder only with ``data.continuous_token.enable`` (agent_loop.py:
    238-266 at v0.9.0). So the builder, not the version, picks the path:
    the ``ct_*`` calls mirror tool_agent_loop.py:213, :262-270 and
    :374-385 on main; the legacy calls are v0.9.0's.
    """

    def __init__(self, loop, tools):
        self.loop, self.tools = loop, tools
        self.continuous = getattr(loop, "continuous_token_builder", None) is not None
        self.messages, self.runtime, self.mask = [], [], []
        self.logprobs = None
        self.prompt_len = 0

    async def start(self, messages):
        self.messages = list(messages)
        if self.continuous:
            self.runtime = list(await self.loop.ct_build_initial_tokens(self.messages, tools=self.tools))
        else:
            self.runtime = list(await self.loop.apply_chat_template(self.messages, tools=self.tools))
        self.prompt_len = len(self.runtime)

    async def assistant(self, ids, logprobs):
        """Append a generated turn; logprobs is None when not asked for."""
        if logprobs is not None and self.logprobs is None:
            self.logprobs = []
        if self.continuous:
            merged, self.mask, lp = await self.loop.ct_merge_assistant_token(
                self.runtime, ids, self.mask, self.logprobs, assistant_logprobs=logprobs)
            self.runtime = list(merged.token_ids)
            if lp is not None:
                self.logprobs = lp
            return
        self.runtime += ids
        self.mask += [1] * len(ids)
        if logprobs is not None:
            self.logprobs += logprobs

    async def observations(self, assistant_msg, observations, limit):
        """Append the server's observations as non-trained tokens; False when
        they leave no room for another turn (nothing appended then)."""
        if self.continuous:
            previous = self.messages + [assistant_msg]
            updated = previous + list(observations)
            merged, mask, lp = await self.loop.ct_merge_non_assistant_msg(
                previous, updated, self.runtime, self.mask, self.logprobs, tools=self.tools)
            if len(mask) >= limit:
                return False
            self.messages, self.runtime, self.mask = updated, list(merged.token_ids), mask
            if lp is not None:
                self.logprobs = lp
            return True
        obs_ids = self.loop.turn_separator + await self.loop.apply_chat_template(observations, remove_system_prompt=True)
        if len(self.mask) + len(obs_ids) >= limit:
            return False
        self.runtime += obs_ids
        self.mask += [0] * len(obs_ids)
        if self.logprobs is not None:
            self.logprobs += [0.0] * len(obs_ids)
        return True

    def split(self):
        """prompt_ids, response_ids, response_mask, response_logprobs: the
        response is the stream's tail the mask covers (tool_agent_loop.py:
        176-177 on main), since a merge may re-cut the junction."""
        n = len(self.mask)
        cut = len(self.runtime) - n
        return self.runtime[:cut], self.runtime[cut:], self.mask, self.logprobs


@_register(AGENT_NAME)
class SqlgymAgentLoop(_Base):
    """One sqlgym episode per trajectory, played with verl's rollout server.

    The row's extra_info names the task (``task_id``) and may name the
    protocol (``protocol``: "tools" or "text"; default the constructor's
    ``protocol``, else "tools"). The episode's opening messages (and, for
    the tools protocol, its tools) come from the server, so the model sees
    exactly what ``sqlgym eval --agent`` shows it.
    """

    def __init__(self, *args, url=None, protocol=None, tools=None, **kwargs):
        # verl passes its own tool list (agent_loop.py:705); sqlgym's tools
        # are the server's, so it is not used.
        super().__init__(*args, **kwargs)
        self.client = EpisodeClient(url)
        self.protocol = protocol
        self.response_length = int(self.rollout_config.response_length)
        self.eos_token_id = getattr(self.tokenizer, "eos_token_id", None)
        self._parser = None
        if HAVE_VERL:
            from verl.experimental.agent_loop.tool_parser import ToolParser  # type: ignore

            fmt = _config_get(self.rollout_config, "multi_turn.format", "hermes")
            self._parser = ToolParser.get_tool_parser(fmt, self.tokenizer)

    async def _tool_calls(self, ids, text):
        """The turn's text without its tool calls, and the calls: parsed by
        verl's tool parser for multi_turn.format (tool_agent_loop.py:296),
        or, without verl, from the hermes format."""
        if self._parser is None:
            calls = hermes_tool_calls(text)
            return (_TOOL_CALL.sub("", text).strip() if calls else text), calls
        content, calls = await self._parser.extract_tool_calls(ids)
        return content, [{"id": c.tool_call_id or "call_%d" % i, "type": "function",
                          "function": {"name": c.name, "arguments": c.arguments}} for i, c in enumerate(calls)]

    async def run(self, sampling_params, **kwargs):
        extra = kwargs.get("extra_info") or {}
        task_id = extra.get("task_id")
        if not task_id:
            raise ValueError("sqlgym agent loop: the row's extra_info has no task_id (export with `sqlgym export --agent --format verl`)")
        protocol = extra.get("protocol") or self.protocol or "tools"
        mode = "eval" if eval_mode(extra.get("split")) else None
        ep = await asyncio.to_thread(self.client.start, task_id, protocol, mode)
        ep_id, done = ep["episode_id"], None
        try:
            tokens = _Tokens(self, ep.get("tools") or None)
            await tokens.start(ep["messages"])
            want_logprobs = bool(sampling_params.get("logprobs"))
            request_id = uuid.uuid4().hex
            assistant_turns = observation_turns = 0
            while done is None:
                room = self.response_length - len(tokens.mask)
                params = dict(sampling_params, max_tokens=room)
                out = await self.server_manager.generate(request_id=request_id, prompt_ids=tokens.runtime,
                                                         sampling_params=params)
                ids = list(out.token_ids)[:room]
                await tokens.assistant(ids, list(out.log_probs or [0.0] * len(ids))[:len(ids)] if want_logprobs else None)
                assistant_turns += 1
                # verl's engine output has no finish reason (replica.py:46 stop_reason is
                # completed/aborted): a turn that used all the room without ending in EOS was cut.
                cut = len(ids) >= room and (not ids or ids[-1] != self.eos_token_id)
                text = self.tokenizer.decode(ids, skip_special_tokens=True)
                msg = {"role": "assistant", "content": text}
                if protocol == "tools":
                    content, calls = await self._tool_calls(ids, text)
                    if calls:
                        msg = {"role": "assistant", "content": content, "tool_calls": calls}
                res = await asyncio.to_thread(self.client.step, ep_id, msg, "length" if cut else None, len(ids))
                if res["done"]:
                    done = res
                    break
                if not await tokens.observations(msg, res["observations"], self.response_length):
                    # No room for the observations and another turn: the
                    # trainer's response limit cut the episode.
                    done = await asyncio.to_thread(self.client.step, ep_id, {"role": "assistant", "content": ""}, "length")
                    break
                observation_turns += 1
        finally:
            if done is None:  # an error mid-episode: do not leave it open on the server
                try:
                    await asyncio.to_thread(self.client.end, ep_id)
                except Exception:  # noqa: BLE001 - the original error matters more
                    pass
        prompt_ids, response_ids, response_mask, logprobs = tokens.split()
        if done.get("outcome") == "infra_error":
            raise SqlgymError("sqlgym episode of task %s met a database outage: %s" % (task_id, done.get("detail", "")))
        masked = done["reward"] is None
        if masked:
            response_mask = [0] * len(response_mask)
        info = {"sqlgym_masked": 1.0 if masked else 0.0, "sqlgym_correct": 1.0 if done.get("outcome") == "correct" else 0.0,
                "sqlgym_turns": float(done.get("turn", assistant_turns))}
        return _Output(
            prompt_ids=prompt_ids,
            response_ids=response_ids[:self.response_length],
            response_mask=response_mask[:self.response_length],
            response_logprobs=logprobs[:self.response_length] if logprobs is not None else None,
            reward_score=0.0 if masked else float(done["reward"]),
            num_turns=assistant_turns + observation_turns + 1,
            metrics={},
            extra_fields={"reward_extra_info": info, "turn_scores": [], "tool_rewards": [],
                          "sqlgym_outcome": done.get("outcome", "")},
        )
