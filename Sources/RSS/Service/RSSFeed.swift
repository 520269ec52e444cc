import Foundation

/// One feed of the tree, with what its last refresh left.
public struct RSSFeed: Sendable {
    public var uid: String
    public var url: String
    /// Seconds; 0 = the global `rss_refresh_interval`.
    public var refreshInterval: Int
    public var title = ""
    public var lastBuildDate = ""
    public var isLoading = false
    public var hasError = false
    /// Newest first.
    public var articles: [FeedArticle] = []
    var etag: String?
    var lastModified: String?
    /// When the schedule refreshes it next, on the steady clock (nil: at once).
    var nextRefresh: ContinuousClock.Instant?

    init(uid: String, url: String, refreshInterval: Int) {
        self.uid = uid
        self.url = url
        self.refreshInterval = refreshInterval
    }

    static func newUID() -> String { "{" + UUID().uuidString.lowercased() + "}" }
}

/// A node of the tree: a folder or a feed.
public enum RSSItem: Sendable {
    case folder
    case feed(RSSFeed)

    public var feed: RSSFeed? { if case .feed(let f) = self { f } else { nil } }
}
