import Foundation
import GRDB

/// An installed search plugin: a nova3 Python engine or a Torznab indexer (Jackett, Prowlarr).
public struct SearchPluginRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case nova3, torznab, builtin }
    public var name: String
    public var kind: Kind
    public var enabled: Bool
    public var version: String
    public var fullName: String
    public var url: String
    /// qBittorrent category ids the plugin supports (`movies`, `tv`, …; `all` is implied).
    public var categories: [String]
    public var apiKey: String?
    public var source: String?
    public var installedAt: Int64

    public init(name: String, kind: Kind, enabled: Bool = true, version: String = "", fullName: String, url: String,
                categories: [String], apiKey: String? = nil, source: String? = nil, installedAt: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.version = version
        self.fullName = fullName
        self.url = url
        self.categories = categories
        self.apiKey = apiKey
        self.source = source
        self.installedAt = installedAt
    }
}

/// Installed search plugins: the part of the store that keeps them (`store.searchPlugins`).
struct SQLiteSearchPluginStore: SearchPluginStore {
    let db: DatabaseQueue
}

extension SQLiteStore {
    public var searchPlugins: any SearchPluginStore { SQLiteSearchPluginStore(db: db) }
}

extension SQLiteSearchPluginStore {
    public func searchPlugins() async throws -> [SearchPluginRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM search_plugins ORDER BY name").map { row in
                let categories = (try? JSONDecoder().decode([String].self, from: Data((row["categories"] as String).utf8))) ?? []
                return SearchPluginRecord(
                    name: row["name"], kind: SearchPluginRecord.Kind(rawValue: row["kind"]) ?? .nova3, enabled: row["enabled"],
                    version: row["version"], fullName: row["full_name"], url: row["url"], categories: categories,
                    apiKey: row["api_key"], source: row["source"], installedAt: row["installed_at"])
            }
        }
    }

    /// Inserts or replaces (an update installs over the old version, keeping its enabled state).
    public func saveSearchPlugin(_ p: SearchPluginRecord) async throws {
        let categories = String(decoding: try JSONEncoder().encode(p.categories), as: UTF8.self)
        try await db.write { db in
            try db.execute(sql: """
                INSERT INTO search_plugins (name, kind, enabled, version, full_name, url, categories, api_key, source,
                                            installed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, version = excluded.version,
                    full_name = excluded.full_name, url = excluded.url, categories = excluded.categories,
                    api_key = excluded.api_key, source = excluded.source
                """, arguments: [p.name, p.kind.rawValue, p.enabled, p.version, p.fullName, p.url, categories, p.apiKey,
                                 p.source, p.installedAt])
        }
    }

    public func setSearchPluginsEnabled(_ names: [String], _ enabled: Bool) async throws {
        try await db.write { db in
            for name in names {
                try db.execute(sql: "UPDATE search_plugins SET enabled = ? WHERE name = ?", arguments: [enabled, name])
            }
        }
    }

    public func deleteSearchPlugins(_ names: [String]) async throws {
        try await db.write { db in
            for name in names { try db.execute(sql: "DELETE FROM search_plugins WHERE name = ?", arguments: [name]) }
        }
    }
}
