"""Acceptance for the HLS music library: bit-exact audio (CBR, VBR, encrypted), playlist rules, the library database
and its rescans, the WebSocket channel, offline downloads with qbt, and bad input. MP3s are made at test time."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest
import requests
import websocket

import mp3frames
from conftest import wait_for
from test_qbt import Cli

KEY = "qbt_musictestkey0123456789ab"
BEARER = {"Authorization": f"Bearer {KEY}"}
pytestmark = pytest.mark.skipif(not shutil.which("lame"), reason="lame is needed to make test MP3s (apt-get install lame)")


def lame(path, seconds, *args, rate=44100):
    wav = path.with_suffix(".wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency=330:duration={seconds}",
                    "-f", "lavfi", "-i", f"sine=frequency=550:duration={seconds}", "-filter_complex", "amerge=inputs=2",
                    "-ar", str(rate), str(wav)], check=True)
    subprocess.run(["lame", "--quiet", *args, str(wav), str(path)], check=True)
    wav.unlink()
    return path


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("music")
    lib = root / "lib"
    (lib / "Album").mkdir(parents=True)
    lame(lib / "Album" / "cbr.mp3", 13, "-b", "128", "--tt", "Song Title", "--ta", "The Artist", "--tl", "The Album",
         "--ty", "2021", "--tn", "3/12", "--tg", "Synthwave", "--tv", "TPE2=Album Artist", "--tv", "TPOS=2/3")
    lame(lib / "Album" / "vbr.mp3", 13, "-V", "2", "--tt", "VBR Song", "--ta", "The Artist", "--tl", "The Album",
         "--tn", "4", "--tg", "Rock", "--tv", "TPE2=Album Artist")
    lame(lib / "short.mp3", 2, "-b", "96", "--tt", "Short")
    # Exactly 12 s of audio frames: the first 500 frames of a 48 kHz encode (1152 samples each), no LAME frame.
    long48 = lame(root / "long48.mp3", 14, "-b", "160", rate=48000)
    data = long48.read_bytes()
    (lib / "exact.mp3").write_bytes(b"".join(data[o:o + n] for o, n, _ in mp3frames.frames(data)[:500]))
    (lib / "broken.mp3").write_bytes(os.urandom(40_000))
    (lib / "mix.m3u8").write_text("#EXTM3U\nAlbum/vbr.mp3\nshort.mp3\nmissing.mp3\n")
    return lib


def scanned(q):
    wait_for(lambda: requests.get(q.base + "/music/auth", headers=BEARER).json()["libraryVersion"] >= 1, 60,
             what="the first scan")
    return q


def serve(qbtd_factory, lib, *extra):
    return scanned(qbtd_factory(extra=["--music-dir", str(lib), "--api-key", KEY, *extra]))


def tracks(q):
    path = Path(q.data_dir) / "snapshot.sqlite"
    path.write_bytes(requests.get(q.base + "/music/db", headers=BEARER).content)
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        return {Path(r["path"]).name: dict(r) for r in db.execute("SELECT * FROM tracks")}


def pcm(source, *args):
    return subprocess.run(["ffmpeg", "-v", "error", *args, "-i", str(source), "-f", "s16le", "-"],
                          capture_output=True, check=True, timeout=120).stdout


def raw_pcm(path, tmp):
    raw = tmp / (path.stem + "-frames.mp3")
    raw.write_bytes(mp3frames.audio(path.read_bytes()))
    return pcm(raw)


def playlist(q, track, **params):
    r = requests.get(f"{q.base}/music/tracks/{track}/stream.m3u8", headers=BEARER, params=params)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/vnd.apple.mpegurl", r.text
    return r.text


@pytest.mark.parametrize("encrypt", [False, True])
def test_hls_audio_is_bit_exact(qbtd_factory, library, tmp_path, encrypt):
    q = serve(qbtd_factory, library, *(["--music-encrypt"] if encrypt else []))
    ids = {name: t["id"] for name, t in tracks(q).items()}
    for name in ("cbr.mp3", "vbr.mp3"):
        source = library / "Album" / name
        url = f"{q.base}/music/tracks/{ids[name]}/stream.m3u8"
        got = pcm(url, "-headers", f"Authorization: Bearer {KEY}\r\n")
        assert got == raw_pcm(source, tmp_path), f"{name}: decoded HLS differs from the source's frames"
        text = playlist(q, ids[name])
        assert ('#EXT-X-KEY:METHOD=AES-128,URI="key"' in text) == encrypt
        key = requests.get(f"{q.base}/music/tracks/{ids[name]}/key", headers=BEARER)
        assert key.status_code == (200 if encrypt else 404)
        joined = b""
        for n, line in enumerate(l for l in text.splitlines() if l and not l.startswith("#")):
            assert re.fullmatch(rf"segments/{n}\.mp3\?v=\d+-\d+", line), line  # the file's version: caches stay true
            body = requests.get(f"{q.base}/music/tracks/{ids[name]}/{line}", headers=BEARER).content
            if encrypt:
                assert len(key.content) == 16
                body = subprocess.run(["openssl", "enc", "-d", "-aes-128-cbc", "-K", key.content.hex(), "-iv", f"{n:032x}"],
                                      input=body, capture_output=True, check=True).stdout
            assert body[:3] == b"ID3" and b"com.apple.streaming.transportStreamTimestamp\0" in body[:73]
            joined += body[73:]
        assert joined == mp3frames.audio(source.read_bytes()), f"{name}: segments are not exactly the audio frames"


def test_playlist_rules(qbtd_factory, library):
    q = serve(qbtd_factory, library)
    known = tracks(q)
    for name in ("cbr.mp3", "vbr.mp3", "short.mp3", "exact.mp3"):
        source = next(library.rglob(name))
        frames = mp3frames.frames(source.read_bytes())
        rate = mp3frames.rate(source.read_bytes())
        text = playlist(q, known[name]["id"])
        lines = text.splitlines()
        assert lines[:5] == ["#EXTM3U", "#EXT-X-VERSION:3", lines[2], "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MEDIA-SEQUENCE:0"]
        assert lines[-1] == "#EXT-X-ENDLIST"
        target = int(lines[2].split(":")[1])
        durations = [float(l[8:-1]) for l in lines if l.startswith("#EXTINF:")]
        assert all(int(d + 0.5) <= target for d in durations)
        assert abs(sum(durations) - sum(f[2] for f in frames) / rate) < 1e-6
        assert known[name]["samples"] == sum(f[2] for f in frames)
        if name == "short.mp3":
            assert len(durations) == 1
        if name == "exact.mp3":
            assert durations == [6.0, 6.0] and target == 6
    r = requests.get(f"{q.base}/music/tracks/{known['cbr.mp3']['id']}/stream.m3u8", params={"api_key": KEY})
    assert re.search(r"segments/0\.mp3\?v=\d+-\d+&api_key=" + KEY, r.text)  # players without headers get the key on every URI


def test_library_tags_rescans_and_db(qbtd_factory, library, tmp_path):
    lib = tmp_path / "lib"
    shutil.copytree(library, lib)
    q = serve(qbtd_factory, lib)
    known = tracks(q)
    cbr = known["cbr.mp3"]
    assert (cbr["title"], cbr["artist"], cbr["album"], cbr["album_artist"], cbr["track_number"], cbr["disc_number"],
            cbr["year"], cbr["genre"]) == ("Song Title", "The Artist", "The Album", "Album Artist", 3, 2, "2021", "Synthwave")
    assert known["vbr.mp3"]["vbr"] == 1 and known["vbr.mp3"]["genre"] == "Rock" and known["vbr.mp3"]["track_number"] == 4
    assert known["broken.mp3"]["error"] and "not an MP3" in known["broken.mp3"]["error"]
    with sqlite3.connect(Path(q.data_dir) / "snapshot.sqlite") as db:
        assert db.execute("SELECT title, album_artist, year FROM albums").fetchall() == [("The Album", "Album Artist", "2021")]
        items = db.execute("SELECT t.title FROM playlist_items p JOIN tracks t ON t.id = p.track_id ORDER BY position").fetchall()
        assert items == [("VBR Song",), ("Short",)]
        # Paths inside the music folder, never the server's own (issue 20): not in the rows, not in the file.
        paths = [p for (p,) in db.execute("SELECT path FROM tracks UNION ALL SELECT path FROM playlists")]
        assert paths and not any(p.startswith("/") for p in paths), paths
        assert "Album/vbr.mp3" in paths, paths
    assert str(lib).encode() not in (Path(q.data_dir) / "snapshot.sqlite").read_bytes()
    first = requests.get(q.base + "/music/db", headers=BEARER)
    etag = first.headers["ETag"]
    assert requests.get(q.base + "/music/db", headers={**BEARER, "If-None-Match": etag}).status_code == 304

    old_segment = next(l for l in playlist(q, known["vbr.mp3"]["id"]).splitlines() if l.startswith("segments/"))
    exact = f"{q.base}/music/tracks/{known['exact.mp3']['id']}/stream.m3u8"
    assert requests.get(exact, headers=BEARER).status_code == 200  # the track's row is now held in memory
    ws = websocket.create_connection(q.base.replace("http", "ws") + "/music/ws", header=[f"Authorization: Bearer {KEY}"], timeout=30)
    assert json.loads(ws.recv())["type"] == "hello"
    ws.send(json.dumps({"type": "hello", "protocolVersion": 1, "appVersion": "test"}))
    shutil.copy(lib / "short.mp3", lib / "added.mp3")
    lame(lib / "Album" / "vbr.mp3", 13, "-V", "2", "--tt", "Renamed Song", "--ta", "The Artist")
    (lib / "exact.mp3").unlink()
    ws.send(json.dumps({"type": "refreshDB"}))
    deadline = time.monotonic() + 30
    while True:
        event = json.loads(ws.recv())
        if event["type"] == "dbReady":
            break
        assert time.monotonic() < deadline
    ws.close()
    assert event["libraryVersion"] > int(etag.strip('"'))
    second = requests.get(q.base + "/music/db", headers={**BEARER, "If-None-Match": etag})
    assert second.status_code == 200 and second.headers["ETag"] != etag
    now = tracks(q)
    assert "added.mp3" in now and "exact.mp3" not in now and now["vbr.mp3"]["title"] == "Renamed Song"
    assert now["vbr.mp3"]["id"] == known["vbr.mp3"]["id"]  # a changed file keeps its id
    gone = requests.get(exact, headers=BEARER)  # the rescan that removed it emptied that memory
    assert gone.status_code == 404 and gone.json() == {"error": "no such track"}, gone.text
    # ... and its segments new addresses, so a player's cached segments of the old file are never used.
    assert next(l for l in playlist(q, now["vbr.mp3"]["id"]).splitlines() if l.startswith("segments/")) != old_segment


def test_websocket_channel(qbtd_factory, library):
    q = serve(qbtd_factory, library)
    url = q.base.replace("http", "ws") + "/music/ws"
    ids = {name: t["id"] for name, t in tracks(q).items()}

    def connect():
        ws = websocket.create_connection(url, header=[f"Authorization: Bearer {KEY}"], timeout=40)
        hello = json.loads(ws.recv())
        assert hello["type"] == "hello" and hello["protocolVersion"] == 1 and hello["appVersion"]
        return ws

    # A version mismatch: an error event, then the socket closes.
    ws = connect()
    ws.send(json.dumps({"type": "hello", "protocolVersion": 99, "appVersion": "future"}))
    event = json.loads(ws.recv())
    assert event["type"] == "error" and "99" in event["message"]
    with pytest.raises(websocket.WebSocketConnectionClosedException):
        ws.recv()
        ws.recv()

    ws = connect()
    ws.send(json.dumps({"type": "hello", "protocolVersion": 1, "appVersion": "test"}))

    def command(**c):
        ws.send(json.dumps(c))
        while True:
            event = json.loads(ws.recv())
            if event["type"] == "ping":
                ws.send(json.dumps({"type": "pong", "seq": event["seq"]}))
                continue
            return event

    queue = [ids["cbr.mp3"], ids["vbr.mp3"], ids["short.mp3"]]
    state = command(type="play", trackId=queue[0], queueIds=queue)["state"]
    assert state["trackId"] == queue[0] and state["playing"] is True
    assert command(type="next")["state"]["trackId"] == queue[1]
    assert command(type="previous")["state"]["trackId"] == queue[0]
    assert command(type="pause")["state"]["playing"] is False
    assert command(type="seek", position=42.5)["state"]["position"] == 42.5
    assert command(type="setVolume", level=0.25)["state"]["volume"] == 0.25
    assert command(type="toggleShuffle")["state"]["shuffle"] is True
    assert command(type="resume")["state"]["playing"] is True
    assert command(type="setVolume", level=7)["type"] == "error"
    assert command(type="dance")["type"] == "error"
    # A rescan that changes nothing still answers, with the version it left.
    ready = command(type="refreshDB")
    assert ready["type"] == "dbReady" and ready["libraryVersion"] == requests.get(q.base + "/music/auth", headers=BEARER).json()["libraryVersion"]

    # One client answers the pings, one does not, and one never says hello: the two quiet ones are dropped 15 s after
    # their first unanswered ping.
    silent = connect()
    silent.send(json.dumps({"type": "hello", "protocolVersion": 1, "appVersion": "silent"}))
    mute = connect()
    result = {}

    def watch(name, client):
        first_ping = None
        try:
            while True:
                event = json.loads(client.recv())
                if event["type"] == "ping" and first_ping is None:
                    first_ping = time.monotonic()
        except (websocket.WebSocketConnectionClosedException, json.JSONDecodeError):
            result[name] = time.monotonic() - first_ping

    stop = threading.Event()

    def answer_pings():
        ws.settimeout(1)
        while not stop.is_set():
            try:
                event = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            if event["type"] == "ping":
                ws.send(json.dumps({"type": "pong", "seq": event["seq"]}))

    watchers = [threading.Thread(target=watch, args=("silent", silent)), threading.Thread(target=watch, args=("mute", mute))]
    responder = threading.Thread(target=answer_pings)
    for t in watchers + [responder]:
        t.start()
    for t in watchers:
        t.join(40)
    stop.set()
    responder.join(10)
    ws.settimeout(40)
    assert 14 <= result["silent"] <= 17 and 14 <= result["mute"] <= 17, result
    # The answering client is still there.
    assert command(type="pause")["type"] == "playbackState"
    ws.close()


def test_offline_download_with_qbt(qbtd_factory, library, tmp_path):
    q = serve(qbtd_factory, library, "--music-encrypt")
    ids = {name: t["id"] for name, t in tracks(q).items()}
    cli = Cli(tmp_path, QBT_MUSIC_DIR=str(tmp_path / "music"))
    cli.run("login", q.base, env={"QBT_PASSWORD": q.password})
    key = cli.json("music", "key")["apiKey"]
    assert key.startswith("qbt_")
    # The key reaches /music only: a player that keeps it cannot touch torrents.
    assert requests.get(q.url("torrents/info"), headers={"Authorization": f"Bearer {key}"}).status_code == 403
    cli.run("login", q.base, env={"QBT_PASSWORD": q.password})  # logging in again keeps the music key
    assert cli.json("music", "sync")["downloaded"] is True and cli.json("music", "sync")["downloaded"] is False
    # Logged in with a full key: a new music key replaces the first, and /music takes the new one.
    keyed = Cli(tmp_path / "keyed", QBT_MUSIC_DIR=str(tmp_path / "music-keyed"))
    full = q.session().post(q.url("app/rotateAPIKey")).json()["apiKey"]
    keyed.run("login", q.base, "--api-key", full)
    key = keyed.json("music", "key")["apiKey"]
    assert keyed.json("app")["version"] and keyed.json("music", "sync")["downloaded"] is True
    assert [k["scope"] for k in q.session().get(q.url("qbtd/apiKeys")).json() if k["name"] == "music"] == ["music"]
    cli.run("music", "sync", code=4)  # the first login's saved key was the one replaced
    cli.json("music", "key")
    listed = {t["title"]: t for t in cli.json("music", "tracks")}
    assert listed["Song Title"]["id"] == ids["cbr.mp3"]
    assert [a["title"] for a in cli.json("music", "albums")] == ["The Album"]
    assert [t["title"] for t in cli.json("music", "search", "VBR")] == ["VBR Song"]
    out = cli.json("music", "download", ids["cbr.mp3"])
    assert out["state"] == "completed"
    folder = Path(out["folder"])
    text = (folder / "stream.m3u8").read_text()
    assert 'URI="key.bin"' in text and "api_key" not in text and "http" not in text
    album = cli.json("music", "download", "--album", str(cli.json("music", "albums")[0]["id"]))
    assert album["state"] == "completed"
    states = {d["id"]: d["state"] for d in cli.json("music", "downloads")}
    assert set(states.values()) == {"completed"} and len(states) == 2
    cli.run("music", "downloads", "cancel", album["id"])
    assert not Path(album["folder"]).exists()
    assert {d["id"]: d["state"] for d in cli.json("music", "downloads")}[album["id"]] == "cancelled"
    cli.run("music", "download", "999999", code=5)

    # Paused (Ctrl-C, or `downloads pause` from another shell) and resumed: a 30-minute track, about 300 segments.
    lib2 = tmp_path / "lib2"
    lib2.mkdir()
    lame(lib2 / "long.mp3", 1800, "-b", "32")
    q2 = serve(qbtd_factory, lib2)
    cli2 = Cli(tmp_path / "second", QBT_MUSIC_DIR=str(tmp_path / "music2"), QBT_URL=q2.base, QBT_API_KEY=KEY)
    proc = cli2.popen("music", "download", "1")
    book = tmp_path / "music2" / "downloads.json"

    def progress():
        try:
            return json.loads(book.read_text())["entries"]["tracks-1"]["done"]
        except (OSError, ValueError, KeyError):
            return 0

    wait_for(lambda: progress() >= 3 or proc.poll() is not None, 60, interval=0.005, what="download under way")
    proc.send_signal(2)  # SIGINT
    proc.wait(30)
    entry = cli2.json("music", "downloads")[0]
    assert entry["state"] == "paused" and 0 < entry["done"] < entry["total"] and entry["total"] >= 300, entry
    assert cli2.json("music", "downloads", "resume", "tracks-1")["state"] == "completed"
    assert cli2.json("music", "downloads")[0]["done"] == entry["total"]

    q.stop()  # the network is gone: the copy plays from disk alone
    got = pcm(folder / "stream.m3u8", "-allowed_extensions", "ALL", "-protocol_whitelist", "file,crypto,data")
    assert got == raw_pcm(library / "Album" / "cbr.mp3", tmp_path)


def http_exchange(q, requests_text, timeout=30):
    """Sends raw HTTP/1.1 requests in one write (pipelined) and reads answers until the server closes:
    [(status, headers, body)]."""
    import socket
    host, port = q.base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(requests_text.encode())
        data = b""
        while chunk := sock.recv(1 << 16):
            data += chunk
    answers = []
    while data:
        head, _, data = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {k.lower(): v for k, v in (l.split(": ", 1) for l in lines[1:])}
        length = int(headers["content-length"])
        answers.append((int(lines[0].split()[1]), headers, data[:length]))
        data = data[length:]
    return answers


def test_segments_answered_on_the_event_loop_are_the_routers(qbtd_factory, library):
    """A segment whose key and track are ready and which was cut before is answered before the router (the fast
    path): the same bytes and headers, in the requests' order when they are pipelined with the router's, and a rotated
    key is refused at once."""
    q = serve(qbtd_factory, library)
    cbr = tracks(q)["cbr.mp3"]["id"]
    playlist(q, cbr)  # indexes the track and notes the key: both ready for the fast path
    seg = f"/music/tracks/{cbr}/segments"
    # The key percent-encoded in the query is the router's to decode: the reference answer, which cuts segment 1.
    routed = requests.get(f"{q.base}{seg}/1.mp3?api_key={KEY.replace('_', '%5F')}")
    assert routed.status_code == 200 and routed.content[:3] == b"ID3"
    cut = requests.get(f"{q.base}{seg}/0.mp3", headers=BEARER)  # the router cuts segment 0 too
    assert cut.status_code == 200
    auth = f"Authorization: Bearer {KEY}\r\n"

    def fast_count():
        text = requests.get(q.base + "/metrics", headers=BEARER).text
        return int(float(re.search(r"^qbtd_music_segments_fast_total (\S+)$", text, re.M).group(1)))

    before = fast_count()
    alone = http_exchange(q, f"GET {seg}/1.mp3 HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n")
    answers = http_exchange(q, "".join([
        f"GET {seg}/1.mp3 HTTP/1.1\r\nHost: x\r\n{auth}\r\n",
        f"GET {seg}/0.mp3?api_key={KEY} HTTP/1.1\r\nHost: x\r\n\r\n",
        f"GET /music/library HTTP/1.1\r\nHost: x\r\n{auth}\r\n",            # the router's; what follows waits
        f"GET {seg}/99.mp3 HTTP/1.1\r\nHost: x\r\n{auth}\r\n",             # no such segment: the router explains
        f"GET {seg}/1.mp3 HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n",
    ]))
    # The first three segments came the fast way (the metric says so), the rest through the router, all in order.
    assert fast_count() - before >= 3
    assert [a[0] for a in alone + answers] == [200, 200, 200, 200, 404, 200]
    assert answers[2][1]["content-type"] == "application/json" and json.loads(answers[2][2])
    assert "segments" in json.loads(answers[3][2])["error"]
    for _, headers, body in (alone[0], answers[0], answers[4]):
        assert body == routed.content
        assert {k: v for k, v in headers.items() if k != "date"} == \
            {k.lower(): v for k, v in routed.headers.items() if k.lower() != "date"}
    assert answers[1][2] == cut.content
    # A rotated key is refused on the next segment, however recently it was admitted.
    q.session().post(q.url("app/rotateAPIKey")).raise_for_status()
    assert requests.get(f"{q.base}{seg}/1.mp3", headers=BEARER).status_code == 401
    # A changed file is read again, not served from the old index.
    source = library / "Album" / "cbr.mp3"
    os.utime(source, None)
    fresh = q.session().post(q.url("app/rotateAPIKey")).json()["apiKey"]
    r = requests.get(f"{q.base}{seg}/1.mp3", headers={"Authorization": f"Bearer {fresh}"})
    assert r.status_code == 200 and r.content == routed.content


def test_bad_input(qbtd_factory, library):
    q = serve(qbtd_factory, library)
    ids = {name: t["id"] for name, t in tracks(q).items()}
    cbr = ids["cbr.mp3"]
    for path in ("/music/auth", "/music/db", f"/music/tracks/{cbr}/stream.m3u8", f"/music/tracks/{cbr}/segments/0.mp3",
                 "/music/ws"):
        assert requests.get(q.base + path).status_code == 401, path
        assert requests.get(q.base + path, headers={"Authorization": "Bearer qbt_wrongwrongwrongwrong"}).status_code == 401
        assert requests.get(q.base + path, params={"api_key": "nope"}).status_code == 401
    assert requests.get(f"{q.base}/music/tracks/999999/stream.m3u8", headers=BEARER).status_code == 404
    count = sum(1 for l in playlist(q, cbr).splitlines() if l.startswith("segments/"))
    assert requests.get(f"{q.base}/music/tracks/{cbr}/segments/{count}.mp3", headers=BEARER).status_code == 404
    assert requests.get(f"{q.base}/music/tracks/{cbr}/segments/x.mp3", headers=BEARER).status_code == 404
    r = requests.get(f"{q.base}/music/tracks/{ids['broken.mp3']}/stream.m3u8", headers=BEARER)
    assert r.status_code == 422 and "not an MP3" in r.json()["error"]
    assert requests.get(q.base + "/api/v2/app/version").status_code == 403  # still the WebAPI's own rules


def test_music_dirs_preference(qbtd_factory, library, tmp_path):
    q = qbtd_factory(extra=["--api-key", KEY])
    s = q.session()
    assert s.get(q.url("app/preferences")).json()["music_dirs"] == []
    s.post(q.url("app/setPreferences"), data={"json": json.dumps({"music_dirs": [str(library), "/no/such/folder"]})})
    scanned(q)
    assert "cbr.mp3" in tracks(q)
    assert s.get(q.url("app/preferences")).json()["music_dirs"] == [str(library)]
    q.stop()
    q = qbtd_factory(data_dir=q.data_dir, extra=["--api-key", KEY])  # kept across restarts
    assert q.session().get(q.url("app/preferences")).json()["music_dirs"] == [str(library)]


def test_segments_are_cut_once_and_sent_as_files(qbtd_factory, library):
    """A segment is cut (tag and frames; encrypted when the library is) on its first request and kept in
    <data>/music/hls-segments; later requests are answered on the event loop from that file (the fast path's metric
    counts them): the same bytes and headers, and an encrypted one decrypts to the plain segment. A changed track file
    gets segments of its own; the folder is emptied at start."""
    plain = serve(qbtd_factory, library)
    clear_id = tracks(plain)["cbr.mp3"]["id"]
    playlist(plain, clear_id)
    clear = requests.get(f"{plain.base}/music/tracks/{clear_id}/segments/1.mp3", headers=BEARER).content
    assert clear[:3] == b"ID3"
    plain.stop()
    q = serve(qbtd_factory, library, "--music-encrypt")
    cbr = tracks(q)["cbr.mp3"]["id"]
    playlist(q, cbr)
    seg = f"{q.base}/music/tracks/{cbr}/segments/1.mp3"

    def fast_count():
        text = requests.get(q.base + "/metrics", headers=BEARER).text
        return int(float(re.search(r"^qbtd_music_segments_fast_total (\S+)$", text, re.M).group(1)))

    folder = q.data_dir / "music" / "hls-segments"
    first = requests.get(seg, headers=BEARER)
    assert first.status_code == 200 and first.headers["content-type"] == "application/octet-stream"
    assert len(list(folder.glob("*.seg"))) == 1
    before = fast_count()
    again = [requests.get(seg, headers=BEARER) for _ in range(3)]
    assert fast_count() - before == 3
    for r in again:
        assert r.content == first.content
        assert {k: v for k, v in r.headers.items() if k.lower() != "date"} == \
            {k: v for k, v in first.headers.items() if k.lower() != "date"}
    key = requests.get(f"{q.base}/music/tracks/{cbr}/key", headers=BEARER).content
    iv = (1).to_bytes(16, "big")
    decrypted = subprocess.run(["openssl", "enc", "-d", "-aes-128-cbc", "-K", key.hex(), "-iv", iv.hex()],
                               input=first.content, capture_output=True, check=True).stdout
    assert decrypted == clear
    # A changed file: the stale segment is not served; a new one is cut (and then sent as a file).
    os.utime(library / "Album" / "cbr.mp3", None)
    before = fast_count()
    assert requests.get(seg, headers=BEARER).content == first.content
    assert fast_count() == before and len(list(folder.glob("*.seg"))) == 2
    assert requests.get(seg, headers=BEARER).content == first.content and fast_count() == before + 1
    q.stop()
    scanned(qbtd_factory(data_dir=q.data_dir, extra=["--music-dir", str(library), "--api-key", KEY, "--music-encrypt"]))
    assert list(folder.glob("*")) == []
