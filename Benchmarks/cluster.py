#!/usr/bin/env python3
"""Cluster scale: NODES qbtd nodes on one PostgreSQL sharing TORRENTS torrents, against one qbtd holding them all, the
same torrents in the same run.

Torrents are scale.py's (single- and multi-file, v1 and hybrid); ACTIVE of them download from scale.py's loopback
python-libtorrent seeder (1 KiB/s each, so they stay downloading), the rest are stopped. Each node gets every NODES-th
torrent, added through itself with qbtd's `node` add parameter. Rows:

  - adding: every .torrent in `torrents/add` batches of 100; one client per node, all at once, against one client
    adding everything to the single server; until `torrents/count` through the first node says all are there.
    Torrents per second, and the ratio (target: the cluster ≥ 3× one node).
  - restart of a node: SIGTERM, start again, until it lists every torrent and none as `errored`; against a single
    server holding one node's share, restarted the same way (target: no slower).
  - `torrents/info`, `sync/maindata` full and rid diffs through the first node at 4 and 32 clients (scale.py's
    clients: one session each, spread over processes): req/s, p50, p99 (target: a rid diff's p99 ≤ 100 ms at 32).
  - resident memory of each node and of the single server, after the requests.
  - a change seen elsewhere: `torrents/setUploadLimit` of one of the second node's torrents through that node, while
    a client polls rid diffs of the first node; the time from the change's answer until a diff shows it (CHANGES
    samples), against the same change and the same poll on the single server.

The nodes stand for machines: each qbtd process (the single server's too) runs in a cgroup of its own capped at
--node-cpu of a core (0.45 by default), so four nodes on this 2-core machine are four equal small machines and the
single server is one of them; PostgreSQL and the clients share what is left. Without writable cgroups (or with
--node-cpu 0) every process shares the machine's cores and the adding ratio says little. Everything stays on
127.0.0.1 with DHT, LSD, PeX, UPnP, NAT-PMP and uTP off; every wait is bounded; the throwaway PostgreSQL of the tests
(Tests/postgres/throwaway-cluster.sh) is started when QBTD_TEST_POSTGRES_URL names none. The exit status is 0
whatever the figures (a benchmark), unless --strict and a target is missed.

    cluster.py [TORRENTS] [--nodes N] [--active N] [--node-cpu CORES] [--smoke] [--strict]

TORRENTS defaults to 100000, --nodes to 4, --active to 1000. --smoke: 1,000 torrents, 20 active, 20 requests per
row, 5 change samples (a check that the script runs; `make test` runs it, with no timing assertion).
"""
import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster_support import SCRIPT, fresh_database  # noqa: E402
from conftest import Qbtd, vm  # noqa: E402
from cpu_box import CpuBox  # noqa: E402
from scale import BATCH, Corpus, Seeder, fmt, pct, poll  # noqa: E402

MiB = 1 << 20
CLIENTS = (4, 32)
ENDPOINTS = [("info", "torrents/info"), ("full", "sync/maindata (full)"), ("rid", "sync/maindata (rid diff)")]
RID_TARGET_MS = 100
ADD_TARGET = 3.0


class Config:
    def __init__(self, a):
        self.smoke = a.smoke
        self.torrents = a.torrents or (1000 if a.smoke else 100000)
        self.nodes = a.nodes
        self.active = a.active if a.active is not None else (20 if a.smoke else 1000)
        self.node_cpu = a.node_cpu
        self.strict = a.strict
        self.row_time = 2 if a.smoke else 30        # seconds at most per request row (measured part)
        self.count = 20 if a.smoke else 3000        # requests at most per row
        self.warmup_wait = 60 if a.smoke else 600   # every client's warm-up of a row
        self.timeout = 120 if a.smoke else 600      # one request
        self.add_wait = 300 if a.smoke else 3600    # all torrents listed after the adds
        self.restart_wait = 300 if a.smoke else 1800
        self.connect_wait = 60 if a.smoke else 180  # active torrents connected to the seeder
        self.changes = 5 if a.smoke else 30         # samples of a change seen elsewhere


class Server:
    """One qbtd process (a node or the single server) and the torrents it holds; what scale.poll needs of a run."""

    def __init__(self, name, root, cfg, box, extra=()):
        self.name, self.cfg = name, cfg
        (root / "data").mkdir(parents=True)
        self.q = Qbtd(root / "data", resume_interval=15, extra=list(extra), wrapper=box.wrap(name))
        self.stopped, self.active = [], []
        self.session = None

    def url(self, path):
        return self.q.url(path)

    def start(self):
        t0 = time.monotonic()
        try:
            self.q.start()
        except AssertionError:  # 60 s to listen is the fixtures' bound; a server with many torrents may take longer
            if self.q.proc is None or self.q.proc.poll() is not None:
                raise
        return t0

    def login(self):
        self.session = self.q.session()
        return self.session

    def stop(self):
        p = self.q.proc
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(self.cfg.restart_wait)
            except Exception:
                p.kill()
                p.wait(30)

    def get(self, path, s=None, **params):
        r = (s or self.session).get(self.url(path), params=params, timeout=self.cfg.timeout)
        r.raise_for_status()
        return r

    def count(self, s=None):
        return int(self.get("torrents/count", s).text)

    def rss(self):
        return vm(self.q.proc.pid, "VmRSS")

    def add(self, s, node=None):
        """Adds this server's torrents through it (stopped ones stopped, active ones started), `node` named."""
        for torrents, flag, where in ((self.stopped, "true", "downloads"), (self.active, "false", "active")):
            for start in range(0, len(torrents), BATCH):
                files = [("torrents", (t.name + ".torrent", t.data, "application/x-bittorrent"))
                         for t in torrents[start:start + BATCH]]
                data = {"paused": flag, "stopped": flag, "savepath": str(self.q.data_dir / where)}
                if node:
                    data["node"] = node
                r = s.post(self.url("torrents/add"), files=files, data=data, timeout=self.cfg.timeout)
                if r.status_code != 200 or r.text.strip() != "Ok.":
                    raise RuntimeError(f"{self.name}: torrents/add answered {r.status_code} {r.text[:200]!r}")

    def connect(self, seeder):
        """addPeers (the seeder) for this server's active torrents until each has it (bounded); how many do."""
        ids = [t.id for t in self.active]
        connected, deadline = set(), time.monotonic() + self.cfg.connect_wait
        while ids and time.monotonic() < deadline:
            missing = [i for i in ids if i not in connected]
            for k in range(0, len(missing), 50):
                self.session.post(self.url("torrents/addPeers"), timeout=self.cfg.timeout,
                                  data={"hashes": "|".join(missing[k:k + 50]), "peers": seeder.peer})
            settle = min(time.monotonic() + 3, deadline)  # addPeers again only after 3 s without every one
            while True:
                time.sleep(0.25)
                connected = set()
                for k in range(0, len(ids), 50):
                    got = self.get("torrents/info", hashes="|".join(ids[k:k + 50])).json()
                    connected |= {t["hash"] for t in got if t.get("num_seeds", 0) > 0 or t.get("dlspeed", 0) > 0}
                if len(connected) == len(ids) or time.monotonic() >= settle:
                    break
            if len(connected) == len(ids):
                break
        return len(connected)

    def whole(self, n):
        """Lists n torrents and none `errored` (a node's torrents while it is away are listed as errors)."""
        return self.count() == n and not self.get("torrents/info", filter="errored").json()

    def restart(self, n):
        """SIGTERM, start again; the seconds from the start until it lists all n torrents, none errored."""
        self.stop()
        t0 = self.start()
        deadline = t0 + self.cfg.restart_wait
        while time.monotonic() < deadline:
            if self.q.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.q.proc.returncode} while restarting")
            try:
                if self.session is None:
                    self.login()
                if self.whole(n):
                    return time.monotonic() - t0
            except (requests.RequestException, AssertionError, ValueError):
                self.session = None
            time.sleep(0.25)
        raise RuntimeError(f"{self.name}: not all {n} torrents listed {self.cfg.restart_wait} s after a restart")


def wait_listed(server, n, cfg):
    deadline = time.monotonic() + cfg.add_wait
    while (listed := server.count()) < n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {listed} of {n} torrents listed {cfg.add_wait} s after adding them")
        time.sleep(0.5)


def rows(server, cfg):
    """The request rows through `server`: {(endpoint, clients): (req/s, latencies ms, errors)}."""
    sessions = [server.q.session() for _ in range(max(CLIENTS))]
    out = {}
    for key, label in ENDPOINTS:
        for clients in CLIENTS:
            rps, lat, errors, _ = poll(server, sessions[:clients], key)
            out[(key, clients)] = rps, lat, errors
            print(f"  {server.name}: {label}, {clients} clients: {len(lat)} requests, {rps:,.1f} req/s, p50 "
                  f"{fmt(pct(lat, 50))} ms, p99 {fmt(pct(lat, 99))} ms" + (f", {errors} errors" if errors else ""),
                  flush=True)
    for s in sessions:
        s.close()
    return out


def change_seen(changer, watcher, hashes, cfg):
    """For each sample: setUploadLimit of one of `changer`'s torrents through it, while a client of `watcher` polls
    rid diffs; the ms from the change's answer until a diff shows it (after a diff that did not)."""
    s = watcher.q.session()
    rid = s.get(watcher.url("sync/maindata"), params={"rid": 0}, timeout=cfg.timeout).json()["rid"]
    seen = []
    for k in range(cfg.changes):
        h, limit = hashes[k % len(hashes)], (k + 1) * 10 * 1024 + 1024 * (k % 7)
        rid = s.get(watcher.url("sync/maindata"), params={"rid": rid}, timeout=cfg.timeout).json()["rid"]
        r = changer.session.post(changer.url("torrents/setUploadLimit"), data={"hashes": h, "limit": limit},
                                 timeout=cfg.timeout)
        r.raise_for_status()
        t0, deadline = time.monotonic(), time.monotonic() + 30
        while time.monotonic() < deadline:
            d = s.get(watcher.url("sync/maindata"), params={"rid": rid}, timeout=cfg.timeout).json()
            rid = d["rid"]
            if (d.get("torrents", {}).get(h) or {}).get("up_limit") == limit:
                seen.append((time.monotonic() - t0) * 1000)
                break
        else:
            raise RuntimeError(f"{watcher.name} did not show {changer.name}'s change within 30 s")
        time.sleep(0.2)
    s.close()
    return seen


def single_run(tmp, corpus, stopped, active, seeder, cfg, box):
    print(f"one qbtd holding all {cfg.torrents:,} torrents ...", flush=True)
    one = Server("single", tmp / "single", cfg, box)
    one.stopped, one.active = stopped, active
    try:
        one.start()
        s = one.login()
        t0 = time.monotonic()
        one.add(s)
        wait_listed(one, cfg.torrents, cfg)
        figures = {"add": time.monotonic() - t0}
        print(f"  single: added and listed in {figures['add']:.1f} s ({cfg.torrents / figures['add']:,.0f}/s)",
              flush=True)
        figures["connected"] = one.connect(seeder)
        figures["restart"] = one.restart(cfg.torrents)
        figures["connected"] = one.connect(seeder)
        print(f"  single: restarted, all listed in {figures['restart']:.1f} s; {figures['connected']}/{len(active)} "
              "active connected", flush=True)
        figures["rows"] = rows(one, cfg)
        figures["rss"] = one.rss()
        figures["seen"] = change_seen(one, one, [t.id for t in stopped[:50]], cfg)
        return figures
    finally:
        one.stop()


def share_run(tmp, stopped, active, cfg, box):
    """A single server holding one node's share: added, then restarted."""
    n = len(stopped) + len(active)
    print(f"one qbtd holding one node's share, {n:,} torrents ...", flush=True)
    one = Server("share", tmp / "share", cfg, box)
    one.stopped, one.active = stopped, active
    try:
        one.start()
        one.add(one.login())
        wait_listed(one, n, cfg)
        took = one.restart(n)
        print(f"  share: restarted, all {n:,} listed in {took:.1f} s", flush=True)
        return took
    finally:
        one.stop()


def cluster_run(tmp, stopped, active, seeder, cfg, box):
    url = fresh_database()
    names = [chr(ord("a") + i) for i in range(cfg.nodes)]
    print(f"a cluster of {cfg.nodes} nodes ({', '.join(names)}) on one PostgreSQL ...", flush=True)
    nodes = [Server(n, tmp / "cluster" / n, cfg, box, ["--cluster", url, "--node", n]) for n in names]
    for i, node in enumerate(nodes):
        node.stopped, node.active = stopped[i::cfg.nodes], active[i::cfg.nodes]
    first, second = nodes[0], nodes[1 % len(nodes)]
    figures = {}
    try:
        for node in nodes:
            node.start()
            node.login()
        errors = []

        def add(node):
            try:
                node.add(node.q.session(), node.name)
            except Exception as e:  # reported below
                errors.append(f"{node.name}: {e}")

        t0 = time.monotonic()
        threads = [threading.Thread(target=add, args=(node,), daemon=True) for node in nodes]
        for t in threads:
            t.start()
        for t in threads:
            t.join(cfg.add_wait)
        if errors:
            raise RuntimeError("; ".join(errors))
        wait_listed(first, cfg.torrents, cfg)
        figures["add"] = time.monotonic() - t0
        print(f"  cluster: added and listed through {first.name} in {figures['add']:.1f} s "
              f"({cfg.torrents / figures['add']:,.0f}/s)", flush=True)
        figures["connected"] = sum(node.connect(seeder) for node in nodes)
        figures["restart"] = second.restart(cfg.torrents)
        figures["connected"] = sum(node.connect(seeder) for node in nodes)
        print(f"  cluster: node {second.name} restarted, all {cfg.torrents:,} listed and none errored in "
              f"{figures['restart']:.1f} s; {figures['connected']}/{len(active)} active connected", flush=True)
        figures["rows"] = rows(first, cfg)
        figures["rss"] = {node.name: node.rss() for node in nodes}
        figures["seen"] = change_seen(second, first, [t.id for t in second.stopped[:50]], cfg)
        return figures
    finally:
        for node in nodes:
            node.stop()


def report(single, share, cluster, cfg, box):
    per = cfg.torrents // cfg.nodes
    print(f"\n{cfg.torrents:,} torrents ({cfg.active:,} downloading from a loopback seeder): one qbtd against "
          f"{cfg.nodes} nodes × {per:,} on one PostgreSQL; {box.describe()}; up to {cfg.count} requests per row "
          f"({cfg.row_time} s at most); 127.0.0.1\n")
    print("| endpoint (through one node) | clients | server | req/s | p50 ms | p99 ms | errors |")
    print("|---|---|---|---|---|---|---|")
    for key, label in ENDPOINTS:
        for clients in CLIENTS:
            for name, f in (("single", single), ("cluster", cluster)):
                rps, lat, errors = f["rows"][(key, clients)]
                print(f"| {label} | {clients} | {name} | {rps:,.1f} | {fmt(pct(lat, 50))} | {fmt(pct(lat, 99))} | "
                      f"{errors} |")
    single_rate, cluster_rate = cfg.torrents / single["add"], cfg.torrents / cluster["add"]
    mem = ", ".join(f"{n} {v / MiB:,.0f}" for n, v in cluster["rss"].items())
    print()
    print("| figure | single | cluster |")
    print("|---|---|---|")
    print(f"| adding {cfg.torrents:,} torrents | {single['add']:.1f} s ({single_rate:,.0f}/s) | {cluster['add']:.1f} s "
          f"({cluster_rate:,.0f}/s) |")
    print(f"| restart of a node until all listed | {share:.1f} s (holding {per:,}); {single['restart']:.1f} s "
          f"(holding {cfg.torrents:,}) | {cluster['restart']:.1f} s |")
    print(f"| resident memory, MiB | {single['rss'] / MiB:,.0f} | {mem} |")
    for name, f in (("single", single), ("cluster", cluster)):
        seen = f["seen"]
        print(f"| a change seen by a client, {name} | p50 {statistics.median(seen):.0f} ms, max {max(seen):.0f} ms "
              f"({len(seen)} samples) | |" if name == "single" else
              f"| a change seen by a client, {name} | | p50 {statistics.median(seen):.0f} ms, max {max(seen):.0f} ms "
              f"({len(seen)} samples) |")
    misses = 0
    p99 = pct(cluster["rows"][("rid", 32)][1], 99)
    checks = [(f"rid diff p99 at 32 clients through one node: {fmt(p99)} ms (target ≤ {RID_TARGET_MS} ms)",
               p99 <= RID_TARGET_MS),
              (f"adding: the cluster ×{cluster_rate / single_rate:.2f} one node's rate (target ≥ ×{ADD_TARGET:g})",
               cluster_rate / single_rate >= ADD_TARGET),
              (f"a node's restart: {cluster['restart']:.1f} s against {share:.1f} s for a single server with its "
               f"share: ×{cluster['restart'] / share:.2f} (target ≤ ×1)", cluster["restart"] <= share)]
    print()
    for text, ok in checks:
        misses += not ok
        print(f"{text}: {'PASS' if ok else 'MISS'}")
    return misses


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("torrents", nargs="?", type=int, help="torrents in all (default 100000; --smoke 1000)")
    p.add_argument("--nodes", type=int, default=4, help="nodes in the cluster (default 4)")
    p.add_argument("--active", type=int, help="downloading torrents among them (default 1000; --smoke 20)")
    p.add_argument("--node-cpu", type=float, default=0.45, help="a core's share each qbtd may use (0: no cap)")
    p.add_argument("--smoke", action="store_true", help="1,000 torrents, short rows")
    p.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    return p.parse_args()


def main():
    cfg = Config(arguments())
    if cfg.active > cfg.torrents or cfg.nodes < 2:
        sys.exit("more active torrents than torrents, or fewer than 2 nodes")
    box = CpuBox(cfg.node_cpu)
    try:
        with tempfile.TemporaryDirectory(prefix="qbtd-cluster-bench-") as tmp:
            tmp = Path(tmp)
            t0 = time.monotonic()
            print(f"generating {cfg.torrents:,} torrents ({cfg.active:,} active) ...", flush=True)
            corpus = Corpus(tmp / "corpus", cfg.active)
            stopped, active = corpus.stopped(cfg.torrents - cfg.active), corpus.active
            print(f"  generated in {time.monotonic() - t0:.1f} s; {box.describe()}", flush=True)
            seeder = Seeder(corpus)
            single = single_run(tmp, corpus, stopped, active, seeder, cfg, box)
            share = share_run(tmp, stopped[1::cfg.nodes], active[1::cfg.nodes], cfg, box)
            cluster = cluster_run(tmp, stopped, active, seeder, cfg, box)
            del seeder
            misses = report(single, share, cluster, cfg, box)
    finally:
        box.remove()
    print(f"\n{misses} target(s) missed" if misses else "\nevery target met")
    if cfg.strict and misses and not cfg.smoke:
        sys.exit(1)


if __name__ == "__main__":
    if not os.environ.get("QBTD_TEST_POSTGRES_URL"):
        import atexit
        import subprocess
        atexit.register(lambda: subprocess.run(["bash", str(SCRIPT), "stop"], check=False))
    main()
