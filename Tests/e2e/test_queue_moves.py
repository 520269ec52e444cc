"""Queue moves of several torrents at once (`increasePrio`, `decreasePrio`, `topPrio`, `bottomPrio` with `hashes=a|b`),
in qbtd and in qBittorrent 4.5.2 (Debian 12's qbittorrent-nox): the same moves leave the same order.

qBittorrent sorts the named torrents by their place in the queue before it moves them, whatever order the client
named them in: up and bottom start with the one highest in the queue, down and top with the one lowest, so two
neighbours moved up together both go up one place (taken one at a time in the client's order, the second moved back
past the first and nothing changed). Torrents outside the queue are left alone."""
import pytest

from conftest import wait_for
from qbtnox import NOX, QbittorrentNox
from rss_support import make_torrent

NAMES = "ABCD"
# (action, torrents named in this order, the queue after), each move from the queue the one before left.
MOVES = [
    ("increasePrio", "CD", "ACDB"),
    ("decreasePrio", "AC", "DACB"),
    ("topPrio", "CB", "CBDA"),
    ("bottomPrio", "CD", "BACD"),
    ("increasePrio", "DC", "BCDA"),  # named lowest first: the same as highest first
]


def exercise(server, session, tmp_path):
    s = session
    assert s.post(server.url("app/setPreferences"),
                  data={"json": '{"queueing_enabled": true, "max_active_downloads": 10, "max_active_torrents": 10}'}).ok
    hashes = {}
    for name in NAMES:
        data, hashes[name] = make_torrent(tmp_path / "src", name)
        r = s.post(server.url("torrents/add"), files={"torrents": (f"{name}.torrent", data)},
                   data={"paused": "true", "stopped": "true", "savepath": str(tmp_path / "save")})
        assert r.status_code == 200, (r.status_code, r.text)
        wait_for(lambda: any(t["hash"] == hashes[name] for t in s.get(server.url("torrents/info")).json()), 10,
                 what=f"{name} listed")
    by_hash = {h: n for n, h in hashes.items()}

    def queue():
        listed = s.get(server.url("torrents/info"), params={"sort": "priority"}).json()
        return "".join(by_hash[t["hash"]] for t in listed if t["priority"] > 0)

    # qBittorrent reads the queue from its cached status (every 1.5 s): wait for each order before the next move.
    wait_for(lambda: queue() == NAMES, 10, what="the queue in the order of the adds")
    for action, named, after in MOVES:
        r = s.post(server.url(f"torrents/{action}"), data={"hashes": "|".join(hashes[n] for n in named)})
        assert r.status_code == 200, (action, r.status_code, r.text)
        wait_for(lambda: queue() == after, 10, what=f"{action} {named}: {after} (now {queue()})")


def test_queue_moves_of_several_torrents_qbtd(qbtd_factory, tmp_path):
    q = qbtd_factory()
    exercise(q, q.session(), tmp_path)


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_queue_moves_of_several_torrents_reference_qbittorrent_nox(tmp_path):
    nox = QbittorrentNox(tmp_path / "nox").start()
    try:
        exercise(nox, nox.session(), tmp_path)
    finally:
        nox.stop()
