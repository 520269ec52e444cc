"""Issue 37, item 4: `qbtd/moveToNode` moves whole torrents between a cluster's nodes, carried by BitTorrent between
the nodes' move sessions (each piece verified), through either node's SIGKILL midway, keeping the torrent's category,
tags, limits and history, listed exactly once on every node throughout."""
import hashlib
import os
import time

import requests

from rss_support import make_torrent
from test_cluster import add, running_nodes
from conftest import wait_for

MIB = 1 << 20
SEEDING = {"uploading", "stalledUP", "stoppedUP", "queuedUP", "forcedUP"}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(MIB), b""):
            h.update(block)
    return h.hexdigest()


def save_path(q, s):
    return next(n["save_path"] for n in s.get(q.url("qbtd/nodes")).json() if n["this_node"])


class Watch:
    """Lists the torrent on every node after each step: it must be there exactly once, on one node."""

    def __init__(self, nodes, infohash):
        self.nodes, self.infohash, self.seen = nodes, infohash, []

    def look(self):
        for q, s in self.nodes:
            if q.proc is None or q.proc.poll() is not None:
                continue
            try:
                listing = s.get(q.url("torrents/info"), timeout=5).json()
            except requests.RequestException:
                continue  # a node being killed
            mine = [t for t in listing if t["hash"] == self.infohash]
            assert len(mine) == 1, f"{q.data_dir.name} lists {len(mine)} copies of the moving torrent: {mine}"
            self.seen.append((q.data_dir.name, mine[0]["node"], mine[0]["state"]))
        return True


def moves(q, s):
    return s.get(q.url("qbtd/moves"), timeout=5).json()


def test_a_whole_torrent_moves_to_another_node_through_the_targets_kill_and_back_through_the_sources(tmp_path):
    # 3 MiB/s for 24 MiB: about 8 s of moving, time to kill a node midway.
    with running_nodes(tmp_path, "a", "b", extra=["--move-rate-limit", "3072"]) as (url, (a, b)):
        sa, sb = a.session(), b.session()
        folder_a, folder_b = save_path(a, sa), save_path(b, sb)
        assert folder_a != folder_b
        data, infohash = make_torrent(folder_a, "film", size=24 * MIB)
        original = sha256(f"{folder_a}/film/film.bin")
        assert sa.post(a.url("torrents/createCategory"), data={"category": "films", "savePath": ""}).ok
        add(a, sa, data, node="a", category="films", tags="hd")
        wait_for(lambda: any(t["hash"] == infohash and t["state"] in SEEDING for t in sa.get(a.url("torrents/info")).json()),
                 30, what="the torrent whole on a")
        assert sa.post(a.url("torrents/setUploadLimit"), data={"hashes": infohash, "limit": 123456}).ok
        before = sa.get(a.url("torrents/info"), params={"hashes": infohash}).json()[0]

        # What a move refuses: an unknown node, a torrent that has not every piece, hashes that are none.
        r = sb.post(b.url("qbtd/moveToNode"), data={"hashes": infohash, "node": "nowhere"})
        assert r.status_code == 400 and "nowhere" in r.json()["error"], r.text
        partial, partial_hash = make_torrent(tmp_path / "elsewhere", "partial", size=MIB)
        add(a, sa, partial, node="a", stopped="true")
        wait_for(lambda: any(t["hash"] == partial_hash for t in sb.get(b.url("torrents/info")).json()), 10, what="listed on b")
        r = sb.post(b.url("qbtd/moveToNode"), data={"hashes": f"{infohash}|{partial_hash}", "node": "b"})
        assert r.status_code == 409 and "partial" in r.json()["error"], r.text
        assert moves(b, sb) == []
        r = sb.post(b.url("qbtd/moveToNode"), data={"hashes": "xyz", "node": "b"})
        assert r.status_code == 400, r.text

        # Asked on b, moved from a to b; b killed midway and started again: the move resumes from what b has.
        r = sb.post(b.url("qbtd/moveToNode"), data={"hashes": infohash, "node": "b", "deleteFiles": "true"})
        assert r.status_code == 200 and r.json() == {"moving": [infohash], "skipped": []}, r.text
        watch = Watch([(a, sa), (b, sb)], infohash)
        wait_for(lambda: watch.look() and any(m["progress"] > 0.2 for m in moves(a, sa)), 30, interval=0.2,
                 what="the move a fifth done")
        b.kill()
        progress_at_kill = max(m["progress"] for m in moves(a, sa))
        watch.look()
        b.start()
        sb = b.session()
        watch.nodes = [(a, sa), (b, sb)]

        def moved():
            watch.look()
            on_a = sa.get(a.url("torrents/info"), params={"hashes": infohash}).json()
            on_b = sb.get(b.url("torrents/info"), params={"hashes": infohash}).json()
            return on_a and on_b and on_a[0]["node"] == on_b[0]["node"] == "b" and on_b[0]["state"] in SEEDING \
                and moves(a, sa) == []

        resumed = []
        wait_for(lambda: (resumed.append(max([m["progress"] for m in moves(a, sa)] or [1])) or True) and moved(),
                 60, interval=0.2, what="the torrent moved to b and the move forgotten")
        assert min(resumed) >= progress_at_kill - 0.02, (resumed, progress_at_kill)  # from what b had, not from the start
        assert {node for _, node, _ in watch.seen} == {"a", "b"}, watch.seen
        assert sha256(f"{folder_b}/film/film.bin") == original
        wait_for(lambda: not os.path.exists(f"{folder_a}/film/film.bin"), 10, what="a's copy deleted")
        after = sa.get(a.url("torrents/info"), params={"hashes": infohash}).json()[0]
        for field in ("category", "tags", "up_limit", "added_on", "name", "size"):
            assert after[field] == before[field], (field, before[field], after[field])
        assert after["save_path"].rstrip("/") == folder_b.rstrip("/")
        print(f"moved 24 MiB from a to b through b's kill at {progress_at_kill:.0%}: {len(watch.seen)} listings, "
              f"each with the torrent once")

        # And back, asked on a, with the source (b) killed midway: a fetches again once b is back.
        r = sa.post(a.url("qbtd/moveToNode"), data={"hashes": infohash, "node": "a"})
        assert r.status_code == 200 and r.json()["moving"] == [infohash], r.text
        wait_for(lambda: watch.look() and any(m["progress"] > 0.2 for m in moves(a, sa)), 30, interval=0.2,
                 what="the move back a fifth done")
        b.kill()
        watch.look()
        time.sleep(1)
        b.start()
        sb = b.session()
        watch.nodes = [(a, sa), (b, sb)]

        def back():
            watch.look()
            on_a = sa.get(a.url("torrents/info"), params={"hashes": infohash}).json()
            return on_a and on_a[0]["node"] == "a" and on_a[0]["state"] in SEEDING and moves(a, sa) == []

        wait_for(back, 60, interval=0.2, what="the torrent moved back to a")
        assert sha256(f"{folder_a}/film/film.bin") == original
        assert sha256(f"{folder_b}/film/film.bin") == original  # kept: deleteFiles was not asked
        wait_for(lambda: watch.look() and sb.get(b.url("torrents/info"), params={"hashes": infohash}).json()[0]["node"] == "a",
                 10, what="b listing it on a")


def test_the_web_interface_moves_torrents_to_another_node(tmp_path):
    """In a real (headless) chromium: the Node… action (a cluster's only) moves the selected torrent to the node
    chosen; its row shows the new node once the move switched. Screenshot: `torrents-move-to-node`."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from browser import clickable, console_errors, go, login, open_browser, screenshot, visible, wait
    from test_webui_torrents import count_text, dialog_button, row
    with running_nodes(tmp_path, "a", "b") as (_, (a, b)):
        sa = a.session()
        data, infohash = make_torrent(save_path(a, sa), "clip", size=2 * MIB)
        add(a, sa, data, node="a")
        wait_for(lambda: any(t["hash"] == infohash and t["state"] in SEEDING for t in sa.get(a.url("torrents/info")).json()),
                 30, what="the torrent whole on a")
        driver = open_browser()
        try:
            login(driver, a)
            go(driver, "torrents")
            wait(driver, lambda d: count_text(d) == "1 torrent")
            row(driver, "clip").click()
            clickable(driver, "#btn-node").click()
            Select(visible(driver, "#node-select")).select_by_visible_text("b")
            screenshot(driver, "torrents-move-to-node")
            dialog_button(driver, "move").click()
            wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"))
            wait_for(lambda: sa.get(a.url("torrents/info")).json()[0]["node"] == "b", 30, what="the torrent moved to b")
            wait(driver, lambda d: d.execute_script(
                "return [...document.querySelectorAll('#torrent-list .tl-row')].filter(r => r.offsetParent)"
                ".map(r => r.querySelector('.c-node').textContent)") == ["b"])
            assert console_errors(driver) == []
        finally:
            driver.quit()
