import SystemKit
/// Every key qBittorrent's `app/preferences` reports (profiles 4.6, 5.1 and 5.2), with its type and default, and what
/// qbtd does with it: the code that applies it, or why it has no effect. `PreferenceCatalogue.entries` is the one
/// table; the defaults `app/preferences` starts from, the keys each profile reports and the README's list of keys
/// without effect all come from it.
public struct PreferenceEntry: Sendable {
    public enum Effect: Sendable, Equatable {
        /// The value changes behaviour; `Applier` names the code that reads it.
        case applied(Applier)
        /// Kept and reported, with no effect in qbtd; the reason is shown in the README.
        case inert(String)
        /// qBittorrent's own server ignores it too (its WebUI reads it): kept and reported, as qBittorrent does.
        case uiOnly
        /// Reported as what qbtd really does; a change is not taken (the reason says why).
        case fixed(String)
    }

    /// The code that reads an applied key. A component that must act when its keys change registers a handler for
    /// its applier (`ServerSettings.beforeChange` / `onChange`, where the component is built); the others read the
    /// keys where they use them. `ServerSettings.update` runs the handlers in the order of these cases (the order
    /// `app/setPreferences` has always applied them in): before the store, the credentials, the music folders, HTTPS
    /// and the watched folders' check; after it, the engine, automation, queue, limits, IP filter, placement, paths,
    /// the WebUI's security and files, and RSS.
    public enum Applier: String, Sendable, CaseIterable {
        /// `Credentials` (`Credentials.followPreferences`): the WebUI login, which it stores itself.
        case credentials
        /// The `music_dirs` handler (QBTServer's `MusicLibrary.followPreference`): qbtd's HLS music folders, kept as
        /// qbtd's own state.
        case music
        /// `WebHTTPS`: the WebUI's TLS, switched per connection (qBittorrent restarts its web server); a change it
        /// refuses is not stored.
        case webServer
        /// `ServerSettings.engineSettings()` → `EngineSettings.pack`: libtorrent's `settings_pack`, re-applied when
        /// any key it reads changes (`TorrentService.engineKeys`).
        case engine
        /// `ServerSettings.networkBinding()`: libtorrent's `listen_interfaces` and `outgoing_interfaces` (applied with
        /// the engine's settings).
        case networkBinding
        /// `TorrentService+Automation`, `+WatchedFolders` and `+ExtraTrackers`: what qbtd does by itself (external
        /// programs, export folders and e-mail when a torrent is added or finishes; watched folders; extra trackers;
        /// excluded file names).
        case automation
        /// The queue: `engineSettings()`'s `active_*` settings and `TorrentService.queueingEnabled`.
        case queue
        /// `ShareLimits(settings.current)` and `TorrentService.enforceShareLimits()`.
        case shareLimits
        /// `TorrentService.connectionLimits()` at add, and `engine.setConnectionLimits` for every torrent on change.
        case torrentLimits
        /// `TorrentService.applyIPFilter(reload:)`: the filter file's ranges plus the banned addresses, one libtorrent
        /// filter.
        case ipFilter
        /// Where files go and what they are called: `TorrentService+Categories` (subcategories: parents, paths,
        /// filters) and `+IncompleteFiles` (`.!qB` on incomplete files).
        case placement
        /// `ServerSettings.defaultSavePath` and `tempPath`, used by every add and by automatic torrent management.
        case paths
        /// `WebSecurityPolicy(_:)`, rebuilt by `WebGate.followPreferences` whenever its keys are set.
        case webSecurity
        /// `WebUIFiles`: which folder `/` serves, qbtd's own interface or an alternative one (`WebGate.webUIRoot`).
        case webUIFiles
        /// `RSSService`: the refresh schedule, the fetch pacing and proxy route, the article limit and the
        /// auto-downloader.
        case rss
        /// What a new torrent gets when `torrents/add` does not say (`TorrentService.add`, `TorrentsController`).
        case torrentDefaults
        /// `ServerSettings.scheduleWantsAlternative(at:)`, followed every tick.
        case speedSchedule
        /// `SearchService`: the Python that runs search plugins.
        case search
        /// `ServerSettings.fetchRoute(for: .misc)` / `pluginProxyEnvironment()`: qbtd's own HTTP fetches and the search
        /// plugins' proxy.
        case httpFetch
        /// `SyncController`: echoed in `sync/maindata`'s `server_state`; clients poll at that period.
        case syncState
        /// `TorrentService+DiskGuard`: qbtd's free-space guard, which reads its floor at every check.
        case diskGuard
    }

    /// A default: a plain value, or a path under one of qbtd's folders (`ServerPaths`).
    public enum DefaultValue: Sendable, Equatable {
        case value(JSONValue)
        /// `ServerPaths.downloadRoot` followed by `suffix`.
        case downloadRoot(suffix: String)
        /// `ServerPaths.dataDirectory` followed by `suffix`.
        case dataDirectory(suffix: String)

        static func bool(_ b: Bool) -> DefaultValue { .value(.bool(b)) }
        static func int(_ i: Int64) -> DefaultValue { .value(.int(i)) }
        static func double(_ d: Double) -> DefaultValue { .value(.double(d)) }
        static func string(_ s: String) -> DefaultValue { .value(.string(s)) }
        static func object(_ o: [String: JSONValue]) -> DefaultValue { .value(.object(o)) }
        static func array(_ a: [JSONValue]) -> DefaultValue { .value(.array(a)) }

        public func resolved(_ paths: ServerPaths) -> JSONValue {
            switch self {
            case .value(let v): v
            case .downloadRoot(let suffix): .string(paths.downloadRoot + suffix)
            case .dataDirectory(let suffix): .string(paths.dataDirectory + suffix)
            }
        }
    }

    /// The JSON type qBittorrent reports (`max_ratio` is the only double, `scan_dirs` the only object).
    public enum ValueType: String, Sendable { case bool, int, double, string, object, array }

    /// The profiles whose `app/preferences` report the key. Empty: accepted by `app/setPreferences`, never reported.
    public struct Profiles: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let v4_6 = Profiles(rawValue: 1 << 0)
        public static let v5_1 = Profiles(rawValue: 1 << 1)
        public static let v5_2 = Profiles(rawValue: 1 << 2)
        public static let v5_3 = Profiles(rawValue: 1 << 3)
        public static let v5: Profiles = [.v5_1, .v5_2, .v5_3]
        public static let all: Profiles = [.v4_6, .v5_1, .v5_2, .v5_3]
        /// The profiles from 5.2 on.
        public static let since5_2: Profiles = [.v5_2, .v5_3]
        /// The profiles before 5.3 (keys 5.3 removed).
        public static let until5_2: Profiles = [.v4_6, .v5_1, .v5_2]

        public init(_ profile: Identity.Profile) {
            switch profile {
            case .v4_6: self = .v4_6
            case .v5_1: self = .v5_1
            case .v5_2: self = .v5_2
            case .v5_3: self = .v5_3
            }
        }

        public func contains(_ profile: Identity.Profile) -> Bool { contains(Profiles(profile)) }
    }

    public let key: String
    /// qBittorrent 5.1's default, except where a comment in the table says qbtd's differs.
    public let defaultValue: DefaultValue
    public let profiles: Profiles
    public let effect: Effect
    /// The key whose stored value this one reports and sets (a 4.x spelling); nil for most.
    public let alias: String?
    /// qbtd's own key, not qBittorrent's.
    public let qbtdOnly: Bool
    /// Kept among the stored preferences (false: reported from other state, as `music_dirs` is).
    public let stored: Bool

    init(_ key: String, _ defaultValue: DefaultValue, _ profiles: Profiles, _ effect: Effect,
         alias: String? = nil, qbtdOnly: Bool = false, stored: Bool = true) {
        self.stored = stored
        self.key = key
        self.defaultValue = defaultValue
        self.profiles = profiles
        self.effect = effect
        self.alias = alias
        self.qbtdOnly = qbtdOnly
    }

    public var type: ValueType {
        switch defaultValue {
        case .downloadRoot, .dataDirectory: .string
        case .value(let v):
            switch v {
            case .bool: .bool
            case .int: .int
            case .double: .double
            case .string: .string
            case .object: .object
            case .array: .array
            case .null: .string
            }
        }
    }

    public var applier: Applier? { if case .applied(let a) = effect { a } else { nil } }

    /// Why the key has no effect (inert) or cannot be changed (fixed); nil for applied and UI-only keys.
    public var reason: String? {
        switch effect {
        case .inert(let r), .fixed(let r): r
        case .applied, .uiOnly: nil
        }
    }

    /// Whether `app/setPreferences` may store a new value (a fixed key keeps reporting qbtd's behaviour).
    public var acceptsChanges: Bool { if case .fixed = effect { false } else { true } }
}

public enum PreferenceCatalogue {
    public static let entries: [PreferenceEntry] = [
        // MARK: Behaviour
        .init("locale", .string("en"), .all, .fixed(Reason.englishOnly)),  // qBittorrent: the system locale
        .init("performance_warning", .bool(false), .all, .fixed(Reason.noPerformanceLog)),
        .init("status_bar_external_ip", .bool(false), .v5, .uiOnly),
        .init("confirm_torrent_deletion", .bool(true), .v5, .uiOnly),
        .init("confirm_remove_all_tags", .bool(true), [.v5_3], .uiOnly),
        .init("confirm_remove_tracker_from_all_torrents", .bool(true), [.v5_3], .uiOnly),
        .init("file_log_enabled", .bool(false), .all, .fixed(Reason.noLogFile)),  // qBittorrent: true
        .init("file_log_path", .dataDirectory(suffix: "/logs"), .all, .inert(Reason.logFileOff)),
        .init("file_log_backup_enabled", .bool(true), .all, .inert(Reason.logFileOff)),
        .init("file_log_max_size", .int(65), .all, .inert(Reason.logFileOff)),
        .init("file_log_delete_old", .bool(true), .all, .inert(Reason.logFileOff)),
        .init("file_log_age", .int(1), .all, .inert(Reason.logFileOff)),
        .init("file_log_age_type", .int(1), .all, .inert(Reason.logFileOff)),
        .init("delete_torrent_content_files", .bool(false), .v5, .uiOnly),
        // MARK: Downloads: when adding a torrent
        .init("torrent_content_layout", .string("Original"), .all, .applied(.torrentDefaults)),
        .init("add_to_top_of_queue", .bool(false), .all, .fixed(Reason.queueBottom)),
        .init("start_paused_enabled", .bool(false), [.v4_6], .applied(.torrentDefaults), alias: "add_stopped_enabled"),  // 4.x name of add_stopped_enabled (same stored value)
        .init("add_stopped_enabled", .bool(false), .v5, .applied(.torrentDefaults)),
        .init("torrent_stop_condition", .string("None"), .all, .applied(.torrentDefaults)),  // None, MetadataReceived, FilesChecked
        .init("merge_trackers", .bool(false), .all, .fixed(Reason.noMergeTrackers)),
        .init("auto_delete_mode", .int(0), .all, .inert(Reason.deleteTorrentFile)),
        .init("preallocate_all", .bool(false), .all, .applied(.torrentDefaults)),  // new torrents: files allocated whole
        .init("incomplete_files_ext", .bool(false), .all, .applied(.placement)),
        .init("use_unwanted_folder", .bool(false), .v5, .fixed(Reason.noUnwantedFolder)),
        // MARK: Downloads: saving management
        .init("auto_tmm_enabled", .bool(false), .all, .applied(.torrentDefaults)),
        .init("torrent_changed_tmm_enabled", .bool(true), .all, .applied(.paths)),
        .init("save_path_changed_tmm_enabled", .bool(false), .all, .applied(.paths)),
        .init("category_changed_tmm_enabled", .bool(false), .all, .applied(.paths)),
        .init("use_subcategories", .bool(false), [.v4_6, .v5_1], .applied(.placement)),
        .init("save_path", .downloadRoot(suffix: ""), .all, .applied(.paths)),  // qBittorrent: ~/Downloads
        .init("temp_path_enabled", .bool(false), .all, .applied(.paths)),
        .init("temp_path", .downloadRoot(suffix: "/temp"), .all, .applied(.paths)),
        .init("use_category_paths_in_manual_mode", .bool(false), .all, .applied(.placement)),
        .init("export_dir", .string(""), .until5_2, .applied(.automation)),  // 5.3: the backup folders
        .init("export_dir_fin", .string(""), .until5_2, .applied(.automation)),
        // 5.3: a copy of each added .torrent, and of each finished one, in a folder (relative: under the data folder).
        .init("torrent_files_backup_enabled", .bool(false), [.v5_3], .applied(.automation)),
        .init("torrent_files_backup_dir", .string("backup"), [.v5_3], .applied(.automation)),
        .init("torrent_files_finished_backup_dir_enabled", .bool(false), [.v5_3], .applied(.automation)),
        .init("torrent_files_finished_backup_dir", .string("backup"), [.v5_3], .applied(.automation)),
        .init("remove_torrent_file_backup", .bool(false), [.v5_3], .inert(Reason.backupKept)),
        // MARK: Watched folders
        .init("scan_dirs", .object([:]), .all, .applied(.automation)),  // folder → 0 (itself), 1 (default save path) or a path
        // MARK: Excluded file names
        .init("excluded_file_names_enabled", .bool(false), .all, .applied(.automation)),
        .init("excluded_file_names", .string(""), .all, .applied(.automation)),  // wildcard lines
        // MARK: E-mail notification
        .init("mail_notification_enabled", .bool(false), .all, .applied(.automation)),
        .init("mail_notification_sender", .string("qBittorrent_notification@example.com"), .all, .applied(.automation)),
        .init("mail_notification_email", .string(""), .all, .applied(.automation)),
        .init("mail_notification_smtp", .string("smtp.changeme.com"), .all, .applied(.automation)),
        .init("mail_notification_ssl_enabled", .bool(false), .until5_2, .applied(.automation)),
        .init("mail_notification_encryption_type", .string("SMTPS"), [.v5_3], .inert(Reason.mailEncryption)),
        .init("mail_notification_auth_enabled", .bool(false), .all, .applied(.automation)),
        .init("mail_notification_username", .string(""), .all, .applied(.automation)),
        .init("mail_notification_password", .string(""), .all, .applied(.automation)),
        // MARK: Run external program
        .init("autorun_on_torrent_added_enabled", .bool(false), .all, .applied(.automation)),
        .init("autorun_on_torrent_added_program", .string(""), .all, .applied(.automation)),
        .init("autorun_enabled", .bool(false), .all, .applied(.automation)),
        .init("autorun_program", .string(""), .all, .applied(.automation)),
        // MARK: Connection: listening port and limits
        .init("listen_port", .int(6881), .all, .applied(.engine)),  // qBittorrent: random; app/preferences reports the engine's port
        .init("ssl_enabled", .bool(false), .v5, .fixed(Reason.noSSLListen)),
        .init("ssl_listen_port", .int(0), .v5, .inert(Reason.sslListenOff)),  // qBittorrent: random
        .init("random_port", .bool(false), .all, .fixed(Reason.noRandomPort)),
        .init("upnp", .bool(true), .all, .applied(.engine)),  // UPnP and NAT-PMP; reported from the engine (--no-discovery)
        .init("max_connec", .int(500), .all, .applied(.engine)),
        .init("max_connec_per_torrent", .int(100), .all, .applied(.torrentLimits)),
        .init("max_uploads", .int(20), .all, .applied(.engine)),
        .init("max_uploads_per_torrent", .int(4), .all, .applied(.torrentLimits)),
        // MARK: Connection: I2P
        .init("i2p_enabled", .bool(false), .all, .fixed(Reason.noI2P)),
        .init("i2p_address", .string("127.0.0.1"), .all, .inert(Reason.i2pOff)),
        .init("i2p_port", .int(7656), .all, .inert(Reason.i2pOff)),
        .init("i2p_mixed_mode", .bool(false), .all, .inert(Reason.i2pOff)),
        .init("i2p_inbound_quantity", .int(3), .all, .inert(Reason.i2pTunnels)),
        .init("i2p_outbound_quantity", .int(3), .all, .inert(Reason.i2pTunnels)),
        .init("i2p_inbound_length", .int(3), .all, .inert(Reason.i2pTunnels)),
        .init("i2p_outbound_length", .int(3), .all, .inert(Reason.i2pTunnels)),
        .init("i2p_inbound_length_variance", .int(0), [.v5_3], .inert(Reason.i2pTunnels)),
        .init("i2p_outbound_length_variance", .int(0), [.v5_3], .inert(Reason.i2pTunnels)),
        .init("i2p_pex_enabled", .bool(true), [.v5_3], .inert(Reason.i2pOff)),
        // MARK: Connection: proxy
        .init("proxy_type", .string("None"), .all, .applied(.engine)),  // 4.x ints are translated (ServerSettings.translate4x)
        .init("proxy_ip", .string(""), .all, .applied(.engine)),
        .init("proxy_port", .int(8080), .all, .applied(.engine)),
        .init("proxy_auth_enabled", .bool(false), .all, .applied(.engine)),
        .init("proxy_username", .string(""), .all, .applied(.engine)),
        .init("proxy_password", .string(""), .all, .applied(.engine)),
        .init("proxy_hostname_lookup", .bool(true), .all, .applied(.engine)),
        .init("proxy_bittorrent", .bool(true), .all, .applied(.engine)),  // qBittorrent (fresh profile): false
        .init("proxy_peer_connections", .bool(false), .all, .applied(.engine)),
        .init("proxy_torrents_only", .bool(false), [], .applied(.httpFetch)),  // 4.5 only: setPreferences turns it into proxy_bittorrent/proxy_rss/proxy_misc
        .init("proxy_rss", .bool(true), .all, .applied(.rss)),  // qBittorrent (fresh profile): false
        .init("proxy_misc", .bool(true), .all, .applied(.httpFetch)),  // qBittorrent (fresh profile): false
        // MARK: Connection: IP filtering
        .init("ip_filter_enabled", .bool(false), .all, .applied(.ipFilter)),
        .init("ip_filter_path", .string(""), .all, .applied(.ipFilter)),
        .init("ip_filter_trackers", .bool(false), .all, .applied(.engine)),  // applied only while ip_filter_enabled: see notes
        .init("banned_IPs", .string(""), .all, .applied(.ipFilter)),
        // MARK: Speed: global and alternative limits
        .init("dl_limit", .int(0), .all, .applied(.engine)),
        .init("up_limit", .int(0), .all, .applied(.engine)),
        .init("alt_dl_limit", .int(10240), .all, .applied(.engine)),
        .init("alt_up_limit", .int(10240), .all, .applied(.engine)),
        .init("bittorrent_protocol", .int(0), .all, .applied(.engine)),
        .init("limit_utp_rate", .bool(true), .all, .applied(.engine)),  // peer-class type filter
        .init("limit_tcp_overhead", .bool(false), .all, .applied(.engine)),
        .init("limit_lan_peers", .bool(true), .all, .applied(.engine)),  // peer-class filter
        // MARK: Speed: scheduler
        .init("scheduler_enabled", .bool(false), .all, .applied(.speedSchedule)),
        .init("schedule_from_hour", .int(8), .all, .applied(.speedSchedule)),
        .init("schedule_from_min", .int(0), .all, .applied(.speedSchedule)),
        .init("schedule_to_hour", .int(20), .all, .applied(.speedSchedule)),
        .init("schedule_to_min", .int(0), .all, .applied(.speedSchedule)),
        .init("scheduler_days", .int(0), .all, .applied(.speedSchedule)),
        // MARK: BitTorrent: privacy
        .init("dht", .bool(true), .all, .applied(.engine)),  // reported from the engine (--no-discovery)
        .init("pex", .bool(true), .all, .applied(.engine)),  // takes effect at the next start (libtorrent fixes extensions at session creation)
        .init("lsd", .bool(true), .all, .applied(.engine)),  // reported from the engine (--no-discovery)
        .init("encryption", .int(0), .all, .applied(.engine)),
        .init("anonymous_mode", .bool(false), .all, .applied(.engine)),
        // MARK: BitTorrent: queueing
        .init("max_active_checking_torrents", .int(1), .all, .applied(.queue)),
        .init("queueing_enabled", .bool(false), .all, .applied(.queue)),
        .init("max_active_downloads", .int(3), .all, .applied(.queue)),
        .init("max_active_torrents", .int(5), .all, .applied(.queue)),
        .init("max_active_uploads", .int(3), .all, .applied(.queue)),
        .init("dont_count_slow_torrents", .bool(false), .all, .applied(.queue)),
        .init("slow_torrent_dl_rate_threshold", .int(2), .all, .applied(.queue)),
        .init("slow_torrent_ul_rate_threshold", .int(2), .all, .applied(.queue)),
        .init("slow_torrent_inactive_timer", .int(60), .all, .applied(.queue)),
        // MARK: BitTorrent: share limits
        .init("max_ratio_enabled", .bool(false), .all, .applied(.shareLimits)),
        .init("max_ratio", .double(-1), .all, .applied(.shareLimits)),
        .init("max_seeding_time_enabled", .bool(false), .all, .applied(.shareLimits)),
        .init("max_seeding_time", .int(-1), .all, .applied(.shareLimits)),
        .init("max_inactive_seeding_time_enabled", .bool(false), .all, .applied(.shareLimits)),
        .init("max_inactive_seeding_time", .int(-1), .all, .applied(.shareLimits)),
        .init("max_ratio_act", .int(0), .all, .applied(.shareLimits)),
        .init("share_limits_mode", .string("MatchAny"), [.v5_3], .applied(.shareLimits)),  // or MatchAll
        // MARK: BitTorrent: automatically add trackers
        .init("add_trackers_enabled", .bool(false), .all, .applied(.automation)),
        .init("add_trackers", .string(""), .all, .applied(.automation)),  // one URL per line; an empty line starts the next tier
        .init("add_trackers_from_url_enabled", .bool(false), .v5, .applied(.automation)),
        .init("add_trackers_url", .string(""), .v5, .applied(.automation)),
        .init("add_trackers_url_list", .string(""), .v5, .applied(.automation), stored: false),  // read-only: the list last fetched
        // MARK: WebUI: HTTP server
        .init("web_ui_domain_list", .string("*"), .all, .applied(.webSecurity)),
        .init("web_ui_address", .string("*"), .all, .fixed(Reason.webUIFromCommandLine)),  // reported: the address qbtd listens on
        .init("web_ui_port", .int(8080), .all, .fixed(Reason.webUIFromCommandLine)),  // reported: the port qbtd listens on
        .init("web_ui_upnp", .bool(false), .all, .fixed(Reason.noWebUIUPnP)),
        .init("use_https", .bool(false), .all, .applied(.webServer)),
        .init("web_ui_https_cert_path", .string(""), .all, .applied(.webServer)),
        .init("web_ui_https_key_path", .string(""), .all, .applied(.webServer)),
        // MARK: WebUI: authentication
        .init("web_ui_username", .string("admin"), .all, .applied(.credentials)),
        .init("web_ui_password", .string(""), [], .applied(.credentials)),  // set-only: never reported (qBittorrent neither)
        .init("bypass_local_auth", .bool(false), .all, .applied(.webSecurity)),
        .init("bypass_auth_subnet_whitelist_enabled", .bool(false), .all, .applied(.webSecurity)),
        .init("bypass_auth_subnet_whitelist", .string(""), .all, .applied(.webSecurity)),
        .init("web_ui_max_auth_fail_count", .int(5), .all, .applied(.webSecurity)),
        .init("web_ui_ban_duration", .int(3600), .all, .applied(.webSecurity)),
        .init("web_ui_session_timeout", .int(3600), .all, .applied(.webSecurity)),
        .init("web_ui_sessions_count_limit", .int(15), [.v5_3], .applied(.webSecurity)),  // 5.3 only: the oldest goes
        .init("web_ui_api_key", .string(""), .since5_2, .fixed(Reason.apiKeyHashed)),  // 5.2; read-only in qBittorrent too
        // MARK: WebUI: alternative WebUI
        .init("alternative_webui_enabled", .bool(false), .all, .applied(.webUIFiles)),
        .init("alternative_webui_path", .string(""), .all, .applied(.webUIFiles)),
        // MARK: WebUI: security
        .init("web_ui_clickjacking_protection_enabled", .bool(true), .all, .applied(.webSecurity)),
        .init("web_ui_csrf_protection_enabled", .bool(true), .all, .applied(.webSecurity)),
        .init("web_ui_secure_cookie_enabled", .bool(true), .all, .applied(.webSecurity)),  // Secure under HTTPS or a trusted proxy's X-Forwarded-Proto: https
        .init("web_ui_host_header_validation_enabled", .bool(true), .all, .applied(.webSecurity)),
        .init("web_ui_use_custom_http_headers_enabled", .bool(false), .all, .applied(.webSecurity)),
        .init("web_ui_custom_http_headers", .string(""), .all, .applied(.webSecurity)),  // "Name: value" lines
        // qbtd's own (qBittorrent sends no HSTS header): Strict-Transport-Security on answers over HTTPS.
        .init("web_ui_hsts_enabled", .bool(false), .all, .applied(.webSecurity), qbtdOnly: true),
        .init("web_ui_hsts_max_age", .int(31_536_000), .all, .applied(.webSecurity), qbtdOnly: true),
        .init("web_ui_hsts_include_subdomains", .bool(false), .all, .applied(.webSecurity), qbtdOnly: true),
        .init("web_ui_reverse_proxy_enabled", .bool(false), .all, .applied(.webSecurity)),
        .init("web_ui_reverse_proxies_list", .string(""), .all, .applied(.webSecurity)),
        // MARK: WebUI: dynamic DNS
        .init("dyndns_enabled", .bool(false), .all, .fixed(Reason.noDynDNS)),
        .init("dyndns_service", .int(0), .all, .inert(Reason.dynDNSOff)),
        .init("dyndns_username", .string(""), .all, .inert(Reason.dynDNSOff)),
        .init("dyndns_password", .string(""), .all, .inert(Reason.dynDNSOff)),
        .init("dyndns_domain", .string("changeme.dyndns.org"), .all, .inert(Reason.dynDNSOff)),
        // MARK: RSS
        .init("rss_refresh_interval", .int(30), .all, .applied(.rss)),
        .init("rss_fetch_delay", .int(2), .v5, .applied(.rss)),
        .init("rss_max_articles_per_feed", .int(50), .all, .applied(.rss)),
        .init("rss_processing_enabled", .bool(false), .all, .applied(.rss)),
        .init("rss_auto_downloading_enabled", .bool(false), .all, .applied(.rss)),
        .init("rss_download_repack_proper_episodes", .bool(true), .all, .applied(.rss)),
        .init("rss_smart_episode_filters", .string(PreferenceCatalogue.smartEpisodeFilters), .all, .applied(.rss)),
        // MARK: Advanced: qBittorrent
        .init("resume_data_storage_type", .string("SQLite"), .all, .fixed(Reason.sqliteResume)),  // qBittorrent: Legacy
        .init("torrent_content_remove_option", .string("Delete"), .v5, .fixed(Reason.deleteOutright)),
        .init("memory_working_set_limit", .int(512), .all, .inert(Reason.windowsOnly)),
        .init("current_network_interface", .string(""), .all, .applied(.networkBinding)),
        .init("current_interface_name", .string(""), .all, .uiOnly),  // display name; the binding uses current_network_interface
        .init("current_interface_address", .string(""), .all, .applied(.networkBinding)),
        .init("save_resume_data_interval", .int(1), .all, .fixed(Reason.resumeInterval)),  // qBittorrent: 60 (minutes); qbtd saves every 15 s by default
        .init("save_statistics_interval", .int(1), .v5, .fixed(Reason.statisticsEveryMinute)),  // qBittorrent: 15 (minutes)
        .init("torrent_file_size_limit", .int(104_857_600), .all, .fixed(Reason.torrentSizeFixed)),  // = TorrentFetcher.maxBytes 100 MiB
        .init("confirm_torrent_recheck", .bool(true), .v5, .uiOnly),
        .init("recheck_completed_torrents", .bool(false), .all, .fixed(Reason.noRecheckOnCompletion)),
        .init("app_instance_name", .string(""), .v5, .uiOnly),
        .init("refresh_interval", .int(1500), .all, .applied(.syncState)),  // sync/maindata server_state.refresh_interval
        .init("resolve_peer_host_names", .bool(false), .since5_2, .fixed(Reason.noHostNames)),
        .init("resolve_peer_countries", .bool(false), .all, .fixed(Reason.noGeoIP)),  // qBittorrent: true; echoed as show_flags
        .init("reannounce_when_address_changed", .bool(false), .all, .fixed(Reason.noReannounceOnAddress)),
        .init("enable_embedded_tracker", .bool(false), .all, .fixed(Reason.noEmbeddedTracker)),
        .init("embedded_tracker_port", .int(9000), .all, .inert(Reason.embeddedTrackerOff)),
        .init("embedded_tracker_port_forwarding", .bool(false), .all, .inert(Reason.embeddedTrackerOff)),
        .init("mark_of_the_web", .bool(true), .v5, .inert(Reason.windowsMacOnly)),
        .init("ignore_ssl_errors", .bool(false), .v5, .fixed(Reason.tlsAlwaysChecked)),
        .init("python_executable_path", .string(""), .v5, .applied(.search)),
        .init("store_search_jobs", .bool(false), [.v5_3], .fixed(Reason.searchJobsForgotten)),
        .init("store_search_job_results", .bool(false), [.v5_3], .fixed(Reason.searchJobsForgotten)),
        // MARK: Advanced: libtorrent
        .init("bdecode_depth_limit", .int(100), .all, .fixed(Reason.bdecodeDefaults)),  // = libtorrent's max_decode_depth 100
        .init("bdecode_token_limit", .int(2_000_000), .all, .fixed(Reason.bdecodeDefaults)),  // qBittorrent: 10,000,000; libtorrent reads .torrent files with 2,000,000
        .init("async_io_threads", .int(10), .all, .applied(.engine)),
        .init("hashing_threads", .int(1), .all, .applied(.engine)),
        .init("file_pool_size", .int(100), .all, .applied(.engine)),
        .init("checking_memory_use", .int(32), .all, .applied(.engine)),
        .init("disk_cache", .int(-1), .all, .inert(Reason.libtorrent12)),
        .init("disk_cache_ttl", .int(60), .all, .inert(Reason.libtorrent12)),
        .init("disk_queue_size", .int(1_048_576), .all, .applied(.engine)),
        .init("disk_io_type", .int(0), .all, .fixed(Reason.defaultDiskIO)),
        .init("disk_io_read_mode", .int(1), .all, .applied(.engine)),
        .init("disk_io_write_mode", .int(1), .all, .applied(.engine)),
        .init("enable_coalesce_read_write", .bool(false), .all, .inert(Reason.libtorrent12)),
        .init("enable_piece_extent_affinity", .bool(false), .all, .applied(.engine)),
        .init("enable_upload_suggestions", .bool(false), .all, .applied(.engine)),
        .init("send_buffer_watermark", .int(500), .all, .applied(.engine)),
        .init("send_buffer_low_watermark", .int(10), .all, .applied(.engine)),
        .init("send_buffer_watermark_factor", .int(50), .all, .applied(.engine)),
        .init("connection_speed", .int(30), .all, .applied(.engine)),
        .init("socket_send_buffer_size", .int(0), .all, .applied(.engine)),
        .init("socket_receive_buffer_size", .int(0), .all, .applied(.engine)),
        .init("socket_backlog_size", .int(30), .all, .applied(.engine)),
        .init("outgoing_ports_min", .int(0), .all, .applied(.engine)),
        .init("outgoing_ports_max", .int(0), .all, .applied(.engine)),
        .init("upnp_lease_duration", .int(0), .all, .applied(.engine)),
        .init("peer_tos", .int(4), .all, .applied(.engine)),
        .init("utp_tcp_mixed_mode", .int(0), .all, .applied(.engine)),
        .init("hostname_cache_ttl", .int(1200), .since5_2, .applied(.engine)),
        .init("idn_support_enabled", .bool(false), .all, .applied(.engine)),
        .init("enable_multi_connections_from_same_ip", .bool(true), .all, .applied(.engine)),
        .init("enable_multi_connections_from_same_peer_id", .bool(false), [.v5_3], .inert(Reason.samePeerID)),
        .init("max_outstanding_block_requests", .int(2000), [.v5_3], .applied(.engine)),  // libtorrent: 500
        .init("seeding_outgoing_connections", .bool(true), [.v5_3], .applied(.engine)),
        .init("shutdown_timeout", .int(-1), [.v5_3], .inert(Reason.shutdownTimeout)),
        .init("start_paused", .bool(false), [.v5_3], .applied(.engine)),  // the session starts paused
        .init("webtorrent_stun_server", .string("stun.l.google.com:19302"), [.v5_3], .inert(Reason.noWebTorrent)),
        .init("validate_https_tracker_certificate", .bool(true), .all, .applied(.engine)),
        .init("ssrf_mitigation", .bool(true), .all, .applied(.engine)),
        .init("block_peers_on_privileged_ports", .bool(false), .all, .applied(.engine)),
        .init("upload_slots_behavior", .int(0), .all, .applied(.engine)),
        .init("upload_choking_algorithm", .int(1), .all, .applied(.engine)),
        .init("announce_to_all_trackers", .bool(false), .all, .applied(.engine)),
        .init("announce_to_all_tiers", .bool(true), .all, .applied(.engine)),
        .init("announce_ip", .string(""), .all, .applied(.engine)),
        .init("announce_port", .int(0), .v5, .inert(Reason.announcePort)),
        .init("max_concurrent_http_announces", .int(50), .all, .applied(.engine)),
        .init("stop_tracker_timeout", .int(2), .all, .applied(.engine)),
        .init("peer_turnover", .int(4), .all, .applied(.engine)),
        .init("peer_turnover_cutoff", .int(90), .all, .applied(.engine)),
        .init("peer_turnover_interval", .int(300), .all, .applied(.engine)),
        .init("request_queue_size", .int(500), .all, .applied(.engine)),
        .init("dht_bootstrap_nodes", .string("dht.libtorrent.org:25401, dht.transmissionbt.com:6881, router.bittorrent.com:6881"), .v5, .applied(.engine)),  // used only while DHT is on
        // MARK: qbtd's own
        .init("music_dirs", .array([]), .all, .applied(.music), qbtdOnly: true, stored: false),  // qbtd only: the HLS music folders (stored as qbtd_music_dirs)
        // qbtd only: torrents downloading into a filesystem with less free space than this (MiB) are held, not
        // errored, and start again by themselves when it is back; 0 turns the guard off.
        .init("disk_guard_min_free_mib", .int(256), .all, .applied(.diskGuard), qbtdOnly: true),
    ]

    /// The entries by key.
    public static let byKey: [String: PreferenceEntry] = Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0) })

    /// The keys `app/preferences` reports under `profile` (qbtd's own keys included).
    public static func keys(reportedBy profile: Identity.Profile) -> Set<String> {
        Set(entries.filter { $0.profiles.contains(profile) }.map(\.key))
    }

    /// The keys the appliers apply (4.x aliases included).
    public static func keys(appliedBy appliers: Set<PreferenceEntry.Applier>) -> Set<String> {
        // A loop, not filter/map over `applier`: Swift 6.3.1's release optimizer crashed on that closure
        // ("Found ownership error", CopyPropagation).
        var keys: Set<String> = []
        for entry in entries {
            guard let applier = entry.applier, appliers.contains(applier) else { continue }
            keys.insert(entry.key)
        }
        return keys
    }

    /// The stored-preference defaults: every reported key but the 4.x aliases (reported under their 5.x key's value)
    /// and keys reported from other state (`music_dirs`).
    public static func defaults(paths: ServerPaths) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for entry in entries where !entry.profiles.isEmpty && entry.alias == nil && entry.stored {
            out[entry.key] = entry.defaultValue.resolved(paths)
        }
        return out
    }

    /// qBittorrent's `rss_smart_episode_filters` default.
    static let smartEpisodeFilters = [
        #"s(\d+)e(\d+)"#, #"(\d+)x(\d+)"#, #"(\d{4}[.\-]\d{1,2}[.\-]\d{1,2})"#,
        #"(\d{1,2}[.\-]\d{1,2}[.\-]\d{4})"#,
    ].joined(separator: "\n")

    /// The reasons, one short sentence each (the README groups the keys by them).
    enum Reason {
        static let englishOnly = "qbtd's messages are in English and it serves no translated WebUI"
        static let noPerformanceLog = "qbtd does not log libtorrent's performance warnings"
        static let noLogFile = "qbtd writes no log file; its log is log/main and standard output"
        static let queueBottom = "new torrents join the bottom of the queue unless torrents/add asks for the top"
        static let noMergeTrackers = "adding a torrent qbtd already has does not merge its trackers or web seeds"
        static let noUnwantedFolder = "qbtd leaves skipped files where they are"
        static let noSSLListen = "qbtd opens no SSL listen port for torrents"
        static let noRandomPort = "qbtd never picks a random port; listen_port 0 keeps 6881"
        static let noI2P = "qbtd does not connect to I2P"
        static let webUIFromCommandLine = "the WebUI address and port come from --host and --port; a change needs a restart"
        static let noWebUIUPnP = "qbtd does not forward its WebUI port"
        static let apiKeyHashed = "qbtd keeps only a hash of the API key; app/rotateAPIKey shows a new one"
        static let noDynDNS = "qbtd has no dynamic DNS updater"
        static let sqliteResume = "qbtd always keeps resume data in its SQLite database"
        static let deleteOutright = "qbtd deletes content outright; it has no trash"
        static let resumeInterval = "qbtd saves resume data every --resume-interval seconds (15 by default), so at least once a minute"
        static let statisticsEveryMinute = "qbtd saves its statistics every minute"
        static let torrentSizeFixed = "qbtd fetches .torrent files of up to 100 MiB"
        static let noRecheckOnCompletion = "qbtd does not recheck a torrent when it completes"
        static let noHostNames = "qbtd does not look up peer host names"
        static let noGeoIP = "qbtd has no GeoIP database, so peers carry no country"
        static let noReannounceOnAddress = "qbtd does not reannounce when its address changes"
        static let noEmbeddedTracker = "qbtd has no embedded tracker"
        static let tlsAlwaysChecked = "qbtd always checks TLS certificates on its own HTTP fetches"
        static let bdecodeDefaults = "qbtd reads .torrent files with libtorrent's limits (depth 100, 2,000,000 tokens)"
        static let defaultDiskIO = "qbtd uses libtorrent's default disk I/O (memory-mapped files)"
        static let logFileOff = "qbtd writes no log file (file_log_enabled is always false)"
        static let deleteTorrentFile = "qBittorrent applies it to .torrent files its GUI opens; watched folders delete their files whatever it says, in qBittorrent as in qbtd"
        static let sslListenOff = "qbtd opens no SSL listen port for torrents (ssl_enabled is always false)"
        static let i2pOff = "qbtd does not connect to I2P (i2p_enabled is always false)"
        static let i2pTunnels = "qbtd does not apply them yet (libtorrent 2.0.9 added I2P tunnel settings); libtorrent's defaults apply"
        static let dynDNSOff = "qbtd has no dynamic DNS updater"
        static let windowsOnly = "Windows only; qBittorrent ignores it on Linux too"
        static let windowsMacOnly = "Windows and macOS only"
        static let embeddedTrackerOff = "qbtd has no embedded tracker"
        static let libtorrent12 = "libtorrent 1.2 only; qbtd uses libtorrent 2.0"
        static let backupKept = "qbtd leaves .torrent backups where they are when a torrent is removed"
        static let mailEncryption = "qbtd's mail follows mail_notification_ssl_enabled (SMTPS when true, plain otherwise); it offers no STARTTLS"
        static let searchJobsForgotten = "qbtd forgets search jobs when it stops"
        static let samePeerID = "libtorrent 2.0.11 has no setting for it; qbtd refuses a second connection from the same peer id"
        static let shutdownTimeout = "qbtd waits for fast-resume data when it stops, with no time limit of its own"
        static let noWebTorrent = "qbtd has no WebTorrent support"
        static let announcePort = "qbtd does not apply it yet (libtorrent 2.0.11 has announce_port); trackers get the listen port"
    }
}
