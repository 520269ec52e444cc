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
    /// It said goodbye (a clean stop).
    public var stopped: Bool
    /// Seconds since its last heartbeat, by the database's clock (filled in when read).
    public var silentFor: Int64

    public init(name: String, address: String, startedAt: Int64, torrents: Int = 0, downloadRate: Int64 = 0,
                uploadRate: Int64 = 0, savePath: String = "", freeSpace: Int64 = 0, stopped: Bool = false, silentFor: Int64 = 0) {
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

/// Where a cluster's nodes publish themselves (`PostgresStore`): a heartbeat writes this node's row, any node reads
/// them all.
public protocol NodeRegistry: Sendable {
    func publish(_ node: NodeRecord) async throws
    func nodes() async throws -> [NodeRecord]
}
