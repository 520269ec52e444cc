import Foundation
import QBTCore
import TorrentEngine

/// The auto-downloader: unread articles with a torrent URL go through the enabled rules of their feed, by priority;
/// the first rule that accepts one adds its torrent with the rule's parameters, and the article is marked read, so
/// each article is downloaded at most once.
extension RSSService {
    func startDownloading() async {
        downloading = true
        requeueUnread()
    }

    func stopDownloading() {
        downloading = false
        queue.removeAll()
        queued.removeAll()
    }

    /// Every unread article with a torrent URL, newest first.
    func requeueUnread() {
        guard downloading else { return }
        queue.removeAll()
        queued.removeAll()
        let all = feeds.flatMap { entry in entry.feed.articles.map { (entry.feed.uid, $0) } }
        for (uid, article) in all.sorted(by: { $0.1.date > $1.1.date }) { enqueue(uid, article) }
        pump()
    }

    /// New articles of a refresh, oldest first.
    func articlesArrived(feedUID: String, _ articles: [FeedArticle]) {
        guard downloading else { return }
        for article in articles { enqueue(feedUID, article) }
        pump()
    }

    func enqueue(_ uid: String, _ article: FeedArticle) {
        guard !article.isRead, article.downloadURL != nil, queued.insert(uid + "\n" + article.id).inserted else { return }
        queue.append((uid, article.id))
    }

    func pump() {
        guard downloader == nil, !queue.isEmpty else { return }
        downloader = Task {
            while let job = self.nextJob() { await self.process(feedUID: job.feed, articleID: job.article) }
        }
    }

    func nextJob() -> (feed: String, article: String)? {
        guard downloading, !queue.isEmpty else { downloader = nil; return nil }
        let job = queue.removeFirst()
        queued.remove(job.feed + "\n" + job.article)
        return job
    }

    func process(feedUID: String, articleID: String) async {
        let repacks = settings[\.rssDownloadRepackProperEpisodes]
        // Read now, after the last wait: it may have been read, or pushed out, since it was queued.
        guard let feed = feed(uid: feedUID), let article = feed.articles.first(where: { $0.id == articleID }),
              !article.isRead, let url = article.downloadURL else { return }
        for entry in orderedRules where entry.rule.enabled && entry.rule.affectedFeeds.contains(feed.url) {
            guard let episodes = entry.matcher.match(
                title: article.title, articleDate: article.date.date, lastMatch: entry.rule.lastMatch?.date,
                previouslyMatched: entry.rule.previouslyMatchedEpisodes, smart: smartFilter, downloadRepacks: repacks,
                rejectUnrecognizedEpisodes: modern) else { continue }
            if let i = rules.firstIndex(where: { $0.name == entry.name }) {
                rules[i].rule.lastMatch = article.date
                rules[i].rule.previouslyMatchedEpisodes += episodes
                try? await saveRule(entry.name)
            }
            log.add("RSS article '\(article.title)' is accepted by rule '\(entry.name)'. Trying to add torrent...", kind: .info)
            await add(url, rule: entry.rule, feedUID: feedUID, articleID: articleID)
            return
        }
    }

    /// Adds the article's torrent. A magnet (or bare info-hash) article is read at once, whatever the add gives; a
    /// .torrent URL's once the torrent is in, or (5.x) was already there.
    func add(_ url: String, rule: DownloadRule, feedUID: String, articleID: String) async {
        let route = settings.fetchRoute(for: .misc)
        let options = rule.torrentParams.addOptions(defaultStopped: settings[\.addStoppedEnabled])
        let isMagnet = url.lowercased().hasPrefix("magnet:") || TorrentFetcher.magnet(forBareHash: url) != nil
        let outcome: AddOutcome
        if let source = await TorrentFetcher().source(for: url, route: route) {
            outcome = await torrents.add(source, options: options)
        } else {
            outcome = .invalid("the torrent could not be downloaded")
        }
        var read = isMagnet
        switch outcome {
        case .added:
            read = true
        case .duplicate(let id):
            read = read || profile != .v4_6
            log.add("Detected an attempt to add a duplicate torrent. Source: \(url). Existing torrent: \(id). Result: the torrent is already there", kind: .info)
        case .invalid(let why):
            log.add("Failed to add torrent. Source: \"\(url)\". Reason: \"\(why)\"", kind: .warning)
        }
        if read, let path = path(ofFeed: feedUID) { _ = try? await markAsRead(itemPath: path, articleID: articleID) }
    }
}
