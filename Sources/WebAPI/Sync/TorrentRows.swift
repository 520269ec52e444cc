import HTTPKit
import NIOCore
import HashTreeCollections
import QBTCore
import Synchronization
import TorrentEngine

/// The keys of a torrent object for one profile, each written once as `"key":`, in Qt's (sorted) order; `hash`
/// is not among them (`sync/maindata` leaves it out, `torrents/info` writes it at `hashIndex`).
final class RowKeys: @unchecked Sendable {
    /// Every `"key":` back to back; key i is `prefixBytes[prefixEnds[i - 1]..<prefixEnds[i]]` (from 0 for the first).
    /// Immutable storage of its own, read by every row of every listing on several threads at once: an array's
    /// storage would be retained and released for each row, a contended count shared by every thread.
    let prefixBytes: UnsafeBufferPointer<UInt8>
    let prefixEnds: UnsafeBufferPointer<UInt32>
    let hashIndex: Int
    /// Keys only `sync/maindata` sends (5.2's announce flags): `torrents/info` leaves them out.
    let syncOnly: UnsafeBufferPointer<Bool>
    /// How `torrents/info` writes a row: runs of keys it sends, copied from the row's pairs at once, and `hash` where
    /// it goes among them.
    let infoPlan: UnsafeBufferPointer<InfoStep>

    /// Keys `from..<to` of a row's pairs, or `hash` when `from` is negative.
    struct InfoStep: Equatable {
        let from: Int32, to: Int32
        static let hash = InfoStep(from: -1, to: -1)
    }

    init(_ fields: [TorrentInfo.Field], hashIndex: Int) {
        var bytes: [UInt8] = [], ends: [UInt32] = []
        for field in fields {
            JSONValue.writeString(field.name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            ends.append(UInt32(bytes.count))
        }
        prefixBytes = Self.kept(bytes)
        prefixEnds = Self.kept(ends)
        syncOnly = Self.kept(fields.map(\.syncOnly))
        self.hashIndex = hashIndex
        infoPlan = Self.kept(Self.plan(syncOnly: fields.map(\.syncOnly), hashIndex: hashIndex))
    }

    deinit {
        prefixBytes.deallocate()
        prefixEnds.deallocate()
        syncOnly.deallocate()
        infoPlan.deallocate()
    }

    static func plan(syncOnly: [Bool], hashIndex: Int) -> [InfoStep] {
        var steps: [InfoStep] = [], from: Int?
        func close(_ i: Int) {
            if let start = from { steps.append(InfoStep(from: Int32(start), to: Int32(i))) }
            from = nil
        }
        for i in 0...syncOnly.count {
            if i == hashIndex || i == syncOnly.count || syncOnly[i] { close(i) }
            if i == hashIndex { steps.append(.hash) }
            if i < syncOnly.count && !syncOnly[i] && from == nil { from = i }
        }
        return steps
    }

    static func kept<T>(_ array: [T]) -> UnsafeBufferPointer<T> {
        let storage = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, array.count))
        _ = storage.initialize(from: array)
        return UnsafeBufferPointer(rebasing: storage[..<array.count])
    }

    /// Key i's `"key":`.
    func prefix(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: prefixBytes[(i == 0 ? 0 : Int(prefixEnds[i - 1]))..<Int(prefixEnds[i])])
    }
}

/// One torrent's object encoded once: its pairs `"key":value` comma-separated, as `sync/maindata` sends them (without
/// `hash`), so a full listing copies a row in one piece (`torrents/info`: a few, around `hash` and the sync-only keys).
/// Keeping values alone and laying each key beside its value for every listing cost two small copies a key, 0.22 s
/// of CPU for a listing of 100,000 torrents; the keys make a row about three times the size of its values.
final class EncodedRow: Sendable {
    /// The board entry it was made from: the same object next time means nothing to encode.
    let entry: BoardEntry
    let pairs: [UInt8]
    /// Where each pair ends in `pairs` (a comma follows, except after the last).
    let ends: [UInt32]
    /// The rows generation in which these pairs last changed.
    let revision: UInt64

    init(entry: BoardEntry, pairs: [UInt8], ends: [UInt32], revision: UInt64) {
        self.entry = entry
        self.pairs = pairs
        self.ends = ends
        self.revision = revision
    }

    /// Key i's value (its pair without the `"key":`).
    func value(_ i: Int, _ keys: RowKeys) -> ArraySlice<UInt8> {
        let pairStart = i == 0 ? 0 : Int(ends[i - 1]) + 1
        return pairs[(pairStart + keys.prefix(i).count)..<Int(ends[i])]
    }

    /// The object's pairs, comma-separated, without braces: with `hash` (and without the sync-only keys) for
    /// `torrents/info`, without it for `sync/maindata`. A full listing writes this for every torrent, so the pairs are
    /// copied straight into the answer's buffer (`into buffer:`) or a scratch buffer (`into out:`).
    func writePairs(_ keys: RowKeys, hash id: TorrentID?, into out: inout [UInt8]) {
        guard let id else { return out.append(contentsOf: pairs) }
        guard Self.plainHash(id) else { return writePairsSlowly(keys, hash: id, into: &out) }
        laid(keys, hash: id) { size, lay in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { scratch in
                let written = lay(scratch.baseAddress!)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<written]))
            }
        }
    }

    /// The same, written at the end of `buffer`.
    func writePairs(_ keys: RowKeys, hash id: TorrentID?, into buffer: inout ByteBuffer) {
        guard let id else {
            buffer.writeBytes(pairs)
            return
        }
        guard Self.plainHash(id) else {
            var out: [UInt8] = []
            writePairsSlowly(keys, hash: id, into: &out)
            buffer.writeBytes(out)
            return
        }
        laid(keys, hash: id) { size, lay in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
                lay(raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    /// Calls `place` with an upper bound of the `torrents/info` pairs' size and the function that lays them out at an
    /// address (and returns how many bytes it wrote), with every array's storage at hand.
    private func laid(_ keys: RowKeys, hash id: TorrentID,
                      _ place: (_ size: Int, _ lay: (UnsafeMutablePointer<UInt8>) -> Int) -> Void) {
        var id = id
        let plan = keys.infoPlan
        pairs.withUnsafeBufferPointer { pairs in
            ends.withUnsafeBufferPointer { ends in
                id.withUTF8 { hash in
                    // An upper bound: the sync-only pairs count even when left out.
                    let size = pairs.count + Self.hashPrefix.count + hash.count + 2
                    place(size) { base in Self.lay(pairs, ends, plan, hash: hash, at: base) }
                }
            }
        }
    }

    private nonisolated(unsafe) static let hashPrefix = RowKeys.kept(Array(#""hash":""#.utf8))  // never changed or freed

    /// Lays the `torrents/info` pairs out at `base` as the plan says, `hash` (the id's bytes) among them. Returns the
    /// bytes written.
    private static func lay(_ pairs: UnsafeBufferPointer<UInt8>, _ ends: UnsafeBufferPointer<UInt32>,
                            _ plan: UnsafeBufferPointer<RowKeys.InfoStep>, hash: UnsafeBufferPointer<UInt8>,
                            at base: UnsafeMutablePointer<UInt8>) -> Int {
        var at = 0
        func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            if let source = bytes.baseAddress, bytes.count > 0 { (base + at).update(from: source, count: bytes.count) }
            at += bytes.count
        }
        for step in plan {
            if at > 0 { base[at] = UInt8(ascii: ","); at += 1 }
            if step.from < 0 {
                put(hashPrefix)
                put(hash)
                base[at] = UInt8(ascii: "\""); at += 1
            } else {
                let start = step.from == 0 ? 0 : Int(ends[Int(step.from) - 1]) + 1
                put(UnsafeBufferPointer(rebasing: pairs[start..<Int(ends[Int(step.to) - 1])]))
            }
        }
        return at
    }

    /// An info hash is hex (a magnet's placeholder too): nothing in it to escape.
    static func plainHash(_ id: TorrentID) -> Bool {
        id.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// The same, key by key through the JSON writer: for an id that would need escaping (none does in practice), and
    /// the tests' reference.
    func writePairsSlowly(_ keys: RowKeys, hash id: TorrentID?, into out: inout [UInt8]) {
        var first = true
        func pair(_ prefix: some Sequence<UInt8>, _ value: some Sequence<UInt8>) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: prefix)
            out.append(contentsOf: value)
        }
        for i in ends.indices {
            if i == keys.hashIndex, let id {
                var value: [UInt8] = []
                JSONValue.writeString(id, into: &value)
                pair(#""hash":"#.utf8, value)
            }
            if id != nil && keys.syncOnly[i] { continue }
            pair(keys.prefix(i), value(i, keys))
        }
        if let id, keys.hashIndex >= ends.count {
            var value: [UInt8] = []
            JSONValue.writeString(id, into: &value)
            pair(#""hash":"#.utf8, value)
        }
    }

    /// The object as `torrents/info` sends it, `hash` included.
    func writeWithHash(_ id: TorrentID, keys: RowKeys, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        writePairs(keys, hash: id, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    func writeWithHash(_ id: TorrentID, keys: RowKeys, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "{"))
        writePairs(keys, hash: id, into: &buffer)
        buffer.writeInteger(UInt8(ascii: "}"))
    }

    /// The pairs that differ from `old` (same profile, so the same keys in the same order), as `{…}`.
    func writeChanges(from old: EncodedRow, keys: RowKeys, into out: inout [UInt8]) -> Bool {
        var first = true
        for i in ends.indices where value(i, keys) != old.value(i, keys) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            out.append(contentsOf: keys.prefix(i))
            out.append(contentsOf: value(i, keys))
            first = false
        }
        if !first { out.append(UInt8(ascii: "}")) }
        return !first
    }
}

/// Every torrent's encoded row for one board, with a short log of which rows changed in which generation, so a
/// `sync/maindata` diff looks only at what changed since the client's baseline.
package final class TorrentRows: Sendable {
    let generation: UInt64
    let boardGeneration: UInt64
    /// A persistent map: rows made from the last ones share every row that did not change.
    let rows: TreeDictionary<TorrentID, EncodedRow>
    /// Ids sorted (Qt writes an object's keys sorted).
    let sortedIDs: [TorrentID]
    /// Bumped when torrents come or go.
    let membership: UInt64
    /// The ids whose bytes changed (or that arrived) in each of the last generations, newest last.
    let log: [(generation: UInt64, ids: [TorrentID])]
    let keys: RowKeys

    static let logLength = 64

    init(generation: UInt64, boardGeneration: UInt64, rows: TreeDictionary<TorrentID, EncodedRow>, sortedIDs: [TorrentID],
         membership: UInt64, log: [(generation: UInt64, ids: [TorrentID])], keys: RowKeys) {
        self.generation = generation
        self.boardGeneration = boardGeneration
        self.rows = rows
        self.sortedIDs = sortedIDs
        self.membership = membership
        self.log = log
        self.keys = keys
    }

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
    private let current: Mutex<TorrentRows>
    private let fields: [TorrentInfo.Field]
    private let keys: RowKeys
    let identity: Identity

    private let trackers = Mutex<(revision: UInt64, value: JSONValue)?>(nil)

    public init(identity: Identity) {
        self.identity = identity
        let all = TorrentInfo.fields(for: identity)
        fields = all.filter { $0.name != "hash" }
        keys = RowKeys(fields, hashIndex: all.firstIndex { $0.name == "hash" }!)
        current = Mutex(TorrentRows(generation: 0, boardGeneration: 0, rows: [:], sortedIDs: [], membership: 0, log: [],
                                    keys: keys))
    }

    /// Encodes every torrent's row ahead of the first listing (at start-up: after a restart of thousands of
    /// torrents the first `torrents/info` would otherwise encode them all while its client waits).
    public func prepare(_ board: TorrentBoard) { _ = rows(for: board) }

    package func rows(for board: TorrentBoard) -> TorrentRows {
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

    /// Rows for a new board: only the entries the board says it changed when it was made from the board these rows
    /// follow; otherwise every entry is checked (by identity: an entry that is the same object keeps its row).
    private func update(_ old: TorrentRows, to board: TorrentBoard) -> TorrentRows {
        let generation = old.generation + 1
        var rows = old.rows
        var changed: [TorrentID] = []
        var membershipChanged = false
        func refresh(_ id: TorrentID, _ entry: BoardEntry?) {
            guard let entry else {
                if rows.removeValue(forKey: id) != nil { membershipChanged = true }
                return
            }
            let before = rows[id]
            if let before, before.entry === entry { return }
            let row = encode(entry, revision: generation)
            if let before, row.pairs == before.pairs {
                rows[id] = EncodedRow(entry: entry, pairs: before.pairs, ends: before.ends, revision: before.revision)
            } else {
                rows[id] = row
                changed.append(id)
                if before == nil { membershipChanged = true }
            }
        }
        if let ids = board.changed, board.previousGeneration == old.boardGeneration {
            for id in ids { refresh(id, board.entries[id]) }
        } else {
            for (id, entry) in board.entries { refresh(id, entry) }
            for (id, _) in old.rows where board.entries[id] == nil { refresh(id, nil) }
        }
        var log = old.log
        log.append((generation, changed))  // every generation, empty or not, so the log shows how far back it reaches
        if log.count > TorrentRows.logLength { log.removeFirst(log.count - TorrentRows.logLength) }
        return TorrentRows(generation: generation, boardGeneration: board.generation, rows: rows,
                           sortedIDs: membershipChanged ? rows.keys.sorted() : old.sortedIDs,
                           membership: membershipChanged ? old.membership + 1 : old.membership, log: log, keys: keys)
    }

    func encode(_ entry: BoardEntry, revision: UInt64) -> EncodedRow {
        let info = TorrentInfo(entry.view, identity: identity)
        var pairs: [UInt8] = []
        pairs.reserveCapacity(1536)
        var ends: [UInt32] = []
        ends.reserveCapacity(fields.count)
        for (i, field) in fields.enumerated() {
            if i > 0 { pairs.append(UInt8(ascii: ",")) }
            pairs.append(contentsOf: keys.prefix(i))
            field.value(info).write(into: &pairs)
            ends.append(UInt32(pairs.count))
        }
        // Kept at its size: 100,000 rows made in a buffer with room to spare held tens of MB they never used.
        let kept = [UInt8](unsafeUninitializedCapacity: pairs.count) { storage, count in
            count = storage.initialize(from: pairs).1
        }
        return EncodedRow(entry: entry, pairs: kept, ends: ends, revision: revision)
    }
}
