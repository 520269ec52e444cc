#!/usr/bin/env python3
"""HLS music benchmark: library scan rate for 2,000 generated tracks; playlist latency for a 1-hour track, cold (the
frame index built for the request) and warm; segments per second served to 16 concurrent transfers; against
`ffmpeg -c:a copy -f hls` segmenting the same 1-hour file in the same run, and nginx (sendfile on) serving ffmpeg's
segments to the same curl load: the most a server can give that client on this machine. The CPU each server and
curl spent per segment is printed too. qbtd cuts a segment on its first request and keeps it (CutSegments): one request
for each segment first, timed apart, then the 20,000. Then a second qbtd with `--music-encrypt` serves the same hour: one request for
each segment first (each is encrypted, AES-128-CBC, and kept), then the same 20,000 requests (files made before,
sent as nginx sends its own); the issue's target is >= 0.8x nginx's rate with encryption, >= 1.0x without.

Tracks are one short LAME encode copied with a fresh ID3v2 tag each (scanning reads every file whole). Everything
stays on 127.0.0.1.

    music_hls.py [TRACKS] (default 2000)
"""
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, wait_for  # noqa: E402
from reference_nginx import children_cpu, cpu_seconds, nginx_pids, start_nginx  # noqa: E402

TRACKS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
KEY = "qbt_benchmarkkey0123456789ab"
H = {"Authorization": f"Bearer {KEY}"}
REQUESTS = 20000


def served(tmp, name, urls, pids, headers=()):
    """curl, one process, 16 transfers at a time, fetching `urls` to /dev/null: (segments/s, the server's CPU ms per
    segment, curl's CPU ms per segment)."""
    config = tmp / f"curl-{name}.cfg"
    config.write_text("".join(f'url = "{u}"\noutput = "/dev/null"\n' for u in urls))
    cpu, mine = cpu_seconds(pids), children_cpu()
    t = time.perf_counter()
    subprocess.run(["curl", "-s", "-f", "--parallel", "--parallel-max", "16", *[a for h in headers for a in ("-H", h)],
                    "-K", str(config)], check=True, timeout=600)
    seconds = time.perf_counter() - t
    curl = children_cpu() - mine
    return len(urls) / seconds, (cpu_seconds(pids) - cpu) * 1000 / len(urls), curl * 1000 / len(urls)


def encode(path, seconds, bitrate="320"):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}",
                    "-ac", "2", "-ar", "44100", "-c:a", "pcm_s16le", "-f", "wav", str(path) + ".wav"], check=True)
    subprocess.run(["lame", "--quiet", "-b", bitrate, str(path) + ".wav", str(path)], check=True)
    os.unlink(str(path) + ".wav")


def id3(title, artist, album, track):
    def frame(fid, text):
        body = b"\x03" + text.encode()
        return fid.encode() + len(body).to_bytes(4, "big") + b"\0\0" + body
    frames = frame("TIT2", title) + frame("TPE1", artist) + frame("TALB", album) + frame("TRCK", str(track))
    size = len(frames)
    syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
    return b"ID3\x04\x00\x00" + syncsafe + frames


def main():
    with tempfile.TemporaryDirectory(prefix="qbtd-music-bench-") as tmp:
        tmp = Path(tmp)
        lib = tmp / "lib"
        lib.mkdir()
        print(f"making {TRACKS} tracks and a 1-hour track ...", flush=True)
        encode(tmp / "base.mp3", 20, "128")
        audio = (tmp / "base.mp3").read_bytes()
        for i in range(TRACKS):
            album = lib / f"artist{i // 100}" / f"album{i // 10}"
            album.mkdir(parents=True, exist_ok=True)
            (album / f"{i:05}.mp3").write_bytes(id3(f"Track {i}", f"Artist {i // 100}", f"Album {i // 10}", i % 10 + 1) + audio)
        hour = lib / "hour.mp3"
        encode(hour, 3600)

        # ffmpeg, the reference: the same hour cut into 6 s HLS segments without transcoding.
        out = tmp / "ffmpeg-hls"
        out.mkdir()
        t0 = time.perf_counter()
        subprocess.run(["ffmpeg", "-v", "error", "-i", str(hour), "-c:a", "copy", "-f", "hls", "-hls_time", "6",
                        "-hls_playlist_type", "vod", str(out / "index.m3u8")], check=True)
        ffmpeg_secs = time.perf_counter() - t0
        ffmpeg_segments = len(list(out.glob("*.ts")))

        (tmp / "data").mkdir()
        t0 = time.perf_counter()
        q = Qbtd(tmp / "data", extra=["--music-dir", str(lib), "--api-key", KEY]).start()
        try:
            wait_for(lambda: requests.get(q.base + "/music/auth", headers=H).json()["libraryVersion"] >= 1, 600,
                     interval=0.05, what="the first scan")
            scan = time.perf_counter() - t0
            db = requests.get(q.base + "/music/db", headers=H).content
            (tmp / "db.sqlite").write_bytes(db)
            with sqlite3.connect(tmp / "db.sqlite") as c:
                count = c.execute("SELECT COUNT(*) FROM tracks WHERE error IS NULL").fetchone()[0]
                hour_id = c.execute("SELECT id FROM tracks WHERE path LIKE '%hour.mp3'").fetchone()[0]
            url = f"{q.base}/music/tracks/{hour_id}/stream.m3u8"

            def timed(u):
                t = time.perf_counter()
                r = requests.get(u, headers=H)
                assert r.status_code == 200, r.text
                return time.perf_counter() - t, r.text

            colds = []
            for _ in range(3):
                os.utime(hour, None)  # a new mtime: the cached index is stale and is built again for the request
                colds.append(timed(url)[0])
            warms = [timed(url)[0] for _ in range(50)]
            segments = sum(1 for line in timed(url)[1].splitlines() if line.startswith("segments/"))

            # The same curl load on qbtd and then on nginx serving ffmpeg's segments of the same hour; qbtd cuts each
            # segment on its first request (the first pass, timed apart) and sends the cut file after.
            cutting = served(tmp, "cutting", [f"{q.base}/music/tracks/{hour_id}/segments/{i}.mp3" for i in range(segments)],
                             [q.proc.pid], [f"Authorization: Bearer {KEY}"])
            ours = served(tmp, "qbtd", [f"{q.base}/music/tracks/{hour_id}/segments/{(i * 7) % segments}.mp3"
                                        for i in range(REQUESTS)], [q.proc.pid], [f"Authorization: Bearer {KEY}"])
            ts = sorted(out.glob("*.ts"), key=lambda p: int("".join(c for c in p.stem if c.isdigit()) or 0))
            nginx, port = start_nginx(tmp, out)
            try:
                theirs = served(tmp, "nginx", [f"http://127.0.0.1:{port}/{ts[(i * 7) % len(ts)].name}"
                                               for i in range(REQUESTS)], nginx_pids(nginx.pid))
            finally:
                nginx.terminate()
                nginx.wait(10)
            sizes = (hour.stat().st_size / segments, sum(p.stat().st_size for p in ts) / len(ts))
        finally:
            q.stop()

        # Encrypted: the hour alone in a library of its own, on a qbtd of its own.
        (tmp / "lib-encrypted").mkdir()
        os.link(hour, tmp / "lib-encrypted" / "hour.mp3")
        (tmp / "data-encrypted").mkdir()
        q = Qbtd(tmp / "data-encrypted", extra=["--music-dir", str(tmp / "lib-encrypted"), "--api-key", KEY,
                                                "--music-encrypt"]).start()
        try:
            wait_for(lambda: requests.get(q.base + "/music/auth", headers=H).json()["libraryVersion"] >= 1, 600,
                     interval=0.05, what="the encrypted library's scan")
            (tmp / "db-encrypted.sqlite").write_bytes(requests.get(q.base + "/music/db", headers=H).content)
            with sqlite3.connect(tmp / "db-encrypted.sqlite") as c:
                enc_id = c.execute("SELECT id FROM tracks WHERE path LIKE '%hour.mp3'").fetchone()[0]
            timed(f"{q.base}/music/tracks/{enc_id}/stream.m3u8")
            segment_url = f"{q.base}/music/tracks/{enc_id}/segments/{{}}.mp3"
            sealing = served(tmp, "sealing", [segment_url.format(i) for i in range(segments)], [q.proc.pid],
                             [f"Authorization: Bearer {KEY}"])
            sealed = served(tmp, "sealed", [segment_url.format((i * 7) % segments) for i in range(REQUESTS)],
                            [q.proc.pid], [f"Authorization: Bearer {KEY}"])
        finally:
            q.stop()

    print(f"\nlibrary: {count} tracks scanned in {scan:.2f} s ({count / scan:.0f} tracks/s, qbtd start included)")
    print(f"\n1-hour 320 kbit/s track, {segments} segments\n")
    print("| | time |\n|---|---:|")
    print(f"| qbtd playlist, cold (index built) | {statistics.median(colds) * 1000:.0f} ms |")
    print(f"| qbtd playlist, warm (p50 of 50) | {statistics.median(warms) * 1000:.1f} ms |")
    print(f"| ffmpeg -c:a copy -f hls (all {ffmpeg_segments} segments written) | {ffmpeg_secs * 1000:.0f} ms |")
    print(f"\n{REQUESTS} segments to curl --parallel (16 transfers at a time), 127.0.0.1\n")
    print("| server | segments/s | server CPU ms per segment | curl CPU ms per segment | mean segment |\n|---|---:|---:|---:|---:|")
    for name, (rate, cpu, curl), size in ((f"qbtd /music, each of the {segments} once (cut now)", cutting, sizes[0]),
                                          ("qbtd /music (cut before)", ours, sizes[0]), ("nginx sendfile, ffmpeg's .ts", theirs, sizes[1]),
                                          (f"qbtd --music-encrypt, each of the {segments} once (encrypted now)", sealing, sizes[0]),
                                          ("qbtd --music-encrypt (made before)", sealed, sizes[0])):
        print(f"| {name} | {rate:,.0f} | {cpu:.3f} | {curl:.3f} | {size / 1000:.0f} kB |")
    print(f"\nqbtd / nginx: x{ours[0] / theirs[0]:.2f} the segments per second (target x1.0), x{cutting[0] / theirs[0]:.2f} while "
          f"cutting each the first time; encrypted x{sealed[0] / theirs[0]:.2f} (target x0.8), x{sealing[0] / theirs[0]:.2f} while "
          f"encrypting each the first time; "
          f"ffmpeg wrote {ffmpeg_segments / ffmpeg_secs:,.0f} segments/s to disk")


if __name__ == "__main__":
    main()
