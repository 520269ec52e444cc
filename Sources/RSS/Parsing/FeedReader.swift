import Foundation

/// Reads a feed from XML events the way qBittorrent walks its document (spec §6): the root decides RSS or Atom,
/// then every start element until the end of the document is looked at, except inside items/entries, which read
/// their own children.
struct FeedReader {
    enum Mode {
        case prolog
        /// The root is neither <rss> nor <feed>: nothing is read.
        case ignoring
        /// Inside <rss>, looking for a <channel> child.
        case rssRoot(depth: Int)
        case channel
        case rssItem(depth: Int)
        case atomFeed
        case atomEntry(depth: Int)
        case atomAuthor(depth: Int, entryDepth: Int)
        /// Nothing more to read (lastBuildDate unchanged, or <rss> without a channel).
        case done
    }

    /// What a captured element's text is for.
    enum Purpose {
        case feedTitle(direct: Bool)
        case lastBuildDate
        case title
        case rssLink
        case description
        case pubDate
        case author
        case id
        case atomLink
        case atomContent
        case atomUpdated
        case authorName
        case field(String)
    }

    /// The element whose text is being collected, and everything under it.
    struct Capture {
        var depth: Int
        var purpose: Purpose
        var text = ""
    }

    let fallbackDate: FeedDate

    private(set) var mode = Mode.prolog
    private(set) var sawRoot = false
    private(set) var foundChannel = false
    private(set) var unchanged = false
    private(set) var articles: [ParsedArticle] = []
    private(set) var lastBuildDate = ""
    /// Set when the rest of the document needs no reading.
    private(set) var wantsStop = false

    private var depth = 0
    /// Local names of the open elements.
    private var names: [String] = []
    private var capture: Capture?
    /// While set, everything under the element at this depth is skipped.
    private var skipDepth: Int?
    private var draft = ArticleDraft()
    private var seenIDs: Set<String> = []
    private var baseURL = ""
    /// The title of the last <title> directly under <channel>/<feed>, and of the last one anywhere else.
    private var directTitle: String?
    private var otherTitle: String?
    /// The lastBuildDate an equal one is compared with: the previous parse's, then the last one seen.
    private var knownLastBuildDate: String

    init(previousLastBuildDate: String, fallbackDate: FeedDate) {
        self.fallbackDate = fallbackDate
        self.knownLastBuildDate = previousLastBuildDate
    }

    /// The channel title. qBittorrent keeps the last <title> met outside items, so an <image><title> after the
    /// channel's own would win; a <title> directly under <channel> (or <feed>) is preferred here instead (spec §13
    /// item 6), any other only when there is none.
    var title: String { directTitle ?? otherTitle ?? "" }

    // MARK: - Events

    mutating func start(_ qualifiedName: String, attributes: [String: String]) {
        let name = Self.localName(qualifiedName)
        let parent = names.last
        depth += 1
        names.append(name)
        if capture != nil || skipDepth != nil { return }
        switch mode {
        case .prolog:
            sawRoot = true
            if name == "rss" {
                mode = .rssRoot(depth: depth)
            } else if name == "feed" {
                foundChannel = true
                baseURL = attributes["xml:base"] ?? ""
                mode = .atomFeed
            } else {
                mode = .ignoring
            }
        case .rssRoot(let rootDepth):
            if depth == rootDepth + 1, name == "channel" {
                foundChannel = true
                mode = .channel
            } else {
                skipDepth = depth
            }
        case .channel:
            switch name {
            case "title": begin(.feedTitle(direct: parent == "channel"))
            case "lastBuildDate": begin(.lastBuildDate)
            case "item":
                draft = ArticleDraft()
                mode = .rssItem(depth: depth)
            default: break
            }
        case .rssItem:
            startRSSItemChild(name, attributes: attributes)
        case .atomFeed:
            switch name {
            case "title": begin(.feedTitle(direct: parent == "feed"))
            case "updated": begin(.lastBuildDate)
            case "entry":
                draft = ArticleDraft()
                mode = .atomEntry(depth: depth)
            default: break
            }
        case .atomEntry(let entryDepth):
            startAtomEntryChild(name, attributes: attributes, entryDepth: entryDepth)
        case .atomAuthor(let authorDepth, _):
            if depth == authorDepth + 1, name == "name" { begin(.authorName) } else { skipDepth = depth }
        case .ignoring, .done:
            break
        }
    }

    mutating func end() {
        guard depth > 0 else { return }
        let closing = depth
        depth -= 1
        names.removeLast()
        if let current = capture {
            if closing == current.depth {
                capture = nil
                deliver(current)
            }
            return
        }
        if let skip = skipDepth {
            if closing == skip { skipDepth = nil }
            return
        }
        switch mode {
        case .rssRoot(let rootDepth) where closing == rootDepth:
            // An <rss> without a <channel>: qBittorrent reads no further.
            mode = .done
            wantsStop = true
        case .rssItem(let itemDepth) where closing == itemDepth:
            finishRSSItem()
            mode = .channel
        case .atomEntry(let entryDepth) where closing == entryDepth:
            finishEntry()
            mode = .atomFeed
        case .atomAuthor(let authorDepth, let entryDepth) where closing == authorDepth:
            mode = .atomEntry(depth: entryDepth)
        default:
            break
        }
    }

    mutating func text(_ string: String) {
        if capture != nil { capture?.text += string }
    }

    /// The document ended, or broke off at an XML error: an item being read is kept with what it has (as
    /// qBittorrent does); the text of an element left open is not.
    mutating func finish() {
        capture = nil
        switch mode {
        case .rssItem: finishRSSItem()
        case .atomEntry, .atomAuthor: finishEntry()
        default: break
        }
        mode = .done
    }

    // MARK: - Helpers

    private mutating func begin(_ purpose: Purpose) {
        capture = Capture(depth: depth, purpose: purpose)
    }

    private mutating func deliver(_ captured: Capture) {
        let text = captured.text
        switch captured.purpose {
        case .feedTitle(let direct):
            if direct { directTitle = text } else { otherTitle = text }
        case .lastBuildDate:
            guard !text.isEmpty else { return }
            lastBuildDate = text
            if text == knownLastBuildDate {
                // Not changed since the last parse: qBittorrent stops reading here, without error.
                unchanged = true
                mode = .done
                wantsStop = true
            }
            knownLastBuildDate = text
        case .title: draft.fields["title"] = text.feedTrimmed
        case .rssLink:
            let link = text.feedTrimmed
            if link.hasMagnetPrefix { draft.torrentURL = link } else { draft.fields["link"] = link }
        case .description: draft.fields["description"] = text
        case .pubDate:
            switch RSSDate.read(text) {
            case .date(let date): draft.date = date
            case .fallback: draft.date = fallbackDate
            case .invalid: draft.date = nil
            }
        case .author, .authorName: draft.fields["author"] = text.feedTrimmed
        case .id: draft.id = text.feedTrimmed
        case .atomLink: applyAtomLink(text.feedTrimmed)
        case .atomContent:
            let content = text.feedTrimmed
            if !content.isEmpty {
                draft.fields["description"] = content
                draft.hasContent = true
            }
        case .atomUpdated: draft.date = FeedDate.atom(text.feedTrimmed) ?? fallbackDate
        case .field(let name): draft.store(name, text)
        }
    }

    private mutating func add(_ article: ParsedArticle?) {
        guard let article, seenIDs.insert(article.id).inserted else { return }
        articles.append(article)
    }

    static func localName(_ qualifiedName: String) -> String {
        guard let colon = qualifiedName.lastIndex(of: ":") else { return qualifiedName }
        return String(qualifiedName[qualifiedName.index(after: colon)...])
    }
}

// MARK: - RSS 2.0 items (spec §6.3, §6.4)

extension FeedReader {
    fileprivate mutating func startRSSItemChild(_ name: String, attributes: [String: String]) {
        switch name {
        case "title": begin(.title)
        case "enclosure":
            // Not read as text: its children, if any, are looked at as the item's.
            let type = attributes["type"] ?? ""
            if type == "application/x-bittorrent" {
                draft.torrentURL = attributes["url"] ?? ""
            } else if type.isEmpty {
                draft.alternativeTorrentURL = attributes["url"] ?? ""
            }
        case "link": begin(.rssLink)
        case "description": begin(.description)
        case "pubDate": begin(.pubDate)
        case "author": begin(.author)
        case "guid": begin(.id)
        default: begin(.field(name))
        }
    }

    fileprivate mutating func finishRSSItem() {
        if draft.torrentURL.isEmpty { draft.torrentURL = draft.alternativeTorrentURL }
        add(draft.finished())
        draft = ArticleDraft()
    }
}

// MARK: - Atom entries (spec §6.5)

extension FeedReader {
    fileprivate mutating func startAtomEntryChild(_ name: String, attributes: [String: String], entryDepth: Int) {
        switch name {
        case "title": begin(.title)
        case "link":
            // With any attribute (namespace declarations aside) the value is href, and the element is not read as
            // text; without, it is the text.
            if attributes.keys.contains(where: { !Self.isNamespaceDeclaration($0) }) {
                applyAtomLink(attributes["href"] ?? "")
            } else {
                begin(.atomLink)
            }
        case "summary", "content":
            if draft.hasContent { skipDepth = depth } else { begin(.atomContent) }
        case "updated": begin(.atomUpdated)
        case "author": mode = .atomAuthor(depth: depth, entryDepth: entryDepth)
        case "id": begin(.id)
        default: begin(.field(name))
        }
    }

    /// A magnet link is the torrent URL; any other is the link, after xml:base by plain concatenation (as qBittorrent
    /// does, even for absolute links).
    fileprivate mutating func applyAtomLink(_ value: String) {
        if value.hasMagnetPrefix {
            draft.torrentURL = value
        } else {
            draft.fields["link"] = baseURL + value
        }
    }

    fileprivate mutating func finishEntry() {
        add(draft.finished())
        draft = ArticleDraft()
    }

    static func isNamespaceDeclaration(_ name: String) -> Bool {
        name == "xmlns" || name.hasPrefix("xmlns:")
    }
}
