#!/usr/bin/env python3
"""Writes openapi/qbtd.yaml (the file qbtd serves at /api/v2/qbtd/openapi.yaml: the OpenAPIDocument target's
resource, so a build copies it beside the binary), from three things:

- the routes qbtd answers in each profile, read from `qbtd/routes` of a live qbtd per profile (QBTD_BIN);
- the parameters each WebAPI action reads, scanned from its controller's source (`p["x"]`, `p.required("x")`,
  `p.int("x")`…), with the few read in helpers added below (EXTRA_PARAMETERS);
- the hand-written schemas of openapi/components.yaml and the answers below (RESPONSES, OTHER_ROUTES).

Run it after adding or changing a route: `make openapi` (the tests fail while the document and the router differ).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
import yaml

ROOT = Path(__file__).resolve().parents[1]
QBTD = os.environ.get("QBTD_BIN", str(ROOT / ".build" / "debug" / "qbtd"))
PROFILES = ["4.6", "5.1", "5.2", "5.3"]
PASSWORD = "openapi-generate-1"

# Parameters read in helper functions, where the scan cannot see them: (name, type, required, description).
HASHES = ("hashes", "string", True, "hashes separated by |, or all")
EXTRA_PARAMETERS = {
    "torrents/add": [("urls", "string", False, "magnet links and URLs, one per line"),
                     ("torrents", "binary", False, ".torrent files (multipart)"),
                     ("savepath", "string", False, ""), ("downloadPath", "string", False, ""),
                     ("useDownloadPath", "boolean", False, ""), ("category", "string", False, ""),
                     ("tags", "string", False, "comma separated"), ("skip_checking", "boolean", False, ""),
                     ("paused", "boolean", False, "4.x"), ("stopped", "boolean", False, "5.x"),
                     ("root_folder", "boolean", False, ""), ("contentLayout", "string", False, "Original, Subfolder or NoSubfolder"),
                     ("rename", "string", False, ""), ("upLimit", "integer", False, ""), ("dlLimit", "integer", False, ""),
                     ("ratioLimit", "number", False, ""), ("seedingTimeLimit", "integer", False, ""),
                     ("inactiveSeedingTimeLimit", "integer", False, ""), ("autoTMM", "boolean", False, ""),
                     ("sequentialDownload", "boolean", False, ""), ("firstLastPiecePrio", "boolean", False, ""),
                     ("stopCondition", "string", False, ""), ("addToTopOfQueue", "boolean", False, ""),
                     ("forced", "boolean", False, "")],
    "app/setPreferences": [("json", "string", True, "a JSON object of preferences to change")],
    "torrents/parseMetadata": [("torrents", "binary", True, ".torrent files (multipart)")],
    "stream/prepare": [("torrents", "binary", False, "a .torrent file (multipart), instead of magnetUri or hash")],
    "torrents/info": [("filter", "string", False, "all, downloading, seeding, completed, stopped/paused, running/resumed, active, inactive, stalled, stalled_uploading, stalled_downloading, errored, checking, moving"),
                      ("category", "string", False, ""), ("tag", "string", False, ""), ("sort", "string", False, ""),
                      ("reverse", "boolean", False, ""), ("limit", "integer", False, ""), ("offset", "integer", False, ""),
                      ("hashes", "string", False, ""),
                      ("includeFiles", "boolean", False, "qbtd's own: each torrent also carries `files`, what torrents/files answers for it"),
                      ("includeProperties", "boolean", False, "qbtd's own: each torrent also carries `properties`, what torrents/properties answers for it")],
}

# JSON answers with a schema of components.yaml (group/action → schema).
def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def array(item):
    return {"type": "array", "items": item}


OBJECT = {"type": "object"}
RESPONSES = {
    "torrents/info": array(ref("Torrent")), "torrents/files": array(ref("File")),
    "torrents/properties": ref("Properties"), "torrents/trackers": array(ref("Tracker")),
    "torrents/webseeds": array(ref("WebSeed")), "torrents/categories": {"type": "object", "additionalProperties": ref("Category")},
    "torrents/tags": array({"type": "string"}), "torrents/pieceStates": array({"type": "integer"}),
    "torrents/pieceHashes": array({"type": "string"}), "sync/maindata": ref("MainData"),
    "transfer/info": ref("TransferInfo"), "app/preferences": ref("Preferences"), "app/buildInfo": ref("BuildInfo"),
    "log/main": array(ref("LogEntry")), "log/peers": array(ref("PeerLogEntry")),
    "search/status": array(ref("SearchJob")), "search/results": ref("SearchResults"), "search/plugins": array(ref("SearchPlugin")),
    "qbtd/apiKeys": array(ref("APIKey")), "qbtd/createAPIKey": ref("APIKey"), "stream/prepare": ref("Stream"),
    "stream/list": array(ref("StreamReport")), "qbtd/preferenceCatalogue": array(ref("PreferenceEntry")),
    "qbtd/routes": array({"type": "string"}), "qbtd/nodes": array(ref("Node")),
    "qbtd/moves": array(ref("Move")), "qbtd/moveToNode": ref("MoveOrder"),
    "app/getDirectoryContent": array({"type": "string"}),
    "torrents/downloadLimit": {"type": "object", "additionalProperties": {"type": "integer"}},
    "torrents/uploadLimit": {"type": "object", "additionalProperties": {"type": "integer"}},
    "torrents/parseMetadata": array(OBJECT),
    "app/cookies": array({"type": "object", "required": ["name", "domain", "path", "value"], "properties": {
        "name": {"type": "string"}, "domain": {"type": "string"}, "path": {"type": "string"}, "value": {"type": "string"},
        "expirationDate": {"type": "integer"}}}),
    "app/networkInterfaceAddressList": array({"type": "string"}),
    "app/networkInterfaceList": array({"type": "object", "required": ["name", "value"],
                                       "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}),
    "app/processInfo": OBJECT, "clientdata/load": OBJECT, "rss/items": OBJECT, "torrents/SSLParameters": OBJECT,
    "torrents/fetchMetadata": OBJECT, "torrentcreator/status": array(OBJECT),
    "app/rotateAPIKey": {"type": "object", "required": ["apiKey"], "properties": {"apiKey": {"type": "string"}}},
    "qbtd/addTorznabIndexer": {"type": "object", "required": ["added"], "properties": {"added": {"type": "string"}}},
    "qbtd/revokeAPIKey": {"type": "object", "required": ["revoked"], "properties": {"revoked": {"type": "string"}}},
    "rss/matchingArticles": {"type": "object", "additionalProperties": array({"type": "string"})},
    "rss/rules": {"type": "object", "additionalProperties": OBJECT},
    "search/start": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}},
    "stream/stop": {"type": "object", "required": ["stopped"], "properties": {"stopped": {"type": "string"}}},
    "stream/stopAll": {"type": "object", "required": ["stopped"], "properties": {"stopped": {"type": "integer"}}},
    "sync/torrentPeers": {"type": "object", "required": ["rid"], "properties": {
        "rid": {"type": "integer"}, "full_update": {"type": "boolean"}, "peers": {"type": "object"},
        "peers_removed": array({"type": "string"}), "show_flags": {"type": "boolean"}}},
    "torrentcreator/addTask": {"type": "object", "required": ["taskID"], "properties": {"taskID": {"type": "string"}}},
    "torrents/pieceAvailability": array({"type": "integer"}),
}
# Answers the scan cannot see (built in helpers): group/action → json, text or binary.
REPLIES = {"torrents/saveMetadata": "binary", "torrents/add": "text", "torrents/fetchMetadata": "json"}

# Routes outside /api/v2/<group>/<action>: summary, answers (status → description) and JSON schema of the 200/201.
OTHER_ROUTES = {
    "/": ("The web interface: qbtd's own, or the alternative WebUI folder (alternative_webui_*, --webui-dir); qbittorrent-api probes it with HEAD",
          {"200": "index.html", "401": "cross-site or bad Host", "500": "an alternative UI's index.html is not a regular file"}, None),
    "/**": ("The web interface's files, by qBittorrent's rules: public/ without a session, private/ then public/ with one",
            {"200": "the file", "304": "unchanged (qbtd's own files, ETag)", "400": "a . or .. segment, or a backslash", "404": "no such file",
             "500": "an alternative UI's file is not a regular file, lies behind a symlinked folder or a symlink out of the folder"}, None),
    "/metrics": ("Prometheus metrics (the session or a reading API key; --metrics-listen serves it without auth)",
                 {"200": "text/plain; version=0.0.4", "401": "cross-site or bad Host", "403": "no session or key, or a key whose scope does not read"}, None),
    "/stream/{token}": ("A stream's bytes, with Range; the token is the credential", {"200": "the whole file", "206": "a range", "404": "no such stream", "416": "the range lies outside the file"}, None),
    "/torrent/{token}": ("The same as /stream/{token}", {"200": "the whole file", "206": "a range", "404": "no such stream", "416": "the range lies outside the file"}, None),
    "/api/v2/uploads": ("POST: multipart uploads streamed to disk (201 with what landed); GET: uploads in progress",
                        {"200": "uploads in progress", "201": "what landed", "400": "not multipart", "403": "no session or key in scope", "413": "over --max-upload-size", "507": "not enough free space"},
                        array(ref("UploadProgress"))),
    "/api/v2/tus": ("tus 1.0.0: create an upload (creation, creation-with-upload, creation-defer-length, concatenation)",
                    {"201": "created (Location)", "204": "OPTIONS", "400": "bad headers", "403": "no session or key in scope", "412": "Tus-Resumable", "413": "too large", "429": "too many unfinished uploads", "507": "not enough free space"}, None),
    "/api/v2/tus/{id}": ("tus 1.0.0: HEAD (offset), PATCH (append), DELETE (terminate)",
                         {"200": "HEAD", "204": "PATCH/DELETE/OPTIONS", "403": "no session or key in scope", "404": "no such upload", "409": "Upload-Offset mismatch", "412": "Tus-Resumable", "460": "checksum mismatch"}, None),
    "/music/auth": ("The library's identity and version (Bearer key or ?api_key=)", {"200": "json", "401": "no key", "403": "a key whose scope is not music"}, ref("MusicAuth")),
    "/music/library": ("The library as JSON for a browser: artists, albums, tracks (a key, or the WebUI session)",
                       {"200": "json", "401": "no key or session", "403": "scope"}, None),
    "/music/db": ("The library database (SQLite), If-None-Match → 304", {"200": "application/vnd.sqlite3", "304": "unchanged", "401": "no key", "403": "scope"}, None),
    "/music/tracks/{id}/stream.m3u8": ("A track's HLS playlist", {"200": "application/vnd.apple.mpegurl", "401": "no key", "404": "no such track", "422": "not an MP3"}, None),
    "/music/tracks/{id}/segments/{segment}": ("One HLS segment", {"200": "audio/mpeg", "401": "no key", "404": "no such segment"}, None),
    "/music/tracks/{id}/key": ("A track's AES-128 key (--music-encrypt)", {"200": "16 bytes", "401": "no key", "404": "no such track"}, None),
    "/api/v2/qbtd/events": ("sync/maindata pushed as Server-Sent Events (text/event-stream): each event is `id: <rid>`, `event: maindata` and one line of the JSON sync/maindata answers; "
                            "the first is a diff from Last-Event-ID (or ?rid=) while that rid is among the last 64 events, else a full update; then one when something changed, at most 4 a second; "
                            "`: keepalive` after 15 s of quiet; a client that fell behind gets `event: dropped` and the stream ends. The session cookie or an API key that reads sync/maindata",
                            {"200": "text/event-stream", "400": "rid is not a whole number from 0 to 1000000", "401": "cross-site or bad Host", "403": "no session or key, or a key whose scope does not read"}, None),
    "/api/v2/qbtd/events/ws": ("The same events over a WebSocket (Upgrade: websocket): each text message is one event's JSON; ?rid= resumes; a client that fell behind gets {\"dropped\": true, \"error\": …} and close 1013. Without an upgrade, 426",
                               {"101": "switching protocols", "400": "the upgrade refused: cross-site, bad Host, no session or key, or a key whose scope does not read", "426": "upgrade required"}, None),
    "/music/ws": ("The music WebSocket (Upgrade: websocket); without an upgrade, 426", {"101": "switching protocols", "401": "no key", "426": "upgrade required"}, None),
}

GROUP_NOTES = {
    "auth": "Log in and out (5.2: 204/401 and the QBT_SID_<port> cookie).",
    "app": "Versions, preferences, directory listing, cookies, API keys (5.2), shutdown.",
    "log": "The event and peer logs.", "sync": "rid diffs for clients that poll.",
    "transfer": "Global speeds, limits, alternative mode, peer bans.", "torrents": "The transfer list.",
    "search": "Search plugins and jobs.", "rss": "Feeds, articles and auto-download rules.",
    "torrentcreator": "Making .torrent files (5.0+).", "clientdata": "A client's stored data (5.2).",
    "qbtd": "qbtd's own additions; errors are JSON {\"error\": …}.", "stream": "Stream playback (qbtd); errors are JSON.",
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_routes(profile):
    """`METHOD /path` of every route a fresh qbtd answers in `profile`."""
    data = Path(tempfile.mkdtemp(prefix="qbtd-openapi-"))
    port = free_port()
    proc = subprocess.Popen([QBTD, "--data-dir", str(data), "--host", "127.0.0.1", "--port", str(port), "--peer-listen",
                             "127.0.0.1:0", "--no-discovery", "--no-utp", "--password", PASSWORD, "--profile", profile],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                requests.get(base + "/", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.1)
        s = requests.Session()
        r = s.post(base + "/api/v2/auth/login", data={"username": "admin", "password": PASSWORD}, timeout=10)
        assert r.status_code in (200, 204), r.text
        return s.get(base + "/api/v2/qbtd/routes", timeout=10).json()
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(data, ignore_errors=True)


SCOPE = re.compile(r'public let scope = "(\w+)"')
TYPE_OF = re.compile(r"(?:struct|extension) (\w+Controller)\b")
ENTRY = re.compile(r'^\s*(?:"([\w.]+)":\s*(?:\.get|\.post|\.qbtd\(|APIAction\()|table\["(\w+)"\]\s*=\s*(?:\.(?:get|post)|APIAction\())', re.M)
READS = [(re.compile(r'\bp(?:arams)?\[\s*"(\w+)"\s*\]'), "string", False),
         (re.compile(r'\.required\("(\w+)"\)'), "string", True),
         (re.compile(r'\bp(?:arams)?\.int\("(\w+)"\)'), "integer", False),
         (re.compile(r'\bp(?:arams)?\.int64\("(\w+)"\)'), "integer", False),
         (re.compile(r'\bp(?:arams)?\.double\("(\w+)"\)'), "number", False),
         (re.compile(r'\bp(?:arams)?\.bool\("(\w+)"\)'), "boolean", False),
         (re.compile(r'\bp(?:arams)?\.list\("(\w+)"'), "string", False),
         (re.compile(r'applied\(p, "(\w+)"\)'), "string", True),
         (re.compile(r'\bp(?:arams)?\.fields\["(\w+)"\]'), "string", False)]


HELPER = re.compile(r'\n    (?:private |static |public )*func (\w+)\(_ (?:p|params): Parameters(?:, _ \w+: String(?: = "(\w+)")?)?[^{]*\{')
BOUNDARY = re.compile(r'\n    (?:@|func |static |private |public |var |init|//|})')
CALL = re.compile(r'\b(\w+)\((?:p|params)\b(?:, "(\w+)")?')


def helpers(sources):
    """Functions that take the parameters: {name: (body, default parameter name)}."""
    out = {}
    for path in sources:
        text = path.read_text()
        for match in HELPER.finditer(text):
            rest = text[match.end():]
            end = BOUNDARY.search(rest)
            out[match.group(1)] = (rest[:end.start()] if end else rest, match.group(2))
    return out


def reads(body, known, depth=0):
    """{name: (type, required)} of the parameters `body` reads, through the helpers it calls."""
    params = {}

    def note(name, kind, required):
        old = params.get(name, ("string", False))
        params[name] = (kind if kind != "string" else old[0], required or old[1])

    for pattern, kind, required in READS:
        for found in pattern.findall(body):
            note(found, kind, required)
    for call in CALL.finditer(body):
        name, argument = call.group(1), call.group(2)
        if name in known and depth < 4:
            helper_body, default = known[name]
            if argument or default:
                note(argument or default, "string", True)
            for n, (kind, required) in reads(helper_body, known, depth + 1).items():
                note(n, kind, required)
    return params


def scanned_actions():
    """{group/action: {"params": {name: (type, required)}, "reply": kind}} from the controllers' source."""
    # qBittorrent's groups (WebAPI) and qbtd's own (QbtdAPI, StreamHTTP), wherever their controllers live.
    sources = sorted(p for folder in ("WebAPI/Controllers", "QbtdAPI", "StreamHTTP")
                     for p in (ROOT / "Sources" / folder).glob("*.swift"))
    known = helpers(sources)
    scopes = {}
    for path in sources:
        text = path.read_text()
        scope = SCOPE.search(text)
        owner = TYPE_OF.search(text)
        if scope and owner:
            scopes[owner.group(1)] = scope.group(1)
    out = {}
    for path in sources:
        text = path.read_text()
        owner = TYPE_OF.search(text)
        if not owner or owner.group(1) not in scopes:
            continue
        group = scopes[owner.group(1)]
        entries = list(ENTRY.finditer(text))
        for i, match in enumerate(entries):
            name = match.group(1) or match.group(2)
            end = entries[i + 1].start() if i + 1 < len(entries) else len(text)
            body = text[match.start():end]
            # The last entry's region stops where the actions table does.
            stop = re.search(r"\n    }\n", body)
            if stop:
                body = body[:stop.start()]
            params = reads(body, known)
            if re.search(r"\bhashes\(p\)|\bhashes\(params\)", body):
                params["hashes"] = ("string", True)
            reply = ("json" if re.search(r"\.json\(|\.encode\(|jsonBytes|\.accepted\(", body) else
                     "binary" if ".binary(" in body else "text" if re.search(r"\.text\(|\.status\(", body) else "empty")
            out[f"{group}/{name}"] = {"params": params, "reply": REPLIES.get(f"{group}/{name}", reply), "qbtd": ".qbtd(" in match.group(0)}
    return out


def parameter(name, kind, required, description, where):
    schema = {"type": "string", "format": "binary"} if kind == "binary" else {"type": kind}
    if kind == "boolean":
        schema = {"type": "string", "enum": ["true", "false"]}
    p = {"name": name, "in": where, "required": required, "schema": schema}
    if description:
        p["description"] = description
    return p


def api_operation(key, method, info, profiles, post_only):
    group, action = key.split("/", 1)
    params = dict((n, (t, r, "")) for n, (t, r) in info["params"].items())
    for name, kind, required, description in EXTRA_PARAMETERS.get(key, []):
        params[name] = (kind, required, description)
    json_errors = info.get("qbtd") or group in ("qbtd", "stream")
    error = {"application/json": {"schema": ref("Error")}} if json_errors else {"text/plain": {"schema": {"type": "string"}}}
    ok_schema = RESPONSES.get(key)
    if info["reply"] == "json" or ok_schema is not None:
        ok = {"description": "JSON", "content": {"application/json": {"schema": ok_schema or {}}}}
    elif info["reply"] == "binary":
        ok = {"description": "a file", "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}
    elif info["reply"] == "text":
        ok = {"description": "text", "content": {"text/plain": {"schema": {"type": "string"}}}}
    else:
        ok = {"description": "done (an empty body; 5.2 answers some with 204)"}
    responses = {"200": ok}
    if info["reply"] == "empty" and ok_schema is None:
        responses["204"] = {"description": "done (5.2)"}
    if params:
        responses["400"] = {"description": "a parameter is missing or invalid", "content": error}
    responses["401"] = {"description": "cross-site request or bad Host header", "content": {"text/plain": {"schema": {"type": "string"}}}}
    responses["403"] = {"description": "no session or API key, or a key whose scope does not reach it", "content": error}
    responses["404"] = {"description": "no such torrent, item or action", "content": error}
    if post_only:
        responses["405"] = {"description": "GET on a POST-only action", "content": {"text/plain": {"schema": {"type": "string"}}}}
    responses["409"] = {"description": "refused in this state (qBittorrent's message)", "content": error}
    op = {"operationId": f"{method}_{group}_{action}".replace(".", "_"), "tags": [group], "summary": f"{group}/{action}",
          "responses": responses}
    if profiles != PROFILES:
        op["x-qbittorrent-profiles"] = profiles
    fields = [parameter(n, t, r, d, "query" if method == "get" else "formData") for n, (t, r, d) in sorted(params.items())]
    if method == "get":
        if fields:
            op["parameters"] = fields
    else:
        properties = {f["name"]: {**f["schema"], **({"description": f["description"]} if "description" in f else {})} for f in fields}
        required = sorted(f["name"] for f in fields if f["required"])
        body = {"type": "object", "properties": properties}
        if required:
            body["required"] = required
        multipart = any(t == "binary" for t, _, _ in params.values())
        content = {"application/x-www-form-urlencoded": {"schema": body}}
        if multipart:
            content = {"multipart/form-data": {"schema": body}, **content}
        op["requestBody"] = {"required": bool(required), "content": content}
    return op


def other_operation(path, method, profiles):
    summary, statuses, schema = OTHER_ROUTES[path]
    responses = {}
    for status, what in statuses.items():
        response = {"description": what}
        if status in ("200", "201") and schema is not None and method in ("get", "post"):
            response["content"] = {"application/json": {"schema": schema}}
        responses[status] = response
    slug = "webui_files" if path == "/**" else re.sub(r'[^A-Za-z0-9]+', '_', path).strip('_') or 'root'
    op = {"operationId": f"{method}_{slug}", "summary": summary,
          "tags": ["qbtd"], "responses": responses}
    params = re.findall(r"{(\w+)}", path)
    if params:
        op["parameters"] = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in params]
    if profiles != PROFILES:
        op["x-qbittorrent-profiles"] = profiles
    return op


def build():
    routes = {}
    for profile in PROFILES:
        for entry in live_routes(profile):
            routes.setdefault(entry, []).append(profile)
    actions = scanned_actions()
    paths = {}
    missing = []
    for entry in sorted(routes, key=lambda e: (e.split(" ", 1)[1], e)):
        method, path = entry.split(" ", 1)
        method = method.lower()
        m = re.fullmatch(r"/api/v2/(\w+)/([\w.]+)", path)
        if m and f"{m.group(1)}/{m.group(2)}" in actions:
            key = f"{m.group(1)}/{m.group(2)}"
            post_only = f"GET {path}" not in routes
            op = api_operation(key, method, actions[key], routes[entry], post_only)
        elif path in OTHER_ROUTES or (path.endswith("/") and path.rstrip("/") in OTHER_ROUTES):
            op = other_operation(path if path in OTHER_ROUTES else path.rstrip("/"), method, routes[entry])
        else:
            missing.append(entry)
            continue
        paths.setdefault(path, {})[method] = op
    if missing:
        sys.exit("no description for: " + ", ".join(missing) + " (add it to OTHER_ROUTES in openapi/generate.py)")
    # OpenAPI has no formData location: POST bodies are request bodies; the GET form of the same action reads the query.
    components = yaml.safe_load((ROOT / "openapi" / "components.yaml").read_text())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "qbtd: qBittorrent's WebAPI v2 and qbtd's extensions",
            "version": "2.11.4",
            "description": (
                "Every route qbtd serves, generated from its router (openapi/generate.py). The WebAPI follows qBittorrent "
                "4.6, 5.1 or 5.2 (--profile); an operation only some profiles have says which in x-qbittorrent-profiles. "
                "GET reads the query string; POST reads only the body (urlencoded or multipart). Booleans are true/false. "
                "Every route but auth/login needs the session cookie (SID; QBT_SID_<port> in 5.2), an API key "
                "(Authorization: Bearer) or, in 5.2, HTTP Basic; CSRF or Host failures are 401, no session 403. "
                "5.2 answers void actions with 204 and names missing parameters."),
        },
        "servers": [{"url": "http://127.0.0.1:8080"}],
        "tags": [{"name": g, "description": d} for g, d in GROUP_NOTES.items()],
        "components": {
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "SID"},
                "apiKey": {"type": "http", "scheme": "bearer"},
                "basic": {"type": "http", "scheme": "basic"},
            },
            **components,
        },
        "security": [{"session": []}, {"apiKey": []}, {"basic": []}],
        "paths": paths,
    }


def fix_form_data(doc):
    for ops in doc["paths"].values():
        for op in ops.values():
            for p in op.get("parameters", []):
                if p["in"] == "formData":
                    p["in"] = "query"
    return doc


def main():
    doc = fix_form_data(build())
    text = "# Generated by openapi/generate.py from qbtd's router: edit that script or components.yaml, not this file.\n"
    text += yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True)
    (ROOT / "openapi" / "qbtd.yaml").write_text(text)
    operations = sum(len(v) for v in doc["paths"].values())
    print(f"openapi/qbtd.yaml: {len(doc['paths'])} paths, {operations} operations")


if __name__ == "__main__":
    main()
