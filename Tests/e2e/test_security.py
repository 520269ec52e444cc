"""Acceptance 4: bans and their expiry, CSRF, Host validation, paths that try to escape, API keys."""
import json
import os
import subprocess
import time
from pathlib import Path

import requests

from conftest import PASSWORD, QBTD, wait_for


def prefs(s, q, **values):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)})
    assert r.status_code == 200, r.text


def login(q, password=PASSWORD, headers=None):
    return requests.post(q.url("auth/login"), data={"username": "admin", "password": password}, headers=headers or {})


def test_ban_after_failures_and_expiry(qbtd_factory):
    q = qbtd_factory()
    prefs(q.session(), q, web_ui_max_auth_fail_count=3, web_ui_ban_duration=2)
    for _ in range(3):
        r = login(q, "wrong")
        assert r.status_code == 200 and r.text == "Fails."
    banned = login(q)
    assert banned.status_code == 403 and "banned" in banned.text
    time.sleep(2.5)
    assert login(q).text == "Ok."


def test_ban_follows_forwarded_for_only_from_trusted_proxies(qbtd_factory):
    q = qbtd_factory()
    prefs(q.session(), q, web_ui_max_auth_fail_count=2, web_ui_reverse_proxy_enabled=True,
          web_ui_reverse_proxies_list="127.0.0.1")
    for _ in range(2):
        login(q, "wrong", headers={"X-Forwarded-For": "203.0.113.9"})
    assert login(q, headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 403
    # Another client behind the same proxy is not banned.
    assert login(q, headers={"X-Forwarded-For": "198.51.100.7"}).text == "Ok."


def test_csrf_and_host_header(qbtd_factory):
    q = qbtd_factory()
    s = q.session()
    evil = s.post(q.url("torrents/createCategory"), data={"category": "x"}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 401 and evil.text == "Unauthorized"
    assert s.get(q.url("torrents/categories")).json() == {}
    same = s.post(q.url("torrents/createCategory"), data={"category": "x"}, headers={"Origin": q.base})
    assert same.status_code == 200
    referer = s.get(q.url("app/version"), headers={"Referer": "http://127.0.0.1:1/page"})
    assert referer.status_code == 401
    bad_host = s.get(q.url("app/version"), headers={"Host": "127.0.0.1:1"})
    assert bad_host.status_code == 401
    # Turning the checks off is the user's call, as in qBittorrent.
    prefs(s, q, web_ui_csrf_protection_enabled=False, web_ui_host_header_validation_enabled=False)
    assert s.get(q.url("app/version"), headers={"Host": "127.0.0.1:1", "Origin": "http://evil.example"}).text == "v5.1.0"


def test_security_headers_and_localhost_bypass(qbtd_factory):
    q = qbtd_factory()
    s = q.session()
    r = s.get(q.url("app/version"))
    assert r.headers["X-Frame-Options"] == "SAMEORIGIN" and r.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'self'" in r.headers["Content-Security-Policy"]
    assert requests.get(q.url("app/version")).status_code == 403
    prefs(s, q, bypass_local_auth=True)
    r = requests.get(q.url("app/version"))
    assert r.status_code == 200 and "SID=" in r.headers["Set-Cookie"]


def test_paths_cannot_escape(qbtd_factory, seeder, tmp_path):
    q = qbtd_factory(extra=["--allowed-paths", str(tmp_path / "media")])
    s = q.session()
    s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}, data={"stopped": "true"})
    files = wait_for(lambda: s.get(q.url("torrents/files"), params={"hash": seeder.id}).json(), 10, what="files")
    first = files[0]["name"]
    for bad in ["../../../tmp/owned", "/tmp/owned", "a/../../b", "", "x\\..\\y"]:
        r = s.post(q.url("torrents/renameFile"), data={"hash": seeder.id, "oldPath": first, "newPath": bad})
        assert r.status_code in (400, 409), (bad, r.status_code)
        r = s.post(q.url("torrents/renameFolder"), data={"hash": seeder.id, "oldPath": "payload", "newPath": bad})
        assert r.status_code in (400, 409), (bad, r.status_code)
    for bad in ["/etc", "../../outside", str(tmp_path / "elsewhere")]:
        r = s.post(q.url("torrents/setLocation"), data={"hashes": seeder.id, "location": bad})
        assert r.status_code == 409, (bad, r.status_code, r.text)
        r = s.post(q.url("torrents/createCategory"), data={"category": "c" + str(len(bad)), "savePath": bad})
        assert r.status_code == 409, (bad, r.status_code, r.text)
    assert not (tmp_path / "elsewhere").exists()
    info = s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json()[0]
    assert info["save_path"] == str(q.data_dir / "downloads")
    # A good rename stays inside: it is listed under its new name.
    ok = s.post(q.url("torrents/renameFile"), data={"hash": seeder.id, "oldPath": first, "newPath": "payload/renamed.bin"})
    assert ok.status_code == 200
    wait_for(lambda: any(f["name"] == "payload/renamed.bin" for f in
                         s.get(q.url("torrents/files"), params={"hash": seeder.id}).json()), 10, what="the rename")


def test_api_keys(qbtd_factory):
    q = qbtd_factory()
    s = q.session()
    created = s.post(q.url("qbtd/createAPIKey"), data={"name": "cron"}).json()
    key = created["key"]
    assert key.startswith("qbt_") and len(key) == 32
    bearer = {"Authorization": f"Bearer {key}"}
    assert requests.get(q.url("app/version"), headers=bearer).text == "v5.1.0"
    # Keys skip CSRF (no cookie to ride on), cannot log in, and wrong ones get nothing.
    assert requests.get(q.url("app/version"), headers={**bearer, "Origin": "http://evil.example"}).status_code == 200
    assert requests.post(q.url("auth/login"), headers=bearer, data={"username": "admin", "password": PASSWORD}).status_code == 403
    assert requests.get(q.url("app/version"), headers={"Authorization": "Bearer qbt_" + "x" * 28}).status_code == 403
    listed = s.get(q.url("qbtd/apiKeys")).json()
    assert [k["name"] for k in listed] == ["cron"] and "key" not in listed[0] and "key_hash" not in listed[0]
    # Its last use is kept (to the minute), in the store too: a restart still shows it.
    assert abs(listed[0]["last_used_at"] - time.time()) < 120, listed
    q.stop()
    q.start()
    s = q.session()
    assert s.get(q.url("qbtd/apiKeys")).json()[0]["last_used_at"] == listed[0]["last_used_at"]
    # The store holds only a hash of the key.
    db = (q.data_dir / "qbtd.sqlite").read_bytes()
    assert key.encode() not in db
    assert s.post(q.url("qbtd/revokeAPIKey"), data={"id": created["id"]}).json() == {"revoked": created["id"]}
    assert requests.get(q.url("app/version"), headers=bearer).status_code == 403
    missing = s.post(q.url("qbtd/revokeAPIKey"), data={"id": "nope"})
    assert missing.status_code == 404 and "error" in missing.json()

    # qBittorrent 5.2's single key.
    rotated = s.post(q.url("app/rotateAPIKey")).json()["apiKey"]
    assert requests.get(q.url("torrents/info"), headers={"Authorization": f"Bearer {rotated}"}).json() == []
    s.post(q.url("app/deleteAPIKey")).raise_for_status()
    assert requests.get(q.url("torrents/info"), headers={"Authorization": f"Bearer {rotated}"}).status_code == 403


def test_scoped_keys_and_a_migrating_music_host(qbtd_factory, tmp_path):
    """A music host keeps the 32-hex-digit key its players store (`--api-key` + `--api-key-scope music`): /music
    takes it, the WebAPI does not; `qbt keys` makes a read-only key that reads and is refused on writes."""
    existing = "9b2e4c6a8d0f1e3a5c7b9d2f4e6a8c0b"
    music = tmp_path / "music"
    music.mkdir()
    q = qbtd_factory(extra=["--music-dir", str(music), "--api-key", existing, "--api-key-scope", "music"])
    s = q.session()
    assert requests.get(q.base + "/music/auth", params={"api_key": existing}).status_code == 200
    refused = requests.get(q.url("torrents/info"), headers={"Authorization": f"Bearer {existing}"})
    assert refused.status_code == 403 and "scope is music" in refused.text
    assert [(k["name"], k["scope"]) for k in s.get(q.url("qbtd/apiKeys")).json()] == [("default", "music")]
    # A weak key or an unknown scope stops qbtd at start, saying why.
    for args, says in [(["--api-key", "hunter2hunter2"], "128 random bits"), (["--api-key", existing, "--api-key-scope", "admin"], "full, read-only")]:
        out = subprocess.run([QBTD, "--data-dir", str(tmp_path / "x"), *args], capture_output=True, text=True, timeout=60)
        assert out.returncode != 0 and says in out.stderr + out.stdout, out

    qbt = os.environ.get("QBT_BIN", str(Path(QBTD).parent / "qbt"))
    env = {**os.environ, "HOME": str(tmp_path), "QBT_URL": q.base, "QBT_PASSWORD": q.password}
    made = json.loads(subprocess.run([qbt, "keys", "create", "dashboard", "--scope", "read-only", "--json"], env=env,
                                     capture_output=True, text=True, timeout=60, check=True).stdout)
    assert made["scope"] == "read-only" and made["key"].startswith("qbt_")
    listed = subprocess.run([qbt, "keys"], env=env, capture_output=True, text=True, timeout=60, check=True).stdout
    assert "dashboard" in listed and "read-only" in listed
    reader = {**env, "QBT_API_KEY": made["key"]}
    reader.pop("QBT_PASSWORD")
    assert subprocess.run([qbt, "list"], env=reader, capture_output=True, text=True, timeout=60).returncode == 0
    write = subprocess.run([qbt, "category", "add", "films"], env=reader, capture_output=True, text=True, timeout=60)
    assert write.returncode == 4 and "scope is read-only" in write.stderr, write
    assert "films" not in s.get(q.url("torrents/categories")).json()
    subprocess.run([qbt, "keys", "revoke", "dashboard"], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert requests.get(q.url("torrents/info"), headers={"Authorization": f"Bearer {made['key']}"}).status_code == 403
