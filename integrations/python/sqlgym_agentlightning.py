"""sqlgym as a Microsoft Agent Lightning agent (microsoft/agent-lightning).

Standard library only. Agent Lightning (v1.0.0 and main) runs an agent as
a program: its local controller spawns one process per rollout, imports
the class named by the rollout's ``config.local.agent_class`` and awaits
``AgentClass().run()`` (agentlightning/controller/local_reconciler.py:
31-46 at c632d8dd), with AGL_KEY, AGL_OPENAI_BASE_URL (the model, through
Agent Lightning's gateway, which records every call for training) and
AGL_EVENT_URL in the environment, plus the task's fields mapped by
``config.local.env_map`` (:59-87). The agent reports its reward as an
event: POST AGL_EVENT_URL {"event_type": "reward", "data": {"value": ...}}
(agentlightning/schemas.py:57-66; examples/gsm8k/gsm8k_agent.py:64-76).

``SqlgymAgent`` needs ``env_map = {"SQLGYM_TASK_ID": "input.task_id",
"SQLGYM_PROMPT": "input.prompt"}`` over rows of ``sqlgym export --format
trl`` (a JSON list of chat messages in SQLGYM_PROMPT), and $SQLGYM_URL:

- single turn (default): one chat completion on the exported prompt,
  scored by POST /v1/rewards with the completion's finish_reason (a reply
  cut by max_tokens is truncated: no reward);
- SQLGYM_PROTOCOL=text: a multi-turn episode (POST /v1/episodes): each
  reply is a step, the observations the next user turn, until the episode
  ends; a reply cut by the token limit ends it as truncated.

A reward event carries a number, so a null reward (truncated, broken
gold) is sent as 0.0 with reason "sqlgym_masked" and the outcome in
message. A database outage raises: the process exits non-zero and Agent
Lightning marks the rollout failed instead of recording a 0.
"""

import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sqlgym_agent import EpisodeClient  # noqa: E402
from sqlgym_reward import SqlgymClient, SqlgymError  # noqa: E402

__all__ = ["SqlgymAgent"]

MAX_TOKENS = int(os.environ.get("SQLGYM_MAX_TOKENS") or 1024)


def _post(url, body, key, timeout=300.0):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read() or b"null")


class SqlgymAgent:
    """What config.local.agent_class names: ``sqlgym_agentlightning:SqlgymAgent``."""

    def __init__(self):
        self.key = os.environ.get("AGL_KEY", "")
        self.model_url = os.environ["AGL_OPENAI_BASE_URL"].rstrip("/")
        self.event_url = os.environ["AGL_EVENT_URL"]
        self.task_id = os.environ.get("SQLGYM_TASK_ID", "").strip()
        if not self.task_id:
            raise ValueError("SQLGYM_TASK_ID is empty: map it with config.local.env_map {\"SQLGYM_TASK_ID\": \"input.task_id\"}")

    def chat(self, messages):
        """One completion through Agent Lightning's gateway: (text, finish_reason)."""
        out = _post(self.model_url + "/chat/completions",
                    {"model": "auto", "messages": messages, "max_tokens": MAX_TOKENS, "temperature": 1.0}, self.key)
        choice = out["choices"][0]
        return choice["message"].get("content") or "", choice.get("finish_reason")

    def report(self, result):
        """The reward event of a verdict (a number always; see the module doc)."""
        masked = result.get("reward") is None
        data = {"value": 0.0 if masked else float(result["reward"]), "source": "sqlgym",
                "message": result.get("outcome", "")}
        if masked:
            data["reason"] = "sqlgym_masked"
        _post(self.event_url, {"event_type": "reward", "data": data}, self.key)
        return data

    async def run(self):
        import asyncio

        if (os.environ.get("SQLGYM_PROTOCOL") or "").strip() == "text":
            result = await asyncio.to_thread(self.episode)
        else:
            result = await asyncio.to_thread(self.single_turn)
        if result.get("outcome") == "infra_error":
            raise SqlgymError("sqlgym: a database outage, no reward: %s" % result.get("detail", ""))
        return self.report(result)

    def single_turn(self):
        messages = json.loads(os.environ.get("SQLGYM_PROMPT") or "null")
        if not isinstance(messages, list):
            raise ValueError("SQLGYM_PROMPT is not a list of messages: map it with env_map {\"SQLGYM_PROMPT\": \"input.prompt\"}")
        text, finish = self.chat(messages)
        item = {"task_id": self.task_id, "completion": text}
        if finish == "length":
            item["finish_reason"] = "length"
        return SqlgymClient().rewards([item])[0]

    def episode(self):
        return EpisodeClient().run_text(self.task_id, self.chat)
