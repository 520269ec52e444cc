import Foundation
import HTTPFetch
import QBTCore
import SystemKit

/// Refreshing feeds: the schedule (each feed at its own interval, else `rss_refresh_interval` minutes, while
/// `rss_processing_enabled`), downloads one at a time per host with `rss_fetch_delay` between them, through the
/// `proxy_rss` route, with conditional GETs, a size cap and a timeout; parsing off the pool; the merge; the log lines
/// qBittorrent writes.
extension RSSService {
    static let fetchTimeout = 30
    /// Longest interval and pause the schedule takes (a year; longer values are treated as a year).
    static let longestInterval: TimeInterval = 365 * 86_400
    /// The scheduler wakes at least this often, whatever the intervals (a clock change cannot park it for long).
    static let longestSleep: TimeInterval = 3_600

    /// `rss/refreshItem`: a feed, or every feed under a folder ("" is all); works with processing off too.
    public func refresh(itemPath: String) {
        for feed in feeds(under: itemPath) ?? [] { refresh(uid: feed.uid) }
    }

    /// Starts a feed's refresh; one under way already is followed by another once it ends.
    func refresh(uid: String) {
        guard let feed = feed(uid: uid) else { return }
        guard !feed.isLoading else { refreshAgain.insert(uid); return }
        update(uid: uid) { $0.isLoading = true }
        Task { await self.download(uid: uid) }
    }

    /// A refresh ended, whichever way: the feed is not loading any more, and goes again if that was asked meanwhile.
    func endLoad(uid: String, _ change: (inout RSSFeed) -> Void = { _ in }) {
        update(uid: uid) { change(&$0); $0.isLoading = false }
        if refreshAgain.remove(uid) != nil { refresh(uid: uid) }
    }

    /// Re-arms the schedule; `refreshAll` makes every feed due at once (processing switched on, start-up).
    func reschedule(refreshAll: Bool) async {
        let enabled = settings[\.rssProcessingEnabled]
        let minutes = min(max(1, settings[\.rssRefreshInterval]), Int(Self.longestInterval / 60))
        // Nothing awaits from here on: two calls cannot both keep a scheduler.
        scheduler?.cancel()
        scheduler = nil
        guard enabled else { return }
        if refreshAll { for (path, item) in items { if var f = item.feed { f.nextRefresh = nil; items[path] = .feed(f) } } }
        let global = TimeInterval(minutes) * 60
        scheduler = Task { [weak self] in
            while !Task.isCancelled {
                guard let wait = await self?.refreshDue(global: global) else { return }
                try? await Task.sleep(for: .seconds(wait))
            }
        }
    }

    /// Refreshes the feeds that are due; returns the seconds until the next one is (nil: no feed).
    func refreshDue(global: TimeInterval) -> TimeInterval? {
        // The steady clock: a step of the wall clock neither stops the refreshes nor fires them all at once.
        let now = ContinuousClock.now
        var soonest: TimeInterval?
        for (path, item) in items {
            guard var feed = item.feed else { continue }
            let own = TimeInterval(min(max(0, feed.refreshInterval), Int(Self.longestInterval)))
            let interval = own > 0 ? own : global
            var next = feed.nextRefresh ?? now
            if next - now <= .seconds(1) {
                next = now + .seconds(interval)
                feed.nextRefresh = next
                items[path] = .feed(feed)
                refresh(uid: feed.uid)
            }
            let left = (next - now).inSeconds
            soonest = min(soonest ?? left, left)
        }
        return soonest.map { min(max(1, $0), Self.longestSleep) }
    }

    /// The host a download waits its turn on: host and port (80 whatever the scheme when the URL names none, as
    /// qBittorrent counts it).
    static func hostKey(_ url: String) -> String {
        guard let parts = URLComponents(string: url) else { return url }
        return (parts.host?.lowercased() ?? "") + ":" + String(parts.port ?? 80)
    }

    /// Waits until no other download from this host is under way or pausing.
    func acquireHost(_ host: String) async {
        if busyHosts.insert(host).inserted { return }
        await withCheckedContinuation { hostWaiters[host, default: []].append($0) }  // the host is handed over
    }

    /// The download is over: after `rss_fetch_delay` seconds the next one from this host may start.
    func releaseHost(_ host: String) async {
        let delay = min(max(0, settings[\.rssFetchDelay]), 3_600)
        guard delay > 0 else { return handOver(host) }
        Task {
            try? await Task.sleep(for: .seconds(delay))
            self.handOver(host)
        }
    }

    func handOver(_ host: String) {
        guard var waiting = hostWaiters[host], !waiting.isEmpty else {
            busyHosts.remove(host)
            return
        }
        let next = waiting.removeFirst()
        hostWaiters[host] = waiting.isEmpty ? nil : waiting
        next.resume()
    }

    func download(uid: String) async {
        guard let feed = feed(uid: uid) else { return }
        let url = feed.url
        let host = Self.hostKey(url)
        await acquireHost(host)
        var validators: [String] = []
        if let etag = feed.etag { validators.append("If-None-Match: \(etag)") }
        if let modified = feed.lastModified { validators.append("If-Modified-Since: \(modified)") }
        let page: HTTPFetch.Page
        do {
            page = try await HTTPFetch.fetch(url, route: settings.fetchRoute(for: .rss), timeout: Self.fetchTimeout,
                                             maxBytes: FeedParser.maximumSize, headers: validators)
            await releaseHost(host)
        } catch {
            await releaseHost(host)
            endLoad(uid: uid) { $0.hasError = true }
            log.add("Failed to download RSS feed at '\(url)'. Reason: \(error)", kind: .warning)
            return
        }
        guard self.feed(uid: uid)?.url == url else { return endLoad(uid: uid) }
        if page.notModified {
            endLoad(uid: uid) { $0.hasError = false }
            log.add("RSS feed at '\(url)' updated. Added 0 new articles.", kind: .info)
            return
        }
        log.add("RSS feed at '\(url)' is successfully downloaded. Starting to parse it.", kind: .info)
        let previous = feed.lastBuildDate
        let body = page.body
        let parsed = (try? await offPool { FeedParser.parse(Data(body), previousLastBuildDate: previous) })
            ?? ParsedFeed(error: "Invalid RSS feed.")
        await merge(uid: uid, url: url, parsed, etag: page.headers["etag"], lastModified: page.headers["last-modified"])
    }

    func merge(uid: String, url: String, _ parsed: ParsedFeed, etag: String?, lastModified: String?) async {
        let limit = settings[\.rssMaxArticlesPerFeed]
        // From here to `endLoad` nothing awaits, so no change made meanwhile (read state, a new URL) is lost.
        guard var feed = feed(uid: uid), feed.url == url else { return endLoad(uid: uid) }
        let outcome = ArticleMerge.merge(existing: feed.articles, parsed: parsed.articles, limit: limit, now: Date())
        feed.articles = outcome.articles
        feed.hasError = parsed.error != nil
        if !parsed.lastBuildDate.isEmpty { feed.lastBuildDate = parsed.lastBuildDate }
        if parsed.error == nil { feed.etag = etag; feed.lastModified = lastModified }
        let titleChanged = !parsed.title.isEmpty && parsed.title != feed.title
        if titleChanged { feed.title = parsed.title }
        let merged = feed
        endLoad(uid: uid) { $0 = merged }
        if let error = parsed.error { log.add("Failed to parse RSS feed at '\(url)'. Reason: \(error)", kind: .warning) }
        // A feed still named after its URL takes its title.
        var renamed = false
        if titleChanged, let path = path(ofFeed: uid), RSSPath.name(path) == url {
            let newPath = RSSPath.join(RSSPath.parent(path), parsed.title)
            if (try? checkDestination(newPath)) != nil {
                items[newPath] = items.removeValue(forKey: path)
                renamed = true
            }
        }
        let added = outcome.added.map { $0.record(feedUID: uid) }, removed = outcome.removed
        let validators = parsed.error == nil ? (etag, lastModified) : nil
        do {
            // The articles before the validators: a crash between the two fetches the feed whole again.
            try await persist { store in
                try await store.rss.updateRSSArticles(feedUID: uid, added: added, removed: removed)
                if let validators { try await store.rss.setRSSValidators(uid: uid, etag: validators.0, lastModified: validators.1) }
            }
            if renamed { try await saveTree() }
        } catch {
            log.add("Failed to save RSS feed in '\(url)', Reason: \(error)", kind: .warning)
        }
        log.add("RSS feed at '\(url)' updated. Added \(outcome.added.count) new articles.", kind: .info)
        articlesArrived(feedUID: uid, outcome.added)
    }
}
