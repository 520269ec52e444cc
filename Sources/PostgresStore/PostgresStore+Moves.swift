import Foundation
import PostgresNIO
import Store

/// The moves between nodes: `torrent_moves`, a row per torrent on its way, and `NOTIFY qbtd_moves` at each step.
extension PostgresStore: TorrentMoveRegistry {
    static let movesChannel = "qbtd_moves"

    public func startMoves(_ ids: [String], to target: String, deleteFiles: Bool) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try await writing { [node] sql in
            let started = try await sql.rows("""
                INSERT INTO torrent_moves (id, source, target, delete_files)
                SELECT id, node, \(target), \(deleteFiles) FROM torrents WHERE id = ANY(\(ids)) AND node <> \(target)
                ON CONFLICT (id) DO NOTHING RETURNING id
                """) { try $0.get("id", as: String.self) }
            if !started.isEmpty { try await sql.run("SELECT pg_notify(\(Self.movesChannel), \(node))") }
            return started
        }
    }

    public func allMoves() async throws -> [TorrentMove] { try await moves(where: nil) }

    public func ownMoves() async throws -> [TorrentMove] { try await moves(where: node) }

    private func moves(where involving: String?) async throws -> [TorrentMove] {
        try await reading { sql in
            try await sql.rows("""
                SELECT m.id, m.source, m.target, m.delete_files, m.done, m.progress, coalesce(n.move_peer, '') AS peer
                FROM torrent_moves m LEFT JOIN nodes n ON n.name = m.source
                WHERE \(involving == nil) OR m.source = \(involving ?? "") OR m.target = \(involving ?? "")
                ORDER BY m.started_at, m.id
                """) { row in
                TorrentMove(id: try row.get("id"), source: try row.get("source"), target: try row.get("target"),
                            deleteFiles: try row.get("delete_files"), done: try row.get("done"),
                            progress: try row.get("progress"), sourcePeer: try row.get("peer"))
            }
        }
    }

    public func noteMoveProgress(_ progress: [String: Double]) async throws {
        guard !progress.isEmpty else { return }
        try await writing { [node] sql in
            for (id, value) in progress {
                try await sql.run("UPDATE torrent_moves SET progress = \(value) WHERE id = \(id) AND target = \(node) AND NOT done")
            }
        }
    }

    public func completeMove(_ id: String, from source: String, savePath: String) async throws -> Bool {
        try await writing { [node] sql in
            let switched = try await sql.count("""
                UPDATE torrents SET node = \(node), save_path = \(savePath), download_path = NULL
                WHERE id = \(id) AND node = \(source) RETURNING id
                """) == 1
            if switched {
                try await sql.run("UPDATE torrent_moves SET done = true, progress = 1 WHERE id = \(id)")
            } else {
                try await sql.run("DELETE FROM torrent_moves WHERE id = \(id)")
            }
            try await sql.run("SELECT pg_notify(\(Self.movesChannel), \(node))")
            return switched
        }
    }

    public func forgetMove(_ id: String) async throws {
        try await writing { [node] sql in
            try await sql.run("DELETE FROM torrent_moves WHERE id = \(id)")
            try await sql.run("SELECT pg_notify(\(Self.movesChannel), \(node))")
        }
    }

    public func publishMovePeer(port: Int) async throws -> Bool {
        try await writing { [node] sql in
            try await sql.count("""
                UPDATE nodes SET move_peer = coalesce(host(inet_client_addr()), '127.0.0.1') || ':' || \(port)
                WHERE name = \(node) RETURNING name
                """) == 1
        }
    }

    public func clusterAddress() async throws -> String {
        try await reading { sql in
            try await sql.rows("SELECT coalesce(host(inet_client_addr()), '127.0.0.1') AS address") {
                try $0.get("address", as: String.self)
            }.first ?? "127.0.0.1"
        }
    }

    public func moveChanges() -> AsyncStream<Void> { othersChanges(Self.movesChannel) }
}
