"""The throwaway PostgreSQL a cluster's nodes share in the tests (Tests/postgres/throwaway-cluster.sh)."""
import os
import subprocess
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

SCRIPT = Path(__file__).resolve().parent.parent / "postgres" / "throwaway-cluster.sh"


def cluster_url():
    """The cluster `make test` started (QBTD_TEST_POSTGRES_URL), or one started now."""
    url = os.environ.get("QBTD_TEST_POSTGRES_URL")
    if url:
        return url
    # No pipe to wait on: the server the script starts outlives it. The URL is left in a file.
    subprocess.run(["bash", str(SCRIPT), "start"], check=True, stdout=subprocess.DEVNULL, timeout=120)
    return (Path(os.environ.get("QBTD_PG_ROOT", "/tmp/qbtd-postgres")) / "url").read_text().strip()


def psql(url, sql):
    """Rows of one statement, each a list of column texts."""
    out = subprocess.run(["psql", url, "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def fresh_database():
    """A new, empty database as a URL."""
    base = cluster_url()
    name = "e2e_" + uuid.uuid4().hex
    psql(base, f"CREATE DATABASE {name}")
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path="/" + name))


class PrivatePostgres:
    """A PostgreSQL of one test's own (the throwaway script with its own folder and port), which the test may stop
    and start again while nodes use it."""

    BIN = "/usr/lib/postgresql/15/bin"

    def __init__(self, root, port):
        self.root, self.port = Path(root), port
        self.listen = "127.0.0.1"
        self.env = {**os.environ, "QBTD_PG_ROOT": str(self.root), "QBTD_PG_PORT": str(port)}
        subprocess.run(["bash", str(SCRIPT), "start"], check=True, stdout=subprocess.DEVNULL, env=self.env, timeout=120)
        self.url = (self.root / "url").read_text().strip()

    def _pg_ctl(self, *args):
        owner = ["runuser", "-u", "qbtd-pg", "--"] if os.getuid() == 0 else []
        subprocess.run(owner + [f"{self.BIN}/pg_ctl", "-D", str(self.root / "data"), *args], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=90)

    def stop(self):
        """A fast shutdown: every connection cut."""
        self._pg_ctl("-m", "fast", "-w", "-t", "60", "stop")

    def start(self):
        self._pg_ctl("-l", str(self.root / "server.log"), "-w", "-t", "60", "-o",
                     f"-c listen_addresses={self.listen} -p {self.port} -k {self.root} -c fsync=off -c max_connections=300",
                     "start")

    def serve(self, address, subnet):
        """Listens on `address` too and lets the tests' user in from `subnet` (CIDR), for nodes in network
        namespaces; restarts to take it. The URL for them."""
        with open(self.root / "data" / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {subnet} trust\n")
        self.listen = f"127.0.0.1,{address}"
        self.stop()
        self.start()
        return self.url.replace("127.0.0.1", address)

    def remove(self):
        subprocess.run(["bash", str(SCRIPT), "stop"], env=self.env, stdout=subprocess.DEVNULL, timeout=120)
