import HashTreeCollections
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
    /// A persistent map: the next snapshot shares every entry that did not change, so publishing costs the changes,
    /// not the torrent count.
    public let torrents: TreeDictionary<TorrentID, StatusEntry>
    public let counters: SessionCounters
    /// The torrents whose status says their fast-resume data is out of date.
    public let needingResume: TreeSet<TorrentID>
    /// How many torrents are not paused (none and no peer connected: the session is idle).
    public let running: Int

    public var isIdle: Bool { running == 0 && counters.peerConnections == 0 }
    /// The ids each of the last generations added, changed or removed, oldest first (one entry per generation).
    public let log: [ChangeLogEntry]

    public struct ChangeLogEntry: Sendable {
        public let generation: UInt64
        public let ids: [TorrentID]
    }

    static let logLength = 256

    /// The ids added, changed or removed after `generation`; nil when the log does not reach back that far.
    public func changed(since generation: UInt64) -> Set<TorrentID>? {
        if generation == self.generation { return [] }
        guard let oldest = log.first, oldest.generation <= generation + 1 else { return nil }
        var ids = Set<TorrentID>()
        for entry in log where entry.generation > generation { ids.formUnion(entry.ids) }
        return ids
    }

    public static let empty = EngineSnapshot(generation: 0, torrents: [:], counters: SessionCounters(), needingResume: [],
                                             running: 0, log: [])

    public func status(_ id: TorrentID) -> TorrentStatus? { torrents[id]?.status }
}

/// Holds the current snapshot for readers on any thread; one writer (the engine) merges changes into it.
public final class SnapshotPublisher: Sendable {
    private let current = Mutex<EngineSnapshot>(.empty)

    public init() {}

    public var snapshot: EngineSnapshot { current.withLock { $0 } }

    /// Merges changed statuses, removals and counters; a new generation is published only when something
    /// actually differs, so an idle session publishes nothing.
    package func publish(_ statuses: [TorrentStatus], removed: [TorrentID] = [], counters: SessionCounters? = nil) {
        let old = snapshot
        let generation = old.generation + 1
        var torrents = old.torrents
        var needingResume = old.needingResume
        var running = old.running
        var changed: [TorrentID] = []
        for status in statuses {
            let before = torrents[status.id]?.status
            guard before != status else { continue }
            running += (status.paused ? 0 : 1) - (before.map { $0.paused ? 0 : 1 } ?? 0)
            torrents[status.id] = StatusEntry(status, generation: generation)
            if status.needSaveResume { needingResume.insert(status.id) } else { needingResume.remove(status.id) }
            changed.append(status.id)
        }
        for id in removed {
            guard let gone = torrents.removeValue(forKey: id) else { continue }
            if !gone.status.paused { running -= 1 }
            needingResume.remove(id)
            changed.append(id)
        }
        let newCounters = counters ?? old.counters
        guard !changed.isEmpty || newCounters != old.counters else { return }
        var log = old.log
        log.append(EngineSnapshot.ChangeLogEntry(generation: generation, ids: changed))
        if log.count > EngineSnapshot.logLength { log.removeFirst(log.count - EngineSnapshot.logLength) }
        let next = EngineSnapshot(generation: generation, torrents: torrents, counters: newCounters,
                                  needingResume: needingResume, running: running, log: log)
        current.withLock { $0 = next }
    }

    /// Notes that these torrents' fast-resume data was just saved (libtorrent clears its flag without a status
    /// update). Their entries keep their generation: nothing a client sees changed.
    func resumeSaved(_ ids: [TorrentID]) {
        let old = snapshot
        var torrents = old.torrents
        var needingResume = old.needingResume
        for id in ids {
            guard needingResume.remove(id) != nil, let entry = torrents[id] else { continue }
            var status = entry.status
            status.needSaveResume = false
            torrents[id] = StatusEntry(status, generation: entry.generation)
        }
        guard needingResume.count != old.needingResume.count else { return }
        let next = EngineSnapshot(generation: old.generation, torrents: torrents, counters: old.counters,
                                  needingResume: needingResume, running: old.running, log: old.log)
        current.withLock { $0 = next }
    }

    /// Drops everything (the engine shut down).
    package func clear() {
        let generation = snapshot.generation + 1
        current.withLock {
            $0 = EngineSnapshot(generation: generation, torrents: [:], counters: SessionCounters(), needingResume: [],
                                running: 0, log: [])
        }
    }
}
