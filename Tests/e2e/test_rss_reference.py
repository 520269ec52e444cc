"""Issue 17, RSS against the real releases (each profile against the one it names: 4.6 against 4.5.2, 5.1 against
trixie's 5.1.0, 5.3 against sid's 5.3.x): the same feeds and rules on both servers add the same torrents, with the
same categories and states, and `rss/items` and `rss/rules` have the same shapes (against 4.5.2, qbtd's 4.6 profile
adds 4.6's `priority` and `torrentParams` to a rule, as 4.6 does). Rules are written in 4.5's form, which every
version reads."""
import json
from datetime import datetime, timezone

import pytest

from conftest import wait_for
from qbtnox import REFERENCES, QbittorrentNox
from rss_support import FeedServer, atom, day, make_torrent, rss


TITLES = ["Show.S01E01.720p", "Show.S01E02.720p", "Show.S01E02.1080p", "Show.S01E03.HDTV", "Linux.Distro.1.0.iso",
          "Linux.Distro.1.0.iso.sig", "Other.Thing"]
RULES = {
    "Show": {"enabled": True, "mustContain": "show 720p|show 1080p", "smartFilter": True, "episodeFilter": "1x1-;",
             "assignedCategory": "tv", "addPaused": True, "savePath": ""},
    "Linux": {"enabled": True, "useRegex": True, "mustContain": r"linux\.distro.*iso", "mustNotContain": r"\.sig$",
              "assignedCategory": "os", "addPaused": True},
    "Off": {"enabled": False, "mustContain": "other", "assignedCategory": "never"},
}


def run(server, s, feeds, url, others=()):
    def post(action, **data):
        r = s.post(server.url(f"rss/{action}"), data=data, timeout=10)
        assert r.status_code == 200, (action, r.status_code, r.text)
    post("addFolder", path="Media")
    for name, rule in RULES.items():
        post("setRule", ruleName=name, ruleDef=json.dumps(dict(rule, affectedFeeds=[url])))
    r = s.post(server.url("app/setPreferences"), timeout=10, data={"json": json.dumps(
        {"rss_processing_enabled": True, "rss_auto_downloading_enabled": True, "rss_smart_episode_filters":
         "s(\\d+)e(\\d+)\n(\\d+)x(\\d+)"})})
    assert r.status_code == 200
    post("addFeed", url=url, path="Media\\TV")
    for i, other in enumerate(others):
        post("addFeed", url=other, path=f"Other{i}")

    def torrents():
        return {t["hash"]: (t["name"], t["category"], t["state"]) for t in s.get(server.url("torrents/info"), timeout=10).json()}
    wait_for(lambda: len(torrents()) >= 3, 60, what=f"the rules' torrents on {server.base}")
    def all_loaded():
        tree = s.get(server.url("rss/items"), params={"withData": "true"}, timeout=10).json()
        feeds = [tree["Media"]["TV"]] + [tree.get(f"Other{i}", {"isLoading": True}) for i in range(len(others))]
        return not any(f["isLoading"] for f in feeds) and all(f["articles"] for f in feeds)
    wait_for(all_loaded, 30, what="the feeds loaded")
    import time
    time.sleep(3)  # anything more would come now
    return torrents(), s.get(server.url("rss/items"), params={"withData": "true"}, timeout=10).json(), \
        s.get(server.url("rss/rules"), timeout=10).json(), \
        s.get(server.url("rss/matchingArticles"), params={"ruleName": "Linux"}, timeout=10).json()


def feed(s, server):
    return s.get(server.url("rss/items"), params={"withData": "true"}, timeout=10).json()["Media"]["TV"]


@pytest.mark.parametrize("profile", list(REFERENCES))
def test_same_feeds_and_rules_add_the_same_torrents(profile, qbtd_factory, tmp_path):
    """Each profile against the real release it names (qbtnox.REFERENCES)."""
    reference = REFERENCES[profile]
    if reference.missing():
        pytest.skip(reference.missing())
    feeds = FeedServer()
    try:
        hashes = {}
        items = []
        for i, title in enumerate(TITLES):
            data, ih = make_torrent(tmp_path / "t", title)
            hashes[title] = ih
            feeds.put(f"/{title}.torrent", data, "application/x-bittorrent")
            items.append({"title": title, "guid": f"id-{i}", "enclosure": feeds.url(f"/{title}.torrent"), "date": day(i),
                          "description": f"about {title}"})
        url = feeds.put("/feed.xml", rss("Mixed feed", items))
        # Atom with a relative link under xml:base; RSS with magnet links, no guids, an untyped enclosure, odd dates.
        others = [
            feeds.put("/atom.xml", atom("Atom feed", [
                {"title": f"Atom {i}", "id": f"urn:x:{i}", "link": f"/files/a{i}.torrent", "updated": day(i),
                 "summary": f"<p>entry {i}</p>", "author": "Someone"} for i in range(3)], base=feeds.base)),
            feeds.put("/magnets.xml", rss("Magnets", [
                {"title": "Magnet one", "magnet": "magnet:?xt=urn:btih:" + "ab" * 20 + "&dn=one", "date": day(5)},
                {"title": "Linked", "link": "http://127.0.0.1:9/page.html"},
                {"title": "Titled only"},
            ]).replace("<title>Linked</title>", "<title>Linked</title><enclosure url=\"http://127.0.0.1:9/x.torrent\"/>")
              .replace("<title>Titled only</title>", "<title>Titled only</title><pubDate>Mon, 05 Feb 2024 12:00:00 +0200</pubDate>"
                       "<category>misc</category>")),
        ]
        nox = QbittorrentNox(tmp_path / "nox", release=reference).start()
        try:
            want = run(nox, nox.session(), feeds, url, others)
        finally:
            nox.stop()
        try:
            q = qbtd_factory(extra=["--profile", profile])
        except AssertionError as e:
            if "--profile takes" not in str(e):
                raise
            pytest.skip(f"this qbtd has no --profile {profile} yet")
        got = run(q, q.session(), feeds, url, others)
    finally:
        feeds.stop()
    added_nox, items_nox, rules_nox, matching_nox = want
    added_q, items_q, rules_q, matching_q = got
    expected = {hashes[t] for t in ("Show.S01E01.720p", "Show.S01E02.720p", "Linux.Distro.1.0.iso")}
    assert set(added_nox) == expected, added_nox
    assert added_q == added_nox
    # The tree and the feed: the same keys, the same articles (qBittorrent lists them in no set order).
    f_nox, f_q = items_nox["Media"]["TV"], items_q["Media"]["TV"]
    assert set(items_q) == set(items_nox) == {"Media", "Other0", "Other1"} and set(f_q) == set(f_nox)
    assert f_q["title"] == f_nox["title"] and f_q["hasError"] == f_nox["hasError"] is False
    today = datetime.now(timezone.utc).strftime("%d %b %Y")

    def articles(f):
        """Articles by id; an undated article's date is its server's fetch time: only its day is compared."""
        return {a["id"]: {k: (v[:11] if k == "date" and v.startswith(today) else v) for k, v in a.items()}
                for a in f["articles"]}
    assert articles(f_q) == articles(f_nox)
    for other in ("Other0", "Other1"):
        a, b = items_q[other], items_nox[other]
        assert (a["title"], a["hasError"]) == (b["title"], b["hasError"]), other
        assert articles(a) == articles(b), other
    # Rules: the real release's keys with the same values; against 4.5.2, 4.6 adds priority and torrentParams.
    assert set(rules_q) == set(rules_nox)
    added = {"priority", "torrentParams"} if reference.expected == "4.5.2" else set()
    for name in rules_nox:
        assert set(rules_q[name]) - set(rules_nox[name]) == added, name
        for key, value in rules_nox[name].items():
            assert rules_q[name][key] == value, (name, key, rules_q[name][key], value)
    assert matching_q == matching_nox
