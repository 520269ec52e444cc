"""Differential compatibility of the search flow: each qbtd profile against the real release it names (4.6 against
4.5.2, 5.1 against trixie's 5.1.0, 5.3 against sid's 5.3.x), the way remote apps search and add (install a plugin,
start, poll status, page results, stop, delete), compared by test_differential.py's rules, with the search entries
of compat/accepted_differences.toml. The chroots' releases run plugins under the chroot's python3."""
import pytest

from search_fixtures import Site, write_plugin
from test_differential import PROFILES, G, P, Wait, check, load_accepted, run_scenario, server_pair


@pytest.fixture(params=PROFILES)
def pair(request, tmp_path_factory):
    with server_pair(tmp_path_factory, profile=request.param) as servers:
        yield servers


def plugin_named(name):
    """Compares the one plugin both servers have installed (qbtd also lists its built-in one)."""
    def compare(a, b):
        pa = [p for p in a.json() if p["name"] == name]
        pb = [p for p in b.json() if p["name"] == name]
        return [] if pa == pb else [("[]", "value", f"{pa} vs {pb}")]
    return compare


def scenario(plugin):
    job = lambda s: s.state["job"]  # noqa: E731
    listed = lambda present: lambda s: any(p["name"] == "difftest" for p in s.get("search/plugins").json()) == present  # noqa: E731
    done = lambda s: s.get("search/status", id=job(s)).json()[0]["status"] == "Stopped"  # noqa: E731
    fields = ("fileName", "fileUrl", "fileSize", "nbSeeders", "nbLeechers", "siteUrl", "descrLink")
    return [
        G("search/plugins", note="before any install"),
        P("search/installPlugin", params={"sources": str(plugin)}),
        Wait("plugin installed", listed(True), 30),
        G("search/plugins", check=plugin_named("difftest"), note="after install"),
        P("search/start", params={"pattern": "x"}, note="missing parameters"),
        G("search/start", params={"pattern": "x", "category": "all", "plugins": "difftest"}, note="GET"),
        P("search/start", params={"pattern": "big buck", "category": "all", "plugins": "difftest"},
          keep=lambda s, r: s.state.update(job=r.json()["id"]), text=False, values=("@keys",)),
        Wait("search finished", done, 60),
        G("search/status", params={"id": job}, values=("[].status", "[].total"), text=False),
        G("search/status", values=("[].status|set", "@len"), text=False, note="all"),
        G("search/results", params={"id": job}, values=("status", "total") + tuple(f"results[].{f}" for f in fields)),
        G("search/results", params={"id": job, "limit": "5", "offset": "3"}, values=("total", "results[].fileUrl"),
          note="limit offset"),
        G("search/results", params={"id": job, "offset": "-4"}, values=("results[].fileUrl",), note="negative offset"),
        G("search/results", params={"id": job, "offset": "1000"}, note="offset out of range"),
        G("search/results", params={"id": "12345"}, note="unknown id"),
        G("search/results", note="no id"),
        P("search/stop", params={"id": job}),
        P("search/stop", params={"id": "12345"}, note="unknown id"),
        P("search/enablePlugin", params={"names": "difftest", "enable": "false"}),
        G("search/plugins", check=plugin_named("difftest"), note="disabled"),
        P("search/enablePlugin", params={"names": "difftest", "enable": "true"}),
        P("search/delete", params={"id": job}),
        G("search/status", params={"id": job}, note="deleted"),
        P("search/delete", params={"id": "12345"}, note="unknown id"),
        P("search/uninstallPlugin", params={"names": "difftest"}),
        Wait("plugin removed", listed(False), 30),
        G("search/plugins", note="after uninstall"),
    ]


def test_differential_search(pair, tmp_path):
    nox, peer = pair
    site = Site(results=12)
    try:
        plugin = write_plugin(tmp_path, "difftest", site.url)
        seen = run_scenario(scenario(plugin), nox, peer)
    finally:
        site.close()
    check(seen, 0, nox, peer, load_accepted(nox.reference.profile, search=True))
