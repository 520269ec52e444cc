"""Differential compatibility: each qbtd profile against the real qBittorrent release it names, request by request:
--profile 4.6 against Debian 12's qbittorrent-nox 4.5.2, 5.1 against Debian trixie's 5.1.0 and 5.3 against sid's
5.3.x (qbtnox.REFERENCES; the chroots are made by `make test`). The 5.3 comparison runs once qbtd accepts
--profile 5.3 and is skipped, saying so, before. When sid has moved past the release the profile presents, the
comparison still runs but reports its differences as warnings: qbtd does not claim that release. The run's summary
says which real version each profile was compared with.

Both servers run on 127.0.0.1 and receive the same scenario (SCENARIO below). For every request the suite compares
the status code, the kind of body (JSON, text, binary), plain-text bodies, and the *shape* of JSON answers: keys
and value types, recursively (int and float are one "number" type; a list's shape is the union of its elements'
shapes; objects keyed by hashes, "ip:port", category names or tracker URLs are marked `dyn` in the scenario and
compared by their values' shape only). JSON values are compared only where a step lists them in `values`.

Every difference is keyed by (route, path, kind); kinds: status, format, text, value, missing (the key exists in
qbittorrent-nox only), extra (in qbtd only), type, empty (one side's list/map is empty), wait (a state qbtd never
reached). Differences that are accepted for good are listed in compat/accepted_differences.toml, each for the
profiles it holds in; the test fails on any difference not listed there for its profile and on any listed entry that
no longer occurs in a profile it names.

    .venv/bin/python -m pytest Tests/e2e/test_differential.py
    DIFF_PROFILES=5.1,5.3  only those profiles (default: 4.6, 5.1 and 5.3)
    DIFF_QBTD_PROFILE=5.2  runs qbtd in that profile instead (a preview, e.g. of 5.3 against sid before qbtd has it)
    DIFF_PEER=nox ...      runs qbittorrent-nox against a second qbittorrent-nox (self-test: must show nothing)
    DIFF_REPORT=path ...   also writes every difference seen, as JSON
    DIFF_TRACE=1 ... -s    prints every request's answers
    DIFF_SKIP=route,route  leaves those routes out (e.g. one that crashes the server), for a look at the rest
"""
import contextlib
import json
import os
import re
import subprocess
import time
import tomllib
import warnings
from urllib.parse import unquote
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import libtorrent as lt
import pytest
import requests

from conftest import PASSWORD, Qbtd, free_port, seed, wait_for
from qbtnox import REFERENCES, QbittorrentNox, login_ok

ACCEPTED = Path(__file__).parent / "compat" / "accepted_differences.toml"
TIMEOUT = 10  # seconds, every HTTP request
PROFILES = [p for p in os.environ.get("DIFF_PROFILES", "4.6,5.1,5.3").split(",") if p]
# What each compared run saw, for the session's summary (conftest.py prints it): profile -> line.
COMPARED = {}


# ---------------------------------------------------------------------------------------------------- servers

class Server:
    """One server under test, with what differs per server: password, download directory, session state."""

    def __init__(self, kind, proc, save, password):
        self.kind, self.proc, self.save, self.password = kind, proc, Path(save), password
        self.base, self.port = proc.base, proc.port
        self.state = {}
        self.sessions = {}

    def url(self, route):
        return f"{self.base}/api/v2/{route}"

    def session(self, name="main"):
        if name == "anon":
            return requests.Session()
        if name not in self.sessions:
            s = requests.Session()
            r = s.post(self.url("auth/login"), data={"username": "admin", "password": self.password}, timeout=TIMEOUT)
            assert login_ok(r), (self.kind, r.status_code, r.text)
            self.sessions[name] = s
        return self.sessions[name]

    def path(self, *parts):
        return str(self.save.joinpath(*parts))

    def exists(self, *parts):
        """Whether the server's download folder holds `parts` (a cluster looks in every node's folder)."""
        return self.save.joinpath(*parts).exists()

    def starting(self, step):
        """Called with each step before it is played (a cluster tags its proxy's records with the step)."""

    def wait_budget(self, step, budget):
        """The seconds this server gets for a Wait (run_scenario's budget, unless a subclass knows better)."""
        return budget

    def norm(self, text):
        """Server-specific parts of a text, replaced by placeholders."""
        if isinstance(text, str):
            return text.replace(str(self.save), "<save>").replace(str(self.port), "<port>")
        return text

    def get(self, route, **params):
        return self.session().get(self.url(route), params=params, timeout=TIMEOUT)

    def torrent(self, h):
        got = self.get("torrents/info", hashes=h).json()
        return got[0] if got else {}


def connected(h, peer):
    """A Wait's predicate: torrent `h` has a peer connected; when it has none, `peer` is added to it again (a side
    effect of the wait, not a compared step)."""
    def check(s):
        if s.get("sync/torrentPeers", hash=h).json().get("peers"):
            return True
        s.session().post(s.url("torrents/addPeers"), data={"hashes": h, "peers": peer}, timeout=TIMEOUT)
        return False
    return check


# ---------------------------------------------------------------------------------------------------- seeders

class Seeder:
    """A python-libtorrent session on 127.0.0.1 seeding a generated torrent (named, with trackers and web seeds)."""

    def __init__(self, root, name, sizes, piece_size=256 * 1024, upload_limit=0, trackers=(), url_seeds=()):
        root = Path(root)
        for i, size in enumerate(sizes):
            path = root / name / (f"dir{i % 2}" if i else "") / f"file{i}.bin"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(os.urandom(size))
        fs = lt.file_storage()
        lt.add_files(fs, str(root / name))
        ct = lt.create_torrent(fs, piece_size)
        for tier, url in enumerate(trackers):
            ct.add_tracker(url, tier)
        for url in url_seeds:
            ct.add_url_seed(url)
        ct.set_comment("qbtd differential")
        lt.set_piece_hashes(ct, str(root))
        self.torrent = lt.bencode(ct.generate())
        self.info = lt.torrent_info(lt.bdecode(self.torrent))
        self.id = str(self.info.info_hashes().get_best())
        self.port = free_port()
        self.session, self.handle = seed(self.info, root, self.port)
        if upload_limit:
            self.handle.set_upload_limit(upload_limit)
        wait_for(lambda: self.handle.status().is_seeding, 30, what="seeder ready")

    @property
    def peer(self):
        return f"127.0.0.1:{self.port}"


# ---------------------------------------------------------------------------------------------------- shapes

@dataclass
class Shape:
    types: set = field(default_factory=set)  # null bool number string object list
    keys: dict = None                        # object: key -> Shape ("*" for dyn objects)
    items: "Shape" = None                    # list: union of the elements' shapes (None: empty list)

    def union(self, other):
        if other is None:
            return self
        out = Shape(self.types | other.types)
        if self.keys is not None or other.keys is not None:
            a, b = self.keys or {}, other.keys or {}
            out.keys = {k: a[k].union(b.get(k)) if k in a else b[k] for k in a.keys() | b.keys()}
        out.items = self.items.union(other.items) if self.items else other.items
        return out


def shape_of(v, path, dyn):
    if v is None:
        return Shape({"null"})
    if isinstance(v, bool):
        return Shape({"bool"})
    if isinstance(v, (int, float)):
        return Shape({"number"})
    if isinstance(v, str):
        return Shape({"string"})
    if isinstance(v, list):
        s = Shape({"list"})
        for e in v:
            es = shape_of(e, f"{path}[]", dyn)
            s.items = es if s.items is None else s.items.union(es)
        return s
    if path in dyn:
        s = Shape({"object"}, {})
        for val in v.values():
            vs = shape_of(val, join(path, "*"), dyn)
            s.keys["*"] = vs.union(s.keys.get("*"))
        return s
    return Shape({"object"}, {k: shape_of(val, join(path, k), dyn) for k, val in v.items()})


def join(path, key):
    return f"{path}.{key}" if path else key


def compare_shapes(a, b, path, ignore, allow_empty):
    """(path, kind, detail) for every way `b` (qbtd) differs from `a` (qbittorrent-nox)."""
    if path in ignore:
        return []
    out = []
    if a.types != b.types:
        out.append((path, "type", f"{'|'.join(sorted(a.types))} vs {'|'.join(sorted(b.types))}"))
    if a.keys is not None and b.keys is not None:
        if (not a.keys) != (not b.keys) and not allow_empty:
            out.append((path, "empty", f"{len(a.keys)} keys vs {len(b.keys)} keys"))
        elif a.keys and b.keys:
            for k in sorted(a.keys.keys() - b.keys.keys()):
                if join(path, k) not in ignore:
                    out.append((join(path, k), "missing", "only qbittorrent-nox has it"))
            for k in sorted(b.keys.keys() - a.keys.keys()):
                if join(path, k) not in ignore:
                    out.append((join(path, k), "extra", "only qbtd has it"))
            for k in sorted(a.keys.keys() & b.keys.keys()):
                out += compare_shapes(a.keys[k], b.keys[k], join(path, k), ignore, allow_empty)
    if "list" in a.types and "list" in b.types:
        if (a.items is None) != (b.items is None):
            if not allow_empty:
                out.append((path, "empty", f"{'empty' if a.items is None else 'items'} vs "
                                          f"{'empty' if b.items is None else 'items'}"))
        elif a.items is not None:
            out += compare_shapes(a.items, b.items, f"{path}[]", ignore, allow_empty)
    return out


def pick(value, path):
    """Values at `path`: `[]` = every list element, `*` = every map value (by key), `@keys`, `@len`."""
    results = [value]
    for tok in re.findall(r"\[\]|[^.\[\]]+", path):
        nxt = []
        for v in results:
            if tok == "[]" and isinstance(v, list):
                nxt += v
            elif tok == "*" and isinstance(v, dict):
                nxt += [v[k] for k in sorted(v)]
            elif tok == "@keys" and isinstance(v, dict):
                nxt.append(sorted(v))
            elif tok == "@len" and isinstance(v, (list, dict)):
                nxt.append(len(v))
            elif isinstance(v, dict) and tok in v:
                nxt.append(v[tok])
            else:
                nxt.append("<absent>")
        results = nxt
    return results


# ---------------------------------------------------------------------------------------------------- scenario

@dataclass
class Req:
    method: str
    route: str                      # under /api/v2/
    params: Any = None              # dict, values may be callables of the Server; or a callable
    query: Any = None               # POST only: a query string (qBittorrent ignores it on POST)
    files: Any = None
    headers: Any = None
    session: str = "main"           # "main", "anon", or another name (a fresh logged-in session)
    text: bool = True               # compare text bodies (after Server.norm)
    values: tuple = ()              # JSON paths whose values are compared; "path|sorted" sorts them, "path|set" too and dedups,
                                    # "path|digits": the set of digit counts of numbers; "path|sign": -1/0/1;
                                    # "path|tagset": a ", "-joined string as a sorted list;
                                    # "path|unquoted": strings with their percent-escapes decoded
    dyn: tuple = ()                 # JSON paths of objects keyed by ids
    ignore: tuple = ()              # JSON paths left out
    allow_empty: bool = False       # an empty list/map on one side only is fine (logs, timing-dependent lists)
    keep: Callable = None           # keep(server, response): remember something for later steps
    check: Callable = None          # check(nox_response, qbtd_response) -> [(path, kind, detail)]
    note: str = ""

    def label(self):
        return f"{self.method} {self.route} {self.note}".strip()


@dataclass
class Wait:
    what: str
    predicate: Callable             # predicate(server) -> truthy
    timeout: float = 30


@dataclass
class Do:
    what: str
    action: Callable                # action(server)


def G(route, **kw):
    return Req("GET", route, **kw)


def P(route, **kw):
    return Req("POST", route, **kw)


def resolve(value, srv):
    if callable(value):
        value = value(srv)
    if isinstance(value, dict):
        return {k: resolve(v, srv) for k, v in value.items()}
    return value


def execute(req, srv):
    params = resolve(req.params, srv) or {}
    files = resolve(req.files, srv)
    headers = resolve(req.headers, srv)
    s = srv.session(req.session)
    try:
        if req.method == "GET":
            return s.get(srv.url(req.route), params=params, headers=headers, timeout=TIMEOUT)
        return s.post(srv.url(req.route), params=resolve(req.query, srv), data=params, files=files, headers=headers,
                      timeout=TIMEOUT)
    except requests.RequestException as e:
        r = requests.Response()
        r.status_code, r._content = 0, repr(e).encode()
        return r


def body_kind(r):
    ctype = r.headers.get("Content-Type", "")
    if "json" in ctype:
        return "json"
    if not r.content or ctype.startswith("text/"):
        return "text"
    return "binary"


def compare(req, a_srv, a, b_srv, b):
    diffs = []
    if a.status_code != b.status_code:
        diffs.append(("", "status", f"{a.status_code} vs {b.status_code}"))
    ka, kb = body_kind(a), body_kind(b)
    ma, mb = (r.headers.get("Content-Type", "").split(";")[0].strip().lower() for r in (a, b))
    if ka == kb and ma != mb and (a.content or b.content):
        diffs.append(("", "format", f"{ma or '-'} vs {mb or '-'}"))
    if ka != kb:
        diffs.append(("", "format", f"{ka} ({a.headers.get('Content-Type')}) vs {kb} ({b.headers.get('Content-Type')})"))
        return diffs + [("", "text", f"{a.text[:80]!r} vs {b.text[:80]!r}")] if req.text and "text" in (ka, kb) else diffs
    if ka == "json":
        try:
            ja, jb = a.json(), b.json()
        except ValueError as e:
            return diffs + [("", "format", f"bad JSON: {e}")]
        diffs += compare_shapes(shape_of(ja, "", set(req.dyn)), shape_of(jb, "", set(req.dyn)), "",
                                set(req.ignore), req.allow_empty)
        for spec in req.values:
            path, _, mod = spec.partition("|")
            va = [a_srv.norm(v) for v in pick(ja, path)]
            vb = [b_srv.norm(v) for v in pick(jb, path)]
            if mod == "sign":  # -1, 0 or 1: "unset" markers without the timing
                va, vb = [(v > 0) - (v < 0) if isinstance(v, (int, float)) else v for v in va], \
                    [(v > 0) - (v < 0) if isinstance(v, (int, float)) else v for v in vb]
            if mod == "tagset":  # "a, b" in any order (4.5's tags are a QSet)
                va, vb = [sorted(v.split(", ")) if isinstance(v, str) else v for v in va], \
                    [sorted(v.split(", ")) if isinstance(v, str) else v for v in vb]
            if mod == "unquoted":  # magnet links: 4.5.2 took libtorrent's (%3a, web seeds escaped), 4.6+ builds
                va, vb = [unquote(v) if isinstance(v, str) else v for v in va], \
                    [unquote(v) if isinstance(v, str) else v for v in vb]  # its own (%3A, web seeds as written)
            if mod == "digits":  # how many digits a number has (seconds vs milliseconds), as a set
                va, vb = [len(str(int(v))) for v in va if isinstance(v, (int, float))], \
                    [len(str(int(v))) for v in vb if isinstance(v, (int, float))]
                mod = "set"
            if mod in ("sorted", "set"):
                va, vb = sorted(va, key=json.dumps), sorted(vb, key=json.dumps)
            if mod == "set":
                va, vb = [v for i, v in enumerate(va) if v not in va[:i]], [v for i, v in enumerate(vb) if v not in vb[:i]]
            if va != vb:
                if len(va) == len(vb):  # only the elements that differ
                    va, vb = zip(*[(x, y) for x, y in zip(va, vb) if x != y])
                diffs.append((path, "value", f"{json.dumps(va)[:300]} vs {json.dumps(vb)[:300]}"))
    elif ka == "text" and req.text and a_srv.norm(a.text) != b_srv.norm(b.text):
        diffs.append(("", "text", f"{a.text[:100]!r} vs {b.text[:100]!r}"))
    if req.check:
        diffs += req.check(a, b)
    return diffs


def info_hash_of(r):
    try:
        return str(lt.torrent_info(lt.bdecode(r.content)).info_hashes().get_best())
    except Exception as e:  # noqa: BLE001 - any decoding failure is the answer
        return f"<not a torrent: {e}>"


def same_torrent(a, b):
    ha, hb = info_hash_of(a), info_hash_of(b)
    return [] if ha == hb else [("", "value", f"exported info-hash {ha} vs {hb}")]


def same_rows(*keys):
    """A check: the same rows (these keys of each element of a JSON list) in any order."""
    def check(a, b):
        rows = [sorted(json.dumps([e.get(k) for k in keys]) for e in r.json()) if r.status_code == 200 else []
                for r in (a, b)]
        return [] if rows[0] == rows[1] else [("[]", "value", f"rows {keys}: {rows[0]} vs {rows[1]}"[:400])]
    return check


def build_scenario(fast, slow, magnet_hash, release=(4, 5, 2)):
    """The steps, in order. `fast`: multi-file torrent that completes; `slow`: rate-limited, stays downloading.

    `release`: the reference's version. 5.x stops and starts torrents where 4.x paused and resumed them (5.x
    answers 404 to torrents/pause and torrents/resume; a few steps still call them, as old clients do); 5.2 renamed
    editTracker's origUrl to url."""
    F, S, M = fast.id, slow.id, magnet_hash
    v5 = release >= (5,)
    ORIG = "url" if release >= (5, 2) else "origUrl"
    STOP, START = ("stop", "start") if v5 else ("pause", "resume")
    STOPPED = "stopped" if v5 else "paused"  # torrents/add's parameter and the prefix of the states
    RUNNING = "running" if v5 else "resumed"
    # 5.x lists an edited tracker before or after the others of its tier from one run to the next (two 5.1.0s
    # disagree): there the rows are compared as a set.
    tracker_rows = {"check": same_rows("url", "tier")} if v5 else {"values": ("[].url", "[].tier")}
    magnet = f"magnet:?xt=urn:btih:{M}&dn=no-metadata"
    ALL3 = f"{F}|{S}|{M}"
    torrent_file = lambda name, data: {"torrents": (name, data, "application/x-bittorrent")}  # noqa: E731
    # Values of a torrent object that must agree once both servers have applied the same mutations.
    tvals = ("[].name", "[].save_path", "[].category", "[].seq_dl", "[].f_l_piece_prio", "[].force_start",
             "[].super_seeding", "[].auto_tmm", "[].dl_limit", "[].up_limit", "[].ratio_limit",
             "[].seeding_time_limit", "[].size", "[].total_size", "[].trackers_count", "[].magnet_uri|unquoted",
             "[].completion_on|sign", "[].added_on|sign", "[].eta|sign", "[].ratio|sign",
             "[].max_ratio", "[].max_seeding_time", "[].infohash_v1", "[].infohash_v2", "[].download_path",
             "[].content_path", "[].priority")
    # Properties that must agree (no timing in them).
    PROPS = ("hash", "name", "save_path", "download_path", "total_size", "piece_size", "pieces_num", "comment",
             "created_by", "is_private", "creation_date", "nb_connections_limit", "infohash_v1", "infohash_v2",
             "completion_date|sign", "addition_date|sign", "share_ratio|sign", "eta|sign")
    state = lambda h: lambda srv: srv.torrent(h).get("state", "")  # noqa: E731
    not_checking = lambda h: lambda srv: not state(h)(srv).startswith(("checking", "moving"))  # noqa: E731

    return [
        # ---- auth and transport
        G("app/version", session="anon", note="unauthenticated"),
        G("nope/nothing", session="anon", note="unauthenticated, unknown route"),
        P("auth/login", session="anon", params={"username": "admin", "password": "wrong"}, note="bad password"),
        P("auth/login", session="anon", params={"username": "admin", "password": lambda s: s.password}),
        G("auth/login", session="anon", note="GET on POST-only"),
        P("auth/logout", session="anon", note="unauthenticated"),
        P("auth/login", params={"username": "admin", "password": "wrong"}, note="already logged in, bad password"),
        G("app/webapiVersion", session="second"),
        P("auth/logout", session="second"),
        G("app/webapiVersion", session="second", note="after logout"),
        G("nope/nothing", note="unknown route"),
        G("torrents/nothing", note="unknown action"),
        G("app/version", headers={"Origin": "http://evil.example"}, note="foreign Origin"),
        G("app/version", headers=lambda s: {"Origin": s.base}, text=False, note="own Origin"),
        G("app/version", headers={"Referer": "http://127.0.0.1:1/page"}, note="foreign Referer"),
        G("app/version", headers={"Host": "127.0.0.1:1"}, note="Host with a wrong port"),
        P("torrents/createCategory", params={"category": "csrf"}, headers={"Origin": "http://evil.example"},
          note="foreign Origin on a POST"),
        # ---- app
        G("app/version"),
        G("app/webapiVersion"),
        G("app/buildInfo"),
        G("app/defaultSavePath"),
        G("app/preferences", values=("queueing_enabled", "dht", "pex", "lsd", "max_ratio_enabled",
                                     "web_ui_csrf_protection_enabled", "save_path")),
        P("app/setPreferences", params={"json": json.dumps({
            "max_ratio_enabled": True, "max_ratio": 2.5, "alt_dl_limit": 204800, "alt_up_limit": 102400,
            "max_active_downloads": 7, "dont_count_slow_torrents": True, "unknown_key_ignored": 1,
            "resolve_peer_countries": False})}),
        G("app/preferences", values=("max_ratio_enabled", "max_ratio", "alt_dl_limit", "alt_up_limit",
                                     "max_active_downloads", "dont_count_slow_torrents", "resolve_peer_countries")),
        P("app/setPreferences", note="no json"),
        P("app/setPreferences", params={"json": "{not json"}, note="bad json"),
        G("app/setPreferences", params={"json": "{}"}, note="GET on POST-only"),
        G("app/networkInterfaceList", values=("[].value|sorted",)),
        G("app/networkInterfaceAddressList", params={"iface": "lo"}, values=("[]|sorted",)),
        G("app/networkInterfaceAddressList", params={"iface": ""}, allow_empty=True, note="all interfaces"),
        G("app/networkInterfaceAddressList", note="no iface"),
        # ---- torrents: adding
        G("torrents/info", note="no torrents yet"),
        P("torrents/add", files=torrent_file("bad.torrent", b"this is no torrent"), note="garbage file"),
        P("torrents/add", note="nothing to add"),
        P("torrents/add", files=torrent_file("fast.torrent", fast.torrent),
          params={"savepath": lambda s: s.path("fast"), "category": "added-cat", "tags": "tagA,tagB"},
          note="file, new category and tags"),
        P("torrents/add", params={"urls": magnet, "savepath": lambda s: s.path("magnet"), STOPPED: "true"},
          note="magnet without metadata, paused"),
        P("torrents/add", files=torrent_file("slow.torrent", slow.torrent), params={"sequentialDownload": "true"},
          note="file, sequential"),
        P("torrents/add", files=torrent_file("fast.torrent", fast.torrent), note="duplicate"),
        Wait("torrents visible", lambda s: len(s.get("torrents/info").json()) == 3, 15),
        # libtorrent drops peers given while a torrent still checks its resume data.
        Wait("torrents checked", lambda s: not any(t["state"].startswith("checking")
                                                   for t in s.get("torrents/info").json()), 15),
        P("torrents/addPeers", params={"hashes": F, "peers": fast.peer}, dyn=("",), values=("*.added",)),
        P("torrents/addPeers", params={"hashes": S, "peers": slow.peer}, dyn=("",), values=("*.added",)),
        # (an unreachable peer in the same call keeps libtorrent from reaching the seeder: a torrent of its own)
        P("torrents/addPeers", params={"hashes": M, "peers": "127.0.0.1:9|[::1]:9|127.0.0.2"}, dyn=("",),
          values=("*.added", "*.failed"), note="three peers, one invalid"),
        P("torrents/addPeers", params={"hashes": F, "peers": "not-a-peer"}, note="no valid peer"),
        P("torrents/addPeers", params={"hashes": F}, note="no peers"),
        Wait("fast torrent complete", lambda s: s.torrent(F).get("progress") == 1, 30),
        # (a peer's client name comes from its peer id first, from its extension handshake a moment later:
        # "libtorrent 2.0.8" then "libtorrent/2.0.8.0"; wait for the second on both)
        Wait("slow torrent talks to its seeder", lambda s: any(
            "/" in p.get("client", "") for p in s.get("sync/torrentPeers", hash=S).json().get("peers", {}).values()), 20),
        # ---- sync
        G("sync/maindata", dyn=("torrents", "categories", "trackers"),
          keep=lambda s, r: s.state.update(rid=r.json()["rid"]),
          values=("full_update", "torrents.@keys", "categories.@keys", "categories.*.savePath", "tags[]|sorted",
                  "trackers.@keys", "trackers.*[]|sorted", "server_state.queueing", "server_state.use_alt_speed_limits",
                  "server_state.refresh_interval", "server_state.connection_status", "server_state.dht_nodes",
                  "server_state.dl_rate_limit", "server_state.up_rate_limit", "server_state.alltime_dl|sign",
                  "server_state.dl_info_data|sign", "server_state.total_peer_connections|sign")),
        P("torrents/createCategory", params={"category": "rid-cat", "savePath": lambda s: s.path("rid-cat")}),
        P("torrents/createTags", params={"tags": "rid-tag"}),
        G("sync/maindata", params={"rid": lambda s: s.state["rid"]}, dyn=("torrents", "categories", "trackers"),
          # (whether a torrent field changed between the two polls is timing: the slow torrent is downloading)
          ignore=("torrents", "torrents.*", "server_state", "trackers"), values=("categories.@keys", "tags[]|sorted"),
          note="rid after a change"),
        G("sync/maindata", params={"rid": 987654}, dyn=("torrents", "categories", "trackers"),
          values=("full_update",), note="unknown rid"),
        G("sync/torrentPeers", params={"hash": S}, dyn=("peers",),
          values=("full_update", "show_flags", "peers.@keys", "peers.*.ip", "peers.*.port", "peers.*.client",
                  "peers.*.peer_id_client", "peers.*.connection")),
        G("sync/torrentPeers", params={"hash": M}, dyn=("peers",), note="no metadata"),
        G("sync/torrentPeers", params={"hash": "0" * 40}, note="unknown hash"),
        G("sync/torrentPeers", note="no hash"),
        # ---- torrents: reading
        G("torrents/info", values=("[].hash|sorted", "[].added_on|digits", "[].last_activity|digits")),
        G("torrents/info", params={"hashes": ALL3, "sort": "size"}, values=("[].hash",) + tvals, note="hashes"),
        *[G("torrents/info", params={"filter": f}, values=("[].hash|sorted",), note=f"filter={f}") for f in
          ("all", "downloading", "seeding", "completed", "paused", "resumed", "errored", "moving", "bogus")
          + (("stopped", "running") if v5 else ())],
        *[G("torrents/info", params={"filter": f}, allow_empty=True, note=f"filter={f}")
          for f in ("active", "inactive", "stalled", "stalled_uploading", "stalled_downloading", "checking")],
        G("torrents/info", params={"category": "added-cat"}, values=("[].hash",), note="category"),
        G("torrents/info", params={"category": ""}, values=("[].hash|sorted",), note="uncategorized"),
        G("torrents/info", params={"tag": "tagA"}, values=("[].hash",), note="tag"),
        G("torrents/info", params={"tag": ""}, values=("[].hash|sorted",), note="untagged"),
        G("torrents/info", params={"sort": "size"}, values=("[].hash",), note="sort"),
        G("torrents/info", params={"sort": "size", "reverse": "true"}, values=("[].hash",), note="sort reverse"),
        G("torrents/info", params={"sort": "size", "limit": "1", "offset": "1"}, values=("[].hash",),
          note="limit offset"),
        G("torrents/info", params={"sort": "size", "offset": "-1"}, values=("[].hash",), note="negative offset"),
        G("torrents/info", params={"sort": "no_such_key"}, note="bad sort key"),
        P("torrents/info", params={"filter": STOPPED, "sort": "size", "reverse": "true"}, values=("[].hash",),
          note="as a form (qbittorrent-api posts it)"),
        P("torrents/info", query={"filter": STOPPED}, params={"sort": "size"}, values=("[].hash",),
          note="query string ignored on POST"),
        G("torrents/info", params={"sort": "size", "reverse": "1"}, values=("[].hash",), note="1 is not a boolean"),
        P(f"torrents/{STOP}", query={"hashes": F}, note="hashes in the query only"),
        G("torrents/count"),
        *[G(f"torrents/{r}", params={"hash": h}, note=n, **kw)
          for h, n in ((F, "complete"), (S, "downloading"), (M, "no metadata"))
          for r, kw in (("properties", {"values": PROPS + (("dl_speed_avg", "up_speed_avg") if h == M else ())}),
                        ("trackers", {"values": ("[].url", "[].tier")}),
                        ("webseeds", {"values": ("[].url",)}),
                        ("files", {"values": ("[].name", "[].size", "[].index", "[].priority", "[].piece_range",
                                              "[].is_seed") + (("[].progress",) if h == F else ())}),
                        ("pieceStates", {"values": ("@len",)} if h != S else {}),
                        ("pieceHashes", {"values": ("[]",)}))],
        G("torrents/files", params={"hash": F, "indexes": "0|2"}, values=("[].index",), note="indexes"),
        *[G(f"torrents/{r}", params={"hash": "0" * 40}, note="unknown hash")
          for r in ("properties", "trackers", "webseeds", "files", "pieceStates", "pieceHashes")],
        *[G(f"torrents/{r}", note="no hash") for r in ("properties", "trackers", "files", "pieceStates")],
        G("torrents/export", params={"hash": F}, check=same_torrent),
        G("torrents/export", params={"hash": M}, note="no metadata"),
        G("torrents/export", params={"hash": "0" * 40}, note="unknown hash"),
        # ---- transfer and log
        G("transfer/info", values=("connection_status", "dl_rate_limit", "up_rate_limit")),
        G("transfer/speedLimitsMode"),
        P("transfer/toggleSpeedLimitsMode"),
        G("transfer/speedLimitsMode", note="toggled"),
        P("transfer/setSpeedLimitsMode", params={"mode": "0"}),
        G("transfer/speedLimitsMode", note="set to 0"),
        P("transfer/setSpeedLimitsMode", note="no mode"),
        G("transfer/toggleSpeedLimitsMode", note="GET on POST-only"),
        G("transfer/downloadLimit"),
        G("transfer/uploadLimit"),
        P("transfer/setDownloadLimit", params={"limit": "10485760"}),
        P("transfer/setUploadLimit", params={"limit": "5242880"}),
        G("transfer/downloadLimit", note="after set"),
        G("transfer/uploadLimit", note="after set"),
        G("transfer/info", values=("dl_rate_limit", "up_rate_limit"), note="after limits"),
        P("transfer/setDownloadLimit", params={"limit": "0"}),
        P("transfer/setUploadLimit", params={"limit": "0"}),
        G("transfer/downloadLimit", note="unlimited again"),
        P("transfer/setDownloadLimit", note="no limit"),
        P("transfer/banPeers", params={"peers": "127.0.0.2:6881|[::2]:6881"}),
        P("transfer/banPeers", note="no peers"),
        G("log/main", allow_empty=True, values=("[].timestamp|digits", "[].type|set")),
        G("log/main", params={"normal": "false", "info": "true", "warning": "false", "critical": "false"},
          allow_empty=True, values=("[].type|set",), note="info only"),
        G("log/main", params={"last_known_id": "1000000"}, values=("@len",), note="nothing newer"),
        G("log/peers", allow_empty=True),
        G("log/peers", params={"last_known_id": "1000000"}, values=("@len",), note="nothing newer"),
        # ---- torrents: per-torrent settings
        P("torrents/setDownloadLimit", params={"hashes": f"{F}|{S}", "limit": "1048576"}),
        P("torrents/setUploadLimit", params={"hashes": F, "limit": "524288"}),
        G("torrents/downloadLimit", params={"hashes": ALL3}, dyn=("",), values=("*",)),
        G("torrents/uploadLimit", params={"hashes": ALL3}, dyn=("",), values=("*",)),
        P("torrents/setDownloadLimit", params={"hashes": f"{F}|{S}", "limit": "0"}),
        P("torrents/setDownloadLimit", params={"hashes": F}, note="no limit"),
        G("torrents/downloadLimit", params={"hashes": F}, dyn=("",), values=("*",), note="reset"),
        P("torrents/setUploadLimit", params={"hashes": F, "limit": "524288"}, note="again, before a non-numeric one"),
        P("torrents/setUploadLimit", params={"hashes": F, "limit": "fast"}, note="non-numeric limit: unlimited"),
        G("torrents/uploadLimit", params={"hashes": F}, dyn=("",), values=("*",), note="after a non-numeric limit"),
        P("torrents/setShareLimits", params={"hashes": F, "ratioLimit": "1.5", "seedingTimeLimit": "60",
                                             "inactiveSeedingTimeLimit": "-2"}),
        P("torrents/setShareLimits", params={"hashes": F, "seedingTimeLimit": "60",
                                             "inactiveSeedingTimeLimit": "-2"}, note="no ratioLimit"),
        P("torrents/toggleSequentialDownload", params={"hashes": f"{F}|{S}"}),
        P("torrents/toggleFirstLastPiecePrio", params={"hashes": S}),
        P("torrents/setForceStart", params={"hashes": F, "value": "true"}),
        P("torrents/setSuperSeeding", params={"hashes": F, "value": "true"}),
        P("torrents/setAutoManagement", params={"hashes": M, "enable": "true"}),
        P("torrents/rename", params={"hash": F, "name": "fast renamed"}),
        P("torrents/rename", params={"hash": F, "name": ""}, note="empty name"),
        P("torrents/rename", params={"hash": "0" * 40, "name": "x"}, note="unknown hash"),
        Wait("settings applied", lambda s: s.torrent(F).get("super_seeding") and s.torrent(F).get("force_start"),
             10),
        G("torrents/info", params={"hashes": ALL3, "sort": "size"}, values=("[].hash",) + tvals,
          note="after settings"),
        G("torrents/info", params={"hashes": f"{F}|{M}", "sort": "size"}, values=("[].state",),
          note="states after settings"),
        G("torrents/properties", params={"hash": F}, values=("dl_limit", "up_limit", "share_ratio", "save_path"),
          note="after settings"),
        P("torrents/setForceStart", params={"hashes": F, "value": "false"}),
        P("torrents/setSuperSeeding", params={"hashes": F, "value": "false"}),
        P("torrents/setAutoManagement", params={"hashes": M, "enable": "false"}),
        # ---- files
        P("torrents/filePrio", params={"hash": F, "id": "1|2", "priority": "6"}),
        P("torrents/filePrio", params={"hash": F, "id": "0", "priority": "0"}),
        G("torrents/files", params={"hash": F}, values=("[].priority",), note="after filePrio"),
        P("torrents/filePrio", params={"hash": F, "id": "99", "priority": "1"}, note="bad id"),
        P("torrents/filePrio", params={"hash": F, "id": "x", "priority": "1"}, note="non-integer id"),
        P("torrents/filePrio", params={"hash": F, "id": "0", "priority": "5"}, note="bad priority"),
        P("torrents/filePrio", params={"hash": F, "id": "0", "priority": "x"}, note="non-integer priority"),
        P("torrents/filePrio", params={"hash": M, "id": "0", "priority": "1"}, note="no metadata"),
        P("torrents/filePrio", params={"hash": "0" * 40, "id": "0", "priority": "1"}, note="unknown hash"),
        P("torrents/filePrio", params={"hash": F}, note="missing id and priority"),
        P("torrents/filePrio", params={"hash": F, "id": "0", "priority": "1"}),
        P("torrents/renameFile", params={"hash": F, "oldPath": "fast/file0.bin", "newPath": "fast/first.bin"}),
        P("torrents/renameFile", params={"hash": F, "oldPath": "fast/nope.bin", "newPath": "fast/x.bin"},
          note="no such file"),
        P("torrents/renameFile", params={"hash": F, "oldPath": "fast/first.bin", "newPath": "fast/dir1/file1.bin"},
          note="onto an existing file"),
        P("torrents/renameFolder", params={"hash": F, "oldPath": "fast/dir0", "newPath": "fast/zero"}),
        P("torrents/renameFolder", params={"hash": F, "oldPath": "fast/nodir", "newPath": "fast/x"},
          note="no such folder"),
        P("torrents/renameFolder", params={"hash": "0" * 40, "oldPath": "a", "newPath": "b"}, note="unknown hash"),
        Wait("renames done", lambda s: "fast/zero/file2.bin" in
             [f["name"] for f in s.get("torrents/files", hash=F).json()], 10),
        G("torrents/files", params={"hash": F}, values=("[].name",), note="after renames"),
        # ---- trackers
        P("torrents/addTrackers", params={"hash": F, "urls": "http://127.0.0.1:9/a\nhttp://127.0.0.1:9/b\n\n"
                                                              "http://127.0.0.1:9/c"}, note="a blank line: next tier"),
        P("torrents/addTrackers", params={"hash": "0" * 40, "urls": "http://127.0.0.1:9/c"}, note="unknown hash"),
        P("torrents/editTracker", params={"hash": F, ORIG: "http://127.0.0.1:9/a",
                                          "newUrl": "http://127.0.0.1:9/a2"}),
        P("torrents/editTracker", params={"hash": F, ORIG: "http://127.0.0.1:9/nope",
                                          "newUrl": "http://127.0.0.1:9/x"}, note="no such tracker"),
        P("torrents/editTracker", params={"hash": F, ORIG: "http://127.0.0.1:9/a2",
                                          "newUrl": "http://127.0.0.1:9/b"}, note="onto an existing URL"),
        P("torrents/editTracker", params={"hash": F, ORIG: "http://127.0.0.1:9/a2",
                                          "newUrl": "http://[bad"}, note="invalid URL"),
        P("torrents/removeTrackers", params={"hash": F, "urls": "http://127.0.0.1:9/b"}),
        P("torrents/removeTrackers", params={"hash": "0" * 40, "urls": "http://127.0.0.1:9/b"},
          note="unknown hash"),
        Wait("trackers edited", lambda s: (lambda urls: "http://127.0.0.1:9/a2" in urls and "http://127.0.0.1:9/b" not in urls)(
             [t["url"] for t in s.get("torrents/trackers", hash=F).json()]), 10),
        G("torrents/trackers", params={"hash": F}, note="after edits", **tracker_rows),
        P("torrents/editTracker", params={"hash": F, ORIG: "http://127.0.0.1:9/a2", "newUrl": "127.1.0.2"},
          note="a URL without a scheme"),
        Wait("scheme-less tracker", lambda s: "127.1.0.2" in [t["url"] for t in s.get("torrents/trackers", hash=F).json()], 10),
        G("torrents/trackers", params={"hash": F}, note="after a URL without a scheme", **tracker_rows),
        P("torrents/reannounce", params={"hashes": F}),
        # ---- categories and tags
        P("torrents/createCategory", params={"category": "cat1", "savePath": lambda s: s.path("cat1")}),
        P("torrents/createCategory", params={"category": "cat2"}),
        P("torrents/createCategory", params={"category": "cat1"}, note="exists"),
        P("torrents/createCategory", params={"category": ""}, note="empty name"),
        P("torrents/createCategory", params={"category": "bad\\name"}, note="invalid name"),
        P("torrents/editCategory", params={"category": "cat1", "savePath": lambda s: s.path("cat1b")}),
        P("torrents/editCategory", params={"category": "cat1", "savePath": lambda s: s.path("cat1b")}, note="no change"),
        P("torrents/editCategory", params={"category": "nocat", "savePath": "x"}, note="unknown category"),
        G("torrents/categories", dyn=("",), values=("@keys", "cat1.savePath", "cat2.savePath", "cat1.name")),
        P("torrents/setCategory", params={"hashes": S, "category": "cat2"}),
        P("torrents/setCategory", params={"hashes": S, "category": "nocat"}, note="unknown category"),
        P("torrents/setCategory", params={"hashes": M, "category": "cat2"}),
        P("torrents/setCategory", params={"hashes": M, "category": ""}, note="clear"),
        P("torrents/setCategory", params={"hashes": "0" * 40, "category": "cat2"}, note="unknown hash"),
        P("torrents/removeCategories", params={"categories": "cat1\nrid-cat"}),
        G("torrents/categories", dyn=("",), values=("@keys",), note="after remove"),
        P("torrents/createTags", params={"tags": "t1,t2"}),
        P("torrents/addTags", params={"hashes": f"{F}|{S}", "tags": "t1,t3"}),
        P("torrents/removeTags", params={"hashes": F, "tags": "t1"}),
        G("torrents/tags", values=("[]|sorted",)),
        G("torrents/info", params={"tag": "t1"}, values=("[].hash",), note="tag t1"),
        G("torrents/info", params={"tag": "t3"}, values=("[].hash|sorted",), note="tag t3"),
        P("torrents/deleteTags", params={"tags": "t2,t3"}),
        P("torrents/removeTags", params={"hashes": S}, note="all tags"),
        G("torrents/tags", values=("[]|sorted",), note="after delete"),
        G("torrents/info", params={"category": "cat2"}, values=("[].hash",), note="category cat2"),
        P("torrents/createTags", note="no tags"),
        # ---- queue
        *[P(f"torrents/{r}", params={"hashes": S}, note="queueing off")
          for r in ("increasePrio", "decreasePrio", "topPrio", "bottomPrio")],
        P("app/setPreferences", params={"json": json.dumps({"queueing_enabled": True, "max_active_downloads": 5,
                                                            "max_active_torrents": 10, "max_active_uploads": 5})}),
        # qBittorrent reads queue positions from its cached status (refreshed every 1.5 s) and skips torrents
        # it believes are not queued: wait for each move to show before the next.
        Wait("queue positions", lambda s: s.torrent(S).get("priority") and s.torrent(M).get("priority"), 10),
        G("torrents/info", params={"sort": "priority"}, values=("[].name", "[].priority"), note="queue at start"),
        P("torrents/topPrio", params={"hashes": S}, note="queueing on"),
        Wait("slow on top", lambda s: s.torrent(S).get("priority") == 1, 10),
        P("torrents/bottomPrio", params={"hashes": S}, note="queueing on"),
        Wait("slow at the bottom", lambda s: s.torrent(S).get("priority") == 2, 10),
        P("torrents/increasePrio", params={"hashes": S}, note="queueing on"),
        Wait("slow up", lambda s: s.torrent(S).get("priority") == 1, 10),
        P("torrents/decreasePrio", params={"hashes": S}, note="queueing on"),
        Wait("slow down", lambda s: s.torrent(S).get("priority") == 2, 10),
        G("torrents/info", params={"sort": "priority"}, values=("[].name", "[].priority"), note="queue order"),
        G("transfer/info", note="queueing on"),
        P("app/setPreferences", params={"json": json.dumps({"queueing_enabled": False})}),
        # ---- pause, resume, recheck, location
        P(f"torrents/{STOP}", params={"hashes": f"{F}|{S}"}),
        Wait(STOPPED, lambda s: s.torrent(F).get("state") == f"{STOPPED}UP" and
             s.torrent(S).get("state") == f"{STOPPED}DL", 10),
        G("torrents/info", params={"hashes": ALL3, "sort": "size"}, values=("[].state",), note=STOPPED),
        G("torrents/info", params={"filter": STOPPED}, values=("[].hash|sorted",), note=f"filter={STOPPED}"),
        P(f"torrents/{START}", params={"hashes": "all"}),
        Wait(RUNNING, lambda s: s.torrent(S).get("state") not in (f"{STOPPED}DL", "") and
             s.torrent(F).get("state") != f"{STOPPED}UP", 10),
        G("torrents/info", params={"filter": RUNNING}, values=("[].hash|sorted",), note=f"filter={RUNNING}"),
        P("torrents/pause", params={"hashes": M}),
        P("torrents/stop", params={"hashes": M}),
        P("torrents/start", params={"hashes": M}),
        P("torrents/pause", note="no hashes"),
        G("torrents/pause", params={"hashes": M}, note="GET on POST-only"),
        P("torrents/recheck", params={"hashes": F}),
        Wait("recheck done", not_checking(F), 30),
        P("torrents/setLocation", params={"hashes": F, "location": lambda s: s.path("moved")}),
        P("torrents/setLocation", params={"hashes": F, "location": ""}, note="empty location"),
        Wait("moved", lambda s: s.torrent(F).get("save_path", "").rstrip("/").endswith("moved")
             and not_checking(F)(s), 30),
        G("torrents/info", params={"hashes": F}, values=("[].save_path", "[].content_path", "[].state"),
          note="after move"),
        G("sync/maindata", dyn=("torrents", "categories", "trackers"),
          keep=lambda s, r: s.state.update(rid=r.json()["rid"]),
          values=("torrents.@keys", "categories.@keys", "tags[]|sorted"), note="full, at the end"),
        # ---- banning the slow seeder's address blocks it: log/peers gets an entry
        # The ban is logged as the connected peer is cut off: connected first (a CI run's qbittorrent-nox 5.3 had
        # dropped the connection by then and logged nothing in 20 s), the peer added again while it is not.
        Wait("slow seeder connected", connected(S, slow.peer), 30),
        P("transfer/banPeers", params={"peers": slow.peer}, note="the seeder"),
        Wait("peer blocked", lambda s: s.get("log/peers").json(), 20),
        # (how many connection attempts the filter blocks is timing: compare what was logged, not how often)
        G("log/peers", values=("[].ip|set", "[].blocked|set", "[].reason|set", "[].timestamp|digits"), note="after a ban"),
        G("log/peers", params={"last_known_id": "0"}, allow_empty=True, note="after a ban, last_known_id=0"),
        # ---- deleting
        P("torrents/delete", params={"hashes": M}, note="no deleteFiles"),
        P("torrents/delete", params={"hashes": M, "deleteFiles": "false"}),
        P("torrents/delete", params={"hashes": "0" * 40, "deleteFiles": "false"}, note="unknown hash"),
        Wait("magnet gone", lambda s: not s.get("torrents/info", hashes=M).json(), 10),
        P("torrents/delete", params={"hashes": "all", "deleteFiles": "true"}),
        Wait("all gone", lambda s: not s.get("torrents/info").json(), 15),
        Wait("files deleted", lambda s: not s.exists("moved", "fast"), 15),
        G("torrents/info", note="empty again"),
        P("torrents/add", files=torrent_file("fast.torrent", fast.torrent),
          params={"savepath": lambda s: s.path("again"), "category": "new-cat", "tags": "x,y", "rename": "again",
                  STOPPED: "true", "contentLayout": "NoSubfolder", "upLimit": "100000",
                  "dlLimit": "200000", "ratioLimit": "3", "seedingTimeLimit": "100", "autoTMM": "false",
                  "sequentialDownload": "true", "firstLastPiecePrio": "true"}, note="every parameter"),
        Wait("re-added", lambda s: s.torrent(F).get("state") == f"{STOPPED}DL", 10),
        G("torrents/info", params={"hashes": F}, values=tvals + ("[].state", "[].tags|tagset"),
          note="re-added with every parameter"),
        G("torrents/files", params={"hash": F}, values=("[].name",), note="NoSubfolder"),
        G("torrents/categories", dyn=("",), values=("@keys", "new-cat.savePath"), note="category made by add"),
        P("torrents/delete", params={"hashes": F, "deleteFiles": "true"}, note="re-added"),
        G("sync/maindata", params={"rid": lambda s: s.state["rid"]}, dyn=("torrents", "categories", "trackers"),
          ignore=("server_state",), values=("torrents_removed[]|sorted", "trackers_removed[]|sorted", "full_update"),
          note="rid after deletions"),
        G("sync/maindata", dyn=("torrents", "categories", "trackers"),
          values=("categories.@keys", "server_state.alltime_dl|sign", "server_state.dl_info_data|sign"),
          note="no torrents"),
    ]


# ---------------------------------------------------------------------------------------------------- the test

FIELDS = {"route", "path", "kind", "reason", "profiles", "cause"}
OPTIONAL = {"requests"}  # the labels of the steps (as in the report: "GET torrents/info filter=paused") it is for
CAUSES = {"extension", "release"}


def load_accepted(profile, search=False):
    """The accepted differences of `profile` in the main scenario, or (search=True) in the search flow."""
    data = tomllib.loads(ACCEPTED.read_text())
    out = []
    for e in data.get("difference", []):
        assert FIELDS <= set(e) <= FIELDS | OPTIONAL, f"bad entry in {ACCEPTED.name} (fields: {sorted(FIELDS)}): {e}"
        assert e["cause"] in CAUSES and set(e["profiles"]) <= set(REFERENCES), f"bad entry in {ACCEPTED.name}: {e}"
        if profile not in e["profiles"]:
            continue
        # `path` may list several paths that differ for one reason (keys one release added)
        for path in e["path"] if isinstance(e["path"], list) else [e["path"]]:
            for request in e.get("requests", [None]):
                out.append(dict(e, path=path, request=request))
    return [e for e in out if e["route"].startswith("search/") == search]


def qbtd_profile(tmp_path_factory, profile):
    """qbtd started with --profile `profile`, or a skip when this qbtd has no such profile yet."""
    data = tmp_path_factory.mktemp("qbtd") / "data"
    data.mkdir()
    q = Qbtd(data, extra=["--profile", profile])
    try:
        return q.start()
    except AssertionError as e:
        if "--profile takes" in str(e):
            said = next(line.strip() for line in str(e).splitlines() if "--profile takes" in line)
            expected = REFERENCES[profile].expected if profile in REFERENCES else profile
            pytest.skip(f"this qbtd has no --profile {profile} yet ({said}): the comparison with the real "
                        f"{expected} runs once it does")
        raise


@contextlib.contextmanager
def server_pair(tmp_path_factory, peer="qbtd", profile="4.6"):
    """The real release `profile` is held against and, beside it, qbtd in that profile (or, peer="nox", a second
    copy of the real release)."""
    reference = REFERENCES[profile]
    why = reference.missing()
    if why:
        pytest.skip(why)
    started = []
    try:
        nox = QbittorrentNox(tmp_path_factory.mktemp("nox"), release=reference).start()
        started.append(nox)
        if peer == "nox":
            other = QbittorrentNox(tmp_path_factory.mktemp("nox2"), release=reference).start()
            started.append(other)
            second = Server("nox2", other, other.save, other.password)
        else:
            other = qbtd_profile(tmp_path_factory, os.environ.get("DIFF_QBTD_PROFILE", profile))
            started.append(other)
            second = Server("qbtd", other, other.data_dir / "downloads", PASSWORD)
        first = Server("nox", nox, nox.save, nox.password)
        first.reference, second.reference = reference, reference
        first.version, second.version = (srv.get("app/version").text for srv in (first, second))
        COMPARED[profile] = (f"{reference.describe()}; app/version {first.version} (real) vs {second.version} "
                             f"({second.kind})")
        yield first, second
    finally:
        for p in started:
            p.stop()


@pytest.fixture(scope="module", params=PROFILES)
def servers(request, tmp_path_factory):
    with server_pair(tmp_path_factory, os.environ.get("DIFF_PEER", "qbtd"), request.param) as pair:
        yield pair


def run_scenario(steps, a, b):
    """Plays every step on both servers; returns [(route, path, kind, detail, label)].

    A wait gets the step's timeout on qbittorrent-nox (which must reach the state: else the scenario is wrong) and
    min(timeout, max(10 s, 3 x what qbittorrent-nox needed)) on the other server, so a run stays bounded.
    """
    seen = []
    skip = set(filter(None, os.environ.get("DIFF_SKIP", "").split(",")))
    for step in steps:
        if isinstance(step, Req) and step.route in skip:
            continue
        a.starting(step)
        b.starting(step)
        if isinstance(step, Do):
            step.action(a)
            step.action(b)
        elif isinstance(step, Wait):
            t0 = time.monotonic()
            wait_for(lambda: step.predicate(a), step.timeout, what=f"{step.what} on qbittorrent-nox")
            budget = b.wait_budget(step, min(step.timeout, max(10.0, 3 * (time.monotonic() - t0))))
            try:
                wait_for(lambda: step.predicate(b), budget, what=step.what)
            except (AssertionError, requests.RequestException, ValueError, KeyError) as e:
                seen.append((f"wait: {step.what}", "", "wait", str(e)[:200], step.what))
        else:
            ra, rb = execute(step, a), execute(step, b)
            if os.environ.get("DIFF_TRACE"):
                print(f"{step.label()}\n  {a.kind}: {ra.status_code} {ra.text[:300]!r}\n  {b.kind}: {rb.status_code} "
                      f"{rb.text[:300]!r}")
            for keep, srv, r in ((step.keep, a, ra), (step.keep, b, rb)):
                if keep:
                    try:
                        keep(srv, r)
                    except (ValueError, KeyError, TypeError):
                        pass
            for path, kind, detail in compare(step, a, ra, b, rb):
                seen.append((step.route, path, kind, detail, step.label()))
        if b.proc.proc.poll() is not None:
            seen.append(("<process>", "", "crash", f"{b.kind} exited with {b.proc.proc.returncode}; see "
                                                   f"{b.proc.log.name}", f"right after: {step_label(step)}"))
            break
    return seen


def step_label(step):
    return step.label() if isinstance(step, Req) else step.what


def test_differential(servers, tmp_path_factory):
    nox, peer = servers
    seen, elapsed = play(servers, tmp_path_factory)
    check(seen, elapsed, nox, peer, load_accepted(nox.reference.profile) if peer.kind == "qbtd" else [])


def play(servers, tmp_path_factory):
    nox, peer = servers
    seeds = tmp_path_factory.mktemp("seeds")
    fast = Seeder(seeds / "f", "fast", [700 * 1024, 300 * 1024 + 17, 200 * 1024 - 5],
                  trackers=["http://127.0.0.1:9/announce"], url_seeds=["http://127.0.0.1:9/webseed/"])
    slow = Seeder(seeds / "s", "slow", [48 * 1024 * 1024], piece_size=1024 * 1024, upload_limit=96 * 1024)
    magnet_hash = os.urandom(20).hex()
    started = time.monotonic()
    release = tuple(int(x) for x in re.findall(r"\d+", nox.version)[:3])
    seen = run_scenario(build_scenario(fast, slow, magnet_hash, release), nox, peer)
    crashed = any(d[2] == "crash" for d in seen)
    if not crashed:  # shutdown last, as its own check: both answer alike and both processes exit
        shutdown = P("app/shutdown")
        for path, kind, detail in compare(shutdown, nox, execute(shutdown, nox), peer, execute(shutdown, peer)):
            seen.append(("app/shutdown", path, kind, detail, shutdown.label()))
        for srv in (nox, peer):
            try:
                srv.proc.proc.wait(15)
            except subprocess.TimeoutExpired:
                seen.append(("app/shutdown", "", "wait", f"{srv.kind} still running 15 s after app/shutdown",
                             "process exit"))
    return seen, time.monotonic() - started


def check(seen, elapsed, nox, peer, accepted):
    """Fails on every difference not accepted and on every accepted one no longer seen; only warns when the real
    release has moved past the one the profile presents (sid): qbtd does not claim that release."""
    crashed = any(d[2] == "crash" for d in seen)
    reference = nox.reference
    if os.environ.get("DIFF_REPORT"):
        Path(os.environ["DIFF_REPORT"]).write_text(json.dumps(
            [dict(zip(("route", "path", "kind", "detail", "request"), d)) for d in seen], indent=1))
    key = lambda d: (d[0], d[1], d[2])  # noqa: E731
    # An entry with `requests` holds only for differences seen in those steps.
    listed = {(e["route"], e["path"], e["kind"], e["request"]) for e in accepted}
    # A difference between releases is accepted only while the real release is not the one qbtd presents.
    misplaced = sorted({(e["route"], e["path"], e["kind"]) for e in accepted if e["cause"] == "release"}) \
        if nox.version == peer.version else []
    unexpected = {}
    used = set()
    for d in seen:
        hits = {key(d) + (None,), key(d) + (d[4],)} & listed
        used |= hits
        if not hits:
            unexpected.setdefault(key(d), []).append(d)
    stale = [] if crashed else sorted(listed - used, key=str)
    lines = [f"{len(seen)} differences seen in {elapsed:.0f} s: {len(unexpected)} kinds not accepted, "
             f"{len(stale)} accepted ones no longer seen (qbittorrent-nox {reference.package_version}, "
             f"{nox.version}, vs {peer.kind} --profile {reference.profile}, {peer.version})"]
    for (r, p, k), ds in unexpected.items():
        more = f" (+{len(ds) - 1} more)" if len(ds) > 1 else ""
        lines.append(f"  NEW   {r} [{p or '<root>'}] {k}: {ds[0][3]}   <- {ds[0][4]}{more}")
    lines += [f"  STALE {r} [{p or '<root>'}] {k}{f' in {q!r}' if q else ''}: listed in {ACCEPTED.name} but no "
              f"longer occurs" for r, p, k, q in stale]
    lines += [f"  MISPLACED {r} [{p or '<root>'}] {k}: listed as a difference between releases, but both present "
              f"{nox.version}" for r, p, k in misplaced]
    print("\n".join(lines))
    failed = unexpected or stale or misplaced
    if failed and peer.kind == "qbtd" and not reference.current:
        COMPARED[reference.profile] += f"; {len(unexpected)} new and {len(stale)} stale differences, as warnings"
        warnings.warn(f"{reference.suite} moved to {reference.version}; --profile {reference.profile} presents "
                      f"{reference.expected}: differences reported, not failed\n" + "\n".join(lines))
        return
    assert not failed, "\n".join(lines)
