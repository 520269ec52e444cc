import Foundation

/// An <item> or <entry> while its children are read: qBittorrent's slots, later elements overwriting earlier ones.
struct ArticleDraft {
    var id = ""
    var date: FeedDate?
    /// An x-bittorrent enclosure's url or a magnet link.
    var torrentURL = ""
    /// RSS: the url of the last enclosure without a type.
    var alternativeTorrentURL = ""
    var fields: [String: String] = [:]
    /// Atom: a non-empty <summary>/<content> was taken; later ones are skipped.
    var hasContent = false

    /// A child element stored under its local name. Names of the parser's own slots never become fields:
    /// `id` and `date` fill those slots (qBittorrent's behaviour: a later <dc:date> or <id> overrides <pubDate> or
    /// <guid>; an invalid date leaves the merge to date the article), `torrentURL` and `isRead` are ignored so a
    /// feed cannot set an article's torrent or read state through them.
    mutating func store(_ name: String, _ text: String) {
        switch name {
        case "id": id = text.feedTrimmed
        case "date": date = FeedDate.atom(text.feedTrimmed)
        case "torrentURL", "isRead": break
        default: fields[name] = text
        }
    }

    /// The article qBittorrent keeps (spec §5.2): torrent URL falling back to the link, id to the torrent URL then the
    /// title; nil when nothing identifies it.
    func finished() -> ParsedArticle? {
        let torrent: String? = torrentURL.isEmpty ? fields["link"] : torrentURL
        let identity: String
        if !id.isEmpty {
            identity = id
        } else if let torrent, !torrent.isEmpty {
            identity = torrent
        } else if let title = fields["title"], !title.isEmpty {
            identity = title
        } else {
            return nil
        }
        return ParsedArticle(id: identity, date: date, torrentURL: torrent, fields: fields)
    }
}
