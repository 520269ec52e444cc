#!/usr/bin/env python3
"""Fault campaign (issue 38, "Faults beyond a kill"): the crash campaign's workers keep qbtd busy while the disks under
it fail, and everything qbtd acknowledged is checked afterwards.

qbtd's data directory is a size-limited tmpfs; its download folder (<data>/downloads) is a bind mount of a second
tmpfs, so that it can be remounted read-only or lazily unmounted and brought back with its data. The scenarios, in
this order, each under the workers of Tests/soak/crash_campaign.py (torrents from rate-limited loopback seeders,
preferences, categories, tags, RSS rules, API keys, multipart and tus uploads, music rescans):

  guard      the free-space guard (the `qbtd_disk_guard_min_free_mib` preference, issue 38): the download filesystem
             is filled to below the limit; the downloads stop (stoppedDL, `qbtd_reason` "disk full: ..."), and start
             again by themselves when the ballast goes. Needs the preference: without it the scenario FAILS (it is
             not skipped).
  disk full  the download filesystem filled to the last byte under downloads: they stop with `error` and "No space
             left on device" (or the guard's stoppedDL), uploads into it answer 507; the ballast goes, torrents/start
             (if they are in error), and the downloads complete with no more bytes downloaded than about their size
             (nothing saved was downloaded again; the issue measured 1.01x for qBittorrent).
  read-only  the download filesystem remounted read-only under seeding torrents while a python-libtorrent peer asks
             for data: no crash, no silent stall (the peer keeps getting data, or the torrent shows error /
             missingFiles naming the path); remounted read-write, recheck/start brings the torrents back complete.
  vanished   the same, lazily unmounted (umount -l), then the torrents stopped and started (files opened again);
             bound again, recheck/start brings them back complete with their data.
  data full  the data directory's filesystem (SQLite) filled: writes answer errors (not acknowledged), reads keep
             answering; ballast gone, writes succeed again without a restart; filled again, SIGKILL, ballast gone,
             restart: the crash campaign's verify (nothing acknowledged lost, fast-resume pieces kept) and
             PRAGMA integrity_check on every database.

At the end the crash campaign's finish: the seeders' limits go, every download completes and matches its seeder,
every tus upload completes. Error answers that a fault explains (500, 503, 507, 409, "Fails.") count as refused,
not acknowledged; any other unexpected answer, a timeout or a crash is an error.

With --nox (the long form, `make soak`), the disk-full, read-only and vanished scenarios also run against Debian
12's qbittorrent-nox 4.5.2 (no workers: one download from a loopback seeder, seeding torrents and a peer), and the
table gets its row.

Needs root (mount). Everything on 127.0.0.1; every mount is undone at the end.

    QBTD_BIN=.build/release/qbtd .venv/bin/python Tests/soak/fault_campaign.py --seed 7 [--short] [--nox]
"""
import argparse
import errno
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import crash_campaign as cc  # noqa: E402
from crash_campaign import AUTH, TIMEOUT, TUS, Campaign, Figures, Monitor, Refused  # noqa: E402
from conftest import QBTD, Seeder, end_process, free_port, loopback_session, wait_for  # noqa: E402
import faults_clock  # noqa: E402
import faults_fiu  # noqa: E402

import libtorrent as lt  # noqa: E402
import requests  # noqa: E402

# The free-space guard's preference: the name the issue gives, and the one the first builds with the guard answer.
GUARD_KEYS = ("qbtd_disk_guard_min_free_mib", "disk_guard_min_free_mib")
DOWNLOADING = {"downloading", "stalledDL", "metaDL", "forcedDL", "queuedDL", "forcedMetaDL"}
SEEDING = {"uploading", "stalledUP", "forcedUP", "queuedUP"}
ERRORED = {"error", "missingFiles"}
REFUSALS = {500, 503, 507, 409}
ENOSPC_TEXT = "No space left on device"


# -- mounts and ballast ---------------------------------------------------------------------------------------------

class Mounts:
    """Mounts made by the campaign, undone in reverse order at the end (lazily if busy)."""

    def __init__(self):
        self.made = []

    @staticmethod
    def run(*args):
        r = subprocess.run(list(args), capture_output=True, text=True, timeout=30)
        return r.returncode, (r.stderr or r.stdout).strip()

    def tmpfs(self, path, mib, name):
        Path(path).mkdir(parents=True, exist_ok=True)
        rc, err = self.run("mount", "-t", "tmpfs", "-o", f"size={mib}m,mode=0755", name, str(path))
        if rc:
            raise RuntimeError(f"mount tmpfs on {path}: {err}")
        self.made.append(Path(path))

    def bind(self, src, dst):
        Path(dst).mkdir(parents=True, exist_ok=True)
        rc, err = self.run("mount", "--bind", str(src), str(dst))
        if rc:
            raise RuntimeError(f"mount --bind {src} {dst}: {err}")
        self.made.append(Path(dst))

    def remount(self, dst, mode):
        """`ro` or `rw` on a bind mount; (ok, message)."""
        rc, err = self.run("mount", "-o", f"remount,bind,{mode}", str(dst))
        return rc == 0, err

    def lazy_unmount(self, dst):
        rc, err = self.run("umount", "-l", str(dst))
        if rc == 0:
            self.made.remove(Path(dst))
        return rc == 0, err

    @staticmethod
    def mounted(path):
        target = str(Path(path).resolve())
        with open("/proc/self/mountinfo") as f:
            return any(line.split()[4] == target for line in f)

    def cleanup(self):
        for path in reversed(self.made):
            for _ in range(5):  # a bind mounted more than once (re-bound after a lazy unmount) goes one layer a time
                if not self.mounted(path):
                    break
                rc, _ = self.run("umount", str(path))
                if rc:
                    self.run("umount", "-l", str(path))
        self.made = []


def guard_reason(t):
    """Whether a torrent's qbtd_reason says the guard holds it for a full disk."""
    reason = (t.get("qbtd_reason") or "").lower()
    return "disk full" in reason or "free-space guard" in reason


def open_files(pid):
    """Paths a process has mapped or open."""
    out = set()
    try:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    out.add(parts[5].strip())
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                out.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
    except OSError:
        pass
    return out


def listening_ports(pid):
    """TCP ports a process listens on (ss)."""
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, timeout=10).stdout
    ports = set()
    for line in out.splitlines():
        if f"pid={pid}," in line:
            ports.add(int(line.split()[3].rsplit(":", 1)[1]))
    return ports


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def fill(directory, leave=0, timeout=30):
    """Writes a ballast file into `directory` until its filesystem has `leave` bytes free (0: until ENOSPC)."""
    path = Path(directory) / "fault-ballast.bin"
    block = b"\xa5" * (1 << 20)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            want = free_bytes(directory) - leave
            if want <= 0:
                break
            try:
                os.write(fd, block[:min(want, len(block))] if leave else block)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                if leave == 0:
                    # What a writer frees in the meantime is taken too, a page at a time.
                    try:
                        while os.write(fd, block[:4096]):
                            pass
                    except OSError:
                        pass
                    break
    finally:
        os.close(fd)
    return path


def unfill(directory):
    (Path(directory) / "fault-ballast.bin").unlink(missing_ok=True)


# -- figures ----------------------------------------------------------------------------------------------------------

class FaultFigures(Figures):
    """The crash campaign's figures, plus the faults injected, what each scenario saw and its checks of behaviour."""

    def __init__(self):
        super().__init__()
        self.faults = []          # (scenario, fault)
        self.seen = {}            # scenario -> lines observed
        self.verdicts = {}        # scenario -> short summary for the table
        self.failures = []        # behaviour checks that failed: "scenario: what (observed)"
        self.behaviour = 0        # behaviour checks made
        self.affected = 0         # torrents a fault hit
        self.recovered = 0        # of them, back complete (or downloading again) with their data
        self.db_checks = []       # (database, result)

    def fault(self, scenario, what):
        with self.lock:
            self.faults.append((scenario, what))

    def saw(self, scenario, text):
        with self.lock:
            self.seen.setdefault(scenario, []).append(text)

    def expect(self, scenario, what, ok, observed=""):
        """One check of behaviour: not an acknowledged item, but what the issue asks qbtd to do."""
        with self.lock:
            self.behaviour += 1
            if not ok:
                self.failures.append(f"{scenario}: {what} ({observed})" if observed else f"{scenario}: {what}")
        return ok

    def row(self, server):
        cells = [server, str(len(self.faults)), str(sum(self.checked.values()) + self.behaviour),
                 str(self.lost_total), f"{self.recovered}/{self.affected}",
                 ", ".join(f"{n}: {r}" for n, r in self.db_checks) or "n/a"]
        cells += [self.verdicts.get(k, "not run") for k in SCENARIOS]
        return "| " + " | ".join(c.replace("|", "/") for c in cells) + " |"

    def report(self, seed, seconds, label="fault campaign"):
        text = super().report(seed, seconds).replace("crash campaign", label, 1)
        lines = [text, f"faults injected: {len(self.faults)}"]
        lines += [f"  {s}: {f}" for s, f in self.faults]
        for scenario in SCENARIOS:
            if scenario in self.seen:
                lines.append(f"{scenario}:")
                lines += [f"  {x}" for x in self.seen[scenario]]
        lines.append(f"torrents recovered: {self.recovered}/{self.affected}")
        lines.append("database checks (PRAGMA integrity_check): "
                     + (", ".join(f"{n} {r}" for n, r in self.db_checks) or "none"))
        lines.append(f"behaviour checks: {self.behaviour}, failed: {len(self.failures)}")
        lines += [f"  FAILED {x}" for x in self.failures]
        return "\n".join(lines)


SCENARIOS = ["guard", "disk full", "read-only", "vanished", "data full"]
HEADER = ("| server | faults injected | items checked | lost | torrents recovered | database checks | "
          + " | ".join(SCENARIOS) + " |\n|" + " --- |" * (6 + len(SCENARIOS)))


# -- a peer that asks for data ----------------------------------------------------------------------------------------

class Leecher:
    """A python-libtorrent session on 127.0.0.1 downloading `seeder`'s torrent (slowly) from the server under test."""

    def __init__(self, root, seeder, limit=128 << 10, skip=None):
        """`skip`: a file index not wanted until want() is called."""
        self.session = loopback_session(free_port())
        c = lt.alert.category_t
        self.session.apply_settings({"alert_mask": c.error_notification | c.peer_notification | c.connect_notification})
        params = lt.add_torrent_params()
        params.ti = seeder.info
        params.save_path = str(root)
        if skip is not None:
            params.file_priorities = [0 if i == skip else 1 for i in range(seeder.info.num_files())]
        self.handle = self.session.add_torrent(params)
        self.handle.set_download_limit(limit)
        self.closed = threading.Event()
        port = self.session.listen_port()
        self.peer = f"127.0.0.1:{port}"

    def done(self, file=None):
        """Bytes the peer has: of the torrent, or of one file."""
        if file is not None:
            return self.handle.file_progress()[file]
        return self.handle.status().total_done

    def peers(self):
        """How the peer stands with each connection: interested, choked, requests queued; and the last few distinct
        peer alerts (why connections closed)."""
        said = []
        for a in self.session.pop_alerts():
            text = f"{type(a).__name__}: {a.message()}"
            if text not in said:
                said.append(text)
        out = [f"alerts: {said[-4:]}"] if said else []
        for p in self.handle.get_peer_info():
            f = p.flags
            out.append(f"{p.ip[0]}:{p.ip[1]} {'interested' if f & lt.peer_info.interesting else 'not interested'}"
                       f", {'choked' if f & lt.peer_info.choked else 'unchoked'}, {p.download_queue_length} queued")
        return "; ".join(out) or "no connection"

    def close(self):
        self.closed.set()
        self.session.remove_torrent(self.handle)
        self.session.pause()


# -- the scenarios, against qbtd or qbittorrent-nox -------------------------------------------------------------------

class Server:
    """What the scenarios need of the server under test."""

    def __init__(self, name, q, start_route, stop_route, mount, fs, save_root, relative):
        self.name, self.q = name, q
        self.start_route, self.stop_route = start_route, stop_route
        self.mount, self.fs = Path(mount), Path(fs)  # the download bind mount, and the tmpfs behind it
        self.save_root, self.relative = Path(save_root), relative
        self.log_id = -1
        self.s = None
        self.peer_port = None  # where the server listens for peers, when known

    def session(self):
        self.s = self.q.session()
        return self.s

    def peer_ports(self):
        """Where the server listens for peers: known, or its listening ports but the WebAPI's. A seed does not dial
        a peer again that it once saw with all it wanted, so the peer must connect to it."""
        if self.peer_port:
            return [self.peer_port]
        return sorted(listening_ports(self.q.proc.pid) - {self.q.port})

    def savepath(self, name):
        return name if self.relative else str(self.save_root / name)

    def info(self):
        r = self.s.get(self.q.url("torrents/info"), timeout=TIMEOUT)
        r.raise_for_status()
        return {t["hash"]: t for t in r.json()}

    def new_log(self):
        """log/main entries since the last call."""
        r = self.s.get(self.q.url("log/main"), params={"last_known_id": self.log_id}, timeout=TIMEOUT)
        if r.status_code != 200:
            return []
        entries = r.json()
        if entries:
            self.log_id = max(e["id"] for e in entries)
        return [e["message"] for e in entries]

    def post(self, route, **data):
        return self.s.post(self.q.url(route), data=data, timeout=TIMEOUT)


class Scenarios:
    """The fault scenarios; `self.F` the figures, `self.mounts`, `self.log`, `self.short`."""

    def watch(self, srv, hashes, done, timeout, scenario, t0):
        """Polls torrents/info until done(info) or timeout; notes every state change (with its reason) and the
        log/main lines that came meanwhile. The last info, and whether done() held."""
        last = {}
        deadline = time.monotonic() + timeout
        info = {}
        while True:
            try:
                info = srv.info()
            except requests.RequestException as e:
                self.F.saw(scenario, f"{time.monotonic() - t0:5.1f} s torrents/info failed: {e}")
                info = {}
            for h in hashes:
                t = info.get(h, {})
                key = (t.get("state"), t.get("qbtd_reason"))
                if key != last.get(h):
                    last[h] = key
                    reason = f", qbtd_reason {t['qbtd_reason']!r}" if t.get("qbtd_reason") else ""
                    self.F.saw(scenario, f"{time.monotonic() - t0:5.1f} s {h[:8]} {t.get('state')} "
                                         f"progress {t.get('progress', 0):.3f}{reason}")
            for line in srv.new_log():
                self.logged.append(line)
                shown = self.shown.setdefault(scenario, set())
                relevant = any(h in line for h in hashes) or str(srv.mount) in line or str(srv.save_root) in line
                if relevant and line not in shown and len(shown) < 12:
                    shown.add(line)
                    self.F.saw(scenario, f"{time.monotonic() - t0:5.1f} s log/main: {line[:300]}")
            if info and done(info):
                return info, True
            if time.monotonic() > deadline:
                return info, False
            if getattr(srv.q, "proc", None) is not None and srv.q.proc.poll() is not None:
                self.F.expect(scenario, f"{srv.name} keeps running", False,
                              f"exited with {srv.q.proc.returncode} at {time.monotonic() - t0:.1f} s")
                return info, False
            time.sleep(0.25)

    def reasons(self, srv, h, info):
        """Every message the server gives about a torrent: qbtd_reason, any text field of info, and log/main."""
        t = info.get(h, {})
        texts = [str(v) for k, v in t.items() if isinstance(v, str) and k not in ("hash", "magnet_uri", "infohash_v1",
                                                                              "infohash_v2")]
        return "\n".join(texts + self.logged)

    # -- guard ------------------------------------------------------------------------------------------------------

    def scenario_guard(self, srv, hashes):
        F, sc = self.F, "guard"
        limit = 16
        key = self.guard_key(srv)
        r = srv.post("app/setPreferences", json=json.dumps({key or GUARD_KEYS[0]: limit}))
        prefs = srv.s.get(srv.q.url("app/preferences"), timeout=TIMEOUT).json()
        if not F.expect(sc, f"qbtd knows the preference {' or '.join(GUARD_KEYS)} [needs the free-space guard]",
                        key is not None and prefs.get(key) == limit,
                        f"app/setPreferences answered {r.status_code} {r.text[:80]!r}; app/preferences has "
                        f"{key or GUARD_KEYS[0]}={prefs.get(key or GUARD_KEYS[0], '(no such key)')!r}: the guard is "
                        f"not in this build"):
            F.verdicts[sc] = f"FAILED: no {GUARD_KEYS[0]} preference"
            return
        F.saw(sc, f"the guard's preference is {key!r}" + ("" if key == GUARD_KEYS[0] else
                                                          f" (the issue names it {GUARD_KEYS[0]!r})"))
        info = srv.info()
        busy = [h for h in hashes if info[h]["progress"] < 1]
        if not F.expect(sc, "a download is under way when the guard's limit is crossed", bool(busy),
                        f"progress {[info[h]['progress'] for h in hashes]}"):
            F.verdicts[sc] = "not run: nothing downloading"
            return
        t0 = time.monotonic()
        self.logged = []
        fill(srv.fs, leave=(limit // 2) << 20)
        F.fault(sc, f"{srv.mount}: {free_bytes(srv.fs) >> 20} MiB free, guard at {limit} MiB")
        F.affected += len(busy)
        info, ok = self.watch(srv, busy, lambda i: all(i[h]["state"] == "stoppedDL" and guard_reason(i[h])
                                                       for h in busy), 30, sc, t0)
        paused_at = time.monotonic() - t0
        F.expect(sc, "the downloads stop as stoppedDL, qbtd_reason naming the full disk ('disk full' or the "
                     "free-space guard) [needs the guard]", ok,
                 "; ".join(f"{h[:8]} {info.get(h, {}).get('state')} {info.get(h, {}).get('qbtd_reason')!r}"
                           for h in busy))
        F.expect(sc, "no download reaches error (the guard stops them before ENOSPC)",
                 not any(info.get(h, {}).get("state") in ERRORED for h in busy))
        before = {h: info.get(h, {}).get("progress", 0) for h in busy}
        unfill(srv.fs)
        t1 = time.monotonic()
        info, resumed = self.watch(srv, busy, lambda i: all(i[h]["state"] in DOWNLOADING | SEEDING for h in busy), 30,
                                   sc, t0)
        info, moved = self.watch(srv, busy, lambda i: all(i[h]["progress"] > before[h] for h in busy), 20, sc, t0)
        F.expect(sc, "they start again by themselves once space is back (no torrents/start) [needs the guard]",
                 resumed and moved, f"states {[info.get(h, {}).get('state') for h in busy]}")
        F.recovered += sum(1 for h in busy if info.get(h, {}).get("progress", 0) > before[h])
        srv.post("app/setPreferences", json=json.dumps({key: 0}))
        F.verdicts[sc] = (f"stoppedDL (qbtd_reason) in {paused_at:.1f} s, resumed by itself in "
                          f"{time.monotonic() - t1:.1f} s" if ok and resumed else
                          "FAILED: " + ("did not pause" if not ok else "did not resume by itself"))

    def guard_key(self, srv):
        """The name under which this qbtd has the guard's preference, or None."""
        prefs = srv.s.get(srv.q.url("app/preferences"), timeout=TIMEOUT).json()
        return next((k for k in GUARD_KEYS if k in prefs), None)

    # -- disk full --------------------------------------------------------------------------------------------------

    def scenario_disk_full(self, srv, hashes, sizes, seeders, saved=None, uploads=True):
        """`sizes`: hash -> bytes; `saved`: callable giving the pieces in the stored fast-resume data."""
        F, sc = self.F, "disk full"
        info = srv.info()
        busy = [h for h in hashes if info[h]["progress"] < 1]
        if not F.expect(sc, "a download is under way when the disk fills", bool(busy),
                        f"progress {[info[h]['progress'] for h in hashes]}"):
            F.verdicts[sc] = "not run: nothing downloading"
            return
        if srv.name == "qbtd":
            key = self.guard_key(srv)
            if key:  # the ENOSPC path, not the guard's (its own scenario): the guard off
                srv.post("app/setPreferences", json=json.dumps({key: 0}))
                F.saw(sc, f"{key} set to 0")
        have_before = {h: self.have(srv, h) for h in busy}
        t0 = time.monotonic()
        self.logged = []
        srv.new_log()
        fill(srv.fs, leave=0)
        F.fault(sc, f"{srv.mount} filled ({free_bytes(srv.fs)} bytes free)")
        F.affected += len(busy)

        def stopped(i):
            return all(i[h]["state"] in ERRORED or i[h]["state"] == "stoppedDL" for h in busy)

        info, ok = self.watch(srv, busy, stopped, 30, sc, t0)
        stop_at = time.monotonic() - t0
        states = {h: info.get(h, {}).get("state") for h in busy}
        text = "\n".join(self.reasons(srv, h, info) for h in busy)
        F.expect(sc, "the downloads stop with a clear state (error, or the guard's stoppedDL)", ok,
                 f"states after 30 s: {states}")
        F.expect(sc, f"the message says {ENOSPC_TEXT!r}", ENOSPC_TEXT in text, f"messages: {text[-400:]!r}")
        F.saw(sc, f"states {states} after {stop_at:.1f} s")
        if uploads and srv.name == "qbtd":
            self.uploads_refused(srv, sc)
        # a moment full: nothing may be lost meanwhile
        time.sleep(2 if self.short else 10)
        unfill(srv.fs)
        t1 = time.monotonic()
        info = srv.info()
        started = [h for h in busy if info[h]["state"] in ERRORED]
        moving, how = self.recover(srv, busy, seeders, sc, t0, ladder=[
            (srv.start_route, [srv.start_route]),
            (f"{srv.stop_route} + {srv.start_route}", [srv.stop_route, srv.start_route]),
            (f"recheck + {srv.start_route}", ["torrents/recheck", srv.start_route])] if started else
            [("by themselves", [])], until=lambda i, h: i[h]["state"] in DOWNLOADING | SEEDING)
        F.expect(sc, "the downloads go on once space is back" + (f" after {srv.start_route}" if started else
                                                                   " (by themselves)"),
                 moving and how in ("by themselves", srv.start_route), f"needed: {how}; states "
                 f"{[srv.info().get(h, {}).get('state') for h in busy]}")
        # Complete them at full speed, then count what was downloaded.
        for h in busy:
            seeders[h].handle.set_upload_limit(0)
        info, done = self.watch(srv, busy, lambda i: all(i[h]["progress"] == 1 for h in busy), 120, sc, t0)
        F.expect(sc, "the downloads complete", done, f"progress {[info.get(h, {}).get('progress') for h in busy]}")
        ratios = []
        for h in busy:
            t = info.get(h, {})
            lost = sorted(have_before[h] - self.have(srv, h))
            F.check("pieces", f"{h[:12]} (disk full)", not lost, f"pieces downloaded before the disk filled were "
                                                                  f"lost: {lost[:20]}")
            # What the seeder sent (its only peer is the server): the bytes downloaded, whatever the server counts.
            sent = seeders[h].handle.status().total_payload_upload
            ratio = sent / sizes[h]
            ratios.append(ratio)
            F.saw(sc, f"{h[:8]}: the seeder sent {sent} bytes for {sizes[h]} ({ratio:.3f}x); the server's "
                      f"downloaded {t.get('downloaded')}, downloaded_session {t.get('downloaded_session')}")
            if t.get("progress") == 1:
                F.expect(sc, "nothing saved downloaded again (the seeder sent <= 1.10 x the size)", ratio <= 1.10,
                         f"{ratio:.3f}x")
                F.expect(sc, "the server's all-time `downloaded` counts at least the payload it received",
                         t.get("downloaded", 0) >= 0.9 * sent,
                         f"downloaded {t.get('downloaded')} < {sent} bytes the seeder sent")
            if t.get("progress") != 1:
                continue  # not complete: a failed check of behaviour above, not a loss (finish() checks the files)
            try:
                seeders[h].verify(t["save_path"])
                F.check("downloads", f"{h[:12]} (disk full)", True)
                F.recovered += 1
            except (AssertionError, KeyError) as e:
                F.check("downloads", f"{h[:12]} (disk full)", False, str(e))
        first = "; ".join(sorted(set(states.values()), key=str))
        msg = "ENOSPC" if ENOSPC_TEXT in text else "no ENOSPC message"
        F.verdicts[sc] = (f"{first} ({msg}) in {stop_at:.1f} s; "
                          f"{how if moving else 'nothing brought it back'} -> "
                          f"{'complete' if done else 'NOT complete'}, {max(ratios, default=0):.2f}x")

    def recover(self, srv, hashes, seeders, sc, t0, ladder, until, timeout=20):
        """Tries each (name, routes) of `ladder` in turn until every torrent satisfies until(info, hash); the name
        of the step that did it, or None."""
        for name, routes in ladder:
            info = srv.info()
            todo = [h for h in hashes if not until(info, h)]
            if not todo:
                return True, name
            for route in routes:
                for h in todo:
                    r = srv.post(route, hashes=h)
                    F = self.F
                    F.saw(sc, f"{time.monotonic() - t0:5.1f} s {route} {h[:8]}: {r.status_code} {r.text[:60]!r}")
                if route == "torrents/recheck":
                    began = time.monotonic()
                    info, checked = self.watch(srv, todo, lambda i: not any(i[h]["state"].startswith("checking")
                                                                            for h in todo), 30, sc, t0)
                    self.F.expect(sc, "a recheck finishes by itself (not left checking until a start)", checked,
                                  "still " + ", ".join(f"{h[:8]} {info.get(h, {}).get('state')} progress "
                                                       f"{info.get(h, {}).get('progress', 0):.3f}" for h in todo)
                                  + f" {time.monotonic() - began:.0f} s after torrents/recheck")
                else:
                    time.sleep(0.5)
            for h in todo:
                srv.post("torrents/addPeers", hashes=h, peers=seeders[h].peer)
            info, ok = self.watch(srv, todo, lambda i: all(until(i, h) for h in todo), timeout, sc, t0)
            if ok:
                return True, name
        return False, None

    def uploads_refused(self, srv, sc):
        F = self.F
        r = requests.post(srv.q.url("uploads"), params={"category": "dlcat"}, auth=AUTH, timeout=TIMEOUT,
                          files={"file": ("full.bin", os.urandom(256 << 10))})
        F.expect(sc, "a multipart upload into the full filesystem answers 507", r.status_code == 507,
                 f"{r.status_code} {r.text[:100]!r}")
        r = requests.post(srv.q.url("tus/"), auth=AUTH, timeout=TIMEOUT, headers={
            **TUS, "Upload-Length": str(256 << 10), "Upload-Metadata": f"filename {cc.b64('full.bin')},category "
                                                                      f"{cc.b64('dlcat')}"})
        if r.status_code == 201:
            url = srv.q.base + r.headers["Location"] if r.headers["Location"].startswith("/") else r.headers["Location"]
            r = requests.patch(url, auth=AUTH, data=os.urandom(256 << 10), timeout=TIMEOUT, headers={
                **TUS, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
            what = "PATCH"
        else:
            what = "create"
        F.expect(sc, "a tus upload into the full filesystem answers 507", r.status_code == 507,
                 f"tus {what} answered {r.status_code} {r.text[:100]!r}")
        F.saw(sc, f"uploads while full: multipart and tus {what} answered {r.status_code}")

    def have(self, srv, h):
        r = srv.s.get(srv.q.url("torrents/pieceStates"), params={"hash": h}, timeout=TIMEOUT)
        return {i for i, v in enumerate(r.json()) if v == 2} if r.status_code == 200 else set()

    # -- read-only and vanished ----------------------------------------------------------------------------------

    def leech(self, srv, root, seeder, skip=None):
        """A peer downloading `seeder`'s torrent from the server: the server is told of it (addPeers), and it
        connects to the server's peer port."""
        leecher = Leecher(root, seeder, skip=skip)

        def connect():
            srv.post("torrents/addPeers", hashes=seeder.id, peers=leecher.peer)
            for port in srv.peer_ports():
                leecher.handle.connect_peer(("127.0.0.1", port))

        connect()
        wait_for(lambda: leecher.done() > 0 or connect(), 30, interval=1,
                 what="the peer to get data from the seeding torrent")
        # A seed closes a connection to a peer that has all it wants (redundant): the peer is introduced again every
        # 2 s for as long as the scenario lasts, from a session of its own.
        s = srv.q.session()

        def keep():
            while not leecher.closed.wait(2):
                try:
                    s.post(srv.q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": leecher.peer}, timeout=5)
                    for port in srv.peer_ports():
                        leecher.handle.connect_peer(("127.0.0.1", port))
                except Exception:  # noqa: BLE001 -- the server may be between a stop and a start
                    pass

        threading.Thread(target=keep, daemon=True).start()
        return leecher

    def scenario_mount(self, srv, hashes, seeders, leecher_root, vanish):
        """The download filesystem remounted read-only (vanish False) or lazily unmounted (True) under seeding
        torrents while a peer downloads one of them; then back, recheck/start, complete."""
        F = self.F
        sc = "vanished" if vanish else "read-only"
        info = srv.info()
        seeding = [h for h in hashes if info[h]["progress"] == 1]
        if not F.expect(sc, "torrents are seeding", bool(seeding), f"states {[info[h]['state'] for h in hashes]}"):
            F.verdicts[sc] = "not run: nothing seeding"
            return
        target = seeding[-1] if vanish else seeding[0]
        fresh = []
        if vanish:
            # Open files keep reading the detached filesystem: the peer leaves out, until the mount is gone, the
            # largest file of the torrent the server does not hold open, so the server must open it (and fail).
            held = open_files(srv.q.proc.pid)
            files = seeders[target].info.files()
            base = Path(info[target]["save_path"])
            real = [i for i in range(files.num_files()) if not files.file_flags(i) & lt.file_storage.flag_pad_file]
            fresh = sorted((i for i in real if str(base / files.file_path(i)) not in held),
                           key=lambda i: -files.file_size(i))
            F.saw(sc, f"the server holds {len(real) - len(fresh)} of the torrent's {len(real)} files open; the peer "
                      "wants " + (f"{files.file_path(fresh[0])} once the mount is gone" if fresh else "every file"))
        leecher = self.leech(srv, leecher_root / sc.replace(" ", "-"), seeders[target],
                             skip=fresh[0] if fresh else None)
        self.logged = []
        srv.new_log()
        t0 = time.monotonic()
        try:
            if vanish:
                ok, err = self.mounts.lazy_unmount(srv.mount)
                F.fault(sc, f"umount -l {srv.mount}" + ("" if ok else f": FAILED {err}"))
                if fresh:
                    leecher.handle.file_priority(fresh[0], 7)
            else:
                ok, err = self.mounts.remount(srv.mount, "ro")
                F.fault(sc, f"mount -o remount,bind,ro {srv.mount}" + ("" if ok else f": FAILED {err}"))
                if not ok:
                    # Busy: files open for writing. Stop the torrents, remount, start them again.
                    F.saw(sc, f"remount ro refused ({err}): torrents stopped, remounted, started")
                    for h in seeding:
                        srv.post(srv.stop_route, hashes=h)
                    time.sleep(1)
                    ok, err = self.mounts.remount(srv.mount, "ro")
                    for h in seeding:
                        srv.post(srv.start_route, hashes=h)
            F.expect(sc, "the fault could be injected", ok, err)
            F.affected += len(seeding)
            # What the peer gets of the file the server must open, when there is one; else of the torrent.
            watched = fresh[0] if fresh else None
            got0 = leecher.done(watched)
            # The peer asks for the file only once the fault is in: the server may unchoke it only at its next
            # unchoke round (libtorrent's unchoke_interval, 15 s) when its slots are taken, so the short window
            # covers one round (a CI proof saw 8 s pass with the peer still choked: no read, nothing to notice).
            window = 16 if self.short else 20
            # The torrent the peer reads from: served, or error/missingFiles (seen at any moment of the window).
            info, hit = self.watch(srv, seeding, lambda i: i[target]["state"] in ERRORED, window, sc, t0)
            hit_at = time.monotonic() - t0
            time.sleep(1 if hit else 0)
            got1 = leecher.done(watched)
            first = {h: info.get(h, {}).get("state") for h in seeding}
            F.saw(sc, f"the peer after {time.monotonic() - t0:.0f} s: {leecher.peers()}")
            # Files opened anew: the torrents that still look well are stopped and started.
            calm = [h for h in seeding if first[h] not in ERRORED]
            for h in calm:
                srv.post(srv.stop_route, hashes=h)
            time.sleep(1)
            for h in calm:
                srv.post(srv.start_route, hashes=h)
            info, _ = self.watch(srv, seeding, lambda i: all(i[h]["state"] in ERRORED for h in calm), window, sc, t0)
            got2 = leecher.done(watched)
            before = {h: first[h] if h not in calm else info.get(h, {}).get("state") for h in seeding}
            if vanish and calm:
                # Files a torrent holds open still read the detached filesystem; a start could look at the files.
                F.expect(sc, "with its mount gone, a stopped and started torrent shows error/missingFiles [stricter "
                             "than libtorrent: a start looks at its files]",
                         all(before[h] in ERRORED for h in calm),
                         f"states {', '.join(f'{h[:8]} {before[h]}' for h in calm)} {window} s after "
                         f"{srv.stop_route} + {srv.start_route}")
            rechecked = None
            if vanish and not any(info.get(h, {}).get("state") in ERRORED for h in seeding):
                # Open files still read the detached filesystem: a recheck reads the path as it is now.
                F.saw(sc, f"{time.monotonic() - t0:5.1f} s still {sorted({info[h]['state'] for h in seeding})} "
                          f"after stop/start: torrents/recheck")
                for h in seeding:
                    srv.post("torrents/recheck", hashes=h)
                info, _ = self.watch(srv, seeding, lambda i: all(i[h]["state"] in ERRORED | DOWNLOADING |
                                                                 {"stoppedDL"} for h in seeding), window * 2, sc, t0)
                rechecked = ", ".join(sorted({f"{info[h]['state']} {info[h]['progress']:.0%}" for h in seeding}))
                F.saw(sc, "after the recheck: " + ", ".join(
                    f"{h[:8]} {info[h]['state']} progress {info[h]['progress']:.3f}" for h in seeding))
            states = before
            text = "\n".join(self.reasons(srv, h, info) for h in seeding)
            errored = [h for h in seeding if states[h] in ERRORED]
            serving = got2 > got1 or got1 > got0
            F.saw(sc, f"peer got {got0} -> {got1} (first {window} s) -> {got2} bytes (after stop/start)"
                      f"{' of the file the server must open' if watched is not None else ''}; "
                      f"states {states}")
            path_named = str(srv.mount) in text or str(srv.save_root) in text
            F.expect(sc, "no silent stall: the peer keeps getting data, or the torrent it reads shows "
                         "error/missingFiles", serving or first[target] in ERRORED,
                     f"peer {got0}->{got1}->{got2} bytes, states {states}")
            if errored:
                F.expect(sc, "an errored torrent's message names the path", path_named, f"messages: {text[-400:]!r}")
            summary = "; ".join(sorted(set(map(str, before.values()))))
            verdict = (f"{summary}{' (path named)' if errored and path_named else ''}"
                       + (f", the peer's torrent {first[target]} in {hit_at:.1f} s" if hit else
                          f", peer {'served' if serving else 'STALLED'}"))
            if rechecked:
                verdict += f"; recheck while gone -> {rechecked}"
        finally:
            if vanish:
                self.mounts.bind(srv.fs, srv.mount)
            else:
                ok, err = self.mounts.remount(srv.mount, "rw")
                if not ok:
                    F.expect(sc, "remounted read-write", False, err)
            leecher.close()
        # Back: recheck, start, complete with the data.
        t1 = time.monotonic()
        back, how = self.recover(srv, seeding, seeders, sc, t0, ladder=[
            (f"recheck + {srv.start_route}", ["torrents/recheck", srv.start_route]),
            (f"{srv.stop_route} + recheck + {srv.start_route}", [srv.stop_route, "torrents/recheck", srv.start_route])],
            until=lambda i, h: i[h]["state"] in SEEDING and i[h]["progress"] == 1)
        info = srv.info()
        F.expect(sc, "back seeding, complete, after recheck/start", back and how.startswith("recheck"),
                 f"needed: {how}; states "
                 f"{[(info.get(h, {}).get('state'), info.get(h, {}).get('progress')) for h in seeding]}")
        for h in seeding:
            try:
                seeders[h].verify(info[h]["save_path"])
                ok = info[h]["progress"] == 1
                F.check("downloads", f"{h[:12]} ({sc})", ok, f"progress {info[h]['progress']}")
                F.recovered += ok
            except (AssertionError, KeyError) as e:
                F.check("downloads", f"{h[:12]} ({sc})", False, str(e))
        F.verdicts[sc] = verdict + (f"; {how} -> seeding in {time.monotonic() - t1:.1f} s" if back else
                                    "; NOT back seeding")


# -- qbtd: the crash campaign's workers under the faults -------------------------------------------------------------

class SlowMultipartWorker(cc.MultipartWorker):
    """Multipart uploads of up to 1 MiB every second or two (the filesystems are small)."""
    pause = (1.0, 2.0)

    def shape(self):
        rng = self.rng
        where = rng.choice([{}, {"path": f"mp/{self.c.cycle % 3}"}, {"category": "upcat"}])
        return rng.randint(64 << 10, 1 << 20), where, 0


class FaultTusWorker(cc.TusWorker):
    """tus uploads, slower; after a refused PATCH the offset is read again with HEAD (a refusal may have stored part
    of the chunk: those bytes are acknowledged only by the HEAD)."""
    pause = (1.5, 3.0)

    def patch(self, u):
        try:
            return super().patch(u)
        except Refused:
            r = requests.head(self.c.tus_url(u), auth=AUTH, headers=TUS, timeout=TIMEOUT)
            if r.status_code == 200:
                with self.L.lock:
                    u.acked = u.offset = max(u.acked, int(r.headers["Upload-Offset"]))
            raise


WORKERS = [cc.TorrentWorker, cc.PrefsWorker, cc.CategoryWorker, cc.TagWorker, cc.RuleWorker, cc.KeyWorker,
           SlowMultipartWorker, FaultTusWorker, cc.MusicWorker]


class FaultCampaign(Scenarios, Campaign):
    def __init__(self, workdir, seed=1, short=False, nox=False, log=print):
        super().__init__(workdir, kills=1, seed=seed, short=short, log=log)
        self.figures = self.F = FaultFigures()
        self.nox = nox
        self.mounts = Mounts()
        self.fault = None          # the fault under way (refusals are expected while it is)
        self.fs_dl = self.workdir / "fs-downloads"
        self.fs_up = self.workdir / "fs-uploads"
        self.logged = []
        self.shown = {}
        self.nox_figures = None
        self.guard_default = None

    def refusable(self, r):
        return self.fault is not None and (r.status_code in REFUSALS or r.text == "Fails.")

    def setup(self):
        super().setup()  # the crash campaign's folders, MP3s and seeders (data_dir is made, empty)
        data_mib, dl_mib = (256, 256) if self.short else (512, 512)
        self.mounts.tmpfs(self.data_dir, data_mib, "qbtd-fault-data")
        self.mounts.tmpfs(self.fs_dl, dl_mib, "qbtd-fault-downloads")
        self.mounts.bind(self.fs_dl, self.data_dir / "downloads")
        self.mounts.tmpfs(self.fs_up, dl_mib, "qbtd-fault-uploads")
        self.limit = (160 << 10) if self.short else (256 << 10)
        for s in self.seeders:
            s.handle.set_upload_limit(self.limit)
        self.add_every, self.cycle = 1, 100  # every torrent added at once
        self.log(f"fault setup: data on a {data_mib} MiB tmpfs, downloads on a {dl_mib} MiB one "
                 f"({self.data_dir / 'downloads'}), uploads on another, seeders at {self.limit >> 10} KiB/s")

    def start(self):
        # Uploads on a filesystem of their own, which no fault touches: an upload acknowledged while the download
        # mount is gone lands in the folder beneath the mount point and is hidden when it comes back.
        extra = ["--music-dir", str(self.music_dir), "--music-rescan", "2", "--upload-margin", "16",
                 "--uploads-dir", str(self.fs_up / "uploads")]
        self.q = cc.Qbtd(self.data_dir, port=self.port, password=cc.PASSWORD, resume_interval=1, extra=extra)
        self.q.start()
        self.dead.clear()
        self.stop.clear()

    @contextmanager
    def busy(self, name, fault=None, music=True):
        """The workers (a fresh set) and the fast-resume monitor run while the block runs."""
        self.cycle += 1
        self.stop.clear()
        self.monitor = monitor = Monitor(self.data_dir, self.figures)
        monitor.start()
        classes = [W for W in WORKERS if music or W is not cc.MusicWorker]
        workers = [W(self, random.Random(f"{self.seed}-{name}-{W.__name__}")) for W in classes]
        for w in workers:
            w.start()
        self.workers = workers
        try:
            yield workers
        finally:
            self.fault = None
            self.stop.set()
            monitor.stop.set()
            monitor.join(10)
            for w in workers:
                w.join(30)
                if w.is_alive():
                    self.figures.error(f"{w.kind} worker still running 30 s after the {name} scenario")

    def first_start(self):
        super().first_start()
        s = self.q.session()
        # upcat (the workers' uploads) on the uploads filesystem; dlcat on the download one, for the 507 checks.
        for name, path in (("upcat", str(self.fs_up / "upcat")), ("dlcat", "dlcat")):
            action = "torrents/editCategory" if name in self.ledger.categories else "torrents/createCategory"
            r = s.post(self.q.url(action), data={"category": name, "savePath": path}, timeout=TIMEOUT)
            assert r.status_code == 200, (action, r.status_code, r.text)
            self.ledger.categories[name] = {"acked": path, "pending": []}

    def server(self):
        srv = Server("qbtd", self.q, "torrents/start", "torrents/stop", self.data_dir / "downloads", self.fs_dl,
                     self.data_dir / "downloads", relative=True)
        srv.session()
        return srv

    def run(self):
        started = time.monotonic()
        F = self.figures
        try:
            self.setup()
            self.first_start()
            srv = self.server()
            # The guard's default (qbtd's own preference): noted, then off until its scenario sets it.
            key = self.guard_key(srv)
            self.guard_default = srv.s.get(self.q.url("app/preferences"), timeout=TIMEOUT).json().get(key) if key else None
            if key:
                srv.post("app/setPreferences", json=json.dumps({key: 0}))
            F.saw("guard", f"default {key}={self.guard_default!r}" if key else "no guard preference in this build")
            hashes = [s.id for s in self.seeders]
            by_hash = {s.id: s for s in self.seeders}
            sizes = {s.id: s.info.total_size() for s in self.seeders}
            with self.busy("guard"):
                wait_for(lambda: all(h in self.ledger.torrents for h in hashes), 30, what="the torrents added")
                wait_for(lambda: all(0.05 < t["progress"] < 0.5 for h, t in srv.info().items() if h in hashes), 60,
                         what="the downloads under way")
                self.fault = "guard"
                self.scenario_guard(srv, hashes)
            with self.busy("disk full"):
                self.fault = "disk full"
                self.scenario_disk_full(srv, hashes, sizes, by_hash)
            with self.busy("read-only"):
                self.fault = "read-only"
                self.scenario_mount(srv, hashes, by_hash, self.workdir / "leech", vanish=False)
            with self.busy("vanished"):
                self.fault = "vanished"
                self.scenario_mount(srv, hashes, by_hash, self.workdir / "leech", vanish=True)
            saved = self.scenario_data_full(srv)
            self.cycle += 1
            self.plant_canaries(saved)
            self.start()
            self.verify(saved)
            self.finish()
        except Exception:  # noqa: BLE001 -- qbtd did not come back, or a check could not run: that is the finding
            F.error(f"the campaign stopped in cycle {self.cycle}: {traceback.format_exc(limit=6)}")
        finally:
            self.fault = None
            self.stop.set()
            if self.monitor:
                self.monitor.stop.set()
            if self.q and self.q.proc and self.q.proc.poll() is None:
                self.q.stop()
                self.q.log.close()
            for seeder in getattr(self, "seeders", []):
                seeder.session.pause()
            self.mounts.cleanup()
        if self.nox:
            self.nox_figures = run_nox(self.workdir / "nox", self.seed, self.short, self.log)
        seconds = time.monotonic() - started
        self.log(F.report(self.seed, seconds))
        self.log(self.table())
        return F

    def table(self):
        rows = [HEADER, self.figures.row("qbtd")]
        if self.nox_figures:
            rows.append(self.nox_figures.row("qbittorrent-nox 4.5.2"))
        return "\n".join(rows)

    # -- data full ------------------------------------------------------------------------------------------------

    def scenario_data_full(self, srv):
        F, sc = self.figures, "data full"
        reads = {"torrents/info": {}, "app/preferences": {}, "torrents/categories": {}, "rss/rules": {},
                 "sync/maindata": {"rid": 0}, "torrents/tags": {}}
        window = 6 if self.short else 20
        pid = self.q.proc.pid
        self.logged = []
        srv.new_log()
        with self.busy(sc, music=False):
            self.fault = sc
            time.sleep(1)
            acked0, refused0 = self.writes(), sum(F.refused.values())
            kinds0 = Counter(F.acked)
            fill(self.data_dir, leave=0)
            t0 = time.monotonic()
            F.fault(sc, f"{self.data_dir} filled ({free_bytes(self.data_dir)} bytes free)")
            bad = []
            while time.monotonic() - t0 < window:
                for route, params in reads.items():
                    try:
                        r = srv.s.get(self.q.url(route), params=params, timeout=TIMEOUT)
                        if r.status_code != 200:
                            bad.append(f"{route} {r.status_code}")
                    except requests.RequestException as e:
                        bad.append(f"{route} {type(e).__name__}")
                time.sleep(0.5)
            acked1, refused1 = self.writes(), sum(F.refused.values())
            during = Counter(F.acked)
            during.subtract(kinds0)
            F.saw(sc, f"while full ({window} s): {acked1 - acked0} writes acknowledged "
                      f"({', '.join(f'{k} {v}' for k, v in sorted(during.items()) if v and k != 'tus bytes')}), "
                      f"{refused1 - refused0} refused; reads that failed: {bad[:10] or 'none'}")
            F.expect(sc, "reads keep answering 200 while the data disk is full", not bad, f"{bad[:10]}")
            # A write that still fits (SQLite reuses its WAL's pages after a checkpoint) may be acknowledged: the
            # SIGKILL below checks that such writes were stored. Any answer but 200 or a refusal is an error already.
            F.expect(sc, "qbtd keeps running while its data disk is full", self.q.proc.poll() is None,
                     f"exited {self.q.proc.returncode}")
            for line in srv.new_log()[:8]:
                F.saw(sc, f"log/main: {line[:300]}")
            unfill(self.data_dir)
            t1 = time.monotonic()
            # Writes succeed again without a restart.
            probes = {}
            deadline = t1 + 30
            while time.monotonic() < deadline:
                r = srv.post("torrents/createCategory", category=f"after-full-{len(probes)}", savePath="after")
                r2 = srv.post("torrents/createTags", tags=f"after-full-{len(probes)}")
                probes[time.monotonic() - t1] = (r.status_code, r2.status_code)
                if r.status_code == 200 and r2.status_code == 200:
                    self.ledger.categories[f"after-full-{len(probes) - 1}"] = {"acked": "after", "pending": []}
                    self.ledger.tags.add(f"after-full-{len(probes) - 1}")
                    break
                time.sleep(0.5)
            time.sleep(2)
            acked2 = self.writes()
            ok = self.q.proc.pid == pid and self.q.proc.poll() is None and probes and \
                list(probes.values())[-1] == (200, 200)
            F.expect(sc, "writes succeed again once space is back, without a restart", ok and acked2 > acked1,
                     f"probes {probes}, workers acknowledged {acked2 - acked1} after")
            back = f"after {max(probes, default=0):.1f} s" if ok else f"NOT within 30 s (last {list(probes.values())[-1:]})"
            F.saw(sc, f"space back ({free_bytes(self.data_dir) >> 20} MiB free): writes answer 200 {back}; workers "
                      f"acknowledged {acked2 - acked1} in 2 s")
            F.verdicts[sc] = (f"{refused1 - refused0} refused/{acked1 - acked0} acked while full, reads "
                              f"{'ok' if not bad else 'FAILED'}; writes back {back}")
        # Full again, SIGKILL in that state.
        with self.busy(sc + " kill", music=False) as workers:
            self.fault = sc
            time.sleep(1)
            fill(self.data_dir, leave=0)
            F.fault(sc, f"{self.data_dir} filled again, SIGKILL after {window // 2} s")
            time.sleep(window // 2)
            self.kill(workers, self.monitor)
            saved = self.saved_at_kill
        self.start_while_full(sc)
        unfill(self.data_dir)
        return saved

    def start_while_full(self, sc):
        """Noted, not checked (the issue asks for no restart, not for a start on a full disk): whether qbtd starts
        with its data disk still full, and answers reads."""
        F = self.figures
        try:
            self.start()
        except AssertionError as e:
            said = [line for line in str(e).splitlines() if line.strip()][-1:]
            F.saw(sc, f"a start with the data disk still full fails: {said}")
            F.verdicts[sc] += "; SIGKILL while full: nothing lost (see lost); no start while still full"
            if self.q.proc.poll() is None:
                self.q.kill()
            self.q.log.close()
            return
        s = self.q.session()
        codes = {route: s.get(self.q.url(route), timeout=TIMEOUT).status_code
                 for route in ("torrents/info", "app/preferences", "torrents/categories")}
        F.saw(sc, f"qbtd starts with its data disk still full; reads answer {codes}")
        F.verdicts[sc] += "; SIGKILL while full: nothing lost (see lost); starts while still full"
        self.q.stop()
        self.q.log.close()

    def scanned_dirs(self):
        return [self.data_dir, self.fs_up]

    def writes(self):
        return sum(v for k, v in self.figures.acked.items() if k not in ("tus bytes", "music db download"))

    def verify_databases(self):
        super().verify_databases()
        for name, path in Monitor(self.data_dir, self.figures).dbs.items():
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            try:
                ok = con.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                con.close()
            self.figures.check("databases", name + " (integrity)", ok == "ok", f"PRAGMA integrity_check: {ok}")
            self.figures.db_checks = [x for x in self.figures.db_checks if x[0] != name] + [(name, ok)]


# -- qbittorrent-nox 4.5.2: the scenarios that apply ------------------------------------------------------------------

class NoxRun(Scenarios):
    def __init__(self, workdir, seed, short, log):
        self.workdir, self.seed, self.short, self.log = Path(workdir), seed, short, log
        self.F = FaultFigures()
        self.mounts = Mounts()
        self.logged = []
        self.shown = {}

    def run(self):
        from qbtnox import QbittorrentNox
        F = self.F
        nox, seeders = None, []
        try:
            self.workdir.mkdir(parents=True, exist_ok=True)
            fs = self.workdir / "fs-downloads"
            self.mounts.tmpfs(fs, 64, "qbtd-fault-nox")
            nox = QbittorrentNox(self.workdir / "q", release="4.5.2")
            self.mounts.bind(fs, nox.save)
            nox.start()
            srv = Server("qbittorrent-nox", nox, "torrents/resume", "torrents/pause", nox.save, fs, nox.save,
                         relative=False)
            srv.session()
            srv.peer_port = nox.peer_port
            size = 4 << 20 if self.short else 12 << 20
            seeders = [Seeder(self.workdir / f"seed{i}", [size * 2 // 3, size // 3 - 4321, 5000 + i],
                              piece_size=64 << 10, upload_limit=160 << 10) for i in range(2)]
            by_hash = {s.id: s for s in seeders}
            hashes = [s.id for s in seeders]
            for i, s in enumerate(seeders):
                r = srv.s.post(nox.url("torrents/add"), files={"torrents": (f"t{i}.torrent", s.torrent)},
                               data={"savepath": srv.savepath(f"dl/{i}")}, timeout=TIMEOUT)
                assert (r.status_code, r.text) == (200, "Ok."), (r.status_code, r.text)
            wait_for(lambda: all(h in srv.info() for h in hashes), 30, what="the torrents added")
            for h in hashes:
                srv.post("torrents/addPeers", hashes=h, peers=by_hash[h].peer)
            wait_for(lambda: all(0.05 < t["progress"] < 0.5 for t in srv.info().values()), 60,
                     what="the downloads under way")
            F.verdicts["guard"] = "n/a (qbtd's own)"
            F.verdicts["data full"] = "n/a"
            self.scenario_disk_full(srv, hashes, {s.id: s.info.total_size() for s in seeders}, by_hash,
                                    uploads=False)
            self.scenario_mount(srv, hashes, by_hash, self.workdir / "leech", vanish=False)
            self.scenario_mount(srv, hashes, by_hash, self.workdir / "leech", vanish=True)
            F.expect("all", "qbittorrent-nox keeps running", nox.proc.poll() is None, f"exited {nox.proc.returncode}")
        except Exception:  # noqa: BLE001
            F.error(f"the qbittorrent-nox run stopped: {traceback.format_exc(limit=6)}")
        finally:
            if nox:
                nox.stop()
            for seeder in seeders:
                seeder.session.pause()
            self.mounts.cleanup()
        self.log(F.report(self.seed, 0, label="fault campaign against qbittorrent-nox 4.5.2"))
        return F


def run_nox(workdir, seed, short, log):
    return NoxRun(workdir, seed, short, log).run()


def summary(figures, others):
    """One table: the disks' campaign and the other faults' rows."""
    lines = ["| faults | injected | items checked | lost | torrents recovered | database checks | notes |",
             "| --- | --- | --- | --- | --- | --- | --- |",
             f"| full, read-only and vanished disks, full data disk | {len(figures.faults)} | {sum(figures.checked.values())} "
             f"| {figures.lost_total} | {figures.recovered}/{figures.affected} | {len(figures.db_checks)} "
             f"| {len(figures.failures)} behaviour checks failed of {figures.behaviour} |"]
    for o in others:
        lines.append(f"| {o['name']} | {o['faults']} | {o['checked']} | {o['lost']} | {o['recovered']} | {o['db_checks']} "
                     f"| {o['notes']} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--short", action="store_true", help="small downloads and short windows (the make test form)")
    ap.add_argument("--nox", action="store_true", help="also run the scenarios against qbittorrent-nox 4.5.2")
    ap.add_argument("--workdir", help="keep everything here (default: a temp folder, removed after a clean run)")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("the fault campaign mounts filesystems: run it as root", file=sys.stderr)
        return 2
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="qbtd-faults-"))
    print(f"fault campaign: seed {args.seed}, work folder {workdir}", flush=True)
    campaign = FaultCampaign(workdir, seed=args.seed, short=args.short, nox=args.nox,
                             log=lambda text: print(text, flush=True))
    figures = campaign.run()
    nox = campaign.nox_figures
    # The other faults of the issue, each with its own harness (Tests/soak/faults_fiu.py, faults_clock.py; make test
    # runs them as test_failing_writes and test_clock_jumps): one table with the disks' row.
    others = [] if args.short else [module.run(workdir / name, QBTD) for name, module in
                                    (("fiu", faults_fiu), ("clock", faults_clock))]
    print(summary(figures, others), flush=True)
    failed = bool(figures.lost_total or figures.errors or figures.failures or any(o["lost"] for o in others))
    if not failed and not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    elif failed:
        print(f"kept {workdir} (qbtd's log: {workdir}/qbtd-*.log)")
    if nox and (nox.errors or nox.failures):
        print("qbittorrent-nox 4.5.2 did not pass every check (its row is a comparison, not a failure of qbtd)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
