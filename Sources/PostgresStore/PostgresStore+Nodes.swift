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
