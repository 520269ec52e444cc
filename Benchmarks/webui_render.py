#!/usr/bin/env python3
"""WebUI render benchmark: qbtd's own web interface with N torrents in headless chromium, and qbittorrent-nox's WebUI
with the same torrents as a reference when it is installed. Measured, never asserted.

Rows, per server:
  - first full render: a logged-in page load (navigation start) until the torrent list shows all N torrents
    (qbtd: `#torrent-count` reads "N torrents" and rows are drawn; qbittorrent-nox: its transfer list table holds N
    rows), polled in the page on every animation frame, in ms since navigation start; for qbtd also the moment its
    own handler had rendered them (`qbtdMetrics.firstList`);
  - per-diff update cost (qbtd only: the page records each `sync/maindata` diff's handling + render time in
    `window.qbtdMetrics.updates`): median and p95 over ~20 s while a tag is toggled on 50 torrents every second
    through the API, so every diff changes rows (target ≤ 16 ms). qbittorrent-nox's page has no such hook; its
    main-thread long tasks (≥ 50 ms, PerformanceObserver) over the same 20 s are shown instead, and qbtd's too.

    webui_render.py [--torrents 2000] [--seconds 20]

qbtd: `QBTD_BIN`, else .build/release/qbtd. Everything stays on 127.0.0.1 with discovery off.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("QBTD_BIN", str(ROOT / ".build" / "release" / "qbtd"))
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))

import libtorrent as lt  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from browser import login, open_browser, visible, wait  # noqa: E402
from conftest import Qbtd, wait_for  # noqa: E402
from qbtnox import NOX, QbittorrentNox  # noqa: E402

BATCH = 100
TAG = "bench"
TOGGLED = 50

# Polls every animation frame from page load until `ready()` holds; answers performance.now() then (ms since
# navigation start), or -1 after `limit` ms.
POLL = """
const [kind, n, limit, done] = [arguments[0], arguments[1], arguments[2], arguments[arguments.length - 1]];
const ready = kind === "qbtd"
  ? () => { const c = document.getElementById("torrent-count");
            return c && c.textContent === `${n} torrents` && document.querySelector("#torrent-list .tl-row"); }
  : () => document.querySelectorAll("#torrentsTableDiv tbody tr").length >= n;
const started = performance.now();
(function step() {
  if (ready()) return done(performance.now());
  if (performance.now() - started > limit) return done(-1);
  requestAnimationFrame(step);
})();
"""

LONG_TASKS = """
window.benchLongTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.benchLongTasks.push(e.duration); })
  .observe({ type: "longtask", buffered: false });
"""


def torrents(n):
    """N single-file .torrent files with one made-up piece hash each (the same for both servers)."""
    rng = __import__("random").Random(42)
    return [(f"bench-{i:05d}", lt.bencode({"info": {"name": f"bench-{i:05d}", "piece length": 16384, "length": 1000 + i,
                                                 "pieces": rng.randbytes(20)}})) for i in range(n)]


def add_all(session, url, items):
    for start in range(0, len(items), BATCH):
        files = [("torrents", (f"{name}.torrent", data)) for name, data in items[start:start + BATCH]]
        r = session.post(url("torrents/add"), files=files, data={"stopped": "true", "paused": "true"}, timeout=120)
        assert r.status_code == 200, (r.status_code, r.text)
    wait_for(lambda: len(session.get(url("torrents/info"), timeout=60).json()) == len(items), 300, interval=1,
             what=f"{len(items)} torrents listed")


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def first_render(driver, base, kind, n):
    """A fresh logged-in navigation; ms from navigation start until the list shows n torrents."""
    driver.get("about:blank")
    driver.get(base + ("/#/torrents" if kind == "qbtd" else "/"))
    return driver.execute_async_script(POLL, kind, n, 120000)


def toggle_tags(session, url, hashes, seconds, driver=None):
    """Adds or removes TAG on TOGGLED torrents once a second for `seconds`."""
    session.post(url("torrents/createTags"), data={"tags": TAG}, timeout=30)
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        tick = time.monotonic()
        chunk = hashes[(i // 2 * TOGGLED) % len(hashes):][:TOGGLED]
        route = "torrents/addTags" if i % 2 == 0 else "torrents/removeTags"
        session.post(url(route), data={"hashes": "|".join(chunk), "tags": TAG}, timeout=30)
        i += 1
        time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))


def bench_qbtd(n, seconds, items, work):
    server = Qbtd(work / "qbtd-data", resume_interval=60)
    server.data_dir.mkdir(parents=True)
    server.start()
    driver = None
    try:
        s = server.session()
        started = time.monotonic()
        add_all(s, server.url, items)
        add_time = time.monotonic() - started
        driver = open_browser()
        login(driver, server)
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#torrent-count").text == f"{n} torrents", 120)
        first = first_render(driver, server.base, "qbtd", n)
        own = driver.execute_script("return (window.qbtdMetrics || {}).firstList || null")
        rows = driver.execute_script("return document.querySelectorAll('#torrent-list .tl-row').length")
        driver.execute_script("window.qbtdMetrics.updates = []; window.qbtdMetrics.updateSizes = [];" + LONG_TASKS)
        hashes = [t["hash"] for t in s.get(server.url("torrents/info"), params={"sort": "name"}, timeout=60).json()]
        toggle_tags(s, server.url, hashes, seconds)
        time.sleep(1.5)
        metrics = driver.execute_script(
            "return { updates: window.qbtdMetrics.updates, sizes: window.qbtdMetrics.updateSizes, long: window.benchLongTasks }")
        diffs = [ms for ms, size in zip(metrics["updates"], metrics["sizes"]) if size > 0]
        return {"add": add_time, "first": first, "own": own["at"] if own else None, "rows": rows, "diffs": diffs,
                "all": metrics["updates"], "long": metrics["long"]}
    finally:
        if driver:
            driver.quit()
        server.stop()


def bench_nox(n, seconds, items, work):
    nox = QbittorrentNox(work / "nox")
    nox.root.mkdir(parents=True)
    nox.start()
    driver = None
    try:
        s = nox.session()
        started = time.monotonic()
        add_all(s, nox.url, items)
        add_time = time.monotonic() - started
        driver = open_browser()
        driver.get(nox.base + "/")
        visible(driver, "#username").send_keys(nox.username)
        driver.find_element(By.CSS_SELECTOR, "#password").send_keys(nox.password)
        driver.find_element(By.CSS_SELECTOR, "#login").click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#torrentsTableDiv tbody tr")) >= n, 180)
        first = first_render(driver, nox.base, "nox", n)
        rows = driver.execute_script("return document.querySelectorAll('#torrentsTableDiv tbody tr').length")
        driver.execute_script(LONG_TASKS)
        hashes = [t["hash"] for t in s.get(nox.url("torrents/info"), params={"sort": "name"}, timeout=60).json()]
        toggle_tags(s, nox.url, hashes, seconds)
        time.sleep(1.5)
        return {"add": add_time, "first": first, "rows": rows, "long": driver.execute_script("return window.benchLongTasks")}
    finally:
        if driver:
            driver.quit()
        nox.stop()


def fmt(ms):
    return "–" if ms is None or ms != ms else f"{ms:,.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torrents", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=20, help="how long to measure per-diff updates")
    parser.add_argument("--no-reference", action="store_true", help="skip qbittorrent-nox")
    args = parser.parse_args()
    n = args.torrents
    items = torrents(n)
    with tempfile.TemporaryDirectory(prefix="webui-render-") as tmp:
        work = Path(tmp)
        print(f"qbtd: {os.environ['QBTD_BIN']}; {n} stopped torrents; tag toggled on {TOGGLED} torrents every second "
              f"for {args.seconds} s", flush=True)
        q = bench_qbtd(n, args.seconds, items, work)
        ref = None
        if NOX and not args.no_reference:
            print(f"reference: {NOX}", flush=True)
            ref = bench_nox(n, args.seconds, items, work)
    rows = [
        ("torrents added (s, API)", f"{q['add']:.1f}", f"{ref['add']:.1f}" if ref else "–"),
        ("first full render (ms from navigation)", fmt(q["first"]), fmt(ref["first"]) if ref else "–"),
        ("  qbtd's own handler done (ms)", fmt(q["own"]), "n/a"),
        ("table rows in the DOM", str(q["rows"]), str(ref["rows"]) if ref else "–"),
        ("non-empty diffs measured", str(len(q["diffs"])), "n/a (no hook)"),
        ("diff handling + render, median (ms)", fmt(statistics.median(q["diffs"]) if q["diffs"] else None), "n/a"),
        ("diff handling + render, p95 (ms)", fmt(percentile(q["diffs"], 95)), "n/a"),
        ("diff handling + render, max (ms)", fmt(max(q["diffs"]) if q["diffs"] else None), "n/a"),
        (f"long tasks ≥ 50 ms in {args.seconds} s (count / total ms)", f"{len(q['long'])} / {sum(q['long']):.0f}",
         f"{len(ref['long'])} / {sum(ref['long']):.0f}" if ref else "–"),
    ]
    width = max(len(r[0]) for r in rows)
    print()
    print(f"{'':{width}}  {'qbtd':>14}  {'qbittorrent-nox':>16}")
    for label, a, b in rows:
        print(f"{label:{width}}  {a:>14}  {b:>16}")
    if ref and q["first"] and q["first"] > 0 and ref["first"] and ref["first"] > 0:
        print(f"\nfirst full render, qbtd / qbittorrent-nox: {q['first'] / ref['first']:.2f}x")
    elif ref:
        print("\nfirst full render: qbittorrent-nox's table did not show all rows in time (-1)")
    target = percentile(q["diffs"], 95) if q["diffs"] else None
    print(f"per-diff target ≤ 16 ms: p95 {fmt(target)} ms ({'met' if target is not None and target <= 16 else 'missed'})")


if __name__ == "__main__":
    main()
