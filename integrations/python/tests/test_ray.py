"""The Ray launcher against a stand-in for the Ray API, with real servers.

The stand-in implements the calls sqlgym_ray makes with the names and
shapes of Ray 2.x (ray-project/ray, master as stored for this project,
python/ray/util/scheduling_strategies.py:41 class NodeAffinitySchedulingStrategy,
:58-64 __init__(self, node_id: str, soft: bool, _spill_on_unavailable=False,
_fail_on_unavailable=False); python/ray/_private/
state.py: ray.nodes() -> dicts with "NodeID", "Alive", "NodeManagerAddress";
python/ray/actor.py: ActorClass.options(name=, namespace=, num_cpus=,
scheduling_strategy=).remote(...); ray.get_actor(name, namespace=);
ray.get_runtime_context().get_node_id()). It pretends to have three nodes,
all on this machine, and records how each actor was scheduled; each actor
really runs `sqlgym serve` ($SQLGYM_BIN, or built with `go build`).
"""

import json
import os
import sys
import tempfile
import types
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sqlgym_ray  # noqa: E402
from serve_fixture import Serve  # noqa: E402

NODES = ["a1b2c3d4e5f6a7b8c9d0", "0f1e2d3c4b5a69788796", "deadbeefcafe00112233"]


class FakeAffinity:
    def __init__(self, node_id, soft, _spill_on_unavailable=False, _fail_on_unavailable=False):
        self.node_id, self.soft = node_id, soft


class FakeRay:
    """Three alive nodes and one dead one; actors run in this process, on
    the node their NodeAffinitySchedulingStrategy names."""

    def __init__(self):
        self.__name__ = "ray"
        self.util = types.SimpleNamespace(scheduling_strategies=types.SimpleNamespace(NodeAffinitySchedulingStrategy=FakeAffinity))
        self.scheduled = []  # (options, node the actor ran on)
        self.named = {}
        self.current_node = NODES[1]
        self.killed = []

    def nodes(self):
        alive = [{"NodeID": n, "Alive": True, "NodeManagerAddress": "10.0.0.%d" % i, "Resources": {"CPU": 8.0}} for i, n in enumerate(NODES)]
        return alive + [{"NodeID": "99" * 10, "Alive": False, "NodeManagerAddress": "10.0.0.99"}]

    def remote(self, cls):
        ray = self

        class ActorClass:
            def options(self, **opts):
                def make(*args, **kwargs):
                    s = opts["scheduling_strategy"]
                    if not isinstance(s, FakeAffinity) or s.soft:
                        raise AssertionError("not hard node affinity: %r" % (s,))
                    obj = cls(*args, **kwargs)
                    h = Handle(obj)
                    ray.scheduled.append((opts, s.node_id))
                    ray.named[(opts["namespace"], opts["name"])] = h
                    return h
                return types.SimpleNamespace(remote=make)
        return ActorClass()

    def get(self, refs):
        # ray.get takes one ObjectRef or a list of them.
        return list(refs) if isinstance(refs, list) else refs

    def get_actor(self, name, namespace=None):
        try:
            return self.named[(namespace, name)]
        except KeyError:
            raise ValueError("Failed to look up actor with name '%s'" % name)

    def get_runtime_context(self):
        return types.SimpleNamespace(get_node_id=lambda: self.current_node)

    def kill(self, actor):
        self.killed.append(actor)


class Handle:
    def __init__(self, obj):
        self.obj = obj

    def __getattr__(self, name):
        m = getattr(self.obj, name)
        return types.SimpleNamespace(remote=lambda *a, **k: m(*a, **k))


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, json.loads(r.read())


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


TASKS = [{"id": "orders", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders", "split": "train"}]


class RayLauncherTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Serve builds the binary once when $SQLGYM_BIN is unset, and
        # writes the task file.
        cls.fixture = Serve(TASKS)
        cls.bin, cls.tasks = cls.fixture.bin, cls.fixture.tasks
        cls.cache = tempfile.mkdtemp(prefix="sqlgym-ray-")

    @classmethod
    def tearDownClass(cls):
        cls.fixture.stop()

    def test_one_server_per_alive_node_pinned_by_node_affinity(self):
        ray = FakeRay()
        servers = sqlgym_ray.start_servers(["--tasks", self.tasks, "--warm"], binary=self.bin, port=0,
                                           env={"SQLGYM_CACHE": self.cache}, ray_module=ray)
        try:
            self.assertEqual(sorted(n for _, n in ray.scheduled), sorted(NODES), "one actor per alive node, none on the dead one")
            for opts, node in ray.scheduled:
                self.assertEqual(opts["name"], sqlgym_ray.actor_name(node))
                self.assertEqual(opts["namespace"], sqlgym_ray.NAMESPACE)
                self.assertEqual(opts["scheduling_strategy"].node_id, node)
            self.assertEqual(set(servers.urls), set(NODES))
            for info in servers.infos:
                # Ready when start_servers returns: /readyz is 200 and names
                # the replica derived from the node id.
                status, body = get(info["url"] + "/readyz")
                self.assertEqual(status, 200)
                self.assertEqual(body["replica"], "node-" + info["node_id"][:12])
                self.assertTrue(info["alive"])
                self.assertTrue(info["url"].startswith("http://127.0.0.1:"))
            # A rollout worker on node 1 finds its own node's server by name.
            url = sqlgym_ray.local_url(ray_module=ray)
            self.assertEqual(url, servers.urls[NODES[1]])
            r = post(url + "/v1/rewards", {"items": [{"task_id": "orders", "sql": "SELECT COUNT(*) FROM orders"}]})
            self.assertEqual((r["results"][0]["outcome"], r["results"][0]["reward"]), ("correct", 1.0))
            # Episodes opened there carry that node's replica prefix.
            ep = post(url + "/v1/episodes", {"task_id": "orders"})
            self.assertTrue(ep["episode_id"].startswith("node-" + NODES[1][:12] + "."), ep["episode_id"])
        finally:
            servers.stop()
        self.assertEqual(len(ray.killed), 3)
        for a in servers.actors:
            self.assertIsNotNone(a.obj.proc.poll(), "a server outlived stop()")

    def test_local_url_without_servers_says_what_to_do(self):
        with self.assertRaises(sqlgym_ray.SqlgymRayError) as cm:
            sqlgym_ray.local_url(ray_module=FakeRay())
        self.assertIn("start_servers", str(cm.exception))

    def test_a_server_that_cannot_start_is_an_error_naming_the_node(self):
        with self.assertRaises(sqlgym_ray.SqlgymRayError) as cm:
            sqlgym_ray.start_servers(["--tasks", "/no/such/tasks.jsonl"], binary=self.bin, port=0,
                                     env={"SQLGYM_CACHE": self.cache}, ray_module=FakeRay())
        self.assertIn(NODES[0], str(cm.exception))
        self.assertIn("tasks.jsonl", str(cm.exception))

    def test_without_ray_the_local_stand_in_runs_one_server(self):
        try:
            import ray  # noqa: F401
            self.skipTest("ray is installed: the stand-in is not used")
        except ImportError:
            pass
        servers = sqlgym_ray.start_servers(["--tasks", self.tasks], binary=self.bin, port=0, env={"SQLGYM_CACHE": self.cache})
        try:
            self.assertEqual(list(servers.urls), [sqlgym_ray.LocalRay.NODE_ID])
            status, body = get(servers.urls["local"] + "/readyz")
            self.assertEqual((status, body["replica"]), (200, "node-local"))
        finally:
            servers.stop()


if __name__ == "__main__":
    unittest.main()
