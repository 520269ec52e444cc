"""Start-up and shutdown: the embedded default, --help, and SIGTERM saving fast-resume data."""
import os
import sqlite3
import subprocess
import time

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
    q = qbtd_factory(resume_interval=3600)  # no periodic save: only the shutdown path can write it
    s = q.session()
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}).text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: s.get(q.url("torrents/info")).json()[0]["progress"] == 1, 120, what="download")
    with sqlite3.connect(q.data_dir / "qbtd.sqlite") as c:
        c.execute("UPDATE torrents SET resume_data = NULL")
    started = time.monotonic()
    q.stop()
    assert q.proc.returncode == 0
    assert time.monotonic() - started < 15
    with sqlite3.connect(q.data_dir / "qbtd.sqlite") as c:
        (size,) = c.execute("SELECT length(resume_data) FROM torrents").fetchone()
    assert size and size > 100
