"""qBittorrent's RSS on qbtd: the tree and its 409s, feeds fetched from a server on 127.0.0.1 that changes between
refreshes, articles and read state across restarts and SIGKILL, conditional GETs, broken and hostile feeds, the
auto-downloader adding what its rules match (once), and 5.2's per-feed refresh interval."""
import json
import time

import pytest

from conftest import wait_for
from rss_support import FeedServer, ForwardProxy, day, make_torrent, rss
from test_v52_routes import login


@pytest.fixture
def feeds():
    server = FeedServer()
    yield server
    server.stop()


def call(s, q, action, **data):
    return s.post(q.url(f"rss/{action}"), data=data, timeout=10)


def tree(s, q, with_data=False):
    r = s.get(q.url("rss/items"), params={"withData": str(with_data).lower()}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def feed_of(s, q, path):
    node = tree(s, q, True)
    for part in path.split("\\"):
        node = node[part]
    return node


def loaded(s, q, path, count=None):
    """Waits (bounded) until the feed's refresh is over (and it holds `count` articles); returns it."""
    def done():
        f = feed_of(s, q, path)
        return not f["isLoading"] and (count is None or len(f["articles"]) == count)
    wait_for(done, 30, what=f"feed {path} refreshed")
    return feed_of(s, q, path)


def set_prefs(s, q, **prefs):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(prefs)}, timeout=10)
    assert r.status_code == 200, r.text


def log_lines(s, q):
    return [e["message"] for e in s.get(q.url("log/main"), timeout=10).json()]


def test_tree_routes_answer_as_qbittorrent(qbtd_factory, feeds):
    q = qbtd_factory()
    s = q.session()
    url = feeds.put("/a.xml", rss("A", []))
    assert call(s, q, "addFolder", path="Linux").status_code == 200
    assert call(s, q, "addFolder", path="Linux\\Distros").status_code == 200
    assert call(s, q, "addFeed", url=url, path="Linux\\Distros\\A").status_code == 200
    cases = [
        ("addFolder", {"path": "Linux"}, "RSS item with given path already exists: Linux."),
        ("addFolder", {"path": "Nope\\X"}, "Parent folder doesn't exist: Nope."),
        ("addFolder", {"path": "a\\\\b"}, "Incorrect RSS Item path: a\\\\b."),
        ("addFolder", {"path": ""}, "Incorrect RSS Item path: ."),
        ("addFeed", {"url": url, "path": "B"}, f"RSS feed with given URL already exists: {url}."),
        ("addFeed", {"url": url + "?2", "path": "Linux\\Distros\\A\\B"}, "Parent folder doesn't exist: Linux\\Distros\\A."),
        ("setFeedURL", {"path": "Linux", "url": "http://x/"}, "Feed doesn't exist: Linux."),
        ("removeItem", {"path": ""}, "Cannot delete root folder."),
        ("removeItem", {"path": "Nope"}, "Item doesn't exist: Nope."),
        ("moveItem", {"itemPath": "", "destPath": "X"}, "Cannot move root folder."),
        ("moveItem", {"itemPath": "Nope", "destPath": "X"}, "Item doesn't exist: Nope."),
        ("moveItem", {"itemPath": "Linux", "destPath": "Linux\\Distros\\Deeper"}, "Couldn't move folder into itself."),
    ]
    for action, data, text in cases:
        r = call(s, q, action, **data)
        assert (r.status_code, r.text) == (409, text), (action, data)
    assert call(s, q, "addFolder").status_code == 400  # path missing
    assert s.get(q.url("rss/addFolder"), params={"path": "X"}, timeout=10).status_code == 405
    got = tree(s, q)
    uid = got["Linux"]["Distros"]["A"]["uid"]
    assert got == {"Linux": {"Distros": {"A": {"uid": uid, "url": url}}}}
    assert uid.startswith("{") and uid.endswith("}") and len(uid) == 38
    # A move renames, and what a folder holds moves with it.
    assert call(s, q, "moveItem", itemPath="Linux\\Distros", destPath="Distros").status_code == 200
    assert tree(s, q) == {"Linux": {}, "Distros": {"A": {"uid": uid, "url": url}}}
    assert call(s, q, "setFeedURL", path="Distros\\A", url=url + "?v=2").status_code == 200
    assert call(s, q, "removeItem", path="Distros\\A").status_code == 200  # the moved feed is found at its new path
    assert tree(s, q) == {"Linux": {}, "Distros": {}}
    # With an empty path a feed sits at the root under its URL.
    assert call(s, q, "addFeed", url=url, path="").status_code == 200
    assert tree(s, q)["Linux"] == {} and tree(s, q)[url]["url"] == url


def test_feeds_refresh_keep_articles_and_survive_kill(qbtd_factory, feeds, tmp_path):
    q = qbtd_factory()
    s = q.session()
    set_prefs(s, q, rss_processing_enabled=True, rss_max_articles_per_feed=4)
    items = [{"title": f"Item {i}", "guid": f"g{i}", "link": f"http://127.0.0.1/{i}", "date": day(i),
              "description": "<b>bold</b> & text"} for i in range(3)]
    url = feeds.put("/news.xml", rss("News & more", items))
    assert call(s, q, "addFeed", url=url, path="News").status_code == 200
    f = loaded(s, q, "News", 3)
    assert f["title"] == "News & more" and f["hasError"] is False and f["url"] == url
    assert set(f) == {"uid", "url", "title", "lastBuildDate", "isLoading", "hasError", "articles"}
    first = f["articles"][0]
    assert [a["id"] for a in f["articles"]] == ["g2", "g1", "g0"]  # newest first
    assert first == {"id": "g2", "title": "Item 2", "link": "http://127.0.0.1/2", "date": "03 Jan 2026 12:00:00 +0000",
                     "description": "<b>bold</b> & text", "torrentURL": "http://127.0.0.1/2"}
    # The same body again: a conditional GET, answered 304.
    call(s, q, "refreshItem", itemPath="News")
    wait_for(lambda: feeds.not_modified.get("/news.xml", 0) == 1, 30, what="a 304")
    # New articles join; the limit keeps the newest four.
    items += [{"title": f"Item {i}", "guid": f"g{i}", "date": day(i)} for i in (3, 4)]
    feeds.put("/news.xml", rss("News", items))
    call(s, q, "refreshItem", itemPath="")
    wait_for(lambda: [a["id"] for a in feed_of(s, q, "News")["articles"]] == ["g4", "g3", "g2", "g1"], 30,
             what="the new articles")
    assert call(s, q, "markAsRead", itemPath="News", articleId="g3").status_code == 200
    assert call(s, q, "markAsRead", itemPath="Nope").status_code == 200  # unknown: nothing, no error
    assert [a.get("isRead", False) for a in feed_of(s, q, "News")["articles"]] == [False, True, False, False]
    call(s, q, "addFolder", path="Empty")
    call(s, q, "setRule", ruleName="R", ruleDef=json.dumps({"mustContain": "item", "affectedFeeds": [url]}))
    # SIGKILL: what was acknowledged is there after the restart.
    q.kill()
    q.start()
    s = q.session()
    f = feed_of(s, q, "News")
    assert [a["id"] for a in f["articles"]] == ["g4", "g3", "g2", "g1"]
    assert [a.get("isRead", False) for a in f["articles"]] == [False, True, False, False]
    assert tree(s, q)["Empty"] == {}
    assert s.get(q.url("rss/rules"), timeout=10).json()["R"]["mustContain"] == "item"
    # The limit lowered: every feed keeps its newest at once.
    set_prefs(s, q, rss_max_articles_per_feed=2)
    wait_for(lambda: len(feed_of(s, q, "News")["articles"]) == 2, 10, what="the trim")


def test_broken_and_hostile_feeds_set_has_error(qbtd_factory, feeds):
    q = qbtd_factory()
    s = q.session()
    set_prefs(s, q, rss_processing_enabled=True)
    broken = feeds.put("/broken.xml", '<?xml version="1.0"?><rss><channel><title>T</title><item><title>ok</title>'
                                      '<guid>1</guid></item><item><title>cut')
    laughs = feeds.put("/laughs.xml", '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
                                      + "".join(f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1) if i else "&lol;") * 10}">' for i in range(1, 10))
                                      + ']><rss><channel><title>&lol9;</title></channel></rss>')
    rdf = feeds.put("/rdf.xml", '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>')
    huge = feeds.put("/huge.xml", b"<rss><channel>" + b"<item><title>x</title></item>" * 1_300_000 + b"</channel></rss>")
    missing = feeds.url("/missing.xml")
    for i, url in enumerate([broken, laughs, rdf, huge, missing]):
        assert call(s, q, "addFeed", url=url, path=f"F{i}").status_code == 200
    for i in range(5):
        f = loaded(s, q, f"F{i}")
        assert f["hasError"] is True, i
    assert [a["title"] for a in feed_of(s, q, "F0")["articles"]] == ["ok"]  # what came before the error is kept
    lines = log_lines(s, q)
    assert any(l.startswith(f"Failed to download RSS feed at '{missing}'. Reason:") for l in lines)
    assert any(l.startswith(f"Failed to parse RSS feed at '{rdf}'. Reason: Invalid RSS feed.") for l in lines)
    assert q.proc.poll() is None
    assert s.get(q.url("app/version"), timeout=10).status_code == 200


def test_auto_downloader_adds_what_rules_match_once(qbtd_factory, feeds, tmp_path):
    q = qbtd_factory()
    s = q.session()
    shows = {}
    for name in ("Show.S01E01.720p", "Show.S01E02.720p", "Show.S01E02.1080p", "Other.S01E01", "Show.S01E03.720p"):
        data, ih = make_torrent(tmp_path / "t", name)
        shows[name] = ih
        feeds.put(f"/{name}.torrent", data, "application/x-bittorrent")
    items = [{"title": n, "guid": n, "enclosure": feeds.url(f"/{n}.torrent"), "date": day(i)}
             for i, n in enumerate(list(shows)[:4])]
    url = feeds.put("/tv.xml", rss("TV", items))
    rule = {"enabled": True, "mustContain": "show 720p|show 1080p", "mustNotContain": "", "smartFilter": True,
            "episodeFilter": "1x1-;", "affectedFeeds": [url],
            "torrentParams": {"category": "tv", "tags": ["rss", "auto"], "stopped": True}}
    assert call(s, q, "setRule", ruleName="Show", ruleDef=json.dumps(rule)).status_code == 200
    assert call(s, q, "addFeed", url=url, path="TV").status_code == 200
    set_prefs(s, q, rss_processing_enabled=True, rss_auto_downloading_enabled=True)

    def listed():
        return {t["hash"]: t for t in s.get(q.url("torrents/info"), timeout=10).json()}
    wait_for(lambda: len(listed()) == 2, 30, what="two torrents added by the rule")
    got = listed()
    # E01 720p and E02 720p; E02 1080p is the same episode (smart filter); Other does not match.
    assert set(got) == {shows["Show.S01E01.720p"], shows["Show.S01E02.720p"]}
    for t in got.values():
        assert t["category"] == "tv" and sorted(t["tags"].split(", ")) == ["auto", "rss"]
        assert t["state"] in ("stoppedDL", "pausedDL")
    r = s.get(q.url("rss/rules"), timeout=10).json()["Show"]
    assert r["previouslyMatchedEpisodes"] == ["1x1", "1x2"] and r["lastMatch"] == "02 Jan 2026 12:00:00 +0000"
    articles = {a["id"]: a for a in feed_of(s, q, "TV")["articles"]}
    assert articles["Show.S01E01.720p"].get("isRead") and articles["Show.S01E02.720p"].get("isRead")
    assert not articles["Other.S01E01"].get("isRead")
    lines = log_lines(s, q)
    assert "RSS article 'Show.S01E01.720p' is accepted by rule 'Show'. Trying to add torrent..." in lines
    # matchingArticles: what the rule matches now (the smart filter remembers both episodes).
    matching = s.get(q.url("rss/matchingArticles"), params={"ruleName": "Show"}, timeout=10).json()
    assert matching == {}
    # A new episode arrives; the old ones, fetched again, are not added twice.
    items.append({"title": "Show.S01E03.720p", "guid": "Show.S01E03.720p", "enclosure": feeds.url("/Show.S01E03.720p.torrent"),
                  "date": day(9)})
    feeds.put("/tv.xml", rss("TV", items))
    call(s, q, "refreshItem", itemPath="TV")
    wait_for(lambda: len(listed()) == 3, 30, what="the third episode")
    time.sleep(1)
    assert len(listed()) == 3 and shows["Show.S01E03.720p"] in listed()
    # A rule edit makes unread articles candidates again, but read ones stay downloaded once.
    rule["smartFilter"] = False
    call(s, q, "setRule", ruleName="Show", ruleDef=json.dumps(rule))
    wait_for(lambda: len(listed()) == 4, 30, what="E02 1080p once the smart filter is off")
    time.sleep(1)
    assert len(listed()) == 4 and shows["Other.S01E01"] not in listed()
    # rename and remove never fail.
    assert call(s, q, "renameRule", ruleName="Show", newRuleName="Shows").status_code == 200
    assert call(s, q, "renameRule", ruleName="Nope", newRuleName="X").status_code == 200
    assert list(s.get(q.url("rss/rules"), timeout=10).json()) == ["Shows"]
    assert call(s, q, "removeRule", ruleName="Nope").status_code == 200
    assert call(s, q, "removeRule", ruleName="Shows").status_code == 200
    assert s.get(q.url("rss/rules"), timeout=10).json() == {}


def test_rule_json_takes_the_legacy_form(qbtd_factory):
    q = qbtd_factory(extra=["--profile", "4.6"])
    s = q.session()
    legacy = {"enabled": False, "mustContain": " a b ", "useRegex": False, "episodeFilter": "1x2;",
              "affectedFeeds": "http://127.0.0.1/x", "savePath": "/tmp/x", "assignedCategory": "c", "addPaused": True,
              "torrentContentLayout": "NoSubfolder", "lastMatch": "05 Feb 2024 10:00:00 +0000", "ignoreDays": 3}
    assert call(s, q, "setRule", ruleName=" R ", ruleDef=json.dumps(legacy)).status_code == 200
    rules = s.get(q.url("rss/rules"), timeout=10).json()
    assert list(rules) == ["R"]  # 4.6 trims
    r = rules["R"]
    assert r["affectedFeeds"] == ["http://127.0.0.1/x"] and r["addPaused"] is True and r["savePath"] == "/tmp/x"
    assert r["assignedCategory"] == "c" and r["torrentContentLayout"] == "NoSubfolder" and r["ignoreDays"] == 3
    assert r["lastMatch"] == "05 Feb 2024 10:00:00 +0000" and r["priority"] == 0 and r["enabled"] is False
    assert r["torrentParams"]["use_auto_tmm"] is False and r["torrentParams"]["stopped"] is True
    assert "share_limit_action" not in r["torrentParams"]  # 4.6 writes no 5.x keys
    assert set(r) == {"enabled", "priority", "useRegex", "mustContain", "mustNotContain", "episodeFilter", "affectedFeeds",
                      "lastMatch", "ignoreDays", "smartFilter", "previouslyMatchedEpisodes", "addPaused",
                      "torrentContentLayout", "savePath", "assignedCategory", "torrentParams"}
    # Not JSON: a rule with every default.
    assert call(s, q, "setRule", ruleName="D", ruleDef="not json").status_code == 200
    assert s.get(q.url("rss/rules"), timeout=10).json()["D"]["enabled"] is True


def test_v52_feed_refresh_interval(qbtd_factory, feeds):
    q = qbtd_factory(extra=["--profile", "5.2"])
    s = login(q)
    url = feeds.put("/a.xml", rss("A", [{"title": "x", "guid": "1"}]))
    assert call(s, q, "addFeed", url=url, path="A", refreshInterval="5").status_code == 200
    assert tree(s, q)["A"]["refreshInterval"] == 5
    r = s.get(q.url("rss/setFeedRefreshInterval"), params={"path": "A", "refreshInterval": "0"}, timeout=10)
    assert r.status_code == 204
    assert "refreshInterval" not in tree(s, q)["A"]
    r = call(s, q, "setFeedRefreshInterval", path="A", refreshInterval="x")
    assert (r.status_code, r.text) == (400, "Invalid 'refreshInterval' value")
    r = call(s, q, "setFeedRefreshInterval", path="B", refreshInterval="1")
    assert (r.status_code, r.text) == (409, "Feed doesn't exist: B.")
    assert call(s, q, "markAsRead", itemPath="Nope").status_code == 204
    r = call(s, q, "addFeed", url=url + "?x")
    assert (r.status_code, r.text) == (400, "Missing required parameters: path")
    # A per-feed interval refreshes on its own schedule once processing is on.
    call(s, q, "setFeedRefreshInterval", path="A", refreshInterval="2")
    set_prefs(s, q, rss_processing_enabled=True)
    wait_for(lambda: feeds.requests.get("/a.xml", 0) >= 3, 30, what="three scheduled fetches")


def test_feeds_go_through_the_proxy_only_with_proxy_rss(qbtd_factory, feeds):
    proxy = ForwardProxy()
    try:
        q = qbtd_factory()
        s = q.session()
        set_prefs(s, q, proxy_type="HTTP", proxy_ip="127.0.0.1", proxy_port=proxy.port, proxy_rss=True,
                  proxy_misc=False, proxy_bittorrent=False, rss_fetch_delay=0)
        url = feeds.put("/p.xml", rss("P", [{"title": "one", "guid": "1"}]))
        assert call(s, q, "addFeed", url=url, path="P").status_code == 200
        call(s, q, "refreshItem", itemPath="P")
        loaded(s, q, "P", 1)
        assert url in proxy.seen
        set_prefs(s, q, proxy_rss=False)
        through = len(proxy.seen)
        feeds.put("/p.xml", rss("P", [{"title": "one", "guid": "1"}, {"title": "two", "guid": "2"}]))
        call(s, q, "refreshItem", itemPath="P")
        loaded(s, q, "P", 2)
        assert len(proxy.seen) == through
    finally:
        proxy.stop()


def test_rule_save_path_and_content_layout(qbtd_factory, feeds, tmp_path):
    q = qbtd_factory()
    s = q.session()
    data, ih = make_torrent(tmp_path / "t", "Album")
    feeds.put("/album.torrent", data, "application/x-bittorrent")
    url = feeds.put("/music.xml", rss("Music", [{"title": "Album FLAC", "guid": "a", "enclosure": feeds.url("/album.torrent")}]))
    target = tmp_path / "rss-downloads"
    rule = {"mustContain": "flac", "affectedFeeds": [url], "torrentParams": {
        "save_path": str(target), "use_auto_tmm": False, "content_layout": "NoSubfolder", "stopped": False}}
    call(s, q, "setRule", ruleName="FLAC", ruleDef=json.dumps(rule))
    call(s, q, "addFeed", url=url, path="Music")
    set_prefs(s, q, rss_auto_downloading_enabled=True)
    call(s, q, "refreshItem", itemPath="Music")

    def torrent():
        got = s.get(q.url("torrents/info"), params={"hashes": ih}, timeout=10).json()
        return got[0] if got else None
    wait_for(torrent, 30, what="the album added")
    t = torrent()
    assert t["save_path"].rstrip("/") == str(target) and t["auto_tmm"] is False
    assert t["content_path"] == str(target / "Album.bin")
    assert t["state"] not in ("stoppedDL", "pausedDL")
