"""slime's command-line flags the recipe check accepts (test_recipes.py).

Every slime flag named where sqlgym documents slime (the slime sections
and bullets of the docs, sqlgym_slime.py) must be a flag of slime VERSION,
recorded with the line of slime/utils/arguments.py that declares it (tag
v0.3.1; main 624b824a declares the same flags 11-12 lines lower).
slime's flags are hyphenated like sqlgym's own (--max-turns), so only text
about slime is read: in Markdown, the sections whose heading names slime
and the list items and paragraphs that do; the whole of a .py file.
Updating slime means re-reading those lines.
"""

import re

TRAINER = "slime"
VERSION = "v0.3.1"

FILES = [
    "docs/training.md",
    "integrations/python/README.md",
    "integrations/python/sqlgym_slime.py",
]

_AT = "THUDM/slime@v0.3.1 slime/utils/arguments.py:%d"
KEYS = {
    "--input-key": _AT % 648,
    "--label-key": _AT % 649,
    "--rm-type": _AT % 1319,
    "--reward-key": _AT % 1325,
    "--eval-reward-key": _AT % 1334,
    "--group-rm": _AT % 1340,
    "--rm-url": _AT % 1343,
    "--custom-rm-path": _AT % 1349,
    "--rollout-sample-filter-path": _AT % 1417,
    "--rollout-max-response-len": _AT % 363,
    "--custom-generate-function-path": _AT % 466,
}

_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
_HEADING = re.compile(r"^(#+)\s+(.*)$")


def _slime_text(text):
    """The parts of a Markdown file about slime."""
    out, depth = [], None
    for block in re.split(r"\n(?=#)|\n\s*\n|\n(?=- )", text):
        m = _HEADING.match(block.strip().split("\n", 1)[0])
        if m:
            level = len(m.group(1))
            if "slime" in m.group(2).lower():
                depth = level
            elif depth is not None and level <= depth:
                depth = None
        if depth is not None or "slime" in block.lower():
            out.append(block)
    return "\n".join(out)


def extract(text):
    """The slime flags a file names (see the module doc)."""
    if "```" in text or text.lstrip().startswith("#"):
        text = _slime_text(text)
    return set(_FLAG.findall(text))
