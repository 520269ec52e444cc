"""Debian's nginx run in the foreground on 127.0.0.1 around one of contrib/nginx's recipes (test_nginx.py,
test_cluster_recipe.py)."""
import os
import subprocess

import requests

from conftest import wait_for


def launch(prefix, port, recipe_text, http_lines):
    """nginx under `prefix` with `recipe_text` as its http block (its listen port already `port`), `http_lines` before
    it; returns the process once it answers on the port."""
    prefix.mkdir(parents=True)
    temp = " ".join(f"{kind}_temp_path {prefix / kind};" for kind in ("proxy", "fastcgi", "uwsgi", "scgi"))
    lines = "\n    ".join(http_lines)
    (prefix / "nginx.conf").write_text(f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 512; }}
http {{
    {lines}
    client_body_temp_path {prefix}/body;
    {temp}
{recipe_text}
}}
""")
    proc = subprocess.Popen(["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf")],
                            stdout=subprocess.DEVNULL, stderr=open(prefix / "stderr.log", "wb"))

    def up():
        assert proc.poll() is None, (prefix / "stderr.log").read_text()
        try:
            requests.get(f"http://127.0.0.1:{port}/", timeout=1)
            return True
        except requests.RequestException:
            return False

    try:
        wait_for(up, 30, what="nginx to listen")
    except BaseException:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)
        raise
    return proc
