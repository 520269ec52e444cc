import Foundation
import GRDB

extension Store {
    /// Every stored preference as raw JSON text, by key.
    public func preferences() async throws -> [String: String] {
        try await db.read { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM preferences") { out[row["key"]] = row["value"] }
            return out
        }
    }

    public func preference<T: Decodable>(_ key: String, as type: T.Type = T.self) async throws -> T? {
        let text = try await db.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM preferences WHERE key = ?", arguments: [key])
        }
        guard let text else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// Writes several preferences in one transaction.
    public func setPreferences(_ values: [String: any Encodable & Sendable]) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try values.mapValues { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try await db.write { db in
            for (key, value) in encoded {
                try db.execute(sql: "INSERT INTO preferences (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               arguments: [key, value])
            }
        }
    }
}
