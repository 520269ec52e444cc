#!/usr/bin/env python3
"""Soak: many `sync/maindata` clients, streams and uploads against one qbtd for minutes; 0 errors, and resident
memory and open files flat after the warm-up.

One qbtd (QBTD_BIN) on 127.0.0.1 with discovery and uTP off holds TORRENTS generated torrents (scale.py's corpus:
single- and multi-file, v1 and hybrid), all stopped but ACTIVE of them (2 %), which download from a python-libtorrent
seeder held at 1 KiB/s per torrent (scale.py's), so every poll has something to tell; before the clock starts, each
of them gets a first piece of every file, so that libtorrent has their files open. Then, for MINUTES:

  - CLIENTS clients, each with a session of its own (logged in once) and a keep-alive connection, poll
    `sync/maindata?rid=N` once a second (spread evenly over the second), carrying the rid forward as a real client
    does; each answer must be a 200 whose JSON parses, whose rid grew, and which is not a full update;
  - STREAMS streams of files of torrents seeded by loopback python-libtorrent seeders (conftest's Seeder, several
    files each, downloading into qbtd's stream cache at the start) play: `stream/prepare`, then `/stream/<id>` read
    with an open-ended Range at about a video's rate, a seek (a new Range request on a new connection, as players
    do) every 15-25 s, back to 0 at the end of the file; every byte is compared with the seeder's file;
  - UPLOADS tus uploads run one after the other each: create, PATCH in chunks at a bounded rate, check the landed
    file (size, sampled bytes), delete it; the one running at the end is terminated (tus DELETE).

qbtd's resident memory, open files and threads are sampled every 5 s (every second in runs under 5 minutes).
Resident memory is judged without the torrent data libtorrent maps (libtorrent 2 reads and writes torrent files
through mmap, so VmRSS grows with every byte downloaded, page cache the kernel may drop at will): VmRSS minus the
resident pages of mappings of files under the run's data folder (from /proc/PID/smaps); VmRSS itself, its
anonymous and file parts and the mapped torrent data are printed beside it. Errors: an unexpected HTTP status, an
exception, a timeout, a short or wrong body, a rid that did not grow or a full update on a rid diff, a stream byte
that differs from the seed's, a landed upload of the wrong size or bytes, a file left in the uploads folder. The
pollers run in a process of their own, the streams and uploads in another (asyncio, raw HTTP/1.1 keep-alive), so
that the clients' own waits do not pass for the server's: their CPU share and event-loop lag are printed.

Exit status 1 when there was an error, or when resident memory (as above) or open files grew by 5 % or more
between the end of the warm-up (the first 2 minutes, or 20 % of a shorter run) and the end (medians over the last
30 s of each, or 10 % of a shorter run).

    QBTD_BIN=.build/release/qbtd .venv/bin/python Benchmarks/soak.py [--minutes 10] [--clients 200]
        [--torrents 2000] [--streams 20] [--uploads 4]
    quick form (about a minute): --minutes 0.5 --clients 20 --torrents 200 --streams 2 --uploads 1
"""
import argparse
import asyncio
import base64
import json
import math
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import QBTD, Qbtd, Seeder, wait_for  # noqa: E402
from scale import ACTIVE_RATE, Corpus, Run, Seeder as ActiveSeeder, fmt, pct  # noqa: E402

KiB, MiB = 1 << 10, 1 << 20
FILES_PER_STREAM_TORRENT = 5
STREAM_PIECE = 512 * KiB
READ_CHUNK = 64 * KiB          # a stream reader's read
TUS_CHUNK = 4 * MiB            # one PATCH
POLL_TIMEOUT = 10              # seconds for one maindata answer
STREAM_TIMEOUT = 30            # seconds a stream read may wait for data before it is an error
UPLOAD_TIMEOUT = 60            # seconds for one tus request
GROWTH_LIMIT = 5.0             # percent
WARM_RATE = 64 * KiB           # the downloading torrents' seeder, bytes/s per torrent, before the soak
ERRORS_KEPT = 20               # messages kept per kind of error (all are counted)


# ----------------------------------------------------------------------------------------------------------------
# A small HTTP/1.1 client on asyncio streams: keep-alive, Content-Length and chunked bodies, nothing else.

class HTTPError(Exception):
    pass


class Conn:
    def __init__(self, host, port, cookie=None, limit=256 * KiB):
        self.host, self.port, self.cookie, self.limit = host, port, cookie, limit
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=self.limit)

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    def send_head(self, method, path, headers=(), length=0):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if self.cookie:
            lines.append(f"Cookie: {self.cookie}")
        lines += [f"{k}: {v}" for k, v in headers]
        if length or method in ("POST", "PATCH", "PUT"):
            lines.append(f"Content-Length: {length}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())

    async def read_head(self):
        """(status, headers with lower-case names; set-cookie as a list)."""
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise HTTPError(f"bad status line {lines[0]!r}")
        headers = {"set-cookie": []}
        for line in lines[1:]:
            if not line:
                continue
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                headers["set-cookie"].append(value)
            else:
                headers[name] = value
        return int(parts[1]), headers

    async def read_body(self, headers):
        if headers.get("transfer-encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    return bytes(out)
                out += await self.reader.readexactly(size + 2)
                del out[-2:]
        if "content-length" in headers:
            return await self.reader.readexactly(int(headers["content-length"]))
        return await self.reader.read()   # until the server closes

    async def request(self, method, path, headers=(), body=b""):
        """One request on the kept-alive connection (opened if need be); (status, headers, body)."""
        if self.writer is None:
            await self.open()
        self.send_head(method, path, headers, len(body))
        if body:
            self.writer.write(body)
        await self.writer.drain()
        status, h = await self.read_head()
        data = b"" if status in (204, 304) or status < 200 or method == "HEAD" else await self.read_body(h)
        if h.get("connection", "").lower() == "close":
            self.close()
        return status, h, data


async def login(host, port, password):
    """A session of its own: the SID cookie."""
    c = Conn(host, port)
    try:
        body = f"username=admin&password={password}".encode()
        status, h, data = await asyncio.wait_for(c.request(
            "POST", "/api/v2/auth/login", [("Content-Type", "application/x-www-form-urlencoded")], body), 60)
        if status != 200 or data != b"Ok.":
            raise HTTPError(f"login answered {status} {data[:100]!r}")
        for cookie in h["set-cookie"]:
            if cookie.startswith("SID="):
                return cookie.split(";", 1)[0]
        raise HTTPError(f"login set no SID cookie: {h['set-cookie']}")
    finally:
        c.close()


# ----------------------------------------------------------------------------------------------------------------
# Worker processes (spawned: the main process runs libtorrent's threads, which a fork would not survive)

class Errors:
    def __init__(self):
        self.count, self.kinds, self.kept = 0, {}, []

    def add(self, t0, kind, detail):
        self.count += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if self.kinds[kind] <= ERRORS_KEPT:
            self.kept.append((round(time.monotonic() - t0, 1) if t0 else None, kind, str(detail)[:300]))

    def result(self):
        return {"count": self.count, "kinds": self.kinds, "kept": self.kept}


class Probe:
    """The worker's own load: CPU share and event-loop lag (how late a 100 ms sleep wakes), so that a slow figure
    can be told apart from a client that could not keep up."""

    def __init__(self):
        self.lags = []
        self.cpu0 = self.wall0 = None

    def start(self):
        u = resource.getrusage(resource.RUSAGE_SELF)
        self.cpu0, self.wall0 = u.ru_utime + u.ru_stime, time.monotonic()

    async def watch(self, end):
        while time.monotonic() < end:
            t = time.monotonic()
            await asyncio.sleep(0.1)
            self.lags.append((time.monotonic() - t - 0.1) * 1000)

    def result(self):
        u = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.monotonic() - self.wall0
        return {"cpu": (u.ru_utime + u.ru_stime - self.cpu0) / wall if wall > 0 else 0.0,
                "lag_p99": pct(self.lags, 99), "lag_max": max(self.lags, default=float("nan"))}


def worker_main(role, spec, pipe):
    """Entry of a worker process: set up, report ready, wait for the start time, run, send the results."""
    try:
        result = asyncio.run({"polls": polls, "media": media}[role](spec, pipe))
    except BaseException as e:   # the main process reports it
        result = {"crash": f"{type(e).__name__}: {e}\n{traceback.format_exc()[-3000:]}"}
    pipe.send(("result", result))
    pipe.close()


async def wait_start(pipe, ready_info=None):
    pipe.send(("ready", ready_info))
    loop = asyncio.get_running_loop()
    got = await loop.run_in_executor(None, lambda: pipe.recv() if pipe.poll(3600) else None)
    if not got or got[0] != "start":
        raise RuntimeError(f"no start from the main process: {got!r}")
    return got[1], got[2]           # monotonic start, end


# --- maindata pollers

async def polls(spec, pipe):
    host, port, n = spec["host"], spec["port"], spec["clients"]
    errors, probe = Errors(), Probe()
    # Log in (each client its own session) and take the first, full update: a client's start, not timed.
    sem = asyncio.Semaphore(4)
    conns, rids = [], []

    async def setup(i):
        async with sem:
            c = Conn(host, port, cookie=await login(host, port, spec["password"]))
            status, _, body = await asyncio.wait_for(c.request("GET", "/api/v2/sync/maindata?rid=0"), 120)
            if status != 200:
                raise HTTPError(f"first maindata answered {status}")
            d = json.loads(body)
            if not d.get("full_update"):
                raise HTTPError("the first maindata was not a full update")
            return c, d["rid"], len(d.get("torrents", {}))

    got = await asyncio.gather(*(setup(i) for i in range(n)))
    conns = [g[0] for g in got]
    rids = [g[1] for g in got]
    start, end = await wait_start(pipe, {"torrents seen": got[0][2]})
    probe.start()
    latencies, late, sizes = [], [0], [0]

    async def client(i):
        c, rid = conns[i], rids[i]
        when = start + i / n          # spread evenly over the second
        while when < end:
            delay = when - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -1:
                late[0] += 1          # behind by a whole period: the next poll goes now, as a timer would
                when = time.monotonic()
            t0 = time.perf_counter()
            try:
                status, _, body = await asyncio.wait_for(
                    c.request("GET", f"/api/v2/sync/maindata?rid={rid}"), POLL_TIMEOUT)
                latencies.append((time.perf_counter() - t0) * 1000)
                sizes[0] += len(body)
                if status != 200:
                    errors.add(start, f"maindata HTTP {status}", body[:200])
                else:
                    d = json.loads(body)
                    new = d["rid"]
                    if not isinstance(new, int) or new <= rid:
                        errors.add(start, "maindata rid did not grow", f"client {i}: sent {rid}, got {new!r}")
                    elif d.get("full_update"):
                        errors.add(start, "maindata full update on a rid diff", f"client {i}: rid {rid}")
                    rid = new if isinstance(new, int) else rid
            except asyncio.TimeoutError:
                errors.add(start, "maindata timeout", f"client {i}: no answer in {POLL_TIMEOUT} s")
                c.close()             # a half-read answer spoils the connection; a real client opens another
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, HTTPError, ValueError,
                    KeyError) as e:
                errors.add(start, f"maindata {type(e).__name__}", f"client {i}: {e}")
                c.close()
            when += 1.0
        c.close()

    await asyncio.gather(probe.watch(end), *(client(i) for i in range(n)))
    return {"latencies": latencies, "late": late[0], "bytes": sizes[0], "errors": errors.result(),
            "probe": probe.result()}


# --- streams and uploads

async def media(spec, pipe):
    host, port = spec["host"], spec["port"]
    errors, probe = Errors(), Probe()
    cookies = [await login(host, port, spec["password"]) for _ in range(spec["uploads"])]
    start, end = await wait_start(pipe)
    probe.start()
    stats = {"stream bytes": 0, "reads": [], "first bytes": [], "seeks": 0, "loops": 0, "requests": 0,
             "upload bytes": 0, "uploads done": 0, "uploads terminated": 0, "patches": 0, "patch ms": []}
    tasks = [stream(k, s, spec, start, end, errors, stats) for k, s in enumerate(spec["streams"])]
    tasks += [upload(k, cookies[k], spec, start, end, errors, stats) for k in range(spec["uploads"])]
    await asyncio.gather(probe.watch(end), *tasks)
    reads = stats.pop("reads")
    stats["worst read wait ms"] = max(reads, default=0.0)
    stats["read wait p99 ms"] = pct(reads, 99)
    stats["reads over 1 s"] = sum(1 for r in reads if r > 1000)
    stats["reads"] = len(reads)
    return {"stats": stats, "errors": errors.result(), "probe": probe.result()}


def prepare_stream(q, s, seeder, index, mbps):
    """`stream/prepare` for file `index` of `seeder`'s torrent, its peer named: what a player of it needs (path,
    size, name, and the seed's file to compare every byte with)."""
    r = s.post(q.url("stream/prepare"), data={"peers": seeder.peer, "fileIndex": str(index), "networkMbps": str(mbps)},
               files={"torrents": ("s.torrent", seeder.torrent, "application/x-bittorrent")}, timeout=120)
    if r.status_code != 200:
        raise RuntimeError(f"stream/prepare answered {r.status_code}: {r.text[:300]}")
    got = r.json()
    # fileIndex counts the files as qBittorrent does: pad files (hybrid torrents) left out.
    fs = seeder.info.files()
    real = [i for i in range(fs.num_files()) if not fs.file_flags(i) & fs.flag_pad_file]
    seed_path, seed_size = seeder.root / fs.file_path(real[index]), fs.file_size(real[index])
    if got["fileSize"] != seed_size or got["fileName"] != seed_path.name:
        raise RuntimeError(f"stream/prepare: {got['fileName']} of {got['fileSize']} bytes, the seed's "
                           f"file {index} is {seed_path.name} of {seed_size}")
    return {"path": "/stream/" + got["streamId"], "size": seed_size, "name": got["fileName"], "seed": str(seed_path)}


async def stream(k, s, spec, start, end, errors, stats):
    """One player: open-ended Range requests read at `rate`, a seek every 15-25 s (`seek_every`), from 0 again at
    the end."""
    host, port, rate = spec["host"], spec["port"], spec["stream_rate"]
    size, path = s["size"], s["path"]
    rng = random.Random(1000 + k)
    seed = os.open(s["seed"], os.O_RDONLY)
    pos = rng.randrange(0, size) if k % 2 else 0
    await asyncio.sleep(max(0.0, start + k * 0.1 - time.monotonic()))
    seek_every = spec.get("seek_every", (15, 25))
    next_seek = time.monotonic() + rng.uniform(*seek_every)
    tokens, refilled = 0.0, time.monotonic()
    capacity = max(rate, READ_CHUNK)       # a second of playback: what a player's buffer takes in one go
    try:
        while time.monotonic() < end:
            c = Conn(host, port, limit=READ_CHUNK)
            where = f"stream {k} ({s['name']}) at {pos}"
            try:
                t0 = time.perf_counter()
                await asyncio.wait_for(c.open(), STREAM_TIMEOUT)
                c.send_head("GET", path, [("Range", f"bytes={pos}-")])
                await c.writer.drain()
                stats["requests"] += 1
                status, h = await asyncio.wait_for(c.read_head(), STREAM_TIMEOUT)
                want_range = f"bytes {pos}-{size - 1}/{size}"
                if status != 206 or h.get("content-range") != want_range or h.get("content-length") != str(size - pos):
                    body = await asyncio.wait_for(c.reader.read(300), 5)
                    errors.add(start, f"stream HTTP {status}", f"{where}: {h.get('content-range')} "
                                                              f"{h.get('content-length')} {body!r}")
                    await asyncio.sleep(1)
                    continue
                first = True
                while pos < size:
                    now = time.monotonic()
                    if now >= end:
                        break
                    if now >= next_seek:
                        pos = rng.randrange(0, size)
                        next_seek = now + rng.uniform(*seek_every)
                        stats["seeks"] += 1
                        break
                    tokens = min(capacity, tokens + (now - refilled) * rate)
                    refilled = now
                    want = min(READ_CHUNK, size - pos)
                    if tokens < want and not first:
                        await asyncio.sleep((want - tokens) / rate)
                        continue
                    r0 = time.perf_counter()
                    data = await asyncio.wait_for(c.reader.read(want), STREAM_TIMEOUT)
                    r1 = time.perf_counter()
                    if first:
                        stats["first bytes"].append((r1 - t0) * 1000)
                        first = False
                    else:
                        stats["reads"].append((r1 - r0) * 1000)
                    if not data:
                        errors.add(start, "stream short body", f"{where}: the body ended before byte {size}")
                        break
                    if os.pread(seed, len(data), pos) != data:
                        errors.add(start, "stream bytes differ", f"{where}: {len(data)} bytes differ from the seed's")
                    pos += len(data)
                    tokens -= len(data)
                    stats["stream bytes"] += len(data)
                if pos >= size:
                    pos = 0
                    stats["loops"] += 1
            except asyncio.TimeoutError:
                errors.add(start, "stream timeout", f"{where}: no data for {STREAM_TIMEOUT} s")
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, HTTPError, ValueError) as e:
                errors.add(start, f"stream {type(e).__name__}", f"{where}: {e}")
                await asyncio.sleep(1)
            finally:
                c.close()
    finally:
        os.close(seed)


async def upload(k, cookie, spec, start, end, errors, stats):
    """Uploads one after the other: tus create, PATCHes of TUS_CHUNK at `rate`, check, delete the landed file."""
    host, port, rate, size = spec["host"], spec["port"], spec["upload_rate"], spec["upload_size"]
    block = random.Random(k).randbytes(TUS_CHUNK)
    tus = [("Tus-Resumable", "1.0.0")]
    c = Conn(host, port, cookie=cookie)
    rng = random.Random(2000 + k)
    await asyncio.sleep(max(0.0, start + 0.5 + k * 0.25 - time.monotonic()))
    n = 0
    while time.monotonic() < end:
        name = f"soak-{k}-{n}.bin"
        n += 1
        location = None
        try:
            meta = "filename " + base64.b64encode(name.encode()).decode()
            status, h, body = await asyncio.wait_for(c.request(
                "POST", "/api/v2/tus/", tus + [("Upload-Length", str(size)), ("Upload-Metadata", meta)]),
                UPLOAD_TIMEOUT)
            if status != 201 or "location" not in h:
                errors.add(start, f"tus create HTTP {status}", f"{name}: {body[:200]!r}")
                await asyncio.sleep(1)
                continue
            location = h["location"]
            offset, began, landed = 0, time.monotonic(), None
            while offset < size:
                if time.monotonic() >= end:
                    break
                await asyncio.sleep(max(0.0, began + offset / rate - time.monotonic()))
                chunk = min(TUS_CHUNK, size - offset)
                t0 = time.perf_counter()
                status, h, body = await asyncio.wait_for(c.request(
                    "PATCH", location, tus + [("Upload-Offset", str(offset)),
                                              ("Content-Type", "application/offset+octet-stream")],
                    block[:chunk]), UPLOAD_TIMEOUT)
                stats["patch ms"].append((time.perf_counter() - t0) * 1000)
                stats["patches"] += 1
                if status != 204 or h.get("upload-offset") != str(offset + chunk):
                    errors.add(start, f"tus PATCH HTTP {status}", f"{name} at {offset}: offset "
                                                                  f"{h.get('upload-offset')} {body[:200]!r}")
                    break
                offset += chunk
                stats["upload bytes"] += chunk
                landed = h.get("qbtd-upload-path")
            if offset < size:
                # Ended (or failed) midway: terminated, as a client that gives up does.
                status, _, body = await asyncio.wait_for(c.request("DELETE", location, tus), UPLOAD_TIMEOUT)
                if status != 204:
                    errors.add(start, f"tus DELETE HTTP {status}", f"{name}: {body[:200]!r}")
                stats["uploads terminated"] += 1
                continue
            if not landed:
                errors.add(start, "tus no Qbtd-Upload-Path", f"{name}: the last PATCH did not say where it landed")
                continue
            # The landed file: its size and a few sampled blocks; then it goes, so the disk does not fill.
            p = Path(landed)
            if not p.is_file() or p.stat().st_size != size:
                errors.add(start, "upload landed wrong", f"{name}: {landed} is missing or not {size} bytes")
                continue
            fd = os.open(landed, os.O_RDONLY)
            try:
                for at in [0, size - min(size, 4096)] + [rng.randrange(0, size) for _ in range(3)]:
                    got = os.pread(fd, min(4096, size - at), at)
                    want = bytes(block[(at + i) % TUS_CHUNK] for i in range(len(got))) if \
                        (at % TUS_CHUNK) + len(got) > TUS_CHUNK else block[at % TUS_CHUNK:at % TUS_CHUNK + len(got)]
                    if got != want:
                        errors.add(start, "upload bytes differ", f"{name}: bytes at {at} differ from those sent")
                        break
            finally:
                os.close(fd)
            p.unlink()
            stats["uploads done"] += 1
        except asyncio.TimeoutError:
            errors.add(start, "tus timeout", f"{name}: no answer in {UPLOAD_TIMEOUT} s")
            c.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, HTTPError, ValueError) as e:
            errors.add(start, f"tus {type(e).__name__}", f"{name}: {e}")
            c.close()
            await asyncio.sleep(1)
    c.close()


# ----------------------------------------------------------------------------------------------------------------
# The server's side: samples of /proc

def fd_counts(pid):
    total = sockets = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        total += 1
        try:
            sockets += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return total, sockets


def fd_kinds(pid, root):
    """qbtd's open files by what they are: "socket", "pipe", an anon_inode, or the file's path (under `root` shown
    relative to it)."""
    kinds = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        kind = target.split(":")[0] if target.startswith(("socket:", "pipe:")) else target.replace(str(root), "<tmp>")
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def mapped_payload(pid, root):
    """Resident bytes of the torrent data qbtd maps (libtorrent 2's disk I/O maps the files it reads and writes):
    page cache the kernel may drop at any time, which grows with every byte downloaded."""
    total, payload = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if line[0] in "0123456789abcdef" and "-" in line.split(" ", 1)[0]:
                fields = line.split(None, 5)
                payload = len(fields) == 6 and fields[5].startswith(root)
            elif payload and line.startswith("Rss:"):
                total += int(line.split()[1]) * 1024
    return total


def sample(pid, t0, root):
    status = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "Threads"):
            status[key] = int(value.split()[0]) * (1024 if key != "Threads" else 1)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    fds, sockets = fd_counts(pid)
    mapped = mapped_payload(pid, root)
    return {"t": time.monotonic() - t0, "rss": status["VmRSS"], "anon": status["RssAnon"], "file": status["RssFile"],
            "mapped": mapped, "own": status["VmRSS"] - mapped,
            "threads": status["Threads"], "fds": fds, "sockets": sockets,
            "cpu": (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")}


def window(samples, key, t_end, span):
    """The median of `key` over the samples of (t_end - span, t_end]."""
    got = [s[key] for s in samples if t_end - span < s["t"] <= t_end + 1e-6]
    if not got:
        got = [min(samples, key=lambda s: abs(s["t"] - t_end))[key]]
    return statistics.median(got)


# ----------------------------------------------------------------------------------------------------------------

def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0, help="length of the soak (default 10)")
    p.add_argument("--clients", type=int, default=200,
                   help="sync/maindata clients, one poll a second each (default 200)")
    p.add_argument("--torrents", type=int, default=2000, help="torrents in qbtd (default 2000)")
    p.add_argument("--active", type=int, help="of which downloading from a seeder at 1 KiB/s (default 2%%, at least 1)")
    p.add_argument("--streams", type=int, default=20, help="streams playing (default 20)")
    p.add_argument("--uploads", type=int, default=4, help="tus uploads running at once (default 4)")
    p.add_argument("--stream-rate", type=float, default=1.5, help="MB/s each stream reads (default 1.5)")
    p.add_argument("--stream-file-mib", type=int,
                   help="size of each streamed file (default 64, 16 in runs under 5 min)")
    p.add_argument("--upload-rate", type=float, default=20.0, help="MB/s each upload sends (default 20)")
    p.add_argument("--upload-mib", type=int, help="size of each upload (default 256, 64 in runs under 5 min)")
    p.add_argument("--cache-budget", type=int, help="qbtd's --stream-cache-budget, MiB (default: qbtd's)")
    p.add_argument("--work-dir", help="where the run's files go (default: the system's temp folder)")
    p.add_argument("--errors-only", action="store_true",
                   help="print the growth but judge errors only (a run of seconds has no steady state to judge)")
    a = p.parse_args()
    short = a.minutes < 5
    a.active = a.active if a.active is not None else max(1, a.torrents // 50)
    a.stream_file_mib = a.stream_file_mib or (16 if short else 64)
    a.upload_mib = a.upload_mib or (64 if short else 256)
    if not (0 < a.minutes <= 24 * 60) or a.clients < 1 or a.torrents < 1 or a.streams < 0 or a.uploads < 0:
        p.error("minutes in (0, 1440], at least 1 client and 1 torrent")
    if a.active > a.torrents:
        p.error("more active torrents than torrents")
    return a


def warm_active(run, s, q, active, save, seeder, timeout=180):
    """Starts the downloading torrents (added stopped) with their first and last pieces first and the seeder at
    WARM_RATE until qbtd has every one of their files open, then goes back to 1 KiB/s and plain priorities: a
    seedbox's downloads have been running for a while, and libtorrent opens a file when its first block arrives,
    which at 1 KiB/s would go on opening files for many minutes (open files growing with no leak). Returns how
    many reached the seeder and the fewest bytes one has left."""
    ids = "|".join(t.id for t in active)
    handles = seeder.session.get_torrents()
    for h in handles:
        h.set_upload_limit(WARM_RATE)
    try:
        s.post(q.url("torrents/toggleFirstLastPiecePrio"), data={"hashes": ids}, timeout=60).raise_for_status()
        s.post(q.url("torrents/start"), data={"hashes": ids}, timeout=60).raise_for_status()
        connected = run.connect_active(s, seeder)
        wanted = {str(save / f["name"]) for t in active
                  for f in s.get(q.url("torrents/files"), params={"hash": t.id}, timeout=60).json()}

        def missing():
            open_ = set()
            for fd in os.listdir(f"/proc/{q.proc.pid}/fd"):
                try:
                    open_.add(os.readlink(f"/proc/{q.proc.pid}/fd/{fd}").removesuffix(".!qB"))
                except OSError:
                    pass
            return wanted - open_

        deadline = time.monotonic() + timeout
        while missing():
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(missing())} file(s) of the downloading torrents not open after {timeout} s: "
                                   f"{sorted(missing())[:5]}")
            time.sleep(0.5)
    finally:
        for h in handles:
            h.set_upload_limit(ACTIVE_RATE)
    s.post(q.url("torrents/toggleFirstLastPiecePrio"), data={"hashes": ids}, timeout=60).raise_for_status()
    return connected, min((t["amount_left"] for t in
                           s.get(q.url("torrents/info"), params={"hashes": ids}, timeout=60).json()), default=0)


def spawn(ctx, role, spec):
    mine, theirs = ctx.Pipe()
    proc = ctx.Process(target=worker_main, args=(role, spec, theirs), daemon=True, name=f"soak-{role}")
    proc.start()
    theirs.close()
    return proc, mine


def receive(pipe, proc, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pipe.poll(1):
            return pipe.recv()
        if not proc.is_alive():
            raise RuntimeError(f"the {what} process exited ({proc.exitcode}) without a word")
    raise RuntimeError(f"no word from the {what} process in {timeout} s")


def main():
    a = arguments()
    duration = a.minutes * 60
    warmup = min(120.0, 0.2 * duration)
    span = min(30.0, 0.1 * duration)           # the window a memory figure is the median of
    interval = 5.0 if duration >= 300 else 1.0
    t_setup = time.monotonic()
    if not Path(QBTD).exists():
        sys.exit(f"no qbtd at {QBTD}: set QBTD_BIN")
    stream_torrents = math.ceil(a.streams / FILES_PER_STREAM_TORRENT)
    stream_mib = a.streams * a.stream_file_mib
    with tempfile.TemporaryDirectory(prefix="qbtd-soak-", dir=a.work_dir) as tmp:
        tmp = Path(tmp)
        # Disk: the seeders' files and qbtd's stream-cache copy, the uploads in flight (each deleted once checked),
        # qbtd's free-space margin for uploads (200 MiB) and 1 GiB to spare.
        need = (2 * stream_mib + a.uploads * a.upload_mib + 200 + 1024) * MiB
        free = shutil.disk_usage(tmp).free
        if free < need:
            sys.exit(f"{tmp} has {free / MiB:,.0f} MiB free, the run needs {need / MiB:,.0f} MiB: "
                     f"fewer streams, --stream-file-mib, --upload-mib or --work-dir")

        print(f"generating {a.torrents} torrents ({a.active} downloading at 1 KiB/s) and {stream_torrents} "
              f"streamed torrent(s), {a.streams} file(s) of {a.stream_file_mib} MiB ...", flush=True)
        corpus = Corpus(tmp / "corpus", a.active)
        stopped = corpus.stopped(a.torrents - a.active)
        active_seeder = ActiveSeeder(corpus)
        seeders = []
        for i in range(stream_torrents):
            files = min(FILES_PER_STREAM_TORRENT, a.streams - i * FILES_PER_STREAM_TORRENT)
            sizes = [a.stream_file_mib * MiB - j * 4099 for j in range(files)]  # not piece-aligned
            seeders.append(Seeder(tmp / f"streamseed{i}", sizes, piece_size=STREAM_PIECE))
        print(f"  generated in {time.monotonic() - t_setup:.1f} s", flush=True)

        (tmp / "data").mkdir()
        extra = ["--stream-cache-budget", str(a.cache_budget)] if a.cache_budget else []
        q = Qbtd(tmp / "data", resume_interval=15, extra=extra).start()
        pid = q.proc.pid
        workers = []
        try:
            s = q.session()
            save = tmp / "data" / "downloads"
            run = Run("qbtd", q, save, stopped, corpus.active, SimpleNamespace(timeout=120, connect_wait=60))
            t0 = time.monotonic()
            run.add(s, stopped, save, True)
            run.add(s, corpus.active, save / "active", True)      # started by warm_active
            wait_for(lambda: run.count(s) == a.torrents, 300, interval=1, what=f"{a.torrents} torrents listed")
            print(f"  {a.torrents} torrents added in {time.monotonic() - t0:.1f} s", flush=True)
            t0 = time.monotonic()
            connected, left = warm_active(run, s, q, corpus.active, save / "active", active_seeder)
            print(f"  {connected}/{a.active} downloading from the seeder, every one of their files started in "
                  f"{time.monotonic() - t0:.1f} s (the one nearest completion has {left / KiB:,.0f} KiB left: "
                  f"{left / ACTIVE_RATE / 60:,.0f} min at 1 KiB/s)", flush=True)

            streams = []
            for k in range(a.streams):
                seeder = seeders[k // FILES_PER_STREAM_TORRENT]
                index = k % FILES_PER_STREAM_TORRENT
                streams.append(prepare_stream(q, s, seeder, index, mbps=100))

            spec = {"host": "127.0.0.1", "port": q.port, "password": q.password, "clients": a.clients,
                    "uploads": a.uploads, "streams": streams, "stream_rate": a.stream_rate * 1e6,
                    "upload_rate": a.upload_rate * 1e6, "upload_size": a.upload_mib * MiB}
            ctx = multiprocessing.get_context("spawn")
            workers = [("polls",) + spawn(ctx, "polls", spec), ("media",) + spawn(ctx, "media", spec)]
            ready = {}
            for role, proc, pipe in workers:
                word = receive(pipe, proc, 600, role)
                if word[0] != "ready":
                    raise RuntimeError(f"the {role} process failed while setting up: {word[1]}")
                ready[role] = word[1]
            print(f"  {a.clients} clients logged in (a full update each: {ready['polls']['torrents seen']} torrents), "
                  f"{a.streams} streams prepared; setup took {time.monotonic() - t_setup:.0f} s", flush=True)

            start = time.monotonic() + 1
            end = start + duration
            for _, _, pipe in workers:
                pipe.send(("start", start, end))
            print(f"soak: {a.minutes:g} min, {a.clients} clients polling sync/maindata each second, "
                  f"{a.streams} streams at {a.stream_rate:g} MB/s, {a.uploads} uploads at {a.upload_rate:g} MB/s; "
                  f"warm-up {warmup:.0f} s", flush=True)
            samples, died, fds_warm, fds_end = [], None, None, {}
            u0 = resource.getrusage(resource.RUSAGE_SELF)
            next_sample, next_print = start, start + 60
            while time.monotonic() < end:
                if q.proc.poll() is not None:
                    died = f"qbtd exited with {q.proc.returncode} {time.monotonic() - start:.0f} s into the soak"
                    break
                if time.monotonic() >= next_sample and next_sample < end - 0.5:   # the clients stop at `end`
                    samples.append(sample(pid, start, str(tmp / "data")))
                    next_sample += interval
                    fds_end = fd_kinds(pid, tmp)
                    if fds_warm is None and samples[-1]["t"] >= warmup:
                        fds_warm = fds_end
                if time.monotonic() >= next_print:
                    x = samples[-1]
                    print(f"  {x['t']:4.0f} s: RSS {x['rss'] / MiB:,.1f} MiB (anon {x['anon'] / MiB:,.1f}), "
                          f"{x['fds']} open files, {x['threads']} threads", flush=True)
                    next_print += 60
                time.sleep(min(0.25, max(0.0, next_sample - time.monotonic())))
            u1 = resource.getrusage(resource.RUSAGE_SELF)
            main_cpu = (u1.ru_utime + u1.ru_stime - u0.ru_utime - u0.ru_stime) / max(1e-9, time.monotonic() - start)
            results = {}
            for role, proc, pipe in workers:
                word = receive(pipe, proc, 120 if not died else 30, role)
                results[role] = word[1]
                proc.join(30)
            crashed = [f"{role}: {r['crash']}" for role, r in results.items() if "crash" in r]
            if crashed:
                raise RuntimeError("a client process failed:\n" + "\n".join(crashed))
            # Uploads terminated or checked and deleted: nothing of them may be left in the uploads folder.
            uploads_dir = tmp / "data" / "uploads"
            leftovers = []
            def left():
                return sorted(str(p.relative_to(uploads_dir)) for p in uploads_dir.rglob("*") if not p.is_dir()) \
                    if uploads_dir.exists() else []
            try:
                wait_for(lambda: not left(), 10, what="an empty uploads folder")
            except AssertionError:
                leftovers = left()
            stream_list = s.get(q.url("stream/list"), timeout=30).json()
        finally:
            for role, proc, pipe in workers:
                if proc.is_alive():
                    proc.kill()
                    proc.join(10)
            q.stop()
        log = Path(q.log.name).read_text(errors="replace").splitlines()
        shutil.copy(q.log.name, tmp.parent / "qbtd-soak-last.log")

    # ------------------------------------------------------------------------------------------------------------
    polls_r, media_r = results["polls"], results["media"]
    lat = polls_r["latencies"]
    m = media_r["stats"]
    kinds = {}
    for r in (polls_r, media_r):
        for kind, n in r["errors"]["kinds"].items():
            kinds[kind] = kinds.get(kind, 0) + n
    if died:
        kinds["qbtd exited"] = 1
    if leftovers:
        kinds["files left in the uploads folder"] = len(leftovers)
    if len(stream_list) != a.streams:
        kinds["streams lost"] = abs(a.streams - len(stream_list))
    errors = sum(kinds.values())
    requests_made = len(lat) + m["requests"] + m["patches"] + m["uploads done"] + m["uploads terminated"]

    growth_rows, misses = [], []
    if samples and samples[-1]["t"] > warmup:
        for key, label, scale_, unit in (("own", "resident memory without mapped torrent data", MiB, " MiB"),
                                         ("rss", "resident memory (VmRSS)", MiB, " MiB"),
                                         ("anon", "  of which anonymous (RssAnon)", MiB, " MiB"),
                                         ("file", "  of which file pages (RssFile)", MiB, " MiB"),
                                         ("mapped", "    of which torrent data mapped by libtorrent", MiB, " MiB"),
                                         ("fds", "open files", 1, ""), ("sockets", "  of which sockets", 1, ""),
                                         ("threads", "threads", 1, "")):
            w, e = window(samples, key, warmup, span), window(samples, key, samples[-1]["t"], span)
            g = (e - w) / w * 100 if w else float("nan")
            judged = key in ("own", "fds")
            if judged and not g < GROWTH_LIMIT:
                misses.append(f"{label.strip()} grew {g:.1f} %")
            peak = max(x[key] for x in samples if x["t"] >= warmup)
            growth_rows.append((label, f"{w / scale_:,.1f}{unit}", f"{e / scale_:,.1f}{unit}",
                                f"{peak / scale_:,.1f}{unit}", f"{g:+.1f} %" + (" (< 5 %)" if judged else "")))
    else:
        misses.append("no sample after the warm-up")
    qbtd_cpu = (samples[-1]["cpu"] - samples[0]["cpu"]) / max(1e-9, samples[-1]["t"] - samples[0]["t"]) \
        if len(samples) > 1 else float("nan")

    print(f"\nsoak figures: {a.minutes:g} min against {a.torrents:,} torrents ({a.active} downloading), "
          f"{a.clients} clients polling sync/maindata each second, {a.streams} streams at {a.stream_rate:g} MB/s, "
          f"{a.uploads} tus uploads at {a.upload_rate:g} MB/s; qbtd {QBTD}; 127.0.0.1\n")
    print("| figure | value |\n|---|---:|")
    print(f"| requests made | {requests_made:,} ({len(lat):,} maindata, {m['requests']:,} stream GETs, "
          f"{m['patches']:,} PATCHes, {m['uploads done'] + m['uploads terminated']:,} tus creations) |")
    print(f"| errors | {errors} |")
    print(f"| maindata polls per second | {len(lat) / duration:,.1f} ({polls_r['late']} late by a whole second) |")
    print(f"| maindata latency p50 / p99 / max | {fmt(statistics.median(lat) if lat else float('nan'), 2)} / "
          f"{fmt(pct(lat, 99), 2)} / {fmt(max(lat, default=float('nan')), 1)} ms |")
    print(f"| maindata bytes received | {polls_r['bytes'] / MiB:,.1f} MiB |")
    print(f"| stream bytes read (compared with the seeds) | {m['stream bytes'] / MiB:,.1f} MiB "
          f"({m['stream bytes'] / duration / 1e6:,.1f} MB/s; {m['seeks']} seeks, {m['loops']} loops to 0) |")
    fb = m["first bytes"]
    print(f"| stream first byte after a request p50 / p99 / max | "
          f"{fmt(statistics.median(fb) if fb else float('nan'))} / "
          f"{fmt(pct(fb, 99))} / {fmt(max(fb, default=float('nan')))} ms |")
    worst = max(m["worst read wait ms"], max(fb, default=0.0))
    print(f"| worst stall (a read or a first byte waiting for data) | {worst:,.1f} ms "
          f"({m['reads over 1 s']} of {m['reads']:,} reads waited over 1 s) |")
    pm = m["patch ms"]
    print(f"| upload bytes | {m['upload bytes'] / MiB:,.1f} MiB ({m['upload bytes'] / duration / 1e6:,.1f} MB/s; "
          f"{m['uploads done']} uploads of {a.upload_mib} MiB landed and checked, {m['uploads terminated']} "
          f"terminated at the end) |")
    print(f"| tus PATCH ({TUS_CHUNK // MiB} MiB) p50 / p99 / max | "
          f"{fmt(statistics.median(pm) if pm else float('nan'))} / "
          f"{fmt(pct(pm, 99))} / {fmt(max(pm, default=float('nan')))} ms |")
    print(f"| qbtd CPU | {qbtd_cpu:.0%} of a core |")
    pp, mp = polls_r["probe"], media_r["probe"]
    print(f"| clients' CPU: pollers / streams+uploads / seeders+sampler | {pp['cpu']:.0%} / {mp['cpu']:.0%} / "
          f"{main_cpu:.0%} of a core |")
    print(f"| clients' event-loop lag p99 / max: pollers, streams+uploads | "
          f"{fmt(pp['lag_p99'])} / {fmt(pp['lag_max'])} ms, "
          f"{fmt(mp['lag_p99'])} / {fmt(mp['lag_max'])} ms |")
    print(f"\nqbtd, the median over {span:.0f} s at the end of the warm-up ({warmup:.0f} s) and at the end; "
          f"sampled every {interval:g} s\n")
    print("| | end of warm-up | end | peak after warm-up | growth |\n|---|---:|---:|---:|---:|")
    for row in growth_rows:
        print("| " + " | ".join(row) + " |")

    if fds_warm is not None:
        changed = sorted((k, fds_warm.get(k, 0), fds_end.get(k, 0)) for k in set(fds_warm) | set(fds_end)
                         if fds_warm.get(k, 0) != fds_end.get(k, 0))
        print(f"\nopen files that differ between the end of the warm-up and the end: "
              + ("none" if not changed else ", ".join(f"{k} {a_} → {b_}" for k, a_, b_ in changed[:20])))

    notices = [line for line in log if " error " in line or " critical " in line or " warning " in line]
    ended = [line for line in log if "body ended at byte" in line and "client went away" not in line]
    print(f"\nqbtd's log: {len(log):,} lines, {len(notices)} at warning level or above, {len(ended)} stream bodies "
          f"ended early for a reason of the server's (kept in {tmp.parent / 'qbtd-soak-last.log'})")
    for line in (notices + ended)[:10]:
        print("  " + line[:300])
    if kinds:
        print("\nerrors by kind: " + ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())))
        for r in (polls_r, media_r):
            for t, kind, detail in r["errors"]["kept"][:15]:
                print(f"  [{t} s] {kind}: {detail}")
        for name in leftovers[:10]:
            print(f"  left in the uploads folder: {name}")
        if died:
            print(f"  {died}")
    verdict = (["{} error(s)".format(errors)] if errors else []) + ([] if a.errors_only else misses)
    print("\nFAIL: " + "; ".join(verdict) if verdict else
          "\nPASS: 0 errors" + ("" if a.errors_only else "; resident memory and open files grew less than 5 % after the warm-up"))
    sys.exit(1 if verdict else 0)


if __name__ == "__main__":
    main()
