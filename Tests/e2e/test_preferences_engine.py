"""Acceptance 5: preferences change the engine — a download limit holds, a queueing limit queues."""
import json
import time

from conftest import wait_for


def prefs(s, q, **values):
    assert s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)}).status_code == 200


def test_download_limit_holds_against_loopback_seeder(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    limit = 1024 * 1024
    prefs(s, q, dl_limit=limit)
    assert s.get(q.url("app/preferences")).json()["dl_limit"] == limit
    assert s.get(q.url("transfer/downloadLimit")).text == str(limit)
    s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)})
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})

    def done():
        return s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json()[0]["completed"]

    wait_for(lambda: done() > 0, 30, what="the download to start")
    # Counted in whole pieces: pieces already under way when the window opens land early in it, so the window is
    # long enough (8 s, 8 MiB at the limit) for them not to weigh.
    time.sleep(1)
    start_bytes, start = done(), time.monotonic()
    time.sleep(8)
    rate = (done() - start_bytes) / (time.monotonic() - start)
    assert 0 < rate <= limit * 1.25, f"{rate:.0f} B/s against a {limit} B/s limit"

    # Lifting it lets the rest through at loopback speed.
    prefs(s, q, dl_limit=0)
    wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json()[0]["progress"] == 1, 60,
             what="the unlimited rest")


def test_queueing_limit_keeps_extra_torrents_queued(qbtd_factory):
    q = qbtd_factory()
    s = q.session()
    assert s.post(q.url("torrents/topPrio"), data={"hashes": "all"}).status_code == 409
    prefs(s, q, queueing_enabled=True, max_active_downloads=1, max_active_torrents=2, max_active_uploads=1)
    hashes = [f"{i:x}" * 40 for i in range(1, 4)]
    for h in hashes:
        assert s.post(q.url("torrents/add"), data={"urls": h[:40]}).text == "Ok."

    def states():
        return {t["hash"]: t["state"] for t in s.get(q.url("torrents/info")).json()}

    wait_for(lambda: sorted(states().values()) == ["metaDL", "queuedDL", "queuedDL"], 30, what="two queued torrents")
    priorities = sorted(t["priority"] for t in s.get(q.url("torrents/info")).json())
    assert priorities == [1, 2, 3]
    # Moving the last one to the top makes it the one that runs.
    last = max(s.get(q.url("torrents/info")).json(), key=lambda t: t["priority"])["hash"]
    assert s.post(q.url("torrents/topPrio"), data={"hashes": last}).status_code == 200
    wait_for(lambda: states()[last] == "metaDL", 30, what="the top torrent to run")
    assert s.get(q.url("sync/maindata")).json()["server_state"]["queueing"] is True
    # Forcing one starts it outside the queue.
    queued = [h for h, st in states().items() if st == "queuedDL"][0]
    s.post(q.url("torrents/setForceStart"), data={"hashes": queued, "value": "true"})
    wait_for(lambda: states()[queued] == "forcedMetaDL", 30, what="the forced torrent")
