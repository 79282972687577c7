"""The config keys a launch command passes as overrides (key=value, Hydra's
+key=value and ++key=value included), for the trainer_keys_*.py modules."""

import re

# An override's key: dotted, optionally with + or ++ (add), before "=".
_KEY = re.compile(r"(?:^|\s)['\"]?(\+{0,2}[A-Za-z_][\w-]*(?:\.[\w-]+)+)=")


def commands(text):
    """Shell commands of text: lines joined where they end in a backslash."""
    cmd = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.endswith("\\"):
            cmd.append(stripped[:-1])
            continue
        cmd.append(stripped)
        yield " ".join(cmd)
        cmd = []
    if cmd:
        yield " ".join(cmd)


def override_keys(text, markers):
    """The override keys of the commands in text that contain one of
    markers (the trainer's entry point); other commands are not read."""
    keys = set()
    for cmd in commands(text):
        if any(m in cmd for m in markers):
            keys.update(m.group(1) for m in _KEY.finditer(cmd))
    return keys
