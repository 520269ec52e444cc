"""Acceptance (crash campaign), the short form for `make test`: Tests/soak/crash_campaign.py with 3 SIGKILLs (one of
them the moment a SQLite checkpoint begins) over downloads from loopback seeders, multipart and tus uploads,
preference writes, category/tag/rule edits, API keys and music rescans; nothing acknowledged may be lost, no piece
saved in fast-resume data rechecked, no temp file left. `make soak` runs the long form (20 kills)."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "soak"))
import crash_campaign  # noqa: E402


def test_crash_campaign_short(tmp_path):
    seed = int(os.environ.get("CRASH_SEED", "1"))
    lines = []
    figures = crash_campaign.Campaign(tmp_path / "campaign", kills=3, seed=seed, short=True, log=lines.append).run()
    print("\n".join(lines))
    report = figures.report(seed, 0)
    assert figures.kills == 3, report
    assert figures.checked["torrents"] and figures.checked["pieces"] and figures.checked["canaries"], report
    assert figures.checked["tus uploads"] and figures.checked["multipart uploads"] and figures.checked["api keys"], report
    assert figures.checked["music tracks"] and figures.checked["downloads"], report
    assert not figures.errors, report
    assert figures.lost_total == 0, report
