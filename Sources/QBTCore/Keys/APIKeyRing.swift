import Foundation
import Logging
import Store

/// API keys for scripts and players (`Authorization: Bearer <key>`): created and revoked through the API, stored as
/// SHA-256 hashes, checked from memory, each with a scope (`APIKeyScope`). qBittorrent 5.2 has one key; qbtd keeps any
/// number, and `app/rotateAPIKey`/`app/deleteAPIKey` act on the one named "default".
public actor APIKeyRing {
    public struct Created: Sendable {
        public var record: APIKeyRecord
        /// The secret, shown this once.
        public var key: String
    }

    public static let defaultName = "default"
    private let store: any Store
    private let logger: Logger
    private var byHash: [String: APIKeyRecord] = [:] {
        didSet { recent.clear() }
    }
    /// Keys admitted within the last `lastUseResolution`, for checks off the actor; emptied by any change here.
    public nonisolated let recent = RecentKeys()

    public init(store: any Store, logger: Logger = Logger(label: "qbtd.keys")) async throws {
        self.logger = logger
        self.store = store
        for key in try await store.apiKeys.apiKeys() { byHash[key.keyHash] = key }
    }

    /// Another node of the cluster made, revoked or rescoped a key: read them again.
    public func reload() async throws {
        var fresh: [String: APIKeyRecord] = [:]
        for key in try await store.apiKeys.apiKeys() { fresh[key.keyHash] = key }
        byHash = fresh
    }

    public var keys: [APIKeyRecord] { byHash.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }

    /// A new key: qBittorrent's shape, `qbt_` and 28 letters and digits, unless the user chose one (`chosen`, which
    /// must pass `KeyStrength` and not be a key already).
    public func create(name: String, scope: APIKeyScope = .full, key chosen: String? = nil) async throws -> Created {
        if let chosen {
            if let problem = KeyStrength.problem(chosen) { throw ServiceError.invalid(problem) }
            if byHash[Digest.sha256Hex(chosen)] != nil { throw ServiceError.conflict("that key is in use already") }
        }
        let key = chosen ?? "qbt_" + Digest.randomString(28)
        let record = APIKeyRecord(id: UUID().uuidString.lowercased(), name: name, keyHash: Digest.sha256Hex(key),
                                  createdAt: Int64(Date().timeIntervalSince1970), scope: scope.rawValue)
        try await store.apiKeys.insertAPIKey(record)
        byHash[record.keyHash] = record
        return Created(record: record, key: key)
    }

    @discardableResult
    public func revoke(id: String) async throws -> Bool {
        guard let hash = byHash.first(where: { $0.value.id == id })?.key else { return false }
        try await store.apiKeys.deleteAPIKey(id: id)
        byHash[hash] = nil
        return true
    }

    /// Makes `key` (given at start, `--api-key`) the key named "default" with `scope`, unless it is a key already
    /// (then it keeps its name and takes `scope`).
    public func installDefault(_ key: String, scope: APIKeyScope = .full) async throws {
        if let problem = KeyStrength.problem(key) { throw ServiceError.invalid(problem) }
        let hash = Digest.sha256Hex(key)
        if var existing = byHash[hash] {
            guard existing.scope != scope.rawValue else { return }
            try await store.apiKeys.setAPIKeyScope(id: existing.id, scope: scope.rawValue)
            existing.scope = scope.rawValue
            byHash[hash] = existing
            return
        }
        try await revokeDefault()
        _ = try await create(name: Self.defaultName, scope: scope, key: key)
    }

    /// Replaces the key named "default" (qBittorrent 5.2's single key, which can do everything).
    public func rotateDefault() async throws -> Created {
        try await revokeDefault()
        return try await create(name: Self.defaultName)
    }

    public func revokeDefault() async throws {
        for key in byHash.values where key.name == Self.defaultName { try await revoke(id: key.id) }
    }

    /// How stale a key's `last_used_at` may be: its use is written at most once a minute, not on every request (a
    /// player fetching segments makes several a second).
    public static let lastUseResolution: Int64 = 60

    /// The key's record when `secret` is a live key; its last use is noted.
    public func verify(_ secret: String) -> APIKeyRecord? {
        guard !secret.isEmpty, secret.utf8.count <= KeyStrength.maximumLength else { return nil }
        let hash = Digest.sha256Hex(secret)
        guard var record = byHash[hash] else { return nil }
        let now = Int64(Date().timeIntervalSince1970)
        if let last = record.lastUsedAt, last <= now, now - last < Self.lastUseResolution {
            recent.note(hash: hash, scope: record.keyScope, seconds: last + Self.lastUseResolution - now)
            return record
        }
        record.lastUsedAt = now
        byHash[hash] = record
        recent.note(hash: hash, scope: record.keyScope, seconds: Self.lastUseResolution)
        // Bookkeeping, written after the answer: a failed write leaves the time in memory and is tried again a
        // minute later (logged); it never refuses the key.
        let store = self.store, id = record.id, logger = self.logger
        Task {
            do { try await store.apiKeys.touchAPIKey(id: id, at: now) } catch {
                logger.warning("API key \(id): its last use was not stored (tried again at its next use): \(error)")
            }
        }
        return record
    }
}

extension APIKeyRecord {
    /// The stored scope; a value this build does not know reaches nothing more than `read-only` would.
    public var keyScope: APIKeyScope { APIKeyScope(rawValue: scope) ?? .readOnly }
}
