"""The push benchmark's smoke run (Benchmarks/push.py --smoke): 500 torrents, 10 clients streaming events and 10
polling sync/maindata; every client connects and sees every marker tag. No timing assertion."""
import os
import subprocess
import sys

from conftest import QBTD, ROOT


def test_push_benchmark_smoke():
    out = subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "push.py"), "--smoke"],
                         env={**os.environ, "QBTD_BIN": QBTD}, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    rows = [line.split("|") for line in out.stdout.splitlines() if line.startswith("| sse |") or line.startswith("| poll |")]
    assert [r[1].strip() for r in rows] == ["sse", "poll"], out.stdout[-3000:]
    for r in rows:
        assert r[3].strip() == "10", out.stdout[-3000:]                       # every client connected
        seen, missed = (int(x.replace(",", "")) for x in r[13].split("/"))
        assert seen > 0 and missed == 0, out.stdout[-3000:]                  # every marker reached every client
