"""Issue 16, differences found against qbittorrent-nox. A recheck of a stopped torrent whose files are complete checks
it at once and leaves it complete and stopped (it stayed at 0 % in qbtd). A tracker that refuses connections and one that
answers a failure reason ("Unregistered torrent") get the codes and messages the real release reports (4.x: both "not
working", 4, with the reason as the message). Both are compared live, each profile with the real release it names
(qbtnox.REFERENCES: 4.6 with Debian 12's 4.5.2, 5.1 with trixie's 5.1.0, 5.3 with sid's 5.3.x)."""
import os
import socket
import warnings

import libtorrent as lt
import pytest

from conftest import BytesServer, wait_for
from qbtnox import REFERENCES, QbittorrentNox


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


def refusing_port():
    """A port bound on 127.0.0.1 and never listened on: a connection to it is refused at once, and no other process can
    take it while the socket is held (a port only found free could be taken and answer nothing, leaving the tracker
    "updating" past the wait)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


def settled(session, base, torrent_id, urls, seen=None):
    """The two trackers' (status, msg) once neither is still being contacted; `seen` keeps the last rows read, for the
    failure's message."""
    r = session.get(base + "/api/v2/torrents/trackers", params={"hash": torrent_id}, timeout=10)
    if r.status_code != 200:  # not there yet: qBittorrent adds in the background
        if seen is not None:
            seen["last"] = (r.status_code, r.text[:200])
        return None
    rows = r.json()
    got = {r["url"]: (r["status"], r["msg"]) for r in rows if r["url"] in urls}
    if seen is not None:
        seen["last"] = got
    return got if len(got) == 2 and all(status in (4, 5) for status, _ in got.values()) else None


def reference_and_qbtd(profile, qbtd_factory, root):
    """The real release `profile` is held against (started) and a factory of qbtd in that profile; skips when either
    is missing here."""
    reference = REFERENCES[profile]
    why = reference.missing()
    if why:
        pytest.skip(why)
    nox = QbittorrentNox(root, release=reference).start()

    def qbtd():
        try:
            return qbtd_factory(extra=["--profile", profile])
        except AssertionError as e:
            if "--profile takes" not in str(e):
                raise
            nox.stop()
            pytest.skip(f"this qbtd has no --profile {profile} yet: the comparison with the real "
                        f"{reference.expected} runs once it does")
    return reference, nox, qbtd


def agree(reference, got, want, what):
    """Fails when qbtd's answer is not the real release's; warns instead when the real release is not the one the
    profile presents (sid moved on)."""
    if got == want:
        return
    message = f"{what}: qbtd {got!r} vs qbittorrent-nox {reference.package_version} {want!r}"
    if not reference.current:
        warnings.warn(f"{reference.suite} moved to {reference.version}, the profile presents {reference.expected}: "
                      f"{message}")
        return
    raise AssertionError(message)


@pytest.mark.parametrize("profile", list(REFERENCES))
def test_failing_trackers_as_qbittorrent_reports_them(profile, qbtd_factory, tmp_path):
    failing = FailingTracker()
    held = refusing_port()
    refused = f"http://127.0.0.1:{held.getsockname()[1]}/announce"
    data, torrent_id = tracked_torrent(tmp_path, failing.url, refused)
    urls = {failing.url, refused}

    reference, nox, make_qbtd = reference_and_qbtd(profile, qbtd_factory, tmp_path / "nox")
    try:
        s = nox.session()
        r = s.post(nox.url("torrents/add"), files={"torrents": ("t.torrent", data)})
        assert r.status_code == 200, (r.status_code, r.text)
        seen = {}
        try:
            want = wait_for(lambda: settled(s, nox.base, torrent_id, urls, seen), 90, what="qbittorrent-nox's trackers")
        except AssertionError as e:
            raise AssertionError(f"{e}; the trackers as last read: {seen.get('last')!r}") from None
    finally:
        nox.stop()
    # Every release: the failure reason as the message, the refused tracker "not working" with a message of its own.
    assert want[failing.url][1] == "Unregistered torrent" and want[refused][0] == 4 and want[refused][1], want
    if reference.expected == "4.5.2":
        assert want[failing.url][0] == 4, want  # 4.x: "not working"

    q = make_qbtd()
    s = q.session()
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", data)}).status_code == 200
    got = wait_for(lambda: settled(s, q.base, torrent_id, urls), 60, what=f"qbtd's trackers ({profile})")
    held.close()
    print(f"{profile}: qbittorrent-nox {reference.package_version} {want}, qbtd {got}")
    agree(reference, got[failing.url], want[failing.url], "the tracker answering a failure reason")
    agree(reference, got[refused][0], want[refused][0], "the tracker refusing connections")


@pytest.mark.parametrize("profile", list(REFERENCES))
def test_recheck_of_a_stopped_complete_torrent(profile, qbtd_factory, tmp_path):
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
    reference, nox, make_qbtd = reference_and_qbtd(profile, qbtd_factory, tmp_path / "nox")
    q = make_qbtd()
    try:
        for name, server in (("nox", nox), ("qbtd", q)):
            s = server.session()
            r = s.post(server.url("torrents/add"), files={"torrents": ("t.torrent", data)},
                       data={"savepath": str(tmp_path / "data"), "paused": "true", "stopped": "true",
                             "skip_checking": "false"})
            assert r.status_code == 200, (r.status_code, r.text)
            wait_for(lambda: s.get(server.url("torrents/info"), params={"hashes": torrent_id}).json(), 10, what="added")
            s.post(server.url("torrents/recheck"), data={"hashes": torrent_id})
            t = wait_for(lambda: checked(server, s), 20, what=f"{name} to find the data whole ({last})")
            states = s.get(server.url("torrents/pieceStates"), params={"hash": torrent_id}).json()
            completed = [x["hash"] for x in s.get(server.url("torrents/info"), params={"filter": "completed"}).json()]
            results[name] = (t["state"], set(states), torrent_id in completed)
    finally:
        nox.stop()
    assert results["nox"] == ("pausedUP" if reference.expected == "4.5.2" else "stoppedUP", {2}, True), results
    agree(reference, results["qbtd"], results["nox"], "a stopped, complete torrent after a recheck")
