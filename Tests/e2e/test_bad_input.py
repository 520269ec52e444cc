"""Acceptance 4: hostile or broken requests get qBittorrent's answers and change nothing."""
import requests

from conftest import PASSWORD


def count(s, q):
    return len(s.get(q.url("torrents/info")).json())


def test_bad_input(qbtd_factory, seeder, tmp_path):
    q = qbtd_factory(extra=["--allowed-paths", str(tmp_path / "media")])
    # No cookie: 403 everywhere but login, even for an unknown endpoint (Sonarr's v2 probe relies on it).
    assert requests.get(q.url("app/webapiVersion")).status_code == 403
    assert requests.get(q.url("torrents/info")).status_code == 403
    assert requests.get(q.url("nope/nothing")).status_code == 403
    # Wrong password: 200 Fails. and no cookie.
    r = requests.post(q.url("auth/login"), data={"username": "admin", "password": "wrong"})
    assert (r.status_code, r.text) == (200, "Fails.") and "SID" not in r.cookies

    s = q.session()
    assert s.get(q.url("nope/nothing")).status_code == 404
    assert s.get(q.url("torrents/add")).status_code == 405
    s.post(q.url("torrents/add"), files={"torrents": ("good.torrent", seeder.torrent)}, data={"stopped": "true"})
    assert count(s, q) == 1

    # A garbage .torrent: 415 with qBittorrent's message; the good file in the same request is not added.
    r = s.post(q.url("torrents/add"), files=[("torrents", ("bad.torrent", b"d8:announce3:xyzgarbage")),
                                              ("torrents", ("other.torrent", seeder.torrent))])
    assert r.status_code == 415 and r.text == "Error: 'bad.torrent' is not a valid torrent file."
    # Invalid magnets and unsupported URLs: Fails.
    for url in ["magnet:?xt=urn:btih:nothex", "magnet:?dn=noinfohash", "ftp://example/x.torrent", "not a url"]:
        r = s.post(q.url("torrents/add"), data={"urls": url})
        assert (r.status_code, r.text) == (200, "Fails."), url
    # A duplicate is Fails. too.
    r = s.post(q.url("torrents/add"), files={"torrents": ("good.torrent", seeder.torrent)})
    assert r.text == "Fails."
    # Nothing to add at all: Fails., as qBittorrent answers.
    r = s.post(q.url("torrents/add"), data={"urls": ""})
    assert (r.status_code, r.text) == (200, "Fails.")
    # A save path outside --allowed-paths.
    r = s.post(q.url("torrents/add"), data={"urls": "magnet:?xt=urn:btih:" + "cd" * 20, "savepath": "/etc"})
    assert r.status_code == 400
    r = s.post(q.url("torrents/add"), data={"urls": "magnet:?xt=urn:btih:" + "cd" * 20, "savepath": "../../x"})
    assert r.status_code == 400
    assert count(s, q) == 1

    # Unknown hash: 404; missing parameter: 400.
    unknown = "0" * 40
    assert s.get(q.url("torrents/properties"), params={"hash": unknown}).status_code == 404
    assert s.get(q.url("torrents/files"), params={"hash": unknown}).status_code == 404
    r = s.get(q.url("torrents/properties"))
    assert (r.status_code, r.text) == (400, "Bad Request")
    assert s.post(q.url("torrents/delete"), data={"hashes": seeder.id}).status_code == 400  # deleteFiles is required
    assert s.post(q.url("torrents/stop"), data={}).status_code == 400
    # Non-numeric: a peer port that is not a number is no valid peer (400); limit=abc reads as "no limit".
    r = s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": "127.0.0.1:abc"})
    assert (r.status_code, r.text) == (400, "No valid peers were specified")
    assert len(s.get(q.url("torrents/info"), params={"limit": "abc"}).json()) == 1
    r = s.get(q.url("torrents/info"), params={"sort": "no_such_key"})
    assert r.status_code == 400
    r = s.get(q.url("torrents/files"), params={"hash": seeder.id, "indexes": "99"})
    assert (r.status_code, r.text) == (409, "Index 99 is out of bounds.")
    r = s.get(q.url("torrents/files"), params={"hash": seeder.id, "indexes": "x"})
    assert (r.status_code, r.text) == (409, '"x" is not a valid file index.')
    # addPeers counts every given entry that was not added as failed, unparsable ones included.
    r = s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": "127.0.0.1:abc|127.0.0.1:9"})
    assert r.json() == {seeder.id: {"added": 1, "failed": 1}}
    # Unknown hashes in a mutation are ignored, as in qBittorrent.
    assert s.post(q.url("torrents/delete"), data={"hashes": unknown, "deleteFiles": "true"}).status_code == 200

    # An oversized body: 413, and the server keeps serving.
    big = b"x" * (71 * 1024 * 1024)
    try:
        r = s.post(q.url("torrents/add"), data=big, headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert r.status_code == 413
    except requests.ConnectionError:
        pass  # the server may close the connection after answering 413 before the client finishes sending
    assert count(s, q) == 1


def test_login_ban(qbtd_factory):
    q = qbtd_factory()
    for _ in range(5):
        assert requests.post(q.url("auth/login"), data={"username": "admin", "password": "bad"}).text == "Fails."
    r = requests.post(q.url("auth/login"), data={"username": "admin", "password": PASSWORD})
    assert r.status_code == 403
    assert "banned" in r.text
