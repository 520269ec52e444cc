"""Issue 21 (item 7): every route that takes a path, a file name, a URL or a program, with `..`, a symlink out, an
absolute path, a NUL byte and an over-long name. With --allowed-paths nothing lands outside the allowed folders (a
sentinel folder outside stays empty) and every refusal is a 4xx; without it nothing crashes (no 5xx, qbtd alive)."""
import base64
import json
import subprocess

import pytest

from conftest import wait_for

TUS = {"Tus-Resumable": "1.0.0"}


def hostile(outside, link):
    """Values a client could send where a path or a name goes."""
    return {
        "dotdot": "../../../" + str(outside).lstrip("/") + "/dotdot",
        "absolute": str(outside / "absolute"),
        "symlink": str(link / "through-link"),
        "nul": str(outside / "nul") + "\x00tail",
        "long": "a" * 5000,
        "deep": "/".join(["d"] * 2000),
    }


def requests_for(value, digest):
    """(description, method, route, data) for each path-taking WebAPI action."""
    return [
        ("add savepath", "torrents/add", {"urls": "magnet:?xt=urn:btih:" + "c" * 40, "savepath": value}),
        ("add downloadPath", "torrents/add", {"urls": "magnet:?xt=urn:btih:" + "d" * 40, "downloadPath": value,
                                               "useDownloadPath": "true"}),
        ("createCategory", "torrents/createCategory", {"category": "c" + str(abs(hash(value)) % 10**6), "savePath": value}),
        ("editCategory", "torrents/editCategory", {"category": "base", "savePath": value}),
        ("setLocation", "torrents/setLocation", {"hashes": digest, "location": value}),
        ("setSavePath", "torrents/setSavePath", {"id": digest, "path": value}),
        ("setDownloadPath", "torrents/setDownloadPath", {"id": digest, "path": value}),
        ("renameFile", "torrents/renameFile", {"hash": digest, "oldPath": "payload/f0.bin", "newPath": value}),
        ("renameFolder", "torrents/renameFolder", {"hash": digest, "oldPath": "payload", "newPath": value}),
        ("rename", "torrents/rename", {"hash": digest, "name": value}),
        ("torrentcreator", "torrentcreator/addTask", {"sourcePath": value, "torrentFilePath": value}),
        ("installPlugin", "search/installPlugin", {"sources": value}),
        ("save_path pref", "app/setPreferences", {"json": json.dumps({"save_path": value})}),
        ("temp_path pref", "app/setPreferences", {"json": json.dumps({"temp_path": value, "temp_path_enabled": True})}),
        ("scan_dirs pref", "app/setPreferences", {"json": json.dumps({"scan_dirs": {value: 1}})}),
        ("autorun pref", "app/setPreferences", {"json": json.dumps({"autorun_program": value + " %N", "autorun_enabled": True})}),
        ("export_dir pref", "app/setPreferences", {"json": json.dumps({"export_dir": value})}),
        ("getDirectoryContent", "app/getDirectoryContent", {"dirPath": value}),
    ]


def outside_is_empty(outside):
    return [str(p) for p in outside.rglob("*")]


@pytest.mark.parametrize("confined", [True, False], ids=["allowed-paths", "unconfined"])
def test_paths_names_urls_and_programs(qbtd_factory, seeder, tmp_path, confined):
    media = tmp_path / "media"
    media.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    link = media / "link"
    link.symlink_to(outside, target_is_directory=True)
    q = qbtd_factory(extra=["--allowed-paths", str(media)] if confined else [])
    s = q.session()
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)},
                  data={"savepath": str(media / "dl")}).text == "Ok."
    digest = seeder.id
    wait_for(lambda: s.get(q.url("torrents/files"), params={"hash": digest}).status_code == 200, 30, what="the torrent")
    s.post(q.url("torrents/createCategory"), data={"category": "base", "savePath": str(media / "base")})
    answers = {}
    for kind, value in hostile(outside, link).items():
        for what, route, data in requests_for(value, digest):
            r = s.post(q.url(route), data=data, timeout=60)
            answers[(kind, what)] = r.status_code
            assert r.status_code < 500, (kind, what, r.status_code, r.text[:300])
        # Uploads: a multipart body's path and file name, tus metadata.
        r = s.post(q.url("uploads"), params={"path": value}, files={"file": ("x.bin", b"x")}, timeout=60)
        assert r.status_code < 500, (kind, "upload path", r.status_code, r.text[:300])
        r = s.post(q.url("uploads"), files={"file": (value, b"x")}, timeout=60)
        assert r.status_code < 500, (kind, "upload name", r.status_code, r.text[:300])
        metadata = ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in
                            (("filename", value.replace("\x00", "")), ("path", value.replace("\x00", ""))))
        r = s.post(q.url("tus"), headers={**TUS, "Upload-Length": "1", "Upload-Metadata": metadata}, timeout=60)
        assert r.status_code < 500, (kind, "tus", r.status_code, r.text[:300])
        if r.status_code == 201:
            r = s.patch(q.base + r.headers["Location"], data=b"x",
                        headers={**TUS, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
            assert r.status_code < 500, (kind, "tus patch", r.status_code, r.text[:300])
    # Let moves, renames and created torrents settle.
    wait_for(lambda: s.get(q.url("torrents/info")).status_code == 200, 10, what="qbtd answering")
    assert q.proc.poll() is None, "qbtd died"
    if confined:
        assert outside_is_empty(outside) == [], f"written outside --allowed-paths: {outside_is_empty(outside)}"
        # Programs cannot be set when paths are confined; the path preferences stay inside.
        prefs = s.get(q.url("app/preferences")).json()
        assert not prefs["autorun_enabled"] or not prefs["autorun_program"]
        for key in ("save_path", "temp_path"):  # resolved when set
            assert not prefs[key] or prefs[key].startswith(str(tmp_path)) and not prefs[key].startswith(str(outside)), (key, prefs[key])
        # Kept as given, as qBittorrent keeps it; resolved (under the save path, confined) each time it is used.
        assert not prefs["export_dir"].startswith(str(outside))
        refused = sum(1 for status in answers.values() if 400 <= status < 500)
        print(f"{len(answers)} hostile path requests, {refused} refused, 0 written outside, 0 server errors")
    # The 2,000-deep folders are past Python's recursion limit (pytest's own clean-up walks them): rm does it.
    q.stop()
    subprocess.run(["rm", "-rf", str(q.data_dir), str(media)], check=False, timeout=120)
