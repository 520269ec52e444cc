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
    lines = out.stdout.splitlines()
    header = [c.strip() for c in next(line for line in lines if line.startswith("| mode | clients |")).split("|")]
    rows = [dict(zip(header, (c.strip() for c in line.split("|")))) for line in lines
            if line.startswith("| sse |") or line.startswith("| poll |")]
    assert [r["mode"] for r in rows] == ["sse", "poll"], out.stdout[-3000:]
    for r in rows:
        assert r["ready"] == "10", out.stdout[-3000:]                        # every client connected
        seen, missed = (int(x.replace(",", "")) for x in r["markers seen / missed"].split("/"))
        assert seen > 0 and missed == 0, out.stdout[-3000:]                  # every marker reached every client
