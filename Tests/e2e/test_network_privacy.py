"""Privacy settings that act as they do in qBittorrent: the interface binding, proxies for peers (SOCKS5 with and
without a password, both dialects of proxy_type) and the IP filter files, each against a loopback seeder."""
import json
import time

from conftest import wait_for
from net_fixtures import Socks5Proxy, write_dat, write_p2b, write_p2p


def prefs(s, q, **values):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)})
    assert r.status_code == 200, r.text


def progress(s, q, seeder):
    got = s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json()
    return got[0]["progress"] if got else 0


def start_download(s, q, seeder):
    r = s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)})
    assert r.text == "Ok."
    wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json(), 15, what="the torrent")
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})


def stays_empty(s, q, seeder, seconds):
    """Nothing arrives for `seconds` (peers re-offered now and then, as a tracker would)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert progress(s, q, seeder) == 0, "data arrived where none should"
        s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
        time.sleep(1)


def log_text(s, q):
    return "\n".join(m["message"] for m in s.get(q.url("log/main")).json())


def completes(s, q, seeder, dest, what):
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: progress(s, q, seeder) == 1, 60, what=what)
    seeder.verify(dest)


def test_interface_binding(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    names = [i["value"] for i in s.get(q.url("app/networkInterfaceList")).json()]
    assert "lo" in names
    assert "127.0.0.1" in s.get(q.url("app/networkInterfaceAddressList"), params={"iface": "lo"}).json()

    # Bound to an interface that is not there: no peer traffic at all, never the default route.
    prefs(s, q, current_network_interface="qbtdnosuch0")
    assert s.get(q.url("app/preferences")).json()["current_network_interface"] == "qbtdnosuch0"
    start_download(s, q, seeder)
    stays_empty(s, q, seeder, 20)
    assert 'The configured network interface is invalid. Interface: "qbtdnosuch0"' in log_text(s, q)

    # Bound to lo: the loopback seeder delivers.
    prefs(s, q, current_network_interface="lo")
    completes(s, q, seeder, q.data_dir / "downloads", "the download bound to lo")


def test_socks5_proxy_carries_the_peers(qbtd_factory, seeder):
    with Socks5Proxy() as proxy:
        q = qbtd_factory()
        s = q.session()
        prefs(s, q, proxy_type="SOCKS5", proxy_ip="127.0.0.1", proxy_port=proxy.port, proxy_peer_connections=True)
        start_download(s, q, seeder)
        completes(s, q, seeder, q.data_dir / "downloads", "the download through SOCKS5")
        assert ("127.0.0.1", seeder.port) in proxy.connects
        assert proxy.auths == []


def test_socks5_proxy_with_password_in_the_4x_dialect(qbtd_factory, seeder):
    with Socks5Proxy(username="alice", password="s3cret") as proxy:
        q = qbtd_factory()
        s = q.session()
        # qBittorrent 4.5's numbers: 4 is SOCKS5 with a password.
        prefs(s, q, proxy_type=4, proxy_ip="127.0.0.1", proxy_port=proxy.port, proxy_username="alice",
              proxy_password="s3cret", proxy_peer_connections=True)
        p = s.get(q.url("app/preferences")).json()
        assert (p["proxy_type"], p["proxy_auth_enabled"]) == ("SOCKS5", True)
        start_download(s, q, seeder)
        completes(s, q, seeder, q.data_dir / "downloads", "the download through SOCKS5 with a password")
        assert ("127.0.0.1", seeder.port) in proxy.connects
        assert ("alice", "s3cret") in proxy.auths


def test_proxy_refusing_means_no_direct_connection(qbtd_factory, seeder):
    with Socks5Proxy(username="alice", password="right") as proxy:
        q = qbtd_factory()
        s = q.session()
        prefs(s, q, proxy_type="SOCKS5", proxy_ip="127.0.0.1", proxy_port=proxy.port, proxy_auth_enabled=True,
              proxy_username="alice", proxy_password="wrong", proxy_peer_connections=True)
        start_download(s, q, seeder)
        stays_empty(s, q, seeder, 8)
        assert proxy.auths and proxy.connects == []


def test_ip_filter_files(qbtd_factory, seeder, tmp_path):
    q = qbtd_factory()
    s = q.session()
    dat = tmp_path / "filter.dat"
    assert write_dat(dat, [("10.0.0.0", "10.0.255.255"), ("127.0.0.1", "127.0.0.1")], allowed=[("8.8.8.8", "8.8.8.8")]) == 2
    prefs(s, q, ip_filter_enabled=True, ip_filter_path=str(dat))
    wait_for(lambda: "Successfully parsed the provided IP filter: 2 rules were applied." in log_text(s, q), 10,
             what="the filter's log line")
    start_download(s, q, seeder)
    stays_empty(s, q, seeder, 8)

    # A broken file is a logged error and the last good filter stays.
    broken = tmp_path / "broken.p2b"
    broken.write_bytes(b"\xff\xff\xff\xffP2B\x02truncated")
    prefs(s, q, ip_filter_path=str(broken))
    wait_for(lambda: "Failed to parse the provided IP filter" in log_text(s, q), 10, what="the parse error")
    stays_empty(s, q, seeder, 4)

    # The other two formats block as well.
    for name, writer in (("filter.p2p", write_p2p), ("filter.p2b", write_p2b)):
        path = tmp_path / name
        writer(path, [("127.0.0.0", "127.0.0.255")])
        prefs(s, q, ip_filter_path=str(path))
        wait_for(lambda: log_text(s, q).count("rules were applied") >= (2 if name.endswith("p2p") else 3), 10,
                 what=f"{name} loaded")
        stays_empty(s, q, seeder, 3)

    # Disabled again: the seeder delivers.
    prefs(s, q, ip_filter_enabled=False)
    completes(s, q, seeder, q.data_dir / "downloads", "the download once the filter is off")


def test_banned_ips_on_top_of_the_filter(qbtd_factory, seeder):
    q = qbtd_factory()
    s = q.session()
    prefs(s, q, banned_IPs="127.0.0.1")
    start_download(s, q, seeder)
    stays_empty(s, q, seeder, 5)
    prefs(s, q, banned_IPs="")
    completes(s, q, seeder, q.data_dir / "downloads", "the download once the ban is lifted")


class TorrentSite:
    """A loopback web server handing out one .torrent at /t.torrent."""

    def __init__(self, body):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/x-bittorrent")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/t.torrent"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_torrent_urls_go_through_the_proxy_for_misc(qbtd_factory, seeder):
    from net_fixtures import HttpProxy
    site = TorrentSite(seeder.torrent)
    try:
        with HttpProxy(username="bob", password="pa:ss") as proxy, Socks5Proxy() as socks:
            q = qbtd_factory()
            s = q.session()
            # An HTTP proxy with a password, for "misc" fetches only: the .torrent URL goes through it.
            prefs(s, q, proxy_type="HTTP", proxy_ip="127.0.0.1", proxy_port=proxy.port, proxy_auth_enabled=True,
                  proxy_username="bob", proxy_password="pa:ss", proxy_misc=True, proxy_bittorrent=False)
            assert s.post(q.url("torrents/add"), data={"urls": site.url, "stopped": "true"}).text == "Ok."
            wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json(), 15, what="the URL's torrent")
            assert ("GET", site.url) in proxy.requests and ("bob", "pa:ss") in proxy.auths
            s.post(q.url("torrents/delete"), data={"hashes": seeder.id, "deleteFiles": "false"})
            wait_for(lambda: not s.get(q.url("torrents/info")).json(), 15, what="the delete")

            # SOCKS5 with the names resolved by the proxy.
            prefs(s, q, proxy_type="SOCKS5", proxy_port=socks.port, proxy_auth_enabled=False, proxy_hostname_lookup=True)
            assert s.post(q.url("torrents/add"), data={"urls": site.url, "stopped": "true"}).text == "Ok."
            wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json(), 15, what="the torrent via SOCKS5")
            assert ("127.0.0.1", site.server.server_port) in socks.connects
            s.post(q.url("torrents/delete"), data={"hashes": seeder.id, "deleteFiles": "false"})
            wait_for(lambda: not s.get(q.url("torrents/info")).json(), 15, what="the delete")

            # proxy_misc off: direct, the proxy sees nothing more.
            before = len(socks.connects)
            prefs(s, q, proxy_misc=False)
            assert s.post(q.url("torrents/add"), data={"urls": site.url, "stopped": "true"}).text == "Ok."
            wait_for(lambda: s.get(q.url("torrents/info"), params={"hashes": seeder.id}).json(), 15, what="the direct fetch")
            assert len(socks.connects) == before
    finally:
        site.close()


def test_search_plugins_go_through_a_socks5_proxy(qbtd_factory, seeder, tmp_path):
    from search_fixtures import Site, write_plugin
    site = Site(results=3, torrent=seeder.torrent)
    try:
        with Socks5Proxy(username="carol", password="pw") as socks:
            q = qbtd_factory()
            s = q.session()
            prefs(s, q, proxy_type="SOCKS5", proxy_ip="127.0.0.1", proxy_port=socks.port, proxy_auth_enabled=True,
                  proxy_username="carol", proxy_password="pw", proxy_misc=True)
            assert s.post(q.url("search/installPlugin"), data={"sources": str(write_plugin(tmp_path, "viasocks", site.url))}).status_code == 200
            job = s.post(q.url("search/start"), data={"pattern": "x", "category": "all", "plugins": "viasocks"}).json()["id"]
            wait_for(lambda: s.get(q.url("search/status"), params={"id": job}).json()[0]["status"] == "Stopped", 30,
                     what="the search")
            assert s.get(q.url("search/results"), params={"id": job}).json()["total"] == 3
            port = int(site.url.rsplit(":", 1)[1].split("/")[0])
            assert any(p == port for _, p in socks.connects) and ("carol", "pw") in socks.auths
    finally:
        site.close()
