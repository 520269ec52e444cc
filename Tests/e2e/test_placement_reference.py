"""Issue 16, data placement against qbittorrent-nox 4.5.2: the same calls on both servers give the same categories,
the same save and download paths (relative to each server's default save path), the same subcategory filters and
removals, and the same files on disk while and after downloading with `.!qB` on (`incomplete_files_ext`).

qbtd follows qBittorrent 5.1.4's rules in every profile. Where 4.5.2's differ (5.0 nested a subcategory's implicit
paths under its parent's, gave a category that follows the global temp path a folder of its own there, and made an
add that names a path manual), these calls stay on the common ground; test_placement.py checks 5.1.4's rules."""
import os

import libtorrent as lt
import pytest

from conftest import free_port, seed, wait_for
from qbtnox import REFERENCES, QbittorrentNox
from test_placement import set_prefs

PROFILES = pytest.mark.parametrize("profile", list(REFERENCES))
STARTED = []  # the real releases a test started: stopped after it, even when it fails half-way


@pytest.fixture(autouse=True)
def stop_references():
    yield
    while STARTED:
        STARTED.pop().stop()


def v1_torrent(root, name, files, piece_size=16 * 1024):
    """A v1-only torrent (so a skipped file shares its edge pieces with its neighbours), its data written."""
    for rel, data in files.items():
        path = root / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    fs = lt.file_storage()
    lt.add_files(fs, str(root / name))
    ct = lt.create_torrent(fs, piece_size, flags=lt.create_torrent.v1_only)
    lt.set_piece_hashes(ct, str(root))
    data = lt.bencode(ct.generate())
    return data, lt.torrent_info(lt.bdecode(data))


def servers(qbtd_factory, tmp_path, profile):
    """The real release `profile` is held against (qbtnox.REFERENCES) and qbtd in that profile."""
    reference = REFERENCES[profile]
    if reference.missing():
        pytest.skip(reference.missing())
    try:
        q = qbtd_factory(extra=["--profile", profile])
    except AssertionError as e:
        if "--profile takes" not in str(e):
            raise
        pytest.skip(f"this qbtd has no --profile {profile} yet")
    # 4.5.2's WebAPI reports use_subcategories but cannot set it (5.x can): its config does.
    nox = QbittorrentNox(tmp_path / "nox", bittorrent={"SubcategoriesEnabled": "true"}, release=reference)
    STARTED.append(nox)
    nox.start()
    return [("qbittorrent-nox", nox, nox.session(), str(nox.save)),
            ("qbtd", q, q.session(), q.session().get(q.url("app/preferences")).json()["save_path"])]


CATEGORIES = [
    {"category": "A", "savePath": ""},
    {"category": "A/B", "savePath": ""},
    {"category": "C/D", "savePath": ""},  # C is made for it
    {"category": "E", "savePath": "", "downloadPathEnabled": "true", "downloadPath": ""},  # a folder named E
    {"category": "F", "savePath": "", "downloadPathEnabled": "false"},
    {"category": "G", "savePath": "gsave", "downloadPathEnabled": "true", "downloadPath": "gdl"},
    {"category": "bad/", "savePath": ""},
]


@PROFILES
def test_category_paths_filters_and_removal_as_qbittorrent(profile, qbtd_factory, tmp_path):
    torrents = [v1_torrent(tmp_path / "src", f"t{i}", {"f.bin": os.urandom(1000 + i)}) for i in range(9)]
    ids = [str(info.info_hashes().v1) for _, info in torrents]
    results = {}
    for label, server, s, root in servers(qbtd_factory, tmp_path, profile):
        def norm(value):
            return value.replace(root, "<root>") if isinstance(value, str) else value

        def row(torrent_id):
            t = s.get(server.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
            return {k: norm(t[k]) for k in ("category", "auto_tmm", "save_path", "download_path")}

        set_prefs(s, server, temp_path=f"{root}/temp", use_subcategories=True)
        out = results[label] = {}
        out["create"] = [(r.status_code, r.text) for r in
                         (s.post(server.url("torrents/createCategory"), data=c) for c in CATEGORIES)]
        out["categories"] = {k: {f: norm(v) for f, v in c.items()}
                             for k, c in s.get(server.url("torrents/categories")).json().items()}
        adds = [
            *({"category": c, "autoTMM": "true"} for c in ("A", "A/B", "C/D", "E", "F", "G")),
            {"category": "A", "autoTMM": "false", "savepath": "rel"},  # under the default save path
            {"category": "G", "autoTMM": "false", "savepath": f"{root}/abs", "downloadPath": "rdl",
             "useDownloadPath": "true"},  # under the global temp path
            {"category": "X/Y", "autoTMM": "true"},  # an unknown category is made, parents and all
        ]
        for (data, _), params in zip(torrents, adds):
            r = s.post(server.url("torrents/add"), files={"torrents": ("t.torrent", data)},
                       data={**params, "stopped": "true", "paused": "true"})
            assert r.status_code == 200, (label, params, r.text)  # 5.2+: JSON with the added ids
        wait_for(lambda: len(s.get(server.url("torrents/info")).json()) == len(adds), 20, what=f"{label}'s adds")
        out["torrents"] = [row(i) for i in ids]
        out["categories after adds"] = sorted(s.get(server.url("torrents/categories")).json())
        out["in A"] = sorted(t["hash"] for t in s.get(server.url("torrents/info"), params={"category": "A"}).json())
        out["in X"] = sorted(t["hash"] for t in s.get(server.url("torrents/info"), params={"category": "X"}).json())
        s.post(server.url("torrents/removeCategories"), data={"categories": "A\nX/Y"})
        out["after removal"] = sorted(s.get(server.url("torrents/categories")).json())
        out["categories after removal"] = [row(i)["category"] for i in ids]
        server.stop()
    reference, ours = results["qbittorrent-nox"], results["qbtd"]
    for key in reference:
        assert ours[key] == reference[key], (key, ours[key], reference[key])


@PROFILES
def test_incomplete_files_suffix_as_qbittorrent(profile, qbtd_factory, tmp_path):
    """Two files; the first is skipped. While downloading, the second is `b.bin.!qB`; once it is complete it is
    `b.bin`, and the skipped file is not on disk (its edge piece goes to libtorrent's part file). The API never shows
    the suffix."""
    data, info = v1_torrent(tmp_path / "src", "pair", {"a.bin": os.urandom(100_000), "b.bin": os.urandom(1_500_000)})
    torrent_id = str(info.info_hashes().v1)
    port = free_port()
    session, handle = seed(info, tmp_path / "src", port)
    handle.set_upload_limit(400_000)  # a few seconds of download: long enough to see the suffix
    seen = {}
    for label, server, s, root in servers(qbtd_factory, tmp_path, profile):
        set_prefs(s, server, incomplete_files_ext=True)
        r = s.post(server.url("torrents/add"), files={"torrents": ("t.torrent", data)},
                   data={"stopped": "true", "paused": "true", "savepath": f"{root}/inc"})
        assert r.status_code == 200, r.text
        def files():
            r = s.get(server.url("torrents/files"), params={"hash": torrent_id})
            return r.json() if r.status_code == 200 else None  # 404 until qBittorrent's background add is done
        wait_for(files, 20, what="files")
        s.post(server.url("torrents/filePrio"), data={"hash": torrent_id, "id": "0", "priority": "0"})
        s.post(server.url("torrents/start"), data={"hashes": torrent_id})
        s.post(server.url("torrents/resume"), data={"hashes": torrent_id})
        s.post(server.url("torrents/addPeers"), data={"hashes": torrent_id, "peers": f"127.0.0.1:{port}"})

        def on_disk():
            folder = f"{root}/inc/pair"
            return sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        try:
            wait_for(lambda: "b.bin.!qB" in on_disk(), 30, interval=0.05, what=f"{label}: b.bin.!qB while downloading")
        except AssertionError:  # once in CI (not reproduced in 25 local runs): say what each side saw
            print("INFO", s.get(server.url("torrents/info"), params={"hashes": torrent_id}).json())
            print("PEERS", s.get(server.url("sync/torrentPeers"), params={"hash": torrent_id}).json())
            print("DISK", on_disk())
            print("FILES", s.get(server.url("torrents/files"), params={"hash": torrent_id}).json())
            print("SEEDER", [(p.ip, p.flags) for p in handle.get_peer_info()], handle.status().state)
            raise
        names = [f["name"] for f in s.get(server.url("torrents/files"), params={"hash": torrent_id}).json()]
        assert names == ["pair/a.bin", "pair/b.bin"], (label, names)

        def done():
            t = s.get(server.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
            return t["progress"] == 1 and "b.bin" in on_disk()
        wait_for(done, 60, what=f"{label}: the download to finish and b.bin to lose its suffix")
        wait_for(lambda: "b.bin.!qB" not in on_disk(), 10, what=f"{label}: no b.bin.!qB left")
        seen[label] = on_disk()
        t = s.get(server.url("torrents/info"), params={"hashes": torrent_id}).json()[0]
        assert t["content_path"] == f"{root}/inc/pair", (label, t["content_path"])
        server.stop()
    assert seen["qbtd"] == seen["qbittorrent-nox"] == ["b.bin"], seen
