"""Acceptance 2: SIGKILL during a download; the torrent comes back from fast-resume data and completes."""
import sqlite3

import pytest

from conftest import SIZES, Seeder, wait_for


@pytest.fixture
def slow_seeder(tmp_path):
    # Rate-limited, so the download is still under way when qbtd is killed.
    return Seeder(tmp_path / "slow-seed", SIZES, upload_limit=6 * 1024 * 1024)


def info(s, q, torrent_id):
    items = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()
    return items[0] if items else None


def test_sigkill_mid_download_resumes(qbtd_factory, slow_seeder, tmp_path):
    seeder = slow_seeder
    data = tmp_path / "crashdata"
    q = qbtd_factory(data, username="alice")
    s = q.session()
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)},
               data={"category": "crash/test", "tags": "one,two", "savepath": "crashed"})
    assert r.text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: (info(s, q, seeder.id) or {}).get("progress", 0) >= 0.3, 120, what="30% downloaded")

    db = data / "qbtd.sqlite"

    def resume_saved_progress():
        with sqlite3.connect(db) as c:
            row = c.execute("SELECT length(resume_data) FROM torrents WHERE id = ?", (seeder.id,)).fetchone()
        return row and row[0]

    wait_for(resume_saved_progress, 10, what="fast-resume data in SQLite")
    import time
    time.sleep(2.5)  # two more resume intervals, so the saved data is recent
    before = info(s, q, seeder.id)
    assert before["progress"] < 1, "download finished before the kill; the seeder limit is too high"
    q.kill()

    q2 = qbtd_factory(data, username=None, password=q.password)
    q2.username = "alice"  # the username survived the restart in the preferences
    s2 = q2.session()
    after = info(s2, q2, seeder.id)
    assert after is not None, "torrent lost after SIGKILL"
    assert after["category"] == "crash/test"
    assert after["tags"] == "one, two"
    assert after["save_path"].endswith("/crashed")
    # Fast-resume: the pieces are known without a recheck from zero.
    first = wait_for(lambda: (lambda t: t if t["state"] not in ("checkingResumeData", "checkingDL") else None)(
        info(s2, q2, seeder.id)), 30, what="resume check to finish")
    assert first["progress"] >= 0.2, f"came back at {first['progress']}, not from its fast-resume data"

    s2.post(q2.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    done = wait_for(lambda: (lambda t: t if t["progress"] == 1 else None)(info(s2, q2, seeder.id)), 180,
                    what="download to complete after restart")
    total = sum(SIZES)
    assert done["downloaded_session"] < total * 0.85, "it downloaded everything again"
    seeder.verify(done["save_path"])
    with sqlite3.connect(db) as c:
        cats = [r[0] for r in c.execute("SELECT name FROM categories")]
        tags = sorted(r[0] for r in c.execute("SELECT name FROM tags"))
    assert cats == ["crash/test"] and tags == ["one", "two"]
