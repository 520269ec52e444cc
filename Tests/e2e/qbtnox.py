"""The reference server: Debian's qbittorrent-nox on loopback, configured like qbtd in the tests.

DHT, LSD, PeX, UPnP/NAT-PMP and uTP are off, peers stay on `lo`, peer countries are not resolved (no GeoIP
download), and the legal notice is accepted in the config because 4.5.2 has no flag for it. Login: admin/adminadmin.
"""
import shutil
import subprocess
from pathlib import Path

import requests

from conftest import free_port, wait_for

NOX = shutil.which("qbittorrent-nox")
USERNAME, PASSWORD = "admin", "adminadmin"

CONF = """[LegalNotice]
Accepted=true

[BitTorrent]
Session\\DHTEnabled=false
Session\\LSDEnabled=false
Session\\PeXEnabled=false
Session\\Interface=lo
Session\\InterfaceName=lo
Session\\Port={peer_port}
Session\\BTProtocol=TCP
Session\\DefaultSavePath={save}
Session\\QueueingSystemEnabled=false
{bittorrent}
[Network]
PortForwardingEnabled=false

[Preferences]
Connection\\UPnP=false
Connection\\ResolvePeerCountries=false
General\\Locale=en
WebUI\\Address=127.0.0.1
WebUI\\Port={web_port}
WebUI\\LocalHostAuth=true
WebUI\\CSRFProtection={csrf}
WebUI\\HostHeaderValidation={host_validation}
"""


class QbittorrentNox:
    """One qbittorrent-nox process with its own profile directory under `root`."""

    def __init__(self, root, csrf=True, host_validation=True, bittorrent=None):
        """`bittorrent`: extra `Session\\<key>` settings, for what 4.5.2's WebAPI cannot set."""
        self.root = Path(root)
        self.port = free_port()
        self.peer_port = free_port()
        self.save = self.root / "downloads"
        self.base = f"http://127.0.0.1:{self.port}"
        self.csrf = csrf
        self.host_validation = host_validation
        self.proc = None
        self.username, self.password = USERNAME, PASSWORD
        self.bittorrent = "".join(f"Session\\{k}={v}\n" for k, v in (bittorrent or {}).items())

    def start(self):
        if not NOX:
            raise RuntimeError("qbittorrent-nox is not installed (apt-get install qbittorrent-nox)")
        conf = self.root / "profile" / "qBittorrent" / "config"
        conf.mkdir(parents=True, exist_ok=True)
        self.save.mkdir(parents=True, exist_ok=True)
        (conf / "qBittorrent.conf").write_text(CONF.format(
            peer_port=self.peer_port, web_port=self.port, save=self.save,
            csrf=str(self.csrf).lower(), host_validation=str(self.host_validation).lower(),
            bittorrent=self.bittorrent))
        self.log = open(self.root / "nox.log", "ab")
        self.proc = subprocess.Popen([NOX, f"--profile={self.root / 'profile'}"], stdout=self.log,
                                     stderr=subprocess.STDOUT)

        def up():
            if self.proc.poll() is not None:
                raise AssertionError(f"qbittorrent-nox exited with {self.proc.returncode}; see {self.log.name}")
            try:
                return requests.get(self.base + "/api/v2/app/version", timeout=1).status_code in (200, 403)
            except requests.RequestException:
                return False

        wait_for(up, 60, what="qbittorrent-nox to listen")
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def session(self):
        s = requests.Session()
        r = s.post(self.base + "/api/v2/auth/login", data={"username": USERNAME, "password": PASSWORD})
        assert r.status_code == 200 and r.text == "Ok.", (r.status_code, r.text)
        return s

    def url(self, path):
        return f"{self.base}/api/v2/{path}"
