#!/usr/bin/env python3
"""Failing writes (issue 38, item 2): qbtd runs under `fiu-run -x` (libfiu's POSIX preload), and write calls fail with
EIO or ENOSPC while clients make changes: pwrite (SQLite's pages and WAL, libtorrent's piece data, uploads),
fdatasync/fsync (uploads, SQLite checkpoints), rename (uploads landing). Plain write(2) is left alone: it is also
how SwiftNIO answers on sockets, so failing it tests the network, not the disk.

Invariants, never counts:
  - qbtd stays up (its process alive until the scenario stops it);
  - every change answered 2xx is there live, after a clean restart and after a SIGKILL restart; a refused one is not
    (not even half: a category is there with its save path or not at all);
  - every SQLite file passes PRAGMA integrity_check after each stop;
  - log/main names what failed;
  - a torrent whose piece writes failed is `error` (its reason in log/main) and comes back complete with a recheck
    and a start once the disk works again;
  - a refused upload leaves neither its file nor a temp file; an accepted one has the bytes sent.

Faults are switched on around single requests with `fiu-ctrl` (failinfo fixes errno: 5 EIO, 28 ENOSPC) and which
request gets which fault comes from a seeded random.Random, so a run is repeatable. `run(workdir, qbtd_bin)` gives
the fault campaign its row; Tests/e2e/test_failing_writes.py runs one scenario per test.

    QBTD_BIN=.build/debug/qbtd .venv/bin/python Tests/soak/faults_fiu.py /tmp/fiu-run
"""
import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
import conftest  # noqa: E402
from conftest import Qbtd, wait_for  # noqa: E402

EIO, ENOSPC = 5, 28
FAULTS = {  # name: (failure point, errno)
    "pwrite-EIO": ("posix/io/rw/pwrite", EIO),
    "pwrite-ENOSPC": ("posix/io/rw/pwrite", ENOSPC),
    "fdatasync-EIO": ("posix/io/sync/fdatasync", EIO),
    "fsync-EIO": ("posix/io/sync/fsync", EIO),
    "rename-EIO": ("posix/io/dir/rename", EIO),
}


class Checks:
    def __init__(self, name):
        self.name, self.checked, self.failed, self.faults, self.recovered = name, 0, [], 0, 0

    def __call__(self, ok, what):
        self.checked += 1
        if not ok:
            self.failed.append(what)
        return ok


def integrity(db):
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as c:
            return "\n".join(r[0] for r in c.execute("PRAGMA integrity_check"))
    except sqlite3.Error as e:
        return f"cannot check: {e}"


class Fiu:
    """One qbtd under fiu-run -x, its control pipes in its own folder."""

    def __init__(self, harness, name, extra=()):
        self.harness = harness
        self.base = harness.workdir / name
        self.data = self.base / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.ctl = str(self.base / "fiu")
        self.extra = list(extra)
        self.q = None

    def start(self):
        self.q = Qbtd(self.data, wrapper=["fiu-run", "-x", "-f", self.ctl], extra=self.extra).start()
        self.harness.started.append(self.q)
        return self.q

    def ctrl(self, command):
        r = subprocess.run(["fiu-ctrl", "-f", self.ctl, "-c", command, str(self.q.proc.pid)],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, (command, r.stdout, r.stderr)

    def enable(self, fault, probability=None):
        point, errno = FAULTS[fault]
        if probability is None:
            self.ctrl(f"enable name={point},failinfo={errno}")
        else:
            self.ctrl(f"enable_random name={point},probability={probability},failinfo={errno}")

    def disable(self, fault):
        self.ctrl(f"disable name={FAULTS[fault][0]}")

    def alive(self):
        return self.q.proc.poll() is None

    def stop(self, c, kill=False):
        """Stops qbtd (SIGTERM, or SIGKILL) and checks its databases."""
        c(self.alive(), f"qbtd had exited ({self.q.proc.returncode}) before it was stopped")
        if kill:
            self.q.kill()
        else:
            self.q.stop()
        for db in sorted(self.data.rglob("*.sqlite")):
            self.harness.db_checks += 1
            result = integrity(db)
            c(result == "ok", f"{db.name} after {'SIGKILL' if kill else 'stop'}: {result}")

    def log_main(self, s):
        return [m["message"] for m in s.get(self.q.url("log/main"), timeout=10).json()]


class Harness:
    def __init__(self, workdir, qbtd_bin=None, seed=1):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        if qbtd_bin:
            conftest.QBTD = str(qbtd_bin)
        self.seed = seed
        self.started = []
        self.db_checks = 0

    def finish(self):
        for q in self.started:
            q.stop()
        self.started = []


# ---------------------------------------------------------------------------------------------------------- scenarios

def sqlite_writes(h, c):
    """Preferences, categories and tags written while pwrite/fdatasync fail with EIO or ENOSPC around a seeded share
    of the requests; what was acknowledged survives a clean and a SIGKILL restart, what was refused is absent."""
    rng = random.Random(h.seed)
    f = Fiu(h, "sqlite")
    q = f.start()
    s = q.session()
    acked_cats, refused_cats, acked_tags, refused_tags = {}, set(), set(), set()
    pref_value, refused_prefs = None, []
    for i in range(24):
        fault = rng.choice([None, None, "pwrite-EIO", "pwrite-ENOSPC", "fdatasync-EIO"])
        if fault:
            f.enable(fault)
            c.faults += 1
        kind = ("category", "tag", "pref")[i % 3]
        try:
            if kind == "category":
                name, path = f"cat{i}", str(q.data_dir / f"cat{i}")
                r = s.post(q.url("torrents/createCategory"), data={"category": name, "savePath": path}, timeout=15)
                (acked_cats.__setitem__(name, path) if r.status_code == 200 else refused_cats.add(name))
            elif kind == "tag":
                name = f"tag{i}"
                r = s.post(q.url("torrents/createTags"), data={"tags": name}, timeout=15)
                (acked_tags.add(name) if r.status_code == 200 else refused_tags.add(name))
            else:
                value = 100 + i
                r = s.post(q.url("app/setPreferences"), data={"json": json.dumps({"max_active_downloads": value})},
                           timeout=15)
                if r.status_code == 200:
                    pref_value = value
                else:
                    refused_prefs.append(value)
            c(r.status_code in (200, 500, 507, 409), f"{kind} {i} under {fault}: unexpected {r.status_code} {r.text[:200]}")
        finally:
            if fault:
                f.disable(fault)
        c(f.alive(), f"qbtd died after {kind} {i} under {fault}")
    refused = len(refused_cats) + len(refused_tags) + len(refused_prefs)
    c(refused > 0, "no request was refused: the faults did not reach qbtd's SQLite writes")
    c(len(acked_cats) + len(acked_tags) + (pref_value is not None) > 0, "nothing was acknowledged")
    messages = f.log_main(s)
    c(not refused or any("disk I/O error" in m or "disk is full" in m for m in messages),
      "log/main does not name the failed writes")

    def verify(when):
        session = q.session()
        cats = session.get(q.url("torrents/categories"), timeout=10).json()
        tags = set(session.get(q.url("torrents/tags"), timeout=10).json())
        for name, path in acked_cats.items():
            c(name in cats and cats[name]["savePath"].rstrip("/") == path,
              f"{when}: acknowledged category {name} is {cats.get(name)}")
        for name in refused_cats:
            c(name not in cats, f"{when}: refused category {name} is there: {cats.get(name)}")
        c(acked_tags <= tags, f"{when}: acknowledged tags missing: {sorted(acked_tags - tags)}")
        c(not (refused_tags & tags), f"{when}: refused tags present: {sorted(refused_tags & tags)}")
        if pref_value is not None:
            got = session.get(q.url("app/preferences"), timeout=10).json()["max_active_downloads"]
            c(got == pref_value, f"{when}: max_active_downloads is {got}, the last acknowledged was {pref_value}"
                                 + (" (a refused value)" if got in refused_prefs else ""))

    verify("live")
    f.stop(c)
    q = f.start()
    verify("after a clean restart")
    f.stop(c, kill=True)
    q = f.start()
    verify("after a SIGKILL restart")
    f.stop(c)


def random_sqlite_faults(h, c):
    """pwrite fails at random (p = 0.3, ENOSPC) while categories are made back to back; libfiu's own random choice
    is not seeded, so only invariants are checked: acknowledged ones survive a SIGKILL, refused ones are absent."""
    f = Fiu(h, "sqlite-random")
    q = f.start()
    s = q.session()
    acked, refused = set(), set()
    f.enable("pwrite-ENOSPC", probability=0.3)
    c.faults += 1
    try:
        for i in range(30):
            r = s.post(q.url("torrents/createCategory"), data={"category": f"r{i}"}, timeout=15)
            (acked if r.status_code == 200 else refused).add(f"r{i}")
    finally:
        f.disable("pwrite-ENOSPC")
    c(f.alive(), "qbtd died under random ENOSPC")
    f.stop(c, kill=True)
    q = f.start()
    cats = q.session().get(q.url("torrents/categories"), timeout=10).json()
    c(acked <= set(cats), f"acknowledged categories lost after SIGKILL: {sorted(acked - set(cats))}")
    c(not (refused & set(cats)), f"refused categories present: {sorted(refused & set(cats))}")
    f.stop(c)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def torrent_data(h, c):
    """A download whose piece writes fail (pwrite EIO, as a failing disk) goes to `error` with the reason in log/main,
    qbtd stays up, and a recheck and a start bring it back complete once the disk works."""
    from conftest import Seeder
    seeder = Seeder(h.workdir / "seed", [3 * 1024 * 1024 + 1234, 1024 * 1024])
    try:
        f = Fiu(h, "torrent")
        q = f.start()
        s = q.session()
        save = q.data_dir / "downloads"
        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)},
                   data={"savepath": str(save), "stopped": "true", "paused": "true"}, timeout=30)
        c(r.status_code == 200, f"add: {r.status_code} {r.text}")
        wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}, timeout=10).json(), 10,
                 what="the torrent listed")
        # Started while the disk works (starting is a SQLite write); the peer is named once writes fail.
        s.post(q.url("torrents/start"), data={"hashes": seeder.id}, timeout=10)
        s.post(q.url("torrents/resume"), data={"hashes": seeder.id}, timeout=10)
        f.enable("pwrite-EIO")
        c.faults += 1
        try:
            s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}, timeout=10)
            state = lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}, timeout=10).json()[0]  # noqa
            try:
                got = wait_for(lambda: (t := state())["state"] == "error" and t, 25, what="state error")
                c(True, "")
            except AssertionError as e:
                got = None
                c(False, f"piece writes failing, the torrent never showed `error`: {e}")
            c(f.alive(), "qbtd died when libtorrent's writes failed")
        finally:
            f.disable("pwrite-EIO")
        messages = f.log_main(s)
        named = [m for m in messages if ("payload" in m or seeder.id in m) and ("Input/output error" in m or "I/O" in m)]
        c(bool(named), "log/main does not say the torrent's data could not be written (libtorrent's file_error_alert "
                       f"goes to stdout only); log/main: {messages[-6:]}")
        s.post(q.url("torrents/recheck"), data={"hashes": seeder.id}, timeout=10)
        s.post(q.url("torrents/start"), data={"hashes": seeder.id}, timeout=10)
        s.post(q.url("torrents/resume"), data={"hashes": seeder.id}, timeout=10)
        s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}, timeout=10)
        try:
            wait_for(lambda: state()["progress"] == 1 and state()["state"] in ("uploading", "stalledUP"), 40,
                     what="complete after recheck")
            seeder.verify(save)
            c.recovered += 1
            c(True, "")
        except AssertionError as e:
            c(False, f"recheck + start did not bring the torrent back complete: {e}; last {state()['state']} "
                     f"{state()['progress']:.3f}" + ("" if got else " (it had not shown error)"))
        f.stop(c, kill=True)
        q = f.start()
        s = q.session()
        t = s.get(q.url("torrents/info"), params={"hashes": seeder.id}, timeout=10).json()
        c(bool(t), "the torrent is gone after a SIGKILL restart")
        f.stop(c)
    finally:
        seeder.session.remove_torrent(seeder.handle)
        del seeder.session


def uploads(h, c):
    """Multipart uploads refused when pwrite, fsync or rename fail leave no file and no temp file; one accepted
    afterwards has its bytes; qbtd stays up."""
    f = Fiu(h, "uploads", extra=["--upload-margin", "1"])
    q = f.start()
    auth = ("admin", q.password)
    up = q.data_dir / "uploads"
    body = hashlib.sha256(b"upload").digest() * (2 * 1024 * 1024 // 32)
    # Not rename: an upload lands with link(2) (no clobbering), which libfiu cannot fail.
    statuses = {}
    for i, fault in enumerate(["pwrite-EIO", "pwrite-ENOSPC", "fsync-EIO"]):
        f.enable(fault)
        c.faults += 1
        try:
            try:
                r = requests.post(q.url("uploads"), auth=auth, files={"file": (f"f{i}.bin", body)}, timeout=30)
                status = r.status_code
                statuses[fault] = f"{r.status_code} {r.text[:120]}"
            except requests.RequestException as e:
                status = f"connection ended ({type(e).__name__})"
        finally:
            f.disable(fault)
        c(f.alive(), f"qbtd died uploading under {fault}")
        landed = (up / f"f{i}.bin").exists()
        c(status != 201 or (landed and sha256(up / f"f{i}.bin") == hashlib.sha256(body).hexdigest()),
          f"upload under {fault}: {status} but the file is {'wrong' if landed else 'missing'}")
        c(status == 201 or not landed, f"upload under {fault} refused ({status}) yet f{i}.bin landed")
        c(status != 201, f"upload under {fault} acknowledged (201): the fault did not reach it")
    time.sleep(0.5)
    temps = [p.name for p in up.rglob("*") if p.name.startswith(".qbtd-")]
    c(not temps, f"temp files left by refused uploads: {temps}")
    r = requests.post(q.url("uploads"), auth=auth, files={"file": ("ok.bin", body)}, timeout=30)
    c(r.status_code == 201 and sha256(up / "ok.bin") == hashlib.sha256(body).hexdigest(),
      f"an upload after the faults: {r.status_code} {r.text[:200]}")
    if r.status_code == 201:
        c.recovered += 1
    s = q.session()
    messages = f.log_main(s)
    c(any("upload" in m.lower() and ("error" in m.lower() or "fail" in m.lower()) for m in messages),
      f"log/main does not mention the failed uploads (answers: {statuses})")
    f.stop(c)


SCENARIOS = [sqlite_writes, random_sqlite_faults, torrent_data, uploads]


def run_one(harness, scenario):
    checks = Checks(scenario.__name__)
    try:
        scenario(harness, checks)
    except Exception as e:
        checks.failed.append(f"{type(e).__name__}: {e}")
    finally:
        harness.finish()
    return checks


def run(workdir, qbtd_bin, short=True, seed=1):
    """Every scenario once (`short`: as they are; they already take seconds). `faults` counts fault windows opened,
    `lost` the failed checks, `recovered` the torrents and uploads that came back once the disk worked."""
    harness = Harness(workdir, qbtd_bin, seed=seed)
    faults = checked = lost = recovered = 0
    notes = []
    for scenario in SCENARIOS:
        checks = run_one(harness, scenario)
        faults += checks.faults
        checked += checks.checked
        lost += len(checks.failed)
        recovered += checks.recovered
        notes += [f"{checks.name}: {f}" for f in checks.failed]
    return dict(name="failing writes", faults=faults, checked=checked, lost=lost, recovered=recovered,
                db_checks=harness.db_checks, notes="; ".join(notes) or "ok")


if __name__ == "__main__":
    out = run(sys.argv[1] if len(sys.argv) > 1 else "/tmp/qbtd-faults-fiu",
              os.environ.get("QBTD_BIN", str(ROOT / ".build" / "debug" / "qbtd")))
    print(json.dumps(out, indent=1))
    sys.exit(1 if out["lost"] else 0)
