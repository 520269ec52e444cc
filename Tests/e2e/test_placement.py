"""Issue 16, data placement: Automatic Torrent Management follows torrent_changed_tmm_enabled,
save_path_changed_tmm_enabled and category_changed_tmm_enabled as qBittorrent does (move, or switch the torrent to
manual mode and move nothing), and download (temp) paths per torrent and per category."""
import json
import os
from pathlib import Path

from conftest import wait_for
from test_stream import FileSeeder


def set_prefs(s, q, **values):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)


def seeded(tmp_path, prefix, count, size):
    """`count` single-file torrents of about `size` bytes, each seeded on loopback, and their IDs."""
    seeders = [FileSeeder(tmp_path / f"seed{i}", f"{prefix}{i}", {"f.bin": os.urandom(size + i)}, piece_size=16 * 1024)
               for i in range(count)]
    return seeders, [str(x.info.info_hashes().get_best()) for x in seeders]


def info(s, q, torrent_id):
    return s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()[0]


def test_automatic_management_follows_the_three_switches(qbtd_factory, tmp_path):
    seeders, (a, b) = seeded(tmp_path, "tmm", 2, 20_000)
    q = qbtd_factory()
    s = q.session()
    root = s.get(q.url("app/preferences")).json()["save_path"]
    p = s.get(q.url("app/preferences")).json()
    assert (p["torrent_changed_tmm_enabled"], p["save_path_changed_tmm_enabled"], p["category_changed_tmm_enabled"]) \
        == (True, False, False), "qBittorrent's defaults"
    assert s.post(q.url("torrents/createCategory"), data={"category": "tv"}).status_code == 200
    for seeder in seeders:
        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")},
                   data={"autoTMM": "true", "category": "tv", "stopped": "true"})
        assert r.text == "Ok."
    assert info(s, q, a)["save_path"] == f"{root}/tv"

    # The default save path changes: with the default switch off, automatic torrents become manual, unmoved.
    set_prefs(s, q, save_path=str(tmp_path / "new root"))
    t = info(s, q, a)
    assert (t["auto_tmm"], t["save_path"]) == (False, f"{root}/tv"), t
    # Switched on, automatic torrents follow it.
    s.post(q.url("torrents/setAutoManagement"), data={"hashes": b, "enable": "true"})
    wait_for(lambda: info(s, q, b)["save_path"] == str(tmp_path / "new root" / "tv"), 10, what="b to follow")
    set_prefs(s, q, save_path_changed_tmm_enabled=True, save_path=str(tmp_path / "third root"))
    wait_for(lambda: info(s, q, b)["save_path"] == str(tmp_path / "third root" / "tv"), 10, what="b to move again")

    # The category's own path changes: off (default), its automatic torrents become manual, unmoved.
    s.post(q.url("torrents/editCategory"), data={"category": "tv", "savePath": str(tmp_path / "tv elsewhere")})
    t = info(s, q, b)
    assert (t["auto_tmm"], t["save_path"]) == (False, str(tmp_path / "third root" / "tv")), t
    set_prefs(s, q, category_changed_tmm_enabled=True)
    s.post(q.url("torrents/setAutoManagement"), data={"hashes": b, "enable": "true"})
    wait_for(lambda: info(s, q, b)["save_path"] == str(tmp_path / "tv elsewhere"), 10, what="b to join its category")
    s.post(q.url("torrents/editCategory"), data={"category": "tv", "savePath": str(tmp_path / "tv again")})
    wait_for(lambda: info(s, q, b)["save_path"] == str(tmp_path / "tv again"), 10, what="b to follow its category")

    # The torrent's category changes: on (default), it moves; off, it becomes manual first and stays.
    assert s.post(q.url("torrents/createCategory"), data={"category": "films"}).status_code == 200
    s.post(q.url("torrents/setCategory"), data={"hashes": b, "category": "films"})
    wait_for(lambda: info(s, q, b)["save_path"] == str(tmp_path / "third root" / "films"), 10, what="b to move")
    set_prefs(s, q, torrent_changed_tmm_enabled=False)
    s.post(q.url("torrents/setCategory"), data={"hashes": b, "category": "tv"})
    t = info(s, q, b)
    assert (t["auto_tmm"], t["save_path"], t["category"]) == (False, str(tmp_path / "third root" / "films"), "tv"), t


def test_download_paths_per_torrent_and_per_category(qbtd_factory, tmp_path):
    seeders, ids = seeded(tmp_path, "dl", 3, 300_000)
    q = qbtd_factory()
    s = q.session()
    root = s.get(q.url("app/preferences")).json()["save_path"]
    incoming, cat_incoming = tmp_path / "incoming", tmp_path / "tv incoming"
    # Per torrent (manual mode): downloadPath + useDownloadPath.
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeders[0].torrent, "application/x-bittorrent")},
               data={"savepath": str(tmp_path / "done"), "downloadPath": str(incoming), "useDownloadPath": "true"})
    assert r.text == "Ok."
    assert info(s, q, ids[0])["download_path"] == str(incoming)
    # useDownloadPath=false: none, even with the global temp path on.
    s.post(q.url("app/setPreferences"), data={"json": json.dumps({"temp_path_enabled": True})})
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeders[1].torrent, "application/x-bittorrent")},
               data={"useDownloadPath": "false", "stopped": "true"})
    assert r.text == "Ok." and info(s, q, ids[1])["download_path"] == ""
    # Per category (automatic mode): the category's own download path.
    r = s.post(q.url("torrents/createCategory"), data={"category": "tv", "downloadPathEnabled": "true",
                                                         "downloadPath": str(cat_incoming)})
    assert r.status_code == 200
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeders[2].torrent, "application/x-bittorrent")},
               data={"autoTMM": "true", "category": "tv"})
    assert r.text == "Ok."
    t = info(s, q, ids[2])
    assert (t["download_path"], t["save_path"]) == (str(cat_incoming), f"{root}/tv"), t
    # Downloading lands in the download path, then the data moves to the save path.
    for seeder, torrent_id in ((seeders[0], ids[0]), (seeders[2], ids[2])):
        s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})
    wait_for(lambda: all(info(s, q, i)["progress"] == 1 and info(s, q, i)["download_path"] == "" for i in (ids[0], ids[2])),
             60, what="both downloads to finish and move")
    assert (tmp_path / "done" / "dl0" / "f.bin").exists() and not (incoming / "dl0" / "f.bin").exists()
    assert (Path(root) / "tv" / "dl2" / "f.bin").exists()


def test_preallocate_all_allocates_new_torrents_whole(qbtd_factory, tmp_path):
    """libtorrent allocates a file when it first writes to it: whole with preallocate_all, else sparse."""
    size = 4_000_000
    seeders = [FileSeeder(tmp_path / f"seed{i}", f"alloc{i}", {"big.bin": os.urandom(size + i)}, piece_size=64 * 1024,
                          upload_limit=100_000) for i in range(2)]
    q = qbtd_factory()
    s = q.session()
    for seeder, preallocate in zip(seeders, (False, True)):
        s.post(q.url("app/setPreferences"), data={"json": json.dumps({"preallocate_all": preallocate})})
        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")},
                   data={"savepath": str(tmp_path / "save")})
        assert r.text == "Ok."
        s.post(q.url("torrents/addPeers"), data={"hashes": str(seeder.info.info_hashes().get_best()),
                                                  "peers": f"127.0.0.1:{seeder.port}"})
    files = [tmp_path / "save" / f"alloc{i}" / "big.bin" for i in range(2)]
    wait_for(lambda: all(f.exists() and f.stat().st_blocks > 0 for f in files), 30, what="both downloads to write")
    sparse, whole = (f.stat().st_blocks * 512 for f in files)
    assert whole >= size, f"the preallocated file holds {whole} bytes on disk"
    assert sparse < size, f"the sparse file already holds {sparse} bytes on disk"


def test_share_limit_action_per_torrent(qbtd_factory, tmp_path):
    """5.x's shareLimitAction on torrents/add: the torrent's own action when its limit is reached, else the global
    max_ratio_act (Stop by default)."""
    seeders, ids = seeded(tmp_path, "share", 2, 100_000)
    q = qbtd_factory()
    s = q.session()
    for seeder, action in zip(seeders, ("Remove", "Default")):
        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent, "application/x-bittorrent")},
                   data={"ratioLimit": "0", "seedingTimeLimit": "-2", "inactiveSeedingTimeLimit": "-2",
                         "shareLimitAction": action})
        assert r.text == "Ok."
    for seeder, torrent_id in zip(seeders, ids):
        s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})

    def listed():
        return {t["hash"]: t["state"] for t in s.get(q.url("torrents/info")).json()}

    wait_for(lambda: ids[0] not in listed() and listed().get(ids[1]) == "stoppedUP", 40,
             what="the Remove torrent to go and the Default one to stop (global action)")


def test_qbittorrent_5_1_category_rules(qbtd_factory, tmp_path):
    """5.1.4's rules where 4.5.2's differ (sessionimpl.cpp categorySavePath/categoryDownloadPath/
    initLoadTorrentParams at release-5.1.4): a subcategory's implicit paths sit under its parent's, a category that
    follows the global temp path gets a folder of its own there, an add that names a path is manual with the path
    under its category's, and a parent lists its subcategories only while subcategories are on."""
    seeders, ids = seeded(tmp_path, "r", 6, 1000)
    q = qbtd_factory()
    s = q.session()
    root = s.get(q.url("app/preferences")).json()["save_path"]
    set_prefs(s, q, use_subcategories=True, temp_path_enabled=True, temp_path=f"{root}/temp", auto_tmm_enabled=True)
    assert s.get(q.url("sync/maindata")).json()["server_state"]["use_subcategories"] is True
    for c in ({"category": "A", "savePath": ""}, {"category": "A/B", "savePath": ""},
              {"category": "G", "savePath": "gsave", "downloadPathEnabled": "true", "downloadPath": "gdl"},
              {"category": "G/H", "savePath": ""}):
        assert s.post(q.url("torrents/createCategory"), data=c).status_code == 200

    def add(seeder, **params):
        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}, data={**params, "stopped": "true"})
        assert r.text == "Ok."

    add(seeders[0], category="A")
    add(seeders[1], category="G/H")
    add(seeders[2], category="A", savepath="rel")  # a path: manual, under A's path (automatic is the default)
    add(seeders[3], category="A", savepath="rel", autoTMM="false")  # manual asked for: under the default path
    set_prefs(s, q, use_category_paths_in_manual_mode=True)
    add(seeders[4], category="A", savepath="rel2", autoTMM="false", downloadPath="part")
    rows = [{k: info(s, q, i)[k] for k in ("auto_tmm", "save_path", "download_path")} for i in ids[:5]]
    assert rows == [
        {"auto_tmm": True, "save_path": f"{root}/A", "download_path": f"{root}/temp/A"},
        {"auto_tmm": True, "save_path": f"{root}/gsave/H", "download_path": f"{root}/temp/gdl/gdl"},
        {"auto_tmm": False, "save_path": f"{root}/A/rel", "download_path": f"{root}/temp/A"},
        {"auto_tmm": False, "save_path": f"{root}/rel", "download_path": f"{root}/temp"},
        {"auto_tmm": False, "save_path": f"{root}/A/rel2", "download_path": f"{root}/temp/A/part"},
    ], rows
    add(seeders[5], category="A/B")
    in_a = {t["hash"] for t in s.get(q.url("torrents/info"), params={"category": "A"}).json()}
    assert ids[5] in in_a
    set_prefs(s, q, use_subcategories=False)
    in_a = {t["hash"] for t in s.get(q.url("torrents/info"), params={"category": "A"}).json()}
    assert ids[5] not in in_a and ids[0] in in_a, "without subcategories, A/B is a name of its own"


def test_incomplete_suffix_follows_the_preference_and_rechecks(qbtd_factory, tmp_path):
    """`.!qB` comes and goes with the preference on a half-downloaded torrent, survives a recheck while the file is
    incomplete, and goes once it completes; the API shows the plain names throughout."""
    seeder = FileSeeder(tmp_path / "seed", "half", {"big.bin": os.urandom(3_000_000), "empty.txt": b""},
                        piece_size=16 * 1024, upload_limit=600_000)
    torrent_id = str(seeder.info.info_hashes().get_best())
    q = qbtd_factory()
    s = q.session()
    root = Path(s.get(q.url("app/preferences")).json()["save_path"])
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)})
    assert r.text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{seeder.port}"})
    wait_for(lambda: 0.2 < info(s, q, torrent_id)["progress"] < 0.7, 30, interval=0.05, what="part of the download")
    s.post(q.url("torrents/stop"), data={"hashes": torrent_id})
    folder = root / "half"
    assert sorted(os.listdir(folder)) == ["big.bin", "empty.txt"]
    set_prefs(s, q, incomplete_files_ext=True)
    wait_for(lambda: sorted(os.listdir(folder)) == ["big.bin.!qB", "empty.txt"], 10, what="the suffix on")
    names = [f["name"] for f in s.get(q.url("torrents/files"), params={"hash": torrent_id}).json()]
    assert names == ["half/big.bin", "half/empty.txt"]
    s.post(q.url("torrents/recheck"), data={"hashes": torrent_id})
    wait_for(lambda: info(s, q, torrent_id)["state"] in ("stoppedDL", "pausedDL"), 30, what="the recheck")
    assert sorted(os.listdir(folder)) == ["big.bin.!qB", "empty.txt"]
    set_prefs(s, q, incomplete_files_ext=False)
    wait_for(lambda: sorted(os.listdir(folder)) == ["big.bin", "empty.txt"], 10, what="the suffix off")
    set_prefs(s, q, incomplete_files_ext=True)
    wait_for(lambda: sorted(os.listdir(folder)) == ["big.bin.!qB", "empty.txt"], 10, what="the suffix on again")
    s.post(q.url("torrents/start"), data={"hashes": torrent_id})
    wait_for(lambda: info(s, q, torrent_id)["progress"] == 1, 60, what="the download to finish")
    wait_for(lambda: sorted(os.listdir(folder)) == ["big.bin", "empty.txt"], 10, what="the suffix gone")
    assert (folder / "big.bin").read_bytes() == (tmp_path / "seed" / "half" / "big.bin").read_bytes()
