"""Rewards from a running ``sqlgym serve`` for TRL, verl and OpenRLHF.

Standard library only. Every reward comes from the server, which scores
with the same verifier as ``sqlgym verify`` and ``sqlgym eval``; this file
only moves answers and rewards between a trainer and the server.

Set SQLGYM_URL (default http://127.0.0.1:8421) or pass url= to the
factories. A reward is None (TRL) or 0.0 flagged as masked (verl,
OpenRLHF) when it must not be learned from: a reply cut off by the token
limit, or a task whose gold fails. A database outage is never a reward:
the client retries, then raises, and the training step stops.

  TRL       reward_funcs=[sqlgym_reward]  (or make_trl_reward(...), or
            sqlgym_reward_async); the dataset needs a ``task_id`` column
            (sqlgym export --format trl).
  verl      sqlgym_verl.py (reward.custom_reward_function.path/name and
            the multi-turn agent loop).
  OpenRLHF  --remote_rm_url <this file> (reward_func), or
            --remote_rm_url http://HOST:8421/get_reward --label_key task_id.

See README.md beside this file for launch configurations.
"""

import asyncio
import json
import os
import time
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8421"


class SqlgymError(RuntimeError):
    """The server could not score a batch: an outage, or a bad request."""


class SqlgymClient:
    """A client of POST /v1/rewards that retries what is worth retrying.

    429 (the server's queue is full) and 503 (a deadline, an outage) are
    retried after the Retry-After the server sends, as are connection
    failures, for up to ``retry_for`` seconds; so are items whose outcome
    is infra_error. A 400 is the caller's mistake and raises at once.
    """

    def __init__(self, url=None, timeout=300.0, retry_for=300.0):
        self.url = (url or os.environ.get("SQLGYM_URL") or DEFAULT_URL).rstrip("/")
        self.timeout = timeout
        self.retry_for = retry_for

    def rewards(self, items):
        """Score items (dicts with task_id and completion or sql, and
        optionally finish_reason); returns one result dict per item."""
        if not items:
            return []
        deadline = time.monotonic() + self.retry_for
        wait = 1.0
        while True:
            try:
                results = self._post("/v1/rewards", {"items": items})["results"]
                if len(results) != len(items):
                    raise SqlgymError("%d results for %d items" % (len(results), len(items)))
                if not any(r["outcome"] == "infra_error" for r in results):
                    return results
                failure = next(r["detail"] for r in results if r["outcome"] == "infra_error")
            except _Retry as e:
                failure, wait = e.reason, max(e.after, 0.1)
            if time.monotonic() + wait > deadline:
                raise SqlgymError("sqlgym serve at %s could not score the batch for %.0f s: %s" % (self.url, self.retry_for, failure))
            time.sleep(wait)
            wait = min(wait * 2, 30.0)

    async def arewards(self, items):
        """rewards() for asyncio code: the request runs in a worker thread."""
        return await asyncio.to_thread(self.rewards, items)

    def _post(self, path, body):
        data = json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            msg = _error_text(e)
            if e.code in (429, 503):
                raise _Retry("%d %s" % (e.code, msg), _retry_after(e))
            raise SqlgymError("sqlgym serve answered %d: %s" % (e.code, msg)) from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            raise _Retry("cannot reach %s: %s" % (self.url, e), 1.0)


class _Retry(Exception):
    def __init__(self, reason, after):
        super().__init__(reason)
        self.reason, self.after = reason, after


def _error_text(e):
    try:
        return json.loads(e.read()).get("error", "")
    except Exception:
        return str(e)


def _retry_after(e):
    try:
        return float(e.headers.get("Retry-After", "1"))
    except (TypeError, ValueError):
        return 1.0


def completion_text(completion):
    """The text of a TRL completion: a string (standard format) or a list
    of message dicts (conversational format: the last assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return completion.get("content") or ""
    for msg in reversed(list(completion or [])):
        if msg.get("role", "assistant") == "assistant":
            content = msg.get("content") or ""
            if isinstance(content, list):  # content parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content
    return ""


def _truncated(ids, eos_token_id, max_completion_length):
    """Whether a completion's token ids show a reply cut off by the limit:
    no end-of-sequence token (when its id is known), else a length at the
    limit."""
    if ids is None:
        return False
    ids = list(ids)
    if eos_token_id is not None:
        eos = set(eos_token_id) if isinstance(eos_token_id, (list, tuple, set)) else {eos_token_id}
        return not any(t in eos for t in ids)
    if max_completion_length is not None:
        return len(ids) >= max_completion_length
    return False


# ---- TRL ----------------------------------------------------------------


def _trl_items(completions, kwargs, eos_token_id, max_completion_length):
    task_ids = kwargs.get("task_id")
    if task_ids is None:
        raise ValueError("the dataset has no task_id column: export it with `sqlgym export --format trl`")
    finish = kwargs.get("finish_reason")
    ids = kwargs.get("completion_ids")
    items = []
    for i, c in enumerate(completions):
        item = {"task_id": task_ids[i], "completion": completion_text(c)}
        if finish is not None and finish[i]:
            item["finish_reason"] = finish[i]
        elif ids is not None and _truncated(ids[i], eos_token_id, max_completion_length):
            item["finish_reason"] = "length"
        items.append(item)
    return items


def make_trl_reward(url=None, eos_token_id=None, max_completion_length=None, client=None):
    """A TRL reward function. GRPOTrainer passes the dataset's columns
    (task_id) and, in recent versions, completion_ids as keyword
    arguments; give eos_token_id (tokenizer.eos_token_id) or
    max_completion_length so a reply cut off by the limit gets None."""
    cl = client or SqlgymClient(url)

    def sqlgym_reward(prompts=None, completions=None, **kwargs):
        items = _trl_items(completions, kwargs, eos_token_id, max_completion_length)
        return [r["reward"] for r in cl.rewards(items)]

    return sqlgym_reward


def make_trl_reward_async(url=None, eos_token_id=None, max_completion_length=None, client=None):
    """make_trl_reward for trainers that await coroutine reward functions."""
    cl = client or SqlgymClient(url)

    async def sqlgym_reward_async(prompts=None, completions=None, **kwargs):
        items = _trl_items(completions, kwargs, eos_token_id, max_completion_length)
        return [r["reward"] for r in await cl.arewards(items)]

    return sqlgym_reward_async


def sqlgym_reward(prompts=None, completions=None, **kwargs):
    """TRL reward function on SQLGYM_URL: one reward per completion, None
    for a truncated reply (finish_reason column, or SQLGYM_EOS_TOKEN_ID /
    SQLGYM_MAX_COMPLETION_LENGTH with completion_ids)."""
    return _default_trl()(prompts=prompts, completions=completions, **kwargs)


async def sqlgym_reward_async(prompts=None, completions=None, **kwargs):
    """The async form of sqlgym_reward."""
    return await _default_trl(asynchronous=True)(prompts=prompts, completions=completions, **kwargs)


def _env_int(name):
    v = os.environ.get(name)
    return int(v) if v else None


def _default_trl(asynchronous=False):
    make = make_trl_reward_async if asynchronous else make_trl_reward
    return make(eos_token_id=_env_int("SQLGYM_EOS_TOKEN_ID"), max_completion_length=_env_int("SQLGYM_MAX_COMPLETION_LENGTH"))


# ---- verl ---------------------------------------------------------------


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom reward function, kept for configurations that name
    this file; sqlgym_verl.py is the verl 0.9 integration (its
    compute_score is the coroutine the reward loop batches)."""
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:  # verl loads this file by path, not as a module
        sys.path.insert(0, here)
    from sqlgym_verl import compute_score_sync

    return compute_score_sync(data_source, solution_str, ground_truth, extra_info, **kwargs)


# ---- OpenRLHF -----------------------------------------------------------


def reward_func(queries, prompts, labels):
    """OpenRLHF's custom reward function (--remote_rm_url this file,
    --label_key task_id). The response is the query minus its prompt.
    Returns rewards and scores (0.0 where no reward may be learned, flagged
    in extra_logs.sqlgym_masked), as torch tensors when torch is present."""
    items = []
    for q, p, label in zip(queries, prompts, labels):
        response = q[len(p):] if p and q.startswith(p) else q
        items.append({"task_id": label, "completion": response})
    results = SqlgymClient().rewards(items)
    rewards = [0.0 if r["reward"] is None else float(r["reward"]) for r in results]
    logs = {
        "sqlgym_masked": [1.0 if r["reward"] is None else 0.0 for r in results],
        "sqlgym_correct": [1.0 if r["outcome"] == "correct" else 0.0 for r in results],
    }
    try:
        import torch  # OpenRLHF has it; the tests do not need it
    except ImportError:
        return {"rewards": rewards, "scores": list(rewards), "extra_logs": logs}
    return {
        "rewards": torch.tensor(rewards),
        "scores": torch.tensor(rewards),
        "extra_logs": {k: torch.tensor(v) for k, v in logs.items()},
    }
