"""Compatibility profiles: what qbtd reports follows the chosen qBittorrent release; both dialects are accepted."""
import qbittorrentapi
import requests

from conftest import PASSWORD


def test_profile_4_6_speaks_4x_words(qbtd_factory):
    q = qbtd_factory(extra=["--profile", "4.6"])
    s = q.session()
    assert s.get(q.url("app/version")).text == "v4.6.7" and s.get(q.url("app/webapiVersion")).text == "2.9.3"
    # A 5.x request word still works; the answer uses the 4.x state name.
    assert s.post(q.url("torrents/add"), data={"urls": "cd" * 20, "stopped": "true"}).text == "Ok."
    t = s.get(q.url("torrents/info"), params={"filter": "paused"}).json()[0]
    assert t["state"] == "pausedDL" and "has_metadata" not in t and "max_inactive_seeding_time" in t
    prefs = s.get(q.url("app/preferences")).json()
    assert "start_paused_enabled" in prefs and "add_stopped_enabled" not in prefs
    assert s.post(q.url("torrents/resume"), data={"hashes": "all"}).status_code == 200
    assert s.get(q.url("torrents/info"), params={"filter": "resumed"}).json()[0]["hash"] == "cd" * 20


def test_profile_5_2_login_and_empty_answers(qbtd_factory):
    q = qbtd_factory(extra=["--profile", "5.2"])
    bad = requests.post(q.url("auth/login"), data={"username": "admin", "password": "nope"})
    assert bad.status_code == 401
    s = requests.Session()
    ok = s.post(q.url("auth/login"), data={"username": "admin", "password": PASSWORD})
    assert ok.status_code == 204 and f"QBT_SID_{q.port}" in ok.headers["Set-Cookie"]
    assert s.get(q.url("app/webapiVersion")).text == "2.15.1"
    # 5.2.3 answers 204 only for the actions that set no result; createTags still sets an empty one (200).
    r = s.post(q.url("torrents/createTags"), data={"tags": "x"})
    assert (r.status_code, r.text) == (200, "")
    r = s.post(q.url("torrents/setTags"), data={"hashes": "0" * 40, "tags": "x"})
    assert (r.status_code, r.text) == (204, "")
    # HTTP Basic works too, as in 5.2.
    assert requests.get(q.url("torrents/tags"), auth=("admin", PASSWORD)).json() == ["x"]
    assert requests.get(q.url("torrents/tags"), auth=("admin", "nope")).status_code == 401
    # The client library copes with 5.2's answers.
    client = qbittorrentapi.Client(host="127.0.0.1", port=q.port, username="admin", password=PASSWORD)
    client.auth_log_in()
    assert client.app.version == "v5.2.3" and client.torrents_tags() == ["x"]


def test_the_default_profile_is_5_3(qbtd_factory):
    """qbtd presents the newest real release the differential suite holds it against: 5.3.0 (sid's 5.3.0-1)."""
    q = qbtd_factory(profile=None)
    s = q.session()
    assert s.get(q.url("app/version")).text == "v5.3.0" and s.get(q.url("app/webapiVersion")).text == "2.16.2"
