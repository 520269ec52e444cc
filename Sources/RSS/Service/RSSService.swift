import Foundation
import Logging
import QBTCore
import Store

/// qBittorrent's RSS session and auto-downloader: the tree of folders and feeds, their articles and the download
/// rules, kept in SQLite; feeds refreshed on their schedule; matching articles added as torrents.
public actor RSSService {
    let store: Store
    let settings: ServerSettings
    let torrents: TorrentService
    let log: EventLog
    let logger: Logger
    /// 5.2's wording and smart filter (an article without an episode number is refused).
    let modern: Bool

    /// Every item by path; the root folder "" is implied.
    var items: [String: RSSItem] = [:]
    /// Rules in the order they were added; `rss/rules` and matching take them by priority, then this order.
    var rules: [(name: String, rule: DownloadRule, matcher: RuleMatcher)] = []
    var nextRulePosition = 0
    var smartFilter = SmartEpisodeFilter(filters: SmartEpisodeFilter.defaultFilters)

    var scheduler: Task<Void, Never>?
    var watcher: Task<Void, Never>?
    /// Per host: when the next download may start (`rss_fetch_delay`).
    var hostReadyAt: [String: ContinuousClock.Instant] = [:]
    /// The auto-downloader's queue: (feed uid, article id), each once.
    var queue: [(feed: String, article: String)] = []
    var queued: Set<String> = []
    var downloader: Task<Void, Never>?
    var downloading = false

    public init(store: Store, settings: ServerSettings, torrents: TorrentService, modern: Bool,
                logger: Logger = Logger(label: "rss")) async throws {
        self.store = store
        self.settings = settings
        self.torrents = torrents
        self.log = torrents.log
        self.logger = logger
        self.modern = modern
        try await load()
    }

    /// Loads the tree, the articles and the rules, then starts what the preferences ask for.
    private func load() async throws {
        for record in try await store.rssItems() {
            if let uid = record.uid, let url = record.url {
                var feed = RSSFeed(uid: uid, url: url, refreshInterval: record.refreshInterval)
                feed.etag = record.etag
                feed.lastModified = record.lastModified
                items[record.path] = .feed(feed)
            } else {
                items[record.path] = .folder
            }
        }
        var byFeed: [String: [FeedArticle]] = [:]
        for record in try await store.rssArticles() {
            guard let article = FeedArticle(id: record.id, data: record.data, isRead: record.isRead) else { continue }
            byFeed[record.feedUID, default: []].append(article)
        }
        for (path, item) in items {
            guard var feed = item.feed, let articles = byFeed[feed.uid] else { continue }
            feed.articles = articles.sorted { $0.date > $1.date }
            items[path] = .feed(feed)
        }
        for record in try await store.rssRules() {
            guard let data = record.definition.data(using: .utf8),
                  case .object(let definition)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { continue }
            let rule = DownloadRule(definition: definition)
            rules.append((record.name, rule, rule.matcher()))
            nextRulePosition = max(nextRulePosition, record.position + 1)
        }
        await reloadSmartFilter()
    }

    /// Starts following the preferences: the refresh schedule and the auto-downloader.
    public func start() async {
        let changes = await settings.changes()
        watcher = Task { [weak self] in
            for await keys in changes { await self?.preferencesChanged(keys) }
        }
        await reschedule(refreshAll: true)
        if await settings.bool("rss_auto_downloading_enabled") { await startDownloading() }
    }

    public func shutdown() {
        watcher?.cancel()
        scheduler?.cancel()
        downloader?.cancel()
    }

    func preferencesChanged(_ keys: Set<String>) async {
        if keys.contains("rss_processing_enabled") {
            await reschedule(refreshAll: true)
        } else if keys.contains("rss_refresh_interval") {
            await reschedule(refreshAll: false)
        }
        if keys.contains("rss_max_articles_per_feed") { await trimAll() }
        if keys.contains("rss_smart_episode_filters") { await reloadSmartFilter() }
        if keys.contains("rss_auto_downloading_enabled") {
            if await settings.bool("rss_auto_downloading_enabled") { await startDownloading() } else { stopDownloading() }
        }
    }

    func reloadSmartFilter() async {
        let text = await settings.string("rss_smart_episode_filters")
        smartFilter = SmartEpisodeFilter(filters: text.components(separatedBy: "\n"))
    }

    /// `rss_max_articles_per_feed` went down: every feed keeps its newest.
    func trimAll() async {
        let limit = await settings.int("rss_max_articles_per_feed")
        for (path, item) in items {
            guard var feed = item.feed else { continue }
            let (kept, removed) = ArticleMerge.trim(feed.articles, limit: limit)
            guard !removed.isEmpty else { continue }
            feed.articles = kept
            items[path] = .feed(feed)
            do { try await store.updateRSSArticles(feedUID: feed.uid, added: [], removed: removed) } catch {
                log.add("Couldn't save RSS session data. Error: \"\(error)\"", kind: .warning)
            }
        }
    }

    // MARK: look-ups

    var feeds: [(path: String, feed: RSSFeed)] {
        items.compactMap { path, item in item.feed.map { (path, $0) } }.sorted { $0.path < $1.path }
    }

    func path(ofFeed uid: String) -> String? {
        items.first { $0.value.feed?.uid == uid }?.key
    }

    func feed(uid: String) -> RSSFeed? { path(ofFeed: uid).flatMap { items[$0]?.feed } }

    func update(uid: String, _ change: (inout RSSFeed) -> Void) {
        guard let path = path(ofFeed: uid), var feed = items[path]?.feed else { return }
        change(&feed)
        items[path] = .feed(feed)
    }

    /// The feeds at or under `path` ("" is all); nil when nothing is there.
    func feeds(under path: String) -> [RSSFeed]? {
        if !path.isEmpty, items[path] == nil { return nil }
        return feeds.filter { RSSPath.isWithin($0.path, path) }.map(\.feed)
    }
}
