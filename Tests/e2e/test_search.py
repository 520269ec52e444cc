"""Acceptance for search: nova3 plugins installed and run as qBittorrent runs them, paging, adding a result that
then downloads from a loopback seeder, misbehaving plugins, Torznab indexers, the built-in plugin, and Python missing."""
import os
import time

import pytest

from conftest import plugin_processes, wait_for
from search_fixtures import CRASH_BODY, FLOOD_BODY, GARBAGE_BODY, HANG_BODY, Site, write_plugin


@pytest.fixture
def site(seeder):
    s = Site(results=25, torrent=seeder.torrent)
    yield s
    s.close()


def finished(s, q, job, timeout=30):
    wait_for(lambda: s.get(q.url("search/status"), params={"id": job}).json()[0]["status"] == "Stopped", timeout,
             what=f"search {job} to finish")
    return s.get(q.url("search/results"), params={"id": job}).json()


def start(s, q, pattern, plugins, category="all"):
    r = s.post(q.url("search/start"), data={"pattern": pattern, "category": category, "plugins": plugins})
    assert r.status_code == 200, r.text
    return r.json()["id"]


def test_plugin_search_pages_and_adds_a_result(qbtd_factory, site, seeder, tmp_path):
    q = qbtd_factory()
    s = q.session()
    plugin = write_plugin(tmp_path, "localsite", site.url)
    assert s.post(q.url("search/installPlugin"), data={"sources": str(plugin)}).status_code == 200
    plugins = {p["name"]: p for p in s.get(q.url("search/plugins")).json()}
    assert plugins["localsite"] == {
        "name": "localsite", "version": "1.0", "fullName": "localsite engine", "url": site.url, "enabled": True,
        "supportedCategories": [{"id": "all", "name": "All categories"}, {"id": "movies", "name": "Movies"},
                                {"id": "tv", "name": "TV shows"}]}
    assert plugins["qbtd_local"]["enabled"] is True

    job = start(s, q, "big buck", "localsite", category="movies")
    got = finished(s, q, job)
    assert got["status"] == "Stopped" and got["total"] == 25 and len(got["results"]) == 25
    assert site.requests[-1] == ("/search", {"q": "big buck", "cat": "movies"})  # argv words, quoted once
    first = got["results"][0]
    assert first == {"fileName": "big buck result 0   piped", "fileUrl": f"{site.url}/t/0.torrent",
                     "fileSize": int(1.5 * 1024 * 1024), "nbSeeders": 100, "nbLeechers": 0, "siteUrl": site.url,
                     "descrLink": f"{site.url}/d/0", "engineName": "localsite", "pubDate": 1700000000}

    page = s.get(q.url("search/results"), params={"id": job, "limit": 10, "offset": 10}).json()
    assert [r["fileUrl"] for r in page["results"]] == [f"{site.url}/t/{i}.torrent" for i in range(10, 20)]
    assert page["total"] == 25
    tail = s.get(q.url("search/results"), params={"id": job, "offset": -5}).json()["results"]
    assert [r["nbLeechers"] for r in tail] == [20, 21, 22, 23, 24]
    out = s.get(q.url("search/results"), params={"id": job, "offset": 26})
    assert (out.status_code, out.text) == (409, "Offset is out of range")
    assert s.get(q.url("search/results"), params={"id": job + 1}).status_code == 404
    assert [j["id"] for j in s.get(q.url("search/status")).json()] == [job]

    # The result's link, added as a client does it, downloads from the loopback seeder.
    assert s.post(q.url("torrents/add"), data={"urls": first["fileUrl"], "savepath": "found"}).text == "Ok."
    wait_for(lambda: s.get(q.url("torrents/info")).json(), 15, what="the result's torrent listed")
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json()[0]["progress"] == 1, 60,
             what="download of the result")
    seeder.verify(q.data_dir / "downloads" / "found")

    # The built-in plugin finds the torrent qbtd now has.
    local = finished(s, q, start(s, q, "payload", "qbtd_local"))
    assert [r["fileName"] for r in local["results"]] == ["payload"]
    assert local["results"][0]["fileUrl"].startswith("magnet:?xt=urn:btih:")

    # Disabled plugins leave "enabled" searches; delete ends a job.
    s.post(q.url("search/enablePlugin"), data={"names": "localsite|qbtd_local", "enable": "false"})
    assert all(not p["enabled"] for p in s.get(q.url("search/plugins")).json() if p["name"] in ("localsite", "qbtd_local"))
    assert finished(s, q, start(s, q, "big buck", "enabled"))["total"] == 0
    assert s.post(q.url("search/delete"), data={"id": job}).status_code == 200
    assert s.get(q.url("search/status"), params={"id": job}).status_code == 404

    # Reinstalling the same version is refused (logged); a newer one replaces it; uninstall removes the file.
    s.post(q.url("search/installPlugin"), data={"sources": str(plugin)})
    assert "A more recent version of this plugin is already installed." in " ".join(
        m["message"] for m in s.get(q.url("log/main")).json())
    write_plugin(tmp_path, "localsite", site.url, minor=1)
    s.post(q.url("search/installPlugin"), data={"sources": str(plugin)})
    assert {p["name"]: p for p in s.get(q.url("search/plugins")).json()}["localsite"]["version"] == "1.1"
    s.post(q.url("search/uninstallPlugin"), data={"names": "localsite"})
    assert "localsite" not in [p["name"] for p in s.get(q.url("search/plugins")).json()]
    assert not (q.data_dir / "nova3" / "engines" / "localsite.py").exists()


def test_bad_plugins_end_cleanly_and_keep_good_results(qbtd_factory, site, tmp_path):
    q = qbtd_factory(extra=["--search-timeout", "6"])
    s = q.session()
    for name, body in (("hangs", HANG_BODY), ("crashes", CRASH_BODY), ("garbage", GARBAGE_BODY), ("floods", FLOOD_BODY)):
        s.post(q.url("search/installPlugin"), data={"sources": str(write_plugin(tmp_path, name, site.url, body))})
    assert {"hangs", "crashes", "garbage"} <= {p["name"] for p in s.get(q.url("search/plugins")).json()}
    t0 = time.monotonic()
    got = finished(s, q, start(s, q, "x", "hangs|crashes|garbage|floods"), timeout=20)
    assert time.monotonic() - t0 < 15
    assert sorted(r["fileName"] for r in got["results"]) == ["crash ok", "garbage ok", "hang ok"]
    log = " ".join(m["message"] for m in s.get(q.url("log/main")).json())
    assert "'hangs' timed out" in log and "'crashes' failed" in log and "this engine crashes on purpose" in log
    assert "'garbage' printed 5 line(s) that are not results" in log, log
    assert "'floods' printed too much and was stopped" in log
    wait_for(lambda: not plugin_processes(q), 10, what="no plugin process left")

    # stop ends a running search at once; a 6th running search is refused.
    jobs = [start(s, q, "x", "hangs") for _ in range(5)]
    r = s.post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "hangs"})
    assert (r.status_code, r.text) == (409, "Unable to create more than 5 concurrent searches.")
    for job in jobs:
        assert s.post(q.url("search/stop"), data={"id": job}).status_code == 200
    assert {j["status"] for j in s.get(q.url("search/status")).json()} == {"Stopped"}
    wait_for(lambda: not plugin_processes(q), 10, what="stopped plugin processes gone")

    # Hostile installs: not a .py, a bad module name, a file that is no engine.
    junk = tmp_path / "junk.py"
    junk.write_text("this is not python\n")
    for source in ("/etc/passwd", str(tmp_path / "_private.py"), str(junk), "ftp://127.0.0.1/x.py"):
        assert s.post(q.url("search/installPlugin"), data={"sources": source}).status_code == 200
    assert {p["name"] for p in s.get(q.url("search/plugins")).json()} == {"hangs", "crashes", "garbage", "floods",
                                                                          "qbtd_local"}
    assert s.post(q.url("search/start"), data={"pattern": "x"}).status_code == 400


def test_torznab_indexer_maps_categories(qbtd_factory, site, seeder):
    q = qbtd_factory()
    s = q.session()
    r = s.post(q.url("qbtd/addTorznabIndexer"), data={"name": "jackett", "url": site.url + "/torznab/",
                                                     "apiKey": "secret", "fullName": "Jackett fixture"})
    assert r.json() == {"added": "jackett"}
    bad = s.post(q.url("qbtd/addTorznabIndexer"), data={"name": "../x", "url": site.url})
    assert bad.status_code == 400 and "error" in bad.json()
    got = finished(s, q, start(s, q, "big buck", "jackett", category="tv"))
    path, query = site.requests[-1]
    assert path == "/torznab/api" and query == {"t": "search", "q": "big buck", "apikey": "secret", "cat": "5000"}
    assert got["total"] == 3
    first = got["results"][0]
    assert first == {"fileName": "big buck indexer 0", "fileUrl": f"{site.url}/t/0.torrent", "fileSize": 1048576,
                     "nbSeeders": 10, "nbLeechers": 10, "siteUrl": site.url + "/torznab/",
                     "descrLink": f"{site.url}/details/0", "engineName": "jackett", "pubDate": 1136214240}
    # 5.0's downloadTorrent adds a result's .torrent as a client's "download" button does.
    assert s.post(q.url("search/downloadTorrent"), data={"torrentUrl": first["fileUrl"], "pluginName": "jackett"}).ok
    wait_for(lambda: s.get(q.url("torrents/info")).json(), 15, what="the downloaded result listed")
    finished(s, q, start(s, q, "x", "jackett", category="movies"))
    assert site.requests[-1][1]["cat"] == "2000"
    finished(s, q, start(s, q, "x", "jackett", category="all"))
    assert "cat" not in site.requests[-1][1]


def test_python_missing_answers_like_qbittorrent(qbtd_factory, site, tmp_path):
    q = qbtd_factory()
    s = q.session()
    s.post(q.url("search/installPlugin"), data={"sources": str(write_plugin(tmp_path, "localsite", site.url))})
    q.stop()
    q.extra = []
    old_path = os.environ["PATH"]
    os.environ["PATH"] = str(tmp_path / "nothing-here")
    try:
        q.start()
    finally:
        os.environ["PATH"] = old_path
    s = q.session()
    r = s.post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "localsite"})
    assert (r.status_code, r.text) == (409, "Python must be installed to use the Search Engine.")
    assert any("apt-get install python3" in m["message"] for m in s.get(q.url("log/main")).json())
    # The built-in plugin needs no Python.
    assert finished(s, q, start(s, q, "x", "qbtd_local"))["status"] == "Stopped"
