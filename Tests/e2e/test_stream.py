"""Stream playback: a file of a torrent played while it downloads, through plain HTTP with Range support."""
import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import libtorrent as lt
import pytest
import requests

from conftest import free_port, seed, wait_for


class FileSeeder:
    """A python-libtorrent session on 127.0.0.1 seeding one folder, throttled."""

    def __init__(self, root, name, files, piece_size=512 * 1024, upload_limit=0):
        root = Path(root)
        for rel, data in files.items():
            path = root / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        fs = lt.file_storage()
        lt.add_files(fs, str(root / name))
        ct = lt.create_torrent(fs, piece_size)
        lt.set_piece_hashes(ct, str(root))
        self.torrent = lt.bencode(ct.generate())
        self.info = lt.torrent_info(lt.bdecode(self.torrent))
        self.port = free_port()
        self.session, self.handle = seed(self.info, root, self.port)
        if upload_limit:
            self.handle.set_upload_limit(upload_limit)
        # The magnet names the seeder itself (x.pe), so no tracker is needed.
        self.magnet = lt.make_magnet_uri(self.info) + f"&x.pe=127.0.0.1:{self.port}"


def prepare(s, q, **data):
    files = data.pop("files", None)
    r = s.post(q.url("stream/prepare"), data=data, files=files, timeout=90)
    return r


def test_random_ranges_match_while_downloading(qbtd_factory, tmp_path):
    payload = os.urandom(24 * 1024 * 1024 + 12345)
    seeder = FileSeeder(tmp_path / "seed", "movie", {"movie.mkv": payload, "notes.txt": b"n" * 1000},
                        upload_limit=4 * 1024 * 1024)
    q = qbtd_factory()
    s = q.session()
    assert requests.post(q.url("stream/prepare"), data={"magnetUri": seeder.magnet}).status_code == 403
    r = prepare(s, q, magnetUri=seeder.magnet, streamTitle="A movie", networkMbps="50")
    assert r.status_code == 200, r.text
    stream = r.json()
    assert stream["fileName"] == "movie.mkv" and stream["fileSize"] == len(payload)  # the largest playable file
    assert stream["mimeType"] == "video/x-matroska" and stream["infoHash"] == str(seeder.info.info_hashes().get_best())
    url = stream["playbackUrl"]
    assert url.startswith(q.base + "/stream/")

    head = requests.head(url, timeout=30)
    assert head.status_code == 200 and head.headers["Accept-Ranges"] == "bytes"
    assert int(head.headers["Content-Length"]) == len(payload) and head.headers["ETag"]

    rng = random.Random(7)
    size = len(payload)
    started = time.monotonic()
    for i in range(50):
        kind = i % 5
        if kind == 0:  # suffix
            n = rng.randrange(1, 300_000)
            header, want = f"bytes=-{n}", payload[-n:]
        elif kind == 1:  # open-ended: read the first 64 KiB of it, then hang up
            a = rng.randrange(0, size - 1)
            header, want = f"bytes={a}-", payload[a:a + 65536]
        else:
            a = rng.randrange(0, size - 1)
            b = min(size - 1, a + rng.randrange(0, 400_000))
            header, want = f"bytes={a}-{b}", payload[a:b + 1]
        with requests.get(url, headers={"Range": header}, stream=True, timeout=60) as r:
            assert r.status_code == 206, (header, r.status_code)
            first = int(r.headers["Content-Range"].split(" ")[1].split("-")[0])
            assert r.headers["Content-Range"].endswith(f"/{size}")
            got = b""
            for block in r.iter_content(65536):
                got += block
                if len(got) >= len(want):
                    break
            if got[:len(want)] != want:
                at = next(i for i in range(min(len(got), len(want))) if got[i] != want[i]) if got and got[:len(want)] != want[:len(got)] else min(len(got), len(want))
                raise AssertionError(f"range {header} (from {first}) differs at +{at} (file offset {first + at}, piece "
                                     f"{(first + at) // (512 * 1024)}): got {len(got)} bytes, zeros there: "
                                     f"{got[at:at + 64] == bytes(len(got[at:at + 64]))}")
    elapsed = time.monotonic() - started
    listed = s.get(q.url("stream/list")).json()
    assert [x["streamId"] for x in listed] == [stream["streamId"]] and listed[0]["bufferedRanges"]
    print(f"50 ranges in {elapsed:.1f} s while downloading at 4 MiB/s")

    # If-Range with another validator: the whole file, 200.
    with requests.get(url, headers={"Range": "bytes=0-9", "If-Range": '"other"'}, stream=True, timeout=60) as r:
        assert r.status_code == 200
    # Past the end: 416 with the size.
    r = requests.get(url, headers={"Range": f"bytes={size}-"}, timeout=30)
    assert r.status_code == 416 and r.headers["Content-Range"] == f"bytes */{size}" and "error" in r.json()

    assert s.post(q.url("stream/stop"), data={"streamId": stream["streamId"]}).json() == {"stopped": stream["streamId"]}
    assert requests.get(url, timeout=30).status_code == 404
    wait_for(lambda: not (q.data_dir / "stream-cache" / stream["infoHash"]).exists(), 15, what="cache released")


def test_ffmpeg_plays_a_video_through_the_playback_url(qbtd_factory, tmp_path):
    if not shutil.which("ffmpeg"):
        pytest.skip("ffmpeg is not installed")
    video = tmp_path / "clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=20:size=320x240:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=20", "-c:v", "mpeg4", "-q:v", "5",
                    "-c:a", "aac", "-shortest", str(video)], check=True)
    seeder = FileSeeder(tmp_path / "seed", "clip", {"clip.mp4": video.read_bytes(), "cover.jpg": b"j" * 5000},
                        piece_size=256 * 1024, upload_limit=2 * 1024 * 1024)
    q = qbtd_factory()
    s = q.session()
    # The torrent file names no tracker: `peers` points the stream at the seeder.
    r = prepare(s, q, peers=f"127.0.0.1:{seeder.port}",
                files={"torrents": ("clip.torrent", seeder.torrent, "application/x-bittorrent")})
    assert r.status_code == 200, r.text
    url = r.json()["playbackUrl"]
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url],
                           capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    assert abs(float(probe.stdout.strip()) - 20) < 0.5
    for seek in (["-ss", "10"], ["-sseof", "-1"]):
        run = subprocess.run(["ffmpeg", "-v", "error", *seek, "-i", url, "-frames:v", "5", "-f", "null", "-"],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (seek, run.stderr)


def test_bad_input_and_stop_mid_read(qbtd_factory, tmp_path):
    payload = os.urandom(8 * 1024 * 1024)
    seeder = FileSeeder(tmp_path / "seed", "slow", {"a.bin": payload, "b.bin": b"b" * 100}, piece_size=256 * 1024,
                        upload_limit=256 * 1024)
    q = qbtd_factory(extra=["--stream-metadata-timeout", "2"])
    s = q.session()
    r = requests.get(q.base + "/stream/" + "0" * 32, timeout=30)
    assert r.status_code == 404 and "error" in r.json()
    r = prepare(s, q, magnetUri=seeder.magnet, fileIndex="7")
    assert r.status_code == 400 and "fileIndex 7 is out of range" in r.json()["error"]
    r = prepare(s, q, magnetUri="magnet:?xt=urn:btih:" + os.urandom(20).hex())
    assert r.status_code == 504 and "metadata did not arrive within 2 s" in r.json()["error"]
    assert prepare(s, q, magnetUri="http://not-a-magnet").status_code == 400
    assert prepare(s, q).status_code == 400
    assert s.post(q.url("stream/stop"), data={"streamId": "nope"}).status_code == 404

    stream = prepare(s, q, magnetUri=seeder.magnet, fileIndex="0").json()
    got = 0
    with requests.get(stream["playbackUrl"], stream=True, timeout=60) as r:
        assert r.status_code == 200
        started = None
        try:
            for block in r.iter_content(16384):
                got += len(block)
                if started is None and got >= 300_000:
                    started = time.monotonic()
                    assert s.post(q.url("stream/stopAll")).json() == {"stopped": 1}
        except requests.RequestException:
            pass  # a body cut short is the clean end a player sees
        assert started is not None and time.monotonic() - started < 10
    assert got < len(payload)
    assert s.get(q.url("stream/list")).json() == []


def disk_usage(path):
    """Bytes actually allocated under `path` (sparse files count only their blocks)."""
    total = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except FileNotFoundError:
                pass
    return total


def incoming_connections(session):
    """How many peer connections a python-libtorrent session has accepted so far."""
    session.post_session_stats()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        session.wait_for_alert(500)
        for alert in session.pop_alerts():
            if isinstance(alert, lt.session_stats_alert):
                return alert.values["peer.incoming_connections"]
    raise AssertionError("the seeder posted no session stats")


def test_cache_budget_holds_through_a_whole_read(qbtd_factory, tmp_path):
    piece = 256 * 1024
    payload = os.urandom(24 * 1024 * 1024)
    seeder = FileSeeder(tmp_path / "seed", "big", {"big.mkv": payload}, piece_size=piece, upload_limit=6 * 1024 * 1024)
    budget = 8 * 1024 * 1024
    q = qbtd_factory(extra=["--stream-cache-budget", "8"])
    s = q.session()
    stream = prepare(s, q, magnetUri=seeder.magnet).json()
    cache = q.data_dir / "stream-cache" / stream["infoHash"]
    peak = 0

    def read(first, last):
        nonlocal peak
        got = bytearray()
        with requests.get(stream["playbackUrl"], headers={"Range": f"bytes={first}-{last}"}, stream=True, timeout=60) as r:
            assert r.status_code == 206
            for block in r.iter_content(256 * 1024):
                got += block
                peak = max(peak, disk_usage(cache))
        return bytes(got)

    half = 16 * 1024 * 1024
    assert read(0, half - 1) == payload[:half]
    # A seek back into evicted data downloads it again, correctly; then the read goes on to the end.
    assert read(1000, 99999) == payload[1000:100000]
    assert read(half, len(payload) - 1) == payload[half:]
    connections = incoming_connections(seeder.session)
    print(f"peak cache use {peak / 2**20:.2f} MiB for a {len(payload) / 2**20:.0f} MiB file, budget 8 MiB; "
          f"the seeder accepted {connections} connection(s)")
    assert peak <= budget + piece, f"{peak} bytes on disk, budget {budget} + one piece {piece}"
    # Evicting (many times over: 24 MiB through an 8 MiB budget) forgets pieces in place: the torrent keeps its
    # connection to the seeder (one more is the slack for a call made while the first was being set up).
    assert connections <= 2, f"the seeder was called {connections} times"
