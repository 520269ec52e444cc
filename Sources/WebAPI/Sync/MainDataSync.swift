import HTTPKit
import NIOCore
import QBTCore
import TorrentEngine

/// What one `sync/maindata` answer was made of: the shared torrent rows (a reference, not a copy) and the small
/// rest (categories, tags, trackers, server state).
package struct MainData: Sendable {
    var rows: TorrentRows
    var rest: [String: JSONValue]

    package init(rows: TorrentRows, rest: [String: JSONValue]) {
        self.rows = rows
        self.rest = rest
    }
}

/// One client's position in its `sync/maindata` conversation, as qBittorrent's `generateSyncData` keeps it. It
/// holds references to shared rows, so a thousand clients cost a thousand pointers, not a thousand listings.
public struct MainDataSync: Sendable {
    var lastSentID = 0
    var lastSent: MainData?
    var acceptedID = 0
    var accepted: MainData?
    public init() {}

    static let restCollections: Set<String> = ["categories", "trackers"]

    /// A cluster's node numbers a conversation it has not answered yet from a random point (wrapping at 1,000,000 as
    /// qBittorrent's do): the client may ask any node next, and a number another node gave it must not be taken here
    /// for one of this node's own (the answer would be a diff from the wrong baseline).
    package mutating func startAnywhere() {
        if lastSent == nil, lastSentID == 0 { lastSentID = Int.random(in: 0..<1_000_000) }
    }

    /// The answer to a poll with `rid` (the rules of `SyncState.answer`), written straight to JSON bytes.
    package mutating func answer(rid: Int, data: MainData) -> [UInt8] {
        let step = advance(rid: rid, data: data)
        return Self.answer(from: step.base, to: data, rid: step.rid).bytes
    }

    /// Takes a poll with `rid` and `data` as what it is answered: what the answer is a diff from (nil: a full
    /// update) and the answer's own rid.
    package mutating func advance(rid: Int, data: MainData) -> (base: MainData?, rid: Int) {
        if rid > 0 && rid == lastSentID, let lastSent {
            accepted = lastSent
            acceptedID = lastSentID
        }
        let base = rid > 0 && rid == acceptedID ? accepted : nil
        lastSentID = lastSentID % 1_000_000 + 1
        lastSent = data
        return (base, lastSentID)
    }

    /// A full update made a part at a time as it is sent (a big library's): the torrents come from the shared rows.
    package static func fullParts(_ data: MainData, rid: Int) -> JSONParts {
        let rest = fullRest(data, rid: rid)
        let rows = data.rows
        let hasTorrents = !rows.rows.isEmpty
        let (head, tail) = frame(rest, torrents: hasTorrents)
        return JSONParts(head: head + (hasTorrents ? [UInt8(ascii: "{")] : []), count: rows.sortedIDs.count,
                         tail: (hasTorrents ? [UInt8(ascii: "}")] : []) + tail) { i, out in
            writeTorrent(rows.sortedIDs[i], rows, into: &out)
        }
    }

    static func fullRest(_ data: MainData, rid: Int) -> [String: JSONValue] {
        var rest = SyncDiff.full(data.rest)
        rest["full_update"] = .bool(true)
        rest["rid"] = .int(Int64(rid))
        return rest
    }

    /// The answer taking a client from `base` to `data` (a full update when there is no base), numbered `rid`, and
    /// whether it says anything beyond its number (a full update always does).
    package static func answer(from base: MainData?, to data: MainData, rid: Int) -> (bytes: [UInt8], changes: Bool) {
        var rest: [String: JSONValue]
        var torrents: [UInt8]?
        if let base {
            rest = SyncDiff.changes(from: base.rest, to: data.rest, collections: restCollections)
            torrents = torrentChanges(from: base.rows, to: data.rows)
            let removed = data.rows.removed(since: base.rows)
            if !removed.isEmpty { rest["torrents_removed"] = .array(removed.map { .string($0) }) }
        } else {
            rest = fullRest(data, rid: rid)
            torrents = data.rows.rows.isEmpty ? nil : allTorrents(data.rows)
        }
        let changes = !rest.isEmpty || torrents != nil
        rest["rid"] = .int(Int64(rid))  // (a full update's rest has it already)
        return (write(rest, torrents: torrents), changes)
    }

    static func allTorrents(_ rows: TorrentRows) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rows.rows.count * 1300 + 2)
        out.append(UInt8(ascii: "{"))
        for (i, id) in rows.sortedIDs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            _ = writeTorrent(id, rows, into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `"<hash>":{…}`, a torrent as a full update has it.
    static func writeTorrent(_ id: TorrentID, _ rows: TorrentRows, into out: inout [UInt8]) -> Bool {
        guard let row = rows.rows[id] else { return false }
        JSONValue.writeString(id, into: &out)
        out.append(contentsOf: ":{".utf8)
        row.writePairs(rows.keys, hash: nil, into: &out)
        out.append(UInt8(ascii: "}"))
        return true
    }

    static func writeTorrent(_ id: TorrentID, _ rows: TorrentRows, into buffer: inout ByteBuffer) -> Bool {
        guard let row = rows.rows[id] else { return false }
        if EncodedRow.plainHash(id) {
            buffer.writeInteger(UInt8(ascii: "\""))
            buffer.writeString(id)
            buffer.writeInteger(UInt8(ascii: "\""))
        } else {
            var name: [UInt8] = []
            JSONValue.writeString(id, into: &name)
            buffer.writeBytes(name)
        }
        buffer.writeStaticString(":{")
        row.writePairs(rows.keys, hash: nil, into: &buffer)
        buffer.writeInteger(UInt8(ascii: "}"))
        return true
    }

    /// New torrents whole, changed ones with only their changed keys; nil when nothing changed.
    static func torrentChanges(from base: TorrentRows, to now: TorrentRows) -> [UInt8]? {
        var out: [UInt8] = [UInt8(ascii: "{")]
        var any = false
        for id in now.changed(since: base) {
            guard let row = now.rows[id] else { continue }
            let mark = out.count
            if any { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(id, into: &out)
            out.append(UInt8(ascii: ":"))
            if let old = base.rows[id] {
                guard row.writeChanges(from: old, keys: now.keys, into: &out) else { out.removeSubrange(mark...); continue }
            } else {
                out.append(UInt8(ascii: "{"))
                row.writePairs(now.keys, hash: nil, into: &out)
                out.append(UInt8(ascii: "}"))
            }
            any = true
        }
        out.append(UInt8(ascii: "}"))
        return any ? out : nil
    }

    /// The answer object, keys sorted, with the pre-encoded `torrents` spliced in.
    static func write(_ rest: [String: JSONValue], torrents: [UInt8]?) -> [UInt8] {
        let (head, tail) = frame(rest, torrents: torrents != nil)
        return head + (torrents ?? []) + tail
    }

    /// The answer object, keys sorted, split where the value of `torrents` goes (the whole object in `head` when
    /// there is no `torrents`).
    static func frame(_ rest: [String: JSONValue], torrents: Bool) -> (head: [UInt8], tail: [UInt8]) {
        var keys = Array(rest.keys)
        if torrents { keys.append("torrents") }
        keys.sort()
        var head: [UInt8] = [UInt8(ascii: "{")]
        var tail: [UInt8] = []
        for (i, key) in keys.enumerated() {
            if i > 0 { tail.append(UInt8(ascii: ",")) }
            JSONValue.writeString(key, into: &tail)
            tail.append(UInt8(ascii: ":"))
            if key == "torrents" {
                head.append(contentsOf: tail)
                tail = []
            } else {
                rest[key]!.write(into: &tail)
            }
        }
        tail.append(UInt8(ascii: "}"))
        guard torrents else { return (head + tail, []) }
        return (head, tail)
    }
}
