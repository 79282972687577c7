"""sqlgym for slime (THUDM/slime): rewards from a running ``sqlgym serve``.

Standard library only; put this folder on PYTHONPATH (slime imports
``--custom-rm-path`` and ``--rollout-sample-filter-path`` as
"module.function", slime/utils/misc.py:39-47). Two ways in:

1. slime's own remote reward model, no code:

       --rm-type remote_rm --rm-url http://127.0.0.1:8421/slime/reward --reward-key reward
       --rollout-sample-filter-path sqlgym_slime.drop_masked

   slime posts {"prompt", "response", "label"} per sample
   (slime/rollout/rm_hub/__init__.py:34-46 at 624b824a8) and keeps the JSON
   body as the sample's reward; --reward-key reward reads the number from
   it (slime/utils/types.py:246-247). A sample without a reward (a task
   whose gold fails) comes back as reward 0 with sqlgym_masked 1, and
   ``drop_masked`` sets its remove_sample, which zeroes its loss mask
   (slime/ray/rollout.py:680-681). Without --reward-key, use
   ``.../slime/reward?answer=number``: the body is then the bare reward
   (and a masked sample is an indistinguishable 0).

2. A custom reward function over POST /v1/rewards:

       --custom-rm-path sqlgym_slime.reward            (one request per sample)
       --custom-rm-path sqlgym_slime.reward --group-rm (one request per group)

   slime awaits ``reward(args, sample)`` per sample
   (rm_hub/__init__.py:61-63), or ``reward(args, samples)`` with the whole
   group under --group-rm (rm_hub/__init__.py:104-107, called from
   sglang_rollout.py:330-334); ``reward`` takes either and returns a float
   or a list of floats. It sees the Sample, so it also knows what the
   remote protocol does not: a reply slime cut at its token limit
   (status TRUNCATED) is sent with finish_reason "length" and gets no
   reward; such samples, and any other without a reward, come back as 0.0
   with remove_sample set (no --rollout-sample-filter-path needed).

The label column is the export's ``label`` (--label-key label): a task id,
or {"task_id", "mode": "eval"} on held-out rows (a JSON object or its
text). A database outage is never a reward: the client retries for
SQLGYM_RETRY_FOR seconds (300), then raises, and the rollout fails.
SQLGYM_REWARD_WEIGHTS ("outcome=1,rows=0.3") scores with reward
components (when the server computes them; see docs/training.md).
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sqlgym_reward import SqlgymClient, SqlgymError  # noqa: E402

__all__ = ["reward", "drop_masked", "SqlgymError"]


def slime_item(sample):
    """The /v1/rewards item of a slime Sample."""
    item = label_item(getattr(sample, "label", None))
    item["completion"] = sample.response or ""
    status = getattr(sample, "status", None)
    if getattr(status, "value", status) == "truncated":  # Sample.Status.TRUNCATED (finish_reason length)
        item["finish_reason"] = "length"
    return item


def label_item(label):
    """A task id, or the export's {"task_id", "mode"} / {"db", "gold_sql"} object, as item fields."""
    if isinstance(label, str) and label.strip().startswith("{"):
        label = json.loads(label)
    if isinstance(label, dict):
        return {k: label[k] for k in ("task_id", "mode", "db", "gold_sql") if label.get(k)}
    if not label:
        raise ValueError("sqlgym: the sample has no label; pass the export's label column with --label-key label")
    return {"task_id": str(label).strip()}


def _apply(sample, result):
    """The float slime trains on; a sample without a reward leaves the loss."""
    masked = result["reward"] is None
    if masked:
        sample.remove_sample = True
    meta = getattr(sample, "metadata", None)
    if isinstance(meta, dict):
        meta["sqlgym"] = {"outcome": result["outcome"], "masked": masked, "components": result.get("components")}
    return 0.0 if masked else float(result["reward"])


async def reward(args, sample, **kwargs):
    """slime's --custom-rm-path: a Sample gives a float, a list of Samples
    (--group-rm, or a batch) a list of floats, from one request."""
    samples = sample if isinstance(sample, list) else [sample]
    results = await SqlgymClient().arewards([slime_item(s) for s in samples])
    values = [_apply(s, r) for s, r in zip(samples, results)]
    return values if isinstance(sample, list) else values[0]


def drop_masked(args, samples):
    """slime's --rollout-sample-filter-path for the remote-RM route: sets
    remove_sample on every sample whose reward dict says sqlgym_masked. It
    walks groups (lists) and samples alike; returns None, as slime asks."""
    for s in samples:
        if isinstance(s, list):
            drop_masked(args, s)
        elif isinstance(s.reward, dict) and s.reward.get("sqlgym_masked"):
            s.remove_sample = True
