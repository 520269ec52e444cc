import Foundation

/// What one parse of a feed document gave.
public struct ParsedFeed: Sendable {
    /// The channel's (or Atom feed's) title; "" when none.
    public var title: String
    /// The raw text of RSS <lastBuildDate> / Atom feed-level <updated>; "" when none.
    public var lastBuildDate: String
    /// Document order; items without any id dropped, and later items repeating an id.
    public var articles: [ParsedArticle]
    /// nil on success; spec §6.1 texts ("Invalid RSS feed." etc.). Articles read before an XML error are kept.
    public var error: String?
    /// lastBuildDate equalled the previous parse's: parsing stopped there (spec §6.2).
    public var unchanged: Bool

    public init(title: String = "", lastBuildDate: String = "", articles: [ParsedArticle] = [], error: String? = nil,
                unchanged: Bool = false) {
        self.title = title
        self.lastBuildDate = lastBuildDate
        self.articles = articles
        self.error = error
        self.unchanged = unchanged
    }
}
