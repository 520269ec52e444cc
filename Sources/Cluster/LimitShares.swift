import Store

/// The cluster's global rate limits divided between the nodes that are up, from what each used: the smallest wants
/// are met in full and the rest share what is left evenly (max-min fairness), and what nobody wants is spread evenly.
/// One node computes it for all from one set of heartbeats (`ClusterLimits`), so the shares add up to 1 exactly.
public enum LimitShares {
    /// One node as its last heartbeat said: its rate (bytes/s) and the share it ran with.
    public struct Demand: Sendable {
        public var node: String
        public var rate: Int64
        public var running: Double

        public init(node: String, rate: Int64, running: Double) {
            self.node = node
            self.rate = rate
            self.running = running
        }
    }

    /// A node that uses this much of what it may use wants more: as much as it can get (libtorrent's rate swings
    /// around its limit, and counts payload only while the limit counts everything).
    static let saturated = 0.7
    /// A node that uses less keeps what it uses and this much again, room to grow before the next division.
    static let headroom = 1.5
    /// Every node keeps this much of the whole (divided by the nodes' count), so one idle a moment ago can start.
    static let floor = 0.05

    /// Each node's share (0…1) of `limit` (bytes/s; 0: unlimited, then even shares that a later limit starts from).
    public static func shares(_ nodes: [Demand], limit: Int) -> [String: Double] {
        guard !nodes.isEmpty else { return [:] }
        let count = Double(nodes.count)
        guard limit > 0, nodes.count > 1 else { return Dictionary(nodes.map { ($0.node, 1 / count) }, uniquingKeysWith: { a, _ in a }) }
        let whole = Double(limit), least = floor / count
        let wants = nodes.map { node -> Double in
            let rate = Double(max(0, node.rate))
            return rate > 0 && rate >= saturated * whole * node.running ? .infinity : min(1, max(least, rate * headroom / whole + least))
        }
        var shares = [Double](repeating: 0, count: nodes.count)
        var left = 1.0
        for (served, index) in wants.indices.sorted(by: { wants[$0] < wants[$1] }).enumerated() {
            shares[index] = min(wants[index], left / Double(nodes.count - served))
            left -= shares[index]
        }
        return Dictionary(zip(nodes.map(\.node), shares.map { $0 + left / count }), uniquingKeysWith: { a, _ in a })
    }
}
