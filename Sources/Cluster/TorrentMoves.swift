import Foundation
import Logging
import QBTCore
import Store
import TorrentEngine

/// Torrents moving between nodes (`qbtd/moveToNode`), carried by BitTorrent itself: a libtorrent session of its own
/// on each node taking part (the move session, made when first needed, listening on the address the catalogue sees
/// the node at, without DHT, trackers, PeX or LSD, so the target fetches from the source only). The source serves the
/// torrent's files there while it keeps running it; the target fetches every piece, each verified by its hash; then,
/// in one transaction, the torrent becomes the target's (`TorrentMoveRegistry.completeMove`) and the target runs it
/// with the source's fast-resume data (share history, no recheck), after which the source lets go of it. The move's
/// row in the catalogue outlives either node's restart: the source serves again, the target resumes from the pieces
/// it has. Listings show the torrent once throughout: the source's until the switch, the target's after.
public actor TorrentMoves {
    /// How often the moves under way are looked at without a wake (the target's progress, a lost peer).
    public static let lookEvery: Duration = .seconds(2)
    /// The file a target leaves in the folder it fetched into until the source let go, so that a source sharing that
    /// folder (a NAS) never deletes what the target now runs.
    static func marker(_ id: TorrentID) -> String { ".qbtd-moved-\(id)" }

    let registry: any TorrentMoveRegistry
    let store: any Store
    public nonisolated let service: TorrentService
    let node: String
    let defaultSavePath: String
    let rateLimit: Int
    let membership: NodeMembership
    let views: TorrentViewsSync
    let logger: Logger
    private var session: LibtorrentEngine?
    private var sessionFailed = false
    private enum Copy { case serving, fetching(savePath: String) }
    private var copies: [TorrentID: Copy] = [:]
    /// Markers this node left, by torrent, until the move is forgotten.
    private var markers: [TorrentID: String] = [:]
    private var looking = false, again = false

    /// `defaultSavePath`: this node's (a torrent under the source's goes under it). `rateLimit`: bytes per second the
    /// move session may fetch (0: unlimited).
    public init(registry: any TorrentMoveRegistry, store: any Store, service: TorrentService, node: String,
                defaultSavePath: String, rateLimit: Int, membership: NodeMembership, views: TorrentViewsSync,
                logger: Logger) {
        self.registry = registry
        self.store = store
        self.service = service
        self.node = node
        self.defaultSavePath = defaultSavePath
        self.rateLimit = rateLimit
        self.membership = membership
        self.views = views
        self.logger = logger
    }

    /// What `qbtd/moveToNode` started, and what it left alone and why.
    public struct Order: Sendable {
        public var moving: [TorrentID] = []
        public var skipped: [(id: TorrentID, reason: String)] = []
    }

    /// A client's move: checked whole (the target a node that is up, every named torrent whole), then started; nothing
    /// is started when a check fails.
    public func order(_ ids: [TorrentID], to target: String, deleteFiles: Bool) async throws -> Order {
        await views.catchUpNow()  // a torrent another node added a moment ago
        guard let state = await membership.stateNow(of: target) else { throw ClusterError.unknownNode(target) }
        guard state == .up else { throw ClusterError.targetDown(target, state: state.rawValue) }
        let candidates = await service.moveCandidates(ids)
        let partial = candidates.filter { !$0.complete && ($0.node ?? node) != target }
        guard partial.isEmpty else { throw ClusterError.notWhole(partial.map(\.name)) }
        var order = Order()
        let known = Set(candidates.map(\.id))
        for id in ids where !known.contains(id) { order.skipped.append((id, "no such torrent")) }
        for c in candidates where (c.node ?? node) == target { order.skipped.append((c.id, "already on node \(target)")) }
        let movable = candidates.filter { ($0.node ?? node) != target }.map(\.id)
        order.moving = try await start(movable, to: target, deleteFiles: deleteFiles)
        let started = Set(order.moving)
        for id in movable where !started.contains(id) { order.skipped.append((id, "moving already")) }
        return order
    }

    /// Every move under way in the cluster, for `qbtd/moves`.
    public func all() async throws -> [TorrentMove] { try await registry.allMoves() }

    /// Starts moving these torrents to `target` (the caller checked them): the nodes are woken.
    private func start(_ ids: [TorrentID], to target: String, deleteFiles: Bool) async throws -> [TorrentID] {
        let started = try await registry.startMoves(ids, to: target, deleteFiles: deleteFiles)
        Task { await look() }
        return started
    }

    /// Brings this node's part in every move up to date: serves, fetches, switches, lets go. One look at a time; a
    /// wake meanwhile makes one more.
    public func look() async {
        guard !looking else { again = true; return }
        looking = true
        defer { looking = false }
        for _ in 0..<10 {  // bounded: wakes come only while moves change
            again = false
            await lookOnce()
            if !again { return }
        }
    }

    private func lookOnce() async {
        let moves: [TorrentMove]
        do { moves = try await registry.ownMoves() } catch {
            logger.warning("node \(node) could not read its moves (again in \(Self.lookEvery)): \(error)")
            return
        }
        let open = Set(moves.filter { !$0.done }.map(\.id))
        for (id, copy) in copies where !open.contains(id) { await drop(id, copy) }
        for (id, folder) in markers where !moves.contains(where: { $0.id == id }) {
            try? FileManager.default.removeItem(atPath: folder + "/" + Self.marker(id))
            markers[id] = nil
        }
        var progress: [String: Double] = [:]
        for move in moves {
            do {
                if move.done {
                    if move.source == node { try await letGo(move) }
                } else if move.source == node {
                    try await serve(move)
                } else if move.target == node, let value = try await fetch(move) {
                    progress[move.id] = value
                }
            } catch {
                logger.warning("node \(node): the move of \(move.id) from \(move.source) to \(move.target) waits (again in \(Self.lookEvery)): \(error)")
            }
        }
        do { try await registry.noteMoveProgress(progress) } catch {
            logger.debug("node \(node) could not note its moves' progress: \(error)")
        }
    }

    /// The source: the torrent's files served in the move session while the service keeps running it.
    private func serve(_ move: TorrentMove) async throws {
        guard copies[move.id] == nil else { return }
        guard let source = try await service.moveSource(move.id) else { return }
        // Whole (the move's condition): served without a check, each piece verified as it is first read.
        var request = AddTorrentRequest(source: .metainfo(source.metainfo), savePath: source.savePath)
        request.skipChecking = true
        try await add(request, move.id)
        copies[move.id] = .serving
        logger.info("node \(node) serves \(move.id) to node \(move.target) (moving it there)")
    }

    /// The target: every piece fetched from the source into this node's folder; the torrent switched here once whole.
    /// Returns how much of it is here.
    private func fetch(_ move: TorrentMove) async throws -> Double? {
        let session = try await moveSession()
        if copies[move.id] == nil {
            guard let stored = try await store.torrent(move.id), let metainfo = stored.record.metainfo else { return nil }
            let sourceDefault = try await membership.nodes().first { $0.record.name == move.source }?.record.savePath
            let folder = Self.mapped(stored.record.savePath, from: sourceDefault, to: defaultSavePath)
            try await add(AddTorrentRequest(source: .metainfo(Array(metainfo)), savePath: folder), move.id)
            copies[move.id] = .fetching(savePath: folder)
            logger.info("node \(node) fetches \(move.id) from node \(move.source) into \(folder)")
        }
        await session.freshen()  // its statuses are published each second only while someone reads them
        guard case .fetching(let folder) = copies[move.id], let status = try? session.status(move.id) else { return nil }
        if status.hasMetadata, status.progress >= 1, status.state == .seeding || status.state == .finished {
            try await complete(move, folder)
            return nil
        }
        if status.state == .checkingFiles || status.state == .checkingResumeData { return nil }  // what it holds is not known yet
        if status.numConnections == 0, let (host, port) = Self.hostPort(move.sourcePeer) {
            try? await session.connectPeer(move.id, host: host, port: port)
        }
        return status.progress
    }

    /// Every piece is here: the torrent is this node's from now on, run by its service.
    private func complete(_ move: TorrentMove, _ folder: String) async throws {
        let marker = folder + "/" + Self.marker(move.id)
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        guard try await registry.completeMove(move.id, from: move.source, savePath: folder) else {
            try? FileManager.default.removeItem(atPath: marker)
            return  // no longer the source's: dropped at the next look
        }
        markers[move.id] = folder
        copies[move.id] = nil
        try? await session?.remove(move.id, deleteFiles: false)
        do { try await service.adopt(move.id) } catch {
            logger.error("node \(node) now owns \(move.id) but could not start it (it starts at the next restart): \(error)")
        }
        await views.publish()  // the others list it as this node's now; the source lets go once it sees that
        logger.info("node \(node) runs \(move.id), moved from node \(move.source)")
    }

    /// The source, once the target runs the torrent: the move session's copy and the service's torrent let go of
    /// (its files deleted when asked, unless the target's marker shows the folder is shared), the move forgotten.
    private func letGo(_ move: TorrentMove) async throws {
        // Not before this node lists the torrent as the target's: it would vanish from this node's listings meanwhile.
        await views.catchUpNow()
        guard await service.remoteOwner(move.id) == move.target else { return }
        if copies[move.id] != nil {
            copies[move.id] = nil
            try? await session?.remove(move.id, deleteFiles: false)
        }
        var deleteFiles = move.deleteFiles
        if deleteFiles, let folder = await service.moveFolder(move.id),
           FileManager.default.fileExists(atPath: folder + "/" + Self.marker(move.id)) {
            deleteFiles = false
            logger.info("node \(node) keeps the files of \(move.id): node \(move.target) runs it from the same folder")
        }
        await service.release(move.id, deleteFiles: deleteFiles)
        try await registry.forgetMove(move.id)
    }

    /// A copy whose move is gone (the torrent deleted, or the move switched): out of the move session. A target's
    /// partial files stay (the folder may be the source's too).
    private func drop(_ id: TorrentID, _ copy: Copy) async {
        copies[id] = nil
        try? await session?.remove(id, deleteFiles: false)
        if case .fetching(let folder) = copy {
            logger.info("node \(node) stopped fetching \(id): its move ended elsewhere; what it fetched stays in \(folder)")
        }
    }

    /// Adds to the move session without a tracker, then starts it (so it never announces).
    private func add(_ request: AddTorrentRequest, _ id: TorrentID) async throws {
        let session = try await moveSession()
        var request = request
        request.stopped = true
        _ = try await session.add(request)
        try await session.setTrackers(id, [])
        try await session.resume(id)
    }

    /// A folder under the source's default save path goes under this node's; any other stays as it is.
    static func mapped(_ folder: String, from sourceDefault: String?, to targetDefault: String) -> String {
        guard let sourceDefault, !sourceDefault.isEmpty else { return folder }
        let trimmed = { (path: String) in path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path }
        let (folder, source, target) = (trimmed(folder), trimmed(sourceDefault), trimmed(targetDefault))
        if folder == source { return target }
        let prefix = source == "/" ? "/" : source + "/"
        guard folder.hasPrefix(prefix) else { return folder }
        return (target == "/" ? "/" : target + "/") + folder.dropFirst(prefix.count)
    }

    static func hostPort(_ peer: String) -> (String, Int)? {
        guard let colon = peer.lastIndex(of: ":"), let port = Int(peer[peer.index(after: colon)...]), port > 0 else { return nil }
        var host = String(peer[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// How long the move session keeps a peer that says nothing.
    static let silentPeer: Duration = .seconds(15)

    /// The move session, made at the first move this node takes part in.
    private func moveSession() async throws -> LibtorrentEngine {
        if let session { return session }
        let address = try await registry.clusterAddress()
        var settings = EngineSettings()
        settings.listenInterfaces = (address.contains(":") ? "[\(address)]" : address) + ":0"
        (settings.dht, settings.lsd, settings.pex, settings.upnp, settings.natpmp) = (false, false, false, false, false)
        settings.downloadRateLimit = rateLimit
        // The other end is a node of the cluster: a connection to it silent for this long went through a partition
        // (its packets dropped without a word), and `fetch` calls again once it is dropped.
        settings.peerTimeout = Int(Self.silentPeer.components.seconds)
        // And called again at once when `fetch` asks: libtorrent would wait a minute per failed call (a cut's).
        settings.minReconnectTime = 1
        let engine = try LibtorrentEngine(settings: settings, resumeInterval: .seconds(3600),
                                          logger: logger, onResumeData: { _ in })
        session = engine
        Task { await follow(engine) }
        return engine
    }

    /// The move session's events: where it listens (told to the others), and a copy whose pieces are all here.
    private func follow(_ engine: LibtorrentEngine) async {
        let events = await engine.events()
        await publishPeer(await engine.listenPort)  // bound before the stream was there
        for await event in events {
            switch event {
            case .listening(let port): await publishPeer(port)
            case .finished: await look()
            default: break
            }
        }
    }

    private func publishPeer(_ port: Int) async {
        guard port > 0 else { return }
        for _ in 0..<30 {  // bounded: the node's first heartbeat writes its row
            if (try? await registry.publishMovePeer(port: port)) == true { return }
            try? await Task.sleep(for: .seconds(1))
        }
        logger.warning("node \(node) could not tell the others where its move session listens (port \(port))")
    }

    /// Every moment a move may have changed elsewhere: woken by the others, until cancelled.
    public func followOthers() async {
        for await _ in registry.moveChanges() { await look() }
    }

    /// The move session closed with qbtd.
    public func close() async {
        await session?.shutdown(timeout: .seconds(5))
        session = nil
    }
}
