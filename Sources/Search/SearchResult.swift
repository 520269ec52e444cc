import Foundation

/// One search hit, as `search/results` lists it.
public struct SearchResult: Sendable, Equatable {
    public var fileName: String
    public var fileURL: String
    public var fileSize: Int64
    public var seeders: Int64
    public var leechers: Int64
    public var siteURL: String
    public var descriptionLink: String
    public var engineName: String
    /// Unix seconds, -1 when unknown.
    public var pubDate: Int64

    public init(fileName: String, fileURL: String, fileSize: Int64 = -1, seeders: Int64 = -1, leechers: Int64 = -1,
                siteURL: String, descriptionLink: String = "", engineName: String, pubDate: Int64 = -1) {
        self.fileName = fileName
        self.fileURL = fileURL
        self.fileSize = fileSize
        self.seeders = seeders
        self.leechers = leechers
        self.siteURL = siteURL
        self.descriptionLink = descriptionLink
        self.engineName = engineName
        self.pubDate = pubDate
    }

    /// `SearchHandler::parseSearchResult`: `link|name|size|seeds|leech|engine_url[|desc_link[|pub_date]]`.
    /// Fewer than 6 fields, an empty link or name: not a result (nil). Numbers that do not parse become -1.
    /// `quotedName`: 5.3's printer percent-encodes the name.
    public static func parse(line: Substring, engine: String, quotedName: Bool = false) -> SearchResult? {
        let parts = line.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count >= 6 else { return nil }
        func text(_ i: Int) -> String { i < parts.count ? String(trimmed(parts[i])) : "" }
        func number(_ i: Int) -> Int64 { Int64(text(i)) ?? -1 }
        let link = text(0), name = quotedName ? text(1).removingPercentEncoding ?? text(1) : text(1)
        guard !link.isEmpty, !name.isEmpty else { return nil }
        let date = number(7)
        return SearchResult(fileName: name, fileURL: link, fileSize: number(2), seeders: number(3), leechers: number(4),
                            siteURL: text(5), descriptionLink: text(6), engineName: engine, pubDate: date > 0 ? date : -1)
    }
}

/// Without leading and trailing spaces and tabs (Foundation's trimming is slow on this hot path).
func trimmed(_ s: Substring) -> Substring {
    var s = s
    while let first = s.first, first == " " || first == "\t" { s.removeFirst() }
    while let last = s.last, last == " " || last == "\t" { s.removeLast() }
    return s
}

/// qBittorrent's search categories, in its order.
public enum SearchCategory {
    public static let all = ["all", "anime", "books", "games", "movies", "music", "pictures", "software", "tv"]
    public static let names = [
        "all": "All categories", "anime": "Anime", "books": "Books", "games": "Games", "movies": "Movies",
        "music": "Music", "pictures": "Pictures", "software": "Software", "tv": "TV shows",
    ]
}
