"""Search fixtures shared by the search tests and the differential search flow: a results site on 127.0.0.1,
nova3 plugin files written for the tests, and a Torznab indexer answering as Jackett does."""
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Site:
    """An HTTP server on 127.0.0.1: `/search` lists results as JSON, `/t/<n>.torrent` serves torrent files,
    `/torznab/api` answers Torznab searches. Every request's query is remembered in `requests`."""

    def __init__(self, results=25, torrent=None):
        self.torrent = torrent
        self.count = results
        self.requests = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                site.requests.append((url.path, query))
                if url.path == "/search":
                    body, kind = json.dumps(site.results(query.get("q", ""))).encode(), "application/json"
                elif url.path.startswith("/t/") and site.torrent:
                    body, kind = site.torrent, "application/x-bittorrent"
                elif url.path == "/torznab/api":
                    if query.get("apikey") != "secret":
                        body = b'<?xml version="1.0"?><error code="100" description="Invalid API Key"/>'
                    else:
                        body = site.torznab(query.get("q", ""))
                    kind = "application/rss+xml"
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def results(self, q):
        words = urllib.parse.unquote(q)
        return [{"link": f"{self.url}/t/{i}.torrent", "name": f"{words} result {i} | piped", "size": f"{i + 1}.5 MB",
                 "seeds": 100 - i, "leech": i, "engine_url": None, "desc_link": f"{self.url}/d/{i}",
                 "pub_date": 1700000000 + i} for i in range(self.count)]

    def torznab(self, q):
        items = "".join(f"""<item><title>{q} indexer {i}</title><guid>{self.url}/details/{i}</guid>
            <link>{self.url}/t/{i}.torrent</link><comments>{self.url}/details/{i}</comments>
            <pubDate>Mon, 02 Jan 2006 15:04:0{i} +0000</pubDate><size>{(i + 1) * 1048576}</size>
            <enclosure url="{self.url}/t/{i}.torrent" length="{(i + 1) * 1048576}" type="application/x-bittorrent"/>
            <torznab:attr name="category" value="5030"/><torznab:attr name="seeders" value="{10 + i}"/>
            <torznab:attr name="peers" value="{20 + i}"/></item>""" for i in range(3))
        return (f'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
                f'xmlns:torznab="http://torznab.com/schemas/2015/feed"><channel><title>fixture</title>{items}'
                f'</channel></rss>').encode()

    def close(self):
        self.server.shutdown()


PLUGIN = '''#VERSION: 1.{minor}
# A nova3 engine written for qbtd's tests: it asks the local site and prints what it answers.
import json

from helpers import retrieve_url
from novaprinter import prettyPrinter


class {name}(object):
    url = "{url}"
    name = "{full_name}"
    supported_categories = {{"all": "0", "movies": "6", "tv": "4"}}

    def search(self, what, cat="all"):
        {body}
'''

GOOD_BODY = '''for item in json.loads(retrieve_url(self.url + "/search?q=" + what + "&cat=" + cat)):
            item["engine_url"] = self.url
            prettyPrinter(item)'''

# One good result first, then the misbehaviour.
HANG_BODY = '''import time
        prettyPrinter({"link": self.url + "/t/h.torrent", "name": "hang ok", "size": "1 KB", "seeds": 1, "leech": 1,
                       "engine_url": self.url})
        time.sleep(600)'''
CRASH_BODY = '''prettyPrinter({"link": self.url + "/t/c.torrent", "name": "crash ok", "size": "1 KB", "seeds": 1, "leech": 1,
                       "engine_url": self.url})
        raise RuntimeError("this engine crashes on purpose")'''
GARBAGE_BODY = '''print("this is not a result")
        print("a|b|c")
        print("|no link|1|1|1|" + self.url)
        print("\\x00\\xff binary junk")
        prettyPrinter({"link": self.url + "/t/g.torrent", "name": "garbage ok", "size": "1 KB", "seeds": 1, "leech": 1,
                       "engine_url": self.url})
        print("trailing|junk")'''

# 17 MiB of output: over the 16 MiB one plugin run may print.
FLOOD_BODY = '''import sys
        sys.stdout.write(("x" * 1048575 + "\\n") * 17)
        sys.stdout.flush()'''


def write_plugin(directory, name, url, body=GOOD_BODY, minor=0, full_name=None):
    path = directory / f"{name}.py"
    path.write_text(PLUGIN.format(name=name, url=url, full_name=full_name or f"{name} engine", body=body, minor=minor))
    return path
