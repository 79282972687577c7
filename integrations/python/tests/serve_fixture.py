"""Start and stop a real `sqlgym serve` for the shim tests.

The binary is $SQLGYM_BIN, or built from this repository with `go build`.
"""

import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


class Serve:
    """A `sqlgym serve` process over a task file written from `tasks`, with
    its own cache folder; `url` is where it listens."""

    def __init__(self, tasks, *args):
        self.tmp = tempfile.mkdtemp(prefix="sqlgym-py-")
        try:
            self.bin = os.environ.get("SQLGYM_BIN") or self._build()
            self.tasks = os.path.join(self.tmp, "tasks.jsonl")
            with open(self.tasks, "w") as f:
                for t in tasks:
                    f.write(json.dumps(t) + "\n")
            self.env = dict(os.environ, SQLGYM_CACHE=os.path.join(self.tmp, "cache"))
            self.proc = subprocess.Popen(
                [self.bin, "serve", "--tasks", self.tasks, "--addr", "127.0.0.1:0", "--json", *args],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env, text=True)
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("sqlgym serve did not start: " + self.proc.stderr.read())
            self.url = json.loads(line)["url"]
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise

    def _build(self):
        out = os.path.join(self.tmp, "sqlgym")
        subprocess.run(["go", "build", "-o", out, "./cmd/sqlgym"], cwd=REPO, check=True)
        return out

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()
            shutil.rmtree(self.tmp, ignore_errors=True)
