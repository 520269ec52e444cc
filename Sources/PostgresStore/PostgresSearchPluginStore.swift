import Foundation
import PostgresNIO
import Store

/// The cluster's search plugins (a nova3 plugin's Python file is installed on each node that runs a search).
struct PostgresSearchPluginStore: SearchPluginStore {
    let store: PostgresStore

    func searchPlugins() async throws -> [SearchPluginRecord] {
        try await store.reading { sql in
            try await sql.rows("SELECT * FROM search_plugins ORDER BY name") { row in
                let categories = (try? JSONDecoder().decode([String].self, from: Data(try row.get("categories", as: String.self).utf8))) ?? []
                return SearchPluginRecord(
                    name: try row.get("name"), kind: SearchPluginRecord.Kind(rawValue: try row.get("kind")) ?? .nova3,
                    enabled: try row.get("enabled"), version: try row.get("version"), fullName: try row.get("full_name"),
                    url: try row.get("url"), categories: categories, apiKey: try row.get("api_key"), source: try row.get("source"),
                    installedAt: try row.get("installed_at"))
            }
        }
    }

    func saveSearchPlugin(_ p: SearchPluginRecord) async throws {
        let categories = String(decoding: try JSONEncoder().encode(p.categories), as: UTF8.self)
        try await store.writing { sql in
            try await sql.run("""
                INSERT INTO search_plugins (name, kind, enabled, version, full_name, url, categories, api_key, source, installed_at)
                VALUES (\(p.name), \(p.kind.rawValue), \(p.enabled), \(p.version), \(p.fullName), \(p.url), \(categories),
                        \(p.apiKey), \(p.source), \(p.installedAt))
                ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, version = excluded.version,
                    full_name = excluded.full_name, url = excluded.url, categories = excluded.categories,
                    api_key = excluded.api_key, source = excluded.source
                """)
        }
    }

    func setSearchPluginsEnabled(_ names: [String], _ enabled: Bool) async throws {
        try await store.writing { sql in try await sql.run("UPDATE search_plugins SET enabled = \(enabled) WHERE name = ANY(\(names))") }
    }

    func deleteSearchPlugins(_ names: [String]) async throws {
        try await store.writing { sql in try await sql.run("DELETE FROM search_plugins WHERE name = ANY(\(names))") }
    }
}
