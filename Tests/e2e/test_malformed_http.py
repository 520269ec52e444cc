"""Malformed HTTP (NUL or control bytes in the request line or a header, bad chunk sizes, conflicting lengths, an
over-long header) is answered with a 4xx and the connection closed at once, never left hanging; qbtd keeps serving.
Raw sockets, over plain HTTP and HTTPS."""
import socket
import ssl

import pytest
import requests

BAD = {
    "NUL in a header": b"GET /api/v2/app/version HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n",
    "NUL in the request line": b"GET /api/v2/app/ver\x00sion HTTP/1.1\r\nHost: x\r\n\r\n",
    "control byte in a header name": b"GET / HTTP/1.1\r\nHost: x\r\nX\x01Y: 1\r\n\r\n",
    "bad chunk size": b"POST /api/v2/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "conflicting lengths": b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
    "over-long header": b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 200_000 + b"\r\n\r\n",
    "not HTTP at all": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64 + b"\r\n\r\n",
}


def exchange(port, data, wrap=None):
    """Sends `data`; returns (what came back, whether the server closed within 5 s)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    s = wrap(raw) if wrap else raw
    got = b""
    try:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may close before reading everything (the over-long header)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return got, True
            got += chunk
    except (ConnectionResetError, ssl.SSLError):
        return got, True
    except socket.timeout:
        return got, False
    finally:
        s.close()


@pytest.mark.parametrize("what", list(BAD))
def test_malformed_requests_get_400_and_a_closed_connection(qbtd_factory, what):
    q = qbtd_factory()
    got, closed = exchange(q.port, BAD[what])
    assert closed, f"{what}: the connection was left open"
    assert got.startswith(b"HTTP/1.1 4"), f"{what}: {got[:80]!r}"
    assert requests.get(q.url("app/version"), timeout=5).status_code in (200, 403)
    assert q.proc.poll() is None


def test_malformed_requests_over_https(tmp_path):
    from net_fixtures import make_ca_and_cert
    from test_https import TlsQbtd
    (tmp_path / "data").mkdir()
    q = TlsQbtd(tmp_path / "data", make_ca_and_cert(tmp_path / "pki")).start()
    try:
        context = ssl.create_default_context(cafile=q.certs.ca)
        context.check_hostname = False
        got, closed = exchange(q.port, BAD["NUL in a header"], wrap=lambda s: context.wrap_socket(s))
        assert closed and got.startswith(b"HTTP/1.1 400"), got[:80]
    finally:
        q.stop()
