#!/usr/bin/env python3
"""Loopback download benchmark: the same python-libtorrent seeder feeds qbtd and qbittorrent-nox in turn.

Prints seconds and MiB/s for each and the ratio qbtd/qbittorrent-nox. Everything stays on 127.0.0.1 with DHT,
LSD, PeX, UPnP/NAT-PMP and uTP off. Usage: loopback_download.py [MiB] (default 256).
"""
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, Seeder, free_port, wait_for  # noqa: E402

QBT_CONF = """[LegalNotice]
Accepted=true

[BitTorrent]
Session\\DHTEnabled=false
Session\\LSDEnabled=false
Session\\PeXEnabled=false
Session\\Interface=lo
Session\\InterfaceName=lo
Session\\Port={peer_port}
Session\\BTProtocol=TCP
Session\\DefaultSavePath={save}
Session\\QueueingSystemEnabled=false

[Network]
PortForwardingEnabled=false

[Preferences]
Connection\\UPnP=false
Connection\\ResolvePeerCountries=false
General\\Locale=en
WebUI\\Address=127.0.0.1
WebUI\\Port={web_port}
WebUI\\LocalHostAuth=false
WebUI\\CSRFProtection=false
WebUI\\HostHeaderValidation=false
"""


def timed_download(base, session, seeder, add):
    r = add()
    assert r.text in ("Ok.", ""), r.text
    wait_for(lambda: session.get(base + "/api/v2/torrents/info", params={"hashes": seeder.id}).json(), 30,
             what="torrent to appear")
    start = time.monotonic()
    session.post(base + "/api/v2/torrents/addPeers", data={"hashes": seeder.id, "peers": seeder.peer})

    def done():
        items = session.get(base + "/api/v2/torrents/info", params={"hashes": seeder.id}).json()
        return items and items[0]["progress"] == 1

    wait_for(done, 600, interval=0.05, what="download")
    return time.monotonic() - start


def run_qbtd(tmp, seeder):
    q = Qbtd(tmp / "qbtd-data")
    q.data_dir.mkdir()
    q.start()
    try:
        s = q.session()
        seconds = timed_download(q.base, s, seeder, lambda: s.post(
            q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}))
        seeder.verify(q.data_dir / "downloads")
        return seconds
    finally:
        q.stop()


def run_qbittorrent_nox(tmp, seeder):
    nox = shutil.which("qbittorrent-nox")
    if not nox:
        return None
    profile = tmp / "nox"
    conf = profile / "qBittorrent" / "config"
    conf.mkdir(parents=True)
    web_port = free_port()
    save = tmp / "nox-downloads"
    (conf / "qBittorrent.conf").write_text(QBT_CONF.format(peer_port=free_port(), web_port=web_port, save=save))
    log = open(tmp / "nox.log", "wb")
    proc = subprocess.Popen([nox, f"--profile={profile}"], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{web_port}"
    try:
        wait_for(lambda: _up(base), 60, what="qbittorrent-nox to listen")
        s = requests.Session()
        s.post(base + "/api/v2/auth/login", data={"username": "admin", "password": "adminadmin"})
        seconds = timed_download(base, s, seeder, lambda: s.post(
            base + "/api/v2/torrents/add", files={"torrents": ("t.torrent", seeder.torrent)},
            data={"savepath": str(save)}))
        seeder.verify(save)
        return seconds
    finally:
        proc.terminate()
        proc.wait(30)


def _up(base):
    try:
        return requests.get(base + "/api/v2/app/version", timeout=1).status_code in (200, 403)
    except requests.RequestException:
        return False


def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    sizes = [mib * 1024 * 1024 // 2, mib * 1024 * 1024 // 4, mib * 1024 * 1024 // 4]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        seeder = Seeder(tmp / "seed", sizes, piece_size=1024 * 1024)
        ours = run_qbtd(tmp, seeder)
        theirs = run_qbittorrent_nox(tmp, seeder)
        print(f"loopback download of {mib} MiB (3 files, TCP, 1 seeder)")
        print(f"  qbtd             {ours:6.2f} s  {mib / ours:7.1f} MiB/s")
        if theirs is None:
            print("  qbittorrent-nox  not installed (apt-get install qbittorrent-nox)")
        else:
            print(f"  qbittorrent-nox  {theirs:6.2f} s  {mib / theirs:7.1f} MiB/s")
            print(f"  ratio qbtd / qbittorrent-nox time: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
