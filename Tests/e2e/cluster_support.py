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
