"""Load verl's agent-loop base classes from verl's own source, without its
heavy dependencies (torch, ray, hydra, transformers, vLLM).

SQLGYM_VERL_GIT (or SQLGYM_TRAINER_SRC, see trainer_src.py) names a git
directory of verl-project/verl. For a commit, this writes
a small ``verl`` package into a temporary folder:

- verbatim from the commit: verl/utils/tokenizer/*.py (the chat-template
  helpers and the Continuous Token builders) and
  verl/experimental/agent_loop/tool_parser.py;
- from agent_loop.py, the source text of AgentLoopMetrics,
  AgentLoopOutput, DictConfigWrap, AgentLoopBase and register, cut out
  with ``ast`` and put under a header that imports only what they use;
- stand-ins for the modules those import but never call here
  (transformers' base classes, verl.utils.rollout_trace's decorator,
  verl.tools.schemas' annotation type, ``regex`` when not installed).

Nothing of verl is kept in this repository: it is read from git at test
time, and the tests skip (naming the variable) when it is absent.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import trainer_src

# The two commits the contract is tested against: the newest release and
# main as fetched (2026-12-02), which holds df9e22433.
COMMITS = {
    "v0.9.0": "483b8a009ba3a97563edee3a19887e4862b8094a",
    "main": "1dda039b9c6311889a9c9a26040677e1254814f9",
}

ENV = "SQLGYM_VERL_GIT"

_AGENT_LOOP = "verl/experimental/agent_loop/agent_loop.py"
_KEEP = ("AgentLoopMetrics", "AgentLoopOutput", "DictConfigWrap", "ToolListWrap", "AgentLoopBase",
         "_agent_loop_registry", "register", "logger")

_HEADER = '''\
import asyncio
import logging
import os
from abc import ABC, abstractmethod
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

from verl.utils.ray_utils import get_event_loop
from verl.utils.tokenizer import build_multimodal_processor_inputs, normalize_token_ids
from verl.utils.tokenizer.chat_template import apply_chat_template
from verl.utils.tokenizer.continuous_token_wiring import create_continuous_token_builder
try:  # gone on main (df9e22433)
    from verl.utils.tokenizer.chat_template import initialize_system_prompt, initialize_turn_separator
except ImportError:
    pass


class _Annotation:
    """A type that only appears in annotations here."""


class _Namespace:
    Image = _Annotation
    Tensor = _Annotation


Image = torch = _Namespace
DictConfig = AutoTokenizer = AutoProcessor = LLMServerClient = RLHFDataset = _Annotation
'''

_STUBS = {
    "transformers/__init__.py": (
        "class PreTrainedTokenizerBase: pass\nclass ProcessorMixin: pass\n"
        "class AutoTokenizer: pass\nclass AutoProcessor: pass\nclass AutoConfig: pass\n"),
    "verl/__init__.py": "",
    "verl/utils/__init__.py": "",
    "verl/utils/rollout_trace.py": "def rollout_trace_op(fn):\n    return fn\n",
    "verl/tools/__init__.py": "",
    "verl/tools/schemas.py": "OpenAIFunctionToolSchema = dict\n",
    "verl/experimental/__init__.py": "",
    "verl/experimental/agent_loop/__init__.py": "",
}


def git_dir():
    """The verl git directory, or None."""
    return trainer_src.git_dir(ENV, "verl-project/verl")


def skip_reason():
    return trainer_src.skip_reason(ENV, "verl-project/verl", COMMITS.values())


_show = trainer_src.show


def _ls(repo, commit, folder):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", commit, folder + "/"], check=True,
                         capture_output=True, text=True).stdout
    return [p for p in out.split() if p.endswith(".py")]


def _write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def build(repo, commit):
    """A temporary folder holding the ``verl`` package of commit (see the
    module doc); the caller removes it."""
    root = tempfile.mkdtemp(prefix="verl-src-")
    for path, text in _STUBS.items():
        _write(root, path, text)
    try:
        import regex  # noqa: F401
    except ImportError:  # tool_parser's patterns are plain re syntax
        _write(root, "regex.py", "from re import *\n")
    ray_utils = _show(repo, commit, "verl/utils/ray_utils.py")
    _write(root, "verl/utils/ray_utils.py", "import asyncio\n\n" + trainer_src.cut(ray_utils, {"get_event_loop"}))
    for path in _ls(repo, commit, "verl/utils/tokenizer"):
        _write(root, path, _show(repo, commit, path))
    tp = "verl/experimental/agent_loop/tool_parser.py"
    _write(root, tp, _show(repo, commit, tp))
    _write(root, _AGENT_LOOP, _HEADER + "\n\n" + trainer_src.cut(_show(repo, commit, _AGENT_LOOP), set(_KEEP)))
    return root


def activate(root):
    """Make ``import verl`` (and transformers' stand-in) resolve to root,
    dropping any previously loaded copy."""
    for name in list(sys.modules):
        if name in ("verl", "transformers") or name.startswith(("verl.", "transformers.")):
            del sys.modules[name]
    sys.path.insert(0, root)


def deactivate(root):
    if root in sys.path:
        sys.path.remove(root)
    for name in list(sys.modules):
        if name in ("verl", "transformers") or name.startswith(("verl.", "transformers.")):
            del sys.modules[name]
    shutil.rmtree(root, ignore_errors=True)
