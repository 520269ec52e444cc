import Foundation
import HTTPKit
import QBTCore

/// `/api/v2/clientdata/*` (qBittorrent 5.2): one JSON object web clients keep their settings in, shared by every
/// session and API key, kept across restarts, at most 1 MiB.
public struct ClientDataController: APIController {
    public let scope = "clientdata"
    let settings: ServerSettings
    /// One store at a time: each reads, merges and writes the whole object.
    let writes = SerialRunner()
    static let maxBytes = 1_048_576

    public init(settings: ServerSettings) { self.settings = settings }

    public var actions: [String: APIAction] {
        [
            "load": .get { p, _ in
                let stored = await data()
                guard let text = p["keys"], !text.isEmpty else { return .json(.object(stored)) }
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                    throw QBitError.badParams("illegal value")
                }
                guard case .array(let items) = value else { throw QBitError.badParams("`keys` must be an array") }
                var out: [String: JSONValue] = [:]
                for item in items {
                    guard case .string(let key) = item else { throw QBitError.badParams("Items of `keys` must be strings") }
                    if let stored = stored[key] { out[key] = stored }
                }
                return .json(.object(out))
            },
            "store": .post { p, _ in
                let text = try p.required("data")
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                    throw QBitError.badParams("illegal value")
                }
                guard case .object(let changes) = value else { throw QBitError.badParams("`data` must be an object") }
                try await writes.run { try await store(changes) }
                return .status(204, "")
            },
        ]
    }

    /// Merges `changes` (null deletes) into the stored object and writes it when something changed.
    func store(_ changes: [String: JSONValue]) async throws {
        let current = await data()
        var merged = current
        for (key, value) in changes {
            if case .null = value { merged[key] = nil } else { merged[key] = value }
        }
        guard merged != current else { return }
        let size = (try? JSONEncoder().encode(JSONValue.object(merged)).count) ?? Int.max
        guard size <= Self.maxBytes else {
            throw QBitError.conflict("Total web client data must not be larger than \(Self.maxBytes) bytes")
        }
        do { try await settings.setState(.clientData, .object(merged)) } catch {
            throw QBitError.conflict("Failed to save web client data. Error: \"\(error)\"")
        }
    }

    func data() async -> [String: JSONValue] {
        if case .object(let stored)? = await settings.state(.clientData) { return stored }
        return [:]
    }
}
