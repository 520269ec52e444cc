"""Acceptance for `qbt`: the built binary against a live qbtd and against qbittorrent-nox, every command, a real
add → download from a loopback seeder → delete cycle, `--json` parsed back, and bad input as one-line errors."""
import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
import requests

from conftest import ROOT, SIZES, Seeder, wait_for
from qbtnox import NOX, QbittorrentNox
from search_fixtures import Site, write_plugin

QBT = os.environ.get("QBT_BIN", str(Path(os.environ.get("QBTD_BIN", ROOT / ".build" / "debug" / "qbtd")).parent / "qbt"))


class Cli:
    """Runs `qbt` with its own config file and a clean environment."""

    def __init__(self, tmp_path, **env):
        self.config = tmp_path / "qbt-config" / "config.json"
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "QBT_CONFIG": str(self.config),
                    "COLUMNS": "120", **env}

    def run(self, *args, code=0, env=None, input=None, timeout=120):
        p = subprocess.run([QBT, *map(str, args)], capture_output=True, text=True, env={**self.env, **(env or {})},
                           input=input, timeout=timeout)
        assert p.returncode == code, f"qbt {' '.join(map(str, args))}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
        if code not in (0, 64):  # an error is one line on stderr, never a trace
            assert p.stderr.startswith("qbt: ") and p.stderr.count("\n") == 1, p.stderr
        return p

    def json(self, *args, env=None):
        return json.loads(self.run(*args, "--json", env=env).stdout)

    def popen(self, *args):
        return subprocess.Popen([QBT, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return Seeder(tmp_path_factory.mktemp("qbt-seed"), SIZES)


def drive(cli, base, password, seeder, root, modern):
    """Every qBittorrent-compatible command against one server; `modern` is 5.x (stop/start, stoppedUP). `root` is
    a folder the server may write to (qbtd keeps save paths inside its download directory)."""
    save = root / "save"
    # Login: a wrong password, then the right one; the config file is the user's alone.
    cli.run("login", base, code=4, env={"QBT_PASSWORD": "wrong"})
    out = cli.run("login", base, "--name", "main", "--password-stdin", input=password + "\n").stdout
    assert "Logged in" in out and "default" in out
    assert stat.S_IMODE(cli.config.stat().st_mode) == 0o600
    assert cli.json("servers") == [{"name": "main", "url": base, "default": True}]
    app = cli.json("app")
    assert app["version"].startswith("v5." if modern else "v4.") and app["webapiVersion"]

    # Add a .torrent and wait for it with a progress bar while the seeder is named as its peer.
    torrent = cli.config.parent.parent / "payload.torrent"
    torrent.write_bytes(seeder.torrent)
    adding = cli.popen("add", torrent, "--save-path", save, "--tags", "fresh", "--wait", "--timeout", "120")
    h = seeder.id

    def listed():
        if adding.poll() is not None:
            raise AssertionError(f"qbt add ended early: {adding.communicate()[1]}")
        return cli.json("list", h)

    wait_for(listed, 30, what="torrent listed")
    cli.run("peers", h[:10], "--add", seeder.peer)
    out, err = adding.communicate(timeout=150)
    assert adding.returncode == 0, err
    assert "Downloaded payload" in out and "100.0%" in err
    seeder.verify(save)

    rows = cli.json("list")
    assert [r["hash"] for r in rows] == [h] and rows[0]["progress"] == 1 and rows[0]["tags"] == "fresh"
    table = cli.run("list").stdout
    assert "payload" in table and h[:8] in table and "100.0%" in table
    assert cli.json("list", "--filter", "completed", "--sort", "name")[0]["hash"] == h
    assert cli.json("list", "--filter", "downloading") == []

    info = cli.json("info", h[:6])
    assert info["hash"] == h and info["total_size"] >= sum(SIZES) and info["progress"] == 1  # pads of hybrid torrents
    assert "Pieces" in cli.run("info", h[:6]).stdout
    files = cli.json("files", h[:6])
    assert len(files) == 3 and sorted(f["size"] for f in files) == sorted(SIZES)
    assert "normal" in cli.run("files", h[:6]).stdout
    cli.run("prio", h[:6], "1,2", "skip")
    assert [f["priority"] for f in cli.json("files", h)] == [1, 0, 0]
    cli.run("prio", h[:6], "1,2", "normal")
    cli.run("prio", h[:6], "9", "high", code=5)
    cli.run("prio", h[:6], "0", "loud", code=64)

    tracker = "http://127.0.0.1:9/announce"
    assert tracker in [t["url"] for t in cli.json("trackers", h, "--add", tracker)]
    assert tracker not in [t["url"] for t in cli.json("trackers", h, "--remove", tracker)]
    assert isinstance(cli.json("peers", h)["peers"], dict)

    # Categories and tags.
    cli.run("category", "add", "linux", "--save-path", save)
    assert "linux" in cli.json("category", "list")
    cli.run("category", "set", "linux", h[:8])
    assert cli.json("list", "--category", "linux")[0]["hash"] == h
    cli.run("category", "edit", "linux", "--save-path", root / "linux")
    cli.run("category", "edit", "linux", "--save-path", root / "linux", code=1)  # no change: qBittorrent's 409
    cli.run("category", "set", "nosuch", h[:8], code=5)
    cli.run("category", "set", "", h[:8])
    cli.run("category", "remove", "linux")
    assert "linux" not in cli.json("category")
    cli.run("tag", "create", "a", "b")
    cli.run("tag", "add", "a,b", h[:8])
    assert {"a", "b", "fresh"} <= set(cli.json("tag", "list"))
    assert cli.json("list", "--tag", "a")[0]["hash"] == h
    cli.run("tag", "remove", "a", h[:8])
    assert cli.json("list", "--tag", "a") == []
    cli.run("tag", "delete", "a", "b")
    assert "a" not in cli.json("tag")

    # Limits, stop/start in both dialects, recheck, rename, move.
    got = cli.json("limits", h[:8], "--download", "1M", "--upload", "500K", "--ratio", "2.5", "--seeding-time", "90")
    assert got == [{"hash": h, "dl_limit": 1048576, "up_limit": 512000, "ratio_limit": 2.5, "seeding_time_limit": 90,
                    "inactive_seeding_time_limit": -2}]  # not given: it keeps the torrent's own value
    assert "1.00 MiB/s" in cli.run("limits", h[:8]).stdout
    got = cli.json("limits", h[:8], "--download", "0", "--upload", "unlimited", "--ratio", "global", "--seeding-time", "none")
    assert got[0]["ratio_limit"] == -2 and got[0]["seeding_time_limit"] == -1 and got[0]["dl_limit"] in (0, -1)
    stopped = "stoppedUP" if modern else "pausedUP"
    for stop, start in (("stop", "start"), ("pause", "resume")):
        cli.run(stop, h[:8])
        wait_for(lambda: cli.json("list", h)[0]["state"] == stopped, 20, what=stop)
        cli.run(start, "all")
        wait_for(lambda: cli.json("list", h)[0]["state"] != stopped, 20, what=start)
    cli.run("recheck", h[:8])
    wait_for(lambda: cli.json("list", h)[0]["progress"] == 1 and "checking" not in cli.json("list", h)[0]["state"], 60,
             what="recheck")
    cli.run("rename", h[:8], "renamed")
    wait_for(lambda: cli.json("list", h)[0]["name"] == "renamed", 20, what="rename")
    moved = root / "moved"
    cli.run("move", h[:8], "--to", moved)
    wait_for(lambda: Path(cli.json("list", h)[0]["save_path"]).resolve() == moved.resolve(), 30, what="move")
    wait_for(lambda: (moved / "payload").is_dir(), 30, what="data moved")

    # The live view: diffs as JSON lines, and the table.
    lines = cli.run("watch", "--json", "--count", "2", "--interval", "0.2").stdout.splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["full_update"] is True and json.loads(lines[1])["rid"] > 0
    assert "renamed" in cli.run("watch", "--count", "1").stdout

    # Application, transfer, log, preferences.
    assert cli.json("transfer", "--download-limit", "2M")["dl_rate_limit"] == 2 * 1024 * 1024
    assert cli.json("transfer", "--download-limit", "0")["dl_rate_limit"] == 0
    assert "Download" in cli.run("transfer").stdout
    log = cli.run("log", "--json", "--last", "3").stdout.splitlines()
    assert 1 <= len(log) <= 3 and all("message" in json.loads(line) for line in log)
    assert cli.run("log").stdout.strip()
    cli.run("prefs", "set", "max_active_downloads=7", "web_ui_session_timeout=3600")
    assert cli.run("prefs", "get", "max_active_downloads").stdout.strip() == "7"
    assert cli.json("prefs", "get", "max_active_downloads", "web_ui_session_timeout") == {
        "max_active_downloads": 7, "web_ui_session_timeout": 3600}
    cli.run("prefs", "get", "no_such_pref", code=5)
    cli.run("prefs", "set", "no_such_pref=1", code=5)

    # Bad input: each a one line error and a meaningful exit code.
    cli.run("info", "ffff", code=5)
    cli.run("info", "not-a-hash", code=2)
    cli.run("add", "magnet:?xt=urn:btih:nothex", code=2)
    cli.run("add", torrent.parent / "no-such.torrent", code=2)
    garbage = torrent.parent / "garbage.torrent"
    garbage.write_bytes(b"this is not bencode")
    cli.run("add", garbage, code=2)
    cli.run("list", "--url", "http://127.0.0.1:1", code=3)

    # Delete with the data.
    cli.run("delete", h[:8], "--files")
    wait_for(lambda: cli.json("list") == [], 20, what="delete")
    wait_for(lambda: not (moved / "payload").exists(), 30, what="files deleted")
    cli.run("logout")
    cli.run("list", code=4)


def test_qbt_drives_qbtd(qbtd_factory, seeded, tmp_path):
    q = qbtd_factory()
    drive(Cli(tmp_path), q.base, q.password, seeded, q.data_dir / "downloads", modern=True)


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_qbt_drives_qbittorrent_nox(seeded, tmp_path):
    nox = QbittorrentNox(tmp_path / "nox").start()
    try:
        drive(Cli(tmp_path), nox.base, nox.password, seeded, nox.save, modern=False)
    finally:
        nox.stop()


def test_qbt_extensions_search_stream_and_keys(qbtd_factory, seeded, tmp_path):
    """Search with plugins, stream playback handed to a player, API-key login, servers, environment-only use."""
    q = qbtd_factory()
    s = q.session()
    key = s.post(q.url("app/rotateAPIKey")).json()["apiKey"]
    cli = Cli(tmp_path)
    cli.run("login", q.base, "--api-key", "wrong-key", code=4)
    cli.run("login", q.base, "--api-key", key, "--name", "bykey")
    assert cli.json("servers")[0]["name"] == "bykey"
    cli.run("login", q.base, "--name", "second", env={"QBT_PASSWORD": q.password})
    cli.run("servers", "use", "second")
    assert [s["name"] for s in cli.json("servers") if s["default"]] == ["second"]
    cli.run("servers", "use", "nosuch", code=4)
    # Scripts can skip login entirely.
    bare = Cli(tmp_path / "bare")
    assert bare.json("app", env={"QBT_URL": q.base, "QBT_PASSWORD": q.password})["version"] == "v5.1.0"
    assert bare.json("app", env={"QBT_URL": q.base, "QBT_API_KEY": key})["version"] == "v5.1.0"
    bare.run("app", code=4)

    # Search: plugins managed, a search shown with progress, a result added.
    site = Site(results=12, torrent=seeded.torrent)
    try:
        plugin = write_plugin(tmp_path, "localsite", site.url)
        cli.run("search", "plugins", "install", plugin)
        wait_for(lambda: "localsite" in [p["name"] for p in cli.json("search", "plugins")], 30, what="plugin installed")
        cli.run("search", "plugins", "disable", "localsite")
        assert not {p["name"]: p for p in cli.json("search", "plugins", "list")}["localsite"]["enabled"]
        cli.run("search", "plugins", "enable", "localsite")
        results = cli.json("search", "big", "buck", "--plugins", "localsite", "--limit", "5")
        assert len(results) == 5 and results[0]["nbSeeders"] >= results[-1]["nbSeeders"]
        assert results[0]["fileUrl"].startswith(site.url)
        table = cli.run("search", "big buck", "--plugins", "localsite", "--limit", "3", "--add", "1")
        assert "big buck result" in table.stdout and "9 more" in table.stderr and "Added" in table.stdout
        wait_for(lambda: cli.json("list"), 30, what="search result added")
        cli.run("search", "x", "--plugins", "localsite", "--add", "99", code=5)
        cli.run("search", "plugins", "uninstall", "localsite")
        assert "localsite" not in [p["name"] for p in cli.json("search", "plugins")]
    finally:
        site.close()

    # Stream: a torrent qbtd has, handed to a "player" that records what it was given.
    h = seeded.id
    cli.run("peers", h[:8], "--add", seeded.peer)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    player = bin_dir / "mpv"
    player.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {tmp_path / 'played'}\n")
    player.chmod(0o755)
    stream = cli.json("stream", h[:8])
    assert stream["infoHash"] == h and stream["fileSize"] in SIZES and stream["playbackUrl"].startswith(q.base)
    r = requests.get(stream["playbackUrl"], headers={"Range": "bytes=0-99"}, timeout=60)
    assert r.status_code == 206 and len(r.content) == 100
    assert [x["streamId"] for x in cli.json("stream", "list")] == [stream["streamId"]]
    out = cli.run("stream", h[:8], "--play", env={"PATH": f"{bin_dir}:{cli.env['PATH']}"})
    assert out.stdout.startswith("http://127.0.0.1")
    played = (tmp_path / "played").read_text().splitlines()
    assert played[-1] == out.stdout.strip() and played[0].startswith("--force-media-title=")
    cli.run("stream", h[:8], "--play", "--player", "no-such-player", code=2)
    cli.run("stream", "stop", "--all")
    assert cli.json("stream", "list") == []
    cli.run("stream", "magnet:?xt=urn:btih:zz", code=2)


def test_qbt_help_and_completions(tmp_path):
    cli = Cli(tmp_path)
    top = cli.run("--help").stdout
    for command in ("login", "list", "add", "watch", "search", "stream", "prefs", "Exit codes"):
        assert command in top
    for command in ("add", "list", "search", "stream", "limits", "category", "tag", "prefs", "login"):
        assert "USAGE" in cli.run(command, "--help").stdout
    # The completions kept in the tree are the ones this binary writes.
    for shell, name in (("bash", "qbt.bash"), ("zsh", "_qbt"), ("fish", "qbt.fish")):
        written = cli.run("--generate-completion-script", shell).stdout
        assert (ROOT / "contrib" / "completions" / name).read_text() == written, f"run `make completions` ({shell})"


def test_make_install_puts_binaries_and_completions_in_place(tmp_path):
    p = subprocess.run(["make", "-s", "install", "CONFIG=debug", f"DESTDIR={tmp_path}", "PREFIX=/usr"], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    for rel in ("bin/qbtd", "bin/qbt", "share/bash-completion/completions/qbt", "share/zsh/site-functions/_qbt",
                "share/fish/vendor_completions.d/qbt.fish"):
        assert (tmp_path / "usr" / rel).is_file(), rel
    assert os.access(tmp_path / "usr" / "bin" / "qbt", os.X_OK)
    # The web interface goes to <prefix>/share/qbtd/www, where the installed binary finds it.
    assert (tmp_path / "usr" / "share" / "qbtd" / "www" / "public" / "index.html").is_file()
    from conftest import Qbtd
    import conftest
    (tmp_path / "data").mkdir()
    installed = Qbtd(tmp_path / "data")
    saved, conftest.QBTD = conftest.QBTD, str(tmp_path / "usr" / "bin" / "qbtd")
    try:
        installed.start()
        assert 'id="login-form"' in requests.get(installed.base + "/").text
    finally:
        conftest.QBTD = saved
        installed.stop()


def test_qbt_upload_resumes_and_seeds(qbtd_factory, tmp_path):
    q = qbtd_factory(extra=["--allowed-paths", str(tmp_path / "media")])  # so that --to /etc is refused
    cli = Cli(tmp_path)
    cli.run("login", q.base, env={"QBT_PASSWORD": q.password})
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(192 << 20))
    # Killed mid-upload: the next run needs --resume, and then picks up at the server's offset.
    proc = cli.popen("upload", big, "--chunk-size", "1M")
    s = q.session()
    wait_for(lambda: any(u["received"] > 16 << 20 for u in s.get(q.url("uploads")).json()) or proc.poll() is not None, 60,
             interval=0.02, what="upload under way")
    proc.kill()
    proc.wait(10)
    assert proc.returncode != 0, "the upload finished before it could be interrupted"
    cli.run("upload", big, code=2)
    out = cli.json("upload", big, "--resume")
    landed = Path(out["files"][0]["path"])
    assert landed == q.data_dir / "uploads" / "big.bin" and landed.read_bytes() == big.read_bytes()

    # A folder, uploaded and seeded in one command.
    album = tmp_path / "album"
    (album / "cd2").mkdir(parents=True)
    (album / "a.flac").write_bytes(os.urandom(300_000))
    (album / "cd2" / "b.flac").write_bytes(os.urandom(200_000))
    out = cli.json("upload", album, "--to", "music", "--torrent")
    assert sorted(f["path"] for f in out["files"]) == [str(q.data_dir / "uploads" / "music" / "album" / "a.flac"),
                                                       str(q.data_dir / "uploads" / "music" / "album" / "cd2" / "b.flac")]
    wait_for(lambda: [t for t in cli.json("list") if t["hash"] == out["torrent"] and t["progress"] == 1], 30,
             what="the uploaded folder seeding")
    assert cli.json("info", out["torrent"][:8])["name"] == "album"
    cli.run("upload", tmp_path / "missing", code=2)
    cli.run("upload", big, "--to", "/etc", code=1)


def test_qbt_rss(qbtd_factory, tmp_path):
    """Feeds, articles and rules through `qbt rss`, against a feed served on 127.0.0.1."""
    from rss_support import FeedServer, day, make_torrent, rss
    feeds = FeedServer()
    try:
        data, ih = make_torrent(tmp_path / "t", "Show.S01E01.720p")
        feeds.put("/e1.torrent", data, "application/x-bittorrent")
        url = feeds.put("/tv.xml", rss("TV", [{"title": "Show.S01E01.720p", "guid": "e1", "enclosure": feeds.url("/e1.torrent"),
                                                "date": day(1)}, {"title": "Other", "guid": "o", "date": day(2)}]))
        q = qbtd_factory()
        cli = Cli(tmp_path)
        cli.run("login", q.base, "--password-stdin", input=q.password + "\n")
        assert "Added" in cli.run("rss", "add", url, "--path", "TV").stdout
        cli.run("rss", "refresh", "TV", "--wait", "30")
        got = cli.json("rss", "articles", "TV")
        assert sorted(a["article"]["title"] for a in got) == ["Other", "Show.S01E01.720p"]
        assert "TV" in cli.run("rss", "feeds").stdout
        cli.run("rss", "rules", "add", "Show", "--must-contain", "show 720p", "--feed", url, "--category", "tv", "--stopped")
        assert cli.json("rss", "rules")["Show"]["torrentParams"]["category"] == "tv"
        assert cli.json("rss", "matching", "Show") == {"TV": ["Show.S01E01.720p"]}
        cli.run("rss", "rules", "add", "Bad", code=64)  # no --feed
        cli.run("rss", "rules", "remove", "Show")
        assert cli.json("rss", "rules") == {}
        cli.run("rss", "remove", "TV")
        assert cli.json("rss", "feeds") == {}
    finally:
        feeds.stop()
