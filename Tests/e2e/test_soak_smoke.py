"""The soak's quick form: 20 clients polling sync/maindata, 200 torrents, 2 streams and 1 tus upload for 30 s; it
must end with 0 errors (exit 0). Memory growth is judged only by the long form (`make soak`): 30 s have no steady
state. No timing assertion."""
import os
import subprocess
import sys

from conftest import QBTD, ROOT


def test_soak_quick_form(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "soak.py"), "--minutes", "0.5", "--clients", "20",
                          "--torrents", "200", "--streams", "2", "--uploads", "1", "--work-dir", str(tmp_path), "--errors-only"],
                         env={**os.environ, "QBTD_BIN": QBTD}, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-3000:]
    assert "| errors | 0 |" in out.stdout, out.stdout[-4000:]
