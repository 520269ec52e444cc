import Cluster
import HTTPKit
import ServiceLifecycle

/// A cluster node's exchanges with the others while qbtd runs: its torrents published every second and soon after
/// the engine tells of a change, the others' read when they publish (and every few seconds besides), the calls
/// relayed to it served and the answers to its own awaited; all stop with qbtd.
struct ClusterLifecycle: Service {
    let views: TorrentViewsSync
    let commands: CommandRelay
    let relay: ClusterRelay
    let moves: TorrentMoves?
    let adoption: TorrentAdoption?
    let catalogue: CatalogueSync
    let membership: NodeMembership
    let sessions: SessionManager
    let limits: ClusterLimits

    func run() async throws {
        await adoption?.mark()  // the nodes that share this node's folder may adopt its torrents should it lapse
        await withDiscardingTaskGroup { group in
            group.addTask { await views.follow() }
            group.addTask { await commands.followAnswers() }
            group.addTask { await catalogue.follow() }
            group.addTask { await limits.follow() }
            group.addTask { await sessions.followClosures() }
            group.addTask {  // the torrents of nodes that are down show so
                try? await Periodic(every: membership.heartbeat, startAtOnce: false) {
                    await views.service.setNodesDown(await membership.downNodes())
                    await views.service.setOtherNodesTotals(await membership.othersTotals())
                    await limits.rebalance()
                    await adoption?.look()  // a lapsed node's torrents, from a shared folder
                }.run()
            }
            group.addTask { await commands.serve(relay.serve) }
            group.addTask {  // calls queued while no notification came
                try? await Periodic(every: CommandRelay.lookEvery, startAtOnce: false) { await commands.serveQueued(relay.serve) }.run()
            }
            group.addTask { try? await Periodic(every: TorrentViewsSync.publishEvery, startAtOnce: true) { await views.publish() }.run() }
            group.addTask { await views.publishOnEvents(await views.service.engineEvents()) }
            group.addTask { try? await Periodic(every: TorrentViewsSync.catchUpEvery, startAtOnce: true) { await views.catchUp() }.run() }
            if let moves {  // torrents moving between nodes: woken by the others, and looked at every few seconds
                group.addTask { await moves.followOthers() }
                group.addTask { try? await Periodic(every: TorrentMoves.lookEvery, startAtOnce: true) { await moves.look() }.run() }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        await moves?.close()
    }
}
