#!/usr/bin/env python3
"""Streaming benchmark: first byte after prepare and after seeks to unfetched offsets, qbtd's scheduler against
plain sequential download (what qBittorrent offers) in the same run; and sustained read throughput of a completed
file through /stream against reading the same file straight from disk.

A python-libtorrent seeder on 127.0.0.1 seeds one 256 MiB file (1 MiB pieces); each run gets a fresh seeder, unthrottled
until the first byte, then limited to 40 MiB/s so that seeks find unfetched pieces (the seeks start a second after the
limit is set, once the seeder's limiter hands out quota). (A libtorrent seeder that starts
rate-limited holds a new connection's first messages for about a second: its limiter lets a send through only once a
second of quota has built up, refilled on its 500 ms ticks. That is the seeder's, not the downloader's; for the same
reason the seeder ticks every 25 ms, so that its limiter hands out data smoothly rather than in half-second bursts.)
- scheduler: qbtd with a 96 MiB stream cache, smaller than the file, so nothing downloads in the background and every
  seek lands on data not yet fetched (a film larger than the cache).
- scheduler: `stream/prepare` (a .torrent, the seeder as peer), then GET the first 64 KiB; then SEEKS seeks to
  random offsets not yet on disk, one every 0.25 s, each timed from the request to the first body byte.
- sequential: the same torrent added with `sequentialDownload` and `firstLastPiecePrio` to a second qbtd; first
  byte = when piece 0 is on disk; a seek at time t to offset x waits until x's piece is on disk (polled every 5 ms).
- The scheduler's run also prints how many times the stream cache evicted and how many new connections the seeder
  accepted meanwhile (the cache forgets pieces in place: the torrent keeps its peers).
- throughput: the completed file read through `/stream/{token}` (a stream of a torrent qbtd has) and read from disk.
- first byte, repeated: one sample per run above is noise on a shared 2-core machine, so a qbtd of its own (the same
  96 MiB cache) prepares FIRST_TRIES fresh 32 MiB torrents (1 MiB pieces), each from a fresh seeder, and the first byte
  of each is timed as above; the benchmark prints their p50 and range (the issue's "first byte p50").
- transports: all of the above over TCP, then the scheduler's seeks and the repeated first byte again over uTP (the
  seeders accept and make uTP connections only; qbtd runs with its defaults, uTP and TCP both on), RUNS times each
  (the acceptance's "3 runs"). The uTP rows print how many datagrams the kernel dropped for want of receive-buffer
  room meanwhile (/proc/net/snmp's Udp RcvbufErrors: the loss that leaves uTP waiting for its retransmit timeout).
Everything stays on 127.0.0.1; every loop is bounded.

    stream_latency.py [SEEKS] (default 40); FIRST_TRIES=n (default 9), RUNS=n (default 1), TRANSPORTS=tcp,utp
    (default both) and QBTD_EXTRA (more qbtd arguments, for experiments) in the environment
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, speak_only, wait_for  # noqa: E402
from test_stream import FileSeeder, incoming_connections, prepare  # noqa: E402

SEEKS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
SIZE = 256 * 1024 * 1024
PIECE = 1024 * 1024
RATE = 40 * 1024 * 1024
FIRST_TRIES = int(os.environ.get("FIRST_TRIES", "9"))
FIRST_SIZE = 32 * 1024 * 1024
RUNS = int(os.environ.get("RUNS", "1"))
TRANSPORTS = os.environ.get("TRANSPORTS", "tcp,utp").split(",")
QBTD_EXTRA = os.environ.get("QBTD_EXTRA", "").split()


def over(seeder, transport):
    """The seeder speaks `transport` alone (its session's default is TCP alone, see conftest), ticking every 25 ms."""
    speak_only(seeder.session, transport)
    seeder.session.apply_settings({"tick_interval": 25})
    return seeder


def udp_receive_drops():
    """Datagrams the kernel dropped so far because a UDP socket's receive buffer was full."""
    lines = [line.split() for line in Path("/proc/net/snmp").read_text().splitlines() if line.startswith("Udp:")]
    return int(lines[1][lines[0].index("RcvbufErrors")])


def limit_seeder(seeder):
    """Limits the seeder to RATE for the seeks. Its limiter hands out the first quota only after a second (see
    above), so the seeks start a second later: a player's seeks meet a seeder that is already limited."""
    seeder.handle.set_upload_limit(RATE)
    time.sleep(1.0)


def first_byte(url, first):
    t0 = time.perf_counter()
    with requests.get(url, headers={"Range": f"bytes={first}-{first + 65535}"}, stream=True, timeout=60) as r:
        assert r.status_code == 206, r.status_code
        next(r.iter_content(1))
        return time.perf_counter() - t0


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def prepare_from(s, q, seeder):
    """`stream/prepare` with the seeder's .torrent and the seeder as peer: the stream's JSON."""
    r = prepare(s, q, peers=f"127.0.0.1:{seeder.port}",
                files={"torrents": ("s.torrent", seeder.torrent, "application/x-bittorrent")})
    r.raise_for_status()
    return r.json()


def scheduler(q, seeder, rng):
    s = q.session()
    stream = prepare_from(s, q, seeder)
    first = first_byte(stream["playbackUrl"], 0)  # from the GET, right after prepare answered
    limit_seeder(seeder)
    calls_before = incoming_connections(seeder.session)
    seeks = []
    for _ in range(SEEKS):
        have = s.get(q.url("stream/list")).json()[0]["bufferedRanges"]
        for _ in range(100):
            x = rng.randrange(0, SIZE - 65536)
            if not any(a <= x <= b for a, b in have):
                break
        seeks.append(first_byte(stream["playbackUrl"], x))
        time.sleep(0.25)
    # The stream cache evicts while the seeks run: it must do so without calling the seeder again.
    calls = incoming_connections(seeder.session) - calls_before
    evictions = Path(q.log.name).read_text(errors="replace").count("stream cache: forgetting")
    print(f"scheduler: {evictions} evictions, the seeder accepted {calls} new connection(s) during the seeks", flush=True)
    return first, seeks


def sequential(q, seeder, rng):
    s = q.session()
    s.post(q.url("torrents/add"), data={"sequentialDownload": "true", "firstLastPiecePrio": "true"},
           files={"torrents": ("b.torrent", seeder.torrent, "application/x-bittorrent")})
    h = str(seeder.info.info_hashes().get_best())
    wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": h}).json(), 30, what="torrent listed")
    t0 = time.perf_counter()  # from when the peer is named, as prepare names it
    s.post(q.url("torrents/addPeers"), data={"hashes": h, "peers": f"127.0.0.1:{seeder.port}"})

    def have(piece):
        states = s.get(q.url("torrents/pieceStates"), params={"hash": h}).json()
        return piece < len(states) and states[piece] == 2

    def wait_piece(piece, since):
        deadline = time.perf_counter() + 120
        while not have(piece):
            assert time.perf_counter() < deadline, f"piece {piece} not on disk after 120 s"
            time.sleep(0.005)
        return time.perf_counter() - since

    first = wait_piece(0, t0)
    limit_seeder(seeder)
    seeks = []
    for _ in range(SEEKS):
        states = s.get(q.url("torrents/pieceStates"), params={"hash": h}).json()
        candidates = [p for p in range(len(states)) if states[p] != 2 and p * PIECE < SIZE - 65536]
        if not candidates:
            break
        p = rng.choice(candidates)
        seeks.append(wait_piece(p, time.perf_counter()))
        time.sleep(0.25)
    wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": h}).json()[0]["progress"] == 1, 120,
             what="download complete")
    return first, seeks, h


def first_bytes(q, root, tries, transport):
    """The first byte of `tries` fresh torrents, each from a fresh seeder (unthrottled, ticking every 25 ms as
    above), prepared and read one after the other; each stream is stopped before the next."""
    s = q.session()
    times = []
    for i in range(tries):
        seeder = over(FileSeeder(root / f"seed{i}", f"first{i}", {"first.mkv": os.urandom(FIRST_SIZE)}, piece_size=PIECE),
                      transport)
        stream = prepare_from(s, q, seeder)
        times.append(first_byte(stream["playbackUrl"], 0))
        s.post(q.url("stream/stop"), data={"streamId": stream["streamId"]}, timeout=60).raise_for_status()
        del seeder
    return times


def throughput(q, h, path):
    s = q.session()
    url = s.post(q.url("stream/prepare"), data={"hash": h}).json()["playbackUrl"]
    # Native readers on both sides: curl through /stream, dd from the file (both from the page cache).
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{size_download} %{time_total}", url],
                         capture_output=True, text=True, timeout=120).stdout.split()
    http = int(out[0]) / float(out[1])
    t0 = time.perf_counter()
    subprocess.run(["dd", f"if={path}", "of=/dev/null", "bs=1M"], capture_output=True, check=True, timeout=120)
    disk = SIZE / (time.perf_counter() - t0)
    return http, disk


def run(tmp, payload, transport, run):
    """One run over `transport`: (scheduler's (first, seeks), sequential's (first, seeks) or None, first bytes,
    throughput or None, UDP drops during the scheduler's seeks)."""
    results = {}
    http = disk = None
    drops = 0
    labels = ("scheduler", "sequential") if transport == "tcp" else ("scheduler",)
    for label in labels:
        print(f"{transport} run {run + 1}, {label}: seeding {SIZE >> 20} MiB ...", flush=True)
        where = tmp / f"{transport}{run}" / label
        seeder = over(FileSeeder(where / "seed", "bench", {"bench.mkv": payload}, piece_size=PIECE), transport)
        (where / "data").mkdir(parents=True)
        extra = (["--stream-cache-budget", "96"] if label == "scheduler" else []) + QBTD_EXTRA
        q = Qbtd(where / "data", extra=extra, utp=transport == "utp").start()
        try:
            if label == "scheduler":
                before = udp_receive_drops()
                results[label] = scheduler(q, seeder, random.Random(run + 1))
                drops = udp_receive_drops() - before
            else:
                first, seeks, h = sequential(q, seeder, random.Random(run + 1))
                results[label] = (first, seeks)
                http, disk = throughput(q, h, where / "data" / "downloads" / "bench" / "bench.mkv")
        finally:
            q.stop()
    print(f"{transport} run {run + 1}, first byte: {FIRST_TRIES} fresh {FIRST_SIZE >> 20} MiB torrents ...", flush=True)
    where = tmp / f"{transport}{run}" / "first"
    (where / "data").mkdir(parents=True)
    q = Qbtd(where / "data", extra=["--stream-cache-budget", "96"] + QBTD_EXTRA, utp=transport == "utp").start()
    try:
        firsts = first_bytes(q, where, FIRST_TRIES, transport)
    finally:
        q.stop()
    return results["scheduler"], results.get("sequential"), firsts, (http, disk) if http else None, drops


def main():
    with tempfile.TemporaryDirectory(prefix="qbtd-stream-bench-") as tmp:
        tmp = Path(tmp)
        payload = os.urandom(SIZE)
        runs = [(transport, n, run(tmp, payload, transport, n)) for transport in TRANSPORTS for n in range(RUNS)]

    print(f"\n{SIZE >> 20} MiB file, {PIECE >> 20} MiB pieces, seeder at {RATE >> 20} MiB/s after the first byte, {SEEKS} seeks, "
          f"127.0.0.1; qbtd's defaults{' + ' + ' '.join(QBTD_EXTRA) if QBTD_EXTRA else ''}\n")
    print("| transport, run | first byte after prepare | seek p50 | seek p99 | seeks > 300 ms | first byte, fresh torrents "
          "(p50, range) | UDP receive drops |\n|---|---:|---:|---:|---:|---:|---:|")
    for transport, n, ((first, seeks), _, firsts, _, drops) in runs:
        print(f"| {transport} {n + 1} | {first * 1000:.0f} ms | {statistics.median(seeks) * 1000:.0f} ms | "
              f"{pct(seeks, 99) * 1000:.0f} ms | {sum(1 for x in seeks if x > 0.3)} | {statistics.median(firsts) * 1000:.0f} ms "
              f"({min(firsts) * 1000:.0f}-{max(firsts) * 1000:.0f}) | {drops if transport == 'utp' else '-'} |")
    for transport, n, ((fa, sa), sequential, _, speeds, _) in runs:
        if sequential:
            fb, sb = sequential
            print(f"\n{transport} {n + 1}, sequential download (what qBittorrent offers): first byte {fb * 1000:.0f} ms, seek p50 "
                  f"{statistics.median(sb) * 1000:.0f} ms, p99 {pct(sb, 99) * 1000:.0f} ms; ratios scheduler / sequential: "
                  f"first byte x{fa / fb:.2f}, seek p50 x{statistics.median(sa) / statistics.median(sb):.3f}")
        if speeds:
            http, disk = speeds
            print(f"sustained read of the completed file: /stream {http / 2**20:.0f} MiB/s, disk {disk / 2**20:.0f} MiB/s "
                  f"(ratio {http / disk:.2f})")
    print("\ntargets: seek p99 <= 300 ms and p50 <= 50 ms over TCP and uTP, first byte <= 20 ms")


if __name__ == "__main__":
    main()
