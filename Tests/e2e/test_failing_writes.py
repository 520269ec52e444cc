"""Acceptance (issue 38, item 2): failing writes. qbtd runs under `fiu-run -x` and pwrite, fsync/fdatasync and rename
fail with EIO or ENOSPC around chosen requests (SQLite's, libtorrent's and qbtd's own writes): nothing acknowledged
is lost across a clean or a SIGKILL restart, nothing refused is half there, the databases pass integrity_check, qbtd
stays up, log/main says what failed, and a torrent whose data writes failed is `error` and recovers with a recheck.
The scenarios live in Tests/soak/faults_fiu.py (the fault campaign runs them all); each test runs one."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "soak"))
import faults_fiu  # noqa: E402

# fiu-utils (fiu-run and libfiu's POSIX preload) is installed by `make test` (APT_TEST).


@pytest.mark.parametrize("scenario", faults_fiu.SCENARIOS, ids=lambda f: f.__name__)
def test_failing_writes(scenario, tmp_path):
    harness = faults_fiu.Harness(tmp_path, seed=1)
    checks = faults_fiu.run_one(harness, scenario)
    assert checks.checked, "the scenario checked nothing"
    assert not checks.failed, f"{scenario.__name__}: " + "; ".join(checks.failed)
