import PostgresNIO
import Store

/// The cluster's WebUI sessions (`web_sessions`): a logout sends `NOTIFY qbtd_sessions` with the session's digest.
extension PostgresStore: SharedSessions {
    static let sessionsChannel = "qbtd_sessions"

    public func openSession(_ digest: String) async throws {
        try await writing { sql in
            try await sql.run("""
                INSERT INTO web_sessions (digest, last_seen) VALUES (\(digest), extract(epoch FROM clock_timestamp()))
                ON CONFLICT (digest) DO UPDATE SET last_seen = excluded.last_seen
                """)
        }
    }

    public func touchSession(_ digest: String, timeout: Int64) async throws -> Bool {
        try await writing { sql in
            // Sessions silent past their timeout are ended here too, as a login ends them on one server.
            if timeout > 0 {
                try await sql.run("DELETE FROM web_sessions WHERE last_seen < extract(epoch FROM clock_timestamp()) - \(timeout)")
            }
            return try await sql.rows("""
                UPDATE web_sessions SET last_seen = extract(epoch FROM clock_timestamp()) WHERE digest = \(digest) RETURNING digest
                """) { _ in true }.isEmpty == false
        }
    }

    public func closeSession(_ digest: String) async throws {
        try await writing { sql in
            try await sql.run("DELETE FROM web_sessions WHERE digest = \(digest)")
            try await sql.run("SELECT pg_notify(\(Self.sessionsChannel), \(digest))")
        }
    }

    public func sessionClosures() -> AsyncStream<String> { notifications(Self.sessionsChannel) }
}
