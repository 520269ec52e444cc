import Foundation

/// How a refresh's articles join a feed's (qBittorrent's rules): known ids are never updated; an article without a
/// date takes a date just older than the known article after it in the document (or now); the feed keeps the
/// `limit` newest.
public enum ArticleMerge {
    public struct Outcome: Sendable {
        /// Every article kept, newest first.
        public var articles: [FeedArticle]
        /// The new articles kept, oldest first (the order the auto-downloader hears of them).
        public var added: [FeedArticle]
        /// Ids of known articles pushed out.
        public var removed: [String]
    }

    public static func merge(existing: [FeedArticle], parsed: [ParsedArticle], limit: Int, now: Date) -> Outcome {
        let known = Dictionary(existing.map { ($0.id, $0.date) }, uniquingKeysWith: { a, _ in a })
        var fallback = FeedDate(date: now, offset: TimeZone.current.secondsFromGMT(for: now))
        var collected: [(article: FeedArticle, order: Int)] = []
        for (order, item) in parsed.enumerated().reversed() {
            if let date = known[item.id] {
                fallback = FeedDate(date: date.date.addingTimeInterval(-0.001), offset: date.offset)
                continue
            }
            collected.append((FeedArticle(id: item.id, date: item.date ?? fallback, torrentURL: item.torrentURL,
                                          fields: item.fields), order))
        }
        // Newest first; on equal dates a new article goes before known ones, and document order among new ones.
        var all: [(article: FeedArticle, new: Bool, order: Int)] =
            collected.map { ($0.article, true, $0.order) } + existing.enumerated().map { ($0.element, false, $0.offset) }
        all.sort { a, b in
            if a.article.date.date != b.article.date.date { return a.article.date.date > b.article.date.date }
            if a.new != b.new { return a.new }
            return a.order < b.order
        }
        let kept = Array(all.prefix(max(0, limit)))
        let keptIDs = Set(kept.map(\.article.id))
        return Outcome(articles: kept.map(\.article),
                       added: kept.filter(\.new).map(\.article).reversed(),
                       removed: existing.map(\.id).filter { !keptIDs.contains($0) })
    }

    /// The `limit` newest of a feed's articles, and the ids of the rest.
    public static func trim(_ articles: [FeedArticle], limit: Int) -> (kept: [FeedArticle], removed: [String]) {
        let kept = Array(articles.prefix(max(0, limit)))
        return (kept, articles.dropFirst(kept.count).map(\.id))
    }
}
