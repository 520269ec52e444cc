import Foundation

/// An API key as `qbtd/apiKeys` lists it (never the secret).
public struct APIKey: Decodable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var scope: String
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case id, name, scope
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}

/// qbtd's API keys (`qbtd/apiKeys`, `qbtd/createAPIKey`, `qbtd/revokeAPIKey`).
extension QBTClient {
    public func apiKeys() async throws -> [APIKey] { try await get([APIKey].self, "qbtd/apiKeys") }

    /// Returns the new key's record and its secret (shown this once). `key`: one the user chose instead.
    public func createAPIKey(name: String, scope: String = "full", key: String? = nil) async throws -> (APIKey, String) {
        let response = try await call("qbtd/createAPIKey", .form([("name", name), ("scope", scope)] + (key.map { [("key", $0)] } ?? [])))
        struct Created: Decodable { var key: String }
        do {
            return (try JSONDecoder().decode(APIKey.self, from: response.body), try JSONDecoder().decode(Created.self, from: response.body).key)
        } catch {
            throw QBTClientError.badResponse("qbtd/createAPIKey: \(error)")
        }
    }

    public func revokeAPIKey(id: String) async throws { try await call("qbtd/revokeAPIKey", .form([("id", id)])) }
}
