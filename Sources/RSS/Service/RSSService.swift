import Foundation
import QBTCore
import Store

/// qBittorrent's RSS session and auto-downloader: the tree of folders and feeds, their articles and the download
/// rules, kept in SQLite; feeds refreshed on their schedule; matching articles added as torrents.
public actor RSSService {
    let store: any Store
    let settings: ServerSettings
    let torrents: TorrentService
    let log: EventLog
    let profile: Identity.Profile
    /// 5.2's wording, per-feed intervals and smart filter (an article without an episode number is refused).
    var modern: Bool { profile >= .v5_2 }

    /// Every item by path; the root folder "" is implied.
    var items: [String: RSSItem] = [:]
    /// Rules with the position they were added at; `rss/rules` and matching take them by priority, then position.
    var rules: [(name: String, rule: DownloadRule, matcher: RuleMatcher, position: Int)] = []
    var nextRulePosition = 0
    var smartFilter = SmartEpisodeFilter(filters: SmartEpisodeFilter.defaultFilters)

    var scheduler: Task<Void, Never>?
    var preferenceHandler: PreferenceSubscription?
    /// Feeds asked to refresh while a refresh of theirs was under way (their URL changed, say): once more after it.
    var refreshAgain: Set<String> = []
    /// Hosts with a download under way or in its `rss_fetch_delay` pause, and the downloads waiting for each.
    var busyHosts: Set<String> = []
    var hostWaiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// The last write to SQLite: every write waits for the one before, so they land in the order the actor made them.
    var lastWrite: Task<Void, Never>?
    /// The auto-downloader's queue: (feed uid, article id), each once.
    var queue: [(feed: String, article: String)] = []
    var queued: Set<String> = []
    var downloader: Task<Void, Never>?
    var downloading = false

    public init(store: any Store, settings: ServerSettings, torrents: TorrentService, profile: Identity.Profile) async throws {
        self.store = store
        self.settings = settings
        self.torrents = torrents
        self.log = torrents.log
        self.profile = profile
        try await load()
    }

    /// Loads the tree, the articles and the rules, then starts what the preferences ask for.
    private func load() async throws {
        for record in try await store.rss.rssItems() {
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
        for record in try await store.rss.rssArticles() {
            guard let article = FeedArticle(record) else { continue }
            byFeed[record.feedUID, default: []].append(article)
        }
        for (path, item) in items {
            guard var feed = item.feed, let articles = byFeed[feed.uid] else { continue }
            feed.articles = articles.sorted { $0.date > $1.date }
            items[path] = .feed(feed)
        }
        for record in try await store.rss.rssRules() {
            guard let data = record.definition.data(using: .utf8),
                  case .object(let definition)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { continue }
            let rule = DownloadRule(definition: definition)
            rules.append((record.name, rule, rule.matcher(), record.position))
            nextRulePosition = max(nextRulePosition, record.position + 1)
        }
        await reloadSmartFilter()
    }

    /// Starts following the preferences: the refresh schedule and the auto-downloader. `ServerSettings.update`
    /// awaits the handler, so a change is in force when `app/setPreferences` answers.
    public func start() async {
        preferenceHandler = settings.onChange(.rss) { [weak self] change in await self?.preferencesChanged(change) }
        await reschedule(refreshAll: true)
        if settings[\.rssAutoDownloadingEnabled] { await startDownloading() }
    }

    /// Stops refreshing and downloading (before the torrent engine stops), then waits for the last write.
    public func shutdown() async {
        preferenceHandler?.cancel()
        scheduler?.cancel()
        downloading = false
        downloader?.cancel()
        await lastWrite?.value
    }

    /// Runs a write after every write made before it; its error is the caller's.
    func persist(_ write: @escaping @Sendable (any Store) async throws -> Void) async throws {
        let previous = lastWrite, store = store
        let task = Task<Void, Error> {
            await previous?.value
            try await write(store)
        }
        lastWrite = Task { _ = try? await task.value }
        try await task.value
    }

    func preferencesChanged(_ change: PreferenceChange) async {
        if change.changed(\.rssProcessingEnabled) {
            await reschedule(refreshAll: true)
        } else if change.changed(\.rssRefreshInterval) {
            await reschedule(refreshAll: false)
        }
        if change.changed(\.rssMaxArticlesPerFeed) { await trimAll() }
        if change.changed(\.rssSmartEpisodeFilters) { await reloadSmartFilter() }
        if change.changed(\.rssAutoDownloadingEnabled) {
            if settings[\.rssAutoDownloadingEnabled] { await startDownloading() } else { stopDownloading() }
        }
    }

    func reloadSmartFilter() async {
        let text = settings[\.rssSmartEpisodeFilters]
        smartFilter = SmartEpisodeFilter(filters: text.components(separatedBy: "\n"))
    }

    /// `rss_max_articles_per_feed` went down: every feed keeps its newest (in memory first, then in SQLite).
    func trimAll() async {
        let limit = settings[\.rssMaxArticlesPerFeed]
        var removals: [(uid: String, ids: [String])] = []
        for (path, item) in items {
            guard var feed = item.feed else { continue }
            let (kept, removed) = ArticleMerge.trim(feed.articles, limit: limit)
            guard !removed.isEmpty else { continue }
            feed.articles = kept
            items[path] = .feed(feed)
            removals.append((feed.uid, removed))
        }
        guard !removals.isEmpty else { return }
        do {
            try await persist { [removals] store in
                for r in removals { try await store.rss.updateRSSArticles(feedUID: r.uid, added: [], removed: r.ids) }
            }
        } catch {
            log.add("Couldn't save RSS session data. Error: \"\(error)\"", kind: .warning)
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
