import Foundation
import HashTreeCollections
import Logging
import Store
import SystemKit
import TorrentEngine

/// Keeps the engine and the store in step: what the store holds is what the engine runs, after any restart.
/// Writes reach SQLite before the engine is told, so an acknowledged change survives a crash.
public actor TorrentService {
    nonisolated let engine: any TorrentEngine
    nonisolated let store: any Store
    nonisolated let paths: ServerPaths
    nonisolated let settings: ServerSettings
    public nonisolated let log: EventLog
    let logger: Logger
    /// Every torrent's entry: its record (without its metainfo and resume data, which stay in SQLite and libtorrent),
    /// what its row shows besides, and what the service is doing with it. One value per torrent.
    var torrents = TorrentTable()
    /// Whether any record has a share limit of its own (`anyOwnShareLimit`), as of a revision of the table.
    var ownShareLimits: (revision: UInt64, any: Bool)?
    /// The last board built; rebuilt on demand when the engine published or an entry's facts changed.
    private var board = TorrentBoard.empty
    var categoryTable: [String: Category] = [:] { didSet { labelsRevision &+= 1 } }
    var tagSet: Set<String> = [] { didSet { labelsRevision &+= 1 } }
    /// Bumped at each change of the categories or tags held here (`reloadLabels` applies a read only when none came
    /// while it read: the read may be older than this node's own change).
    var labelsRevision: UInt64 = 0
    /// What every row depends on besides its torrent: the global share limits and whether the queue is on.
    var rowSettings = RowSettings()
    var allTime = AllTime()
    /// 5.3's `transfer/pauseSession`: every transfer held, torrents' own states untouched (`start_paused` at start).
    var sessionPaused = false
    /// Torrents handed to the engine whose add has not answered yet, with the events raised for them meanwhile.
    var addsInFlight: [TorrentID: HeldEvents] = [:]
    /// The last IP filter file read well (kept when a later one cannot be read).
    var filterFileRules: IPFilterRules?
    /// Watched folders (`scan_dirs`), their inotify watch, and files that could not be read yet (path → attempts).
    var watchedFolders: [WatchedFolder] = []
    var folderEvents: FolderEvents?
    var watchRetries: [String: Int] = [:]
    var watchRetryTask: Task<Void, Never>?
    /// Hidden metadata fetches (5.2's `fetchMetadata`), oldest first, and the .torrent files they produced.
    var prefetching: [TorrentID] = []
    var prefetched: [TorrentID: [UInt8]] = [:]
    var prefetchedOrder: [TorrentID] = []
    /// The tracker list last fetched from `add_trackers_url` (5.1's `add_trackers_url_list`), and its refresher.
    var extraTrackerList = ""
    var extraTrackerTask: Task<Void, Never>?
    /// Rows of torrents the engine refused whose delete SQLite refused too: deleted before the next add.
    var refusedRows: Set<TorrentID> = []
    /// In a cluster, the other nodes' torrents as their owners published them (`TorrentService+Remote`).
    var remote = RemoteTorrents()
    /// The handlers applying preference changes (`followPreferences`), dropped at shutdown.
    private var preferenceHandlers: [PreferenceSubscription] = []
    private var tasks: [Task<Void, Never>] = []

    /// Opens libtorrent as the preferences set it, its fast-resume data saved to the store: the engine a server
    /// gives the service (and the stream service) it builds.
    public static func openEngine(settings: ServerSettings, store: any Store, resumeInterval: Duration = .seconds(15),
                                  logger: Logger = Logger(label: "qbtd")) throws -> LibtorrentEngine {
        try LibtorrentEngine(settings: settings.appliedEngineSettings(), resumeInterval: resumeInterval, logger: logger) { batch in
            do { try await store.saveResumeData(batch.map { ($0.id, Data($0.data)) }) } catch {
                logger.error("could not store fast-resume data for \(batch.count) torrent(s): \(error)")
            }
        }
    }

    /// Brings back every stored torrent in the engine given (`openEngine`, or `MemoryEngine` in tests).
    public init(settings: ServerSettings, store: any Store, engine: any TorrentEngine, log: EventLog = EventLog(),
                logger: Logger = Logger(label: "qbtd")) async throws {
        self.store = store
        self.paths = settings.paths
        self.settings = settings
        self.log = log
        self.logger = logger
        self.engine = engine
        rowSettings.queueingEnabled = settings[\.queueingEnabled]
        for category in try await store.categories() { categoryTable[category.name] = category }
        if subcategoriesEnabled { await expandCategories() }
        tagSet = Set(try await store.tags())
        let events = await engine.events()
        tasks.append(Task { [weak self] in
            for await event in events { await self?.receive(event) }
        })
        logNetworkBinding()
        await applyIPFilter(reload: true)  // before any torrent is back: no blocked peer gets a connection
        try await restore()
        await configureWatchedFolders()
        await configureTrackerList()
        await loadStatistics()
        if settings[\.startPaused] { await setSessionPaused(true) }
        rowSettings.shareLimits = ShareLimits(settings.current)
        tasks.append(Task { [weak self] in await self?.guardDiskSpace() })
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
        preferenceHandlers = followPreferences()
    }

    /// Brings back every stored torrent: the records first (without their .torrent files and resume data), then
    /// batches of a thousand, each batch's sources read from SQLite while the engine takes the batch before (so the
    /// read costs a restart almost nothing) and its .torrent files parsed on every core; one hop to the engine per
    /// batch. Thousands of torrents never hold all their sources at once.
    private func restore() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let stored = try await store.torrentsWithoutSources()
        let ssl = try await store.allSSLParameters()
        let limits = connectionLimits()
        let read = clock.now - started
        let batches = stride(from: 0, to: stored.count, by: 1000).map { Array(stored[$0..<min(stored.count, $0 + 1000)]) }
        let store = self.store
        func prepare(_ batch: [StoredTorrent]) async throws -> (requests: [AddTorrentRequest], kept: [StoredTorrent]) {
            let sources = try await store.sources(of: batch.map(\.record.id))
            var requests: [AddTorrentRequest] = []
            var kept: [StoredTorrent] = []
            for entry in batch {
                let r = entry.record
                let found = sources[r.id]
                let source: AddTorrentRequest.Source
                if let metainfo = found?.metainfo { source = .metainfo(Array(metainfo)) }
                else if let magnet = r.magnet { source = .magnet(magnet) }
                else { continue }
                var request = AddTorrentRequest(source, record: r, limits: limits)
                request.resumeData = found?.resumeData.map(Array.init)
                requests.append(request)
                kept.append(entry)
            }
            // The engine's thread then only reads the resume data.
            let parsed = try await offPool { [requests] in ParsedTorrent.parseAll(requests.map(\.source)) }
            for (index, torrent) in parsed.enumerated() { requests[index].parsed = torrent }
            return (requests, kept)
        }
        var next: Task<(requests: [AddTorrentRequest], kept: [StoredTorrent]), Error>? = batches.first.map { first in
            Task { try await prepare(first) }
        }
        for index in batches.indices {
            guard let current = try await next?.value else { break }
            next = index + 1 < batches.count ? Task { [batch = batches[index + 1]] in try await prepare(batch) } : nil
            addsStarted(current.kept.map(\.record.id))
            let results = await engine.add(current.requests)
            for (entry, result) in zip(current.kept, results) {
                switch result {
                case .success(let added):
                    var restored = TorrentEntry(entry)
                    restored.remember(added)
                    restored.work.finished = entry.record.completedOn != nil
                    restored.work.storedQueuePosition = entry.queuePosition ?? -1
                    torrents[added.id] = restored
                    if let p = ssl[added.id] {
                        try? await engine.setSSLCertificate(added.id, certificate: p.certificate, privateKey: p.privateKey,
                                                            dhParams: p.dhParams)
                    }
                case .failure(let error):
                    logger.error("could not restore torrent \(entry.record.id) (\(entry.record.name)): \(error)")
                }
            }
            for entry in current.kept { await addSettled(entry.record.id) }
        }
        logger.info("restored \(torrents.count) torrent(s) in \(clock.now - started) (records read in \(read))")
    }

    /// The per-torrent connection limits the preferences set for every torrent.
    nonisolated func connectionLimits() -> (connections: Int, uploads: Int) {
        (settings[\.maxConnecPerTorrent], settings[\.maxUploadsPerTorrent])
    }

    public func shutdown() async {
        for handler in preferenceHandlers { handler.cancel() }
        for task in tasks { task.cancel() }
        watchRetryTask?.cancel()
        extraTrackerTask?.cancel()
        let started = ContinuousClock.now
        await saveStatistics()
        await saveQueuePositions()
        logger.info("stopping: statistics and the queue's order stored in \(ContinuousClock.now - started)")
        await engine.shutdown()
    }

    /// libtorrent keeps no queue position in fast-resume data: the stop stores the positions that moved since the
    /// start, and the next start adds the queued torrents in that order (`Store.torrentsWithoutSources`).
    func saveQueuePositions() async {
        await engine.freshen()
        let snapshot = engine.snapshot
        var moved: [(id: String, position: Int)] = []
        for (id, entry) in torrents {
            let position = snapshot.status(id)?.queuePosition ?? -1
            if position != entry.work.storedQueuePosition { moved.append((id, position)) }
        }
        do {
            try await store.saveQueuePositions(moved)
            for (id, position) in moved { torrents[id]?.work.storedQueuePosition = position }
        } catch {
            logger.error("could not store the queue's order (\(moved.count) torrent(s)); the next start queues them in the order they were added: \(error)")
        }
    }

    /// Trackers and web seeds as the engine has them now (after metadata, or an edit).
    func rememberSources(_ id: TorrentID) async {
        let trackers = (try? await engine.trackers(id))?.map(\.url) ?? []
        let webSeeds = (try? await engine.webSeeds(id)) ?? []
        torrents[id]?.facts.trackers = trackers
        torrents[id]?.facts.webSeeds = webSeeds
    }

    /// Stopped torrents are paused and left alone; forced ones run outside the queue; the rest are
    /// auto-managed, so libtorrent's queue (when the limits are on) decides which of them run.
    func applyRunState(_ id: TorrentID) async {
        guard let entry = torrents[id] else { return }
        let record = entry.record
        if record.stopped || entry.facts.diskHold != nil || entry.facts.halted {
            try? await engine.pause(id)
        } else {
            try? await engine.setAutoManaged(id, !record.forceStart)
            try? await engine.resume(id)
        }
    }

    // MARK: engine events

    func handle(_ event: EngineEvent) async {
        switch event {
        case .metadataReceived(let id) where prefetching.contains(id):
            await prefetchArrived(id)
        case .metadataReceived(let id):
            guard torrents[id] != nil else { return }
            // Stopped first, before anything else can await: the download must not run on meanwhile.
            if torrents[id]?.record.stopCondition == StopCondition.metadataReceived.rawValue { await meetStopCondition(id) }
            do {
                let bytes = try await engine.exportTorrent(id)
                let name = (try? engine.status(id).name) ?? ""
                try await store.saveMetainfo(id, Data(bytes), name: name)
                if torrents[id]?.record.name.isEmpty ?? false { torrents[id]?.record.name = name }
                if torrents[id]?.record.firstLastPiecePrio == true { try await prioritizeFirstLastPieces(id, on: true) }
                await rememberSources(id)
                if let layout = torrents[id]?.work.pendingLayout {
                    torrents[id]?.work.pendingLayout = nil
                    await applyContentLayout(id, layout)
                }
                try await engine.saveResumeData(id)
                await applyExcludedFileNames(id)  // a magnet's, now that it has files
                await markIncompleteFiles([id])
                await exportTorrentFile(id, finished: false)  // and something to export
            } catch {
                logger.error("could not store the metadata of \(id): \(error)")
            }
        case .finished(let id):
            guard let stored = torrents[id] else { return }
            if stored.record.completedOn == nil {
                let now = Int64(Date().timeIntervalSince1970)
                do {
                    try await store.updateTorrent(id) { $0.completedOn = $0.completedOn ?? now }
                    torrents[id]?.record.completedOn = now
                } catch {
                    logger.error("could not store when \(id) completed: \(error)")
                }
                log.add("Torrent download finished. Torrent: \"\(stored.record.name)\"")
            }
            await markIncompleteFiles([id])
            // Done downloading in the temp path: move it where it belongs, once SQLite knows it belongs there (when
            // it refuses, the torrent finishes where it is: moved without the record, a restart would bring it back).
            if stored.record.downloadPath != nil, await leaveDownloadPath(stored.record) {
                torrents[id]?.record.downloadPath = nil
                torrents[id]?.facts.moving = true
                torrents[id]?.work.finishAfterMove = true
                try? await engine.moveStorage(id, to: stored.record.savePath)
            } else if torrents[id]?.facts.moving == true {
                torrents[id]?.work.finishAfterMove = true  // a move asked for by hand: finished once the data is there
            } else if torrents[id]?.work.renamesInFlight ?? 0 > 0 {
                torrents[id]?.work.finishAfterRenames = true  // finished once its files have their own names
            } else {
                await torrentFinished(id)
            }
            try? await engine.saveResumeData(id)
        case .storageMoved(let id):
            if moveEnded(id) { await torrentFinished(id) }
            try? await engine.saveResumeData(id)
        case .storageMoveFailed(let id, let why):
            if moveEnded(id) { await torrentFinished(id) }
            log.add("Failed to move torrent \(id): \(why)", kind: .critical)
        case .stateChanged(let id, let state) where [.downloading, .downloadingMetadata].contains(state):
            torrents[id]?.work.finished = false
        case .checked(let id):
            await markIncompleteFiles([id])
            if torrents[id]?.record.stopCondition == StopCondition.filesChecked.rawValue,
               (try? engine.status(id).hasMetadata) == true {
                await meetStopCondition(id)
            }
        case .fileRenamed(let id, _, _):
            await renameDone(id)
            try? await engine.saveResumeData(id)
        case .fileRenameFailed(let id, let file, let why):
            await renameDone(id)
            log.add("Failed to rename file \(file) of torrent \(id): \(why)", kind: .warning)
        case .fileCompleted(let id, let file):
            await fileCompleted(id, file: file)
        case .fileError(let id, let fault):
            logger.warning("torrent \(id): \(fault)")
            await fileFailed(id, fault)
        case .resumeRejected(let id, let fault):
            await resumeRejected(id, fault)
        case .torrentError(let id, let why):
            logger.warning("torrent \(id): \(why)")
        case .trackerStatus(let id, let url, let status, let message):
            noteAnnounce(id, url: url, status, message)
        case .peerBlocked(let ip):
            log.addPeer(ip: ip, blocked: true, reason: "IP filter")
        default:
            break
        }
    }

    // MARK: adding and removing

    /// Adds one torrent. The row is committed before the engine starts it; if the engine refuses, the row goes.
    public func add(_ source: AddTorrentRequest.Source, options: AddOptions) async -> AddOutcome {
        do { return await add([try ParsedTorrent(source)], options: options)[0] } catch { return .invalid("\(error)") }
    }

    /// Adds torrents parsed once by the caller, all with the same options: their rows go to SQLite in one
    /// transaction before the engine takes them in one batch; a row the engine refuses is deleted again.
    public func add(_ parsed: [ParsedTorrent], options: AddOptions) async -> [AddOutcome] {
        var outcomes = [AddOutcome?](repeating: nil, count: parsed.count)
        let category = options.category.flatMap { $0.isEmpty ? nil : $0 }
        let placement: Placement
        do { placement = try await self.placement(options, category: category) } catch {
            return parsed.map { _ in .invalid("\(error)") }
        }
        let (autoTMM, savePath) = (placement.autoTMM, placement.savePath)
        let tempPath = options.skipChecking ? nil : placement.downloadPath
        let limits = connectionLimits()
        let preallocate = settings[\.preallocateAll]
        let tags = Array(Set(options.tags.filter(Self.validTag))).sorted()
        // qBittorrent's stop condition: an unknown name is None.
        let defaultCondition = settings[\.torrentStopCondition]
        let condition = StopCondition(rawValue: options.stopCondition ?? defaultCondition)
        var records: [(record: TorrentRecord, tags: [String])] = []
        var requests: [AddTorrentRequest] = []
        var positions: [Int] = []
        var seen: Set<TorrentID> = []
        for (position, torrent) in parsed.enumerated() {
            guard torrents[torrent.id] == nil, seen.insert(torrent.id).inserted else {
                outcomes[position] = .duplicate(torrent.id)
                // As qBittorrent: a .torrent added again gives its metadata to the torrent if it has none yet (a
                // magnet still fetching it), which then goes on as if it had arrived (stop condition included).
                if torrents[torrent.id] != nil, case .metainfo(let bytes) = torrent.source {
                    try? await engine.setMetadata(torrent.id, torrentFile: Array(bytes))
                }
                continue
            }
            await endPrefetch(torrent.id)
            var record = TorrentRecord(
                id: torrent.id, name: options.rename.flatMap { $0.isEmpty ? nil : $0 } ?? torrent.name,
                metainfo: nil, magnet: nil, savePath: savePath,
                category: category, stopped: options.stopped,
                sequential: options.sequential, firstLastPiecePrio: options.firstLastPiecePrio,
                uploadLimit: max(0, options.uploadLimit), downloadLimit: max(0, options.downloadLimit),
                ratioLimit: options.ratioLimit, seedingTimeLimit: options.seedingTimeLimit,
                inactiveSeedingTimeLimit: options.inactiveSeedingTimeLimit, autoTMM: autoTMM)
            record.forceStart = options.forced
            record.downloadPath = tempPath
            record.shareLimitAction = Self.shareLimitAction(options.shareLimitAction)
            record.shareLimitsMode = Self.shareLimitsMode(options.shareLimitsMode)
            if !options.stopped, let condition {
                // 5.1: a torrent that already has its metadata is added stopped under MetadataReceived.
                let hasMetadata = if case .metainfo = torrent.source { true } else { false }
                switch condition {
                case .metadataReceived where hasMetadata: record.stopped = true
                case .filesChecked where options.skipChecking: break
                default: record.stopCondition = condition.rawValue
                }
            }
            switch torrent.source {
            case .metainfo(let bytes): record.metainfo = Data(bytes)
            case .magnet(let uri): record.magnet = uri
            }
            var request = AddTorrentRequest(torrent, savePath: savePath)
            request.apply(record, limits: limits)
            request.skipChecking = options.skipChecking
            request.preallocate = preallocate
            records.append((record, tags))
            requests.append(request)
            positions.append(position)
        }
        do {
            try await dropRefusedRows()
            try await store.insert(records)
        } catch {
            for position in positions { outcomes[position] = .invalid("could not store the torrent: \(error)") }
            return outcomes.map { $0! }
        }
        guard !records.isEmpty else { return outcomes.map { $0! } }
        if let category, categoryTable[category] == nil {
            categoryTable[category] = Category(name: category, savePath: "")
            try? await createParentCategories(of: category)
        }
        tagSet.formUnion(tags)
        let preferred = ContentLayout(rawValue: settings[\.torrentContentLayout]) ?? .original
        let layout = options.contentLayout ?? preferred
        addsStarted(records.map(\.record.id))
        let results = await engine.add(requests)
        // Every torrent the engine took is known before anything awaits; the events raised for it before the add
        // answered are handled once it is set up (`addSettled`).
        var taken: [(id: TorrentID, record: TorrentRecord, hasMetainfo: Bool)] = []
        for ((var entry, position), result) in zip(zip(records, positions), results) {
            let id = entry.record.id
            guard case .success(let added) = result else { continue }
            let hasMetainfo = entry.record.metainfo != nil
            entry.record.slim()
            var fresh = TorrentEntry(StoredTorrent(record: entry.record, tags: entry.tags))
            fresh.remember(added)
            torrents[id] = fresh
            taken.append((id, entry.record, hasMetainfo))
            outcomes[position] = .added(id)
        }
        for ((entry, position), result) in zip(zip(records, positions), results) {
            guard case .success = result else {
                await dropRow(entry.record.id)  // the engine refused it: no row may outlive that
                if case .failure(.duplicate(let other)) = result { outcomes[position] = .duplicate(other) }
                else if case .failure(let error) = result { outcomes[position] = .invalid("\(error)") }
                await addSettled(entry.record.id)
                continue
            }
        }
        for (id, _, _) in taken { await catchUpStopCondition(id) }
        for (id, record, hasMetainfo) in taken {
            if options.addToTopOfQueue { try? await engine.queue(id, .top) }
            if options.firstLastPiecePrio { try? await prioritizeFirstLastPieces(id, on: true) }
            if layout != .original {
                // A magnet gets its layout when the metadata arrives (not kept across a restart before that).
                if hasMetainfo { await applyContentLayout(id, layout) } else { torrents[id]?.work.pendingLayout = layout }
            }
            if hasMetainfo, let priorities = options.filePriorities { await applyFilePriorities(id, priorities) }
            log.add("Added new torrent. Torrent: \"\(record.name)\"")
            await addExtraTrackers(id)
            await torrentAdded(id, hasMetadata: hasMetainfo)
            await addSettled(id)
        }
        return outcomes.map { $0 ?? .invalid("not added") }
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

    public var ids: [TorrentID] { Array(torrents.ids) }
    public var count: Int { torrents.count }

    /// What this node's torrents want of the queue (for a cluster's division of its limits): the started ones that
    /// are not forced, downloading or seeding.
    public func queueDemand() -> QueueDemand {
        var demand = QueueDemand()
        for entry in torrents.values where !entry.facts.record.stopped && !entry.facts.record.forceStart {
            if entry.work.finished { demand.seeds += 1 } else { demand.downloads += 1 }
        }
        return demand
    }

    /// Every torrent joined with its last published status, in the order they were added.
    public func views() -> [TorrentView] { currentBoard().views }

    public func view(_ id: TorrentID) -> TorrentView? {
        guard let entry = torrents[id], let status = engine.snapshot.status(id) else { return nil }
        return view(entry.facts, status)
    }

    /// What an API reader gets: the board after the engine made sure its statuses are at most about a second old
    /// (the engine refreshes every second only while someone reads).
    public func freshBoard() async -> TorrentBoard {
        await engine.freshen()
        return currentBoard()
    }

    /// One torrent as an API reader gets it (see `freshBoard`).
    public func freshView(_ id: TorrentID) async -> TorrentView? {
        await engine.freshen()
        return view(id)
    }

    /// The board as of now, made again only when the engine published or an entry's facts changed. Only the
    /// torrents the engine's change log names and those whose facts changed are looked at; every entry is when the
    /// log does not reach back far enough or the row settings changed. Unchanged entries are the previous board's objects.
    public func currentBoard() -> TorrentBoard {
        let snapshot = engine.snapshot
        guard snapshot.generation != board.engineGeneration || torrents.revision != board.serviceRevision
            || rowSettings != board.rowSettings else { return board }
        let touched = torrents.takeChanges()
        let sameRows = rowSettings == board.rowSettings
        if sameRows, board.generation > 0, let ids = snapshot.changed(since: board.engineGeneration) {
            board = board.updated(snapshot, ids.union(touched), touched: touched, make: row, service: boardInputs)
        } else {
            board = board.remade(snapshot, ids: torrents.ids, reuse: sameRows, touched: touched, make: row,
                                 service: boardInputs)
        }
        return board
    }

    /// What a board records of the service's side, to know later whether it is still current.
    private var boardInputs: TorrentBoard.ServiceInputs {
        TorrentBoard.ServiceInputs(revision: torrents.revision, rowSettings: rowSettings,
                                   trackersRevision: torrents.trackersRevision, trackers: { [torrents] in Self.trackerMap(torrents) })
    }

    /// One torrent's view, if it is known and the engine has a status for it.
    private func row(_ id: TorrentID, _ status: TorrentStatus) -> TorrentView? {
        torrents[id].map { view($0.facts, status) }
    }

    public func exists(_ id: TorrentID) -> Bool { torrents[id] != nil }

    private func view(_ facts: TorrentFacts, _ status: TorrentStatus) -> TorrentView {
        TorrentView(facts: facts, status: status, rowSettings: rowSettings)
    }

    public func files(_ id: TorrentID) async throws -> [TorrentFile] { try await engine.files(id) }

    /// Tracker URL → the torrents that use it, for `sync/maindata`.
    public func trackerMap() -> [String: [TorrentID]] { Self.trackerMap(torrents) }

    static func trackerMap(_ torrents: TorrentTable) -> [String: [TorrentID]] {
        var out: [String: [TorrentID]] = [:]
        for (id, entry) in torrents { for url in entry.facts.trackers { out[url, default: []].append(id) } }
        for key in out.keys { out[key]?.sort() }
        return out
    }

    /// The torrents finished since they last downloaded.
    var finishedTorrents: Set<TorrentID> { Set(torrents.lazy.filter { $0.value.work.finished }.map { $0.key }) }

    /// A move ended: the torrent is no longer moving; true when it finished meanwhile and counts as finished now.
    func moveEnded(_ id: TorrentID) -> Bool {
        guard let entry = torrents[id] else { return false }
        torrents[id]?.facts.moving = false
        torrents[id]?.work.finishAfterMove = false
        return entry.work.finishAfterMove
    }

    static func validTag(_ tag: String) -> Bool {
        let t = tag.trimmingCharacters(in: .whitespaces)
        return !t.isEmpty && t == tag && !t.contains(",")
    }
}

extension AddTorrentRequest {
    /// What the engine needs to run a stored torrent as the record describes it.
    init(_ source: Source, record: TorrentRecord, limits: (connections: Int, uploads: Int)) {
        self.init(source: source, savePath: record.downloadPath ?? record.savePath)
        apply(record, limits: limits)
    }

    /// Stopped torrents are paused and left alone; forced ones run outside the queue; the rest are
    /// auto-managed, so libtorrent's queue (when the limits are on) decides which of them run.
    mutating func apply(_ record: TorrentRecord, limits: (connections: Int, uploads: Int)) {
        savePath = record.downloadPath ?? record.savePath
        stopped = record.stopped
        autoManaged = !record.stopped && !record.forceStart
        sequential = record.sequential
        superSeeding = record.superSeeding
        uploadLimit = record.uploadLimit
        downloadLimit = record.downloadLimit
        maxConnections = limits.connections
        maxUploads = limits.uploads
    }
}

extension TorrentRecord {
    /// The record as kept in memory: the metainfo and resume data stay in SQLite (and libtorrent holds the
    /// parsed torrent), so thousands of torrents do not keep a second copy of every .torrent file.
    mutating func slim() {
        metainfo = nil
        resumeData = nil
    }
}
