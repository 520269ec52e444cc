import Foundation
import Store
import TorrentEngine

/// What a torrent moving between a cluster's nodes (or adopted from a lapsed one) needs of the service (`Cluster.TorrentMoves` carries the data):
/// on the target, the torrent taken in from the catalogue once its files are whole; on the source, where its files
/// are, then the torrent let go of without touching its record, which is the target's now.
extension TorrentService {
    /// Where a move may start from: the node that runs each torrent (nil: this one), whether it has every piece (a
    /// move carries whole torrents only), and its name. Unknown hashes are left out.
    public func moveCandidates(_ ids: [TorrentID]) -> [(id: TorrentID, node: String?, complete: Bool, name: String)] {
        func whole(_ s: TorrentStatus) -> Bool { s.hasMetadata && s.numPieces > 0 && s.piecesHave == s.numPieces }
        return ids.compactMap { id in
            if torrents[id] != nil {
                guard let view = view(id) else { return nil }
                return (id, nil, whole(view.status), view.name)
            }
            guard let remote = remote.torrents[id] else { return nil }
            return (id, remote.node, whole(remote.status), remote.facts.record.name)
        }
    }

    /// A torrent of this node, as a move's source serves it: its .torrent, and the folder its files are in now.
    /// nil: not this node's, or without metadata.
    public func moveSource(_ id: TorrentID) async throws -> (metainfo: [UInt8], savePath: String)? {
        guard torrents[id] != nil, let status = engine.snapshot.status(id), status.hasMetadata else { return nil }
        guard let metainfo = try await store.sources(of: [id])[id]?.metainfo else { return nil }
        return (Array(metainfo), status.savePath)
    }

    /// The folder a torrent of this node has its files in now.
    public func moveFolder(_ id: TorrentID) -> String? {
        torrents[id] == nil ? nil : engine.snapshot.status(id)?.savePath
    }

    /// This node's own torrents.
    public func ownIDs() -> [TorrentID] { Array(torrents.ids) }

    /// The other node this node lists a torrent as published by (nil: none).
    public func remoteOwner(_ id: TorrentID) -> String? { remote.torrents[id]?.node }

    /// A torrent another node moved here, its files whole and verified at its record's save path: added from the
    /// catalogue as a restart adds it, with the source's fast-resume data (its share history; no recheck).
    public func adopt(_ id: TorrentID) async throws {
        guard torrents[id] == nil, let stored = try await store.torrent(id) else { return }
        let r = stored.record
        let source: AddTorrentRequest.Source
        if let metainfo = r.metainfo { source = .metainfo(Array(metainfo)) }
        else if let magnet = r.magnet { source = .magnet(magnet) }
        else { return }
        var request = AddTorrentRequest(source, record: r, limits: connectionLimits())
        request.resumeData = r.resumeData.map(Array.init)
        addsStarted([id])
        let added = try await engine.add(request)
        var entry = TorrentEntry(stored)
        entry.remember(added)
        entry.work.finished = r.completedOn != nil
        torrents[added.id] = entry
        takeRemote([id: nil])  // the source's publication of it, which this node no longer reads
        await addSettled(id)
        log.add("Torrent moved here from another node of the cluster. Torrent: \"\(r.name)\"")
    }

    /// A torrent this node moved to another: gone from this node's session (with its files when asked), its record
    /// left to its new owner.
    public func release(_ id: TorrentID, deleteFiles: Bool) async {
        guard let entry = torrents[id] else { return }
        torrents[id] = nil
        try? await engine.remove(id, deleteFiles: deleteFiles)
        log.add("Torrent moved to another node of the cluster\(deleteFiles ? "; its content here deleted" : ""). Torrent: \"\(entry.record.name)\"")
    }
}
