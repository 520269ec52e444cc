import Foundation

/// A node of a cluster as it last told the others: its row in the cluster's `nodes`, written by each heartbeat.
public struct NodeRecord: Sendable, Equatable {
    public var name: String
    /// Where its WebAPI listens, HOST:PORT.
    public var address: String
    /// Seconds since 1970.
    public var startedAt: Int64
    public var torrents: Int
    /// Bytes per second, summed over its torrents.
    public var downloadRate: Int64
    public var uploadRate: Int64
    /// Its default save path, and the free space there.
    public var savePath: String
    public var freeSpace: Int64
    /// Its part of the cluster's global limits as it runs now (its heartbeat says so).
    public var runningLimits: NodeLimits
    /// Its part as the cluster's limits were last divided (`ClusterLimits`); nil: not divided since it came.
    public var assignedLimits: NodeLimits?
    /// What its torrents want of the queue.
    public var queueDemand: QueueDemand
    /// It said goodbye (a clean stop).
    public var stopped: Bool
    /// Seconds since its last heartbeat, by the database's clock (filled in when read).
    public var silentFor: Int64
    /// Seconds it may stay silent before the others count it lapsed (`--node-lease`).
    public var lease: Int64
    /// What it moved, in bytes, as of its heartbeat (the cluster's `transfer/info` adds every node's).
    public var totals: TransferTotals

    public init(name: String, address: String, startedAt: Int64, torrents: Int = 0, downloadRate: Int64 = 0,
                uploadRate: Int64 = 0, savePath: String = "", freeSpace: Int64 = 0, runningLimits: NodeLimits = .whole,
                assignedLimits: NodeLimits? = nil, queueDemand: QueueDemand = QueueDemand(), stopped: Bool = false,
                silentFor: Int64 = 0, lease: Int64 = 15, totals: TransferTotals = TransferTotals()) {
        self.queueDemand = queueDemand
        self.totals = totals
        self.lease = lease
        self.runningLimits = runningLimits
        self.assignedLimits = assignedLimits
        self.name = name
        self.address = address
        self.startedAt = startedAt
        self.torrents = torrents
        self.downloadRate = downloadRate
        self.uploadRate = uploadRate
        self.savePath = savePath
        self.freeSpace = freeSpace
        self.stopped = stopped
        self.silentFor = silentFor
    }
}

/// A node's transfer totals, in bytes: since it started (its session) and all time.
public struct TransferTotals: Sendable, Equatable {
    public var sessionDownload: Int64
    public var sessionUpload: Int64
    public var allTimeDownload: Int64
    public var allTimeUpload: Int64

    public init(sessionDownload: Int64 = 0, sessionUpload: Int64 = 0, allTimeDownload: Int64 = 0, allTimeUpload: Int64 = 0) {
        self.sessionDownload = sessionDownload
        self.sessionUpload = sessionUpload
        self.allTimeDownload = allTimeDownload
        self.allTimeUpload = allTimeUpload
    }

    /// Summed, wrapping (the numbers come from other machines: a corrupt one must not stop this node).
    public static func &+ (a: TransferTotals, b: TransferTotals) -> TransferTotals {
        TransferTotals(sessionDownload: a.sessionDownload &+ b.sessionDownload, sessionUpload: a.sessionUpload &+ b.sessionUpload,
                       allTimeDownload: a.allTimeDownload &+ b.allTimeDownload, allTimeUpload: a.allTimeUpload &+ b.allTimeUpload)
    }
}

/// A node's part of the cluster's global limits: of the download and upload rate limits, a fraction (0…1); of the
/// queue's active downloads, seeds and torrents, a number of slots (nil: the preference's own number, undivided).
public struct NodeLimits: Sendable, Equatable {
    public var download: Double
    public var upload: Double
    public var activeDownloads: Int?
    public var activeSeeds: Int?
    public var activeTorrents: Int?

    public init(download: Double, upload: Double, activeDownloads: Int? = nil, activeSeeds: Int? = nil, activeTorrents: Int? = nil) {
        self.download = download
        self.upload = upload
        self.activeDownloads = activeDownloads
        self.activeSeeds = activeSeeds
        self.activeTorrents = activeTorrents
    }

    /// All of them: a single server, or a node whose limits were not divided yet.
    public static let whole = NodeLimits(download: 1, upload: 1)
}

/// What a node's torrents want of the queue: how many would download and how many would seed if the queueing limits
/// let them (started and not forced: the ones the limits hold).
public struct QueueDemand: Sendable, Equatable {
    public var downloads: Int
    public var seeds: Int

    public init(downloads: Int = 0, seeds: Int = 0) {
        self.downloads = downloads
        self.seeds = seeds
    }
}

/// One torrent as a node published it for the others' listings: its view encoded by the node (nil: removed), and
/// where it stands in the cluster's sequence of changes.
public struct PublishedView: Sendable {
    public var id: String
    public var node: String
    public var seq: Int64
    public var body: Data?

    public init(id: String, node: String, seq: Int64, body: Data?) {
        self.id = id
        self.node = node
        self.seq = seq
        self.body = body
    }
}

/// What a cluster's nodes tell each other through the catalogue (`PostgresStore`): their heartbeats, and their
/// torrents as their listings show them.
public protocol NodeRegistry: Sendable {
    /// This node's heartbeat: its row, rewritten.
    func publish(_ node: NodeRecord) async throws
    func nodes() async throws -> [NodeRecord]
    /// The global limits divided: every node's part, written at once (the nodes not named have none).
    func assignLimits(_ limits: [String: NodeLimits]) async throws
    /// Wakes each time another node divided the limits again (and once after a lost connection).
    func limitChanges() -> AsyncStream<Void>
    /// This node's changed torrents (encoded views) and removed ones, in one transaction; the other nodes are woken.
    func publishViews(_ changed: [(id: String, body: Data)], removed: [String]) async throws
    /// The other nodes' views changed after `seq`, oldest first (at most `limit`).
    func views(after seq: Int64, limit: Int) async throws -> [PublishedView]
    /// Wakes each time another node published views; ends when the caller stops listening.
    func viewPublications() -> AsyncStream<Void>

    /// Wakes each time another node changed the cluster's categories or tags (and once after a lost connection).
    func labelChanges() -> AsyncStream<Void>
    /// Wakes each time another node changed the cluster's preferences (and once after a lost connection).
    func preferenceChanges() -> AsyncStream<Void>
    /// Wakes each time another node made, revoked or rescoped an API key (and once after a lost connection).
    func keyChanges() -> AsyncStream<Void>

    /// Queues a call for `target` (a torrent it runs) and wakes it; the id names the call's answer.
    func sendCommand(to target: String, _ request: Data) async throws -> Int64
    /// The calls queued for this node, taken (each by one taker only).
    func takeCommands(limit: Int) async throws -> [(id: Int64, request: Data)]
    /// A taken call's answer, for its sender (who is woken).
    func answerCommand(_ id: Int64, _ answer: Data) async throws
    /// A sent call's outcome, once woken or tired of waiting: its answer, or that it will never run (withdrawn
    /// before its node took it), or that its node took it without answering yet.
    func collectAnswer(_ id: Int64) async throws -> CommandOutcome
    /// The names of the nodes calls were queued for, as they are (a "" after a lost connection: look again).
    func commandNotifications() -> AsyncStream<String>
    /// The ids of the calls answered, as they are (a "" after a lost connection: look again).
    func answerNotifications() -> AsyncStream<String>
}

/// What became of a call sent to another node.
public enum CommandOutcome: Sendable {
    case answered(Data)
    /// Its node had not taken it: withdrawn, it never runs.
    case withdrawn
    /// Its node took it but has not answered: it may have happened.
    case unanswered
}
