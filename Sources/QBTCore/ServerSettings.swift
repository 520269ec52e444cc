import Foundation
import HTTPFetch
import Store
import SystemKit
import TorrentEngine

/// What the command line forces, whatever the stored preferences say.
public struct EngineOverrides: Sendable, Equatable {
    /// `HOST:PORT` for peers; nil keeps the `listen_port` preference.
    public var peerListen: String?
    /// false forces DHT, LSD, PeX, UPnP and NAT-PMP off.
    public var discovery = true
    /// false forces uTP off.
    public var utp = true
    public init(peerListen: String? = nil, discovery: Bool = true, utp: Bool = true) {
        self.peerListen = peerListen
        self.discovery = discovery
        self.utp = utp
    }
}

/// The server's preferences: qBittorrent's defaults overlaid with what `app/setPreferences` stored. It turns
/// them into engine settings and keeps the alternative-speed mode, which qBittorrent also persists.
public actor ServerSettings {
    public nonisolated let paths: ServerPaths
    public nonisolated let overrides: EngineOverrides
    private let store: Store
    private let defaults: [String: JSONValue]
    private var stored: [String: JSONValue]
    public private(set) var alternativeSpeed: Bool
    static let alternativeSpeedKey = "qbtd_alternative_speed_enabled"
    /// Who hears of changed keys (`changes()`).
    private var watchers: [Int: AsyncStream<Set<String>>.Continuation] = [:]
    private var nextWatcher = 0

    /// Keys that are never echoed back nor set as plain preferences: the password and qbtd's own state.
    static func isPrivate(_ key: String) -> Bool { key == Credentials.passwordKey || key.hasPrefix("qbtd_") }

    public init(store: Store, paths: ServerPaths, overrides: EngineOverrides = EngineOverrides()) async throws {
        self.store = store
        self.paths = paths
        self.overrides = overrides
        defaults = PreferenceCatalogue.defaults(paths: paths)
        stored = try await PreferenceSettings.load(from: store)
        alternativeSpeed = stored[Self.alternativeSpeedKey]?.boolValue ?? false
    }

    /// Defaults overlaid with stored values, secrets left out. A fixed key reports what qbtd does, whatever an
    /// older qbtd stored for it.
    public var values: [String: JSONValue] {
        var out = defaults
        for (key, value) in stored where !Self.isPrivate(key) && takesStoredValue(key) { out[key] = value }
        return out
    }

    public func value(_ key: String) -> JSONValue? {
        takesStoredValue(key) ? stored[key] ?? defaults[key] : defaults[key]
    }

    /// Fixed keys report what qbtd does; so do the external programs while paths are confined (`--allowed-paths`
    /// is for clients not fully trusted, and a program runs anything).
    nonisolated func takesStoredValue(_ key: String) -> Bool {
        (PreferenceCatalogue.byKey[key]?.acceptsChanges ?? true)
            && !(paths.confinement != nil && Self.programKeys.contains(key))
    }

    static let programKeys: Set<String> = [
        "autorun_enabled", "autorun_program", "autorun_on_torrent_added_enabled", "autorun_on_torrent_added_program",
    ]
    static let confinedProgramsReason = "external programs are off while --allowed-paths confines what clients may name"

    /// The fixed keys `changes` asks to change, with the reason each stays: `app/setPreferences` logs them (clients
    /// that send the whole form back send the same values, which are no change).
    public func refusedChanges(_ changes: [String: JSONValue]) -> [(key: String, reason: String)] {
        changes.compactMap { key, raw in
            guard let entry = PreferenceCatalogue.byKey[key], !takesStoredValue(key), let current = defaults[key],
                  let value = Self.coerce(raw, like: current), value != current else { return nil }
            return (key, entry.reason ?? Self.confinedProgramsReason)
        }.sorted { $0.key < $1.key }
    }
    public func bool(_ key: String) -> Bool { value(key)?.boolValue ?? false }
    public func int(_ key: String) -> Int { Int(value(key)?.intValue ?? 0) }
    public func double(_ key: String) -> Double { value(key)?.doubleValue ?? 0 }
    public func string(_ key: String) -> String { value(key)?.stringValue ?? "" }

    /// The default save path (inside the allowed folders when paths are confined).
    public var defaultSavePath: String { (try? paths.savePath(string("save_path"))) ?? paths.downloadRoot }

    /// Where incomplete torrents download, when the temp path is on.
    public var tempPath: String? {
        guard bool("temp_path_enabled") else { return nil }
        return try? paths.savePath(string("temp_path"), relativeTo: defaultSavePath)
    }

    /// Checks and stores changes from `app/setPreferences`: unknown keys and values of the wrong type are
    /// ignored, as qBittorrent ignores them; paths must stay inside the allowed folders (when confined). Returns the
    /// keys that actually changed.
    @discardableResult
    public func update(_ changes: [String: JSONValue]) async throws -> Set<String> {
        var accepted: [String: JSONValue] = [:]
        var changes = changes
        Self.translate4x(&changes)
        for (key, raw) in changes {
            guard let current = defaults[key], takesStoredValue(key), let value = Self.coerce(raw, like: current)
            else { continue }
            if key == "scan_dirs" {  // only what a folder watch can use, in the form app/preferences reports
                let normalized = WatchedFolder.json(WatchedFolder.list(value, paths: paths).folders)
                if self.value(key) != normalized { accepted[key] = normalized }
                continue
            }
            if ["save_path", "temp_path"].contains(key) {
                guard let path = value.stringValue, let resolved = try? paths.savePath(path) else { continue }
                accepted[key] = .string(resolved)
                continue
            }
            if self.value(key) != value { accepted[key] = value }
        }
        guard !accepted.isEmpty else { return [] }
        try await store.setPreferences(accepted.mapValues { $0 as any Encodable & Sendable })
        for (key, value) in accepted { stored[key] = value }
        for watcher in watchers.values { watcher.yield(Set(accepted.keys)) }
        return Set(accepted.keys)
    }

    /// The keys each `update` changed, from now on: how a service that owns some preferences (RSS) hears of them.
    public func changes() -> AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream<Set<String>>.makeStream()
        let id = nextWatcher
        nextWatcher += 1
        watchers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.stopWatching(id) } }
        return stream
    }

    private func stopWatching(_ id: Int) { watchers[id] = nil }

    /// Stores a value outside the preference set (qbtd's own state, e.g. `app/setCookies`).
    public func setPrivate(_ key: String, _ value: JSONValue) async throws {
        try await store.setPreferences([key: value])
        stored[key] = value
    }

    public func setAlternativeSpeed(_ on: Bool) async throws {
        try await store.setPreferences([Self.alternativeSpeedKey: on])
        stored[Self.alternativeSpeedKey] = .bool(on)
        alternativeSpeed = on
    }

    /// qBittorrent 4.x's proxy keys in 5.x terms: `proxy_type` 0…5 (None, HTTP, SOCKS5, HTTP with a password,
    /// SOCKS5 with a password, SOCKS4; -1 also None), and `proxy_torrents_only` (the proxy for nothing but torrents).
    static func translate4x(_ changes: inout [String: JSONValue]) {
        if case .int(let n)? = changes["proxy_type"] {
            let (name, auth): (String, Bool?) = switch n {
            case 1: ("HTTP", false)
            case 2: ("SOCKS5", false)
            case 3: ("HTTP", true)
            case 4: ("SOCKS5", true)
            case 5: ("SOCKS4", false)
            default: ("None", nil)
            }
            changes["proxy_type"] = .string(name)
            if let auth, changes["proxy_auth_enabled"] == nil { changes["proxy_auth_enabled"] = .bool(auth) }
        }
        if let only = changes.removeValue(forKey: "proxy_torrents_only")?.boolValue {
            changes["proxy_bittorrent"] = changes["proxy_bittorrent"] ?? .bool(true)
            changes["proxy_rss"] = changes["proxy_rss"] ?? .bool(!only)
            changes["proxy_misc"] = changes["proxy_misc"] ?? .bool(!only)
        }
    }

    /// A value of the default's type, or nil; numbers convert between int and double as JSON allows. Integers are
    /// kept to 32 bits, as qBittorrent keeps them (so no arithmetic on a preference can overflow).
    public static func coerce(_ value: JSONValue, like template: JSONValue) -> JSONValue? {
        switch (template, value) {
        case (.bool, .bool), (.string, .string), (.object, .object), (.array, .array): value
        case (.bool, .int(let n)): .bool(n != 0)  // qBittorrent's toBool takes 0 and 1
        case (.int, _): value.intValue.map { .int(min(max($0, Int64(Int32.min)), Int64(Int32.max))) }
        case (.double, _): value.doubleValue.map { .double($0) }
        default: nil
        }
    }

    // MARK: engine settings

    /// Everything the preferences say about the session, then the command line's overrides.
    public func engineSettings() -> EngineSettings {
        var s = EngineSettings()
        s.dht = bool("dht")
        s.lsd = bool("lsd")
        s.pex = bool("pex")
        s.upnp = bool("upnp")
        s.natpmp = bool("upnp")
        // qBittorrent's bittorrent_protocol: 0 = TCP and uTP, 1 = TCP, 2 = uTP.
        let protocolChoice = int("bittorrent_protocol")
        s.utp = protocolChoice != 1
        s.tcp = protocolChoice != 2
        let down = alternativeSpeed ? int("alt_dl_limit") : int("dl_limit")
        let up = alternativeSpeed ? int("alt_up_limit") : int("up_limit")
        s.downloadRateLimit = max(0, down)
        s.uploadRateLimit = max(0, up)
        s.connectionsLimit = int("max_connec")
        s.unchokeSlots = int("max_uploads")
        if bool("queueing_enabled") {
            s.activeDownloads = int("max_active_downloads")
            s.activeSeeds = int("max_active_uploads")
            s.activeLimit = int("max_active_torrents")
        } else {
            s.activeDownloads = -1
            s.activeSeeds = -1
            s.activeLimit = -1
        }
        s.activeChecking = max(1, int("max_active_checking_torrents"))
        s.dontCountSlowTorrents = bool("dont_count_slow_torrents")
        s.encryption = int("encryption")
        s.anonymousMode = bool("anonymous_mode")
        s.rateLimitUTP = bool("limit_utp_rate")
        s.rateLimitIPOverhead = bool("limit_tcp_overhead")
        s.rateLimitLAN = bool("limit_lan_peers")
        var port = int("listen_port")
        if (1...65535).contains(port) { s.listenInterfaces = "0.0.0.0:\(port),[::]:\(port)" } else { port = 6881 }
        if let peerListen = overrides.peerListen {
            s.listenInterfaces = Self.listenInterfaces(peerListen)
            port = peerListen.split(separator: ":").last.flatMap { Int($0) } ?? port
        }
        // The interface binding narrows whatever the listen address was to the interface (the port is kept).
        if let binding = networkBinding(port: port) {
            s.listenInterfaces = binding.listenInterfaces
            s.outgoingInterfaces = binding.outgoingInterfaces
        }
        s.proxy = proxy(for: .bittorrent)
        s.ipFilterTrackers = bool("ip_filter_enabled") && bool("ip_filter_trackers")
        s.advanced = advancedSettings()
        s.dhtBootstrapNodes = string("dht_bootstrap_nodes")
        if !overrides.discovery { s.disableDiscovery() }
        if !overrides.utp { s.utp = false; s.tcp = true }
        return s
    }

    /// qBittorrent's Advanced › libtorrent preferences, in its units (`EngineSettings.Advanced.pack` converts them).
    func advancedSettings() -> EngineSettings.Advanced {
        var a = EngineSettings.Advanced()
        a.asyncIOThreads = int("async_io_threads")
        a.hashingThreads = int("hashing_threads")
        a.filePoolSize = int("file_pool_size")
        a.checkingMemoryMiB = int("checking_memory_use")
        a.diskQueueSize = int("disk_queue_size")
        a.diskIOReadMode = int("disk_io_read_mode")
        a.diskIOWriteMode = int("disk_io_write_mode")
        a.pieceExtentAffinity = bool("enable_piece_extent_affinity")
        a.uploadSuggestions = bool("enable_upload_suggestions")
        a.sendBufferWatermarkKiB = int("send_buffer_watermark")
        a.sendBufferLowWatermarkKiB = int("send_buffer_low_watermark")
        a.sendBufferWatermarkFactor = int("send_buffer_watermark_factor")
        a.connectionSpeed = int("connection_speed")
        a.socketSendBufferSize = int("socket_send_buffer_size")
        a.socketReceiveBufferSize = int("socket_receive_buffer_size")
        a.socketBacklogSize = int("socket_backlog_size")
        a.outgoingPortsMin = int("outgoing_ports_min")
        a.outgoingPortsMax = int("outgoing_ports_max")
        a.upnpLeaseDuration = int("upnp_lease_duration")
        a.peerToS = int("peer_tos")
        a.utpMixedMode = int("utp_tcp_mixed_mode")
        a.idnSupport = bool("idn_support_enabled")
        a.multipleConnectionsPerIP = bool("enable_multi_connections_from_same_ip")
        a.validateHTTPSTrackerCertificate = bool("validate_https_tracker_certificate")
        a.ssrfMitigation = bool("ssrf_mitigation")
        a.blockPeersOnPrivilegedPorts = bool("block_peers_on_privileged_ports")
        a.uploadSlotsBehavior = int("upload_slots_behavior")
        a.uploadChokingAlgorithm = int("upload_choking_algorithm")
        a.announceToAllTrackers = bool("announce_to_all_trackers")
        a.announceToAllTiers = bool("announce_to_all_tiers")
        a.announceIP = Self.address(string("announce_ip"))
        a.maxConcurrentHTTPAnnounces = int("max_concurrent_http_announces")
        a.stopTrackerTimeout = int("stop_tracker_timeout")
        a.peerTurnover = int("peer_turnover")
        a.peerTurnoverCutoff = int("peer_turnover_cutoff")
        a.peerTurnoverInterval = int("peer_turnover_interval")
        a.requestQueueSize = int("request_queue_size")
        a.hostnameCacheTTL = int("hostname_cache_ttl")
        a.slowTorrentDownloadRate = int("slow_torrent_dl_rate_threshold")
        a.slowTorrentUploadRate = int("slow_torrent_ul_rate_threshold")
        a.slowTorrentInactiveTimer = int("slow_torrent_inactive_timer")
        return a
    }

    /// qBittorrent keeps `announce_ip` only when it reads as an address; anything else is "".
    static func address(_ text: String) -> String {
        let t = text.trimmingCharacters(in: .whitespaces)
        return IPv6(t) != nil || IPv6.v4(t) != nil ? t : ""
    }

    /// The interface binding, when `current_network_interface` or `current_interface_address` is set.
    public func networkBinding(port: Int = 0) -> NetworkBinding? {
        let name = string("current_network_interface"), address = string("current_interface_address")
        guard !name.isEmpty || !address.isEmpty else { return nil }
        return NetworkBinding.make(interface: name, address: address, port: port, interfaces: NetworkInterfaces.all())
    }

    /// What a proxy serves in qBittorrent: BitTorrent (peers and trackers), RSS, and everything else qbtd fetches
    /// (.torrent URLs, search plugins and their installs, Torznab).
    public enum ProxyUse: Sendable { case bittorrent, rss, misc }

    /// The proxy for one use, or `.none` when the type is None or that use is switched off.
    public func proxy(for use: ProxyUse) -> EngineSettings.Proxy {
        var p = EngineSettings.Proxy()
        let wanted = switch use {
        case .bittorrent: bool("proxy_bittorrent")
        case .rss: bool("proxy_rss")
        case .misc: bool("proxy_misc")
        }
        guard wanted else { return p }
        switch string("proxy_type").uppercased() {
        case "SOCKS4": p.kind = .socks4
        case "SOCKS5": p.kind = .socks5
        case "HTTP": p.kind = .http
        default: return p
        }
        p.host = string("proxy_ip")
        p.port = int("proxy_port")
        if bool("proxy_auth_enabled"), p.kind != .socks4 {
            p.user = string("proxy_username")
            p.password = string("proxy_password")
        }
        p.peerConnections = bool("proxy_peer_connections")
        p.hostnameLookup = bool("proxy_hostname_lookup")
        return p
    }

    /// How qbtd's own HTTP requests for `use` leave: qBittorrent sends them through an HTTP or SOCKS5 proxy (never
    /// SOCKS4) when that use is switched on; names are resolved by a SOCKS5 proxy with `proxy_hostname_lookup`.
    public func fetchRoute(for use: ProxyUse) -> FetchRoute {
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
    public func pluginProxyEnvironment() -> [String: String] {
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

    /// `HOST:PORT` to libtorrent's form; `0.0.0.0` also opens `[::]`.
    static func listenInterfaces(_ value: String) -> String {
        if value.hasPrefix("0.0.0.0:") { return value + ",[::]:" + value.dropFirst("0.0.0.0:".count) }
        return value
    }

    // MARK: the alternative-speed schedule

    /// Whether the schedule says alternative limits apply at `date` (qBittorrent's `scheduler_days`:
    /// 0 every day, 1 weekdays, 2 weekends, 3…9 Monday…Sunday).
    public func scheduleWantsAlternative(at date: Date, calendar: Calendar = .current) -> Bool? {
        guard bool("scheduler_enabled") else { return nil }
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let weekday = ((parts.weekday ?? 1) + 5) % 7  // Monday = 0 … Sunday = 6
        let day: Bool = switch int("scheduler_days") {
        case 0: true
        case 1: weekday < 5
        case 2: weekday >= 5
        case let d where (3...9).contains(d): weekday == d - 3
        default: true
        }
        guard day else { return false }
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let from = int("schedule_from_hour") * 60 + int("schedule_from_min")
        let to = int("schedule_to_hour") * 60 + int("schedule_to_min")
        return from <= to ? (now >= from && now < to) : (now >= from || now < to)  // windows may cross midnight
    }
}
