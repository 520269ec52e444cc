import Foundation
import Logging
import Store

/// This process as a node: its heartbeat (every `heartbeat`, its row in the cluster's `nodes` rewritten with what it
/// runs) and the list of nodes with their states. A process without `--cluster` is a cluster of one: the list is
/// itself, and nothing is written.
public actor NodeMembership {
    /// How long a node may stay silent before the others count it lapsed, by default (`--node-lease`); it beats
    /// three times as often.
    public static let lease: Int64 = 15

    public enum State: String, Sendable {
        /// Its heartbeat is within the lease.
        case up
        /// It stopped cleanly.
        case stopped
        /// Silent for longer than the lease: killed, cut off, or its machine is down.
        case lapsed
    }

    public struct Node: Sendable {
        public var record: NodeRecord
        public var state: State
        /// This process.
        public var isSelf: Bool
    }

    public nonisolated let name: String
    /// Seconds it may stay silent before the others count it lapsed (its row says so, for them to judge by).
    public nonisolated let lease: Int64
    /// How often it tells the others it is there: three times a lease.
    public nonisolated var heartbeat: Duration { .milliseconds(lease * 1000 / 3) }
    let registry: (any NodeRegistry)?
    let startedAt = Int64(Date().timeIntervalSince1970)
    let status: @Sendable () async -> NodeRecord
    let logger: Logger
    /// The nodes as the last heartbeat read them.
    private var known: [String: Node] = [:]
    /// Reads of the nodes started and the last one applied: a read that ends after a newer one is not applied.
    private var readsStarted = 0, readApplied = 0
    /// Reads for callers about to refuse a call because its node is down: one at a time, shared by the callers that
    /// ask meanwhile.
    private lazy var checks = FreshReads { [weak self] in try await self?.refresh() }
    /// When a heartbeat last got through, and whether one got through after a silence longer than the lease (the
    /// others may have counted this node lapsed and adopted its torrents meanwhile).
    private var lastWritten: ContinuousClock.Instant?
    private var wasLapsed = false

    /// `status` says what this node runs now (its name and start time are filled in here).
    public init(name: String, lease: Int64 = NodeMembership.lease, registry: (any NodeRegistry)?, logger: Logger,
                status: @escaping @Sendable () async -> NodeRecord) {
        self.name = name
        self.lease = lease
        self.registry = registry
        self.logger = logger
        self.status = status
    }

    private func current(stopped: Bool = false) async -> NodeRecord {
        var record = await status()
        record.name = name
        record.startedAt = startedAt
        record.stopped = stopped
        record.lease = lease
        return record
    }

    /// One heartbeat; a failure is logged and the next one tries again.
    public func beat() async {
        guard let registry else { return }
        let record = await current()
        do {
            try await registry.publish(record)
            let now = ContinuousClock.now
            if let last = lastWritten, now - last > .seconds(lease) {
                wasLapsed = true
                logger.warning("node \(name) was silent for \(now - last), longer than its lease (\(lease) s): it looks for torrents other nodes took over meanwhile")
            }
            lastWritten = now
            try await refresh()
        } catch {
            logger.warning("the cluster's database did not take node \(name)'s heartbeat (the next comes in \(heartbeat)): \(error)")
        }
    }

    /// Whether a heartbeat got through after a silence longer than the lease since the last call.
    public func tookLapse() -> Bool {
        defer { wasLapsed = false }
        return wasLapsed
    }

    /// The look that `tookLapse` asked for failed: the next heartbeat asks again.
    public func lapsedAgain() { wasLapsed = true }

    /// The other nodes (and this one) in a state, as the last heartbeat read them.
    public func nodes(in state: State) -> [NodeRecord] { known.values.filter { $0.state == state }.map(\.record) }

    /// The nodes read again now, between heartbeats (a node that came a moment ago, say).
    public func refresh() async throws { _ = try await nodes() }

    /// A clean stop: the others see it stopped, not lapsed.
    public func leave() async {
        guard let registry else { return }
        do { try await registry.publish(await current(stopped: true)) } catch {
            logger.warning("node \(name) could not record its stop (the others will count it lapsed): \(error)")
        }
    }

    /// A node's state as of the last heartbeat (nil: not known yet).
    public func state(of node: String) -> State? { known[node]?.state }

    /// A node's state, read again now when the last heartbeat's read did not have it up: a verdict that refuses a
    /// call is taken from the catalogue, not from a read up to a heartbeat old (a node back from an outage a moment
    /// ago, whose heartbeat this node has not read yet). A failed read leaves the last heartbeat's.
    public func stateNow(of node: String) async -> State? {
        await freshenIfDown([node])
        return known[node]?.state
    }

    /// The nodes read again when any of these is not up as the last read had them (a read that started after this
    /// call, shared with the callers that ask meanwhile; at most `checkWait`, at once while the catalogue is out of
    /// reach).
    public func freshenIfDown(_ names: [String]) async {
        guard registry != nil, names.contains(where: { known[$0]?.state != .up }) else { return }
        await checks.fresh(within: Self.checkWait)
    }

    /// How long a caller waits for a read of the nodes before it answers from the last one.
    static let checkWait: Duration = .seconds(1)

    /// The other nodes' transfer totals, as their last heartbeats told them: every node's all-time totals, the
    /// session totals of the nodes that are up (a stopped or lapsed node's session is over).
    public func othersTotals() -> TransferTotals {
        known.values.filter { !$0.isSelf }.reduce(TransferTotals()) { sum, n in
            var t = n.record.totals
            if n.state != .up { (t.sessionDownload, t.sessionUpload) = (0, 0) }
            return sum &+ t
        }
    }

    /// Whether any of these nodes is up, as the last heartbeat read them.
    public func anyUp(_ names: [String]) -> Bool { names.contains { known[$0]?.state == .up } }

    /// The nodes that are up, as the last heartbeat read them.
    public func upNodes() -> [NodeRecord] { known.values.filter { $0.state == .up }.map(\.record) }

    /// The nodes that are not up, with what their torrents' rows say about it.
    public func downNodes() -> [String: String] {
        var out: [String: String] = [:]
        for (node, n) in known where n.state != .up && node != name {
            out[node] = n.state == .stopped
                ? "Node \(node), which runs this torrent, is stopped: it is back when the node starts again"
                : "Node \(node), which runs this torrent, has been silent for \(n.record.silentFor) s (lapsed): it is back when the node is"
        }
        return out
    }

    /// Where a new torrent goes when the client names no node: of the nodes that are up (only those of `among`,
    /// when it names some: its category's), the one with the most free space on its save path; this one when it is
    /// among them and has about as much (within 1 %, or 1 GiB), so that an even cluster adds where asked. nil: this
    /// node. Throws when none of `among` is up.
    public func placement(among pinned: [String] = []) throws -> String? {
        let up = known.values.filter { $0.state == .up && (pinned.isEmpty || pinned.contains($0.record.name)) }
        guard let best = up.max(by: { ($0.record.freeSpace, $1.record.name) < ($1.record.freeSpace, $0.record.name) }) else {
            if pinned.isEmpty { return nil }
            throw ClusterError.noneUp(pinned)
        }
        guard best.record.name != name else { return nil }
        guard let mine = up.first(where: { $0.record.name == name })?.record.freeSpace else { return best.record.name }
        let margin = max(best.record.freeSpace / 100, 1 << 30)
        return mine >= best.record.freeSpace - margin ? nil : best.record.name
    }

    /// Every node, by name, with its state, read now (and remembered as the last heartbeat's read is).
    public func nodes() async throws -> [Node] {
        guard let registry else { return [Node(record: await current(), state: .up, isSelf: true)] }
        readsStarted += 1
        let read = readsStarted
        let nodes = try await registry.nodes().map { record in
            let state: State = record.stopped ? .stopped : record.silentFor > record.lease ? .lapsed : .up
            return Node(record: record, state: state, isSelf: record.name == name)
        }
        // Reads overlap (heartbeats, checks, qbtd/nodes, the limits): an older one ending last is not applied.
        if read > readApplied {
            readApplied = read
            known = Dictionary(nodes.map { ($0.record.name, $0) }, uniquingKeysWith: { $1 })
        }
        return nodes
    }
}
