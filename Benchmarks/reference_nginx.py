"""nginx as a benchmark's reference server, and the CPU seconds a process (or nginx's master and workers) used.

nginx runs with one worker, `sendfile on`, `tcp_nopush on` and no access log: what a seedbox puts in front of a folder.
"""
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from conftest import free_port, wait_for  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    """User + system CPU seconds of `pids` so far (the clock ticks at 10 ms)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def children_cpu():
    """User + system CPU seconds of this process's waited-for children so far (curl's, after each run)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def nginx_pids(master):
    """nginx's master and its workers."""
    children = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
    return [master] + [int(c) for c in children]


def start_nginx(tmp, root):
    """nginx serving `root` on a free port of 127.0.0.1: (process, port). `tmp` holds its configuration and logs."""
    if not shutil.which("nginx"):
        sys.exit("nginx is missing: make bench installs nginx-light")
    Path(tmp).chmod(0o755)  # nginx's worker runs as another user when started by root
    port = free_port()
    conf = Path(tmp) / "nginx.conf"
    conf.write_text(f"""
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    default_type application/octet-stream;
    client_body_temp_path {tmp}/nginx-body;
    server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
""")
    proc = subprocess.Popen(["nginx", "-e", str(Path(tmp) / "nginx-error.log"), "-c", str(conf), "-g", "daemon off;"])
    wait_for(lambda: subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/"]).returncode == 0, 20,
             what="nginx to listen")
    return proc, port
