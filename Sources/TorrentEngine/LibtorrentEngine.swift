import CLibtorrent
import Foundation
import Logging
import Synchronization

/// The one owner of the libtorrent session, run on a thread of its own (`EngineThread`): commands are posted to
/// it, never run on the cooperative pool. Alerts are drained as soon as libtorrent signals them (no polling),
/// fanned out to subscribers, and fast-resume data goes to `onResumeData` before anyone is told it was saved.
/// Statuses are published as a snapshot: from libtorrent's state-update alert (which lists only the torrents that
/// changed) every second while someone reads them and every tenth second otherwise, at once when a reader finds the
/// snapshot older than a second (`freshen`), and at once for the torrents an event or a command touched.
public actor LibtorrentEngine: TorrentEngine {
    /// Takes every fast-resume answer one drain brought, so they are stored in one transaction.
    public typealias ResumeDataHandler = @Sendable ([(id: TorrentID, data: [UInt8])]) async -> Void

    private nonisolated let thread = EngineThread(name: "qbtd-engine")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    private nonisolated let publisher = SnapshotPublisher()
    public nonisolated var snapshot: EngineSnapshot { publisher.snapshot }

    private let session: SessionPointer
    /// For the extensions in other files: the raw session, used on this actor only.
    var sessionRaw: OpaquePointer { session.raw }
    let logger: Logger
    private let onResumeData: ResumeDataHandler
    private let notifier: AlertNotifier
    private let hub = EventHub()
    private var pieceReads: [String: [CheckedContinuation<[UInt8], Error>]] = [:]
    private var pendingResumeSaves = 0
    /// Adds posted and not yet answered by their alert, per torrent id in the order they were posted.
    private var pendingAdds: [TorrentID: [PendingAdd]] = [:]
    private var addBatches: [Int: AddBatch] = [:]
    private var nextAddBatch = 0
    private let background = BackgroundTasks()
    private(set) var closed = false
    /// The refresh on demand (`LibtorrentEngine+Refresh`): when the last state-update post was made, readers waiting
    /// for the answer to one (by the count of state updates drained that answers it), and when a reader last asked.
    var lastPost = ContinuousClock.now
    /// When a state update last arrived, and how many had by then.
    var lastAnswered = ContinuousClock.now
    var statesSeen: UInt64 = 0
    var freshWaiters: [(post: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    nonisolated let lastDemand = Mutex<ContinuousClock.Instant?>(nil)
    /// Whether libtorrent ticks at `quietTick` now.
    nonisolated let tickIsQuiet = Mutex(false)

    /// Every call into libtorrent checks this first: after `shutdown` the session is gone.
    @discardableResult
    func live() throws -> OpaquePointer {
        guard !closed else { throw EngineError.failed("the torrent engine has shut down") }
        return session.raw
    }

    /// Starts a session. `resumeInterval` is how often torrents with unsaved changes write fast-resume data.
    public init(
        settings: EngineSettings, resumeInterval: Duration = .seconds(15), logger: Logger = Logger(label: "engine"),
        onResumeData: @escaping ResumeDataHandler
    ) throws {
        let pack = qbt_settings_new()!
        defer { qbt_settings_free(pack) }
        try Self.fill(pack, settings)
        var error: UnsafeMutablePointer<CChar>?
        guard let raw = qbt_session_new(pack, settings.pex, &error) else {
            throw EngineError.failed("libtorrent session did not start: \(takeCString(error))")
        }
        self.session = SessionPointer(raw: raw)
        qbt_set_rate_limit_scope(raw, settings.rateLimitLAN, settings.rateLimitUTP)
        self.logger = logger
        self.onResumeData = onResumeData
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.notifier = AlertNotifier(wake)
        qbt_session_set_notify(raw, { context in
            Unmanaged<AlertNotifier>.fromOpaque(context!).takeUnretainedValue().wake.yield()
        }, Unmanaged.passUnretained(notifier).toOpaque())
        wake.yield()  // alerts raised before the notify hook was set
        let drainer = Task { [weak self] in
            for await _ in wakeups {
                guard let self else { return }
                await self.drainAsync()
            }
        }
        let saver = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: resumeInterval)
                await self?.saveResumeData(onlyIfModified: true)
            }
        }
        // Fresh session counters and the statuses that changed: each second while a reader asked in the last few
        // seconds (qBittorrent's refresh timer), every tenth second otherwise, when no one would see them (share
        // limits need no more: qBittorrent checks them every ten seconds). A reader after a quiet spell gets a fresh
        // answer (`freshen`).
        // The loop looks every second (no hop to the engine unless it posts), so statuses come each second again
        // within a second of a reader starting, stream readers included.
        let stats = Task { [weak self] in
            var quietSeconds = Self.quietPostEvery
            while !Task.isCancelled {
                guard let demanded = self?.demandedRecently else { return }
                quietSeconds = demanded ? 0 : quietSeconds + 1
                if demanded || quietSeconds >= Self.quietPostEvery {
                    if !demanded { quietSeconds = 0 }
                    await self?.postUpdates()
                    await self?.followQuiet()
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        background.tasks.withLock { $0 = [drainer, saver, stats] }
    }

    private static func fill(_ pack: OpaquePointer, _ settings: EngineSettings) throws {
        for (name, value) in settings.pack {
            var error: UnsafeMutablePointer<CChar>?
            if !qbt_settings_set(pack, name, value, &error) { throw EngineError.invalidArgument(takeCString(error)) }
        }
    }

    /// Applies new session settings (PeX is fixed for the life of the session).
    public func apply(_ settings: EngineSettings) throws {
        try live()
        let pack = qbt_settings_new()!
        defer { qbt_settings_free(pack) }
        try Self.fill(pack, settings)
        var error: UnsafeMutablePointer<CChar>?
        if !qbt_session_apply(session.raw, pack, &error) { throw EngineError.failed(takeCString(error)) }
        qbt_set_rate_limit_scope(session.raw, settings.rateLimitLAN, settings.rateLimitUTP)
    }

    /// The TCP port peers reach this session on.
    public var listenPort: Int { closed ? 0 : Int(qbt_session_listen_port(session.raw)) }

    /// Every event from now on, in order. The stream ends when the engine shuts down.
    public func events() -> AsyncStream<EngineEvent> { hub.subscribe() }

    // MARK: adding and removing

    /// Posts every add at once (no wait on libtorrent's network thread per torrent) and returns when each one's
    /// add alert has come and its status is published.
    public func add(_ requests: [AddTorrentRequest]) async -> [Result<AddedTorrent, EngineError>] {
        guard !closed else { return requests.map { _ in .failure(.failed("the torrent engine has shut down")) } }
        var results = [Result<AddedTorrent, EngineError>?](repeating: nil, count: requests.count)
        var posted: [(id: TorrentID, index: Int, saveResume: Bool)] = []
        for (index, request) in requests.enumerated() {
            do {
                posted.append((try session.addAsync(request), index, request.resumeData == nil))
            } catch {
                results[index] = .failure(error as? EngineError ?? .failed("\(error)"))
            }
        }
        guard !posted.isEmpty else { return results.map { $0! } }
        let batch = nextAddBatch
        nextAddBatch += 1
        for p in posted { pendingAdds[p.id, default: []].append(PendingAdd(batch: batch, index: p.index, saveResume: p.saveResume)) }
        return await withCheckedContinuation { continuation in
            addBatches[batch] = AddBatch(results: results, remaining: posted.count, continuation: continuation)
        }
    }

    /// Records an add's outcome; returns the batch it completed, if it did.
    private func settle(_ id: TorrentID, _ result: Result<AddedTorrent, EngineError>) -> Int? {
        guard var queue = pendingAdds[id], !queue.isEmpty else { return nil }
        let pending = queue.removeFirst()
        pendingAdds[id] = queue.isEmpty ? nil : queue
        // A new torrent's fast-resume data is asked for at once (a restored one has it already).
        if case .success = result, pending.saveResume, qbt_save_resume(session.raw, id, false) == QBT_OK { pendingResumeSaves += 1 }
        addBatches[pending.batch]?.results[pending.index] = result
        addBatches[pending.batch]?.remaining -= 1
        return addBatches[pending.batch]?.remaining == 0 ? pending.batch : nil
    }

    private func finish(batches: [Int]) {
        for key in batches {
            guard let batch = addBatches.removeValue(forKey: key) else { continue }
            batch.continuation.resume(returning: batch.results.map { $0 ?? .failure(.failed("the add was lost")) })
        }
    }

    public func remove(_ id: TorrentID, deleteFiles: Bool) throws {
        try live()
        try check(qbt_remove(session.raw, id, deleteFiles), id)
        commanded.remove(id)
        removing.insert(id)
        publisher.publish([], removed: [id])
    }

    // MARK: control

    public func pause(_ id: TorrentID) throws { try live(); try check(qbt_pause(session.raw, id), id); touched(id) }
    public func resume(_ id: TorrentID) throws { try live(); try check(qbt_resume(session.raw, id), id); touched(id) }
    public func recheck(_ id: TorrentID) throws { try live(); try check(qbt_recheck(session.raw, id), id); touched(id) }

    public func setMetadata(_ id: TorrentID, torrentFile: [UInt8]) throws {
        try live()
        try check(torrentFile.withUnsafeBufferPointer { qbt_set_metadata(session.raw, id, $0.baseAddress, $0.count) }, id)
        touched(id)
    }

    public func setSequential(_ id: TorrentID, _ on: Bool) throws {
        try live()
        try check(qbt_set_sequential(session.raw, id, on), id)
        touched(id)
    }

    /// Bytes per second; 0 or less means unlimited.
    public func setLimits(_ id: TorrentID, upload: Int, download: Int) throws {
        try live()
        try check(qbt_set_limits(session.raw, id, Int32(clamping: upload), Int32(clamping: download)), id)
        touched(id)
    }

    /// Publishes a torrent's status at once, after a command changed it (libtorrent runs the torrent's
    /// commands in order, so the status read here reflects the command). A state update libtorrent posted before
    /// the command may still wait in the alert queue: the next drain reads this torrent's status again rather than
    /// publish that older one over this (`commanded`).
    func touched(_ id: TorrentID) {
        guard !closed, let status = try? session.status(id) else { return }
        commanded.insert(id)
        publisher.publish([status])
    }

    public func connectPeer(_ id: TorrentID, host: String, port: Int) throws {
        try live()
        guard (1...65535).contains(port) else { throw EngineError.invalidArgument("bad port \(port)") }
        let result = qbt_connect_peer(session.raw, id, host, UInt16(port))
        if result == QBT_ERR_INVALID { throw EngineError.invalidArgument("bad peer address \(host):\(port)") }
        try check(result, id)
    }

    // MARK: piece-level control (streaming, selective download)

    public func setPieceDeadlines(_ id: TorrentID, _ deadlines: [(piece: Int, milliseconds: Int)], clearingOthers: Bool) throws {
        try live()
        let pieces = deadlines.map { Int32(clamping: $0.piece) }, times = deadlines.map { Int32(clamping: $0.milliseconds) }
        let result = pieces.withUnsafeBufferPointer { p in
            times.withUnsafeBufferPointer { t in
                qbt_set_piece_deadlines(session.raw, id, p.baseAddress, t.baseAddress, p.count, clearingOthers)
            }
        }
        try check(result, id)
    }

    /// 0 = skip, 1 = low … 4 = default … 7 = top.
    public func setPiecePriority(_ id: TorrentID, piece: Int, priority: Int) throws {
        try live()
        try check(qbt_set_piece_priority(session.raw, id, Int32(piece), UInt8(clamping: priority)), id)
    }

    public func setPiecesPriority(_ id: TorrentID, pieces: Range<Int>, priority: Int) throws {
        try live()
        try check(qbt_set_pieces_priority(session.raw, id, Int32(clamping: pieces.lowerBound), Int32(clamping: pieces.count),
                                          UInt8(clamping: priority)), id)
    }

    public func setFilePriority(_ id: TorrentID, file: Int, priority: Int) throws {
        try live()
        try check(qbt_set_file_priority(session.raw, id, Int32(file), UInt8(clamping: priority)), id)
        touched(id)
    }

    public func havePiece(_ id: TorrentID, piece: Int) throws -> Bool {
        try live()
        var have = false
        try check(qbt_have_piece(session.raw, id, Int32(piece), &have), id)
        return have
    }

    /// Reads a piece the torrent has (from disk or cache); throws if it is missing.
    public func readPiece(_ id: TorrentID, piece: Int) async throws -> [UInt8] {
        try live()
        try check(qbt_read_piece(session.raw, id, Int32(piece)), id)
        return try await withCheckedThrowingContinuation { continuation in
            pieceReads["\(id):\(piece)", default: []].append(continuation)
        }
    }

    // MARK: on demand

    /// The files of a torrent; empty until its metadata is known.
    public func files(_ id: TorrentID) throws -> [TorrentFile] { try live(); return try session.files(id) }


    /// The .torrent file of a torrent with metadata.
    public func exportTorrent(_ id: TorrentID) throws -> [UInt8] { try live(); return try session.exportTorrent(id) }

    // MARK: fast-resume

    /// Asks libtorrent for fast-resume data; each answer reaches `onResumeData`. The periodic save asks only the
    /// torrents whose published status says they changed (no call per torrent to find out, as qBittorrent does); an
    /// answer takes the torrent out of that set (`SnapshotPublisher.resumeSaved`).
    public func saveResumeData(onlyIfModified: Bool) {
        guard !closed else { return }
        guard onlyIfModified else {
            pendingResumeSaves += Int(qbt_save_resume_all(session.raw, false))
            return
        }
        let current = snapshot
        let now = ContinuousClock.now
        let sweep = now - lastCountersSweep >= Self.countersResumeInterval
        if sweep { lastCountersSweep = now }
        for id in current.needingResume {
            guard let status = current.status(id) else { continue }
            let mark = ResumeMark(status)
            // libtorrent marks every ticking torrent modified each tick (its transfer counters and times are in the
            // resume data); only pieces and state are worth a save every interval, counters alone once a minute.
            guard sweep || savedMarks[id] != mark else { continue }
            if qbt_save_resume(session.raw, id, true) == QBT_OK {
                pendingResumeSaves += 1
                savedMarks[id] = mark
            }
        }
        if sweep { savedMarks = savedMarks.filter { current.torrents[$0.key] != nil } }
    }

    public func saveResumeData(_ id: TorrentID) throws {
        try live()
        try check(qbt_save_resume(session.raw, id, false), id)
        pendingResumeSaves += 1
    }

    /// Saves the fast-resume data of every torrent changed since its last save, waits (bounded) for it to be stored,
    /// then aborts the session.
    ///
    /// Only the changed ones, as qBittorrent's shutdown (`only_if_modified`): every other torrent's data is stored
    /// already (each is saved when added and whenever libtorrent marks it modified; counters alone leave it marked until
    /// a save). Asking all of them made a stop with 200,000 stopped torrents encode and write 200,000 blobs that had
    /// not changed, well past the wait, and the alert queue holds 100,000 answers.
    public func shutdown(timeout: Duration) async {
        guard !closed else { return }
        let started = ContinuousClock.now
        let asked = Int(qbt_save_resume_all(session.raw, true))
        pendingResumeSaves += asked
        let deadline = ContinuousClock.now + timeout
        while pendingResumeSaves > 0 && ContinuousClock.now < deadline {
            await drainAsync()
            try? await Task.sleep(for: .milliseconds(20))
        }
        await drainAsync()
        // A batch the drain task is storing is let finish (bounded): cancelled below, its SQLite write would throw
        // CancellationError and the batch be lost (what a stop of 40,000 torrents did, past the wait above).
        let storeDeadline = ContinuousClock.now + Self.storeWait
        while storing > 0 && ContinuousClock.now < storeDeadline { try? await Task.sleep(for: .milliseconds(20)) }
        let saved = ContinuousClock.now
        closed = true
        background.tasks.withLock { tasks in for task in tasks { task.cancel() } }
        notifier.wake.finish()
        qbt_session_free(session.raw)
        logger.info("libtorrent stopped: fast-resume data of \(asked) changed torrent(s) saved in \(saved - started)\(pendingResumeSaves > 0 ? " (\(pendingResumeSaves) not answered in time)" : ""), the session closed in \(ContinuousClock.now - saved)")
        publisher.clear()
        hub.finish()
        for waiters in pieceReads.values { for w in waiters { w.resume(throwing: EngineError.failed("engine shut down")) } }
        pieceReads = [:]
        pendingAdds = [:]
        finish(batches: Array(addBatches.keys))
        expireFreshWaiters(upTo: .max)
    }

    // MARK: the alert drain

    private func pop() -> [RawEvent] { session.popEvents() }

    /// Synchronous part of the drain; resume data is handed on by `drainAsync`.
    private var unsavedResume: [(id: TorrentID, data: [UInt8])] = []
    /// What each torrent's pieces and state were at its last periodic save, and when counters alone were last saved.
    private var savedMarks: [TorrentID: ResumeMark] = [:]
    private var lastCountersSweep = ContinuousClock.now
    /// Torrents a command changed since the last drain (`touched`).
    private var commanded: Set<TorrentID> = []
    /// Torrents removed by a command whose removal libtorrent has not confirmed yet: a state update it posted before
    /// the removal still lists them, and must not bring them back.
    private var removing: Set<TorrentID> = []
    /// How often a torrent whose only change is its transfer counters and times saves them (qBittorrent: every
    /// `save_resume_data_interval` minutes, 60 by default; qbtd reports 1).
    static let countersResumeInterval: Duration = .seconds(60)
    /// Every how many seconds statuses are asked for while no reader looks.
    static let quietPostEvery = 10

    private func drain() {
        guard !closed else { return }
        var statuses: [TorrentStatus] = []
        // Every alert posted before a command was answered is popped by this drain: the commanded torrents'
        // statuses are read again after it, so they win over any state update from before the command.
        var touchedIDs = commanded
        commanded = []
        var removed: Set<TorrentID> = []
        var events: [EngineEvent] = []
        var completed: [Int] = []
        var saved: [TorrentID] = []
        for event in pop() {
            switch event {
            case .status(let status):
                if !removing.contains(status.id) { statuses.append(status) }
            case .added(let added):
                removed.remove(added.id)
                removing.remove(added.id)
                touchedIDs.insert(added.id)
                events.append(.added(added.id))
                if let batch = settle(added.id, .success(added)) { completed.append(batch) }
            case .addFailed(let id, let error):
                if let batch = settle(id, .failure(error)) { completed.append(batch) }
            case .event(let e):
                if case .listenFailed(let why) = e { logger.warning("peer listen failed: \(why)") }
                switch e {
                case .removed(let id): removed.insert(id); removing.remove(id); touchedIDs.remove(id)
                case .metadataReceived(let id), .storageMoved(let id), .fileRenamed(let id, _, _):
                    touchedIDs.insert(id)
                    savedMarks[id] = nil  // file names and places are in the resume data: the next periodic save takes it
                case .finished(let id), .stateChanged(let id, _),
                     .paused(let id), .resumed(let id), .checked(let id), .torrentError(let id, _), .fileError(let id, _),
                     .resumeRejected(let id, _), .storageMoveFailed(let id, _):
                    touchedIDs.insert(id)
                default: break
                }
                events.append(e)
            case .resumeData(let id, let data):
                unsavedResume.append((id, data))
                saved.append(id)
            case .resumeDataFailed(let id, let why, let notModified):
                pendingResumeSaves = max(0, pendingResumeSaves - 1)
                if notModified { saved.append(id) }
                if !notModified { logger.warning("fast-resume save failed for \(id): \(why)") }
            case .alertsDropped(let why):
                logger.error("libtorrent dropped alerts (queue overflow): \(why)")
                completed += settleLostAdds()
                // A removed torrent added again may have lost its add alert: it is no longer on its way out.
                removing.subtract(session.statuses(removing).map(\.id))
            case .readPiece(let id, let piece, let data, let why):
                let waiters = pieceReads.removeValue(forKey: "\(id):\(piece)") ?? []
                for w in waiters {
                    if let data { w.resume(returning: data) } else { w.resume(throwing: EngineError.failed(why)) }
                }
            }
        }
        // A finished piece changes no status: stream readers waiting for it are told before the trips to libtorrent's
        // network thread below, which wait behind whatever that thread is doing (a download in full flow).
        let isPiece: (EngineEvent) -> Bool = { if case .pieceFinished = $0 { true } else { false } }
        hub.yield(events.filter(isPiece))
        events.removeAll(where: isPiece)
        // The events that matter are published at once, not at the next tick.
        // One trip to the network thread for all of them (a restore brings thousands).
        statuses += session.statuses(touchedIDs)
        // A removal alert for a torrent that is back (removed and added again between two drains) removes nothing.
        for status in session.statuses(removed) { statuses.append(status); removed.remove(status.id) }
        let counters = readCounters()
        publisher.publish(statuses.filter { !removed.contains($0.id) }, removed: Array(removed), counters: counters)
        if counters.peerConnections > 0 && tickIsQuiet.withLock({ $0 }) { setQuietTick(false) }  // a peer: brisk at once
        publisher.resumeSaved(saved)
        answerFreshWaiters()
        // Handed out after the snapshot they change is published: a subscriber reading it sees their effect.
        hub.yield(events)
        finish(batches: completed)
    }

    /// After an alert-queue overflow, an add whose alert was lost is settled by asking libtorrent directly.
    private func settleLostAdds() -> [Int] {
        var completed: [Int] = []
        let known = Set(session.statuses(pendingAdds.keys).map(\.id))
        for (id, queue) in pendingAdds {
            for _ in queue {
                let result: Result<AddedTorrent, EngineError> = known.contains(id)
                    ? .success(AddedTorrent(id: id, trackers: (try? trackers(id))?.map(\.url) ?? [], webSeeds: (try? webSeeds(id)) ?? []))
                    : .failure(.failed("libtorrent dropped the answer to this add"))
                if let batch = settle(id, result) { completed.append(batch) }
            }
        }
        return completed
    }

    /// Hands `event` out after every alert libtorrent posted before it (drained here first): a subscriber sees them
    /// in the order they happened. Resume data the drain took is handed on by the drain that the alerts' own wake-up
    /// brings (it follows every alert posted).
    func yieldAfterPending(_ event: EngineEvent) {
        drain()
        hub.yield([event])
    }

    /// Fast-resume batches handed to `onResumeData` and not stored yet (`shutdown` waits for them).
    private var storing = 0
    /// How long `shutdown` waits at most for a batch being stored, past its own timeout.
    static let storeWait: Duration = .seconds(60)

    private func drainAsync() async {
        drain()
        while !unsavedResume.isEmpty {
            let batch = unsavedResume
            unsavedResume = []
            storing += 1
            await onResumeData(batch)
            storing -= 1
            pendingResumeSaves = max(0, pendingResumeSaves - batch.count)
        }
    }

}

struct PendingAdd {
    let batch: Int
    let index: Int
    let saveResume: Bool
}

struct AddBatch {
    var results: [Result<AddedTorrent, EngineError>?]
    var remaining: Int
    let continuation: CheckedContinuation<[Result<AddedTorrent, EngineError>], Never>
}

/// The drain and periodic-save tasks, kept outside the actor's state because they are made in `init`
/// after `self` exists.
final class BackgroundTasks: Sendable {
    let tasks = Mutex<[Task<Void, Never>]>([])
}

/// Owns the wake-up continuation the C notify callback pokes (from libtorrent's thread).
final class AlertNotifier: Sendable {
    let wake: AsyncStream<Void>.Continuation
    init(_ wake: AsyncStream<Void>.Continuation) { self.wake = wake }
}

func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
