"""Connections are bounded in time: an accepted connection has --request-timeout seconds to send a whole request head
(idle sockets and clients that dribble their headers are closed), and a kept-alive connection or a stalled request
body is closed after --idle-timeout seconds; 500 idle sockets and 20 slow-header clients do not stop normal service."""
import socket
import threading
import time

import requests

from conftest import wait_for


def closed_by_server(s, within):
    """True when the server closes `s` within `within` seconds (what it sends before is ignored)."""
    s.settimeout(within)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def test_idle_and_slow_clients_are_closed_and_do_not_stop_service(qbtd_factory):
    q = qbtd_factory(extra=["--request-timeout", "3", "--idle-timeout", "4"])
    idle = [socket.create_connection(("127.0.0.1", q.port), timeout=10) for _ in range(500)]
    slow = [socket.create_connection(("127.0.0.1", q.port), timeout=10) for _ in range(20)]
    stop = threading.Event()

    def dribble():
        for s in slow:
            s.sendall(b"GET /api/v2/app/version HTTP/1.1\r\nHost: x\r\n")
        for _ in range(40):  # a header byte each 0.25 s, for 10 s at most
            if stop.is_set():
                return
            for s in slow:
                try:
                    s.sendall(b"X")
                except OSError:
                    pass
            time.sleep(0.25)
    writer = threading.Thread(target=dribble)
    writer.start()
    try:
        # Normal service goes on meanwhile.
        for _ in range(20):
            assert requests.get(q.url("app/version"), timeout=5).status_code in (200, 403)
        assert all(closed_by_server(s, 6) for s in idle), "an idle socket outlived --request-timeout"
        assert all(closed_by_server(s, 6) for s in slow), "a slow-header client outlived --request-timeout"
    finally:
        stop.set()
        writer.join()
        for s in idle + slow:
            s.close()
    assert requests.get(q.url("app/version"), timeout=5).status_code in (200, 403)

    # A kept-alive connection is closed after --idle-timeout without a request; a stalled body too.
    keep = socket.create_connection(("127.0.0.1", q.port), timeout=10)
    keep.sendall(b"GET /api/v2/app/version HTTP/1.1\r\nHost: x\r\n\r\n")
    assert keep.recv(65536).startswith(b"HTTP/1.1 ")
    t0 = time.monotonic()
    assert closed_by_server(keep, 10) and time.monotonic() - t0 >= 3
    stalled = socket.create_connection(("127.0.0.1", q.port), timeout=10)
    stalled.sendall(b"POST /api/v2/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n\r\nusername=ad")
    assert closed_by_server(stalled, 10)
    keep.close()
    stalled.close()
    assert q.proc.poll() is None
