"""Issue 16, qBittorrent 5.2's routes in the 5.2 profile, as 5.2.3 answers them: clientdata/load and /store (one
object, merged, null deletes, 1 MiB at most, kept across restarts), torrents/setComment (204), torrents/
pieceAvailability, and torrents/add's JSON answer (409 when nothing is added). The older profiles answer 404."""
import json
import os

from conftest import wait_for
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
    assert s.post(q.url("torrents/setShareLimits"), data={**limits, "shareLimitAction": "Stop"}).status_code in (200, 204)

    s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})
    pieces = seeder.info.num_pieces()
    wait_for(lambda: s.get(q.url("torrents/pieceAvailability"), params={"hash": torrent_id}).json() == [1] * pieces,
             30, what="every piece available from the one seeder")
    assert s.get(q.url("torrents/pieceAvailability"), params={"hash": "0" * 40}).status_code == 404

    old = qbtd_factory(extra=["--profile", "5.1"])
    s = login(old)
    for route in ("torrents/pieceAvailability", "torrents/setComment", "clientdata/load"):
        assert s.post(old.url(route), data={"hash": torrent_id}).status_code == 404, route
