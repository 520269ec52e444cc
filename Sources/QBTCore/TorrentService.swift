import Foundation
import Logging
import Store
import TorrentEngine

/// Keeps the engine and the store in step: what the store holds is what the engine runs, after any restart.
/// Writes reach SQLite before the engine is told, so an acknowledged change survives a crash.
public actor TorrentService {
    public nonisolated let engine: TorrentEngine
    public nonisolated let store: Store
    public nonisolated let paths: ServerPaths
    private let logger: Logger
    private var torrents: [TorrentID: StoredTorrent] = [:]
    private var eventTask: Task<Void, Never>?

    /// Opens the engine over the store and brings back every stored torrent.
    public init(settings: EngineSettings, store: Store, paths: ServerPaths, resumeInterval: Duration = .seconds(15),
                logger: Logger = Logger(label: "qbtd")) async throws {
        self.store = store
        self.paths = paths
        self.logger = logger
        self.engine = try TorrentEngine(settings: settings, resumeInterval: resumeInterval, logger: logger) { id, data in
            do { try await store.saveResumeData(id, Data(data)) } catch {
                logger.error("could not store fast-resume data for \(id): \(error)")
            }
        }
        let events = await engine.events()
        eventTask = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        try await restore()
    }

    private func restore() async throws {
        for stored in try await store.torrents() {
            let r = stored.record
            let source: AddTorrentRequest.Source
            if let metainfo = r.metainfo { source = .metainfo(Array(metainfo)) }
            else if let magnet = r.magnet { source = .magnet(magnet) }
            else { continue }
            var request = AddTorrentRequest(source, record: r)
            request.resumeData = r.resumeData.map(Array.init)
            do {
                try await engine.add(request)
                torrents[r.id] = stored
            } catch {
                logger.error("could not restore torrent \(r.id) (\(r.name)): \(error)")
            }
        }
        logger.info("restored \(torrents.count) torrent(s)")
    }

    public func shutdown() async {
        await engine.shutdown()
        eventTask?.cancel()
    }

    // MARK: engine events

    private func handle(_ event: EngineEvent) async {
        switch event {
        case .metadataReceived(let id):
            guard torrents[id] != nil else { return }
            do {
                let bytes = try await engine.exportTorrent(id)
                let name = (try? await engine.status(id).name) ?? ""
                try await store.saveMetainfo(id, Data(bytes), name: name)
                if torrents[id]?.record.name.isEmpty ?? false { torrents[id]?.record.name = name }
                torrents[id]?.record.metainfo = Data(bytes)
                if torrents[id]?.record.firstLastPiecePrio == true { try await prioritizeFirstLastPieces(id) }
                try await engine.saveResumeData(id)
            } catch {
                logger.error("could not store the metadata of \(id): \(error)")
            }
        case .finished(let id):
            guard let stored = torrents[id], stored.record.completedOn == nil else { return }
            let now = Int64(Date().timeIntervalSince1970)
            torrents[id]?.record.completedOn = now
            try? await store.updateTorrent(id) { $0.completedOn = $0.completedOn ?? now }
            try? await engine.saveResumeData(id)
        case .torrentError(let id, let why), .fileError(let id, let why):
            logger.warning("torrent \(id): \(why)")
        default:
            break
        }
    }

    // MARK: adding and removing

    /// Adds one torrent. The row is committed before the engine starts it; if the engine refuses, the row goes.
    public func add(_ source: AddTorrentRequest.Source, options: AddOptions) async -> AddOutcome {
        let inspected: (id: TorrentID, name: String)
        do { inspected = try TorrentEngine.inspect(source) } catch { return .invalid("\(error)") }
        if torrents[inspected.id] != nil { return .duplicate(inspected.id) }

        let savePath = options.savePath ?? paths.downloadRoot
        var record = TorrentRecord(
            id: inspected.id, name: options.rename.flatMap { $0.isEmpty ? nil : $0 } ?? inspected.name,
            metainfo: nil, magnet: nil, savePath: savePath,
            category: options.category.flatMap { $0.isEmpty ? nil : $0 }, stopped: options.stopped,
            sequential: options.sequential, firstLastPiecePrio: options.firstLastPiecePrio,
            uploadLimit: max(0, options.uploadLimit), downloadLimit: max(0, options.downloadLimit),
            ratioLimit: options.ratioLimit, seedingTimeLimit: options.seedingTimeLimit,
            inactiveSeedingTimeLimit: options.inactiveSeedingTimeLimit)
        switch source {
        case .metainfo(let bytes): record.metainfo = Data(bytes)
        case .magnet(let uri): record.magnet = uri
        }
        let tags = Array(Set(options.tags.filter { !$0.isEmpty })).sorted()
        do {
            try await store.insert(record, tags: tags)
        } catch {
            return .invalid("could not store the torrent: \(error)")
        }
        var request = AddTorrentRequest(source, record: record)
        request.skipChecking = options.skipChecking
        do {
            try await engine.add(request)
        } catch {
            try? await store.deleteTorrent(record.id)
            if case .duplicate(let id) = error as? EngineError { return .duplicate(id) }
            return .invalid("\(error)")
        }
        torrents[record.id] = StoredTorrent(record: record, tags: tags)
        if options.firstLastPiecePrio { try? await prioritizeFirstLastPieces(record.id) }
        try? await engine.saveResumeData(record.id)
        return .added(record.id)
    }

    /// Removes torrents (and their data when asked). Unknown ids are ignored, as qBittorrent does.
    public func remove(_ ids: [TorrentID], deleteFiles: Bool) async {
        for id in ids where torrents[id] != nil {
            do { try await store.deleteTorrent(id) } catch {
                logger.error("could not delete \(id) from the store: \(error)")
                continue
            }
            torrents[id] = nil
            try? await engine.remove(id, deleteFiles: deleteFiles)
        }
    }

    /// Stops (pauses) or starts torrents, and remembers it.
    public func setStopped(_ ids: [TorrentID], _ stopped: Bool) async {
        for id in ids where torrents[id] != nil {
            torrents[id]?.record.stopped = stopped
            try? await store.updateTorrent(id) { $0.stopped = stopped }
            if stopped { try? await engine.pause(id) } else { try? await engine.resume(id) }
            try? await engine.saveResumeData(id)
        }
    }

    /// Connects each torrent to the given peers; returns how many were handed to the engine per torrent.
    public func addPeers(_ ids: [TorrentID], peers: [(host: String, port: Int)]) async -> [TorrentID: (added: Int, failed: Int)] {
        var out: [TorrentID: (added: Int, failed: Int)] = [:]
        for id in ids where torrents[id] != nil {
            var added = 0, failed = 0
            for peer in peers {
                do { try await engine.connectPeer(id, host: peer.host, port: peer.port); added += 1 } catch { failed += 1 }
            }
            out[id] = (added, failed)
        }
        return out
    }

    private func prioritizeFirstLastPieces(_ id: TorrentID) async throws {
        for file in try await engine.files(id) where file.size > 0 {
            try await engine.setPiecePriority(id, piece: file.pieceRange.lowerBound, priority: 7)
            try await engine.setPiecePriority(id, piece: file.pieceRange.upperBound, priority: 7)
        }
    }

    // MARK: reading

    public var ids: [TorrentID] { Array(torrents.keys) }

    /// Every torrent joined with its live status, in the order they were added.
    public func views() async -> [TorrentView] {
        var statuses: [TorrentID: TorrentStatus] = [:]
        for status in await engine.allStatus() { statuses[status.id] = status }
        return torrents.values
            .sorted { ($0.record.addedOn, $0.record.id) < ($1.record.addedOn, $1.record.id) }
            .compactMap { stored in statuses[stored.record.id].map { view(stored, $0) } }
    }

    public func view(_ id: TorrentID) async -> TorrentView? {
        guard let stored = torrents[id], let status = try? await engine.status(id) else { return nil }
        return view(stored, status)
    }

    private func view(_ stored: StoredTorrent, _ status: TorrentStatus) -> TorrentView {
        TorrentView(record: stored.record, tags: stored.tags, status: status,
                    state: QBTState(status: status, stopped: stored.record.stopped))
    }

    public func files(_ id: TorrentID) async throws -> [TorrentFile] { try await engine.files(id) }
}

extension AddTorrentRequest {
    /// What the engine needs to run a stored torrent as the record describes it.
    init(_ source: Source, record: TorrentRecord) {
        self.init(source: source, savePath: record.savePath)
        stopped = record.stopped
        sequential = record.sequential
        uploadLimit = record.uploadLimit
        downloadLimit = record.downloadLimit
    }
}
