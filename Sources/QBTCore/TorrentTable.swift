import TorrentEngine

/// Every torrent's entry, and which of them changed what their rows show since the board last looked: every write
/// goes through the subscript, which compares the entry's facts before and after, so the board's freshness follows
/// from the changes themselves (no list of properties to bump a counter).
struct TorrentTable: Sendable {
    private var entries: [TorrentID: TorrentEntry] = [:]
    /// Torrents whose facts changed (or that came or went) since `takeChanges`.
    private var changedIDs: Set<TorrentID> = []
    /// Bumped by every change of any entry's facts, or of the set of torrents.
    private(set) var revision: UInt64 = 0
    /// Bumped when a torrent's trackers changed, or a torrent with trackers came or went.
    private(set) var trackersRevision: UInt64 = 0

    subscript(id: TorrentID) -> TorrentEntry? {
        get { entries[id] }
        set {
            let old = entries[id]
            entries[id] = newValue
            guard old?.facts != newValue?.facts else { return }
            changedIDs.insert(id)
            revision &+= 1
            if old?.facts.trackers ?? [] != newValue?.facts.trackers ?? [] { trackersRevision &+= 1 }
        }
    }

    var count: Int { entries.count }
    var ids: Dictionary<TorrentID, TorrentEntry>.Keys { entries.keys }
    var values: Dictionary<TorrentID, TorrentEntry>.Values { entries.values }

    /// The torrents whose facts changed since the last call, forgotten as they are returned.
    mutating func takeChanges() -> Set<TorrentID> {
        defer { changedIDs.removeAll(keepingCapacity: true) }
        return changedIDs
    }
}

extension TorrentTable: Sequence {
    func makeIterator() -> Dictionary<TorrentID, TorrentEntry>.Iterator { entries.makeIterator() }
}
