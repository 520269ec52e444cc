/// Where a call for torrents another node of a cluster runs is answered (`ClusterRelay` in QBTServer); a process
/// without a cluster has none, and answers every call itself.
public protocol APIRelay: Sendable {
    /// Answers `scope/action`: with `here` when every torrent it names is this node's (or it names none), else on the
    /// nodes that run them. `changes`: the action may change something (it takes POST only).
    func answer(scope: String, action: String, changes: Bool, _ p: Parameters,
                here: @escaping @Sendable (Parameters) async throws -> APIReply) async throws -> APIReply
}
