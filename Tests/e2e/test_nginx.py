"""Issue 20 (item 4): contrib/nginx's two recipes (the root of a host, and the sub-path /qbittorrent/), served by
Debian's nginx on 127.0.0.1 in front of a real qbtd: qbittorrent-api through both, uploads (a 1 GiB tus upload and
a multipart one) streamed through, a stream read with Range, and the music WebSocket."""
import base64
import json
import os
import subprocess

import pytest
import qbittorrentapi
import requests
import websocket

from conftest import ROOT, free_port, sha256, wait_for
from nginx_support import launch
from test_stream import FileSeeder

KEY = "qbt_nginxtestkey0123456789abcd"
TUS = {"Tus-Resumable": "1.0.0"}
RECIPES = {"root": ("qbtd-root.conf", ""), "subpath": ("qbtd-subpath.conf", "/qbittorrent")}


class Nginx:
    """nginx with one of contrib/nginx's recipes as its http block, the upstream and listen ports swapped for the
    test's; everything else exactly as shipped."""

    def __init__(self, prefix, recipe, upstream_port):
        self.port = free_port()
        text = (ROOT / "contrib" / "nginx" / recipe).read_text()
        assert "server 127.0.0.1:8080;" in text and "listen 80;" in text and "proxy_pass http://127.0.0.1:8080" in text
        text = text.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream_port};")
        text = text.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{upstream_port}")
        text = text.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        self.error_log = prefix / "error.log"
        self.proc = launch(prefix, self.port, text, [f"access_log {prefix}/access.log;"])

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    """One qbtd (trusting 127.0.0.1 as its reverse proxy, with a music folder and a key) behind both recipes."""
    from conftest import Qbtd
    root = tmp_path_factory.mktemp("nginx")
    music = root / "music"
    music.mkdir()
    q = Qbtd(root / "data", extra=["--music-dir", str(music), "--api-key", KEY]).start()
    s = q.session()
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(
        {"web_ui_reverse_proxy_enabled": True, "web_ui_reverse_proxies_list": "127.0.0.1"})})
    assert r.status_code == 200
    proxies = {name: Nginx(root / f"nginx-{name}", recipe, q.port) for name, (recipe, _) in RECIPES.items()}
    yield q, proxies, root
    for proxy in proxies.values():
        proxy.stop()
    q.stop()


def base_of(proxies, name):
    return f"http://127.0.0.1:{proxies[name].port}{RECIPES[name][1]}"


@pytest.mark.parametrize("name", list(RECIPES))
def test_qbittorrent_api_and_a_stream_through_nginx(proxied, name, tmp_path):
    q, proxies, _ = proxied
    base = base_of(proxies, name)
    client = qbittorrentapi.Client(host=base + "/", username="admin", password=q.password,
                                   REQUESTS_ARGS={"timeout": 60}, VERIFY_WEBUI_CERTIFICATE=False)
    client.auth_log_in()
    assert client.app.version == "v5.1.0"
    payload = os.urandom(3 * 1024 * 1024 + 777)
    seeder = FileSeeder(tmp_path / "seed", f"film-{name}", {"film.mkv": payload})
    assert client.torrents_add(torrent_files=seeder.torrent, save_path=str(tmp_path / "dl")) == "Ok."
    digest = str(seeder.info.info_hashes().get_best())
    client.torrents_add_peers(peers=[f"127.0.0.1:{seeder.port}"], torrent_hashes=[digest])
    wait_for(lambda: client.torrents_info(torrent_hashes=digest)[0].progress == 1, 120, what="the download")
    main = client.sync_maindata(rid=0)
    assert digest in main["torrents"]
    client.torrents_create_category(name=f"films-{name}")
    assert f"films-{name}" in client.torrents_categories()
    # The client's own address reaches qbtd through X-Forwarded-For (a failed login is counted against it).
    assert client.auth.is_logged_in

    # A stream: the playback URL carries the proxy's host and sub-path; Range works through it.
    s = requests.Session()
    s.cookies.update(client._http_session.cookies)
    r = s.post(base + "/api/v2/stream/prepare", data={"hash": digest}, timeout=60)
    assert r.status_code == 200, r.text
    url = r.json()["playbackUrl"]
    assert url.startswith(base + "/stream/"), url
    r = requests.get(url, headers={"Range": "bytes=1000-200999"}, timeout=60)
    assert r.status_code == 206 and r.headers["Content-Range"] == f"bytes 1000-200999/{len(payload)}"
    assert r.content == payload[1000:201000]
    tail = requests.get(url, headers={"Range": "bytes=-5000"}, timeout=60)
    assert tail.status_code == 206 and tail.content == payload[-5000:]
    client.auth_log_out()


@pytest.mark.parametrize("name", list(RECIPES))
def test_music_websocket_through_nginx(proxied, name):
    q, proxies, _ = proxied
    ws_url = base_of(proxies, name).replace("http://", "ws://") + "/music/ws"
    ws = websocket.create_connection(ws_url, header=[f"Authorization: Bearer {KEY}"], timeout=30)
    try:
        hello = json.loads(ws.recv())
        assert hello["type"] == "hello" and hello["protocolVersion"] == 1
        ws.send(json.dumps({"type": "hello", "protocolVersion": 1, "appVersion": "nginx-test"}))
        ws.send(json.dumps({"type": "state"}))
        assert json.loads(ws.recv())["type"]
    finally:
        ws.close()
    assert requests.get(base_of(proxies, name) + "/music/auth", params={"api_key": KEY}, timeout=30).status_code == 200


def test_uploads_stream_through_nginx(proxied, tmp_path):
    """A 1 GiB tus upload through the sub-path (its Location carries the sub-path), a multipart upload through
    the root: neither is capped nor buffered by nginx, and both land whole."""
    q, proxies, root = proxied
    block = os.urandom(1 << 20)
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        for i in range(1024):
            f.write(block[i % 7:] + block[:i % 7])
    size, expected = big.stat().st_size, sha256(big)
    uploads = root / "data" / "uploads"
    auth = ("admin", q.password)

    base = base_of(proxies, "subpath")
    r = requests.post(base + "/api/v2/tus", auth=auth, timeout=60, headers={
        **TUS, "Upload-Length": str(size), "Upload-Metadata": "filename " + base64.b64encode(b"through-nginx.bin").decode()})
    assert r.status_code == 201, r.text
    location = r.headers["Location"]
    assert location.startswith("/qbittorrent/api/v2/tus/"), location
    url = f"http://127.0.0.1:{proxies['subpath'].port}{location}"
    out = subprocess.run(["curl", "-s", "-u", f"admin:{q.password}", "-X", "PATCH", "-T", str(big), "-H", "Tus-Resumable: 1.0.0",
                          "-H", "Upload-Offset: 0", "-H", "Content-Type: application/offset+octet-stream", "-H", "Expect:",
                          "-w", "%{http_code} %{time_total}", "-o", "/dev/null", url], capture_output=True, text=True, timeout=900)
    status, seconds = out.stdout.split()
    assert status == "204", out.stdout + out.stderr + proxies["subpath"].error_log.read_text()[-2000:]
    print(f"tus 1 GiB through nginx (sub-path): {size / float(seconds) / (1 << 20):.0f} MiB/s")
    head = requests.head(url, auth=auth, headers=TUS, timeout=60)
    assert head.headers["Upload-Offset"] == str(size)
    assert sha256(uploads / "through-nginx.bin") == expected

    small = tmp_path / "small.bin"
    small.write_bytes(os.urandom(64 << 20))
    out = subprocess.run(["curl", "-s", "-u", f"admin:{q.password}", "-F", f"file=@{small};filename=multipart-nginx.bin",
                          "-w", "\n%{http_code}", base_of(proxies, "root") + "/api/v2/uploads"],
                         capture_output=True, text=True, timeout=600)
    body, status = out.stdout.rsplit("\n", 1)
    assert status == "201", out.stdout + out.stderr
    assert json.loads(body)[0]["sha256"] == sha256(small) == sha256(uploads / "multipart-nginx.bin")
    # nginx kept nothing of either body on its own disk (request buffering off).
    for name in RECIPES:
        assert not [p for p in (root / f"nginx-{name}" / "body").glob("**/*") if p.is_file()]
