import Foundation
import QBTCore
import Store

/// One article a feed keeps: what the parser found, its date, and whether it was read.
public struct FeedArticle: Sendable, Equatable {
    public var id: String
    public var date: FeedDate
    public var torrentURL: String?
    /// title, link, description, author and every other element of the item, by local name.
    public var fields: [String: String]
    public var isRead = false

    public init(id: String, date: FeedDate, torrentURL: String?, fields: [String: String], isRead: Bool = false) {
        self.id = id
        self.date = date
        self.torrentURL = torrentURL
        self.fields = fields
        self.isRead = isRead
    }

    public var title: String { fields["title"] ?? "" }

    /// What the auto-downloader adds: the torrent URL, else the link.
    public var downloadURL: String? {
        if let url = torrentURL, !url.isEmpty { return url }
        return fields["link"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The record `rss/items?withData=true` shows: every field, `id`, `date`, `torrentURL` (null when none) and
    /// `isRead` once read.
    public var json: JSONValue {
        var out = fields.mapValues(JSONValue.string)
        out["id"] = .string(id)
        out["date"] = .string(date.formatted)
        out["torrentURL"] = torrentURL.map(JSONValue.string) ?? .null
        if isRead { out["isRead"] = .bool(true) }
        return .object(out)
    }

    /// How SQLite keeps it (the instant and the read state have columns of their own).
    struct Stored: Codable {
        var offset: Int
        var torrentURL: String?
        var fields: [String: String]
    }

    func record(feedUID: String) -> RSSArticleRecord {
        let data = (try? JSONEncoder().encode(Stored(offset: date.offset, torrentURL: torrentURL, fields: fields)))
            ?? Data("{}".utf8)
        return RSSArticleRecord(feedUID: feedUID, id: id, date: date.date.timeIntervalSince1970,
                                data: String(decoding: data, as: UTF8.self), isRead: isRead)
    }

    /// From its row: the instant from the numeric column (a date the text form cannot carry survives too).
    init?(_ record: RSSArticleRecord) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(record.data.utf8)), record.date.isFinite else { return nil }
        self.init(id: record.id, date: FeedDate(date: Date(timeIntervalSince1970: record.date), offset: stored.offset),
                  torrentURL: stored.torrentURL, fields: stored.fields, isRead: record.isRead)
    }
}
