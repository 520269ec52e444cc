"""Acceptance 3: the qbittorrent-api package drives qbtd like a real qBittorrent."""
import qbittorrentapi

from conftest import PASSWORD, wait_for


def test_qbittorrent_api_client(qbtd_factory, seeder):
    q = qbtd_factory()
    client = qbittorrentapi.Client(host="127.0.0.1", port=q.port, username="admin", password=PASSWORD,
                                   REQUESTS_ARGS={"timeout": 30})
    client.auth_log_in()
    assert client.app.version == "v5.1.0"
    assert client.app.web_api_version == "2.11.4"
    assert client.app.default_save_path.endswith("/downloads")
    prefs = client.app.preferences
    assert prefs["save_path"] == client.app.default_save_path
    assert prefs["web_ui_port"] == q.port and prefs["dht"] is False and prefs["listen_port"] > 0
    build = client.app.build_info
    assert build["libtorrent"].startswith("2.0") and build["bitness"] == 64 and build["platform"] == "linux"
    assert client.torrents_info() == []

    assert client.torrents_add(torrent_files=seeder.torrent, category="tv", tags=["x"], is_stopped=True) == "Ok."
    # A stopped torrent shows checkingResumeData for a moment (as in qBittorrent) before stoppedDL.
    wait_for(lambda: [t.state for t in client.torrents_info()] == ["stoppedDL"], 30, what="the torrent to settle stopped")
    torrents = client.torrents_info()
    assert [t.hash for t in torrents] == [seeder.id]
    t = torrents[0]
    assert t.category == "tv" and t.tags == "x" and t.state == "stoppedDL"
    assert client.torrents_info(status_filter="stopped")[0].hash == seeder.id
    assert client.torrents_info(status_filter="running") == []
    props = client.torrents_properties(torrent_hash=seeder.id)
    # (total_size counts the pad files of a hybrid torrent; size is what is wanted, without them)
    assert props.total_size == t.total_size >= t.size and props.pieces_num > 0
    assert len(client.torrents_files(torrent_hash=seeder.id)) == 3

    client.torrents_start(torrent_hashes=seeder.id)
    assert client.torrents_info(status_filter="stopped") == []
    client.torrents_stop(torrent_hashes=seeder.id)

    # A bare info-hash is taken as a magnet, as qBittorrent does.
    assert client.torrents_add(urls="AB" * 20) == "Ok."
    second = client.torrents_info(torrent_hashes="ab" * 20)[0]
    assert second.has_metadata is False and second.total_size == -1 and second.content_path == ""
    assert len(client.torrents_info()) == 2
    client.torrents_delete(delete_files=True, torrent_hashes=seeder.id)
    client.torrents_delete(delete_files=False, torrent_hashes="ab" * 20)
    assert client.torrents_info() == []
    client.auth_log_out()
