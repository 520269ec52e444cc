"""Network fixtures for the proxy, IP filter and HTTPS tests, all on 127.0.0.1 and standard library only:

* `Socks5Proxy`: a SOCKS5 (and SOCKS4/4a) proxy that records every handshake and CONNECT target.
* `HttpProxy`: an HTTP/1.1 forward proxy (absolute-URI requests and CONNECT tunnels) that records every request.
* `write_dat`, `write_p2p`, `write_p2b`: IP filter files in the three formats qBittorrent reads, and `read_p2b`.
* `make_ca_and_cert`: a throwaway CA and a server certificate signed by it, made with the `openssl` command.

Run `python3 Tests/e2e/net_fixtures.py` to self-test every fixture with curl and openssl.
"""
import base64
import http.client
import ipaddress
import secrets
import select
import socket
import struct
import subprocess
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

HANDSHAKE_TIMEOUT = 10.0  # seconds a client may take to send a greeting, request or header block
CONNECT_TIMEOUT = 10.0    # seconds the proxy waits to reach a target
RELAY_TIMEOUT = 60.0      # seconds one relayed chunk may take to be accepted by a slow reader
POLL = 0.5                # seconds between checks of the closed flag in every loop
CHUNK = 16384
MAX_HEAD = 65536


class _TcpServer:
    """A listening socket on 127.0.0.1 with an ephemeral port (`.port`); every accepted connection is handled by
    `handle(conn)` in its own daemon thread. `close()` stops accepting and shuts down every open socket."""

    def __init__(self):
        self.host = "127.0.0.1"
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._sockets = set()
        self._listener = socket.create_server((self.host, 0))
        self._listener.settimeout(POLL)
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept_loop, daemon=True, name=f"{type(self).__name__}-{self.port}")
        self._thread.start()

    @property
    def address(self):
        return f"{self.host}:{self.port}"

    def _accept_loop(self):
        while not self._closed.is_set():
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            conn.settimeout(HANDSHAKE_TIMEOUT)
            self._track(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True, name=f"{self._thread.name}-conn").start()

    def _serve(self, conn):
        try:
            self.handle(conn)
        except (OSError, ValueError, EOFError, struct.error, http.client.HTTPException):
            pass
        finally:
            self._untrack(conn)

    def handle(self, conn):
        raise NotImplementedError

    def _track(self, sock):
        with self._lock:
            self._sockets.add(sock)
        if self._closed.is_set():
            self._untrack(sock)

    def _untrack(self, sock):
        with self._lock:
            self._sockets.discard(sock)
        try:
            sock.close()
        except OSError:
            pass

    def _record(self, items, item):
        with self._lock:
            items.append(item)

    def _connect(self, host, port):
        """Opens (and tracks) a connection to a target; raises OSError when it cannot."""
        upstream = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        self._track(upstream)
        return upstream

    def _relay(self, a, b):
        """Copies bytes both ways. When one side ends its stream the other side's write half is shut down; the relay
        stops once both directions have ended, on any socket error, or when the server is closed."""
        a.settimeout(RELAY_TIMEOUT)
        b.settimeout(RELAY_TIMEOUT)
        peer = {a: b, b: a}
        reading = [a, b]
        while reading and not self._closed.is_set():
            ready, _, _ = select.select(reading, [], [], POLL)
            for sock in ready:
                data = sock.recv(CHUNK)
                if data:
                    peer[sock].sendall(data)
                    continue
                reading.remove(sock)
                try:
                    peer[sock].shutdown(socket.SHUT_WR)
                except OSError:
                    pass

    def wait_for(self, attribute, count=1, timeout=10.0):
        """Waits until the list `attribute` (e.g. "connects") holds at least `count` entries; returns a copy."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                items = list(getattr(self, attribute))
            if len(items) >= count or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        if len(items) < count:
            raise AssertionError(f"{type(self).__name__}.{attribute} has {len(items)} entries, wanted {count}: {items}")
        return items

    def close(self):
        self._closed.set()
        try:
            self._listener.close()
        except OSError:
            pass
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=2 * POLL + 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _recv_exact(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError(f"peer closed after {len(data)} of {count} bytes")
        data += chunk
    return data


def _recv_until_nul(sock, limit=1024):
    data = b""
    while True:
        byte = _recv_exact(sock, 1)
        if byte == b"\0":
            return data
        data += byte
        if len(data) > limit:
            raise EOFError("NUL-terminated field too long")


class Socks5Proxy(_TcpServer):
    """A SOCKS5 proxy on 127.0.0.1:`port` (RFC 1928) that only CONNECTs.

    Without `username` it offers method 0x00 (no authentication) only; with one it offers method 0x02 only
    (RFC 1929) and answers wrong credentials with status 0x01 and closes. Address types IPv4, domain name and IPv6.
    Commands other than CONNECT get reply 0x07. SOCKS4 and SOCKS4a CONNECTs (version byte 4) are served too, but
    only when no username is set (SOCKS4 cannot carry a password), otherwise they get reply 0x5B.

    Records, thread-safely and in arrival order:
      `connects`: (host, port) of every CONNECT request, SOCKS5 or SOCKS4, before the target is dialled;
                  host is the dotted/colon IP text or the domain name exactly as sent.
      `auths`:    (username, password) of every RFC 1929 sub-negotiation, accepted or not.
      `requests`: (version, command, host, port) of every request, including refused commands.
      `methods`:  the list of methods of every SOCKS5 greeting.
      `userids`:  the user id of every SOCKS4 request.
    """

    def __init__(self, username=None, password=None):
        self.username = username
        self.password = password if password is not None else ("" if username is not None else None)
        self.connects = []
        self.auths = []
        self.requests = []
        self.methods = []
        self.userids = []
        super().__init__()

    @property
    def url(self):
        return f"socks5://{self.address}"

    def handle(self, conn):
        version = _recv_exact(conn, 1)[0]
        if version == 5:
            self._socks5(conn)
        elif version == 4:
            self._socks4(conn)

    # SOCKS5

    def _socks5(self, conn):
        methods = list(_recv_exact(conn, _recv_exact(conn, 1)[0]))
        self._record(self.methods, methods)
        wanted = 0x02 if self.username is not None else 0x00
        if wanted not in methods:
            conn.sendall(b"\x05\xff")
            return
        conn.sendall(bytes([5, wanted]))
        if wanted == 0x02 and not self._socks5_auth(conn):
            return
        _, command, _, atyp = _recv_exact(conn, 4)
        if atyp == 1:
            host = socket.inet_ntop(socket.AF_INET, _recv_exact(conn, 4))
        elif atyp == 3:
            host = _recv_exact(conn, _recv_exact(conn, 1)[0]).decode("utf-8", "replace")
        elif atyp == 4:
            host = socket.inet_ntop(socket.AF_INET6, _recv_exact(conn, 16))
        else:
            conn.sendall(self._socks5_reply(0x08))
            return
        port = struct.unpack(">H", _recv_exact(conn, 2))[0]
        self._record(self.requests, (5, command, host, port))
        if command != 1:
            conn.sendall(self._socks5_reply(0x07))
            return
        self._record(self.connects, (host, port))
        try:
            upstream = self._connect(host, port)
        except ConnectionRefusedError:
            conn.sendall(self._socks5_reply(0x05))
            return
        except socket.gaierror:
            conn.sendall(self._socks5_reply(0x04))
            return
        except OSError:
            conn.sendall(self._socks5_reply(0x01))
            return
        try:
            conn.sendall(self._socks5_reply(0x00, upstream.getsockname()))
            self._relay(conn, upstream)
        finally:
            self._untrack(upstream)

    def _socks5_auth(self, conn):
        _recv_exact(conn, 1)  # sub-negotiation version, 0x01
        user = _recv_exact(conn, _recv_exact(conn, 1)[0]).decode("utf-8", "replace")
        password = _recv_exact(conn, _recv_exact(conn, 1)[0]).decode("utf-8", "replace")
        self._record(self.auths, (user, password))
        ok = user == self.username and password == self.password
        conn.sendall(b"\x01\x00" if ok else b"\x01\x01")
        return ok

    @staticmethod
    def _socks5_reply(status, bound=("0.0.0.0", 0)):
        host, port = bound[0], bound[1]
        if ":" in host:
            address = b"\x04" + socket.inet_pton(socket.AF_INET6, host)
        else:
            address = b"\x01" + socket.inet_pton(socket.AF_INET, host)
        return bytes([5, status, 0]) + address + struct.pack(">H", port)

    # SOCKS4 / SOCKS4a

    def _socks4(self, conn):
        command = _recv_exact(conn, 1)[0]
        port = struct.unpack(">H", _recv_exact(conn, 2))[0]
        ip = _recv_exact(conn, 4)
        userid = _recv_until_nul(conn).decode("utf-8", "replace")
        if ip[:3] == b"\0\0\0" and ip[3] != 0:  # SOCKS4a: the domain name follows the user id
            host = _recv_until_nul(conn, 255).decode("utf-8", "replace")
        else:
            host = socket.inet_ntoa(ip)
        self._record(self.userids, userid)
        self._record(self.requests, (4, command, host, port))
        if command != 1 or self.username is not None:
            conn.sendall(b"\x00\x5b" + bytes(6))
            return
        self._record(self.connects, (host, port))
        try:
            upstream = self._connect(host, port)
        except OSError:
            conn.sendall(b"\x00\x5b" + bytes(6))
            return
        try:
            conn.sendall(b"\x00\x5a" + struct.pack(">H", port) + ip)
            self._relay(conn, upstream)
        finally:
            self._untrack(upstream)


HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
              "trailer", "transfer-encoding", "upgrade"}


class HttpProxy(_TcpServer):
    """An HTTP/1.1 forward proxy on 127.0.0.1:`port`. One request per client connection (it always answers
    `Connection: close`).

    * `GET http://host:port/path HTTP/1.1` (any method, absolute http URI): forwarded to the origin with
      `Connection: close`, the response streamed back (status, end-to-end headers, decoded body).
    * `CONNECT host:port HTTP/1.1`: answers `200 Connection Established` and relays bytes both ways.
    * With `username` set every request needs `Proxy-Authorization: Basic base64(user:password)`, otherwise it is
      answered `407` with `Proxy-Authenticate: Basic realm="test"`. An unreachable target gets `502`.

    Records, thread-safely and in arrival order:
      `requests`: (method, target) of every request, as written in the request line, accepted or not.
      `auths`:    (username, password) decoded from every Basic Proxy-Authorization header seen.
      `headers`:  the request headers (dict, lower-cased names) of every request, in the same order as `requests`.
    """

    def __init__(self, username=None, password=None):
        self.username = username
        self.password = password if password is not None else ("" if username is not None else None)
        self.requests = []
        self.auths = []
        self.headers = []
        super().__init__()

    @property
    def url(self):
        return f"http://{self.address}"

    def handle(self, conn):
        head, rest = self._read_head(conn)
        if head is None:
            return
        request_line, _, header_block = head.partition(b"\r\n")
        try:
            method, target, _ = request_line.decode("latin-1").split(" ", 2)
        except ValueError:
            return self._answer(conn, 400, "Bad Request")
        headers = http.client.parse_headers(_BytesReader(header_block + b"\r\n\r\n"))
        self._record(self.requests, (method, target))
        self._record(self.headers, {k.lower(): v for k, v in headers.items()})
        if not self._authorized(headers):
            return self._answer(conn, 407, "Proxy Authentication Required",
                                [("Proxy-Authenticate", 'Basic realm="test"')])
        if method.upper() == "CONNECT":
            return self._tunnel(conn, target, rest)
        return self._forward(conn, method, target, headers, rest)

    def _read_head(self, conn):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(CHUNK)
            if not chunk or len(data) > MAX_HEAD:
                return None, b""
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        return head, rest

    def _authorized(self, headers):
        value = headers.get("Proxy-Authorization")
        credentials = None
        if value and value[:6].lower() == "basic ":
            try:
                user, _, password = base64.b64decode(value[6:].strip()).decode("utf-8").partition(":")
                credentials = (user, password)
                self._record(self.auths, credentials)
            except (ValueError, UnicodeDecodeError):
                pass
        return self.username is None or credentials == (self.username, self.password)

    @staticmethod
    def _answer(conn, status, reason, headers=(), body=b""):
        lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers]
        lines += [f"Content-Length: {len(body)}", "Connection: close", "", ""]
        conn.sendall("\r\n".join(lines).encode("latin-1") + body)

    def _tunnel(self, conn, target, rest):
        host, _, port = target.rpartition(":")
        host = host.strip("[]")
        try:
            upstream = self._connect(host, int(port))
        except (OSError, ValueError):
            return self._answer(conn, 502, "Bad Gateway")
        try:
            conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
            self._relay(conn, upstream)
        finally:
            self._untrack(upstream)

    def _forward(self, conn, method, target, headers, rest):
        url = urllib.parse.urlsplit(target)
        if url.scheme.lower() != "http" or not url.hostname:
            return self._answer(conn, 400, "Bad Request", body=b"absolute http:// URI expected\n")
        if "chunked" in headers.get("Transfer-Encoding", "").lower():
            return self._answer(conn, 411, "Length Required")
        length = int(headers.get("Content-Length") or 0)
        body = rest
        while len(body) < length:
            chunk = conn.recv(CHUNK)
            if not chunk:
                return
            body += chunk
        origin = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=CONNECT_TIMEOUT)
        try:
            try:
                origin.putrequest(method, urllib.parse.urlunsplit(("", "", url.path or "/", url.query, "")),
                                  skip_host=True, skip_accept_encoding=True)
                dropped = HOP_BY_HOP | {t.strip().lower() for t in headers.get("Connection", "").split(",")}
                if "Host" not in headers:
                    origin.putheader("Host", url.netloc)
                for name, value in headers.items():
                    if name.lower() not in dropped:
                        origin.putheader(name, value)
                origin.putheader("Connection", "close")
                origin.endheaders(body[:length] if length else None)
                response = origin.getresponse()
            except OSError:
                return self._answer(conn, 502, "Bad Gateway")
            if origin.sock is not None:
                self._track(origin.sock)
            lines = [f"HTTP/1.1 {response.status} {response.reason}"]
            lines += [f"{k}: {v}" for k, v in response.msg.items() if k.lower() not in HOP_BY_HOP]
            lines += ["Connection: close", "", ""]
            conn.sendall("\r\n".join(lines).encode("latin-1"))
            while not self._closed.is_set():
                chunk = response.read1(CHUNK)
                if not chunk:
                    break
                conn.sendall(chunk)
        finally:
            if origin.sock is not None:
                self._untrack(origin.sock)
            origin.close()


class _BytesReader:
    """The readline interface http.client.parse_headers needs, over bytes."""

    def __init__(self, data):
        self.lines = data.splitlines(keepends=True)

    def readline(self, limit=-1):
        return self.lines.pop(0) if self.lines else b""


# IP filter files, in the formats of qBittorrent's src/base/bittorrent/filterparserthread.cpp.

def _ipv4(text):
    return ipaddress.IPv4Address(text)


def _names(names, ranges):
    return list(names) if names is not None else [f"Test organization {i}" for i in range(len(ranges))]


def write_dat(path, ranges, allowed=(), names=None):
    """Writes an eMule ipfilter.dat: `first - last , level , name` with zero-padded octets. Every range of `ranges`
    gets an access level below 128 (blocked); every range of `allowed` a level of 128 or more, which qBittorrent
    skips. Comment lines (`#` and `//`) and a blank line come first. Returns the number of blocking rules."""
    levels = (0, 50, 127)
    allow_levels = (128, 200, 255)
    pad = lambda ip: ".".join(f"{int(octet):03d}" for octet in str(_ipv4(ip)).split("."))
    names = _names(names, ranges)
    lines = ["# eMule ipfilter.dat written by qbtd's tests", "// access levels below 128 block the range", ""]
    for i, (first, last) in enumerate(ranges):
        lines.append(f"{pad(first)} - {pad(last)} , {levels[i % len(levels)]:03d} , {names[i]}")
    for i, (first, last) in enumerate(allowed):
        lines.append(f"{pad(first)} - {pad(last)} , {allow_levels[i % len(allow_levels)]:03d} , Allowed range {i}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(ranges)


def write_p2p(path, ranges, names=None):
    """Writes a PeerGuardian text .p2p file: `name:first-last` per range, after `#`/`//` comments and a blank
    line. Names may contain colons (`names=`); qBittorrent takes the last colon that is followed by a valid IP.
    Returns the number of rules."""
    names = _names(names, ranges)
    lines = ["# PeerGuardian .p2p list written by qbtd's tests", "// name:first-last", ""]
    lines += [f"{names[i]}:{_ipv4(first)}-{_ipv4(last)}" for i, (first, last) in enumerate(ranges)]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(ranges)


P2B_MAGIC = b"\xff\xff\xff\xffP2B"


def write_p2b(path, ranges, version=2, names=None):
    """Writes a PeerGuardian binary .p2b file: the magic `FF FF FF FF 'P2B'` and a version byte, then
    * version 1 or 2: per range a NUL-terminated name (ISO-8859-1 in v1, UTF-8 in v2) and the first and last
      address as big-endian uint32;
    * version 3: a big-endian name count, the NUL-terminated UTF-8 names, a big-endian range count and per range
      (name index, first, last) as big-endian uint32.
    Returns the number of rules."""
    names = _names(names, ranges)
    encoding = "latin-1" if version == 1 else "utf-8"
    data = bytearray(P2B_MAGIC + bytes([version]))
    if version in (1, 2):
        for name, (first, last) in zip(names, ranges):
            data += name.encode(encoding) + b"\0" + struct.pack(">II", int(_ipv4(first)), int(_ipv4(last)))
    elif version == 3:
        data += struct.pack(">I", len(names))
        for name in names:
            data += name.encode(encoding) + b"\0"
        data += struct.pack(">I", len(ranges))
        for i, (first, last) in enumerate(ranges):
            data += struct.pack(">III", i, int(_ipv4(first)), int(_ipv4(last)))
    else:
        raise ValueError(f"unsupported p2b version {version}")
    Path(path).write_bytes(bytes(data))
    return len(ranges)


def read_p2b(path):
    """Decodes a .p2b file back to (version, [(name, first_ip, last_ip)])."""
    data = Path(path).read_bytes()
    if data[:7] != P2B_MAGIC:
        raise ValueError("not a p2b file")
    version, pos, out = data[7], 8, []
    encoding = "latin-1" if version == 1 else "utf-8"

    def cstring(at):
        end = data.index(b"\0", at)
        return data[at:end].decode(encoding), end + 1

    if version in (1, 2):
        while pos < len(data):
            name, pos = cstring(pos)
            first, last = struct.unpack_from(">II", data, pos)
            pos += 8
            out.append((name, str(ipaddress.IPv4Address(first)), str(ipaddress.IPv4Address(last))))
    elif version == 3:
        (count,), pos = struct.unpack_from(">I", data, pos), pos + 4
        names = []
        for _ in range(count):
            name, pos = cstring(pos)
            names.append(name)
        (count,), pos = struct.unpack_from(">I", data, pos), pos + 4
        for _ in range(count):
            index, first, last = struct.unpack_from(">III", data, pos)
            pos += 12
            out.append((names[index], str(ipaddress.IPv4Address(first)), str(ipaddress.IPv4Address(last))))
    else:
        raise ValueError(f"unsupported p2b version {version}")
    return version, out


# Certificates.

@dataclass
class CertFiles:
    """PEM paths made by `make_ca_and_cert`; also readable as a dict (`files["ca"]`)."""
    ca: str         # the CA certificate
    ca_key: str     # the CA's private key
    cert: str       # the server certificate, signed by the CA
    key: str        # the server certificate's private key (PKCS#8)
    other_key: str  # an unrelated private key that does not match `cert`

    def __getitem__(self, name):
        return getattr(self, name)

    def keys(self):
        return ["ca", "ca_key", "cert", "key", "other_key"]


def _openssl(*args, cwd):
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {result.stderr.strip()}")


def make_ca_and_cert(directory, hostname="127.0.0.1"):
    """Creates in `directory`, with EC P-256 keys: ca.pem + ca.key (self-signed CA), cert.pem + key.pem (server,
    CN=`hostname`, subjectAltName IP:127.0.0.1, DNS:localhost and `hostname`) and other_key.pem."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    files = CertFiles(*(str(directory / name) for name in ("ca.pem", "ca.key", "cert.pem", "key.pem", "other_key.pem")))
    for key in (files.ca_key, files.key, files.other_key):
        _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key, cwd=directory)
    sans = ["IP:127.0.0.1", "DNS:localhost"]
    try:
        extra = f"IP:{ipaddress.ip_address(hostname)}"
    except ValueError:
        extra = f"DNS:{hostname}"
    if extra not in sans:
        sans.append(extra)
    config = directory / "openssl.cnf"
    config.write_text(f"""[req]
distinguished_name = dn
prompt = no
[dn]
CN = qbtd test CA
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[v3_server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer
subjectAltName = {", ".join(sans)}
""")
    _openssl("req", "-x509", "-new", "-config", str(config), "-extensions", "v3_ca", "-key", files.ca_key,
             "-sha256", "-days", "3650", "-out", files.ca, cwd=directory)
    csr = str(directory / "cert.csr")
    _openssl("req", "-new", "-config", str(config), "-key", files.key, "-subj", f"/CN={hostname}", "-out", csr,
             cwd=directory)
    _openssl("x509", "-req", "-in", csr, "-CA", files.ca, "-CAkey", files.ca_key, "-set_serial",
             f"0x{secrets.token_hex(8)}", "-days", "825", "-sha256", "-extfile", str(config), "-extensions",
             "v3_server", "-out", files.cert, cwd=directory)
    return files


# Self-test: python3 Tests/e2e/net_fixtures.py

def _self_test():
    import shutil
    import ssl
    import tempfile
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Origin(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/big":
                return self.reply(bytes(range(256)) * 20000)
            self.reply(f"hello {self.path} host={self.headers.get('Host')}".encode())

        def do_POST(self):
            self.reply(b"posted " + self.rfile.read(int(self.headers.get("Content-Length", 0))))

        def reply(self, body):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Origin", "yes")
            self.end_headers()
            self.wfile.write(body)

    class Origin6(ThreadingHTTPServer):
        address_family = socket.AF_INET6

    def serve(server):
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def curl(*args):
        result = subprocess.run(["curl", "-sS", "--max-time", "15", *args], capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr

    def check(label, condition, detail=""):
        if not condition:
            raise AssertionError(f"FAILED {label}: {detail}")
        print(f"ok  {label}" + (f"  [{detail}]" if detail else ""))

    def raw_socks5(proxy_port, request, greeting=b"\x05\x01\x00"):
        with socket.create_connection(("127.0.0.1", proxy_port), timeout=5) as s:
            s.sendall(greeting)
            method = _recv_exact(s, 2)
            if method[1] == 0xFF:
                return method, b""
            s.sendall(request)
            return method, _recv_exact(s, 10)

    tmp = Path(tempfile.mkdtemp(prefix="net_fixtures-"))
    origin = serve(ThreadingHTTPServer(("127.0.0.1", 0), Origin))
    o_port = origin.server_port
    origin6 = serve(Origin6(("::1", 0), Origin))
    o6_port = origin6.server_port

    # Certificates
    started = time.monotonic()
    certs = make_ca_and_cert(tmp / "tls")
    check("make_ca_and_cert", all(Path(certs[k]).read_text().startswith("-----BEGIN") for k in certs.keys()),
          f"{time.monotonic() - started:.2f}s, {sorted(certs.keys())}")
    result = subprocess.run(["openssl", "verify", "-CAfile", certs.ca, certs.cert], capture_output=True, text=True)
    check("openssl verify -CAfile ca cert", result.returncode == 0, result.stdout.strip())
    text = subprocess.run(["openssl", "x509", "-in", certs.cert, "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True).stdout
    check("subjectAltName", "IP Address:127.0.0.1" in text and "DNS:localhost" in text, " ".join(text.split()[1:]))
    cert_pub = subprocess.run(["openssl", "x509", "-in", certs.cert, "-noout", "-pubkey"], capture_output=True,
                              text=True).stdout
    key_pub = subprocess.run(["openssl", "pkey", "-in", certs.key, "-pubout"], capture_output=True, text=True).stdout
    other_pub = subprocess.run(["openssl", "pkey", "-in", certs.other_key, "-pubout"], capture_output=True,
                               text=True).stdout
    check("key matches cert, other_key does not", cert_pub == key_pub and cert_pub != other_pub and other_pub)
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certs.cert, certs.other_key)
        mismatch = "loaded"
    except ssl.SSLError as error:
        mismatch = error.reason or str(error)
    check("ssl refuses cert + other_key", mismatch != "loaded", mismatch)

    tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls_context.load_cert_chain(certs.cert, certs.key)
    tls_origin = ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    tls_origin.socket = tls_context.wrap_socket(tls_origin.socket, server_side=True)
    serve(tls_origin)
    t_port = tls_origin.server_port
    code, out = curl("--cacert", certs.ca, f"https://127.0.0.1:{t_port}/direct")
    check("https origin trusts the CA (direct)", code == 0 and out.startswith("hello /direct"), out)

    # SOCKS5 without authentication
    with Socks5Proxy() as proxy:
        code, out = curl("--socks5", proxy.address, f"http://127.0.0.1:{o_port}/a")
        check("curl --socks5 (IPv4 address type)", code == 0 and out.startswith("hello /a"), out)
        code, out = curl("--socks5-hostname", proxy.address, f"http://localhost:{o_port}/b")
        check("curl --socks5-hostname (domain address type)", code == 0 and out.startswith("hello /b"), out)
        code, out = curl("--socks5", proxy.address, f"http://[::1]:{o6_port}/c")
        check("curl --socks5 to [::1] (IPv6 address type)", code == 0 and out.startswith("hello /c"), out)
        code, out = curl("--socks5-hostname", proxy.address, "--cacert", certs.ca, f"https://localhost:{t_port}/tls")
        check("curl --socks5-hostname https through the tunnel", code == 0 and out.startswith("hello /tls"), out)
        code, out = curl("--socks4", proxy.address, f"http://127.0.0.1:{o_port}/s4")
        check("curl --socks4", code == 0 and out.startswith("hello /s4"), out)
        code, out = curl("--socks4a", proxy.address, f"http://localhost:{o_port}/s4a")
        check("curl --socks4a", code == 0 and out.startswith("hello /s4a"), out)
        _, reply = raw_socks5(proxy.port, b"\x05\x02\x00\x01\x7f\x00\x00\x01" + struct.pack(">H", o_port))
        check("BIND answered 0x07", reply[1] == 0x07, reply.hex())
        _, reply = raw_socks5(proxy.port, b"\x05\x03\x00\x01\x7f\x00\x00\x01\x00\x35")
        check("UDP ASSOCIATE answered 0x07", reply[1] == 0x07, reply.hex())
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        dead_port = closed.getsockname()[1]
        closed.close()
        _, reply = raw_socks5(proxy.port, b"\x05\x01\x00\x01\x7f\x00\x00\x01" + struct.pack(">H", dead_port))
        check("CONNECT to a closed port answered 0x05", reply[1] == 0x05, reply.hex())
        method, _ = raw_socks5(proxy.port, b"", greeting=b"\x05\x01\x02")
        check("greeting without method 0x00 refused with 0xFF", method == b"\x05\xff", method.hex())
        connects = proxy.wait_for("connects", 7)
        expected = [("127.0.0.1", o_port), ("localhost", o_port), ("::1", o6_port), ("localhost", t_port),
                    ("127.0.0.1", o_port), ("localhost", o_port), ("127.0.0.1", dead_port)]
        check(".connects recorded", connects == expected, str(connects))
        check(".requests recorded (version, command, host, port)",
              [r[:2] for r in proxy.requests] == [(5, 1)] * 4 + [(4, 1)] * 2 + [(5, 2), (5, 3), (5, 1)],
              str(proxy.requests))
        check(".auths empty without credentials", proxy.auths == [], str(proxy.auths))

    # SOCKS5 with RFC 1929 authentication
    with Socks5Proxy("alice", "s3cret") as proxy:
        code, out = curl("--socks5", proxy.address, "--proxy-user", "alice:s3cret", f"http://127.0.0.1:{o_port}/auth")
        check("curl --socks5 --proxy-user alice:s3cret", code == 0 and out.startswith("hello /auth"), out)
        code, out = curl("--socks5", proxy.address, "--proxy-user", "alice:wrong", f"http://127.0.0.1:{o_port}/x")
        check("wrong password refused", code != 0, out.strip())
        code, out = curl("--socks5", proxy.address, f"http://127.0.0.1:{o_port}/x")
        check("no credentials refused", code != 0, out.strip())
        code, out = curl("--socks4", proxy.address, f"http://127.0.0.1:{o_port}/x")
        check("SOCKS4 refused when credentials are required", code != 0, out.strip())
        check(".auths recorded", proxy.auths == [("alice", "s3cret"), ("alice", "wrong")], str(proxy.auths))
        check(".connects only after good auth", proxy.connects == [("127.0.0.1", o_port)], str(proxy.connects))
        check(".methods recorded", proxy.methods[0] and 2 in proxy.methods[0], str(proxy.methods))

    # HTTP forward proxy
    with HttpProxy() as proxy:
        code, out = curl("-x", proxy.url, f"http://127.0.0.1:{o_port}/get?q=1")
        check("curl -x http://proxy http://origin/", code == 0 and out.startswith("hello /get?q=1"), out)
        code, out = curl("-x", proxy.url, "-i", f"http://localhost:{o_port}/headers")
        check("response headers streamed, Connection: close",
              "X-Origin: yes" in out and "Connection: close" in out and f"host=localhost:{o_port}" in out,
              out.splitlines()[0])
        code, out = curl("-x", proxy.url, "-d", "payload=42", f"http://127.0.0.1:{o_port}/post")
        check("POST body forwarded", code == 0 and out == "posted payload=42", out)
        code, out = curl("-x", proxy.url, "--cacert", certs.ca, f"https://localhost:{t_port}/tunnel")
        check("curl -x http://proxy https://origin/ (CONNECT)", code == 0 and out.startswith("hello /tunnel"), out)
        code, out = curl("-x", proxy.url, "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{dead_port}/")
        check("unreachable origin answered 502", out == "502", out)
        check(".requests recorded", proxy.requests == [
            ("GET", f"http://127.0.0.1:{o_port}/get?q=1"), ("GET", f"http://localhost:{o_port}/headers"),
            ("POST", f"http://127.0.0.1:{o_port}/post"), ("CONNECT", f"localhost:{t_port}"),
            ("GET", f"http://127.0.0.1:{dead_port}/")], str(proxy.requests))

    with HttpProxy("bob", "pa:ss") as proxy:
        code, out = curl("-x", proxy.url, "-i", f"http://127.0.0.1:{o_port}/noauth")
        check("no credentials answered 407 + Proxy-Authenticate",
              out.startswith("HTTP/1.1 407") and 'Proxy-Authenticate: Basic realm="test"' in out, out.splitlines()[0])
        code, out = curl("-x", proxy.url, "-U", "bob:wrong", "-o", "/dev/null", "-w", "%{http_code}",
                         f"http://127.0.0.1:{o_port}/bad")
        check("wrong credentials answered 407", out == "407", out)
        code, out = curl("-x", proxy.url, "-U", "bob:pa:ss", f"http://127.0.0.1:{o_port}/good")
        check("curl -x -U bob:pa:ss", code == 0 and out.startswith("hello /good"), out)
        code, out = curl("-x", proxy.url, "-U", "bob:pa:ss", "--cacert", certs.ca, f"https://127.0.0.1:{t_port}/t")
        check("CONNECT with credentials", code == 0 and out.startswith("hello /t"), out)
        code, out = curl("-x", proxy.url, "--cacert", certs.ca, f"https://127.0.0.1:{t_port}/t")
        check("CONNECT without credentials refused", code != 0, out.strip())
        check(".auths recorded", proxy.auths == [("bob", "wrong"), ("bob", "pa:ss"), ("bob", "pa:ss")],
              str(proxy.auths))
        check(".requests include refused ones", [m for m, _ in proxy.requests] == ["GET"] * 3 + ["CONNECT"] * 2,
              str(proxy.requests))

    # Large bodies stream intact through both proxies; close() ends a tunnel that is still open.
    big = bytes(range(256)) * 20000
    holder = socket.create_server(("127.0.0.1", 0))
    with Socks5Proxy() as socks, HttpProxy() as http_proxy:
        for label, args in (("SOCKS5", ["--socks5", socks.address]), ("HTTP", ["-x", http_proxy.url])):
            result = subprocess.run(["curl", "-sS", "--max-time", "15", *args, f"http://127.0.0.1:{o_port}/big"],
                                    capture_output=True)
            check(f"5 MB body through the {label} proxy", result.stdout == big, f"{len(result.stdout)} bytes")
        client = socket.create_connection(("127.0.0.1", socks.port), timeout=5)
        client.sendall(b"\x05\x01\x00")
        _recv_exact(client, 2)
        client.sendall(b"\x05\x01\x00\x01\x7f\x00\x00\x01" + struct.pack(">H", holder.getsockname()[1]))
        reply = _recv_exact(client, 10)
        held, _ = holder.accept()
        client.sendall(b"ping")
        relayed = _recv_exact(held, 4)
    started = time.monotonic()
    ended = client.recv(1)
    check("close() ends an open tunnel", reply[1] == 0 and relayed == b"ping" and ended == b"",
          f"client saw EOF {time.monotonic() - started:.2f}s after close()")
    for sock in (client, held, holder):
        sock.close()

    # IP filter files
    ranges = [("1.9.96.105", "1.9.96.105"), ("10.0.0.0", "10.0.255.255"), ("192.168.1.1", "192.168.1.20")]
    for version in (1, 2, 3):
        path = tmp / f"filter{version}.p2b"
        count = write_p2b(path, ranges, version=version, names=None if version != 2 else ["A", "Bé", "C:D"])
        decoded_version, decoded = read_p2b(path)
        check(f"write_p2b v{version} decodes back", count == 3 and decoded_version == version
              and [(f, l) for _, f, l in decoded] == ranges, str(decoded))
    print("    p2b v2 bytes:", (tmp / "filter2.p2b").read_bytes()[:21].hex(" "))
    path = tmp / "filter.dat"
    write_dat(path, ranges, allowed=[("8.8.8.8", "8.8.8.8")])
    blocked = _parse_dat_like_qbittorrent(path.read_text())
    check("write_dat parses like qBittorrent (level >= 128 skipped)", blocked == ranges, str(blocked))
    print("    " + "\n    ".join(path.read_text().splitlines()))
    path = tmp / "filter.p2p"
    write_p2p(path, ranges, names=["Some organization", "Some:Org:Label", "Third"])
    parsed = _parse_p2p_like_qbittorrent(path.read_text())
    check("write_p2p parses like qBittorrent", parsed == ranges, str(parsed))
    print("    " + "\n    ".join(path.read_text().splitlines()))

    # Every fixture thread is a daemon and the proxies' threads are gone after close().
    time.sleep(2 * POLL + 0.2)
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    check("all fixture threads are daemons", all(t.daemon for t in others), str(others))
    leftover = [t.name for t in others if "Proxy-" in t.name]
    check("closed proxies left no threads", not leftover, f"{len(others)} other threads (the origins), {leftover}")
    for server in (origin, origin6, tls_origin):
        server.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)
    print("all net_fixtures self-tests passed")


def _parse_dat_like_qbittorrent(text):
    """The DAT rules of filterparserthread.cpp: skip `#` and `//` lines, skip access levels above 127, split the
    range on `-`; lines that do not parse (like blank ones) are errors and ignored."""
    out = []
    for line in text.split("\n"):
        if line.startswith("#") or line.startswith("//"):
            continue
        fields = line.split(",")
        if len(fields) > 1 and int(fields[1].strip() or 0) > 127:
            continue
        if "-" not in fields[0]:
            continue
        first, last = (str(ipaddress.IPv4Address(".".join(str(int(o)) for o in part.strip().split("."))))
                       for part in fields[0].split("-", 1))
        out.append((first, last))
    return out


def _parse_p2p_like_qbittorrent(text):
    """The P2P rules: skip comments, split on the last `-`, take the first `:` followed by a valid IP."""
    out = []
    for line in text.split("\n"):
        if line.startswith("#") or line.startswith("//") or "-" not in line:
            continue
        head, _, last = line.rpartition("-")
        for i, char in enumerate(head):
            if char == ":":
                try:
                    first = str(ipaddress.ip_address(head[i + 1:].strip()))
                except ValueError:
                    continue
                out.append((first, str(ipaddress.ip_address(last.strip()))))
                break
    return out


if __name__ == "__main__":
    _self_test()
