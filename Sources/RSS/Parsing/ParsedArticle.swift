import Foundation

/// One <item> or <entry> as parsed.
public struct ParsedArticle: Sendable, Equatable {
    public var id: String
    /// nil when the item had no date element at all, or one qBittorrent reads as an invalid date (the merge gives it
    /// a fallback); an element that was present but did not parse gives the parse's start time (spec §6.3/§6.6).
    public var date: FeedDate?
    /// nil = JSON null (no torrent URL and no link), spec §6.4 / §5.2 step 1.
    public var torrentURL: String?
    /// title, link, description, author, and every other unconsumed child element under its local name (spec §4.2);
    /// never the keys id, date, torrentURL, isRead.
    public var fields: [String: String]

    public init(id: String, date: FeedDate?, torrentURL: String?, fields: [String: String]) {
        self.id = id
        self.date = date
        self.torrentURL = torrentURL
        self.fields = fields
    }
}
