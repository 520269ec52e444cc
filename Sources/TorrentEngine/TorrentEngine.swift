import Foundation

/// What to add: a .torrent or a magnet, where to save it, and how to start it.
public struct AddTorrentRequest: Sendable {
    public enum Source: Sendable, Equatable {
        case metainfo([UInt8])
        case magnet(String)
    }

    public var source: Source
    /// The source parsed already (by the checks before the add); parsed here otherwise.
    public var parsed: ParsedTorrent?
    /// Fast-resume data this engine wrote earlier; when present it wins over `source` (which stays the fallback).
    public var resumeData: [UInt8]?
    public var savePath: String
    public var stopped = false
    public var sequential = false
    public var skipChecking = false
    /// Files allocated whole at once (qBittorrent's `preallocate_all`) instead of sparse.
    public var preallocate = false
    /// Never downloads a piece: a torrent added only to fetch its metadata.
    public var uploadMode = false
    /// Bytes per second, 0 for unlimited.
    public var uploadLimit = 0
    public var downloadLimit = 0
    /// Left to libtorrent's queue (when running); a forced torrent is not.
    public var autoManaged = false
    public var superSeeding = false
    /// Per-torrent peer connections and upload slots; 0 or less means unlimited.
    public var maxConnections = 0
    public var maxUploads = 0

    public init(source: Source, savePath: String) {
        self.source = source
        self.savePath = savePath
    }

    public init(_ parsed: ParsedTorrent, savePath: String) {
        self.init(source: parsed.source, savePath: savePath)
        self.parsed = parsed
    }
}

/// A torrent the engine took, with the sources it will announce to and fetch from.
public struct AddedTorrent: Sendable, Equatable {
    public var id: TorrentID
    public var trackers: [String]
    public var webSeeds: [String]

    public init(id: TorrentID, trackers: [String] = [], webSeeds: [String] = []) {
        self.id = id
        self.trackers = trackers
        self.webSeeds = webSeeds
    }
}

/// The BitTorrent engine behind qbtd: commands go in, snapshots and events come out. `LibtorrentEngine` is the
/// real one (libtorrent on a thread of its own); `MemoryEngine` keeps torrents in memory for tests that need
/// no swarm. Readers take `snapshot` (no call into the engine); everything else is a command posted to it.
public protocol TorrentEngine: Actor {
    /// The statuses and counters last published (about once a second while read, and at once after events and
    /// commands).
    nonisolated var snapshot: EngineSnapshot { get }
    /// Returns when `snapshot` is at most about a second old (API readers call it first).
    func freshen() async
    /// Someone reads statuses without going through `freshen` (a stream's rate): keep them coming every second.
    nonisolated func noteDemand()
    /// Every event from now on, in order. The stream ends when the engine shuts down.
    func events() -> AsyncStream<EngineEvent>
    func apply(_ settings: EngineSettings) throws
    /// The TCP port peers reach this session on.
    var listenPort: Int { get }

    /// Adds several torrents in one go (a restore, an add of many files); one result per request, in order.
    /// The fast-resume data of a torrent added without any is asked for at once.
    func add(_ requests: [AddTorrentRequest]) async -> [Result<AddedTorrent, EngineError>]
    func remove(_ id: TorrentID, deleteFiles: Bool) throws
    func pause(_ id: TorrentID) throws
    func resume(_ id: TorrentID) throws
    func recheck(_ id: TorrentID) throws
    /// Gives a torrent without metadata the info dict of a .torrent of the same info hash (`metadataReceived` follows);
    /// nothing happens when it has metadata.
    func setMetadata(_ id: TorrentID, torrentFile: [UInt8]) throws
    func setSequential(_ id: TorrentID, _ on: Bool) throws
    /// Bytes per second; 0 or less means unlimited.
    func setLimits(_ id: TorrentID, upload: Int, download: Int) throws
    func connectPeer(_ id: TorrentID, host: String, port: Int) throws
    func queue(_ id: TorrentID, _ move: QueueMove) throws
    func setAutoManaged(_ id: TorrentID, _ on: Bool) throws
    func setSuperSeeding(_ id: TorrentID, _ on: Bool) throws
    /// 0 or less means unlimited.
    func setConnectionLimits(_ id: TorrentID, connections: Int, uploads: Int) throws
    func setSSLCertificate(_ id: TorrentID, certificate: String, privateKey: String, dhParams: String) throws
    /// Renames one file (path relative to the save path); `fileRenamed` or `fileRenameFailed` follows.
    func renameFile(_ id: TorrentID, index: Int, to path: String) throws
    /// Moves the torrent's data; `storageMoved` or `storageMoveFailed` follows.
    func moveStorage(_ id: TorrentID, to path: String) throws

    // Pieces: streaming and selective download.
    /// Deadlines for several pieces in one call (one trip to the engine), the others' cleared first when
    /// `clearingOthers` (a stream's reader moved: its old window goes at once).
    func setPieceDeadlines(_ id: TorrentID, _ deadlines: [(piece: Int, milliseconds: Int)], clearingOthers: Bool) throws
    /// 0 = skip, 1 = low … 4 = default … 7 = top.
    func setPiecePriority(_ id: TorrentID, piece: Int, priority: Int) throws
    func setFilePriority(_ id: TorrentID, file: Int, priority: Int) throws
    /// A run of pieces at one priority, in one call. Unlike a file's priority 0 (whose pieces libtorrent keeps in a
    /// part file), the file's own data stays where a reader finds it.
    func setPiecesPriority(_ id: TorrentID, pieces: Range<Int>, priority: Int) throws
    func havePiece(_ id: TorrentID, piece: Int) throws -> Bool
    /// Reads a piece the torrent has (from disk or cache); throws if it is missing.
    func readPiece(_ id: TorrentID, piece: Int) async throws -> [UInt8]
    func pieceStates(_ id: TorrentID) throws -> [PieceState]
    /// Peers that have each piece (empty without metadata or once seeding).
    func pieceAvailability(_ id: TorrentID) throws -> [Int]
    func pieceHashes(_ id: TorrentID) throws -> [String]
    /// The torrent no longer has these pieces and skips them until a priority says otherwise; it stays in the
    /// session with its peers. Returns, once done, the pieces forgotten: only their data may go (a piece that passed
    /// its check but is not on disk yet stays had). Raises `piecesForgotten` with them, after the events before it.
    func forgetPieces(_ id: TorrentID, _ pieces: [Int]) throws -> [Int]
    /// Whether a stream reads the torrent. Meanwhile it keeps its seeds connected when it has every piece it wants (a
    /// stream cache's evicted pieces can be wanted again at the next seek). Off by default: redundant connections
    /// close as in libtorrent and qBittorrent.
    func setStreaming(_ id: TorrentID, _ on: Bool) throws

    // On demand: what the snapshot does not carry.
    /// The files of a torrent; empty until its metadata is known.
    func files(_ id: TorrentID) throws -> [TorrentFile]
    /// The .torrent file of a torrent with metadata.
    func exportTorrent(_ id: TorrentID) throws -> [UInt8]
    func trackers(_ id: TorrentID) throws -> [TrackerEntry]
    /// Replaces the tracker list (order and tiers as given).
    func setTrackers(_ id: TorrentID, _ trackers: [(url: String, tier: Int)]) throws
    func reannounce(_ id: TorrentID) throws
    func webSeeds(_ id: TorrentID) throws -> [String]
    func addWebSeed(_ id: TorrentID, _ url: String) throws
    func removeWebSeed(_ id: TorrentID, _ url: String) throws
    func peers(_ id: TorrentID) throws -> [PeerEntry]

    /// Blocks an IP address for every torrent (added to the filter in force); false if it is not an address.
    func ban(ip: String) -> Bool
    /// Every torrent drops its peers and announces again (the route to peers changed).
    func resetPeers()
    /// Pauses every transfer of the session, or resumes them; torrents keep their own states.
    func setSessionPaused(_ paused: Bool)
    /// Replaces the whole IP filter (the filter file's ranges and the bans) with these rules.
    func setIPFilter(_ rules: IPFilterRules)

    /// Asks for fast-resume data; each answer reaches the engine's resume-data handler.
    func saveResumeData(onlyIfModified: Bool)
    func saveResumeData(_ id: TorrentID) throws
    /// Saves every torrent's fast-resume data, waits (bounded) for it to be stored, then stops.
    func shutdown(timeout: Duration) async
}

extension TorrentEngine {
    /// Adds one torrent.
    @discardableResult
    public func add(_ request: AddTorrentRequest) async throws -> AddedTorrent { try await add([request])[0].get() }

    public func shutdown() async { await shutdown(timeout: .seconds(10)) }

    /// The last published status of one torrent.
    public nonisolated func status(_ id: TorrentID) throws -> TorrentStatus {
        guard let status = snapshot.status(id) else { throw EngineError.notFound(id) }
        return status
    }

    /// The latest session counters (at most a second old).
    public nonisolated var counters: SessionCounters { snapshot.counters }
}
