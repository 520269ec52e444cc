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
            // No bootstrap contact unless DHT is wanted.
            ("dht_bootstrap_nodes", dht ? "dht.libtorrent.org:25401,router.bittorrent.com:6881" : ""),
            // Several test or LAN peers may share one address.
            ("allow_multiple_connections_per_ip", "true"),
            // Priorities count from the first piece on: libtorrent otherwise picks its first four pieces at random,
            // which puts a stream's first byte behind three unrelated pieces.
            ("initial_picker_threshold", "0"),
        ]
    }
}
