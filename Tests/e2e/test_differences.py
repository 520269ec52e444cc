"""Issue 16, differences found against qbittorrent-nox. A recheck of a stopped torrent whose files are complete checks
it at once and leaves it complete and stopped (it stayed at 0 % in qbtd). A tracker that refuses connections and one that
answers a failure reason ("Unregistered torrent") are "not working" (4) in qBittorrent 4.x, with the reason as the
message; 5.x reports the failure reason as its own code (5, tracker error). Compared live with qbittorrent-nox 4.5.2
(qbtd --profile 4.6) and checked against 5.1's codes (qbtd's default profile)."""
import os

import libtorrent as lt
import pytest

from conftest import BytesServer, free_port, wait_for
from qbtnox import NOX, QbittorrentNox


class FailingTracker(BytesServer):
    """An HTTP tracker on 127.0.0.1 that answers every announce with a failure reason (or the body given)."""

    def __init__(self, reason=b"Unregistered torrent", body=None):
        super().__init__(body or b"d14:failure reason%d:%se" % (len(reason), reason), "/announce")


def tracked_torrent(tmp_path, failing_url, refused_url):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "f.bin").write_bytes(os.urandom(50_000))
    fs = lt.file_storage()
    lt.add_files(fs, str(tmp_path / "t"))
    ct = lt.create_torrent(fs, 16 * 1024, flags=lt.create_torrent.v1_only)
    ct.add_tracker(failing_url, 0)
    ct.add_tracker(refused_url, 1)
    lt.set_piece_hashes(ct, str(tmp_path))
    data = lt.bencode(ct.generate())
    return data, str(lt.torrent_info(lt.bdecode(data)).info_hashes().v1)


def settled(session, base, torrent_id, urls):
    """The two trackers' (status, msg) once neither is still being contacted."""
    r = session.get(base + "/api/v2/torrents/trackers", params={"hash": torrent_id}, timeout=10)
    if r.status_code != 200:  # not there yet: qBittorrent adds in the background
        return None
    rows = r.json()
    got = {r["url"]: (r["status"], r["msg"]) for r in rows if r["url"] in urls}
    return got if len(got) == 2 and all(status in (4, 5) for status, _ in got.values()) else None


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_failing_trackers_as_qbittorrent_reports_them(qbtd_factory, tmp_path):
    failing = FailingTracker()
    refused = f"http://127.0.0.1:{free_port()}/announce"
    data, torrent_id = tracked_torrent(tmp_path, failing.url, refused)
    urls = {failing.url, refused}

    nox = QbittorrentNox(tmp_path / "nox").start()
    try:
        s = nox.session()
        assert s.post(nox.url("torrents/add"), files={"torrents": ("t.torrent", data)}).text == "Ok."
        reference = wait_for(lambda: settled(s, nox.base, torrent_id, urls), 60, what="qbittorrent-nox's trackers")
    finally:
        nox.stop()
    # qBittorrent 4.5.2: both "not working", the failure reason as the message.
    assert reference[failing.url] == (4, "Unregistered torrent"), reference
    assert reference[refused][0] == 4 and reference[refused][1], reference

    for profile in ("4.6", "5.1"):
        q = qbtd_factory(extra=["--profile", profile])
        s = q.session()
        assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", data)}).text == "Ok."
        got = wait_for(lambda: settled(s, q.base, torrent_id, urls), 60, what=f"qbtd's trackers ({profile})")
        if profile == "4.6":
            assert got[failing.url] == reference[failing.url], (got, reference)
            assert got[refused][0] == reference[refused][0], (got, reference)
        else:
            assert got[failing.url] == (5, "Unregistered torrent"), got  # 5.x: a tracker error
            assert got[refused][0] == 4 and got[refused][1], got
        q.stop()


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_recheck_of_a_stopped_complete_torrent(qbtd_factory, tmp_path):
    """qBittorrent starts a stopped torrent to check it and stops it again once checked (stop condition
    FilesChecked): the data on disk is found whole."""
    (tmp_path / "data" / "done").mkdir(parents=True)
    (tmp_path / "data" / "done" / "a.bin").write_bytes(os.urandom(300_000))
    fs = lt.file_storage()
    lt.add_files(fs, str(tmp_path / "data" / "done"))
    ct = lt.create_torrent(fs, 16 * 1024, flags=lt.create_torrent.v1_only)
    lt.set_piece_hashes(ct, str(tmp_path / "data"))
    data = lt.bencode(ct.generate())
    torrent_id = str(lt.torrent_info(lt.bdecode(data)).info_hashes().v1)

    last = {}

    def checked(server, s):
        t = s.get(server.url("torrents/info"), params={"hashes": torrent_id}, timeout=10).json()
        last["torrent"] = t and {k: t[0][k] for k in ("state", "progress", "save_path")}
        # Checked, whole, and stopped again (a moment after the check a torrent may still show as running).
        return t[0] if t and t[0]["progress"] == 1 and t[0]["state"] in ("pausedUP", "stoppedUP") else None

    results = {}
    nox = QbittorrentNox(tmp_path / "nox").start()
    q = qbtd_factory(extra=["--profile", "4.6"])
    try:
        for name, server in (("nox", nox), ("qbtd", q)):
            s = server.session()
            r = s.post(server.url("torrents/add"), files={"torrents": ("t.torrent", data)},
                       data={"savepath": str(tmp_path / "data"), "paused": "true", "skip_checking": "false"})
            assert r.text == "Ok."
            wait_for(lambda: s.get(server.url("torrents/info"), params={"hashes": torrent_id}).json(), 10, what="added")
            s.post(server.url("torrents/recheck"), data={"hashes": torrent_id})
            t = wait_for(lambda: checked(server, s), 20, what=f"{name} to find the data whole ({last})")
            states = s.get(server.url("torrents/pieceStates"), params={"hash": torrent_id}).json()
            completed = [x["hash"] for x in s.get(server.url("torrents/info"), params={"filter": "completed"}).json()]
            results[name] = (t["state"], set(states), torrent_id in completed)
    finally:
        nox.stop()
    assert results["qbtd"] == results["nox"] == ("pausedUP", {2}, True), results
