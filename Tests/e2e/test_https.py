"""HTTPS for the WebUI, on the normal --port. Accepted when:

* --https-cert/--https-key (or QBTD_HTTPS_CERT/QBTD_HTTPS_KEY) serve everything over TLS: the WebAPI, /stream,
  /music's HLS and WebSocket, uploads and tus; one flag alone, a bad certificate or a key that does not match stops
  qbtd at once with a message naming the flags or the file;
* `app/setPreferences` switches new connections between HTTP and HTTPS both ways; a certificate or key that cannot
  be served is refused (200, a critical "HTTPS … refused" log entry, nothing changes);
* the session cookie is `secure` over HTTPS while web_ui_secure_cookie_enabled is on, never over HTTP; HSTS
  (qbtd's web_ui_hsts_* keys) only over HTTPS; the CSP asks browsers to upgrade over HTTPS only; qBittorrent's custom
  headers go on every answer, over HTTP too;
* qbittorrent-api, qbt (--ca-cert, QBT_CA_CERT, saved by login) and ffmpeg (-ca_file, -tls_verify 1) trust the
  server through the test CA, and fail without it.
"""
import base64
import hashlib
import json
import os
import shutil
import sqlite3
import ssl
import subprocess
import time
from unittest import mock
from urllib.parse import urlsplit

import pytest
import qbittorrentapi
import requests
import websocket

from conftest import PASSWORD, QBTD, Qbtd, free_port, wait_for
from net_fixtures import make_ca_and_cert
from test_music import lame, raw_pcm
from test_qbt import QBT, Cli
from test_stream import FileSeeder

KEY = "qbt_httpstestkey0123456789ab"
BEARER = {"Authorization": f"Bearer {KEY}"}
TUS = {"Tus-Resumable": "1.0.0"}
HSTS_DEFAULTS = {"web_ui_hsts_enabled": False, "web_ui_hsts_max_age": 31536000, "web_ui_hsts_include_subdomains": False}
# Base64 that is not DER: a PEM file no TLS library can load a certificate from.
GARBAGE_PEM = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGUgYXQgYWxs\n-----END CERTIFICATE-----\n"


class TlsQbtd(Qbtd):
    """A qbtd serving HTTPS from the start: --https-cert/--https-key, or the QBTD_HTTPS_* environment."""

    def __init__(self, data_dir, certs, via_env=False, extra=(), **kwargs):
        flags = [] if via_env else ["--https-cert", certs.cert, "--https-key", certs.key]
        super().__init__(data_dir, extra=[*flags, *extra], **kwargs)
        self.certs, self.via_env = certs, via_env
        self.base = f"https://127.0.0.1:{self.port}"

    def start(self):
        # Qbtd.start probes `base + "/"` with requests' default verification: point that at the test CA.
        env = {"REQUESTS_CA_BUNDLE": self.certs.ca}
        if self.via_env:
            env |= {"QBTD_HTTPS_CERT": self.certs.cert, "QBTD_HTTPS_KEY": self.certs.key}
        with mock.patch.dict(os.environ, env):
            return super().start()

    def session(self, username="admin"):
        return login(self.base, self.password, self.certs.ca)


def login(base, password, verify=True):
    """A fresh session logged in at `base` (new connections, in whatever mode the server speaks now)."""
    s = requests.Session()
    s.trust_env = False  # else REQUESTS_CA_BUNDLE in the environment wins over s.verify
    s.verify = verify
    r = s.post(base + "/api/v2/auth/login", data={"username": "admin", "password": password}, timeout=10)
    assert r.status_code == 200 and r.text == "Ok.", (r.status_code, r.text)
    return s


def login_cookie(base, password, verify=True):
    r = requests.post(base + "/api/v2/auth/login", data={"username": "admin", "password": password}, verify=verify,
                      timeout=10)
    assert r.status_code == 200 and r.text == "Ok.", (r.status_code, r.text)
    return r.headers["Set-Cookie"]


def is_secure(cookie):
    return any(part.strip().lower() == "secure" for part in cookie.split(";")[1:])


def answers(url, verify=True):
    """Whether a new connection to `url` gets an HTTP answer (any status) in the scheme the URL names."""
    try:
        requests.get(url, verify=verify, timeout=5, headers={"Connection": "close"})
        return True
    except requests.RequestException:
        return False


def set_prefs(s, base, **values):
    r = s.post(base + "/api/v2/app/setPreferences", data={"json": json.dumps(values)}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)


def prefs(s, base):
    return s.get(base + "/api/v2/app/preferences", timeout=10).json()


def last_log_id(s, base):
    return max((m["id"] for m in s.get(base + "/api/v2/log/main", timeout=10).json()), default=-1)


def log_since(s, base, mark, kind):
    entries = s.get(base + "/api/v2/log/main", params={"last_known_id": mark}, timeout=10).json()
    return [m["message"] for m in entries if m["type"] == kind]


def refused_https(s, base, mark):
    """The critical entry a refused HTTPS change leaves, or a failure listing what was logged."""
    critical = log_since(s, base, mark, 8)
    assert any("HTTPS" in m and "refused" in m.lower() for m in critical), \
        f"no critical 'HTTPS … refused' entry: {critical}"


def kinds(base, s, verify=True):
    """One answer of each kind, each on its own connection but the API one: the root page, an API answer, a 403."""
    return {
        "/": requests.get(base + "/", verify=verify, timeout=10),
        "app/version": s.get(base + "/api/v2/app/version", timeout=10),
        "403": requests.get(base + "/api/v2/app/preferences", verify=verify, timeout=10),
    }


def run_qbtd(data_dir, *args, env=None):
    """qbtd with the test flags plus `args`, expected to stop on its own: (exit code, output, seconds)."""
    data_dir.mkdir(parents=True)
    command = [QBTD, "--data-dir", str(data_dir), "--host", "127.0.0.1", "--port", str(free_port()),
               "--peer-listen", "127.0.0.1:0", "--no-discovery", "--no-utp", "--password", PASSWORD, *map(str, args)]
    started = time.monotonic()
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=30, env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise AssertionError(f"qbtd {' '.join(map(str, args))} {env or ''} kept running: it should refuse to start")
    return p.returncode, p.stdout + p.stderr, time.monotonic() - started


def qbt_fails(cli, *args, env=None):
    p = subprocess.run([QBT, *map(str, args)], capture_output=True, text=True, env={**cli.env, **(env or {})},
                       timeout=60)
    assert p.returncode != 0 and p.stderr.startswith("qbt: "), \
        f"qbt {' '.join(map(str, args))} should fail without the CA: exit {p.returncode}\n{p.stdout}\n{p.stderr}"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_ca_and_cert(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def music_dir(tmp_path_factory):
    lib = tmp_path_factory.mktemp("tls-music")
    if shutil.which("lame") and shutil.which("ffmpeg"):
        lame(lib / "tone.mp3", 7, "-b", "128", "--tt", "Over TLS")
    return lib


@pytest.fixture(scope="module")
def served(tmp_path_factory, certs, music_dir):
    """One qbtd started with --https-cert/--https-key, a music folder and an API key, shared by the module."""
    data = tmp_path_factory.mktemp("tls-qbtd") / "data"
    data.mkdir()
    q = TlsQbtd(data, certs, extra=["--music-dir", str(music_dir), "--api-key", KEY])
    try:
        yield q.start()
    finally:
        q.stop()


def test_command_line_https_and_its_errors(tmp_path, certs):
    garbage = tmp_path / "garbage.pem"
    garbage.write_text(GARBAGE_PEM)
    both = ["--https-cert", "--https-key"]
    cases = [
        (["--https-cert", certs.cert], None, both),
        (["--https-key", certs.key], None, both),
        ([], {"QBTD_HTTPS_CERT": certs.cert}, both),
        (["--https-cert", garbage, "--https-key", certs.key], None, [str(garbage)]),
        (["--https-cert", certs.cert, "--https-key", certs.other_key], None, [certs.other_key]),
    ]
    for i, (args, env, named) in enumerate(cases):
        code, out, seconds = run_qbtd(tmp_path / f"bad{i}", *args, env=env)
        assert code != 0, f"qbtd {args} {env or ''} exited 0:\n{out}"
        missing = [n for n in named if n not in out]
        assert not missing, f"qbtd {args} {env or ''}: the message does not name {missing}:\n{out}"
        if named == both:
            assert seconds < 10, f"one of the two flags alone took {seconds:.1f} s to be refused"

    # Both from the environment: TLS on the normal port, plain HTTP gets no answer there.
    q = TlsQbtd(tmp_path / "env", certs, via_env=True)
    q.data_dir.mkdir()
    try:
        q.start()
        assert answers(q.base + "/", certs.ca)
        assert not answers(f"http://127.0.0.1:{q.port}/"), "plain HTTP answered on the HTTPS port"
        assert not answers(q.base + "/"), "HTTPS was trusted without the test CA"
    finally:
        q.stop()


def test_https_headers_cookie_and_hsts(served, certs):
    ca, base = certs.ca, served.base
    assert not answers(f"http://127.0.0.1:{served.port}/"), "plain HTTP answered on the HTTPS port"
    s = served.session()
    p = prefs(s, base)
    assert {k: p.get(k) for k in HSTS_DEFAULTS} == HSTS_DEFAULTS
    assert p["web_ui_secure_cookie_enabled"] is True
    for what, r in kinds(base, s, ca).items():
        assert r.headers["Content-Security-Policy"].endswith(" upgrade-insecure-requests;"), (what, r.headers)
        assert "Strict-Transport-Security" not in r.headers, f"{what}: HSTS while it is off"
    assert is_secure(login_cookie(base, served.password, ca)), "no `secure` on the cookie over HTTPS"
    try:
        set_prefs(s, base, web_ui_secure_cookie_enabled=False)
        cookie = login_cookie(base, served.password, ca)
        assert not is_secure(cookie), f"`secure` with web_ui_secure_cookie_enabled off: {cookie}"

        set_prefs(s, base, web_ui_hsts_enabled=True)
        for what, r in kinds(base, s, ca).items():
            assert r.headers.get("Strict-Transport-Security") == "max-age=31536000", (what, r.headers)
        set_prefs(s, base, web_ui_hsts_max_age=600, web_ui_hsts_include_subdomains=True)
        for what, r in kinds(base, s, ca).items():
            assert r.headers.get("Strict-Transport-Security") == "max-age=600; includeSubDomains", (what, r.headers)

        set_prefs(s, base, web_ui_use_custom_http_headers_enabled=True,
                  web_ui_custom_http_headers="X-One: 1\nX-Two: two words")
        for what, r in kinds(base, s, ca).items():
            assert (r.headers.get("X-One"), r.headers.get("X-Two")) == ("1", "two words"), (what, r.headers)

        set_prefs(s, base, web_ui_hsts_enabled=False)
        for what, r in kinds(base, s, ca).items():
            assert "Strict-Transport-Security" not in r.headers, f"{what}: HSTS after it was turned off"
    finally:
        set_prefs(s, base, web_ui_secure_cookie_enabled=True, web_ui_use_custom_http_headers_enabled=False,
                  web_ui_custom_http_headers="", **HSTS_DEFAULTS)


def test_plain_http_custom_headers_and_no_https_extras(qbtd_factory):
    q = qbtd_factory()
    s = q.session()
    # Over plain HTTP: no upgrade-insecure-requests, no `secure` cookie, and no HSTS even while it is on.
    set_prefs(s, q.base, web_ui_hsts_enabled=True, web_ui_hsts_include_subdomains=True)
    for what, r in kinds(q.base, s).items():
        assert "upgrade-insecure-requests" not in r.headers["Content-Security-Policy"], (what, r.headers)
        assert "Strict-Transport-Security" not in r.headers, f"{what}: HSTS over plain HTTP"
    cookie = login_cookie(q.base, q.password)
    assert not is_secure(cookie), f"`secure` over plain HTTP: {cookie}"

    # qBittorrent's custom headers: "Name: value" lines; a line without ':' is skipped with a warning.
    mark = last_log_id(s, q.base)
    set_prefs(s, q.base, web_ui_use_custom_http_headers_enabled=True,
              web_ui_custom_http_headers="X-One: 1\ngarbage line\nX-Two: two words")
    for what, r in kinds(q.base, s).items():
        assert (r.headers.get("X-One"), r.headers.get("X-Two")) == ("1", "two words"), (what, r.headers)
    warnings = log_since(s, q.base, mark, 4)
    assert any("garbage line" in m for m in warnings), f"no warning about the line without ':': {warnings}"
    set_prefs(s, q.base, web_ui_use_custom_http_headers_enabled=False)
    for what, r in kinds(q.base, s).items():
        assert "X-One" not in r.headers and "X-Two" not in r.headers, f"{what}: custom headers while disabled"


def test_live_switch_and_refusals(qbtd_factory, certs, tmp_path):
    q = qbtd_factory()
    http, https, ca = q.base, q.base.replace("http://", "https://"), certs.ca
    s = q.session()
    garbage = tmp_path / "garbage.pem"
    garbage.write_text(GARBAGE_PEM)

    # Refused while plain: a key that is not the certificate's, a certificate that is not there.
    for bad in ({"web_ui_https_cert_path": certs.cert, "web_ui_https_key_path": certs.other_key},
                {"web_ui_https_cert_path": str(tmp_path / "missing.pem"), "web_ui_https_key_path": certs.key}):
        mark = last_log_id(s, http)
        set_prefs(s, http, use_https=True, **bad)
        assert answers(http + "/"), f"plain HTTP stopped answering after a refused change {bad}"
        p = prefs(s, http)
        kept = (p["use_https"], p["web_ui_https_cert_path"], p["web_ui_https_key_path"])
        assert kept == (False, "", ""), f"a refused change {bad} was stored: {kept}"
        refused_https(s, http, mark)

    # On: new connections speak TLS, verified by the test CA; plain HTTP gets no answer.
    set_prefs(s, http, use_https=True, web_ui_https_cert_path=certs.cert, web_ui_https_key_path=certs.key)
    wait_for(lambda: answers(https + "/", ca), 5, what="HTTPS on new connections")
    assert not answers(http + "/"), "plain HTTP still answers new connections with HTTPS on"
    s = login(https, q.password, ca)
    p = prefs(s, https)
    assert (p["use_https"], p["web_ui_https_cert_path"], p["web_ui_https_key_path"]) == (True, certs.cert, certs.key)

    # A certificate that cannot be loaded while HTTPS is on: the old one goes on serving.
    mark = last_log_id(s, https)
    set_prefs(s, https, use_https=True, web_ui_https_cert_path=str(garbage), web_ui_https_key_path=certs.key)
    assert answers(https + "/", ca), "HTTPS with the old certificate stopped after a refused change"
    assert not answers(http + "/"), "plain HTTP answers after a refused certificate"
    p = login(https, q.password, ca).get(https + "/api/v2/app/preferences", timeout=10).json()
    assert (p["use_https"], p["web_ui_https_cert_path"], p["web_ui_https_key_path"]) == (True, certs.cert, certs.key)
    refused_https(s, https, mark)

    # Off again: plain HTTP answers new connections, HTTPS does not.
    set_prefs(s, https, use_https=False)
    wait_for(lambda: answers(http + "/"), 5, what="plain HTTP on new connections")
    assert not answers(https + "/", ca), "HTTPS still answers new connections with HTTPS off"
    assert prefs(q.session(), http)["use_https"] is False


def test_qbittorrent_api_uploads_and_tus_over_https(served, certs):
    client = qbittorrentapi.Client(host=served.base, username="admin", password=served.password,
                                   REQUESTS_ARGS={"verify": certs.ca})
    client.auth_log_in()
    assert client.app_version().startswith("v5.")
    assert isinstance(list(client.torrents_info()), list)
    untrusting = qbittorrentapi.Client(host=served.base, username="admin", password=served.password)
    with pytest.raises(qbittorrentapi.APIConnectionError):
        untrusting.auth_log_in()

    auth = ("admin", served.password)
    data = os.urandom(300_000)
    r = requests.post(served.url("uploads"), auth=auth, files={"file": ("over-tls.bin", data)}, verify=certs.ca,
                      timeout=60)
    assert r.status_code == 201, r.text
    assert r.json()[0]["sha256"] == hashlib.sha256(data).hexdigest()
    assert (served.data_dir / "uploads" / "over-tls.bin").read_bytes() == data

    r = requests.post(served.url("tus/"), auth=auth, verify=certs.ca, timeout=30, headers={
        **TUS, "Upload-Length": str(len(data)), "Upload-Metadata": "filename " + base64.b64encode(b"tus-tls.bin").decode()})
    assert r.status_code == 201, r.text
    location = served.base + r.headers["Location"]
    r = requests.patch(location, auth=auth, data=data, verify=certs.ca, timeout=60, headers={
        **TUS, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
    assert r.status_code == 204, r.text
    head = requests.head(location, auth=auth, headers=TUS, verify=certs.ca, timeout=30)
    assert head.headers["Upload-Offset"] == str(len(data))
    assert (served.data_dir / "uploads" / "tus-tls.bin").read_bytes() == data


def test_qbt_over_https(served, certs, tmp_path):
    env = {"QBT_PASSWORD": served.password}
    cli = Cli(tmp_path)
    assert cli.json("app", "--url", served.base, "--ca-cert", certs.ca, env=env)["version"].startswith("v5.")
    assert isinstance(cli.json("list", "--url", served.base, "--ca-cert", certs.ca, env=env), list)
    assert isinstance(cli.json("list", env={**env, "QBT_URL": served.base, "QBT_CA_CERT": certs.ca}), list)
    qbt_fails(cli, "list", "--url", served.base, env=env)

    # Login keeps the CA for the server: later commands need neither the flag nor the password.
    saver = Cli(tmp_path / "saver")
    qbt_fails(saver, "login", served.base, env=env)
    assert "Logged in" in saver.run("login", served.base, "--ca-cert", certs.ca, env=env).stdout
    assert isinstance(saver.json("list"), list)
    assert saver.json("app")["version"].startswith("v5.")


def test_stream_plays_over_https(served, certs, tmp_path):
    if not shutil.which("ffmpeg"):
        pytest.skip("ffmpeg is not installed")
    video = tmp_path / "clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=8:size=320x240:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=8", "-c:v", "mpeg4", "-q:v", "5",
                    "-c:a", "aac", "-shortest", str(video)], check=True, timeout=120)
    payload = video.read_bytes()
    seeder = FileSeeder(tmp_path / "seed", "clip", {"clip.mp4": payload}, piece_size=128 * 1024)
    s = served.session()
    r = s.post(served.url("stream/prepare"), data={"peers": f"127.0.0.1:{seeder.port}"},
               files={"torrents": ("clip.torrent", seeder.torrent, "application/x-bittorrent")}, timeout=90)
    assert r.status_code == 200, r.text
    stream = r.json()
    # The playback URL names the HTTPS origin it was asked on.
    assert stream["playbackUrl"].startswith("https://127.0.0.1:"), stream["playbackUrl"]
    url = served.base + urlsplit(stream["playbackUrl"]).path
    try:
        r = requests.get(url, headers={"Range": "bytes=1000-70999"}, verify=certs.ca, timeout=60)
        assert r.status_code == 206 and r.content == payload[1000:71000], (r.status_code, len(r.content))
        tls = ["-ca_file", certs.ca, "-tls_verify", "1"]
        probe = subprocess.run(["ffprobe", "-v", "error", *tls, "-show_entries", "format=duration", "-of", "csv=p=0", url],
                               capture_output=True, text=True, timeout=120)
        assert probe.returncode == 0, probe.stderr
        assert abs(float(probe.stdout.strip()) - 8) < 0.5, probe.stdout
        run = subprocess.run(["ffmpeg", "-v", "error", *tls, "-i", url, "-f", "null", "-"], capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stderr
    finally:
        s.post(served.url("stream/stop"), data={"streamId": stream["streamId"]}, timeout=30)


def test_hls_music_and_websocket_over_https(served, certs, music_dir, tmp_path):
    if not (shutil.which("lame") and shutil.which("ffmpeg")):
        pytest.skip("lame and ffmpeg are needed to make and play the test MP3")
    base, ca = served.base, certs.ca
    wait_for(lambda: requests.get(base + "/music/auth", headers=BEARER, verify=ca, timeout=10).json()["libraryVersion"] >= 1,
             60, what="the first music scan")
    db = tmp_path / "library.sqlite"
    db.write_bytes(requests.get(base + "/music/db", headers=BEARER, verify=ca, timeout=30).content)
    with sqlite3.connect(db) as library:
        track = library.execute("SELECT id FROM tracks WHERE path LIKE '%tone.mp3'").fetchone()[0]

    # The playlist and every segment over HTTPS: the decoded audio is exactly the source's frames.
    url = f"{base}/music/tracks/{track}/stream.m3u8"
    run = subprocess.run(["ffmpeg", "-v", "error", "-ca_file", ca, "-tls_verify", "1",
                          "-headers", f"Authorization: Bearer {KEY}\r\n", "-i", url, "-f", "s16le", "-"],
                         capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert run.stdout == raw_pcm(music_dir / "tone.mp3", tmp_path), "the HLS audio over HTTPS differs from the source"

    # The music WebSocket over wss://, trusted through the CA only.
    wss = base.replace("https://", "wss://") + "/music/ws"
    ws = websocket.create_connection(wss, header=[f"Authorization: Bearer {KEY}"], sslopt={"ca_certs": ca}, timeout=30)
    try:
        assert json.loads(ws.recv())["type"] == "hello"
    finally:
        ws.close()
    with pytest.raises(ssl.SSLError):
        websocket.create_connection(wss, header=[f"Authorization: Bearer {KEY}"], timeout=30)
