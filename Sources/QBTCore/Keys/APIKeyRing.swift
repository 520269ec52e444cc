import Foundation
import Store

/// API keys for scripts (`Authorization: Bearer qbt_…`): created and revoked through the API, stored as
/// SHA-256 hashes, checked from memory. qBittorrent 5.2 has one key; qbtd keeps any number, and
/// `app/rotateAPIKey`/`app/deleteAPIKey` act on the one named "default".
public actor APIKeyRing {
    public struct Created: Sendable {
        public var record: APIKeyRecord
        /// The secret, shown this once.
        public var key: String
    }

    public static let defaultName = "default"
    private let store: Store
    private var byHash: [String: APIKeyRecord] = [:]

    public init(store: Store) async throws {
        self.store = store
        for key in try await store.apiKeys() { byHash[key.keyHash] = key }
    }

    public var keys: [APIKeyRecord] { byHash.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }

    /// qBittorrent's shape: `qbt_` and 28 letters and digits (unless a `key` is given).
    public func create(name: String, key chosen: String? = nil) async throws -> Created {
        let key = chosen ?? "qbt_" + Digest.randomString(28)
        let record = APIKeyRecord(id: UUID().uuidString.lowercased(), name: name, keyHash: Digest.sha256Hex(key),
                                  createdAt: Int64(Date().timeIntervalSince1970))
        try await store.insertAPIKey(record)
        byHash[record.keyHash] = record
        return Created(record: record, key: key)
    }

    @discardableResult
    public func revoke(id: String) async throws -> Bool {
        guard let hash = byHash.first(where: { $0.value.id == id })?.key else { return false }
        try await store.deleteAPIKey(id: id)
        byHash[hash] = nil
        return true
    }

    /// A key one may choose (`--api-key`): `qbt_` and at least 16 more characters, at most 256 in all.
    public static func isWellFormed(_ key: String) -> Bool { key.hasPrefix("qbt_") && key.count >= 20 && key.count <= 256 }

    /// Makes `key` (given at start, `--api-key`) the key named "default", unless it is a key already.
    public func installDefault(_ key: String) async throws {
        guard Self.isWellFormed(key) else {
            throw ServiceError.invalid("an API key is `qbt_` and at least 16 more characters")
        }
        // Already a key (under any name): it works as it is, and a second record of it could not be stored.
        if byHash[Digest.sha256Hex(key)] != nil { return }
        try await revokeDefault()
        _ = try await create(name: Self.defaultName, key: key)
    }

    /// Replaces the key named "default" (qBittorrent 5.2's single key).
    public func rotateDefault() async throws -> Created {
        try await revokeDefault()
        return try await create(name: Self.defaultName)
    }

    public func revokeDefault() async throws {
        for key in byHash.values where key.name == Self.defaultName { try await revoke(id: key.id) }
    }

    /// The key's record when `secret` is a live key.
    public func verify(_ secret: String) -> APIKeyRecord? {
        guard secret.hasPrefix("qbt_"), secret.count <= 256 else { return nil }
        return byHash[Digest.sha256Hex(secret)]
    }
}
