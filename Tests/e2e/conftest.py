"""End-to-end fixtures: a real qbtd process, a real libtorrent seeder, all on 127.0.0.1."""
import hashlib
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import libtorrent as lt
import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
QBTD = os.environ.get("QBTD_BIN", str(ROOT / ".build" / "debug" / "qbtd"))
PASSWORD = "test-password-1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BytesServer:
    """An HTTP server on 127.0.0.1 that answers every GET with `body` (bytes or str, read at each request, so a test
    may change it), counting the fetches. `url` names `path` on it."""

    def __init__(self, body, path="/"):
        import http.server
        import threading
        server = self
        self.body, self.fetches = body, 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.fetches += 1
                data = server.body.encode() if isinstance(server.body, str) else server.body
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def stop(self):
        self.httpd.shutdown()


def end_process(proc, grace=30):
    """SIGTERM, then SIGKILL after `grace` seconds: how the tests stop a server they started."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def wait_for(predicate, timeout, interval=0.2, what="condition"):
    """Polls `predicate` until it returns a truthy value; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


class PortTaken(AssertionError):
    """Another process bound the WebAPI port between free_port() and qbtd's bind (a connection's ephemeral port)."""


class Qbtd:
    """One qbtd process on loopback, with discovery and uTP off."""

    # The profile a test gets unless it names one: qbtd presents 5.3 by default, but most of the suite was written
    # against 5.1's answers ("Ok." texts, 200 for void actions); QBTD_TEST_PROFILE runs it under another (5.3's own
    # answers are held by test_v53.py, the differential suite and the client suites). None: the binary's default.
    TEST_PROFILE = os.environ.get("QBTD_TEST_PROFILE", "5.1")

    def __init__(self, data_dir, port=None, username=None, password=PASSWORD, resume_interval=1, extra=(),
                 profile=TEST_PROFILE, env=None, wrapper=(), utp=False, host="127.0.0.1"):
        self.data_dir = Path(data_dir)
        self.host = host  # where it serves and listens for peers (a network namespace's address in the partition tests)
        # `env`: variables added to this process's environment for qbtd (LD_PRELOAD for libfaketime); `wrapper`: a
        # command qbtd is started under, which must exec it so the process is qbtd's (`fiu-run -x`).
        self.env = dict(env or {})
        self.wrapper = list(wrapper)
        self.chosen_port = port is None  # a port free_port() picked may be taken before qbtd binds it: start() picks again
        self.port = port or free_port()
        self.username = username
        self.password = password
        self.extra = list(extra)
        if profile and "--profile" not in self.extra:
            self.extra += ["--profile", profile]
        self.resume_interval = resume_interval
        self.utp = utp  # uTP beside TCP, as qbtd's default is (tests and benchmarks use TCP alone unless they ask)
        self.proc = None
        self.base = f"http://{self.host}:{self.port}"

    def start(self):
        for attempt in range(3):
            try:
                return self._start()
            except PortTaken:
                if not self.chosen_port or attempt == 2:
                    raise
                self.port = free_port()
                self.base = f"http://{self.host}:{self.port}"

    def _start(self):
        args = [QBTD, "--data-dir", str(self.data_dir), "--host", self.host, "--port", str(self.port),
                "--peer-listen", f"{self.host}:0", "--no-discovery", *([] if self.utp else ["--no-utp"]),
                *([] if self.resume_interval is None else ["--resume-interval", str(self.resume_interval)])]
        if self.username:
            args += ["--username", self.username]
        if self.password:
            args += ["--password", self.password]
        self.log = open(self.data_dir.parent / f"qbtd-{self.port}.log", "ab")
        logged = self.log.tell()
        self.proc = subprocess.Popen(self.wrapper + args + self.extra, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **self.env} if self.env else None)

        def up():
            if self.proc.poll() is not None:
                self.log.flush()
                said = Path(self.log.name).read_bytes()[logged:].decode(errors="replace")
                if "Address already in use" in said:
                    raise PortTaken(f"port {self.port} was taken before qbtd could bind it; see {self.log.name}")
                raise AssertionError(f"qbtd exited with {self.proc.returncode}; the end of {self.log.name}:\n{said[-3000:]}")
            try:
                return requests.get(self.base + "/", timeout=1).ok
            except requests.RequestException:
                return False

        wait_for(up, 60, what="qbtd to listen")
        return self

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def session(self, username="admin"):
        s = requests.Session()
        r = s.post(self.base + "/api/v2/auth/login", data={"username": self.username or username, "password": self.password})
        # 5.2 and later answer a login with 204 and no body.
        assert (r.status_code, r.text) in ((200, "Ok."), (204, "")), (r.status_code, r.text)
        return s

    def url(self, path):
        return f"{self.base}/api/v2/{path}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test shows the end of every qbtd log it wrote: a CI run keeps nothing else of the server's side."""
    outcome = yield
    report = outcome.get_result()
    tmp = item.funcargs.get("tmp_path") if hasattr(item, "funcargs") else None
    if report.failed and tmp is not None:
        # Not `**`: a test may leave folders thousands deep behind (test_paths_matrix).
        for log in sorted(list(Path(tmp).glob("qbtd-*.log")) + list(Path(tmp).glob("*/qbtd-*.log")))[:4]:
            lines = log.read_bytes().decode(errors="replace").splitlines()
            report.sections.append((f"qbtd log {log.name} (last 60 of {len(lines)} lines)", "\n".join(lines[-60:])))


@pytest.fixture
def qbtd_factory(tmp_path):
    started = []

    def make(data_dir=None, **kwargs):
        d = Path(data_dir) if data_dir else tmp_path / f"data{len(started)}"
        d.mkdir(parents=True, exist_ok=True)
        q = Qbtd(d, **kwargs).start()
        started.append(q)
        return q

    yield make
    for q in started:
        q.stop()


def loopback_session(port):
    """A python-libtorrent session on 127.0.0.1:`port`, TCP only, no discovery."""
    return lt.session({
        "listen_interfaces": f"127.0.0.1:{port}", "enable_dht": False, "enable_lsd": False,
        "enable_upnp": False, "enable_natpmp": False, "enable_outgoing_utp": False,
        "enable_incoming_utp": False, "allow_multiple_connections_per_ip": True, "alert_mask": 0,
    })


def vm(pid, key):
    """A process's /proc/PID/status memory figure (VmRSS, VmHWM) in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {key} for process {pid}")


def speak_only(session, transport):
    """`session` (a python-libtorrent session) accepts and makes connections over `transport` ("tcp" or "utp") alone."""
    utp = transport == "utp"
    session.apply_settings({"enable_incoming_utp": utp, "enable_outgoing_utp": utp,
                            "enable_incoming_tcp": not utp, "enable_outgoing_tcp": not utp})


def seed(info, save_path, port):
    """A python-libtorrent session on 127.0.0.1:`port` (TCP only, no discovery) seeding `info` from `save_path`."""
    session = loopback_session(port)
    params = lt.add_torrent_params()
    params.ti = info
    params.save_path = str(save_path)
    params.flags = lt.torrent_flags.seed_mode
    return session, session.add_torrent(params)


class Seeder:
    """A python-libtorrent session on 127.0.0.1 seeding generated files."""

    def __init__(self, root, sizes, piece_size=256 * 1024, upload_limit=0):
        self.root = Path(root)
        content = self.root / "payload"
        content.mkdir(parents=True)
        rng = hashlib.sha256(str(sizes).encode()).digest()
        self.hashes = {}
        for i, size in enumerate(sizes):
            path = content / (f"dir{i % 2}" if i else "") / f"file{i}.bin"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as f:
                f.write(os.urandom(size))
            self.hashes[str(path.relative_to(self.root))] = sha256(path)
        fs = lt.file_storage()
        lt.add_files(fs, str(content))
        ct = lt.create_torrent(fs, piece_size)
        ct.set_creator("qbtd tests")
        lt.set_piece_hashes(ct, str(self.root))
        self.torrent = lt.bencode(ct.generate())
        self.info = lt.torrent_info(lt.bdecode(self.torrent))
        self.magnet = lt.make_magnet_uri(self.info)
        self.id = str(self.info.info_hashes().get_best())
        self.port = free_port()
        self.session, self.handle = seed(self.info, self.root, self.port)
        if upload_limit:
            self.handle.set_upload_limit(upload_limit)
        wait_for(lambda: self.handle.status().is_seeding, 60, what="seeder ready")

    @property
    def peer(self):
        return f"127.0.0.1:{self.port}"

    def verify(self, save_path):
        for rel, digest in self.hashes.items():
            got = Path(save_path) / rel
            assert got.exists(), f"missing {got}"
            assert sha256(got) == digest, f"{got} differs from the seed"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# 3 files, 40 MiB in all.
SIZES = [20 * 1024 * 1024, 12 * 1024 * 1024 + 12345, 8 * 1024 * 1024 - 777]


@pytest.fixture(scope="session")
def seeder(tmp_path_factory):
    return Seeder(tmp_path_factory.mktemp("seed"), SIZES)


def plugin_processes(q):
    """Processes running a plugin of this server: everything under its nova3 folder but the warm fork server
    (qbtd's own child; plugin runs are the fork server's children, and what they start)."""
    nova = str(q.data_dir / "nova3")
    found = subprocess.run(["pgrep", "-f", nova], capture_output=True, text=True).stdout.split()
    out = []
    for pid in found:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        if int(fields[1]) != q.proc.pid:
            out.append(int(pid))
    return out


def pytest_report_header(config):
    """The real releases the differential tests compare qbtd's profiles with, on this machine."""
    from qbtnox import REFERENCES
    lines = []
    for ref in REFERENCES.values():
        why = ref.missing()
        lines.append(f"reference: {ref.describe()}" if not why else
                     f"reference: qbtd --profile {ref.profile}: none ({why})")
    return lines


def pytest_terminal_summary(terminalreporter):
    """Which real version each profile was compared with in this run (test_differential.py records them)."""
    import sys
    module = sys.modules.get("test_differential")
    compared = getattr(module, "COMPARED", None)
    if compared:
        terminalreporter.section("compared with the real releases")
        for profile in sorted(compared):
            terminalreporter.write_line(compared[profile])
