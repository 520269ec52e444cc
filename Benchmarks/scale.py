#!/usr/bin/env python3
"""Scale benchmark: 10,000 torrents in qbtd and in qbittorrent-nox, the same torrents in the same run; then qbtd
alone at 200,000.

Torrents: generated metainfo, a mix of single-file and multi-file (2-4 files), v1-only and hybrid (v1+v2). All but
ACTIVE of them are added stopped, with no data on disk and no peers; the ACTIVE ones (200) are downloading from a
python-libtorrent seeder on 127.0.0.1 (connected with `torrents/addPeers`), its upload held at 1 KiB/s per torrent so
they stay downloading through the measurement. Rows, per server:

  - time to add all: every .torrent in `torrents/add` batches of 100, until `torrents/info` lists them all;
  - clean stop: SIGTERM to exit, once after the adds and once at the end of the run (after the requests and the
    idle window, the active torrents' counters changed);
  - restart: after the first stop, start again on the same data, until the first `torrents/info` listing all of them;
  - `torrents/info`, `sync/maindata` full (rid=0) and rid diffs (each client echoes the rid it got, after a full
    answer), each at 4 and 32 concurrent clients (one logged-in session each): requests/s, p50 and p99;
  - resident memory (VmRSS) after the requests;
  - CPU (user+system) while idle: no client for 60 s, the active torrents still downloading.

Then libtorrent alone: the same torrents (stopped ones paused, active ones on the same seeder) in a bare
python-libtorrent session of a child process that reads no alert and serves nothing, its CPU over a window as long
as the servers' (60 s) after 30 s of running. That is the floor of any server whose data libtorrent moves: what the idle window's transfers cost
the library itself (python-libtorrent 2.0.8, the version Debian 12's qbittorrent-nox links; qbtd builds from 2.0.11).

Then the ratios qbtd / qbittorrent-nox against the targets (req/s >= 10x on every row, a rid diff's p99 at 32
clients <= 50 ms, memory <= 0.5x, idle CPU <= 0.5x, restart <= 0.5x) with PASS or MISS. qbtd alone at 200,000 gets
the same rows, its clean stops against their target (<= 15 s, both), and its memory per torrent split into
libtorrent's share (the same torrents in a bare python-libtorrent session in a child process) and qbtd's own.

Everything stays on 127.0.0.1 with DHT, LSD, PeX, UPnP, NAT-PMP and uTP off; every loop and wait is bounded. The
exit status is 0 whatever the figures (it is a benchmark), unless --strict and a target is missed.

    scale.py [TORRENTS] [--alone N] [--active N] [--smoke] [--strict]

TORRENTS defaults to 10000, --alone to 200000 (qbtd only; 0 skips it). --smoke: 300 torrents, 20 active, a few
requests per row (20, 2 s at most), a 3 s idle window, no qbtd-alone part (runs in `make test`, no timing assertions).
"""
import argparse
import ctypes
import hashlib
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

import libtorrent as lt
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, free_port, loopback_session, vm, wait_for  # noqa: E402
from qbtnox import NOX, QbittorrentNox  # noqa: E402

KiB, MiB = 1 << 10, 1 << 20
RID = re.compile(rb'"rid":(\d+)')
BATCH = 100                   # .torrent files per torrents/add request
CONCURRENCY = (4, 8, 32)      # clients per request row (8: the memory row)
ACTIVE_SIZE = 2 * MiB         # payload of one active torrent
ACTIVE_RATE = 1 * KiB         # seeder upload per active torrent, bytes/s: 2 MiB last ~34 min
ENDPOINTS = [("info", "torrents/info"), ("full", "sync/maindata (full)"), ("rid", "sync/maindata (rid diff)")]
STOP_TARGET = 15              # seconds from SIGTERM to exit, qbtd alone (issue 40: 200,000 torrents)


# ----------------------------------------------------------------------------------------------------------------
# Torrents

# Layouts of the stopped torrents: (files, piece size), 30 to 180 pieces. Hybrid ones are hashed once over sparse zero files, then
# every torrent derived from a layout gets its own name (so its own info-hash) and random v1 piece hashes; the v2
# piece layers stay those of the layout, which keeps each hybrid torrent valid. Nothing of them is ever on disk.
STOPPED_SINGLE = [
    ([("s1.bin", 5 * MiB + 12345)], 128 * KiB),
    ([("s2.bin", 60 * MiB)], 512 * KiB),
    ([("s3.bin", 88 * MiB + 777)], 512 * KiB),
    ([("s4.bin", 226 * MiB)], 2 * MiB),
]
STOPPED_MULTI = [
    ([("m1/a.bin", 8 * MiB), ("m1/b.nfo", 300 * KiB + 1)], 256 * KiB),
    ([("m2/a.bin", 45 * MiB), ("m2/b.bin", 3 * MiB + 99), ("m2/c.txt", 12 * KiB)], 512 * KiB),
    ([("m3/a.bin", 50 * MiB), ("m3/b.bin", 38 * MiB), ("m3/c.bin", MiB + 3), ("m3/d.txt", 4 * KiB)], 512 * KiB),
    ([("m4/a.bin", 150 * MiB), ("m4/b.nfo", 21 * KiB)], MiB),
]
# Layouts of the active torrents: real content, ACTIVE_SIZE in all. Their files are hard links to a few random
# blobs, so the seeder's data costs ACTIVE_SIZE on disk whatever the number of active torrents.
ACTIVE_PIECE = 64 * KiB
ACTIVE_SINGLE = [[("x.bin", ACTIVE_SIZE)]]
ACTIVE_MULTI = [
    [("x/a.bin", MiB + 123457), ("x/b.bin", MiB - 123457)],
    [("x/a.bin", MiB), ("x/b.bin", 700001), ("x/c.bin", MiB - 700001)],
    [("x/a.bin", 768 * KiB), ("x/b.bin", 512 * KiB), ("x/c.bin", 500000), ("x/d.bin", 768 * KiB - 500000)],
]


def kind(i):
    """Torrent i of a set: (multi-file, hybrid), alternating so any prefix holds the four kinds about equally."""
    return i % 2 == 1, (i // 2) % 2 == 1


class Torrent:
    def __init__(self, name, data, info):
        self.name, self.data = name, data
        # qBittorrent's torrent ID (the `hash` of the WebAPI): the v2 info-hash cut to 40 digits when there is one
        # (hybrid torrents), else the v1 info-hash.
        bencoded = lt.bencode(info)
        self.id = hashlib.sha256(bencoded).hexdigest()[:40] if b"meta version" in info else \
            hashlib.sha1(bencoded).hexdigest()


class Corpus:
    """The torrents of a run, generated once and reused for every server (so the very same torrents)."""

    def __init__(self, work, active):
        self.work = Path(work)
        self.rng = random.Random(20250601)
        self.stopped_templates = {}
        for hybrid in (False, True):
            for multi, layouts in ((False, STOPPED_SINGLE), (True, STOPPED_MULTI)):
                self.stopped_templates[(multi, hybrid)] = [
                    self._template(self.work / "zeros", files, piece, hybrid, zeros=True) for files, piece in layouts]
        self._stopped = []
        self.seed_dir = self.work / "seed"
        self.active = self._make_active(active)

    @staticmethod
    def _template(root, files, piece, hybrid, zeros):
        fs = lt.file_storage()
        for path, size in files:
            fs.add_file(path, size)
        ct = lt.create_torrent(fs, piece, flags=0 if hybrid else lt.create_torrent.v1_only)
        if hybrid or not zeros:
            if zeros:
                for path, size in files:
                    p = root / path
                    p.parent.mkdir(parents=True, exist_ok=True)
                    with open(p, "wb") as f:
                        f.truncate(size)       # sparse: hashing reads zeros, the disk holds nothing
            lt.set_piece_hashes(ct, str(root))
        else:
            for i in range(ct.num_pieces()):
                ct.set_hash(i, b"\x01" * 20)   # replaced per torrent
        return lt.bdecode(lt.bencode(ct.generate()))

    def _derive(self, template, name, random_pieces):
        info = dict(template[b"info"])
        info[b"name"] = name.encode()
        if random_pieces:
            info[b"pieces"] = self.rng.randbytes(len(info[b"pieces"]))
        if b"file tree" in info and b"files" not in info and b"length" in info:
            (_, node), = info[b"file tree"].items()     # single file: the v2 tree is keyed by the name
            info[b"file tree"] = {name.encode(): node}
        out = {b"info": info, b"created by": b"qbtd scale benchmark", b"creation date": 1735689600}
        if b"piece layers" in template:
            out[b"piece layers"] = template[b"piece layers"]
        return Torrent(name, lt.bencode(out), info)

    def stopped(self, n):
        while len(self._stopped) < n:
            i = len(self._stopped)
            multi, hybrid = kind(i)
            templates = self.stopped_templates[(multi, hybrid)]
            name = f"scale-{i:05d}" + ("" if multi else ".bin")
            self._stopped.append(self._derive(templates[(i // 4) % len(templates)], name, True))
        return self._stopped[:n]

    def _make_active(self, n):
        blobs = self.work / "blobs"
        blobs.mkdir(parents=True, exist_ok=True)
        base = random.Random(7).randbytes(ACTIVE_SIZE)
        made = {}
        for hybrid in (False, True):
            for multi, layouts in ((False, ACTIVE_SINGLE), (True, ACTIVE_MULTI)):
                for k, files in enumerate(layouts):
                    root = self.work / "active-templates" / f"{int(multi)}{int(hybrid)}{k}"
                    for path, size in files:
                        self._blob(blobs, base, size, root / path)
                    made[(multi, hybrid, k)] = (files, self._template(root, files, ACTIVE_PIECE, hybrid, zeros=False))
        out = []
        for i in range(n):
            multi, hybrid = kind(i)
            k = (i // 4) % (len(ACTIVE_MULTI) if multi else len(ACTIVE_SINGLE))
            files, template = made[(multi, hybrid, k)]
            name = f"active-{i:03d}" + ("" if multi else ".bin")
            for path, size in files:    # the seeder's copy: hard links to the blobs
                rel = name if not multi else name + path[path.index("/"):]
                self._blob(blobs, base, size, self.seed_dir / rel)
            out.append(self._derive(template, name, False))
        return out

    @staticmethod
    def _blob(blobs, base, size, dest):
        blob = blobs / f"{size}.bin"
        if not blob.exists():
            blob.write_bytes(base[:size])
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists():
            os.link(blob, dest)


class Seeder:
    """One python-libtorrent session on 127.0.0.1 seeding every active torrent, ACTIVE_RATE each."""

    def __init__(self, corpus):
        self.port = free_port()
        self.session = loopback_session(self.port)
        self.session.apply_settings({"connections_limit": 5000, "unchoke_slots_limit": -1, "active_limit": -1,
                                     "active_seeds": -1, "active_downloads": -1})
        for t in corpus.active:
            p = lt.add_torrent_params()
            p.ti = lt.torrent_info(t.data)
            p.save_path = str(corpus.seed_dir)
            p.flags = lt.torrent_flags.seed_mode
            self.session.add_torrent(p).set_upload_limit(ACTIVE_RATE)

    @property
    def peer(self):
        return f"127.0.0.1:{self.port}"


# ----------------------------------------------------------------------------------------------------------------
# Servers

class Run:
    """One server's run: the rows of the benchmark for one set of torrents."""

    def __init__(self, name, server, save, torrents, active, cfg):
        self.name, self.server, self.save, self.cfg = name, server, Path(save), cfg
        self.torrents, self.active = torrents, active      # stopped ones, active ones
        self.n = len(torrents) + len(active)
        self.rows = {}                  # (endpoint, clients) -> (req/s, latencies ms, errors)
        self.peaks = {}                 # (endpoint, clients) -> the most resident memory during that row
        self.figures = {}               # name -> value

    def url(self, path):
        return f"{self.server.base}/api/v2/{path}"

    def count(self, s):
        r = s.get(self.url("torrents/info"), timeout=self.cfg.timeout)
        r.raise_for_status()
        return len(r.json())

    def add(self, s, torrents, save, stopped):
        flag = "true" if stopped else "false"
        for start in range(0, len(torrents), BATCH):
            files = [("torrents", (t.name + ".torrent", t.data, "application/x-bittorrent"))
                     for t in torrents[start:start + BATCH]]
            r = s.post(self.url("torrents/add"), files=files, timeout=self.cfg.timeout,
                       data={"paused": flag, "stopped": flag, "savepath": str(save)})
            if r.status_code != 200 or r.text.strip() != "Ok.":
                raise RuntimeError(f"{self.name}: torrents/add answered {r.status_code} {r.text[:200]!r}")

    def connect_active(self, s, seeder):
        """addPeers for the active torrents; waits (bounded) until each has the seeder; returns how many do."""
        if not self.active:
            return 0
        ids = [t.id for t in self.active]
        deadline = time.monotonic() + self.cfg.connect_wait
        connected = set()
        while True:
            missing = [i for i in ids if i not in connected]
            for k in range(0, len(missing), 50):
                s.post(self.url("torrents/addPeers"), timeout=self.cfg.timeout,
                       data={"hashes": "|".join(missing[k:k + 50]), "peers": seeder.peer}).raise_for_status()
            wait_until = min(deadline, time.monotonic() + 10)
            while time.monotonic() < wait_until:
                time.sleep(1)
                connected = set()
                for k in range(0, len(ids), 50):
                    got = s.get(self.url("torrents/info"), params={"hashes": "|".join(ids[k:k + 50])},
                                timeout=self.cfg.timeout)
                    connected |= {t["hash"] for t in got.json() if t.get("num_seeds", 0) > 0 or t.get("dlspeed", 0) > 0}
                if len(connected) == len(ids):
                    return len(connected)
            if time.monotonic() >= deadline:
                return len(connected)

    def start(self):
        """Starts the server; returns the monotonic time just before its process started."""
        t0 = time.monotonic()
        try:
            self.server.start()
        except AssertionError:
            # The fixtures give a server 60 s to listen; one that takes longer with many torrents still counts.
            if self.server.proc is None or self.server.proc.poll() is not None:
                raise
        return t0

    def stop(self, timeout=None):
        """SIGTERM and wait (bounded; SIGKILL past it); returns the seconds it took to exit."""
        p = self.server.proc
        if p is None or p.poll() is not None:
            return 0.0
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout or self.cfg.stop_wait)
        except subprocess.TimeoutExpired:
            print(f"  {self.name} did not exit within {timeout or self.cfg.stop_wait} s of SIGTERM: killed", flush=True)
            p.kill()
            p.wait(30)
        return time.monotonic() - t0

    def first_full_answer(self, t0):
        """Polls until a `torrents/info` answer lists every torrent; returns (seconds since t0, logged-in session)."""
        s = None
        while time.monotonic() - t0 < self.cfg.restart_wait:
            if self.server.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.server.proc.returncode} while restarting")
            try:
                s = s or self.server.session()
                if self.count(s) == self.n:
                    return time.monotonic() - t0, s
            except (requests.RequestException, AssertionError, ValueError):
                s = None
            time.sleep(0.25)
        raise RuntimeError(f"{self.name}: not all {self.n} torrents listed {self.cfg.restart_wait} s after a restart")

    def rss(self):
        return vm(self.server.proc.pid, "VmRSS")

    def cpu_seconds(self):
        return process_cpu(self.server.proc.pid)

    def threads(self):
        """{thread id: (kind, CPU seconds so far)}, kind "libtorrent" or "rest". qbtd names libtorrent's threads
        "libtorrent"; qbittorrent-nox names every thread alike, so there the rest is its main (Qt event loop) thread
        and every other thread counts as libtorrent's."""
        pid = self.server.proc.pid
        found = {}
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                raw = (task / "stat").read_text()
            except OSError:
                continue  # a thread that just ended
            name = raw[raw.index("(") + 1:raw.rindex(")")]
            fields = raw.rsplit(")", 1)[1].split()
            seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            mine = name == "libtorrent" if self.name == "qbtd" else int(task.name) != pid
            found[int(task.name)] = ("libtorrent" if mine else "rest", seconds)
        return found

    def idle_split(self, seconds):
        """Sleeps `seconds`, reading the threads every second; returns what each kind used meanwhile. Threads come
        and go (idle disk and pool threads end): each counts from its first reading (0 if born meanwhile) to its
        last, so one that ends does not take what it used before the window out of the sum."""
        start = self.threads()
        seen = dict(start)
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(1.0, left))
            seen.update(self.threads())
        split = {"libtorrent": 0.0, "rest": 0.0}
        for tid, (kind, used) in seen.items():
            split[kind] += used - (start[tid][1] if tid in start else 0.0)
        return split

    def execute(self, seeder, empty_rss=False):
        cfg = self.cfg
        self.start()
        if empty_rss:
            time.sleep(2)
            self.figures["rss empty"] = self.rss()
        s = self.server.session()
        t0 = time.monotonic()
        self.add(s, self.torrents, self.save, True)
        self.add(s, self.active, self.save / "active", False)
        wait_for(lambda: self.count(s) == self.n, cfg.add_wait, interval=1, what=f"{self.n} torrents listed")
        self.figures["add"] = time.monotonic() - t0
        print(f"  {self.name}: {self.n} torrents added and listed in {self.figures['add']:.1f} s", flush=True)
        connected = self.connect_active(s, seeder)
        print(f"  {self.name}: {connected}/{len(self.active)} active torrents connected to the seeder", flush=True)
        if empty_rss:
            self.figures["rss added"] = self.rss()

        self.figures["stop"] = self.stop()
        t0 = self.start()
        self.figures["restart"], s = self.first_full_answer(t0)
        print(f"  {self.name}: stopped in {self.figures['stop']:.1f} s; restarted, all {self.n} listed "
              f"{self.figures['restart']:.1f} s after its start", flush=True)
        self.figures["connected"] = self.connect_active(s, seeder)
        print(f"  {self.name}: {self.figures['connected']}/{len(self.active)} active torrents connected to the "
              f"seeder", flush=True)

        time.sleep(2)
        self.figures["rss before requests"] = self.rss()
        sessions = [self.server.session() for _ in range(max(CONCURRENCY))]
        for key, label in ENDPOINTS:
            for clients in CONCURRENCY:
                with PeakRSS(self.server.proc.pid) as peak:
                    rps, lat, errors, client_cpu = poll(self, sessions[:clients], key)
                self.rows[(key, clients)] = rps, lat, errors
                self.peaks[(key, clients)] = peak.most
                print(f"  {self.name}: {label}, {clients} clients: {len(lat)} requests, {rps:.1f} req/s, "
                      f"p99 {fmt(pct(lat, 99))} ms" + (f", {errors} errors" if errors else "") +
                      f" (the clients used {client_cpu:.0%} of a core); peak resident {peak.most / MiB:,.0f} MiB",
                      flush=True)
        self.figures["rss"] = self.rss()
        time.sleep(2)
        c0, w0 = self.cpu_seconds(), time.monotonic()
        split = self.idle_split(cfg.idle)
        scale_to = cfg.idle / (time.monotonic() - w0)
        self.figures["idle cpu"] = (self.cpu_seconds() - c0) * scale_to
        self.figures["idle split"] = {k: v * scale_to for k, v in split.items()}
        rest = "qbtd's own threads" if self.name == "qbtd" else "its main thread"
        print(f"  {self.name}: {self.figures['rss'] / MiB:.0f} MiB resident, {self.figures['idle cpu']:.2f} s CPU "
              f"in {cfg.idle} s idle (libtorrent's threads {self.figures['idle split']['libtorrent']:.2f} s, "
              f"{rest} {self.figures['idle split']['rest']:.2f} s)", flush=True)
        self.answer_costs = answer_costs(self, sessions[0], self.figures["idle cpu"] / cfg.idle)
        for x in sessions:
            x.close()
        self.figures["final stop"] = self.stop()
        print(f"  {self.name}: stopped in {self.figures['final stop']:.1f} s at the end of the run", flush=True)

    def log_tail(self, lines=30):
        log = getattr(self.server, "log", None)
        if log is None:
            return ""
        try:
            return "\n".join(Path(log.name).read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


CLIENT_PROCESSES = 4   # a row's clients are spread over this many processes (threads within each)
COST_TRIES = 5


def answer_costs(run, session, idle_rate):
    """What one full answer costs the server: one client, one request at a time (COST_TRIES each), the server's CPU
    across each request less what it spends idle in as long (the active torrents' transfers); the median, with the
    answer's size, for `torrents/info` and a full `sync/maindata`, uncompressed and gzipped. Against the gzipped
    answer's extra cost, the compressor's own: zlib at the server's level (1) deflating the same bytes here."""
    costs = {}
    for path, params in (("torrents/info", {}), ("sync/maindata", {"rid": 0})):
        body = b""
        for encoding in ("identity", "gzip"):
            spent, size = [], 0
            for _ in range(COST_TRIES):
                c0, w0 = run.cpu_seconds(), time.monotonic()
                with session.get(run.url(path), params=params, headers={"Accept-Encoding": encoding}, stream=True,
                                 timeout=run.cfg.timeout) as r:
                    r.raise_for_status()
                    chunks = list(r.raw.stream(1 << 20, decode_content=False))
                spent.append(run.cpu_seconds() - c0 - idle_rate * (time.monotonic() - w0))
                size = sum(len(chunk) for chunk in chunks)
                if encoding == "identity":
                    body = b"".join(chunks)
                del chunks
            costs[(path, encoding)] = (statistics.median(spent), size)
            print(f"  {run.name}: a full {path} ({encoding}, {size / 1e6:,.1f} MB): {statistics.median(spent):.3f} s of server CPU "
                  f"per answer (median of {COST_TRIES}, idle CPU subtracted)", flush=True)
        if body and size < len(body):  # the server gzipped it
            own = []
            for _ in range(3):
                c0 = time.thread_time()  # this thread's alone: the seeder's threads share the process
                deflate = zlib.compressobj(1, zlib.DEFLATED, 31)
                deflate.compress(body)
                deflate.flush()
                own.append(time.thread_time() - c0)
            extra = costs[(path, "gzip")][0] - costs[(path, "identity")][0]
            costs[(path, "zlib")] = (min(own), 0)
            print(f"  {run.name}: gzip adds {extra:.3f} s to a full {path}; zlib level 1 alone deflates the same "
                  f"{len(body) / 1e6:,.1f} MB in {min(own):.3f} s (best of 3): ×{extra / min(own):.2f} of the compressor's "
                  f"own cost", flush=True)
    return costs


class PeakRSS:
    """The most resident memory a process had while the block ran, read every 50 ms."""

    def __init__(self, pid):
        self.pid, self.most, self.done = pid, 0, threading.Event()

    def sample(self):
        while not self.done.is_set():
            try:
                self.most = max(self.most, vm(self.pid, "VmRSS"))
            except (OSError, ValueError, AssertionError):  # the process just ended
                pass
            self.done.wait(0.05)

    def __enter__(self):
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join(5)


def poll(run, sessions, key):
    """Every session polls `key` in a thread of its own until run.cfg.count requests in all or the row's deadline.

    The threads are spread over CLIENT_PROCESSES processes: in one Python process, 32 clients queue for its one GIL
    and a row would time that queue (a `rid` row's p99 was ~65 ms with one process against ~20 ms with four).
    Each client keeps its session's cookie. Warm-up (not counted): one request each; for rid diffs a full answer
    and then one diff, so what is measured is the steady state of a client that echoes the rid it got. Returns
    (requests/s, latencies in ms, errors, the clients' CPU as a share of one core)."""
    import multiprocessing
    cfg = run.cfg
    path = "torrents/info" if key == "info" else "sync/maindata"
    url = run.url(path)
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(len(sessions))
    issued, start = ctx.Value("i", 0), ctx.Value("d", 0.0)
    results = ctx.Queue()
    cookies = [requests.utils.dict_from_cookiejar(s.cookies) for s in sessions]
    groups = [cookies[i::CLIENT_PROCESSES] for i in range(min(CLIENT_PROCESSES, len(cookies)))]

    def get(s, rid):
        params = {} if key == "info" else {"rid": 0 if key == "full" else rid}
        # Full listings are read as they come and let go (gunzipped, as a client reads them), so 32 clients of a
        # 250 MB listing do not hold 32 copies here.
        # A rid poll's first answer is a full one too: its rid (written before "torrents", keys being sorted) is
        # taken from the start, not by decoding 250 MB in each of 32 threads (that ran a client out of memory).
        with s.get(url, params=params, timeout=cfg.timeout, stream=True) as r:
            if r.status_code != 200:
                raise requests.HTTPError(f"{r.status_code}")
            head, found = b"", None
            for chunk in r.iter_content(1 << 20):
                if key == "rid" and found is None:
                    head += chunk
                    found = RID.search(head)
            if key != "rid":
                return 0
            if found is None:
                raise ValueError("no rid in the answer")
            return int(found.group(1))

    def process(group):
        lock = threading.Lock()
        latencies, ends, first_error, errors = [], [], [], [0]

        def worker(jar):
            s = requests.Session()
            s.cookies = requests.utils.cookiejar_from_dict(jar)
            rid = 0
            try:
                rid = get(s, 0)
                if key == "rid":
                    rid = get(s, rid)
            except (requests.RequestException, ValueError, KeyError):
                pass
            try:
                barrier.wait(timeout=cfg.warmup_wait)
            except threading.BrokenBarrierError:
                pass
            with start.get_lock():
                if start.value == 0:
                    start.value = time.perf_counter()    # CLOCK_MONOTONIC: the same clock in every process
                began = start.value
            deadline = began + cfg.row_time
            while time.perf_counter() < deadline:
                with issued.get_lock():
                    if issued.value >= cfg.count:
                        break
                    issued.value += 1
                t0 = time.perf_counter()
                try:
                    rid = get(s, rid)
                    ok = True
                except (requests.RequestException, ValueError, KeyError) as e:
                    ok = False
                    with lock:
                        first_error.append(f"{type(e).__name__}: {str(e)[:160]}")
                t1 = time.perf_counter()
                with lock:
                    (latencies.append((t1 - t0) * 1000) if ok else errors.__setitem__(0, errors[0] + 1))
                    ends.append(t1)
                if not ok:
                    time.sleep(0.1)

        threads = [threading.Thread(target=worker, args=(jar,), daemon=True) for jar in group]
        for t in threads:
            t.start()
        for t in threads:
            t.join(cfg.warmup_wait + cfg.row_time + 2 * cfg.timeout)
        results.put((latencies, ends, errors[0], first_error[:1]))

    def cpu():
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    c0, w0 = cpu(), time.perf_counter()
    processes = [ctx.Process(target=process, args=(group,), daemon=True) for group in groups]
    for p in processes:
        p.start()
    latencies, ends, errors, first_error = [], [], 0, []
    for _ in processes:
        got = results.get(timeout=cfg.warmup_wait + cfg.row_time + 3 * cfg.timeout)
        latencies += got[0]
        ends += got[1]
        errors += got[2]
        first_error += got[3]
    for p in processes:
        p.join(30)
    client_cpu = (cpu() - c0) / (time.perf_counter() - w0)     # the clients' share of a core, warm-up included
    wall = (max(ends) - start.value) if ends and start.value else 0
    if first_error:
        print(f"  {run.name}: {errors} failed request(s), the first: {first_error[0]}", flush=True)
    return (len(latencies) / wall if wall > 0 else 0.0), latencies, errors, client_cpu


# ----------------------------------------------------------------------------------------------------------------
# libtorrent's share of the memory: the same torrents, stopped, in a bare session of a child process

def libtorrent_rss_child(path, save):
    libc = ctypes.CDLL("libc.so.6")
    session = lt.session({"listen_interfaces": "127.0.0.1:0", "enable_dht": False, "enable_lsd": False,
                          "enable_upnp": False, "enable_natpmp": False, "enable_outgoing_utp": False,
                          "enable_incoming_utp": False, "alert_mask": 0, "alert_queue_size": 100})
    time.sleep(1)
    libc.malloc_trim(0)
    before = vm(os.getpid(), "VmRSS")
    n = 0
    for info in read_torrents(path):
        p = lt.add_torrent_params()
        p.ti = info
        p.save_path = save
        p.flags = lt.torrent_flags.paused
        session.async_add_torrent(p)
        n += 1
    wait_for(lambda: len(session.get_torrents()) == n, 600, interval=0.5, what=f"{n} torrents in the session")
    time.sleep(2)
    libc.malloc_trim(0)
    after = vm(os.getpid(), "VmRSS")
    print(json.dumps({"torrents": n, "before": before, "after": after}), flush=True)
    # Measured: no session teardown. Debian's libtorrent (2.0.8) takes each torrent out of its download queue one by
    # one, renumbering every torrent behind it: minutes at 200,000 (qbtd's libtorrent is patched, shutdown-linear.patch).
    os._exit(0)


def libtorrent_share(torrents, work):
    path = work / "torrents.bin"
    write_torrents(torrents, path)
    try:
        out = subprocess.run([sys.executable, __file__, "--libtorrent-rss", str(path), str(work / "save")],
                             capture_output=True, text=True, timeout=1800)
    finally:
        path.unlink()
    if out.returncode != 0:
        raise RuntimeError(f"libtorrent child failed: {out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return (got["after"] - got["before"]) / got["torrents"]


# ----------------------------------------------------------------------------------------------------------------
# libtorrent's share of the idle CPU: the same transfers in a bare session of a child process, nothing else running

def write_torrents(torrents, path):
    with open(path, "wb") as f:
        for t in torrents:
            f.write(struct.pack("<I", len(t.data)) + t.data)


def read_torrents(path):
    with open(path, "rb") as f:
        while header := f.read(4):
            yield lt.torrent_info(f.read(struct.unpack("<I", header)[0]))


def libtorrent_idle_child(stopped, active, peer_port, save, connect_wait):
    """The stopped torrents paused, the active ones started and given the seeder; prints how many have it, then sleeps
    (at most an hour) until the parent, which measures its CPU, kills it. No alert is asked for or read."""
    session = lt.session({"listen_interfaces": "127.0.0.1:0", "enable_dht": False, "enable_lsd": False,
                          "enable_upnp": False, "enable_natpmp": False, "enable_outgoing_utp": False,
                          "enable_incoming_utp": False, "allow_multiple_connections_per_ip": True,
                          "connections_limit": 5000, "alert_mask": 0, "alert_queue_size": 100})
    for info in read_torrents(stopped):
        p = lt.add_torrent_params()
        p.ti, p.save_path = info, save
        p.flags = (p.flags | lt.torrent_flags.paused) & ~lt.torrent_flags.auto_managed
        session.async_add_torrent(p)
    handles = []
    for info in read_torrents(active):
        p = lt.add_torrent_params()
        p.ti, p.save_path = info, str(Path(save) / "active")
        p.flags = p.flags & ~lt.torrent_flags.auto_managed & ~lt.torrent_flags.paused
        handles.append(session.add_torrent(p))
    for h in handles:
        h.connect_peer(("127.0.0.1", int(peer_port)))
    connected = lambda: sum(h.status().num_peers > 0 for h in handles)
    deadline = time.monotonic() + float(connect_wait)
    while connected() < len(handles) and time.monotonic() < deadline:
        time.sleep(0.5)
    print(connected(), flush=True)
    for _ in range(3600):
        time.sleep(1)


def libtorrent_idle(stopped, active, seeder, work, cfg):
    """CPU seconds of the bare session over cfg.idle, after cfg.settle seconds of running (a server's window comes after
    its request rows, minutes later); (seconds, connected)."""
    (work / "bare").mkdir()
    write_torrents(stopped, work / "stopped.bin")
    write_torrents(active, work / "active.bin")
    child = subprocess.Popen([sys.executable, __file__, "--libtorrent-idle", str(work / "stopped.bin"),
                              str(work / "active.bin"), str(seeder.port), str(work / "bare"), str(cfg.connect_wait)],
                             stdout=subprocess.PIPE, text=True)
    try:
        # The child says how many active torrents have the seeder within connect_wait; adding the stopped ones first
        # takes a while with many. A child that says nothing by then is a failure, not a hang.
        ready, _, _ = select.select([child.stdout], [], [], cfg.connect_wait + cfg.add_wait)
        if not ready:
            raise RuntimeError("the bare libtorrent session did not start")
        connected = int(child.stdout.readline() or 0)
        time.sleep(cfg.settle)
        c0, w0 = process_cpu(child.pid), time.monotonic()
        time.sleep(cfg.idle)
        return (process_cpu(child.pid) - c0) * cfg.idle / (time.monotonic() - w0), connected
    finally:
        child.kill()
        child.wait()
        shutil.rmtree(work / "bare", ignore_errors=True)
        for name in ("stopped.bin", "active.bin"):
            (work / name).unlink(missing_ok=True)


def process_cpu(pid):
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")      # utime + stime


# ----------------------------------------------------------------------------------------------------------------
# Output

def pct(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def fmt(x, digits=1):
    return "—" if x != x else f"{x:,.{digits}f}"


def verdict(ok):
    return "PASS" if ok else "MISS"


def row_table(runs):
    print("| endpoint | clients | server | requests | errors | req/s | p50 ms | p99 ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for key, label in ENDPOINTS:
        for clients in CONCURRENCY:
            for run in runs:
                if (key, clients) not in run.rows:
                    continue
                rps, lat, errors = run.rows[(key, clients)]
                p50 = statistics.median(lat) if lat else float("nan")
                print(f"| `{label}` | {clients} | {run.name} | {len(lat)} | {errors} | {fmt(rps)} | {fmt(p50)} | "
                      f"{fmt(pct(lat, 99))} |")


def figure_table(runs, active):
    print("| server | time to add all | restart to all listed | stop after the adds | stop at the end | active connected | "
          "memory before requests | resident memory after | idle CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        f = run.figures
        print(f"| {run.name} | {f['add']:.1f} s | {f['restart']:.1f} s | {f['stop']:.1f} s | {f['final stop']:.1f} s "
              f"| {f['connected']}/{active} | {f['rss before requests'] / MiB:,.0f} MiB | {f['rss'] / MiB:,.0f} MiB "
              f"| {f['idle cpu']:.2f} s |")


def memory_table(run, lt_per_torrent):
    """qbtd's resident memory per torrent over the empty server's, split into libtorrent's share and qbtd's own."""
    f, n = run.figures, run.n
    points = [("right after adding", f["rss added"]), ("after the restart, before requests", f["rss before requests"]),
              ("after the requests", f["rss"])]
    print(f"qbtd's memory per torrent, {n:,} torrents (the empty server: {f['rss empty'] / MiB:,.0f} MiB; "
          f"libtorrent's share: the same torrents, stopped, in a bare python-libtorrent session)\n")
    print("| per torrent | " + " | ".join(label for label, _ in points) + " |")
    print("|---|" + "---:|" * len(points))
    grown = [(rss - f["rss empty"]) / n for _, rss in points]
    print("| qbtd, growth over the empty server | " + " | ".join(f"{g / KiB:,.1f} KiB" for g in grown) + " |")
    print("| of which libtorrent | " + " | ".join(f"{lt_per_torrent / KiB:,.1f} KiB" for _ in grown) + " |")
    print("| of which qbtd's own | " + " | ".join(f"{(g - lt_per_torrent) / KiB:,.1f} KiB" for g in grown) + " |")
    print(f"| all {n:,} torrents (qbtd's growth) | " + " | ".join(f"{g * n / MiB:,.0f} MiB" for g in grown) + " |")


def ratio_table(q, nox, bare, cfg):
    """qbtd / qbittorrent-nox per row with its target; returns the number of misses."""
    misses = 0
    print("| row | qbtd | qbittorrent-nox | qbtd / nox | target | |")
    print("|---|---:|---:|---:|---|---|")

    def line(label, a, b, unit, target, ok, digits=1):
        nonlocal misses
        ratio = a / b if b else float("nan")
        mark = "" if ok is None else verdict(ok)
        misses += ok is False
        shown = fmt(ratio, 2) + ("×" if ratio == ratio else "")
        print(f"| {label} | {fmt(a, digits)}{unit} | {fmt(b, digits)}{unit} | {shown} | {target} | {mark} |")
        return ratio

    line("time to add all", q.figures["add"], nox.figures["add"], " s", "—", None)
    r = q.figures["restart"] / nox.figures["restart"] if nox.figures["restart"] else float("inf")
    line("restart to all listed", q.figures["restart"], nox.figures["restart"], " s", "≤ 0.5×", r <= 0.5)
    for key, label in ENDPOINTS:
        for clients in CONCURRENCY:
            a, b = q.rows[(key, clients)][0], nox.rows[(key, clients)][0]
            ok = a > 0 and (b == 0 or a / b >= 10)
            line(f"`{label}` {clients} clients, req/s", a, b, "", "≥ 10×", ok)
    lat_q, lat_n = q.rows[("rid", 32)][1], nox.rows[("rid", 32)][1]
    p99 = pct(lat_q, 99)
    line("`sync/maindata (rid diff)` 32 clients, p99", p99, pct(lat_n, 99), " ms", "≤ 50 ms", p99 <= 50)
    r = q.figures["rss"] / nox.figures["rss"]
    line("resident memory", q.figures["rss"] / MiB, nox.figures["rss"] / MiB, " MiB", "≤ 0.5×", r <= 0.5, 0)
    a, b = q.figures["idle cpu"], nox.figures["idle cpu"]
    line(f"CPU over {cfg.idle} s idle", a, b, " s", "≤ 0.5×", a <= 0.5 * b or a == b == 0, 2)
    qs, ns = q.figures["idle split"], nox.figures["idle split"]
    line("  of which libtorrent's threads", qs["libtorrent"], ns["libtorrent"], " s", "—", None, 2)
    line("  of which the rest (qbtd's own; nox's main thread)", qs["rest"], ns["rest"], " s", "—", None, 2)
    print(f"\nlibtorrent alone (the same torrents and transfers in a bare session, nothing else): {bare[0]:.2f} s in "
          f"{cfg.idle} s, x{bare[0] / b if b else float('nan'):.2f} of qbittorrent-nox's idle CPU and "
          f"x{bare[0] / a if a else float('nan'):.2f} of qbtd's")
    return misses


# ----------------------------------------------------------------------------------------------------------------

class Config:
    def __init__(self, a):
        self.smoke = a.smoke
        self.torrents = 300 if a.smoke and a.torrents is None else (a.torrents or 10000)
        self.alone = 0 if a.smoke and a.alone is None else (200000 if a.alone is None else a.alone)
        self.active = a.active if a.active is not None else (20 if a.smoke else 200)
        self.idle = 3 if a.smoke else 60                 # seconds without clients for the idle CPU
        self.settle = 2 if a.smoke else 30               # seconds the bare libtorrent session runs before that
        self.row_time = 2 if a.smoke else 60             # seconds at most per request row (measured part)
        self.count = 20 if a.smoke else 5000             # requests at most per row
        self.warmup_wait = 60 if a.smoke else 600        # seconds for every client's warm-up of a row
        self.timeout = 120 if a.smoke else 600           # one request
        self.add_wait = 300 if a.smoke else 3600         # all torrents listed after the adds
        self.restart_wait = 300 if a.smoke else 3600     # all torrents listed after a restart
        self.stop_wait = 120 if a.smoke else 900         # SIGTERM to exit
        self.connect_wait = 60 if a.smoke else 120       # active torrents connected to the seeder
        self.strict = a.strict
        self.alone_only = a.alone_only and bool(self.alone)


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("torrents", nargs="?", type=int, help="torrents in the comparison (default 10000; --smoke 300)")
    p.add_argument("--alone", type=int, help="torrents in the qbtd-alone part (default 200000, 0 skips it)")
    p.add_argument("--active", type=int, help="active torrents among them (default 200; --smoke 20)")
    p.add_argument("--smoke", action="store_true", help="300 torrents, short rows, no qbtd-alone part")
    p.add_argument("--alone-only", action="store_true", help="the qbtd-alone part only (no comparison)")
    p.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    return p.parse_args()


def run_phase(name, make_server, save, corpus, n, seeder, cfg, empty_rss=False):
    server = make_server()
    run = Run(name, server, save(server), corpus.stopped(n - len(corpus.active)), corpus.active, cfg)
    try:
        run.execute(seeder, empty_rss)
    except Exception:
        print(f"{name} failed; the end of its log:\n{run.log_tail()}", file=sys.stderr, flush=True)
        raise
    finally:
        run.stop(30)
    return run


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--libtorrent-rss":
        return libtorrent_rss_child(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 7 and sys.argv[1] == "--libtorrent-idle":
        return libtorrent_idle_child(*sys.argv[2:])
    cfg = Config(arguments())
    if not NOX:
        sys.exit("qbittorrent-nox is not installed: apt-get install qbittorrent-nox (make bench does)")
    if cfg.active > cfg.torrents or (cfg.alone and cfg.active > cfg.alone):
        sys.exit("more active torrents than torrents")
    misses = 0
    with tempfile.TemporaryDirectory(prefix="qbtd-scale-") as tmp:
        tmp = Path(tmp)
        t0 = time.monotonic()
        print(f"generating {max(cfg.torrents, cfg.alone)} torrents ({cfg.active} active) ...", flush=True)
        corpus = Corpus(tmp / "corpus", cfg.active)
        corpus.stopped(max(cfg.torrents, cfg.alone) - cfg.active)
        print(f"  generated in {time.monotonic() - t0:.1f} s", flush=True)
        seeder = Seeder(corpus)

        def qbtd(root):
            def make():
                (root / "data").mkdir(parents=True)
                return Qbtd(root / "data", resume_interval=15)
            return make

        runs = []
        if not cfg.alone_only:
            print(f"qbittorrent-nox and qbtd, {cfg.torrents} torrents ...", flush=True)
            runs.append(run_phase("qbittorrent-nox", lambda: QbittorrentNox(tmp / "nox"), lambda s: s.save,
                                  corpus, cfg.torrents, seeder, cfg))
            shutil.rmtree(tmp / "nox", ignore_errors=True)
            runs.append(run_phase("qbtd", qbtd(tmp / "qbtd"), lambda s: s.data_dir / "downloads",
                                  corpus, cfg.torrents, seeder, cfg))
            shutil.rmtree(tmp / "qbtd", ignore_errors=True)
            nox, q = runs
            print(f"libtorrent alone with the same {cfg.torrents} torrents and transfers (child process) ...", flush=True)
            bare = libtorrent_idle(nox.torrents, nox.active, seeder, tmp, cfg)
            print(f"  a bare libtorrent session: {bare[0]:.2f} s CPU in {cfg.idle} s idle, {bare[1]}/{cfg.active} "
                  "active connected", flush=True)

        alone = None
        if cfg.alone:
            print(f"qbtd alone, {cfg.alone} torrents ...", flush=True)
            alone = run_phase("qbtd", qbtd(tmp / "alone"), lambda s: s.data_dir / "downloads",
                              corpus, cfg.alone, seeder, cfg, empty_rss=True)
            shutil.rmtree(tmp / "alone", ignore_errors=True)
            print("  libtorrent alone with the same torrents (child process) ...", flush=True)
            lt_per_torrent = libtorrent_share(alone.torrents + alone.active, tmp)
        del seeder

        if runs:
            print(f"\n{cfg.torrents:,} torrents ({cfg.torrents - cfg.active:,} stopped, {cfg.active} downloading from a "
                  f"loopback seeder), single- and multi-file, v1 and hybrid; up to {cfg.count} requests per row "
                  f"({cfg.row_time} s at most); 127.0.0.1\n")
            row_table(runs)
            print()
            figure_table(runs, cfg.active)
            print(f"\nratios qbtd / qbittorrent-nox, {cfg.torrents:,} torrents" +
                  (" (smoke run: figures only, no assertion)" if cfg.smoke else "") + "\n")
            misses += ratio_table(q, nox, bare, cfg)

        if alone:
            print(f"\nqbtd alone, {cfg.alone:,} torrents ({cfg.alone - cfg.active:,} stopped, {cfg.active} "
                  f"downloading)\n")
            row_table([alone])
            print()
            figure_table([alone], cfg.active)
            p99 = pct(alone.rows[("rid", 32)][1], 99)
            ok = p99 <= 50
            misses += not ok
            print(f"\n`sync/maindata (rid diff)` at 32 clients: p99 {fmt(p99)} ms (target ≤ 50 ms): {verdict(ok)}")
            stops = (alone.figures["stop"], alone.figures["final stop"])
            ok = max(stops) <= STOP_TARGET
            misses += not ok
            print(f"clean stop (SIGTERM to exit): {stops[0]:.1f} s after the adds, {stops[1]:.1f} s at the end "
                  f"(target ≤ {STOP_TARGET} s): {verdict(ok)}")
            before = alone.figures["rss before requests"]
            for key, label in ENDPOINTS[:2]:
                for clients in CONCURRENCY:
                    if (key, clients) in alone.peaks:
                        peak = alone.peaks[(key, clients)]
                        print(f"`{label}` at {clients} clients: peak resident {peak / MiB:,.0f} MiB, "
                              f"{(peak - before) / MiB:+,.0f} MiB over the memory before the requests")
            print()
            memory_table(alone, lt_per_torrent)

    print(f"\n{misses} target(s) missed" if misses else "\nevery target met")
    if cfg.strict and misses and not cfg.smoke:
        sys.exit(1)


if __name__ == "__main__":
    main()
