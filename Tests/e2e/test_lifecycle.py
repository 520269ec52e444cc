"""Start-up and shutdown: the embedded default, --help, and SIGTERM saving fast-resume data."""
import json
import os
import sqlite3
import subprocess
import time

import libtorrent as lt

from conftest import QBTD, wait_for


def test_help_lists_every_option():
    out = subprocess.run([QBTD, "--help"], capture_output=True, text=True, timeout=30).stdout
    for option in ["--data-dir", "--download-dir", "--host", "--port", "--username", "--password", "--peer-listen",
                   "--no-discovery", "--no-utp", "--resume-interval"]:
        assert option in out, option
    for env in ["QBTD_DATA_DIR", "QBTD_HOST", "QBTD_PORT", "QBTD_PASSWORD", "QBTD_PEER_LISTEN", "QBTD_NO_DISCOVERY"]:
        assert env in out, env


def test_generated_password_is_printed_once_and_environment_configures(tmp_path):
    from conftest import free_port
    import requests

    port = free_port()
    env = dict(os.environ, QBTD_DATA_DIR=str(tmp_path / "d"), QBTD_PORT=str(port), QBTD_NO_DISCOVERY="1",
               QBTD_PEER_LISTEN="127.0.0.1:0")
    env.pop("QBTD_PASSWORD", None)
    log = tmp_path / "out.log"
    for round_ in range(2):
        with open(log, "w") as f:
            proc = subprocess.Popen([QBTD], env=env, stdout=f, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: "serving" in log.read_text(), 60, what="start-up banner")
            text = log.read_text()
            assert f"http://127.0.0.1:{port}" in text
            secrets = tmp_path / "d" / "first-start-credentials"
            if round_ == 0:
                # Never in the output (a log others read): in a file only this user can read, named there.
                assert str(secrets) in text and "one was generated" in text
                assert secrets.stat().st_mode & 0o777 == 0o600
                password = next(l for l in secrets.read_text().splitlines() if l.startswith("WebUI password: ")).split(": ", 1)[1]
                assert password not in text
                r = requests.post(f"http://127.0.0.1:{port}/api/v2/auth/login",
                                  data={"username": "admin", "password": password})
                assert (r.status_code, r.text) == (204, "")  # the default profile, 5.3
            else:
                assert "one was generated" not in text and password not in text, "the generated password is made only once"
        finally:
            proc.terminate()
            proc.wait(30)
    assert (tmp_path / "d" / "qbtd.sqlite").exists() and (tmp_path / "d" / "downloads").is_dir()


def test_sigterm_saves_fast_resume_data(qbtd_factory, seeder):
    """A torrent changed since its last save (here: downloading) has its fast-resume data saved by the stop; as in
    qBittorrent, the stop asks only the torrents libtorrent marks modified (a big library's unchanged ones are stored)."""
    q = qbtd_factory(resume_interval=3600)  # no periodic save: only the shutdown path can write it
    s = q.session()
    # Slow enough to be still downloading at the stop (40 MB at 1 MiB/s).
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)},
                  data={"dlLimit": str(1024 * 1024)}).text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: 0.05 < s.get(q.url("torrents/info")).json()[0]["progress"] < 0.8, 60, interval=0.05, what="a download under way")
    with sqlite3.connect(q.data_dir / "qbtd.sqlite") as c:
        c.execute("UPDATE torrents SET resume_data = NULL")
    started = time.monotonic()
    q.stop()
    assert q.proc.returncode == 0
    assert time.monotonic() - started < 15
    with sqlite3.connect(q.data_dir / "qbtd.sqlite") as c:
        (size,) = c.execute("SELECT length(resume_data) FROM torrents").fetchone()
    assert size and size > 100


def test_a_clean_stop_keeps_the_queue(qbtd_factory):
    """The stop takes every torrent out of libtorrent's download queue at once (contrib/libtorrent's
    shutdown-linear.patch, which made a stop of 100,000 torrents linear): the queue qbtd restarts with is the one it
    stopped with, and every torrent comes back."""
    q = qbtd_factory()
    s = q.session()
    s.post(q.url("app/setPreferences"), data={"json": json.dumps({"queueing_enabled": True, "max_active_downloads": 2,
                                                                  "max_active_torrents": 3})})
    ids = []
    for batch in range(6):
        files = []
        for i in range(50):
            info = {"name": f"q{batch}-{i}", "piece length": 16384, "length": 16384, "pieces": os.urandom(20)}
            data = lt.bencode({"info": info})
            ids.append(str(lt.torrent_info(lt.bdecode(data)).info_hashes().v1))
            files.append(("torrents", (f"{batch}-{i}.torrent", data)))
        assert s.post(q.url("torrents/add"), files=files).status_code == 200
    wait_for(lambda: len(s.get(q.url("torrents/info")).json()) == len(ids), 60, what="300 torrents listed")
    # Shuffle the queue a little, so its order is not the order of addition.
    s.post(q.url("torrents/topPrio"), data={"hashes": "|".join(ids[200:210])})
    s.post(q.url("torrents/bottomPrio"), data={"hashes": "|".join(ids[:5])})

    def queue():
        return sorted((t["priority"], t["hash"]) for t in s.get(q.url("torrents/info")).json())

    before = wait_for(lambda: (lambda got: got if [p for p, _ in got] == list(range(1, len(ids) + 1)) else None)(queue()), 30,
                      what="the queue's positions 1…300")
    q.stop()
    assert q.proc.returncode == 0
    q.start()
    s = q.session()
    wait_for(lambda: len(s.get(q.url("torrents/info")).json()) == len(ids), 60, what="300 torrents back")
    last = {}

    def same():
        last["queue"] = queue()
        return last["queue"] == before
    try:
        wait_for(same, 30, what="the queue as it was")
    except AssertionError:
        moved = [(b, a) for b, a in zip(before, last["queue"]) if b != a]
        raise AssertionError(f"{len(moved)} positions differ, e.g. {moved[:5]}") from None
