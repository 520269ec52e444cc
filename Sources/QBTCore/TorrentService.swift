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
    public nonisolated let settings: ServerSettings
    public nonisolated let log: EventLog
    let logger: Logger
    var torrents: [TorrentID: StoredTorrent] = [:]
    /// Tracker URLs per torrent, kept here because `sync/maindata` lists them for every torrent on each poll.
    var trackerURLs: [TorrentID: [String]] = [:]
    /// Web seed URLs per torrent, for the magnet links every listing carries.
    var webSeedURLs: [TorrentID: [String]] = [:]
    var categoryTable: [String: Category] = [:]
    var tagSet: Set<String> = []
    /// Torrents whose data is being moved.
    var moving: Set<TorrentID> = []
    var queueingEnabled = false
    /// The global share limits, for torrents that follow them (kept here: every view needs them).
    var shareLimits = ShareLimits()
    var allTime = AllTime()
    /// Content layouts waiting for a magnet's metadata.
    var pendingLayouts: [TorrentID: ContentLayout] = [:]
    private var tasks: [Task<Void, Never>] = []

    /// Opens the engine over the store and brings back every stored torrent.
    public init(settings: ServerSettings, store: Store, resumeInterval: Duration = .seconds(15),
                log: EventLog = EventLog(), logger: Logger = Logger(label: "qbtd")) async throws {
        self.store = store
        self.paths = settings.paths
        self.settings = settings
        self.log = log
        self.logger = logger
        self.engine = try TorrentEngine(settings: await settings.engineSettings(), resumeInterval: resumeInterval,
                                        logger: logger) { id, data in
            do { try await store.saveResumeData(id, Data(data)) } catch {
                logger.error("could not store fast-resume data for \(id): \(error)")
            }
        }
        queueingEnabled = await settings.bool("queueing_enabled")
        for category in try await store.categories() { categoryTable[category.name] = category }
        tagSet = Set(try await store.tags())
        let events = await engine.events()
        tasks.append(Task { [weak self] in
            for await event in events { await self?.handle(event) }
        })
        try await restore()
        await applyBans()
        await loadStatistics()
        shareLimits = await ShareLimits(settings)
        tasks.append(Task { [weak self] in
            var ticks = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                await self?.enforceShareLimits()
                await self?.followSpeedSchedule()
                ticks += 1
                if ticks % 12 == 0 { await self?.saveStatistics() }
            }
        })
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
                await started(r.id)
            } catch {
                logger.error("could not restore torrent \(r.id) (\(r.name)): \(error)")
            }
        }
        logger.info("restored \(torrents.count) torrent(s)")
    }

    public func shutdown() async {
        for task in tasks { task.cancel() }
        await saveStatistics()
        await engine.shutdown()
    }

    /// What every torrent gets once it is in the engine: the run state its record says, per-torrent
    /// connection limits, and its trackers remembered.
    func started(_ id: TorrentID) async {
        await applyRunState(id)
        let connections = await settings.int("max_connec_per_torrent")
        let uploads = await settings.int("max_uploads_per_torrent")
        try? await engine.setConnectionLimits(id, connections: connections, uploads: uploads)
        if torrents[id]?.record.superSeeding == true { try? await engine.setSuperSeeding(id, true) }
        if let ssl = try? await store.sslParameters(id) {
            try? await engine.setSSLCertificate(id, certificate: ssl.certificate, privateKey: ssl.privateKey, dhParams: ssl.dhParams)
        }
        await rememberSources(id)
    }

    /// Trackers and web seeds as the engine has them now (after an add, metadata, or an edit).
    func rememberSources(_ id: TorrentID) async {
        trackerURLs[id] = (try? await engine.trackers(id))?.map(\.url) ?? []
        webSeedURLs[id] = (try? await engine.webSeeds(id)) ?? []
    }

    /// Stopped torrents are paused and left alone; forced ones run outside the queue; the rest are
    /// auto-managed, so libtorrent's queue (when the limits are on) decides which of them run.
    func applyRunState(_ id: TorrentID) async {
        guard let record = torrents[id]?.record else { return }
        if record.stopped {
            try? await engine.pause(id)
        } else {
            try? await engine.setAutoManaged(id, !record.forceStart)
            try? await engine.resume(id)
        }
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
                if torrents[id]?.record.firstLastPiecePrio == true { try await prioritizeFirstLastPieces(id, on: true) }
                await rememberSources(id)
                if let layout = pendingLayouts.removeValue(forKey: id) { await applyContentLayout(id, layout) }
                try await engine.saveResumeData(id)
            } catch {
                logger.error("could not store the metadata of \(id): \(error)")
            }
        case .finished(let id):
            guard let stored = torrents[id] else { return }
            if stored.record.completedOn == nil {
                let now = Int64(Date().timeIntervalSince1970)
                torrents[id]?.record.completedOn = now
                try? await store.updateTorrent(id) { $0.completedOn = $0.completedOn ?? now }
                log.add("Torrent download finished. Torrent: \"\(stored.record.name)\"")
            }
            // Done downloading in the temp path: move it where it belongs.
            if stored.record.downloadPath != nil {
                torrents[id]?.record.downloadPath = nil
                try? await store.updateTorrent(id) { $0.downloadPath = nil }
                moving.insert(id)
                try? await engine.moveStorage(id, to: stored.record.savePath)
            }
            try? await engine.saveResumeData(id)
        case .storageMoved(let id):
            moving.remove(id)
            try? await engine.saveResumeData(id)
        case .storageMoveFailed(let id, let why):
            moving.remove(id)
            log.add("Failed to move torrent \(id): \(why)", kind: .critical)
        case .fileRenamed(let id, _, _):
            try? await engine.saveResumeData(id)
        case .fileRenameFailed(let id, let file, let why):
            log.add("Failed to rename file \(file) of torrent \(id): \(why)", kind: .warning)
        case .torrentError(let id, let why), .fileError(let id, let why):
            logger.warning("torrent \(id): \(why)")
        case .trackerError(_, let why):
            log.add(why, kind: .warning)
        case .peerBlocked(let ip):
            log.addPeer(ip: ip, blocked: true, reason: "IP filter")
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

        let category = options.category.flatMap { $0.isEmpty ? nil : $0 }
        let defaultTMM = await settings.bool("auto_tmm_enabled")
        let autoTMM = options.autoTMM ?? defaultTMM
        let defaultSavePath = await settings.defaultSavePath
        let savePath: String
        if autoTMM { savePath = await categorySavePath(category) }
        else { savePath = options.savePath ?? defaultSavePath }
        var record = TorrentRecord(
            id: inspected.id, name: options.rename.flatMap { $0.isEmpty ? nil : $0 } ?? inspected.name,
            metainfo: nil, magnet: nil, savePath: savePath,
            category: category, stopped: options.stopped,
            sequential: options.sequential, firstLastPiecePrio: options.firstLastPiecePrio,
            uploadLimit: max(0, options.uploadLimit), downloadLimit: max(0, options.downloadLimit),
            ratioLimit: options.ratioLimit, seedingTimeLimit: options.seedingTimeLimit,
            inactiveSeedingTimeLimit: options.inactiveSeedingTimeLimit, autoTMM: autoTMM)
        record.forceStart = options.forced
        if !options.skipChecking, let temp = await settings.tempPath { record.downloadPath = temp }
        switch source {
        case .metainfo(let bytes): record.metainfo = Data(bytes)
        case .magnet(let uri): record.magnet = uri
        }
        let tags = Array(Set(options.tags.filter(Self.validTag))).sorted()
        do {
            try await store.insert(record, tags: tags)
        } catch {
            return .invalid("could not store the torrent: \(error)")
        }
        if let category, categoryTable[category] == nil { categoryTable[category] = Category(name: category, savePath: "") }
        tagSet.formUnion(tags)
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
        await started(record.id)
        if options.addToTopOfQueue { try? await engine.queue(record.id, .top) }
        if options.firstLastPiecePrio { try? await prioritizeFirstLastPieces(record.id, on: true) }
        let preferred = ContentLayout(rawValue: await settings.string("torrent_content_layout")) ?? .original
        let layout = options.contentLayout ?? preferred
        if layout != .original {
            // A magnet gets its layout when the metadata arrives (not kept across a restart before that).
            if record.metainfo != nil { await applyContentLayout(record.id, layout) } else { pendingLayouts[record.id] = layout }
        }
        try? await engine.saveResumeData(record.id)
        log.add("Added new torrent. Torrent: \"\(record.name)\"")
        return .added(record.id)
    }

    /// Removes torrents (and their data when asked). Unknown ids are ignored, as qBittorrent does.
    public func remove(_ ids: [TorrentID], deleteFiles: Bool) async {
        for id in ids where torrents[id] != nil {
            do { try await store.deleteTorrent(id) } catch {
                logger.error("could not delete \(id) from the store: \(error)")
                continue
            }
            let name = torrents[id]?.record.name ?? id
            torrents[id] = nil
            trackerURLs[id] = nil
            webSeedURLs[id] = nil
            pendingLayouts[id] = nil
            moving.remove(id)
            try? await engine.remove(id, deleteFiles: deleteFiles)
            log.add(deleteFiles ? "Removed torrent and deleted its content. Torrent: \"\(name)\""
                                : "Removed torrent. Torrent: \"\(name)\"")
        }
    }

    func prioritizeFirstLastPieces(_ id: TorrentID, on: Bool) async throws {
        for file in try await engine.files(id) where file.size > 0 && file.priority > 0 {
            let priority = on ? 7 : file.priority
            try await engine.setPiecePriority(id, piece: file.pieceRange.lowerBound, priority: priority)
            try await engine.setPiecePriority(id, piece: file.pieceRange.upperBound, priority: priority)
        }
    }

    /// Only known ids, in the order given.
    func known(_ ids: [TorrentID]) -> [TorrentID] { ids.filter { torrents[$0] != nil } }

    /// Changes a record in memory and in the store, in that order of truth: the store first.
    func update(_ id: TorrentID, _ change: @escaping @Sendable (inout TorrentRecord) -> Void) async throws {
        guard var record = torrents[id]?.record else { return }
        try await store.updateTorrent(id, change)
        change(&record)
        torrents[id]?.record = record
    }

    // MARK: reading

    public var ids: [TorrentID] { Array(torrents.keys) }
    public var count: Int { torrents.count }

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

    public func exists(_ id: TorrentID) -> Bool { torrents[id] != nil }

    private func view(_ stored: StoredTorrent, _ status: TorrentStatus) -> TorrentView {
        let r = stored.record
        let queued = queueingEnabled && !r.stopped && !r.forceStart && status.autoManaged && status.paused
        return TorrentView(record: r, tags: stored.tags, status: status,
                           state: QBTState(status: status, stopped: r.stopped, queued: queued,
                                           forced: r.forceStart, moving: moving.contains(r.id)),
                           trackers: trackerURLs[r.id] ?? [], webSeeds: webSeedURLs[r.id] ?? [],
                           globalLimits: shareLimits)
    }

    public func files(_ id: TorrentID) async throws -> [TorrentFile] { try await engine.files(id) }

    /// Tracker URL → the torrents that use it, for `sync/maindata`.
    public func trackerMap() -> [String: [TorrentID]] {
        var out: [String: [TorrentID]] = [:]
        for (id, urls) in trackerURLs { for url in urls { out[url, default: []].append(id) } }
        for key in out.keys { out[key]?.sort() }
        return out
    }

    static func validTag(_ tag: String) -> Bool {
        let t = tag.trimmingCharacters(in: .whitespaces)
        return !t.isEmpty && t == tag && !t.contains(",")
    }
}

extension AddTorrentRequest {
    /// What the engine needs to run a stored torrent as the record describes it.
    init(_ source: Source, record: TorrentRecord) {
        self.init(source: source, savePath: record.downloadPath ?? record.savePath)
        stopped = record.stopped
        sequential = record.sequential
        uploadLimit = record.uploadLimit
        downloadLimit = record.downloadLimit
    }
}
