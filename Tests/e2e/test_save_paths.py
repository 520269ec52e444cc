"""Save paths as qBittorrent takes them (anywhere the process can write, relative ones under the default save
path), and confined to `--allowed-paths` when the user asks for it."""
import requests

from conftest import wait_for


def add(s, q, seeder, **data):
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}, data=data)
    assert (r.status_code, r.text) == (200, "Ok."), r.text
    return wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json(), 15, what="the torrent")[0]


def info(s, q, seeder):
    return s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json()[0]


def test_save_paths_anywhere_by_default(qbtd_factory, seeder, tmp_path):
    q = qbtd_factory()
    s = q.session()
    media = tmp_path / "srv" / "media"
    # Sonarr's category on another disk.
    r = s.post(q.url("torrents/createCategory"), data={"category": "tv", "savePath": str(media / "tv")})
    assert r.status_code == 200, r.text
    assert s.get(q.url("torrents/categories")).json()["tv"]["savePath"] == str(media / "tv")
    t = add(s, q, seeder, category="tv", autoTMM="true")
    assert t["save_path"] == str(media / "tv")
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: info(s, q, seeder)["progress"] == 1, 60, what="the download into the category's folder")
    seeder.verify(media / "tv")

    # setLocation anywhere moves the data there (and turns automatic management off).
    elsewhere = tmp_path / "elsewhere" / "deeper"
    assert s.post(q.url("torrents/setLocation"), data={"hashes": seeder.id, "location": str(elsewhere)}).status_code == 200
    wait_for(lambda: info(s, q, seeder)["save_path"] == str(elsewhere) and (elsewhere / "payload").exists(), 30,
             what="the move")
    wait_for(lambda: info(s, q, seeder)["state"] not in ("moving", "checkingUP"), 30, what="the move to end")
    seeder.verify(elsewhere)
    assert info(s, q, seeder)["auto_tmm"] is False

    # Where a folder cannot be made: qBittorrent's answers.
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    r = s.post(q.url("torrents/setLocation"), data={"hashes": seeder.id, "location": str(blocker / "sub")})
    assert (r.status_code, r.text) == (409, "Cannot make save path")
    r = s.post(q.url("torrents/setSavePath"), data={"id": seeder.id, "path": str(blocker / "sub")})
    assert (r.status_code, r.text) == (409, "Cannot create target directory")

    # The default save path anywhere; relative save paths are taken under it.
    default = tmp_path / "downloads-elsewhere"
    assert s.post(q.url("app/setPreferences"), data={"json": f'{{"save_path": "{default}"}}'}).status_code == 200
    assert s.get(q.url("app/preferences")).json()["save_path"] == str(default)
    assert s.post(q.url("torrents/delete"), data={"hashes": seeder.id, "deleteFiles": "false"}).status_code == 200
    wait_for(lambda: not s.get(q.url("torrents/info")).json(), 15, what="the delete")
    t = add(s, q, seeder, savepath="relative/dir", stopped="true")
    assert t["save_path"] == str(default / "relative" / "dir")

    # Uploads may name any folder too.
    up = tmp_path / "uploaded-here"
    r = requests.post(q.url("uploads"), auth=("admin", q.password), files={"file": ("u.txt", b"hello")},
                      data={"path": str(up)})
    assert r.status_code in (200, 201), r.text
    assert (up / "u.txt").read_bytes() == b"hello"


def test_allowed_paths_confine_every_path(qbtd_factory, seeder, tmp_path):
    media = tmp_path / "media"
    q = qbtd_factory(extra=["--allowed-paths", str(media)])
    s = q.session()
    downloads = q.data_dir / "downloads"

    def refused(r, status=409):
        assert r.status_code == status, (r.status_code, r.text)
        assert str(media) in r.text and str(downloads) in r.text, r.text  # the message names the allowed folders

    # Inside an allowed folder: as before.
    assert s.post(q.url("torrents/createCategory"), data={"category": "tv", "savePath": str(media / "tv")}).status_code == 200
    # Outside, after `..` or through a symlink: refused with the allowed folders named.
    (media / "tv").mkdir(parents=True, exist_ok=True)
    (media / "escape").symlink_to(tmp_path)
    for bad in ["/etc", str(media / ".." / "outside"), str(media / "escape" / "x")]:
        refused(s.post(q.url("torrents/createCategory"), data={"category": "c", "savePath": bad}))
        refused(s.post(q.url("torrents/add"),
                       data={"urls": "magnet:?xt=urn:btih:" + "ab" * 20, "savepath": bad}), status=400)
    t = add(s, q, seeder, stopped="true")
    for bad in ["/etc", "../../outside", str(tmp_path / "elsewhere")]:
        refused(s.post(q.url("torrents/setLocation"), data={"hashes": seeder.id, "location": bad}))
        refused(s.post(q.url("torrents/setSavePath"), data={"id": seeder.id, "path": bad}))
        refused(s.post(q.url("torrents/setDownloadPath"), data={"id": seeder.id, "path": bad}))
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "outside").exists()
    assert info(s, q, seeder)["save_path"] == str(downloads)
    # An allowed folder is fine for setLocation.
    assert s.post(q.url("torrents/setLocation"), data={"hashes": seeder.id, "location": str(media / "moved")}).status_code == 200
    wait_for(lambda: info(s, q, seeder)["save_path"] == str(media / "moved"), 15, what="the new location")
    # A preference outside is not taken.
    s.post(q.url("app/setPreferences"), data={"json": '{"save_path": "/etc"}'})
    assert s.get(q.url("app/preferences")).json()["save_path"] == str(downloads)
    # Uploads: 409 with the folders named, as JSON.
    r = requests.post(q.url("uploads"), auth=("admin", q.password), files={"file": ("u.txt", b"x")}, data={"path": "/etc"})
    refused(r)
    assert "error" in r.json()
    # The torrent creator does not read outside either.
    r = s.post(q.url("torrentcreator/addTask"), data={"sourcePath": "/etc/hostname"})
    refused(r)
