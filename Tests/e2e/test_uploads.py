"""Acceptance for uploads: multipart streamed to disk and tus, in constant memory, with a free-space preflight, resumable
across SIGKILL (tuspy), hostile names and requests, and uploads turned into torrents that a loopback peer downloads."""
import base64
import hashlib
import os
import subprocess
import threading
import time
from pathlib import Path

import libtorrent as lt
import pytest
import requests
from tusclient import client as tus_client
from tusclient.storage import filestorage

from conftest import Qbtd, free_port, loopback_session, sha256, vm, wait_for

TUS = {"Tus-Resumable": "1.0.0"}


def auth(q):
    return ("admin", q.password)


class RssSampler:
    """Samples qbtd's resident memory every 20 ms while an upload runs."""

    def __init__(self, pid):
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            self.peak = max(self.peak, vm(self.pid, "VmRSS"))
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


def leftovers(root):
    return [p for p in Path(root).rglob("*") if p.name.startswith(".qbtd-")]


def test_4gib_multipart_and_tus_in_constant_memory(qbtd_factory, tmp_path):
    q = qbtd_factory()
    uploads = q.data_dir / "uploads"
    big = tmp_path / "big.bin"
    size = 4 << 30
    # Sparse: the 4 GiB cost no disk on the client's side; qbtd writes every byte.
    with open(big, "wb") as f:
        f.truncate(size)
        f.seek(size // 2)
        f.write(b"a marker in the middle")
    expected = sha256(big)
    pid = q.proc.pid
    requests.get(q.url("app/version"), auth=auth(q))  # warm up the server's paths once
    time.sleep(0.5)
    idle_rss, idle_hwm = vm(pid, "VmRSS"), vm(pid, "VmHWM")

    sampler = RssSampler(pid)
    out = subprocess.run(["curl", "-s", "-u", f"admin:{q.password}", "-F", f"file=@{big};filename=big.bin",
                          "-w", "\n%{http_code}", q.url("uploads")], capture_output=True, text=True, timeout=900)
    peak = sampler.stop()
    body, status = out.stdout.rsplit("\n", 1)
    assert status == "201", out.stdout + out.stderr
    stored = requests.models.complexjson.loads(body)
    assert stored == [{"name": "big.bin", "size": size, "sha256": expected, "path": str(uploads / "big.bin")}]
    assert sha256(uploads / "big.bin") == expected
    growth = max(peak - idle_rss, vm(pid, "VmHWM") - idle_hwm)
    print(f"multipart 4 GiB: idle RSS {idle_rss >> 20} MiB, peak {peak >> 20} MiB, growth {growth >> 20} MiB")
    assert growth < 32 << 20
    (uploads / "big.bin").unlink()

    # The same through tus: one PATCH streaming the whole file.
    r = requests.post(q.url("tus/"), auth=auth(q), headers={**TUS, "Upload-Length": str(size),
                                                          "Upload-Metadata": "filename " + base64.b64encode(b"tus.bin").decode()})
    assert r.status_code == 201, r.text
    location = q.base + r.headers["Location"]
    sampler = RssSampler(pid)
    out = subprocess.run(["curl", "-s", "-u", f"admin:{q.password}", "-X", "PATCH", "-T", str(big), "-H", "Tus-Resumable: 1.0.0",
                          "-H", "Upload-Offset: 0", "-H", "Content-Type: application/offset+octet-stream",
                          "-H", "Expect:", "-w", "%{http_code}", "-o", "/dev/null", location],
                         capture_output=True, text=True, timeout=900)
    peak = sampler.stop()
    assert out.stdout == "204", out.stdout + out.stderr
    head = requests.head(location, auth=auth(q), headers=TUS)
    assert head.headers["Upload-Offset"] == str(size) and head.headers["Qbtd-Upload-Path"] == str(uploads / "tus.bin")
    assert sha256(uploads / "tus.bin") == expected
    growth = max(peak - idle_rss, vm(pid, "VmHWM") - idle_hwm)
    print(f"tus 4 GiB: peak {peak >> 20} MiB, growth {growth >> 20} MiB")
    assert growth < 32 << 20
    assert not leftovers(uploads)


@pytest.fixture
def small_fs(tmp_path):
    """A 64 MiB tmpfs made for the test."""
    mount = tmp_path / "small"
    mount.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], capture_output=True, text=True)
    assert p.returncode == 0, f"mounting a tmpfs needs root: {p.stderr}"
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_preflight_and_full_disk_leave_nothing(qbtd_factory, small_fs, tmp_path):
    q = qbtd_factory(extra=["--uploads-dir", str(small_fs / "uploads"), "--upload-margin", "8"])
    uploads = small_fs / "uploads"
    big = tmp_path / "60m.bin"
    big.write_bytes(os.urandom(60 << 20))
    used_before = os.statvfs(small_fs)
    # Content-Length says 60 MiB: 64 MiB minus the 8 MiB margin is too little, refused before the body is read.
    t0 = time.monotonic()
    r = requests.post(q.url("uploads"), auth=auth(q), files={"file": ("60m.bin", open(big, "rb"))})
    assert r.status_code == 507 and "free space" in r.json()["error"], r.text
    assert time.monotonic() - t0 < 10
    assert os.statvfs(small_fs).f_bfree == used_before.f_bfree and not [p for p in uploads.rglob("*") if p.is_file()]
    # tus creation checks the same.
    r = requests.post(q.url("tus/"), auth=auth(q), headers={**TUS, "Upload-Length": str(60 << 20)})
    assert r.status_code == 507, r.text

    # A chunked body carries no length: it is stopped when free space runs low, and nothing of it stays.
    def chunks():
        block = os.urandom(1 << 20)
        for _ in range(100):
            yield block

    r = requests.post(q.url("uploads"), auth=auth(q), data=chunks(),
                      headers={"Content-Type": "multipart/form-data; boundary=xx"}, params={})
    assert r.status_code == 400  # no boundary line at all: refused as malformed, nothing written
    boundary = "qbtdtest"

    def form():
        yield f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"fill.bin\"\r\n\r\n".encode()
        block = os.urandom(1 << 20)
        for _ in range(100):
            yield block
        yield f"\r\n--{boundary}--\r\n".encode()

    try:
        r = requests.post(q.url("uploads"), auth=auth(q), data=form(),
                          headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert r.status_code == 507, r.text
    except requests.ConnectionError:
        assert q.proc.poll() is None, "qbtd died during the upload"  # it may close the connection after answering
    wait_for(lambda: not leftovers(uploads) and not list(uploads.rglob("fill*")), 10, what="no partial files")
    assert os.statvfs(small_fs).f_bavail * os.statvfs(small_fs).f_frsize > 56 << 20
    # Still works for what fits.
    r = requests.post(q.url("uploads"), auth=auth(q), files={"file": ("ok.bin", b"x" * 1000)})
    assert r.status_code == 201 and r.json()[0]["path"] == str(uploads / "ok.bin")


def test_tuspy_resumes_after_sigkill_and_checksums_and_expiry(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    q = Qbtd(data, extra=["--upload-expiry", "3"]).start()
    try:
        key = q.session().post(q.url("app/rotateAPIKey")).json()["apiKey"]
        headers = {"Authorization": f"Bearer {key}"}
        source = tmp_path / "movie.bin"
        source.write_bytes(os.urandom(96 << 20))
        storage = filestorage.FileStorage(str(tmp_path / "tus-urls.json"))

        def uploader():
            client = tus_client.TusClient(q.url("tus/"), headers=headers)
            return client.uploader(str(source), chunk_size=4 << 20, store_url=True, url_storage=storage,
                                   metadata={"filename": "movie.bin"})

        first = uploader()
        failure = []

        def run():
            try:
                first.upload()
            except Exception as e:  # the server is killed under it
                failure.append(e)

        def slow_form():  # a multipart upload under way when the server dies: its temp file must not outlive it
            yield b'--k\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n'
            for _ in range(600):
                yield b"x" * (64 << 10)
                time.sleep(0.05)

        def run_multipart():
            try:
                requests.post(q.url("uploads"), headers={**headers, "Content-Type": "multipart/form-data; boundary=k"},
                              data=slow_form(), timeout=60)
            except requests.RequestException:
                pass

        thread = threading.Thread(target=run)
        thread.start()
        cut = threading.Thread(target=run_multipart)
        cut.start()
        wait_for(lambda: first.offset >= 40 << 20, 60, interval=0.01, what="40 MiB acknowledged")
        acknowledged = first.offset
        wait_for(lambda: list((data / "uploads").glob(".qbtd-upload-*.part")), 30, what="the multipart temp file")
        q.kill()
        thread.join(60)
        cut.join(60)
        assert failure, "the upload should have failed when the server died"
        acknowledged = max(acknowledged, first.offset)

        q = Qbtd(data, port=q.port, extra=["--upload-expiry", "3"]).start()
        assert not list((data / "uploads").glob(".qbtd-upload-*.part"))  # removed at the start
        second = uploader()
        assert second.url == first.url  # found in the storage: the same upload
        assert second.offset >= acknowledged, (second.offset, acknowledged)  # nothing acknowledged was lost
        second.upload()
        landed = data / "uploads" / "movie.bin"
        assert sha256(landed) == sha256(source)

        # A bad checksum: 460, the chunk discarded, the offset unchanged.
        r = requests.post(q.url("tus/"), headers={**headers, **TUS, "Upload-Length": "10"})
        url = q.base + r.headers["Location"]
        bad = base64.b64encode(hashlib.sha1(b"other").digest()).decode()
        r = requests.patch(url, data=b"hello", headers={**headers, **TUS, "Upload-Offset": "0",
                                                        "Content-Type": "application/offset+octet-stream",
                                                        "Upload-Checksum": f"sha1 {bad}"})
        assert r.status_code == 460, r.text
        assert requests.head(url, headers={**headers, **TUS}).headers["Upload-Offset"] == "0"
        good = base64.b64encode(hashlib.sha256(b"hello").digest()).decode()
        r = requests.patch(url, data=b"hello", headers={**headers, **TUS, "Upload-Offset": "0",
                                                        "Content-Type": "application/offset+octet-stream",
                                                        "Upload-Checksum": f"sha256 {good}"})
        assert r.status_code == 204 and r.headers["Upload-Offset"] == "5"
        r = requests.patch(url, data=b"x", headers={**headers, **TUS, "Upload-Offset": "5", "Upload-Checksum": "crc32 AAAA",
                                                    "Content-Type": "application/offset+octet-stream"})
        assert r.status_code == 400

        # Expired: gone, with its data file.
        part = list((data / "uploads").glob(".qbtd-tus-*.part"))
        assert part
        wait_for(lambda: requests.head(url, headers={**headers, **TUS}).status_code == 404, 15, what="the upload expired")
        assert not list((data / "uploads").glob(".qbtd-tus-*.part"))
    finally:
        q.stop()


def test_hostile_names_and_requests(qbtd_factory, tmp_path):
    q = qbtd_factory(extra=["--allowed-paths", str(tmp_path / "media")])
    uploads = q.data_dir / "uploads"
    outside = tmp_path / "outside"
    outside.mkdir()
    (uploads / "escape").symlink_to(outside)
    a = auth(q)

    def multipart(filename_bytes, content=b"data", path=None):
        b = b"hostile"
        body = b""
        if path is not None:
            body += b"--" + b + b'\r\nContent-Disposition: form-data; name="path"\r\n\r\n' + path.encode() + b"\r\n"
        body += (b"--" + b + b'\r\nContent-Disposition: form-data; name="file"; filename="' + filename_bytes + b'"\r\n\r\n'
                 + content + b"\r\n--" + b + b"--\r\n")
        return requests.post(q.url("uploads"), auth=a, data=body, headers={"Content-Type": "multipart/form-data; boundary=hostile"})

    for name, word in ((b"../../etc/passwd", ".."), (b"/etc/passwd", "absolute"), (b"a\x00b", "control"),
                       (b"x" * 300, "too long"), (b"a\x07b", "control"), (b"..", "..")):
        r = multipart(name)
        assert r.status_code == 400 and word in r.json()["error"], (name, r.text)
    for path in ("/etc", "../../..", "escape", "escape/deeper"):
        r = multipart(b"f.txt", path=path)
        assert r.status_code == 409 and "outside" in r.json()["error"], (path, r.text)
    # Sub-folders in a file name go through the same symlink: refused, nothing made outside.
    for name in (b"escape/f.txt", b"escape/new/f.txt"):
        r = multipart(name)
        assert r.status_code == 400 and "outside" in r.json()["error"], (name, r.text)
    r = requests.post(q.url("tus/"), auth=a, headers={**TUS, "Upload-Length": "3",
                                                      "Upload-Metadata": "filename " + base64.b64encode(b"escape/t.txt").decode()})
    refused = q.base + r.headers["Location"]
    r = requests.patch(refused, auth=a, data=b"abc",
                       headers={**TUS, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})
    assert r.status_code == 400 and "outside" in r.json()["error"], r.text
    assert not list(outside.iterdir())
    assert requests.delete(refused, auth=a, headers=TUS).status_code == 204
    # Destination fields must come before the files they steer.
    body = (b'--h\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\nx\r\n'
            b'--h\r\nContent-Disposition: form-data; name="path"\r\n\r\n/tmp\r\n--h--\r\n')
    r = requests.post(q.url("uploads"), auth=a, data=body, headers={"Content-Type": "multipart/form-data; boundary=h"})
    assert r.status_code == 400 and "before" in r.json()["error"]
    r = requests.post(q.url("uploads"), auth=a, data=b"x", headers={"Content-Type": "multipart/form-data"})
    assert r.status_code == 400 and "boundary" in r.json()["error"]
    r = multipart(b"cut.bin", content=b"y" * 100000)
    assert r.status_code == 201
    truncated = (b'--t\r\nContent-Disposition: form-data; name="file"; filename="t.bin"\r\n\r\n' + b"z" * 100000)
    r = requests.post(q.url("uploads"), auth=a, data=truncated, headers={"Content-Type": "multipart/form-data; boundary=t"})
    assert r.status_code == 400 and "ended before" in r.json()["error"]
    assert not (uploads / "t.bin").exists()
    r = requests.post(q.url("uploads"), files={"file": ("a", b"b")})
    assert r.status_code == 403
    # A name that exists gets a number, unless overwrite=true.
    assert multipart(b"cut.bin").json()[0]["name"] == "cut (1).bin"
    r = requests.post(q.url("uploads"), auth=a, params={"overwrite": "true"}, files={"file": ("cut.bin", b"new")})
    assert r.json()[0]["name"] == "cut.bin" and (uploads / "cut.bin").read_bytes() == b"new"
    # Into a category's save path.
    s = q.session()
    s.post(q.url("torrents/createCategory"), data={"category": "music", "savePath": "music"})
    r = requests.post(q.url("uploads"), auth=a, data={"category": "music"}, files={"file": ("song.mp3", b"id3")})
    assert r.status_code == 201 and r.json()[0]["path"] == str(q.data_dir / "downloads" / "music" / "song.mp3")

    # tus: protocol errors.
    r = requests.post(q.url("tus/"), auth=a, headers={"Upload-Length": "5"})
    assert r.status_code == 412 and r.headers["Tus-Version"] == "1.0.0"
    r = requests.post(q.url("tus/"), auth=a, headers={**TUS})
    assert r.status_code == 400
    r = requests.post(q.url("tus/"), auth=a, headers={**TUS, "Upload-Length": "5",
                                                      "Upload-Metadata": "filename " + base64.b64encode(b"../x").decode()})
    assert r.status_code == 400 and ".." in r.json()["error"]
    r = requests.post(q.url("tus/"), auth=a, headers={**TUS, "Upload-Length": "5"})
    url = q.base + r.headers["Location"]
    patch = {**TUS, "Content-Type": "application/offset+octet-stream"}
    assert requests.patch(url, auth=a, data=b"abc", headers={**patch, "Upload-Offset": "2"}).status_code == 409
    assert requests.patch(url, auth=a, data=b"abc", headers={**TUS, "Upload-Offset": "0"}).status_code == 415
    assert requests.patch(url, auth=a, data=b"abcdefgh", headers={**patch, "Upload-Offset": "0"}).status_code == 413
    assert requests.head(url, auth=a, headers=TUS).headers["Upload-Offset"] == "0"
    assert requests.head(q.url("tus/0123456789abcdef"), auth=a, headers=TUS).status_code == 404
    assert requests.patch(q.url("tus/nope"), auth=a, data=b"x", headers={**patch, "Upload-Offset": "0"}).status_code == 404
    assert requests.delete(url, auth=a, headers=TUS).status_code == 204
    assert requests.head(url, auth=a, headers=TUS).status_code == 404
    assert requests.head(url, headers=TUS).status_code == 403
    opts = requests.options(q.url("tus/"))
    assert opts.status_code == 204 and "checksum" in opts.headers["Tus-Extension"]

    # Deferred length and concatenation.
    r = requests.post(q.url("tus/"), auth=a, headers={**TUS, "Upload-Defer-Length": "1"})
    durl = q.base + r.headers["Location"]
    assert requests.head(durl, auth=a, headers=TUS).headers["Upload-Defer-Length"] == "1"
    r = requests.patch(durl, auth=a, data=b"12345", headers={**patch, "Upload-Offset": "0", "Upload-Length": "5"})
    assert r.status_code == 204 and r.headers["Upload-Offset"] == "5"
    parts = []
    for chunk in (b"first-", b"second"):
        r = requests.post(q.url("tus/"), auth=a, headers={**TUS, "Upload-Length": str(len(chunk)), "Upload-Concat": "partial"})
        parts.append(r.headers["Location"])
        requests.patch(q.base + parts[-1], auth=a, data=chunk, headers={**patch, "Upload-Offset": "0"})
    r = requests.post(q.url("tus/"), auth=a, headers={**TUS, "Upload-Concat": "final;" + " ".join(parts),
                                                      "Upload-Metadata": "filename " + base64.b64encode(b"joined.txt").decode()})
    assert r.status_code == 201, r.text
    assert (uploads / "joined.txt").read_bytes() == b"first-second"
    for part in parts:  # partial uploads stay until terminated or expired
        assert requests.delete(q.base + part, auth=a, headers=TUS).status_code == 204

    assert list(outside.iterdir()) == [] and not leftovers(uploads)


def test_uploaded_folder_becomes_a_torrent_a_peer_downloads(qbtd_factory, tmp_path):
    q = qbtd_factory()
    a = auth(q)
    files = {"album/one.bin": os.urandom(700_000), "album/disc 2/two.bin": os.urandom(1_300_000), "album/notes.txt": b"hi"}
    r = requests.post(q.url("uploads"), auth=a, files=[("file", (name, data)) for name, data in files.items()])
    assert r.status_code == 201, r.text
    folder = q.data_dir / "uploads" / "album"
    s = q.session()
    task = s.post(q.url("torrentcreator/addTask"), data={"sourcePath": str(folder), "startSeeding": "true",
                                                         "comment": "made by qbtd"}).json()["taskID"]
    wait_for(lambda: s.get(q.url("torrentcreator/status"), params={"taskID": task}).json()[0]["status"] == "Finished",
             60, what="torrent created")
    status = s.get(q.url("torrentcreator/status"), params={"taskID": task}).json()[0]
    assert status["comment"] == "made by qbtd" and status["pieceSize"] > 0 and status["format"] == "hybrid"
    r = s.get(q.url("torrentcreator/torrentFile"), params={"taskID": task})
    assert r.headers["Content-Type"] == "application/x-bittorrent"
    info = lt.torrent_info(lt.bdecode(r.content))
    assert s.get(q.url("torrentcreator/torrentFile"), params={"taskID": "nope"}).status_code == 404
    h = str(info.info_hashes().get_best())
    wait_for(lambda: [t for t in s.get(q.url("torrents/info")).json() if t["hash"] == h and t["progress"] == 1], 30,
             what="seeding the new torrent")
    port = s.get(q.url("app/preferences")).json()["listen_port"]

    session = loopback_session(free_port())
    params = lt.add_torrent_params()
    params.ti = info
    params.save_path = str(tmp_path / "peer")
    handle = session.add_torrent(params)
    handle.connect_peer(("127.0.0.1", port))
    wait_for(lambda: handle.status().is_seeding, 60, what="the peer downloads it")
    for name, data in files.items():
        assert (tmp_path / "peer" / name).read_bytes() == data, name
    assert s.post(q.url("torrentcreator/deleteTask"), data={"taskID": task}).status_code == 200
    assert s.get(q.url("torrentcreator/status"), params={"taskID": task}).status_code == 404
