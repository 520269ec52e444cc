"""Alternative WebUI folders served as qBittorrent serves them (`alternative_webui_enabled` + `alternative_webui_path`,
or qbtd's `--webui-dir`), checked against qbittorrent-nox serving the same folder, and a small UI written here that
logs in and polls `sync/maindata` the way VueTorrent and its kind do, driven in a real browser."""
import http.client
import os
import struct
import zlib
from pathlib import Path

import requests

from browser import console_errors, open_browser, screenshot, visible, wait
from conftest import wait_for
from qbtnox import QbittorrentNox

INDEX_PUBLIC = """<!doctype html><html><head><meta charset="utf-8"><title>Tiny UI</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="css/tiny.css"></head><body>
<form id="tiny-login"><input id="u" value="{user}"><input id="p" type="password" value="{password}">
<button id="go" type="submit">Log in</button></form><p id="state">logged out</p>
<script src="js/login.js"></script></body></html>
"""
LOGIN_JS = """document.getElementById('tiny-login').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = new URLSearchParams({username: document.getElementById('u').value, password: document.getElementById('p').value});
  const r = await fetch('api/v2/auth/login', {method: 'POST', body});
  if ((await r.text()) === 'Ok.') location.reload(); else document.getElementById('state').textContent = 'refused';
});
"""
INDEX_PRIVATE = """<!doctype html><html><head><meta charset="utf-8"><title>Tiny UI</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="css/tiny.css"></head><body><p id="state">logged in</p><p id="count">?</p><p id="rid">0</p>
<img id="logo" src="img/logo.png" alt="logo"><script src="js/poll.js"></script></body></html>
"""
POLL_JS = """let rid = 0; const torrents = {};
async function poll() {
  const r = await fetch('api/v2/sync/maindata?rid=' + rid);
  const d = await r.json();
  if (d.full_update) for (const k of Object.keys(torrents)) delete torrents[k];
  Object.assign(torrents, d.torrents || {});
  for (const h of d.torrents_removed || []) delete torrents[h];
  rid = d.rid;
  document.getElementById('count').textContent = Object.keys(torrents).length + ' torrents';
  document.getElementById('rid').textContent = String(rid);
  setTimeout(poll, 500);
}
poll();
"""


def png():
    """A 1×1 PNG made here (no committed media)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def write_ui(root, user, password):
    """The tiny UI plus files that exercise the rules: private over public, content types, a symlinked folder, a
    symlink out of the folder."""
    pub, priv = root / "public", root / "private"
    for d in (pub / "css", pub / "js", pub / "img", pub / "sub", priv / "js"):
        d.mkdir(parents=True, exist_ok=True)
    (pub / "index.html").write_text(INDEX_PUBLIC.format(user=user, password=password))
    (pub / "js" / "login.js").write_text(LOGIN_JS)
    (pub / "css" / "tiny.css").write_text("body { font-family: sans-serif; }\n")
    (pub / "img" / "logo.png").write_bytes(png())
    (pub / "notes.txt").write_text("plain text\n")
    (pub / "data.json").write_text('{"a": 1}\n')
    (pub / "sub" / "page.html").write_text("<p>public page</p>\n")
    (priv / "index.html").write_text(INDEX_PRIVATE)
    (priv / "js" / "poll.js").write_text(POLL_JS)
    (priv / "js" / "secret.js").write_text("// only with a session\n")
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "x.html").write_text("<p>outside</p>\n")
    (pub / "linked").symlink_to(outside, target_is_directory=True)
    (pub / "escape.html").symlink_to(outside / "x.html")


# (path, what it shows); each is asked without and with a session.
PATHS = ["/", "/index.html", "/js/login.js", "/css/tiny.css", "/img/logo.png", "/notes.txt", "/data.json",
         "/sub/page.html", "/js/poll.js", "/js/secret.js", "/missing.html", "/sub/", "/linked/x.html",
         "/a/../index.html", "/./index.html", "/sub\\page.html", "/%2e%2e/etc/passwd"]
HEADERS = ["Content-Type", "Cache-Control", "X-Frame-Options", "X-Content-Type-Options", "X-XSS-Protection",
           "Content-Security-Policy", "Referrer-Policy", "Cross-Origin-Opener-Policy"]


def raw_get(base, path, cookie=None):
    """GET `path` exactly as written (no client-side normalisation of `..`)."""
    host, port = base.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.putrequest("GET", path, skip_accept_encoding=True)
    if cookie:
        conn.putheader("Cookie", cookie)
    conn.endheaders()
    r = conn.getresponse()
    body = r.read()
    headers = {h: r.getheader(h) for h in HEADERS}
    conn.close()
    return r.status, headers, body


def observe(server, session):
    cookie = "; ".join(f"{c.name}={c.value}" for c in session.cookies)
    seen = {}
    for path in PATHS:
        for who, c in (("anonymous", None), ("session", cookie)):
            status, headers, body = raw_get(server.base, path, c)
            seen[(path, who)] = (status, headers, body if status == 200 else None)
    return seen


def enable(server, session, folder):
    r = session.post(server.url("app/setPreferences"),
                     data={"json": f'{{"alternative_webui_enabled": true, "alternative_webui_path": "{folder}"}}'})
    assert r.status_code == 200, r.text


def test_alternative_webui_served_as_qbittorrent_serves_it(qbtd_factory, tmp_path):
    nox = QbittorrentNox(tmp_path / "nox").start()
    try:
        ui = tmp_path / "ui-nox"
        write_ui(ui, "admin", "same-in-both")
        s = nox.session()
        enable(nox, s, ui)
        reference = observe(nox, s)
    finally:
        nox.stop()
    q = qbtd_factory()
    ui = tmp_path / "ui-qbtd"
    write_ui(ui, "admin", "same-in-both")
    s = q.session()
    enable(q, s, ui)
    ours = observe(q, s)
    assert s.get(q.url("app/preferences")).json()["alternative_webui_enabled"] is True
    for key, (status, headers, body) in reference.items():
        if key[0] == "/escape.html":
            continue
        assert ours[key][0] == status, (key, ours[key][0], status)
        assert ours[key][1] == headers, (key, ours[key][1], headers)
        assert ours[key][2] == body, (key, ours[key][2], body)
    # qbtd goes further than qBittorrent here: a symlinked file that leads out of the folder is not served.
    for who, c in (("anonymous", None), ("session", "; ".join(f"{k}={v}" for k, v in s.cookies.items()))):
        status, _, body = raw_get(q.base, "/escape.html", c)
        assert status == 500 and b"Symlinks" in body, (who, status, body)


def test_tiny_ui_logs_in_and_polls_in_a_browser(qbtd_factory, tmp_path):
    ui = tmp_path / "ui"
    write_ui(ui, "admin", "test-password-1")
    q = qbtd_factory(extra=["--webui-dir", str(ui)])
    s = q.session()
    for i in range(3):
        r = s.post(q.url("torrents/add"), data={"urls": f"magnet:?xt=urn:btih:{os.urandom(20).hex()}&dn=t{i}",
                                               "stopped": "true", "paused": "true"})
        assert r.text == "Ok."
    driver = open_browser()
    try:
        driver.get(q.base + "/")
        visible(driver, "#go").click()
        wait(driver, lambda d: d.find_element("id", "count").text == "3 torrents", 20)
        rid = int(driver.find_element("id", "rid").text)
        wait(driver, lambda d: int(d.find_element("id", "rid").text) > rid, 10)  # still polling, rid diffs
        assert driver.execute_script("return document.getElementById('logo').naturalWidth") == 1
        screenshot(driver, "alternative-webui")
        assert console_errors(driver) == []
    finally:
        driver.quit()
    # The flag wins; as qBittorrent's for a custom UI, the answers keep only the clickjacking part of the policy.
    r = requests.get(q.base + "/")
    assert "Tiny UI" in r.text and "Referrer-Policy" not in r.headers, r.headers
    assert r.headers["Content-Security-Policy"] == "frame-ancestors 'self';", r.headers


def test_preferences_switch_between_own_and_alternative_ui(qbtd_factory, tmp_path):
    q = qbtd_factory()
    s = q.session()
    own = requests.get(q.base + "/")
    assert own.status_code == 200 and 'id="login-form"' in own.text, own.text[:200]
    assert "media-src 'self' blob:" in own.headers["Content-Security-Policy"]
    ui = tmp_path / "ui"
    write_ui(ui, "admin", q.password)
    enable(q, s, ui)
    assert "Tiny UI" in requests.get(q.base + "/").text
    s.post(q.url("app/setPreferences"), data={"json": '{"alternative_webui_enabled": false}'})
    assert 'id="login-form"' in requests.get(q.base + "/").text
    # qBittorrent-nox turns the alternative UI off when its index.html cannot be served (5.x): 500, then qbtd's own.
    (ui / "public" / "index.html").unlink()
    enable(q, s, ui)
    r = requests.get(q.base + "/")
    assert r.status_code == 500 and "regular file" in r.text, (r.status_code, r.text)
    wait_for(lambda: s.get(q.url("app/preferences")).json()["alternative_webui_enabled"] is False, 10,
             what="alternative_webui_enabled to turn off")
    assert 'id="login-form"' in requests.get(q.base + "/").text


def test_own_ui_files_revalidate_and_refuse_traversal(qbtd_factory):
    q = qbtd_factory()
    r = requests.get(q.base + "/js/main.js")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/javascript")
    assert r.headers["Cache-Control"] == "no-cache" and r.headers["ETag"]
    again = requests.get(q.base + "/js/main.js", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.content == b""
    assert raw_get(q.base, "/js/../../../../etc/passwd")[0] == 400
    assert raw_get(q.base, "/nothing-here.js")[0] == 404
    # Without a session the public session marker; with one, the private one (no 403 for the page to log).
    assert requests.get(q.base + "/session.json").json() == {"session": False}
    assert q.session().get(q.base + "/session.json").json() == {"session": True}
    # The API and qbtd's routes keep their own answers under the catch-all.
    assert requests.get(q.url("app/version")).status_code == 403
    assert requests.head(q.base + "/").status_code == 200
