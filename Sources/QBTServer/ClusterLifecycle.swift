import Cluster
import ServiceLifecycle

/// A cluster node's exchange of torrents with the others while qbtd runs: its own published every second, the
/// others' read when they publish (and every few seconds besides); both stop with qbtd.
struct ClusterLifecycle: Service {
    let views: TorrentViewsSync

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await views.follow() }
            group.addTask { try? await Periodic(every: TorrentViewsSync.publishEvery, startAtOnce: true) { await views.publish() }.run() }
            group.addTask { try? await Periodic(every: TorrentViewsSync.catchUpEvery, startAtOnce: true) { await views.catchUp() }.run() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}
