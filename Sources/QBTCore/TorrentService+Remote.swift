import HashTreeCollections
import Store
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
/// A board of this node's torrents and the others', and what it was made from: the next one is made from it and what
/// changed on either side since (a listing's cost is then the changes, not the cluster's whole board).
struct MergedBoard {
    var board: TorrentBoard
    /// The local board's generation and the others' revision it was made from.
    var local: UInt64
    var remote: UInt64
    /// The rates of the torrents it shows from other nodes (its sums are the local board's and these).
    var remoteRates: Rates
    /// The two trackers revisions its trackers were merged from.
    var trackersFrom: (local: UInt64, remote: UInt64)

    struct Rates {
        var down = 0, up = 0
        var sessionDown: Int64 = 0, sessionUp: Int64 = 0

        /// An entry shown from another node counts (one of this node's own is in the local board's sums).
        mutating func add(_ entry: BoardEntry?, _ sign: Int = 1) {
            guard let entry, entry.view.node != nil else { return }
            let status = entry.view.status
            // Wrapping: the numbers come from another machine (a corrupt one must not stop this node).
            down &+= sign &* status.downloadRate
            up &+= sign &* status.uploadRate
            sessionDown &+= Int64(sign) &* status.sessionDownload
            sessionUp &+= Int64(sign) &* status.sessionUpload
        }
    }
}

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
    /// The other nodes' transfer totals, as their heartbeats last told them.
    var totals = TransferTotals()
    /// The last merged board, and what it was made from.
    var merged: MergedBoard?

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
        let made = merged(local, previous: remote.merged)
        remote.merged = made
        return made.board
    }

    /// The torrents changed on either side since `previous` was made; nil when that is not known (a side made whole).
    private func changes(_ local: TorrentBoard, since previous: MergedBoard) -> [TorrentID]? {
        let own: [TorrentID]? = if previous.local == local.generation {
            []
        } else if local.previousGeneration == previous.local {
            local.changed
        } else {
            nil
        }
        guard let own, let others = remote.changed(after: previous.remote) else { return nil }
        return others.isEmpty ? own : own.isEmpty ? others : Array(Set(own).union(others))
    }

    private func merged(_ local: TorrentBoard, previous: MergedBoard?) -> MergedBoard {
        let changed = previous.flatMap { changes(local, since: $0) }
        var entries: TreeDictionary<TorrentID, BoardEntry>
        var rates = MergedBoard.Rates()
        var order: [TorrentID]? = nil
        if let previous, let changed {  // the last board, with what changed
            entries = previous.board.entries
            rates = previous.remoteRates
            var membershipChanged = false
            for id in changed {
                let before = entries[id], now = local.entries[id] ?? remote.entries[id]
                rates.add(before, -1)
                rates.add(now)
                // The order is by (added, id): a new or gone torrent, or one whose time of adding changed, re-sorts it.
                membershipChanged = membershipChanged || (before == nil) != (now == nil)
                    || before?.view.record.addedOn != now?.view.record.addedOn
                entries[id] = now
            }
            if !membershipChanged { order = previous.board.order }
        } else {  // whole: every other node's torrent, and this node's over them
            entries = remote.entries
            for (id, entry) in local.entries { entries[id] = entry }
            for (_, entry) in entries { rates.add(entry) }
        }
        if order == nil {
            order = remote.order.isEmpty ? local.order
                : entries.map { ($0.key, $0.value.view.record.addedOn) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
        }
        var trackers = local.trackers
        if let previous, previous.trackersFrom == (local.trackersRevision, remote.trackersRevision) {
            trackers = previous.board.trackers
        } else {
            for (url, ids) in remote.trackers { trackers[url] = Array(Set(trackers[url, default: []] + ids)).sorted() }
        }
        // Its own sequence, each board after the last (the rows follow a board only when its generation is newer),
        // and ahead of the local board's (which the rows may have been prepared from).
        let generation = max((previous?.board.generation ?? 0) &+ 1, local.generation &+ 1)
        let board = TorrentBoard(generation: generation, entries: entries, order: order ?? [], trackers: trackers,
                                 trackersRevision: local.trackersRevision &+ remote.trackersRevision,
                                 downloadRate: local.downloadRate &+ rates.down, uploadRate: local.uploadRate &+ rates.up,
                                 sessionDownload: local.sessionDownload &+ rates.sessionDown,
                                 sessionUpload: local.sessionUpload &+ rates.sessionUp,
                                 previousGeneration: previous?.board.generation ?? 0, changed: changed,
                                 engineGeneration: local.engineGeneration, serviceRevision: local.serviceRevision,
                                 tableTrackersRevision: local.tableTrackersRevision, rowSettings: local.rowSettings)
        return MergedBoard(board: board, local: local.generation, remote: remote.revision, remoteRates: rates,
                           trackersFrom: (local.trackersRevision, remote.trackersRevision))
    }
}

extension TorrentService {
    /// The engine's events from now on (a cluster's node publishes soon after those a listing shows).
    public func engineEvents() async -> AsyncStream<EngineEvent> { await engine.events() }

    /// The other nodes' transfer totals as their heartbeats last told them (`NodeMembership.othersTotals`): the
    /// cluster's `transfer/info` and `server_state` add them to this node's.
    public func setOtherNodesTotals(_ totals: TransferTotals) { remote.totals = totals }

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
