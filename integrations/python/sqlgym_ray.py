"""One `sqlgym serve` per node of a Ray cluster, for trainers that run on Ray
(verl, OpenRLHF, SkyRL).

Every node gets one actor, pinned to it with Ray's node-affinity scheduling
(ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(node_id,
soft=False)); the actor runs the sqlgym binary on that node and hands back
its URL. All servers listen on the same port on loopback by default, so one
URL, http://127.0.0.1:PORT, is every node's local server: set it once
(SQLGYM_URL, or OpenRLHF's --reward.remote_url .../get_reward) and each rollout
worker calls the server of its own node.

    import ray, sqlgym_ray
    ray.init(address="auto")
    servers = sqlgym_ray.start_servers(
        ["--tasks", "/data/band.jsonl", "--db-dir", "/data/databases", "--warm"],
        binary="/opt/sqlgym/sqlgym")
    servers.urls            # {node_id: "http://127.0.0.1:8421", ...}
    sqlgym_ray.local_url()  # in any task or actor: its node's server
    servers.stop()

The databases must be on every node (the same paths), or be a shared
PostgreSQL (--db NAME=postgres://...). Each server's replica id, the prefix
of its episode ids, is "node-" and the start of its Ray node id.

Importing this module needs no Ray; without Ray installed, start_servers()
runs one server on this machine through a stand-in of the few Ray calls it
makes (LocalRay), so the same driver code works on a laptop. Standard library
only.
"""

import ctypes
import importlib
import json
import os
import signal
import subprocess
import sys
import threading

ACTOR_PREFIX = "sqlgym-serve-"
NAMESPACE = "sqlgym"
DEFAULT_PORT = 8421


class SqlgymRayError(RuntimeError):
    """A server could not be started or found."""


def _die_with_parent():
    # Linux: the server gets SIGTERM when the actor's process dies, so a
    # killed actor leaves no orphan holding the port.
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class SqlgymServer:
    """The actor: one `sqlgym serve` process on the node it runs on.

    The constructor returns once the server is ready (it prints its address
    as JSON only after its databases are open and, with --warm, its golds are
    cached)."""

    def __init__(self, binary, args, host, port, replica_id, node_id, node_ip, env=None):
        cmd = [binary, "serve", "--addr", "%s:%d" % (host, port), "--json", "--replica-id", replica_id, *args]
        self.node_id, self.node_ip = node_id, node_ip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, **(env or {})),
                                     preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read()
            self.proc.wait()
            self.proc.stdout.close()
            self.proc.stderr.close()
            raise SqlgymRayError("sqlgym serve did not start on node %s: %s" % (node_id, err.strip()))
        info = json.loads(line)
        # Keep reading both pipes: a full pipe would block the server.
        for pipe in (self.proc.stdout, self.proc.stderr):
            threading.Thread(target=_drain, args=(pipe,), daemon=True).start()
        self._info = {
            "node_id": node_id,
            "node_ip": node_ip,
            "replica": info["replica"],
            "addr": info["addr"],
            "url": info["url"],
            "tasks": info.get("tasks"),
        }

    def info(self):
        """Where the server listens: url (as bound, e.g. loopback), node_id,
        node_ip, replica."""
        return dict(self._info, alive=self.proc.poll() is None)

    def stop(self):
        """SIGTERM (the server drains its requests in flight), then wait."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def _drain(pipe):
    for _ in pipe:
        pass


def replica_id(node_id):
    """A server's replica id from its Ray node id: a DNS label."""
    return "node-" + str(node_id).lower()[:12]


def actor_name(node_id):
    return ACTOR_PREFIX + str(node_id)[:16]


class Servers:
    """The servers start_servers() started: urls per node id, and stop()."""

    def __init__(self, ray, actors, infos):
        self._ray, self.actors, self.infos = ray, actors, infos
        self.urls = {i["node_id"]: i["url"] for i in infos}

    def stop(self):
        self._ray.get([a.stop.remote() for a in self.actors])
        for a in self.actors:
            kill = getattr(self._ray, "kill", None)
            if kill is not None:
                kill(a)


def _ray_module(ray_module):
    if ray_module is not None:
        return ray_module
    try:
        return importlib.import_module("ray")
    except ImportError:
        return LocalRay()


def _node_affinity(ray):
    mod = getattr(getattr(ray, "util", None), "scheduling_strategies", None)
    if mod is None:
        mod = importlib.import_module(ray.__name__ + ".util.scheduling_strategies")
    return mod.NodeAffinitySchedulingStrategy


def start_servers(args, binary="sqlgym", port=DEFAULT_PORT, host="127.0.0.1", num_cpus=1, env=None, ray_module=None):
    """Start one `sqlgym serve` per alive node of the Ray cluster and wait
    until every one is ready.

    args are serve's flags (--tasks, --db-dir or --db, --warm, ...), binary
    the sqlgym executable on every node. host "127.0.0.1" serves the node's
    own trainers only; "0.0.0.0" lets other nodes reach it at node_ip:port.
    num_cpus is what each actor reserves in Ray's accounting (the server
    itself uses what GOMAXPROCS gives it). Returns a Servers.
    """
    ray = _ray_module(ray_module)
    strategy = _node_affinity(ray)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    if not nodes:
        raise SqlgymRayError("the Ray cluster has no alive node: call ray.init() first")
    actor_cls = ray.remote(SqlgymServer)
    actors = []
    for n in nodes:
        node_id = n["NodeID"]
        actors.append(actor_cls.options(
            name=actor_name(node_id), namespace=NAMESPACE, num_cpus=num_cpus,
            # soft=False: the actor runs on this node or fails, never
            # silently on another node (whose databases may differ).
            scheduling_strategy=strategy(node_id=node_id, soft=False),
        ).remote(binary, list(args), host, port, replica_id(node_id), node_id, n.get("NodeManagerAddress", ""), env))
    infos = ray.get([a.info.remote() for a in actors])
    return Servers(ray, actors, infos)


def local_url(ray_module=None):
    """The URL of the server on the node this code runs on, found by the
    actor's name; for rollout workers that did not start the servers."""
    ray = _ray_module(ray_module)
    node_id = ray.get_runtime_context().get_node_id()
    try:
        actor = ray.get_actor(actor_name(node_id), namespace=NAMESPACE)
    except ValueError as e:
        raise SqlgymRayError("no sqlgym server on node %s: call sqlgym_ray.start_servers() first (%s)" % (node_id, e)) from e
    return ray.get(actor.info.remote())["url"]


class LocalRay:
    """A stand-in for the Ray calls start_servers() and local_url() make, on
    one machine without Ray: one node, actors built in this process."""

    NODE_ID = "local"

    def __init__(self):
        self._named = {}
        self.util = _Namespace(scheduling_strategies=_Namespace(NodeAffinitySchedulingStrategy=_LocalAffinity))

    def nodes(self):
        return [{"NodeID": self.NODE_ID, "Alive": True, "NodeManagerAddress": "127.0.0.1"}]

    def remote(self, cls):
        return _LocalActorClass(self, cls)

    def get(self, x):
        return list(x) if isinstance(x, list) else x

    def get_runtime_context(self):
        return _Namespace(get_node_id=lambda: self.NODE_ID)

    def get_actor(self, name, namespace=None):
        if (namespace, name) not in self._named:
            raise ValueError("Failed to look up actor with name %r" % name)
        return self._named[(namespace, name)]


class _Namespace:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class _LocalAffinity:
    def __init__(self, node_id, soft):
        self.node_id, self.soft = node_id, soft


class _LocalActorClass:
    def __init__(self, ray, cls, opts=None):
        self._ray, self._cls, self._opts = ray, cls, opts or {}

    def options(self, **opts):
        return _LocalActorClass(self._ray, self._cls, opts)

    def remote(self, *args, **kwargs):
        handle = _LocalHandle(self._cls(*args, **kwargs))
        if "name" in self._opts:
            self._ray._named[(self._opts.get("namespace"), self._opts["name"])] = handle
        return handle


class _LocalHandle:
    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        method = getattr(self._obj, name)
        return _Namespace(remote=lambda *a, **k: method(*a, **k))
