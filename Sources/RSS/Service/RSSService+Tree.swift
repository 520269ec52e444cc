import Foundation
import QBTCore
import Store

/// `rss/addFolder`, `addFeed`, `setFeedURL`, `setFeedRefreshInterval`, `removeItem`, `moveItem`: the tree changes,
/// checked in qBittorrent's order with its messages, in memory first and then in SQLite before the answer.
extension RSSService {
    /// Where a new item may go (qBittorrent's checks, in its order).
    func checkDestination(_ path: String) throws {
        guard RSSPath.isValid(path) else { throw RSSError.invalidPath(path) }
        guard items[path] == nil else { throw RSSError.pathExists(path) }
        let parent = RSSPath.parent(path)
        guard parent.isEmpty || { if case .folder? = items[parent] { true } else { false } }() else {
            throw RSSError.parentMissing(parent)
        }
    }

    public func addFolder(_ path: String) async throws {
        try checkDestination(path)
        items[path] = .folder
        try await saveTree()
    }

    /// An empty path puts the feed at the root under its URL; `refreshInterval` is 5.2's, in seconds.
    public func addFeed(url: String, path: String, refreshInterval: Int = 0) async throws {
        guard !feeds.contains(where: { $0.feed.url == url }) else { throw RSSError.feedURLExists(url) }
        let path = path.isEmpty ? url : path
        try checkDestination(path)
        let feed = RSSFeed(uid: RSSFeed.newUID(), url: url, refreshInterval: max(0, refreshInterval))
        items[path] = .feed(feed)
        try await saveTree()
        await reschedule(refreshAll: false)  // a new feed is due at once
    }

    public func setFeedURL(path: String, url: String) async throws {
        guard var feed = items[path]?.feed else { throw RSSError.feedMissing(path) }
        guard feed.url != url else { return }
        guard !feeds.contains(where: { $0.feed.url == url }) else { throw RSSError.feedURLExists(url) }
        let old = feed.url
        feed.url = url
        feed.etag = nil
        feed.lastModified = nil
        feed.lastBuildDate = ""
        items[path] = .feed(feed)
        // A feed named after its URL follows it.
        if RSSPath.name(path) == old {
            let renamed = RSSPath.join(RSSPath.parent(path), url)
            if (try? checkDestination(renamed)) != nil {
                items[renamed] = items.removeValue(forKey: path)
            }
        }
        let renamedRules = replaceAffectedFeed(old, with: url)
        try await saveTree()
        for name in renamedRules { try await saveRule(name) }
        if settings[\.rssProcessingEnabled] { refresh(uid: feed.uid) }
    }

    /// 5.2: seconds, 0 = the global interval.
    public func setFeedRefreshInterval(path: String, seconds: Int) async throws {
        guard var feed = items[path]?.feed else { throw RSSError.feedMissing(path) }
        let old = feed.refreshInterval
        feed.refreshInterval = seconds
        if let next = feed.nextRefresh { feed.nextRefresh = next + .seconds(seconds - old) }
        items[path] = .feed(feed)
        try await saveTree()
        await reschedule(refreshAll: false)
    }

    public func removeItem(_ path: String) async throws {
        guard !path.isEmpty else { throw RSSError.cannotDeleteRoot }
        guard items[path] != nil else { throw RSSError.itemMissing(path) }
        for key in items.keys where RSSPath.isWithin(key, path) { items[key] = nil }
        try await saveTree()
    }

    /// `destination` is the item's whole new path (a move and a rename at once); what a folder holds moves with it.
    public func moveItem(_ path: String, to destination: String) async throws {
        guard !path.isEmpty else { throw RSSError.cannotMoveRoot }
        guard let item = items[path] else { throw RSSError.itemMissing(path) }
        if modern {
            if destination == path { return }
            if destination.hasPrefix(path + "\\") { throw RSSError.moveIntoItself(newWording: true) }
            try checkDestination(destination)
        } else {
            try checkDestination(destination)
            if case .folder = item, RSSPath.isWithin(RSSPath.parent(destination), path) {
                throw RSSError.moveIntoItself(newWording: false)
            }
        }
        let moving = items.filter { RSSPath.isWithin($0.key, path) }
        for key in moving.keys { items[key] = nil }
        for (key, value) in moving { items[destination + key.dropFirst(path.count)] = value }
        try await saveTree()
    }

    /// Writes the whole tree (a move renames many paths at once); a feed that is gone takes its articles along.
    func saveTree() async throws {
        let records = items.map { path, item -> RSSItemRecord in
            switch item {
            case .folder: RSSItemRecord(path: path)
            case .feed(let f): RSSItemRecord(path: path, uid: f.uid, url: f.url, refreshInterval: f.refreshInterval,
                                             etag: f.etag, lastModified: f.lastModified)
            }
        }
        do { try await persist { try await $0.rss.replaceRSSItems(records) } } catch { throw RSSError.store("\(error)") }
    }

    // MARK: reading

    /// `rss/items`: folders as objects keyed by name, feeds as `{uid, url}` (and 5.2's `refreshInterval` when set),
    /// with their state and articles when `withData`.
    public func itemsJSON(withData: Bool) -> JSONValue {
        var root: [String: JSONValue] = [:]
        func insert(_ components: ArraySlice<String>, _ value: JSONValue, into object: inout [String: JSONValue]) {
            guard let first = components.first else { return }
            if components.count == 1 {
                if object[first] == nil { object[first] = value }  // a folder may exist already through a child
                return
            }
            var child = object[first]?.objectValue ?? [:]
            insert(components.dropFirst(), value, into: &child)
            object[first] = .object(child)
        }
        for path in items.keys.sorted() {
            guard let item = items[path] else { continue }
            let value: JSONValue
            switch item {
            case .folder: value = .object([:])
            case .feed(let f): value = feedJSON(f, withData: withData)
            }
            insert(path.split(separator: RSSPath.separator).map(String.init)[...], value, into: &root)
        }
        return .object(root)
    }

    func feedJSON(_ f: RSSFeed, withData: Bool) -> JSONValue {
        var o: [String: JSONValue] = ["uid": .string(f.uid), "url": .string(f.url)]
        if modern, f.refreshInterval > 0 { o["refreshInterval"] = .int(Int64(f.refreshInterval)) }
        if withData {
            o["title"] = .string(f.title)
            o["lastBuildDate"] = .string(f.lastBuildDate)
            o["isLoading"] = .bool(f.isLoading)
            o["hasError"] = .bool(f.hasError)
            o["articles"] = .array(f.articles.map(\.json))
        }
        return .object(o)
    }

    // MARK: read state

    /// `rss/markAsRead`: one article of a feed, or everything at or under a path; false when the path is unknown.
    /// Memory changes first, with no wait in between, then SQLite in one write.
    @discardableResult
    public func markAsRead(itemPath: String, articleID: String?) async throws -> Bool {
        guard itemPath.isEmpty || items[itemPath] != nil else { return false }
        var marks: [(uid: String, ids: [String]?)] = []
        if let articleID {
            guard var feed = items[itemPath]?.feed, let i = feed.articles.firstIndex(where: { $0.id == articleID }) else { return true }
            feed.articles[i].isRead = true
            items[itemPath] = .feed(feed)
            marks.append((feed.uid, [articleID]))
        } else {
            for (path, item) in items where RSSPath.isWithin(path, itemPath) {
                guard var feed = item.feed else { continue }
                for i in feed.articles.indices { feed.articles[i].isRead = true }
                items[path] = .feed(feed)
                marks.append((feed.uid, nil))
            }
        }
        do {
            try await persist { [marks] store in
                for mark in marks { try await store.rss.markRSSArticlesRead(feedUID: mark.uid, ids: mark.ids) }
            }
        } catch { throw RSSError.store("\(error)") }
        return true
    }
}
