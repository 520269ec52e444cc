import Foundation
import PostgresNIO
import Store

/// The cluster's nodes: each heartbeat rewrites the node's row, stamped by the database's clock (so one node's clock
/// running fast or slow cannot make another look silent).
extension PostgresStore: NodeRegistry {
    public func publish(_ n: NodeRecord) async throws {
        try await writing { sql in
            try await sql.run("""
                INSERT INTO nodes (name, address, started_at, heartbeat_at, torrents, download_rate, upload_rate, save_path,
                                   free_space, stopped)
                VALUES (\(n.name), \(n.address), \(n.startedAt), extract(epoch FROM clock_timestamp()), \(n.torrents),
                        \(n.downloadRate), \(n.uploadRate), \(n.savePath), \(n.freeSpace), \(n.stopped))
                ON CONFLICT (name) DO UPDATE SET address = excluded.address, started_at = excluded.started_at,
                    heartbeat_at = excluded.heartbeat_at, torrents = excluded.torrents,
                    download_rate = excluded.download_rate, upload_rate = excluded.upload_rate,
                    save_path = excluded.save_path, free_space = excluded.free_space, stopped = excluded.stopped
                """)
        }
    }

    public func nodes() async throws -> [NodeRecord] {
        try await reading { sql in
            try await sql.rows("""
                SELECT name, address, started_at, torrents, download_rate, upload_rate, save_path, free_space, stopped,
                       floor(extract(epoch FROM clock_timestamp()) - heartbeat_at)::bigint AS silent_for
                FROM nodes ORDER BY name
                """) { row in
                NodeRecord(name: try row.get("name"), address: try row.get("address"), startedAt: try row.get("started_at"),
                           torrents: try row.get("torrents"), downloadRate: try row.get("download_rate"),
                           uploadRate: try row.get("upload_rate"), savePath: try row.get("save_path"),
                           freeSpace: try row.get("free_space"), stopped: try row.get("stopped"), silentFor: try row.get("silent_for"))
            }
        }
    }
}

/// The nodes' torrents for each other's listings: `torrent_views`, and a `NOTIFY qbtd_views` with each publication.
extension PostgresStore {
    static let viewsChannel = "qbtd_views"

    public func publishViews(_ changed: [(id: String, body: Data)], removed: [String]) async throws {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        try await writing { sql in
            for (id, body) in changed {
                try await sql.run("""
                    INSERT INTO torrent_views (id, node, seq, body) VALUES (\(id), \(node), nextval('torrent_views_seq'), \(body))
                    ON CONFLICT (id) DO UPDATE SET node = excluded.node, seq = excluded.seq, body = excluded.body
                    """)
            }
            if !removed.isEmpty {
                try await sql.run("""
                    UPDATE torrent_views SET body = NULL, seq = nextval('torrent_views_seq')
                    WHERE id = ANY(\(removed)) AND node = \(node)
                    """)
            }
            try await sql.run("SELECT pg_notify(\(Self.viewsChannel), \(node))")
        }
    }

    public func views(after seq: Int64, limit: Int) async throws -> [PublishedView] {
        try await reading { sql in
            try await sql.rows("""
                SELECT id, node, seq, body FROM torrent_views WHERE seq > \(seq) AND node <> \(node) ORDER BY seq LIMIT \(limit)
                """) {
                PublishedView(id: try $0.get("id"), node: try $0.get("node"), seq: try $0.get("seq"), body: try $0.get("body"))
            }
        }
    }

    public func viewPublications() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let listening = Task { [client, logger, node] in
            // One connection held for LISTEN; when it breaks (a restart of PostgreSQL), listen again after a second,
            // and wake the reader once so that it catches up on what it missed.
            for attempt in 0... {
                if Task.isCancelled { break }
                if attempt > 0 {
                    continuation.yield()
                    try? await Task.sleep(for: .seconds(1))
                }
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.viewsChannel) { notifications in
                            for try await notification in notifications where notification.payload != node { continuation.yield() }
                        }
                    }
                } catch {
                    if !Task.isCancelled { logger.debug("listening for the other nodes' torrents again: \(error)") }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listening.cancel() }
        return stream
    }
}
