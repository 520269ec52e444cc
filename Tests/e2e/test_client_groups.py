"""Acceptance: the Python qbittorrent-api package exercises every group against qbtd without an error.

Every method of the client's auth, app, log, sync, transfer, torrents and rss groups that qBittorrent 5.1
(WebAPI 2.11.4) serves is called, through the flat `client.torrents_*` methods and through the helper
objects (`client.torrents.info.stopped()`, `TorrentDictionary`, `client.torrent_tags`, ...), and each
result is checked for sense: values set are read back, things created are listed, things removed are gone.
`app/shutdown` comes last and the server process must then exit.

Left out on purpose, because qBittorrent added them after WebAPI 2.11.4 (5.2+): app process_info,
get_free_space_at_path, rotate_api_key, delete_api_key; transfer speed_limits, set_speed_limits,
pause_session, resume_session; torrents piece_availability, set_comment, download_file,
fetch_metadata, parse_metadata, save_metadata. Nothing in these groups was removed before 2.11.4
(pause/resume became stop/start in 2.11.0; the client picks the right one).

Each step is recorded instead of stopping the test at the first failure, so one run lists every method
that fails (with its endpoint and HTTP status) and the test then fails with that whole list.

`test_client_groups_qbtd` is the acceptance test. `test_client_groups_reference_qbittorrent_nox` runs the
same body against Debian's qbittorrent-nox (4.5.2, WebAPI 2.8.19) to keep the test itself honest; it is
skipped when qbittorrent-nox is not installed. Methods the older server lacks are gated on its WebAPI
version, exactly as a careful client would.
"""
import contextlib
import re
import time
import traceback
from pathlib import Path

import libtorrent as lt
import pytest
import qbittorrentapi
from packaging.version import Version

from conftest import PASSWORD, SIZES, wait_for
from qbtnox import NOX, QbittorrentNox

WAIT = 20  # seconds for anything the server does asynchronously

def _ssl_material():
    """A certificate/key pair made with the openssl CLI and the fixed ffdhe2048 parameters."""
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("openssl"):
        return None
    with tempfile.TemporaryDirectory() as d:
        key, cert = Path(d) / "key.pem", Path(d) / "cert.pem"
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(key)],
                       check=True, capture_output=True)
        subprocess.run(["openssl", "req", "-x509", "-new", "-key", str(key), "-subj", "/CN=qbtd-tests",
                        "-days", "3650", "-out", str(cert)], check=True, capture_output=True)
        dh = subprocess.run(["openssl", "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt",
                             "group:ffdhe2048"], check=True, capture_output=True, text=True).stdout
        return cert.read_text(), key.read_text(), dh


# ---------------------------------------------------------------------------------------------------------
# Step bookkeeping


class Steps:
    """Runs each step, records what failed, and lets the test go on with the next one."""

    def __init__(self):
        self.failures = []
        self.passed = []

    @contextlib.contextmanager
    def __call__(self, name):
        try:
            yield
        except Exception as e:  # noqa: BLE001 - every failure is reported at the end
            self.failures.append(f"{name}: {describe(e)}")
        else:
            self.passed.append(name)

    def report(self):
        return "\n".join(self.failures)


def describe(e):
    response = getattr(e, "response", None)
    if response is not None:
        req = response.request
        path = re.sub(r"^https?://[^/]+", "", req.url)
        return f"{req.method} {path} -> HTTP {response.status_code} {response.text[:120]!r}"
    frame = next((f for f in reversed(traceback.extract_tb(e.__traceback__)) if f.filename == __file__), None)
    where = f" (line {frame.lineno}: {frame.line})" if frame else ""
    return f"{type(e).__name__}: {str(e)[:400]}{where}"


# ---------------------------------------------------------------------------------------------------------
# The body, shared by qbtd and qbittorrent-nox


def real_trackers(trackers):
    return [t.url for t in trackers if not t.url.startswith("** [")]


def exercise(server, seeder, username, password):
    step = Steps()
    client = qbittorrentapi.Client(host="127.0.0.1", port=server.port, username=username, password=password,
                                   REQUESTS_ARGS={"timeout": 30},
                                   RAISE_NOTIMPLEMENTEDERROR_FOR_UNIMPLEMENTED_API_ENDPOINTS=True)
    h = seeder.id
    other = "cd" * 20  # a magnet without metadata, second torrent for queueing and multi-hash calls
    api = Version("0")

    # ---- auth -------------------------------------------------------------------------------------------
    with step("auth_log_in with a wrong password"):
        bad = qbittorrentapi.Client(host="127.0.0.1", port=server.port, username=username, password="nope",
                                    REQUESTS_ARGS={"timeout": 30})
        with pytest.raises(qbittorrentapi.LoginFailed):
            bad.auth_log_in()
        assert bad.is_logged_in is False
    with step("auth_log_in"):
        assert client.is_logged_in is False
        client.auth_log_in()
        assert client.is_logged_in is True
    with step("auth_log_out"):
        client.auth_log_out()
        assert client.is_logged_in is False
        client.auth.log_in()  # the Authorization helper logs back in
        assert client.auth.is_logged_in is True

    # Every directory the test uses lives under the default save path: qbtd confines paths to it.
    tmp = Path(client.app_default_save_path()) / "groups"

    # ---- app --------------------------------------------------------------------------------------------
    with step("app_version / app_web_api_version"):
        assert re.fullmatch(r"v\d+\.\d+\.\d+.*", client.app_version())
        assert client.app.version == client.app_version()
        version = client.app.web_api_version
        assert re.fullmatch(r"\d+\.\d+(\.\d+)?", version) and client.app_webapiVersion() == version
        api = Version(version)
    with step("app_build_info"):
        build = client.app.build_info
        for key in ("qt", "libtorrent", "boost", "openssl", "bitness"):
            assert key in build, key
        assert build.bitness in (32, 64) and re.match(r"\d+\.\d+", build.libtorrent)
    with step("app_default_save_path / app_preferences"):
        prefs = client.app.preferences
        assert isinstance(prefs, dict) and len(prefs) > 100
        assert prefs["save_path"].rstrip("/") == client.app.default_save_path.rstrip("/")
        assert prefs["web_ui_port"] == server.port and prefs["dht"] is False
    with step("app_set_preferences"):
        client.app_set_preferences({"max_connec": 321, "max_uploads": 17, "alt_dl_limit": 3 * 1024 * 1024,
                                    "alt_up_limit": 2 * 1024 * 1024, "max_ratio_enabled": True,
                                    "max_ratio": 3.5})
        client.app.preferences = {"max_connec_per_torrent": 45}  # the property setter
        prefs = client.app.preferences
        assert (prefs.max_connec, prefs.max_uploads, prefs.max_connec_per_torrent) == (321, 17, 45)
        assert (prefs.alt_dl_limit, prefs.alt_up_limit) == (3 * 1024 * 1024, 2 * 1024 * 1024)
        assert prefs.max_ratio_enabled is True and prefs.max_ratio == 3.5
    with step("app_network_interface_list / app_network_interface_address_list"):
        interfaces = client.app.network_interface_list
        assert "lo" in [i.value for i in interfaces] and all(i.name for i in interfaces)
        assert "127.0.0.1" in client.app_network_interface_address_list(interface_name="lo")
        assert "127.0.0.1" in client.app.network_interface_address_list()
    if api >= Version("2.10.4"):
        with step("app_send_test_email"):
            # Mail notifications are off (the default), so qBittorrent sends nothing: the call just succeeds.
            assert client.app.preferences.mail_notification_enabled is False
            assert client.app_send_test_email() is None
    if api >= Version("2.11"):
        with step("app_get_directory_content"):
            listing = tmp / "listing"
            (listing / "sub").mkdir(parents=True)
            (listing / "file.txt").write_text("x")
            got = client.app_get_directory_content(directory_path=listing)
            assert sorted(got) == sorted([str(listing / "sub"), str(listing / "file.txt")])
            assert client.app.get_directory_content(str(listing / "sub")) == []
            with pytest.raises(qbittorrentapi.NotFound404Error):
                client.app_get_directory_content(directory_path=tmp / "does-not-exist")
    if api >= Version("2.11.3"):
        with step("app_cookies / app_set_cookies"):
            assert client.app.cookies == []
            cookies = [{"name": "sid", "value": "abc", "domain": "tracker.example", "path": "/",
                        "expirationDate": int(time.time()) + 86400},
                       {"name": "pref", "value": "1", "domain": "other.example", "path": "/x",
                        "expirationDate": int(time.time()) + 3600}]
            client.app_set_cookies(cookies=cookies)
            got = sorted((dict(c) for c in client.app_cookies()), key=lambda c: c["name"])
            assert got == sorted(cookies, key=lambda c: c["name"])
            client.app.set_cookies([])
            assert client.app.cookies == []

    # ---- transfer ---------------------------------------------------------------------------------------
    with step("transfer_info"):
        info = client.transfer.info
        for key in ("dl_info_speed", "dl_info_data", "up_info_speed", "up_info_data", "dl_rate_limit",
                    "up_rate_limit", "dht_nodes", "connection_status"):
            assert key in info, key
        assert info.dht_nodes == 0 and info.connection_status in ("connected", "firewalled", "disconnected")
    with step("transfer_set_download_limit / transfer_download_limit"):
        client.transfer_set_download_limit(limit=1024 * 1024)
        assert client.transfer_download_limit() == 1024 * 1024
        assert client.transfer.info.dl_rate_limit == 1024 * 1024
        assert client.app.preferences.dl_limit == 1024 * 1024
        client.transfer.download_limit = 0  # the property setter
        assert client.transfer.download_limit == 0
    with step("transfer_set_upload_limit / transfer_upload_limit"):
        client.transfer.set_upload_limit(limit=512 * 1024)
        assert client.transfer.upload_limit == 512 * 1024 and client.transfer_uploadLimit() == 512 * 1024
        assert client.app.preferences.up_limit == 512 * 1024
        client.transfer_set_upload_limit(limit=0)
        assert client.transfer_upload_limit() == 0
    with step("transfer_speed_limits_mode / transfer_set_speed_limits_mode / toggle"):
        assert client.transfer_speed_limits_mode() == "0"
        client.transfer_set_speed_limits_mode(intended_state=True)  # setSpeedLimitsMode (2.8.14+)
        assert client.transfer.speed_limits_mode == "1"
        # With the alternative limits on, the global limits are the alternative ones.
        assert client.transfer_download_limit() == 3 * 1024 * 1024
        assert client.transfer_upload_limit() == 2 * 1024 * 1024
        client.transfer_toggle_speed_limits_mode()  # no intended state: toggleSpeedLimitsMode
        assert client.transfer_speed_limits_mode() == "0"
        client.transfer.speed_limits_mode = False
        assert client.transfer.speedLimitsMode == "0"
        assert client.transfer_download_limit() == 0

    # ---- categories and tags before any torrent ---------------------------------------------------------
    cat_a, cat_b = tmp / "cats" / "a", tmp / "cats" / "b"
    with step("torrents_create_category / torrents_categories"):
        client.torrents_create_category(name="cat-a", save_path=str(cat_a))
        client.torrent_categories.create_category(name="cat-b", save_path=str(cat_b))
        cats = client.torrents_categories()
        assert {"cat-a", "cat-b"} <= set(cats)
        assert cats["cat-a"]["name"] == "cat-a" and cats["cat-a"]["savePath"] == str(cat_a)
        assert client.torrent_categories.categories["cat-b"]["savePath"] == str(cat_b)
    with step("torrents_edit_category"):
        cat_a = tmp / "cats" / "a2"
        client.torrents_edit_category(name="cat-a", save_path=str(cat_a))
        assert client.torrents_categories()["cat-a"]["savePath"] == str(cat_a)
        client.torrent_categories.categories = {"name": "cat-c", "save_path": str(tmp / "cats" / "c")}
        assert client.torrent_categories.categories["cat-c"]["savePath"] == str(tmp / "cats" / "c")
    with step("torrents_remove_categories"):
        client.torrents_remove_categories(categories="cat-c")
        assert "cat-c" not in client.torrents_categories()
    with step("torrents_create_tags / torrents_tags"):
        client.torrents_create_tags(tags=["t1", "t2"])
        client.torrent_tags.tags = "t3"  # the property setter creates
        assert {"t1", "t2", "t3"} <= set(client.torrents_tags()) and "t3" in client.torrent_tags.tags
    with step("torrents_delete_tags"):
        client.torrent_tags.delete_tags(tags="t3")
        assert "t3" not in client.torrents_tags()

    # ---- sync: a full update, then the diffs ------------------------------------------------------------
    # qBittorrent 5.1 answers with a diff only when `rid` is the last id it sent to this session, so the
    # requests below form one chain: a full update, a diff, then the `delta()` helper's own chain from 0.
    with step("sync_maindata full"):
        full = client.sync_maindata()
        assert full.full_update is True and isinstance(full.rid, int) and full.rid > 0
        assert {"cat-a", "cat-b"} <= set(full.categories) and {"t1", "t2"} <= set(full.tags)
        assert full.get("torrents", {}) == {}
        for key in ("dl_info_speed", "up_info_speed", "connection_status", "free_space_on_disk",
                    "alltime_dl", "use_alt_speed_limits"):
            assert key in full.server_state, key
    with step("sync_maindata incremental (nothing changed)"):
        quiet = client.sync_maindata(rid=full.rid)
        assert not quiet.get("full_update") and quiet.rid != full.rid
        assert "torrents" not in quiet and "categories" not in quiet and "tags" not in quiet
    with step("Sync.MainData.delta"):
        client.sync.maindata.reset_rid()
        md = client.sync.maindata.delta()  # from rid 0: a full update again
        assert md.full_update is True and set(md.categories) == set(full.categories)
        quiet = client.sync.maindata.delta()
        assert not quiet.get("full_update") and "torrents" not in quiet and "categories" not in quiet

    # ---- add torrents -----------------------------------------------------------------------------------
    save = tmp / "dl"
    with step("torrents_add a .torrent (stopped, category, tags)"):
        assert client.torrents_add(torrent_files=seeder.torrent, save_path=str(save), category="cat-a",
                                   tags=["t1"], is_stopped=True) == "Ok."
        wait_for(lambda: client.torrents_info(torrent_hashes=h), WAIT, what="the torrent to be added")
    with step("torrents_add a magnet"):
        assert client.torrents.add(urls=f"magnet:?xt=urn:btih:{other}&dn=second", save_path=str(save),
                                   is_paused=True, tags="t2") == "Ok."
        wait_for(lambda: client.torrents_info(torrent_hashes=other), WAIT, what="the magnet to be added")
        # Both come up stopped once their (empty) resume data is checked.
        wait_for(lambda: all(x.state_enum.is_stopped for x in client.torrents_info()), WAIT, what="stopped states")
    if api >= Version("2.9.3"):
        with step("torrents_count"):
            assert client.torrents_count() == 2 and client.torrents.count() == 2

    with step("torrents_info and its filters"):
        t = client.torrents_info(torrent_hashes=h)[0]
        assert isinstance(t, qbittorrentapi.TorrentDictionary)
        # libtorrent 2 pads files to piece boundaries: `size` is what is wanted, `total_size` counts the padding.
        assert t.hash == h and t.name == "payload" and t.size == sum(SIZES)
        assert t.total_size == seeder.info.total_size()
        assert t.category == "cat-a" and t.tags == "t1" and t.state_enum.is_stopped
        assert t.save_path.rstrip("/") == str(save) and t.progress == 0 and t.auto_tmm is False
        assert t.seq_dl is False and t.f_l_piece_prio is False and t.force_start is False
        assert {x.hash for x in client.torrents_info()} == {h, other}
        assert {x.hash for x in client.torrents.info.stopped()} == {h, other}
        assert {x.hash for x in client.torrents.info.paused()} == {h, other}  # alias, mapped by version
        assert client.torrents_info(status_filter="running") == []
        assert client.torrents.info.completed() == [] and client.torrents.info.seeding() == []
        assert {x.hash for x in client.torrents.info.all()} == {h, other}
        assert [x.hash for x in client.torrents_info(category="cat-a")] == [h]
        assert [x.hash for x in client.torrents_info(tag="t2")] == [other]
        assert [x.hash for x in client.torrents.info(torrent_hashes=[h, other], sort="hash")] == sorted([h, other])
        assert [x.hash for x in client.torrents_info(sort="hash", reverse=True)] == sorted([h, other])[::-1]
        assert [x.hash for x in client.torrents_info(sort="hash", limit=1, offset=1)] == [sorted([h, other])[1]]
        second = client.torrents_info(torrent_hashes=other)[0]
        assert second.has_metadata is False if "has_metadata" in second else second.total_size <= 0
    with step("TorrentDictionary.info / sync_local"):
        t = client.torrents_info(torrent_hashes=h)[0]
        assert t.info.hash == h
        t.sync_local()
        assert t.name == "payload"

    with step("sync_maindata incremental after adds"):
        md = client.sync.maindata.delta()
        assert not md.get("full_update")
        assert {h, other} <= set(md.torrents)
        assert md.torrents[h]["name"] == "payload" and md.torrents[h]["category"] == "cat-a"
        last_rid = md.rid

    with step("torrents_properties"):
        props = client.torrents_properties(torrent_hash=h)
        assert props.total_size == seeder.info.total_size() and props.pieces_num == seeder.info.num_pieces()
        assert props.piece_size == seeder.info.piece_length() and props.pieces_have == 0
        assert props.save_path.rstrip("/") == str(save) and props.created_by == "qbtd tests"
        assert props.addition_date > 0 and props.completion_date == -1
        assert client.torrents.properties(torrent_hash=h).pieces_num == props.pieces_num
        assert client.torrents_info(torrent_hashes=h)[0].properties.total_size == props.total_size
        with pytest.raises(qbittorrentapi.NotFound404Error):
            client.torrents_properties(torrent_hash="ef" * 20)
    with step("torrents_files"):
        files = client.torrents_files(torrent_hash=h)
        names = sorted(f.name for f in files)
        assert names == ["payload/dir0/file2.bin", "payload/dir1/file1.bin", "payload/file0.bin"]
        assert sorted(f.size for f in files) == sorted(SIZES)
        assert [f.index for f in files] == [0, 1, 2] if "index" in files[0] else True
        assert all(f.priority == 1 and f.progress == 0 for f in files)
    with step("torrents_piece_states / torrents_piece_hashes"):
        n = seeder.info.num_pieces()
        # A torrent that never ran may answer [] until its status is first read.
        states = wait_for(lambda: client.torrents_piece_states(torrent_hash=h), WAIT, what="piece states")
        assert list(states) == [0] * n
        hashes = client.torrents.piece_hashes(torrent_hash=h)
        assert list(hashes) == [seeder.info.hash_for_piece(i).hex() for i in range(n)]
        t = client.torrents_info(torrent_hashes=h)[0]
        assert list(t.piece_states) == [0] * n and list(t.pieceHashes) == list(hashes)
    if api >= Version("2.8.14"):
        with step("torrents_export"):
            exported = client.torrents_export(torrent_hash=h)
            assert isinstance(exported, bytes)
            ti = lt.torrent_info(lt.bdecode(exported))
            assert str(ti.info_hashes().get_best()) == h and ti.num_files() == seeder.info.num_files()
            assert client.torrents_info(torrent_hashes=h)[0].export() == exported

    with step("torrents_file_priority"):
        by_name = {f.name: f.index if "index" in f else f.id for f in client.torrents_files(torrent_hash=h)}
        client.torrents_file_priority(torrent_hash=h, file_ids=[by_name["payload/dir0/file2.bin"],
                                                                by_name["payload/dir1/file1.bin"]], priority=0)
        client.torrents.file_priority(torrent_hash=h, file_ids=by_name["payload/file0.bin"], priority=7)
        prio = {f.name: f.priority for f in client.torrents_files(torrent_hash=h)}
        assert prio == {"payload/file0.bin": 7, "payload/dir0/file2.bin": 0, "payload/dir1/file1.bin": 0}
        client.torrents_info(torrent_hashes=h)[0].file_priority(file_ids=list(by_name.values()), priority=1)
        assert {f.priority for f in client.torrents_files(torrent_hash=h)} == {1}
    with step("torrents_rename_file"):
        client.torrents_rename_file(torrent_hash=h, old_path="payload/file0.bin", new_path="payload/renamed0.bin")
        wait_for(lambda: "payload/renamed0.bin" in {f.name for f in client.torrents_files(torrent_hash=h)},
                 WAIT, what="the renamed file")
        assert "payload/file0.bin" not in {f.name for f in client.torrents_files(torrent_hash=h)}
    with step("torrents_rename_folder"):
        client.torrents.rename_folder(torrent_hash=h, old_path="payload/dir0", new_path="payload/folder0")
        wait_for(lambda: "payload/folder0/file2.bin" in {f.name for f in client.torrents_files(torrent_hash=h)},
                 WAIT, what="the renamed folder")
        assert sorted(f.name for f in client.torrents_files(torrent_hash=h)) == [
            "payload/dir1/file1.bin", "payload/folder0/file2.bin", "payload/renamed0.bin"]
    with step("torrents_rename"):
        client.torrents_rename(torrent_hash=h, new_torrent_name="renamed torrent")
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].name == "renamed torrent", WAIT,
                 what="the new torrent name")
        md = client.sync.maindata.delta()
        assert md.rid > last_rid and md.torrents[h]["name"] == "renamed torrent"
        assert set(md.torrents) == {h}  # only the renamed torrent travels

    tracker1, tracker2, tracker3 = (f"http://127.0.0.1:{p}/announce" for p in (1, 2, 3))
    with step("torrents_trackers"):
        trackers = client.torrents_trackers(torrent_hash=h)
        assert [x.url for x in trackers[:3]] == ["** [DHT] **", "** [PeX] **", "** [LSD] **"]
        assert real_trackers(trackers) == []
    with step("torrents_add_trackers"):
        client.torrents_add_trackers(torrent_hash=h, urls=[tracker1, tracker2])
        # Both land in one tier; their order inside it is not defined.
        wait_for(lambda: sorted(real_trackers(client.torrents_trackers(torrent_hash=h))) == [tracker1, tracker2], WAIT,
                 what="the added trackers")
        added = {x.url: x for x in client.torrents_trackers(torrent_hash=h)}
        assert added[tracker1].status == 1 and added[tracker1].tier >= 0  # not contacted yet: it is stopped
        assert client.torrents_info(torrent_hashes=h)[0].trackers_count == 2
    if api >= Version("2.11.4"):
        with step("torrents_info include_trackers"):
            t = client.torrents_info(torrent_hashes=h, include_trackers=True)[0]
            assert sorted(x["url"] for x in t["trackers"]) == [tracker1, tracker2]  # t.trackers would ask torrents/trackers
    with step("torrents_edit_tracker"):
        client.torrents_edit_tracker(torrent_hash=h, original_url=tracker1, new_url=tracker3)
        wait_for(lambda: sorted(real_trackers(client.torrents_trackers(torrent_hash=h))) == [tracker2, tracker3], WAIT,
                 what="the edited tracker")
        with pytest.raises(qbittorrentapi.Conflict409Error):
            client.torrents_edit_tracker(torrent_hash=h, original_url=tracker1, new_url="http://127.0.0.1:4/a")
    with step("torrents_remove_trackers"):
        client.torrents_info(torrent_hashes=h)[0].remove_trackers(urls=tracker2)
        wait_for(lambda: real_trackers(client.torrents_trackers(torrent_hash=h)) == [tracker3], WAIT,
                 what="the tracker to go")
        md = client.sync.maindata.delta()
        if "trackers" in md or api >= Version("2.11"):
            assert h in md.get("trackers", {}).get(tracker3, [])
    with step("torrents_webseeds"):
        assert client.torrents_webseeds(torrent_hash=h) == []
    if api >= Version("2.11.3"):
        ws1, ws2, ws3 = (f"http://127.0.0.1:1/seed{i}/" for i in (1, 2, 3))
        with step("torrents_add_webseeds / torrents_edit_webseed / torrents_remove_webseeds"):
            client.torrents_add_webseeds(torrent_hash=h, urls=[ws1, ws2])
            assert sorted(w.url for w in client.torrents_webseeds(torrent_hash=h)) == [ws1, ws2]
            client.torrents_edit_webseed(torrent_hash=h, orig_url=ws1, new_url=ws3)
            assert sorted(w.url for w in client.torrents.webseeds(torrent_hash=h)) == [ws2, ws3]
            with pytest.raises(qbittorrentapi.Conflict409Error):
                client.torrents_edit_webseed(torrent_hash=h, orig_url=ws1, new_url="http://127.0.0.1:1/x/")
            client.torrents_remove_webseeds(torrent_hash=h, urls=ws2)
            assert [w.url for w in client.torrents_info(torrent_hashes=h)[0].webseeds] == [ws3]
            client.torrents_info(torrent_hashes=h)[0].remove_webseeds(urls=[ws3])
            assert client.torrents_webseeds(torrent_hash=h) == []
    if api >= Version("2.10.3"):
        with step("torrents_ssl_parameters / torrents_set_ssl_parameters"):
            empty = client.torrents_ssl_parameters(torrent_hash=h)
            assert set(empty) == {"ssl_certificate", "ssl_private_key", "ssl_dh_params"}
            assert (empty.ssl_certificate, empty.ssl_dh_params) == ("", "")
            material = _ssl_material()
            assert material, "openssl is needed to make a certificate"
            cert, key, dh = material
            with pytest.raises(qbittorrentapi.HTTP4XXError):
                client.torrents_set_ssl_parameters(torrent_hash=h, ssl_certificate="junk", ssl_private_key=key,
                                                   ssl_dh_params=dh)
            client.torrents_set_ssl_parameters(torrent_hash=h, ssl_certificate=cert, ssl_private_key=key,
                                               ssl_dh_params=dh)
            got = client.torrents.ssl_parameters(torrent_hash=h)
            assert got.ssl_certificate.strip() == cert.strip() and got.ssl_dh_params.strip() == dh.strip()
            assert "PRIVATE KEY-----" in got.ssl_private_key

    # ---- per-torrent settings ---------------------------------------------------------------------------
    with step("torrents_set_download_limit / torrents_download_limit"):
        client.torrents_set_download_limit(limit=200 * 1024, torrent_hashes=h)
        assert client.torrents_download_limit(torrent_hashes=h) == {h: 200 * 1024}
        t = client.torrents_info(torrent_hashes=h)[0]
        assert t.dl_limit == 200 * 1024 and t.download_limit == 200 * 1024
        client.torrents.set_download_limit(limit=150 * 1024, torrent_hashes=[h, other])
        assert client.torrents.download_limit(torrent_hashes=[h, other]) == {h: 150 * 1024, other: 150 * 1024}
        t.download_limit = 200 * 1024  # the TorrentDictionary property setter
        assert client.torrents_downloadLimit(torrent_hashes=h)[h] == 200 * 1024
    with step("torrents_set_upload_limit / torrents_upload_limit"):
        client.torrents_set_upload_limit(limit=64 * 1024, torrent_hashes=[h, other])
        assert client.torrents_upload_limit(torrent_hashes=[h, other]) == {h: 64 * 1024, other: 64 * 1024}
        t = client.torrents_info(torrent_hashes=h)[0]
        assert t.up_limit == 64 * 1024 and t.upload_limit == 64 * 1024
        t.set_upload_limit(limit=0)
        assert client.torrents.upload_limit(torrent_hashes=h)[h] in (0, -1)
    with step("torrents_set_share_limits"):
        extra = {"inactive_seeding_time_limit": 30} if api >= Version("2.9.2") else {}
        client.torrents_set_share_limits(ratio_limit=2.5, seeding_time_limit=120, torrent_hashes=h, **extra)
        t = client.torrents_info(torrent_hashes=h)[0]
        assert (t.ratio_limit, t.seeding_time_limit) == (2.5, 120)
        if extra:
            assert t.inactive_seeding_time_limit == 30
        t.set_share_limits(ratio_limit=-2, seeding_time_limit=-2, **{k: -2 for k in extra})
        t.sync_local()
        assert (t.ratio_limit, t.seeding_time_limit) == (-2, -2)
    with step("torrents_set_location"):
        moved = tmp / "moved"
        client.torrents_set_location(location=str(moved), torrent_hashes=h)
        wait_for(lambda: client.torrents_properties(torrent_hash=h).save_path.rstrip("/") == str(moved), WAIT,
                 what="the new location")
        assert client.torrents_info(torrent_hashes=h)[0].save_path.rstrip("/") == str(moved)
    if api >= Version("2.8.4"):
        with step("torrents_set_save_path / torrents_set_download_path"):
            client.torrents_set_download_path(download_path=str(tmp / "incomplete"), torrent_hashes=h)
            wait_for(lambda: client.torrents_properties(torrent_hash=h).download_path.rstrip("/")
                     == str(tmp / "incomplete"), WAIT, what="the download path")
            client.torrents.set_save_path(save_path=str(tmp / "saved"), torrent_hashes=h)
            wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].save_path.rstrip("/") == str(tmp / "saved"),
                     WAIT, what="the save path")
            client.torrents_info(torrent_hashes=h)[0].set_download_path(download_path="")
            wait_for(lambda: client.torrents_properties(torrent_hash=h).download_path == "", WAIT,
                     what="no download path")
    with step("torrents_set_category"):
        client.torrents_set_category(category="cat-b", torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].category == "cat-b"
        with pytest.raises(qbittorrentapi.Conflict409Error):
            client.torrents_set_category(category="no-such-category", torrent_hashes=h)
        md = client.sync.maindata.delta()
        assert md.torrents[h]["category"] == "cat-b"
    with step("torrents_set_auto_management"):
        client.torrents_set_auto_management(enable=True, torrent_hashes=h)
        # Automatic management moves the torrent to its category's save path.
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].save_path.rstrip("/") == str(cat_b), WAIT,
                 what="the category save path")
        assert client.torrents_info(torrent_hashes=h)[0].auto_tmm is True
        client.torrents_info(torrent_hashes=h)[0].set_auto_management(enable=False)
        assert client.torrents_info(torrent_hashes=h)[0].auto_tmm is False
        client.torrents.set_category(category="", torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].category == ""
    with step("torrents_toggle_sequential_download"):
        client.torrents_toggle_sequential_download(torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].seq_dl is True
        assert client.torrents_info(torrent_hashes=other)[0].seq_dl is False
        client.torrents_info(torrent_hashes=h)[0].toggle_sequential_download()
        assert client.torrents_info(torrent_hashes=h)[0].seq_dl is False
    with step("torrents_toggle_first_last_piece_priority"):
        client.torrents_toggle_first_last_piece_priority(torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].f_l_piece_prio is True
        client.torrents.toggleFirstLastPiecePrio(torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].f_l_piece_prio is False

    with step("torrents_add_tags / torrents_remove_tags"):
        client.torrents_add_tags(tags=["t2", "fresh"], torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].tags == "fresh, t1, t2"
        assert "fresh" in client.torrents_tags()  # created on the fly
        client.torrents_info(torrent_hashes=h)[0].add_tags(tags="t3")
        client.torrents_remove_tags(tags=["t1", "fresh"], torrent_hashes=h)
        assert client.torrents_info(torrent_hashes=h)[0].tags == "t2, t3"
        assert [x.hash for x in client.torrents_info(tag="t2", sort="hash")] == sorted([h, other])
        client.torrent_tags.remove_tags(tags="t2", torrent_hashes=other)
        assert client.torrents_info(torrent_hashes=other)[0].tags == ""
        assert [x.hash for x in client.torrents_info(tag="")] == [other]  # untagged
    if api >= Version("2.11.4"):
        with step("torrents_set_tags"):
            client.torrents_set_tags(tags=["x", "t3"], torrent_hashes=[h, other])
            assert client.torrents_info(torrent_hashes=h)[0].tags == "t3, x"
            assert client.torrents_info(torrent_hashes=other)[0].tags == "t3, x"
            client.torrents_info(torrent_hashes=other)[0].set_tags(tags=[])
            assert client.torrents_info(torrent_hashes=other)[0].tags == ""
    with step("torrents_delete_tags on a tagged torrent"):
        client.sync.maindata.delta()
        client.torrents_delete_tags(tags="t3")
        assert "t3" not in client.torrents_tags()
        assert "t3" not in client.torrents_info(torrent_hashes=h)[0].tags.split(", ")
        md = client.sync.maindata.delta()
        assert "t3" in md.get("tags_removed", [])

    with step("torrents_recheck"):
        client.torrents_recheck(torrent_hashes=h)
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].state_enum.is_stopped, WAIT,
                 what="the recheck to end")
        assert client.torrents_info(torrent_hashes=h)[0].progress == 0

    # ---- queueing ---------------------------------------------------------------------------------------
    def queue():
        return {x.hash: x.priority for x in client.torrents_info()}

    with step("torrents_*_priority without queueing"):
        with pytest.raises(qbittorrentapi.Conflict409Error):
            client.torrents_top_priority(torrent_hashes=h)
    with step("torrents_top/bottom/increase/decrease_priority"):
        client.app_set_preferences({"queueing_enabled": True})
        assert client.app.preferences.queueing_enabled is True
        wait_for(lambda: sorted(queue().values()) == [1, 2], WAIT, what="queue positions")
        # qBittorrent moves torrents in the queue asynchronously, hence the waits.
        first, last = {h: 1, other: 2}, {other: 1, h: 2}
        client.torrents_bottom_priority(torrent_hashes=h)
        wait_for(lambda: queue() == last, WAIT, what="bottomPrio")
        client.torrents_increase_priority(torrent_hashes=h)
        wait_for(lambda: queue() == first, WAIT, what="increasePrio")
        client.torrents.decrease_priority(torrent_hashes=h)
        wait_for(lambda: queue() == last, WAIT, what="decreasePrio")
        client.torrents_info(torrent_hashes=h)[0].top_priority()
        wait_for(lambda: queue() == first, WAIT, what="topPrio")
        client.torrents.bottomPrio(torrent_hashes=h)
        wait_for(lambda: queue() == last, WAIT, what="bottomPrio")
        client.torrents_top_priority(torrent_hashes=[h])
        wait_for(lambda: queue() == first, WAIT, what="topPrio")
        client.app_set_preferences({"queueing_enabled": False})
        assert client.app.preferences.queueing_enabled is False

    # ---- running, with the seeder as a peer -------------------------------------------------------------
    with step("torrents_start"):
        client.torrents_start(torrent_hashes=h)
        wait_for(lambda: not client.torrents_info(torrent_hashes=h)[0].state_enum.is_stopped, WAIT,
                 what="the torrent to start")
        assert [x.hash for x in client.torrents_info(status_filter="running")] == [h]
        assert [x.hash for x in client.torrents.info.resumed()] == [h]
    with step("torrents_add_peers"):
        added = client.torrents_add_peers(peers=[seeder.peer], torrent_hashes=h)
        assert added == {h: {"added": 1, "failed": 0}}
        with pytest.raises(qbittorrentapi.HTTP400Error):
            client.torrents_add_peers(peers="not-a-peer", torrent_hashes=h)
    with step("sync_torrent_peers"):
        peers = wait_for(lambda: client.sync_torrent_peers(torrent_hash=h).get("peers", {}).get(seeder.peer),
                         WAIT, what="the seeder among the peers")
        assert peers["ip"] == "127.0.0.1" and peers["port"] == seeder.port
        wait_for(lambda: client.sync_torrent_peers(torrent_hash=h)["peers"][seeder.peer]["progress"] == 1, WAIT,
                 what="the seeder's bitfield")
        first = client.sync.torrent_peers.delta(torrent_hash=h)
        assert first.full_update is True and first.rid > 0 and seeder.peer in first.peers
        assert "show_flags" in first
        again = client.sync.torrentPeers.delta(torrent_hash=h)
        assert not again.get("full_update") and again.rid >= first.rid
        with pytest.raises(qbittorrentapi.NotFound404Error):
            client.sync_torrent_peers(torrent_hash="ef" * 20)
    with step("downloading from the seeder"):
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].downloaded > 0, WAIT, what="some download")
        assert 2 in client.torrents_piece_states(torrent_hash=h) or 1 in client.torrents_piece_states(torrent_hash=h)
        assert client.transfer_info().dl_info_data > 0
        assert client.torrents_info(torrent_hashes=h)[0].dlspeed < 400 * 1024  # its 200 KiB/s limit holds
        md = client.sync.maindata.delta()
        assert md.torrents[h].get("downloaded", 1) > 0 and md.server_state.get("dl_info_data", 1) > 0
    with step("torrents_reannounce"):
        client.torrents_reannounce(torrent_hashes=h)
        # The only tracker is a closed loopback port: it ends up "not working" with a message.
        wait_for(lambda: {x.url: x.status for x in client.torrents_trackers(torrent_hash=h)}.get(tracker3) == 4,
                 WAIT, what="the tracker to be tried")
        client.torrents.reannounce.all()
    with step("torrents_set_force_start"):
        client.torrents_set_force_start(enable=True, torrent_hashes=h)
        t = client.torrents_info(torrent_hashes=h)[0]
        assert t.force_start is True
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].state in ("forcedDL", "forcedUP"), WAIT,
                 what="the forced state")
        t.set_force_start(enable=False)
        assert client.torrents_info(torrent_hashes=h)[0].force_start is False
    with step("torrents_set_super_seeding"):
        client.torrents_set_super_seeding(enable=True, torrent_hashes=h)
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].super_seeding is True, WAIT, what="super seeding")
        client.torrents.set_super_seeding(enable=False, torrent_hashes=h)
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].super_seeding is False, WAIT, what="no super seeding")

    with step("transfer_ban_peers"):
        client.transfer_ban_peers(peers=seeder.peer)
        assert "127.0.0.1" in client.app.preferences.banned_IPs.split("\n")
        wait_for(lambda: seeder.peer not in client.sync_torrent_peers(torrent_hash=h).get("peers", {}), WAIT,
                 what="the banned peer to be dropped")
        client.app_set_preferences({"banned_IPs": ""})
        assert client.app.preferences.banned_IPs == ""
    with step("log_peers"):
        # Dropping the banned peer is logged as a blocked connection.
        peer_log = wait_for(lambda: [e for e in client.log_peers() if e.ip == "127.0.0.1" and e.blocked], WAIT,
                            what="the blocked peer in the peer log")
        assert peer_log[0].reason and peer_log[0].timestamp > 0
        everything = client.log.peers()
        assert all({"id", "ip", "timestamp", "blocked", "reason"} <= set(e) for e in everything)
        assert all(e.id > everything[-1].id for e in client.log.peers(last_known_id=everything[-1].id))

    with step("torrents_stop"):
        client.torrents_stop(torrent_hashes=h)
        wait_for(lambda: client.torrents_info(torrent_hashes=h)[0].state_enum.is_stopped, WAIT,
                 what="the torrent to stop")
        assert {x.hash for x in client.torrents.info.stopped()} == {h, other}
        client.torrents.start.all()
        wait_for(lambda: {x.hash for x in client.torrents.info.stopped()} == set(), WAIT, what="all started")
        client.torrents.stop.all()
        wait_for(lambda: {x.hash for x in client.torrents.info.stopped()} == {h, other}, WAIT, what="all stopped")
        client.torrents_info(torrent_hashes=other)[0].start()
        wait_for(lambda: [x.hash for x in client.torrents.info.stopped()] == [h], WAIT, what="one started")
        client.torrents_info(torrent_hashes=other)[0].stop()

    # ---- log --------------------------------------------------------------------------------------------
    with step("log_main"):
        everything = client.log_main()
        assert everything and all({"id", "message", "timestamp", "type"} <= set(e) for e in everything)
        ids = [e.id for e in everything]
        assert ids == sorted(ids) and len(set(ids)) == len(ids) and everything[-1].timestamp > 0
        assert {e.type for e in everything} <= {1, 2, 4, 8}
        # Adding the torrent was logged, under the name it had then.
        assert any("payload" in e.message for e in everything), [e.message for e in everything]

        def seen(entries):  # entries logged after `everything` was read are not compared
            return [e for e in entries if e.id <= ids[-1]]

        assert seen(client.log.main()) == everything and seen(client.log.main.info()) == everything
        assert all(e.id > ids[-1] for e in client.log_main(last_known_id=ids[-1]))
        assert [e.id for e in client.log_main(last_known_id=ids[-2])][:1] == ids[-1:]
        assert client.log_main(normal=False, info=False, warning=False, critical=False) == []
        for kwargs, types in (({"normal": True, "info": False, "warning": False, "critical": False}, {1}),
                              ({"info": False}, {1, 4, 8})):
            got = seen(client.log_main(**kwargs))
            assert got == [e for e in everything if e.type in types], kwargs
        assert seen(client.log.main.normal()) == [e for e in everything if e.type in (1, 4, 8)]
        assert seen(client.log.main.warning()) == [e for e in everything if e.type in (4, 8)]
        assert seen(client.log.main.critical()) == [e for e in everything if e.type == 8]

    # ---- rss ------------------------------------------------------------------------------------------------
    feed_url = "http://127.0.0.1:9/feed.xml"  # nothing listens there: the feed shows hasError, nothing else
    with step("rss_add_folder / rss_add_feed / rss_items"):
        client.rss_add_folder(folder_path="Shows")
        client.rss.add_feed(url=feed_url, item_path="Shows\\Example")
        items = client.rss_items()
        assert set(items["Shows"]["Example"]) >= {"uid", "url"} and items["Shows"]["Example"]["url"] == feed_url
        data = client.rss.items.with_data
        assert set(data["Shows"]["Example"]) >= {"title", "isLoading", "hasError", "articles"}
    with step("rss_refresh_item / rss_mark_as_read"):
        client.rss_refresh_item(item_path="Shows")
        client.rss_mark_as_read(item_path="Shows\\Example")
    with step("rss_move_item"):
        client.rss_move_item(orig_item_path="Shows\\Example", new_item_path="Example")
        assert client.rss_items()["Example"]["url"] == feed_url
    if api >= Version("2.9.1"):
        with step("rss_set_feed_url"):
            client.rss_set_feed_url(url=feed_url + "?2", item_path="Example")
            assert client.rss_items()["Example"]["url"] == feed_url + "?2"
            feed_url += "?2"
    with step("rss_set_rule / rss_rules / rss_rename_rule / rss_matching_articles / rss_remove_rule"):
        client.rss_set_rule(rule_name="r1", rule_def={"mustContain": "example", "affectedFeeds": [feed_url]})
        assert client.rss_rules()["r1"]["mustContain"] == "example"
        client.rss_rename_rule(orig_rule_name="r1", new_rule_name="r2")
        assert list(client.rss.rules) == ["r2"]
        assert client.rss_matching_articles(rule_name="r2") == {}
        client.rss_remove_rule(rule_name="r2")
        assert client.rss_rules() == {}
    with step("rss_remove_item"):
        client.rss_remove_item(item_path="Example")
        client.rss_remove_item(item_path="Shows")
        assert client.rss_items() == {}

    # ---- cleanup ----------------------------------------------------------------------------------------
    with step("torrents_delete"):
        client.torrents_delete(delete_files=False, torrent_hashes=other)
        wait_for(lambda: [x.hash for x in client.torrents_info()] == [h], WAIT, what="the magnet to go")
        content = Path(client.torrents_info(torrent_hashes=h)[0].content_path)
        assert content.exists()  # the torrent ran, so some of its files are on disk
        client.torrents_info(torrent_hashes=h)[0].delete(delete_files=True)
        wait_for(lambda: client.torrents_info() == [], WAIT, what="the torrent to go")
        wait_for(lambda: not content.exists(), WAIT, what="its files to go")
        md = client.sync.maindata.delta()
        assert not md.get("full_update") and {h, other} <= set(md.get("torrents_removed", []))
    with step("torrents_remove_categories (all)"):
        client.torrent_categories.remove_categories(categories=["cat-a", "cat-b"])
        assert client.torrents_categories() == {}
        md = client.sync.maindata.delta()
        assert {"cat-a", "cat-b"} <= set(md.get("categories_removed", []))
    if api >= Version("2.9.3"):
        with step("torrents_count after delete"):
            assert client.torrents_count() == 0

    # ---- shutdown last ----------------------------------------------------------------------------------
    with step("app_shutdown"):
        client.app_shutdown()
        wait_for(lambda: server.proc.poll() is not None, 30, what="the server to exit")
        assert server.proc.returncode == 0
    return step


def finish(step, what):
    print(f"{len(step.passed)} steps passed on {what}")
    assert not step.failures, f"{len(step.failures)} steps failed on {what}:\n" + step.report()


def test_client_groups_qbtd(qbtd_factory, seeder):
    q = qbtd_factory()
    finish(exercise(q, seeder, "admin", PASSWORD), "qbtd")


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_client_groups_reference_qbittorrent_nox(seeder, tmp_path):
    nox = QbittorrentNox(tmp_path / "nox").start()
    try:
        finish(exercise(nox, seeder, nox.username, nox.password), "qbittorrent-nox")
    finally:
        nox.stop()
