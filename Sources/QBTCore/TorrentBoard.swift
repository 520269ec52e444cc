import HashTreeCollections
import TorrentEngine

/// One torrent as the API shows it, kept while neither its status nor its record changes.
public final class BoardEntry: Sendable {
    public let view: TorrentView
    let statusGeneration: UInt64

    init(_ view: TorrentView, statusGeneration: UInt64) {
        self.view = view
        self.statusGeneration = statusGeneration
    }
}

/// Every torrent joined with its last published status: what `torrents/info`, `sync/maindata` and the
/// extensions read. Immutable and shared by every request until something changes; an entry that did not
/// change is the same object in the next board, so the wire layer re-encodes only what changed.
public struct TorrentBoard: Sendable {
    /// Bumped whenever anything on the board changed.
    public let generation: UInt64
    /// A persistent map, so a board made from the last one costs the entries that changed.
    public let entries: TreeDictionary<TorrentID, BoardEntry>
    /// Ids in the order torrents were added.
    public let order: [TorrentID]
    /// Tracker URL → the torrents that use it (ids sorted), and its revision (bumped when it changes).
    public let trackers: [String: [TorrentID]]
    public let trackersRevision: UInt64
    /// Sums over every torrent, for the transfer figures.
    public let downloadRate: Int
    public let uploadRate: Int
    public let sessionDownload: Int64
    public let sessionUpload: Int64
    /// The board this one was made from, and the ids whose entries it added, replaced or removed; nil when it was
    /// made whole (anything may have changed).
    public let previousGeneration: UInt64
    public let changed: [TorrentID]?
    let engineGeneration: UInt64
    let serviceRevision: UInt64

    static let empty = TorrentBoard(generation: 0, entries: [:], order: [], trackers: [:], trackersRevision: 0,
                                    downloadRate: 0, uploadRate: 0, sessionDownload: 0, sessionUpload: 0,
                                    previousGeneration: 0, changed: nil, engineGeneration: 0, serviceRevision: 0)

    public var views: [TorrentView] { order.compactMap { entries[$0]?.view } }
}
