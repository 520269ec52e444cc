#!/usr/bin/env python3
"""Upload benchmark: multipart (`POST /api/v2/uploads`) and tus (one streamed PATCH) of the same file, against `dd`
writing the same bytes to the same directory in the same run, plus qbtd's peak memory.

qbtd acknowledges an upload only once it is fsynced, so `dd` runs with `conv=fsync` too; all read the source from
the page cache (it is read once before timing). Three rounds, each writer once per round; medians. curl sends on loopback. Everything stays on 127.0.0.1.

    upload_throughput.py [MIB] (default 2048)
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
from conftest import Qbtd, vm  # noqa: E402

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
ROUNDS = 3


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    return elapsed, p.stdout


def main():
    with tempfile.TemporaryDirectory(prefix="qbtd-upload-bench-", dir=os.environ.get("BENCH_DIR")) as tmp:
        tmp = Path(tmp)
        source = tmp / "source.bin"
        size = MIB << 20
        print(f"writing a {MIB} MiB source file ...", flush=True)
        block = os.urandom(1 << 20)
        with open(source, "wb") as f:
            for _ in range(MIB):
                f.write(block)
        subprocess.run(["cat", str(source)], stdout=subprocess.DEVNULL, check=True)  # into the page cache
        (tmp / "data").mkdir()
        q = Qbtd(tmp / "data").start()
        uploads = tmp / "data" / "uploads"
        try:
            pid = q.proc.pid
            idle = vm(pid, "VmRSS")
            auth = f"admin:{q.password}"
            results = {"dd (conv=fsync)": [], "multipart": [], "tus": []}
            # Rounds interleave the three writers, so the disk's moods (writeback, trims) fall on all of them alike.
            for _ in range(ROUNDS):
                secs, _ = timed(["dd", f"if={source}", f"of={uploads / 'dd.bin'}", "bs=1M", "conv=fsync"])
                results["dd (conv=fsync)"].append(secs)
                (uploads / "dd.bin").unlink()

                secs, out = timed(["curl", "-sf", "-u", auth, "-F", f"file=@{source};filename=multipart.bin", q.url("uploads")])
                results["multipart"].append(secs)
                (uploads / "multipart.bin").unlink()

                r = requests.post(q.url("tus/"), auth=("admin", q.password),
                                  headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(size), "Upload-Metadata": "filename dHVz"})
                secs, _ = timed(["curl", "-sf", "-u", auth, "-X", "PATCH", "-T", str(source), "-H", "Tus-Resumable: 1.0.0",
                                 "-H", "Upload-Offset: 0", "-H", "Content-Type: application/offset+octet-stream", "-H", "Expect:",
                                 q.base + r.headers["Location"]])
                results["tus"].append(secs)
                (uploads / "tus").unlink()
            peak = vm(pid, "VmHWM")
        finally:
            q.stop()

    print(f"\n{MIB} MiB to the same directory, 127.0.0.1, median of {ROUNDS} interleaved rounds\n")
    print("| | time | MiB/s | vs dd |\n|---|---:|---:|---:|")
    dd = statistics.median(results["dd (conv=fsync)"])
    for label, runs in results.items():
        secs = statistics.median(runs)
        print(f"| {label} | {secs:.2f} s | {MIB / secs:.0f} | x{dd / secs:.2f} |")
    print(f"\nqbtd memory: idle {idle >> 20} MiB, peak {peak >> 20} MiB (growth {(peak - idle) >> 20} MiB)")


if __name__ == "__main__":
    main()
