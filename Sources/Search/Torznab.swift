import Foundation
import SafeXML
import HTTPFetch
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Torznab indexers (the API of Jackett and Prowlarr): `GET <url>?t=search&q=…&apikey=…&cat=…`, results read from
/// the RSS answer with its `torznab:attr` elements.
public enum Torznab {
    /// qBittorrent's categories as Newznab category ids (the parents; indexers include their children).
    public static let categoryIDs: [String: [Int]] = [
        "anime": [5070], "books": [7000, 8010], "games": [1000, 4050], "movies": [2000], "music": [3000],
        "pictures": [8000], "software": [4000], "tv": [5000],
    ]

    public static func searchURL(base: String, apiKey: String, query: String, category: String) -> URL? {
        guard var components = URLComponents(string: base) else { return nil }
        if !components.path.hasSuffix("/api") && !components.path.hasSuffix("/api/") {
            components.path = (components.path.hasSuffix("/") ? components.path : components.path + "/") + "api"
        }
        var items = (components.queryItems ?? []).filter { !["t", "q", "apikey", "cat"].contains($0.name) }
        items += [URLQueryItem(name: "t", value: "search"), URLQueryItem(name: "q", value: query),
                  URLQueryItem(name: "apikey", value: apiKey)]
        if let ids = categoryIDs[category] { items.append(URLQueryItem(name: "cat", value: ids.map(String.init).joined(separator: ","))) }
        components.queryItems = items
        return components.url
    }

    public enum Failure: Error, CustomStringConvertible {
        case badURL, indexer(String)
        public var description: String {
            switch self {
            case .badURL: "not an http(s) URL"
            case .indexer(let message): "indexer error: \(message)"
            }
        }
    }

    /// Queries one indexer by `route` (`proxy_misc`); the results carry `engine` as their engine name and `siteURL`.
    public static func search(base: String, apiKey: String, query: String, category: String, engine: String,
                              siteURL: String, route: FetchRoute, timeout: Int) async throws -> [SearchResult] {
        guard let url = searchURL(base: base, apiKey: apiKey, query: query, category: category),
              ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { throw Failure.badURL }
        let data = try await HTTPFetch.get(url.absoluteString, route: route, timeout: timeout, maxBytes: 16 << 20)
        return try parse(Data(data), engine: engine, siteURL: siteURL)
    }

    /// The `<item>`s of a Torznab RSS answer; an `<error code description>` answer throws.
    public static func parse(_ data: Data, engine: String, siteURL: String) throws -> [SearchResult] {
        let bytes = [UInt8](data)
        if let problem = PlainDocument.problem(bytes) { throw Failure.indexer(problem) }
        let reader = FeedReader()
        let parser = XMLParser(data: Data(EmptyInstructions.padded(bytes)))
        parser.delegate = reader
        parser.shouldProcessNamespaces = false
        _ = parser.parse()
        if let error = reader.error { throw Failure.indexer(error) }
        return reader.items.compactMap { item in
            let link = item.attributes["magneturl"] ?? item.enclosure ?? item.fields["link"] ?? ""
            let title = item.fields["title"] ?? ""
            guard !link.isEmpty, !title.isEmpty else { return nil }
            let seeders = Int64(item.attributes["seeders"] ?? "") ?? -1
            let peers = Int64(item.attributes["peers"] ?? "")
            let leechers = Int64(item.attributes["leechers"] ?? "") ?? peers.map { max(-1, $0 - max(seeders, 0)) } ?? -1
            let size = Int64(item.fields["size"] ?? item.attributes["size"] ?? item.enclosureLength ?? "") ?? -1
            let date = item.fields["pubDate"].flatMap(rfc822).map { Int64($0.timeIntervalSince1970) } ?? -1
            return SearchResult(fileName: title, fileURL: link, fileSize: size, seeders: seeders, leechers: leechers,
                                siteURL: siteURL, descriptionLink: item.fields["comments"] ?? item.fields["guid"] ?? "",
                                engineName: engine, pubDate: date)
        }
    }

    static func rfc822(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["EEE, dd MMM yyyy HH:mm:ss Z", "dd MMM yyyy HH:mm:ss Z", "EEE, dd MMM yyyy HH:mm Z"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text.trimmingCharacters(in: .whitespaces)) { return date }
        }
        return nil
    }
}

/// SAX reader for the RSS items of a Torznab answer.
private final class FeedReader: NSObject, XMLParserDelegate {
    struct Item {
        var fields: [String: String] = [:]
        var attributes: [String: String] = [:]
        var enclosure: String?
        var enclosureLength: String?
    }

    var items: [Item] = []
    var error: String?
    private var current: Item?
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
        switch name {
        case "item": current = Item()
        case "error": error = attributes["description"] ?? "code \(attributes["code"] ?? "?")"
        case "enclosure":
            current?.enclosure = attributes["url"]
            current?.enclosureLength = attributes["length"]
        case "torznab:attr", "newznab:attr":
            if let key = attributes["name"], let value = attributes["value"] { current?.attributes[key] = value }
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, foundCDATA block: Data) { text += String(decoding: block, as: UTF8.self) }

    /// Reading stops at the first error, keeping the items before it. libxml2 would recover and go on, handing
    /// Foundation element names that are not UTF-8, which crashes the process (found by `qbtd-fuzz torznab`).
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { parser.abortParsing() }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "item", let item = current {
            items.append(item)
            current = nil
        } else if current != nil, ["title", "link", "size", "pubDate", "comments", "guid"].contains(name) {
            current?.fields[name] = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        text = ""
    }
}
