"""Acceptance (fault campaign, issue 38), the short form for `make test`: Tests/soak/fault_campaign.py --short under
the crash campaign's workers: the free-space guard, a full download disk, the download mount remounted read-only and
lazily unmounted under seeding torrents, a full data disk (and a SIGKILL while it is full). Nothing acknowledged may
be lost, every database passes PRAGMA integrity_check, and each scenario's checks of behaviour must hold (the guard's
need the free-space guard: without it they fail, they are not skipped). Needs root (tmpfs and bind mounts).
`make soak` runs the long form, with the same scenarios against qbittorrent-nox 4.5.2 beside it."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "soak"))
import fault_campaign  # noqa: E402


def test_fault_campaign_short(tmp_path):
    assert os.geteuid() == 0, "the fault campaign mounts filesystems (tmpfs, bind): run the tests as root"
    seed = int(os.environ.get("FAULT_SEED", "1"))
    lines = []
    campaign = fault_campaign.FaultCampaign(tmp_path / "campaign", seed=seed, short=True, log=lines.append)
    figures = campaign.run()
    print("\n".join(lines))
    report = "\n".join(lines[-2:]) + "\n" + figures.report(seed, 0)
    assert figures.kills == 1, report
    assert {s for s, _ in figures.faults} == set(fault_campaign.SCENARIOS), report
    assert figures.checked["torrents"] and figures.checked["pieces"] and figures.checked["downloads"], report
    assert figures.checked["databases"] and figures.db_checks, report
    assert not figures.errors, report
    assert figures.lost_total == 0, report
    assert not figures.failures, report
