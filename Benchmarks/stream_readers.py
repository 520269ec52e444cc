#!/usr/bin/env python3
"""Many readers at once: READERS players on FILES files of TORRENTS torrents, each torrent seeded by its own
python-libtorrent seeder on 127.0.0.1 and prepared in qbtd with `stream/prepare` (the stream cache downloads it).

Each player is the soak's (Benchmarks/soak.py): open-ended Range requests on `/stream/<id>`, 64 KiB reads paced at
RATE (a video's bit rate), every byte compared with the seed's file, a seek to a random offset every SEEK_MIN to
SEEK_MAX seconds (a new request). Players start 0.1 s apart, half of them at a random offset; player k reads file
k mod FILES, so files have two or three players each. Printed: the worst wait for data after a request's first
byte, its p99 and the reads that waited over 2 s (the target: none); the first bytes (after `prepare` and after
each seek); the total throughput; errors (a wrong byte, a short body, an HTTP error). The players run in this
process on asyncio; its event-loop lag is printed, as the players' own waits would pass for the server's.

    QBTD_BIN=.build/release/qbtd .venv/bin/python Benchmarks/stream_readers.py [--readers 50] [--files 20]
        [--torrents 5] [--rate 1.0] [--file-mib 64] [--seconds 60] [--seek 8-15] [--cache-budget MiB]
"""
import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import Qbtd, Seeder  # noqa: E402
from scale import pct  # noqa: E402
from soak import STREAM_PIECE, Errors, Probe, prepare_stream, stream  # noqa: E402

MiB = 1 << 20


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--readers", type=int, default=50)
    p.add_argument("--files", type=int, default=20)
    p.add_argument("--torrents", type=int, default=5)
    p.add_argument("--rate", type=float, default=1.0, help="MB/s each player reads (default 1.0, 8 Mbit/s)")
    p.add_argument("--file-mib", type=int, default=64)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--seek", default="8-15", help="seconds between a player's seeks, MIN-MAX (default 8-15)")
    p.add_argument("--cache-budget", type=int, help="qbtd's --stream-cache-budget, MiB (default: qbtd's)")
    a = p.parse_args()
    a.seek = tuple(float(x) for x in a.seek.split("-", 1))
    if a.files < a.torrents or a.readers < 1 or a.seconds <= 0 or len(a.seek) != 2 or not 0 < a.seek[0] <= a.seek[1]:
        p.error("at least one file per torrent, one reader, a positive duration, --seek MIN-MAX")
    return a


async def play(spec, seconds):
    errors, probe = Errors(), Probe()
    start = time.monotonic() + 0.5
    end = start + seconds
    probe.start()
    stats = {"stream bytes": 0, "reads": [], "first bytes": [], "seeks": 0, "loops": 0, "requests": 0}
    await asyncio.gather(probe.watch(end), *[stream(k, s, spec, start, end, errors, stats)
                                             for k, s in enumerate(spec["streams"])])
    return stats, errors.result(), probe.result(), end - start


def main():
    a = arguments()
    with tempfile.TemporaryDirectory(prefix="qbtd-readers-") as tmp:
        tmp = Path(tmp)
        print(f"seeding {a.files} files of {a.file_mib} MiB in {a.torrents} torrents ...", flush=True)
        seeders = []
        for i in range(a.torrents):
            count = a.files // a.torrents + (1 if i < a.files % a.torrents else 0)
            sizes = [a.file_mib * MiB - j * 4099 for j in range(count)]  # not piece-aligned
            seeders.append(Seeder(tmp / f"seed{i}", sizes, piece_size=STREAM_PIECE))
        (tmp / "data").mkdir()
        extra = ["--stream-cache-budget", str(a.cache_budget)] if a.cache_budget else []
        q = Qbtd(tmp / "data", extra=extra).start()
        try:
            s = q.session()
            files = [prepare_stream(q, s, seeder, i, mbps=1000) for seeder in seeders for i in range(len(seeder.hashes))]
            spec = {"host": "127.0.0.1", "port": q.port, "stream_rate": a.rate * 1e6, "seek_every": a.seek,
                    "streams": [files[k % len(files)] for k in range(a.readers)]}
            print(f"{a.readers} players on {len(files)} files at {a.rate:g} MB/s each for {a.seconds:g} s, a seek every "
                  f"{a.seek[0]:g}-{a.seek[1]:g} s ...", flush=True)
            stats, errors, probe, span = asyncio.run(play(spec, a.seconds))
        finally:
            q.stop()

    reads, firsts = stats["reads"], stats["first bytes"]
    over = sum(1 for r in reads if r > 2000)
    print(f"\n{a.readers} players, {len(files)} files of {a.file_mib} MiB in {a.torrents} torrents (512 KiB pieces), "
          f"{a.rate:g} MB/s each, {a.seconds:g} s, 127.0.0.1\n")
    print("| | worst | p99 | p50 | count |\n|---|---:|---:|---:|---:|")
    print(f"| wait for data after the first byte | {max(reads, default=0):,.0f} ms | {pct(reads, 99):,.0f} ms | "
          f"{statistics.median(reads) if reads else 0:,.0f} ms | {len(reads):,} reads |")
    print(f"| first byte (prepare, seeks) | {max(firsts, default=0):,.0f} ms | {pct(firsts, 99):,.0f} ms | "
          f"{statistics.median(firsts) if firsts else 0:,.0f} ms | {len(firsts):,} requests |")
    print(f"\ntotal throughput {stats['stream bytes'] / span / MiB:,.1f} MiB/s ({stats['stream bytes'] / MiB:,.0f} MiB, "
          f"{stats['seeks']} seeks, {stats['loops']} files read to the end); reads waiting over 2 s: {over} "
          f"(target 0)")
    print(f"players' process: CPU {probe['cpu'] * 100:.0f} %, event-loop lag p99 {probe['lag_p99']:.0f} ms, "
          f"worst {probe['lag_max']:.0f} ms")
    print(f"errors: {errors['count']} {errors['kinds']}")
    for kept in errors["kept"]:
        print("  ", kept)
    sys.exit(1 if over or errors["count"] else 0)


if __name__ == "__main__":
    main()
