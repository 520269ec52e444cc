"""Issue 40: a big library's listings (more than 2,000 torrents) are sent as they are made, from the shared rows, and
gzipped as they go: `Transfer-Encoding: chunked`, no `Content-Length`, and the same JSON a small listing has."""
import hashlib
import json

import requests

from conftest import wait_for

COUNT = 2100


def test_big_listings_are_streamed_and_whole(qbtd_factory):
    q = qbtd_factory()
    s = q.session()
    hashes = sorted(hashlib.sha1(f"big-{i}".encode()).hexdigest() for i in range(COUNT))
    for start in range(0, COUNT, 500):
        urls = "\n".join(f"magnet:?xt=urn:btih:{h}&dn=item-{h[:8]}" for h in hashes[start:start + 500])
        r = s.post(q.url("torrents/add"), data={"urls": urls, "paused": "true", "stopped": "true"}, timeout=120)
        assert r.status_code == 200, r.text
    wait_for(lambda: len(s.get(q.url("torrents/info"), timeout=60).json()) == COUNT, 120, what=f"{COUNT} torrents listed")

    gz = s.get(q.url("torrents/info"), headers={"Accept-Encoding": "gzip"}, timeout=60)
    assert gz.status_code == 200
    assert gz.headers.get("Content-Encoding") == "gzip", gz.headers
    assert gz.headers.get("Transfer-Encoding") == "chunked" and "Content-Length" not in gz.headers, gz.headers
    assert gz.headers.get("Content-Type") == "application/json"
    rows = gz.json()
    assert sorted(t["hash"] for t in rows) == hashes

    plain = s.get(q.url("torrents/info"), headers={"Accept-Encoding": "identity"}, timeout=60)
    assert "Content-Encoding" not in plain.headers and plain.headers.get("Transfer-Encoding") == "chunked"
    assert [t["hash"] for t in plain.json()] == [t["hash"] for t in rows]

    # Sorted and paged from the same listing.
    by_name = s.get(q.url("torrents/info"), params={"sort": "name"}, timeout=60).json()
    page = s.get(q.url("torrents/info"), params={"sort": "name", "limit": 10, "offset": 5}, timeout=60).json()
    assert [t["hash"] for t in page] == [t["hash"] for t in by_name[5:15]]
    assert s.get(q.url("torrents/info"), params={"filter": "completed"}, timeout=60).json() == []

    head = s.head(q.url("torrents/info"), timeout=60)
    assert head.status_code == 200 and head.content == b""

    full = s.get(q.url("sync/maindata"), headers={"Accept-Encoding": "gzip"}, timeout=60)
    assert full.headers.get("Transfer-Encoding") == "chunked"
    data = full.json()
    assert data["full_update"] is True and sorted(data["torrents"]) == hashes
    assert all("hash" not in t for t in data["torrents"].values())
    assert {"server_state", "rid"} <= data.keys()  # empty collections are left out of a full update, as qBittorrent
    # The next poll with that rid is a small diff, not another listing.
    diff = s.get(q.url("sync/maindata"), params={"rid": data["rid"]}, timeout=60)
    assert "Transfer-Encoding" not in diff.headers and len(diff.content) < 100_000
    assert "full_update" not in diff.json()

    # A client that reads a listing slowly holds only its own lane: another client's poll is answered meanwhile.
    slow = requests.get(q.url("torrents/info"), cookies=s.cookies, stream=True, timeout=60)
    chunks = slow.iter_content(64 * 1024)
    first = next(chunks)
    assert first.startswith(b"[")
    other = q.session()
    assert other.get(q.url("sync/maindata"), params={"rid": 0}, timeout=30).status_code == 200
    assert len(json.loads(first + b"".join(chunks))) == COUNT
