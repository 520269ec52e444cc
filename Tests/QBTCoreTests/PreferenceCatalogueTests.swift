// The fixture lists are qBittorrent's own `app/preferences` keys per release (AppController::preferencesAction at
// release-4.6.7 / 5.1.4 / 5.2.3, as docs/design/preference-keys.json lists them), so the test does not trust the
// catalogue. The e2e suite checks the same against a running qbittorrent-nox.
import EngineTestSupport
import Foundation
import Store
import SystemKit
import XCTest

@testable import QBTCore
@testable import TorrentEngine

final class PreferenceCatalogueTests: XCTestCase {
    static let qBittorrentKeys: [Identity.Profile: Set<String>] = withV5_2([
        .v4_6: [
            "add_to_top_of_queue", "add_trackers", "add_trackers_enabled", "alt_dl_limit", "alt_up_limit",
            "alternative_webui_enabled", "alternative_webui_path", "announce_ip", "announce_to_all_tiers",
            "announce_to_all_trackers", "anonymous_mode", "async_io_threads", "auto_delete_mode",
            "auto_tmm_enabled", "autorun_enabled", "autorun_on_torrent_added_enabled",
            "autorun_on_torrent_added_program", "autorun_program", "banned_IPs", "bdecode_depth_limit",
            "bdecode_token_limit", "bittorrent_protocol", "block_peers_on_privileged_ports",
            "bypass_auth_subnet_whitelist", "bypass_auth_subnet_whitelist_enabled", "bypass_local_auth",
            "category_changed_tmm_enabled", "checking_memory_use", "connection_speed",
            "current_interface_address", "current_interface_name", "current_network_interface", "dht",
            "disk_cache", "disk_cache_ttl", "disk_io_read_mode", "disk_io_type", "disk_io_write_mode",
            "disk_queue_size", "dl_limit", "dont_count_slow_torrents", "dyndns_domain", "dyndns_enabled",
            "dyndns_password", "dyndns_service", "dyndns_username", "embedded_tracker_port",
            "embedded_tracker_port_forwarding", "enable_coalesce_read_write", "enable_embedded_tracker",
            "enable_multi_connections_from_same_ip", "enable_piece_extent_affinity",
            "enable_upload_suggestions", "encryption", "excluded_file_names", "excluded_file_names_enabled",
            "export_dir", "export_dir_fin", "file_log_age", "file_log_age_type", "file_log_backup_enabled",
            "file_log_delete_old", "file_log_enabled", "file_log_max_size", "file_log_path", "file_pool_size",
            "hashing_threads", "i2p_address", "i2p_enabled", "i2p_inbound_length", "i2p_inbound_quantity",
            "i2p_mixed_mode", "i2p_outbound_length", "i2p_outbound_quantity", "i2p_port", "idn_support_enabled",
            "incomplete_files_ext", "ip_filter_enabled", "ip_filter_path", "ip_filter_trackers",
            "limit_lan_peers", "limit_tcp_overhead", "limit_utp_rate", "listen_port", "locale", "lsd",
            "mail_notification_auth_enabled", "mail_notification_email", "mail_notification_enabled",
            "mail_notification_password", "mail_notification_sender", "mail_notification_smtp",
            "mail_notification_ssl_enabled", "mail_notification_username", "max_active_checking_torrents",
            "max_active_downloads", "max_active_torrents", "max_active_uploads",
            "max_concurrent_http_announces", "max_connec", "max_connec_per_torrent",
            "max_inactive_seeding_time", "max_inactive_seeding_time_enabled", "max_ratio", "max_ratio_act",
            "max_ratio_enabled", "max_seeding_time", "max_seeding_time_enabled", "max_uploads",
            "max_uploads_per_torrent", "memory_working_set_limit", "merge_trackers", "outgoing_ports_max",
            "outgoing_ports_min", "peer_tos", "peer_turnover", "peer_turnover_cutoff", "peer_turnover_interval",
            "performance_warning", "pex", "preallocate_all", "proxy_auth_enabled", "proxy_bittorrent",
            "proxy_hostname_lookup", "proxy_ip", "proxy_misc", "proxy_password", "proxy_peer_connections",
            "proxy_port", "proxy_rss", "proxy_type", "proxy_username", "queueing_enabled", "random_port",
            "reannounce_when_address_changed", "recheck_completed_torrents", "refresh_interval",
            "request_queue_size", "resolve_peer_countries", "resume_data_storage_type",
            "rss_auto_downloading_enabled", "rss_download_repack_proper_episodes", "rss_max_articles_per_feed",
            "rss_processing_enabled", "rss_refresh_interval", "rss_smart_episode_filters", "save_path",
            "save_path_changed_tmm_enabled", "save_resume_data_interval", "scan_dirs", "schedule_from_hour",
            "schedule_from_min", "schedule_to_hour", "schedule_to_min", "scheduler_days", "scheduler_enabled",
            "send_buffer_low_watermark", "send_buffer_watermark", "send_buffer_watermark_factor",
            "slow_torrent_dl_rate_threshold", "slow_torrent_inactive_timer", "slow_torrent_ul_rate_threshold",
            "socket_backlog_size", "socket_receive_buffer_size", "socket_send_buffer_size", "ssrf_mitigation",
            "start_paused_enabled", "stop_tracker_timeout", "temp_path", "temp_path_enabled",
            "torrent_changed_tmm_enabled", "torrent_content_layout", "torrent_file_size_limit",
            "torrent_stop_condition", "up_limit", "upload_choking_algorithm", "upload_slots_behavior", "upnp",
            "upnp_lease_duration", "use_category_paths_in_manual_mode", "use_https", "use_subcategories",
            "utp_tcp_mixed_mode", "validate_https_tracker_certificate", "web_ui_address", "web_ui_ban_duration",
            "web_ui_clickjacking_protection_enabled", "web_ui_csrf_protection_enabled",
            "web_ui_custom_http_headers", "web_ui_domain_list", "web_ui_host_header_validation_enabled",
            "web_ui_https_cert_path", "web_ui_https_key_path", "web_ui_max_auth_fail_count", "web_ui_port",
            "web_ui_reverse_proxies_list", "web_ui_reverse_proxy_enabled", "web_ui_secure_cookie_enabled",
            "web_ui_session_timeout", "web_ui_upnp", "web_ui_use_custom_http_headers_enabled", "web_ui_username"
        ],
        .v5_1: [
            "add_stopped_enabled", "add_to_top_of_queue", "add_trackers", "add_trackers_enabled",
            "add_trackers_from_url_enabled", "add_trackers_url", "add_trackers_url_list", "alt_dl_limit",
            "alt_up_limit", "alternative_webui_enabled", "alternative_webui_path", "announce_ip",
            "announce_port", "announce_to_all_tiers", "announce_to_all_trackers", "anonymous_mode",
            "app_instance_name", "async_io_threads", "auto_delete_mode", "auto_tmm_enabled", "autorun_enabled",
            "autorun_on_torrent_added_enabled", "autorun_on_torrent_added_program", "autorun_program",
            "banned_IPs", "bdecode_depth_limit", "bdecode_token_limit", "bittorrent_protocol",
            "block_peers_on_privileged_ports", "bypass_auth_subnet_whitelist",
            "bypass_auth_subnet_whitelist_enabled", "bypass_local_auth", "category_changed_tmm_enabled",
            "checking_memory_use", "confirm_torrent_deletion", "confirm_torrent_recheck", "connection_speed",
            "current_interface_address", "current_interface_name", "current_network_interface",
            "delete_torrent_content_files", "dht", "dht_bootstrap_nodes", "disk_cache", "disk_cache_ttl",
            "disk_io_read_mode", "disk_io_type", "disk_io_write_mode", "disk_queue_size", "dl_limit",
            "dont_count_slow_torrents", "dyndns_domain", "dyndns_enabled", "dyndns_password", "dyndns_service",
            "dyndns_username", "embedded_tracker_port", "embedded_tracker_port_forwarding",
            "enable_coalesce_read_write", "enable_embedded_tracker", "enable_multi_connections_from_same_ip",
            "enable_piece_extent_affinity", "enable_upload_suggestions", "encryption", "excluded_file_names",
            "excluded_file_names_enabled", "export_dir", "export_dir_fin", "file_log_age", "file_log_age_type",
            "file_log_backup_enabled", "file_log_delete_old", "file_log_enabled", "file_log_max_size",
            "file_log_path", "file_pool_size", "hashing_threads", "i2p_address", "i2p_enabled",
            "i2p_inbound_length", "i2p_inbound_quantity", "i2p_mixed_mode", "i2p_outbound_length",
            "i2p_outbound_quantity", "i2p_port", "idn_support_enabled", "ignore_ssl_errors",
            "incomplete_files_ext", "ip_filter_enabled", "ip_filter_path", "ip_filter_trackers",
            "limit_lan_peers", "limit_tcp_overhead", "limit_utp_rate", "listen_port", "locale", "lsd",
            "mail_notification_auth_enabled", "mail_notification_email", "mail_notification_enabled",
            "mail_notification_password", "mail_notification_sender", "mail_notification_smtp",
            "mail_notification_ssl_enabled", "mail_notification_username", "mark_of_the_web",
            "max_active_checking_torrents", "max_active_downloads", "max_active_torrents", "max_active_uploads",
            "max_concurrent_http_announces", "max_connec", "max_connec_per_torrent",
            "max_inactive_seeding_time", "max_inactive_seeding_time_enabled", "max_ratio", "max_ratio_act",
            "max_ratio_enabled", "max_seeding_time", "max_seeding_time_enabled", "max_uploads",
            "max_uploads_per_torrent", "memory_working_set_limit", "merge_trackers", "outgoing_ports_max",
            "outgoing_ports_min", "peer_tos", "peer_turnover", "peer_turnover_cutoff", "peer_turnover_interval",
            "performance_warning", "pex", "preallocate_all", "proxy_auth_enabled", "proxy_bittorrent",
            "proxy_hostname_lookup", "proxy_ip", "proxy_misc", "proxy_password", "proxy_peer_connections",
            "proxy_port", "proxy_rss", "proxy_type", "proxy_username", "python_executable_path",
            "queueing_enabled", "random_port", "reannounce_when_address_changed", "recheck_completed_torrents",
            "refresh_interval", "request_queue_size", "resolve_peer_countries", "resume_data_storage_type",
            "rss_auto_downloading_enabled", "rss_download_repack_proper_episodes", "rss_fetch_delay",
            "rss_max_articles_per_feed", "rss_processing_enabled", "rss_refresh_interval",
            "rss_smart_episode_filters", "save_path", "save_path_changed_tmm_enabled",
            "save_resume_data_interval", "save_statistics_interval", "scan_dirs", "schedule_from_hour",
            "schedule_from_min", "schedule_to_hour", "schedule_to_min", "scheduler_days", "scheduler_enabled",
            "send_buffer_low_watermark", "send_buffer_watermark", "send_buffer_watermark_factor",
            "slow_torrent_dl_rate_threshold", "slow_torrent_inactive_timer", "slow_torrent_ul_rate_threshold",
            "socket_backlog_size", "socket_receive_buffer_size", "socket_send_buffer_size", "ssl_enabled",
            "ssl_listen_port", "ssrf_mitigation", "status_bar_external_ip", "stop_tracker_timeout", "temp_path",
            "temp_path_enabled", "torrent_changed_tmm_enabled", "torrent_content_layout",
            "torrent_content_remove_option", "torrent_file_size_limit", "torrent_stop_condition", "up_limit",
            "upload_choking_algorithm", "upload_slots_behavior", "upnp", "upnp_lease_duration",
            "use_category_paths_in_manual_mode", "use_https", "use_subcategories", "use_unwanted_folder",
            "utp_tcp_mixed_mode", "validate_https_tracker_certificate", "web_ui_address", "web_ui_ban_duration",
            "web_ui_clickjacking_protection_enabled", "web_ui_csrf_protection_enabled",
            "web_ui_custom_http_headers", "web_ui_domain_list", "web_ui_host_header_validation_enabled",
            "web_ui_https_cert_path", "web_ui_https_key_path", "web_ui_max_auth_fail_count", "web_ui_port",
            "web_ui_reverse_proxies_list", "web_ui_reverse_proxy_enabled", "web_ui_secure_cookie_enabled",
            "web_ui_session_timeout", "web_ui_upnp", "web_ui_use_custom_http_headers_enabled", "web_ui_username"
        ],
    ])

    /// 5.2.3 added three keys and dropped `use_subcategories` (AppController::preferencesAction at release-5.2.3).
    static func withV5_2(_ keys: [Identity.Profile: Set<String>]) -> [Identity.Profile: Set<String>] {
        var keys = keys
        keys[.v5_2] = keys[.v5_1]!.union(["hostname_cache_ttl", "resolve_peer_host_names", "web_ui_api_key"])
            .subtracting(["use_subcategories"])
        keys[.v5_3] = keys[.v5_2]!.union(v5_3Added).subtracting(["export_dir", "export_dir_fin", "mail_notification_ssl_enabled"])
        return keys
    }

    /// The keys the real 5.3.0 (Debian sid's qbittorrent-nox 5.3.0-1) reports beyond 5.2.3's, read from its
    /// `app/preferences` on 2026-12-06.
    static let v5_3Added: Set<String> = [
        "confirm_remove_all_tags", "confirm_remove_tracker_from_all_torrents", "enable_multi_connections_from_same_peer_id",
        "i2p_inbound_length_variance", "i2p_outbound_length_variance", "i2p_pex_enabled", "mail_notification_encryption_type",
        "max_outstanding_block_requests", "remove_torrent_file_backup", "seeding_outgoing_connections", "share_limits_mode",
        "shutdown_timeout", "start_paused", "store_search_job_results", "store_search_jobs", "torrent_files_backup_dir",
        "torrent_files_backup_enabled", "torrent_files_finished_backup_dir", "torrent_files_finished_backup_dir_enabled",
        "web_ui_sessions_count_limit", "webtorrent_stun_server",
    ]

    /// qBittorrent's JSON type per key (`max_ratio` is the only double).
    static let qBittorrentTypes: [String: PreferenceEntry.ValueType] = [
        "confirm_remove_all_tags": .bool, "confirm_remove_tracker_from_all_torrents": .bool,
        "enable_multi_connections_from_same_peer_id": .bool, "i2p_inbound_length_variance": .int,
        "i2p_outbound_length_variance": .int, "i2p_pex_enabled": .bool, "mail_notification_encryption_type": .string,
        "max_outstanding_block_requests": .int, "remove_torrent_file_backup": .bool, "seeding_outgoing_connections": .bool,
        "share_limits_mode": .string, "shutdown_timeout": .int, "start_paused": .bool, "store_search_job_results": .bool,
        "store_search_jobs": .bool, "torrent_files_backup_dir": .string, "torrent_files_backup_enabled": .bool,
        "torrent_files_finished_backup_dir": .string, "torrent_files_finished_backup_dir_enabled": .bool,
        "web_ui_sessions_count_limit": .int, "webtorrent_stun_server": .string,
        "add_stopped_enabled": .bool, "add_to_top_of_queue": .bool, "add_trackers": .string,
        "add_trackers_enabled": .bool, "add_trackers_from_url_enabled": .bool, "add_trackers_url": .string,
        "add_trackers_url_list": .string, "alt_dl_limit": .int, "alt_up_limit": .int,
        "alternative_webui_enabled": .bool, "alternative_webui_path": .string, "announce_ip": .string,
        "announce_port": .int, "announce_to_all_tiers": .bool, "announce_to_all_trackers": .bool,
        "anonymous_mode": .bool, "app_instance_name": .string, "async_io_threads": .int, "auto_delete_mode":
        .int, "auto_tmm_enabled": .bool, "autorun_enabled": .bool, "autorun_on_torrent_added_enabled": .bool,
        "autorun_on_torrent_added_program": .string, "autorun_program": .string, "banned_IPs": .string,
        "bdecode_depth_limit": .int, "bdecode_token_limit": .int, "bittorrent_protocol": .int,
        "block_peers_on_privileged_ports": .bool, "bypass_auth_subnet_whitelist": .string,
        "bypass_auth_subnet_whitelist_enabled": .bool, "bypass_local_auth": .bool,
        "category_changed_tmm_enabled": .bool, "checking_memory_use": .int, "confirm_torrent_deletion": .bool,
        "confirm_torrent_recheck": .bool, "connection_speed": .int, "current_interface_address": .string,
        "current_interface_name": .string, "current_network_interface": .string, "delete_torrent_content_files":
        .bool, "dht": .bool, "dht_bootstrap_nodes": .string, "disk_cache": .int, "disk_cache_ttl": .int,
        "disk_io_read_mode": .int, "disk_io_type": .int, "disk_io_write_mode": .int, "disk_queue_size": .int,
        "dl_limit": .int, "dont_count_slow_torrents": .bool, "dyndns_domain": .string, "dyndns_enabled": .bool,
        "dyndns_password": .string, "dyndns_service": .int, "dyndns_username": .string, "embedded_tracker_port":
        .int, "embedded_tracker_port_forwarding": .bool, "enable_coalesce_read_write": .bool,
        "enable_embedded_tracker": .bool, "enable_multi_connections_from_same_ip": .bool,
        "enable_piece_extent_affinity": .bool, "enable_upload_suggestions": .bool, "encryption": .int,
        "excluded_file_names": .string, "excluded_file_names_enabled": .bool, "export_dir": .string,
        "export_dir_fin": .string, "file_log_age": .int, "file_log_age_type": .int, "file_log_backup_enabled":
        .bool, "file_log_delete_old": .bool, "file_log_enabled": .bool, "file_log_max_size": .int,
        "file_log_path": .string, "file_pool_size": .int, "hashing_threads": .int, "hostname_cache_ttl": .int,
        "i2p_address": .string, "i2p_enabled": .bool, "i2p_inbound_length": .int, "i2p_inbound_quantity": .int,
        "i2p_mixed_mode": .bool, "i2p_outbound_length": .int, "i2p_outbound_quantity": .int, "i2p_port": .int,
        "idn_support_enabled": .bool, "ignore_ssl_errors": .bool, "incomplete_files_ext": .bool,
        "ip_filter_enabled": .bool, "ip_filter_path": .string, "ip_filter_trackers": .bool, "limit_lan_peers":
        .bool, "limit_tcp_overhead": .bool, "limit_utp_rate": .bool, "listen_port": .int, "locale": .string,
        "lsd": .bool, "mail_notification_auth_enabled": .bool, "mail_notification_email": .string,
        "mail_notification_enabled": .bool, "mail_notification_password": .string, "mail_notification_sender":
        .string, "mail_notification_smtp": .string, "mail_notification_ssl_enabled": .bool,
        "mail_notification_username": .string, "mark_of_the_web": .bool, "max_active_checking_torrents": .int,
        "max_active_downloads": .int, "max_active_torrents": .int, "max_active_uploads": .int,
        "max_concurrent_http_announces": .int, "max_connec": .int, "max_connec_per_torrent": .int,
        "max_inactive_seeding_time": .int, "max_inactive_seeding_time_enabled": .bool, "max_ratio": .double,
        "max_ratio_act": .int, "max_ratio_enabled": .bool, "max_seeding_time": .int, "max_seeding_time_enabled":
        .bool, "max_uploads": .int, "max_uploads_per_torrent": .int, "memory_working_set_limit": .int,
        "merge_trackers": .bool, "outgoing_ports_max": .int, "outgoing_ports_min": .int, "peer_tos": .int,
        "peer_turnover": .int, "peer_turnover_cutoff": .int, "peer_turnover_interval": .int,
        "performance_warning": .bool, "pex": .bool, "preallocate_all": .bool, "proxy_auth_enabled": .bool,
        "proxy_bittorrent": .bool, "proxy_hostname_lookup": .bool, "proxy_ip": .string, "proxy_misc": .bool,
        "proxy_password": .string, "proxy_peer_connections": .bool, "proxy_port": .int, "proxy_rss": .bool,
        "proxy_torrents_only": .bool, "proxy_type": .string, "proxy_username": .string,
        "python_executable_path": .string, "queueing_enabled": .bool, "random_port": .bool,
        "reannounce_when_address_changed": .bool, "recheck_completed_torrents": .bool, "refresh_interval": .int,
        "request_queue_size": .int, "resolve_peer_countries": .bool, "resolve_peer_host_names": .bool,
        "resume_data_storage_type": .string, "rss_auto_downloading_enabled": .bool,
        "rss_download_repack_proper_episodes": .bool, "rss_fetch_delay": .int, "rss_max_articles_per_feed":
        .int, "rss_processing_enabled": .bool, "rss_refresh_interval": .int, "rss_smart_episode_filters":
        .string, "save_path": .string, "save_path_changed_tmm_enabled": .bool, "save_resume_data_interval":
        .int, "save_statistics_interval": .int, "scan_dirs": .object, "schedule_from_hour": .int,
        "schedule_from_min": .int, "schedule_to_hour": .int, "schedule_to_min": .int, "scheduler_days": .int,
        "scheduler_enabled": .bool, "send_buffer_low_watermark": .int, "send_buffer_watermark": .int,
        "send_buffer_watermark_factor": .int, "slow_torrent_dl_rate_threshold": .int,
        "slow_torrent_inactive_timer": .int, "slow_torrent_ul_rate_threshold": .int, "socket_backlog_size":
        .int, "socket_receive_buffer_size": .int, "socket_send_buffer_size": .int, "ssl_enabled": .bool,
        "ssl_listen_port": .int, "ssrf_mitigation": .bool, "start_paused_enabled": .bool,
        "status_bar_external_ip": .bool, "stop_tracker_timeout": .int, "temp_path": .string,
        "temp_path_enabled": .bool, "torrent_changed_tmm_enabled": .bool, "torrent_content_layout": .string,
        "torrent_content_remove_option": .string, "torrent_file_size_limit": .int, "torrent_stop_condition":
        .string, "up_limit": .int, "upload_choking_algorithm": .int, "upload_slots_behavior": .int, "upnp":
        .bool, "upnp_lease_duration": .int, "use_category_paths_in_manual_mode": .bool, "use_https": .bool,
        "use_subcategories": .bool, "use_unwanted_folder": .bool, "utp_tcp_mixed_mode": .int,
        "validate_https_tracker_certificate": .bool, "web_ui_address": .string, "web_ui_api_key": .string,
        "web_ui_ban_duration": .int, "web_ui_clickjacking_protection_enabled": .bool,
        "web_ui_csrf_protection_enabled": .bool, "web_ui_custom_http_headers": .string, "web_ui_domain_list":
        .string, "web_ui_host_header_validation_enabled": .bool, "web_ui_https_cert_path": .string,
        "web_ui_https_key_path": .string, "web_ui_max_auth_fail_count": .int, "web_ui_port": .int,
        "web_ui_reverse_proxies_list": .string, "web_ui_reverse_proxy_enabled": .bool,
        "web_ui_secure_cookie_enabled": .bool, "web_ui_session_timeout": .int, "web_ui_upnp": .bool,
        "web_ui_use_custom_http_headers_enabled": .bool, "web_ui_username": .string
    ]

    // MARK: every key, and nothing else

    func testCatalogueHasEveryKeyQBittorrentReports() {
        for profile in Identity.Profile.allCases {
            let reported = PreferenceCatalogue.keys(reportedBy: profile)
            let qbtdOwn = Set(PreferenceCatalogue.entries.filter(\.qbtdOnly).map(\.key))
            XCTAssertEqual(Self.qBittorrentKeys[profile]!.subtracting(reported), [], "missing under \(profile)")
            XCTAssertEqual(reported.subtracting(qbtdOwn).subtracting(Self.qBittorrentKeys[profile]!), [],
                           "reported under \(profile) though qBittorrent does not")
        }
    }

    func testTypesAreQBittorrents() {
        for entry in PreferenceCatalogue.entries where !entry.qbtdOnly {
            guard let type = Self.qBittorrentTypes[entry.key] else { continue }  // web_ui_password: set-only
            XCTAssertEqual(entry.type, type, entry.key)
        }
    }

    func testKeysAreUniqueAndReasonsSaySomething() {
        XCTAssertEqual(PreferenceCatalogue.byKey.count, PreferenceCatalogue.entries.count)
        for entry in PreferenceCatalogue.entries {
            if let reason = entry.reason { XCTAssertFalse(reason.isEmpty, entry.key) }
        }
    }

    /// The defaults table is the catalogue's (once PreferenceDefaults.values(paths:) is replaced by it).
    func testServerSettingsStartFromTheCatalogue() async throws {
        let dir = try temporaryFolder("qbtd-catalogue")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try await MemoryServer.start(in: dir)
        let values = server.service.settings.values
        let expected = PreferenceCatalogue.defaults(paths: server.service.paths)
        XCTAssertEqual(Set(values.keys), Set(expected.keys))
    }

    /// app/preferences never reports a behaviour qbtd does not have: a fixed key keeps its value.
    func testFixedKeysRefuseChanges() async throws {
        let dir = try temporaryFolder("qbtd-catalogue-fixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try await MemoryServer.start(in: dir)
        let settings = server.service.settings
        for entry in PreferenceCatalogue.entries where !entry.acceptsChanges && !entry.profiles.isEmpty {
            let before = settings.values[entry.key]
            let changed = try await settings.update([entry.key: Self.changedValue(entry, in: dir)])
            XCTAssertFalse(changed.contains(entry.key), "\(entry.key) is fixed but took a new value")
            let after = settings.values[entry.key]
            XCTAssertEqual(before, after, entry.key)
        }
    }

    /// Hostile numbers: kept to 32 bits as qBittorrent keeps them, so no conversion (KiB to bytes, hours to
    /// minutes) can overflow and trap on every start.
    func testHugeNumbersAreClampedAndNeverOverflow() async throws {
        let dir = try temporaryFolder("qbtd-catalogue-huge")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try await MemoryServer.start(in: dir)
        let settings = server.service.settings
        try await server.service.settings.update([
            "send_buffer_watermark": .int(Int64.max), "outgoing_ports_min": .int(Int64.min),
            "checking_memory_use": .double(9e18), "slow_torrent_dl_rate_threshold": .int(Int64.max),
            "scheduler_enabled": .bool(true), "schedule_from_hour": .int(Int64.max), "use_https": .int(1),
        ])
        let sendBuffer = settings[\.sendBufferWatermark]
        XCTAssertEqual(sendBuffer, Int(Int32.max))
        let pack = Dictionary(settings.engineSettings().advanced.pack, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(pack["send_buffer_watermark"], String(Int32.max))
        XCTAssertEqual(pack["num_outgoing_ports"], String(Int32.max))
        _ = settings.scheduleWantsAlternative(at: Self.monday, calendar: Self.utc)
        let https = settings[\.useHTTPS]
        XCTAssertTrue(https, "0/1 are booleans, as qBittorrent's toBool reads them")
        await server.service.shutdown()
    }

    // MARK: applied means applied

    /// What an applier produces, as text: a change of an applied key must change it.
    typealias Probe = @Sendable (MemoryServer) async throws -> String

    static let monday = Date(timeIntervalSince1970: 1_704_110_400)  // 2024-01-01 12:00 UTC, a Monday
    static let utc: Calendar = { var c = Calendar(identifier: .gregorian); c.timeZone = TimeZone(identifier: "UTC")!; return c }()

    static let probes: [PreferenceEntry.Applier: Probe] = [
        .engine: { "\(await $0.engine.settings)" },
        .queue: { "\(await $0.engine.settings) \(await $0.service.rowSettings.queueingEnabled)" },
        .networkBinding: { "\(await $0.engine.settings)" },
        .ipFilter: { "\(await $0.engine.filter)" },
        .paths: { "\($0.service.settings.defaultSavePath) \(String(describing: $0.service.settings.tempPath))" },
        .torrentLimits: { "\($0.service.connectionLimits())" },
        // A subcategory's path (under its parent's with subcategories on), the name of an incomplete file, and where a
        // manual torrent's relative path goes.
        .placement: { server in
            try? await server.service.labels.createCategory(Category(name: "p", savePath: "/tmp/qbtd-probe-p"))
            let torrent = MemoryServer.magnet(424_242)
            _ = await server.service.add([torrent], options: AddOptions())
            try? await server.engine.setFiles(torrent.id, pieceLength: 16384, sizes: [("t/f.bin", 100)])
            await server.service.markIncompleteFiles([torrent.id])
            let names = try await server.engine.files(torrent.id).map(\.diskPath)
            var manual = AddOptions()
            (manual.autoTMM, manual.savePath) = (false, "rel")
            let placed = try await server.service.placement(manual, category: "p").savePath
            return "\(await server.service.categorySavePath("p/c")) \(names) \(placed)"
        },
        // max_ratio_act is read where a limit is reached (enforceShareLimits); this only proves it is stored.
        .shareLimits: {
            "\(ShareLimits($0.service.settings.current)) \($0.service.settings[\.maxRatioAct]) \($0.service.settings[\.shareLimitsMode])"
        },
        .speedSchedule: { String(describing: $0.service.settings.scheduleWantsAlternative(at: PreferenceCatalogueTests.monday, calendar: PreferenceCatalogueTests.utc)) },
        .httpFetch: { "\($0.service.settings.fetchRoute(for: .misc))" },
        .diskGuard: { "\($0.service.diskGuardFloor)" },
        .torrentDefaults: { server in
            // A fresh magnet each time: its record shows what the defaults gave it.
            let n = Int.random(in: 1...1_000_000)
            let outcome = await server.service.add([MemoryServer.magnet(n)], options: AddOptions())[0]
            guard case .added(let id) = outcome else { return "\(outcome)" }
            let record = await server.service.torrents[id]!.record
            return "\(record.autoTMM) \(record.stopped)"
        },
    ]

    /// Applied keys whose applier lives outside QBTCore: the WebAPI tests cover them (the list is checked, so a new
    /// applied key cannot slip through unprobed).
    static let probedInWebAPITests: Set<String> = [
        "web_ui_username", "web_ui_password", "music_dirs", "python_executable_path", "refresh_interval",
        "add_stopped_enabled", "start_paused_enabled",
        "web_ui_domain_list", "bypass_local_auth", "bypass_auth_subnet_whitelist_enabled", "bypass_auth_subnet_whitelist",
        "web_ui_max_auth_fail_count", "web_ui_ban_duration", "web_ui_session_timeout",
        "web_ui_clickjacking_protection_enabled", "web_ui_csrf_protection_enabled",
        "web_ui_host_header_validation_enabled", "web_ui_reverse_proxy_enabled", "web_ui_reverse_proxies_list",
        "torrent_content_layout",  // a magnet takes its layout when the metadata arrives: ContentLayoutTests
        "web_ui_secure_cookie_enabled", "web_ui_use_custom_http_headers_enabled", "web_ui_custom_http_headers",
        "web_ui_hsts_enabled", "web_ui_hsts_max_age", "web_ui_hsts_include_subdomains",  // WebSecurityPolicyTests
        "alternative_webui_enabled", "alternative_webui_path",  // WebSecurityPolicyTests; e2e: test_webui_files.py
        "use_https", "web_ui_https_cert_path", "web_ui_https_key_path",  // e2e: test_https.py
        "autorun_enabled", "autorun_program", "autorun_on_torrent_added_enabled",  // e2e: test_automation.py
        "autorun_on_torrent_added_program", "scan_dirs", "export_dir", "export_dir_fin", "add_trackers_enabled",
        "torrent_files_backup_enabled", "torrent_files_backup_dir",  // e2e: test_v53.py
        "torrent_files_finished_backup_dir_enabled", "torrent_files_finished_backup_dir",
        "web_ui_sessions_count_limit", "start_paused",  // e2e: test_v53.py (start_paused acts at the next start)
        "add_trackers", "add_trackers_from_url_enabled", "add_trackers_url", "add_trackers_url_list",
        "excluded_file_names_enabled", "excluded_file_names", "torrent_stop_condition", "mail_notification_enabled",
        "mail_notification_sender", "mail_notification_email", "mail_notification_smtp", "mail_notification_ssl_enabled",
        "mail_notification_auth_enabled", "mail_notification_username", "mail_notification_password",
        "torrent_changed_tmm_enabled", "save_path_changed_tmm_enabled", "category_changed_tmm_enabled",
        "preallocate_all",
    ]

    static let proxy: [String: JSONValue] = ["proxy_type": .string("SOCKS5"), "proxy_ip": .string("127.0.0.1")]

    /// What must be set first for a key to matter (qBittorrent's own dependencies).
    static func prerequisites(_ key: String, filterFile: String) -> [String: JSONValue] {
        switch key {
        case "proxy_ip", "proxy_port", "proxy_auth_enabled", "proxy_hostname_lookup", "proxy_bittorrent",
             "proxy_peer_connections", "proxy_misc", "proxy_torrents_only":
            return proxy
        case "proxy_username", "proxy_password": return proxy.merging(["proxy_auth_enabled": .bool(true)]) { a, _ in a }
        case "ip_filter_trackers": return ["ip_filter_enabled": .bool(true)]
        case "ip_filter_enabled": return ["ip_filter_path": .string(filterFile)]
        case "ip_filter_path": return ["ip_filter_enabled": .bool(true)]
        case "max_active_downloads", "max_active_torrents", "max_active_uploads": return ["queueing_enabled": .bool(true)]
        case "temp_path": return ["temp_path_enabled": .bool(true)]
        case "max_ratio": return ["max_ratio_enabled": .bool(true)]
        case "max_ratio_enabled": return ["max_ratio": .double(2)]
        case "max_seeding_time_enabled": return ["max_seeding_time": .int(60)]
        case "max_inactive_seeding_time_enabled": return ["max_inactive_seeding_time": .int(60)]
        case "max_seeding_time": return ["max_seeding_time_enabled": .bool(true)]
        case "max_inactive_seeding_time": return ["max_inactive_seeding_time_enabled": .bool(true)]
        case "schedule_from_hour", "schedule_to_hour", "scheduler_days": return ["scheduler_enabled": .bool(true)]
        case "schedule_from_min": return ["scheduler_enabled": .bool(true), "schedule_from_hour": .int(12)]
        case "schedule_to_min": return ["scheduler_enabled": .bool(true), "schedule_to_hour": .int(12)]
        default: return [:]
        }
    }

    /// A value different from the default that the applier must notice.
    static func changedValue(_ entry: PreferenceEntry, in dir: URL) -> JSONValue {
        switch entry.key {
        case "proxy_type": return .string("SOCKS5")
        case "proxy_ip": return .string("127.0.0.2")
        case "proxy_username": return .string("user")
        case "proxy_password": return .string("secret")
        case "ip_filter_path": return .string(dir.appendingPathComponent("filter.dat").path)
        case "banned_IPs": return .string("10.0.0.1")
        case "save_path": return .string(dir.appendingPathComponent("elsewhere").path)
        case "temp_path": return .string("incomplete")
        case "current_network_interface": return .string("lo")
        case "current_interface_address": return .string("127.0.0.1")
        case "announce_ip": return .string("10.0.0.1")
        case "schedule_from_hour": return .int(13)
        case "schedule_to_hour": return .int(11)
        case "schedule_from_min", "schedule_to_min": return .int(30)
        case "scheduler_days": return .int(2)  // weekends; the probe asks about a Monday
        case "torrent_content_layout": return .string("Subfolder")
        case "share_limits_mode": return .string("MatchAll")
        case "locale": return .string("fr")
        case "scan_dirs": return .object(["/tmp": .int(0)])
        default: break
        }
        switch entry.defaultValue.resolved(try! ServerPaths(dataDirectory: dir.path)) {
        case .bool(let b): return .bool(!b)
        case .int(let i): return .int(i + 1)
        case .double(let d): return .double(d + 1)
        case .string(let s): return .string(s + "x")
        case .object: return .object(["x": .int(1)])
        case .array: return .array([.string("x")])
        case .null: return .string("x")
        }
    }

    func testEveryAppliedKeyReachesItsApplier() async throws {
        for entry in PreferenceCatalogue.entries {
            // `.rss` lives in the RSS target: RSSServiceTests.testEveryRSSPreferenceActs probes each of its keys.
            guard let applier = entry.applier, applier != .rss, !Self.probedInWebAPITests.contains(entry.key) else { continue }
            guard let probe = Self.probes[applier] else {
                XCTAssertTrue(Self.probedInWebAPITests.contains(entry.key), "\(entry.key): no probe for .\(applier)")
                continue
            }
            let dir = try temporaryFolder("qbtd-applied")
            defer { try? FileManager.default.removeItem(at: dir) }
            let filterFile = dir.appendingPathComponent("filter.dat")
            try Data("1.0.0.0 - 1.0.0.255 , 100 , test\n".utf8).write(to: filterFile)
            let server = try await MemoryServer.start(in: dir)
            if ["alt_dl_limit", "alt_up_limit"].contains(entry.key) { try await server.service.session.setAlternativeSpeed(true) }
            try await server.service.settings.update(Self.prerequisites(entry.key, filterFile: filterFile.path))
            let before = try await probe(server)
            let changed = try await server.service.settings.update([entry.key: Self.changedValue(entry, in: dir)])
            let after = try await probe(server)
            XCTAssertNotEqual(before, after, "\(entry.key) is marked applied by .\(applier) but changed nothing (stored: \(changed))")
            await server.service.shutdown()
        }
    }
}
