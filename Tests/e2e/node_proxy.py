"""A reverse proxy on 127.0.0.1 that sends each request to one of N backends chosen at random (issue 37, item 2: a
client suite against a cluster, each request to a node chosen at random).

- HTTP/1.1 from the client, keep-alive kept; each request is read whole (Content-Length, or chunked, decoded) and sent
  on a fresh connection to a backend picked by a seeded RNG (`seed`, printed); the answer goes back as the backend
  gave it: status and reason, every header (Set-Cookie included, repeated ones kept, in order), the body. Only the
  hop-by-hop headers are the proxy's own (the body is re-framed with Content-Length).
- A backend that fails at the connection level (refused, reset, not HTTP, timed out) gets the client's connection
  closed without an answer: what the client would see from that server directly. This keeps qbittorrent-api's
  scheme detection working while the nodes serve HTTPS (a node on HTTPS drops a plain-HTTP request).
- `Host` goes on as the host name alone and the client's whole `Host` as `X-Forwarded-Host`, as
  contrib/nginx/qbtd-cluster.conf sends them: a node refuses a `Host` naming another port than its own (401, as
  qBittorrent's host header validation does), and its cross-site check compares Origin/Referer with X-Forwarded-Host.
- A connection that opens with a TLS handshake (first byte 0x16) is taken over TLS with `tls` (certificate, key: the
  ones the nodes serve) and its requests go to the nodes over HTTPS (unverified), each to a node chosen at random, as
  plain ones do; without `tls` the connection is tunnelled as bytes to one node chosen for the whole connection. The
  suite switches the WebUI to HTTPS for a moment.
- Everything is bounded: connections at once, header sizes (http.server's), bodies, the backend timeout, idle
  keep-alive connections and tunnels, the records kept.
- Each request is recorded as (seconds since start, client connection, method, path, node, status, ms, test) in
  `records` and, when `log` is given, as a tab-separated line there. A GET of `/__node_proxy__/test?id=...` is answered
  by the proxy itself (204) and tags the requests after it with that id: the suite's plugin sends it as each test
  starts, so a failing test's requests and the nodes that answered them can be listed (`trace`).

Standard library only.
"""
import collections
import http.client
import http.server
import random
import select
import socket
import ssl
import threading
import time
import urllib.parse

MARK = "/__node_proxy__/test"
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te",
              "trailer", "trailers", "transfer-encoding", "upgrade", "expect"}
Record = collections.namedtuple("Record", "t conn scheme method path node status ms test")


class BackendFailed(Exception):
    pass


def host_name(host):
    """`Host` without its port: `[::1]:8080` -> `[::1]`, `example:8080` -> `example`."""
    if host.startswith("["):
        return host[:host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class NodeProxy:
    """`backends`: {name: "http://127.0.0.1:PORT"}; `address`: where to listen (127.0.0.1, a free port). `start()`, then
    `url`/`host`/`port`; `stop()` after."""

    def __init__(self, backends, seed=None, log=None, timeout=60.0, idle=30.0, max_body=64 << 20,
                 max_connections=64, keep=200_000, tls=None, address=("127.0.0.1", 0)):
        self.backends = {name: urllib.parse.urlsplit(base) for name, base in backends.items()}
        self.names = sorted(self.backends)
        self.seed = random.SystemRandom().randrange(1 << 32) if seed is None else int(seed)
        self.rng = random.Random(self.seed)
        self.timeout, self.idle, self.max_body = timeout, idle, max_body
        self.records = collections.deque(maxlen=keep)
        self.lock = threading.Lock()
        self.test = ""
        self.started = time.monotonic()
        self.log = open(log, "a", buffering=1) if log else None
        self.slots = threading.BoundedSemaphore(max_connections)
        self.connections = 0
        self.httpd = None
        self.address = address
        self.tls = None
        if tls:
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(*tls)
        self.to_tls_nodes = ssl._create_unverified_context()  # the nodes' certificate is the suite's self-signed one

    # -- choosing and recording

    def choose(self):
        with self.lock:
            return self.names[self.rng.randrange(len(self.names))]

    def record(self, conn, method, path, node, status, started, scheme="http"):
        r = Record(round(time.monotonic() - self.started, 3), conn, scheme, method, path, node, status,
                   round((time.monotonic() - started) * 1000), self.test)
        with self.lock:
            self.records.append(r)
            if self.log:
                self.log.write("\t".join(str(x) for x in r) + "\n")
        return r

    def by_node(self):
        return dict(collections.Counter(r.node for r in self.records))

    def trace(self, test, limit=80):
        """The requests tagged with `test` (a suite test id; the port in test_request.py's ids does not matter),
        one line each."""
        def plain(t):
            return t.split("[")[0]
        rows = [r for r in self.records if r.test == test] or [r for r in self.records if plain(r.test) == plain(test)]
        lines = [f"    {r.t:8.3f} #{r.conn} {r.method} {'https:' if r.scheme == 'https' else ''}{r.path[:120]} -> "
                 f"{r.node} {r.status} ({r.ms} ms)"
                 for r in rows[-limit:]]
        return "\n".join(([f"    ({len(rows) - limit} earlier requests left out)"] if len(rows) > limit else []) + lines)

    # -- serving

    def start(self):
        proxy = self

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 64

            def process_request(self, request, client_address):
                if not proxy.slots.acquire(blocking=False):
                    self.shutdown_request(request)  # too many connections at once: refused by closing
                    return
                super().process_request(request, client_address)

            def process_request_thread(self, request, client_address):
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    proxy.slots.release()

            def finish_request(self, request, client_address):
                with proxy.lock:
                    proxy.connections += 1
                    number = proxy.connections
                request.settimeout(proxy.idle)
                try:
                    first = request.recv(1, socket.MSG_PEEK)
                except OSError:
                    return
                if not first:
                    return
                if first[0] != 0x16:
                    Handler(request, client_address, self, number=number, scheme="http")
                elif proxy.tls is None:
                    proxy.tunnel(request, number)
                else:
                    started = time.monotonic()
                    try:
                        wrapped = proxy.tls.wrap_socket(request, server_side=True)
                    except (OSError, ssl.SSLError) as e:
                        proxy.record(number, "TLS", "-", "-", f"ERR handshake: {type(e).__name__}", started, "https")
                        return
                    try:
                        Handler(wrapped, client_address, self, number=number, scheme="https")
                    finally:
                        try:
                            wrapped.close()
                        except OSError:
                            pass

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = self.idle  # idle keep-alive connections end after this

            def __init__(self, *a, number, scheme, **k):
                self.number, self.scheme = number, scheme
                super().__init__(*a, **k)

            def __getattr__(self, name):
                if name.startswith("do_"):
                    return self.forward
                raise AttributeError(name)

            def log_message(self, *args):
                pass

            def read_body(self):
                if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                    body = bytearray()
                    while True:
                        size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                                pass  # trailers
                            return bytes(body)
                        if len(body) + size > proxy.max_body:
                            raise ValueError("body too large")
                        body += self.rfile.read(size)
                        self.rfile.readline(1024)
                length = int(self.headers.get("Content-Length") or 0)
                if length < 0 or length > proxy.max_body:
                    raise ValueError("body too large")
                return self.rfile.read(length) if length else b""

            def forward(self):
                started = time.monotonic()
                if self.command == "GET" and self.path.startswith(MARK):
                    proxy.test = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("id", [""])[0]
                    self.wfile.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                    return
                try:
                    body = self.read_body()
                except (ValueError, OSError) as e:
                    proxy.record(self.number, self.command, self.path, "-", f"ERR client body: {e}", started,
                                 self.scheme)
                    self.close_connection = True
                    return
                node = proxy.choose()
                try:
                    status, reason, headers, answer = proxy.send(node, self.command, self.path, self.headers, body,
                                                                 self.scheme == "https")
                except BackendFailed as e:
                    proxy.record(self.number, self.command, self.path, node, f"ERR {e}", started, self.scheme)
                    self.close_connection = True  # as that server would have: no answer
                    return
                out = [f"HTTP/1.1 {status} {reason}\r\n".encode("latin-1")]
                for k, v in headers:
                    if k.lower() in HOP_BY_HOP or (k.lower() == "content-length" and self.command != "HEAD"):
                        continue
                    out.append(f"{k}: {v}\r\n".encode("latin-1"))
                if self.command != "HEAD" and status >= 200 and status not in (204, 304):
                    out.append(f"Content-Length: {len(answer)}\r\n".encode())
                if self.close_connection:
                    out.append(b"Connection: close\r\n")
                out.append(b"\r\n")
                try:
                    self.wfile.write(b"".join(out) + (answer if self.command != "HEAD" else b""))
                    self.wfile.flush()
                finally:
                    proxy.record(self.number, self.command, self.path, node, status, started, self.scheme)

        self.httpd = Server(tuple(self.address), Handler)
        self.port = self.httpd.server_address[1]
        self.host = f"{self.httpd.server_address[0]}:{self.port}"
        self.url = f"http://{self.host}"
        threading.Thread(target=self.httpd.serve_forever, name="node-proxy", daemon=True).start()
        print(f"node proxy {self.url} -> {', '.join(f'{n}={self.backends[n].netloc}' for n in self.names)}; "
              f"seed {self.seed}", flush=True)
        return self

    def send(self, node, method, path, headers, body, tls=False):
        """One request to `node` on a connection of its own: (status, reason, [(header, value)], body)."""
        target = self.backends[node]
        if tls:
            conn = http.client.HTTPSConnection(target.hostname, target.port, timeout=self.timeout,
                                               context=self.to_tls_nodes)
        else:
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=self.timeout)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            named = {t.strip().lower() for t in headers.get("Connection", "").split(",")}
            for k, v in headers.items():
                if k.lower() in HOP_BY_HOP or k.lower() in named or k.lower() in ("content-length", "host",
                                                                                   "x-forwarded-host"):
                    continue
                conn.putheader(k, v)
            host = headers.get("Host")
            if host:
                conn.putheader("Host", host_name(host))
                conn.putheader("X-Forwarded-Host", headers.get("X-Forwarded-Host") or host)
            if body or "Content-Length" in headers or method in ("POST", "PUT", "PATCH"):
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body or None)
            resp = conn.getresponse()
            answer = resp.read(self.max_body + 1)
            if len(answer) > self.max_body:
                raise BackendFailed("answer too large")
            return resp.status, resp.reason, resp.getheaders(), answer
        except (OSError, http.client.HTTPException, ValueError) as e:  # ValueError: UnicodeError, InvalidURL
            raise BackendFailed(f"{type(e).__name__}: {e}") from None
        finally:
            conn.close()

    def tunnel(self, client, number):
        """A TLS connection: its bytes both ways to one node, until either side ends or `idle` passes quietly."""
        started = time.monotonic()
        node = self.choose()
        target = self.backends[node]
        try:
            server = socket.create_connection((target.hostname, target.port), timeout=10)
        except OSError as e:
            self.record(number, "TLS", "-", node, f"ERR {type(e).__name__}", started, "tls")
            return
        moved = 0
        try:
            ends = {client: server, server: client}
            while True:
                ready, _, _ = select.select(list(ends), [], [], self.idle)
                if not ready:
                    break
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        raise EOFError
                    ends[s].sendall(data)
                    moved += len(data)
        except (OSError, EOFError):
            pass
        finally:
            server.close()
            self.record(number, "TLS", f"<tunnel {moved} bytes>", node, "tunnel", started, "tls")

    def stop(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()
        if self.log:
            self.log.close()
