import HTTPKit
import Synchronization

/// A caller's `sync/maindata` and `sync/torrentPeers` baselines, kept in its session's memory.
final class SyncBaselines: Sendable {
    let maindata = Mutex(MainDataSync())
    let peers = Mutex(SyncState())
}

extension SessionMemory {
    var baselines: SyncBaselines { memory(SyncBaselines.self) { SyncBaselines() } }
}
