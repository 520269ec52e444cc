import Foundation

/// qBittorrent's `rss/*`: feeds, articles and auto-download rules. The tree and rules come back as untyped JSON
/// (folders nest by name, so a fixed type would not fit).
extension QBTClient {
    public nonisolated func rssItems(withData: Bool) async throws -> [String: Any] {
        try await json("rss/items", query: [("withData", String(withData))]) as? [String: Any] ?? [:]
    }

    public func addFeed(url: String, path: String = "") async throws {
        try await call("rss/addFeed", .form([("url", url), ("path", path)]))
    }

    public func addRSSFolder(_ path: String) async throws { try await call("rss/addFolder", .form([("path", path)])) }

    public func removeRSSItem(_ path: String) async throws { try await call("rss/removeItem", .form([("path", path)])) }

    public func refreshRSS(_ path: String = "") async throws { try await call("rss/refreshItem", .form([("itemPath", path)])) }

    public func markRSSRead(_ path: String, articleID: String? = nil) async throws {
        try await call("rss/markAsRead", .form([("itemPath", path)] + (articleID.map { [("articleId", $0)] } ?? [])))
    }

    /// `definition`: the rule's JSON object (`mustContain`, `affectedFeeds`, `torrentParams`, …).
    public func setRSSRule(_ name: String, definition: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: definition, options: [.sortedKeys])
        try await call("rss/setRule", .form([("ruleName", name), ("ruleDef", String(decoding: data, as: UTF8.self))]))
    }

    public nonisolated func rssRules() async throws -> [String: Any] { try await json("rss/rules") as? [String: Any] ?? [:] }

    public func removeRSSRule(_ name: String) async throws { try await call("rss/removeRule", .form([("ruleName", name)])) }

    public func rssMatchingArticles(_ rule: String) async throws -> [String: [String]] {
        try await get([String: [String]].self, "rss/matchingArticles", query: [("ruleName", rule)])
    }
}
