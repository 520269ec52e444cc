import Foundation
import GRDB

extension SQLiteStore {
    /// Inserts many torrents in one transaction (an add of many files): all of them or none.
    public func insert(_ items: [(record: TorrentRecord, tags: [String])]) async throws {
        guard !items.isEmpty else { return }
        try await db.write { db in
            for (record, tags) in items {
                if let category = record.category {
                    try db.execute(sql: "INSERT OR IGNORE INTO categories (name) VALUES (?)", arguments: [category])
                }
                try record.insert(db)
                try Self.attach(tags: tags, to: [record.id], in: db)
            }
        }
    }

    public func torrents() async throws -> [StoredTorrent] {
        try await db.read { db in
            let records = try TorrentRecord.order(Column("added_on"), Column("id")).fetchAll(db)
            var tags: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT torrent_id, tag FROM torrent_tags ORDER BY tag") {
                tags[row["torrent_id"], default: []].append(row["tag"])
            }
            return records.map { StoredTorrent(record: $0, tags: tags[$0.id] ?? []) }
        }
    }

    /// Every torrent with its tags but without its .torrent and resume data (a restart reads those per batch,
    /// with `sources(of:)`, while the engine takes the batch before): the queued ones first, in their queue's order
    /// (libtorrent queues torrents in the order they are added), then the rest in the order they were added.
    public func torrentsWithoutSources() async throws -> [StoredTorrent] {
        try await db.read { db in
            let columns = try db.columns(in: TorrentRecord.databaseTableName).map(\.name)
                .filter { $0 != "metainfo" && $0 != "resume_data" }
            let list = columns.map { "t.\"\($0)\"" }.joined(separator: ", ")
            let rows = try Row.fetchCursor(db, sql: """
                SELECT \(list), q.position AS queue_position FROM torrents t LEFT JOIN torrent_queue q ON q.torrent_id = t.id
                ORDER BY q.position IS NULL, q.position, t.added_on, t.id
                """)
            var tags: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT torrent_id, tag FROM torrent_tags ORDER BY tag") {
                tags[row["torrent_id"], default: []].append(row["tag"])
            }
            var out: [StoredTorrent] = []
            while let row = try rows.next() {
                let record = try TorrentRecord(row: row)
                out.append(StoredTorrent(record: record, tags: tags[record.id] ?? [], queuePosition: row["queue_position"]))
            }
            return out
        }
    }

    /// Records where torrents stand in libtorrent's download queue (-1: not queued), for the next start's order.
    public func saveQueuePositions(_ items: [(id: String, position: Int)]) async throws {
        guard !items.isEmpty else { return }
        try await db.write { db in
            // A torrent removed meanwhile is left out (its row is gone, and the queue's with it).
            let place = try db.makeStatement(sql: """
                INSERT INTO torrent_queue (torrent_id, position) SELECT id, ? FROM torrents WHERE id = ?
                ON CONFLICT (torrent_id) DO UPDATE SET position = excluded.position
                """)
            let leave = try db.makeStatement(sql: "DELETE FROM torrent_queue WHERE torrent_id = ?")
            for (id, position) in items {
                if position >= 0 { try place.execute(arguments: [position, id]) } else { try leave.execute(arguments: [id]) }
            }
        }
    }

    /// The .torrent and fast-resume data of these torrents (absent ones left out).
    public func sources(of ids: [String]) async throws -> [String: (metainfo: Data?, resumeData: Data?)] {
        try await db.read { db in
            var out: [String: (metainfo: Data?, resumeData: Data?)] = [:]
            out.reserveCapacity(ids.count)
            for start in stride(from: 0, to: ids.count, by: 500) {  // SQLite's bound-parameter limit
                let chunk = Array(ids[start..<min(ids.count, start + 500)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(db, sql: "SELECT id, metainfo, resume_data FROM torrents WHERE id IN (\(marks))",
                                               arguments: StatementArguments(chunk))
                while let row = try rows.next() { out[row["id"]] = (row["metainfo"], row["resume_data"]) }
            }
            return out
        }
    }

    public func torrent(_ id: String) async throws -> StoredTorrent? {
        try await db.read { db in
            guard let record = try TorrentRecord.fetchOne(db, key: id) else { return nil }
            let tags = try String.fetchAll(db, sql: "SELECT tag FROM torrent_tags WHERE torrent_id = ? ORDER BY tag", arguments: [id])
            return StoredTorrent(record: record, tags: tags)
        }
    }

    /// Changes one stored torrent; a no-op if it is gone.
    public func updateTorrent(_ id: String, _ change: @escaping @Sendable (inout TorrentRecord) -> Void) async throws {
        try await db.write { db in
            guard var record = try TorrentRecord.fetchOne(db, key: id) else { return }
            change(&record)
            if let category = record.category {
                try db.execute(sql: "INSERT OR IGNORE INTO categories (name) VALUES (?)", arguments: [category])
            }
            try record.update(db)
        }
    }

    public func deleteTorrent(_ id: String) async throws {
        _ = try await db.write { db in try TorrentRecord.deleteOne(db, key: id) }
    }

    /// Stores many torrents' fast-resume data in one transaction (a drain's worth: after an add of thousands,
    /// one commit instead of thousands).
    public func saveResumeData(_ items: [(id: String, data: Data)]) async throws {
        guard !items.isEmpty else { return }
        try await db.write { db in
            let statement = try db.makeStatement(sql: "UPDATE torrents SET resume_data = ? WHERE id = ?")
            for (id, data) in items { try statement.execute(arguments: [data, id]) }
        }
    }

    /// Stores the .torrent bytes of a magnet once its metadata arrives.
    public func saveMetainfo(_ id: String, _ data: Data, name: String) async throws {
        try await db.write { db in
            try db.execute(
                sql: "UPDATE torrents SET metainfo = ?, name = CASE WHEN name = '' OR name = id THEN ? ELSE name END WHERE id = ?",
                arguments: [data, name, id])
        }
    }

    // MARK: tags on torrents

    public func addTags(_ tags: [String], to ids: [String]) async throws {
        try await db.write { db in try Self.attach(tags: tags, to: ids, in: db) }
    }

    public func removeTags(_ tags: [String]?, from ids: [String]) async throws {
        try await db.write { db in
            for id in ids {
                if let tags {
                    for tag in tags {
                        try db.execute(sql: "DELETE FROM torrent_tags WHERE torrent_id = ? AND tag = ?", arguments: [id, tag])
                    }
                } else {
                    try db.execute(sql: "DELETE FROM torrent_tags WHERE torrent_id = ?", arguments: [id])
                }
            }
        }
    }

    static func attach(tags: [String], to ids: [String], in db: Database) throws {
        for tag in tags {
            try db.execute(sql: "INSERT OR IGNORE INTO tags (name) VALUES (?)", arguments: [tag])
            for id in ids {
                try db.execute(sql: "INSERT OR IGNORE INTO torrent_tags (torrent_id, tag) SELECT id, ? FROM torrents WHERE id = ?", arguments: [tag, id])
            }
        }
    }
}
