#!/usr/bin/env python3
"""Search benchmark: 5 nova3 plugins at once, each printing RESULTS results as fast as Python can, on qbtd and on
qbittorrent-nox in the same run.

For each server and round: the latency from `search/start` to the first result visible in `search/status`, and
the results per second from start until the job is `Stopped` with every result parsed. Prints the medians over
ROUNDS rounds and the ratios qbtd / qbittorrent-nox. Everything stays on 127.0.0.1; every loop is bounded.

    search_load.py [RESULTS] (default 20000 per plugin)
"""
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, wait_for  # noqa: E402
from qbtnox import NOX, QbittorrentNox  # noqa: E402

RESULTS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
PLUGINS = 5
ROUNDS = 3
DEADLINE = 120  # seconds at most for one search

PLUGIN = '''#VERSION: 1.0
from novaprinter import prettyPrinter


class {name}(object):
    url = "http://127.0.0.1:9/{name}"
    name = "{name} benchmark engine"
    supported_categories = {{"all": "0"}}

    def search(self, what, cat="all"):
        for i in range({count}):
            prettyPrinter({{"link": "magnet:?xt=urn:btih:%040x" % i, "name": "{name} " + what + " %d" % i,
                           "size": "%d MB" % (i % 4096 + 1), "seeds": i % 100, "leech": i % 50,
                           "engine_url": self.url, "desc_link": self.url + "/%d" % i, "pub_date": 1700000000 + i}})
'''


def run_round(server, session, names):
    url = server.base + "/api/v2/search/"
    t0 = time.perf_counter()
    job = session.post(url + "start", data={"pattern": "bench", "category": "all", "plugins": "|".join(names)}).json()["id"]
    first = None
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        status = session.get(url + "status", params={"id": job}).json()[0]
        now = time.perf_counter()
        if first is None and status["total"] > 0:
            first = now - t0
        if status["status"] == "Stopped":
            break
        time.sleep(0.005)
    else:
        raise AssertionError(f"search {job} still running after {DEADLINE} s")
    assert first is not None, "the search found nothing"
    elapsed = time.perf_counter() - t0
    total = session.get(url + "results", params={"id": job, "limit": 1}).json()["total"]
    session.post(url + "delete", data={"id": job})
    return first, total / elapsed, total


def main():
    if not NOX:
        sys.exit("qbittorrent-nox is not installed: apt-get install qbittorrent-nox (make bench does)")
    names = [f"bench{i}" for i in range(PLUGINS)]
    figures = {}
    with tempfile.TemporaryDirectory(prefix="qbtd-search-bench-") as tmp:
        tmp = Path(tmp)
        for name in names:
            (tmp / f"{name}.py").write_text(PLUGIN.format(name=name, count=RESULTS))
        (tmp / "qbtd" / "data").mkdir(parents=True)
        for label, server in (("qbittorrent-nox", QbittorrentNox(tmp / "nox")), ("qbtd", Qbtd(tmp / "qbtd" / "data"))):
            server.start()
            try:
                s = server.session()
                s.post(server.base + "/api/v2/search/installPlugin",
                       data={"sources": "|".join(str(tmp / f"{n}.py") for n in names)})
                wait_for(lambda: set(names) <= {p["name"] for p in s.get(server.base + "/api/v2/search/plugins").json()},
                         60, what="plugins installed")
                rounds = [run_round(server, s, names) for _ in range(ROUNDS)]
                figures[label] = rounds
                for first, rate, total in rounds:
                    print(f"{label}: first result {first * 1000:.0f} ms, {rate:,.0f} results/s ({total} results)",
                          flush=True)
            finally:
                server.stop()

    print(f"\n{PLUGINS} plugins x {RESULTS} results, median of {ROUNDS} rounds, 127.0.0.1\n")
    print("| server | first result (ms) | results/s |\n|---|---:|---:|")
    med = {}
    for label, rounds in figures.items():
        first = statistics.median(r[0] for r in rounds) * 1000
        rate = statistics.median(r[1] for r in rounds)
        med[label] = (first, rate)
        print(f"| {label} | {first:.0f} | {rate:,.0f} |")
    (qf, qr), (nf, nr) = med["qbtd"], med["qbittorrent-nox"]
    print(f"\nratios qbtd / qbittorrent-nox: first result x{qf / nf:.2f} (lower is better), "
          f"results/s x{qr / nr:.2f} (higher is better)")


if __name__ == "__main__":
    main()
