#!/usr/bin/env python3
"""Clock jumps (issue 38, item 5): qbtd's wall clock is stepped forward by hours and back by minutes while it runs, as
an NTP step does, and its monotonic clock is left alone. Durations (sessions, failed-login bans, tus expiry, RSS
intervals, seeding-time limits) must follow real time; stamps (added_on, completion_on, last_activity) the wall
clock; the alternative-speed schedule is by the wall clock and must follow it both ways.

The step is made by Tests/soak/wallclock_shift.c, a small LD_PRELOAD library built here with `cc` (see its header
for why not libfaketime: 0.9.10 shifts absolute monotonic deadlines too). It reads the offset, in seconds, from a
file the scenario rewrites.

Each scenario starts its own qbtd (conftest's Qbtd, discovery off, loopback only), records checks through
`Checks`, stops qbtd and runs `PRAGMA integrity_check` on its databases. `run(workdir, qbtd_bin)` runs them all for
the fault campaign's table; Tests/e2e/test_clock_jumps.py runs one per test.

    QBTD_BIN=.build/debug/qbtd .venv/bin/python Tests/soak/faults_clock.py /tmp/clock-run
"""
import base64
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
import conftest  # noqa: E402
from conftest import Qbtd, wait_for  # noqa: E402

HOURS3 = 3 * 3600
BACK10 = -600
TUS = {"Tus-Resumable": "1.0.0"}


def build_shim(cache=None):
    """Builds wallclock_shift.so once per source version (into /tmp unless `cache` names a folder); returns its path."""
    src = Path(__file__).with_name("wallclock_shift.c")
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:12]
    out = Path(cache or "/tmp") / f"qbtd-wallclock-shift-{digest}.so"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(tmp), str(src), "-ldl", "-lpthread"], check=True)
        os.replace(tmp, out)
    return str(out)


class Clock:
    """The offset file one qbtd reads: `set(seconds)` steps its wall clock to real time + seconds (the library reads
    the file again within 20 ms; `set` waits 0.1 s so the next request sees the new time)."""

    def __init__(self, path):
        self.path = Path(path)
        self.offset = 0
        self.jumps = 0
        self.set(0, count=False)

    def set(self, seconds, count=True):
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(f"{int(seconds)}\n")
        os.replace(tmp, self.path)
        self.offset = int(seconds)
        self.jumps += bool(count)
        time.sleep(0.1)

    def now(self):
        """qbtd's wall clock, as seconds since 1970."""
        return time.time() + self.offset

    def env(self, shim):
        return {"LD_PRELOAD": shim, "WALLCLOCK_SHIFT_FILE": str(self.path), "TZ": "UTC"}


class Checks:
    """What a scenario checked; a failed check is kept (with its message), not raised, so every scenario runs whole."""

    def __init__(self, name):
        self.name, self.checked, self.failed = name, 0, []

    def __call__(self, ok, what):
        self.checked += 1
        if not ok:
            self.failed.append(what)
        return ok


class Harness:
    def __init__(self, workdir, qbtd_bin=None, shim=None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        if qbtd_bin:
            conftest.QBTD = str(qbtd_bin)
        self.shim = shim or build_shim()
        self.started = []
        self.db_checks = 0
        self.db_failures = []

    def start(self, name, extra=(), profile=Qbtd.TEST_PROFILE):
        base = self.workdir / name
        data = base / "data"
        data.mkdir(parents=True, exist_ok=True)
        clock = Clock(base / "wallclock-offset")
        q = Qbtd(data, env=clock.env(self.shim), extra=list(extra), profile=profile).start()
        self.started.append(q)
        return q, clock

    def finish(self):
        """Stops every qbtd started and checks its databases."""
        for q in self.started:
            crashed = q.proc.poll() is not None
            q.stop()
            if crashed:
                self.db_failures.append(f"{q.data_dir}: qbtd had exited ({q.proc.returncode}) before it was stopped")
            for db in sorted(q.data_dir.rglob("*.sqlite")):
                self.db_checks += 1
                result = integrity(db)
                if result != "ok":
                    self.db_failures.append(f"{db}: {result}")
        self.started = []


def integrity(db):
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as c:
            return "\n".join(r[0] for r in c.execute("PRAGMA integrity_check"))
    except sqlite3.Error as e:
        return f"cannot check: {e}"


def make_torrent(root, name, size=96 * 1024):
    """A one-file torrent of `size` random bytes written under root/name; returns its bytes and info hash."""
    import libtorrent as lt
    path = Path(root) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(hashlib.sha256(name.encode()).digest() * (size // 32))
    fs = lt.file_storage()
    lt.add_files(fs, str(path))
    ct = lt.create_torrent(fs, 16 * 1024)
    lt.set_piece_hashes(ct, str(path.parent))
    data = lt.bencode(ct.generate())
    info = lt.torrent_info(lt.bdecode(data))
    return data, str(info.info_hashes().get_best())


def add(s, q, data, savepath, **fields):
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", data)},
               data={"savepath": str(savepath), **fields}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)


def info(s, q, h):
    found = s.get(q.url("torrents/info"), params={"hashes": h}, timeout=10).json()
    return found[0] if found else None


def near(a, b, slack=30):
    return abs(a - b) <= slack


def set_prefs(s, q, **prefs):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(prefs)}, timeout=10)
    assert r.status_code == 200, (r.status_code, r.text)


# ---------------------------------------------------------------------------------------------------------- scenarios

def stamps(h, c):
    """added_on / completion_on / last_activity are wall stamps taken when things happen; a jump moves the stamps
    taken after it, never those taken before; seeding_time (a duration) does not jump."""
    q, clock = h.start("stamps")
    s = q.session()
    content = q.data_dir.parent / "content"
    a, ha = make_torrent(content, "a.bin")
    add(s, q, a, content)
    done = wait_for(lambda: (i := info(s, q, ha)) and i["progress"] == 1 and i["completion_on"] > 0 and i, 20,
                    what="a complete")
    c(near(done["added_on"], clock.now(), 10), f"added_on {done['added_on']} is not now ({clock.now():.0f})")
    c(near(done["completion_on"], clock.now(), 10), f"completion_on {done['completion_on']} is not now")
    clock.set(HOURS3)
    b, hb = make_torrent(q.data_dir.parent / "elsewhere", "b.bin")
    add(s, q, b, q.data_dir / "downloads", stopped="true", paused="true")
    ib = wait_for(lambda: info(s, q, hb), 10, what="b listed")
    c(near(ib["added_on"], clock.now(), 10),
      f"after +3 h, a new torrent's added_on {ib['added_on']} is not the stepped wall clock ({clock.now():.0f}): "
      "the step did not reach qbtd")
    time.sleep(2.5)  # the status qbtd shows is refreshed every second or so
    ia = info(s, q, ha)
    c(ia["added_on"] == done["added_on"], f"a's added_on moved with the clock: {done['added_on']} -> {ia['added_on']}")
    c(ia["completion_on"] == done["completion_on"], f"a's completion_on moved: {done['completion_on']} -> {ia['completion_on']}")
    c(ia["seeding_time"] < 120, f"seeding_time jumped with the wall clock: {ia['seeding_time']} s after seconds of seeding")
    c(ia["time_active"] < 120, f"time_active jumped with the wall clock: {ia['time_active']} s")
    c(done["added_on"] - 10 <= ia["last_activity"] <= clock.now() + 10,
      f"last_activity {ia['last_activity']} outside [added_on, now]")
    clock.set(BACK10)
    d, hd = make_torrent(q.data_dir.parent / "elsewhere", "d.bin")
    add(s, q, d, q.data_dir / "downloads", stopped="true", paused="true")
    idd = wait_for(lambda: info(s, q, hd), 10, what="d listed")
    c(near(idd["added_on"], clock.now(), 10), f"after the step back, added_on {idd['added_on']} is not now ({clock.now():.0f})")
    c(info(s, q, hb)["added_on"] == ib["added_on"], "b's added_on moved after the step back")
    ia2 = info(s, q, ha)
    c(ia2["seeding_time"] < 120 and ia2["seeding_time"] >= ia["seeding_time"],
      f"seeding_time went {ia['seeding_time']} -> {ia2['seeding_time']} over a step back")


def session_timeout(h, c):
    """A session idle for less real time than web_ui_session_timeout survives a +3 h step (and a step back), and still
    ends once it has been idle longer than the timeout in real time."""
    q, clock = h.start("session")
    s = q.session()
    set_prefs(s, q, web_ui_session_timeout=6)
    c(s.get(q.url("app/preferences"), timeout=10).json()["web_ui_session_timeout"] == 6, "session timeout not set to 6 s")
    clock.set(HOURS3)
    r = s.get(q.url("app/version"), timeout=10)
    c(r.status_code == 200, f"after +3 h (seconds of real idleness) the session is gone: {r.status_code}")
    clock.set(BACK10)
    r = s.get(q.url("app/version"), timeout=10)
    c(r.status_code == 200, f"after a 10 min step back the session is gone: {r.status_code}")
    time.sleep(7.5)
    r = s.get(q.url("app/version"), timeout=10)
    c(r.status_code == 403, f"idle 7.5 s (real) past a 6 s timeout, the session still works: {r.status_code}")


def login(q, password):
    import requests
    return requests.post(q.url("auth/login"), data={"username": "admin", "password": password}, timeout=10)


def login_ok(r):
    return r.status_code in (200, 204) and r.text in ("Ok.", "")


def failed_login_ban(h, c):
    """A ban of web_ui_ban_duration seconds is not lifted by a +3 h step, and not made to last 10 more minutes by a
    step back: it ends after its duration of real time."""
    q, clock = h.start("ban")
    s = q.session()
    set_prefs(s, q, web_ui_max_auth_fail_count=2, web_ui_ban_duration=5)
    for _ in range(2):
        login(q, "wrong-password")
    banned_at = time.monotonic()
    r = login(q, q.password)
    c(not login_ok(r), f"not banned after 2 failures: {r.status_code} {r.text!r}")
    clock.set(HOURS3)
    r = login(q, q.password)
    c(not login_ok(r), f"a +3 h step lifted a 5 s ban after {time.monotonic() - banned_at:.1f} s: {r.status_code}")
    clock.set(BACK10)
    time.sleep(max(0, banned_at + 6.0 - time.monotonic()))
    r = login(q, q.password)
    c(login_ok(r), f"6 s (real) after a 5 s ban and a 10 min step back, still banned: {r.status_code} {r.text!r}")


def tus_create(q, length):
    import requests
    r = requests.post(q.url("tus/"), auth=("admin", q.password),
                      headers={**TUS, "Upload-Length": str(length),
                               "Upload-Metadata": "filename " + base64.b64encode(b"clock.bin").decode()}, timeout=10)
    assert r.status_code == 201, (r.status_code, r.text)
    url = r.headers["Location"]
    return url if url.startswith("http") else q.base + url


def tus_patch(q, url, offset, data):
    import requests
    return requests.patch(url, auth=("admin", q.password), data=data, timeout=10,
                          headers={**TUS, "Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream"})


def tus_head(q, url):
    import requests
    return requests.head(url, auth=("admin", q.password), headers=TUS, timeout=10)


def tus_forward(h, c):
    """An unfinished tus upload with a 2 h expiry, written seconds ago, is not expired by a +3 h step."""
    q, clock = h.start("tus-forward", extra=["--upload-expiry", "7200"])
    url = tus_create(q, 10)
    r = tus_patch(q, url, 0, b"12345")
    c(r.status_code == 204, f"first PATCH: {r.status_code} {r.text}")
    clock.set(HOURS3)
    r = tus_head(q, url)
    c(r.status_code == 200 and r.headers.get("Upload-Offset") == "5",
      f"after +3 h (seconds of real time, expiry 2 h) the upload is {r.status_code} (offset "
      f"{r.headers.get('Upload-Offset')}): expired by the wall clock")
    r = tus_patch(q, url, 5, b"67890")
    c(r.status_code == 204, f"the rest of the upload after +3 h: {r.status_code} {r.text}")


def tus_backward(h, c):
    """An unfinished tus upload with a 4 s expiry is gone 6 s (real) after its last write, whatever a 10 min step back
    of the wall clock says."""
    q, clock = h.start("tus-backward", extra=["--upload-expiry", "4"])
    url = tus_create(q, 10)
    r = tus_patch(q, url, 0, b"12345")
    c(r.status_code == 204, f"first PATCH: {r.status_code} {r.text}")
    written = time.monotonic()
    clock.set(BACK10)
    time.sleep(max(0, written + 6 - time.monotonic()))
    r = tus_head(q, url)
    c(r.status_code == 404, f"6 s (real) after its last write, a 4 s upload is still {r.status_code} after a 10 min "
                            "step back: it would live 10 more minutes")


def rss_interval(h, c):
    """A feed refreshed every 2 s keeps being refreshed after a 10 min step back of the wall clock."""
    from rss_support import FeedServer, rss
    feeds = FeedServer()
    try:
        q, clock = h.start("rss", profile="5.2")
        s = q.session()
        url = feeds.put("/a.xml", rss("A", [{"title": "x", "guid": "1"}]))
        r = s.post(q.url("rss/addFeed"), data={"url": url, "path": "A", "refreshInterval": "2"}, timeout=10)
        c(r.status_code in (200, 204), f"addFeed: {r.status_code} {r.text}")
        set_prefs(s, q, rss_processing_enabled=True)
        wait_for(lambda: feeds.requests.get("/a.xml", 0) >= 2, 15, what="two scheduled fetches")
        clock.set(BACK10)
        before = feeds.requests.get("/a.xml", 0)
        deadline = time.monotonic() + 12
        while time.monotonic() < deadline and feeds.requests.get("/a.xml", 0) < before + 2:
            time.sleep(0.2)
        after = feeds.requests.get("/a.xml", 0)
        c(after >= before + 2, f"12 s after a 10 min step back a 2 s feed was fetched {after - before} more time(s): "
                               "its schedule waits for the wall clock to catch up")
        clock.set(HOURS3)
        before = feeds.requests.get("/a.xml", 0)
        time.sleep(5)
        after = feeds.requests.get("/a.xml", 0)
        c(1 <= after - before <= 5, f"in 5 s after a +3 h step a 2 s feed was fetched {after - before} times")
    finally:
        feeds.stop()


def speed_schedule(h, c):
    """The alternative-speed schedule is by the wall clock: a window 3 h away starts when the clock is stepped into it
    and ends when the clock is stepped back out of it (within a tick, 5 s)."""
    q, clock = h.start("schedule")
    s = q.session()
    start = datetime.fromtimestamp(clock.now(), timezone.utc) + timedelta(hours=3) - timedelta(minutes=20)
    end = start + timedelta(minutes=40)
    set_prefs(s, q, scheduler_enabled=True, scheduler_days=0, schedule_from_hour=start.hour,
              schedule_from_min=start.minute, schedule_to_hour=end.hour, schedule_to_min=end.minute)
    mode = lambda: s.get(q.url("transfer/speedLimitsMode"), timeout=10).text  # noqa: E731
    time.sleep(6)
    c(mode() == "0", f"outside the window the alternative limits are on: {mode()}")
    clock.set(HOURS3)
    try:
        wait_for(lambda: mode() == "1", 12, what="alternative limits on")
        c(True, "")
    except AssertionError:
        c(False, "stepped +3 h into the schedule's window, the alternative limits did not come on within 12 s")
    clock.set(BACK10)
    try:
        wait_for(lambda: mode() == "0", 12, what="alternative limits off")
        c(True, "")
    except AssertionError:
        c(False, "stepped back out of the window, the alternative limits stayed on for 12 s")


def _complete_with_limit(h, c, name, limits):
    q, clock = h.start(name)
    s = q.session()
    set_prefs(s, q, max_ratio_act=0)
    content = q.data_dir.parent / "content"
    data, ih = make_torrent(content, f"{name}.bin")
    add(s, q, data, content)
    wait_for(lambda: (i := info(s, q, ih)) and i["progress"] == 1 and i["state"] in ("uploading", "stalledUP"), 20,
             what="seeding")
    r = s.post(q.url("torrents/setShareLimits"), data={"hashes": ih, "ratioLimit": "-1", **limits}, timeout=10)
    c(r.status_code == 200, f"setShareLimits: {r.status_code} {r.text}")
    return q, clock, s, ih


def seeding_time_limit(h, c):
    """A 60 min seeding-time limit is not reached by a +3 h step seconds after the torrent completed."""
    q, clock, s, ih = _complete_with_limit(h, c, "seeding-limit",
                                           {"seedingTimeLimit": "60", "inactiveSeedingTimeLimit": "-1"})
    clock.set(HOURS3)
    time.sleep(11)  # two share-limit ticks
    i = info(s, q, ih)
    c(i["state"] in ("uploading", "stalledUP"),
      f"+3 h step: a torrent seeding for {i['seeding_time']} s reached its 60 min seeding-time limit ({i['state']})")


def inactive_seeding_time_limit(h, c):
    """A 60 min inactive-seeding-time limit is not reached by a +3 h step seconds after the torrent completed."""
    q, clock, s, ih = _complete_with_limit(h, c, "inactive-limit",
                                           {"seedingTimeLimit": "-1", "inactiveSeedingTimeLimit": "60"})
    clock.set(HOURS3)
    time.sleep(11)
    i = info(s, q, ih)
    c(i["state"] in ("uploading", "stalledUP"),
      f"+3 h step: a torrent completed {i['seeding_time']} s ago reached its 60 min inactive-seeding-time limit "
      f"({i['state']}): inactivity measured on the wall clock from completion_on")


def rate_limited_download(h, c):
    """A download under qbtd's own rate limit (1 MiB/s) keeps going after a 10 min step back: libtorrent hands out
    bandwidth on its tick, which must not wait for the wall clock to catch up."""
    from conftest import Seeder
    seeder = Seeder(h.workdir / "rate-seed", [32 * 1024 * 1024])  # more than the 10 s of checks can finish at 1 MiB/s
    try:
        q, clock = h.start("rate")
        s = q.session()
        set_prefs(s, q, dl_limit=1024 * 1024)
        add(s, q, seeder.torrent, q.data_dir / "downloads")
        s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}, timeout=10)
        done = lambda: (info(s, q, seeder.id) or {}).get("downloaded", 0)  # noqa: E731
        wait_for(lambda: done() >= 256 * 1024, 20, what="the download under way")
        clock.set(BACK10)
        before = done()
        time.sleep(6)
        got = done() - before
        c(got >= 1024 * 1024, f"in 6 s after a 10 min step back a 1 MiB/s download got {got} bytes: libtorrent's "
                                  "timers (its clock is std::chrono::high_resolution_clock, the wall clock on libstdc++) "
                                  "wait for the wall clock to catch up")
        clock.set(HOURS3)
        before = done()
        time.sleep(4)
        got = done() - before
        c(got >= 512 * 1024, f"in 4 s after a +3 h step a 1 MiB/s download got {got} bytes")
    finally:
        seeder.session.remove_torrent(seeder.handle)
        del seeder.session


SCENARIOS = [stamps, session_timeout, failed_login_ban, tus_forward, tus_backward, rss_interval, speed_schedule,
             seeding_time_limit, inactive_seeding_time_limit, rate_limited_download]


def run_one(harness, scenario):
    checks = Checks(scenario.__name__)
    try:
        scenario(harness, checks)
    except Exception as e:  # an unexpected answer: counted as a failed check, the scenario's qbtd still stopped
        checks.failed.append(f"{type(e).__name__}: {e}")
    finally:
        harness.finish()
    return checks


def run(workdir, qbtd_bin, short=True):
    """Every scenario once (`short` changes nothing: each is already seconds long). `faults` is the clock steps made;
    `lost` the checks that failed (something fired early or never, or a stamp went wrong); `db_checks` the integrity
    checks run after the scenarios."""
    harness = Harness(workdir, qbtd_bin)
    faults = checked = lost = 0
    notes = []
    clocks = []
    orig_clock = Clock.__init__

    def counting_init(self, path):
        orig_clock(self, path)
        clocks.append(self)

    Clock.__init__ = counting_init
    try:
        for scenario in SCENARIOS:
            checks = run_one(harness, scenario)
            checked += checks.checked
            lost += len(checks.failed)
            notes += [f"{checks.name}: {f}" for f in checks.failed]
    finally:
        Clock.__init__ = orig_clock
    faults = sum(cl.jumps for cl in clocks)
    lost += len(harness.db_failures)
    notes += harness.db_failures
    return dict(name="clock jumps", faults=faults, checked=checked, lost=lost, recovered=0,
                db_checks=harness.db_checks, notes="; ".join(notes) or "ok")


if __name__ == "__main__":
    out = run(sys.argv[1] if len(sys.argv) > 1 else "/tmp/qbtd-faults-clock",
              os.environ.get("QBTD_BIN", str(ROOT / ".build" / "debug" / "qbtd")))
    print(json.dumps(out, indent=1))
    sys.exit(1 if out["lost"] else 0)
