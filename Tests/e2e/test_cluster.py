"""qbtd as a node of a cluster (--cluster postgres://… --node NAME): the catalogue in PostgreSQL instead of the SQLite
file, migrated once however many nodes start together, each node restarting with its own torrents."""
import concurrent.futures
import hashlib
import json
import subprocess
import time
from contextlib import contextmanager

import requests

from cluster_support import fresh_database, psql
from conftest import QBTD, Qbtd, free_port, wait_for
from net_fixtures import make_ca_and_cert
from rss_support import make_torrent


# Nodes in tests count each other lapsed after 6 s of silence (they beat every 2 s), not the default 15 s.
LEASE = "6"


@contextmanager
def running_nodes(tmp_path, *names, extra=()):
    """A fresh database and one started node per name on it (`--node NAME`, and `extra`), each seeing every one up,
    stopped after."""
    url = fresh_database()
    nodes = [Qbtd(tmp_path / name, extra=["--cluster", url, "--node", name, "--node-lease", LEASE, *extra]) for name in names]
    try:
        for n in nodes:
            n.data_dir.mkdir()
            n.start()
        for n in nodes:
            s = n.session()
            wait_for(lambda: sorted(x["name"] for x in s.get(n.url("qbtd/nodes")).json() if x["state"] == "up") == sorted(names),
                     15, interval=0.2, what=f"node {n.data_dir.name} seeing every node up")
        yield url, nodes
    finally:
        for n in nodes:
            n.stop()


def listening(base):
    try:
        return requests.get(base + "/", timeout=1).ok
    except requests.RequestException:
        return False


def add(q, s, data, **fields):
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", data)}, data=fields)
    assert r.status_code == 200 and r.text == "Ok.", (r.status_code, r.text)


def test_a_node_keeps_its_catalogue_in_postgresql_and_restarts_with_it(tmp_path):
    url = fresh_database()
    data, infohash = make_torrent(tmp_path / "src", "one")
    q = Qbtd(tmp_path / "a", extra=["--cluster", url, "--node", "a"])
    (tmp_path / "a").mkdir()
    q.start()
    try:
        s = q.session()
        assert s.post(q.url("torrents/createCategory"), data={"category": "films", "savePath": ""}).status_code == 200
        add(q, s, data, category="films", tags="hd", stopped="true")
        wait_for(lambda: len(s.get(q.url("torrents/info")).json()) == 1, 30, what="the torrent listed")
    finally:
        q.stop()
    assert not (tmp_path / "a" / "qbtd.sqlite").exists(), "a node keeps no SQLite file"
    assert psql(url, "SELECT id, node, category FROM torrents") == [[infohash, "a", "films"]]
    assert psql(url, "SELECT name FROM nodes") == [["a"]]

    q.start()
    try:
        s = q.session()
        torrents = s.get(q.url("torrents/info")).json()
        assert [(t["hash"], t["category"], t["tags"]) for t in torrents] == [(infohash, "films", "hd")]
        assert "films" in s.get(q.url("torrents/categories")).json()
    finally:
        q.stop()


def test_nodes_started_together_migrate_once_and_share_the_catalogue(tmp_path):
    url = fresh_database()
    nodes = [Qbtd(tmp_path / name, extra=["--cluster", url, "--node", name]) for name in ("a", "b", "c")]
    for n in nodes:
        n.data_dir.mkdir()
    def launch(n):
        return subprocess.Popen([QBTD, "--data-dir", str(n.data_dir), "--host", "127.0.0.1", "--port", str(n.port),
                                 "--peer-listen", "127.0.0.1:0", "--no-discovery", "--no-utp", "--password", n.password,
                                 *n.extra], stdout=open(n.data_dir / "qbtd.log", "ab"), stderr=subprocess.STDOUT)

    # Started at once: three processes race for the empty database.
    procs = [launch(n) for n in nodes]
    try:
        for i, n in enumerate(nodes):
            for _ in range(3):  # a port free_port() chose can be taken before qbtd binds it (conftest's PortTaken)
                wait_for(lambda: listening(n.base) or procs[i].poll() is not None, 60, what=f"node {n.data_dir.name} to listen")
                log = (n.data_dir / "qbtd.log").read_text(errors="replace")
                if procs[i].poll() is None or "Address already in use" not in log:
                    break
                n.port = free_port()
                n.base = f"http://127.0.0.1:{n.port}"
                procs[i] = launch(n)
            assert procs[i].poll() is None, f"node {n.data_dir.name} exited with {procs[i].poll()}; its log ends: {log[-3000:]}"
        assert psql(url, "SELECT version, name FROM qbtd_migrations ORDER BY version") == [
            ["1", "pg1: the catalogue and its nodes"], ["2", "pg2: the global limits divided between the nodes, each node's lease, categories pinned to nodes, shared sessions"],
            ["3", "pg3: torrents moving between nodes"], ["4", "pg4: the nodes' transfer totals"]]
        # Listening comes before the first heartbeat is written.
        wait_for(lambda: psql(url, "SELECT name FROM nodes ORDER BY name") == [["a"], ["b"], ["c"]], 10, what="three nodes")
        # A password set on one node is the cluster's: another node takes it after its restart.
        a = nodes[0].session()
        r = a.post(nodes[0].url("app/setPreferences"), data={"json": '{"web_ui_password": "cluster-pass-2"}'})
        assert r.status_code == 200
    finally:
        for p in procs:
            p.terminate()
            p.wait(30)
    b = nodes[1]
    b.password = None  # no --password: the stored one, which node a changed
    b.start()
    try:
        b.password = "cluster-pass-2"
        b.session()
    finally:
        b.stop()


def test_cluster_flags_say_what_is_wrong(tmp_path):
    def refused(*args):
        r = subprocess.run([QBTD, "--data-dir", str(tmp_path), *args], capture_output=True, text=True, timeout=60)
        assert r.returncode != 0
        return r.stderr + r.stdout

    assert "postgres://" in refused("--cluster", "mysql://127.0.0.1/x")
    assert "--cluster" in refused("--node", "a")
    assert "--node" in refused("--cluster", "postgres://127.0.0.1/x", "--node", "a b")
    # A database that does not answer: qbtd stops at once, naming it.
    said = refused("--cluster", "postgres://qbtd@127.0.0.1:1/none?sslmode=disable", "--node", "a")
    assert "127.0.0.1" in said or "connect" in said.lower(), said


def test_nodes_list_each_other_with_their_states(tmp_path):
    with running_nodes(tmp_path, "a", "b", "c") as (url, (a, b, c)):
        s = a.session()

        def nodes():
            return {n["name"]: n for n in s.get(a.url("qbtd/nodes")).json()}

        listed = nodes()
        assert sorted(listed) == ["a", "b", "c"]
        assert [n for n in listed if listed[n]["this_node"]] == ["a"]
        assert {n: listed[n]["state"] for n in listed} == {"a": "up", "b": "up", "c": "up"}
        assert listed["b"]["address"] == f"127.0.0.1:{b.port}"
        assert listed["a"]["free_space_on_disk"] > 0 and listed["a"]["save_path"].endswith("/downloads")
        b.stop()  # a clean stop says goodbye
        wait_for(lambda: nodes()["b"]["state"] == "stopped", 15, what="b listed as stopped")
        c.kill()  # silence: lapsed once the 15 s lease runs out
        wait_for(lambda: nodes()["c"]["state"] == "lapsed", 40, interval=1, what="c listed as lapsed")
        assert nodes()["a"]["state"] == "up"


def test_a_process_without_a_cluster_is_a_cluster_of_one(qbtd_factory):
    q = qbtd_factory()
    nodes = q.session().get(q.url("qbtd/nodes")).json()
    assert [(n["state"], n["this_node"], n["address"]) for n in nodes] == [("up", True, f"127.0.0.1:{q.port}")]


def test_any_node_lists_every_nodes_torrents(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()
        one, one_hash = make_torrent(tmp_path / "src", "one")
        two, two_hash = make_torrent(tmp_path / "src", "two")
        add(a, sa, one, category="films", tags="hd", stopped="true")
        add(b, sb, two, stopped="true")

        def listed(q, s):
            return {t["hash"]: t for t in s.get(q.url("torrents/info")).json()}

        # Each node lists both: its own, and the other's as the other published it.
        for q, s in ((a, sa), (b, sb)):
            wait_for(lambda: set(listed(q, s)) == {one_hash, two_hash}, 20, what=f"both torrents listed on {q.data_dir.name}")
        # A node publishes what changed once a second: a listed torrent may show the state it had a moment ago
        # (checkingResumeData, just after its add) for up to a second.
        wait_for(lambda: listed(b, sb)[one_hash]["state"] == "stoppedDL", 10, what="a's torrent stoppedDL on b")
        on_b = listed(b, sb)[one_hash]
        assert (on_b["name"], on_b["category"], on_b["tags"], on_b["state"]) == ("one", "films", "hd", "stoppedDL")
        # qbtd's node: on every torrent of a cluster, and a filter.
        assert {h: t["node"] for h, t in listed(b, sb).items()} == {one_hash: "a", two_hash: "b"}
        assert [t["hash"] for t in sb.get(b.url("torrents/info"), params={"node": "a"}).json()] == [one_hash]
        assert [t["hash"] for t in sb.get(b.url("torrents/info"), params={"category": "films"}).json()] == [one_hash]
        # sync/maindata too, and its diffs: a's torrent removed on a leaves b's next diff.
        main = sb.get(b.url("sync/maindata")).json()
        assert set(main["torrents"]) == {one_hash, two_hash}
        r = sa.post(a.url("torrents/delete"), data={"hashes": one_hash, "deleteFiles": "false"})
        assert r.status_code == 200
        wait_for(lambda: one_hash in sb.get(b.url("sync/maindata"), params={"rid": main["rid"]}).json().get("torrents_removed", []),
                 20, what="the removal in b's diff")
        assert set(listed(b, sb)) == {two_hash}


def test_any_node_acts_on_every_nodes_torrents(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()
        one, one_hash = make_torrent(tmp_path / "src", "one")
        two, two_hash = make_torrent(tmp_path / "src", "two")
        add(a, sa, one, stopped="true")
        add(b, sb, two, stopped="true")
        wait_for(lambda: len(sb.get(b.url("torrents/info")).json()) == 2, 20, what="b lists a's torrent")

        # Reads of a's torrent asked of b are answered by a.
        props = sb.get(b.url("torrents/properties"), params={"hash": one_hash})
        assert props.status_code == 200 and props.json()["save_path"] == sa.get(a.url("torrents/properties"), params={"hash": one_hash}).json()["save_path"]
        files = sb.get(b.url("torrents/files"), params={"hash": one_hash}).json()
        assert [f["name"] for f in files] == ["one/one.bin"]
        assert sb.get(b.url("torrents/trackers"), params={"hash": one_hash}).status_code == 200

        # Actions asked of b for a's torrent happen on a, and b's listing follows.
        assert sb.post(b.url("torrents/createCategory"), data={"category": "films"}).status_code == 200
        r = sb.post(b.url("torrents/setCategory"), data={"hashes": one_hash, "category": "films"})
        assert r.status_code == 200, r.text
        wait_for(lambda: sa.get(a.url("torrents/info"), params={"hashes": one_hash}).json()[0]["category"] == "films", 10,
                 what="the category set on a")
        # One call naming both nodes' torrents reaches both.
        r = sb.post(b.url("torrents/start"), data={"hashes": f"{one_hash}|{two_hash}"})
        assert r.status_code == 200, r.text
        def started(q, s, h):
            return s.get(q.url("torrents/info"), params={"hashes": h}).json()[0]["state"] not in ("stoppedDL", "pausedDL")
        wait_for(lambda: started(a, sa, one_hash) and started(b, sb, two_hash), 15, what="both started")
        # An answer keyed by torrent is one object of both nodes' torrents, for named hashes and for all.
        assert sb.post(b.url("torrents/setDownloadLimit"), data={"hashes": "all", "limit": 204800}).status_code == 200
        for hashes in (f"{one_hash}|{two_hash}", "all"):
            limits = sb.post(b.url("torrents/downloadLimit"), data={"hashes": hashes}).json()
            assert limits == {one_hash: 204800, two_hash: 204800}, (hashes, limits)
        # hashes=all too.
        assert sb.post(b.url("torrents/stop"), data={"hashes": "all"}).status_code == 200
        wait_for(lambda: not started(a, sa, one_hash) and not started(b, sb, two_hash), 15, what="both stopped")
        # An unknown hash is still qBittorrent's 404.
        assert sb.get(b.url("torrents/properties"), params={"hash": "0" * 40}).status_code == 404
        # A category removed through b is gone from a's torrent too (a's listing, and b's of it).
        assert sb.post(b.url("torrents/removeCategories"), data={"categories": "films"}).status_code == 200
        wait_for(lambda: sa.get(a.url("torrents/info"), params={"hashes": one_hash}).json()[0]["category"] == ""
                 and sb.get(b.url("torrents/info"), params={"hashes": one_hash}).json()[0]["category"] == "", 10,
                 what="the removed category gone from a's torrent")
        # torrents/count counts the cluster; setSavePath names its torrents `id` and reaches their node too.
        assert sa.get(a.url("torrents/count")).text == sb.get(b.url("torrents/count")).text == "2"
        moved_to = str(tmp_path / "elsewhere")
        assert sb.post(b.url("torrents/setSavePath"), data={"id": one_hash, "path": moved_to}).status_code == 200
        wait_for(lambda: sa.get(a.url("torrents/info"), params={"hashes": one_hash}).json()[0]["save_path"].rstrip("/")
                 == moved_to, 15, what="the save path set on a through b")

        # A node that is down: a clear 503 naming it, never a silent success.
        a.stop()
        wait_for(lambda: {n["name"]: n["state"] for n in sb.get(b.url("qbtd/nodes")).json()}["a"] == "stopped", 15,
                 what="a stopped")
        time.sleep(6)  # b's own view of a's state comes with its next heartbeat
        r = sb.post(b.url("torrents/start"), data={"hashes": one_hash})
        assert r.status_code == 503 and "node a" in r.text, (r.status_code, r.text)


def test_a_preference_set_on_one_node_applies_on_every_node(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()
        r = sa.post(a.url("app/setPreferences"), data={"json": '{"dl_limit": 1048576, "max_active_downloads": 7}'})
        assert r.status_code == 200
        # Taken and applied on b without a restart: its engine's limit too, not only the stored value.
        wait_for(lambda: sb.get(b.url("transfer/downloadLimit")).text == "1048576", 10, what="b's download limit")
        assert sb.get(b.url("app/preferences")).json()["max_active_downloads"] == 7
        # Categories and tags made on b are a's at once too.
        assert sb.post(b.url("torrents/createCategory"), data={"category": "music", "savePath": ""}).status_code == 200
        assert sb.post(b.url("torrents/createTags"), data={"tags": "flac"}).status_code == 200
        wait_for(lambda: "music" in sa.get(a.url("torrents/categories")).json()
                 and "flac" in sa.get(a.url("torrents/tags")).json(), 10, what="a's categories and tags")


def test_https_switched_on_one_node_switches_every_node(tmp_path):
    """use_https is applied before it is stored (the listener switches, or the change is refused): a node that takes
    it from another runs that step too, so every node answers in the scheme its preferences say."""
    certs = make_ca_and_cert(tmp_path / "certs")

    def speaks(q, scheme):
        try:
            requests.get(f"{scheme}://127.0.0.1:{q.port}/", verify=certs.ca, timeout=3, headers={"Connection": "close"})
            return True
        except requests.RequestException:
            return False

    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa = a.session()
        r = sa.post(a.url("app/setPreferences"), data={"json": json.dumps(
            {"use_https": True, "web_ui_https_cert_path": certs.cert, "web_ui_https_key_path": certs.key})})
        assert r.status_code == 200
        wait_for(lambda: speaks(b, "https") and not speaks(b, "http"), 10, what="b serving HTTPS alone")
        assert speaks(a, "https") and not speaks(a, "http")
        # (verify= on each call: a session's own gives way to REQUESTS_CA_BUNDLE where that is set.)
        sb, base = requests.Session(), f"https://127.0.0.1:{b.port}/api/v2"
        assert sb.post(f"{base}/auth/login", data={"username": "admin", "password": b.password},
                       verify=certs.ca).status_code in (200, 204)
        prefs = sb.get(f"{base}/app/preferences", verify=certs.ca).json()
        assert (prefs["use_https"], prefs["web_ui_https_cert_path"]) == (True, certs.cert)
        # And back, asked of b: a follows.
        assert sb.post(f"{base}/app/setPreferences", data={"json": '{"use_https": false}'},
                       verify=certs.ca).status_code == 200
        wait_for(lambda: speaks(a, "http") and not speaks(a, "https"), 10, what="a serving plain HTTP again")


def test_adds_go_where_the_client_says_and_a_hash_has_one_owner(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()
        wait_for(lambda: len(sa.get(a.url("qbtd/nodes")).json()) == 2, 10, what="both nodes known")
        time.sleep(6)  # a's own view of b comes with its next heartbeat
        one, one_hash = make_torrent(tmp_path / "src", "one")
        # Asked of a, named for b: b runs it, and both list it as b's.
        add(a, sa, one, stopped="true", node="b")
        assert psql(url, f"SELECT node FROM torrents WHERE id = '{one_hash}'") == [["b"]]
        wait_for(lambda: [t["node"] for t in sa.get(a.url("torrents/info")).json()] == ["b"], 10, what="a lists b's torrent")
        # A node that is not up is refused, saying where to look.
        r = sa.post(a.url("torrents/add"), files={"torrents": ("t.torrent", one)}, data={"node": "nowhere"})
        assert r.status_code == 400 and "qbtd/nodes" in r.text
        # The same torrent added on both nodes at once: one of them runs it.
        two, two_hash = make_torrent(tmp_path / "src", "two")
        import threading
        answers = []
        def add_on(q, s):
            answers.append(s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", two)}, data={"stopped": "true"}).text)
        threads = [threading.Thread(target=add_on, args=args) for args in ((a, sa), (b, sb))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(psql(url, f"SELECT node FROM torrents WHERE id = '{two_hash}'")) == 1, answers
        wait_for(lambda: sorted(t["hash"] for t in sb.get(b.url("torrents/info")).json()) == sorted([one_hash, two_hash]), 10,
                 what="b lists each torrent once")


def test_a_dead_nodes_torrents_stay_listed_in_error_until_it_is_back(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()
        one, one_hash = make_torrent(tmp_path / "src", "one")
        add(a, sa, one, stopped="true")

        def on_b():
            listed = sb.get(b.url("torrents/info")).json()
            return listed[0] if listed else None

        wait_for(lambda: on_b() is not None, 10, what="b lists a's torrent")
        a.kill()
        wait_for(lambda: on_b()["state"] == "error", 40, interval=1, what="a's torrent in error on b")
        assert "Node a" in on_b()["qbtd_reason"] and "lapsed" in on_b()["qbtd_reason"]
        a.start()
        wait_for(lambda: on_b()["state"] == "stoppedDL" and on_b()["qbtd_reason"] == "", 30, interval=1,
                 what="a's torrent back on b")


def test_keys_and_the_password_changed_on_one_node_hold_on_every_node_at_once(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa = a.session()
        key = sa.post(a.url("qbtd/createAPIKey"), data={"name": "script"}).json()
        bearer = {"Authorization": f"Bearer {key['key']}"}

        def b_takes_the_key():
            return requests.get(b.url("torrents/info"), headers=bearer, timeout=5).status_code == 200

        wait_for(b_takes_the_key, 10, what="the key made on a opening b")
        assert sa.post(a.url("qbtd/revokeAPIKey"), data={"id": key["id"]}).status_code == 200
        wait_for(lambda: not b_takes_the_key(), 10, what="the key revoked on a refused by b")
        # The password set on a opens b without a restart; the old one no longer does.
        r = sa.post(a.url("app/setPreferences"), data={"json": '{"web_ui_password": "cluster-pass-3"}'})
        assert r.status_code == 200

        def b_login(password):
            r = requests.post(b.url("auth/login"), data={"username": "admin", "password": password}, timeout=5)
            return (r.status_code, r.text) in ((200, "Ok."), (204, ""))

        wait_for(lambda: b_login("cluster-pass-3"), 10, what="b taking the new password")
        assert not b_login(a.password)


def test_one_global_limit_holds_for_the_whole_cluster(tmp_path):
    """Two nodes, each downloading from its own loopback seeder, under a global 4 MiB/s download limit set on one of
    them: the first node divides the limit, the shares add up to the whole, and together they download at the limit
    (make bench's cluster_limits.py measures it over longer). The alternative limits, switched on one node, hold on
    both."""
    from conftest import Seeder
    limit = 4 << 20
    seeders = [Seeder(tmp_path / f"seed-{n}", [160 << 20]) for n in ("a", "b")]
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()
        assert sa.post(a.url("app/setPreferences"), data={"json": f'{{"dl_limit": {limit}, "alt_dl_limit": {limit // 4}}}'}).ok
        for q, s, seeder in ((a, sa, seeders[0]), (b, sb, seeders[1])):
            add(q, s, seeder.torrent, node=q.data_dir.name)
            wait_for(lambda: len(s.get(q.url("torrents/info"), params={"node": q.data_dir.name}).json()) == 1, 10, what="added")
            assert s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}).ok

        def shares():
            return {n["name"]: n["dl_limit_share"] for n in sa.get(a.url("qbtd/nodes")).json()}

        def counter_edge(q, s, torrent):
            """A node's session total (its torrent's: transfer/info sums the cluster's), read just after it changed,
            and when: the total moves once per status update, so reading it at a change (not at any moment) keeps a
            whole interval's lag out of the rate."""
            def total():
                return s.get(q.url("torrents/info"), params={"hashes": torrent}).json()[0]["downloaded_session"]
            first = total()
            for _ in range(100):
                time.sleep(0.05)
                now = total()
                if now != first:
                    return now, time.monotonic()
            raise AssertionError(f"{q.data_dir.name}'s download total did not move in 5 s")

        def node_rate(q, s, torrent, seconds):
            start, t0 = counter_edge(q, s, torrent)
            time.sleep(seconds)
            end, t1 = counter_edge(q, s, torrent)
            return (end - start) / (t1 - t0)

        wait_for(lambda: all(0.4 <= v <= 0.6 for v in shares().values()), 40, interval=1, what="the two nodes sharing the limit")
        time.sleep(3)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            rate = sum(pool.map(lambda qs: node_rate(*qs, 10), ((a, sa, seeders[0].id), (b, sb, seeders[1].id))))
        print(f"two nodes under one {limit >> 20} MiB/s limit: {rate / limit:.3f}× the limit; shares {shares()}")
        assigned = psql(url, "SELECT sum(download), count(*) FROM node_limits")[0]
        assert abs(float(assigned[0]) - 1) < 1e-9 and assigned[1] == "2", assigned
        # The CI run that read the totals at any moment saw 1.107× (a stale start, a fresh end); read at their
        # changes the rate is within the limiters' bursts over 10 s. The 5 % figure is
        # Benchmarks/cluster_limits.py's (3 runs of 30 s).
        assert 0.85 * limit < rate < 1.10 * limit, f"{rate / limit:.3f}× the global limit"

        assert sa.post(a.url("transfer/toggleSpeedLimitsMode")).ok
        wait_for(lambda: sb.get(b.url("transfer/speedLimitsMode")).text == "1", 10, what="b in the alternative mode")
        assert sb.get(b.url("transfer/downloadLimit")).text == str(limit // 4)


def test_the_queueing_limits_hold_for_the_whole_cluster(tmp_path):
    """max_active_downloads is the cluster's: four torrents wanting to download, two on each node, and two slots in
    all; each node gets one. Raised to four, all four run."""
    with running_nodes(tmp_path, "a", "b") as (_, (a, b)):
        sa, sb = a.session(), b.session()
        prefs = '{"queueing_enabled": true, "max_active_downloads": 2, "max_active_torrents": 10, "max_active_uploads": 10}'
        assert sa.post(a.url("app/setPreferences"), data={"json": prefs}).ok
        for i in range(4):
            data, _ = make_torrent(tmp_path / f"src{i}", f"queued-{i}", size=300_000 + i)
            q, s = (a, sa) if i % 2 == 0 else (b, sb)
            add(q, s, data, node=q.data_dir.name)

        def states():
            return sorted((t["node"], t["state"]) for t in sa.get(a.url("torrents/info")).json())

        wait_for(lambda: states() == [("a", "queuedDL"), ("a", "stalledDL"), ("b", "queuedDL"), ("b", "stalledDL")], 40,
                 interval=1, what="one active download on each node")
        assert sb.post(b.url("app/setPreferences"), data={"json": '{"max_active_downloads": 4}'}).ok
        wait_for(lambda: [state for _, state in states()] == ["stalledDL"] * 4, 40, interval=1, what="all four active")


def test_a_category_pinned_to_nodes_places_its_new_torrents_there(tmp_path):
    with running_nodes(tmp_path, "a", "b") as (_, (a, b)):
        sa = a.session()
        r = sa.post(a.url("torrents/createCategory"), data={"category": "films", "savePath": "", "nodes": "b"})
        assert r.status_code == 200, r.text
        assert sa.get(a.url("torrents/categories")).json()["films"]["nodes"] == ["b"]
        r = sa.post(a.url("torrents/editCategory"), data={"category": "films", "savePath": "", "nodes": "b,no/such"})
        assert r.status_code == 400 and "node names" in r.text
        one, one_hash = make_torrent(tmp_path / "src1", "one")
        add(a, sa, one, category="films", stopped="true")
        wait_for(lambda: {t["hash"]: t["node"] for t in sa.get(a.url("torrents/info")).json()}.get(one_hash) == "b", 10,
                 what="the pinned category's torrent on b")
        two, two_hash = make_torrent(tmp_path / "src2", "two")
        add(a, sa, two, category="films", stopped="true", node="a")  # the client's own choice wins
        wait_for(lambda: {t["hash"]: t["node"] for t in sa.get(a.url("torrents/info")).json()}.get(two_hash) == "a", 10,
                 what="node=a winning over the category's pin")
        b.stop()
        wait_for(lambda: [n["state"] for n in sa.get(a.url("qbtd/nodes")).json() if n["name"] == "b"] == ["stopped"], 10,
                 what="b stopped")
        three, _ = make_torrent(tmp_path / "src3", "three")
        r = sa.post(a.url("torrents/add"), files={"torrents": ("t.torrent", three)}, data={"category": "films"})
        assert r.status_code == 503 and "pinned to node(s) b" in r.text, (r.status_code, r.text)


def test_the_web_interface_shows_each_torrents_node_and_filters_by_node(tmp_path):
    """In a real (headless) chromium: a cluster's list has a Node column and a Nodes filter with counts (a single
    server shows neither: test_webui_torrents). Screenshot: `torrents-cluster`."""
    from browser import clickable, console_errors, go, login, open_browser, screenshot, wait
    from test_webui_torrents import count_text, row_names, tiny_torrent
    with running_nodes(tmp_path, "a", "b") as (_, (a, b)):
        sa = a.session()
        for name, node in (("alpha", "a"), ("bravo", "b"), ("charlie", "b")):
            add(a, sa, tiny_torrent(name), stopped="true", node=node)
        wait_for(lambda: len(sa.get(a.url("torrents/info")).json()) == 3, 15, what="three torrents listed on a")
        driver = open_browser()
        try:
            login(driver, a)
            go(driver, "torrents")
            wait(driver, lambda d: count_text(d) == "3 torrents")
            nodes = driver.execute_script(
                "return [...document.querySelectorAll('#torrent-list .tl-row')].filter(r => r.offsetParent)"
                ".map(r => [r.querySelector('.c-name').textContent, r.querySelector('.c-node').textContent])")
            assert nodes == [["alpha", "a"], ["bravo", "b"], ["charlie", "b"]]
            assert driver.execute_script("return document.querySelector('.tl-head .c-node').offsetParent !== null")
            clickable(driver, "[data-filter='node'][data-value='b']").click()
            wait(driver, lambda d: row_names(d) == ["bravo", "charlie"] and count_text(d) == "2 of 3 torrents")
            counts = driver.execute_script(
                "return [...document.querySelectorAll(\"[data-filter='node']\")].map(b => [b.dataset.value, b.querySelector('.tf-count').textContent])")
            assert counts == [["*", "3"], ["a", "1"], ["b", "2"]]
            screenshot(driver, "torrents-cluster")
            clickable(driver, "[data-filter='node'][data-value='*']").click()
            wait(driver, lambda d: len(row_names(d)) == 3)
            assert console_errors(driver) == []
        finally:
            driver.quit()


def test_a_login_on_one_node_opens_every_node_and_a_logout_closes_them(tmp_path):
    """A session is the cluster's: the SID a node's login set opens the others (each node's own cookie name, as a
    client behind one address sends it), rid diffs included; a logout on any node ends it on all at once."""
    with running_nodes(tmp_path, "a", "b", "c") as (url, (a, b, c)):
        s = requests.Session()
        r = s.post(a.url("auth/login"), data={"username": "admin", "password": a.password}, timeout=5)
        assert r.status_code == 200 and r.text == "Ok.", (r.status_code, r.text)
        sid = s.cookies.get("SID")
        digest = hashlib.sha256(sid.encode()).hexdigest()
        kept = [row[0] for row in psql(url, "SELECT digest FROM web_sessions")]
        assert digest in kept and sid not in kept, "the database keeps the session's digest only"

        def status(node, path="torrents/info"):
            return requests.get(node.url(path), cookies={"SID": sid}, timeout=5).status_code

        assert [status(n) for n in (b, c, a)] == [200, 200, 200]
        full = requests.get(b.url("sync/maindata"), cookies={"SID": sid}, timeout=5).json()
        assert full["full_update"] and "server_state" in full
        assert requests.get(c.url("sync/maindata"), params={"rid": full["rid"]}, cookies={"SID": sid}, timeout=5).ok
        assert requests.get(b.url("torrents/info"), cookies={"SID": "x" * 32}, timeout=5).status_code == 403
        assert requests.post(c.url("auth/logout"), cookies={"SID": sid}, timeout=5).ok
        wait_for(lambda: [status(n) for n in (a, b, c)] == [403, 403, 403], 5, interval=0.2,
                 what="the session ended on every node")
        assert digest not in [row[0] for row in psql(url, "SELECT digest FROM web_sessions")]


def test_transfer_figures_are_the_clusters_and_each_node_keeps_its_own_all_time_totals(tmp_path):
    """transfer/info and server_state show the whole cluster's rates and totals on every node (one qBittorrent): a
    node without torrents shows another node's download. Each node stores its all-time totals under its own name and
    adds the others' (the nodes once wrote one shared key in turn, and a node restarted from whichever wrote last)."""
    from conftest import Seeder
    size = 6 << 20
    seeder = Seeder(tmp_path / "seed", [size], upload_limit=1 << 20)  # about 6 s: a's figures are read meanwhile
    with running_nodes(tmp_path, "a", "b") as (url, (a, b)):
        sa, sb = a.session(), b.session()

        def server_state(q, s):
            return s.get(q.url("sync/maindata")).json()["server_state"]

        add(b, sb, seeder.torrent, node="b")
        wait_for(lambda: len(sb.get(b.url("torrents/info"), params={"node": "b"}).json()) == 1, 10, what="added on b")
        assert sb.post(b.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer}).ok
        wait_for(lambda: sa.get(a.url("transfer/info")).json()["dl_info_speed"] > 0
                 and server_state(a, sa)["dl_info_speed"] > 0, 10, what="a showing b's rate")
        wait_for(lambda: sb.get(b.url("torrents/info"), params={"hashes": seeder.id}).json()[0]["progress"] == 1, 60,
                 what="b's download")
        # b's heartbeat carries its totals (every 2 s here).
        wait_for(lambda: sa.get(a.url("transfer/info")).json()["dl_info_data"] >= size, 10, what="a showing b's total")
        wait_for(lambda: server_state(a, sa)["alltime_dl"] >= size, 10, what="a showing b's all-time total")
        b.stop()  # its totals stored as it stops
        stored = dict(psql(url, "SELECT key, value FROM preferences WHERE key LIKE 'qbtd_alltime_%'"))
        b_total = int(stored.get("qbtd_alltime_dl@b", 0))
        assert b_total >= size, stored
        assert int(stored.get("qbtd_alltime_dl@a", 0)) < size and "qbtd_alltime_dl" not in stored, stored
        a.stop()
        a.start()
        sa = a.session()
        # Its own total from its own key (b's counted once, from b's last heartbeat), and b's session over.
        wait_for(lambda: b_total <= server_state(a, sa)["alltime_dl"] < b_total + size // 2, 10, what="a counting b's once")
        assert sa.get(a.url("transfer/info")).json()["dl_info_data"] < size
        b.start()
        sb = b.session()
        wait_for(lambda: b_total <= server_state(b, sb)["alltime_dl"] < b_total + size // 2, 10, what="b counting its own once")


def test_reads_follow_writes_across_nodes(tmp_path):
    """A change answered by one node shows at once on any other: no waiting for the next publication."""
    with running_nodes(tmp_path, "a", "b", "c") as (_, (a, b, c)):
        sa, sb, sc = a.session(), b.session(), c.session()
        for i in range(3):
            data, infohash = make_torrent(tmp_path / f"src{i}", f"ryw-{i}")
            add(a, sa, data, stopped="true", node="a" if i % 2 == 0 else "c")
            assert infohash in [t["hash"] for t in sb.get(b.url("torrents/info")).json()], "added, not yet listed on b"
            assert sc.post(c.url("torrents/setCategory"), data={"hashes": infohash, "category": ""}).ok
            assert sc.post(c.url("torrents/addTags"), data={"hashes": infohash, "tags": f"t{i}"}).ok
            listed = {t["hash"]: t for t in sb.get(b.url("torrents/info")).json()}
            assert listed[infohash]["tags"] == f"t{i}", "tagged on c, not yet so on b"
            assert sb.post(b.url("torrents/delete"), data={"hashes": infohash, "deleteFiles": "false"}).ok
            assert infohash not in [t["hash"] for t in sa.get(a.url("torrents/info")).json()], "deleted on b, still on a"


def test_categories_made_or_removed_on_one_node_are_so_on_another_at_once(tmp_path):
    """A category or tag made through one node is known at once through another (a torrent can be put in it there),
    and one removed is gone at once (made again without a 409): the catalogue's notification may come later."""
    with running_nodes(tmp_path, "a", "b") as (_, (a, b)):
        sa, sb = a.session(), b.session()
        data, infohash = make_torrent(tmp_path / "src", "labels")
        add(b, sb, data, stopped="true", node="b")
        for i in range(25):
            name = f"c{i % 3}"
            r = sa.post(a.url("torrents/createCategory"), data={"category": name, "savePath": ""})
            assert r.status_code == 200, (i, "made on a", r.status_code, r.text)
            r = sb.post(b.url("torrents/setCategory"), data={"hashes": infohash, "category": name})
            assert r.status_code == 200, (i, "made on a, unknown on b", r.status_code, r.text)
            assert name in sb.get(b.url("torrents/categories")).json(), (i, "made on a, not listed on b")
            r = sa.post(a.url("torrents/createTags"), data={"tags": f"t{i}"})
            assert r.ok and f"t{i}" in sb.get(b.url("torrents/tags")).json(), (i, "tag made on a, not listed on b")
            r = sa.post(a.url("torrents/removeCategories"), data={"categories": name})
            assert r.status_code == 200, (i, r.status_code, r.text)
            assert name not in sb.get(b.url("torrents/categories")).json(), (i, "removed on a, still listed on b")
            r = sb.post(b.url("torrents/createCategory"), data={"category": name, "savePath": ""})
            assert r.status_code == 200, (i, "removed on a, still known on b", r.status_code, r.text)
            assert sb.post(b.url("torrents/removeCategories"), data={"categories": name}).ok
            # The torrent's own category follows on its node (b) as its labels are read again.
            wait_for(lambda: [t["category"] for t in sb.get(b.url("torrents/info"), params={"hashes": infohash}).json()] == [""],
                     10, what=f"the torrent out of the removed {name} on b")
        assert not sa.get(a.url("torrents/categories")).json() and not sb.get(b.url("torrents/categories")).json()


def test_live_updates_resumed_on_another_node_start_with_a_full_update(tmp_path):
    """`qbtd/events` behind a balancer: a stream that reconnects to another node resumes from the last event's number,
    which that node must not read as one of its own (each process's numbers start at a random point): a full update,
    with the torrent added meanwhile (seen through nginx by test_cluster_recipe's author: `{"rid": 1}` before)."""
    from test_push import SSE, cookie_header
    data, infohash = make_torrent(tmp_path / "src", "pushed")
    with running_nodes(tmp_path, "a", "b") as (_, (a, b)):
        sa = a.session()
        on_a = SSE(a, headers={"Cookie": cookie_header(sa)})
        try:
            first = on_a.maindata()
        finally:
            on_a.close()
        add(a, sa, data, stopped="true")
        sb = b.session()
        wait_for(lambda: sb.get(b.url("torrents/info")).json(), 10, what="listed on b")
        on_b = SSE(b, headers={"Cookie": cookie_header(sb), "Last-Event-ID": str(first["rid"])})
        try:
            resumed = on_b.maindata()
        finally:
            on_b.close()
        assert resumed.get("full_update") is True and infohash in resumed["torrents"], resumed
