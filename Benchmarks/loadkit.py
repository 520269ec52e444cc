"""What push.py and fairness.py share: a qbtd filled with scale.py's generated torrents (some of them downloading from
scale.py's loopback seeder), a process's CPU from /proc, percentiles. Everything on 127.0.0.1, every wait bounded."""
import resource
import sys
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd  # noqa: E402,F401
from scale import BATCH, Corpus, Seeder, process_cpu  # noqa: E402,F401

KiB, MiB = 1 << 10, 1 << 20


def raise_nofile(want):
    """RLIMIT_NOFILE's soft limit up to `want` (at most the hard limit); returns the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        soft = min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def populate(q, s, corpus, n, save, timeout=600, add_wait=1800):
    """Adds n torrents to qbtd: corpus.active started (downloading once connected), the rest stopped; waits (bounded)
    until torrents/info lists them all; returns the seconds it took."""
    stopped = corpus.stopped(n - len(corpus.active))
    t0 = time.monotonic()
    for torrents, flag, where in ((stopped, "true", save), (corpus.active, "false", Path(save) / "active")):
        for start in range(0, len(torrents), BATCH):
            files = [("torrents", (t.name + ".torrent", t.data, "application/x-bittorrent"))
                     for t in torrents[start:start + BATCH]]
            r = s.post(q.url("torrents/add"), files=files, timeout=timeout,
                       data={"paused": flag, "stopped": flag, "savepath": str(where)})
            if r.status_code != 200 or r.text.strip() != "Ok.":
                raise RuntimeError(f"torrents/add answered {r.status_code} {r.text[:200]!r}")
    deadline = t0 + add_wait
    while True:
        listed = len(s.get(q.url("torrents/info"), timeout=timeout).json())
        if listed >= n:
            return time.monotonic() - t0
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {listed} of {n} torrents listed {add_wait} s after adding them")
        time.sleep(1)


def connect_active(q, s, corpus, seeder, wait=120, timeout=600):
    """addPeers (the seeder) for the active torrents, again every 10 s for those without it, until each has it or
    `wait` seconds; returns how many have it."""
    ids = [t.id for t in corpus.active]
    if not ids:
        return 0
    deadline = time.monotonic() + wait
    connected = set()
    while True:
        missing = [i for i in ids if i not in connected]
        for k in range(0, len(missing), 50):
            s.post(q.url("torrents/addPeers"), timeout=timeout,
                   data={"hashes": "|".join(missing[k:k + 50]), "peers": seeder.peer}).raise_for_status()
        until = min(deadline, time.monotonic() + 10)
        while time.monotonic() < until:
            time.sleep(1)
            connected = set()
            for k in range(0, len(ids), 50):
                got = s.get(q.url("torrents/info"), params={"hashes": "|".join(ids[k:k + 50])}, timeout=timeout)
                connected |= {t["hash"] for t in got.json() if t.get("num_seeds", 0) > 0 or t.get("dlspeed", 0) > 0}
            if len(connected) == len(ids):
                return len(connected)
        if time.monotonic() >= deadline:
            return len(connected)


def start_populated(q, corpus, n, seeder, active):
    """Starts `q`, logs in, adds `n` of the corpus's torrents and connects the active ones to `seeder` (if any),
    saying what it did; the logged-in session."""
    q.start()
    s = login(q)
    took = populate(q, s, corpus, n, q.data_dir / "downloads")
    print(f"  {n} torrents added and listed in {took:.1f} s", flush=True)
    if seeder:
        print(f"  {connect_active(q, s, corpus, seeder)}/{active} active torrents connected to the seeder", flush=True)
    return s


def login(q, timeout=60):
    """A logged-in requests session (the SID cookie)."""
    s = requests.Session()
    r = s.post(q.url("auth/login"), data={"username": "admin", "password": q.password}, timeout=timeout)
    if r.status_code not in (200, 204):
        raise RuntimeError(f"auth/login answered {r.status_code} {r.text[:200]!r}")
    return s


def cookie(s):
    return "; ".join(f"{c.name}={c.value}" for c in s.cookies)


def pct(values, p):
    """The p-th percentile (nearest rank) of values; nan when there are none."""
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(p / 100 * len(v) + 0.5)) - 1))]


def fmt(x, digits=1):
    return "—" if x != x else f"{x:,.{digits}f}"


def log_tail(q, lines=30):
    try:
        return "\n".join(Path(q.log.name).read_text(errors="replace").splitlines()[-lines:])
    except (OSError, AttributeError):
        return ""
