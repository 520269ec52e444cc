"""Acceptance (issue 38, item 5): clock jumps. qbtd's wall clock is stepped forward by hours and back by minutes while
it runs (Tests/soak/wallclock_shift.c, an LD_PRELOAD step of CLOCK_REALTIME only, as an NTP step); durations must
follow real time, stamps the wall clock, the alternative-speed schedule the wall clock both ways. The scenarios live
in Tests/soak/faults_clock.py (the fault campaign runs them all); each test here runs one and fails with every check
it missed."""
import sys
from pathlib import Path

import pytest

# `cc` comes with g++, which `make test` installs (the libtorrent build needs it).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "soak"))
import faults_clock  # noqa: E402


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    return faults_clock.build_shim(tmp_path_factory.mktemp("shim"))


@pytest.mark.parametrize("scenario", faults_clock.SCENARIOS, ids=lambda f: f.__name__)
def test_clock_jump(scenario, shim, tmp_path):
    harness = faults_clock.Harness(tmp_path, shim=shim)
    checks = faults_clock.run_one(harness, scenario)
    assert checks.checked, "the scenario checked nothing"
    problems = checks.failed + harness.db_failures
    assert not problems, f"{scenario.__name__}: " + "; ".join(problems)
