import Foundation
import Logging
import QBTCore
import TorrentEngine

/// Plays files of torrents while they download. Each stream is one file of one torrent behind an unguessable
/// token. Readers park until the piece under them verifies (woken by the engine's piece-finished event, no
/// polling); what is on disk is kept in process per torrent (`PieceMap`, by the same events), so a chunk read asks
/// neither the engine nor libtorrent. The pieces under and ahead of every reader get deadlines (one engine call), the
/// window sized by the measured download rate with the client's `networkMbps` as the first guess, and a wider
/// high-priority prefetch behind it. A seek clears the old deadlines at once. Torrents qbtd already has are read in place; the others download into the
/// stream cache, one folder per info hash, and go when their last stream stops.
public actor StreamService {
    public struct Configuration: Sendable {
        public var cacheDirectory: String
        /// Keep a stream torrent's data when its stream stops, if it completed.
        public var keepCompleted = false
        public var metadataTimeout: Duration = .seconds(60)
        /// How long a reader waits for one piece before the response ends with an error.
        public var stallTimeout: Duration = .seconds(60)
        /// Bytes the stream cache may hold per torrent; the least recently read pieces go first, never the ones
        /// under or ahead of a reader.
        public var budget: Int64 = 4 << 30

        public init(cacheDirectory: String) { self.cacheDirectory = cacheDirectory }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unknownStream
        case invalidSource(String)
        case fileIndex(Int, count: Int)
        case noFiles
        case metadataTimeout(Int)
        case stopped
        case stalled(Int)
        /// The torrent's data cannot be written (a full or read-only disk): waiting would be a stall.
        case storage(String)

        public var description: String {
            switch self {
            case .unknownStream: "no such stream"
            case .invalidSource(let why): "not a torrent: \(why)"
            case .fileIndex(let index, let count): "fileIndex \(index) is out of range: the torrent has \(count) file(s), 0…\(count - 1)"
            case .noFiles: "the torrent has no files"
            case .metadataTimeout(let seconds):
                "the torrent's metadata did not arrive within \(seconds) s: check the magnet's trackers or peers"
            case .stopped: "the stream was stopped"
            case .stalled(let seconds): "no data arrived for \(seconds) s: the torrent has no reachable peers"
            case .storage(let why):
                "the stream's data cannot be written (\(why)): free space where it downloads (the stream cache or "
                    + "the torrent's save path), then play again"
            }
        }
    }

    public enum Source: Sendable {
        case magnet(String)
        case metainfo([UInt8])
        case hash(TorrentID)
    }

    /// One stream: a file of a torrent, and the positions of its readers.
    public struct Stream: Sendable {
        public let id: String
        public let torrentID: TorrentID
        public let fileIndex: Int
        public let file: TorrentFile
        public let savePath: String
        public let pieceLength: Int
        public let title: String
        public let mimeType: String
        /// Downloaded into the stream cache for this stream (not one of qbtd's torrents).
        public let owned: Bool
        /// The client's network speed guess, bytes per second.
        let networkRate: Int
        /// The torrent's pieces on disk, shared by its streams: readers test it after a read, without a hop.
        public let have: PieceMap
        var readers: [UUID: Int64] = [:]
        public var lastPosition: Int64 = 0

        public var fileName: String { (file.path as NSString).lastPathComponent }
        public var path: String { savePath + "/" + file.path }
        public func piece(at position: Int64) -> Int { Int((file.offset + position) / Int64(pieceLength)) }
        var pieces: ClosedRange<Int> { piece(at: 0)...piece(at: max(0, file.size - 1)) }
        /// Where piece `p` ends, as a file position (exclusive).
        public func end(of p: Int) -> Int64 { min(file.size, Int64(p + 1) * Int64(pieceLength) - file.offset) }
        /// Whether the piece under `position` is on disk. After a read: an eviction may have forgotten and punched it
        /// meanwhile (its bit goes before its bytes do); then the bytes read are not the piece's, and the reader waits
        /// for it again.
        public func isOnDisk(at position: Int64) -> Bool { have.has(piece(at: position)) }

        /// How far from `position` (where the reader just waited) the file's bytes are on disk to stay, through
        /// `last`, for sending with sendfile(2) (the kernel reads them later). From the map: no hop, no engine.
        /// - A stream-cache torrent's pieces past the reader may be punched out: the run is the rest of the piece, and
        ///   the caller keeps the reader on it until the kernel has taken the bytes (`holdUntilSent`). A punch that
        ///   does not start on a page boundary zeroes the shared page in place, under bytes the kernel may still be
        ///   sending: when the file's pieces are not page-aligned the answer is nil (read and copy instead).
        /// - Otherwise, the run of pieces the torrent has, up to `maxRun` bytes.
        public func run(from position: Int64, through last: Int64) -> (end: Int64, holdUntilSent: Bool)? {
            let first = piece(at: position)
            let end = min(last + 1, self.end(of: first))
            guard end > position else { return nil }
            if owned { return file.offset % 4096 == 0 ? (end, true) : nil }
            let cap = min(last + 1, position + StreamService.maxRun)
            guard end < cap else { return (end, false) }
            // The run ends where the first piece after this one that is not on disk starts.
            let missing = have.firstMissing(from: first + 1, before: piece(at: cap - 1) + 1)
            return (min(cap, max(end, self.end(of: missing - 1))), false)
        }
    }

    let engine: any TorrentEngine
    let torrents: TorrentService
    let configuration: Configuration
    var streams: [String: Stream] = [:]
    /// Readers parked on a piece: torrent → piece → waiter.
    var waiters: [TorrentID: [Int: [UUID: (stream: String, continuation: CheckedContinuation<Void, Error>)]]] = [:]
    /// Per torrent: the pieces with deadlines, and the priorities the scheduler gave (window and prefetch).
    var scheduled: [TorrentID: (deadlines: [Int], prefetch: [Int: Int])] = [:]
    /// Stream-cache torrents being removed: their folder goes once libtorrent has deleted the files.
    var releasing: Set<TorrentID> = []
    /// The last write a torrent's disk refused, until a piece of it is written again: why its readers cannot wait.
    var writeFaults: [TorrentID: String] = [:]
    /// Stream-cache torrents whose evicted pieces are being forgotten and punched out.
    var forgetting: Set<TorrentID> = [] {
        didSet { for id in oldValue.subtracting(forgetting) { for c in forgetWaiters.removeValue(forKey: id) ?? [] { c.resume() } } }
    }
    /// Readers parked until a torrent's evicted pieces are gone, not polling.
    var forgetWaiters: [TorrentID: [CheckedContinuation<Void, Never>]] = [:]
    /// Callers parked until a torrent's status says something (metadata, checked), re-tested on its events.
    var statusWaiters: [TorrentID: [UUID: (test: @Sendable (TorrentStatus) -> Bool, continuation: CheckedContinuation<TorrentStatus?, Never>)]] = [:]
    /// When each piece was last read (a counter), for least-recently-read eviction.
    var lastRead: [TorrentID: [Int: UInt64]] = [:]
    var readClock: UInt64 = 0
    /// Peers seen per torrent: a seed that hangs up (one that does not understand lt_donthave may take the cache for a
    /// seed) is called again when a reader needs data.
    var knownPeers: [TorrentID: Set<String>] = [:]
    /// Torrents whose known peers are being called again (`reconnect`).
    var reconnecting: Set<TorrentID> = []
    var enforcing: Set<TorrentID> = []
    /// Torrents whose pieces finished while their eviction ran: it goes round once more, so no finish is missed.
    var enforceAgain: Set<TorrentID> = []
    /// Per streamed torrent, its pieces on disk (`PieceMap`); dropped when its last stream goes.
    var have: [TorrentID: PieceMap] = [:]
    /// Streams being opened per torrent: its piece map stays while one is.
    var opening: [TorrentID: Int] = [:]
    /// Per torrent, the forgets asked of the engine and the `piecesForgotten` events handled, and evictions waiting
    /// for their forget's event.
    var forgetsAsked: [TorrentID: Int] = [:]
    var forgetsSeen: [TorrentID: Int] = [:]
    var forgetEventWaiters: [TorrentID: [CheckedContinuation<Void, Never>]] = [:]
    /// When each torrent's peers were last noted (`reschedule`): once in a while, not at every piece a reader enters.
    var peersNoted: [TorrentID: ContinuousClock.Instant] = [:]
    private var eventTask: Task<Void, Never>?
    let logger = Logger(label: "qbtd.stream")

    public init(engine: any TorrentEngine, torrents: TorrentService, configuration: Configuration) async throws {
        self.engine = engine
        self.torrents = torrents
        self.configuration = configuration
        try FileManager.default.createDirectory(atPath: configuration.cacheDirectory, withIntermediateDirectories: true)
        let events = await engine.events()
        eventTask = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
    }

    func handle(_ event: EngineEvent) {
        if let id = event.torrentID, let parked = statusWaiters[id], let status = engine.snapshot.status(id) {
            for (key, waiter) in parked where waiter.test(status) { finishWaiting(id, key, status) }
        }
        switch event {
        case .pieceFinished(let id, let piece):
            writeFaults[id] = nil  // it writes again
            have[id]?.insert(piece)
            wakeReaders(id, piece)
            if streams.values.contains(where: { $0.torrentID == id && $0.owned }) {
                Task { await self.enforceBudget(id) }
            }
        case .piecesForgotten(let id, let pieces):
            // In the events' order: a piece that finished before the forget was set before this clears it.
            have[id]?.remove(pieces)
            forgetsSeen[id, default: 0] += 1
            for waiter in forgetEventWaiters.removeValue(forKey: id) ?? [] { waiter.resume() }
        case .hashFailed(let id, let piece):
            have[id]?.remove([piece])
        case .stateChanged(let id, let state) where state == .checkingFiles || state == .checkingResumeData:
            // A recheck starts from nothing and raises no piece events: what it found is read once it is done.
            have[id]?.removeAll()
        case .checked(let id):
            if have[id] != nil { Task { await self.refill(id) } }
        case .fileError(let id, let fault) where fault.operation == .write:
            // libtorrent stops downloading the torrent (upload mode, or an error): its parked readers would only
            // stall. A reader of pieces already on disk goes on.
            writeFaults[id] = fault.message
            for (piece, parked) in waiters[id] ?? [:] {
                for key in parked.keys { resume(id, piece, key, with: .storage(fault.message)) }
            }
        case .removed(let id):
            have[id]?.removeAll()
            for (piece, parked) in waiters[id] ?? [:] { for key in parked.keys { resume(id, piece, key, with: .stopped) } }
        case .filesDeleted(let id), .deleteFailed(let id, _):
            if releasing.remove(id) != nil {
                try? FileManager.default.removeItem(atPath: configuration.cacheDirectory + "/" + id)
            }
        default:
            break
        }
    }

    // MARK: prepare, stop, list

    public func prepare(_ source: Source, fileIndex: Int?, title: String?, trackers: [String],
                        peers: [(host: String, port: Int)] = [], networkMbps: Double?) async throws -> Stream {
        let id: TorrentID
        var owned = false
        switch source {
        case .hash(let hash):
            id = hash.lowercased()
            guard await torrents.exists(id) || streams.values.contains(where: { $0.torrentID == id }) else {
                throw Failure.invalidSource("no torrent with hash \(hash)")
            }
            // A stream-cache torrent stays the cache's, whoever names it next.
            owned = streams.values.first { $0.torrentID == id }?.owned ?? false
        case .magnet, .metainfo:
            var request = AddTorrentRequest(source: .magnet(""), savePath: "")
            switch source {
            case .magnet(let uri):
                let extra = trackers.map { "&tr=" + (($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)) ?? $0) }
                request.source = .magnet(uri + extra.joined())
            case .metainfo(let bytes):
                request.source = .metainfo(bytes)
                // Added stopped: its check ends at once (no files yet), and the `resume` after the peers are
                // named connects them on the spot instead of at the session's next tick (up to 500 ms).
                request.stopped = true
            case .hash: break
            }
            do { id = try ParsedTorrent(request.source).id } catch { throw Failure.invalidSource("\(error)") }
            if await torrents.exists(id) || streams.values.contains(where: { $0.torrentID == id }) {
                owned = streams.values.first { $0.torrentID == id }?.owned ?? false
            } else {
                request.savePath = configuration.cacheDirectory + "/" + id
                try FileManager.default.createDirectory(atPath: request.savePath, withIntermediateDirectories: true)
                do { _ = try await engine.add(request) } catch { throw Failure.invalidSource("\(error)") }
                owned = true
            }
        }
        // A stream-cache torrent that no stream ends up using goes again (a bad fileIndex, no metadata in time).
        let fresh = owned && !streams.values.contains { $0.torrentID == id }
        do {
            return try await openStream(id, owned: owned, fileIndex: fileIndex, title: title, peers: peers, networkMbps: networkMbps)
        } catch {
            // Unless another prepare opened a stream on it meanwhile.
            if !streams.values.contains(where: { $0.torrentID == id }) {
                try? await engine.setStreaming(id, false)
                if fresh { await release(id, keep: false) }
                dropPieceMapIfUnused(id)
            }
            throw error
        }
    }

    private func openStream(_ id: TorrentID, owned: Bool, fileIndex: Int?, title: String?, peers: [(host: String, port: Int)],
                      networkMbps: Double?) async throws -> Stream {
        opening[id, default: 0] += 1
        defer {
            opening[id, default: 1] -= 1
            if opening[id] == 0 { opening[id] = nil }
        }
        let status = try await waitForMetadata(id)
        // The torrent keeps its seeds while it streams: a stream-cache torrent can want an evicted piece again at the
        // next seek.
        try? await engine.setStreaming(id, true)
        if !peers.isEmpty {
            // libtorrent drops peers named while it checks a new torrent: name them once it is done (at most 1 s).
            _ = await waitForStatus(id, timeout: .seconds(1)) { $0.state != .checkingFiles && $0.state != .checkingResumeData }
            for peer in peers { try? await engine.connectPeer(id, host: peer.host, port: peer.port) }
        }
        let files = try await engine.files(id)
        guard !files.isEmpty else { throw Failure.noFiles }
        let index = try fileIndex.map { i -> Int in
            guard files.indices.contains(i) else { throw Failure.fileIndex(i, count: files.count) }
            return i
        } ?? Self.defaultFile(files)
        let file = files[index]
        if owned {
            // Only the streamed file (and the other streams' files) download, in the background at low priority
            // while they fit below the level where eviction starts; larger ones only where the scheduler says (their
            // pieces at 0, not the file: libtorrent keeps a skipped file's pieces in a part file, out of readers' way).
            let wanted = Set(streams.values.filter { $0.torrentID == id }.map(\.file.index) + [file.index])
            for f in files {
                try? await engine.setFilePriority(id, file: f.index, priority: wanted.contains(f.index) ? 1 : 0)
            }
            // Every wanted file's pieces: setting a file's priority reset those of the files already streamed too.
            let streamed = files.filter { wanted.contains($0.index) }
            if backgroundPriority(streamed) == 0 {
                for f in streamed { try? await engine.setPiecesPriority(id, pieces: Range(f.pieceRange), priority: 0) }
            }
            try? await engine.resume(id)  // which also lets a torrent a full disk stopped try again
            writeFaults[id] = nil
        }
        let total = files.map { $0.offset + $0.size }.max() ?? 0
        let pieceCount = max(status.numPieces, Int((total + Int64(status.pieceLength) - 1) / Int64(max(1, status.pieceLength))))
        // The map is registered now (its events keep it from here on) and filled from the engine once the first
        // pieces are asked for: a trip to libtorrent's thread before them lets it fill the peer's queue with
        // background pieces first (a first byte 100 ms later, one prepare in three).
        let (map, fresh) = pieceMap(id, count: pieceCount)
        var token = [UInt8](repeating: 0, count: 16)
        for i in token.indices { token[i] = UInt8.random(in: 0...255) }
        let rate = Int((networkMbps ?? 20) * 125_000)
        let stream = Stream(id: token.map { String(format: "%02x", $0) }.joined(), torrentID: id, fileIndex: index, file: file,
                            savePath: status.savePath, pieceLength: status.pieceLength,
                            title: title.flatMap { $0.isEmpty ? nil : $0 } ?? (file.path as NSString).lastPathComponent,
                            mimeType: MediaType.of(file.path), owned: owned, networkRate: max(rate, 125_000), have: map)
        streams[stream.id] = stream
        // Container indexes live at the ends (MP4 moov, MKV cues): head and tail first.
        let ends = Set([stream.pieces.lowerBound, stream.pieces.lowerBound + 1, stream.pieces.upperBound - 1, stream.pieces.upperBound]
            .filter(stream.pieces.contains)).sorted()
        // Priority gets them picked as soon as a peer unchokes (a deadline waits for libtorrent's one-second
        // time-critical tick): the first piece alone at the top, so it is requested first. In-place torrents keep
        // their priorities: they get deadlines, in one call.
        if owned {
            for (order, p) in ends.enumerated() { try? await engine.setPiecePriority(id, piece: p, priority: order == 0 ? 7 : 6) }
        } else {
            try? await engine.setPieceDeadlines(id, ends.enumerated().map { (piece: $1, milliseconds: $0 * 50) }, clearingOthers: false)
        }
        if fresh { await refill(id) }
        return stream
    }

    func waitForMetadata(_ id: TorrentID) async throws -> TorrentStatus {
        _ = try engine.status(id)
        guard let status = await waitForStatus(id, timeout: configuration.metadataTimeout, until: { $0.hasMetadata }) else {
            throw Failure.metadataTimeout(Int(configuration.metadataTimeout.components.seconds))
        }
        return status
    }

    /// The torrent's status once `test` holds, re-tested on the torrent's events (the engine publishes the status
    /// before it hands them out); nil after `timeout`.
    func waitForStatus(_ id: TorrentID, timeout: Duration,
                       until test: @escaping @Sendable (TorrentStatus) -> Bool) async -> TorrentStatus? {
        if let status = engine.snapshot.status(id), test(status) { return status }
        let key = UUID()
        return await withCheckedContinuation { continuation in
            statusWaiters[id, default: [:]][key] = (test, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.finishWaiting(id, key, nil)
            }
        }
    }

    private func finishWaiting(_ id: TorrentID, _ key: UUID, _ status: TorrentStatus?) {
        guard let waiter = statusWaiters[id]?.removeValue(forKey: key) else { return }
        if statusWaiters[id]?.isEmpty == true { statusWaiters[id] = nil }
        waiter.continuation.resume(returning: status)
    }

    /// The largest playable file, else the largest file.
    static func defaultFile(_ files: [TorrentFile]) -> Int {
        let playable = files.indices.filter { MediaType.isPlayable(files[$0].path) }
        let pool = playable.isEmpty ? Array(files.indices) : playable
        return pool.max { files[$0].size < files[$1].size } ?? 0
    }

    public func stream(_ token: String) throws -> Stream {
        guard let stream = streams[token] else { throw Failure.unknownStream }
        return stream
    }

    /// Ends the stream: its readers get a clean end, and a stream-cache torrent no other stream uses goes
    /// (its data too, unless kept because it completed).
    public func stop(_ token: String) async throws {
        guard let stream = streams.removeValue(forKey: token) else { throw Failure.unknownStream }
        if !streams.values.contains(where: { $0.torrentID == stream.torrentID }) {
            try? await engine.setStreaming(stream.torrentID, false)
        }
        for (piece, parked) in waiters[stream.torrentID] ?? [:] {
            for (key, waiter) in parked where waiter.stream == token { resume(stream.torrentID, piece, key, with: .stopped) }
        }
        if stream.owned, !streams.values.contains(where: { $0.torrentID == stream.torrentID }) {
            let complete = (try? engine.status(stream.torrentID).isFinished) ?? false
            await release(stream.torrentID, keep: configuration.keepCompleted && complete)
        } else {
            await reschedule(stream.torrentID)
        }
        dropPieceMapIfUnused(stream.torrentID)
    }

    /// The torrent's piece map, made for its first stream (`fresh`: then the caller fills it with `refill`, one call).
    func pieceMap(_ id: TorrentID, count: Int) -> (map: PieceMap, fresh: Bool) {
        if let map = have[id] { return (map, false) }
        let map = PieceMap(count: count)
        have[id] = map  // from here on its events keep it
        return (map, true)
    }

    /// Sets the pieces the engine says the torrent has (at first, and after a recheck), waking their readers.
    func refill(_ id: TorrentID) async {
        guard have[id] != nil, let states = try? await engine.pieceStates(id), let map = have[id] else { return }
        for piece in map.merge(states) { wakeReaders(id, piece) }
    }

    func dropPieceMapIfUnused(_ id: TorrentID) {
        guard opening[id] == nil, !streams.values.contains(where: { $0.torrentID == id }) else { return }
        have[id] = nil
        peersNoted[id] = nil
    }

    /// Removes a stream-cache torrent; unless kept, its data and folder go (the folder once libtorrent is done).
    func release(_ id: TorrentID, keep: Bool) async {
        scheduled[id] = nil
        if !keep { releasing.insert(id) }
        do { try await engine.remove(id, deleteFiles: !keep) } catch { releasing.remove(id) }
    }

    /// Stops every stream; returns how many there were.
    @discardableResult
    public func stopAll() async -> Int {
        let tokens = streams.keys.sorted()
        for token in tokens { try? await stop(token) }
        return tokens.count
    }

    public struct Report: Sendable {
        public let stream: Stream
        public let position: Int64
        /// Byte ranges of the file on disk, `[first, last]`.
        public let buffered: [[Int64]]
        public let downloadRate: Int
        public let peers: Int
        public let readers: Int
        public let state: String
    }

    /// Streams open and readers reading them now (for metrics).
    public var counts: (streams: Int, readers: Int) { (streams.count, streams.values.reduce(0) { $0 + $1.readers.count }) }

    public func list() async -> [Report] {
        await engine.freshen()
        var out: [Report] = []
        for stream in streams.values.sorted(by: { $0.id < $1.id }) {
            let status = try? engine.status(stream.torrentID)
            var buffered: [[Int64]] = []
            for p in stream.pieces where stream.have.has(p) {
                let first = max(0, Int64(p) * Int64(stream.pieceLength) - stream.file.offset), last = stream.end(of: p) - 1
                if let previous = buffered.last, previous[1] + 1 >= first { buffered[buffered.count - 1][1] = last }
                else { buffered.append([first, last]) }
            }
            out.append(Report(stream: stream, position: stream.readers.values.max() ?? stream.lastPosition, buffered: buffered,
                              downloadRate: status?.downloadRate ?? 0, peers: status?.numPeers ?? 0, readers: stream.readers.count,
                              state: status.map { "\($0.state)\($0.isFinished ? " finished" : "")\($0.paused ? " paused" : "")" } ?? "-"))
        }
        return out
    }

    // MARK: readers

    /// A reader at `position` needs the piece under it: the schedule follows it, and the call returns once the
    /// piece is on disk (or throws when the stream stops or no data arrives in time).
    public func waitForData(_ token: String, reader: UUID, position: Int64) async throws {
        // While pieces are being forgotten, nobody starts reading: the piece checked could be punched out next.
        if let current = streams[token], forgetting.contains(current.torrentID) {
            await withCheckedContinuation { forgetWaiters[current.torrentID, default: []].append($0) }
        }
        guard var stream = streams[token] else { throw Failure.stopped }
        let moved = stream.readers[reader].map { stream.piece(at: $0) != stream.piece(at: position) } ?? true
        stream.readers[reader] = position
        stream.lastPosition = position
        streams[token] = stream
        if moved { await reschedule(stream.torrentID) }
        let piece = stream.piece(at: position)
        let id = stream.torrentID
        readClock += 1
        lastRead[id, default: [:]][piece] = readClock
        // On disk: no wait, and no question to the engine (the map is kept by its events).
        if stream.have.has(piece) { return }
        let key = UUID()
        let stall = configuration.stallTimeout
        // Stopped while the schedule was being set: no waiter may outlive its stream.
        guard streams[token] != nil else { throw Failure.stopped }
        // A torrent that cannot write (libtorrent's upload mode after a full or read-only disk, or its error) fetches
        // nothing: waiting would only be a stall.
        if let fault = writeFaults[id], let status = engine.snapshot.status(id), status.uploadMode || !status.error.isEmpty {
            throw Failure.storage(fault)
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            // Checked and registered in one turn of the actor, where the piece's event sets its bit and wakes its
            // readers: it cannot be missed. From then on only that event wakes it; the timer only ends a stall.
            waiters[id, default: [:]][piece, default: [:]][key] = (token, continuation)
            Task { await self.watch(id, piece, key, stall: stall) }
        }
    }

    /// Watches one parked reader until the stall timeout: every few seconds a torrent that has lost every peer calls
    /// its known peers again (a seed that dropped the connection mid-piece is otherwise never asked again). The piece's
    /// event alone wakes the reader; this only ends a stall.
    func watch(_ id: TorrentID, _ piece: Int, _ key: UUID, stall: Duration) async {
        let step = Duration.seconds(2)
        var waited = Duration.zero
        while waited < stall {
            guard waiters[id]?[piece]?[key] != nil else { return }
            if waited > .zero, (try? engine.status(id))?.numPeers == 0 { reconnect(id) }
            let nap = min(step, stall - waited)
            try? await Task.sleep(for: nap)
            waited += nap
        }
        resume(id, piece, key, with: .stalled(Int(stall.components.seconds)))
    }

    /// The most bytes one `Stream.run` hands out: the reader's position (and its schedule) moves on at least this often.
    static let maxRun: Int64 = 64 << 20

    public func leave(_ token: String, reader: UUID) async {
        guard streams[token]?.readers.removeValue(forKey: reader) != nil, let id = streams[token]?.torrentID else { return }
        await reschedule(id)
    }

    /// Wakes a piece's readers, on the spot. libtorrent (qbtd's patch, contrib/libtorrent/piece-finished-on-disk.patch)
    /// posts a piece's event once it has passed its check and is on disk, so the event is the proof: no polling, and
    /// no asking libtorrent again (a trip to its network thread, busy with the very download the reader waits for).
    /// A stream-cache piece the cache forgot meanwhile is caught by the reader's `isOnDisk` before any byte of it
    /// goes out; the reader then waits for its next event, and `watch` ends a stall.
    func wakeReaders(_ id: TorrentID, _ piece: Int) {
        for key in waiters[id]?[piece]?.keys.map({ $0 }) ?? [] { resume(id, piece, key, with: nil) }
    }

    func resume(_ id: TorrentID, _ piece: Int, _ key: UUID, with failure: Failure?) {
        guard let waiter = waiters[id]?[piece]?.removeValue(forKey: key) else { return }
        if waiters[id]?[piece]?.isEmpty == true { waiters[id]?[piece] = nil }
        if let failure { waiter.continuation.resume(throwing: failure) } else { waiter.continuation.resume() }
    }

    /// Deadlines for the pieces under and ahead of every reader of the torrent, nearest first, the window sized by
    /// time: about 4 s of the measured download rate (the client's guess until there is one), 2 to 64 MiB; then a
    /// high-priority prefetch of twice that. Called when a reader enters another piece.
    func reschedule(_ id: TorrentID) async {
        let active = streams.values.filter { $0.torrentID == id && !$0.readers.isEmpty }
        engine.noteDemand()  // the window follows the measured rate: keep it measured every second while readers read
        let status = try? engine.status(id)
        let measured = status?.downloadRate ?? 0
        let lonely = status.map { $0.numPeers == 0 } ?? false
        // The peers, to call again should they all hang up: noted every few seconds (a trip to libtorrent's network
        // thread), not at every piece a reader enters.
        if !lonely, peersNoted[id].map({ $0.duration(to: .now) >= .seconds(5) }) ?? true {
            peersNoted[id] = .now
            for peer in (try? await engine.peers(id)) ?? [] { knownPeers[id, default: []].insert("\(peer.ip)|\(peer.port)") }
        }
        var urgent: [(piece: Int, order: Int)] = []
        var windowPieces = Set<Int>()
        var prefetch = Set<Int>()
        for stream in active {
            let rate = max(measured, stream.networkRate)
            // Window and prefetch (three windows) fit in a quarter of the cache budget of a stream-cache torrent.
            let cap = stream.owned ? Int(min(Int64(64 << 20), configuration.budget / 12)) : 64 << 20
            let window = min(cap, max(min(2 << 20, cap), rate * 4))
            let count = max(2, (window + stream.pieceLength - 1) / stream.pieceLength)
            for position in stream.readers.values {
                let first = stream.piece(at: position)
                for (order, p) in (first..<(first + count)).enumerated() where stream.pieces.contains(p) {
                    // A stream-cache torrent's window goes by priority; only the piece under the reader gets a
                    // deadline (too many deadlines crowd out the one that matters, libtorrent #5891).
                    if stream.owned && order > 0 { windowPieces.insert(p) } else { urgent.append((p, order)) }
                }
                for p in (first + count)..<(first + 3 * count) where stream.pieces.contains(p) { prefetch.insert(p) }
            }
        }
        var best: [Int: Int] = [:]
        for entry in urgent { best[entry.piece] = min(best[entry.piece] ?? .max, entry.order) }
        let pieces = best.keys.sorted { (best[$0]!, $0) < (best[$1]!, $1) }
        let before = scheduled[id] ?? ([], [:])
        if pieces != before.deadlines {
            // A seek (or a move) drops the old deadlines at once, then the new window is set nearest first: one call.
            try? await engine.setPieceDeadlines(id, pieces.map { (piece: $0, milliseconds: best[$0]! * 100) }, clearingOthers: true)
        }
        var prioritized: [Int: Int] = [:]
        // With no reader left, the scheduler's priorities go back too: leftovers at the top would compete with the
        // next seek's piece.
        if streams.values.contains(where: { $0.torrentID == id && $0.owned }) {
            // Pieces under readers 7, the window 6, the prefetch 5; pieces evicted earlier have priority 0 until a
            // reader needs them again, and ones no longer wanted go back to the background priority.
            for p in prefetch { prioritized[p] = 5 }
            for p in windowPieces { prioritized[p] = 6 }
            for p in pieces { prioritized[p] = 7 }
            let leaving = before.prefetch.keys.filter { prioritized[$0] == nil }
            if !leaving.isEmpty {
                let background = backgroundPriority(id)
                for p in leaving { try? await engine.setPiecePriority(id, piece: p, priority: background) }
            }
            for (p, level) in prioritized where before.prefetch[p] != level { try? await engine.setPiecePriority(id, piece: p, priority: level) }
        }
        scheduled[id] = (pieces, prioritized)
        // With the pieces wanted again, a torrent that had lost its peers (a seed hung up) calls them.
        if lonely && !pieces.isEmpty { reconnect(id) }
    }

    /// Connects the torrent's known peers again, now and a little later: a peer that has not yet seen the old
    /// connection close refuses a new one as a duplicate.
    func reconnect(_ id: TorrentID) {
        let peers = (knownPeers[id] ?? []).compactMap { entry -> (String, Int)? in
            let parts = entry.split(separator: "|")
            guard parts.count == 2, let port = Int(parts[1]) else { return nil }
            return (String(parts[0]), port)
        }
        // One round of calls per torrent at a time, however many readers and reschedules ask for it.
        guard !peers.isEmpty, reconnecting.insert(id).inserted else { return }
        Task {
            for delay in [0, 300, 1000, 3000] {
                try? await Task.sleep(for: .milliseconds(delay))
                for (host, port) in peers { try? await engine.connectPeer(id, host: host, port: port) }
            }
            reconnecting.remove(id)
        }
    }

    // MARK: the cache budget

    /// Keeps a stream-cache torrent's pieces on disk (finished and in progress) within the budget: the least
    /// recently read ones that no reader is on or heading to are forgotten by libtorrent (in place: the torrent keeps
    /// its peers and deadlines) and punched out of the files. Runs after every finished piece of such a torrent.
    func enforceBudget(_ id: TorrentID) async {
        // One eviction per torrent at a time; a piece finishing meanwhile sends it round once more.
        guard enforcing.insert(id).inserted else {
            enforceAgain.insert(id)
            return
        }
        defer { enforcing.remove(id) }
        for _ in 0..<8 {
            enforceAgain.remove(id)
            await evictOverBudget(id)
            if !enforceAgain.contains(id) { return }
        }
    }

    /// The background priority of a stream-cache torrent's streamed files: 1 (all of it, at low priority) while they
    /// fit below the level where eviction starts, else 0 (only what the scheduler asks for): pieces fetched far ahead
    /// of every reader would be evicted unread and fetched again. The torrent streams meanwhile, so having every piece
    /// it wants does not make it drop its seeds.
    func backgroundPriority(_ files: [TorrentFile]) -> Int {
        files.reduce(0) { $0 + $1.size } <= configuration.budget * 4 / 5 ? 1 : 0
    }

    func backgroundPriority(_ id: TorrentID) -> Int {
        backgroundPriority(Dictionary(grouping: streams.values.filter { $0.torrentID == id }, by: \.file.index).values.compactMap(\.first?.file))
    }

    private func evictOverBudget(_ id: TorrentID) async {
        guard let stream = streams.values.first(where: { $0.torrentID == id && $0.owned }) else { return }
        guard let states = try? await engine.pieceStates(id) else { return }
        let pieceLength = Int64(stream.pieceLength)
        let used = Int64(states.filter { $0 != .missing }.count) * pieceLength
        // Act at 80 % of the budget and go down to 50 %: pieces that start meanwhile fit, and evictions are few.
        guard used > configuration.budget * 4 / 5 else { return }
        // From here on no await until the pieces are forgotten: the readers and the schedule seen are the real ones.
        let streamsOfTorrent = streams.values.filter { $0.torrentID == id }
        let positions = streamsOfTorrent.flatMap { s in s.readers.values.map(s.piece(at:)) }
        let protected = Set(scheduled[id]?.deadlines ?? []).union(scheduled[id].map { Array($0.prefetch.keys) } ?? [])
            .union(positions)
        let reads = lastRead[id] ?? [:]
        // Pieces already read go first, least recently read first; then unread ones, farthest from any reader.
        func distance(_ p: Int) -> Int { positions.map { abs($0 - p) }.min() ?? p }
        let candidates = states.indices.filter { states[$0] == .have && !protected.contains($0) }
            .sorted { a, b in
                switch (reads[a], reads[b]) {
                case let (x?, y?): return (x, a) < (y, b)
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return (distance(a), a) > (distance(b), b)
                }
            }
        let count = Int((used - configuration.budget / 2 + pieceLength - 1) / pieceLength)
        let evicted = Array(candidates.prefix(count))
        guard !evicted.isEmpty else { return }
        logger.info("stream cache: forgetting \(evicted.count) piece(s) of \(id) (\(used >> 20) MiB on disk, budget \(configuration.budget >> 20) MiB): \(evicted.sorted()); readers at pieces \(positions.sorted())")
        forgetting.insert(id)
        defer { forgetting.remove(id) }  // wakes the readers parked meanwhile
        // Every forget the engine does raises one event; this one's is the `mine`-th.
        forgetsAsked[id, default: 0] += 1
        let mine = forgetsAsked[id, default: 0]
        guard let forgotten = try? await engine.forgetPieces(id, evicted) else {
            forgetsAsked[id, default: 1] -= 1  // refused: no event comes
            return
        }
        // Their bits go first (by the forget's event, in order with the pieces' events), then their bytes: a reader
        // that read a punched hole finds its piece gone from the map after the read.
        while forgetsSeen[id, default: 0] < mine {
            await withCheckedContinuation { forgetEventWaiters[id, default: []].append($0) }
        }
        // Punched at once, before a reader can ask for a piece again and have it downloaded anew; only the pieces
        // libtorrent forgot (one still being written to disk stays, and is evicted another time).
        let files = Dictionary(grouping: streamsOfTorrent, by: \.file.index).values.compactMap(\.first)
        for piece in forgotten {
            for s in files {
                Self.punch(s.path, from: Int64(piece) * pieceLength - s.file.offset, to: Int64(piece + 1) * pieceLength - s.file.offset,
                           size: s.file.size)
            }
            lastRead[id]?[piece] = nil
        }
    }

    /// Frees the file's blocks in `[from, to)` (clamped to the file), keeping its size.
    static func punch(_ path: String, from: Int64, to: Int64, size: Int64) {
        let start = max(0, from), end = min(size, to)
        guard end > start else { return }
        _ = LibtorrentEngine.punchHole(path, offset: start, length: end - start)
    }
}
