"""Acceptance 2: sync/maindata diffs hold exactly what changed, and applying them rebuilds the full state."""
import copy
import time

from conftest import wait_for

COLLECTIONS = ("torrents", "categories", "trackers")
VOLATILE = {"dlspeed", "upspeed", "eta", "progress", "downloaded", "downloaded_session", "completed", "amount_left",
            "state", "num_seeds", "num_leechs", "time_active", "last_activity", "availability", "seen_complete",
            "reannounce", "ratio", "popularity", "uploaded", "uploaded_session", "completion_on", "num_complete",
            "num_incomplete", "seeding_time", "priority"}


def apply(state, diff):
    """What a client (VueTorrent's maindata store) does with each answer."""
    if diff.get("full_update"):
        state = {k: copy.deepcopy(v) for k, v in diff.items() if k not in ("rid", "full_update")}
        for key in COLLECTIONS:
            state.setdefault(key, {})
        state.setdefault("tags", [])
        return state
    for key in COLLECTIONS:
        for item, fields in diff.get(key, {}).items():
            if key == "trackers":
                state[key][item] = fields
            else:
                state[key].setdefault(item, {}).update(fields)
        for item in diff.get(key + "_removed", []):
            state[key].pop(item, None)
    state["tags"] = [t for t in state["tags"] + diff.get("tags", []) if t not in diff.get("tags_removed", [])]
    state.setdefault("server_state", {}).update(diff.get("server_state", {}))
    return state


class Poller:
    def __init__(self, q, s):
        self.q, self.s, self.rid, self.state, self.diffs = q, s, 0, None, []

    def poll(self):
        diff = self.s.get(self.q.url("sync/maindata"), params={"rid": self.rid}).json()
        before = copy.deepcopy(self.state)
        self.state = apply(self.state or {}, diff)
        self.rid = diff["rid"]
        self.diffs.append(diff)
        if before and not diff.get("full_update"):
            # Only changed fields travel: nothing in a diff equals what the client already had.
            for h, fields in diff.get("torrents", {}).items():
                if h in before["torrents"]:
                    for k, v in fields.items():
                        assert before["torrents"][h].get(k) != v, f"unchanged field {k} sent for {h}"
            for k, v in diff.get("server_state", {}).items():
                assert before["server_state"].get(k) != v, f"unchanged server_state field {k} sent"
        return diff


def stable(state):
    out = copy.deepcopy(state)
    for t in out["torrents"].values():
        for k in VOLATILE:
            t.pop(k, None)
    out.pop("server_state", None)
    return out


def assert_rebuilds(q, poller):
    other = q.session()  # a fresh client gets a full update to compare with
    full = apply({}, other.get(q.url("sync/maindata")).json())
    assert stable(poller.state) == stable(full)
    assert set(poller.state["server_state"]) == set(full["server_state"])


def test_maindata_diffs(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    p = Poller(q, s)
    first = p.poll()
    assert first["full_update"] is True and "torrents" not in first and "server_state" in first

    # Nothing changed: the answer is just the new rid (server_state may move, but only changed fields).
    quiet = p.poll()
    assert set(quiet) <= {"rid", "server_state"} and quiet["rid"] == first["rid"] + 1

    s.post(q.url("torrents/createCategory"), data={"category": "films", "savePath": ""}).raise_for_status()
    s.post(q.url("torrents/createTags"), data={"tags": "keep,drop"}).raise_for_status()
    d = p.poll()
    assert d["categories"] == {"films": {"name": "films", "savePath": ""}}
    assert sorted(d["tags"]) == ["drop", "keep"]

    # Add: the new torrent arrives whole, without its hash field (the hash is the key).
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}, data={"tags": "keep,drop"})
    assert r.text == "Ok."
    d = p.poll()
    new = d["torrents"][seeder.id]
    assert "hash" not in new and new["name"] == "payload" and new["tags"] == "drop, keep" and len(new) > 50
    assert_rebuilds(q, p)

    # Progress: only moving fields travel.
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}).raise_for_status()
    wait_for(lambda: p.poll().get("torrents", {}).get(seeder.id, {}).get("progress", 0) > 0, 30, what="progress in a diff")
    wait_for(lambda: (p.poll(), p.state["torrents"][seeder.id]["progress"] == 1)[1], 60, interval=0.3,
             what="download to finish")
    p.poll()

    # Category change: the field changes, and nothing stable besides it.
    s.post(q.url("torrents/setCategory"), data={"hashes": seeder.id, "category": "films"}).raise_for_status()
    d = p.poll()
    assert d["torrents"][seeder.id]["category"] == "films"
    assert set(d["torrents"][seeder.id]) - VOLATILE <= {"category"}

    # Tag delete: the tag goes from the tag list and from the torrent.
    s.post(q.url("torrents/deleteTags"), data={"tags": "drop"}).raise_for_status()
    d = p.poll()
    assert d["tags_removed"] == ["drop"] and d["torrents"][seeder.id]["tags"] == "keep"
    assert_rebuilds(q, p)

    # Re-sending the older accepted rid gets everything since then, merged.
    accepted = p.rid
    s.post(q.url("torrents/editCategory"), data={"category": "films", "savePath": "films-dir"}).raise_for_status()
    first_try = s.get(q.url("sync/maindata"), params={"rid": accepted}).json()
    again = s.get(q.url("sync/maindata"), params={"rid": accepted}).json()
    assert first_try["categories"]["films"] == {"savePath": "films-dir"} == again["categories"]["films"]
    p.rid = again["rid"]
    p.state = apply(p.state, again)

    # Remove: the hash is listed as removed.
    s.post(q.url("torrents/delete"), data={"hashes": seeder.id, "deleteFiles": "true"}).raise_for_status()
    d = p.poll()
    assert d["torrents_removed"] == [seeder.id] and seeder.id not in p.state["torrents"]
    s.post(q.url("torrents/removeCategories"), data={"categories": "films"}).raise_for_status()
    d = p.poll()
    assert d["categories_removed"] == ["films"]
    assert_rebuilds(q, p)

    # A rid the server never issued means a full update.
    assert s.get(q.url("sync/maindata"), params={"rid": 999999}).json()["full_update"] is True


def test_torrent_peers(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    assert s.get(q.url("sync/torrentPeers"), params={"hash": "0" * 40}).status_code == 404
    s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}, data={"stopped": "true"})
    s.post(q.url("torrents/start"), data={"hashes": seeder.id})
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})

    def peers():
        return s.get(q.url("sync/torrentPeers"), params={"hash": seeder.id}).json().get("peers")

    found = wait_for(peers, 30, what="the seeder in torrentPeers")
    peer = next(iter(found.values()))
    assert peer["ip"] == "127.0.0.1" and peer["connection"] == "BT" and isinstance(peer["progress"], (int, float))
    full = s.get(q.url("sync/torrentPeers"), params={"hash": seeder.id}).json()
    time.sleep(0.2)
    d = s.get(q.url("sync/torrentPeers"), params={"hash": seeder.id, "rid": full["rid"]}).json()
    assert "full_update" not in d and d["rid"] == full["rid"] + 1
