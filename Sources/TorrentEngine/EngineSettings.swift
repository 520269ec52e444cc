/// The session-wide knobs the server's preferences control, turned into libtorrent settings by name.
public struct EngineSettings: Sendable, Equatable {
    /// libtorrent's `listen_interfaces`, e.g. `127.0.0.1:6881` or `0.0.0.0:6881,[::]:6881`.
    public var listenInterfaces: String = "0.0.0.0:6881,[::]:6881"
    /// libtorrent's `outgoing_interfaces`: interface names or addresses outgoing sockets are bound to; "" = any.
    public var outgoingInterfaces = ""
    public var proxy = Proxy()
    /// Whether the IP filter also holds trackers (qBittorrent's `ip_filter_trackers`).
    public var ipFilterTrackers = false
    public var dht = true
    public var lsd = true
    public var pex = true
    public var upnp = true
    public var natpmp = true
    public var utp = true
    public var tcp = true
    /// Bytes per second; 0 means unlimited.
    public var downloadRateLimit = 0
    /// Seconds a connected peer may say nothing before it is dropped (libtorrent's `peer_timeout`, its default 120).
    public var peerTimeout = 120
    /// Seconds before a peer that failed is called again, times its failures (libtorrent's `min_reconnect_time`, its
    /// default 60).
    public var minReconnectTime = 60
    public var uploadRateLimit = 0
    /// Global peer connections and unchoke slots; -1 or 0 means unlimited.
    public var connectionsLimit = 500
    public var unchokeSlots = 20
    /// libtorrent's queue: -1 means no limit (qBittorrent's "queueing off").
    public var activeDownloads = -1
    public var activeSeeds = -1
    public var activeLimit = -1
    public var activeChecking = 1
    public var dontCountSlowTorrents = false
    /// qBittorrent's `encryption`: 0 prefer, 1 require, 2 disable.
    public var encryption = 0
    public var anonymousMode = false
    /// Whether the global limits also hold uTP and LAN/loopback peers (qBittorrent's defaults: both yes).
    public var rateLimitUTP = true
    public var rateLimitIPOverhead = false
    public var rateLimitLAN = true
    public var userAgent = "qBittorrent/5.1.4"
    public var peerFingerprint = "-qB5140-"
    /// qBittorrent's Advanced › libtorrent settings, in qBittorrent's units (converted in `pack`).
    public var advanced = Advanced()
    /// `dht_bootstrap_nodes`; "" means qBittorrent's default list.
    public var dhtBootstrapNodes = EngineSettings.defaultDHTBootstrapNodes

    /// qBittorrent's `DEFAULT_DHT_BOOTSTRAP_NODES` (sessionimpl.cpp:123).
    public static let defaultDHTBootstrapNodes =
        "dht.libtorrent.org:25401, dht.transmissionbt.com:6881, router.bittorrent.com:6881"

    public struct Advanced: Sendable, Equatable {
        public var asyncIOThreads = 10            // async_io_threads
        public var hashingThreads = 1             // hashing_threads
        public var filePoolSize = 100             // file_pool_size
        public var checkingMemoryMiB = 32         // checking_memory_use (MiB)
        public var diskQueueSize = 1_048_576      // disk_queue_size (bytes)
        public var diskIOReadMode = 1             // disk_io_read_mode: 0 disable OS cache, 1 enable
        public var diskIOWriteMode = 1            // disk_io_write_mode: 0 disable, 1 enable, 2 write-through
        public var pieceExtentAffinity = false    // enable_piece_extent_affinity
        public var uploadSuggestions = false      // enable_upload_suggestions
        public var sendBufferWatermarkKiB = 500   // send_buffer_watermark
        public var sendBufferLowWatermarkKiB = 10 // send_buffer_low_watermark
        public var sendBufferWatermarkFactor = 50 // send_buffer_watermark_factor (%)
        public var connectionSpeed = 30           // connection_speed
        public var socketSendBufferSize = 0       // socket_send_buffer_size (bytes, 0 = OS default)
        public var socketReceiveBufferSize = 0    // socket_receive_buffer_size
        public var socketBacklogSize = 30         // socket_backlog_size
        public var outgoingPortsMin = 0           // outgoing_ports_min
        public var outgoingPortsMax = 0           // outgoing_ports_max
        public var upnpLeaseDuration = 0          // upnp_lease_duration (s, 0 = permanent)
        public var peerToS = 4                    // peer_tos (a ToS byte on libtorrent 2.0.x: 4 = DSCP 1, Lower Effort)
        public var utpMixedMode = 0               // utp_tcp_mixed_mode: 0 prefer TCP, 1 peer proportional
        public var idnSupport = false             // idn_support_enabled
        public var multipleConnectionsPerIP = true  // enable_multi_connections_from_same_ip (qBittorrent: false)
        public var maxOutRequestQueue = 2000      // max_outstanding_block_requests (5.3; libtorrent's own default is 500)
        public var seedingOutgoingConnections = true  // seeding_outgoing_connections (5.3)
        public var validateHTTPSTrackerCertificate = true  // validate_https_tracker_certificate
        public var ssrfMitigation = true          // ssrf_mitigation
        public var blockPeersOnPrivilegedPorts = false  // block_peers_on_privileged_ports
        public var uploadSlotsBehavior = 0        // upload_slots_behavior: 0 fixed slots, 1 rate based
        public var uploadChokingAlgorithm = 1     // upload_choking_algorithm: 0 round robin, 1 fastest, 2 anti-leech
        public var announceToAllTrackers = false  // announce_to_all_trackers
        public var announceToAllTiers = true      // announce_to_all_tiers
        public var announceIP = ""                // announce_ip (already validated: "" or an address)
        public var maxConcurrentHTTPAnnounces = 50  // max_concurrent_http_announces
        public var stopTrackerTimeout = 2         // stop_tracker_timeout (s)
        public var peerTurnover = 4               // peer_turnover (%)
        public var peerTurnoverCutoff = 90        // peer_turnover_cutoff (%)
        public var peerTurnoverInterval = 300     // peer_turnover_interval (s)
        public var requestQueueSize = 500         // request_queue_size
        public var hostnameCacheTTL = 1200        // hostname_cache_ttl (5.2 key; libtorrent's default everywhere)
        /// Queueing's slow-torrent thresholds (KiB/s) and timer (s): qBittorrent writes them only with queueing on.
        public var slowTorrentDownloadRate = 2    // slow_torrent_dl_rate_threshold
        public var slowTorrentUploadRate = 2      // slow_torrent_ul_rate_threshold
        public var slowTorrentInactiveTimer = 60  // slow_torrent_inactive_timer

        public init() {}

        /// libtorrent's int settings are 32-bit: `qbt_settings_set` would wrap anything larger.
        static func int32(_ v: Int) -> String { String(min(max(v, Int(Int32.min)), Int(Int32.max))) }

        /// `v × factor` (KiB to bytes, MiB to blocks), saturating: preferences hold any 64-bit number a client sent.
        static func scaled(_ v: Int, _ factor: Int) -> String {
            let (product, overflow) = v.multipliedReportingOverflow(by: factor)
            return int32(overflow ? (v < 0 ? Int.min : Int.max) : product)
        }

        /// `SessionImpl::loadLTSettings`'s conversions.
        var pack: [(String, String)] {
            let i = Self.int32
            return [
                ("aio_threads", i(min(max(asyncIOThreads, 1), 1024))),
                ("hashing_threads", i(min(max(hashingThreads, 1), 1024))),
                ("file_pool_size", i(filePoolSize)),
                ("checking_mem_usage", Self.scaled(max(1, checkingMemoryMiB), 64)),  // 16 KiB blocks
                ("max_queued_disk_bytes", i(diskQueueSize)),
                ("disk_io_read_mode", diskIOReadMode == 0 ? "2" : "0"),  // disable_os_cache 2, enable_os_cache 0
                ("disk_io_write_mode", diskIOWriteMode == 0 ? "2" : diskIOWriteMode == 2 ? "3" : "0"),  // write_through 3
                ("piece_extent_affinity", String(pieceExtentAffinity)),
                ("suggest_mode", uploadSuggestions ? "1" : "0"),  // suggest_read_cache 1, no_piece_suggestions 0
                ("send_buffer_watermark", Self.scaled(sendBufferWatermarkKiB, 1024)),
                ("send_buffer_low_watermark", Self.scaled(sendBufferLowWatermarkKiB, 1024)),
                ("send_buffer_watermark_factor", i(sendBufferWatermarkFactor)),
                ("connection_speed", i(connectionSpeed)),
                ("send_socket_buffer_size", i(socketSendBufferSize)),
                ("recv_socket_buffer_size", i(socketReceiveBufferSize)),
                ("listen_queue_size", i(socketBacklogSize)),
                ("outgoing_port", i(outgoingPortsMin)),
                ("num_outgoing_ports", i(max(0, outgoingPortsMax.subtractingReportingOverflow(outgoingPortsMin).overflow
                    ? 0 : outgoingPortsMax - outgoingPortsMin))),
                ("upnp_lease_duration", i(upnpLeaseDuration)),
                ("peer_tos", i(peerToS)),  // the old name (peer_dscp's alias), which 2.0.8 and 2.0.11 both take
                ("mixed_mode_algorithm", utpMixedMode == 1 ? "1" : "0"),  // peer_proportional 1, prefer_tcp 0
                ("allow_idna", String(idnSupport)),
                ("allow_multiple_connections_per_ip", String(multipleConnectionsPerIP)),
                ("max_out_request_queue", i(max(1, maxOutRequestQueue))),
                ("seeding_outgoing_connections", String(seedingOutgoingConnections)),
                ("validate_https_trackers", String(validateHTTPSTrackerCertificate)),
                ("ssrf_mitigation", String(ssrfMitigation)),
                ("no_connect_privileged_ports", String(blockPeersOnPrivilegedPorts)),
                ("choking_algorithm", uploadSlotsBehavior == 1 ? "2" : "0"),  // rate_based_choker 2, fixed_slots_choker 0
                ("seed_choking_algorithm", [0, 2].contains(uploadChokingAlgorithm) ? String(uploadChokingAlgorithm) : "1"),
                ("announce_to_all_trackers", String(announceToAllTrackers)),
                ("announce_to_all_tiers", String(announceToAllTiers)),
                ("announce_ip", announceIP),
                ("max_concurrent_http_announces", i(maxConcurrentHTTPAnnounces)),
                ("stop_tracker_timeout", i(stopTrackerTimeout)),
                ("peer_turnover", i(peerTurnover)),
                ("peer_turnover_cutoff", i(peerTurnoverCutoff)),
                ("peer_turnover_interval", i(peerTurnoverInterval)),
                ("max_out_request_queue", i(requestQueueSize)),
                ("resolver_cache_timeout", i(hostnameCacheTTL)),
                ("inactive_down_rate", Self.scaled(slowTorrentDownloadRate, 1024)),
                ("inactive_up_rate", Self.scaled(slowTorrentUploadRate, 1024)),
                ("auto_manage_startup", i(slowTorrentInactiveTimer)),
            ]
        }
    }

    public init() {}

    /// The proxy libtorrent's peer and tracker connections go through (qBittorrent applies it only with
    /// `proxy_bittorrent`; with `proxy_peer_connections` off, peers connect directly).
    public struct Proxy: Sendable, Equatable {
        public enum Kind: String, Sendable { case none, socks4, socks5, http }
        public var kind = Kind.none
        public var host = ""
        public var port = 8080
        /// nil: no authentication.
        public var user: String?
        public var password = ""
        public var peerConnections = false
        public var hostnameLookup = true
        public init() {}

        /// `host:port`, an IPv6 host in brackets, as URLs and proxy variables write it.
        public var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

        /// libtorrent's proxy_type: 0 none, 1 socks4, 2 socks5, 3 socks5_pw, 4 http, 5 http_pw.
        var type: Int {
            switch kind {
            case .none: 0
            case .socks4: 1
            case .socks5: user == nil ? 2 : 3
            case .http: user == nil ? 4 : 5
            }
        }
    }

    /// Everything that reaches out on its own (DHT, LSD, PeX, UPnP, NAT-PMP) off.
    public mutating func disableDiscovery() {
        dht = false; lsd = false; pex = false; upnp = false; natpmp = false
    }

    /// libtorrent `settings_pack` names and values (PeX is not a setting: it is chosen when the session starts).
    var pack: [(String, String)] {
        // libtorrent's enc_policy: 0 forced, 1 enabled, 2 disabled.
        let policy = switch encryption {
        case 1: "0"
        case 2: "2"
        default: "1"
        }
        return [
            ("listen_interfaces", listenInterfaces),
            ("outgoing_interfaces", outgoingInterfaces),
            ("proxy_type", String(proxy.type)),
            ("proxy_hostname", proxy.host),
            ("proxy_port", String(proxy.port)),
            ("proxy_username", proxy.user ?? ""),
            ("proxy_password", proxy.user == nil ? "" : proxy.password),
            ("proxy_peer_connections", String(proxy.peerConnections)),
            ("proxy_hostnames", String(proxy.hostnameLookup)),
            ("proxy_tracker_connections", "true"),
            ("apply_ip_filter_to_trackers", String(ipFilterTrackers)),
            ("enable_dht", String(dht)),
            ("enable_lsd", String(lsd)),
            ("enable_upnp", String(upnp)),
            ("enable_natpmp", String(natpmp)),
            ("enable_outgoing_utp", String(utp)),
            ("enable_incoming_utp", String(utp)),
            ("enable_outgoing_tcp", String(tcp)),
            ("enable_incoming_tcp", String(tcp)),
            ("download_rate_limit", String(max(0, downloadRateLimit))),
            ("peer_timeout", String(max(1, peerTimeout))),
            ("min_reconnect_time", String(max(1, minReconnectTime))),
            ("upload_rate_limit", String(max(0, uploadRateLimit))),
            ("connections_limit", String(connectionsLimit > 0 ? connectionsLimit : Int(Int32.max))),
            ("unchoke_slots_limit", String(unchokeSlots > 0 ? unchokeSlots : -1)),
            ("active_downloads", String(activeDownloads)),
            ("active_seeds", String(activeSeeds)),
            ("active_limit", String(activeLimit)),
            ("active_checking", String(activeChecking)),
            ("dont_count_slow_torrents", String(dontCountSlowTorrents)),
            ("out_enc_policy", policy),
            ("in_enc_policy", policy),
            ("anonymous_mode", String(anonymousMode)),
            ("rate_limit_ip_overhead", String(rateLimitIPOverhead)),
            ("user_agent", userAgent),
            ("peer_fingerprint", peerFingerprint),
            // No bootstrap contact unless DHT is wanted (qBittorrent writes the list whatever `dht` says).
            ("dht_bootstrap_nodes", dht ? (dhtBootstrapNodes.isEmpty ? Self.defaultDHTBootstrapNodes : dhtBootstrapNodes) : ""),
            // Priorities count from the first piece on: libtorrent otherwise picks its first four pieces at random,
            // which puts a stream's first byte behind three unrelated pieces.
            ("initial_picker_threshold", "0"),
        ] + advanced.pack
    }
}
