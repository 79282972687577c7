"""Rewards from a running ``sqlgym serve`` for TRL, verl and OpenRLHF.

Standard library only. Every reward comes from the server, which scores
with the same verifier as ``sqlgym verify`` and ``sqlgym eval``; this file
only moves answers and rewards between a trainer and the server.

Set SQLGYM_URL (default http://127.0.0.1:8421) or pass url=. A reward is
None (TRL) or 0.0 flagged as masked (verl, OpenRLHF) when it must not be
learned from: a reply cut off by the token limit, or a task whose gold
fails. A database outage is never a reward: the client retries, then
raises, and the training step stops. Rows of a validation export
(``sqlgym export --split holdout``, column split "holdout") are sent as
evaluation requests ("mode": "eval"), which ``sqlgym serve --eval-holdout``
scores and counts apart.

  TRL       reward_funcs=[SqlgymReward(eos_token_id=..., max_completion_length=...)]
            (picklable, so AsyncGRPOTrainer's spawned worker takes it), or
            the module-level sqlgym_reward / sqlgym_reward_async; the dataset
            needs a ``task_id`` column (sqlgym export --format trl).
  verl      sqlgym_verl.py (reward.custom_reward_function.path/name and
            the multi-turn agent loop).
  OpenRLHF  --reward.remote_url <this file> (reward_func), or
            --reward.remote_url http://HOST:8421/get_reward, with
            --data.label_key label.

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

    def __init__(self, url=None, timeout=300.0, retry_for=None, weights=None):
        self.url = (url or os.environ.get("SQLGYM_URL") or DEFAULT_URL).rstrip("/")
        self.timeout = timeout
        if retry_for is None:  # $SQLGYM_RETRY_FOR seconds, default 300
            retry_for = float(os.environ.get("SQLGYM_RETRY_FOR") or 300.0)
        self.retry_for = retry_for
        # Reward-component weights sent with every batch ({"outcome": 1,
        # "rows": 0.3}); None leaves the server's (serve --reward-weights).
        self.weights = weights if weights is not None else parse_weights(os.environ.get("SQLGYM_REWARD_WEIGHTS", ""))

    def rewards(self, items):
        """Score items (dicts with task_id and completion or sql, and
        optionally finish_reason and mode); returns one result dict per item."""
        if not items:
            return []

        body = {"items": items}
        if self.weights:
            body["weights"] = self.weights

        def attempt():
            results = self._post("/v1/rewards", body)["results"]
            if len(results) != len(items):
                raise SqlgymError("%d results for %d items" % (len(results), len(items)))
            # The server scores the rest of a batch around an unknown task
            # id (outcome unknown_task, null reward); for a trainer it is a
            # dataset that does not match the server, which no retry or
            # masking mends: say so at once, naming it.
            unknown = next((r["detail"] for r in results if r["outcome"] == "unknown_task"), None)
            if unknown is not None:
                raise SqlgymError("sqlgym serve: " + unknown)
            failure = next((r["detail"] for r in results if r["outcome"] == "infra_error"), None)
            return results, failure

        return self._retrying(attempt)

    def get_reward(self, queries, prompts, labels):
        """OpenRLHF's remote reward protocol (POST /get_reward): the server
        finds each reply in its query. A batch that met an outage is a 503,
        retried like the others."""
        body = {"query": list(queries), "prompts": list(prompts), "labels": list(labels)}
        return self._retrying(lambda: (self._post("/get_reward", body), None))

    def _retrying(self, attempt):
        """Runs attempt() -> (answer, failure) until failure is None, for up
        to retry_for seconds; 429, 503 and connection failures retry too."""
        deadline = time.monotonic() + self.retry_for
        wait = 1.0
        while True:
            try:
                answer, failure = attempt()
                if failure is None:
                    return answer
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


def parse_weights(text):
    """"outcome=1,rows=0.3" as a dict; None for an empty string. The server
    checks the names (serve --components must be on)."""
    if not text.strip():
        return None
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise SqlgymError("SQLGYM_REWARD_WEIGHTS=%r: write COMPONENT=NUMBER,..." % text) from None
    return out


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

HOLDOUT = "holdout"


def _trl_items(completions, kwargs, completion_ids, eos_token_id, max_completion_length):
    task_ids = kwargs.get("task_id")
    if task_ids is None:
        raise ValueError("the dataset has no task_id column: export it with `sqlgym export --format trl`")
    finish = kwargs.get("finish_reason")
    splits = kwargs.get("split")
    items = []
    for i, c in enumerate(completions):
        item = {"task_id": task_ids[i], "completion": completion_text(c)}
        if finish is not None and finish[i]:
            item["finish_reason"] = finish[i]
        elif completion_ids is not None and _truncated(completion_ids[i], eos_token_id, max_completion_length):
            item["finish_reason"] = "length"
        if splits is not None and splits[i] == HOLDOUT:
            # A validation row (TRL's eval_dataset from --split holdout).
            item["mode"] = "eval"
        items.append(item)
    return items


class SqlgymReward:
    """A configured TRL reward function: an instance is the function.

    GRPOTrainer calls it as reward_func(prompts=..., completions=...,
    completion_ids=..., trainer_state=..., log_extra=..., log_metric=...,
    **dataset_columns) and turns a None into NaN, which leaves the sample
    out of the group's statistics (trl 1.9 grpo_trainer.py). Give
    eos_token_id (tokenizer.eos_token_id) or max_completion_length so a reply
    cut off by the limit gets None. Instances hold only plain values, so
    they pickle: AsyncGRPOTrainer scores in a spawned process.
    """

    def __init__(self, url=None, eos_token_id=None, max_completion_length=None, client=None):
        self.eos_token_id = eos_token_id
        self.max_completion_length = max_completion_length
        self.client = client or SqlgymClient(url)
        # Trainers name a reward function by its __name__ in their logs.
        self.__name__ = "sqlgym_reward"

    def items(self, completions, completion_ids=None, **kwargs):
        """The /v1/rewards items for one call."""
        return _trl_items(completions, kwargs, completion_ids, self.eos_token_id, self.max_completion_length)

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs):
        return [r["reward"] for r in self.client.rewards(self.items(completions, completion_ids, **kwargs))]

    async def acall(self, prompts=None, completions=None, completion_ids=None, **kwargs):
        """The reward from asyncio code: the request runs in a worker thread."""
        items = self.items(completions, completion_ids, **kwargs)
        return [r["reward"] for r in await self.client.arewards(items)]


def make_trl_reward(url=None, eos_token_id=None, max_completion_length=None, client=None):
    """Deprecated: use SqlgymReward(...), which is the same and pickles."""
    return SqlgymReward(url, eos_token_id, max_completion_length, client)


def make_trl_reward_async(url=None, eos_token_id=None, max_completion_length=None, client=None):
    """A coroutine reward function, for trainers that await them (TRL runs
    coroutine reward functions concurrently). It is a closure, so it does
    not pickle: give AsyncGRPOTrainer a SqlgymReward, which its worker runs
    in a thread (an instance with an async __call__ would not be seen as a
    coroutine function by inspect.iscoroutinefunction, which TRL asks)."""
    reward = SqlgymReward(url, eos_token_id, max_completion_length, client)

    async def sqlgym_reward_async(prompts=None, completions=None, completion_ids=None, **kwargs):
        return await reward.acall(prompts, completions, completion_ids, **kwargs)

    return sqlgym_reward_async


def sqlgym_reward(prompts=None, completions=None, completion_ids=None, **kwargs):
    """TRL reward function on SQLGYM_URL: one reward per completion, None
    for a truncated reply (finish_reason column, or SQLGYM_EOS_TOKEN_ID /
    SQLGYM_MAX_COMPLETION_LENGTH with completion_ids)."""
    return _default_trl()(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)


async def sqlgym_reward_async(prompts=None, completions=None, completion_ids=None, **kwargs):
    """The async form of sqlgym_reward."""
    return await _default_trl().acall(prompts, completions, completion_ids, **kwargs)


def _env_int(name):
    v = os.environ.get(name)
    return int(v) if v else None


def _default_trl():
    return SqlgymReward(eos_token_id=_env_int("SQLGYM_EOS_TOKEN_ID"), max_completion_length=_env_int("SQLGYM_MAX_COMPLETION_LENGTH"))


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
    """OpenRLHF's custom reward function (--reward.remote_url <this file>,
    --data.label_key label). OpenRLHF calls it with one sample at a time
    (openrlhf/utils/agent.py, SingleTurnAgentExecutor._fetch_rewards_via_func);
    the server's /get_reward finds each reply in its query (end-of-turn tokens
    stripped, a prompt cut from the left matched by its tail), so this file
    and the HTTP route score alike. Returns rewards (the sqlgym reward: 0.0
    where none may be learned, flagged in extra_logs.sqlgym_masked), scores
    (0/1 correctness, for --algo.dynamic_filtering_enable) and extra_logs,
    as torch tensors when torch is present."""
    out = SqlgymClient().get_reward(queries, prompts, labels)
    try:
        import torch  # OpenRLHF has it; the tests do not need it
    except ImportError:
        return out
    return {
        "rewards": torch.tensor(out["rewards"]),
        "scores": torch.tensor(out["scores"]),
        "extra_logs": {k: torch.tensor(v) for k, v in out["extra_logs"].items()},
    }
