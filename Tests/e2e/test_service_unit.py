"""Issue 20 (item 5): the systemd unit is hardened, verifies, scores well, and qbtd starts the way it starts it."""
import os
import shutil
import subprocess
from pathlib import Path

import requests

from conftest import QBTD, ROOT, free_port, wait_for

UNIT = ROOT / "contrib" / "qbtd.service"
SYSUSERS = ROOT / "contrib" / "qbtd.sysusers"


def directives(text):
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")) and "=" in line:
            key, value = line.split("=", 1)
            out.setdefault(key, []).append(value)
    return out


def test_unit_is_hardened_and_verifies(tmp_path):
    text = UNIT.read_text()
    d = directives(text)
    for key, value in [("User", "qbtd"), ("Group", "qbtd"), ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"),
                       ("PrivateTmp", "yes"), ("StateDirectory", "qbtd"), ("KillSignal", "SIGTERM")]:
        assert d.get(key) == [value], (key, d.get(key))
    assert d["ReadWritePaths"] and all(p.startswith("-/") for p in d["ReadWritePaths"])  # download folders, optional
    assert d["Environment"] == ["QBTD_DATA_DIR=/var/lib/qbtd"] and d["EnvironmentFile"] == ["-/etc/qbtd/qbtd.env"]
    assert "DynamicUser" not in d

    # systemd's own checks, against the binary the tests built (verify wants ExecStart to exist).
    unit = tmp_path / "qbtd.service"
    unit.write_text(text.replace("ExecStart=/usr/local/bin/qbtd", f"ExecStart={QBTD}"))
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and verify.stderr.strip() == "", verify.stderr
    # --threshold is on the 0-100 scale of the 0.0-10.0 level printed: exposure at most 2.5 ("OK").
    security = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--threshold=25", str(unit)],
                              capture_output=True, text=True, timeout=60)
    exposure = security.stdout.strip().splitlines()[-1]
    print(exposure)
    assert security.returncode == 0, security.stdout[-2000:]

    # The dedicated user, as systemd-sysusers makes it (into a scratch root).
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    made = subprocess.run(["systemd-sysusers", f"--root={root}", str(SYSUSERS)], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    passwd = (root / "etc" / "passwd").read_text()
    assert passwd.startswith("qbtd:") and ":/var/lib/qbtd:" in passwd and passwd.rstrip().endswith("nologin")


def test_qbtd_starts_as_the_unit_starts_it(tmp_path):
    """No arguments: the unit's Environment= and an EnvironmentFile's QBTD_* variables are all qbtd gets."""
    state = tmp_path / "var-lib-qbtd"
    state.mkdir()
    port = free_port()
    env = {"PATH": os.environ["PATH"], "QBTD_DATA_DIR": str(state), "QBTD_PASSWORD": "service-password-1",
           "QBTD_PORT": str(port), "QBTD_PEER_LISTEN": "127.0.0.1:0", "QBTD_NO_DISCOVERY": "1", "QBTD_NO_UTP": "1"}
    log = open(tmp_path / "qbtd.log", "wb")
    proc = subprocess.Popen([QBTD], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"

        def up():
            assert proc.poll() is None, (tmp_path / "qbtd.log").read_text()
            try:
                return requests.get(base + "/", timeout=1).ok
            except requests.RequestException:
                return False

        wait_for(up, 60, what="qbtd to listen")
        s = requests.Session()
        r = s.post(base + "/api/v2/auth/login", data={"username": "admin", "password": "service-password-1"})
        assert (r.status_code, r.text) == (204, "")  # the default profile, 5.3
        assert s.get(base + "/api/v2/app/preferences").json()["save_path"].startswith(str(state))
        assert (state / "qbtd.sqlite").exists()
    finally:
        proc.terminate()  # the unit's KillSignal: a clean stop within TimeoutStopSec
        assert proc.wait(60) == 0
    shutil.rmtree(state)
