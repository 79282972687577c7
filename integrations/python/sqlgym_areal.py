"""sqlgym rewards for AReaL (inclusionAI/AReaL).

Standard library only. ``reward_fn`` has the signature of AReaL's reward
functions (areal/api/reward_api.py:38-44 at 4aef98d8d): AReaL's RLVR
workflow wraps it in AsyncRewardWrapper (areal/workflow/rlvr.py:73) and
awaits it per sample with (prompt_str, completions_str, input_tokens,
output_tokens, **task_data) (:101-107). The wrapper runs it in a process
pool, so it is a plain module-level function.

- The row's ``task_id`` (``sqlgym export --format trl``) names the task;
  a row whose ``split`` is ``holdout`` is scored as evaluation.
- Truncation: with SQLGYM_EOS_TOKEN_ID set, a completion whose last token
  is not EOS was cut by the token limit and is sent as truncated. AReaL
  wants a float, so a null reward is 0.0 (no masking through this
  signature).
- Outages: AsyncRewardWrapper turns a timeout (timeout_seconds, 15 s by
  default) into reward 0 (reward_api.py:158-170), but re-raises other
  errors after its retries. So the client here retries an outage for
  SQLGYM_RETRY_FOR seconds, default 10 (below the wrapper's timeout),
  then raises: the rollout fails instead of learning 0.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sqlgym_reward import SqlgymClient, SqlgymError, _truncated  # noqa: E402

__all__ = ["reward_fn", "SqlgymError"]


def _eos():
    v = os.environ.get("SQLGYM_EOS_TOKEN_ID", "")
    return int(v) if v.strip() else None


def reward_fn(prompt, completions, prompt_ids, completion_ids, **data):
    """AReaL's reward function: the sqlgym reward of one completion (0.0
    for a null one)."""
    task_id = data.get("task_id")
    if not task_id:
        raise ValueError("sqlgym: the row has no task_id (use `sqlgym export --format trl` rows as AReaL's dataset)")
    item = {"task_id": task_id, "completion": completions}
    if _truncated(list(completion_ids or []), _eos(), None):
        item["finish_reason"] = "length"
    if data.get("split") == "holdout":
        item["mode"] = "eval"
    retry_for = float(os.environ.get("SQLGYM_RETRY_FOR") or 10.0)
    r = SqlgymClient(retry_for=retry_for).rewards([item])[0]
    return 0.0 if r["reward"] is None else float(r["reward"])
