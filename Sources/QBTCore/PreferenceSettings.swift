import Foundation
import Store

/// Reading stored preferences back from the store.
public enum PreferenceSettings {
    /// The stored preferences, decoded (unreadable values are skipped).
    public static func load(from store: any Store) async throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, json) in try await store.preferences() {
            if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) { out[key] = value }
        }
        return out
    }
}
