"""The scale benchmark's smoke run: 300 torrents in qbtd and in qbittorrent-nox (nox answers a 1,000-torrent listing in 0.25 s: its rows took 100 s), every row, no timing assertion."""
import os
import subprocess
import sys

import pytest

from conftest import QBTD, ROOT
from qbtnox import NOX


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_scale_benchmark_smoke():
    out = subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "scale.py"), "--smoke"],
                         env={**os.environ, "QBTD_BIN": QBTD}, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    for header in ("| endpoint | clients | server | requests | errors | req/s | p50 ms | p99 ms |",
                   "| row | qbtd | qbittorrent-nox | qbtd / nox | target | |"):
        assert header in out.stdout, out.stdout[-3000:]
    assert "20/20" in out.stdout, "the active torrents did not all reach the seeder:\n" + out.stdout[-3000:]
    assert "20/20 active connected" in out.stdout, "the bare libtorrent session's torrents did not all reach the " \
        "seeder:\n" + out.stdout[-3000:]
    assert "libtorrent alone (the same torrents and transfers in a bare session" in out.stdout, out.stdout[-3000:]
