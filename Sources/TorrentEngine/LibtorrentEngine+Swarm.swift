import Foundation
import CCrypto
import CLibtorrent

/// A tracker of one torrent, with qBittorrent's status numbers.
public struct TrackerEntry: Sendable, Equatable {
    /// qBittorrent 5.x's states; 4.x has the first five (an error or an unreachable tracker is "not working").
    public enum Status: Int, Sendable { case disabled = 0, notContacted, working, updating, notWorking, trackerError, unreachable }
    public var url: String
    public var tier: Int
    public var status: Status
    public var message: String
    /// -1 when the tracker has not said.
    public var peers: Int
    public var seeds: Int
    public var leeches: Int
    public var downloaded: Int
    /// qBittorrent 5.2's: an announce under way, the next and minimum announce (seconds since 1970, 0: none), and
    /// each announce endpoint.
    public var updating = false
    public var nextAnnounce: Int64 = 0
    public var minAnnounce: Int64 = 0
    public var endpoints: [Endpoint] = []

    /// One local listen address's announces for one BitTorrent version.
    public struct Endpoint: Sendable, Equatable {
        public var name: String
        public var btVersion: Int
        public var updating: Bool
        public var status: Status
        public var message: String
        public var peers, seeds, leeches, downloaded: Int
        public var nextAnnounce, minAnnounce: Int64

        public init(name: String, btVersion: Int = 1, updating: Bool = false, status: Status = .notContacted,
                    message: String = "", peers: Int = -1, seeds: Int = -1, leeches: Int = -1, downloaded: Int = -1,
                    nextAnnounce: Int64 = 0, minAnnounce: Int64 = 0) {
            self.name = name
            self.btVersion = btVersion
            self.updating = updating
            self.status = status
            self.message = message
            (self.peers, self.seeds, self.leeches, self.downloaded) = (peers, seeds, leeches, downloaded)
            (self.nextAnnounce, self.minAnnounce) = (nextAnnounce, minAnnounce)
        }
    }

    public init(url: String, tier: Int, status: Status = .notContacted, message: String = "", peers: Int = -1,
                seeds: Int = -1, leeches: Int = -1, downloaded: Int = -1) {
        self.url = url
        self.tier = tier
        self.status = status
        self.message = message
        self.peers = peers
        self.seeds = seeds
        self.leeches = leeches
        self.downloaded = downloaded
    }
}

/// A connected peer, as `sync/torrentPeers` shows it.
public struct PeerEntry: Sendable, Equatable {
    public var ip: String
    public var port: Int
    public var client: String
    public var peerID: String
    public var connection: String
    public var flags: String
    public var flagsDescription: String
    public var files: String
    public var progress: Double
    public var relevance: Double
    public var downloadRate: Int
    public var uploadRate: Int
    public var downloaded: Int64
    public var uploaded: Int64
}

/// Session-wide counters from libtorrent's stats.
public struct SessionCounters: Sendable, Equatable {
    public var dhtNodes: Int64 = 0
    public var receivedBytes: Int64 = 0
    public var sentBytes: Int64 = 0
    public var wastedBytes: Int64 = 0
    public var queuedDiskJobs: Int64 = 0
    public var peerConnections: Int64 = 0
    /// libtorrent's disk request latency (µs) and its queued tracker announces (5.3's server_state).
    public var requestLatency: Int64 = 0
    public var queuedTrackerAnnounces: Int64 = 0
    public var listening = false
    public var hasIncoming = false

    public init(dhtNodes: Int64 = 0, receivedBytes: Int64 = 0, sentBytes: Int64 = 0, wastedBytes: Int64 = 0,
                queuedDiskJobs: Int64 = 0, peerConnections: Int64 = 0, listening: Bool = false, hasIncoming: Bool = false) {
        self.dhtNodes = dhtNodes
        self.receivedBytes = receivedBytes
        self.sentBytes = sentBytes
        self.wastedBytes = wastedBytes
        self.queuedDiskJobs = queuedDiskJobs
        self.peerConnections = peerConnections
        self.listening = listening
        self.hasIncoming = hasIncoming
    }
}

public enum PieceState: UInt8, Sendable { case missing = 0, downloading = 1, have = 2 }

public enum QueueMove: Sendable { case up, down, top, bottom }

extension LibtorrentEngine {
    // MARK: trackers and web seeds

    public func trackers(_ id: TorrentID) throws -> [TrackerEntry] {
        let sessionRaw = try live()
        let (result, items) = collect(TrackerEntry.self) { ctx in
            qbt_get_trackers(sessionRaw, id, { ctx, t in
                let t = t!.pointee
                var entry = TrackerEntry(
                    url: String(cString: t.url), tier: Int(t.tier), status: .init(rawValue: Int(t.status)) ?? .notContacted,
                    message: String(cString: t.message), peers: Int(t.num_peers), seeds: Int(t.num_seeds),
                    leeches: Int(t.num_leeches), downloaded: Int(t.num_downloaded))
                entry.updating = t.updating
                entry.nextAnnounce = t.next_announce
                entry.minAnnounce = t.min_announce
                for e in UnsafeBufferPointer(start: t.endpoints, count: Int(t.endpoint_count)) {
                    entry.endpoints.append(TrackerEntry.Endpoint(
                        name: String(cString: e.name), btVersion: Int(e.bt_version), updating: e.updating,
                        status: .init(rawValue: Int(e.status)) ?? .notContacted, message: String(cString: e.message),
                        peers: Int(e.num_peers), seeds: Int(e.num_seeds), leeches: Int(e.num_leeches),
                        downloaded: Int(e.num_downloaded), nextAnnounce: e.next_announce, minAnnounce: e.min_announce))
                }
                Collector<TrackerEntry>.from(ctx).items.append(entry)
            }, ctx)
        }
        try check(result, id)
        return items
    }

    /// Replaces the tracker list (order and tiers as given).
    public func setTrackers(_ id: TorrentID, _ trackers: [(url: String, tier: Int)]) throws {
        let sessionRaw = try live()
        var cStrings: [UnsafeMutablePointer<CChar>?] = trackers.map { strdup($0.url) }
        defer { cStrings.forEach { free($0) } }
        let tiers = trackers.map { Int32(clamping: $0.tier) }
        let result = cStrings.withUnsafeMutableBufferPointer { urls in
            tiers.withUnsafeBufferPointer { tierBuffer in
                urls.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(urls.count, 1)) { base in
                    qbt_set_trackers(sessionRaw, id, trackers.isEmpty ? nil : base, tierBuffer.baseAddress, trackers.count)
                }
            }
        }
        try check(result, id)
        touched(id)
    }

    public func reannounce(_ id: TorrentID) throws { let sessionRaw = try live(); try check(qbt_reannounce(sessionRaw, id), id) }

    public func webSeeds(_ id: TorrentID) throws -> [String] {
        let sessionRaw = try live()
        let (result, items) = collect(String.self) { ctx in
            qbt_get_web_seeds(sessionRaw, id, { ctx, s in Collector<String>.from(ctx).items.append(String(cString: s!)) }, ctx)
        }
        try check(result, id)
        return items
    }

    public func addWebSeed(_ id: TorrentID, _ url: String) throws { let sessionRaw = try live(); try check(qbt_add_web_seed(sessionRaw, id, url), id) }
    public func removeWebSeed(_ id: TorrentID, _ url: String) throws { let sessionRaw = try live(); try check(qbt_remove_web_seed(sessionRaw, id, url), id) }

    // MARK: pieces

    public func pieceStates(_ id: TorrentID) throws -> [PieceState] {
        let sessionRaw = try live()
        let (result, items) = collect([UInt8].self) { ctx in
            qbt_get_piece_states(sessionRaw, id, { ctx, data, size in
                Collector<[UInt8]>.from(ctx).items.append(Array(UnsafeBufferPointer(start: data, count: size)))
            }, ctx)
        }
        try check(result, id)
        return (items.first ?? []).map { PieceState(rawValue: $0) ?? .missing }
    }

    public func pieceAvailability(_ id: TorrentID) throws -> [Int] {
        let sessionRaw = try live()
        let (result, items) = collect([Int].self) { ctx in
            qbt_get_piece_availability(sessionRaw, id, { ctx, data, count in
                Collector<[Int]>.from(ctx).items.append(UnsafeBufferPointer(start: data, count: count).map { Int($0) })
            }, ctx)
        }
        try check(result, id)
        return items.first ?? []
    }

    public func pieceHashes(_ id: TorrentID) throws -> [String] {
        let sessionRaw = try live()
        let (result, items) = collect(String.self) { ctx in
            qbt_get_piece_hashes(sessionRaw, id, { ctx, s in Collector<String>.from(ctx).items.append(String(cString: s!)) }, ctx)
        }
        try check(result, id)
        return items
    }

    // MARK: queue, flags, storage

    public func queue(_ id: TorrentID, _ move: QueueMove) throws {
        let sessionRaw = try live()
        let m: qbt_queue_move = switch move {
        case .up: QBT_QUEUE_UP
        case .down: QBT_QUEUE_DOWN
        case .top: QBT_QUEUE_TOP
        case .bottom: QBT_QUEUE_BOTTOM
        }
        try check(qbt_queue(sessionRaw, id, m), id)
        touched(id)
    }

    public func setAutoManaged(_ id: TorrentID, _ on: Bool) throws {
        let sessionRaw = try live()
        try check(qbt_set_auto_managed(sessionRaw, id, on), id)
        touched(id)
    }

    public func setSuperSeeding(_ id: TorrentID, _ on: Bool) throws {
        let sessionRaw = try live()
        try check(qbt_set_super_seeding(sessionRaw, id, on), id)
        touched(id)
    }

    /// 0 or less means unlimited.
    public func setConnectionLimits(_ id: TorrentID, connections: Int, uploads: Int) throws {
        let sessionRaw = try live()
        try check(qbt_set_connection_limits(sessionRaw, id, Int32(clamping: connections), Int32(clamping: uploads)), id)
        touched(id)
    }

    public func setSSLCertificate(_ id: TorrentID, certificate: String, privateKey: String, dhParams: String) throws {
        let sessionRaw = try live()
        try check(qbt_set_ssl_certificate(sessionRaw, id, certificate, privateKey, dhParams), id)
    }

    /// Whether OpenSSL reads the PEM text as a certificate / as a private key.
    public static func isCertificate(_ pem: String) -> Bool { qbt_pem_certificate_valid(pem) }
    public static func isPrivateKey(_ pem: String) -> Bool { qbt_pem_private_key_valid(pem) }

    /// Renames one file (path relative to the save path); `fileRenamed` or `fileRenameFailed` follows.
    public func renameFile(_ id: TorrentID, index: Int, to path: String) throws {
        let sessionRaw = try live()
        try check(qbt_rename_file(sessionRaw, id, Int32(clamping: index), path), id)
    }

    /// Moves the torrent's data; `storageMoved` or `storageMoveFailed` follows.
    public func moveStorage(_ id: TorrentID, to path: String) throws {
        let sessionRaw = try live()
        try check(qbt_move_storage(sessionRaw, id, path), id)
        touched(id)
    }

    // MARK: peers and the session

    public func peers(_ id: TorrentID) throws -> [PeerEntry] {
        let sessionRaw = try live()
        let (result, items) = collect(PeerEntry.self) { ctx in
            qbt_get_peers(sessionRaw, id, { ctx, p in
                let p = p!.pointee
                Collector<PeerEntry>.from(ctx).items.append(PeerEntry(
                    ip: String(cString: p.ip), port: Int(p.port), client: String(cString: p.client),
                    peerID: String(cString: p.peer_id), connection: String(cString: p.connection),
                    flags: String(cString: p.flags), flagsDescription: String(cString: p.flags_desc),
                    files: String(cString: p.files), progress: Double(p.progress), relevance: Double(p.relevance),
                    downloadRate: Int(p.download_rate), uploadRate: Int(p.upload_rate), downloaded: p.downloaded,
                    uploaded: p.uploaded))
            }, ctx)
        }
        try check(result, id)
        return items
    }

    /// Blocks an IP address for every torrent; false if it is not an address.
    public func ban(ip: String) -> Bool { closed ? false : qbt_ban_ip(sessionRaw, ip) }

    /// See `qbt_forget_pieces`: libtorrent (patched, contrib/libtorrent) forgets them in place.
    public func forgetPieces(_ id: TorrentID, _ pieces: [Int]) throws -> [Int] {
        let sessionRaw = try live()
        let list = pieces.map { Int32(clamping: $0) }
        let (result, items) = collect([Int].self) { ctx in
            list.withUnsafeBufferPointer { asked in
                qbt_forget_pieces(sessionRaw, id, asked.baseAddress, asked.count, { ctx, data, count in
                    Collector<[Int]>.from(ctx).items.append(UnsafeBufferPointer(start: data, count: count).map { Int($0) })
                }, ctx)
            }
        }
        try check(result, id)
        touched(id)
        let forgotten = items.first ?? []
        yieldAfterPending(.piecesForgotten(id, pieces: forgotten))
        return forgotten
    }

    public func setStreaming(_ id: TorrentID, _ on: Bool) throws {
        let sessionRaw = try live()
        try check(qbt_set_streaming(sessionRaw, id, on), id)
    }

    /// Frees a file's blocks in a range, keeping its size (the data reads back as zeros).
    public nonisolated static func punchHole(_ path: String, offset: Int64, length: Int64) -> Bool {
        qbt_punch_hole(path, offset, length)
    }

    public func resetPeers() { if !closed { qbt_reset_peers_all(sessionRaw) } }

    public func setSessionPaused(_ paused: Bool) { if !closed { qbt_set_session_paused(sessionRaw, paused) } }

    public func setIPFilter(_ rules: IPFilterRules) {
        guard !closed else { return }
        let v4 = rules.v4.flatMap { [$0.lowerBound, $0.upperBound] }
        let v6 = rules.v6.flatMap { $0.lowerBound.networkBytes + $0.upperBound.networkBytes }
        _ = v4.withUnsafeBufferPointer { a in
            v6.withUnsafeBufferPointer { b in qbt_set_ip_filter(sessionRaw, a.baseAddress, rules.v4.count, b.baseAddress, rules.v6.count) }
        }
    }

    /// Asks libtorrent for fresh counters and the statuses that changed; they arrive with the next drain.
    func postUpdates() {
        guard !closed else { return }
        qbt_post_session_stats(sessionRaw)
        qbt_post_torrent_updates(sessionRaw)
        lastPost = .now
    }

    /// The counters the last session-stats alert brought.
    func readCounters() -> SessionCounters {
        guard !closed else { return SessionCounters() }
        var c = qbt_session_counters()
        qbt_get_session_counters(sessionRaw, &c)
        var counters = SessionCounters(dhtNodes: c.dht_nodes, receivedBytes: c.recv_bytes, sentBytes: c.sent_bytes,
                               wastedBytes: c.wasted_bytes, queuedDiskJobs: c.queued_disk_jobs,
                               peerConnections: c.peer_connections, listening: c.listening, hasIncoming: c.has_incoming)
        counters.requestLatency = c.request_latency
        counters.queuedTrackerAnnounces = c.queued_tracker_announces
        return counters
    }
}

extension PeerEntry {
    /// A peer just connected over TCP, nothing known of it yet (the in-memory engine's).
    package init(connectedTo ip: String, port: Int) {
        self.init(ip: ip, port: port, client: "", peerID: "", connection: "BT", flags: "", flagsDescription: "", files: "",
                  progress: 0, relevance: 0, downloadRate: 0, uploadRate: 0, downloaded: 0, uploaded: 0)
    }
}
