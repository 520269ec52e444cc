#!/usr/bin/env python3
"""Completed data at disk speed: a sustained read of a completed file through qbtd's `/stream/{token}` against nginx
serving the same file with `sendfile on`, in the same run, both from the page cache.

One file of SIZE_MIB (random bytes) is made into a torrent that qbtd adds with its data already in place (skip
checking); nginx (one worker, sendfile on, tcp_nopush on, access log off) serves the same folder. curl reads the
whole file to /dev/null from each server in turn, ROUNDS times, after one warm-up read each; the server's CPU
seconds (user + system, from /proc, nginx's master and worker together) are taken around each read. Printed: the
median throughput of each, CPU seconds per GiB over all reads (the clock ticks at 10 ms), and the ratios
qbtd / nginx. Everything stays on 127.0.0.1.

curl's CPU per GiB is printed too, and the sum: on loopback the kernel's receive path for the client's socket runs in
the sender's softirq or in the client's own call depending on timing, and a tick-accounted kernel charges it to
whichever was running. A faster sender is charged more of it and its client less, so the server-alone figure moves
with that split; server + curl is what moving a GiB end to end cost.

So the reads run in three placements, each server in turn, and a table for each:
  - one core: every thread of the server and curl on CPU 0. Only one of them runs at a time, so the split is the
    same for both servers: the sender's calls pay for sending, curl's for receiving. The server CPU target is judged
    here.
  - two cores: the server's threads on CPU 0, curl on CPU 1 (the throughput a server reaches when its client has a
    core of its own). The throughput target is judged here.
  - free: wherever the scheduler puts them (printed; the split and so the server-alone figure wander run to run).

    stream_sendfile.py [SIZE_MIB] [ROUNDS]   (defaults 1024 and 5)
"""
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import libtorrent as lt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import Qbtd, wait_for  # noqa: E402
from reference_nginx import children_cpu, cpu_seconds, nginx_pids, start_nginx  # noqa: E402

SIZE = (int(sys.argv[1]) if len(sys.argv) > 1 else 1024) << 20
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5


CPUS = sorted(os.sched_getaffinity(0))


def placements():
    """(name, the server's CPUs, curl's CPUs) for each placement this machine can make."""
    every = set(CPUS)
    rows = [("one core", {CPUS[0]}, {CPUS[0]})]
    if len(CPUS) > 1:
        rows.append(("two cores", {CPUS[0]}, {CPUS[1]}))
    rows.append(("free", every, every))
    return rows


def pin(pids, cpus):
    """Every thread of `pids` onto `cpus` (threads started later inherit the caller's mask)."""
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                os.sched_setaffinity(int(tid), cpus)
            except (ProcessLookupError, PermissionError):
                pass  # a thread that just ended


def read(url, pids, curl_cpus):
    """One whole read with curl: (bytes/s, the server's CPU seconds, curl's CPU seconds)."""
    before, mine = cpu_seconds(pids), children_cpu()
    out = subprocess.run(["taskset", "-c", ",".join(map(str, sorted(curl_cpus))), "curl", "-s", "--fail", "-o", "/dev/null", "-w", "%{size_download} %{time_total}", url],
                         capture_output=True, text=True, timeout=600, check=True).stdout.split()
    cpu, curl = cpu_seconds(pids) - before, children_cpu() - mine
    size, seconds = int(out[0]), float(out[1])
    assert size == SIZE, f"{url} sent {size} bytes of {SIZE}"
    return size / seconds, cpu, curl


def make_file(path):
    chunk = 16 << 20
    with open(path, "wb") as f:
        for offset in range(0, SIZE, chunk):
            f.write(os.urandom(min(chunk, SIZE - offset)))


def torrent_of(folder):
    fs = lt.file_storage()
    lt.add_files(fs, str(folder))
    ct = lt.create_torrent(fs, 4 << 20)
    lt.set_piece_hashes(ct, str(folder.parent))
    return lt.bencode(ct.generate())


def main():
    with tempfile.TemporaryDirectory(prefix="qbtd-sendfile-bench-") as tmp:
        tmp = Path(tmp)
        content = tmp / "content" / "film"
        content.mkdir(parents=True)
        print(f"writing a {SIZE >> 20} MiB file ...", flush=True)
        make_file(content / "film.mkv")
        torrent = torrent_of(content)
        (tmp / "data").mkdir()
        q = Qbtd(tmp / "data").start()
        nginx, port = start_nginx(tmp, tmp / "content")
        try:
            s = q.session()
            r = s.post(q.url("torrents/add"), data={"savepath": str(tmp / "content"), "skip_checking": "true"},
                       files={"torrents": ("film.torrent", torrent, "application/x-bittorrent")})
            assert r.status_code == 200, (r.status_code, r.text)
            info = lt.torrent_info(lt.bdecode(torrent))
            h = str(info.info_hashes().get_best())
            wait_for(lambda: (t := s.get(q.url("torrents/info"), params={"hashes": h}).json()) and t[0]["progress"] == 1,
                     60, what="the torrent to be complete")
            stream = s.post(q.url("stream/prepare"), data={"hash": h}).json()["playbackUrl"]
            plain = f"http://127.0.0.1:{port}/film/film.mkv"
            servers = {"qbtd /stream": (stream, [q.proc.pid]), "nginx sendfile": (plain, nginx_pids(nginx.pid))}
            results = {}
            for place, server_cpus, curl_cpus in placements():
                print(f"reading in placement '{place}' ...", flush=True)
                for url, pids in servers.values():
                    pin(pids, server_cpus)
                    read(url, pids, curl_cpus)  # warm-up: the page cache, the placement, the first connection
                runs = {name: [] for name in servers}
                for _ in range(ROUNDS):
                    for name, (url, pids) in servers.items():
                        runs[name].append(read(url, pids, curl_cpus))
                results[place] = runs
        finally:
            nginx.terminate()
            nginx.wait(10)
            q.stop()

    gib = SIZE / 2**30
    a, b = "qbtd /stream", "nginx sendfile"

    def ratio(x, y):
        return x / y if y > 0 else float("inf")
    print(f"\n{SIZE >> 20} MiB file from the page cache, curl to /dev/null, {ROUNDS} reads each, 127.0.0.1")
    for place, runs in results.items():
        rate = {name: statistics.median(r[0] for r in rows) for name, rows in runs.items()}
        server = {name: sum(r[1] for r in rows) / (gib * ROUNDS) for name, rows in runs.items()}
        curl = {name: sum(r[2] for r in rows) / (gib * ROUNDS) for name, rows in runs.items()}
        print(f"\n{place}:\n\n| server | throughput (median) | server CPU s per GiB | curl CPU s per GiB | "
              "server + curl |\n|---|---:|---:|---:|---:|")
        for name in runs:
            print(f"| {name} | {rate[name] / 2**20:,.0f} MiB/s | {server[name]:.3f} | {curl[name]:.3f} | "
                  f"{server[name] + curl[name]:.3f} |")
        judged = {"one core": "server CPU per GiB (target <= 1.5)",
                  "two cores": "throughput (target >= 1.0)"}.get(place, "none judged: the split wanders")
        print(f"\nratios qbtd / nginx, {place}: throughput x{ratio(rate[a], rate[b]):.2f}, server CPU per GiB "
              f"x{ratio(server[a], server[b]):.2f}, server + curl x{ratio(server[a] + curl[a], server[b] + curl[b]):.2f}"
              f"; judged here: {judged}")


if __name__ == "__main__":
    main()
