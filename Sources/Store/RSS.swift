import Foundation
import GRDB

/// One item of the RSS tree: a folder (no url) or a feed.
public struct RSSItemRecord: Sendable, Equatable {
    public var path: String
    public var uid: String?
    public var url: String?
    /// Seconds; 0 = the global `rss_refresh_interval`.
    public var refreshInterval: Int
    public var etag: String?
    public var lastModified: String?

    public init(path: String, uid: String? = nil, url: String? = nil, refreshInterval: Int = 0, etag: String? = nil,
                lastModified: String? = nil) {
        self.path = path
        self.uid = uid
        self.url = url
        self.refreshInterval = refreshInterval
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// One stored article of a feed.
public struct RSSArticleRecord: Sendable, Equatable {
    public var feedUID: String
    public var id: String
    /// Seconds since 1970 (the order).
    public var date: Double
    /// The article's JSON record without `isRead`.
    public var data: String
    public var isRead: Bool

    public init(feedUID: String, id: String, date: Double, data: String, isRead: Bool) {
        self.feedUID = feedUID
        self.id = id
        self.date = date
        self.data = data
        self.isRead = isRead
    }
}

/// One auto-download rule: its name, the order it was added in, its JSON.
public struct RSSRuleRecord: Sendable, Equatable {
    public var name: String
    public var position: Int
    public var definition: String

    public init(name: String, position: Int, definition: String) {
        self.name = name
        self.position = position
        self.definition = definition
    }
}

/// RSS feeds, articles and download rules: the part of the store that keeps them (`store.rss`).
struct SQLiteRSSStore: RSSStore {
    let db: DatabaseQueue
}

extension SQLiteStore {
    public var rss: any RSSStore { SQLiteRSSStore(db: db) }
}

extension SQLiteRSSStore {
    public func rssItems() async throws -> [RSSItemRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM rss_items ORDER BY path").map {
                RSSItemRecord(path: $0["path"], uid: $0["uid"], url: $0["url"], refreshInterval: $0["refresh_interval"],
                              etag: $0["etag"], lastModified: $0["last_modified"])
            }
        }
    }

    /// Replaces the whole tree in one transaction (moves and removals rename many paths at once); articles of feeds
    /// that are gone go too.
    public func replaceRSSItems(_ items: [RSSItemRecord]) async throws {
        try await db.write { db in
            try db.execute(sql: "DELETE FROM rss_items")
            for i in items {
                try db.execute(sql: """
                    INSERT INTO rss_items (path, uid, url, refresh_interval, etag, last_modified) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [i.path, i.uid, i.url, i.refreshInterval, i.etag, i.lastModified])
            }
            try db.execute(sql: "DELETE FROM rss_articles WHERE feed_uid NOT IN (SELECT uid FROM rss_items WHERE uid IS NOT NULL)")
        }
    }

    /// A feed's validators for its next conditional GET.
    public func setRSSValidators(uid: String, etag: String?, lastModified: String?) async throws {
        try await db.write { db in
            try db.execute(sql: "UPDATE rss_items SET etag = ?, last_modified = ? WHERE uid = ?",
                           arguments: [etag, lastModified, uid])
        }
    }

    public func rssArticles() async throws -> [RSSArticleRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM rss_articles ORDER BY feed_uid, date DESC").map {
                RSSArticleRecord(feedUID: $0["feed_uid"], id: $0["id"], date: $0["date"], data: $0["data"], isRead: $0["is_read"])
            }
        }
    }

    /// After a refresh: the new articles in, the evicted ones out, in one transaction.
    public func updateRSSArticles(feedUID: String, added: [RSSArticleRecord], removed: [String]) async throws {
        guard !added.isEmpty || !removed.isEmpty else { return }
        try await db.write { db in
            for id in removed {
                try db.execute(sql: "DELETE FROM rss_articles WHERE feed_uid = ? AND id = ?", arguments: [feedUID, id])
            }
            // Only for a feed that is still there; a row that exists keeps its read state.
            for a in added {
                try db.execute(sql: """
                    INSERT INTO rss_articles (feed_uid, id, date, data, is_read)
                    SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM rss_items WHERE uid = ?)
                    ON CONFLICT(feed_uid, id) DO UPDATE SET date = excluded.date, data = excluded.data
                    """, arguments: [a.feedUID, a.id, a.date, a.data, a.isRead, a.feedUID])
            }
        }
    }

    /// Marks articles read: the listed ids of one feed, or all of the feed's when `ids` is nil.
    public func markRSSArticlesRead(feedUID: String, ids: [String]?) async throws {
        try await db.write { db in
            if let ids {
                for id in ids {
                    try db.execute(sql: "UPDATE rss_articles SET is_read = 1 WHERE feed_uid = ? AND id = ?", arguments: [feedUID, id])
                }
            } else {
                try db.execute(sql: "UPDATE rss_articles SET is_read = 1 WHERE feed_uid = ?", arguments: [feedUID])
            }
        }
    }

    public func rssRules() async throws -> [RSSRuleRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM rss_rules ORDER BY position").map {
                RSSRuleRecord(name: $0["name"], position: $0["position"], definition: $0["definition"])
            }
        }
    }

    public func saveRSSRule(_ rule: RSSRuleRecord) async throws {
        try await db.write { db in
            try db.execute(sql: """
                INSERT INTO rss_rules (name, position, definition) VALUES (?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET definition = excluded.definition, position = excluded.position
                """, arguments: [rule.name, rule.position, rule.definition])
        }
    }

    public func renameRSSRule(_ name: String, to newName: String) async throws {
        try await db.write { db in
            try db.execute(sql: "UPDATE rss_rules SET name = ? WHERE name = ?", arguments: [newName, name])
        }
    }

    public func deleteRSSRule(_ name: String) async throws {
        try await db.write { db in try db.execute(sql: "DELETE FROM rss_rules WHERE name = ?", arguments: [name]) }
    }
}
