import Store
import TorrentEngine

/// The session as a whole: speed limits, the alternative speeds, transfer figures, the test mail: the facade the HTTP
/// layer calls.
public struct SessionControls: Sendable {
    let service: TorrentService

    /// Switches between the normal and the alternative global limits.
    public func setAlternativeSpeed(_ on: Bool) async throws { try await service.setAlternativeSpeed(on) }

    /// Sets the global limit of the mode in use (bytes/s, ≤0 = unlimited), as `transfer/set*Limit` does.
    public func setGlobalLimit(download: Int? = nil, upload: Int? = nil) async throws {
        try await service.setGlobalLimit(download: download, upload: upload)
    }

    /// In a cluster: this node's share of the global limits (`ClusterLimits`).
    public func setClusterLimits(_ shares: NodeLimits) async { await service.setClusterLimits(shares) }

    /// The current global limits in bytes/s (0 = unlimited).
    public func globalLimits() -> (download: Int, upload: Int) { service.globalLimits() }

    /// The normal and the alternative global limits, whichever mode is on (bytes/s, 0 = unlimited).
    public struct SpeedLimits: Sendable, Equatable {
        public var upload, download, alternativeUpload, alternativeDownload: Int
        public init(upload: Int, download: Int, alternativeUpload: Int, alternativeDownload: Int) {
            (self.upload, self.download, self.alternativeUpload, self.alternativeDownload) =
                (upload, download, alternativeUpload, alternativeDownload)
        }
    }

    public func speedLimits() -> SpeedLimits {
        let s = service.settings
        return SpeedLimits(upload: s[\.upLimit], download: s[\.dlLimit], alternativeUpload: s[\.altUpLimit],
                           alternativeDownload: s[\.altDLLimit])
    }

    /// `transfer/setSpeedLimits` (5.3): all four at once. As qBittorrent keeps them: whole KiB/s, rounded down, at
    /// least 1 KiB/s when set; 0 or less is unlimited (checked against the real 5.3.0).
    public func setSpeedLimits(_ limits: SpeedLimits) async throws {
        func kept(_ limit: Int) -> Int { limit > 0 ? max(1, limit / 1024) * 1024 : 0 }
        var changes: [String: JSONValue] = [:]
        changes[\.upLimit] = kept(limits.upload)
        changes[\.dlLimit] = kept(limits.download)
        changes[\.altUpLimit] = kept(limits.alternativeUpload)
        changes[\.altDLLimit] = kept(limits.alternativeDownload)
        try await service.settings.update(changes)
    }

    /// The port libtorrent listens on now (0 while it listens on none).
    public var listenPort: Int { get async { await service.engine.listenPort } }

    /// This node's own rates and totals (its heartbeat, its `/metrics`).
    public func transfer() async -> Transfer { await service.transfer() }

    /// What `transfer/info` and `server_state` show: in a cluster, the rates and session totals of every node's
    /// torrents and every node's all-time totals (one qBittorrent); this node's alone otherwise.
    public func clusterTransfer() async -> Transfer { await service.clusterTransfer() }

    /// 5.3's `transfer/pauseSession` and `resumeSession`: all transfers held or let go, torrents' states kept.
    public func setPaused(_ paused: Bool) async { await service.setSessionPaused(paused) }
    public var isPaused: Bool { get async { await service.sessionPaused } }

    /// `app/sendTestEmail`: only while notifications are on, as in qBittorrent.
    public func sendTestMail() async { await service.sendTestMail() }
}

extension SessionControls {
    /// What `transfer/info` and `sync/maindata`'s `server_state` show.
    public struct Transfer: Sendable {
        public var downloadSpeed = 0, uploadSpeed = 0
        public var downloadedSession: Int64 = 0, uploadedSession: Int64 = 0
        public var downloadedAllTime: Int64 = 0, uploadedAllTime: Int64 = 0
        public var downloadLimit = 0, uploadLimit = 0
        public var counters = SessionCounters()
        /// qBittorrent's: connected (peers reached us), firewalled (listening only), disconnected.
        public var connectionStatus = "disconnected"
    }
}

extension TorrentService {
    public nonisolated var session: SessionControls { SessionControls(service: self) }
}
