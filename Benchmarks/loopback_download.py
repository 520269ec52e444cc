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
defaults (uTP first). A third transport, `utp-4m`, is uTP again with the bare session given
`recv_socket_buffer_size` 4 MiB: qbtd's libtorrent asks that of its UDP socket by itself
(contrib/libtorrent/udp-receive-buffer.patch), so the `utp` row measures that patch against libtorrent's default
buffer, and `utp-4m` what qbtd costs over an engine with the same buffer.
Beside them, in the same rounds, `bare_session` (Benchmarks/bare_session.cpp, compiled here against qbtd's own
libtorrent, 2.0.11 with contrib/libtorrent's patches, from `make libtorrent`): the same engine without qbtd, so
qbtd / same engine is what qbtd alone costs, and bare 2.0.8 / same engine what the engine's version and patches do.
Before the rounds of a size, one untimed bare download over TCP: the first download from a new seeder is about half
as slow again, whoever makes it. Both are polled every 20 ms in the first second and past 90 % of the torrent,
every 100 ms between (see POLL_NEAR); bare_session polls itself every 20 ms throughout (an in-process status
read), and, on qbtd's libtorrent, has the 4 MiB UDP buffer in the `utp` row too. libtorrent checks every piece's hash as it lands (progress 1 means every piece passed);
up to 1 GiB the files are compared with the seed's too. Prints each round, the medians and the ratio of rates
qbtd / bare per size and transport (the issue's target: >= 0.95). Everything stays on 127.0.0.1.

    loopback_download.py [MiB ...] (default 256); ROUNDS=n (default 3), TRANSPORTS=tcp,utp,utp-4m, NOX=0 to skip
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
from conftest import Qbtd, Seeder, free_port, speak_only, wait_for  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "3"))
TRANSPORTS = os.environ.get("TRANSPORTS", "tcp,utp,utp-4m").split(",")
WIDE_UDP = 4 << 20  # utp-4m: the bare session's recv_socket_buffer_size
# Downloaders are polled every POLL_NEAR s in their first second and once past NEAR of the torrent, every POLL_FAR s
# between: polling every 20 ms throughout (50 WebAPI requests a second from the seeder's process) took CPU from the
# transfer on 2 cores, qbtd's rounds more than the bare session's in-process reads (4 GiB over TCP: 12.3 s against
# 8.9 s at 100 ms).
POLL_NEAR, POLL_FAR, NEAR = 0.02, 0.1, 0.9
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


def until_done(progress, what, timeout=1800):
    """Returns once `progress()` is 1, polling as POLL_NEAR, POLL_FAR and NEAR say (bounded by `timeout`)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        now = progress() or 0
        if now == 1:
            return
        time.sleep(POLL_NEAR if now >= NEAR or time.monotonic() - start < 1 else POLL_FAR)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def timed_webapi(base, session, seeder, add):
    r = add()
    assert r.text in ("Ok.", ""), r.text
    wait_for(lambda: session.get(base + "/api/v2/torrents/info", params={"hashes": seeder.id}).json(), 30,
             what="torrent to appear")
    start = time.monotonic()
    session.post(base + "/api/v2/torrents/addPeers", data={"hashes": seeder.id, "peers": seeder.peer})

    def progress():
        items = session.get(base + "/api/v2/torrents/info", params={"hashes": seeder.id}).json()
        return items[0]["progress"] if items else 0

    until_done(progress, "download")
    return time.monotonic() - start


def run_qbtd(tmp, seeder, verify, transport):
    data = tmp / "qbtd-data"
    data.mkdir()
    q = Qbtd(data, utp=transport != "tcp", resume_interval=None, extra=QBTD_EXTRA)
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
                          "enable_upnp": False, "enable_natpmp": False, "enable_outgoing_utp": transport != "tcp",
                          **({"recv_socket_buffer_size": WIDE_UDP} if transport == "utp-4m" else {})})
    try:
        params = lt.add_torrent_params()
        params.ti = lt.torrent_info(lt.bdecode(seeder.torrent))
        params.save_path = str(save)
        params.peers = [("127.0.0.1", seeder.port)]
        start = time.monotonic()
        handle = session.add_torrent(params)
        until_done(lambda: handle.status().progress, "bare download")
        seconds = time.monotonic() - start
        if verify:
            seeder.verify(save)
        return seconds
    finally:
        session.pause()
        del session
        shutil.rmtree(save, ignore_errors=True)


REPO = Path(__file__).resolve().parents[1]
LIBTORRENT = REPO / ".build-libtorrent"  # `make libtorrent`: qbtd's libtorrent, headers and static library


def build_same_engine(tmp):
    """bare_session.cpp compiled against qbtd's own libtorrent (2.0.11 with its patches); None when that is not built."""
    library = LIBTORRENT / "lib" / "libtorrent-qbtd.a"
    if not library.exists():
        return None
    binary = tmp / "bare_session"
    subprocess.run(["g++", "-O2", "-std=c++17", "-pthread", "-w", "-DNDEBUG", "-D_FILE_OFFSET_BITS=64",
                    "-DBOOST_EXCEPTION_DISABLE", "-DBOOST_ASIO_HAS_STD_CHRONO", "-DBOOST_ASIO_ENABLE_CANCELIO",
                    "-DBOOST_ASIO_NO_DEPRECATED", "-DTORRENT_USE_OPENSSL", "-DTORRENT_USE_LIBCRYPTO", "-DTORRENT_SSL_PEERS",
                    "-DOPENSSL_NO_SSL2", "-DBOOST_ALL_NO_LIB", f"-I{LIBTORRENT / 'include'}",
                    str(REPO / "Benchmarks" / "bare_session.cpp"), str(library), "-lssl", "-lcrypto", "-o", str(binary)],
                   check=True)
    return binary


def run_same_engine(tmp, seeder, verify, transport, binary):
    """bare_session: qbtd's libtorrent without qbtd (its own timing, add to the last piece checked)."""
    save = tmp / "same-engine"
    save.mkdir()
    torrent = tmp / "same-engine.torrent"
    torrent.write_bytes(seeder.torrent)
    try:
        done = subprocess.run([str(binary), str(torrent), str(save), str(seeder.port), transport], capture_output=True,
                              text=True, timeout=1900)
        assert done.returncode == 0, done.stderr
        if verify:
            seeder.verify(save)
        return float(done.stdout)
    finally:
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
        same_engine = build_same_engine(tmp)
        for mib in sizes_mib:
            total = mib * 1024 * 1024
            sizes = [total // 2, total // 4, total - total // 2 - total // 4]
            sparse = total > SPARSE_ABOVE
            print(f"{mib} MiB: making the seeder ({'sparse' if sparse else 'random'} files) ...", flush=True)
            root = tmp / f"seed{mib}"
            seeder = SparseSeeder(root, sizes, 1 << 20) if sparse else Seeder(root, sizes, piece_size=1 << 20)
            # Whoever downloads first from a new seeder takes about half as long again (4 GiB: 17-20 s against 11-14 s,
            # qbtd or the bare session alike): the seeder's first upload maps and reads its files. An untimed bare
            # download first, so no round pays it.
            speak_only(seeder.session, "tcp")
            warm = run_bare(tmp, seeder, False, "tcp")
            print(f"  warm-up (untimed): bare libtorrent over TCP {warm:.2f} s", flush=True)
            for transport in TRANSPORTS:
                speak_only(seeder.session, "tcp" if transport == "tcp" else "utp")
                ours, bare, same = [], [], []
                for n in range(ROUNDS):
                    ours.append(run_qbtd(tmp, seeder, not sparse, transport))
                    bare.append(run_bare(tmp, seeder, not sparse, transport))
                    if same_engine:
                        same.append(run_same_engine(tmp, seeder, not sparse, transport, same_engine))
                    print(f"  {transport} round {n + 1}: qbtd {ours[-1]:.2f} s, bare libtorrent {bare[-1]:.2f} s" +
                          (f", bare qbtd-libtorrent {same[-1]:.2f} s" if same else ""), flush=True)
                rows.append((mib, transport, ours, bare, same))
            if nox is None and os.environ.get("NOX", "1") != "0" and not sparse:
                speak_only(seeder.session, "tcp")
                ours_tcp = [r[2] for r in rows if r[0] == mib and r[1] == "tcp"]
                nox = (mib, run_qbittorrent_nox(tmp, seeder), statistics.median(ours_tcp[0]) if ours_tcp else None)
            seeder.session.pause()
            del seeder
            shutil.rmtree(root, ignore_errors=True)

    print(f"\nloopback download, 3 files in 1 MiB pieces, 1 seeder, {ROUNDS} alternating rounds (medians; every round above)\n")
    print("| size | transport | qbtd | bare libtorrent 2.0.8 (python) | qbtd / bare (rate) | bare qbtd-libtorrent 2.0.11 "
          "| qbtd / same engine (rate) |\n|---|---|---:|---:|---:|---:|---:|")
    for mib, transport, ours, bare, same in rows:
        o, b = statistics.median(ours), statistics.median(bare)
        s = statistics.median(same) if same else None
        print(f"| {mib} MiB | {transport} | {o:.2f} s ({mib / o:,.0f} MiB/s) | {b:.2f} s ({mib / b:,.0f} MiB/s) | x{b / o:.2f} | " +
              (f"{s:.2f} s ({mib / s:,.0f} MiB/s) | x{s / o:.2f} |" if s else "not built (make libtorrent) | |"))
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
