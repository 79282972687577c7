"""Where the tests find a trainer's git history (read at test time, never
kept here).

A trainer's git directory is $SQLGYM_<NAME>_GIT, or
$SQLGYM_TRAINER_SRC/<owner>+<name>/repo (the layout of the project's
mirror of public repositories). Tests that need one skip, naming both
variables, when neither is set; with SQLGYM_REQUIRE_TRAINER_SRC=1 (as
.ci/run sets) a missing history is an error instead, so CI cannot pass
without running them.
"""

import os
import subprocess


def git_dir(env, repo):
    """The git directory of repo ("owner/name"), or None."""
    path = os.environ.get(env, "")
    if not path and os.environ.get("SQLGYM_TRAINER_SRC"):
        path = os.path.join(os.environ["SQLGYM_TRAINER_SRC"], repo.replace("/", "+"), "repo")
    if path and os.path.isdir(path):
        return path
    if os.environ.get("SQLGYM_REQUIRE_TRAINER_SRC") == "1":
        raise RuntimeError("SQLGYM_REQUIRE_TRAINER_SRC=1 but " + skip_reason(env, repo, ["any"]))
    return None


def skip_reason(env, repo, commits):
    return ("no git history of %s (commits %s): set %s to its git directory, or SQLGYM_TRAINER_SRC to a folder "
            "holding %s/repo" % (repo, ", ".join(commits), env, repo.replace("/", "+")))


def show(git, commit, path):
    """A file's text at commit."""
    return subprocess.run(["git", "-C", git, "show", "%s:%s" % (commit, path)], check=True,
                          capture_output=True, text=True).stdout


def has_commit(git, commit):
    return subprocess.run(["git", "-C", git, "cat-file", "-e", commit + "^{commit}"], capture_output=True).returncode == 0


def cut(source, names):
    """The source text of the module-level definitions (classes, functions,
    assignments) named in names, in file order: a trainer's own code,
    lifted out of a module whose imports cannot be satisfied here."""
    import ast

    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    parts = []
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            name = node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            name = getattr(target, "id", None)
        else:
            continue
        if name in names:
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            parts.append("".join(lines[start - 1:node.end_lineno]))
    missing = set(names) - {n for n in names if any(("def %s(" % n) in p or ("class %s" % n) in p or p.startswith(n) for p in parts)}
    if missing:
        raise LookupError("not found in the trainer's source: %s" % ", ".join(sorted(missing)))
    return "\n\n".join(parts) + "\n"
