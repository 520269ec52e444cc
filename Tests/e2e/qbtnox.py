"""The reference servers: real qbittorrent-nox releases on loopback, configured like qbtd in the tests.

Each qbtd profile is held against the real release it names (see REFERENCES): profile 4.6 against Debian 12's own
qbittorrent-nox 4.5.2 (/usr/bin/qbittorrent-nox), 5.1 against Debian trixie's 5.1.0 and 5.3 against sid's 5.3.x, the
last two in the chroots `contrib/reference-chroots` makes once per machine (`make test` runs it) under
$QBTD_REFERENCES or /var/cache/qbtd-references.

DHT, LSD, PeX, UPnP/NAT-PMP and uTP are off, peers stay on `lo`, peer countries are not resolved (no GeoIP
download), and the legal notice is accepted in the config (4.5.2 has no flag for it). Login: admin/adminadmin, written
into the config as its PBKDF2 hash (5.x has no default password; 4.5.2 reads the same line).

A chroot'ed release runs in a mount namespace of its own (`unshare --mount`) in which /tmp, /proc and /dev are bound
into the chroot: the mounts vanish with the process, none is left on the machine, and concurrent or stale mounts of
anyone else do not matter. Its profile directory must be under /tmp (pytest's tmp_path is) so both sides see it.
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import requests

from conftest import end_process, free_port, wait_for

NOX = shutil.which("qbittorrent-nox")
USERNAME, PASSWORD = "admin", "adminadmin"
CHROOTS = Path(os.environ.get("QBTD_REFERENCES", "/var/cache/qbtd-references"))


@dataclass(frozen=True)
class Reference:
    """The real release a qbtd profile is compared with."""
    profile: str          # qbtd --profile
    expected: str         # the upstream version that profile is held against
    suite: str = None     # Debian suite of the chroot; None: the machine's own qbittorrent-nox

    @property
    def root(self):
        return CHROOTS / self.suite if self.suite else None

    @property
    def program(self):
        return str(self.root / "usr/bin/qbittorrent-nox") if self.suite else NOX

    def missing(self):
        """Why this reference cannot run here (a skip reason), or None."""
        if not self.suite:
            return None if NOX else "qbittorrent-nox is not installed (make deps-test installs it)"
        if not (self.root / "usr/bin/qbittorrent-nox").exists() or not self.version_file.exists():
            return (f"no {self.suite} chroot with qbittorrent-nox at {self.root} (make test makes it: "
                    f"contrib/reference-chroots)")
        if os.geteuid() != 0:
            return f"running the {self.suite} chroot's qbittorrent-nox needs root (chroot, mount)"
        return None

    @property
    def version_file(self):
        return CHROOTS / f"{self.suite}.version"

    @property
    def package_version(self):
        """Debian's version of the package, e.g. 5.1.0-2 or 4.5.2-3+deb12u1."""
        if self.suite:
            return self.version_file.read_text().strip()
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "qbittorrent-nox"], capture_output=True,
                              text=True).stdout.strip()

    @property
    def version(self):
        """The upstream version of the installed package: 5.3.0 for 1:5.3.0-1."""
        v = self.package_version.split(":")[-1]
        return re.sub(r"[-+~].*$", "", v)

    @property
    def current(self):
        """True when the reference is the release the profile claims; False when the suite moved on (sid)."""
        return self.version == self.expected

    def describe(self):
        where = f"Debian {self.suite} chroot" if self.suite else "Debian 12, /usr/bin"
        s = f"qbtd --profile {self.profile} vs qbittorrent-nox {self.package_version} ({where})"
        if not self.current:
            s += f": {self.suite} moved to {self.version}, the profile presents {self.expected}; differences are warnings"
        return s


REFERENCES = {
    "4.6": Reference("4.6", "4.5.2"),
    "5.1": Reference("5.1", "5.1.0", "trixie"),
    "5.3": Reference("5.3", "5.3.0", "sid"),
}
# Releases by the names tests use: the host's 4.5.2 and the chroots' 5.1 and 5.3.
RELEASES = {"4.5.2": REFERENCES["4.6"], "5.1": REFERENCES["5.1"], "5.3": REFERENCES["5.3"]}


def password_line(password=PASSWORD, salt=None):
    """WebUI\\Password_PBKDF2 as qBittorrent writes it: PBKDF2-HMAC-SHA512, 100,000 iterations, a 16-byte salt."""
    salt = salt or os.urandom(16)
    key = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, 100_000)
    return f'"@ByteArray({base64.b64encode(salt).decode()}:{base64.b64encode(key).decode()})"'


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
WebUI\\Username={username}
WebUI\\Password_PBKDF2={password}
"""


def login_ok(r):
    """4.x and 5.1 answer 200 "Ok."; 5.2+ answer 204 with no body."""
    return (r.status_code, r.text) in ((200, "Ok."), (204, ""))


class QbittorrentNox:
    """One qbittorrent-nox process with its own profile directory under `root`.

    `release`: "4.5.2" (the machine's, the default), "5.1" (trixie's chroot) or "5.3" (sid's), or a Reference."""

    def __init__(self, root, csrf=True, host_validation=True, bittorrent=None, release="4.5.2", unprivileged=False):
        """`bittorrent`: extra `Session\\<key>` settings, for what 4.5.2's WebAPI cannot set. `unprivileged`: run as
        nobody (when we are root), its folder handed over (qbittorrent-api's suite expects a server that is not root)."""
        self.reference = release if isinstance(release, Reference) else RELEASES[release]
        self.root = Path(root).resolve()
        self.port = free_port()
        self.peer_port = free_port()
        self.save = self.root / "downloads"
        self.base = f"http://127.0.0.1:{self.port}"
        self.csrf = csrf
        self.host_validation = host_validation
        self.proc = None
        self.username, self.password = USERNAME, PASSWORD
        self.bittorrent = "".join(f"Session\\{k}={v}\n" for k, v in (bittorrent or {}).items())
        self.unprivileged = unprivileged and os.geteuid() == 0

    def command(self):
        ref = self.reference
        if not ref.suite:
            nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if self.unprivileged else []
            return nobody + [NOX, f"--profile={self.root / 'profile'}"]
        if not str(self.root).startswith("/tmp/"):
            raise RuntimeError(f"a chroot'ed qbittorrent-nox sees only /tmp of this machine; {self.root} is not under it")
        root = str(ref.root)
        # A mount namespace of its own: the binds go with the process.
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                f'mount --bind /tmp "{root}/tmp" && mount --bind /proc "{root}/proc" && '
                f'mount --rbind /dev "{root}/dev" && exec chroot {"--userspec=nobody:nogroup " if self.unprivileged else ""}'
                f'"{root}" /usr/bin/qbittorrent-nox "$0"',
                f"--profile={self.root / 'profile'}"]

    def start(self):
        why = self.reference.missing()
        if why:
            raise RuntimeError(why)
        conf = self.root / "profile" / "qBittorrent" / "config"
        conf.mkdir(parents=True, exist_ok=True)
        self.save.mkdir(parents=True, exist_ok=True)
        (conf / "qBittorrent.conf").write_text(CONF.format(
            peer_port=self.peer_port, web_port=self.port, save=self.save,
            csrf=str(self.csrf).lower(), host_validation=str(self.host_validation).lower(),
            bittorrent=self.bittorrent, username=USERNAME, password=password_line()))
        env = None
        if self.unprivileged:  # its folder given to nobody, and a HOME it can write
            subprocess.run(["chown", "-R", "nobody:nogroup", str(self.root)], check=True)
            env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(self.root), "LANG": "C.UTF-8"}
        self.log = open(self.root / "nox.log", "ab")
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT, env=env)

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
        end_process(self.proc)

    def session(self):
        s = requests.Session()
        r = s.post(self.base + "/api/v2/auth/login", data={"username": USERNAME, "password": PASSWORD})
        assert login_ok(r), (r.status_code, r.text)
        return s

    def url(self, path):
        return f"{self.base}/api/v2/{path}"

    def app_version(self):
        """What the running server says it is (app/version), e.g. v5.1.0."""
        return self.session().get(self.url("app/version"), timeout=10).text
