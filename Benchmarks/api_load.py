#!/usr/bin/env python3
"""WebAPI load benchmark: `torrents/info` and `sync/maindata` with 2,000 torrents loaded, qbtd against
qbittorrent-nox in the same run.

Both servers get the same 2,000 stopped torrents (generated v1 metainfo, one 16 KiB file each, no data on disk,
no peers), then each endpoint is polled by CLIENTS concurrent clients for REQUESTS requests in all. Printed per
server and endpoint: requests per second, p50 and p99 latency; then each server's resident memory (VmRSS) after
the load, and the ratios qbtd / qbittorrent-nox. Everything stays on 127.0.0.1 with DHT, LSD, PeX, UPnP and
uTP off; every loop is bounded.

    api_load.py [TORRENTS] (default 2000)
"""
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import libtorrent as lt
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, vm, wait_for  # noqa: E402
from qbtnox import NOX, QbittorrentNox  # noqa: E402

TORRENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
REQUESTS = 60           # per endpoint and server (qbittorrent-nox needs ~0.5 s for one full listing of 2,000)
WARMUP = 4              # requests first, not counted
CLIENTS = 4             # concurrent pollers
BATCH = 100             # .torrent files per torrents/add request
DEADLINE = 90           # seconds at most per endpoint and server: a row may hold fewer requests


def make_torrents(n):
    """n distinct single-file v1 torrents; the piece hash is random, nothing is on disk."""
    out = []
    for i in range(n):
        fs = lt.file_storage()
        fs.add_file(f"bench-{i:05d}.bin", 16 * 1024)
        ct = lt.create_torrent(fs, 16 * 1024, flags=lt.create_torrent.v1_only)
        ct.set_hash(0, os.urandom(20))
        out.append(lt.bencode(ct.generate()))
    return out


def load(server, session, torrents, save):
    for start in range(0, len(torrents), BATCH):
        files = [("torrents", (f"t{start + j}.torrent", data, "application/x-bittorrent"))
                 for j, data in enumerate(torrents[start:start + BATCH])]
        r = session.post(server.base + "/api/v2/torrents/add", files=files,
                         data={"paused": "true", "stopped": "true", "savepath": str(save)}, timeout=120)
        assert r.status_code == 200, (r.status_code, r.text[:200])
    wait_for(lambda: len(session.get(server.base + "/api/v2/torrents/info", timeout=60).json()) == len(torrents),
             300, what=f"{len(torrents)} torrents listed")


def poll(server, session_factory, path, params_for, count=REQUESTS):
    """`count` requests from CLIENTS threads; returns (requests/s, latencies in ms)."""
    latencies, lock, done = [], threading.Lock(), [0]
    deadline = time.monotonic() + DEADLINE

    def worker():
        s = session_factory()
        rid = 0
        while time.monotonic() < deadline:
            with lock:
                if done[0] >= count:
                    return
                done[0] += 1
            t0 = time.perf_counter()
            r = s.get(server.base + "/api/v2/" + path, params=params_for(rid), timeout=60)
            elapsed = (time.perf_counter() - t0) * 1000
            r.raise_for_status()
            if path == "sync/maindata":
                rid = r.json().get("rid", 0)
            with lock:
                latencies.append(elapsed)

    threads = [threading.Thread(target=worker) for _ in range(CLIENTS)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return len(latencies) / wall, latencies


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def main():
    if not NOX:
        sys.exit("qbittorrent-nox is not installed: apt-get install qbittorrent-nox (make bench does)")
    print(f"generating {TORRENTS} torrents ...", flush=True)
    torrents = make_torrents(TORRENTS)
    endpoints = [
        ("torrents/info", lambda rid: {}),
        ("sync/maindata (full)", lambda rid: {"rid": 0}),
        ("sync/maindata (rid)", lambda rid: {"rid": rid}),
    ]
    results, memory = {}, {}
    with tempfile.TemporaryDirectory(prefix="qbtd-api-bench-") as tmp:
        tmp = Path(tmp)
        (tmp / "qbtd" / "data").mkdir(parents=True)
        servers = [("qbittorrent-nox", QbittorrentNox(tmp / "nox")), ("qbtd", Qbtd(tmp / "qbtd" / "data"))]
        for name, server in servers:
            server.start()
            try:
                save = server.save if name == "qbittorrent-nox" else tmp / "qbtd" / "data" / "downloads"
                t0 = time.monotonic()
                load(server, server.session(), torrents, save)
                print(f"{name}: {TORRENTS} torrents added and listed in {time.monotonic() - t0:.1f} s", flush=True)
                for label, params in endpoints:
                    path = label.split(" ")[0]
                    poll(server, server.session, path, params, WARMUP)
                    results[(name, label)] = poll(server, server.session, path, params)
                memory[name] = vm(server.proc.pid, "VmRSS") / (1 << 20)
            finally:
                server.stop()

    print(f"\n{TORRENTS} torrents, up to {REQUESTS} requests per row ({DEADLINE} s at most), {CLIENTS} concurrent "
          f"clients, 127.0.0.1\n")
    print("| endpoint | server | requests | req/s | p50 ms | p99 ms |")
    print("|---|---|---:|---:|---:|---:|")
    for label, _ in endpoints:
        for name, _ in servers:
            rps, lat = results[(name, label)]
            print(f"| `{label}` | {name} | {len(lat)} | {rps:.1f} | {statistics.median(lat):.1f} | {pct(lat, 99):.1f} |")
    print(f"\n| server | resident memory after the load |\n|---|---:|")
    for name, _ in servers:
        print(f"| {name} | {memory[name]:.0f} MiB |")
    print("\nratios qbtd / qbittorrent-nox (req/s: higher is better; p50, memory: lower is better)")
    for label, _ in endpoints:
        (a, la), (b, lb) = results[("qbtd", label)], results[("qbittorrent-nox", label)]
        print(f"  {label}: req/s x{a / b:.2f}, p50 x{statistics.median(la) / statistics.median(lb):.2f}")
    print(f"  memory: x{memory['qbtd'] / memory['qbittorrent-nox']:.2f}")


if __name__ == "__main__":
    main()
