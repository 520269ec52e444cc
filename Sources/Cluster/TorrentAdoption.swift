import Foundation
import Logging
import QBTCore
import Store
import TorrentEngine

/// Failover on shared storage: when nodes keep their downloads in one shared folder (a NAS), the torrents of a node
/// whose lease lapsed are adopted by the nodes that see its folder, from the fast-resume data in the catalogue (no
/// recheck), and seed on. Each node leaves a marker file named for it in its default save path at start; another node
/// that finds that marker in its own folder shares it. A node that comes back does not take its torrents back; one
/// that was only silent (frozen, cut off) lets go of those adopted meanwhile at its first heartbeat after the silence.
public actor TorrentAdoption {
    /// Torrents adopted per look (each heartbeat), so that a large node's are shared out between the others.
    static let batch = 500
    static func marker(_ node: String) -> String { ".qbtd-node-\(node)" }

    let registry: any TorrentAdoptionRegistry
    public nonisolated let service: TorrentService
    let membership: NodeMembership
    let views: TorrentViewsSync
    let node: String
    let downloadRoot: String
    let logger: Logger

    public init(registry: any TorrentAdoptionRegistry, service: TorrentService, membership: NodeMembership,
                views: TorrentViewsSync, node: String, downloadRoot: String, logger: Logger) {
        self.registry = registry
        self.service = service
        self.membership = membership
        self.views = views
        self.node = node
        self.downloadRoot = downloadRoot
        self.logger = logger
    }

    /// This node's marker in its default save path (the folder made if missing), for the nodes that share it.
    public func mark() {
        let path = downloadRoot + "/" + Self.marker(node)
        try? FileManager.default.createDirectory(atPath: downloadRoot, withIntermediateDirectories: true)
        if !FileManager.default.createFile(atPath: path, contents: Data("qbtd node \(node)\n".utf8)) {
            logger.warning("node \(node) could not write \(path): the nodes that share this folder cannot adopt its torrents should it lapse")
        }
    }

    /// At each heartbeat: after a silence of this node's own, the torrents adopted meanwhile let go of; then the
    /// lapsed nodes that share this node's folder have their torrents adopted, a batch at a time.
    public func look() async {
        if await membership.tookLapse() { await letGoOfAdopted() }
        let lapsed = await membership.nodes(in: .lapsed).filter { $0.name != node }
        var adopted = 0
        for other in lapsed where FileManager.default.fileExists(atPath: downloadRoot + "/" + Self.marker(other.name)) {
            adopted += await adoptFrom(other)
        }
        if adopted > 0 { await views.publish() }  // listed as this node's at once
    }

    private func adoptFrom(_ other: NodeRecord) async -> Int {
        let from = Self.trimmed(other.savePath), to = Self.trimmed(downloadRoot)
        do {
            // Only torrents whose folder this node sees (a torrent saved outside the shared folder stays listed in
            // error, naming its node, until that node is back).
            let here = try await registry.torrentsOfLapsedNode(other.name).filter {
                FileManager.default.fileExists(atPath: TorrentMoves.mapped($0.savePath, from: from, to: to))
            }.prefix(Self.batch).map(\.id)
            let taken = try await registry.adopt(Array(here), of: other.name, from: from, to: to)
            for id in taken {
                do { try await service.adopt(id) } catch {
                    logger.error("node \(node) took over \(id) from lapsed node \(other.name) but could not start it (it starts at the next restart): \(error)")
                }
            }
            if !taken.isEmpty {
                logger.warning("node \(node) took over \(taken.count) torrent(s) of node \(other.name), lapsed, from the folder they share")
            }
            return taken.count
        } catch {
            logger.warning("node \(node) could not take over the torrents of lapsed node \(other.name) (again at the next heartbeat): \(error)")
            return 0
        }
    }

    /// This node was silent longer than its lease: the torrents another node runs now are let go of (files kept:
    /// they are the adopter's now).
    private func letGoOfAdopted() async {
        do {
            let lost = try await registry.othersOwn(await service.ownIDs())
            for id in lost { await service.release(id, deleteFiles: false) }
            if !lost.isEmpty {
                logger.warning("node \(node) let go of \(lost.count) torrent(s) other nodes took over while it was silent")
                await views.publish()
            }
        } catch {
            logger.warning("node \(node) could not look for torrents taken over while it was silent (again at the next heartbeat): \(error)")
            await membership.lapsedAgain()
        }
    }

    static func trimmed(_ path: String) -> String { path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path }
}
