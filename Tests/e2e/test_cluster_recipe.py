"""Issue 37 (item 9): the README's cluster recipe, run as written but on 127.0.0.1. Three nodes on one fresh
PostgreSQL database, each started as contrib/cluster/qbtd-node.conf starts it (no cluster flags: only the variables of
the shipped contrib/cluster/cluster.env, with the test's database and each node's name), Debian's nginx in front of
them with contrib/nginx/qbtd-cluster.conf (only the addresses swapped), and a client that talks to nginx alone: log
in, add, list, act on another node's torrent, then a node killed. And the node drop-in verified by systemd with
the unit it extends."""
import concurrent.futures
import json
import re
import shutil
import subprocess
from contextlib import contextmanager

import pytest
import requests
import websocket

from cluster_support import fresh_database
from conftest import QBTD, ROOT, Qbtd, free_port, wait_for
from nginx_support import launch
from rss_support import make_torrent

CONF = ROOT / "contrib" / "nginx" / "qbtd-cluster.conf"
DROP_IN = ROOT / "contrib" / "cluster" / "qbtd-node.conf"
CLUSTER_ENV = ROOT / "contrib" / "cluster" / "cluster.env"
UNIT = ROOT / "contrib" / "qbtd.service"
NODES = ("a", "b", "c")
# The nodes' addresses in the shipped nginx recipe, in NODES' order; the first also serves /music.
SHIPPED = ("192.0.2.11:8080", "192.0.2.12:8080", "192.0.2.13:8080")
# As test_cluster.py: nodes count each other lapsed after 6 s of silence, not the default 15 s.
LEASE = "6"


def env_file(path):
    """An EnvironmentFile's variables (KEY=VALUE lines; # comments)."""
    lines = [line.strip() for line in path.read_text().splitlines()]
    return dict(line.split("=", 1) for line in lines if line and not line.startswith(("#", ";")))


@contextmanager
def recipe_nodes(tmp_path):
    """A fresh database and the three nodes, started at once, each seeing every one up; stopped after. As
    test_cluster.py's running_nodes, but started by the environment alone, as the unit starts them: nothing else
    runs qbtd from QBTD_CLUSTER and QBTD_NODE."""
    shipped = env_file(CLUSTER_ENV)
    assert set(shipped) == {"QBTD_CLUSTER", "QBTD_NODE", "QBTD_HOST"}, shipped
    url = fresh_database()
    # QBTD_HOST stays as shipped (0.0.0.0): Qbtd's --host 127.0.0.1 wins over it, as a flag does.
    nodes = [Qbtd(tmp_path / name, env={**shipped, "QBTD_CLUSTER": url, "QBTD_NODE": name, "QBTD_NODE_LEASE": LEASE})
             for name in NODES]
    try:
        for n in nodes:
            n.data_dir.mkdir()
        with concurrent.futures.ThreadPoolExecutor(len(nodes)) as pool:
            list(pool.map(Qbtd.start, nodes))
        for n in nodes:
            s = n.session()
            wait_for(lambda: sorted(x["name"] for x in s.get(n.url("qbtd/nodes")).json() if x["state"] == "up") == list(NODES),
                     15, interval=0.2, what=f"node {n.data_dir.name} seeing every node up")
        yield url, nodes
    finally:
        for n in nodes:
            n.stop()


class ClusterNginx:
    """nginx with contrib/nginx/qbtd-cluster.conf as its http block, the nodes' and the listen addresses swapped for
    the test's; everything else exactly as shipped. Each answer names the nodes nginx tried for it, in order, in a
    header the test adds (X-Test-Upstream: the access log is written after the answer is sent, too late to read)."""

    def __init__(self, prefix, ports):
        self.port = free_port()
        text = CONF.read_text()
        # The test's header reaches every answer only while the recipe adds none of its own (nginx's inheritance).
        assert "listen 80;" in text and "add_header" not in text
        for shipped, port in zip(SHIPPED, ports):
            assert shipped in text
            text = text.replace(shipped, f"127.0.0.1:{port}")
        assert "192.0.2." not in text, "a node's address the test did not swap"
        text = text.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        self.access_log = prefix / "access.log"
        self.proc = launch(prefix, self.port, text, [
            "# For a failure's report.",
            "log_format recipe '$request_method $uri $status $upstream_addr $upstream_status';",
            f"access_log {prefix}/access.log recipe;",
            "add_header X-Test-Upstream $upstream_addr always;"])

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/api/v2/{path}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


def login(proxy, q):
    s = requests.Session()
    r = s.post(proxy.url("auth/login"), data={"username": "admin", "password": q.password}, timeout=10)
    assert (r.status_code, r.text) == (200, "Ok."), (r.status_code, r.text)
    return s


def test_three_nodes_behind_nginx(tmp_path):
    with recipe_nodes(tmp_path) as (_, nodes):
        node_at = {f"127.0.0.1:{n.port}": n.data_dir.name for n in nodes}
        # The proxy trusted once, on one node: preferences are the cluster's.
        r = nodes[0].session().post(nodes[0].url("app/setPreferences"), data={"json": json.dumps(
            {"web_ui_reverse_proxy_enabled": True, "web_ui_reverse_proxies_list": "127.0.0.1"})})
        assert r.status_code == 200
        proxy = ClusterNginx(tmp_path / "nginx", [n.port for n in nodes])
        try:
            run_the_recipe(tmp_path, proxy, nodes, node_at)
        except BaseException:
            print("nginx's access log:\n" + proxy.access_log.read_text()[-4000:])
            raise
        finally:
            proxy.stop()


def run_the_recipe(tmp_path, proxy, nodes, node_at):
    s = login(proxy, nodes[0])

    def tried(r):
        """The nodes nginx tried for this answer, in order: the last one answered it."""
        return [node_at[address] for address in re.findall(r"127\.0\.0\.1:\d+", r.headers["X-Test-Upstream"])]

    # Adds through nginx: two placed by the client (node=), one by a category pinned to a node.
    r = s.post(proxy.url("torrents/createCategory"), data={"category": "films", "savePath": "", "nodes": "c"})
    assert r.status_code == 200, r.text
    placed = {}
    for name, fields in (("alpha", {"node": "a"}), ("bravo", {"node": "b"}), ("charlie", {"category": "films"})):
        data, infohash = make_torrent(tmp_path / "src", name)
        r = s.post(proxy.url("torrents/add"), files={"torrents": (f"{name}.torrent", data)}, data={"stopped": "true", **fields})
        assert (r.status_code, r.text) == (200, "Ok."), (name, r.status_code, r.text)
        placed[infohash] = fields.get("node", "c")
    assert sorted(placed.values()) == ["a", "b", "c"]

    answered = []  # the node that answered each listing, in order

    def listing(session):
        r = session.get(proxy.url("torrents/info"), timeout=10)
        assert r.status_code == 200, (r.status_code, r.text)
        answered.append(tried(r)[-1])
        return {t["hash"]: t for t in r.json()}

    # One client keeps to one node (its session's hash), and gets the same three torrents each time, each on its node.
    for _ in range(5):
        assert {h: t["node"] for h, t in listing(s).items()} == placed
    assert len(set(answered[-5:])) == 1, answered
    home = answered[-1]
    # The same session under 5.2's cookie name (QBT_SID_<port>, what the default profile sets) keeps to the same node.
    sid = s.cookies.get("SID")
    for _ in range(3):
        r = requests.get(proxy.url("torrents/info"), headers={"Cookie": f"QBT_SID_8080={sid}"}, timeout=10)
        assert r.status_code == 200 and {t["hash"] for t in r.json()} == set(placed)
        assert tried(r) == [home], tried(r)
    # Whichever node answers: other clients (other sessions, the same login shared by the cluster) hash to the other
    # nodes, and every node lists the same.
    clients = {home: s}
    for _ in range(30):
        other = login(proxy, nodes[0])
        assert {h: t["node"] for h, t in listing(other).items()} == placed
        clients.setdefault(answered[-1], other)
        if set(clients) == set(NODES):
            break
    assert set(clients) == set(NODES), set(clients)

    # sync/maindata: a full update lists all three; the next poll is a diff, its baseline being on the node it reached.
    r = s.get(proxy.url("sync/maindata"), timeout=10)
    main = r.json()
    assert main["full_update"] and set(main["torrents"]) == set(placed)
    assert tried(r) == [home], tried(r)
    r = s.get(proxy.url("sync/maindata"), params={"rid": main["rid"]}, timeout=10)
    diff = r.json()
    assert not diff.get("full_update"), diff
    assert tried(r) == [home], tried(r)
    # Pushed over the WebSocket too (its own location: an upgrade on a connection of its own).
    ws = websocket.create_connection(f"ws://127.0.0.1:{proxy.port}/api/v2/qbtd/events/ws", header=[f"Cookie: SID={sid}"],
                                     timeout=10)
    try:
        opcode, data = ws.recv_data(control_frame=False)
        pushed = json.loads(data)
        assert pushed["full_update"] and set(pushed["torrents"]) == set(placed), pushed
    finally:
        ws.close()

    # A stream of a torrent of the node the session reaches (its data already on disk): its playback URL is known to
    # that node alone, and a player fetches it without the cookie; nginx passes the others' 404s on until it is found.
    data, streamed = make_torrent(tmp_path / "src", "delta")
    r = s.post(proxy.url("torrents/add"), files={"torrents": ("delta.torrent", data)},
               data={"node": home, "savepath": str(tmp_path / "src")})
    assert (r.status_code, r.text) == (200, "Ok."), (r.status_code, r.text)
    placed[streamed] = home
    wait_for(lambda: listing(s)[streamed]["progress"] == 1, 20, what="the streamed torrent's data checked")
    r = s.post(proxy.url("stream/prepare"), data={"hash": streamed}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)
    playback = r.json()["playbackUrl"]
    assert playback.startswith(f"http://127.0.0.1:{proxy.port}/stream/"), playback
    expected = (tmp_path / "src" / "delta" / "delta.bin").read_bytes()[1000:3000]
    ways = []
    for client in [requests, *clients.values()]:
        r = client.get(playback, headers={"Range": "bytes=1000-2999"}, timeout=30)
        assert r.status_code == 206 and r.content == expected, (r.status_code, r.text[:200])
        ways.append(tried(r))
    assert all(way[-1] == home for way in ways) and any(len(way) > 1 for way in ways), ways

    # The music library is the first node's, whoever asks (the shared session opens it there too).
    for client in clients.values():
        r = client.get(f"http://127.0.0.1:{proxy.port}/music/auth", timeout=10)
        assert r.status_code == 200 and tried(r) == ["a"], (r.status_code, tried(r))

    # An action through nginx on a torrent of another node: run there, listed so at once, and in the next diff.
    theirs = next(h for h, node in placed.items() if node != home)
    r = s.post(proxy.url("torrents/addTags"), data={"hashes": theirs, "tags": "recipe"}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)
    assert listing(s)[theirs]["tags"] == "recipe"
    assert listing(login(proxy, nodes[0]))[theirs]["tags"] == "recipe"
    diff = s.get(proxy.url("sync/maindata"), params={"rid": diff["rid"]}, timeout=10).json()
    assert diff["torrents"][theirs]["tags"] == "recipe", diff

    # The client's node dies. nginx takes its requests to the others at once: the first, a POST, is passed on as the
    # dead node refused the connection (nothing was sent), and the listings that follow come from the others.
    dead = next(n for n in nodes if n.data_dir.name == home)
    dead.kill()
    r = s.post(proxy.url("torrents/addTags"), data={"hashes": theirs, "tags": "after"}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)
    assert len(tried(r)) == 2 and tried(r)[0] == home and tried(r)[1] != home, tried(r)
    its_torrent = next(h for h, node in placed.items() if node == home and h != streamed)
    assert set(listing(s)) == set(placed)
    assert answered[-1] != home
    # A call for the dead node's torrent while its lease runs: left for it to take, withdrawn after 10 s, a 503.
    r = s.post(proxy.url("torrents/addTags"), data={"hashes": its_torrent, "tags": "early"}, timeout=30)
    assert r.status_code == 503 and f"node {home}" in r.text and "did not take the call" in r.text, (r.status_code, r.text)
    # Once the lease has run out, its torrents are listed as `error`, naming it.

    def in_error():
        t = listing(s)[its_torrent]
        return t if t["state"] == "error" else None

    t = wait_for(in_error, 40, interval=1, what=f"node {home}'s torrent listed in error")
    assert f"Node {home}" in t["qbtd_reason"] and "lapsed" in t["qbtd_reason"], t["qbtd_reason"]
    others = {h: t["state"] for h, t in listing(s).items() if placed[h] != home}
    assert len(others) == 2 and set(others.values()) == {"stoppedDL"}, others
    # The session's baseline was on the dead node: the next poll with its rid is a full update, whole and correct.
    main = s.get(proxy.url("sync/maindata"), params={"rid": diff["rid"]}, timeout=10).json()
    assert main["full_update"] and set(main["torrents"]) == set(placed), main
    assert main["torrents"][its_torrent]["state"] == "error"
    # A call for the dead node's torrent now: a 503 at once, naming it; nothing was done. The others' torrents still act.
    r = s.post(proxy.url("torrents/addTags"), data={"hashes": its_torrent, "tags": "late"}, timeout=30)
    assert r.status_code == 503 and f"node {home}" in r.text and "lapsed" in r.text, (r.status_code, r.text)
    assert r.elapsed.total_seconds() < 5, r.elapsed
    assert listing(s)[its_torrent]["tags"] == ""
    r = s.post(proxy.url("torrents/addTags"), data={"hashes": theirs, "tags": "late"}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)
    assert listing(s)[theirs]["tags"] == "after, late, recipe"


def test_the_node_drop_in_verifies_with_the_unit(tmp_path):
    """systemd reads the drop-in beside the unit (a wrong key in it is reported), finds nothing wrong with the pair,
    and the hardening rating is the unit's own."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    unit_text = UNIT.read_text().replace("ExecStart=/usr/local/bin/qbtd", f"ExecStart={QBTD}")
    assert f"ExecStart={QBTD}" in unit_text

    def analyze(drop_in, *command):
        folder = tmp_path / f"units-{len(list(tmp_path.iterdir()))}"
        (folder / "qbtd.service.d").mkdir(parents=True)
        (folder / "qbtd.service").write_text(unit_text)
        if drop_in is not None:
            (folder / "qbtd.service.d" / "node.conf").write_text(drop_in)
        return subprocess.run(["systemd-analyze", *command, str(folder / "qbtd.service")], capture_output=True,
                              text=True, timeout=60)

    drop_in = DROP_IN.read_text()
    assert "EnvironmentFile=/etc/qbtd/cluster.env" in drop_in and "Requires=" not in drop_in
    verify = analyze(drop_in, "verify")
    assert verify.returncode == 0 and verify.stderr.strip() == "", verify.stderr
    wrong = analyze(drop_in + "NoSuchKey=1\n", "verify")
    assert "node.conf" in wrong.stderr and "NoSuchKey" in wrong.stderr, "the drop-in was not read: " + wrong.stderr

    def exposure(drop_in):
        out = analyze(drop_in, "security", "--offline=yes", "--threshold=25")
        assert out.returncode == 0, out.stdout[-2000:]
        return out.stdout.strip().splitlines()[-1]

    with_drop_in, alone = exposure(drop_in), exposure(None)
    print(with_drop_in)
    assert with_drop_in == alone, (with_drop_in, alone)
