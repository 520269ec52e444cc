"""Acceptance (issue 38, items 1 and 3): full, read-only and vanished save paths under running torrents, on real
mounts (size-limited tmpfs, bind mounts) with loopback seeders and leechers. A full disk is a hold by qbtd's
free-space guard that lifts by itself, or qBittorrent's `error` that `start` clears; a read-only disk is `error` with
the path; files that vanish under a seeding torrent, or are missing when qbtd starts, are `missingFiles` with the
path, never a silent stall or a download of everything again; back in place, a start brings the torrent back with
its data. `qbtd_reason` says why throughout."""
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import libtorrent as lt
import pytest

from conftest import Qbtd, Seeder, free_port, loopback_session, wait_for


def mount(*args):
    p = subprocess.run(["mount", *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, f"mount {args}: {p.stderr} (the fault tests need root)"


@contextmanager
def mounted(*points):
    """Unmounts (lazily, as a last resort) whatever the test left mounted."""
    try:
        yield
    finally:
        for point in points:
            for _ in range(3):
                if subprocess.run(["mountpoint", "-q", str(point)]).returncode != 0:
                    break
                subprocess.run(["umount", "-l", str(point)], capture_output=True)


def info(s, q):
    return s.get(q.url("torrents/info"), timeout=10).json()[0]


def add(s, q, seeder, save_path):
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)},
               data={"savepath": str(save_path)}, timeout=30)
    assert r.status_code == 200, r.text
    wait_for(lambda: s.get(q.url("torrents/info"), timeout=10).json(), 10, what="the torrent listed")
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}, timeout=10)


def set_floor(s, q, mib):
    r = s.post(q.url("app/setPreferences"), data={"json": f'{{"disk_guard_min_free_mib": {mib}}}'}, timeout=10)
    assert r.status_code == 200, r.text


def downloaded(s, q, seeder):
    return s.get(q.url("torrents/properties"), params={"hash": seeder.id}, timeout=10).json()["total_downloaded"]


@pytest.fixture
def qbtd(tmp_path):
    started = []

    def make(**kwargs):
        (tmp_path / "data").mkdir(exist_ok=True)
        q = Qbtd(tmp_path / "data", **kwargs).start()
        started.append(q)
        return q

    yield make
    for q in started:
        q.stop()


@contextmanager
def downloading_into_40_mib(qbtd, tmp_path, floor):
    """A 64 MiB download from a loopback seeder into a 40 MiB tmpfs, the guard's floor set to `floor` MiB."""
    dl = tmp_path / "dl"
    dl.mkdir()
    with mounted(dl):
        mount("-t", "tmpfs", "-o", "size=40m", "tmpfs", dl)
        seeder = Seeder(tmp_path / "seed", [64 << 20], piece_size=256 << 10, upload_limit=16 << 20)
        q = qbtd()
        s = q.session()
        set_floor(s, q, floor)
        add(s, q, seeder, dl)
        yield dl, seeder, q, s


def test_full_disk_error_clears_on_start(qbtd, tmp_path):
    """Guard off: a 64 MiB download into a 40 MiB filesystem ends in `error` with "No space left on device"; once the
    filesystem grows, `start` completes it from the pieces it had (qbtd kept it in error for good before)."""
    with downloading_into_40_mib(qbtd, tmp_path, floor=0) as (dl, seeder, q, s):
        wait_for(lambda: info(s, q)["state"] == "error", 60, what="error on the full disk")
        t = info(s, q)
        assert "No space left on device" in t["qbtd_reason"] and str(dl) in t["qbtd_reason"], t["qbtd_reason"]
        had = t["progress"]
        assert 0.3 < had < 1, had
        mount("-o", "remount,size=128m", dl)
        assert s.post(q.url("torrents/start"), data={"hashes": "all"}, timeout=10).status_code == 200
        wait_for(lambda: info(s, q)["progress"] == 1, 60, what="the download completed after start")
        assert info(s, q)["qbtd_reason"] == ""
        seeder.verify(dl)
        # Nothing it had was fetched again: what came in is the size and a little waste, not more.
        assert downloaded(s, q, seeder) <= (64 << 20) * 1.10


def test_free_space_guard_holds_and_lets_go(qbtd, tmp_path):
    """Guard at 64 MiB: the download into a 40 MiB filesystem is held (`stoppedDL`, the reason names the path and the
    floor) before a byte is refused; the filesystem grows and it starts and completes by itself."""
    with downloading_into_40_mib(qbtd, tmp_path, floor=64) as (dl, seeder, q, s):
        wait_for(lambda: info(s, q)["state"] == "stoppedDL", 20, what="held by the guard")
        reason = info(s, q)["qbtd_reason"]
        assert "free-space guard" in reason and str(dl) in reason and "64 MiB" in reason, reason
        time.sleep(2)  # held means held: no error, no progress past what fits
        assert info(s, q)["state"] == "stoppedDL"
        mount("-o", "remount,size=200m", dl)
        wait_for(lambda: info(s, q)["progress"] == 1, 60, what="started again by itself and completed")
        assert info(s, q)["qbtd_reason"] == ""
        seeder.verify(dl)
        log = [line["message"] for line in s.get(q.url("log/main"), params={"last_known_id": -1}, timeout=10).json()]
        assert any("started again by qbtd's free-space guard" in m for m in log), log[-5:]


def test_read_only_disk_is_an_error_until_writable(qbtd, tmp_path):
    """A save path remounted read-only under a download: `error` with the path and "Read-only file system"; back to
    read-write, `start` completes it. The kernel refuses a remount while files are open for writing (a filesystem
    only goes read-only under them on its own errors), so the torrent is stopped for the remount and started on it."""
    dl, backing = tmp_path / "dl", tmp_path / "backing"
    dl.mkdir()
    backing.mkdir()
    with mounted(dl):
        mount("--bind", backing, dl)
        seeder = Seeder(tmp_path / "seed", [32 << 20], piece_size=256 << 10, upload_limit=4 << 20)
        q = qbtd()
        s = q.session()
        add(s, q, seeder, dl)
        wait_for(lambda: info(s, q)["progress"] > 0.1, 30, what="part of the download")
        assert s.post(q.url("torrents/stop"), data={"hashes": "all"}, timeout=10).status_code == 200
        for _ in range(50):  # libtorrent closes its files once the torrent is paused
            if subprocess.run(["mount", "-o", "remount,bind,ro", str(dl)], capture_output=True).returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"{dl} stayed busy: the stopped torrent kept its files open for writing")
        assert s.post(q.url("torrents/start"), data={"hashes": "all"}, timeout=10).status_code == 200
        wait_for(lambda: info(s, q)["state"] == "error", 30, what="error on the read-only disk")
        reason = info(s, q)["qbtd_reason"]
        assert "Read-only file system" in reason and str(dl) in reason, reason
        mount("-o", "remount,bind,rw", dl)
        assert s.post(q.url("torrents/start"), data={"hashes": "all"}, timeout=10).status_code == 200
        wait_for(lambda: info(s, q)["progress"] == 1, 60, what="completed once writable")
        seeder.verify(dl)


def leecher(seeder, root, peer_port):
    session = loopback_session(free_port())
    params = lt.add_torrent_params()
    params.ti = seeder.info
    params.save_path = str(root)
    handle = session.add_torrent(params)
    handle.connect_peer(("127.0.0.1", peer_port))
    return session, handle


@contextmanager
def downloaded_onto_a_bind_mount(qbtd, tmp_path, extra=()):
    """A torrent from a loopback seeder downloaded in full into `dl`, a bind mount of `backing` (unmountable and
    mountable again with its data)."""
    dl, backing = tmp_path / "dl", tmp_path / "backing"
    dl.mkdir()
    backing.mkdir()
    with mounted(dl):
        mount("--bind", backing, dl)
        seeder = Seeder(tmp_path / "seed", [6 << 20, 2 << 20], piece_size=256 << 10)
        q = qbtd(extra=list(extra))
        s = q.session()
        add(s, q, seeder, dl)
        wait_for(lambda: info(s, q)["progress"] == 1, 60, what="downloaded")
        yield dl, backing, seeder, q, s


def test_vanished_files_under_a_seed_are_missing_files(qbtd, tmp_path):
    """The save path of a seeding torrent is unmounted while a leecher asks for its data: `missingFiles` with the
    path, not a seed that answers every request with a reject; mounted again, `start` seeds it to the leecher."""
    peer_port = free_port()
    with downloaded_onto_a_bind_mount(qbtd, tmp_path, extra=["--peer-listen", f"127.0.0.1:{peer_port}"]) as (
            dl, backing, seeder, q, s):
        del seeder.session  # qbtd is the only seed from here on
        subprocess.run(["umount", "-l", str(dl)], check=True)
        session, handle = leecher(seeder, tmp_path / "leech", peer_port)
        wait_for(lambda: info(s, q)["state"] == "missingFiles", 30, what="missingFiles once a read fails")
        reason = info(s, q)["qbtd_reason"]
        assert str(dl) in reason and "No such file or directory" in reason and "start or recheck" in reason, reason
        mount("--bind", backing, dl)
        assert s.post(q.url("torrents/start"), data={"hashes": "all"}, timeout=10).status_code == 200
        handle.connect_peer(("127.0.0.1", peer_port))
        wait_for(lambda: handle.status().is_seeding, 60, what="the leecher served in full")
        assert info(s, q)["state"] in ("stalledUP", "uploading") and info(s, q)["qbtd_reason"] == ""
        del session


def test_files_missing_at_start_are_not_downloaded_again(qbtd, tmp_path):
    """qbtd starts while the save path's disk is not mounted: `missingFiles`, nothing downloaded into the empty mount
    point even with the seeder connected; mounted, `start` checks the files and the torrent is complete again."""
    with downloaded_onto_a_bind_mount(qbtd, tmp_path) as (dl, backing, seeder, q, s):
        q.stop()
        subprocess.run(["umount", str(dl)], check=True)
        q.start()
        s = q.session()
        wait_for(lambda: info(s, q)["state"] == "missingFiles", 30, what="missingFiles at start")
        s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}, timeout=10)
        time.sleep(3)
        assert info(s, q)["state"] == "missingFiles" and list(dl.iterdir()) == [], "it downloaded into the mount point"
        assert str(dl) in info(s, q)["qbtd_reason"]
        mount("--bind", backing, dl)
        assert s.post(q.url("torrents/start"), data={"hashes": "all"}, timeout=10).status_code == 200
        wait_for(lambda: info(s, q)["progress"] == 1 and info(s, q)["state"] in ("stalledUP", "uploading"), 30,
                 what="checked and complete")
        props = s.get(q.url("torrents/properties"), params={"hash": seeder.id}, timeout=10).json()
        assert props["total_downloaded_session"] == 0, props["total_downloaded_session"]
        seeder.verify(dl)


def test_stream_into_a_full_cache_ends_with_the_reason(qbtd, tmp_path):
    """A stream of a torrent qbtd does not have, its stream cache on a full filesystem: the read ends as soon as
    libtorrent cannot write the piece (not after the 60 s stall timeout), and the log says what to do."""
    import os

    import requests

    from test_stream import FileSeeder, prepare

    cache = tmp_path / "cache"
    cache.mkdir()
    with mounted(cache):
        mount("-t", "tmpfs", "-o", "size=8m", "tmpfs", cache)
        payload = os.urandom(24 << 20)
        seeder = FileSeeder(tmp_path / "seed", "film", {"film.mkv": payload}, piece_size=256 << 10)
        q = qbtd(extra=["--stream-cache-dir", str(cache)])
        s = q.session()
        r = prepare(s, q, magnetUri=seeder.magnet)
        assert r.status_code == 200, r.text
        stream = r.json()
        with open(cache / "ballast", "wb") as f:  # the rest of the filesystem, to the last block
            try:
                while True:
                    f.write(b"\0" * (64 << 10))
                    f.flush()
            except OSError:
                pass
        started = time.monotonic()
        got = b""
        try:
            with requests.get(stream["playbackUrl"], headers={"Range": f"bytes={16 << 20}-{(17 << 20) - 1}"},
                              stream=True, timeout=90) as answer:
                if answer.status_code == 206:
                    for block in answer.iter_content(64 << 10):
                        got += block
                else:
                    assert answer.status_code == 507, (answer.status_code, answer.text)
        except requests.exceptions.RequestException:
            pass  # the body ended short: the connection closes
        assert len(got) < 1 << 20, "the whole range came although nothing could be written"
        assert time.monotonic() - started < 30, "the read waited for the stall timeout"
        log = [line["message"] for line in s.get(q.url("log/main"), params={"last_known_id": -1}, timeout=10).json()]
        assert any("No space left on device" in m for m in log), log[-5:]
