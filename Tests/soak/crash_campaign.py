#!/usr/bin/env python3
"""Crash campaign: SIGKILL qbtd at random moments while clients keep it busy, and check after every restart that
nothing it acknowledged was lost.

One data directory for the whole campaign. Each cycle starts qbtd, checks everything acknowledged so far, then runs
workers that each keep doing one kind of acknowledged operation and record what qbtd answered:

  torrents   .torrent files from rate-limited loopback libtorrent seeders (addPeers points at them), so downloads are
             mid-way at the kill
  multipart  POST /api/v2/uploads (uploads folder, a sub-folder, a category's save path), streamed slowly
  tus        POST /api/v2/tus/ + PATCH chunks; uploads live across cycles and are resumed with HEAD after a restart
  prefs      app/setPreferences (max_active_downloads with rss_max_articles_per_feed, one write)
  categories torrents/createCategory and editCategory
  tags       torrents/createTags
  rules      rss/setRule (new rules and edits)
  keys       qbtd/createAPIKey in every scope
  music      MP3s (made here with ffmpeg and lame) added to the music folder, a refreshDB over the WebSocket, then the
             library database downloaded (/music/db): the tracks and version that client saw are acknowledged

plus one slow multipart upload always under way at the kill (into a category's save path on even cycles, into the
uploads folder on odd ones), for the temp files a killed upload leaves.

SQLite checkpoints happen under this write load (qbtd has no route that forces one; big RSS rules and long tracks,
whose frame indexes are 80 pages, make them come every few seconds). In WAL mode only a checkpoint writes the main
database file, so the script counts them by watching qbtd.sqlite and the music databases. A checkpoint lasts
milliseconds, which a random moment would almost never hit, so every fourth kill (cycles 2, 6, 10…) is sent the
moment one begins (the files watched every millisecond; qbtd.sqlite's at cycles 2, 10, 18…, any database's at
6, 14…, each within 25 s, else a plain kill); the others at a seeded random moment 0.5–4 s into the cycle.
Then restart, and verify:

  - every acknowledged torrent is back with its category, tags and save path; every piece the fast-resume data in
    SQLite held before the kill is still downloaded; no torrent is seen checking (checkingDL/checkingUP). As qbtd is
    back and done checking before a client can look, each restart also plants a canary: while qbtd is down, the
    bytes of one piece the saved fast-resume data has are changed on disk. A full recheck would find that piece bad;
    a fast-resume start keeps it. The bytes are put back right after;
  - every acknowledged setting, category (with its save path), tag, RSS rule and API key (which must still
    authenticate as `Authorization: Bearer`); for a write in flight at the kill, either value;
  - every acknowledged upload byte: finished uploads by SHA-256, tus uploads by HEAD (offset >= the last acknowledged
    one) and by the bytes of the upload's data file;
  - the music library's version and tracks are at least what the client downloaded;
  - the three SQLite databases pass `PRAGMA quick_check`;
  - no temp file is left in the data directory beyond the data files of tus uploads still in progress (each file
    left counts as one lost item).

At the end the limits on the seeders go, every download completes and is compared with the seeders' files, every
tus upload is finished and compared, and the figures are printed. The exit status is non-zero if anything was lost
or qbtd answered something unexpected while it was up.

    QBTD_BIN=.build/debug/qbtd .venv/bin/python Tests/soak/crash_campaign.py --kills 20 --seed 7
"""
import argparse
import base64
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))

import libtorrent as lt  # noqa: E402
import requests  # noqa: E402
import websocket  # noqa: E402

import mp3frames  # noqa: E402
from conftest import PASSWORD, Qbtd, Seeder, free_port, sha256, wait_for  # noqa: E402

TUS = {"Tus-Resumable": "1.0.0"}
AUTH = ("admin", PASSWORD)
TIMEOUT = 15  # seconds for any one request
CHECKING = ("checkingDL", "checkingUP")


def b64(text):
    return base64.b64encode(text.encode()).decode()


def mp3(path, seconds, frequency, *args):
    wav = path.with_suffix(".wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency={frequency}:duration={seconds}",
                    "-ar", "44100", str(wav)], check=True, timeout=60)
    subprocess.run(["lame", "--quiet", *(args or ["-b", "96"]), "--tt", f"Tone {frequency}", str(wav), str(path)],
                   check=True, timeout=60)
    wav.unlink()
    return path


def resume_pieces(blob):
    """The pieces a libtorrent fast-resume blob says are downloaded."""
    if not blob:
        return set()
    data = lt.bdecode(bytes(blob)) or {}
    pieces = data.get(b"pieces") or b""
    return {i for i, b in enumerate(pieces) if b & 1}


class Figures:
    def __init__(self):
        self.checked = Counter()   # checks made, by kind
        self.items = {}            # kind -> set of distinct items checked
        self.lost = []             # what was lost: one line each
        self.lost_count = 0        # items lost beyond one per line (check_many)
        self.lost_items = set()    # (kind, item) found lost
        self.restart = 0           # the restart being checked (1 to kills)
        self.errors = []           # unexpected answers while qbtd was up
        self.kills = 0
        self.during = Counter()    # operations in flight at the kills
        self.midway = 0            # kills with a download part-way
        self.checkpoints = Counter()
        self.near_checkpoint = 0   # kills within 0.5 s after a checkpoint write
        self.at_checkpoint = Counter()  # kills sent the moment a checkpoint began writing a main database file
        self.acked = Counter()     # acknowledged operations, by kind
        self.refused = Counter()   # error answers a fault explains (see Campaign.refusable): not acknowledged
        self.lock = threading.Lock()

    def check(self, kind, item, ok, what=""):
        """One check of one item; a lost item is counted once, however many restarts find it lost again."""
        with self.lock:
            self.checked[kind] += 1
            self.items.setdefault(kind, set()).add(item)
            if not ok and (kind, item) not in self.lost_items:
                self.lost_items.add((kind, item))
                self.lost.append(f"{kind} {item}: {what} (restart {self.restart})")
        return ok

    def check_many(self, kind, items, bad, what):
        """Many items at once, `bad` of them lost (one line for them all)."""
        with self.lock:
            self.checked[kind] += len(items)
            self.items.setdefault(kind, set()).update(items)
            if bad:
                self.lost.append(f"{kind}: {what} (restart {self.restart})")
                self.lost_count += bad - 1

    def error(self, text):
        with self.lock:
            self.errors.append(text)

    def ack(self, kind, n=1):
        with self.lock:
            self.acked[kind] += n

    def refuse(self, kind):
        with self.lock:
            self.refused[kind] += 1

    @property
    def lost_total(self):
        return len(self.lost) + self.lost_count

    def report(self, seed, seconds):
        kinds = ["torrents", "pieces", "canaries", "downloads", "preferences", "categories", "tags", "rss rules",
                 "api keys", "multipart uploads", "tus uploads", "tus bytes", "music tracks", "music version",
                 "databases", "temp-file scans", "temp files"]
        lines = [f"crash campaign: seed {seed}, {seconds:.0f} s",
                 f"kills: {self.kills}",
                 "operations in flight at the kills: " + ", ".join(f"{k} {v}" for k, v in sorted(self.during.items())),
                 f"kills with a download part-way: {self.midway}/{self.kills}",
                 "checkpoints seen: " + ", ".join(f"{k} {v}" for k, v in sorted(self.checkpoints.items()))
                 + f"; kills within 0.5 s after one: {self.near_checkpoint}",
                 "kills the moment a checkpoint began writing the database: "
                 + (", ".join(f"{k} {v}" for k, v in sorted(self.at_checkpoint.items())) or "none"),
                 "acknowledged operations: " + ", ".join(f"{k} {v}" for k, v in sorted(self.acked.items()))]
        if self.refused:
            lines.append("refused (not acknowledged): " + ", ".join(f"{k} {v}" for k, v in sorted(self.refused.items())))
        lines.append("items checked (distinct / checks):")
        for k in kinds + sorted(set(self.checked) - set(kinds)):
            if k in self.checked:
                lines.append(f"  {k:18} {len(self.items.get(k, ())):7} / {self.checked[k]}")
        lines.append(f"items checked: {sum(self.checked.values())}")
        lines.append(f"items lost: {self.lost_total}")
        lines += [f"  LOST {x}" for x in self.lost[:50]]
        lines.append(f"unexpected answers: {len(self.errors)}")
        lines += [f"  ERROR {x}" for x in self.errors[:50]]
        return "\n".join(lines)


class Ledger:
    """What qbtd acknowledged (and what was in flight when it died)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.torrents = {}        # hash -> {"seeder": i, "savepath": ...}
        self.adding = {}          # hash -> seeder index, torrents/add sent but not answered
        self.pref = None          # the last acknowledged n
        self.pref_pending = []    # n sent since, unanswered
        self.categories = {}      # name -> {"acked": savePath or None, "pending": [savePath...]}
        self.tags, self.tags_pending = set(), set()
        self.rules = {}           # name -> {"acked": mustContain or None, "pending": [...]}
        self.keys = []            # (name, key, scope)
        self.multipart = []       # {"name", "path", "sha256", "size"}
        self.tus = []             # TusUpload
        self.music_version = 0
        self.music_tracks = set()


class TusUpload:
    def __init__(self, data, destination):
        self.data = data
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.destination = destination  # {"path": ...} / {"category": ...} / {}
        self.id = None
        self.acked = 0     # the last Upload-Offset qbtd acknowledged
        self.offset = 0    # where the next PATCH starts
        self.landed = None  # Qbtd-Upload-Path once finished


class Monitor(threading.Thread):
    """Reads the saved fast-resume data (read-only, short transactions) and watches for SQLite checkpoints: in WAL
    mode only a checkpoint writes the main database file, so a change of its mtime or size is one. While `hunt` is
    on, it looks every millisecond and calls `on_checkpoint` (the kill) at the first one."""

    def __init__(self, data_dir, figures, on_checkpoint=None):
        super().__init__(daemon=True)
        self.data_dir, self.figures, self.on_checkpoint = Path(data_dir), figures, on_checkpoint
        self.stop = threading.Event()
        self.saved = {}   # torrent id -> pieces in its stored fast-resume data (replaced, never changed)
        self.last_checkpoint = 0.0
        self.lock = threading.Lock()
        self.hunt, self.fired = False, None
        self.dbs = {"qbtd.sqlite": self.data_dir / "qbtd.sqlite",
                    "music library": self.data_dir / "music" / "library.sqlite",
                    "music frame index": self.data_dir / "music" / "frame-index.sqlite"}
        self.stamps = {k: self.stamp(p) for k, p in self.dbs.items()}

    @staticmethod
    def stamp(path):
        try:
            st = path.stat()
            return (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            return None

    def read_resume(self):
        con = sqlite3.connect(f"file:{self.data_dir / 'qbtd.sqlite'}?mode=ro", uri=True, timeout=2)
        try:
            rows = con.execute("SELECT id, resume_data FROM torrents").fetchall()
        finally:
            con.close()
        return {tid: resume_pieces(blob) for tid, blob in rows}

    def run(self):
        next_read = 0.0
        deadline = time.monotonic() + 600  # a cycle lasts seconds
        while not self.stop.is_set() and time.monotonic() < deadline:
            now = time.monotonic()
            for name, path in self.dbs.items():
                s = self.stamp(path)
                if s is not None and self.stamps.get(name) is not None and s != self.stamps[name]:
                    with self.lock:
                        if self.hunt and not self.fired and (self.hunt is True or self.hunt == name):
                            self.fired = name
                            self.on_checkpoint()
                    self.figures.checkpoints[name] += 1
                    self.last_checkpoint = now
                self.stamps[name] = s
            if now >= next_read and not self.fired:
                try:
                    self.saved = self.read_resume()
                except sqlite3.Error:
                    pass
                next_read = now + 0.3
            self.stop.wait(0.001 if self.hunt else 0.05)

    def hunt_until(self, timeout, name=None):
        """Hunts for a checkpoint (of `name`, else of any database) for up to `timeout` seconds; the database whose
        checkpoint fired the kill, or None (then nothing was killed)."""
        self.hunt = name or True
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.fired:
            time.sleep(0.01)
        with self.lock:
            self.hunt = False
            return self.fired


class Refused(Exception):
    """An error answer that the fault under way explains (Campaign.refusable): the operation is not acknowledged."""


class Worker(threading.Thread):
    """Keeps doing one kind of operation until the cycle ends; an exception while qbtd is up is an error, but for a
    refusal the campaign's fault explains (Refused), which only counts as not acknowledged."""

    kind = "?"
    pause = (0.05, 0.2)  # seconds between operations

    def __init__(self, campaign, rng):
        super().__init__(daemon=True)
        self.c, self.rng = campaign, rng
        self.L, self.F, self.q = campaign.ledger, campaign.figures, campaign.q
        self.inflight = None
        self.inflight_at_kill = None

    def run(self):
        deadline = time.monotonic() + 120
        try:
            self.prepare()
            while not self.c.stop.is_set() and time.monotonic() < deadline:
                try:
                    self.step()
                except Refused:
                    self.F.refuse(self.inflight or self.kind)
                self.inflight = None
                self.c.stop.wait(self.rng.uniform(*self.pause))
        except Exception as e:  # noqa: BLE001
            if not self.c.dead.is_set():
                self.F.error(f"{self.kind}: {type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
        self.inflight = None

    def prepare(self):
        self.s = self.q.session()

    def expect(self, r, *codes):
        if (r.status_code not in codes or r.text == "Fails.") and self.c.refusable(r):
            raise Refused(f"{r.request.method} {r.url} answered {r.status_code}: {r.text[:200]}")
        if r.status_code not in codes:
            raise AssertionError(f"{r.request.method} {r.url} answered {r.status_code}: {r.text[:200]}")
        return r

    def doing(self, what):
        self.inflight = what


class TorrentWorker(Worker):
    kind = "torrents"
    pause = (0.3, 0.3)

    def prepare(self):
        super().prepare()
        self.peer_at = 0.0

    def step(self):
        c, L = self.c, self.L
        if time.monotonic() >= self.peer_at:
            self.add_peers()
            self.peer_at = time.monotonic() + 2
        due = [i for i in range(min(len(c.seeders), c.cycle // c.add_every + 1))
               if c.seeders[i].id not in L.torrents]
        if due:
            i = due[0]
            seeder = c.seeders[i]
            with L.lock:
                L.adding[seeder.id] = i
            self.doing("torrents/add")
            r = self.s.post(self.q.url("torrents/add"), files={"torrents": (f"t{i}.torrent", seeder.torrent)},
                            data={"savepath": f"dl/{i}", "category": "dl", "tags": "dltag"}, timeout=TIMEOUT)
            self.expect(r, 200)
            if r.text != "Ok.":
                raise AssertionError(f"torrents/add answered {r.text!r}")
            with L.lock:
                L.torrents[seeder.id] = {"seeder": i, "savepath": f"dl/{i}"}
                L.adding.pop(seeder.id, None)
            self.F.ack("torrents/add")
            self.add_peers()
        self.doing("torrents/info")
        info = self.expect(self.s.get(self.q.url("torrents/info"), timeout=TIMEOUT), 200).json()
        c.progress = {t["hash"]: t["progress"] for t in info}

    def add_peers(self):
        for tid, t in list(self.L.torrents.items()):
            self.doing("torrents/addPeers")
            self.expect(self.s.post(self.q.url("torrents/addPeers"),
                                    data={"hashes": tid, "peers": self.c.seeders[t["seeder"]].peer}, timeout=TIMEOUT), 200)


class PrefsWorker(Worker):
    kind = "preferences"

    def step(self):
        L = self.L
        with L.lock:
            n = max([L.pref or 0] + L.pref_pending) + 1
            L.pref_pending.append(n)
        self.doing("app/setPreferences")
        self.expect(self.s.post(self.q.url("app/setPreferences"), data={"json": json.dumps(pref_values(n))},
                                timeout=TIMEOUT), 200)
        with L.lock:
            L.pref, L.pref_pending = n, []
        self.F.ack("app/setPreferences")


def pref_values(n):
    return {"max_active_downloads": 50 + n % 900, "rss_max_articles_per_feed": 100 + n}


class CategoryWorker(Worker):
    kind = "categories"

    def step(self):
        L, rng = self.L, self.rng
        with L.lock:
            mine = [k for k in L.categories if k.startswith("cc-") and L.categories[k]["acked"] is not None]
        if not mine or rng.random() < 0.4:
            name = f"cc-{self.c.cycle}-{rng.randrange(1 << 30):x}"
            path, action = f"cats/{name}", "torrents/createCategory"
        else:
            name = rng.choice(mine)
            path, action = f"cats/{name}/e{rng.randrange(1 << 20)}", "torrents/editCategory"
        with L.lock:
            L.categories.setdefault(name, {"acked": None, "pending": []})["pending"].append(path)
        self.doing(action)
        self.expect(self.s.post(self.q.url(action), data={"category": name, "savePath": path}, timeout=TIMEOUT), 200)
        with L.lock:
            L.categories[name] = {"acked": path, "pending": []}
        self.F.ack(action)


class TagWorker(Worker):
    kind = "tags"

    def step(self):
        names = [f"tg-{self.c.cycle}-{self.rng.randrange(1 << 30):x}" for _ in range(self.rng.randint(1, 3))]
        with self.L.lock:
            self.L.tags_pending.update(names)
        self.doing("torrents/createTags")
        self.expect(self.s.post(self.q.url("torrents/createTags"), data={"tags": ",".join(names)}, timeout=TIMEOUT), 200)
        with self.L.lock:
            self.L.tags.update(names)
            self.L.tags_pending.difference_update(names)
        self.F.ack("torrents/createTags")


class RuleWorker(Worker):
    kind = "rss rules"

    def step(self):
        L, rng = self.L, self.rng
        with L.lock:
            known = [k for k, v in L.rules.items() if v["acked"] is not None]
        name = rng.choice(known) if known and rng.random() < 0.5 else f"rule {self.c.cycle}-{rng.randrange(1 << 30):x}"
        must = f"show-{rng.randrange(1 << 30):x} 1080p"
        with L.lock:
            L.rules.setdefault(name, {"acked": None, "pending": []})["pending"].append(must)
        # A long list of matched episodes makes each write several pages: checkpoints come sooner.
        episodes = [f"{s}x{e}" for s in range(1, 9) for e in range(1, rng.randint(20, 60))]
        definition = {"enabled": False, "mustContain": must, "episodeFilter": "1x1-;", "affectedFeeds": [],
                      "previouslyMatchedEpisodes": episodes, "torrentParams": {"category": "", "tags": ["x"]}}
        self.doing("rss/setRule")
        self.expect(self.s.post(self.q.url("rss/setRule"), data={"ruleName": name, "ruleDef": json.dumps(definition)},
                                timeout=TIMEOUT), 200)
        with L.lock:
            L.rules[name] = {"acked": must, "pending": []}
        self.F.ack("rss/setRule")


class KeyWorker(Worker):
    kind = "api keys"
    pause = (0.1, 0.4)

    def step(self):
        scope = self.rng.choice(["full", "read-only", "music", "stream", "upload"])
        name = f"key-{self.c.cycle}-{self.rng.randrange(1 << 30):x}"
        self.doing("qbtd/createAPIKey")
        r = self.expect(self.s.post(self.q.url("qbtd/createAPIKey"), data={"name": name, "scope": scope},
                                    timeout=TIMEOUT), 200)
        key = r.json()["key"]
        with self.L.lock:
            self.L.keys.append((name, key, scope))
        self.F.ack("qbtd/createAPIKey")


class MultipartWorker(Worker):
    kind = "multipart uploads"
    label = "multipart upload"

    def prepare(self):
        pass

    def shape(self):
        """(size, destination, seconds between 128 KiB blocks)"""
        rng = self.rng
        where = rng.choice([{}, {"path": f"mp/{self.c.cycle % 3}"}, {"category": "upcat"}])
        return rng.randint(64 << 10, 3 << 20), where, 0.03 if rng.random() < 0.6 else 0

    def step(self):
        rng = self.rng
        size, where, delay = self.shape()
        data = os.urandom(size)
        name = f"mp-{self.c.cycle}-{rng.randrange(1 << 30):x}.bin"
        boundary = f"crash{rng.randrange(1 << 40):x}"

        def body():
            yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                   "Content-Type: application/octet-stream\r\n\r\n").encode()
            step = 128 << 10
            for i in range(0, len(data), step):
                yield data[i:i + step]
                if delay and not self.c.stop.is_set():
                    time.sleep(delay)
            yield f"\r\n--{boundary}--\r\n".encode()

        self.doing(self.label)
        r = requests.post(self.q.url("uploads"), params=where, auth=AUTH, data=body(), timeout=TIMEOUT,
                          headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        self.expect(r, 201)
        got = r.json()
        digest = hashlib.sha256(data).hexdigest()
        if len(got) != 1 or got[0]["sha256"] != digest or got[0]["size"] != len(data):
            raise AssertionError(f"upload answered {got}, sent {len(data)} bytes with SHA-256 {digest}")
        with self.L.lock:
            self.L.multipart.append({"name": name, "path": got[0]["path"], "sha256": digest, "size": len(data)})
        self.F.ack(self.label)


class TrickleWorker(MultipartWorker):
    """A slow multipart upload (2 MiB over about 8 s) always under way at the kill: into a category's save path on
    even cycles (outside the uploads folder), into the uploads folder on odd ones."""

    label = "multipart upload (slow)"

    def shape(self):
        return 2 << 20, {"category": "upcat"} if self.c.cycle % 2 == 0 else {}, 0.5


class TusWorker(Worker):
    kind = "tus uploads"

    def prepare(self):
        pass

    def step(self):
        L, rng = self.L, self.rng
        with L.lock:
            active = [u for u in L.tus if u.id and u.landed is None]
        if len(active) < 2 or (len(active) < 4 and rng.random() < 0.1):
            return self.create()
        self.patch(rng.choice(active))

    def create(self):
        rng = self.rng
        u = TusUpload(os.urandom(rng.randint(256 << 10, 8 << 20)),
                      rng.choice([{}, {"path": "tus-sub"}, {"category": "upcat"}]))
        name = f"tus-{self.c.cycle}-{rng.randrange(1 << 30):x}.bin"
        meta = [f"filename {b64(name)}"] + [f"{k} {b64(v)}" for k, v in u.destination.items()]
        self.doing("tus create")
        r = requests.post(self.q.url("tus/"), auth=AUTH, timeout=TIMEOUT,
                          headers={**TUS, "Upload-Length": str(len(u.data)), "Upload-Metadata": ",".join(meta)})
        self.expect(r, 201)
        u.id = r.headers["Location"].rstrip("/").rsplit("/", 1)[1]
        u.name = name
        with self.L.lock:
            self.L.tus.append(u)
        self.F.ack("tus create")

    def patch(self, u):
        rng = self.rng
        start = u.offset
        chunk = u.data[start:start + rng.randint(128 << 10, 2 << 20)]
        slow = rng.random() < 0.5
        headers = {**TUS, "Upload-Offset": str(start), "Content-Type": "application/offset+octet-stream"}
        if rng.random() < 0.3:
            headers["Upload-Checksum"] = "sha256 " + base64.b64encode(hashlib.sha256(chunk).digest()).decode()

        def body():
            step = 64 << 10
            for i in range(0, len(chunk), step):
                yield chunk[i:i + step]
                if slow and not self.c.stop.is_set():
                    time.sleep(0.02)

        self.doing("tus PATCH")
        r = requests.patch(self.c.tus_url(u), auth=AUTH, data=body() if slow else chunk, headers=headers, timeout=TIMEOUT)
        self.expect(r, 204)
        offset = int(r.headers["Upload-Offset"])
        if offset != start + len(chunk):
            raise AssertionError(f"tus {u.id}: PATCH of {len(chunk)} at {start} answered offset {offset}")
        with self.L.lock:
            u.acked = u.offset = offset
            if "Qbtd-Upload-Path" in r.headers:
                u.landed = r.headers["Qbtd-Upload-Path"]
        self.F.ack("tus PATCH")
        self.F.ack("tus bytes", len(chunk))


class MusicWorker(Worker):
    kind = "music"
    pause = (0.1, 0.4)

    def prepare(self):
        self.key = self.c.music_key
        url = self.q.base.replace("http", "ws") + "/music/ws"
        self.ws = websocket.create_connection(url, header=[f"Authorization: Bearer {self.key}"], timeout=TIMEOUT)
        hello = json.loads(self.ws.recv())
        assert hello["type"] == "hello", hello
        self.ws.send(json.dumps({"type": "hello", "protocolVersion": 1, "appVersion": "crash campaign"}))

    def step(self):
        c, rng = self.c, self.rng
        for _ in range(rng.randint(1, 3)):
            name = f"t-{c.cycle}-{rng.randrange(1 << 30):x}.mp3"
            shutil.copyfile(rng.choice(c.tones), c.music_dir / "added" / name)
        if rng.random() < 0.3:  # a changed file: new size and mtime
            victims = sorted((c.music_dir / "added").glob("*.mp3"))
            if victims:
                shutil.copyfile(rng.choice(c.tones), rng.choice(victims))
        self.doing("music rescan")
        self.ws.send(json.dumps({"type": "refreshDB"}))
        deadline = time.monotonic() + TIMEOUT
        while True:
            if time.monotonic() > deadline:
                raise AssertionError("no dbReady after refreshDB")
            event = json.loads(self.ws.recv())
            if event["type"] == "ping":
                self.ws.send(json.dumps({"type": "pong", "seq": event["seq"]}))
            elif event["type"] == "dbReady":
                break
        self.F.ack("music rescan")
        self.doing("music db download")
        version, tracks = self.c.music_db(self.key)
        with self.L.lock:
            self.L.music_version = max(self.L.music_version, version)
            self.L.music_tracks |= tracks
        self.F.ack("music db download")


WORKERS = [TorrentWorker, PrefsWorker, CategoryWorker, TagWorker, RuleWorker, KeyWorker, MultipartWorker, TrickleWorker,
           TusWorker, MusicWorker]


class Campaign:
    def __init__(self, workdir, kills=20, seed=1, short=False, log=print):
        self.workdir = Path(workdir)
        self.kills, self.seed, self.short, self.log = kills, seed, short, log
        self.rng = random.Random(seed)  # the kill moments
        self.canary_rng = random.Random(f"{seed}-canaries")
        self.figures, self.ledger = Figures(), Ledger()
        self.data_dir = self.workdir / "data"
        self.music_dir = self.workdir / "music"
        self.port = free_port()
        self.stop, self.dead = threading.Event(), threading.Event()
        self.cycle = 0
        self.progress = {}
        self.q = None
        self.monitor = None
        self.music_key = None
        self.temp_seen = set()
        self.finished = False
        self.saved_at_kill = {}

    # -- setup ------------------------------------------------------------------------------------------------------

    def setup(self):
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.data_dir.mkdir()
        (self.music_dir / "added").mkdir(parents=True)
        tones = self.workdir / "tones"
        tones.mkdir()
        self.tones = [mp3(tones / f"tone{f}.mp3", s, f) for f, s in ((330, 2), (440, 3), (550, 1))]
        # A long track (20,000 frames of 8 kHz mono, 28 min, 1.4 MB): its frame index is 80 pages of SQLite.
        short = mp3(tones / "short8k.mp3", 2, 660, "-m", "m", "--resample", "8", "-b", "8", "--nores")
        frames = mp3frames.audio(short.read_bytes())
        count = len(mp3frames.frames(short.read_bytes()))
        (tones / "long.mp3").write_bytes(frames * (20000 // count))
        self.tones.append(tones / "long.mp3")
        shutil.copyfile(self.tones[0], self.music_dir / "first.mp3")
        # Downloads: each seeder limited so that its torrent is still part-way after most of the campaign's kills.
        count = 2 if self.short else 4
        size = (4 << 20) if self.short else (12 << 20)
        uptime = self.kills * (3.0 if self.short else 4.5)  # seconds qbtd runs over the campaign, about
        self.add_every = 1 if self.short else max(1, self.kills // 8)
        limit = max(64 << 10, int(size / max(8.0, uptime * 0.9)))
        self.seeders = [Seeder(self.workdir / f"seed{i}", [size * 2 // 3, size // 3 - 4321, 5000 + i],
                               piece_size=64 << 10, upload_limit=limit) for i in range(count)]
        self.log(f"setup: {count} seeders of {size >> 20} MiB at {limit >> 10} KiB/s, {len(self.tones)} MP3s, "
                 f"data in {self.data_dir}")

    def start(self):
        extra = ["--music-dir", str(self.music_dir), "--music-rescan", "2"]
        self.q = Qbtd(self.data_dir, port=self.port, password=PASSWORD, resume_interval=1, extra=extra)
        self.q.start()
        self.dead.clear()
        self.stop.clear()

    def first_start(self):
        self.start()
        s = self.q.session()
        assert s.post(self.q.url("torrents/createCategory"), data={"category": "upcat", "savePath": "upcat"}).status_code == 200
        self.ledger.categories["upcat"] = {"acked": "upcat", "pending": []}
        r = s.post(self.q.url("qbtd/createAPIKey"), data={"name": "music player", "scope": "music"})
        self.music_key = r.json()["key"]
        self.ledger.keys.append(("music player", self.music_key, "music"))

        def scanned():
            try:
                return self.music_db(self.music_key)
            except AssertionError:
                return None

        version, tracks = wait_for(lambda: (lambda v: v if v and v[1] else None)(scanned()), 30, what="the first music scan")
        self.ledger.music_version, self.ledger.music_tracks = version, set(tracks)

    # -- helpers ----------------------------------------------------------------------------------------------------

    def scanned_dirs(self):
        """Where uploads' data files and temp files are looked for (the data directory holds the uploads folder)."""
        return [self.data_dir]

    def refusable(self, r):
        """Whether an error answer is one the campaign's fault explains (none here: a kill answers nothing)."""
        return False

    def tus_url(self, u):
        return self.q.url(f"tus/{u.id}")

    def music_db(self, key):
        r = requests.get(self.q.base + "/music/db", headers={"Authorization": f"Bearer {key}"}, timeout=TIMEOUT)
        if r.status_code != 200:
            raise AssertionError(f"/music/db answered {r.status_code}")
        fd, path = tempfile.mkstemp(suffix=".sqlite", dir=self.workdir)
        try:
            os.write(fd, r.content)
            os.close(fd)
            with sqlite3.connect(path) as db:
                tracks = {p for (p,) in db.execute("SELECT path FROM tracks")}
                ok = db.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise AssertionError(f"/music/db is damaged: {ok}")
        finally:
            for leftover in (path, path + "-wal", path + "-shm"):  # sqlite3 opens a WAL database with its -shm
                if os.path.exists(leftover):
                    os.unlink(leftover)
        return int(r.headers["ETag"].strip('W/"')), tracks

    def info(self, s):
        return {t["hash"]: t for t in s.get(self.q.url("torrents/info"), timeout=TIMEOUT).json()}

    def piece_file_slices(self, seeder, piece, length):
        """(relative path, offset, size) of the bytes [0, length) of a piece."""
        fs = seeder.info.files()
        return [(fs.file_path(sl.file_index), sl.offset, sl.size) for sl in seeder.info.map_block(piece, 0, length)]

    # -- the canary: a saved piece changed on disk while qbtd is down -------------------------------------------

    def plant_canaries(self, saved):
        self.canaries = []
        for tid, t in self.ledger.torrents.items():
            pieces = saved.get(tid) or set()
            if not pieces:
                continue
            seeder = self.seeders[t["seeder"]]
            piece = self.canary_rng.choice(sorted(pieces))
            base = self.data_dir / "downloads" / t["savepath"]
            originals = []
            for rel, offset, size in self.piece_file_slices(seeder, piece, 64):
                if not self.figures.check("pieces", f"{tid[:12]}#{piece}", (base / rel).is_file(),
                                          f"{base / rel} is gone while its pieces are in the fast-resume data"):
                    continue
                with open(base / rel, "r+b") as f:
                    f.seek(offset)
                    original = f.read(size)
                    f.seek(offset)
                    f.write(bytes(b ^ 0xFF for b in original))
                originals.append((base / rel, offset, original))
            self.canaries.append((tid, piece, originals))

    def restore_canaries(self):
        for _, _, originals in self.canaries:
            for path, offset, original in originals:
                with open(path, "r+b") as f:
                    f.seek(offset)
                    f.write(original)
        self.canaries = []

    # -- verification after a restart -------------------------------------------------------------------------------

    def verify(self, saved):
        self.figures.restart = self.cycle
        s = self.q.session()
        self.verify_torrents(s, saved)
        self.verify_settings(s)
        self.verify_keys()
        self.verify_uploads()
        self.verify_music()
        self.verify_databases()
        time.sleep(0.3)  # "a moment" for anything qbtd cleans up at start
        self.verify_temp_files()

    def verify_torrents(self, s, saved):
        F, L = self.figures, self.ledger
        # Until nothing is checking (qbtd is usually done before it answers: the canaries are the real test).
        seen_states = {}
        deadline = time.monotonic() + 60
        while True:
            info = self.info(s)
            for tid, t in info.items():
                seen_states.setdefault(tid, set()).add(t["state"])
            if not any(t["state"].startswith("checking") for t in info.values()) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        # Adopt torrents whose add was in flight and that came back.
        for tid, i in list(L.adding.items()):
            if tid in info:
                L.torrents[tid] = {"seeder": i, "savepath": f"dl/{i}"}
        L.adding.clear()
        for tid, t in L.torrents.items():
            got = info.get(tid)
            if not F.check("torrents", tid[:12], got is not None, "gone after the restart"):
                continue
            F.check("torrents", tid[:12], got["category"] == "dl" and "dltag" in got["tags"]
                    and got["save_path"].endswith("/" + t["savepath"]),
                    f"came back as category {got['category']!r}, tags {got['tags']!r}, save path {got['save_path']!r}")
            F.check("torrents", tid[:12], not (seen_states.get(tid, set()) & set(CHECKING)),
                    f"rechecked: states {sorted(seen_states.get(tid, ()))}")
            states = s.get(self.q.url("torrents/pieceStates"), params={"hash": tid}, timeout=TIMEOUT).json()
            had = (saved.get(tid) or set()) - {piece for t_id, piece, _ in self.canaries if t_id == tid}
            missing = sorted(p for p in had if p >= len(states) or states[p] != 2)
            F.check_many("pieces", [f"{tid[:12]}#{p}" for p in had], len(missing),
                         f"{tid[:12]}: {len(missing)} of the {len(had)} pieces in the saved fast-resume data are not "
                         f"downloaded after the restart: {missing[:20]}")
        for tid, piece, _ in self.canaries:
            if tid not in info:
                continue
            states = s.get(self.q.url("torrents/pieceStates"), params={"hash": tid}, timeout=TIMEOUT).json()
            F.check("canaries", f"{tid[:12]}#{piece}", states[piece] == 2,
                    f"piece {piece}, saved in the fast-resume data and changed on disk while qbtd was down, is "
                    f"state {states[piece]}: the torrent was rechecked instead of resumed")
        self.restore_canaries()

    def verify_settings(self, s):
        F, L = self.figures, self.ledger
        prefs = s.get(self.q.url("app/preferences"), timeout=TIMEOUT).json()
        got = {k: prefs[k] for k in pref_values(0)}
        allowed = ([L.pref] if L.pref is not None else []) + L.pref_pending
        match = [n for n in allowed if pref_values(n) == got]
        if L.pref is None and not match:
            match = [None]  # nothing acknowledged yet: the defaults are fine too
        F.check("preferences", "max_active_downloads+rss_max_articles_per_feed", bool(match),
                f"{got}, acknowledged {L.pref and pref_values(L.pref)}, in flight {[pref_values(n) for n in L.pref_pending]}")
        if match and match[0] is not None:
            L.pref = match[0]
        L.pref_pending = []

        cats = s.get(self.q.url("torrents/categories"), timeout=TIMEOUT).json()
        for name, c in list(L.categories.items()):
            got = cats.get(name)
            if c["acked"] is None:
                if got is None:
                    del L.categories[name]
                    continue
                F.check("categories", name, got["savePath"] in c["pending"], f"came back with {got['savePath']!r}")
            else:
                if not F.check("categories", name, got is not None, "gone after the restart"):
                    continue
                F.check("categories", name, got["savePath"] in [c["acked"]] + c["pending"],
                        f"save path {got['savePath']!r}, acknowledged {c['acked']!r}, in flight {c['pending']}")
            L.categories[name] = {"acked": got["savePath"], "pending": []}

        tags = set(s.get(self.q.url("torrents/tags"), timeout=TIMEOUT).json())
        for t in L.tags:
            F.check("tags", t, t in tags, "gone after the restart")
        L.tags |= L.tags_pending & tags
        L.tags_pending = set()

        rules = s.get(self.q.url("rss/rules"), timeout=TIMEOUT).json()
        for name, r in list(L.rules.items()):
            got = rules.get(name)
            if r["acked"] is None and got is None:
                del L.rules[name]
                continue
            if not F.check("rss rules", name, got is not None, "gone after the restart"):
                continue
            F.check("rss rules", name, got["mustContain"] in ([r["acked"]] if r["acked"] else []) + r["pending"],
                    f"mustContain {got['mustContain']!r}, acknowledged {r['acked']!r}, in flight {r['pending']}")
            L.rules[name] = {"acked": got["mustContain"], "pending": []}

    def verify_keys(self):
        F = self.figures
        probe = {"full": "/api/v2/app/version", "read-only": "/api/v2/app/version", "stream": "/api/v2/app/version",
                 "music": "/music/auth", "upload": "/api/v2/uploads"}
        for name, key, scope in self.ledger.keys:
            r = requests.get(self.q.base + probe[scope], headers={"Authorization": f"Bearer {key}"}, timeout=TIMEOUT)
            F.check("api keys", name, r.status_code == 200, f"{scope} key answered {r.status_code} on {probe[scope]}")

    def verify_uploads(self):
        F, L = self.figures, self.ledger
        for m in L.multipart:
            p = Path(m["path"])
            F.check("multipart uploads", m["name"], p.is_file() and sha256(p) == m["sha256"],
                    f"{p} is {'missing' if not p.is_file() else 'different'}")
        data_files = {p.name[len(".qbtd-tus-"):-len(".part")]: p for root in self.scanned_dirs()
                      for p in root.rglob(".qbtd-tus-*.part")}
        for u in L.tus:
            if u.landed:
                p = Path(u.landed)
                F.check("tus uploads", u.id, p.is_file() and sha256(p) == u.sha256,
                        f"finished upload {p} is {'missing' if not p.is_file() else 'different'}")
                continue
            r = requests.head(self.tus_url(u), auth=AUTH, headers=TUS, timeout=TIMEOUT)
            if not F.check("tus uploads", u.id, r.status_code == 200, f"HEAD answered {r.status_code} "
                           f"({u.acked} bytes acknowledged)"):
                continue
            offset = int(r.headers["Upload-Offset"])
            F.check("tus uploads", u.id, offset >= u.acked, f"offset {offset} after the restart, {u.acked} acknowledged")
            if "Qbtd-Upload-Path" in r.headers:  # finished by a PATCH whose answer the kill cut
                u.landed = r.headers["Qbtd-Upload-Path"]
                p = Path(u.landed)
                F.check("tus uploads", u.id, p.is_file() and sha256(p) == u.sha256, f"finished upload {p} differs")
                continue
            data = data_files.get(u.id)
            if offset == len(u.data):
                # Every byte is in, but the upload did not land before the kill: one more (empty) PATCH lands it.
                r = requests.patch(self.tus_url(u), auth=AUTH, data=b"", timeout=TIMEOUT, headers={
                    **TUS, "Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream"})
                landed = r.headers.get("Qbtd-Upload-Path") if r.status_code == 204 else None
                F.check("tus uploads", u.id, landed is not None and Path(landed).is_file()
                        and sha256(landed) == u.sha256,
                        f"all {offset} bytes received before the kill, but the upload never lands: the empty PATCH "
                        f"answered {r.status_code} {r.text[:200]!r}; data file {data}")
                u.landed = landed
                u.acked = u.offset = offset
                continue
            if F.check("tus bytes", u.id, data is not None, f"no data file for an upload at offset {offset}"):
                with open(data, "rb") as f:
                    have = f.read(offset)
                F.check("tus bytes", u.id, have == u.data[:offset],
                        f"the data file's first {offset} bytes differ from what was sent")
            u.acked = u.offset = offset

    def verify_music(self):
        F, L = self.figures, self.ledger
        version = requests.get(self.q.base + "/music/auth", headers={"Authorization": f"Bearer {self.music_key}"},
                               timeout=TIMEOUT).json()["libraryVersion"]
        F.check("music version", "libraryVersion", version >= L.music_version,
                f"version {version} after the restart, the client had seen {L.music_version}")
        _, tracks = self.music_db(self.music_key)
        for t in L.music_tracks:
            F.check("music tracks", t, t in tracks, "gone from the library database")

    def verify_databases(self):
        for name, path in Monitor(self.data_dir, self.figures).dbs.items():
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            try:
                ok = con.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                con.close()
            self.figures.check("databases", name, ok == "ok", f"PRAGMA quick_check: {ok}")

    def verify_temp_files(self):
        F = self.figures
        left = []
        for root in self.scanned_dirs():
            for dirpath, _, files in os.walk(root):
                for name in files:
                    if name.startswith(".qbtd-") or name.endswith((".tmp", ".part", ".parts", "-journal")) or ".tmp-" in name:
                        left.append((root, Path(dirpath) / name))
        bad = []
        for root, p in left:
            if p.name.startswith(".qbtd-tus-") and p.name.endswith(".part"):
                uid = p.name[len(".qbtd-tus-"):-len(".part")]
                r = requests.head(self.q.url(f"tus/{uid}"), auth=AUTH, headers=TUS, timeout=TIMEOUT)
                if r.status_code == 200 and "Qbtd-Upload-Path" not in r.headers:
                    continue  # the data file of an upload still in progress
            bad.append(str(p.relative_to(root)) if root == self.data_dir else str(p))
        F.check("temp-file scans", f"after restart {self.cycle}", True)
        # Each file left counts once, as a lost item, when first seen (it stays from then on).
        for rel in bad:
            if rel not in self.temp_seen:
                self.temp_seen.add(rel)
                F.check("temp files", rel, False, "left behind" + (" at the end" if self.finished else ""))

    # -- the campaign -------------------------------------------------------------------------------------------------

    def run(self):
        started = time.monotonic()
        self.setup()
        saved = {}
        try:
            for cycle in range(self.kills):
                self.cycle = cycle
                if cycle == 0:
                    self.first_start()
                else:
                    self.plant_canaries(saved)
                    self.start()
                    self.verify(saved)
                monitor = self.monitor = Monitor(self.data_dir, self.figures,
                                                 on_checkpoint=lambda: self.kill(workers, monitor))
                monitor.start()
                workers = [W(self, random.Random(f"{self.seed}-{cycle}-{W.__name__}")) for W in WORKERS]
                for w in workers:
                    w.start()
                at = self.rng.uniform(0.5, 4.0)
                time.sleep(at)
                how = f"at {at:.2f} s"
                if cycle % 4 == 2:  # every fourth kill lands on a checkpoint (it lasts milliseconds: chance misses it)
                    began = time.monotonic()
                    # qbtd's own database every other time (its checkpoints are rarer than the music ones)
                    hit = monitor.hunt_until(25, "qbtd.sqlite" if cycle % 8 == 2 else None)
                    if hit:
                        self.figures.at_checkpoint[hit] += 1
                        how = f"the moment a checkpoint of {hit} began, {at + time.monotonic() - began:.2f} s"
                    else:
                        self.kill(workers, monitor)
                        how = f"at {at + time.monotonic() - began:.2f} s (no checkpoint came in 25 s)"
                else:
                    self.kill(workers, monitor)
                # The fast-resume data SQLite held before the kill (the monitor's last read: a lower bound).
                saved = self.saved_at_kill
                self.stop.set()
                monitor.stop.set()
                monitor.join(10)
                for w in workers:
                    w.join(30)
                    if w.is_alive():
                        self.figures.error(f"{w.kind} worker still running 30 s after the kill")
                self.log(f"kill {cycle + 1}/{self.kills} {how}: in flight "
                         f"{sorted(w.inflight_at_kill for w in workers if w.inflight_at_kill)}; "
                         f"lost so far {self.figures.lost_total}, checked {sum(self.figures.checked.values())}")
            self.cycle = self.kills
            self.plant_canaries(saved)
            self.start()
            self.verify(saved)
            self.finish()
        except Exception:  # noqa: BLE001 -- qbtd did not come back, or a check could not run: that is the finding
            self.figures.error(f"the campaign stopped in cycle {self.cycle}: {traceback.format_exc(limit=6)}")
        finally:
            self.stop.set()
            if self.monitor:
                self.monitor.stop.set()
            if self.q and self.q.proc and self.q.proc.poll() is None:
                self.q.stop()
                self.q.log.close()
            for seeder in getattr(self, "seeders", []):
                seeder.session.pause()
        seconds = time.monotonic() - started
        text = self.figures.report(self.seed, seconds)
        self.log(text)
        return self.figures

    def kill(self, workers, monitor):
        """SIGKILL now; what was in flight is noted at once."""
        self.saved_at_kill = monitor.saved
        self.dead.set()
        os.kill(self.q.proc.pid, signal.SIGKILL)
        F = self.figures
        F.kills += 1
        for w in workers:
            w.inflight_at_kill = w.inflight
            if w.inflight:
                F.during[w.inflight] += 1
        if any(0 < p < 1 for p in self.progress.values()):
            F.midway += 1
        if monitor.last_checkpoint and time.monotonic() - monitor.last_checkpoint < 0.5:
            F.near_checkpoint += 1
        self.q.proc.wait(10)
        self.q.log.close()

    def finish(self):
        """The last start: downloads complete and match the seeders, tus uploads finish and match."""
        F, L = self.figures, self.ledger
        s = self.q.session()
        for seeder in self.seeders:
            seeder.handle.set_upload_limit(0)
        for tid, t in L.torrents.items():
            s.post(self.q.url("torrents/addPeers"), data={"hashes": tid, "peers": self.seeders[t["seeder"]].peer})
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            info = self.info(s)
            if all(info.get(tid, {}).get("progress") == 1 for tid in L.torrents):
                break
            time.sleep(0.5)
        info = self.info(s)
        for tid, t in L.torrents.items():
            got = info.get(tid)
            if not F.check("downloads", tid[:12], got is not None and got["progress"] == 1,
                           f"did not complete: {got and got['progress']}"):
                continue
            try:
                self.seeders[t["seeder"]].verify(got["save_path"])
                F.check("downloads", tid[:12], True)
            except AssertionError as e:
                F.check("downloads", tid[:12], False, str(e))
        for u in L.tus:
            if u.landed:
                continue
            deadline = time.monotonic() + 60
            while u.offset < len(u.data) and time.monotonic() < deadline:
                chunk = u.data[u.offset:u.offset + (4 << 20)]
                r = requests.patch(self.tus_url(u), auth=AUTH, data=chunk, timeout=TIMEOUT, headers={
                    **TUS, "Upload-Offset": str(u.offset), "Content-Type": "application/offset+octet-stream"})
                if r.status_code != 204:
                    F.error(f"tus {u.id}: PATCH at {u.offset} answered {r.status_code} {r.text[:200]}")
                    break
                u.acked = u.offset = int(r.headers["Upload-Offset"])
                u.landed = r.headers.get("Qbtd-Upload-Path")
            p = Path(u.landed) if u.landed else None
            F.check("tus uploads", u.id, p is not None and p.is_file() and sha256(p) == u.sha256,
                    f"finished as {p}, which is {'missing' if not (p and p.is_file()) else 'different'}")
        self.finished = True
        self.verify_temp_files()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--short", action="store_true", help="small downloads, for a few kills (the make test form)")
    ap.add_argument("--workdir", help="keep everything here (default: a temp folder, removed after a clean run)")
    args = ap.parse_args(argv)
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="qbtd-crash-"))
    print(f"crash campaign: seed {args.seed}, {args.kills} kills, work folder {workdir}", flush=True)
    figures = Campaign(workdir, kills=args.kills, seed=args.seed, short=args.short,
                       log=lambda text: print(text, flush=True)).run()
    failed = bool(figures.lost_total or figures.errors)
    if not failed and not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    elif failed:
        print(f"kept {workdir} (qbtd's log: {workdir}/qbtd-*.log)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
