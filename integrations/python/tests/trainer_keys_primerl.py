"""prime-rl's configuration keys for the recipe check (see test_recipes.py).

Every key of a TOML block in FILES that configures prime-rl (a block with an
``[orchestrator...]`` table) must be a field of prime-rl's config classes at
main VERSION, or of the verifiers v1 config classes it embeds
(``orchestrator.train.source.env`` is a ``vf.EnvConfig``), recorded here
with the line it was read from. Keys under ``env.taskset`` other than
``id`` belong to the taskset's own config (sqlgym's, e.g. dataset_path),
which the taskset tests validate; they are not prime-rl's and are skipped.
"""

import re
import tomllib

TRAINER = "prime-rl"
VERSION = "559b4477"

_P = "PrimeIntellect-ai/prime-rl@559b4477 packages/prime-rl-configs/src/prime_rl/configs/"
_V = "PrimeIntellect-ai/verifiers@a60a606e verifiers/v1/"

KEYS = {
    "orchestrator.train.source.name": _P + "orchestrator.py:129",
    "orchestrator.train.source.env.taskset.id": _V + "configs/taskset.py:13",
    "orchestrator.train.source.env.agent.harness.id": _V + "configs/harness.py:15",
    "orchestrator.train.source.env.agent.runtime.type": _V + "runtimes/subprocess.py:31",
    "inference.vllm.tool_call_parser": _P + "inference.py:75",
}

FILES = [
    "docs/training.md",
]

_BLOCK = re.compile(r"```toml\n(.*?)```", re.S)
_PLUGIN = "orchestrator.train.source.env.taskset."


def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(prefix + k + ".", v, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for v in value:
            _flatten(prefix, v, out)
    else:
        out.add(prefix[:-1])


def extract(text):
    """The dotted keys of the prime-rl TOML blocks in text."""
    keys = set()
    for block in _BLOCK.findall(text):
        if not re.search(r"^\[\[?orchestrator[.\]]", block, re.M):
            continue
        _flatten("", tomllib.loads(block), keys)
    return {k for k in keys if not k.startswith(_PLUGIN) or k == _PLUGIN + "id"}
