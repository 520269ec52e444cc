import Foundation
import HTTPFetch
import QBTCore

/// Refreshing feeds: the schedule (each feed at its own interval, else `rss_refresh_interval` minutes, while
/// `rss_processing_enabled`), downloads paced per host by `rss_fetch_delay` through the `proxy_rss` route, with
/// conditional GETs, a size cap and a timeout; parsing off the pool; the merge; the log lines qBittorrent writes.
extension RSSService {
    static let fetchTimeout = 30

    /// `rss/refreshItem`: a feed, or every feed under a folder ("" is all); works with processing off too.
    public func refresh(itemPath: String) {
        for feed in feeds(under: itemPath) ?? [] { refresh(uid: feed.uid) }
    }

    /// Starts a feed's refresh unless one is under way.
    func refresh(uid: String) {
        guard let feed = feed(uid: uid), !feed.isLoading else { return }
        update(uid: uid) { $0.isLoading = true }
        Task { await self.download(uid: uid) }
    }

    /// Re-arms the schedule; `refreshAll` makes every feed due at once (processing switched on, start-up).
    func reschedule(refreshAll: Bool) async {
        scheduler?.cancel()
        scheduler = nil
        guard await settings.bool("rss_processing_enabled") else { return }
        if refreshAll { for (path, item) in items { if var f = item.feed { f.nextRefresh = nil; items[path] = .feed(f) } } }
        let global = TimeInterval(max(1, await settings.int("rss_refresh_interval")) * 60)
        scheduler = Task { [weak self] in
            while !Task.isCancelled {
                guard let wait = await self?.refreshDue(global: global) else { return }
                try? await Task.sleep(for: .seconds(wait))
            }
        }
    }

    /// Refreshes the feeds that are due; returns the seconds until the next one is (nil: no feed).
    func refreshDue(global: TimeInterval) -> TimeInterval? {
        let now = Date()
        var soonest: TimeInterval?
        for (path, item) in items {
            guard var feed = item.feed else { continue }
            let interval = feed.refreshInterval > 0 ? TimeInterval(feed.refreshInterval) : global
            if feed.nextRefresh.map({ $0.timeIntervalSince(now) <= 1 }) ?? true {
                feed.nextRefresh = now.addingTimeInterval(interval)
                items[path] = .feed(feed)
                refresh(uid: feed.uid)
            }
            let left = feed.nextRefresh!.timeIntervalSince(now)
            soonest = min(soonest ?? left, left)
        }
        return soonest.map { max(1, $0) }
    }

    /// Waits for the host's turn: one download start per `rss_fetch_delay` seconds per host and port (qBittorrent's
    /// rule: the port is 80 whatever the scheme when the URL names none).
    func waitForHost(of url: String) async {
        let parts = URLComponents(string: url)
        let host = parts.map { ($0.host?.lowercased() ?? "") + ":" + String($0.port ?? 80) } ?? url
        let delay = max(0, await settings.int("rss_fetch_delay"))
        let now = ContinuousClock.now
        let start = max(now, hostReadyAt[host] ?? now)
        hostReadyAt[host] = start + .seconds(delay)
        if start > now { try? await Task.sleep(until: start) }
    }

    func download(uid: String) async {
        guard let feed = feed(uid: uid) else { return }
        let url = feed.url
        await waitForHost(of: url)
        var validators: [String] = []
        if let etag = feed.etag { validators.append("If-None-Match: \(etag)") }
        if let modified = feed.lastModified { validators.append("If-Modified-Since: \(modified)") }
        let page: HTTPFetch.Page
        do {
            page = try await HTTPFetch.fetch(url, route: await settings.fetchRoute(for: .rss), timeout: Self.fetchTimeout,
                                             maxBytes: FeedParser.maximumSize, headers: validators)
        } catch {
            update(uid: uid) { $0.isLoading = false; $0.hasError = true }
            log.add("Failed to download RSS feed at '\(url)'. Reason: \(error)", kind: .warning)
            return
        }
        guard self.feed(uid: uid)?.url == url else { update(uid: uid) { $0.isLoading = false }; return }
        if page.notModified {
            update(uid: uid) { $0.isLoading = false; $0.hasError = false }
            log.add("RSS feed at '\(url)' updated. Added 0 new articles.", kind: .info)
            return
        }
        log.add("RSS feed at '\(url)' is successfully downloaded. Starting to parse it.", kind: .info)
        let previous = feed.lastBuildDate
        let body = page.body
        let parsed = (try? await offPool { FeedParser.parse(Data(body), previousLastBuildDate: previous) })
            ?? ParsedFeed(title: "", lastBuildDate: "", articles: [], error: "Invalid RSS feed.", unchanged: false)
        await merge(uid: uid, url: url, parsed, etag: page.headers["etag"], lastModified: page.headers["last-modified"])
    }

    func merge(uid: String, url: String, _ parsed: ParsedFeed, etag: String?, lastModified: String?) async {
        let limit = await settings.int("rss_max_articles_per_feed")
        // From here to `update` nothing awaits, so no read-state change made meanwhile is lost.
        guard var feed = feed(uid: uid), feed.url == url else { return }
        let outcome = ArticleMerge.merge(existing: feed.articles, parsed: parsed.articles, limit: limit, now: Date())
        feed.articles = outcome.articles
        feed.isLoading = false
        feed.hasError = parsed.error != nil
        if !parsed.lastBuildDate.isEmpty { feed.lastBuildDate = parsed.lastBuildDate }
        if parsed.error == nil { feed.etag = etag; feed.lastModified = lastModified }
        let titleChanged = !parsed.title.isEmpty && parsed.title != feed.title
        if titleChanged { feed.title = parsed.title }
        update(uid: uid) { $0 = feed }
        if let error = parsed.error { log.add("Failed to parse RSS feed at '\(url)'. Reason: \(error)", kind: .warning) }
        do {
            try await store.updateRSSArticles(feedUID: uid, added: outcome.added.map { $0.record(feedUID: uid) },
                                              removed: outcome.removed)
            if parsed.error == nil { try await store.setRSSValidators(uid: uid, etag: etag, lastModified: lastModified) }
        } catch {
            log.add("Failed to save RSS feed in '\(url)', Reason: \(error)", kind: .warning)
        }
        // A feed still named after its URL takes its title.
        if titleChanged, let path = path(ofFeed: uid), RSSPath.name(path) == url {
            let renamed = RSSPath.join(RSSPath.parent(path), parsed.title)
            if (try? checkDestination(renamed)) != nil {
                items[renamed] = items.removeValue(forKey: path)
                try? await saveTree()
            }
        }
        log.add("RSS feed at '\(url)' updated. Added \(outcome.added.count) new articles.", kind: .info)
        articlesArrived(feedUID: uid, outcome.added)
    }
}
