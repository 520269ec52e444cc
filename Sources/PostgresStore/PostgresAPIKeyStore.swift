import PostgresNIO
import Store

/// The cluster's API keys: a key made on one node opens every node.
struct PostgresAPIKeyStore: APIKeyStore {
    let store: PostgresStore

    func apiKeys() async throws -> [APIKeyRecord] {
        try await store.reading { sql in
            try await sql.rows("SELECT id, name, key_hash, created_at, last_used_at, scope FROM api_keys ORDER BY created_at, id") {
                APIKeyRecord(id: try $0.get("id"), name: try $0.get("name"), keyHash: try $0.get("key_hash"),
                             createdAt: try $0.get("created_at"), lastUsedAt: try $0.get("last_used_at"), scope: try $0.get("scope"))
            }
        }
    }

    func insertAPIKey(_ key: APIKeyRecord) async throws {
        try await store.writing { sql in
            try await sql.run("""
                INSERT INTO api_keys (id, name, key_hash, created_at, scope)
                VALUES (\(key.id), \(key.name), \(key.keyHash), \(key.createdAt), \(key.scope))
                """)
            try await sql.keysChanged(by: store.node)
        }
    }

    @discardableResult
    func deleteAPIKey(id: String) async throws -> Bool {
        try await store.writing { sql in
            guard try await sql.count("DELETE FROM api_keys WHERE id = \(id) RETURNING id") > 0 else { return false }
            try await sql.keysChanged(by: store.node)
            return true
        }
    }

    func setAPIKeyScope(id: String, scope: String) async throws {
        try await store.writing { sql in
            try await sql.run("UPDATE api_keys SET scope = \(scope) WHERE id = \(id)")
            try await sql.keysChanged(by: store.node)
        }
    }

    func touchAPIKey(id: String, at time: Int64) async throws {
        try await store.writing { sql in try await sql.run("UPDATE api_keys SET last_used_at = \(time) WHERE id = \(id)") }
    }
}
