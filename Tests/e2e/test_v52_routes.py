"""Issue 16, qBittorrent 5.2's routes in the 5.2 profile, as 5.2.3 answers them: clientdata/load and /store (one
object, merged, null deletes, 1 MiB at most, kept across restarts), torrents/setComment (204), torrents/
pieceAvailability, and torrents/add's JSON answer (409 when nothing is added). The older profiles answer 404. Also
5.2's changes to old routes: tracker edits over several torrents (204), `editTracker`'s tier, the torrent fields 5.2
added, and `sync/maindata`'s announce flags."""
import json
import os

import libtorrent as lt

from conftest import BytesServer, free_port, wait_for
from test_differences import FailingTracker
from test_stream import FileSeeder


def login(q):
    import requests
    s = requests.Session()
    r = s.post(q.url("auth/login"), data={"username": "admin", "password": q.password})
    assert r.status_code in (200, 204), (r.status_code, r.text)
    return s


def test_clientdata_is_one_merged_object_kept_across_restarts(qbtd_factory):
    q = qbtd_factory(extra=["--profile", "5.2"])
    s = login(q)
    assert s.get(q.url("clientdata/load")).json() == {}
    r = s.post(q.url("clientdata/store"), data={"data": json.dumps({"qbt_a": {"x": 1}, "qbt_b": [1, 2], "c": "three"})})
    assert (r.status_code, r.text) == (204, "")
    r = s.post(q.url("clientdata/store"), data={"data": json.dumps({"c": None, "qbt_b": "replaced"})})
    assert r.status_code == 204
    assert s.get(q.url("clientdata/load")).json() == {"qbt_a": {"x": 1}, "qbt_b": "replaced"}
    assert s.get(q.url("clientdata/load"), params={"keys": '["qbt_a","missing"]'}).json() == {"qbt_a": {"x": 1}}
    for params, message in (({"keys": "{"}, None), ({"keys": '{"a":1}'}, "`keys` must be an array"),
                            ({"keys": "[1]"}, "Items of `keys` must be strings")):
        r = s.get(q.url("clientdata/load"), params=params)
        assert r.status_code == 400 and (message is None or r.text == message), (params, r.status_code, r.text)
    r = s.post(q.url("clientdata/store"), data={"data": "[1]"})
    assert (r.status_code, r.text) == (400, "`data` must be an object")
    assert s.get(q.url("clientdata/store")).status_code == 405
    r = s.post(q.url("clientdata/store"), data={"data": json.dumps({"big": "x" * 1_100_000})})
    assert (r.status_code, r.text) == (409, "Total web client data must not be larger than 1048576 bytes")
    q.stop()
    q.start()
    assert login(q).get(q.url("clientdata/load")).json() == {"qbt_a": {"x": 1}, "qbt_b": "replaced"}


def test_comment_availability_and_add_answer(qbtd_factory, tmp_path):
    seeder = FileSeeder(tmp_path / "seed", "commented", {"f.bin": os.urandom(200_000)}, piece_size=16 * 1024,
                        upload_limit=50_000)
    torrent_id = str(seeder.info.info_hashes().get_best())
    q = qbtd_factory(extra=["--profile", "5.2"])
    s = login(q)
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")})
    assert r.status_code == 200, r.text
    assert r.json() == {"added_torrent_ids": [torrent_id], "failure_count": 0, "pending_count": 0, "success_count": 1}
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")})
    assert (r.status_code, r.text) == (409, "Conflict"), "nothing added (a duplicate)"

    r = s.post(q.url("torrents/setComment"), data={"hashes": torrent_id, "comment": "  seen on a forum  "})
    assert (r.status_code, r.text) == (204, "")
    info = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
    props = s.get(q.url("torrents/properties"), params={"hash": torrent_id}).json()
    assert info["comment"] == props["comment"] == "seen on a forum"
    assert s.post(q.url("torrents/setComment"), data={"hashes": torrent_id}).status_code == 400
    limits = {"hashes": torrent_id, "ratioLimit": "2", "seedingTimeLimit": "-2", "inactiveSeedingTimeLimit": "-2"}
    assert s.post(q.url("torrents/setShareLimits"), data=limits).status_code == 400, "5.2 requires shareLimitAction"
    r = s.post(q.url("torrents/setShareLimits"), data={**limits, "shareLimitAction": "Stop"})
    assert (r.status_code, r.text) == (200, ""), "5.2 still answers most void actions with 200"
    info = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
    assert info["share_limit_action"] == "Stop" and info["max_ratio"] == 2

    s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})
    pieces = seeder.info.num_pieces()
    wait_for(lambda: s.get(q.url("torrents/pieceAvailability"), params={"hash": torrent_id}).json() == [1] * pieces,
             30, what="every piece available from the one seeder")
    assert s.get(q.url("torrents/pieceAvailability"), params={"hash": "0" * 40}).status_code == 404

    old = qbtd_factory(extra=["--profile", "5.1"])
    s = login(old)
    for route in ("torrents/pieceAvailability", "torrents/setComment", "clientdata/load"):
        assert s.post(old.url(route), data={"hash": torrent_id}).status_code == 404, route


V52_INFO_KEYS = {"connections_count", "connections_limit", "created_by", "creation_date", "piece_size", "pieces_have",
                 "pieces_num", "share_limit_action", "total_wasted"}
ANNOUNCE_FLAGS = {"has_tracker_warning", "has_tracker_error", "has_other_announce_error"}


def test_tracker_edits_fields_and_announce_flags(qbtd_factory, tmp_path):
    failing = FailingTracker()
    warning = FailingTracker(body=b"d8:intervali1800e5:peers0:15:warning message9:slow downe")
    refused = f"http://127.0.0.1:{free_port()}/announce"
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "f.bin").write_bytes(os.urandom(50_000))
    fs = lt.file_storage()
    lt.add_files(fs, str(tmp_path / "t"))
    ct = lt.create_torrent(fs, 16 * 1024, flags=lt.create_torrent.v1_only)
    for tier, url in enumerate((failing.url, refused, warning.url)):
        ct.add_tracker(url, tier)
    ct.set_creator("flags test")
    lt.set_piece_hashes(ct, str(tmp_path))
    data = lt.bencode(ct.generate())
    torrent_id = str(lt.torrent_info(lt.bdecode(data)).info_hashes().v1)

    q = qbtd_factory(extra=["--profile", "5.2"])
    s = login(q)
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", data)}).status_code == 200
    info = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
    assert V52_INFO_KEYS <= info.keys() and not ANNOUNCE_FLAGS & info.keys(), sorted(info)
    assert info["created_by"] == "flags test" and info["pieces_num"] == 4 and info["piece_size"] == 16384
    assert info["share_limit_action"] == "Default" and info["creation_date"] > 0

    rid = {"rid": 0}

    def flags():
        d = s.get(q.url("sync/maindata"), params=rid).json()
        rid["rid"] = d["rid"]
        row = d.get("torrents", {}).get(torrent_id, {})
        flags.seen.update({k: row[k] for k in ANNOUNCE_FLAGS if k in row})
        return flags.seen
    flags.seen = {}
    wait_for(lambda: flags() == dict.fromkeys(ANNOUNCE_FLAGS, True), 60,
             what="a warning, a tracker error and an unreachable tracker in maindata")

    # 5.2: a `|` list (an unknown torrent skipped, no 404) and 204.
    r = s.post(q.url("torrents/removeTrackers"), data={"hash": f"{torrent_id}|{'0' * 40}", "urls": failing.url})
    assert (r.status_code, r.text) == (204, "")
    wait_for(lambda: flags()["has_tracker_error"] is False, 20, what="the tracker error gone with its tracker")
    assert flags()["has_other_announce_error"] and flags()["has_tracker_warning"]
    r = s.post(q.url("torrents/addTrackers"), data={"hash": "0" * 40, "urls": "http://127.0.0.1:1/a"})
    assert (r.status_code, r.text) == (204, "")

    def tiers():
        return {t["url"]: t["tier"] for t in s.get(q.url("torrents/trackers"), params={"hash": torrent_id}).json()}
    assert tiers()[warning.url] == 2
    r = s.post(q.url("torrents/editTracker"), data={"hash": torrent_id, "url": warning.url, "tier": "7"})
    assert (r.status_code, r.text) == (204, "")
    assert tiers()[warning.url] == 7
    for extra, message in (({}, "Must specify at least one of [newUrl, tier]"), ({"tier": "x"}, "tier must be an integer"),
                           ({"tier": "256"}, "tier must be between 0 and 255")):
        r = s.post(q.url("torrents/editTracker"), data={"hash": torrent_id, "url": warning.url, **extra})
        assert (r.status_code, r.text) == (400, message), extra
    r = s.post(q.url("torrents/setTags"), data={"hashes": torrent_id, "tags": "a,b"})
    assert (r.status_code, r.text) == (204, "")
    r = s.post(q.url("torrents/addTags"), data={"hashes": torrent_id, "tags": "c"})
    assert (r.status_code, r.text) == (200, "")

    old = qbtd_factory(extra=["--profile", "5.1"])
    s = old.session()
    assert s.post(old.url("torrents/add"), files={"torrents": ("t.torrent", data)}).text == "Ok."
    info = s.get(old.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
    assert not (V52_INFO_KEYS | ANNOUNCE_FLAGS) & info.keys()
    row = s.get(old.url("sync/maindata")).json()["torrents"][torrent_id]
    assert not ANNOUNCE_FLAGS & row.keys()
    r = s.post(old.url("torrents/addTrackers"), data={"hash": "0" * 40, "urls": "http://127.0.0.1:1/a"})
    assert r.status_code == 404, "before 5.2, one torrent that must exist"
    r = s.post(old.url("torrents/setTags"), data={"hashes": torrent_id, "tags": "a"})
    assert (r.status_code, r.text) == (200, "")


def test_metadata_routes(qbtd_factory, tmp_path):
    """fetchMetadata fetches a magnet's metadata without adding the torrent (202 until it is in, then 200 with the
    torrent-info object), downloads an http .torrent in the background, and leaves the .torrent for saveMetadata
    and for add (with filePriorities); parseMetadata reads uploads. Each as 5.2.3 answers it."""
    import urllib.parse

    seeder = FileSeeder(tmp_path / "seed", "album", {"a.bin": os.urandom(100_000), "b/c.bin": os.urandom(60_000)},
                        piece_size=16 * 1024)
    torrent_id = str(seeder.info.info_hashes().get_best())
    magnet = seeder.magnet + "&tr=" + urllib.parse.quote("http://127.0.0.1:1/announce", safe="")
    q = qbtd_factory(extra=["--profile", "5.2"])
    s = login(q)

    for data, code, text in (({"source": "  "}, 400, "Must specify URI or hash"),
                             ({"source": "garbage%20here"}, 400, "Unable to parse 'garbage here'"),
                             ({"source": magnet, "downloader": "nope"}, 400, "downloader must be a valid search plugin")):
        r = s.post(q.url("torrents/fetchMetadata"), data=data)
        assert (r.status_code, r.text) == (code, text), data
    assert s.get(q.url("torrents/fetchMetadata"), params={"source": magnet}).status_code == 405

    r = s.post(q.url("torrents/fetchMetadata"), data={"source": magnet})
    assert r.status_code == 202, r.text
    assert r.json() == {"hash": torrent_id, "infohash_v1": str(seeder.info.info_hashes().v1),
                        "infohash_v2": str(seeder.info.info_hashes().v2)}
    assert s.get(q.url("torrents/info")).json() == [], "a metadata fetch is not in the transfer list"
    r = s.get(q.url("torrents/saveMetadata"), params={"source": magnet})
    assert (r.status_code, r.text) == (409, "Metadata is not yet available")

    def fetched():
        r = s.post(q.url("torrents/fetchMetadata"), data={"source": magnet})
        assert r.status_code in (200, 202), (r.status_code, r.text)
        return r.json() if r.status_code == 200 else None
    info = wait_for(fetched, 60, interval=0.5, what="the magnet's metadata")
    assert info["hash"] == torrent_id and info["info"]["name"] == "album"
    assert sorted((f["path"], f["length"]) for f in info["info"]["files"]) == [
        ("album/a.bin", 100_000), ("album/b/c.bin", 60_000)]
    assert info["info"]["length"] == 160_000 and info["info"]["piece_length"] == 16384
    assert info["info"]["pieces_num"] == seeder.info.num_pieces() and info["info"]["private"] is False
    assert info["trackers"] == [{"url": "http://127.0.0.1:1/announce", "tier": 0}] and info["webseeds"] == []
    assert (info["created_by"], info["creation_date"], info["comment"]) == ("", -1, ""), "a magnet's descriptor"
    assert s.get(q.url("torrents/info")).json() == []

    r = s.get(q.url("torrents/saveMetadata"), params={"source": magnet})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/x-bittorrent"
    assert r.headers["Content-Disposition"] == f'attachment; filename="{torrent_id}.torrent"'
    assert str(lt.torrent_info(lt.bdecode(r.content)).info_hashes().get_best()) == torrent_id
    assert s.get(q.url("torrents/saveMetadata"), params={"source": "nothing"}).status_code == 404

    # add: one URL only, and only once the metadata is known; the priorities then apply to its files.
    for data, text in (({"urls": magnet + "\n" + "a" * 40, "filePriorities": "0,1"},
                        "Cannot specify filePriorities when adding multiple torrents"),
                       ({"urls": magnet, "filePriorities": "0,x"}, "Priority must be an integer"),
                       ({"urls": magnet, "filePriorities": "0,3"}, "Priority is not valid"),
                       ({"urls": magnet, "filePriorities": "0"}, "Length of filePriorities must equal number of files in torrent"),
                       ({"urls": "b" * 40, "filePriorities": "0,1"},
                        "`filePriorities` may only be specified when metadata has already been fetched")):
        r = s.post(q.url("torrents/add"), data=data)
        assert (r.status_code, r.text) == (400, text), data
    r = s.post(q.url("torrents/add"), data={"urls": magnet, "filePriorities": "0,7", "stopped": "true"})
    assert r.status_code == 200 and r.json()["added_torrent_ids"] == [torrent_id], r.text
    files = s.get(q.url("torrents/files"), params={"hash": torrent_id}).json()
    assert [(f["name"], f["priority"]) for f in files] == [("album/a.bin", 0), ("album/b/c.bin", 7)]
    r = s.get(q.url("torrents/saveMetadata"), params={"source": magnet})
    assert (r.status_code, r.text) == (409, "Metadata is not yet available"), "add took it"
    r = s.post(q.url("torrents/fetchMetadata"), data={"source": torrent_id})
    assert r.status_code == 200 and r.json()["info"]["name"] == "album", "a torrent in the transfer list"

    # An http .torrent downloads in the background: 202 {} until it is in.
    other = FileSeeder(tmp_path / "seed2", "single", {"one.bin": os.urandom(40_000)}, piece_size=16 * 1024)
    body = other.torrent
    served = BytesServer(body, "/single.torrent")
    url = served.url
    r = s.post(q.url("torrents/fetchMetadata"), data={"source": url})
    assert (r.status_code, r.json()) == (202, {})
    info = wait_for(lambda: (lambda r: r.json() if r.status_code == 200 else None)(
        s.post(q.url("torrents/fetchMetadata"), data={"source": url})), 20, what="the downloaded .torrent")
    assert info["info"]["files"] == [{"path": "single/one.bin", "length": 40_000}] and info["creation_date"] > 0
    assert s.get(q.url("torrents/saveMetadata"), params={"source": url}).content == body
    served.stop()

    # parseMetadata: every upload read (and kept); a bad one is a 415.
    r = s.post(q.url("torrents/parseMetadata"), files=[("f1", ("a.torrent", seeder.torrent)), ("f2", ("b.torrent", body))])
    assert r.status_code == 200 and [i["info"]["name"] for i in r.json()] == ["album", "single"]
    r = s.post(q.url("torrents/parseMetadata"), files=[("f", ("bad.torrent", b"not bencode"))])
    assert (r.status_code, r.text) == (415, "'bad.torrent' is not a valid torrent file.")
    r = s.post(q.url("torrents/parseMetadata"), data={"x": "1"})
    assert (r.status_code, r.text) == (400, "Must specify torrent file(s)")

    old = qbtd_factory(extra=["--profile", "5.1"])
    s = old.session()
    for route in ("torrents/fetchMetadata", "torrents/parseMetadata", "torrents/saveMetadata"):
        assert s.post(old.url(route), data={"source": magnet}).status_code == 404, route
