import Foundation
import PostgresNIO
import Store

extension PostgresStore {
    /// The torrents table's columns but the two wide ones, `metainfo` and `resume_data`.
    static let narrowColumns = """
        t.id, t.name, t.magnet, t.save_path, t.category, t.added_on, t.completed_on, t.stopped, t.sequential,
        t.first_last_piece_prio, t.upload_limit, t.download_limit, t.ratio_limit, t.seeding_time_limit,
        t.inactive_seeding_time_limit, t.auto_tmm, t.force_start, t.super_seeding, t.download_path, t.stop_condition,
        t.comment, t.share_limit_action, t.share_limits_mode
        """

    public func insert(_ items: [(record: TorrentRecord, tags: [String])]) async throws {
        guard !items.isEmpty else { return }
        try await writing { sql in
            for (r, tags) in items {
                if let category = r.category {
                    _ = try await sql.labelsChanged(sql.count("""
                        INSERT INTO categories (name) VALUES (\(category)) ON CONFLICT DO NOTHING RETURNING name
                        """), by: node)
                }
                try await sql.run("""
                    INSERT INTO torrents (id, node, name, metainfo, magnet, save_path, category, added_on, completed_on,
                        stopped, sequential, first_last_piece_prio, upload_limit, download_limit, ratio_limit,
                        seeding_time_limit, inactive_seeding_time_limit, auto_tmm, force_start, super_seeding, download_path,
                        stop_condition, comment, share_limit_action, share_limits_mode, resume_data)
                    VALUES (\(r.id), \(node), \(r.name), \(r.metainfo), \(r.magnet), \(r.savePath), \(r.category), \(r.addedOn),
                        \(r.completedOn), \(r.stopped), \(r.sequential), \(r.firstLastPiecePrio), \(r.uploadLimit),
                        \(r.downloadLimit), \(r.ratioLimit), \(r.seedingTimeLimit), \(r.inactiveSeedingTimeLimit), \(r.autoTMM),
                        \(r.forceStart), \(r.superSeeding), \(r.downloadPath), \(r.stopCondition), \(r.comment),
                        \(r.shareLimitAction), \(r.shareLimitsMode), \(r.resumeData))
                    """)
                try await Self.attach(tags: tags, to: [r.id], sql, by: node)
            }
        }
    }

    public func torrents() async throws -> [StoredTorrent] {
        try await reading { sql in
            let tags = try await ownTags(sql)
            return try await sql.rows("""
                SELECT \(unescaped: Self.narrowColumns), t.metainfo, t.resume_data FROM torrents t WHERE t.node = \(node)
                ORDER BY t.added_on, t.id
                """) { row in
                let record = try Self.record(row, withSources: true)
                return StoredTorrent(record: record, tags: tags[record.id] ?? [])
            }
        }
    }

    public func torrentsWithoutSources() async throws -> [StoredTorrent] {
        try await reading { sql in
            let tags = try await ownTags(sql)
            return try await sql.rows("""
                SELECT \(unescaped: Self.narrowColumns), q.position AS queue_position
                FROM torrents t LEFT JOIN torrent_queue q ON q.torrent_id = t.id WHERE t.node = \(node)
                ORDER BY q.position IS NULL, q.position, t.added_on, t.id
                """) { row in
                let record = try Self.record(row, withSources: false)
                return StoredTorrent(record: record, tags: tags[record.id] ?? [], queuePosition: try row.get("queue_position"))
            }
        }
    }

    /// This node's torrents' tags, by torrent.
    private func ownTags(_ sql: SQL) async throws -> [String: [String]] {
        var tags: [String: [String]] = [:]
        for (id, tag) in try await sql.rows("""
            SELECT tt.torrent_id, tt.tag FROM torrent_tags tt JOIN torrents t ON t.id = tt.torrent_id
            WHERE t.node = \(node) ORDER BY tt.tag
            """, { (try $0.get("torrent_id", as: String.self), try $0.get("tag", as: String.self)) }) {
            tags[id, default: []].append(tag)
        }
        return tags
    }

    public func saveQueuePositions(_ items: [(id: String, position: Int)]) async throws {
        guard !items.isEmpty else { return }
        try await writing { sql in
            for (id, position) in items {
                if position >= 0 {
                    try await sql.run("""
                        INSERT INTO torrent_queue (torrent_id, position) SELECT id, \(position) FROM torrents WHERE id = \(id)
                        ON CONFLICT (torrent_id) DO UPDATE SET position = excluded.position
                        """)
                } else {
                    try await sql.run("DELETE FROM torrent_queue WHERE torrent_id = \(id)")
                }
            }
        }
    }

    public func sources(of ids: [String]) async throws -> [String: (metainfo: Data?, resumeData: Data?)] {
        try await reading { sql in
            var out: [String: (metainfo: Data?, resumeData: Data?)] = [:]
            out.reserveCapacity(ids.count)
            for (id, metainfo, resume) in try await sql.rows("SELECT id, metainfo, resume_data FROM torrents WHERE id = ANY(\(ids))", {
                (try $0.get("id", as: String.self), try $0.get("metainfo", as: Data?.self), try $0.get("resume_data", as: Data?.self))
            }) {
                out[id] = (metainfo, resume)
            }
            return out
        }
    }

    public func torrent(_ id: String) async throws -> StoredTorrent? {
        try await reading { sql in try await Self.storedTorrent(id, sql, lock: false) }
    }

    public func updateTorrent(_ id: String, _ change: @escaping @Sendable (inout TorrentRecord) -> Void) async throws {
        try await writing { sql in
            guard var r = try await Self.storedTorrent(id, sql, lock: true)?.record else { return }
            change(&r)
            if let category = r.category {
                _ = try await sql.labelsChanged(sql.count("""
                    INSERT INTO categories (name) VALUES (\(category)) ON CONFLICT DO NOTHING RETURNING name
                    """), by: node)
            }
            try await sql.run("""
                UPDATE torrents SET name = \(r.name), metainfo = \(r.metainfo), magnet = \(r.magnet), save_path = \(r.savePath),
                    category = \(r.category), added_on = \(r.addedOn), completed_on = \(r.completedOn), stopped = \(r.stopped),
                    sequential = \(r.sequential), first_last_piece_prio = \(r.firstLastPiecePrio),
                    upload_limit = \(r.uploadLimit), download_limit = \(r.downloadLimit), ratio_limit = \(r.ratioLimit),
                    seeding_time_limit = \(r.seedingTimeLimit), inactive_seeding_time_limit = \(r.inactiveSeedingTimeLimit),
                    auto_tmm = \(r.autoTMM), force_start = \(r.forceStart), super_seeding = \(r.superSeeding),
                    download_path = \(r.downloadPath), stop_condition = \(r.stopCondition), comment = \(r.comment),
                    share_limit_action = \(r.shareLimitAction), share_limits_mode = \(r.shareLimitsMode),
                    resume_data = \(r.resumeData)
                WHERE id = \(id)
                """)
        }
    }

    public func deleteTorrent(_ id: String) async throws {
        try await writing { sql in try await sql.run("DELETE FROM torrents WHERE id = \(id)") }
    }

    public func saveResumeData(_ items: [(id: String, data: Data)]) async throws {
        guard !items.isEmpty else { return }
        // Only its owner's: a node that lapsed while its torrents were adopted must not write over the adopter's.
        try await writing { [node] sql in
            for (id, data) in items {
                try await sql.run("UPDATE torrents SET resume_data = \(data) WHERE id = \(id) AND node = \(node)")
            }
        }
    }

    public func saveMetainfo(_ id: String, _ data: Data, name: String) async throws {
        try await writing { sql in
            try await sql.run("""
                UPDATE torrents SET metainfo = \(data), name = CASE WHEN name = '' OR name = id THEN \(name) ELSE name END
                WHERE id = \(id)
                """)
        }
    }

    public func addTags(_ tags: [String], to ids: [String]) async throws {
        try await writing { [node] sql in try await Self.attach(tags: tags, to: ids, sql, by: node) }
    }

    public func removeTags(_ tags: [String]?, from ids: [String]) async throws {
        try await writing { sql in
            if let tags {
                try await sql.run("DELETE FROM torrent_tags WHERE torrent_id = ANY(\(ids)) AND tag = ANY(\(tags))")
            } else {
                try await sql.run("DELETE FROM torrent_tags WHERE torrent_id = ANY(\(ids))")
            }
        }
    }

    static func attach(tags: [String], to ids: [String], _ sql: SQL, by node: String) async throws {
        guard !tags.isEmpty else { return }
        _ = try await sql.labelsChanged(sql.count("""
            INSERT INTO tags (name) SELECT unnest(\(tags)::text[]) ON CONFLICT DO NOTHING RETURNING name
            """), by: node)
        try await sql.run("""
            INSERT INTO torrent_tags (torrent_id, tag) SELECT t.id, g.tag FROM torrents t, unnest(\(tags)::text[]) AS g(tag)
            WHERE t.id = ANY(\(ids)) ON CONFLICT DO NOTHING
            """)
    }

    static func storedTorrent(_ id: String, _ sql: SQL, lock: Bool) async throws -> StoredTorrent? {
        guard let record = try await sql.rows("""
            SELECT \(unescaped: narrowColumns), t.metainfo, t.resume_data FROM torrents t WHERE t.id = \(id)
            \(unescaped: lock ? "FOR UPDATE" : "")
            """, { try record($0, withSources: true) }).first else { return nil }
        let tags = try await sql.rows("SELECT tag FROM torrent_tags WHERE torrent_id = \(id) ORDER BY tag") { try $0.get("tag", as: String.self) }
        return StoredTorrent(record: record, tags: tags)
    }

    static func record(_ row: PostgresRandomAccessRow, withSources: Bool) throws -> TorrentRecord {
        var r = TorrentRecord(id: try row.get("id"), name: try row.get("name"),
                              metainfo: withSources ? try row.get("metainfo") : nil, magnet: try row.get("magnet"),
                              savePath: try row.get("save_path"), category: try row.get("category"), addedOn: try row.get("added_on"),
                              stopped: try row.get("stopped"), sequential: try row.get("sequential"),
                              firstLastPiecePrio: try row.get("first_last_piece_prio"), uploadLimit: try row.get("upload_limit"),
                              downloadLimit: try row.get("download_limit"), ratioLimit: try row.get("ratio_limit"),
                              seedingTimeLimit: try row.get("seeding_time_limit"),
                              inactiveSeedingTimeLimit: try row.get("inactive_seeding_time_limit"), autoTMM: try row.get("auto_tmm"))
        r.completedOn = try row.get("completed_on")
        r.forceStart = try row.get("force_start")
        r.superSeeding = try row.get("super_seeding")
        r.downloadPath = try row.get("download_path")
        r.stopCondition = try row.get("stop_condition")
        r.comment = try row.get("comment")
        r.shareLimitAction = try row.get("share_limit_action")
        r.shareLimitsMode = try row.get("share_limits_mode")
        if withSources { r.resumeData = try row.get("resume_data") }
        return r
    }
}
