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
    /// What it was made from: the engine's snapshot, the table's revisions and the row settings.
    let engineGeneration: UInt64
    let serviceRevision: UInt64
    let tableTrackersRevision: UInt64
    let rowSettings: RowSettings

    static let empty = TorrentBoard(generation: 0, entries: [:], order: [], trackers: [:], trackersRevision: 0,
                                    downloadRate: 0, uploadRate: 0, sessionDownload: 0, sessionUpload: 0,
                                    previousGeneration: 0, changed: nil, engineGeneration: 0, serviceRevision: 0,
                                    tableTrackersRevision: 0, rowSettings: RowSettings())

    public var views: [TorrentView] { order.compactMap { entries[$0]?.view } }
}

/// What every row depends on besides its own torrent.
struct RowSettings: Sendable, Equatable {
    /// The global share limits, for torrents that follow them.
    var shareLimits = ShareLimits()
    /// Whether libtorrent's queue is on (a torrent's state depends on it).
    var queueingEnabled = false
}

extension TorrentBoard {
    /// What the service gives a new board: its table's revisions, the row settings, and the tracker map (asked only
    /// when the table's trackers changed).
    struct ServiceInputs {
        let revision: UInt64
        let rowSettings: RowSettings
        let trackersRevision: UInt64
        let trackers: () -> [String: [TorrentID]]
    }

    /// One torrent's row as of a status; nil when the service no longer has it.
    typealias MakeRow = (TorrentID, TorrentStatus) -> TorrentView?

    /// The board after the engine changed the statuses of `ids` and the service the facts of `touched` (a subset):
    /// only those entries are looked at.
    func updated(_ snapshot: EngineSnapshot, _ ids: Set<TorrentID>, touched: Set<TorrentID>, make: MakeRow,
                 service: ServiceInputs) -> TorrentBoard {
        var entries = self.entries
        var changed: [TorrentID] = []
        var membershipChanged = false
        var sums = Sums(self)
        for id in ids {
            let old = entries[id]
            if let old, let status = snapshot.torrents[id], old.statusGeneration == status.generation,
               !touched.contains(id) { continue }
            guard let status = snapshot.torrents[id], let view = make(id, status.status) else {
                if let old {
                    sums.count(old.view.status, -1)
                    entries[id] = nil
                    changed.append(id)
                    membershipChanged = true
                }
                continue
            }
            if let old { sums.count(old.view.status, -1) } else { membershipChanged = true }
            sums.count(view.status, 1)
            entries[id] = BoardEntry(view, statusGeneration: status.generation)
            changed.append(id)
        }
        return next(entries, membershipChanged: membershipChanged, sums: sums, changed: changed, snapshot, service)
    }

    /// The board made again over every torrent of `ids`; an entry whose status and facts did not change stays the
    /// same object when `reuse` (the row settings are the same).
    func remade(_ snapshot: EngineSnapshot, ids: some Sequence<TorrentID>, reuse: Bool, touched: Set<TorrentID>,
                make: MakeRow, service: ServiceInputs) -> TorrentBoard {
        var entries = TreeDictionary<TorrentID, BoardEntry>()
        var membershipChanged = false
        var sums = Sums()
        for id in ids {
            guard let status = snapshot.torrents[id] else { continue }
            if let old = self.entries[id] {
                if reuse && old.statusGeneration == status.generation && !touched.contains(id) {
                    entries[id] = old  // the same object: the wire layer keeps its encoding
                } else if let view = make(id, status.status) {
                    entries[id] = BoardEntry(view, statusGeneration: status.generation)
                }
            } else if let view = make(id, status.status) {
                membershipChanged = true
                entries[id] = BoardEntry(view, statusGeneration: status.generation)
            }
            if let entry = entries[id] { sums.count(entry.view.status, 1) }
        }
        if entries.count != self.entries.count { membershipChanged = true }
        return next(entries, membershipChanged: membershipChanged, sums: sums, changed: nil, snapshot, service)
    }

    private func next(_ entries: TreeDictionary<TorrentID, BoardEntry>, membershipChanged: Bool, sums: Sums,
                      changed: [TorrentID]?, _ snapshot: EngineSnapshot, _ service: ServiceInputs) -> TorrentBoard {
        var trackers = self.trackers
        var trackersRevision = self.trackersRevision
        if service.trackersRevision != tableTrackersRevision || generation == 0 {
            trackers = service.trackers()
            if trackers != self.trackers { trackersRevision &+= 1 }
        }
        return TorrentBoard(generation: generation &+ 1, entries: entries,
                            order: membershipChanged ? Self.order(entries) : order, trackers: trackers,
                            trackersRevision: trackersRevision, downloadRate: sums.downloadRate,
                            uploadRate: sums.uploadRate, sessionDownload: sums.sessionDownload,
                            sessionUpload: sums.sessionUpload, previousGeneration: generation, changed: changed,
                            engineGeneration: snapshot.generation, serviceRevision: service.revision,
                            tableTrackersRevision: service.trackersRevision, rowSettings: service.rowSettings)
    }

    /// Ids in the order the torrents were added.
    private static func order(_ entries: TreeDictionary<TorrentID, BoardEntry>) -> [TorrentID] {
        entries.values.map(\.view.record).sorted { ($0.addedOn, $0.id) < ($1.addedOn, $1.id) }.map(\.id)
    }

    /// The rates and session totals summed over every entry.
    private struct Sums {
        var downloadRate = 0, uploadRate = 0
        var sessionDownload: Int64 = 0, sessionUpload: Int64 = 0

        init() {}

        init(_ board: TorrentBoard) {
            (downloadRate, uploadRate) = (board.downloadRate, board.uploadRate)
            (sessionDownload, sessionUpload) = (board.sessionDownload, board.sessionUpload)
        }

        mutating func count(_ s: TorrentStatus, _ sign: Int) {
            downloadRate += sign * s.downloadRate
            uploadRate += sign * s.uploadRate
            sessionDownload += Int64(sign) * s.sessionDownload
            sessionUpload += Int64(sign) * s.sessionUpload
        }
    }
}
