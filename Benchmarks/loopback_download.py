#!/usr/bin/env python3
"""Loopback download benchmark: one python-libtorrent seeder feeds qbtd and, in alternating rounds, a bare
python-libtorrent session with default settings (the engine alone: what qbtd costs on top of libtorrent), over TCP and
over uTP; then qbittorrent-nox over TCP once, as before.

For each size, the seeder (TCP alone or uTP alone, so each transport is what it says) seeds 3 files in 1 MiB pieces:
random bytes up to 1 GiB, sparse files (zeros the kernel never stores) above. Each round downloads into a fresh folder:
- qbtd: the .torrent added through the WebAPI (qbtd's defaults, resume data every 15 s), then `torrents/addPeers`
  names the seeder; timed from addPeers to `progress` 1 in `torrents/info`.
- bare: `add_torrent` with the seeder in `add_torrent_params.peers` (called at once) on a session with
  libtorrent's default settings but for the loopback address and no DHT, LSD, UPnP or NAT-PMP; timed from the
  add to `progress` 1 in its status.
Over TCP both downloaders run with uTP off (`--no-utp`, `enable_outgoing_utp` false): with it on, libtorrent calls a
peer over uTP first and falls back to TCP only after uTP's 3 s connect timeout. Over uTP both run with their
defaults (uTP first).
Both are polled every 20 ms. libtorrent checks every piece's hash as it lands (progress 1 means every piece passed);
up to 1 GiB the files are compared with the seed's too. Prints each round, the medians and the ratio of rates
qbtd / bare per size and transport (the issue's target: >= 0.95). Everything stays on 127.0.0.1.

    loopback_download.py [MiB ...] (default 256); ROUNDS=n (default 3), TRANSPORTS=tcp,utp, NOX=0 to skip
    qbittorrent-nox, QBTD_EXTRA (more qbtd arguments, for experiments) in the environment
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libtorrent as lt
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, Seeder, free_port, wait_for  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "3"))
TRANSPORTS = os.environ.get("TRANSPORTS", "tcp,utp").split(",")
POLL = 0.02
QBTD_EXTRA = os.environ.get("QBTD_EXTRA", "").split()
SPARSE_ABOVE = 1 << 30

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


class SparseSeeder(Seeder):
    """The conftest seeder's shape (3 files, the same folders) with sparse files: a 4 GiB torrent without writing
    4 GiB."""

    def __init__(self, root, sizes, piece_size):
        self.root = Path(root)
        content = self.root / "payload"
        content.mkdir(parents=True)
        self.hashes = {}  # not compared: libtorrent's piece hashes check every byte
        for i, size in enumerate(sizes):
            path = content / (f"dir{i % 2}" if i else "") / f"file{i}.bin"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as f:
                f.truncate(size)
        fs = lt.file_storage()
        lt.add_files(fs, str(content))
        ct = lt.create_torrent(fs, piece_size)
        lt.set_piece_hashes(ct, str(self.root))
        self.torrent = lt.bencode(ct.generate())
        self.info = lt.torrent_info(lt.bdecode(self.torrent))
        self.id = str(self.info.info_hashes().get_best())
        self.port = free_port()
        from conftest import seed
        self.session, self.handle = seed(self.info, self.root, self.port)
        wait_for(lambda: self.handle.status().is_seeding, 120, what="seeder ready")


def only(seeder, transport):
    """The seeder accepts `transport` alone."""
    utp = transport == "utp"
    seeder.session.apply_settings({"enable_incoming_utp": utp, "enable_outgoing_utp": utp,
                                   "enable_incoming_tcp": not utp, "enable_outgoing_tcp": not utp})


def timed_webapi(base, session, seeder, add):
    r = add()
    assert r.text in ("Ok.", ""), r.text
    wait_for(lambda: session.get(base + "/api/v2/torrents/info", params={"hashes": seeder.id}).json(), 30,
             what="torrent to appear")
    start = time.monotonic()
    session.post(base + "/api/v2/torrents/addPeers", data={"hashes": seeder.id, "peers": seeder.peer})

    def done():
        items = session.get(base + "/api/v2/torrents/info", params={"hashes": seeder.id}).json()
        return items and items[0]["progress"] == 1

    wait_for(done, 1800, interval=POLL, what="download")
    return time.monotonic() - start


def run_qbtd(tmp, seeder, verify, transport):
    data = tmp / "qbtd-data"
    data.mkdir()
    q = Qbtd(data, utp=transport == "utp", resume_interval=None, extra=QBTD_EXTRA)
    q.start()
    try:
        s = q.session()
        seconds = timed_webapi(q.base, s, seeder, lambda: s.post(
            q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}))
        if verify:
            seeder.verify(data / "downloads")
        return seconds
    finally:
        q.stop()
        shutil.rmtree(data, ignore_errors=True)


def run_bare(tmp, seeder, verify, transport):
    """A python-libtorrent session with libtorrent's defaults but for the loopback and no discovery."""
    save = tmp / "bare"
    save.mkdir()
    session = lt.session({"listen_interfaces": f"127.0.0.1:{free_port()}", "enable_dht": False, "enable_lsd": False,
                          "enable_upnp": False, "enable_natpmp": False, "enable_outgoing_utp": transport == "utp"})
    try:
        params = lt.add_torrent_params()
        params.ti = lt.torrent_info(lt.bdecode(seeder.torrent))
        params.save_path = str(save)
        params.peers = [("127.0.0.1", seeder.port)]
        start = time.monotonic()
        handle = session.add_torrent(params)
        wait_for(lambda: handle.status().progress == 1, 1800, interval=POLL, what="bare download")
        seconds = time.monotonic() - start
        if verify:
            seeder.verify(save)
        return seconds
    finally:
        session.pause()
        del session
        shutil.rmtree(save, ignore_errors=True)


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
        seconds = timed_webapi(base, s, seeder, lambda: s.post(
            base + "/api/v2/torrents/add", files={"torrents": ("t.torrent", seeder.torrent)},
            data={"savepath": str(save)}))
        seeder.verify(save)
        return seconds
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(save, ignore_errors=True)


def _up(base):
    try:
        return requests.get(base + "/api/v2/app/version", timeout=1).status_code in (200, 403)
    except requests.RequestException:
        return False


def main():
    sizes_mib = [int(a) for a in sys.argv[1:]] or [256]
    rows = []
    nox = None
    with tempfile.TemporaryDirectory(prefix="qbtd-download-bench-") as d:
        tmp = Path(d)
        for mib in sizes_mib:
            total = mib * 1024 * 1024
            sizes = [total // 2, total // 4, total - total // 2 - total // 4]
            sparse = total > SPARSE_ABOVE
            print(f"{mib} MiB: making the seeder ({'sparse' if sparse else 'random'} files) ...", flush=True)
            root = tmp / f"seed{mib}"
            seeder = SparseSeeder(root, sizes, 1 << 20) if sparse else Seeder(root, sizes, piece_size=1 << 20)
            for transport in TRANSPORTS:
                only(seeder, transport)
                ours, bare = [], []
                for n in range(ROUNDS):
                    ours.append(run_qbtd(tmp, seeder, not sparse, transport))
                    bare.append(run_bare(tmp, seeder, not sparse, transport))
                    print(f"  {transport} round {n + 1}: qbtd {ours[-1]:.2f} s, bare libtorrent {bare[-1]:.2f} s", flush=True)
                rows.append((mib, transport, ours, bare))
            if nox is None and os.environ.get("NOX", "1") != "0" and not sparse:
                only(seeder, "tcp")
                ours_tcp = [r[2] for r in rows if r[0] == mib and r[1] == "tcp"]
                nox = (mib, run_qbittorrent_nox(tmp, seeder), statistics.median(ours_tcp[0]) if ours_tcp else None)
            seeder.session.pause()
            del seeder
            shutil.rmtree(root, ignore_errors=True)

    print(f"\nloopback download, 3 files in 1 MiB pieces, 1 seeder, {ROUNDS} alternating rounds (medians; every round above)\n")
    print("| size | transport | qbtd | bare libtorrent | qbtd / bare (rate) |\n|---|---|---:|---:|---:|")
    for mib, transport, ours, bare in rows:
        o, b = statistics.median(ours), statistics.median(bare)
        print(f"| {mib} MiB | {transport} | {o:.2f} s ({mib / o:,.0f} MiB/s) | {b:.2f} s ({mib / b:,.0f} MiB/s) | x{b / o:.2f} |")
    if nox:
        mib, theirs, ours = nox
        if theirs is None:
            print("\nqbittorrent-nox: not installed (apt-get install qbittorrent-nox)")
        else:
            print(f"\nqbittorrent-nox over TCP, {mib} MiB: {theirs:.2f} s ({mib / theirs:,.0f} MiB/s)" +
                  (f"; qbtd / qbittorrent-nox time: {ours / theirs:.2f}" if ours else ""))
    print("\ntarget: qbtd / bare >= 0.95 over TCP and uTP")


if __name__ == "__main__":
    main()
