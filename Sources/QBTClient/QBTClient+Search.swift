import Foundation

/// `search/*` (`client.search.start(…)`).
public struct SearchClient: Sendable {
    let client: QBTClient
}

/// qbtd's `stream/*` (`client.streams.prepare(…)`).
public struct StreamClient: Sendable {
    let client: QBTClient
}

extension QBTClient {
    public nonisolated var search: SearchClient { SearchClient(client: self) }
    public nonisolated var streams: StreamClient { StreamClient(client: self) }
}

extension SearchClient {
    /// `search/start`: the job's id.
    public func start(pattern: String, plugins: String = "enabled", category: String = "all") async throws -> Int {
        struct Answer: Decodable { var id: Int }
        return try await client.get(Answer.self, "search/start",
                             .form([("pattern", pattern), ("plugins", plugins), ("category", category)])).id
    }

    public func status(_ id: Int) async throws -> SearchStatus? {
        try await client.get([SearchStatus].self, "search/status", query: [("id", String(id))]).first
    }

    public func results(_ id: Int, offset: Int = 0, limit: Int = 0) async throws -> SearchResults {
        try await client.get(SearchResults.self, "search/results",
                      query: [("id", String(id)), ("offset", String(offset)), ("limit", String(limit))])
    }

    public func stop(_ id: Int) async throws { try await client.call("search/stop", .form([("id", String(id))])) }
    public func delete(_ id: Int) async throws { try await client.call("search/delete", .form([("id", String(id))])) }

    public func plugins() async throws -> [SearchPlugin] { try await client.get([SearchPlugin].self, "search/plugins") }

    public func install(_ sources: [String]) async throws {
        try await client.call("search/installPlugin", .form([("sources", sources.joined(separator: "|"))]))
    }

    public func uninstall(_ names: [String]) async throws {
        try await client.call("search/uninstallPlugin", .form([("names", names.joined(separator: "|"))]))
    }

    public func enable(_ names: [String], enable: Bool) async throws {
        try await client.call("search/enablePlugin", .form([("names", names.joined(separator: "|")), ("enable", String(enable))]))
    }

    public func update() async throws { try await client.call("search/updatePlugins", .form([])) }
}

extension QBTClient {
    /// qbtd's `stream/prepare` from a magnet, a known hash or a .torrent file.
    public enum StreamSource: Sendable {
        case magnet(String)
        case hash(String)
        case metainfo(name: String, data: Data)
    }
}

extension StreamClient {
    public func prepare(_ source: QBTClient.StreamSource, fileIndex: Int? = nil, title: String? = nil,
                              networkMbps: Double? = nil) async throws -> PreparedStream {
        var form = MultipartForm()
        switch source {
        case .magnet(let uri): form.field("magnetUri", uri)
        case .hash(let hash): form.field("hash", hash)
        case .metainfo(let name, let data): form.file("torrents", filename: name, data: data)
        }
        if let fileIndex { form.field("fileIndex", String(fileIndex)) }
        if let title { form.field("streamTitle", title) }
        if let networkMbps { form.field("networkMbps", String(networkMbps)) }
        do {
            return try await client.get(PreparedStream.self, "stream/prepare", .multipart(form.finished()))
        } catch QBTClientError.notFound {
            throw QBTClientError.unsupported("this server has no stream playback (a qbtd extension)")
        }
    }

    public func list() async throws -> Any { try await client.json("stream/list") }
    public func stop(_ id: String) async throws { try await client.call("stream/stop", .form([("streamId", id)])) }
    public func stopAll() async throws { try await client.call("stream/stopAll", .form([])) }
}

extension QBTClient {
    public nonisolated func buildInfo() async throws -> [String: Any] {
        (try await json("app/buildInfo") as? [String: Any]) ?? [:]
    }

    public nonisolated func preferences() async throws -> [String: Any] {
        guard let object = try await json("app/preferences") as? [String: Any] else {
            throw QBTClientError.badResponse("app/preferences is not an object")
        }
        return object
    }

    public nonisolated func setPreferences(_ values: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])
        try await call("app/setPreferences", .form([("json", String(decoding: data, as: UTF8.self))]))
    }

    public func transferInfo() async throws -> TransferInfo { try await get(TransferInfo.self, "transfer/info") }

    public func log(lastKnownID: Int = -1, levels: Set<String> = ["normal", "info", "warning", "critical"]) async throws -> [LogEntry] {
        try await get([LogEntry].self, "log/main", query: ["normal", "info", "warning", "critical"].map { ($0, String(levels.contains($0))) }
                      + [("last_known_id", String(lastKnownID))])
    }
}
