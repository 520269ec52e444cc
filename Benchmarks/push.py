#!/usr/bin/env python3
"""Push benchmark (issue 40, item 1): sync/maindata pushed over Server-Sent Events against rid polling.

qbtd holds 10,000 torrents (scale.py's generated ones): 9,800 stopped and 200 downloading from scale.py's python-
libtorrent seeder on 127.0.0.1 (addPeers), its upload held at --rate bytes/s per torrent (default 2 KiB/s: 2 MiB
last 17 minutes, longer than a run) so their speeds, amounts, progress and ETA change as a real download's do, not
through the API. How many torrents really changed per second is printed per row (a poll of the benchmark's own every
second, counting the torrents of each diff). For 1, 100 and 1,000 clients, each mode in turn:

  - sse:  `GET /api/v2/qbtd/events?rid=R`, each client a stream of its own (R: the newest event id an observing
          stream has seen, so a client starts with a diff, as one reconnecting does; a cold client's full update costs
          what a poller's first answer does);
  - poll: `sync/maindata?rid=N` with the rid of the last answer, the next poll 1 s after an answer ends (--interval;
          how qBittorrent's WebUI schedules them), on a kept-alive connection. Each poller's first answer, a full
          update, is setup and not measured.

Each client authenticates with an API key of its own (a session of its own, so its own sync baseline; 1,000 logins
would cost 1,000 PBKDF2 runs). Clients are asyncio coroutines on raw sockets in up to 4 processes; they read the
bytes and look for markers without parsing JSON. During a window of --window seconds (default 20): bytes per second
per client (on the wire: headers, chunk framing, SSE fields), qbtd's CPU (utime+stime from /proc/PID/stat, as a
share of one core), the clients' own CPU, and the delay from a state change to each client seeing it: a tag
`pushmark-K` is added to a stopped torrent through the API at irregular moments (2 s apart on average, so no phase
lock with the polls or the event ticks), t = when that call answered; each client notes when the tag first shows in
what it reads (the first poll answer or event holding it). Markers unseen a few seconds after the window are counted
as missed. Before the rows, qbtd's CPU with no client over a window is the floor every row stands on.

    push.py [--torrents N] [--active N] [--clients 1,100,1000] [--modes sse,poll] [--window S] [--smoke]

--smoke: 500 torrents (10 active), 10 clients, 2.5 s windows (under 20 s in all). Figures only; the exit status is 0
unless a client failed to connect or the server died. 127.0.0.1 only; every wait bounded.
"""
import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import random
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadkit import (KiB, Corpus, Qbtd, Seeder, fmt, log_tail, pct,  # noqa: E402
                     process_cpu, raise_nofile, start_populated)

KEY = "qbt_pushbenchkey0123456789abcd"
MARK = re.compile(rb"pushmark-(\d{5})")
RID = re.compile(rb'"rid":(\d+)')
EVENTS = "/api/v2/qbtd/events"
PROCESSES = 4


# ----------------------------------------------------------------------------------------------------------------
# The clients: raw HTTP/1.1 on asyncio streams

class Dechunk:
    """Incremental decoder of a chunked body: feed() the wire bytes, get the payload bytes."""

    def __init__(self):
        self.buf, self.left, self.state, self.done = b"", 0, "size", False

    def feed(self, data):
        self.buf += data
        out = []
        while self.buf and not self.done:
            if self.state == "data":
                take = min(self.left, len(self.buf))
                out.append(self.buf[:take])
                self.buf, self.left = self.buf[take:], self.left - take
                if self.left == 0:
                    self.state = "crlf"
            elif self.state == "crlf":
                if len(self.buf) < 2:
                    break
                self.buf, self.state = self.buf[2:], "size"
            else:
                end = self.buf.find(b"\r\n")
                if end < 0:
                    break
                size = int(self.buf[:end].split(b";")[0], 16)
                self.buf = self.buf[end + 2:]
                if size == 0:
                    self.done = True
                else:
                    self.left, self.state = size, "data"
        return b"".join(out)


class Client:
    def __init__(self, key):
        self.key = key
        self.bytes = 0            # on the wire, since the start
        self.seen = {}            # marker -> monotonic time first seen
        self.tail = b""
        self.polls = 0
        self.events = 0
        self.dropped = 0
        self.error = None
        self.rid = 0

    def look(self, payload, now):
        text = self.tail + payload
        for m in MARK.finditer(text):
            self.seen.setdefault(int(m.group(1)), now)
        self.tail = text[-15:]


async def read_head(reader, client):
    head = await reader.readuntil(b"\r\n\r\n")
    client.bytes += len(head)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return status, headers


async def read_body(reader, headers, client):
    """A whole body of a kept-alive answer (Content-Length or chunked); counts its wire bytes."""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
        client.bytes += len(body)
        return body
    parts = []
    while True:
        line = await reader.readuntil(b"\r\n")
        size = int(line.split(b";")[0], 16)
        client.bytes += len(line)
        if size == 0:
            client.bytes += len(await reader.readuntil(b"\r\n"))
            return b"".join(parts)
        chunk = await reader.readexactly(size + 2)
        client.bytes += len(chunk)
        parts.append(chunk[:-2])


def request(path, key):
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
            f"Accept: */*\r\n\r\n").encode()


async def poller_setup(client, host, port):
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(request(f"/api/v2/sync/maindata?rid={client.rid}", client.key))
    status, headers = await read_head(reader, client)
    body = await read_body(reader, headers, client)
    if status != 200:
        raise RuntimeError(f"sync/maindata answered {status}: {body[:200]!r}")
    client.rid = int(RID.search(body).group(1))
    return reader, writer


async def poller_run(client, conn, host, port, interval, stop):
    # A fresh connection: the one of the setup may have idled past qbtd's --idle-timeout while the other pollers got
    # their full updates.
    conn[1].close()
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    await asyncio.sleep(random.random() * interval)
    while not stop.is_set():
        try:
            writer.write(request(f"/api/v2/sync/maindata?rid={client.rid}", client.key))
            status, headers = await read_head(reader, client)
            body = await read_body(reader, headers, client)
            now = time.monotonic()
            if status == 200:
                client.rid = int(RID.search(body).group(1))
                client.look(body, now)
                client.polls += 1
            else:
                client.error = client.error or f"sync/maindata answered {status}"
            if headers.get("connection", "").lower() == "close":
                writer.close()
                reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as e:
            client.error = client.error or f"{type(e).__name__}: {e}"
            await asyncio.sleep(interval)
            try:
                reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
            except OSError:
                continue
        await asyncio.sleep(interval)
    writer.close()


async def sse_setup(client, host, port, rid):
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(request(f"{EVENTS}?rid={rid}", client.key))
    status, headers = await read_head(reader, client)
    if status != 200:
        raise RuntimeError(f"{EVENTS} answered {status}")
    chunked = "chunked" in headers.get("transfer-encoding", "").lower()
    decoder = Dechunk() if chunked else None
    # The first event (a diff from rid, or a full update) is setup, not measured: read up to the blank line after
    # its data line.
    payload, pos = bytearray(), 0
    while True:
        i = payload.find(b"data:")
        if i >= 0 and payload.find(b"\n\n", max(i, pos)) >= 0:
            break
        pos = max(0, len(payload) - 1)
        data = await reader.read(1 << 16)
        if not data:
            raise RuntimeError("the stream ended before its first event")
        client.bytes += len(data)
        payload += decoder.feed(data) if decoder else data
    client.events += 1
    return reader, writer, decoder


async def sse_run(client, conn, stop):
    reader, writer, decoder = conn
    try:
        while not stop.is_set():
            data = await reader.read(1 << 16)
            if not data:
                client.error = client.error or "the stream ended"
                break
            now = time.monotonic()
            client.bytes += len(data)
            payload = decoder.feed(data) if decoder else data
            client.events += payload.count(b"\nevent: maindata")
            client.dropped += payload.count(b"event: dropped")
            client.look(payload, now)
    except (OSError, asyncio.IncompleteReadError) as e:
        client.error = client.error or f"{type(e).__name__}: {e}"
    finally:
        writer.close()


def worker(index, mode, host, port, keys, rids, latest, interval, setup_limit, start, go, halt, end, out, deadline):
    """One process's clients: set up (bounded concurrency), say ready, run until `end`; report what they saw."""
    random.seed(os.getpid())

    async def main():
        clients = [Client(k) for k in keys]
        for c, r in zip(clients, rids):
            c.rid = r
        gate = asyncio.Semaphore(setup_limit)
        conns = [None] * len(clients)

        async def setup(i, c):
            async with gate:
                for attempt in range(3):
                    try:
                        conns[i] = (await poller_setup(c, host, port) if mode == "poll" else
                                    await sse_setup(c, host, port, latest.value))
                        return
                    except (OSError, asyncio.IncompleteReadError, RuntimeError) as e:
                        c.error = f"setup: {type(e).__name__}: {e}"
                        await asyncio.sleep(0.5)

        t0 = time.monotonic()
        await asyncio.wait_for(asyncio.gather(*(setup(i, c) for i, c in enumerate(clients))), deadline)
        ok = sum(x is not None for x in conns)
        for c, x in zip(clients, conns):
            if x is not None:
                c.error = None
        out.put(("ready", ok, time.monotonic() - t0, [c.error for c in clients if c.error][:1]))
        while not start.is_set():
            await asyncio.sleep(0.02)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(poller_run(c, x, host, port, interval, stop) if mode == "poll" else
                                     sse_run(c, x, stop)) for c, x in zip(clients, conns) if x is not None]
        while not go.is_set():
            await asyncio.sleep(0.02)
        b0, c0 = sum(c.bytes for c in clients), time.process_time()
        p0, e0 = sum(c.polls for c in clients), sum(c.events for c in clients)
        while not halt.is_set():
            await asyncio.sleep(0.02)
        b1, c1 = sum(c.bytes for c in clients), time.process_time()
        p1, e1 = sum(c.polls for c in clients), sum(c.events for c in clients)
        while not end.is_set():
            await asyncio.sleep(0.02)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        out.put(("done", {"index": index, "bytes": b1 - b0, "cpu": c1 - c0, "polls": p1 - p0, "events": e1 - e0,
                          "seen": [c.seen for c in clients], "rids": [c.rid for c in clients],
                          "dropped": sum(c.dropped for c in clients),
                          "errors": [c.error for c in clients if c.error]}))

    asyncio.run(main())


# ----------------------------------------------------------------------------------------------------------------
# The observing stream: the newest event id (where SSE clients resume) and what changed per event

class Watch:
    """The benchmark's own eye on what changes: a poll of sync/maindata every second (key KEY), counting the torrents
    in each diff; one poll a second more for qbtd in every row, the same in each."""

    def __init__(self, q):
        import requests
        self.s = requests.Session()
        self.s.headers["Authorization"] = f"Bearer {KEY}"
        self.url, self.rid, self.counts = q.url("sync/maindata"), 0, []
        self.stop = threading.Event()
        self.rid = self.poll(warm=True)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def poll(self, warm=False):
        answer = self.s.get(self.url, params={"rid": self.rid}, timeout=600).json()
        if not warm and not answer.get("full_update"):
            self.counts.append(len(answer.get("torrents", {})))
        return answer["rid"]

    def run(self):
        while not self.stop.wait(1.0):
            try:
                self.rid = self.poll()
            except (OSError, ValueError, KeyError):
                pass

    def close(self):
        self.stop.set()
        self.thread.join(30)
        return sum(self.counts) / len(self.counts) if self.counts else float("nan")


class Observer:
    def __init__(self, q):
        self.q, self.latest, self.events = q, multiprocessing.get_context("fork").Value("q", 0), []
        self.stop, self.error = threading.Event(), None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.conn = None

    def start(self, wait=600):
        self.thread.start()
        deadline = time.monotonic() + wait
        while self.latest.value == 0 and self.error is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.error or self.latest.value == 0:
            raise RuntimeError(f"the observing stream: {self.error or 'no first event'}")

    def run(self):
        try:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.q.port, timeout=60)
            self.conn.request("GET", EVENTS, headers={"Authorization": f"Bearer {KEY}"})
            resp = self.conn.getresponse()
            if resp.status != 200:
                self.error = f"{EVENTS} answered {resp.status}"
                return
            eid, data = None, []
            while not self.stop.is_set():
                line = resp.readline()
                if not line:
                    self.error = self.error or "the stream ended"
                    return
                line = line.rstrip(b"\r\n")
                if line.startswith(b"id:"):
                    eid = int(line[3:])
                elif line.startswith(b"data:"):
                    data.append(line[5:])
                elif line == b"" and data:
                    raw = b"\n".join(data)
                    answer, data = json.loads(raw), []   # a check that it is JSON
                    if eid is not None:
                        self.latest.value = eid
                    del answer, raw
        except (OSError, http.client.HTTPException, ValueError) as e:
            if not self.stop.is_set():
                self.error = f"{type(e).__name__}: {e}"

    def close(self):
        self.stop.set()
        if self.conn and self.conn.sock:
            try:
                self.conn.sock.shutdown(2)
            except OSError:
                pass
        self.thread.join(10)


# ----------------------------------------------------------------------------------------------------------------

def run_row(q, s, mode, n, keys, rids, cfg, stopped_ids, mark_base, observer):
    """One row: n clients of `mode`; returns its figures."""
    ctx = multiprocessing.get_context("fork")
    start, go, halt, end = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Event()
    out = ctx.Queue()
    groups = [list(range(n))[i::PROCESSES] for i in range(min(PROCESSES, n))]
    setup_limit = max(1, cfg.full_concurrency // len(groups)) if mode == "poll" else 32
    latest = observer.latest if observer else ctx.Value("q", 0)
    procs = [ctx.Process(target=worker, daemon=True,
                         args=(w, mode, "127.0.0.1", q.port, [keys[i] for i in g], [rids[i] for i in g], latest,
                               cfg.interval, setup_limit, start, go, halt, end, out, cfg.setup_wait))
             for w, g in enumerate(groups)]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    ready, first_error = 0, []
    for _ in procs:
        kind, ok, _, err = out.get(timeout=cfg.setup_wait + 60)
        ready += ok
        first_error += err
    setup = time.monotonic() - t0
    start.set()
    time.sleep(cfg.settle)
    marks = {}
    watch = Watch(q)
    c0, w0 = process_cpu(q.proc.pid), time.monotonic()
    go.set()
    k = 0
    jitter = random.Random(mark_base)     # markers at irregular moments: no phase lock with polls or event ticks
    next_mark = w0 + cfg.mark_every * jitter.uniform(0.25, 0.75)
    while (now := time.monotonic()) < w0 + cfg.window:
        if now >= next_mark:
            k += 1
            tid = stopped_ids[(mark_base + k) % len(stopped_ids)]
            r = s.post(q.url("torrents/addTags"), data={"hashes": tid, "tags": f"pushmark-{mark_base + k:05d}"},
                       timeout=60)
            if r.status_code == 200:
                marks[mark_base + k] = time.monotonic()
            next_mark += cfg.mark_every * jitter.uniform(0.5, 1.5)
        time.sleep(min(0.02, max(0.0, w0 + cfg.window - time.monotonic())))
    halt.set()
    c1, w1 = process_cpu(q.proc.pid), time.monotonic()
    changed = watch.close()
    time.sleep(cfg.grace)
    end.set()
    results = sorted((out.get(timeout=120)[1] for _ in procs), key=lambda r: r["index"])
    for p in procs:
        p.join(30)
    seen_lists = [seen for r in results for seen in r["seen"]]
    delays, missed = [], 0
    for mark, t in marks.items():
        for seen in seen_lists:
            if mark in seen:
                delays.append((seen[mark] - t) * 1000)
            else:
                missed += 1
    for g, r in zip(groups, results):
        for i, rid in zip(g, r["rids"]):
            rids[i] = rid
    wall = w1 - w0
    errors = [e for r in results for e in r["errors"]]
    return {"mode": mode, "clients": n, "ready": ready, "setup": setup, "wall": wall,
            "bytes": sum(r["bytes"] for r in results) / wall / max(1, ready),
            "server_cpu": (c1 - c0) / wall, "client_cpu": sum(r["cpu"] for r in results) / wall,
            "rate": sum(r["polls"] + r["events"] for r in results) / wall / max(1, ready),
            "delays": delays, "missed": missed, "marks": len(marks),
            "dropped": sum(r["dropped"] for r in results), "errors": errors + first_error, "changed": changed}


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torrents", type=int, help="torrents in qbtd (default 10000; --smoke 500)")
    p.add_argument("--active", type=int, help="of them downloading (default 200; --smoke 10)")
    p.add_argument("--rate", type=int, default=2 * KiB, help="seeder upload per active torrent, bytes/s")
    p.add_argument("--clients", help="client counts, comma-separated (default 1,100,1000; --smoke 1,10)")
    p.add_argument("--modes", default="sse,poll", help="sse, poll or both (default sse,poll)")
    p.add_argument("--window", type=float, help="measured seconds per row (default 20; --smoke 4)")
    p.add_argument("--interval", type=float, default=1.0, help="seconds from a poll's answer to the next poll")
    p.add_argument("--smoke", action="store_true", help="small and short; figures only")
    a = p.parse_args()
    a.torrents = a.torrents or (500 if a.smoke else 10000)
    a.active = a.active if a.active is not None else (10 if a.smoke else 200)
    a.clients = [int(x) for x in (a.clients or ("10" if a.smoke else "1,100,1000")).split(",")]
    a.modes = [m for m in a.modes.split(",") if m]
    a.window = a.window or (2.5 if a.smoke else 20)
    a.mark_every = 0.6 if a.smoke else 2.0
    a.settle = 0.5 if a.smoke else 3.0       # seconds of running before the window
    a.grace = a.interval + 0.5 if a.smoke else 3.0   # seconds after it for the last markers
    a.full_concurrency = 4                   # pollers' first (full) answers in flight at once, over every process
    a.setup_wait = 300 if a.smoke else 3600
    a.idle = float("nan")
    return a


def main():
    cfg = arguments()
    raise_nofile(2 * max(cfg.clients) + 512)
    rows, failed = [], False
    with tempfile.TemporaryDirectory(prefix="qbtd-push-") as tmp:
        tmp = Path(tmp)
        t0 = time.monotonic()
        print(f"generating {cfg.torrents} torrents ({cfg.active} active) ...", flush=True)
        corpus = Corpus(tmp / "corpus", cfg.active)
        stopped = corpus.stopped(cfg.torrents - cfg.active)
        print(f"  generated in {time.monotonic() - t0:.1f} s", flush=True)
        seeder = Seeder(corpus) if cfg.active else None
        if seeder:
            for h in seeder.session.get_torrents():
                h.set_upload_limit(cfg.rate)
        (tmp / "data").mkdir()
        q = Qbtd(tmp / "data", resume_interval=15, extra=["--api-key", KEY])
        try:
            s = start_populated(q, corpus, cfg.torrents, seeder, cfg.active)
            t0 = time.monotonic()
            keys = [s.post(q.url("qbtd/createAPIKey"), data={"name": f"push-{i:04d}", "scope": "read-only"},
                           timeout=60).json()["key"] for i in range(max(cfg.clients))]
            print(f"  {len(keys)} API keys made in {time.monotonic() - t0:.1f} s", flush=True)
            rids = [0] * len(keys)
            c0, w0 = process_cpu(q.proc.pid), time.monotonic()
            time.sleep(1 if cfg.smoke else cfg.window)
            cfg.idle = (process_cpu(q.proc.pid) - c0) / (time.monotonic() - w0)
            print(f"  qbtd with no client: {cfg.idle:.0%} of a core", flush=True)
            sse_there = s.get(q.base + EVENTS, params={"rid": "x"}, stream=True, timeout=30)
            sse_status = sse_there.status_code
            sse_there.close()
            stopped_ids = [t.id for t in stopped]
            mark_base = 0
            for mode in cfg.modes:
                if mode == "sse" and sse_status == 404:
                    print(f"  {EVENTS} answers 404: this build has no push; the sse rows are skipped", flush=True)
                    continue
                observer = None
                if mode == "sse":
                    observer = Observer(q)
                    observer.start()
                try:
                    for n in cfg.clients:
                        print(f"  {mode}, {n} clients ...", flush=True)
                        row = run_row(q, s, mode, n, keys, rids, cfg, stopped_ids, mark_base, observer)
                        mark_base += 1000
                        rows.append(row)
                        print(f"    {row['ready']}/{n} ready in {row['setup']:.1f} s; {row['bytes'] / KiB:,.1f} KiB/s "
                              f"per client, qbtd {row['server_cpu']:.0%} of a core, delay p50 "
                              f"{fmt(pct(row['delays'], 50))} ms p99 {fmt(pct(row['delays'], 99))} ms, "
                              f"{row['missed']} missed" + (f", errors: {row['errors'][:1]}" if row["errors"] else ""),
                              flush=True)
                        failed |= row["ready"] < n
                        if q.proc.poll() is not None:
                            raise RuntimeError(f"qbtd exited with {q.proc.returncode}")
                finally:
                    if observer:
                        observer.close()
        except Exception:
            print(f"failed; the end of qbtd's log:\n{log_tail(q)}", file=sys.stderr, flush=True)
            raise
        finally:
            q.stop()
        del seeder

    report(rows, cfg)
    if failed:
        print("\nsome clients could not connect")
        sys.exit(1)


def report(rows, cfg):
    print(f"\n{cfg.torrents:,} torrents ({cfg.active} downloading from a loopback seeder at {cfg.rate / KiB:g} KiB/s "
          f"each); a {cfg.window:g} s window per row; pollers poll {cfg.interval:g} s after each answer; a marker tag "
          f"every {cfg.mark_every:g} s on average; 127.0.0.1; QBTD_BIN={os.environ.get('QBTD_BIN', 'the debug build')}\n")
    print(f"qbtd's CPU with no client (the active downloads, the resume saves): {cfg.idle:.0%} of a core\n")
    print("| mode | clients | torrents changed per s | ready | setup s | answers or events/s per client | bytes/s per client | qbtd CPU "
          "(one core) | qbtd CPU over idle per client, ms/s | clients' CPU | delay p50 ms | p99 ms | max ms | "
          "markers seen / missed | dropped |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        d = r["delays"]
        print(f"| {r['mode']} | {r['clients']:,} | {fmt(r['changed'], 0)} | {r['ready']:,} | {r['setup']:.1f} | {r['rate']:.2f} | "
              f"{r['bytes']:,.0f} | {r['server_cpu']:.0%} | {(r['server_cpu'] - cfg.idle) * 1000 / max(1, r['ready']):.2f} | "
              f"{r['client_cpu']:.0%} | {fmt(pct(d, 50))} | "
              f"{fmt(pct(d, 99))} | {fmt(max(d) if d else float('nan'))} | {len(d):,} / {r['missed']:,} | "
              f"{r['dropped']} |")
    by = {(r["mode"], r["clients"]): r for r in rows}
    pairs = [n for n in cfg.clients if ("sse", n) in by and ("poll", n) in by]
    if pairs:
        print("\n| clients | bytes/s per client sse / poll | qbtd CPU sse / poll | delay p50 sse / poll | "
              "delay p99 sse / poll |")
        print("|---:|---:|---:|---:|---:|")
        for n in pairs:
            a, b = by[("sse", n)], by[("poll", n)]

            def ratio(x, y):
                return fmt(x / y, 2) + "×" if y else "—"
            print(f"| {n:,} | {ratio(a['bytes'], b['bytes'])} | {ratio(a['server_cpu'], b['server_cpu'])} | "
                  f"{ratio(pct(a['delays'], 50), pct(b['delays'], 50))} | "
                  f"{ratio(pct(a['delays'], 99), pct(b['delays'], 99))} |")
    errors = [e for r in rows for e in r["errors"]]
    if errors:
        print(f"\n{len(errors)} client error(s), the first: {errors[0]}")


if __name__ == "__main__":
    main()
