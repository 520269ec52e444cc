"""Issue 20 (item 1): openapi/qbtd.yaml describes every route qbtd serves, in each profile, and nothing else; qbtd
serves the same document; responses match its schemas; schemathesis exercises every operation with 0 server errors.
(`make fuzz-api` runs schemathesis far longer.)"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import requests
import yaml
from openapi_spec_validator import validate
from referencing import Registry, Resource

from conftest import ROOT, Qbtd, wait_for

DOC_PATH = ROOT / "openapi" / "qbtd.yaml"
DOC = yaml.safe_load(DOC_PATH.read_text())
KEY = "qbt_openapitestkey0123456789ab"
METHODS = ("get", "post", "put", "delete", "patch", "head", "options")
PROFILES = ("4.6", "5.1", "5.2", "5.3")
# schemathesis calls every operation but this one. Nothing it sends may leave 127.0.0.1: qbtd runs with discovery
# off, every outgoing connection (feeds, .torrent URLs, plugins, Torznab, trackers, peers) through a proxy at
# 127.0.0.1:1 that refuses them, mail to 127.0.0.1:1, and --allowed-paths keeping every path it invents (and every
# program) inside the test's folder.
NOT_FUZZED = ("app/shutdown", "qbtd/events")  # the event stream never ends by itself
NOWHERE = {"proxy_type": "HTTP", "proxy_ip": "127.0.0.1", "proxy_port": 1, "proxy_peer_connections": True,
           "proxy_bittorrent": True, "proxy_rss": True, "proxy_misc": True, "proxy_hostname_lookup": True,
           "mail_notification_smtp": "127.0.0.1:1"}


def documented(profile):
    out = set()
    for path, operations in DOC["paths"].items():
        for method, op in operations.items():
            if method in METHODS and profile in op.get("x-qbittorrent-profiles", PROFILES):
                out.add(f"{method.upper()} {path}")
    return out


def test_the_document_is_valid_openapi_3_1():
    validate(DOC)
    assert DOC["openapi"] == "3.1.0"
    operations = sum(1 for ops in DOC["paths"].values() for m in ops if m in METHODS)
    print(f"{len(DOC['paths'])} paths, {operations} operations")
    assert operations > 200


@pytest.mark.parametrize("profile", PROFILES)
def test_the_router_and_the_document_name_the_same_routes(tmp_path, profile):
    q = Qbtd(tmp_path / "data", extra=["--profile", profile, "--api-key", KEY]).start()
    try:
        bearer = {"Authorization": f"Bearer {KEY}"}
        served = set(requests.get(q.url("qbtd/routes"), headers=bearer, timeout=30).json())
        want = documented(profile)
        assert served - want == set(), f"routes the document lacks (run `make openapi`): {sorted(served - want)}"
        assert want - served == set(), f"routes the document has and {profile} does not serve: {sorted(want - served)}"
        r = requests.get(q.url("qbtd/openapi.yaml"), headers=bearer, timeout=30)
        assert r.headers["Content-Type"] == "application/yaml" and r.content == DOC_PATH.read_bytes()
    finally:
        q.stop()


def schema_validator(schema):
    """A validator of `schema` whose `#/components/…` references resolve in the document."""
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": DOC["components"]}
    registry = Registry().with_resource("urn:qbtd", Resource.from_contents(root))
    rewritten = json.loads(json.dumps(schema).replace('"#/components/', '"urn:qbtd#/components/'))
    return jsonschema.Draft202012Validator(rewritten, registry=registry)


def test_responses_match_the_documented_schemas(qbtd_factory, seeder):
    """Every GET operation with a JSON schema is called (with a torrent present, its hash where one is needed) and
    its answer validated against the document."""
    q = qbtd_factory(extra=["--api-key", KEY])
    s = q.session()
    assert s.post(q.url("torrents/add"), files={"torrents": ("t.torrent", seeder.torrent)}).text == "Ok."
    s.post(q.url("torrents/addPeers"), data={"hashes": seeder.id, "peers": seeder.peer})
    wait_for(lambda: s.get(q.url("torrents/info")).json()[0]["progress"] == 1, 120, what="the download")
    s.post(q.url("torrents/createCategory"), data={"category": "films", "savePath": ""})
    s.post(q.url("torrents/createTags"), data={"tags": "a,b"})
    s.post(q.url("qbtd/createAPIKey"), data={"name": "listed"})
    values = {"hash": seeder.id, "hashes": seeder.id, "rid": "0", "id": "1"}
    checked = []
    for path, operations in DOC["paths"].items():
        op = operations.get("get")
        if not op or not path.startswith("/api/v2/") or "{" in path:
            continue
        content = op["responses"].get("200", {}).get("content", {}).get("application/json")  # a WebSocket has only 101
        if not content or not content.get("schema"):
            continue
        params = {}
        for p in op.get("parameters", []):
            if p["required"]:
                if p["name"] not in values:
                    break
                params[p["name"]] = values[p["name"]]
        else:
            r = s.get(q.base + path, params=params, timeout=30)
            if r.status_code != 200:
                continue
            errors = sorted(schema_validator(content["schema"]).iter_errors(r.json()), key=str)
            assert not errors, f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}"
            checked.append(path)
    print(f"{len(checked)} answers validated against their schemas")
    for must in ("/api/v2/torrents/info", "/api/v2/sync/maindata", "/api/v2/transfer/info", "/api/v2/app/preferences",
                 "/api/v2/torrents/properties", "/api/v2/torrents/files", "/api/v2/torrents/trackers", "/api/v2/qbtd/apiKeys"):
        assert must in checked, must


def run_schemathesis(q, tmp_path, examples, seconds, auth, excluded):
    exclude = "^/api/v2/(" + "|".join(excluded) + ")$"
    schemathesis = str(Path(sys.executable).parent / "schemathesis")
    out = subprocess.run([schemathesis, "run", str(DOC_PATH), "--url", q.base, *auth,
                          "--checks", "not_a_server_error", "--max-examples", str(examples), "--exclude-path-regex", exclude,
                          # qBittorrent answers a method an action does not take with 501, and so does qbtd: the
                          # coverage phase, which sends those, is left out.
                          "--phases", "examples,fuzzing,stateful", "--workers", "2", "--request-timeout", "30",
                          "--max-time", str(seconds), "--seed", "1", "--report-dir", str(tmp_path / "report")],
                         capture_output=True, text=True, timeout=seconds + 300, cwd=tmp_path)
    return out


# Two runs cover every operation but app/shutdown. In 5.2 every request logs in with HTTP Basic, so nothing it calls
# (auth/logout, the key routes) can lock it out; 5.1 uses an API key of its own and leaves out qbtd/revokeAPIKey,
# which would revoke that key once the stateful phase has learnt its id from qbtd/apiKeys.
@pytest.mark.parametrize("profile", ["5.2", "5.1"])
def test_schemathesis_finds_no_server_error(tmp_path, profile):
    (tmp_path / "media").mkdir()
    q = Qbtd(tmp_path / "data", extra=["--profile", profile, "--allowed-paths", str(tmp_path / "media")]).start()
    try:
        s = requests.Session()
        r = s.post(q.url("auth/login"), data={"username": "admin", "password": q.password})
        assert r.status_code in (200, 204)
        assert s.post(q.url("app/setPreferences"), data={"json": json.dumps(NOWHERE)}).status_code in (200, 204)
        prefs = s.get(q.url("app/preferences")).json()
        assert all(prefs[k] == v for k, v in NOWHERE.items()), {k: prefs[k] for k in NOWHERE}
        if profile == "5.2":
            auth, excluded, check = ["-a", f"admin:{q.password}"], NOT_FUZZED, {"auth": ("admin", q.password)}
        else:
            key = s.post(q.url("qbtd/createAPIKey"), data={"name": "schemathesis"}).json()["key"]
            auth, excluded = ["-H", f"Authorization: Bearer {key}"], NOT_FUZZED + ("qbtd/revokeAPIKey",)
            check = {"headers": {"Authorization": f"Bearer {key}"}}
        examples = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "5"))
        seconds = int(os.environ.get("SCHEMATHESIS_SECONDS", "45"))
        out = run_schemathesis(q, tmp_path, examples, seconds, auth, excluded)
        summary = out.stdout[-2500:]
        print(summary)
        assert out.returncode == 0, summary + out.stderr[-2000:]
        assert q.proc.poll() is None, "qbtd died under schemathesis"
        assert requests.get(q.url("app/version"), timeout=30, **check).status_code == 200
        refused = re.search(r"Authentication failed: (\d+) operations", out.stdout)
        assert not refused or int(refused.group(1)) < 20, "the run lost its credentials: " + refused.group(0)
    finally:
        q.stop()
