"""The differential suite against a three-node cluster, each request sent to a node chosen at random (issue 37,
item 2).

test_differential.py's scenario for profile 5.1 (build_scenario, played by play/run_scenario, judged by check with
compat/accepted_differences.toml's 5.1 entries), with the single qbtd replaced by three qbtd nodes behind
node_proxy.NodeProxy, which sends every request to a node chosen at random (seeded: QBTD_NODE_PROXY_SEED repeats a
run), against the real qbittorrent-nox 5.1.0 (the trixie chroot; skipped, saying why, where it is missing, as
test_differential skips).

Each node is started as server_pair's qbtd is (qbtd's default user with conftest.PASSWORD, --no-discovery, --no-utp,
--resume-interval 1, --profile 5.1, as root, its download folder data/downloads, peers on loopback so the seeders on
127.0.0.1 are reached) plus --cluster/--node/--node-lease (test_cluster.LEASE), on a PostgreSQL of the run's own
(cluster_support.PrivatePostgres), each as if on a machine of its own (test_cluster_client_suite.ClusterNode's
layout: its own 127.0.0.x, the port the proxy has, its folder nodes/NAME mounted at node/ in a mount namespace of its
own, so its data and download folders have the same paths on every node).

What a cluster answers differently from one qbtd is not taken from the accepted-differences file: CLUSTER_ONLY lists
each such difference with its reason. An entry marked HELD must occur in every run (the test fails when it no longer
does, as for the file's entries); one marked PLACEMENT depends on which node the random proxy picks (where a torrent
is added, which node answers) and is only allowed. A failure lists, for each new difference, the requests of that
step with the node that answered each. The run's folder (nodes/NAME/qbtd.log, proxy.tsv) is named in the output.

test_differential.py's hooks a cluster uses: Server.exists (the "files deleted" wait looks in every node's folder),
Server.starting (each step tags the proxy's records) and Server.wait_budget (the queue's waits a cluster cannot pass
when its torrents are on two nodes get 3 s, not 10). The nodes start one after the other (see cluster_pair), and
app/shutdown's check waits 3 s for the two nodes not asked.

Time (debug build, 2 cores, 2026-12-07): 24-38 s, about 3 s of it to set up.

    QBTD_NODE_PROXY_SEED=N  repeats a run's choices of nodes
    DIFF_TRACE=1 ... -s     prints every request's answers (test_differential's switches hold here too)
"""
import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests

import test_differential as diff
from cluster_support import PrivatePostgres
from conftest import PASSWORD, QBTD, end_process, free_port, wait_for
from node_proxy import NodeProxy, Record
from qbtnox import REFERENCES, QbittorrentNox
from test_cluster import LEASE
from test_cluster_client_suite import NAMES, ClusterNode, port_free_on

PROFILE = "5.1"

HELD, PLACEMENT = "held", "placement"
NODE_COLUMN = "qbtd's own, a cluster's only (README, Several machines): each torrent names the node that runs it"
PINNED = "qbtd's own, a cluster's only: the nodes a category is pinned to (torrents/createCategory's `nodes`)"
HOST = ("the front of the nodes (NodeProxy, as contrib/nginx/qbtd-cluster.conf) passes Host without its port and the "
        "whole in X-Forwarded-Host, which a node trusts only from a configured reverse proxy: a wrong port goes unseen")
TOTALS = ("server_state's totals add the other nodes' as they last published them (rates and session totals, within a "
          "second) or stored them (all-time totals, each minute); its peer connections are the answering node's "
          "(README, Known gaps)")
BASELINE = ("a session's sync baseline is its node's own (README): a rid another node gave gets a full update (each "
            "node numbers a conversation from a random point, so it is never taken for one of its own), so nothing is "
            "listed as removed")
LOGS = ("the log is the answering node's (README, Known gaps): a node that added no torrent logged no normal message, "
        "and the peer log's ban entry is on the node that runs the banned peer's torrent")
QUEUE = ("each node numbers its own queue (README, Known gaps): the slow torrent and the magnet, on two nodes, are both "
         "first, and moving one down on its node passes nothing")
STALE = ("BUG: a torrent's state as another node shows it lags its own node by up to a publish (once a second): right "
         "after a wait saw the move done on one node, another still listed it moving, in its old folder; right after "
         "an add, its content path before the layout was applied")
# (route, path, kind) or (route, path, kind, step label) -> (reason, HELD or PLACEMENT): what three nodes behind the
# proxy answer differently from one qbtd. HELD ones occur in every run (the test fails when one no longer does);
# PLACEMENT ones depend on which node the proxy picks for a step, where a torrent was added, or timing. Reported,
# never folded into compat/accepted_differences.toml. BUG marks the ones that are qbtd cluster bugs.
CLUSTER_ONLY = {
    ("torrents/info", "[].node", "extra"): (NODE_COLUMN, HELD),
    ("sync/maindata", "torrents.*.node", "extra"): (NODE_COLUMN, HELD),
    ("torrents/categories", "*.nodes", "extra"): (PINNED, HELD),
    ("sync/maindata", "categories.*.nodes", "extra"): (PINNED, HELD),
    ("app/version", "", "status", "GET app/version Host with a wrong port"): (HOST, HELD),
    ("app/version", "", "text", "GET app/version Host with a wrong port"): (HOST, HELD),
    ("app/shutdown", "", "wait"): ("app/shutdown stops the node that receives it; the other two keep serving", HELD),
    ("sync/maindata", "server_state.alltime_dl", "value"): (TOTALS, PLACEMENT),
    ("sync/maindata", "server_state.dl_info_data", "value"): (TOTALS, PLACEMENT),
    ("sync/maindata", "server_state.total_peer_connections", "value"): (TOTALS, PLACEMENT),
    ("log/main", "[].type", "value"): (LOGS, PLACEMENT),
    **{("log/peers", path, kind, "GET log/peers after a ban"): (LOGS, PLACEMENT)
       for path, kind in (("", "empty"), ("[].ip", "value"), ("[].blocked", "value"), ("[].reason", "value"),
                          ("[].timestamp", "value"))},
    **{("sync/maindata", path, kind, "GET sync/maindata rid after a change"): (BASELINE, PLACEMENT)
       for path, kind in (("full_update", "extra"), ("categories.@keys", "value"), ("tags[]", "value"))},
    **{("sync/maindata", path, kind, "GET sync/maindata rid after deletions"): (BASELINE, PLACEMENT)
       for path, kind in (("full_update", "extra"), ("full_update", "value"), ("torrents_removed", "missing"),
                          ("torrents_removed[]", "value"), ("trackers_removed", "missing"),
                          ("trackers_removed[]", "value"), ("categories_removed", "extra"))},
    ("torrents/info", "[].priority", "value"): (QUEUE, PLACEMENT),
    ("torrents/info", "[].name", "value", "GET torrents/info queue at start"): (QUEUE, PLACEMENT),
    ("torrents/info", "[].name", "value", "GET torrents/info queue order"): (QUEUE, PLACEMENT),
    ("wait: slow at the bottom", "", "wait"): (QUEUE, PLACEMENT),
    ("wait: slow down", "", "wait"): (QUEUE, PLACEMENT),
    ("torrents/info", "[].state", "value", "GET torrents/info after move"): (STALE, PLACEMENT),
    ("torrents/info", "[].content_path", "value", "GET torrents/info after move"): (STALE, PLACEMENT),
    ("torrents/info", "[].state", "value", "GET torrents/info states after settings"): (STALE, PLACEMENT),
    ("torrents/info", "[].content_path", "value", "GET torrents/info re-added with every parameter"): (STALE, PLACEMENT),
}
# Waits a cluster cannot pass when its torrents are on two nodes (QUEUE): 3 s instead of run_scenario's 10 s.
SHORT_WAITS = {key[0].removeprefix("wait: ") for key, (reason, _) in CLUSTER_ONLY.items() if key[2] == "wait"
               and reason == QUEUE}


class DiffNode(ClusterNode):
    """ClusterNode's layout (its own 127.0.0.x, the proxy's port, its folder mounted at the path every node has), started
    as test_differential.server_pair starts its qbtd (conftest.Qbtd's flags, as root), plus --cluster/--node/
    --node-lease."""

    def start(self):
        (self.root / "data").mkdir(parents=True, exist_ok=True)
        self.seen_as.mkdir(exist_ok=True)
        self.log = open(self.root / "qbtd.log", "ab")
        command = [self.qbtd, "--data-dir", str(self.seen_as / "data"), "--host", self.address, "--port",
                   str(self.port), "--peer-listen", f"{self.address}:0", "--no-discovery", "--no-utp",
                   "--resume-interval", "1", "--password", PASSWORD, "--profile", self.profile,
                   "--cluster", self.url, "--node", self.name, "--node-lease", LEASE]
        self.proc = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c",
             'mount --bind "$1" "$2" && shift 2 && exec "$@"', "sh", str(self.root), str(self.seen_as), *command],
            stdout=self.log, stderr=subprocess.STDOUT)
        return self

    def wait_up(self):
        def up():
            if self.proc.poll() is not None:
                self.log.flush()
                said = Path(self.log.name).read_bytes().decode(errors="replace")[-3000:]
                raise AssertionError(f"node {self.name} exited with {self.proc.returncode}; {self.log.name} ends:\n{said}")
            try:
                return requests.get(self.base + "/api/v2/app/version", timeout=1).status_code in (200, 403)
            except requests.RequestException:
                return False

        wait_for(up, 60, what=f"node {self.name} to listen")

    def sees_every_node_up(self):
        s = requests.Session()
        r = s.post(self.base + "/api/v2/auth/login", data={"username": "admin", "password": PASSWORD}, timeout=5)
        assert r.ok, (self.name, r.status_code, r.text)
        wait_for(lambda: sorted(n["name"] for n in s.get(self.base + "/api/v2/qbtd/nodes", timeout=5).json()
                                if n["state"] == "up") == sorted(NAMES),
                 15, what=f"node {self.name} seeing every node up")


class StepProxy(NodeProxy):
    """NodeProxy whose records carry the step current when each request was sent to its node (NodeProxy takes the
    tag as it records a request, after the answer went back: by then the client may be at its next step)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.arrived = threading.local()

    def choose(self):
        self.arrived.test = self.test
        return super().choose()

    def record(self, conn, method, path, node, status, started, scheme="http"):
        test, self.arrived.test = getattr(self.arrived, "test", None), None
        r = Record(round(time.monotonic() - self.started, 3), conn, scheme, method, path, node, status,
                   round((time.monotonic() - started) * 1000), self.test if test is None else test)
        with self.lock:
            self.records.append(r)
            if self.log:
                self.log.write("\t".join(str(x) for x in r) + "\n")
        return r


class Named:
    def __init__(self, name):
        self.name = name


class Nodes:
    """The nodes behind the proxy, as run_scenario and play see a server process: `base` and `port` (the proxy's),
    `proc` (poll: a node's exit status once any node has exited; wait: every node), `log`, `stop()`."""

    def __init__(self, nodes, proxy, work):
        self.nodes, self.proxy = nodes, proxy
        self.base, self.port = proxy.url, proxy.port
        self.proc = self
        self.returncode = None
        self.work = work
        self.log = Named(str(work / "nodes"))

    def poll(self):
        for n in self.nodes:
            if n.proc.poll() is not None:
                self.returncode, self.log = n.proc.returncode, Named(f"{n.log.name} (node {n.name})")
                return self.returncode
        return None

    def wait(self, timeout):
        """Every node's exit (after app/shutdown): subprocess.TimeoutExpired when one still runs `timeout` s on, or
        3 s after another node exited (app/shutdown stops the node asked: CLUSTER_ONLY; no need to wait 15 s)."""
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        deadline = min(deadline, time.monotonic() + 3)
        for n in self.nodes:
            n.proc.wait(max(0.0, deadline - time.monotonic()))
        return self.returncode

    def running(self):
        return [n.name for n in self.nodes if n.proc.poll() is None]


class ClusterServer(diff.Server):
    """The cluster as one server under test: requests go to the proxy; its download folder is every node's."""

    def __init__(self, nodes, save):
        super().__init__("qbtd cluster", nodes, save, PASSWORD)

    def exists(self, *parts):
        return any((n.root / "data" / "downloads").joinpath(*parts).exists() for n in self.proc.nodes)

    def starting(self, step):
        self.proc.proxy.test = diff.step_label(step)

    def wait_budget(self, step, budget):
        return min(budget, 3.0) if step.what in SHORT_WAITS else budget


@contextlib.contextmanager
def cluster_pair(tmp_path_factory, profile=PROFILE):
    """The real release `profile` is held against and three qbtd nodes in that profile behind a random proxy."""
    reference = REFERENCES[profile]
    why = reference.missing()
    if why:
        pytest.skip(why)
    work = tmp_path_factory.mktemp("cluster")
    # PostgreSQL runs as qbtd-pg when we are root: its folder directly under /tmp, which it can pass through.
    pg_root = Path(tempfile.mkdtemp(prefix="qbtd-pg-cluster-diff-", dir="/tmp"))
    pg, nox, nodes, proxy = None, None, [], None
    try:
        pg = PrivatePostgres(pg_root, free_port())
        addresses = [f"127.0.0.{i + 2}" for i in range(len(NAMES))]
        port = port_free_on(["127.0.0.1", *addresses])
        nodes = [DiffNode(QBTD, profile, work, pg.url, name, address, port, None)
                 for name, address in zip(NAMES, addresses)]
        # One after the other: nodes that start together on an empty catalogue may deadlock storing the --password
        # they were given (Credentials.prepare writes the password and the username in one transaction, in the order
        # of a Swift dictionary, which differs between processes; PostgreSQL 40P01, and the node exits with 1).
        for n in nodes:
            n.start()
            n.wait_up()
        nox = QbittorrentNox(tmp_path_factory.mktemp("nox"), release=reference).start()
        for n in nodes:
            n.sees_every_node_up()
        proxy = StepProxy({n.name: n.base for n in nodes}, seed=os.environ.get("QBTD_NODE_PROXY_SEED"),
                          log=work / "proxy.tsv", address=("127.0.0.1", port)).start()
        first = diff.Server("nox", nox, nox.save, nox.password)
        second = ClusterServer(Nodes(nodes, proxy, work), nodes[0].seen_as / "data" / "downloads")
        first.reference, second.reference = reference, reference
        first.version, second.version = (srv.get("app/version").text for srv in (first, second))
        diff.COMPARED[f"{profile}, three nodes"] = (
            f"{reference.describe()}, qbtd as three nodes behind a proxy choosing at random (seed {proxy.seed}); "
            f"app/version {first.version} (real) vs {second.version}")
        yield first, second
    finally:
        if proxy:
            proxy.stop()
        if nox:
            nox.stop()
        for n in nodes:
            end_process(n.proc)
        if pg:
            pg.remove()
        shutil.rmtree(pg_root, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster_servers(tmp_path_factory):
    with cluster_pair(tmp_path_factory) as pair:
        yield pair


def test_differential_against_three_nodes_each_request_to_a_random_one(cluster_servers, tmp_path_factory):
    nox, cluster = cluster_servers
    proxy = cluster.proc.proxy
    seen, elapsed = diff.play(cluster_servers, tmp_path_factory)
    accepted = diff.load_accepted(PROFILE)
    found = {d[:3] for d in seen} | {d[:3] + (d[4],) for d in seen}
    for key, (reason, how) in CLUSTER_ONLY.items():
        if how == HELD or key in found:
            route, path, kind, request = (key + (None,))[:4]
            accepted.append({"route": route, "path": path, "kind": kind, "request": request, "reason": reason,
                             "profiles": [PROFILE], "cause": "cluster"})
    print(f"\ncluster run in {cluster.proc.work}; proxy seed {proxy.seed}; requests per node: {proxy.by_node()}; "
          f"cluster-only differences seen: {sorted(k for k in CLUSTER_ONLY if k in found)}")
    listed = {(e["route"], e["path"], e["kind"], e["request"]) for e in accepted}
    new = {d[4] for d in seen if not {d[:3] + (None,), d[:3] + (d[4],)} & listed}  # the labels of check's NEW ones
    try:
        diff.check(seen, elapsed, nox, cluster, accepted)
    except AssertionError as e:
        traces = "\n".join(f"  {label}:\n{proxy.trace(label, limit=12)}" for label in new)
        raise AssertionError(f"{e}\nthe requests of each step with a new difference, with the node that answered "
                             f"(seed {proxy.seed}; running: {cluster.proc.running()}):\n{traces}") from None
