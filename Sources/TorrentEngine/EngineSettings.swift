/// The session-wide knobs the server's preferences control, turned into libtorrent settings by name.
public struct EngineSettings: Sendable, Equatable {
    /// libtorrent's `listen_interfaces`, e.g. `127.0.0.1:6881` or `0.0.0.0:6881,[::]:6881`.
    public var listenInterfaces: String = "0.0.0.0:6881,[::]:6881"
    public var dht = true
    public var lsd = true
    public var pex = true
    public var upnp = true
    public var natpmp = true
    public var utp = true
    /// Bytes per second; 0 means unlimited.
    public var downloadRateLimit = 0
    public var uploadRateLimit = 0
    public var userAgent = "qBittorrent/5.1.4"
    public var peerFingerprint = "-qB5140-"

    public init() {}

    /// Everything that reaches out on its own (DHT, LSD, PeX, UPnP, NAT-PMP) off.
    public mutating func disableDiscovery() {
        dht = false; lsd = false; pex = false; upnp = false; natpmp = false
    }

    /// libtorrent `settings_pack` names and values (PeX is not a setting: it is chosen when the session starts).
    var pack: [(String, String)] {
        [
            ("listen_interfaces", listenInterfaces),
            ("enable_dht", String(dht)),
            ("enable_lsd", String(lsd)),
            ("enable_upnp", String(upnp)),
            ("enable_natpmp", String(natpmp)),
            ("enable_outgoing_utp", String(utp)),
            ("enable_incoming_utp", String(utp)),
            ("download_rate_limit", String(max(0, downloadRateLimit))),
            ("upload_rate_limit", String(max(0, uploadRateLimit))),
            ("user_agent", userAgent),
            ("peer_fingerprint", peerFingerprint),
            // No bootstrap contact unless DHT is wanted.
            ("dht_bootstrap_nodes", dht ? "dht.libtorrent.org:25401,router.bittorrent.com:6881" : ""),
            // Several test or LAN peers may share one address.
            ("allow_multiple_connections_per_ip", "true"),
        ]
    }
}
