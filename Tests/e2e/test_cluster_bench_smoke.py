"""The cluster benchmark's smoke run (Benchmarks/cluster.py --smoke): 1,000 torrents in one qbtd and in four nodes on
one PostgreSQL, every row, no timing assertion."""
import os
import subprocess
import sys

from cluster_support import cluster_url
from conftest import QBTD, ROOT


def test_cluster_benchmark_smoke():
    env = {**os.environ, "QBTD_BIN": QBTD, "QBTD_TEST_POSTGRES_URL": cluster_url()}
    out = subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "cluster.py"), "--smoke"], env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    for line in ("| endpoint (through one node) | clients | server | req/s | p50 ms | p99 ms | errors |",
                 "| adding 1,000 torrents |", "rid diff p99 at 32 clients through one node"):
        assert line in out.stdout, out.stdout[-3000:]
    assert "20/20 active connected" in out.stdout, out.stdout[-3000:]
