import Foundation

/// The Python side of qBittorrent's nova3 plugin format, written for qbtd: the helper modules plugins import
/// (`novaprinter`, `helpers`), a runner that executes one engine, and a probe that reads an engine's metadata.
/// qbtd writes them into `<data>/nova3` at start, as qBittorrent rewrites its own copies.
enum NovaScripts {
    static func files(quotedNames: Bool) -> [String: String] {
        [
            "novaprinter.py": quotedNames ? novaprinterQuoting : novaprinter, "helpers.py": helpers, "qbtd_run.py": runner,
            "qbtd_probe.py": probe, "qbtd_forkserver.py": forkServer,
        ]
    }

    /// Writes the scripts (and the `engines` folder) under `directory`; `quotedNames`: 5.3's printer.
    static func install(into directory: String, quotedNames: Bool = false) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory + "/engines", withIntermediateDirectories: true)
        for (name, text) in files(quotedNames: quotedNames) {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name), options: .atomic)
        }
        let initFile = directory + "/engines/__init__.py"
        if !fm.fileExists(atPath: initFile) { _ = fm.createFile(atPath: initFile, contents: Data()) }
    }

    /// One result per line: `link|name|size|seeds|leech|engine_url|desc_link|pub_date` (qBittorrent 5.x); a `|` in a
    /// value becomes a space.
    static let novaprinter = printer(name: #"field("name")"#)

    /// 5.3's: the name percent-encoded (so a `|` in it survives; `SearchResult.parse` decodes it).
    static let novaprinterQuoting = printer(name: #"urllib.parse.quote(str(dictionary.get("name", "")))"#)

    static func printer(name: String) -> String {
        novaprinterHead.replacingOccurrences(of: "NAME_FIELD", with: name) + novaprinterTail
    }

    static let novaprinterHead = #"""
    # qbtd's novaprinter: the output half of qBittorrent's nova3 plugin API.
    import re
    import urllib.parse


    def prettyPrinter(dictionary):
        def field(key, default=""):
            return str(dictionary.get(key, default)).replace("|", " ").replace("\n", " ").replace("\r", " ")
        size = anySizeToBytes(dictionary.get("size", -1))
        line = "|".join([
            field("link"), NAME_FIELD, str(size), field("seeds", -1), field("leech", -1),
            field("engine_url"), field("desc_link"), field("pub_date", -1),
        ])
        print(line, flush=True)


    """#

    static let novaprinterTail = #"""
    def anySizeToBytes(size_string):
        """'1.5 GB' -> bytes (binary units, as qBittorrent); -1 when it cannot be read."""
        if isinstance(size_string, (int, float)):
            return int(size_string)
        text = str(size_string).strip()
        match = re.fullmatch(r"([0-9]+(?:[.,][0-9]+)?)\s*([A-Za-z]*)", text)
        if not match:
            return -1
        number = float(match.group(1).replace(",", "."))
        unit = match.group(2).upper().rstrip("B").rstrip("I")
        powers = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
        if unit not in powers:
            return -1
        return int(number * 1024 ** powers[unit])
    """#

    /// `retrieve_url` and `download_file`, as plugins call them.
    static let helpers = #"""
    # qbtd's helpers: the network half of qBittorrent's nova3 plugin API.
    import gzip
    import html
    import os
    import re
    import socket
    import tempfile
    import urllib.request

    user_agent = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
    headers = {"User-Agent": user_agent}


    def _recv(sock, n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise OSError("the SOCKS5 proxy closed the connection")
            data += chunk
        return data


    def _socks5_route(proxy):
        """qBittorrent's `sock_proxy` (`[user:password@]host:port`): every connection a plugin opens goes through
        the SOCKS5 proxy, names resolved by the proxy."""
        credentials, _, address = proxy.rpartition("@")
        user, _, password = credentials.partition(":")
        host, _, port = address.rpartition(":")
        host = host.strip("[]")
        direct = socket.create_connection

        def connect(target, timeout=socket._GLOBAL_DEFAULT_TIMEOUT, source_address=None, **kwargs):
            sock = direct((host, int(port)), timeout)
            try:
                sock.sendall(b"\x05\x01" + (b"\x02" if credentials else b"\x00"))
                if _recv(sock, 2)[1] == 2:
                    u, p = user.encode(), password.encode()
                    sock.sendall(b"\x01" + bytes([len(u)]) + u + bytes([len(p)]) + p)
                    if _recv(sock, 2)[1] != 0:
                        raise OSError("the SOCKS5 proxy refused the user name or password")
                name = str(target[0]).encode("idna")
                sock.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + int(target[1]).to_bytes(2, "big"))
                reply = _recv(sock, 4)
                if reply[1] != 0:
                    raise OSError("the SOCKS5 proxy could not connect (code %d)" % reply[1])
                _recv(sock, {1: 4, 4: 16}.get(reply[3], 0) or _recv(sock, 1)[0])
                _recv(sock, 2)
                return sock
            except BaseException:
                sock.close()
                raise

        socket.create_connection = connect


    if os.environ.get("sock_proxy"):
        _socks5_route(os.environ["sock_proxy"])


    def htmlentitydecode(s):
        return html.unescape(s)


    def _open(url, custom_headers=None, request_data=None):
        request = urllib.request.Request(url, request_data, {**headers, **(custom_headers or {})})
        response = urllib.request.urlopen(request, timeout=30)
        data = response.read()
        if response.info().get("Content-Encoding") == "gzip":
            data = gzip.decompress(data)
        return response, data


    def retrieve_url(url, custom_headers={}, request_data=None, ssl_context=None, unsafe=False):
        """The page at `url` as text ('' on failure, as qBittorrent's helper)."""
        try:
            response, data = _open(url, custom_headers, request_data)
        except Exception:
            return ""
        charset = "utf-8"
        match = re.search(r"charset=([\w-]+)", response.info().get("Content-Type", ""))
        if match:
            charset = match.group(1)
        return data.decode(charset, "replace")


    def download_file(url, referer=None, ssl_context=None, unsafe=False):
        """Saves `url` to a temporary file; returns 'path url'."""
        _, data = _open(url, {"referer": referer} if referer else None)
        fd, path = tempfile.mkstemp(suffix=".torrent")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path + " " + url
    """#

    /// `qbtd_run.py ENGINE CATEGORY WORD...`: runs one engine's `search(what, cat)`; exit 2 for a bad call.
    static let runner = #"""
    # qbtd's runner: one nova3 engine per process, so qbtd can supervise each one on its own.
    import importlib
    import os
    import sys
    import urllib.parse

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [here, os.path.join(here, "engines")]

    if len(sys.argv) < 4:
        sys.exit(2)
    name, category, words = sys.argv[1], sys.argv[2], sys.argv[3:]
    engine = getattr(importlib.import_module(name), name)()
    if category != "all" and category not in getattr(engine, "supported_categories", {}):
        sys.exit(0)
    engine.search(urllib.parse.quote(" ".join(words)), category)
    """#

    /// `qbtd_forkserver.py`: one warm interpreter (the standard modules plugins and `helpers` import, loaded once)
    /// that forks a child per plugin run, so a search no longer waits for one interpreter to start per plugin. It
    /// reads JSON requests on stdin, one a line, and answers on stdout:
    ///
    /// - `{"op": "run", "id": N, "argv": [...], "env": {...}, "out": FIFO, "err": FIFO}` → `{"id": N, "pid": P}`
    ///   (or `{"id": N, "error": "..."}`), later `{"id": N, "exit": CODE}` or `{"id": N, "signal": S}`. The child
    ///   opens the two FIFOs as its stdout and stderr, lays `env` over its environment and runs `qbtd_run.py` with
    ///   `argv`, in a session of its own (a kill reaches whatever it started) that dies with the server.
    /// - `{"op": "kill", "id": N, "signal": S}`: to the child's process group, while it has not been reaped.
    ///
    /// End of stdin (qbtd gone) kills every child and ends the server.
    static let forkServer = #"""
    # qbtd's fork server: a warm interpreter that forks one child per nova3 plugin run.
    import ctypes
    import json
    import os
    import runpy
    import select
    import signal
    import sys
    import traceback

    # What plugins and qbtd's helpers import, loaded once here (not helpers or novaprinter themselves: each child
    # imports those fresh, under its own environment, and plugins are read anew from disk every run).
    import gzip  # noqa: F401
    import html  # noqa: F401
    import http.client  # noqa: F401
    import importlib  # noqa: F401
    import io  # noqa: F401
    import re  # noqa: F401
    import socket  # noqa: F401
    import tempfile  # noqa: F401
    import urllib.parse  # noqa: F401
    import urllib.request  # noqa: F401

    here = os.path.dirname(os.path.abspath(__file__))
    runner = os.path.join(here, "qbtd_run.py")
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    children = {}  # pid -> request id


    def reply(message):
        os.write(1, (json.dumps(message) + "\n").encode())


    def child(request, wakeup, parent):
        code = 1
        try:
            os.setsid()
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the server died before the line above
                os._exit(1)
            for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
                signal.signal(s, signal.SIG_DFL)
            signal.set_wakeup_fd(-1)
            os.close(wakeup[0])
            os.close(wakeup[1])
            # Non-blocking opens fail at once (ENXIO) when qbtd no longer holds the FIFO open for reading.
            out = os.open(request["out"], os.O_WRONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            err = os.open(request["err"], os.O_WRONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            os.set_blocking(out, True)
            os.set_blocking(err, True)
            null = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            os.dup2(null, 0)
            os.dup2(out, 1)
            os.dup2(err, 2)
            # Nothing else of the server's (nor what a spawn let through to it from qbtd) reaches a plugin. The
            # server keeps its own: Foundation learns that the server ended from one of them.
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            os.environ.update({str(k): str(v) for k, v in request.get("env", {}).items()})
            sys.argv = [runner] + [str(a) for a in request["argv"]]
            try:
                runpy.run_path(runner, run_name="__main__")
                code = 0
            except SystemExit as e:
                if isinstance(e.code, int) or e.code is None:
                    code = e.code or 0
                else:
                    print(e.code, file=sys.stderr)
                    code = 1
            except BaseException:
                traceback.print_exc()
                code = 1
            # As an interpreter that ends on its own: threads a plugin left running finish, atexit runs.
            import atexit
            import threading
            for thread in threading.enumerate():
                if thread is not threading.main_thread() and not thread.daemon:
                    thread.join()
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
        finally:
            os._exit(code)


    def reap():
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            ident = children.pop(pid, None)
            if ident is None:
                continue
            if os.WIFSIGNALED(status):
                reply({"id": ident, "signal": os.WTERMSIG(status)})
            else:
                reply({"id": ident, "exit": os.WEXITSTATUS(status)})


    def handle(request, wakeup):
        ident = request.get("id")
        if request.get("op") == "kill":
            for pid, owner in children.items():
                if owner == ident:
                    signum = int(request.get("signal", signal.SIGTERM))
                    try:
                        os.killpg(pid, signum)
                    except ProcessLookupError:  # not yet leading a group of its own: the child alone (unreaped: its pid)
                        try:
                            os.kill(pid, signum)
                        except OSError:
                            pass
                    except OSError:
                        pass
            return
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError as e:
            reply({"id": ident, "error": str(e)})
            return
        if pid == 0:
            child(request, wakeup, parent)
        children[pid] = ident
        reply({"id": ident, "pid": pid})


    def main():
        # Started with signals blocked (qbtd's threads block some), a child reaped late and a plugin deaf to SIGTERM.
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        wakeup = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wakeup[1])
        pending = b""
        while True:
            try:
                # A child's end wakes the loop; while children run it also looks every second, whatever happens.
                ready, _, _ = select.select([0, wakeup[0]], [], [], 1.0 if children else None)
            except InterruptedError:
                continue
            if wakeup[0] in ready or children:
                try:
                    while os.read(wakeup[0], 512):
                        pass
                except BlockingIOError:
                    pass
                reap()
            if 0 in ready:
                data = os.read(0, 1 << 16)
                if not data:
                    for pid in list(children):
                        for kill in (os.killpg, os.kill):
                            try:
                                kill(pid, signal.SIGKILL)
                            except OSError:
                                pass
                    return
                pending += data
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        try:
                            handle(json.loads(line), wakeup)
                        except (ValueError, KeyError, TypeError) as e:
                            sys.stderr.write("qbtd fork server: bad request: %s\n" % e)


    main()
    """#

    /// `qbtd_probe.py ENGINE`: the engine's name, url and categories as one JSON line.
    static let probe = #"""
    # qbtd's probe: what qBittorrent's `nova2.py --capabilities` tells about one engine, as JSON.
    import importlib
    import json
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [here, os.path.join(here, "engines")]

    name = sys.argv[1]
    engine = getattr(importlib.import_module(name), name)
    print(json.dumps({
        "name": str(getattr(engine, "name", name)),
        "url": str(getattr(engine, "url", "")),
        "categories": [c for c in getattr(engine, "supported_categories", {}) if c != "all"],
    }))
    """#
}
