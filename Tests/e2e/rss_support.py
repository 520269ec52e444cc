"""RSS test helpers: feeds written at test time and served from 127.0.0.1 with ETag validators, and small
generated torrents to put in them."""
import hashlib
import http.server
import os
import threading
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone
from pathlib import Path
from xml.sax.saxutils import escape

import libtorrent as lt


class FeedServer:
    """Serves `pages` (path -> (bytes, content type)); a test may change them between refreshes. Answers 304 to an
    If-None-Match that names the current body's ETag; counts requests and 304s per path; unknown paths are 404."""

    def __init__(self):
        self.pages, self.requests, self.not_modified = {}, {}, {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?")[0]
                server.requests[path] = server.requests.get(path, 0) + 1
                page = server.pages.get(path)
                if page is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body, kind = page
                etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
                if self.headers.get("If-None-Match") == etag:
                    server.not_modified[path] = server.not_modified.get(path, 0) + 1
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", etag)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path):
        return self.base + path

    def put(self, path, body, kind="application/rss+xml"):
        self.pages[path] = (body.encode() if isinstance(body, str) else body, kind)
        return self.url(path)

    def stop(self):
        self.httpd.shutdown()


def rss(title, items, last_build=None):
    """An RSS 2.0 document. `items`: dicts with title, and any of guid, link, enclosure (url), magnet, date
    (datetime), description."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<rss version="2.0"><channel>', f"<title>{escape(title)}</title>",
           "<link>http://127.0.0.1/</link>"]
    if last_build:
        out.append(f"<lastBuildDate>{last_build}</lastBuildDate>")
    for item in items:
        out.append("<item>")
        out.append(f"<title>{escape(item['title'])}</title>")
        if "guid" in item:
            out.append(f"<guid>{escape(item['guid'])}</guid>")
        if "link" in item:
            out.append(f"<link>{escape(item['link'])}</link>")
        if "magnet" in item:
            out.append(f"<link>{escape(item['magnet'])}</link>")
        if "enclosure" in item:
            out.append(f'<enclosure url="{escape(item["enclosure"])}" type="application/x-bittorrent" length="1000"/>')
        if "date" in item:
            out.append(f"<pubDate>{format_datetime(item['date'])}</pubDate>")
        if "description" in item:
            out.append(f"<description>{escape(item['description'])}</description>")
        out.append("</item>")
    out.append("</channel></rss>")
    return "\n".join(out)


def atom(title, entries, base=None):
    """An Atom document. `entries`: dicts with title, id, and any of link (href), updated (datetime), summary, author."""
    base_attribute = f' xml:base="{escape(base)}"' if base else ""
    out = ['<?xml version="1.0" encoding="utf-8"?>', f'<feed xmlns="http://www.w3.org/2005/Atom"{base_attribute}>',
           f"<title>{escape(title)}</title>", "<updated>2026-01-01T00:00:00Z</updated>"]
    for e in entries:
        out.append("<entry>")
        out.append(f"<title>{escape(e['title'])}</title>")
        out.append(f"<id>{escape(e['id'])}</id>")
        if "link" in e:
            out.append(f'<link rel="enclosure" type="application/x-bittorrent" href="{escape(e["link"])}"/>')
        if "updated" in e:
            out.append(f"<updated>{e['updated'].strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>")
        if "summary" in e:
            out.append(f"<summary>{escape(e['summary'])}</summary>")
        if "author" in e:
            out.append(f"<author><name>{escape(e['author'])}</name></author>")
        out.append("</entry>")
    out.append("</feed>")
    return "\n".join(out)


def day(n):
    """A fixed date n days after 2026-01-01, UTC."""
    return datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc) + timedelta(days=n)


def make_torrent(root, name, size=40_000):
    """A v1 single-file torrent of random bytes; returns (bytes, info-hash)."""
    folder = Path(root) / name
    folder.mkdir(parents=True)
    (folder / f"{name}.bin").write_bytes(os.urandom(size))
    fs = lt.file_storage()
    lt.add_files(fs, str(folder))
    ct = lt.create_torrent(fs, 16 * 1024, flags=lt.create_torrent.v1_only)
    lt.set_piece_hashes(ct, str(Path(root)))
    data = lt.bencode(ct.generate())
    return data, str(lt.torrent_info(lt.bdecode(data)).info_hashes().v1)


class ForwardProxy:
    """A plain HTTP forward proxy on 127.0.0.1 that records the absolute URLs it is asked for."""

    def __init__(self):
        import urllib.request
        self.seen = []
        proxy = self
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # straight to the origin

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                proxy.seen.append(self.path)
                request = urllib.request.Request(self.path, headers={k: v for k, v in self.headers.items()
                                                                     if k.lower() not in ("host", "proxy-connection")})
                try:
                    with opener.open(request, timeout=10) as answer:
                        status, headers, body = answer.status, answer.headers.items(), answer.read()
                except urllib.error.HTTPError as e:
                    status, headers, body = e.code, e.headers.items(), e.read()
                self.send_response(status)
                for k, v in headers:
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.port = self.httpd.server_address[1]

    def stop(self):
        self.httpd.shutdown()
