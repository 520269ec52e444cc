import Foundation
import TorrentEngine

/// A `TorrentEngine` that keeps torrents in memory: no session, no swarm, no disk. Commands change the statuses
/// it publishes and raise the events libtorrent would; tests drive the rest (`finishPiece`, `update`, `setFiles`)
/// and read back what was asked of it (`piecePriorities`, `deadlines`).
public actor MemoryEngine: TorrentEngine {
    private let publisher = SnapshotPublisher()
    public nonisolated var snapshot: EngineSnapshot { publisher.snapshot }
    private let hub = EventHub()
    private var closed = false

    public private(set) var settings = EngineSettings()
    public private(set) var files: [TorrentID: [TorrentFile]] = [:]
    public private(set) var have: [TorrentID: Set<Int>] = [:]
    public private(set) var piecePriorities: [TorrentID: [Int: Int]] = [:]
    public private(set) var deadlines: [TorrentID: [Int: Int]] = [:]
    /// Calls that set deadlines (one per `setPieceDeadlines`), and calls that ask which
    /// pieces a torrent has (`havePiece`, `pieceStates`).
    public private(set) var deadlineCalls = 0
    public private(set) var havePieceCalls = 0
    public private(set) var pieceStatesCalls = 0
    /// Each torrent's piece priorities as they were when `pieceStates` was first asked of it: what had been asked for
    /// before that trip.
    public private(set) var prioritiesAtFirstPieceStates: [TorrentID: [Int: Int]] = [:]
    public private(set) var trackerLists: [TorrentID: [TrackerEntry]] = [:]
    public private(set) var webSeedLists: [TorrentID: [String]] = [:]
    public private(set) var connectedPeers: [TorrentID: [PeerEntry]] = [:]
    public private(set) var banned: Set<String> = []
    /// The last filter `setIPFilter` set.
    public private(set) var filter = IPFilterRules()
    public private(set) var resumeRequests = 0
    public nonisolated let listenPort = 6881

    public init() {}

    public func events() -> AsyncStream<EngineEvent> { hub.subscribe() }

    /// Every change publishes at once here: the snapshot is always fresh.
    public func freshen() async {}
    public nonisolated func noteDemand() {}

    private func emit(_ event: EngineEvent) { hub.yield([event]) }

    public func apply(_ settings: EngineSettings) throws { self.settings = settings }

    // MARK: test controls

    /// Raises an event as the session would (a tracker's answer, a file completing…).
    public func post(_ event: EngineEvent) { emit(event) }

    /// Events raised for each added torrent before its add answers (libtorrent can check a torrent, or find it
    /// finished, in the same breath), the answer held back `pause` so subscribers see them first.
    public func raiseWhileAdding(pause: Duration = .milliseconds(100), _ events: @escaping @Sendable (TorrentID) -> [EngineEvent]) {
        eventsWhileAdding = (events, pause)
    }
    private var eventsWhileAdding: (@Sendable (TorrentID) -> [EngineEvent], Duration)?

    /// Events raised for each added torrent just before its `added` (left over from an earlier torrent with the
    /// same id, as a removed one's or a hidden metadata fetch's can be).
    public func raiseBeforeAdded(_ events: @escaping @Sendable (TorrentID) -> [EngineEvent]) { eventsBeforeAdded = events }
    private var eventsBeforeAdded: (@Sendable (TorrentID) -> [EngineEvent])?

    /// Changes a torrent's status and publishes it.
    public func update(_ id: TorrentID, _ change: (inout TorrentStatus) -> Void) throws {
        var status = try current(id)
        change(&status)
        publisher.publish([status])
    }

    /// Gives a torrent files and a piece length (as metadata would).
    public func setFiles(_ id: TorrentID, pieceLength: Int, sizes: [(path: String, size: Int64)]) throws {
        var offset: Int64 = 0
        var list: [TorrentFile] = []
        for (index, file) in sizes.enumerated() {
            let first = Int(offset / Int64(pieceLength))
            let last = Int(max(offset, offset + file.size - 1) / Int64(pieceLength))
            list.append(TorrentFile(index: index, diskPath: file.path, size: file.size, offset: offset, downloaded: 0,
                                    priority: 4, pieceRange: first...last))
            offset += file.size
        }
        files[id] = list
        let pieces = Int((offset + Int64(pieceLength) - 1) / Int64(pieceLength))
        try update(id) {
            $0.hasMetadata = true
            $0.pieceLength = pieceLength
            $0.numPieces = pieces
            $0.totalSize = offset
            $0.totalWanted = offset
        }
    }

    /// Marks a piece as downloaded and verified, as libtorrent's piece-finished alert does.
    public func finishPiece(_ id: TorrentID, _ piece: Int) throws {
        let status = try current(id)
        have[id, default: []].insert(piece)
        let count = have[id]!.count
        try update(id) {
            $0.piecesHave = count
            $0.progress = status.numPieces > 0 ? Double(count) / Double(status.numPieces) : 0
            $0.totalWantedDone = min($0.totalWanted, Int64(count) * Int64(max(1, $0.pieceLength)))
        }
        emit(.pieceFinished(id, piece: piece))
        if status.numPieces > 0 && count == status.numPieces {
            try update(id) { $0.isFinished = true; $0.state = .seeding; $0.progress = 1 }
            emit(.finished(id))
        }
    }

    private func current(_ id: TorrentID) throws -> TorrentStatus {
        guard !closed else { throw EngineError.failed("the torrent engine has shut down") }
        guard let status = snapshot.status(id) else { throw EngineError.notFound(id) }
        return status
    }

    // MARK: adding and removing

    public func add(_ requests: [AddTorrentRequest]) async -> [Result<AddedTorrent, EngineError>] {
        let results = requests.map { request -> Result<AddedTorrent, EngineError> in
            do {
                let parsed = try request.parsed ?? ParsedTorrent(request.source)
                guard snapshot.status(parsed.id) == nil else { return .failure(.duplicate(parsed.id)) }
                var status = TorrentStatus(id: parsed.id, name: parsed.name, savePath: request.savePath)
                if case .metainfo = request.source { status.hasMetadata = true }
                status.paused = request.stopped
                status.autoManaged = request.autoManaged && !request.stopped
                status.sequential = request.sequential
                status.superSeeding = request.superSeeding
                status.state = status.hasMetadata ? .downloading : .downloadingMetadata
                status.addedTime = Int64(Date().timeIntervalSince1970)
                publisher.publish([status])
                if let stale = eventsBeforeAdded { hub.yield(stale(parsed.id)) }
                emit(.added(parsed.id))
                return .success(AddedTorrent(id: parsed.id))
            } catch {
                return .failure(error as? EngineError ?? .failed("\(error)"))
            }
        }
        guard let (raise, pause) = eventsWhileAdding else { return results }
        for case .success(let added) in results { hub.yield(raise(added.id)) }
        try? await Task.sleep(for: pause)
        return results
    }

    public func remove(_ id: TorrentID, deleteFiles: Bool) throws {
        _ = try current(id)
        publisher.publish([], removed: [id])
        files[id] = nil; have[id] = nil; piecePriorities[id] = nil; deadlines[id] = nil
        emit(.removed(id))
        if deleteFiles { emit(.filesDeleted(id)) }
    }

    // MARK: control

    public func pause(_ id: TorrentID) throws {
        try update(id) { $0.paused = true; $0.autoManaged = false; $0.downloadRate = 0; $0.uploadRate = 0 }
        emit(.paused(id))
    }

    public func resume(_ id: TorrentID) throws {
        try update(id) { $0.paused = false }
        emit(.resumed(id))
    }

    public func recheck(_ id: TorrentID) throws {
        try update(id) { $0.state = .checkingFiles }
        emit(.stateChanged(id, .checkingFiles))
    }

    /// The metadata handed to torrents that had none (`setMetadata`), by torrent.
    public private(set) var metadataGiven: [TorrentID: [UInt8]] = [:]

    public func setMetadata(_ id: TorrentID, torrentFile: [UInt8]) throws {
        guard try !current(id).hasMetadata else { return }
        metadataGiven[id] = torrentFile
        try update(id) { $0.hasMetadata = true }
        emit(.metadataReceived(id))
    }

    public func setSequential(_ id: TorrentID, _ on: Bool) throws { try update(id) { $0.sequential = on } }
    public func setLimits(_ id: TorrentID, upload: Int, download: Int) throws { _ = try current(id) }

    public func connectPeer(_ id: TorrentID, host: String, port: Int) throws {
        _ = try current(id)
        guard (1...65535).contains(port) else { throw EngineError.invalidArgument("bad port \(port)") }
        connectedPeers[id, default: []].append(PeerEntry(connectedTo: host, port: port))
        try update(id) { $0.numPeers += 1; $0.numConnections += 1 }
    }

    public func queue(_ id: TorrentID, _ move: QueueMove) throws { _ = try current(id) }
    public func setAutoManaged(_ id: TorrentID, _ on: Bool) throws { try update(id) { $0.autoManaged = on } }
    public func setSuperSeeding(_ id: TorrentID, _ on: Bool) throws { try update(id) { $0.superSeeding = on } }
    public func setConnectionLimits(_ id: TorrentID, connections: Int, uploads: Int) throws {
        try update(id) { $0.connectionsLimit = connections }
    }
    public func setSSLCertificate(_ id: TorrentID, certificate: String, privateKey: String, dhParams: String) throws {
        _ = try current(id)
    }

    public func renameFile(_ id: TorrentID, index: Int, to path: String) throws {
        _ = try current(id)
        guard files[id]?.indices.contains(index) == true else { throw EngineError.invalidArgument("no file \(index)") }
        files[id]![index].diskPath = path
        files[id]![index].path = TorrentFile.withoutIncompleteSuffix(path)
        emit(.fileRenamed(id, file: index, path: path))
    }

    public func moveStorage(_ id: TorrentID, to path: String) throws {
        try update(id) { $0.savePath = path }
        emit(.storageMoved(id))
    }

    // MARK: pieces

    public func setPieceDeadlines(_ id: TorrentID, _ list: [(piece: Int, milliseconds: Int)], clearingOthers: Bool) throws {
        _ = try current(id)
        deadlineCalls += 1
        if clearingOthers { deadlines[id] = [:] }
        for (piece, milliseconds) in list { deadlines[id, default: [:]][piece] = milliseconds }
    }

    public func setPiecePriority(_ id: TorrentID, piece: Int, priority: Int) throws {
        _ = try current(id)
        piecePriorities[id, default: [:]][piece] = priority
    }

    public func setPiecesPriority(_ id: TorrentID, pieces: Range<Int>, priority: Int) throws {
        _ = try current(id)
        for piece in pieces { piecePriorities[id, default: [:]][piece] = priority }
    }

    public func setFilePriority(_ id: TorrentID, file: Int, priority: Int) throws {
        _ = try current(id)
        guard files[id]?.indices.contains(file) == true else { return }
        files[id]![file].priority = priority
    }

    public func havePiece(_ id: TorrentID, piece: Int) throws -> Bool {
        _ = try current(id)
        havePieceCalls += 1
        return have[id]?.contains(piece) == true
    }

    public func readPiece(_ id: TorrentID, piece: Int) async throws -> [UInt8] {
        let status = try current(id)
        guard have[id]?.contains(piece) == true else { throw EngineError.failed("piece \(piece) is missing") }
        return [UInt8](repeating: 0, count: status.pieceLength)
    }

    public func pieceAvailability(_ id: TorrentID) throws -> [Int] {
        _ = try current(id)
        return []
    }

    public func pieceStates(_ id: TorrentID) throws -> [PieceState] {
        let status = try current(id)
        pieceStatesCalls += 1
        if prioritiesAtFirstPieceStates[id] == nil { prioritiesAtFirstPieceStates[id] = piecePriorities[id] ?? [:] }
        return (0..<status.numPieces).map { have[id]?.contains($0) == true ? .have : .missing }
    }

    public func pieceHashes(_ id: TorrentID) throws -> [String] {
        let status = try current(id)
        return Array(repeating: String(repeating: "0", count: 40), count: status.numPieces)
    }

    public func forgetPieces(_ id: TorrentID, _ pieces: [Int]) throws -> [Int] {
        _ = try current(id)
        let forgotten = pieces.filter { have[id]?.contains($0) == true }
        have[id]?.subtract(forgotten)
        let count = have[id]?.count ?? 0
        try update(id) { $0.piecesHave = count; $0.isFinished = false }
        emit(.piecesForgotten(id, pieces: forgotten))
        return forgotten
    }

    // MARK: on demand

    public func files(_ id: TorrentID) throws -> [TorrentFile] {
        _ = try current(id)
        return files[id] ?? []
    }

    public func exportTorrent(_ id: TorrentID) throws -> [UInt8] {
        guard try current(id).hasMetadata else { throw EngineError.invalidArgument("torrent \(id) has no metadata yet") }
        return []
    }

    public func trackers(_ id: TorrentID) throws -> [TrackerEntry] {
        _ = try current(id)
        return trackerLists[id] ?? []
    }

    public func setTrackers(_ id: TorrentID, _ trackers: [(url: String, tier: Int)]) throws {
        _ = try current(id)
        trackerLists[id] = trackers.map { TrackerEntry(url: $0.url, tier: $0.tier) }
    }

    public func reannounce(_ id: TorrentID) throws { _ = try current(id) }

    public func webSeeds(_ id: TorrentID) throws -> [String] {
        _ = try current(id)
        return webSeedLists[id] ?? []
    }

    public func addWebSeed(_ id: TorrentID, _ url: String) throws {
        _ = try current(id)
        if webSeedLists[id]?.contains(url) != true { webSeedLists[id, default: []].append(url) }
    }

    public func removeWebSeed(_ id: TorrentID, _ url: String) throws {
        _ = try current(id)
        webSeedLists[id]?.removeAll { $0 == url }
    }

    public func peers(_ id: TorrentID) throws -> [PeerEntry] {
        _ = try current(id)
        return connectedPeers[id] ?? []
    }

    public func ban(ip: String) -> Bool {
        guard IPv4Address(ip) != nil || ip.contains(":") else { return false }
        banned.insert(ip)
        return true
    }

    /// The torrents set streaming.
    public private(set) var streaming: Set<TorrentID> = []
    public func setStreaming(_ id: TorrentID, _ on: Bool) throws {
        _ = try current(id)
        if on { streaming.insert(id) } else { streaming.remove(id) }
    }

    public private(set) var peerResets = 0
    public func resetPeers() { peerResets += 1 }

    public private(set) var sessionPaused = false
    public func setSessionPaused(_ paused: Bool) { sessionPaused = paused }

    public func setIPFilter(_ rules: IPFilterRules) {
        filter = rules
        banned = []
    }

    public func saveResumeData(onlyIfModified: Bool) { resumeRequests += 1 }
    public func saveResumeData(_ id: TorrentID) throws { _ = try current(id); resumeRequests += 1 }

    public func shutdown(timeout: Duration) async {
        closed = true
        publisher.clear()
        hub.finish()
    }
}

/// Enough of an IPv4 parser for `ban`'s validity check.
private struct IPv4Address {
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return nil }
    }
}
