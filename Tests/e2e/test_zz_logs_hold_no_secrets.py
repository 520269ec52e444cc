"""Issue 20 (item 6): qbtd's logs never hold a password, an API key or a session cookie. Runs last (by name): it
drives the paths that carry secrets itself, then reads its own log and every qbtd log of the e2e run."""
import base64
import json
import re

import requests

from conftest import PASSWORD

# Secrets the suite hands to qbtd (passwords, --api-key values, keys it chooses); generated ones are matched by shape.
KNOWN = [PASSWORD, "qbt_musictestkey0123456789ab", "qbt_httpstestkey0123456789ab", "qbt_cataloguetestkey0123456789",
         "9b2e4c6a8d0f1e3a5c7b9d2f4e6a8c0b", "service-password-1", "5f0c2a9e7b3d4c1a8e6f0b2d9c7a5e3f"]
SHAPES = [re.compile(r"qbt_[A-Za-z0-9]{20,}"), re.compile(r"\b(SID|QBT_SID_\d+)=[A-Za-z0-9+/]{8,}"),
          re.compile(r"Authorization:\s*\S+", re.I), re.compile(r"api_key=[^&\s\"]{8,}")]


def leaks(text, secrets):
    found = [s for s in secrets if s and s in text]
    found += [m.group(0)[:12] + "…" for shape in SHAPES for m in shape.finditer(text)]
    return found


def test_logs_hold_no_secrets(qbtd_factory, tmp_path_factory, tmp_path):
    key = "qbt_logcheckkey0123456789abcd"
    new_password = "rotated-password-zz-1"
    music = tmp_path / "music"
    music.mkdir()
    q = qbtd_factory(extra=["--api-key", key, "--music-dir", str(music)])
    s = q.session()
    cookie = s.cookies.get("SID")
    bearer = {"Authorization": f"Bearer {key}"}
    # Every way a secret reaches the server, right and wrong.
    requests.post(q.url("auth/login"), data={"username": "admin", "password": "wrong-password-zz"})
    basic = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()
    requests.get(q.url("app/version"), headers={"Authorization": f"Basic {basic}"})
    assert requests.get(q.url("torrents/info"), headers=bearer).status_code == 200
    requests.get(q.url("torrents/info"), headers={"Authorization": "Bearer qbt_" + "w" * 28})
    requests.get(q.base + "/music/auth", params={"api_key": key})
    requests.get(q.base + "/music/auth", params={"api_key": "qbt_" + "z" * 28})
    created = s.post(q.url("qbtd/createAPIKey"), data={"name": "logcheck"}).json()["key"]
    rotated = s.post(q.url("app/rotateAPIKey")).json()["apiKey"]
    prefs = {"web_ui_password": new_password, "proxy_password": "proxy-secret-zz", "mail_notification_password": "mail-secret-zz",
             "web_ui_username": "admin"}
    assert s.post(q.url("app/setPreferences"), data={"json": json.dumps(prefs)}).status_code == 200
    events = s.get(q.url("log/main")).text
    q.stop()

    own = open(q.log.name, encoding="utf-8", errors="replace").read()
    secrets = KNOWN + [key, cookie, created, rotated, new_password, "proxy-secret-zz", "mail-secret-zz", "wrong-password-zz", basic]
    assert not leaks(own, secrets), leaks(own, secrets)
    assert not leaks(events, secrets), leaks(events, secrets)
    # The qbtd log's own event log (log/main) says the same things: it must not hold them either.
    base = tmp_path_factory.getbasetemp()  # logs sit one or two folders down (not `**`: some folders are very deep)
    logs = sorted(list(base.glob("*/qbtd-*.log")) + list(base.glob("*/*/qbtd-*.log")))
    bad = {}
    for log in logs:
        found = leaks(log.read_text(errors="replace"), secrets)
        if found:
            bad[str(log)] = found[:5]
    print(f"{len(logs)} qbtd logs of this run read, {len(bad)} with a secret")
    assert not bad, bad
