"""Client suites against qbtd and against the real releases: what test_client_suite.py and
contrib/client-suite-results share.

- `RealRelease`: the real qbittorrent-nox of a profile (4.5.2 on the machine; 5.1.0 and 5.3.0 in the chroots of
  contrib/reference-chroots), with a profile of its own under /tmp (bind-mounted into the chroots, so a path under
  /tmp is the same path on both sides) and admin/adminadmin.
- `prepare_qbtapi_suite`: qbittorrent-api's own test suite, from the sdist contrib/client-suites keeps, made offline:
  what it fetches from GitHub (three .torrent files, an RSS feed, a search plugin) is served from 127.0.0.1.
- `run_qbtapi_suite`: that suite in a subprocess against one server; each test's outcome.
"""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from conftest import end_process, free_port, wait_for  # noqa: E402
from qbtnox import QbittorrentNox  # noqa: E402

CACHE = Path(os.environ.get("QBTD_CLIENT_SUITES", "/var/cache/qbtd-client-suites"))
REFERENCES = Path(os.environ.get("QBTD_REFERENCES", "/var/cache/qbtd-references"))
QBTAPI_VERSION = "2026.10.1"
QBTAPI_SDIST = CACHE / f"qbittorrent_api-{QBTAPI_VERSION}.tar.gz"
RESULTS = HERE / "compat" / "qbittorrent-api-suite"

# The real release each profile is held against. 5.2 has no release on this machine: 5.3.0 is the nearest.
REAL = {"4.6": None, "5.1": "trixie", "5.2": "sid", "5.3": "sid"}
# qbtnox's names of the same releases.
RELEASE_OF = {"4.6": "4.5.2", "5.1": "5.1", "5.2": "5.3", "5.3": "5.3"}

# Tests of the suite that need the internet, whatever the server: qBittorrent's search plugin index on GitHub.
INTERNET_ONLY = [
    "tests/test_search.py::test_update_plugins",      # search/updatePlugins fetches GitHub's plugin index
    "tests/test_search.py::test_download_torrent",    # installs the eztv plugin through updatePlugins first
]

USERNAME, PASSWORD = "admin", "adminadmin"

# The suite expects what its CI has: a server and a test run that are not root. As root, the servers would write
# under /etc (test_set_save_path moves a torrent to /etc/asdf) and the client would read /etc/shadow; both run as
# nobody then, in folders given to nobody.
AS_ROOT = os.geteuid() == 0
UNPRIVILEGED = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if AS_ROOT else []


def give_away(path):
    """Hands `path` (recursively) to the unprivileged user the servers and the suite run as."""
    if AS_ROOT:
        subprocess.run(["chown", "-R", "nobody:nogroup", str(path)], check=True)

def real_version(profile):
    """The real release's version string, or None when it is not on this machine."""
    suite = REAL[profile]
    if suite is None:
        if not shutil.which("qbittorrent-nox"):
            return None
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "qbittorrent-nox"], capture_output=True,
                              text=True).stdout.strip() or "4.5.2"
    v = REFERENCES / f"{suite}.version"
    return v.read_text().strip() if (REFERENCES / suite / "usr/bin/qbittorrent-nox").exists() and v.exists() else None


class RealRelease(QbittorrentNox):
    """The real qbittorrent-nox of `profile` (qbtnox's launcher), its profile folder in `root` (under /tmp), as nobody
    when we are root unless `unprivileged` is False."""

    def __init__(self, profile, root, unprivileged=True):
        super().__init__(root, release=RELEASE_OF[profile], unprivileged=unprivileged)
        self.suite = REAL[profile]


class QbtdServer:
    """qbtd under `profile` for the suite: as nobody when we are root, admin/adminadmin, peers and trackers on `lo`
    and DHT, LSD, PeX and UPnP off through its preferences, as the real releases' configs have them (not with
    --no-discovery, which would pin `dht` to false where the suite toggles it)."""

    def __init__(self, qbtd, profile, root):
        self.qbtd, self.profile, self.root = qbtd, profile, Path(root)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self):
        data = self.root / "data"
        data.mkdir(parents=True, exist_ok=True)
        give_away(self.root)
        self.log = open(self.root / "qbtd.log", "ab")
        self.proc = subprocess.Popen(
            UNPRIVILEGED + [self.qbtd, "--data-dir", str(data), "--host", "127.0.0.1", "--port", str(self.port),
                            "--peer-listen", "127.0.0.1:0", "--no-utp", "--username", USERNAME, "--password",
                            PASSWORD, "--profile", self.profile],
            stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "HOME": str(self.root)})

        def up():
            if self.proc.poll() is not None:
                raise AssertionError(f"qbtd exited with {self.proc.returncode}; see {self.log.name}")
            try:
                return requests.get(self.base + "/api/v2/app/version", timeout=1).status_code in (200, 403)
            except requests.RequestException:
                return False

        wait_for(up, 60, what="qbtd to listen")
        confine_to_loopback(self.base, dht=False, lsd=False, pex=False, upnp=False)
        return self

    def stop(self):
        end_process(self.proc)


class FileServer:
    """Serves a folder on 127.0.0.1 (the suite's resources, the RSS feed, the search plugin)."""

    def __init__(self, folder):
        folder = str(folder)

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k):
                super().__init__(*a, directory=folder, **k)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel>
<title>DistroWatch - Torrents</title><link>{base}/</link><description>local copy for the suite</description>
{items}
</channel></rss>
"""
RSS_ITEM = ("<item><title>{name}</title><link>{base}/{name}</link><guid>{base}/{name}</guid>"
            "<pubDate>Mon, 01 Jan 2024 0{i}:00:00 +0000</pubDate>"
            '<enclosure url="{base}/{name}" length="1000" type="application/x-bittorrent"/></item>')

PLUGIN = '''#VERSION: 1.0
# A stand-in for the suite's therarbg plugin (GitHub): installs, finds nothing.
class therarbg(object):
    url = "http://127.0.0.1"
    name = "TheRARBG"
    supported_categories = {"all": "", "movies": "Movies", "tv": "TV"}

    def search(self, what, cat="all"):
        pass
'''

RESULTS_PLUGIN = '''"""Writes each test's outcome to $QBTD_SUITE_RESULTS (JSON) as the run goes."""
import json, os
outcomes = {}

def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        out = report.outcome
        if hasattr(report, "wasxfail"):
            out = "xfailed" if report.skipped else "xpassed"
        elif report.when != "call" and report.outcome == "failed":
            out = "error"
        if report.nodeid not in outcomes or out in ("failed", "error"):
            outcomes[report.nodeid] = out
        with open(os.environ["QBTD_SUITE_RESULTS"], "w") as f:
            json.dump(outcomes, f, indent=0, sort_keys=True)
'''


def prepare_qbtapi_suite(work):
    """Unpacks qbittorrent-api's tests into `work`/qbittorrent-api (the suite insists on that folder name) with the
    internet swapped for a FileServer. Returns (suite folder, FileServer); stop the server when done."""
    if not QBTAPI_SDIST.exists():
        raise FileNotFoundError(f"{QBTAPI_SDIST} is missing: run contrib/client-suites")
    dest = Path(work) / "qbittorrent-api"
    with tarfile.open(QBTAPI_SDIST) as tar:
        top = f"qbittorrent_api-{QBTAPI_VERSION}/"
        members = [m for m in tar.getmembers() if m.name.startswith(top + "tests/") or m.name == top + "pyproject.toml"]
        for m in members:
            m.name = m.name[len(top):]
        tar.extractall(dest, members=members)  # noqa: S202 (a pinned sdist, checked by its SHA-256)
    resources = dest / "tests" / "_resources"
    served = Path(work) / "served"
    served.mkdir()
    for f in resources.glob("*.torrent"):
        shutil.copy(f, served / f.name)
    server = FileServer(served)
    names = sorted(f.name for f in served.glob("*.torrent"))
    (served / "rss.xml").write_text(RSS.format(base=server.url, items="\n".join(
        RSS_ITEM.format(base=server.url, name=n, i=i) for i, n in enumerate(names))))
    (served / "therarbg.py").write_text(PLUGIN)
    edits = {
        "conftest.py": [("https://github.com/rmartin16/qbittorrent-api/raw/main/tests/_resources", server.url)],
        "test_rss.py": [(re.compile(r'RSS_URL = \(\n.*?\n\)', re.S), f'RSS_URL = "{server.url}/rss.xml"')],
        "test_search.py": [(re.compile(r'PLUGIN_URL = ".*?"'), f'PLUGIN_URL = "{server.url}/therarbg.py"')],
        # the suite's container sees tests/_resources at /tmp/_resources; here the server sees the same path as we do
        "test_request.py": [('mkpath("/tmp", "_resources",', f'mkpath("{resources}",')],
        "test_torrentcreator.py": [('"/tmp/_resources/test_torrent"', f'"{resources}/test_torrent"')],
    }
    for name, subs in edits.items():
        path = dest / "tests" / name
        text = path.read_text()
        for old, new in subs:
            changed = old.sub(new, text) if hasattr(old, "sub") else text.replace(old, new)
            assert changed != text, f"{name}: {old!r} is no longer in qbittorrent-api's suite"
            text = changed
        path.write_text(text)
    (dest / "qbtd_suite_results.py").write_text(RESULTS_PLUGIN)
    shutil.copy(dest / "tests" / "test_request.py", dest / "test_request.py.orig")
    give_away(work)
    return dest, server


def run_qbtapi_suite(suite, host, results, timeout, extra=(), log=None, paths=None):
    """Runs the prepared suite against `host` (HOST:PORT, admin/adminadmin unless `extra` env says otherwise) in a
    subprocess; returns {test id: passed|failed|error|skipped|xfailed|xpassed}. The run is killed after `timeout` s
    (what finished by then is returned, and "timeout" is among the values)."""
    # test_request.py names the server as CI runs it, localhost:8080
    text = (Path(suite) / "test_request.py.orig").read_text()
    port = host.split(":")[1]
    text = text.replace("localhost:8080", f"localhost:{port}").replace("port=8080", f"port={port}")
    (Path(suite) / "tests" / "test_request.py").write_text(text)
    # REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE override the client's VERIFY_WEBUI_CERTIFICATE=False in requests: the
    # suite could not switch the WebUI back from HTTPS and every later test would fail
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("QBT", "PYTEST", "CI")) and k not in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")}
    env.update(QBITTORRENTAPI_HOST=host, QBITTORRENTAPI_USERNAME=USERNAME, QBITTORRENTAPI_PASSWORD=PASSWORD,
               QBTD_SUITE_RESULTS=str(results), PYTHONDONTWRITEBYTECODE="1", HOME=str(Path(suite).parent))
    give_away(Path(suite).parent)
    env.update(dict(extra))
    args = UNPRIVILEGED + [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "qbtd_suite_results", "-q",
            "--no-header", "-o", "addopts=", "--tb=short"]
    # test ids name the suite's own port, localhost:8080 (test_request.py): back to this server's
    args += [p.replace("localhost:8080", f"localhost:{port}") for p in paths] if paths else ["tests"]
    for t in INTERNET_ONLY:
        args += ["--deselect", t]
    out = open(log, "wb") if log else subprocess.DEVNULL
    proc = subprocess.Popen(args, cwd=suite, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = False
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, 9)
        proc.wait()
    outcomes = json.loads(Path(results).read_text()) if Path(results).exists() else {}
    # test_request.py's ids carry the port: back to the suite's own names
    outcomes = {t.replace(f"localhost:{port}", "localhost:8080"): o for t, o in outcomes.items()}
    if timed_out:
        outcomes["<timeout>"] = "timeout"
    return outcomes


def confine_to_loopback(base, **more):
    """A qbtd's peers and trackers on `lo` only, as the real releases' configs have it (Session\\Interface=lo): the
    suites add Ubuntu torrents whose trackers are on the internet."""
    s = requests.Session()
    r = s.post(base + "/api/v2/auth/login", data={"username": USERNAME, "password": PASSWORD})
    assert r.status_code in (200, 204), (r.status_code, r.text)
    r = s.post(base + "/api/v2/app/setPreferences", data={"json": json.dumps({"current_network_interface": "lo", **more})})
    assert r.ok, (r.status_code, r.text)
