import HTTPKit
import QBTCore

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

    /// The answer to a poll with `rid` (the rules of `SyncState.answer`), written straight to JSON bytes.
    package mutating func answer(rid: Int, data: MainData) -> [UInt8] {
        if rid > 0 && rid == lastSentID, let lastSent {
            accepted = lastSent
            acceptedID = lastSentID
        }
        let base = rid > 0 && rid == acceptedID ? accepted : nil
        lastSentID = lastSentID % 1_000_000 + 1
        lastSent = data
        return Self.answer(from: base, to: data, rid: lastSentID).bytes
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
            rest = SyncDiff.full(data.rest)
            rest["full_update"] = .bool(true)
            torrents = data.rows.rows.isEmpty ? nil : allTorrents(data.rows)
        }
        let changes = !rest.isEmpty || torrents != nil
        rest["rid"] = .int(Int64(rid))
        return (write(rest, torrents: torrents), changes)
    }

    static func allTorrents(_ rows: TorrentRows) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rows.rows.count * 1300 + 2)
        out.append(UInt8(ascii: "{"))
        for (i, id) in rows.sortedIDs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(id, into: &out)
            out.append(contentsOf: ":{".utf8)
            rows.rows[id]!.writePairs(rows.keys, hash: nil, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return out
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
        var keys = Array(rest.keys)
        if torrents != nil { keys.append("torrents") }
        keys.sort()
        var out: [UInt8] = []
        out.reserveCapacity((torrents?.count ?? 0) + 1024)
        out.append(UInt8(ascii: "{"))
        for (i, key) in keys.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            if key == "torrents", let torrents { out.append(contentsOf: torrents) } else { rest[key]!.write(into: &out) }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
