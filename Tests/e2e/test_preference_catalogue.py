"""The preference catalogue, `GET /api/v2/qbtd/preferenceCatalogue`: one entry per app/preferences key, with its type,
default, profiles and what qbtd does with it. Accepted when:

* every key a live qbittorrent-nox (Debian's 4.5.2) reports is catalogued, with the JSON type it reports;
* every key of qBittorrent 5.1.4 and 5.2.3 is catalogued, and qbtd's app/preferences under --profile 4.6, 5.1 and 5.2
  reports exactly the catalogue's keys for that profile (for 5.x: all of qBittorrent's, plus qbtd's own);
* the README names every key whose effect is inert or fixed;
* a fixed key is not changed by app/setPreferences (with a warning in log/main), and an applied one is, across a
  restart.
"""
import json

import pytest
import requests

from conftest import ROOT, Qbtd
from qbtnox import NOX, QbittorrentNox

KEY = "qbt_cataloguetestkey0123456789"
FIELDS = {"key", "type", "default", "profiles", "effect", "applier", "reason", "alias", "qbtdOnly"}
TYPES = {"bool", "int", "double", "string", "object", "array"}
EFFECTS = {"applied", "inert", "fixed", "uiOnly"}
PROFILES = {"4.6", "5.1", "5.2", "5.3"}
# 4.5's dialect: proxy_type is Net::ProxyType's number there, a name from 4.6 on (qbtd takes both).
DIALECT_4_5 = {"proxy_type": "int"}

# The keys qBittorrent's AppController::preferencesAction (src/webui/api/appcontroller.cpp) reports at the tags
# release-5.1.4 and release-5.2.3, as extracted in docs/design/preference-keys.json. 5.2 added web_ui_api_key,
# resolve_peer_host_names and hostname_cache_ttl, and dropped use_subcategories.
QBITTORRENT_5_1_KEYS = {  # 221 keys
    "add_stopped_enabled", "add_to_top_of_queue", "add_trackers", "add_trackers_enabled",
    "add_trackers_from_url_enabled", "add_trackers_url", "add_trackers_url_list", "alt_dl_limit", "alt_up_limit",
    "alternative_webui_enabled", "alternative_webui_path", "announce_ip", "announce_port", "announce_to_all_tiers",
    "announce_to_all_trackers", "anonymous_mode", "app_instance_name", "async_io_threads", "auto_delete_mode",
    "auto_tmm_enabled", "autorun_enabled", "autorun_on_torrent_added_enabled", "autorun_on_torrent_added_program",
    "autorun_program", "banned_IPs", "bdecode_depth_limit", "bdecode_token_limit", "bittorrent_protocol",
    "block_peers_on_privileged_ports", "bypass_auth_subnet_whitelist", "bypass_auth_subnet_whitelist_enabled",
    "bypass_local_auth", "category_changed_tmm_enabled", "checking_memory_use", "confirm_torrent_deletion",
    "confirm_torrent_recheck", "connection_speed", "current_interface_address", "current_interface_name",
    "current_network_interface", "delete_torrent_content_files", "dht", "dht_bootstrap_nodes", "disk_cache",
    "disk_cache_ttl", "disk_io_read_mode", "disk_io_type", "disk_io_write_mode", "disk_queue_size", "dl_limit",
    "dont_count_slow_torrents", "dyndns_domain", "dyndns_enabled", "dyndns_password", "dyndns_service",
    "dyndns_username", "embedded_tracker_port", "embedded_tracker_port_forwarding", "enable_coalesce_read_write",
    "enable_embedded_tracker", "enable_multi_connections_from_same_ip", "enable_piece_extent_affinity",
    "enable_upload_suggestions", "encryption", "excluded_file_names", "excluded_file_names_enabled", "export_dir",
    "export_dir_fin", "file_log_age", "file_log_age_type", "file_log_backup_enabled", "file_log_delete_old",
    "file_log_enabled", "file_log_max_size", "file_log_path", "file_pool_size", "hashing_threads", "i2p_address",
    "i2p_enabled", "i2p_inbound_length", "i2p_inbound_quantity", "i2p_mixed_mode", "i2p_outbound_length",
    "i2p_outbound_quantity", "i2p_port", "idn_support_enabled", "ignore_ssl_errors", "incomplete_files_ext",
    "ip_filter_enabled", "ip_filter_path", "ip_filter_trackers", "limit_lan_peers", "limit_tcp_overhead",
    "limit_utp_rate", "listen_port", "locale", "lsd", "mail_notification_auth_enabled", "mail_notification_email",
    "mail_notification_enabled", "mail_notification_password", "mail_notification_sender", "mail_notification_smtp",
    "mail_notification_ssl_enabled", "mail_notification_username", "mark_of_the_web", "max_active_checking_torrents",
    "max_active_downloads", "max_active_torrents", "max_active_uploads", "max_concurrent_http_announces",
    "max_connec", "max_connec_per_torrent", "max_inactive_seeding_time", "max_inactive_seeding_time_enabled",
    "max_ratio", "max_ratio_act", "max_ratio_enabled", "max_seeding_time", "max_seeding_time_enabled", "max_uploads",
    "max_uploads_per_torrent", "memory_working_set_limit", "merge_trackers", "outgoing_ports_max",
    "outgoing_ports_min", "peer_tos", "peer_turnover", "peer_turnover_cutoff", "peer_turnover_interval",
    "performance_warning", "pex", "preallocate_all", "proxy_auth_enabled", "proxy_bittorrent",
    "proxy_hostname_lookup", "proxy_ip", "proxy_misc", "proxy_password", "proxy_peer_connections", "proxy_port",
    "proxy_rss", "proxy_type", "proxy_username", "python_executable_path", "queueing_enabled", "random_port",
    "reannounce_when_address_changed", "recheck_completed_torrents", "refresh_interval", "request_queue_size",
    "resolve_peer_countries", "resume_data_storage_type", "rss_auto_downloading_enabled",
    "rss_download_repack_proper_episodes", "rss_fetch_delay", "rss_max_articles_per_feed", "rss_processing_enabled",
    "rss_refresh_interval", "rss_smart_episode_filters", "save_path", "save_path_changed_tmm_enabled",
    "save_resume_data_interval", "save_statistics_interval", "scan_dirs", "schedule_from_hour", "schedule_from_min",
    "schedule_to_hour", "schedule_to_min", "scheduler_days", "scheduler_enabled", "send_buffer_low_watermark",
    "send_buffer_watermark", "send_buffer_watermark_factor", "slow_torrent_dl_rate_threshold",
    "slow_torrent_inactive_timer", "slow_torrent_ul_rate_threshold", "socket_backlog_size",
    "socket_receive_buffer_size", "socket_send_buffer_size", "ssl_enabled", "ssl_listen_port", "ssrf_mitigation",
    "status_bar_external_ip", "stop_tracker_timeout", "temp_path", "temp_path_enabled", "torrent_changed_tmm_enabled",
    "torrent_content_layout", "torrent_content_remove_option", "torrent_file_size_limit", "torrent_stop_condition",
    "up_limit", "upload_choking_algorithm", "upload_slots_behavior", "upnp", "upnp_lease_duration",
    "use_category_paths_in_manual_mode", "use_https", "use_subcategories", "use_unwanted_folder",
    "utp_tcp_mixed_mode", "validate_https_tracker_certificate", "web_ui_address", "web_ui_ban_duration",
    "web_ui_clickjacking_protection_enabled", "web_ui_csrf_protection_enabled", "web_ui_custom_http_headers",
    "web_ui_domain_list", "web_ui_host_header_validation_enabled", "web_ui_https_cert_path", "web_ui_https_key_path",
    "web_ui_max_auth_fail_count", "web_ui_port", "web_ui_reverse_proxies_list", "web_ui_reverse_proxy_enabled",
    "web_ui_secure_cookie_enabled", "web_ui_session_timeout", "web_ui_upnp", "web_ui_use_custom_http_headers_enabled",
    "web_ui_username"
}
# 5.2.3 added three keys and dropped use_subcategories (AppController::preferencesAction at release-5.2.3).
QBITTORRENT_5_2_KEYS = (QBITTORRENT_5_1_KEYS | {"hostname_cache_ttl", "resolve_peer_host_names", "web_ui_api_key"}) \
    - {"use_subcategories"}  # 223 keys


def json_type(value):
    """The catalogue's name for a JSON value's type (a Python bool is not an int here)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "null"


def fits(declared, value):
    """A double may be printed without a fraction (qBittorrent writes max_ratio -1 as `-1`)."""
    got = json_type(value)
    return got == declared or (declared == "double" and got == "int")


def qbittorrent_nox_preferences(root):
    """app/preferences of a fresh qbittorrent-nox on loopback, configured as qbtnox.py does."""
    nox = QbittorrentNox(root).start()
    try:
        return nox.session().get(nox.url("app/preferences"), timeout=30).json()
    finally:
        nox.stop()


def set_prefs(s, q, **values):
    r = s.post(q.url("app/setPreferences"), data={"json": json.dumps(values)}, timeout=30)
    assert r.status_code == 200, (r.status_code, r.text)


def reported(q):
    """app/preferences through a fresh login; 5.2 answers the login with 204 (no body)."""
    s = requests.Session()
    r = s.post(q.url("auth/login"), data={"username": "admin", "password": q.password}, timeout=30)
    assert r.status_code in (200, 204) and r.text in ("Ok.", ""), (r.status_code, r.text)
    return s.get(q.url("app/preferences"), timeout=30).json()


def profile_keys(catalogue, profile):
    return {e["key"] for e in catalogue if profile in e["profiles"]}


def same_keys(got, want, what):
    missing, extra = sorted(want - got), sorted(got - want)
    assert not missing and not extra, \
        f"{what}: catalogued but not reported: {missing}; reported but not catalogued for it: {extra}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A qbtd with the 5.1 profile and an API key, shared by the module."""
    data = tmp_path_factory.mktemp("catalogue") / "data"
    data.mkdir()
    q = Qbtd(data, extra=["--profile", "5.1", "--api-key", KEY])
    try:
        yield q.start()
    finally:
        q.stop()


@pytest.fixture(scope="module")
def catalogue(server):
    r = server.session().get(server.url("qbtd/preferenceCatalogue"), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture(scope="module")
def by_key(catalogue):
    return {e["key"]: e for e in catalogue}


def test_catalogue_shape_and_access(server, catalogue, by_key):
    url = server.url("qbtd/preferenceCatalogue")
    assert requests.get(url, timeout=30).status_code == 403
    assert requests.get(url, headers={"Authorization": f"Bearer {KEY}"}, timeout=30).json() == catalogue
    assert isinstance(catalogue, list) and catalogue
    assert len(by_key) == len(catalogue), "a key is catalogued twice"
    bad = []
    for e in catalogue:
        problems = []
        if FIELDS - set(e):
            problems.append(f"missing fields {sorted(FIELDS - set(e))}")
            bad.append((e.get("key"), problems))
            continue
        if e["type"] not in TYPES:
            problems.append(f"type {e['type']!r}")
        elif e["default"] is not None and not fits(e["type"], e["default"]):
            problems.append(f"default {e['default']!r} is not a {e['type']}")
        if not isinstance(e["profiles"], list) or not set(e["profiles"]) <= PROFILES:
            problems.append(f"profiles {e['profiles']!r}")
        if e["effect"] not in EFFECTS:
            problems.append(f"effect {e['effect']!r}")
        if e["effect"] == "applied" and not isinstance(e["applier"], str):
            problems.append("applied without an applier")
        if e["effect"] in ("inert", "fixed") and not isinstance(e["reason"], str):
            problems.append(f"{e['effect']} without a reason")
        if e["alias"] is not None and e["alias"] not in by_key:
            problems.append(f"alias {e['alias']!r} is not catalogued")
        if not isinstance(e["qbtdOnly"], bool):
            problems.append(f"qbtdOnly {e['qbtdOnly']!r}")
        if problems:
            bad.append((e["key"], problems))
    assert not bad, f"malformed entries: {bad}"


@pytest.mark.skipif(not NOX, reason="qbittorrent-nox is not installed")
def test_every_qbittorrent_nox_key_is_catalogued(by_key, tmp_path):
    nox = qbittorrent_nox_preferences(tmp_path / "nox")
    assert len(nox) >= 170, f"qbittorrent-nox reported only {len(nox)} keys"
    lacking = sorted(set(nox) - set(by_key))
    assert not lacking, f"keys qbittorrent-nox reports that the catalogue lacks: {lacking}"
    mismatched = [(k, by_key[k]["type"], json_type(v), v) for k, v in sorted(nox.items())
                  if not fits(by_key[k]["type"], v) and DIALECT_4_5.get(k) != json_type(v)]
    assert not mismatched, f"(key, catalogue type, qbittorrent-nox's type, its value): {mismatched}"
    own = sorted(k for k in nox if by_key[k]["qbtdOnly"])
    assert not own, f"qBittorrent's keys marked qbtdOnly: {own}"


def test_qbittorrent_5_keys_and_each_profile_reports_its_keys(server, catalogue, by_key, qbtd_factory):
    for profile, keys in (("5.1", QBITTORRENT_5_1_KEYS), ("5.2", QBITTORRENT_5_2_KEYS)):
        lacking = sorted(keys - set(by_key))
        assert not lacking, f"qBittorrent {profile} keys the catalogue lacks: {lacking}"
        elsewhere = sorted(k for k in keys if profile not in by_key[k]["profiles"])
        assert not elsewhere, f"qBittorrent {profile} keys not catalogued for profile {profile}: {elsewhere}"
        own = sorted(k for k in keys if by_key[k]["qbtdOnly"])
        assert not own, f"qBittorrent {profile} keys marked qbtdOnly: {own}"

    servers = {"5.1": server, "5.2": qbtd_factory(extra=["--profile", "5.2"]),
               "4.6": qbtd_factory(extra=["--profile", "4.6"])}
    for profile, q in servers.items():
        got = set(reported(q))
        same_keys(got, profile_keys(catalogue, profile), f"--profile {profile}")
        qbittorrent = {"5.1": QBITTORRENT_5_1_KEYS, "5.2": QBITTORRENT_5_2_KEYS}.get(profile)
        if qbittorrent:
            assert not qbittorrent - got, f"--profile {profile} leaves out qBittorrent's {sorted(qbittorrent - got)}"
            extra = sorted(k for k in got - qbittorrent if not by_key[k]["qbtdOnly"])
            assert not extra, f"--profile {profile} reports keys qBittorrent {profile} does not have: {extra}"


def test_readme_names_every_key_without_effect(catalogue):
    readme = (ROOT / "README.md").read_text()
    unnamed = sorted(e["key"] for e in catalogue if e["effect"] in ("inert", "fixed") and f"`{e['key']}`" not in readme)
    assert not unnamed, f"inert or fixed keys README.md does not name: {unnamed}"


def test_fixed_keys_cannot_be_changed(server, catalogue):
    fixed = {e["key"]: e["default"] for e in catalogue
             if e["effect"] == "fixed" and isinstance(e["default"], bool) and "5.1" in e["profiles"]
             and e["key"] not in ("web_ui_address", "web_ui_port")}  # those two report the listening address
    assert fixed, "the catalogue marks no bool key reported under 5.1 as fixed"
    s = server.session()
    mark = max((m["id"] for m in s.get(server.url("log/main"), timeout=10).json()), default=-1)
    set_prefs(s, server, **{k: not v for k, v in fixed.items()})
    now = s.get(server.url("app/preferences"), timeout=30).json()
    changed = {k: (v, now.get(k)) for k, v in fixed.items() if now.get(k) != v}
    assert not changed, f"fixed keys that changed (default, now): {changed}"
    warnings = [m["message"] for m in s.get(server.url("log/main"), params={"last_known_id": mark}, timeout=10).json()
                if m["type"] == 4]
    assert any("not changed" in m and any(k in m for k in fixed) for m in warnings), \
        f"no warning naming a fixed key with 'not changed': {warnings}"


# Engine keys and the values set: none is qBittorrent's default.
APPLIED = {"async_io_threads": 4, "file_pool_size": 250, "stop_tracker_timeout": 7, "upload_choking_algorithm": 0,
           "utp_tcp_mixed_mode": 1, "announce_to_all_tiers": False, "connection_speed": 55}


def test_applied_engine_keys_change_and_survive_a_restart(qbtd_factory, by_key):
    unfit = [(k, by_key.get(k)) for k, v in APPLIED.items()
             if k not in by_key or by_key[k]["effect"] != "applied" or by_key[k]["type"] != json_type(v)
             or by_key[k]["default"] == v]
    assert not unfit, f"keys the catalogue does not list as applied, of this type, with another default: {unfit}"
    q = qbtd_factory()
    set_prefs(q.session(), q, **APPLIED)
    now = reported(q)
    assert {k: now.get(k) for k in APPLIED} == APPLIED
    q.stop()
    again = qbtd_factory(data_dir=q.data_dir)
    now = reported(again)
    assert {k: now.get(k) for k in APPLIED} == APPLIED, "applied keys were not kept across a restart"
