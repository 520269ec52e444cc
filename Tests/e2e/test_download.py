"""Acceptance 1: real downloads over loopback, added by upload, by magnet, and by http URL."""
import time

from conftest import BytesServer, wait_for

DONE_STATES = {"uploading", "stalledUP"}


def torrent(session, q, torrent_id):
    r = session.get(q.url("torrents/info"), params={"hashes": torrent_id})
    assert r.status_code == 200
    items = r.json()
    return items[0] if items else None


def download(session, q, seeder, timeout=180):
    r = session.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    assert r.status_code == 200, r.text
    assert r.json()[seeder.id]["added"] == 1
    started = time.monotonic()
    done = wait_for(lambda: (lambda t: t if t and t["progress"] == 1 and t["state"] in DONE_STATES else None)(
        torrent(session, q, seeder.id)), timeout, what="download to finish")
    return done, time.monotonic() - started


def test_download_by_upload(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    r = s.post(q.url("torrents/add"), files={"torrents": ("seed.torrent", seeder.torrent, "application/x-bittorrent")},
               data={"category": "linux", "tags": "iso,big"})
    assert (r.status_code, r.text) == (200, "Ok.")
    t = torrent(s, q, seeder.id)
    assert t is not None and t["name"] == "payload" and t["category"] == "linux" and t["tags"] == "big, iso"
    done, seconds = download(s, q, seeder)
    print(f"\n40 MiB loopback download by upload: {seconds:.2f}s")
    assert done["amount_left"] == 0 and done["completed"] == done["size"] == sum(seeder_sizes(seeder))
    seeder.verify(done["save_path"])
    files = s.get(q.url("torrents/files"), params={"hash": seeder.id}).json()
    assert len(files) == 3 and all(f["progress"] == 1 for f in files)


def test_download_by_magnet(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    r = s.post(q.url("torrents/add"), data={"urls": seeder.magnet, "savepath": "by-magnet"})
    assert (r.status_code, r.text) == (200, "Ok.")
    t = torrent(s, q, seeder.id)
    # Visible at once, before metadata (Sonarr polls for it right after adding).
    assert t is not None and t["save_path"].endswith("/by-magnet")
    done, seconds = download(s, q, seeder)
    print(f"\n40 MiB loopback download by magnet: {seconds:.2f}s")
    assert done["has_metadata"] and done["name"] == "payload"
    seeder.verify(done["save_path"])


def test_add_by_http_url(qbtd_factory, seeder):
    server = BytesServer(seeder.torrent, "/seed.torrent")
    try:
        q = qbtd_factory()
        s = q.session()
        r = s.post(q.url("torrents/add"), data={"urls": server.url, "stopped": "true"})
        assert (r.status_code, r.text) == (200, "Ok.")
        # Stopped from the add on; its status may show checkingResumeData for a moment first (as qBittorrent's).
        t = wait_for(lambda: (lambda x: x if x and x["state"] != "checkingResumeData" else None)(torrent(s, q, seeder.id)),
                     10, what="the added torrent's first state")
        assert t["has_metadata"] and t["state"] == "stoppedDL", t
    finally:
        server.stop()


def seeder_sizes(seeder):
    from conftest import SIZES
    return SIZES


def test_the_utp_socket_gets_a_wide_receive_buffer(qbtd_factory):
    """qbtd's UDP socket (uTP's) asks for a 4 MiB receive buffer when no socket_receive_buffer_size is set
    (contrib/libtorrent/udp-receive-buffer.patch): the kernel grants it up to net.core.rmem_max, doubled for its
    bookkeeping, where it would otherwise keep rmem_default (208 KiB), which a uTP peer's burst overflows."""
    import re
    import subprocess
    from pathlib import Path
    q = qbtd_factory(utp=True)
    rmem_max = int(Path("/proc/sys/net/core/rmem_max").read_text())
    rmem_default = int(Path("/proc/sys/net/core/rmem_default").read_text())

    def buffers():
        out = subprocess.run(["ss", "-uamnp"], capture_output=True, text=True, check=True).stdout
        found, lines = [], out.splitlines()
        for i, line in enumerate(lines):
            if f"pid={q.proc.pid}," in line:
                m = re.search(r"rb(\d+)", " ".join(lines[i:i + 2]))
                if m:
                    found.append(int(m.group(1)))
        return found

    sizes = wait_for(buffers, 10, what="qbtd's UDP socket")
    assert max(sizes) >= min(2 * 4 * 1024 * 1024, 2 * rmem_max) > rmem_default, (sizes, rmem_max)
