import Synchronization

/// One torrent's status as last published, and the snapshot generation in which it last changed.
public final class StatusEntry: Sendable {
    public let status: TorrentStatus
    public let generation: UInt64

    init(_ status: TorrentStatus, generation: UInt64) {
        self.status = status
        self.generation = generation
    }
}

/// What the engine last published: every torrent's status and the session counters. Immutable; a new one
/// replaces it when something changed, so readers never call into the engine.
public struct EngineSnapshot: Sendable {
    public let generation: UInt64
    public let torrents: [TorrentID: StatusEntry]
    public let counters: SessionCounters

    public static let empty = EngineSnapshot(generation: 0, torrents: [:], counters: SessionCounters())

    public func status(_ id: TorrentID) -> TorrentStatus? { torrents[id]?.status }
}

/// Holds the current snapshot for readers on any thread; one writer (the engine) merges changes into it.
public final class SnapshotPublisher: Sendable {
    private let current = Mutex<EngineSnapshot>(.empty)

    public init() {}

    public var snapshot: EngineSnapshot { current.withLock { $0 } }

    /// Merges changed statuses, removals and counters; a new generation is published only when something
    /// actually differs, so an idle session publishes nothing.
    func publish(_ statuses: [TorrentStatus], removed: [TorrentID] = [], counters: SessionCounters? = nil) {
        let old = snapshot
        let generation = old.generation + 1
        var torrents = old.torrents
        var changed = false
        for status in statuses where torrents[status.id]?.status != status {
            torrents[status.id] = StatusEntry(status, generation: generation)
            changed = true
        }
        for id in removed where torrents.removeValue(forKey: id) != nil { changed = true }
        let newCounters = counters ?? old.counters
        guard changed || newCounters != old.counters else { return }
        let next = EngineSnapshot(generation: generation, torrents: torrents, counters: newCounters)
        current.withLock { $0 = next }
    }

    /// Drops everything (the engine shut down).
    func clear() {
        let generation = snapshot.generation + 1
        current.withLock { $0 = EngineSnapshot(generation: generation, torrents: [:], counters: SessionCounters()) }
    }
}
