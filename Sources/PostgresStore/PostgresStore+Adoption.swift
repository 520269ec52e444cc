import Foundation
import PostgresNIO
import Store

/// A lapsed node's torrents adopted by the nodes sharing its folder: one `UPDATE` of the owner column, so that each
/// torrent goes to one node only, and only while its node is still lapsed by the database's clock.
extension PostgresStore: TorrentAdoptionRegistry {
    public func torrentsOfLapsedNode(_ lapsed: String) async throws -> [(id: String, savePath: String)] {
        try await reading { sql in
            try await sql.rows("""
                SELECT t.id, t.save_path FROM torrents t JOIN nodes n ON n.name = t.node
                WHERE t.node = \(lapsed) AND NOT n.stopped AND extract(epoch FROM clock_timestamp()) - n.heartbeat_at > n.lease
                ORDER BY t.id
                """) { (try $0.get("id", as: String.self), try $0.get("save_path", as: String.self)) }
        }
    }

    public func adopt(_ ids: [String], of lapsed: String, from: String, to: String) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try await writing { [node] sql in
            let taken = try await sql.rows("""
                UPDATE torrents SET node = \(node), save_path = CASE
                    WHEN save_path = \(from) THEN \(to)
                    WHEN starts_with(save_path, \(from + "/")) THEN \(to) || substr(save_path, \(from.unicodeScalars.count + 1)::int)
                    ELSE save_path END
                WHERE id IN (SELECT id FROM torrents WHERE id = ANY(\(ids)) AND node = \(lapsed) FOR UPDATE SKIP LOCKED)
                  AND EXISTS (SELECT 1 FROM nodes n WHERE n.name = \(lapsed) AND NOT n.stopped
                              AND extract(epoch FROM clock_timestamp()) - n.heartbeat_at > n.lease)
                RETURNING id
                """) { try $0.get("id", as: String.self) }
            if !taken.isEmpty {
                try await sql.run("DELETE FROM torrent_moves WHERE id = ANY(\(taken))")
                try await sql.run("SELECT pg_notify(\(Self.movesChannel), \(node))")
            }
            return taken
        }
    }

    public func othersOwn(_ ids: [String]) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try await reading { [node] sql in
            try await sql.rows("SELECT id FROM torrents WHERE id = ANY(\(ids)) AND node <> \(node)") { try $0.get("id", as: String.self) }
        }
    }
}
