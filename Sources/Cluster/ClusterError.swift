/// What a cluster's calls between nodes can end in (answered over HTTP by `ClusterError+HTTPAnswer` in QBTServer).
public enum ClusterError: Error, Sendable, Equatable {
    /// The node that runs the torrent is not up (lapsed or stopped): nothing was asked of it.
    case nodeDown(String, state: String)
    /// The node did not take the call in time: it was withdrawn and never runs.
    case notTaken(String, seconds: Int)
    /// The node took the call but did not answer in time: it may have happened.
    case unanswered(String, seconds: Int)
    /// The call or its answer could not be carried (the cluster's database refused it).
    case unreachable(String)
    /// A new torrent's category is pinned to these nodes, and none of them is up.
    case noneUp([String])
    /// A move's target is no node of this cluster.
    case unknownNode(String)
    /// A move's target is not up.
    case targetDown(String, state: String)
    /// A move names torrents that have not every piece (only whole torrents move).
    case notWhole([String])
    /// This qbtd is not a node of a cluster.
    case notACluster

    public var message: String {
        switch self {
        case let .nodeDown(node, state):
            "node \(node), which runs this torrent, is \(state): nothing was done; try again when it is up (qbtd/nodes)"
        case let .notTaken(node, seconds):
            "node \(node), which runs this torrent, did not take the call within \(seconds) s: nothing was done; try again"
        case let .unanswered(node, seconds):
            "node \(node), which runs this torrent, took the call but did not answer within \(seconds) s: it may have happened; look before trying again"
        case let .unreachable(why):
            "the cluster's database did not carry the call: \(why)"
        case let .noneUp(nodes):
            "the torrent's category is pinned to node(s) \(nodes.joined(separator: ", ")), and none is up: nothing was added; "
                + "try again when one is (qbtd/nodes), or name another with node="
        case let .unknownNode(node):
            "no node of this cluster is named \(node) (qbtd/nodes lists them): nothing was moved"
        case let .targetDown(node, state):
            "node \(node) is \(state): nothing was moved; try again when it is up (qbtd/nodes)"
        case let .notWhole(names):
            "only whole torrents move between nodes, and \(names.count == 1 ? "this one has" : "these have") not every piece yet: "
                + names.joined(separator: ", ") + "; nothing was moved: try again once they are complete"
        case .notACluster:
            "this qbtd is not a node of a cluster (--cluster): there is no other node to move torrents to"
        }
    }
}
