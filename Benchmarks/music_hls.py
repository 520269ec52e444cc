#!/usr/bin/env python3
"""HLS music benchmark: library scan rate for 2,000 generated tracks; playlist latency for a 1-hour track, cold (the
frame index built for the request) and warm; segments per second served to 16 concurrent transfers; against
`ffmpeg -c:a copy -f hls` segmenting the same 1-hour file in the same run.

Tracks are one short LAME encode copied with a fresh ID3v2 tag each (scanning reads every file whole). Everything
stays on 127.0.0.1.

    music_hls.py [TRACKS] (default 2000)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, wait_for  # noqa: E402

TRACKS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
KEY = "qbt_benchmarkkey0123456789ab"
H = {"Authorization": f"Bearer {KEY}"}


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
            import sqlite3
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

            # curl, one process, 16 transfers at a time: the load generator should not be the bottleneck.
            requests_total = 6000
            config = tmp / "curl.cfg"
            config.write_text("".join(f'url = "{q.base}/music/tracks/{hour_id}/segments/{(i * 7) % segments}.mp3"\noutput = "/dev/null"\n'
                                      for i in range(requests_total)))
            t = time.perf_counter()
            subprocess.run(["curl", "-s", "-f", "--parallel", "--parallel-max", "16", "-H", f"Authorization: Bearer {KEY}",
                            "-K", str(config)], check=True, timeout=600)
            rate = requests_total / (time.perf_counter() - t)
        finally:
            q.stop()

    print(f"\nlibrary: {count} tracks scanned in {scan:.2f} s ({count / scan:.0f} tracks/s, qbtd start included)")
    print(f"\n1-hour 320 kbit/s track, {segments} segments\n")
    print("| | time |\n|---|---:|")
    print(f"| qbtd playlist, cold (index built) | {statistics.median(colds) * 1000:.0f} ms |")
    print(f"| qbtd playlist, warm (p50 of 50) | {statistics.median(warms) * 1000:.1f} ms |")
    print(f"| ffmpeg -c:a copy -f hls (all {ffmpeg_segments} segments written) | {ffmpeg_secs * 1000:.0f} ms |")
    print(f"\nsegments served to 16 concurrent transfers (curl --parallel): {rate:.0f}/s "
          f"(ffmpeg wrote {ffmpeg_segments / ffmpeg_secs:.0f} segments/s to disk)")


if __name__ == "__main__":
    main()
