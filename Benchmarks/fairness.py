#!/usr/bin/env python3
"""Fairness benchmark (issue 40, item 4): does one client's burst of expensive requests starve another's polls?

qbtd holds 20,000 torrents (scale.py's generated ones, stopped; --active N of them downloading from its loopback
seeder). Client A is a WebUI: its own session, polling `sync/maindata` with the rid it got (a diff each time), a
poll every 100 ms (--interval; 0: back to back), in a process of its own; each poll's latency is recorded. Client B is
a qbit_manage-style run: one session firing 2,000 requests at once over 64 connections (aiohttp): full
`torrents/info` listings, `torrents/properties`, `torrents/files` and `torrents/trackers` of many torrents, and
`addTags`/`setTags`/`removeTags` on batches of 100 torrents. Printed: A's p50/p99/max without B (a quiet window) and
during B's burst, their ratios, B's completion time and the latency of each of its kinds, the server's CPU.

    fairness.py [--torrents N] [--requests N] [--connections N] [--interval S] [--active N] [--smoke]

--smoke: 500 torrents, 200 requests over 10 connections, a 2 s quiet window. Figures only: no timing is asserted,
the exit status is 0 unless a request failed or the server died.
"""
import argparse
import asyncio
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadkit import (Corpus, Qbtd, Seeder, cookie, fmt, log_tail, login, pct,  # noqa: E402
                     process_cpu, raise_nofile, start_populated)

RID = re.compile(rb'"rid":(\d+)')


# ----------------------------------------------------------------------------------------------------------------
# Client A: a WebUI polling sync/maindata, in a process of its own

def client_a(base, jar, interval, stop, ready, out, limit):
    """Polls until `stop` is set (or `limit` seconds); puts [(start, latency s, bytes, ok)] on `out`."""
    s = requests.Session()
    s.headers["Cookie"] = jar
    url = base + "/api/v2/sync/maindata"
    polls = []
    rid = 0
    try:
        body = s.get(url, params={"rid": 0}, timeout=600).content      # the full update: warm-up, not counted
        rid = int(RID.search(body).group(1))
        rid = int(RID.search(s.get(url, params={"rid": rid}, timeout=600).content).group(1))
    finally:
        ready.set()
    end = time.monotonic() + limit
    while not stop.is_set() and time.monotonic() < end:
        t0 = time.monotonic()
        try:
            r = s.get(url, params={"rid": rid}, timeout=120)
            body = r.content
            ok = r.status_code == 200 and (m := RID.search(body)) is not None
            if ok:
                rid = int(m.group(1))
        except requests.RequestException:
            body, ok = b"", False
        t1 = time.monotonic()
        polls.append((t0, t1 - t0, len(body), ok))
        pause = interval - (t1 - t0)
        if pause > 0:
            stop.wait(pause)
    out.put(polls)


# ----------------------------------------------------------------------------------------------------------------
# Client B: the burst

def burst_plan(ids, n, rng):
    """n requests of a qbit_manage-style run over the torrents `ids`: (kind, method, path, params or form)."""
    plan = []
    listings = max(1, n // 100)                 # 1 %: full torrents/info listings
    tagging = max(3, n * 9 // 100)              # 9 %: tag edits on batches of 100
    per_torrent = n - listings - tagging        # the rest: properties, files, trackers of single torrents
    plan += [("torrents/info (all)", "GET", "torrents/info", {})] * listings
    for i in range(per_torrent):
        kind = ("properties", "files", "trackers")[i % 3]
        plan.append((f"torrents/{kind}", "GET", f"torrents/{kind}", {"hash": rng.choice(ids)}))
    for i in range(tagging):
        batch = "|".join(rng.sample(ids, min(100, len(ids))))
        action = ("addTags", "setTags", "removeTags")[i % 3]
        plan.append((f"torrents/{action} (100)", "POST", f"torrents/{action}", {"hashes": batch, "tags": f"fair-{i % 7}"}))
    rng.shuffle(plan)
    return plan


async def burst(base, jar, plan, connections, timeout):
    """Sends the plan over `connections` connections at once; returns (wall seconds, {kind: [latency s]}, errors,
    the first error)."""
    results, errors, first = {}, 0, []
    gate = asyncio.Semaphore(connections)
    conn = aiohttp.TCPConnector(limit=connections, force_close=False)
    headers = {"Cookie": jar}
    async with aiohttp.ClientSession(base_url=base, connector=conn, headers=headers,
                                     timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        async def one(kind, method, path, params):
            nonlocal errors
            async with gate:
                t0 = time.monotonic()
                try:
                    if method == "GET":
                        r = await session.get("/api/v2/" + path, params=params)
                    else:
                        r = await session.post("/api/v2/" + path, data=params)
                    async with r:
                        await r.read()
                        ok = r.status == 200
                        if not ok and not first:
                            first.append(f"{kind}: {r.status}")
                except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                    ok = False
                    if not first:
                        first.append(f"{kind}: {type(e).__name__} {str(e)[:120]}")
                if ok:
                    results.setdefault(kind, []).append(time.monotonic() - t0)
                else:
                    errors += 1

        t0 = time.monotonic()
        await asyncio.gather(*(one(*p) for p in plan))
        return time.monotonic() - t0, results, errors, first[:1]


# ----------------------------------------------------------------------------------------------------------------

def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torrents", type=int, help="torrents in qbtd (default 20000; --smoke 500)")
    p.add_argument("--requests", type=int, help="requests in B's burst (default 2000; --smoke 200)")
    p.add_argument("--connections", type=int, help="B's concurrent connections (default 64; --smoke 10)")
    p.add_argument("--interval", type=float, default=0.1, help="seconds between A's polls (0: back to back)")
    p.add_argument("--active", type=int, default=0, help="torrents downloading from a loopback seeder (default 0)")
    p.add_argument("--quiet", type=float, help="seconds of A alone before the burst (default 15; --smoke 2)")
    p.add_argument("--smoke", action="store_true", help="small and short; figures only")
    a = p.parse_args()
    a.torrents = a.torrents or (500 if a.smoke else 20000)
    a.requests = a.requests or (200 if a.smoke else 2000)
    a.connections = a.connections or (10 if a.smoke else 64)
    a.quiet = a.quiet if a.quiet is not None else (2 if a.smoke else 15)
    a.timeout = 300 if a.smoke else 1800          # one request of B's, and B's whole burst
    return a


def row(label, polls):
    lat = [p[1] * 1000 for p in polls if p[3]]
    errors = sum(not p[3] for p in polls)
    size = sum(p[2] for p in polls) / len(polls) if polls else 0
    print(f"| {label} | {len(polls)} | {errors} | {fmt(pct(lat, 50))} | {fmt(pct(lat, 99))} | "
          f"{fmt(max(lat) if lat else float('nan'))} | {size:,.0f} B |")
    return lat


def main():
    a = arguments()
    raise_nofile(4 * a.connections + 256)
    failed = False
    with tempfile.TemporaryDirectory(prefix="qbtd-fairness-") as tmp:
        tmp = Path(tmp)
        t0 = time.monotonic()
        print(f"generating {a.torrents} torrents ({a.active} active) ...", flush=True)
        corpus = Corpus(tmp / "corpus", a.active)
        corpus.stopped(a.torrents - a.active)
        print(f"  generated in {time.monotonic() - t0:.1f} s", flush=True)
        seeder = Seeder(corpus) if a.active else None
        (tmp / "data").mkdir()
        q = Qbtd(tmp / "data", resume_interval=15)
        try:
            s = start_populated(q, corpus, a.torrents, seeder, a.active)
            ids = [t.id for t in corpus.stopped(a.torrents - a.active) + corpus.active]
            plan = burst_plan(ids, a.requests, random.Random(40))
            a_jar, b_jar = cookie(login(q)), cookie(login(q))

            ctx = multiprocessing.get_context("fork")
            stop, ready, out = ctx.Event(), ctx.Event(), ctx.Queue()
            limit = a.quiet + a.timeout + 60
            poller = ctx.Process(target=client_a, args=(q.base, a_jar, a.interval, stop, ready, out, limit), daemon=True)
            poller.start()
            if not ready.wait(600):
                raise RuntimeError("client A did not get its first answers within 600 s")
            quiet0 = time.monotonic()
            cpu0 = process_cpu(q.proc.pid)
            time.sleep(a.quiet)
            quiet1 = time.monotonic()
            cpu1 = process_cpu(q.proc.pid)
            print(f"B: {a.requests} requests over {a.connections} connections ...", flush=True)
            b_cpu0 = time.process_time()
            wall, by_kind, errors, first = asyncio.run(burst(q.base, b_jar, plan, a.connections, a.timeout))
            burst1 = time.monotonic()
            cpu2 = process_cpu(q.proc.pid)
            b_cpu = time.process_time() - b_cpu0
            time.sleep(min(2.0, a.quiet))                  # A a moment after the burst
            stop.set()
            polls = out.get(timeout=120)
            poller.join(30)
            if q.proc.poll() is not None:
                raise RuntimeError(f"qbtd exited with {q.proc.returncode}")
        except Exception:
            print(f"failed; the end of qbtd's log:\n{log_tail(q)}", file=sys.stderr, flush=True)
            raise
        finally:
            q.stop()
        del seeder

    every = "back to back" if a.interval <= 0 else f"every {a.interval * 1000:.0f} ms"
    print(f"\n{a.torrents:,} torrents ({a.active} active); A polls sync/maindata with its rid {every}; B fires "
          f"{a.requests:,} requests over {a.connections} connections (one session); 127.0.0.1; "
          f"QBTD_BIN={os.environ.get('QBTD_BIN', 'the debug build')}\n")
    print("| client A | polls | errors | p50 ms | p99 ms | max ms | mean answer |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    quiet = row(f"without B ({a.quiet:.0f} s)", [p for p in polls if quiet0 <= p[0] < quiet1])
    during = row(f"during B's burst ({wall:.1f} s)", [p for p in polls if quiet1 <= p[0] < burst1])
    row("after it", [p for p in polls if p[0] >= burst1])
    r50 = pct(during, 50) / pct(quiet, 50) if quiet and during else float("nan")
    r99 = pct(during, 99) / pct(quiet, 99) if quiet and during else float("nan")
    print(f"\nA during B / A without B: p50 ×{fmt(r50, 2)}, p99 ×{fmt(r99, 2)}")
    print(f"B: {a.requests:,} requests in {wall:.2f} s ({a.requests / wall:,.1f} req/s), {errors} errors"
          + (f" (the first: {first[0]})" if first else ""))
    print(f"qbtd's CPU: {(cpu1 - cpu0) / (quiet1 - quiet0):.0%} of a core without B, "
          f"{(cpu2 - cpu1) / (burst1 - quiet1):.0%} during the burst (B's own client, one Python process on the "
          f"same machine: {b_cpu / wall:.0%})\n")
    print("| B's kind | requests | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for kind in sorted(by_kind):
        lat = [x * 1000 for x in by_kind[kind]]
        print(f"| `{kind}` | {len(lat)} | {fmt(pct(lat, 50))} | {fmt(pct(lat, 99))} | {fmt(max(lat))} |")
    failed = errors > 0 or any(not p[3] for p in polls)
    if failed:
        print("\nsome requests failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
