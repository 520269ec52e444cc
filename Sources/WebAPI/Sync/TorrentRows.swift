import QBTCore
import Synchronization
import TorrentEngine

/// One torrent's object encoded once: its `"key":value` pairs in key order, comma-separated, without `hash`
/// (which `sync/maindata` leaves out and `torrents/info` splices in at `hashOffset`).
final class EncodedRow: Sendable {
    /// The board entry it was made from: the same object next time means nothing to encode.
    let entry: BoardEntry
    let bytes: [UInt8]
    /// Where each pair ends in `bytes` (the next one starts one comma later).
    let ends: [Int32]
    let hashOffset: Int
    /// The rows generation in which these bytes last changed.
    let revision: UInt64

    init(entry: BoardEntry, bytes: [UInt8], ends: [Int32], hashOffset: Int, revision: UInt64) {
        self.entry = entry
        self.bytes = bytes
        self.ends = ends
        self.hashOffset = hashOffset
        self.revision = revision
    }

    func pair(_ i: Int) -> ArraySlice<UInt8> { bytes[(i == 0 ? 0 : Int(ends[i - 1]) + 1)..<Int(ends[i])] }

    /// The object as `torrents/info` sends it, `hash` included.
    func writeWithHash(_ id: TorrentID, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        out.append(contentsOf: bytes[..<hashOffset])
        if hashOffset > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: #""hash":"#.utf8)
        JSONValue.writeString(id, into: &out)
        if hashOffset < bytes.count {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: bytes[(hashOffset + (hashOffset > 0 ? 1 : 0))...])
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The pairs that differ from `old` (same profile, so the same keys in the same order), as `{…}`.
    func writeChanges(from old: EncodedRow, into out: inout [UInt8]) -> Bool {
        var first = true
        for i in ends.indices where pair(i) != old.pair(i) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            out.append(contentsOf: pair(i))
            first = false
        }
        if !first { out.append(UInt8(ascii: "}")) }
        return !first
    }
}

/// Every torrent's encoded row for one board, with a short log of which rows changed in which generation, so a
/// `sync/maindata` diff looks only at what changed since the client's baseline.
final class TorrentRows: Sendable {
    let generation: UInt64
    let boardGeneration: UInt64
    let rows: [TorrentID: EncodedRow]
    /// Ids sorted (Qt writes an object's keys sorted).
    let sortedIDs: [TorrentID]
    /// Bumped when torrents come or go.
    let membership: UInt64
    /// The ids whose bytes changed (or that arrived) in each of the last generations, newest last.
    let log: [(generation: UInt64, ids: [TorrentID])]

    static let logLength = 64

    init(generation: UInt64, boardGeneration: UInt64, rows: [TorrentID: EncodedRow], sortedIDs: [TorrentID],
         membership: UInt64, log: [(generation: UInt64, ids: [TorrentID])]) {
        self.generation = generation
        self.boardGeneration = boardGeneration
        self.rows = rows
        self.sortedIDs = sortedIDs
        self.membership = membership
        self.log = log
    }

    static let empty = TorrentRows(generation: 0, boardGeneration: 0, rows: [:], sortedIDs: [], membership: 0, log: [])

    /// The ids whose rows changed after `base` (arrivals included): from the log when it reaches back that far,
    /// else from each row's revision.
    func changed(since base: TorrentRows) -> [TorrentID] {
        if base.generation == generation { return [] }
        if let oldest = log.first, oldest.generation <= base.generation + 1 {
            var ids = Set<TorrentID>()
            for entry in log where entry.generation > base.generation { ids.formUnion(entry.ids) }
            return ids.sorted()
        }
        return sortedIDs.filter { rows[$0]!.revision > base.generation }
    }

    /// The ids `base` had that are gone now.
    func removed(since base: TorrentRows) -> [TorrentID] {
        base.membership == membership ? [] : base.sortedIDs.filter { rows[$0] == nil }
    }
}

/// Encodes board entries into rows, once per entry, shared by every request and every client (one per server:
/// `torrents/info` and `sync/maindata` read the same rows).
public final class RowCache: Sendable {
    private let current = Mutex(TorrentRows.empty)
    private let fields: [TorrentInfo.Field]
    private let hashIndex: Int
    let identity: Identity

    private let trackers = Mutex<(revision: UInt64, value: JSONValue)?>(nil)

    public init(identity: Identity) {
        self.identity = identity
        let all = TorrentInfo.fields(for: identity)
        hashIndex = all.firstIndex { $0.name == "hash" }!
        fields = all.filter { $0.name != "hash" }
    }

    func rows(for board: TorrentBoard) -> TorrentRows {
        current.withLock { rows in
            guard board.generation > rows.boardGeneration else { return rows }
            rows = update(rows, to: board)
            return rows
        }
    }

    /// `sync/maindata`'s tracker → torrents map, made again only when it changed.
    func trackers(for board: TorrentBoard) -> JSONValue {
        trackers.withLock { cached in
            if let cached, cached.revision == board.trackersRevision { return cached.value }
            var map: [String: JSONValue] = [:]
            for (url, ids) in board.trackers { map[url] = .array(ids.map { .string($0) }) }
            cached = (board.trackersRevision, .object(map))
            return .object(map)
        }
    }

    private func update(_ old: TorrentRows, to board: TorrentBoard) -> TorrentRows {
        let generation = old.generation + 1
        var rows: [TorrentID: EncodedRow] = [:]
        rows.reserveCapacity(board.entries.count)
        var changed: [TorrentID] = []
        var arrived = false
        for (id, entry) in board.entries {
            guard let before = old.rows[id] else {
                rows[id] = encode(entry, revision: generation)
                changed.append(id)
                arrived = true
                continue
            }
            if before.entry === entry { rows[id] = before; continue }
            let row = encode(entry, revision: generation)
            if row.bytes == before.bytes {
                rows[id] = EncodedRow(entry: entry, bytes: before.bytes, ends: before.ends, hashOffset: before.hashOffset,
                                      revision: before.revision)
            } else {
                rows[id] = row
                changed.append(id)
            }
        }
        let membershipChanged = arrived || rows.count != old.rows.count
        var log = old.log
        if !changed.isEmpty { log.append((generation, changed)) }
        if log.count > TorrentRows.logLength { log.removeFirst(log.count - TorrentRows.logLength) }
        return TorrentRows(generation: generation, boardGeneration: board.generation, rows: rows,
                           sortedIDs: membershipChanged ? rows.keys.sorted() : old.sortedIDs,
                           membership: membershipChanged ? old.membership + 1 : old.membership, log: log)
    }

    func encode(_ entry: BoardEntry, revision: UInt64) -> EncodedRow {
        let info = TorrentInfo(entry.view, identity: identity)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1400)
        var ends: [Int32] = []
        ends.reserveCapacity(fields.count)
        var hashOffset = 0
        for (i, field) in fields.enumerated() {
            if i == hashIndex { hashOffset = bytes.count }
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(field.name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            field.value(info).write(into: &bytes)
            ends.append(Int32(bytes.count))
        }
        if hashIndex >= fields.count { hashOffset = bytes.count }
        return EncodedRow(entry: entry, bytes: bytes, ends: ends, hashOffset: hashOffset, revision: revision)
    }
}
