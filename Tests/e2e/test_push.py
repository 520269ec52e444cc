"""Issue 40 (item 1): sync/maindata pushed. `GET /api/v2/qbtd/events` (Server-Sent Events) and
`/api/v2/qbtd/events/ws` (WebSocket) send what a `sync/maindata` poll would answer, without the poll: a full update
first (or a diff from the `rid` / `Last-Event-ID` the client resumes from, while the server still holds it), then a
diff whenever something changed. Applied in order, the events give what `sync/maindata?rid=0` shows. The API's
authentication: the session cookie or an API key whose scope reads (read-only, stream, full); a music- or
upload-scoped key is refused with a JSON error. No timing assertion: events are read with bounded waits only."""
import http.client
import json
import time

import libtorrent as lt
import pytest
import requests
import websocket

from conftest import Qbtd, wait_for
from test_sync import apply

KEY = "qbt_pushtestkey0123456789abcdef"
EVENTS = "/api/v2/qbtd/events"
WAIT = 15      # seconds at most for an event that must come


def make_torrent(name):
    """A small single-file .torrent (random piece hashes: it is added stopped and never checked)."""
    fs = lt.file_storage()
    fs.add_file(name + ".bin", 3 * 16384 + 5)
    ct = lt.create_torrent(fs, 16384, flags=lt.create_torrent.v1_only)
    for i in range(ct.num_pieces()):
        ct.set_hash(i, bytes([i + 1]) * 20)
    info = ct.generate()
    info[b"info"][b"name"] = name.encode() + b".bin"
    data = lt.bencode(info)
    return data, str(lt.torrent_info(data).info_hashes().get_best())


@pytest.fixture(scope="module")
def q(tmp_path_factory):
    d = tmp_path_factory.mktemp("push") / "data"
    d.mkdir()
    server = Qbtd(d, extra=["--api-key", KEY]).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def s(q):
    return q.session()


def cookie_header(session):
    return "; ".join(f"{c.name}={c.value}" for c in session.cookies)


def add(q, s, name, **fields):
    data, digest = make_torrent(name)
    r = s.post(q.url("torrents/add"), files={"torrents": (name + ".torrent", data)},
               data={"stopped": "true", "paused": "true", **fields})
    assert r.status_code == 200, r.text
    # Listed before anything is done to it (torrents/add answers before the torrent is there).
    wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": digest}).json(), WAIT, what=f"{name} listed")
    return digest


class SSE:
    """One Server-Sent Events stream over http.client; every read bounded by the socket's timeout."""

    def __init__(self, q, headers=None, rid=None, timeout=WAIT):
        self.conn = http.client.HTTPConnection("127.0.0.1", q.port, timeout=timeout)
        path = EVENTS + (f"?rid={rid}" if rid is not None else "")
        self.conn.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.retry = None
        self.comments = []

    def body(self):
        return self.resp.read(64 * 1024).decode(errors="replace")

    def event(self, deadline=None):
        """The next event as (id, name, data); comments and `retry:` are kept aside. None at the end of the stream."""
        deadline = deadline or time.monotonic() + WAIT
        fields = {}
        data = []
        while time.monotonic() < deadline:
            line = self.resp.readline()
            if not line:
                return None
            line = line.decode().rstrip("\r\n")
            if line == "":
                if data or fields:
                    return fields.get("id"), fields.get("event", "message"), "\n".join(data)
                continue
            if line.startswith(":"):
                self.comments.append(line)
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "retry":
                self.retry = value
            elif name == "data":
                data.append(value)
            else:
                fields[name] = value
        raise AssertionError(f"no complete event within {WAIT} s")

    def maindata(self):
        got = self.event()
        assert got is not None, "the stream ended"
        rid, name, data = got
        assert name == "maindata", got
        answer = json.loads(data)
        assert answer["rid"] == int(rid), (rid, answer.get("rid"))
        return answer

    def until(self, state, predicate, what):
        """Applies events to `state` until `predicate(state)`; returns (state, the last id)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            answer = self.maindata()
            state = apply(state, answer)
            if predicate(state):
                return state, answer["rid"]
        raise AssertionError(f"no event showed {what} within {WAIT} s")

    def close(self):
        self.conn.close()


def same_as_a_poll(q, s, state):
    """What the events built equals a full sync/maindata: the torrents (and their category and tags), the
    categories, the tags."""
    full = s.get(q.url("sync/maindata"), params={"rid": 0}).json()
    assert set(state["torrents"]) == set(full.get("torrents", {}))
    for h, t in full.get("torrents", {}).items():
        assert (state["torrents"][h].get("category"), state["torrents"][h].get("tags")) == (t.get("category"), t.get("tags")), h
    assert state["categories"] == full.get("categories", {})
    assert sorted(state["tags"]) == sorted(full.get("tags", []))


def test_sse_sends_a_full_update_then_diffs(q, s):
    first = add(q, s, "first")
    sse = SSE(q, headers={"Cookie": cookie_header(s)})
    try:
        assert sse.status == 200, sse.body()
        assert sse.resp.getheader("Content-Type", "").startswith("text/event-stream")
        head = sse.resp.readline().decode().rstrip("\r\n")
        assert head == "retry: 2000", head
        answer = sse.maindata()
        assert answer.get("full_update") is True, answer
        state = apply({}, answer)
        if first not in state["torrents"]:   # added a moment ago: the full update or a diff after it shows it
            state, _ = sse.until(state, lambda st: first in st["torrents"], "the first torrent")
        # A torrent added: a diff (not a full update) brings it.
        second = add(q, s, "second")
        state, rid = sse.until(state, lambda st: second in st["torrents"], "the added torrent")
        # A category made and set, a tag set: diffs again.
        s.post(q.url("torrents/createCategory"), data={"category": "films", "savePath": ""}).raise_for_status()
        s.post(q.url("torrents/setCategory"), data={"hashes": first, "category": "films"}).raise_for_status()
        s.post(q.url("torrents/addTags"), data={"hashes": second, "tags": "pushed"}).raise_for_status()
        state, rid = sse.until(state, lambda st: "films" in st["categories"] and "pushed" in st["tags"] and
                               st["torrents"][first].get("category") == "films" and
                               "pushed" in st["torrents"][second].get("tags", ""), "the category and the tag")
        same_as_a_poll(q, s, state)
    finally:
        sse.close()


def test_sse_resumes_from_last_event_id_with_a_diff(q, s):
    sse = SSE(q, headers={"Cookie": cookie_header(s)})
    try:
        answer = sse.maindata()
        state, last = apply({}, answer), answer["rid"]
    finally:
        sse.close()
    # Changed while away; back with Last-Event-ID: a diff from there, not a full update.
    third = add(q, s, "third")
    s.post(q.url("torrents/addTags"), data={"hashes": third, "tags": "away"}).raise_for_status()
    again = SSE(q, headers={"Cookie": cookie_header(s), "Last-Event-ID": str(last)})
    try:
        assert again.status == 200, again.body()
        answer = again.maindata()
        assert not answer.get("full_update"), answer
        state, last = apply(state, answer), answer["rid"]
        if third not in state["torrents"] or "away" not in state["tags"]:   # the change may come in the next event
            state, last = again.until(state, lambda st: third in st["torrents"] and "away" in st["tags"], "the change")
        same_as_a_poll(q, s, state)
    finally:
        again.close()
    # The same with ?rid=.
    by_query = SSE(q, headers={"Cookie": cookie_header(s)}, rid=last)
    try:
        assert not by_query.maindata().get("full_update")
    finally:
        by_query.close()


def test_sse_unknown_rid_gets_a_full_update(q, s):
    for headers, rid in (({"Last-Event-ID": "987654"}, None), ({}, 987654)):
        sse = SSE(q, headers={"Cookie": cookie_header(s), **headers}, rid=rid)
        try:
            assert sse.status == 200, sse.body()
            answer = sse.maindata()
            assert answer.get("full_update") is True, answer
            assert answer["rid"] != 987654
        finally:
            sse.close()


def test_sse_authentication(q, s):
    # No credentials: refused, as other qbtd extension routes.
    bare = SSE(q)
    try:
        assert bare.status == 403, bare.status
    finally:
        bare.close()
    keys = {scope: s.post(q.url("qbtd/createAPIKey"), data={"name": f"push-{scope}", "scope": scope}).json()["key"]
            for scope in ("read-only", "stream", "music", "upload")}
    keys["full"] = KEY
    for scope in ("full", "read-only", "stream"):
        sse = SSE(q, headers={"Authorization": f"Bearer {keys[scope]}"})
        try:
            assert sse.status == 200, (scope, sse.body())
            assert sse.maindata().get("full_update") is True
        finally:
            sse.close()
    for scope in ("music", "upload"):
        sse = SSE(q, headers={"Authorization": f"Bearer {keys[scope]}"})
        try:
            assert sse.status == 403, (scope, sse.status)
            assert "error" in json.loads(sse.body()), scope
        finally:
            sse.close()
    # A wrong key is no key.
    wrong = SSE(q, headers={"Authorization": "Bearer qbt_" + "x" * 28})
    try:
        assert wrong.status == 403, wrong.status
    finally:
        wrong.close()


def ws_url(q, rid=None):
    return q.base.replace("http://", "ws://") + EVENTS + "/ws" + (f"?rid={rid}" if rid is not None else "")


def ws_maindata(ws):
    opcode, data = ws.recv_data(control_frame=False)
    assert opcode == websocket.ABNF.OPCODE_TEXT, opcode
    answer = json.loads(data)
    assert "error" not in answer, answer
    return answer


def test_websocket_sends_the_same(q, s):
    ws = websocket.create_connection(ws_url(q), header=[f"Cookie: {cookie_header(s)}"], timeout=WAIT)
    try:
        answer = ws_maindata(ws)
        assert answer.get("full_update") is True and isinstance(answer["rid"], int)
        state = apply({}, answer)
        fourth = add(q, s, "fourth")
        s.post(q.url("torrents/addTags"), data={"hashes": fourth, "tags": "socket"}).raise_for_status()
        deadline = time.monotonic() + WAIT
        while not (fourth in state["torrents"] and "socket" in state["tags"]):
            assert time.monotonic() < deadline, "no message showed the added torrent and its tag"
            answer = ws_maindata(ws)
            assert not answer.get("full_update"), answer
            state = apply(state, answer)
        same_as_a_poll(q, s, state)
        last = answer["rid"]
    finally:
        ws.close()
    # Resumed with ?rid= and an API key: a diff.
    s.post(q.url("torrents/addTags"), data={"hashes": fourth, "tags": "resumed"}).raise_for_status()
    ws = websocket.create_connection(ws_url(q, last), header=[f"Authorization: Bearer {KEY}"], timeout=WAIT)
    try:
        answer = ws_maindata(ws)
        assert not answer.get("full_update"), answer
        state = apply(state, answer)
        deadline = time.monotonic() + WAIT
        while "resumed" not in state["tags"]:
            assert time.monotonic() < deadline, "no message showed the tag set while away"
            state = apply(state, ws_maindata(ws))
    finally:
        ws.close()
    # An unknown rid: a full update.
    ws = websocket.create_connection(ws_url(q, 987654), header=[f"Authorization: Bearer {KEY}"], timeout=WAIT)
    try:
        assert ws_maindata(ws).get("full_update") is True
    finally:
        ws.close()


def test_websocket_authentication(q, s):
    music = s.post(q.url("qbtd/createAPIKey"), data={"name": "ws-music", "scope": "music"}).json()["key"]
    for header in ([], [f"Authorization: Bearer {music}"]):
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            websocket.create_connection(ws_url(q), header=header, timeout=WAIT)
        # A refused upgrade is Hummingbird's 400, as /music/ws's (no session and a key out of scope alike).
        assert refused.value.status_code == 400, (header, refused.value.status_code)
    # What the SSE route answers the same key, for the error's shape.
    r = requests.get(q.base + EVENTS, headers={"Authorization": f"Bearer {music}"}, timeout=WAIT)
    assert r.status_code == 403 and "error" in r.json()
