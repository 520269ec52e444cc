import Foundation
import GRDB

extension SQLiteStore {
    /// Every stored preference as raw JSON text, by key.
    public func preferences() async throws -> [String: String] {
        try await db.read { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM preferences") { out[row["key"]] = row["value"] }
            return out
        }
    }

    public func preferenceText(_ key: String) async throws -> String? {
        try await db.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM preferences WHERE key = ?", arguments: [key])
        }
    }

    public func setPreferenceTexts(_ encoded: [String: String]) async throws {
        try await db.write { db in
            for (key, value) in encoded {
                try db.execute(sql: "INSERT INTO preferences (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               arguments: [key, value])
            }
        }
    }
}
