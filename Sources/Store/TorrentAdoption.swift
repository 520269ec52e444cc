import Foundation

/// A lapsed node's torrents taken over by the nodes that share its folder (a NAS), and taken back by no one: the
/// catalogue's owner column says who runs each torrent (`PostgresStore`).
public protocol TorrentAdoptionRegistry: Sendable {
    /// The torrents of `node`, with their save paths, while it is lapsed (none once it is back or stopped cleanly).
    func torrentsOfLapsedNode(_ node: String) async throws -> [(id: String, savePath: String)]
    /// Makes these torrents of `node` this node's, if it is still lapsed, each at most once however many nodes try
    /// (a folder under `from`, the lapsed node's default save path, moves under `to`, this node's); their moves end.
    /// Returns the ids taken.
    func adopt(_ ids: [String], of node: String, from: String, to: String) async throws -> [String]
    /// Of these torrents, those another node runs now (adopted while this node was lapsed).
    func othersOwn(_ ids: [String]) async throws -> [String]
}
