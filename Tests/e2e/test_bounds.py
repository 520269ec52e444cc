"""Issue 21 (item 5): the bounds of what clients can make qbtd hold, each documented in the README ("Bounds"):
music WebSocket clients, unfinished tus uploads, search jobs overall and kept per client. (Sessions and failed
logins: SessionBoundsTests; idle and slow connections: test_connection_bounds.py; request bodies: test_uploads.py.)"""
import base64
import json

import requests
import websocket

from conftest import plugin_processes, wait_for
from search_fixtures import HANG_BODY, Site, write_plugin

KEY = "qbt_boundstestkey0123456789abc"
TUS = {"Tus-Resumable": "1.0.0"}


def test_music_websocket_clients_are_bounded(qbtd_factory, tmp_path):
    music = tmp_path / "music"
    music.mkdir()
    q = qbtd_factory(extra=["--music-dir", str(music), "--api-key", KEY])
    url = q.base.replace("http://", "ws://") + "/music/ws"
    clients = []
    try:
        for _ in range(64):
            ws = websocket.create_connection(url, header=[f"Authorization: Bearer {KEY}"], timeout=30)
            assert json.loads(ws.recv())["type"] == "hello"
            clients.append(ws)
        # The 65th is told to come back later (1013) and let go.
        extra = websocket.create_connection(url, header=[f"Authorization: Bearer {KEY}"], timeout=30)
        refusal = json.loads(extra.recv())
        assert refusal["type"] == "error" and "try again later" in refusal["message"]
        opcode, frame = extra.recv_data_frame(True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(frame.data[:2], "big") == 1013, frame.data
        extra.close()
        # One leaves: a place is free again.
        clients.pop().close()

        def another():
            ws = websocket.create_connection(url, header=[f"Authorization: Bearer {KEY}"], timeout=30)
            message = json.loads(ws.recv())
            if message["type"] == "hello":
                clients.append(ws)
                return True
            ws.close()
            return False

        wait_for(another, 15, interval=0.5, what="a free place after a client left")
    finally:
        for ws in clients:
            ws.close()


def test_unfinished_tus_uploads_are_bounded(qbtd_factory):
    q = qbtd_factory()
    auth = ("admin", q.password)
    session = requests.Session()
    session.auth = auth
    made = []
    for i in range(1000):
        r = session.post(q.url("tus"), headers={**TUS, "Upload-Length": "10",
                                                "Upload-Metadata": "filename " + base64.b64encode(f"f{i}".encode()).decode()})
        assert r.status_code == 201, (i, r.text)
        made.append(r.headers["Location"])
    r = session.post(q.url("tus"), headers={**TUS, "Upload-Length": "10"})
    assert r.status_code == 429 and "1000 uploads are unfinished already" in r.json()["error"]
    # A finished one or a deleted one frees a place.
    assert session.delete(q.base + made.pop(), headers=TUS).status_code == 204
    r = session.post(q.url("tus"), headers={**TUS, "Upload-Length": "10"})
    assert r.status_code == 201
    assert session.post(q.url("tus"), headers={**TUS, "Upload-Length": "10"}).status_code == 429
    r = session.patch(q.base + made.pop(), data=b"0123456789",
                      headers={**TUS, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
    assert r.status_code == 204
    assert session.post(q.url("tus"), headers={**TUS, "Upload-Length": "10"}).status_code == 201


def test_search_jobs_are_bounded_overall_and_per_client(qbtd_factory, seeder, tmp_path):
    site = Site(results=1, torrent=seeder.torrent)
    q = qbtd_factory()
    try:
        admin = q.session()
        admin.post(q.url("search/installPlugin"), data={"sources": str(write_plugin(tmp_path, "hangs", site.url, HANG_BODY))})
        wait_for(lambda: "hangs" in {p["name"] for p in admin.get(q.url("search/plugins")).json()}, 30, what="the plugin")
        clients = [q.session() for _ in range(7)]
        started = []
        for n in range(32):  # 5 per client (qBittorrent's limit) over 7 clients: the 33rd is over qbtd's 32
            s = clients[n // 5]
            r = s.post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "hangs"})
            assert r.status_code == 200, (n, r.text)
            started.append((s, r.json()["id"]))
        r = clients[6].post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "hangs"})
        assert r.status_code == 409 and "32 concurrent searches on this server" in r.text
        for s, job in started:
            assert s.post(q.url("search/stop"), data={"id": job}).status_code == 200
        # Kept per client: 50; the 51st search forgets the oldest finished one.
        s = clients[0]
        kept = {j["id"] for j in s.get(q.url("search/status")).json()}
        assert len(kept) == 5
        for _ in range(46):
            job = s.post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "qbtd_local"}).json()["id"]
            wait_for(lambda: s.get(q.url("search/status"), params={"id": job}).json()[0]["status"] == "Stopped", 30,
                     what="a local search")
        assert len(s.get(q.url("search/status")).json()) == 50
        oldest, second = started[0][1], started[1][1]
        assert s.get(q.url("search/status"), params={"id": oldest}).status_code == 404  # forgotten
        assert s.get(q.url("search/status"), params={"id": second}).status_code == 200
        s.post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "qbtd_local"})
        assert len(s.get(q.url("search/status")).json()) == 50
        assert s.get(q.url("search/status"), params={"id": second}).status_code == 404
    finally:
        site.close()
        wait_for(lambda: not plugin_processes(q), 20, what="plugin processes gone")
