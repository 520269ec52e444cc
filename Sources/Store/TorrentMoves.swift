import Foundation

/// A torrent on its way from one node of a cluster to another (`qbtd/moveToNode`): the source runs it until the
/// target holds every piece, verified; then it is the target's (`done`), and the source lets go of it.
public struct TorrentMove: Sendable, Equatable {
    public var id: String
    public var source: String
    public var target: String
    /// The source deletes its files once the target runs the torrent.
    public var deleteFiles: Bool
    /// The target runs it now; the source has yet to let go.
    public var done: Bool
    /// How much of it the target holds (0…1), as the target last said.
    public var progress: Double
    /// Where the source's move session listens, HOST:PORT ("" until it does).
    public var sourcePeer: String

    public init(id: String, source: String, target: String, deleteFiles: Bool = false, done: Bool = false,
                progress: Double = 0, sourcePeer: String = "") {
        self.id = id
        self.source = source
        self.target = target
        self.deleteFiles = deleteFiles
        self.done = done
        self.progress = progress
        self.sourcePeer = sourcePeer
    }
}

/// The moves between a cluster's nodes, kept in the catalogue so that either node may stop midway and resume
/// (`PostgresStore`).
public protocol TorrentMoveRegistry: Sendable {
    /// Starts moving these torrents to `target`: those another node runs and that are not moving already. Wakes the
    /// nodes; returns the ids started.
    func startMoves(_ ids: [String], to target: String, deleteFiles: Bool) async throws -> [String]
    /// Every move under way (and done ones the source has not let go of), for `qbtd/moves`.
    func allMoves() async throws -> [TorrentMove]
    /// The moves this node takes part in, as the source or the target.
    func ownMoves() async throws -> [TorrentMove]
    /// The target's progress, for the others to see.
    func noteMoveProgress(_ progress: [String: Double]) async throws
    /// The target holds every piece: in one transaction the torrent becomes this node's, at `savePath`, and the move
    /// is done. false: it was no longer the source's (deleted or moved meanwhile), and the move is dropped.
    func completeMove(_ id: String, from source: String, savePath: String) async throws -> Bool
    /// The source let go of a done move (or the target of one it could not carry out): forgotten.
    func forgetMove(_ id: String) async throws
    /// Where this node's move session listens: `port` on the address the database sees this node at, which is
    /// returned (false: this node has no row yet).
    func publishMovePeer(port: Int) async throws -> Bool
    /// The address the database sees this node at (its move session listens there).
    func clusterAddress() async throws -> String
    /// Wakes each time another node started, finished or let go of a move (and once after a lost connection).
    func moveChanges() -> AsyncStream<Void>
}
