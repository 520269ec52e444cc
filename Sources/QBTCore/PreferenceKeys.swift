/// Every preference qbtd's code reads or applies, typed: one property per key, named after it, grouped by the
/// `PreferenceEntry.Applier` that applies it. Code names a key by key path (`settings[\.dht]`,
/// `change.changed(\.scanDirs)`), never by string. PreferenceKeysTests walks these properties (Mirror): each must
/// be a catalogue key of the same type, and every applied catalogue key must have one.
public struct PreferenceKeys: Sendable {
    /// The one instance key paths are applied to.
    public static let all = PreferenceKeys()

    init() {}

    /// A key's name (for a dictionary of changes or a key set).
    public static func name<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> String { all[keyPath: path].key }

    /// The names of several keys of any types.
    public static func names(_ paths: PartialKeyPath<PreferenceKeys>...) -> Set<String> { names(paths) }

    public static func names(_ paths: [PartialKeyPath<PreferenceKeys>]) -> Set<String> {
        // Every property is a Preference (PreferenceKeysTests checks it).
        Set(paths.map { (all[keyPath: $0] as! any AnyPreference).key })
    }

    // MARK: .credentials
    public let webUIUsername = Preference<String>("web_ui_username")
    public let webUIPassword = Preference<String>("web_ui_password")

    // MARK: .music
    public let musicDirs = Preference<[JSONValue]>("music_dirs")

    // MARK: .webServer
    public let useHTTPS = Preference<Bool>("use_https")
    public let webUIHTTPSCertPath = Preference<String>("web_ui_https_cert_path")
    public let webUIHTTPSKeyPath = Preference<String>("web_ui_https_key_path")

    // MARK: .engine
    public let listenPort = Preference<Int>("listen_port")
    public let upnp = Preference<Bool>("upnp")
    public let maxConnec = Preference<Int>("max_connec")
    public let maxUploads = Preference<Int>("max_uploads")
    public let proxyType = Preference<String>("proxy_type")
    public let proxyIP = Preference<String>("proxy_ip")
    public let proxyPort = Preference<Int>("proxy_port")
    public let proxyAuthEnabled = Preference<Bool>("proxy_auth_enabled")
    public let proxyUsername = Preference<String>("proxy_username")
    public let proxyPassword = Preference<String>("proxy_password")
    public let proxyHostnameLookup = Preference<Bool>("proxy_hostname_lookup")
    public let proxyBitTorrent = Preference<Bool>("proxy_bittorrent")
    public let proxyPeerConnections = Preference<Bool>("proxy_peer_connections")
    public let ipFilterTrackers = Preference<Bool>("ip_filter_trackers")
    public let dlLimit = Preference<Int>("dl_limit")
    public let upLimit = Preference<Int>("up_limit")
    public let altDLLimit = Preference<Int>("alt_dl_limit")
    public let altUpLimit = Preference<Int>("alt_up_limit")
    public let bittorrentProtocol = Preference<Int>("bittorrent_protocol")
    public let limitUTPRate = Preference<Bool>("limit_utp_rate")
    public let limitTCPOverhead = Preference<Bool>("limit_tcp_overhead")
    public let limitLANPeers = Preference<Bool>("limit_lan_peers")
    public let dht = Preference<Bool>("dht")
    public let pex = Preference<Bool>("pex")
    public let lsd = Preference<Bool>("lsd")
    public let encryption = Preference<Int>("encryption")
    public let anonymousMode = Preference<Bool>("anonymous_mode")
    public let asyncIOThreads = Preference<Int>("async_io_threads")
    public let hashingThreads = Preference<Int>("hashing_threads")
    public let filePoolSize = Preference<Int>("file_pool_size")
    public let checkingMemoryUse = Preference<Int>("checking_memory_use")
    public let diskQueueSize = Preference<Int>("disk_queue_size")
    public let diskIOReadMode = Preference<Int>("disk_io_read_mode")
    public let diskIOWriteMode = Preference<Int>("disk_io_write_mode")
    public let enablePieceExtentAffinity = Preference<Bool>("enable_piece_extent_affinity")
    public let enableUploadSuggestions = Preference<Bool>("enable_upload_suggestions")
    public let sendBufferWatermark = Preference<Int>("send_buffer_watermark")
    public let sendBufferLowWatermark = Preference<Int>("send_buffer_low_watermark")
    public let sendBufferWatermarkFactor = Preference<Int>("send_buffer_watermark_factor")
    public let connectionSpeed = Preference<Int>("connection_speed")
    public let socketSendBufferSize = Preference<Int>("socket_send_buffer_size")
    public let socketReceiveBufferSize = Preference<Int>("socket_receive_buffer_size")
    public let socketBacklogSize = Preference<Int>("socket_backlog_size")
    public let outgoingPortsMin = Preference<Int>("outgoing_ports_min")
    public let outgoingPortsMax = Preference<Int>("outgoing_ports_max")
    public let upnpLeaseDuration = Preference<Int>("upnp_lease_duration")
    public let peerToS = Preference<Int>("peer_tos")
    public let utpTCPMixedMode = Preference<Int>("utp_tcp_mixed_mode")
    public let hostnameCacheTTL = Preference<Int>("hostname_cache_ttl")
    public let idnSupportEnabled = Preference<Bool>("idn_support_enabled")
    public let enableMultiConnectionsFromSameIP = Preference<Bool>("enable_multi_connections_from_same_ip")
    public let maxOutstandingBlockRequests = Preference<Int>("max_outstanding_block_requests")
    public let seedingOutgoingConnections = Preference<Bool>("seeding_outgoing_connections")
    public let startPaused = Preference<Bool>("start_paused")
    public let validateHTTPSTrackerCertificate = Preference<Bool>("validate_https_tracker_certificate")
    public let ssrfMitigation = Preference<Bool>("ssrf_mitigation")
    public let blockPeersOnPrivilegedPorts = Preference<Bool>("block_peers_on_privileged_ports")
    public let uploadSlotsBehavior = Preference<Int>("upload_slots_behavior")
    public let uploadChokingAlgorithm = Preference<Int>("upload_choking_algorithm")
    public let announceToAllTrackers = Preference<Bool>("announce_to_all_trackers")
    public let announceToAllTiers = Preference<Bool>("announce_to_all_tiers")
    public let announceIP = Preference<String>("announce_ip")
    public let maxConcurrentHTTPAnnounces = Preference<Int>("max_concurrent_http_announces")
    public let stopTrackerTimeout = Preference<Int>("stop_tracker_timeout")
    public let peerTurnover = Preference<Int>("peer_turnover")
    public let peerTurnoverCutoff = Preference<Int>("peer_turnover_cutoff")
    public let peerTurnoverInterval = Preference<Int>("peer_turnover_interval")
    public let requestQueueSize = Preference<Int>("request_queue_size")
    public let dhtBootstrapNodes = Preference<String>("dht_bootstrap_nodes")

    // MARK: .networkBinding
    public let currentNetworkInterface = Preference<String>("current_network_interface")
    public let currentInterfaceAddress = Preference<String>("current_interface_address")

    // MARK: .automation
    public let exportDir = Preference<String>("export_dir")
    public let exportDirFin = Preference<String>("export_dir_fin")
    public let torrentFilesBackupEnabled = Preference<Bool>("torrent_files_backup_enabled")
    public let torrentFilesBackupDir = Preference<String>("torrent_files_backup_dir")
    public let torrentFilesFinishedBackupDirEnabled = Preference<Bool>("torrent_files_finished_backup_dir_enabled")
    public let torrentFilesFinishedBackupDir = Preference<String>("torrent_files_finished_backup_dir")
    public let scanDirs = Preference<[String: JSONValue]>("scan_dirs")
    public let excludedFileNamesEnabled = Preference<Bool>("excluded_file_names_enabled")
    public let excludedFileNames = Preference<String>("excluded_file_names")
    public let mailNotificationEnabled = Preference<Bool>("mail_notification_enabled")
    public let mailNotificationSender = Preference<String>("mail_notification_sender")
    public let mailNotificationEmail = Preference<String>("mail_notification_email")
    public let mailNotificationSMTP = Preference<String>("mail_notification_smtp")
    public let mailNotificationSSLEnabled = Preference<Bool>("mail_notification_ssl_enabled")
    public let mailNotificationAuthEnabled = Preference<Bool>("mail_notification_auth_enabled")
    public let mailNotificationUsername = Preference<String>("mail_notification_username")
    public let mailNotificationPassword = Preference<String>("mail_notification_password")
    public let autorunOnTorrentAddedEnabled = Preference<Bool>("autorun_on_torrent_added_enabled")
    public let autorunOnTorrentAddedProgram = Preference<String>("autorun_on_torrent_added_program")
    public let autorunEnabled = Preference<Bool>("autorun_enabled")
    public let autorunProgram = Preference<String>("autorun_program")
    public let addTrackersEnabled = Preference<Bool>("add_trackers_enabled")
    public let addTrackers = Preference<String>("add_trackers")
    public let addTrackersFromURLEnabled = Preference<Bool>("add_trackers_from_url_enabled")
    public let addTrackersURL = Preference<String>("add_trackers_url")
    public let addTrackersURLList = Preference<String>("add_trackers_url_list")

    // MARK: .queue
    public let maxActiveCheckingTorrents = Preference<Int>("max_active_checking_torrents")
    public let queueingEnabled = Preference<Bool>("queueing_enabled")
    public let maxActiveDownloads = Preference<Int>("max_active_downloads")
    public let maxActiveTorrents = Preference<Int>("max_active_torrents")
    public let maxActiveUploads = Preference<Int>("max_active_uploads")
    public let dontCountSlowTorrents = Preference<Bool>("dont_count_slow_torrents")
    public let slowTorrentDLRateThreshold = Preference<Int>("slow_torrent_dl_rate_threshold")
    public let slowTorrentULRateThreshold = Preference<Int>("slow_torrent_ul_rate_threshold")
    public let slowTorrentInactiveTimer = Preference<Int>("slow_torrent_inactive_timer")

    // MARK: .shareLimits
    public let maxRatioEnabled = Preference<Bool>("max_ratio_enabled")
    public let maxRatio = Preference<Double>("max_ratio")
    public let maxSeedingTimeEnabled = Preference<Bool>("max_seeding_time_enabled")
    public let maxSeedingTime = Preference<Int>("max_seeding_time")
    public let maxInactiveSeedingTimeEnabled = Preference<Bool>("max_inactive_seeding_time_enabled")
    public let maxInactiveSeedingTime = Preference<Int>("max_inactive_seeding_time")
    public let maxRatioAct = Preference<Int>("max_ratio_act")
    public let shareLimitsMode = Preference<String>("share_limits_mode")

    // MARK: .torrentLimits
    public let maxConnecPerTorrent = Preference<Int>("max_connec_per_torrent")
    public let maxUploadsPerTorrent = Preference<Int>("max_uploads_per_torrent")

    // MARK: .ipFilter
    public let ipFilterEnabled = Preference<Bool>("ip_filter_enabled")
    public let ipFilterPath = Preference<String>("ip_filter_path")
    public let bannedIPs = Preference<String>("banned_IPs")

    // MARK: .placement
    public let useSubcategories = Preference<Bool>("use_subcategories")
    public let incompleteFilesExt = Preference<Bool>("incomplete_files_ext")
    public let useCategoryPathsInManualMode = Preference<Bool>("use_category_paths_in_manual_mode")

    // MARK: .paths
    public let torrentChangedTMMEnabled = Preference<Bool>("torrent_changed_tmm_enabled")
    public let savePathChangedTMMEnabled = Preference<Bool>("save_path_changed_tmm_enabled")
    public let categoryChangedTMMEnabled = Preference<Bool>("category_changed_tmm_enabled")
    public let savePath = Preference<String>("save_path")
    public let tempPathEnabled = Preference<Bool>("temp_path_enabled")
    public let tempPath = Preference<String>("temp_path")

    // MARK: .webSecurity
    public let webUIDomainList = Preference<String>("web_ui_domain_list")
    public let bypassLocalAuth = Preference<Bool>("bypass_local_auth")
    public let bypassAuthSubnetWhitelistEnabled = Preference<Bool>("bypass_auth_subnet_whitelist_enabled")
    public let bypassAuthSubnetWhitelist = Preference<String>("bypass_auth_subnet_whitelist")
    public let webUIMaxAuthFailCount = Preference<Int>("web_ui_max_auth_fail_count")
    public let webUIBanDuration = Preference<Int>("web_ui_ban_duration")
    public let webUISessionTimeout = Preference<Int>("web_ui_session_timeout")
    public let webUISessionsCountLimit = Preference<Int>("web_ui_sessions_count_limit")
    public let webUIClickjackingProtectionEnabled = Preference<Bool>("web_ui_clickjacking_protection_enabled")
    public let webUICSRFProtectionEnabled = Preference<Bool>("web_ui_csrf_protection_enabled")
    public let webUISecureCookieEnabled = Preference<Bool>("web_ui_secure_cookie_enabled")
    public let webUIHostHeaderValidationEnabled = Preference<Bool>("web_ui_host_header_validation_enabled")
    public let webUIUseCustomHTTPHeadersEnabled = Preference<Bool>("web_ui_use_custom_http_headers_enabled")
    public let webUICustomHTTPHeaders = Preference<String>("web_ui_custom_http_headers")
    public let webUIHSTSEnabled = Preference<Bool>("web_ui_hsts_enabled")
    public let webUIHSTSMaxAge = Preference<Int>("web_ui_hsts_max_age")
    public let webUIHSTSIncludeSubdomains = Preference<Bool>("web_ui_hsts_include_subdomains")
    public let webUIReverseProxyEnabled = Preference<Bool>("web_ui_reverse_proxy_enabled")
    public let webUIReverseProxiesList = Preference<String>("web_ui_reverse_proxies_list")
    /// qbtd's own: the free-space guard's floor in MiB (0: off).
    public let diskGuardMinFreeMiB = Preference<Int>("disk_guard_min_free_mib")

    // MARK: .webUIFiles
    public let alternativeWebUIEnabled = Preference<Bool>("alternative_webui_enabled")
    public let alternativeWebUIPath = Preference<String>("alternative_webui_path")

    // MARK: .rss
    public let proxyRSS = Preference<Bool>("proxy_rss")
    public let rssRefreshInterval = Preference<Int>("rss_refresh_interval")
    public let rssFetchDelay = Preference<Int>("rss_fetch_delay")
    public let rssMaxArticlesPerFeed = Preference<Int>("rss_max_articles_per_feed")
    public let rssProcessingEnabled = Preference<Bool>("rss_processing_enabled")
    public let rssAutoDownloadingEnabled = Preference<Bool>("rss_auto_downloading_enabled")
    public let rssDownloadRepackProperEpisodes = Preference<Bool>("rss_download_repack_proper_episodes")
    public let rssSmartEpisodeFilters = Preference<String>("rss_smart_episode_filters")

    // MARK: .torrentDefaults
    public let torrentContentLayout = Preference<String>("torrent_content_layout")
    public let addStoppedEnabled = Preference<Bool>("add_stopped_enabled")
    public let torrentStopCondition = Preference<String>("torrent_stop_condition")
    public let preallocateAll = Preference<Bool>("preallocate_all")
    public let autoTMMEnabled = Preference<Bool>("auto_tmm_enabled")

    // MARK: .speedSchedule
    public let schedulerEnabled = Preference<Bool>("scheduler_enabled")
    public let scheduleFromHour = Preference<Int>("schedule_from_hour")
    public let scheduleFromMin = Preference<Int>("schedule_from_min")
    public let scheduleToHour = Preference<Int>("schedule_to_hour")
    public let scheduleToMin = Preference<Int>("schedule_to_min")
    public let schedulerDays = Preference<Int>("scheduler_days")

    // MARK: .search
    public let pythonExecutablePath = Preference<String>("python_executable_path")

    // MARK: .httpFetch
    public let proxyTorrentsOnly = Preference<Bool>("proxy_torrents_only")
    public let proxyMisc = Preference<Bool>("proxy_misc")

    // MARK: .syncState
    public let refreshInterval = Preference<Int>("refresh_interval")

    // MARK: fixed, but read (qbtd reports what it does)
    public let webUIAddress = Preference<String>("web_ui_address")
    public let webUIPort = Preference<Int>("web_ui_port")
    public let resolvePeerCountries = Preference<Bool>("resolve_peer_countries")
}
