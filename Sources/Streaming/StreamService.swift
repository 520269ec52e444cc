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
}
