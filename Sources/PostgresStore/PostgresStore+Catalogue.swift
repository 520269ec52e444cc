import Foundation
import PostgresNIO
import Store

/// The cluster's categories, tags, preferences and SSL parameters: one set for every node.
extension PostgresStore {
    public func categories() async throws -> [Category] {
        try await reading { sql in
            try await sql.rows("""
                SELECT name, save_path, download_path, download_path_enabled, ratio_limit, seeding_time_limit,
                       inactive_seeding_time_limit, share_limit_action, share_limits_mode, nodes FROM categories ORDER BY name
                """) { row in
                var limits = CategoryShareLimits()
                limits.ratio = try row.get("ratio_limit", as: Double?.self) ?? -2
                limits.seedingTime = try row.get("seeding_time_limit", as: Int?.self) ?? -2
                limits.inactiveSeedingTime = try row.get("inactive_seeding_time_limit", as: Int?.self) ?? -2
                limits.action = try row.get("share_limit_action", as: String?.self) ?? "Default"
                limits.mode = try row.get("share_limits_mode", as: String?.self) ?? "Default"
                let path = try row.get("download_path", as: String?.self) ?? ""
                return Category(name: try row.get("name"), savePath: try row.get("save_path"),
                                downloadPath: try row.get("download_path_enabled", as: Bool?.self).map { DownloadPathOption(enabled: $0, path: path) },
                                shareLimits: limits, nodes: Category.nodes(stored: try row.get("nodes")))
            }
        }
    }

    @discardableResult
    public func createCategory(_ c: Category) async throws -> Bool {
        let l = c.shareLimits
        return try await writing { sql in
            try await sql.labelsChanged(sql.count("""
                INSERT INTO categories (name, save_path, download_path, download_path_enabled, ratio_limit,
                    seeding_time_limit, inactive_seeding_time_limit, share_limit_action, share_limits_mode, nodes)
                VALUES (\(c.name), \(c.savePath), \(c.downloadPath?.path), \(c.downloadPath?.enabled), \(l.ratio),
                    \(l.seedingTime), \(l.inactiveSeedingTime), \(l.action), \(l.mode), \(c.storedNodes))
                ON CONFLICT DO NOTHING RETURNING name
                """), by: node)
        }
    }

    @discardableResult
    public func editCategory(_ c: Category) async throws -> Bool {
        let l = c.shareLimits
        return try await writing { sql in
            try await sql.labelsChanged(sql.count("""
                UPDATE categories SET save_path = \(c.savePath), download_path = \(c.downloadPath?.path),
                    download_path_enabled = \(c.downloadPath?.enabled), ratio_limit = \(l.ratio),
                    seeding_time_limit = \(l.seedingTime), inactive_seeding_time_limit = \(l.inactiveSeedingTime),
                    share_limit_action = \(l.action), share_limits_mode = \(l.mode), nodes = \(c.storedNodes)
                WHERE name = \(c.name) RETURNING name
                """), by: node)
        }
    }

    public func removeCategories(_ names: [String]) async throws {
        try await writing { [node] sql in
            try await sql.labelsChanged(sql.count("DELETE FROM categories WHERE name = ANY(\(names)) RETURNING name"), by: node)
        }
    }

    public func tags() async throws -> [String] {
        try await reading { sql in try await sql.rows("SELECT name FROM tags ORDER BY name") { try $0.get("name") } }
    }

    public func createTags(_ names: [String]) async throws {
        try await writing { [node] sql in
            try await sql.labelsChanged(sql.count("""
                INSERT INTO tags (name) SELECT unnest(\(names)::text[]) ON CONFLICT DO NOTHING RETURNING name
                """), by: node)
        }
    }

    public func deleteTags(_ names: [String]) async throws {
        try await writing { [node] sql in
            try await sql.labelsChanged(sql.count("DELETE FROM tags WHERE name = ANY(\(names)) RETURNING name"), by: node)
        }
    }

    // MARK: preferences

    public func preferences() async throws -> [String: String] {
        try await reading { sql in
            Dictionary(try await sql.rows("SELECT key, value FROM preferences") {
                (try $0.get("key", as: String.self), try $0.get("value", as: String.self))
            }, uniquingKeysWith: { $1 })
        }
    }

    public func preferenceText(_ key: String) async throws -> String? {
        try await reading { sql in
            try await sql.rows("SELECT value FROM preferences WHERE key = \(key)") { try $0.get("value", as: String.self) }.first
        }
    }

    public func setPreferenceTexts(_ encoded: [String: String]) async throws {
        try await writing { sql in
            // In one order on every node: two nodes writing the same keys at once (starting together) would each
            // lock a row the other needs next, and PostgreSQL would end one of them for a deadlock.
            for (key, value) in encoded.sorted(by: { $0.key < $1.key }) {
                try await sql.run("""
                    INSERT INTO preferences (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """)
            }
            if !encoded.isEmpty { try await sql.run("SELECT pg_notify(\(Self.preferencesChannel), \(node))") }
        }
    }

    // MARK: SSL parameters

    public func sslParameters(_ id: String) async throws -> SSLParameters? {
        try await reading { sql in
            try await sql.rows("SELECT certificate, private_key, dh_params FROM torrent_ssl WHERE torrent_id = \(id)",
                               Self.sslParameters).first
        }
    }

    public func allSSLParameters() async throws -> [String: SSLParameters] {
        try await reading { sql in
            Dictionary(try await sql.rows("SELECT torrent_id, certificate, private_key, dh_params FROM torrent_ssl") {
                (try $0.get("torrent_id", as: String.self), try Self.sslParameters($0))
            }, uniquingKeysWith: { $1 })
        }
    }

    public func setSSLParameters(_ id: String, _ p: SSLParameters) async throws {
        try await writing { sql in
            try await sql.run("""
                INSERT INTO torrent_ssl (torrent_id, certificate, private_key, dh_params)
                VALUES (\(id), \(p.certificate), \(p.privateKey), \(p.dhParams))
                ON CONFLICT (torrent_id) DO UPDATE SET certificate = excluded.certificate,
                    private_key = excluded.private_key, dh_params = excluded.dh_params
                """)
        }
    }

    static func sslParameters(_ row: PostgresRandomAccessRow) throws -> SSLParameters {
        SSLParameters(certificate: try row.get("certificate"), privateKey: try row.get("private_key"), dhParams: try row.get("dh_params"))
    }
}
