import Foundation
import GRDB

/// An API key as stored: a name, what it may reach and the SHA-256 of the secret. The secret is shown once, at
/// creation.
public struct APIKeyRecord: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var keyHash: String
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    /// `APIKeyScope`'s raw value.
    public var scope: String

    public init(id: String, name: String, keyHash: String, createdAt: Int64, lastUsedAt: Int64? = nil, scope: String = "full") {
        self.id = id
        self.name = name
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.scope = scope
    }
}

/// API keys (their hashes) and scopes: the part of the store that keeps them (`store.apiKeys`).
struct SQLiteAPIKeyStore: APIKeyStore {
    let db: DatabaseQueue
}

extension SQLiteStore {
    public var apiKeys: any APIKeyStore { SQLiteAPIKeyStore(db: db) }
}

extension SQLiteAPIKeyStore {
    public func apiKeys() async throws -> [APIKeyRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, key_hash, created_at, last_used_at, scope FROM api_keys ORDER BY created_at, id").map {
                APIKeyRecord(id: $0["id"], name: $0["name"], keyHash: $0["key_hash"], createdAt: $0["created_at"],
                             lastUsedAt: $0["last_used_at"], scope: $0["scope"])
            }
        }
    }

    public func insertAPIKey(_ key: APIKeyRecord) async throws {
        try await db.write { db in
            try db.execute(sql: "INSERT INTO api_keys (id, name, key_hash, created_at, scope) VALUES (?, ?, ?, ?, ?)",
                           arguments: [key.id, key.name, key.keyHash, key.createdAt, key.scope])
        }
    }

    /// Returns false when there was no such key.
    @discardableResult
    public func deleteAPIKey(id: String) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: "DELETE FROM api_keys WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func setAPIKeyScope(id: String, scope: String) async throws {
        try await db.write { db in
            try db.execute(sql: "UPDATE api_keys SET scope = ? WHERE id = ?", arguments: [scope, id])
        }
    }

    public func touchAPIKey(id: String, at time: Int64) async throws {
        try await db.write { db in
            try db.execute(sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ?", arguments: [time, id])
        }
    }
}
