"""Start and stop a real `sqlgym serve` for the shim tests.

The binary is $SQLGYM_BIN, or built from this repository with `go build`.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

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


class OutageServer:
    """Answers every request as `sqlgym serve` answers during a database
    outage: 503 with Retry-After and {"error": "... database could not be
    used ..."}. serve now refuses to start with a database it cannot use,
    so an outage can no longer be staged by starting it with one that is
    down; the server side of an outage (503 on /v1/rewards, /get_reward
    and the episode routes, never a reward) is asserted in Go by
    serve/server_test.go TestOutageIsNeverAZeroReward and
    serve/nemogym_agent_test.go TestNemoGymAgentOutage. This stand-in lets
    the shims' side be tested: they retry, then raise, never score 0."""

    def __init__(self):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def _outage(self):
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    self.rfile.read(n)
                body = json.dumps({"error": "infrastructure failure, not scored: the database could not be used"}).encode()
                self.send_response(503)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET = do_DELETE = _outage

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def metric(url, name):
    """The value of one unlabelled line of the server's /metrics (0 when absent)."""
    import re
    import urllib.request

    with urllib.request.urlopen(url + "/metrics") as r:
        m = re.search(r"^" + re.escape(name) + r" (\S+)$", r.read().decode(), re.M)
    return float(m.group(1)) if m else 0.0


def open_episodes(url):
    return metric(url, "sqlgym_serve_open_episodes")


class ServeTestCase(unittest.TestCase):
    """A test class with one `sqlgym serve` over TASKS (started with
    SERVE_ARGS) for all its tests, its address in $SQLGYM_URL during each."""

    TASKS = []
    SERVE_ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(cls.TASKS, *cls.SERVE_ARGS)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def setUp(self):
        prev = os.environ.get("SQLGYM_URL")
        self.addCleanup(lambda: os.environ.__setitem__("SQLGYM_URL", prev) if prev is not None else os.environ.pop("SQLGYM_URL", None))
        os.environ["SQLGYM_URL"] = self.serve.url
