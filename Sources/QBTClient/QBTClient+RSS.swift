import Foundation

/// qBittorrent's `rss/*`: feeds, articles and auto-download rules. The tree and rules come back as untyped JSON
/// (folders nest by name, so a fixed type would not fit).
public struct RSSClient: Sendable {
    let client: QBTClient
}

extension QBTClient {
    /// `rss/*` (`client.rss.addFeed(…)`).
    public nonisolated var rss: RSSClient { RSSClient(client: self) }
}

extension RSSClient {
    public func items(withData: Bool) async throws -> [String: Any] {
        try await client.json("rss/items", query: [("withData", String(withData))]) as? [String: Any] ?? [:]
    }

    public func addFeed(url: String, path: String = "") async throws {
        try await client.call("rss/addFeed", .form([("url", url), ("path", path)]))
    }

    public func addFolder(_ path: String) async throws { try await client.call("rss/addFolder", .form([("path", path)])) }

    public func removeItem(_ path: String) async throws { try await client.call("rss/removeItem", .form([("path", path)])) }

    public func refresh(_ path: String = "") async throws { try await client.call("rss/refreshItem", .form([("itemPath", path)])) }

    public func markRead(_ path: String, articleID: String? = nil) async throws {
        try await client.call("rss/markAsRead", .form([("itemPath", path)] + (articleID.map { [("articleId", $0)] } ?? [])))
    }

    /// `definition`: the rule's JSON object (`mustContain`, `affectedFeeds`, `torrentParams`, …).
    public func setRule(_ name: String, definition: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: definition, options: [.sortedKeys])
        try await client.call("rss/setRule", .form([("ruleName", name), ("ruleDef", String(decoding: data, as: UTF8.self))]))
    }

    public func rules() async throws -> [String: Any] { try await client.json("rss/rules") as? [String: Any] ?? [:] }

    public func removeRule(_ name: String) async throws { try await client.call("rss/removeRule", .form([("ruleName", name)])) }

    public func matchingArticles(_ rule: String) async throws -> [String: [String]] {
        try await client.get([String: [String]].self, "rss/matchingArticles", query: [("ruleName", rule)])
    }
}
