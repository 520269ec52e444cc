"""Issue 37, item 6: failover on shared storage. Nodes whose default save path is one shared folder (here one folder
on this machine, as a NAS would be) adopt a lapsed node's torrents from the fast-resume data in PostgreSQL, without a
recheck, and seed on; the node, back, does not take them back, and one that was only frozen lets go of them. (Without
shared storage a lapsed node's torrents stay listed in error naming it: test_cluster.py.)"""
import signal
import time

import libtorrent as lt

from cluster_support import psql
from conftest import free_port, loopback_session, wait_for
from rss_support import make_torrent
from test_cluster import add, running_nodes

MIB = 1 << 20
SEEDING = {"uploading", "stalledUP", "stoppedUP", "queuedUP", "forcedUP"}


def test_a_lapsed_nodes_torrents_are_adopted_from_the_shared_folder_without_a_recheck_and_not_taken_back(tmp_path):
    nas = tmp_path / "nas"
    with running_nodes(tmp_path, "a", "b", extra=["--download-dir", str(nas)]) as (url, (a, b)):
        sa, sb = a.session(), b.session()
        assert (nas / ".qbtd-node-a").exists() and (nas / ".qbtd-node-b").exists()
        data, infohash = make_torrent(nas, "film", size=8 * MIB)
        add(a, sa, data, node="a", category="films", tags="hd")

        def on(q, s):
            found = s.get(q.url("torrents/info"), params={"hashes": infohash}, timeout=5).json()
            return found[0] if found else None

        wait_for(lambda: (on(a, sa) or {}).get("state") in SEEDING, 30, what="whole and seeding on a")
        # Its fast-resume data (every piece) in the catalogue: saved each second in the tests.
        wait_for(lambda: psql(url, f"SELECT resume_data IS NOT NULL FROM torrents WHERE id = '{infohash}'") == [["t"]],
                 10, what="a's fast-resume data stored")
        time.sleep(2)

        a.proc.send_signal(signal.SIGSTOP)  # frozen: silent, its lease lapses, but it still runs the torrent
        try:
            # The last piece spoiled on the shared disk: a recheck would find it, fast-resume data does not look.
            with open(nas / "film" / "film.bin", "r+b") as f:
                f.seek(8 * MIB - 16 * 1024)
                f.write(bytes(16 * 1024))
            t0 = time.monotonic()
            wait_for(lambda: (on(b, sb) or {}).get("node") == "b", 40, interval=0.5, what="b adopting a's torrent")
            adopted_after = time.monotonic() - t0
            wait_for(lambda: on(b, sb)["state"] in SEEDING, 10, what="seeding on b")
            t = on(b, sb)
            assert t["progress"] == 1 and t["category"] == "films" and t["tags"] == "hd", t
            assert t["save_path"].rstrip("/") == str(nas)

            # Seeding resumed: a fresh peer fetches from b (all but the spoiled piece).
            port = free_port()
            leech = loopback_session(port)
            params = lt.add_torrent_params()
            params.ti = lt.torrent_info(lt.bdecode(data))
            params.save_path = str(tmp_path / "leech")
            handle = leech.add_torrent(params)
            # In order, so that the spoiled last piece (whose sender libtorrent then bans) comes last.
            handle.set_flags(lt.torrent_flags.sequential_download)
            wait_for(lambda: leech.is_listening(), 10, what="the peer listening")
            asked = [0.0]

            def fetching():
                if handle.status().num_peers == 0 and time.monotonic() - asked[0] > 3:  # (again: a refused first try)
                    asked[0] = time.monotonic()
                    assert sb.post(b.url("torrents/addPeers"), data={"hashes": infohash, "peers": f"127.0.0.1:{port}"}).ok
                return handle.status().progress > 0.9

            wait_for(fetching, 30, what="a peer fetching from b")
            assert handle.status().progress < 1  # the spoiled piece fails its hash there: b served what the disk holds
        finally:
            a.proc.send_signal(signal.SIGCONT)

        # a, thawed, lets go of what b took over: every node lists it on b; the catalogue says b.
        wait_for(lambda: (on(a, sa) or {}).get("node") == "b", 30, interval=0.5, what="a letting go of the adopted torrent")
        with open(a.log.name, errors="replace") as log:
            assert "let go of 1 torrent(s) other nodes took over while it was silent" in log.read()
        # Restarted, a does not take it back.
        a.stop()
        a.start()
        sa = a.session()
        time.sleep(4)
        assert psql(url, f"SELECT node FROM torrents WHERE id = '{infohash}'") == [["b"]]
        assert on(a, sa)["node"] == "b" and sa.get(a.url("torrents/info"), params={"node": "a"}).json() == []
        print(f"b adopted a's torrent {adopted_after:.1f} s after a froze (lease 6 s), without a recheck; "
              f"a peer fetched {handle.status().progress:.1%} from b (all but the spoiled piece)")
