import HTTPKit
import QBTCore

/// One client's position in a `sync/*` conversation (qBittorrent's `generateSyncData` bookkeeping).
public struct SyncState: Sendable {
    var lastSentID = 0
    var lastSent: [String: JSONValue]?
    var acceptedID = 0
    var accepted: [String: JSONValue]?
    public init() {}

    /// The answer to a poll with `rid`, and the bookkeeping for the next one:
    /// - `rid` equal to the last id sent makes that answer the accepted baseline;
    /// - `rid` equal to the accepted baseline gets the changes since it (so a client that re-sends an older
    ///   accepted rid gets everything since then);
    /// - anything else gets a full update.
    /// `collections` names the keys holding id → object maps (their removals go in `<key>_removed`).
    public mutating func answer(rid: Int, data: [String: JSONValue], collections: Set<String>,
                                dropEmptyInFull: Bool = true) -> [String: JSONValue] {
        if rid > 0 && rid == lastSentID, let lastSent {
            accepted = lastSent
            acceptedID = lastSentID
        }
        var out: [String: JSONValue]
        if rid > 0 && rid == acceptedID, let accepted {
            out = SyncDiff.changes(from: accepted, to: data, collections: collections)
        } else {
            out = dropEmptyInFull ? SyncDiff.full(data) : data
            out["full_update"] = .bool(true)
        }
        lastSentID = lastSentID % 1_000_000 + 1
        lastSent = data
        out["rid"] = .int(Int64(lastSentID))
        return out
    }
}

/// Field-level diffs between two `sync/*` snapshots, shaped the way qBittorrent's `processMap`/`processHash`
/// shape them. Keys whose collection is empty are left out.
public enum SyncDiff {
    /// A full snapshot, empty collections dropped.
    static func full(_ data: [String: JSONValue]) -> [String: JSONValue] {
        data.filter { !isEmpty($0.value) }
    }

    static func changes(from old: [String: JSONValue], to new: [String: JSONValue], collections: Set<String>) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, value) in new {
            let before = old[key]
            if collections.contains(key) {
                let (changed, removed) = hashChanges(before?.objectValue ?? [:], value.objectValue ?? [:])
                if !changed.isEmpty { out[key] = .object(changed) }
                if !removed.isEmpty { out[key + "_removed"] = .array(removed.sorted().map { .string($0) }) }
                continue
            }
            switch value {
            case .object(let now):
                let changed = mapChanges(before?.objectValue ?? [:], now)
                if !changed.isEmpty { out[key] = .object(changed) }
            case .array(let now):
                // A list of names (tags): additions under the key, removals under `<key>_removed`.
                guard case .array(let was)? = before else {
                    if !now.isEmpty { out[key] = value }
                    continue
                }
                let added = now.filter { !was.contains($0) }
                let removed = was.filter { !now.contains($0) }
                if !added.isEmpty { out[key] = .array(added) }
                if !removed.isEmpty { out[key + "_removed"] = .array(removed) }
            default:
                if before != value { out[key] = value }
            }
        }
        return out
    }

    /// id → object maps: a new id carries its whole object, a changed one only the changed fields,
    /// a list value (a tracker's torrents) is sent whole when it changed; vanished ids are returned apart.
    static func hashChanges(_ old: [String: JSONValue], _ new: [String: JSONValue]) -> ([String: JSONValue], [String]) {
        var changed: [String: JSONValue] = [:]
        for (id, value) in new {
            guard let before = old[id] else { changed[id] = value; continue }
            if case .object(let now) = value, case .object(let was) = before {
                let fields = mapChanges(was, now)
                if !fields.isEmpty { changed[id] = .object(fields) }
            } else if before != value {
                changed[id] = value
            }
        }
        let removed = old.keys.filter { new[$0] == nil }
        return (changed, Array(removed))
    }

    /// Scalar fields that differ (nested objects recursively).
    static func mapChanges(_ old: [String: JSONValue], _ new: [String: JSONValue]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, value) in new where old[key] != value {
            if case .object(let now) = value, case .object(let was)? = old[key] {
                let nested = mapChanges(was, now)
                if !nested.isEmpty { out[key] = .object(nested) }
            } else {
                out[key] = value
            }
        }
        return out
    }

    static func isEmpty(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let o): o.isEmpty
        case .array(let a): a.isEmpty
        default: false
        }
    }
}
