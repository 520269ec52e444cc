import HTTPFetch
import TorrentEngine

/// The proxy preferences, for each use qBittorrent has one for.
extension ServerSettings {
    /// What a proxy serves in qBittorrent: BitTorrent (peers and trackers), RSS, and everything else qbtd fetches
    /// (.torrent URLs, search plugins and their installs, Torznab).
    public enum ProxyUse: Sendable { case bittorrent, rss, misc }

    /// The proxy for one use, or `.none` when the type is None or that use is switched off.
    public nonisolated func proxy(for use: ProxyUse) -> EngineSettings.Proxy { Self.proxy(current, for: use) }

    static func proxy(_ p: PreferenceValues, for use: ProxyUse) -> EngineSettings.Proxy {
        var proxy = EngineSettings.Proxy()
        let wanted = switch use {
        case .bittorrent: p[\.proxyBitTorrent]
        case .rss: p[\.proxyRSS]
        case .misc: p[\.proxyMisc]
        }
        guard wanted else { return proxy }
        switch p[\.proxyType].uppercased() {
        case "SOCKS4": proxy.kind = .socks4
        case "SOCKS5": proxy.kind = .socks5
        case "HTTP": proxy.kind = .http
        default: return proxy
        }
        proxy.host = p[\.proxyIP]
        proxy.port = p[\.proxyPort]
        if p[\.proxyAuthEnabled], proxy.kind != .socks4 {
            proxy.user = p[\.proxyUsername]
            proxy.password = p[\.proxyPassword]
        }
        proxy.peerConnections = p[\.proxyPeerConnections]
        proxy.hostnameLookup = p[\.proxyHostnameLookup]
        return proxy
    }

    /// How qbtd's own HTTP requests for `use` leave: qBittorrent sends them through an HTTP or SOCKS5 proxy (never
    /// SOCKS4) when that use is switched on; names are resolved by a SOCKS5 proxy with `proxy_hostname_lookup`.
    public nonisolated func fetchRoute(for use: ProxyUse) -> FetchRoute {
        let p = proxy(for: use)
        let scheme: String
        switch p.kind {
        case .http: scheme = "http"
        case .socks5: scheme = p.hostnameLookup ? "socks5h" : "socks5"
        case .none, .socks4: return .direct
        }
        return FetchRoute(proxyURL: "\(scheme)://\(p.authority)", username: p.user, password: p.user == nil ? nil : p.password)
    }

    /// The proxy variables qBittorrent hands its search plugins: `http_proxy`/`https_proxy` for an HTTP proxy,
    /// `sock_proxy` (`[user:password@]host:port`) for SOCKS5; empty otherwise.
    public nonisolated func pluginProxyEnvironment() -> [String: String] {
        let p = proxy(for: .misc)
        let credentials = p.user.map { "\($0):\(p.password)@" } ?? ""
        let address = credentials + p.authority
        var env = ["http_proxy": "", "https_proxy": "", "sock_proxy": ""]
        switch p.kind {
        case .http: env["http_proxy"] = "http://" + address; env["https_proxy"] = "http://" + address
        case .socks5: env["sock_proxy"] = address
        case .none, .socks4: break
        }
        return env
    }
}
