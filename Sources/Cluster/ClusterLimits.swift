import Logging
import QBTCore
import Store

/// One set of global limits for the whole cluster. At each heartbeat the first node that is up (by name) divides the
/// limits in force between the nodes that are up, the rates by what each used (`LimitShares`) and the queue's slots
/// by what each one's torrents want (`QueueSlots`), and writes every node's part in one transaction; every node runs
/// with the part it was given (an even one until it has one), so that together they stay within the limits a client
/// set on any of them.
public struct ClusterLimits: Sendable {
    let registry: any NodeRegistry
    let membership: NodeMembership
    let service: TorrentService
    let settings: ServerSettings
    let logger: Logger

    public init(registry: any NodeRegistry, membership: NodeMembership, service: TorrentService, settings: ServerSettings,
                logger: Logger) {
        self.registry = registry
        self.membership = membership
        self.service = service
        self.settings = settings
        self.logger = logger
    }

    /// Until cancelled: this node's part applied as soon as the dividing node wrote it, so that every node changes
    /// its limits within moments of the others (a node taking more before another took less would overshoot).
    public func follow() async {
        for await _ in registry.limitChanges() {
            do { try await membership.refresh() } catch { continue }
            let up = await membership.upNodes()
            guard let me = up.first(where: { $0.name == membership.name }), let part = me.assignedLimits else { continue }
            await service.session.setClusterLimits(part)
        }
    }

    /// After a heartbeat: the limits divided again when this node divides them, and this node's part applied.
    public func rebalance() async {
        let up = await membership.upNodes().sorted { $0.name < $1.name }
        guard let me = up.first(where: { $0.name == membership.name }) else { return }
        var mine = me.assignedLimits ?? Self.even(up.count)
        if up.first?.name == membership.name {
            let parts = divide(among: up)
            do {
                // Written (and the others woken) only when a part changed.
                if up.contains(where: { $0.assignedLimits != parts[$0.name] }) { try await registry.assignLimits(parts) }
                mine = parts[me.name] ?? mine
            } catch {
                logger.warning("the cluster's limits are not divided again (at the next heartbeat): \(error)")
            }
        }
        await service.session.setClusterLimits(mine)
    }

    /// Every node's part of the limits in force, from their last heartbeats.
    func divide(among up: [NodeRecord]) -> [String: NodeLimits] {
        let limits = settings.engineSettings()
        let download = LimitShares.shares(up.map { .init(node: $0.name, rate: $0.downloadRate, running: $0.runningLimits.download) },
                                          limit: limits.downloadRateLimit)
        let upload = LimitShares.shares(up.map { .init(node: $0.name, rate: $0.uploadRate, running: $0.runningLimits.upload) },
                                        limit: limits.uploadRateLimit)
        let wants = Dictionary(uniqueKeysWithValues: up.map { ($0.name, $0.queueDemand) })
        let downloads = QueueSlots.divide(limits.activeDownloads, wants: wants.mapValues(\.downloads))
        let seeds = QueueSlots.divide(limits.activeSeeds, wants: wants.mapValues(\.seeds))
        let torrents = QueueSlots.divide(limits.activeLimit, wants: wants.mapValues { $0.downloads + $0.seeds })
        return Dictionary(uniqueKeysWithValues: up.map {
            ($0.name, NodeLimits(download: download[$0.name] ?? 0, upload: upload[$0.name] ?? 0,
                                 activeDownloads: downloads[$0.name], activeSeeds: seeds[$0.name], activeTorrents: torrents[$0.name]))
        })
    }

    /// Before a node's first division: an even part of the rates, the queue's numbers undivided.
    static func even(_ nodes: Int) -> NodeLimits {
        NodeLimits(download: 1 / Double(max(1, nodes)), upload: 1 / Double(max(1, nodes)))
    }
}
