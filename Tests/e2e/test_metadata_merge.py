"""Issue 39: a magnet still fetching its metadata, then the same torrent added as a .torrent file. qBittorrent gives
the torrent the file's metadata (`setMetadata` on the duplicate) and it goes on as if the metadata had arrived: a
stop condition of MetadataReceived is met and the torrent stops. qbtd left it in metaDL for good."""
import pytest

from conftest import wait_for
from rss_support import make_torrent


def info_of(s, q, torrent_id):
    rows = s.get(q.url("torrents/info"), params={"hashes": torrent_id}).json()
    return rows[0] if rows else None


@pytest.mark.parametrize("profile", ["5.1", "5.3"])
def test_a_torrent_file_gives_a_fetching_magnet_its_metadata(qbtd_factory, tmp_path, profile):
    data, torrent_id = make_torrent(tmp_path / "src", "merged")
    q = qbtd_factory(extra=["--profile", profile])
    s = q.session()
    r = s.post(q.url("torrents/add"), data={"urls": f"magnet:?xt=urn:btih:{torrent_id}&dn=fetching",
                                             "stopCondition": "MetadataReceived"})
    assert r.status_code == 200, (r.status_code, r.text)
    t = wait_for(lambda: (x := info_of(s, q, torrent_id)) and x["state"] == "metaDL" and x, 20, what="the magnet in metaDL")
    assert not t["has_metadata"]

    # The same torrent as a file: a duplicate, so the add itself fails as qBittorrent's does for a duplicate.
    r = s.post(q.url("torrents/add"), files={"torrents": ("merged.torrent", data, "application/x-bittorrent")})
    # As the real releases answer a duplicate: 5.1.0 200 "Fails.", 5.3.0 409 "Conflict".
    assert (r.status_code, r.text) == ((200, "Fails.") if profile == "5.1" else (409, "Conflict")), (r.status_code, r.text)

    t = wait_for(lambda: (x := info_of(s, q, torrent_id)) and x["has_metadata"] and x["state"] == "stoppedDL" and x,
                 20, what="the magnet to take the file's metadata and stop")
    assert t["size"] == 40_000, t
    files = s.get(q.url("torrents/files"), params={"hash": torrent_id}).json()
    assert [f["name"] for f in files] == ["merged/merged.bin"], files
