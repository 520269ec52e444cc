"""Issue 39: profile 5.3 (v5.3.0, WebAPI 2.16.2). Each expectation is what the real qBittorrent 5.3.0 (Debian sid's
qbittorrent-nox 5.3.0-1, probed on 2026-12-06) answered to the same request; the differential suite compares the two
live where a scenario allows it."""
import json
import time

import pytest
import requests

from conftest import PASSWORD, wait_for
from rss_support import make_torrent


def v53(qbtd_factory, **kwargs):
    q = qbtd_factory(extra=["--profile", "5.3"], **kwargs)
    return q, q.session()


def server_state(s, q):
    return s.get(q.url("sync/maindata")).json()["server_state"]


def test_identity_and_server_state(qbtd_factory):
    q, s = v53(qbtd_factory)
    assert s.get(q.url("app/version")).text == "v5.3.0"
    assert s.get(q.url("app/webapiVersion")).text == "2.16.2"
    state = server_state(s, q)
    assert state["session_state"] is False
    assert isinstance(state["request_latency"], int) and isinstance(state["queued_tracker_announces"], int)
    prefs = s.get(q.url("app/preferences")).json()
    assert prefs["share_limits_mode"] == "MatchAny" and prefs["web_ui_sessions_count_limit"] == 15
    assert prefs["torrent_files_backup_dir"] == "backup" and prefs["mail_notification_encryption_type"] == "SMTPS"
    assert "export_dir" not in prefs and "mail_notification_ssl_enabled" not in prefs


def test_free_space_at_a_path(qbtd_factory, tmp_path):
    q, s = v53(qbtd_factory)
    here = int(s.get(q.url("app/getFreeSpaceAtPath"), params={"path": str(tmp_path)}).text)
    assert here > 0
    # A folder made on demand: its nearest existing ancestor's free space.
    deeper = s.get(q.url("app/getFreeSpaceAtPath"), params={"path": str(tmp_path / "not" / "yet")})
    assert deeper.status_code == 200 and abs(int(deeper.text) - here) < 64 * 1024 * 1024
    assert s.get(q.url("app/getFreeSpaceAtPath"), params={"path": "relative/x"}).text == "-1"
    missing = s.get(q.url("app/getFreeSpaceAtPath"))
    assert (missing.status_code, missing.text) == (400, "Missing required parameters: path")
    # Not in 5.2.
    q52 = qbtd_factory(extra=["--profile", "5.2"])
    assert q52.session().get(q52.url("app/getFreeSpaceAtPath"), params={"path": "/"}).status_code == 404


def test_speed_limits_all_four(qbtd_factory):
    q, s = v53(qbtd_factory)
    r = s.post(q.url("transfer/setSpeedLimits"), data={"up_limit": 1000})
    assert (r.status_code, r.text) == (400, "Missing required parameters: dl_limit, alt_up_limit, alt_dl_limit")
    r = s.post(q.url("transfer/setSpeedLimits"),
               data={"up_limit": 1000, "dl_limit": 2000, "alt_up_limit": 3000, "alt_dl_limit": 4000})
    assert (r.status_code, r.text) == (204, "")
    # Whole KiB/s, rounded down, at least 1 KiB/s (5.3.0 keeps them so).
    assert s.get(q.url("transfer/getSpeedLimits")).json() == {
        "alt_dl_limit": 3072, "alt_up_limit": 2048, "dl_limit": 1024, "up_limit": 1024}
    s.post(q.url("transfer/setSpeedLimits"), data={"up_limit": "abc", "dl_limit": -5, "alt_up_limit": "+4096", "alt_dl_limit": ""})
    assert s.get(q.url("transfer/getSpeedLimits")).json() == {
        "alt_dl_limit": 0, "alt_up_limit": 4096, "dl_limit": 0, "up_limit": 0}
    assert s.get(q.url("transfer/setSpeedLimits"), params={"up_limit": 1, "dl_limit": 1, "alt_up_limit": 1,
                                                            "alt_dl_limit": 1}).status_code == 405


def test_pause_and_resume_the_session_and_start_paused(qbtd_factory, tmp_path):
    data, torrent_id = make_torrent(tmp_path / "src", "held")
    q, s = v53(qbtd_factory, data_dir=tmp_path / "data")
    assert s.post(q.url("torrents/add"), files={"torrents": ("held.torrent", data)}).status_code == 200
    assert s.post(q.url("transfer/pauseSession")).status_code == 204
    assert s.post(q.url("transfer/pauseSession")).status_code == 204  # again: nothing changes
    assert s.get(q.url("transfer/pauseSession")).status_code == 405
    assert server_state(s, q)["session_state"] is True
    # The torrent's own state is untouched, and it can still be started.
    t = s.get(q.url("torrents/info")).json()[0]
    assert t["state"] not in ("stoppedDL", "stoppedUP"), t
    assert s.post(q.url("torrents/start"), data={"hashes": torrent_id}).status_code == 200
    assert s.post(q.url("transfer/resumeSession")).status_code == 204
    assert server_state(s, q)["session_state"] is False

    # start_paused: the session starts paused at the next start.
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps({"start_paused": True})})
    assert r.status_code == 200
    q.stop()
    q2, s2 = v53(qbtd_factory, data_dir=tmp_path / "data")
    assert server_state(s2, q2)["session_state"] is True
    assert s2.get(q2.url("app/preferences")).json()["start_paused"] is True


def test_clone_rule(qbtd_factory):
    q, s = v53(qbtd_factory)
    rule = {"enabled": True, "mustContain": "foo", "previouslyMatchedEpisodes": ["S01E01"], "lastMatch": "12 Jan 2026 10:00:00"}
    s.post(q.url("rss/setRule"), data={"ruleName": "r1", "ruleDef": json.dumps(rule)})
    r = s.post(q.url("rss/cloneRule"))
    assert (r.status_code, r.text) == (400, "Missing required parameters: sourceName, cloneName")
    assert s.post(q.url("rss/cloneRule"), data={"sourceName": "r1", "cloneName": "r2"}).status_code == 200
    # Unknown sources and taken names: 200, nothing happens.
    assert s.post(q.url("rss/cloneRule"), data={"sourceName": "nope", "cloneName": "r3"}).status_code == 200
    assert s.post(q.url("rss/cloneRule"), data={"sourceName": "r1", "cloneName": "r2"}).status_code == 200
    assert s.get(q.url("rss/cloneRule"), params={"sourceName": "r1", "cloneName": "r9"}).status_code == 405
    rules = s.get(q.url("rss/rules")).json()
    assert set(rules) == {"r1", "r2"}
    assert rules["r2"]["mustContain"] == "foo" and rules["r2"]["enabled"] is False
    assert rules["r2"]["previouslyMatchedEpisodes"] == [] and rules["r2"]["lastMatch"] == ""


def test_share_limits_mode(qbtd_factory, tmp_path):
    data, torrent_id = make_torrent(tmp_path / "src", "limited")
    q, s = v53(qbtd_factory)
    s.post(q.url("torrents/add"), files={"torrents": ("l.torrent", data)}, data={"shareLimitsMode": "MatchAll"})
    t = s.get(q.url("torrents/info")).json()[0]
    assert t["share_limits_mode"] == "MatchAll"
    base = {"hashes": torrent_id, "ratioLimit": 2, "seedingTimeLimit": 60, "inactiveSeedingTimeLimit": -2,
            "shareLimitAction": "Stop"}
    r = s.post(q.url("torrents/setShareLimits"), data=base)
    assert (r.status_code, r.text) == (400, "Missing required parameters: shareLimitsMode")
    assert s.post(q.url("torrents/setShareLimits"), data={**base, "shareLimitsMode": "Bogus"}).status_code == 200
    t = s.get(q.url("torrents/info")).json()[0]
    assert t["share_limits_mode"] == "Default" and t["ratio_limit"] == 2


def test_sessions_count_limit_evicts_the_oldest(qbtd_factory):
    q, first = v53(qbtd_factory)
    assert first.get(q.url("app/version")).status_code == 200
    s = first
    s.post(q.url("app/setPreferences"), data={"json": json.dumps({"web_ui_sessions_count_limit": 3})})
    later = [q.session() for _ in range(3)]
    assert first.get(q.url("app/version")).status_code == 403
    assert all(x.get(q.url("app/version")).status_code == 200 for x in later)
    # 5.1 has no such limit.
    q51 = qbtd_factory(extra=["--profile", "5.1"])
    sessions = [q51.session() for _ in range(20)]
    assert all(x.get(q51.url("app/version")).status_code == 200 for x in sessions)


def test_torrent_file_backup_folders(qbtd_factory, tmp_path):
    data, torrent_id = make_torrent(tmp_path / "src", "kept")
    q, s = v53(qbtd_factory, data_dir=tmp_path / "data")
    backup = tmp_path / "backups"
    s.post(q.url("app/setPreferences"), data={"json": json.dumps({
        "torrent_files_backup_enabled": True, "torrent_files_backup_dir": str(backup)})})
    s.post(q.url("torrents/add"), files={"torrents": ("kept.torrent", data)}, data={"stopped": "true"})
    wait_for(lambda: (backup / "kept.torrent").exists(), 20, what="the .torrent backup")
    assert (backup / "kept.torrent").read_bytes() == data
    # A relative folder is under the data folder.
    s.post(q.url("app/setPreferences"), data={"json": json.dumps({"torrent_files_backup_dir": "relative-backup"})})
    data2, _ = make_torrent(tmp_path / "src2", "second")
    s.post(q.url("torrents/add"), files={"torrents": ("second.torrent", data2)}, data={"stopped": "true"})
    wait_for(lambda: (tmp_path / "data" / "relative-backup" / "second.torrent").exists(), 20, what="the relative backup")


def test_gzip_as_qbittorrent_compresses(qbtd_factory):
    q, s = v53(qbtd_factory)
    r = s.get(q.url("app/preferences"), headers={"Accept-Encoding": "gzip"})
    assert r.headers.get("Content-Encoding") == "gzip" and "Vary" not in r.headers
    assert r.json()["share_limits_mode"] == "MatchAny"  # requests inflates it
    plain = s.get(q.url("app/preferences"), headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    assert int(r.headers["Content-Length"]) < int(plain.headers["Content-Length"]) / 2
    # deflate alone is not offered; a refused gzip (q=0) is respected; small answers are never compressed.
    assert "Content-Encoding" not in s.get(q.url("app/preferences"), headers={"Accept-Encoding": "deflate"}).headers
    assert "Content-Encoding" not in s.get(q.url("app/preferences"), headers={"Accept-Encoding": "gzip;q=0"}).headers
    assert "Content-Encoding" not in s.get(q.url("app/version"), headers={"Accept-Encoding": "gzip"}).headers
    # The web interface's files too.
    page = requests.get(q.base + "/", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and page.headers.get("Content-Encoding") == "gzip"


def test_sec_fetch_site_is_a_cross_site_sign(qbtd_factory):
    q, s = v53(qbtd_factory)
    for site, status in [("cross-site", 401), ("same-site", 401), ("same-origin", 200), ("none", 200), ("", 200)]:
        r = s.get(q.url("app/version"), headers={"Sec-Fetch-Site": site})
        assert r.status_code == status, (site, r.status_code, r.text)
    r = requests.post(q.url("auth/login"), data={"username": "admin", "password": PASSWORD},
                      headers={"Sec-Fetch-Site": "cross-site"})
    assert (r.status_code, r.text) == (401, "Unauthorized")
    assert requests.get(q.base + "/", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200  # the page itself
    # 5.1 does not read the header.
    q51 = qbtd_factory(extra=["--profile", "5.1"])
    assert q51.session().get(q51.url("app/version"), headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200


def test_seed_mode_replaces_skip_checking(qbtd_factory, tmp_path):
    q, s = v53(qbtd_factory)
    a, a_id = make_torrent(tmp_path / "a", "a")
    b, b_id = make_torrent(tmp_path / "b", "b")
    s.post(q.url("torrents/add"), files={"torrents": ("a.torrent", a)}, data={"seedMode": "true", "savepath": str(tmp_path / "a")})
    s.post(q.url("torrents/add"), files={"torrents": ("b.torrent", b)}, data={"skip_checking": "true", "savepath": str(tmp_path / "b")})

    def progress(torrent_id):
        rows = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()
        return rows[0]["progress"] if rows else None

    wait_for(lambda: progress(a_id) == 1, 20, what="the seed-mode torrent to be complete at once")
    # skip_checking is ignored: the data is checked, and found (it is there), rather than taken on trust.
    wait_for(lambda: progress(b_id) == 1, 20, what="the checked torrent to be complete")
    assert s.post(q.url("search/downloadTorrent"), data={"torrentUrl": "x", "pluginName": "y"}).status_code != 405
    assert s.get(q.url("search/downloadTorrent"), params={"torrentUrl": "x", "pluginName": "y"}).status_code == 405
    assert s.get(q.url("rss/setFeedRefreshInterval"), params={"path": "x", "refreshInterval": 60}).status_code == 405


def test_torrent_creator_times_and_dot_files(qbtd_factory, tmp_path):
    q, s = v53(qbtd_factory, data_dir=tmp_path / "data")
    src = tmp_path / "data" / "downloads" / "src"
    (src / ".hidden").mkdir(parents=True)
    (src / "a.txt").write_bytes(b"a" * 1000)
    (src / ".dot").write_bytes(b"d" * 1000)
    (src / ".hidden" / "h.txt").write_bytes(b"h" * 1000)
    ids = []
    for extra in ({}, {"ignoreDotfiles": "false"}):
        r = s.post(q.url("torrentcreator/addTask"), data={"sourcePath": str(src), "startSeeding": "false", "format": "v1", **extra})
        assert r.status_code == 200, r.text
        ids.append(r.json()["taskID"])

    def finished():
        tasks = {t["taskID"]: t for t in s.get(q.url("torrentcreator/status")).json()}
        return tasks if all(tasks.get(i, {}).get("status") == "Finished" for i in ids) else None

    tasks = wait_for(finished, 30, what="the two creations")
    first = tasks[ids[0]]
    assert all(isinstance(first[k], int) for k in ("timeAdded", "timeStarted", "timeFinished")), first
    assert first["ignoreDotfiles"] is True and first["trackers"] == [""] and first["urlSeeds"] == [""]
    assert tasks[ids[1]]["ignoreDotfiles"] is False

    import libtorrent as lt
    def names(task_id):
        data = s.get(q.url("torrentcreator/torrentFile"), params={"taskID": task_id}).content
        files = lt.torrent_info(lt.bdecode(data)).files()
        return sorted(files.file_path(i) for i in range(files.num_files()))
    assert names(ids[0]) == ["src/a.txt"]
    assert names(ids[1]) == ["src/.dot", "src/.hidden/h.txt", "src/a.txt"]


def test_export_and_import_rules(qbtd_factory):
    q, s = v53(qbtd_factory)
    s.post(q.url("rss/setRule"), data={"ruleName": "r1", "ruleDef": json.dumps({"enabled": True, "mustContain": "foo"})})
    r = s.get(q.url("rss/exportRules"))
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert r.headers["Content-Disposition"] == 'attachment; filename="rss-downloader-rules.json"'
    # Qt's indented JSON, as 5.3.0 writes it.
    assert r.text.startswith('{\n    "r1": {\n        "addPaused": null,\n        "affectedFeeds": [\n        ],\n')
    assert r.text.endswith("}\n")
    exported = r.content
    s.post(q.url("rss/removeRule"), data={"ruleName": "r1"})
    r = s.post(q.url("rss/importRules"), files={"rules": ("rules.json", exported)})
    assert (r.status_code, r.text) == (204, "")
    assert s.get(q.url("rss/rules")).json()["r1"]["mustContain"] == "foo"
    for files, text in [({}, "Exactly one rules file is required"),
                        ({"a": ("a.json", b"{}"), "b": ("b.json", b"{}")}, "Exactly one rules file is required"),
                        ({"rules": ("x.json", b"not json")}, "illegal value"),
                        ({"rules": ("x.json", b"[]")}, "Invalid data format.")]:
        r = s.post(q.url("rss/importRules"), files=files) if files else s.post(q.url("rss/importRules"))
        assert (r.status_code, r.text) == (400, text), (files, r.status_code, r.text)


def test_directory_content(qbtd_factory, tmp_path):
    q, s = v53(qbtd_factory)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "sub").mkdir()
    (tmp_path / "d" / "f.txt").write_bytes(b"12345")
    (tmp_path / "d" / ".hidden").write_bytes(b"x")
    listing = s.get(q.url("app/getDirectoryContent"), params={"dirPath": str(tmp_path / "d")}).json()
    assert listing == [str(tmp_path / "d" / "f.txt"), str(tmp_path / "d" / "sub")]
    rich = s.get(q.url("app/getDirectoryContent"), params={"dirPath": str(tmp_path / "d"), "withMetadata": "true"}).json()
    assert [(x["name"], x["type"], x.get("size")) for x in rich] == [("f.txt", "file", 5), ("sub", "dir", None)]
    assert all(isinstance(x["last_modification_date"], int) for x in rich)
    root = s.get(q.url("app/getDirectoryContent"), params={"dirPath": "/", "mode": "dirs"}).json()
    assert "/tmp" in root and not any(x.startswith("//") for x in root)
    r = s.get(q.url("app/getDirectoryContent"), params={"dirPath": str(tmp_path / "nope")})
    assert (r.status_code, r.text) == (404, "Directory does not exist")


def test_a_tls_handshake_on_the_plain_port_gets_no_answer(qbtd_factory):
    """As qbittorrent-nox: a ClientHello never ends a request head, so nothing is answered (the client times out and
    may try HTTPS); the same bytes followed by CRLF CRLF are a malformed request, 400 (test_malformed_http.py)."""
    import socket
    q, s = v53(qbtd_factory)
    with socket.create_connection(("127.0.0.1", q.port), timeout=2) as c:
        c.sendall(b"\x16\x03\x01\x00" + b"\x00" * 60)
        with pytest.raises(socket.timeout):
            c.recv(100)
    assert s.get(q.url("app/version")).status_code == 200  # the server goes on


def test_download_file_with_ranges(qbtd_factory, tmp_path):
    q, s = v53(qbtd_factory)
    data, torrent_id = make_torrent(tmp_path / "src", "dl", size=100_000)
    body = (tmp_path / "src" / "dl" / "dl.bin").read_bytes()
    s.post(q.url("torrents/add"), files={"torrents": ("dl.torrent", data)},
           data={"seedMode": "true", "savepath": str(tmp_path / "src")})
    wait_for(lambda: (rows := s.get(q.url("torrents/info")).json()) and rows[0]["progress"] == 1, 20, what="the seed")
    url = q.url("torrents/downloadFile")
    r = s.get(url, params={"hash": torrent_id, "file": 0}, headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.content == body
    assert r.headers["Accept-Ranges"] == "bytes" and "Content-Encoding" not in r.headers
    assert r.headers["Content-Disposition"] == 'attachment; filename="dl.bin"'
    assert r.headers["Content-Type"] == "application/octet-stream"
    assert s.get(url, params={"hash": torrent_id, "file": "dl/dl.bin"}).content == body
    r = s.head(url, params={"hash": torrent_id, "file": 0})
    assert r.status_code == 200 and r.headers["Content-Length"] == "100000"
    for header, status, content_range, part in [
            ("bytes=0-9", 206, "bytes 0-9/100000", body[:10]), ("bytes=-5", 206, "bytes 99995-99999/100000", body[-5:]),
            ("bytes=5-", 206, "bytes 5-99999/100000", body[5:]), ("bytes=0-0", 206, "bytes 0-0/100000", body[:1]),
            ("bytes=0-4,10-14", 400, None, b""), ("bytes=5-2", 400, None, b""), ("items=0-5", 400, None, b""),
            ("bytes=99990-200000", 416, "bytes */100000", b""), ("bytes=100000-", 416, "bytes */100000", b"")]:
        r = s.get(url, params={"hash": torrent_id, "file": 0}, headers={"Range": header})
        assert (r.status_code, r.headers.get("Content-Range"), r.content) == (status, content_range, part), header
    for params, status, text in [({"hash": torrent_id, "file": 7}, 409, "File index 7 is out of bounds"),
                                 ({"hash": torrent_id, "file": -1}, 409, '"-1" is not a valid file index'),
                                 ({"hash": torrent_id, "file": "dl.bin"}, 409, '"dl.bin" is not a valid file path'),
                                 ({"hash": torrent_id}, 400, "Missing required parameters: file"),
                                 ({"hash": "0" * 40, "file": 0}, 404, "Torrent not found")]:
        r = s.get(url, params=params)
        assert (r.status_code, r.text) == (status, text), params
    other, other_id = make_torrent(tmp_path / "none", "missing")
    s.post(q.url("torrents/add"), files={"torrents": ("m.torrent", other)}, data={"stopped": "true", "savepath": str(tmp_path / "empty")})
    wait_for(lambda: len(s.get(q.url("torrents/info")).json()) == 2, 20, what="the second torrent")
    r = s.get(url, params={"hash": other_id, "file": 0})
    assert (r.status_code, r.text) == (409, "File not fully downloaded")


def test_category_share_limits(qbtd_factory):
    q, s = v53(qbtd_factory)
    r = s.post(q.url("torrents/createCategory"), data={
        "category": "sl", "savePath": "/tmp/sl", "ratioLimit": 1.5, "seedingTimeLimit": 120,
        "inactiveSeedingTimeLimit": 60, "shareLimitAction": "Stop", "shareLimitsMode": "MatchAll"})
    assert r.status_code == 200, r.text
    c = s.get(q.url("torrents/categories")).json()["sl"]
    assert (c["ratio_limit"], c["seeding_time_limit"], c["inactive_seeding_time_limit"], c["share_limit_action"],
            c["share_limits_mode"], c["download_path"]) == (1.5, 120, 60, "Stop", "MatchAll", None)
    # An edit changes only what it names (savePath included).
    r = s.post(q.url("torrents/editCategory"), data={"category": "sl", "ratioLimit": -1, "seedingTimeLimit": -2,
                                                     "shareLimitAction": "Remove", "shareLimitsMode": "MatchAny"})
    assert r.status_code == 200, r.text
    c = s.get(q.url("torrents/categories")).json()["sl"]
    assert (c["ratio_limit"], c["seeding_time_limit"], c["inactive_seeding_time_limit"], c["share_limit_action"],
            c["share_limits_mode"], c["savePath"]) == (-1, -2, 60, "Remove", "MatchAny", "/tmp/sl")
    for bad in ({"ratioLimit": -3}, {"shareLimitsMode": "Bogus"}, {"seedingTimeLimit": "x"}):
        r = s.post(q.url("torrents/createCategory"), data={"category": "bad", **bad})
        name = next(iter(bad))
        assert (r.status_code, r.text) == (400, f"'{name}' parameter has invalid value"), bad
    assert "bad" not in s.get(q.url("torrents/categories")).json()
    r = s.post(q.url("torrents/editCategory"), data={"category": "nope"})
    assert (r.status_code, r.text) == (404, "Category does not exist")


def test_a_category_limit_stops_its_torrents(qbtd_factory, tmp_path):
    """The torrent has no limit of its own and none is set globally: its category's seeding-time limit (0 minutes,
    action Stop) applies, as 5.3's effective limits say."""
    q, s = v53(qbtd_factory)
    s.post(q.url("torrents/createCategory"), data={"category": "brief", "seedingTimeLimit": 0, "shareLimitAction": "Stop"})
    data, torrent_id = make_torrent(tmp_path / "src", "brief")
    s.post(q.url("torrents/add"), files={"torrents": ("b.torrent", data)},
           data={"seedMode": "true", "savepath": str(tmp_path / "src"), "category": "brief"})
    wait_for(lambda: (rows := s.get(q.url("torrents/info")).json()) and rows[0]["state"] == "stoppedUP", 30,
             what="the category's limit to stop the torrent")
