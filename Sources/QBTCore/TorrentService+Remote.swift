import HashTreeCollections
import TorrentEngine

/// A torrent another node of the cluster runs, as it published it.
public struct RemoteTorrent: Sendable {
    public var facts: TorrentFacts
    public var status: TorrentStatus
    /// The node that runs it.
    public var node: String

    public init(facts: TorrentFacts, status: TorrentStatus, node: String) {
        self.facts = facts
        self.status = status
        self.node = node
    }
}

/// The other nodes' torrents, kept as board entries made with this node's row settings, with a short log of which
/// changed in which revision (so the merged board can say what changed, and the rows re-encode only that).
struct RemoteTorrents {
    var torrents: [TorrentID: RemoteTorrent] = [:]
    var entries = TreeDictionary<TorrentID, BoardEntry>()
    var revision: UInt64 = 0
    var log: [(revision: UInt64, ids: [TorrentID])] = []
    var order: [TorrentID] = []
    var trackers: [String: [TorrentID]] = [:]
    var trackersRevision: UInt64 = 0
    var madeWith = RowSettings()
    /// Nodes that are down (lapsed or stopped), and why: their torrents show as `error` with that reason.
    var down: [String: String] = [:]
    /// The last merged board, and the local board's generation and the revision it was made from.
    var merged: (board: TorrentBoard, local: UInt64, remote: UInt64)?

    static let logLength = 32

    mutating func note(_ ids: [TorrentID], membershipChanged: Bool, trackersChanged: Bool) {
        revision &+= 1
        log.append((revision, ids))
        if log.count > Self.logLength { log.removeFirst(log.count - Self.logLength) }
        if membershipChanged {
            order = entries.values.map(\.view.record).sorted { ($0.addedOn, $0.id) < ($1.addedOn, $1.id) }.map(\.id)
        }
        if trackersChanged {
            var map: [String: [TorrentID]] = [:]
            for (id, t) in torrents { for url in t.facts.trackers { map[url, default: []].append(id) } }
            trackers = map.mapValues { $0.sorted() }
            trackersRevision &+= 1
        }
    }

    /// The ids changed after `revision`, when the log reaches back that far.
    func changed(after revision: UInt64) -> [TorrentID]? {
        if revision == self.revision { return [] }
        guard let oldest = log.first, oldest.revision <= revision + 1 else { return nil }
        var ids = Set<TorrentID>()
        for entry in log where entry.revision > revision { ids.formUnion(entry.ids) }
        return Array(ids)
    }
}

extension TorrentService {
    /// Other nodes' torrents changed: a value is the torrent now, nil that it is gone from its node.
    public func takeRemote(_ changes: [TorrentID: RemoteTorrent?]) {
        guard !changes.isEmpty else { return }
        var ids: [TorrentID] = []
        var membershipChanged = false, trackersChanged = false
        for (id, torrent) in changes {
            let before = remote.torrents[id]
            if let torrent {
                remote.torrents[id] = torrent
                remote.entries[id] = BoardEntry(view(torrent), statusGeneration: 0)
                membershipChanged = membershipChanged || before == nil
                trackersChanged = trackersChanged || before?.facts.trackers != torrent.facts.trackers
            } else {
                guard before != nil else { continue }
                remote.torrents[id] = nil
                remote.entries[id] = nil
                membershipChanged = true
                trackersChanged = trackersChanged || before?.facts.trackers.isEmpty == false
            }
            ids.append(id)
        }
        guard !ids.isEmpty else { return }
        remote.note(ids, membershipChanged: membershipChanged, trackersChanged: trackersChanged)
    }

    private func view(_ torrent: RemoteTorrent) -> TorrentView {
        var status = torrent.status
        let down = remote.down[torrent.node]
        if down != nil {  // nothing moves while its node is down
            (status.downloadRate, status.uploadRate, status.numSeeds, status.numPeers, status.numConnections) = (0, 0, 0, 0, 0)
        }
        var view = TorrentView(facts: torrent.facts, status: status, rowSettings: rowSettings)
        view.node = torrent.node
        if let down {
            view.nodeDown = down
            view.state = .error
        }
        return view
    }

    /// The board listings read (`torrents/info`, `sync/maindata`): this node's torrents, and in a cluster the other
    /// nodes' beside them (one of this node's own wins over a published one with the same hash, as while it moves).
    public func freshListing() async -> TorrentBoard {
        let local = await freshBoard()
        guard remote.revision > 0 else { return local }
        if remote.madeWith != rowSettings {  // the share limits or the queue changed: every row's state may have
            remote.madeWith = rowSettings
            for (id, torrent) in remote.torrents { remote.entries[id] = BoardEntry(view(torrent), statusGeneration: 0) }
            remote.note(Array(remote.torrents.keys), membershipChanged: false, trackersChanged: false)
        }
        if let merged = remote.merged {
            if merged.local == local.generation, merged.remote == remote.revision { return merged.board }
            // A listing that waited for its board while another made a newer one: the newer merged board stands.
            if local.generation < merged.local { return merged.board }
        }
        let board = merged(local, previous: remote.merged)
        remote.merged = (board, local.generation, remote.revision)
        return board
    }

    private func merged(_ local: TorrentBoard, previous: (board: TorrentBoard, local: UInt64, remote: UInt64)?) -> TorrentBoard {
        var entries = remote.entries
        for (id, entry) in local.entries { entries[id] = entry }
        let changed: [TorrentID]? = if let previous {
            if previous.local == local.generation {
                remote.changed(after: previous.remote)
            } else if previous.remote == remote.revision, local.previousGeneration == previous.local {
                local.changed
            } else {
                nil
            }
        } else {
            nil
        }
        var order = local.order
        if !remote.order.isEmpty {
            let own = Set(local.order)
            order = (local.order.map { ($0, local.entries[$0]!.view.record.addedOn) }
                     + remote.order.filter { !own.contains($0) }.map { ($0, remote.entries[$0]!.view.record.addedOn) })
                .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
        }
        var trackers = local.trackers
        for (url, ids) in remote.trackers { trackers[url] = Array(Set(trackers[url, default: []] + ids)).sorted() }
        var sums = (down: local.downloadRate, up: local.uploadRate, sessionDown: local.sessionDownload, sessionUp: local.sessionUpload)
        for (id, entry) in remote.entries where local.entries[id] == nil {
            sums.down += entry.view.status.downloadRate
            sums.up += entry.view.status.uploadRate
            sums.sessionDown += entry.view.status.sessionDownload
            sums.sessionUp += entry.view.status.sessionUpload
        }
        // Its own sequence, each board after the last (the rows follow a board only when its generation is newer),
        // and ahead of the local board's (which the rows may have been prepared from).
        let generation = max((previous?.board.generation ?? 0) &+ 1, local.generation &+ 1)
        return TorrentBoard(generation: generation, entries: entries, order: order, trackers: trackers,
                            trackersRevision: local.trackersRevision &+ remote.trackersRevision, downloadRate: sums.down,
                            uploadRate: sums.up, sessionDownload: sums.sessionDown, sessionUpload: sums.sessionUp,
                            previousGeneration: previous?.board.generation ?? 0, changed: changed,
                            engineGeneration: local.engineGeneration, serviceRevision: local.serviceRevision,
                            tableTrackersRevision: local.tableTrackersRevision, rowSettings: local.rowSettings)
    }
}

extension TorrentService {
    /// The nodes that are down now, and why (`NodeMembership`): their torrents show as `error` until they are back.
    public func setNodesDown(_ down: [String: String]) {
        guard down != remote.down else { return }
        let touched = Set(down.keys).symmetricDifference(remote.down.keys)
            .union(down.keys.filter { remote.down[$0] != nil && remote.down[$0] != down[$0] })
        remote.down = down
        let ids = remote.torrents.filter { touched.contains($0.value.node) }.map(\.key)
        for id in ids { remote.entries[id] = BoardEntry(view(remote.torrents[id]!), statusGeneration: 0) }
        if !ids.isEmpty { remote.note(ids, membershipChanged: false, trackersChanged: false) }
    }

    /// The node that runs each of these torrents, grouped: nil for this node's own and for hashes no node has.
    public func owners(of ids: [TorrentID]) -> [String?: [TorrentID]] {
        var groups: [String?: [TorrentID]] = [:]
        for id in ids { groups[torrents[id] == nil ? remote.torrents[id]?.node : nil, default: []].append(id) }
        return groups
    }

    /// How many torrents the listings show (`torrents/count`): this node's and, in a cluster, the other nodes'.
    public var listedCount: Int { torrents.count + remote.torrents.keys.reduce(0) { $0 + (torrents[$1] == nil ? 1 : 0) } }

    /// The other nodes that run torrents this node lists.
    public func remoteNodes() -> Set<String> { Set(remote.torrents.values.map(\.node)) }
}
