"""Issue 20 (item 3): `--tunnel` runs cloudflared as a child, reads its public address, shows it in /music/auth and
the logs, starts it again when it dies and stops it with qbtd; without cloudflared qbtd says how to install it and
keeps serving. A stand-in `cloudflared` on PATH behaves like the real one: it prints its banner and address on
stderr, runs until a signal, and records how it was started."""
import json
import os
import signal
import time
from pathlib import Path

import requests

from conftest import wait_for

KEY = "qbt_tunneltestkey0123456789abc"

FAKE = r'''#!/usr/bin/env python3
import json, os, signal, sys, time
state = os.environ["FAKE_CLOUDFLARED_STATE"]
n = len([f for f in os.listdir(state) if f.startswith("start-")]) + 1
with open(os.path.join(state, f"start-{n}.json"), "w") as f:
    json.dump({"args": sys.argv[1:], "pid": os.getpid()}, f)
def stop(*_):
    open(os.path.join(state, f"stop-{n}"), "w").close()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
say = lambda line: (sys.stderr.write(time.strftime("%Y-%m-%dT%H:%M:%SZ") + " INF " + line + "\n"), sys.stderr.flush())
say("Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment")
if "run" in sys.argv:
    say("Starting tunnel tunnelID=6ff42ae2-765d-4adf-8112-31c55c1551ef")
    say('Updated to new configuration config="{\\"ingress\\":[{\\"hostname\\":\\"music.example.org\\", '
        '\\"service\\":\\"http://127.0.0.1\\"}, {\\"service\\":\\"http_status:404\\"}]}" version=1')
else:
    say("Requesting new quick Tunnel on trycloudflare.com...")
    say("+--------------------------------------------------------------------------------------------+")
    say("|  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |")
    say(f"|  https://fake-{n}-tunnel.trycloudflare.com                                               |")
    say("+--------------------------------------------------------------------------------------------+")
say("Registered tunnel connection connIndex=0 location=ams01 protocol=quic")
for _ in range(6000):
    time.sleep(0.1)
'''


def fake_cloudflared(tmp_path, monkeypatch):
    bin_dir, state = tmp_path / "bin", tmp_path / "cloudflared-state"
    bin_dir.mkdir()
    state.mkdir()
    program = bin_dir / "cloudflared"
    program.write_text(FAKE)
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLOUDFLARED_STATE", str(state))
    return state


def starts(state):
    return sorted((json.loads(p.read_text()) for p in state.glob("start-*.json")), key=lambda s: s["pid"])


def tunnel_url(q):
    return requests.get(q.base + "/music/auth", params={"api_key": KEY}, timeout=30).json()["tunnelUrl"]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_quick_tunnel_is_read_shown_restarted_and_stopped(qbtd_factory, tmp_path, monkeypatch):
    state = fake_cloudflared(tmp_path, monkeypatch)
    music = tmp_path / "music"
    music.mkdir()
    q = qbtd_factory(extra=["--tunnel", "quick", "--music-dir", str(music), "--api-key", KEY])
    wait_for(lambda: tunnel_url(q) == "https://fake-1-tunnel.trycloudflare.com", 30, what="the tunnel's address")
    first = starts(state)[0]
    assert first["args"] == ["tunnel", "--no-autoupdate", "--url", f"http://127.0.0.1:{q.port}"]
    assert "https://fake-1-tunnel.trycloudflare.com" in Path(q.log.name).read_text()
    events = q.session().get(q.url("log/main")).json()
    assert any("Tunnel up: https://fake-1-tunnel.trycloudflare.com" in e["message"] for e in events)

    # It dies: qbtd starts it again (after 1 s) and shows the new address.
    os.kill(first["pid"], signal.SIGKILL)
    wait_for(lambda: tunnel_url(q) == "https://fake-2-tunnel.trycloudflare.com", 30, what="the restarted tunnel")
    second = starts(state)[1]
    assert any("cloudflared exited" in e["message"] for e in q.session().get(q.url("log/main")).json())

    # qbtd stops: so does cloudflared, with a SIGTERM.
    q.stop()
    assert q.proc.returncode == 0
    wait_for(lambda: (state / "stop-2").exists() and not alive(second["pid"]), 15, what="cloudflared to stop")


def test_named_tunnel_and_its_hostname(qbtd_factory, tmp_path, monkeypatch):
    state = fake_cloudflared(tmp_path, monkeypatch)
    q = qbtd_factory(extra=["--tunnel", "music-host", "--api-key", KEY])
    wait_for(lambda: tunnel_url(q) == "https://music.example.org", 30, what="the named tunnel's hostname")
    assert starts(state)[0]["args"] == ["tunnel", "--no-autoupdate", "run", "--url", f"http://127.0.0.1:{q.port}", "music-host"]
    q.stop()
    # A public address given outright wins over what cloudflared prints.
    q = qbtd_factory(data_dir=q.data_dir, extra=["--tunnel", "music-host", "--tunnel-url", "https://tunes.example.net",
                                                 "--api-key", KEY])
    assert tunnel_url(q) == "https://tunes.example.net"


def test_without_cloudflared_qbtd_says_how_to_install_it_and_serves(qbtd_factory, tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    # PATH without cloudflared (python3 and the rest stay reachable through their absolute paths).
    monkeypatch.setenv("PATH", f"{empty}:/usr/bin:/bin")
    q = qbtd_factory(extra=["--tunnel", "quick", "--api-key", KEY])
    wait_for(lambda: "apt-get install cloudflared" in Path(q.log.name).read_text(), 15, what="the install advice")
    s = q.session()
    assert s.get(q.url("app/version")).status_code == 200
    assert tunnel_url(q) is None
    assert any("cloudflared is not installed" in e["message"] for e in s.get(q.url("log/main")).json())
    assert q.proc.poll() is None


def test_bad_tunnel_arguments_stop_qbtd_at_start(tmp_path):
    import subprocess
    from conftest import QBTD
    for args, says in [(["--tunnel", "a b"], "--tunnel is quick or a tunnel's name"),
                       (["--tunnel", "quick", "--tunnel-url", "ftp://x"], "--tunnel-url is an http(s) address")]:
        out = subprocess.run([QBTD, "--data-dir", str(tmp_path / "d"), *args], capture_output=True, text=True, timeout=60)
        assert out.returncode != 0 and says in out.stdout + out.stderr, out
