import CLibtorrent
import Foundation
import Logging
import Synchronization

/// What to add: a .torrent or a magnet, where to save it, and how to start it.
public struct AddTorrentRequest: Sendable {
    public enum Source: Sendable, Equatable {
        case metainfo([UInt8])
        case magnet(String)
    }

    public var source: Source
    /// Fast-resume data this engine wrote earlier; when present it wins over `source` (which stays the fallback).
    public var resumeData: [UInt8]?
    public var savePath: String
    public var stopped = false
    public var sequential = false
    public var skipChecking = false
    /// Bytes per second, 0 for unlimited.
    public var uploadLimit = 0
    public var downloadLimit = 0

    public init(source: Source, savePath: String) {
        self.source = source
        self.savePath = savePath
    }
}

/// The one owner of the libtorrent session. Alerts are drained as soon as libtorrent signals them (no polling),
/// fanned out to subscribers, and fast-resume data goes to `onResumeData` before anyone is told it was saved.
public actor TorrentEngine {
    public typealias ResumeDataHandler = @Sendable (TorrentID, [UInt8]) async -> Void

    private let session: SessionPointer
    /// For the extensions in other files: the raw session, used on this actor only.
    var sessionRaw: OpaquePointer { session.raw }
    private let logger: Logger
    private let onResumeData: ResumeDataHandler
    private let notifier: AlertNotifier
    private var subscribers: [UUID: AsyncStream<EngineEvent>.Continuation] = [:]
    private var pieceReads: [String: [CheckedContinuation<[UInt8], Error>]] = [:]
    private var pendingResumeSaves = 0
    private let background = BackgroundTasks()
    private(set) var closed = false

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
        // Fresh session counters (peer connections, bytes, DHT nodes) each second, as qBittorrent's refresh timer.
        let stats = Task { [weak self] in
            while !Task.isCancelled {
                await self?.postSessionStats()
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
    public func events() -> AsyncStream<EngineEvent> {
        let (stream, continuation) = AsyncStream<EngineEvent>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(key) } }
        if closed { continuation.finish() }
        return stream
    }

    private func unsubscribe(_ key: UUID) { subscribers[key] = nil }

    // MARK: adding and removing

    /// Parses .torrent bytes or a magnet without adding anything: its id and name, or why it is not a torrent.
    public nonisolated static func inspect(_ source: AddTorrentRequest.Source) throws -> (id: TorrentID, name: String) {
        var name: UnsafeMutablePointer<CChar>?
        var error: UnsafeMutablePointer<CChar>?
        let (result, id) = withIDBuffer { idBuffer in
            switch source {
            case .metainfo(let bytes):
                bytes.withUnsafeBufferPointer { qbt_parse($0.baseAddress, $0.count, nil, idBuffer, &name, &error) }
            case .magnet(let uri):
                qbt_parse(nil, 0, uri, idBuffer, &name, &error)
            }
        }
        guard result == QBT_OK else { throw EngineError.invalidTorrent(takeCString(error)) }
        return (id, takeCString(name))
    }

    @discardableResult
    public func add(_ request: AddTorrentRequest) throws -> TorrentID { try live(); return try session.add(request) }

    public func remove(_ id: TorrentID, deleteFiles: Bool) throws {
        try live()
        try check(qbt_remove(session.raw, id, deleteFiles), id)
    }

    // MARK: control

    public func pause(_ id: TorrentID) throws { try live(); try check(qbt_pause(session.raw, id), id) }
    public func resume(_ id: TorrentID) throws { try live(); try check(qbt_resume(session.raw, id), id) }
    public func recheck(_ id: TorrentID) throws { try live(); try check(qbt_recheck(session.raw, id), id) }

    public func setSequential(_ id: TorrentID, _ on: Bool) throws {
        try live()
        try check(qbt_set_sequential(session.raw, id, on), id)
    }

    /// Bytes per second; 0 or less means unlimited.
    public func setLimits(_ id: TorrentID, upload: Int, download: Int) throws {
        try live()
        try check(qbt_set_limits(session.raw, id, Int32(clamping: upload), Int32(clamping: download)), id)
    }

    public func connectPeer(_ id: TorrentID, host: String, port: Int) throws {
        try live()
        guard (1...65535).contains(port) else { throw EngineError.invalidArgument("bad port \(port)") }
        let result = qbt_connect_peer(session.raw, id, host, UInt16(port))
        if result == QBT_ERR_INVALID { throw EngineError.invalidArgument("bad peer address \(host):\(port)") }
        try check(result, id)
    }

    // MARK: piece-level control (streaming, selective download)

    public func setPieceDeadline(_ id: TorrentID, piece: Int, milliseconds: Int, alertWhenAvailable: Bool = false) throws {
        try live()
        try check(qbt_set_piece_deadline(session.raw, id, Int32(piece), Int32(clamping: milliseconds), alertWhenAvailable), id)
    }

    public func resetPieceDeadline(_ id: TorrentID, piece: Int) throws {
        try live()
        try check(qbt_reset_piece_deadline(session.raw, id, Int32(piece)), id)
    }

    public func clearPieceDeadlines(_ id: TorrentID) throws { try live(); try check(qbt_clear_piece_deadlines(session.raw, id), id) }

    /// 0 = skip, 1 = low … 4 = default … 7 = top.
    public func setPiecePriority(_ id: TorrentID, piece: Int, priority: Int) throws {
        try live()
        try check(qbt_set_piece_priority(session.raw, id, Int32(piece), UInt8(clamping: priority)), id)
    }

    public func setFilePriority(_ id: TorrentID, file: Int, priority: Int) throws {
        try live()
        try check(qbt_set_file_priority(session.raw, id, Int32(file), UInt8(clamping: priority)), id)
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

    // MARK: status

    public func status(_ id: TorrentID) throws -> TorrentStatus { try live(); return try session.status(id) }

    public func allStatus() -> [TorrentStatus] { closed ? [] : session.allStatus() }

    /// The files of a torrent; empty until its metadata is known.
    public func files(_ id: TorrentID) throws -> [TorrentFile] { try live(); return try session.files(id) }


    /// The .torrent file of a torrent with metadata.
    public func exportTorrent(_ id: TorrentID) throws -> [UInt8] { try live(); return try session.exportTorrent(id) }

    // MARK: fast-resume

    /// Asks libtorrent for fast-resume data; each answer reaches `onResumeData`.
    public func saveResumeData(onlyIfModified: Bool) {
        guard !closed else { return }
        pendingResumeSaves += Int(qbt_save_resume_all(session.raw, onlyIfModified))
    }

    public func saveResumeData(_ id: TorrentID) throws {
        try live()
        try check(qbt_save_resume(session.raw, id, false), id)
        pendingResumeSaves += 1
    }

    /// Saves every torrent's fast-resume data, waits (bounded) for it to be stored, then aborts the session.
    public func shutdown(timeout: Duration = .seconds(10)) async {
        guard !closed else { return }
        saveResumeData(onlyIfModified: false)
        let deadline = ContinuousClock.now + timeout
        while pendingResumeSaves > 0 && ContinuousClock.now < deadline {
            await drainAsync()
            try? await Task.sleep(for: .milliseconds(20))
        }
        await drainAsync()
        closed = true
        background.tasks.withLock { tasks in for task in tasks { task.cancel() } }
        notifier.wake.finish()
        qbt_session_free(session.raw)
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
        for waiters in pieceReads.values { for w in waiters { w.resume(throwing: EngineError.failed("engine shut down")) } }
        pieceReads = [:]
    }

    // MARK: the alert drain

    private func pop() -> [RawEvent] { session.popEvents() }

    /// Synchronous part of the drain; resume data is handed on by `drainAsync`.
    private var unsavedResume: [(TorrentID, [UInt8])] = []

    private func drain() {
        guard !closed else { return }
        for event in pop() {
            switch event {
            case .event(let e):
                if case .listenFailed(let why) = e { logger.warning("peer listen failed: \(why)") }
                for continuation in subscribers.values { continuation.yield(e) }
            case .resumeData(let id, let data):
                unsavedResume.append((id, data))
            case .resumeDataFailed(let id, let why, let notModified):
                pendingResumeSaves = max(0, pendingResumeSaves - 1)
                if !notModified { logger.warning("fast-resume save failed for \(id): \(why)") }
            case .alertsDropped(let why):
                logger.error("libtorrent dropped alerts (queue overflow): \(why)")
            case .readPiece(let id, let piece, let data, let why):
                let waiters = pieceReads.removeValue(forKey: "\(id):\(piece)") ?? []
                for w in waiters {
                    if let data { w.resume(returning: data) } else { w.resume(throwing: EngineError.failed(why)) }
                }
            }
        }
    }

    private func drainAsync() async {
        drain()
        while !unsavedResume.isEmpty {
            let batch = unsavedResume
            unsavedResume = []
            for (id, data) in batch {
                await onResumeData(id, data)
                pendingResumeSaves = max(0, pendingResumeSaves - 1)
            }
        }
    }

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
