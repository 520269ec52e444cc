"""Issue 40, fewer round trips: `torrents/info` takes qbtd's `includeFiles` and `includeProperties`, and each row then
carries what `torrents/files` and `torrents/properties` answer for that torrent, so a tool reads a library in one
request. Without them the rows are what qBittorrent sends; with `includeTrackers` (5.1 and later) they combine."""
import os

import libtorrent as lt
import pytest

from conftest import wait_for


def multi_file_torrent(root, name, files):
    (root / name).mkdir(parents=True)
    for i in range(files):
        (root / name / f"f{i}.bin").write_bytes(os.urandom(20_000 + i))
    fs = lt.file_storage()
    lt.add_files(fs, str(root / name))
    ct = lt.create_torrent(fs, 16 * 1024, flags=lt.create_torrent.v1_only)
    ct.add_tracker(f"http://127.0.0.1:9/{name}/announce", 0)
    lt.set_piece_hashes(ct, str(root))
    data = lt.bencode(ct.generate())
    return data, str(lt.torrent_info(lt.bdecode(data)).info_hashes().v1)


@pytest.mark.parametrize("profile", ["4.6", "5.3"])
def test_info_carries_files_and_properties(profile, qbtd_factory, tmp_path):
    q = qbtd_factory(extra=["--profile", profile])
    s = q.session()
    torrents = dict(multi_file_torrent(tmp_path / "src", name, files) for name, files in (("a", 3), ("b", 1)))
    for data in torrents:
        r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", data)}, data={"paused": "true", "stopped": "true"})
        assert r.status_code == 200, r.text
    wait_for(lambda: len(s.get(q.url("torrents/info")).json()) == 2, 20, what="both torrents listed")

    plain = {t["hash"]: t for t in s.get(q.url("torrents/info")).json()}
    assert all("files" not in t and "properties" not in t for t in plain.values())

    rich = {t["hash"]: t for t in s.get(q.url("torrents/info"), params={"includeFiles": "true", "includeProperties": "true"}).json()}
    assert rich.keys() == plain.keys()
    for id, row in rich.items():
        files = s.get(q.url("torrents/files"), params={"hash": id}).json()
        properties = s.get(q.url("torrents/properties"), params={"hash": id}).json()
        assert row["files"] == files, (row["files"], files)
        assert row["properties"].keys() == properties.keys()
        assert row["properties"]["save_path"] == properties["save_path"] and row["properties"]["hash"] == id
        assert {k: v for k, v in row.items() if k not in ("files", "properties")}.keys() == plain[id].keys()
    assert sorted(len(t["files"]) for t in rich.values()) == [1, 3]

    only_files = s.get(q.url("torrents/info"), params={"includeFiles": "true", "hashes": next(iter(rich))}).json()
    assert len(only_files) == 1 and "files" in only_files[0] and "properties" not in only_files[0]

    if profile != "4.6":  # 5.1's includeTrackers, together with qbtd's options
        both = s.get(q.url("torrents/info"), params={"includeTrackers": "true", "includeFiles": "true"}).json()
        assert all(t["trackers"] and t["files"] for t in both), both
